"""Statistics on per-round histograms and win counts (the sentences built on them are
``unosim.report.verdicts``).

The simulator never keeps per-round samples: it aggregates each statistic into an
exact integer histogram ``hist`` where ``hist[v]`` is the number of rounds whose
value was ``v`` (turns, points, cards drawn, ...). Every function here works on
those histograms directly, in time proportional to the number of bins, so that
comparisons over millions of rounds cost no more than over a thousand.

Conventions:

* Quantiles use the *inverted CDF* definition (numpy ``method="inverted_cdf"``,
  Hyndman & Fan type 1): the q-quantile is the smallest value ``v`` with
  ``F(v) >= q``. It always returns an observed integer value ("median 41 turns"),
  and the median of an even-sized sample is the lower of the two middle values.
* Differences are always "second minus first" (``b - a``): the second argument is
  the rule set being described, the first is the baseline.
* Undefined quantities (empty histograms, a standard deviation from one round)
  are ``nan`` rather than errors, so reports of sparse configurations still render.
"""

from __future__ import annotations

import functools
import importlib
import json
import math
from dataclasses import dataclass
from fractions import Fraction
from numbers import Integral
from statistics import NormalDist
from types import ModuleType

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "HistSummary",
    "MeanDiff",
    "ProportionDiff",
    "bootstrap_diff_hist",
    "chi_square_uniform",
    "ci_decimals",
    "ci_label",
    "diff_of_means_hist",
    "format_ci",
    "format_fixed",
    "hist_sums",
    "mann_whitney_hist",
    "quantile_hist",
    "summarize_hist",
    "chi2_sf",
    "norm_sf",
    "sqrt_fraction",
    "sqrt_ratio",
    "t_cdf",
    "t_crit",
    "t_ppf",
    "t_sf",
    "two_proportion_test",
    "welch_diff",
    "wilson_interval",
    "z_crit",
]


_NORMAL = NormalDist()


def _special() -> ModuleType:
    """scipy.special, imported on first use. The distribution functions below call
    it directly: importing scipy.stats costs about a second of every report."""
    return importlib.import_module("scipy.special")


# From this many degrees of freedom on, t's quantile comes from its Cornish-Fisher
# expansion around the normal one (relative error below 1e-12 at 1,000; checked
# against scipy in tests/analysis/test_stats.py): a run's report then needs no scipy import.
T_SERIES_DF = 1000.0


# The 97.5% quantile of t for whole df 1-999 (a 95% interval from up to 1,000 rounds):
# scipy's own values, read from t975.json instead of importing scipy.special (a tenth of
# a second of CPU, most of a short run's summary). tests/analysis/test_stats.py checks
# every entry against scipy, so a printed digit cannot depend on which path gave it.
T975_Q = 0.5 + 0.95 / 2.0


@functools.cache
def _t975() -> tuple[float, ...]:
    from importlib import resources

    text = resources.files("unosim.analysis").joinpath("t975.json").read_text()
    return tuple(float(v) for v in json.loads(text))


def t_ppf(q: float, df: float) -> float:
    """Quantile of Student's t.

    >>> round(t_ppf(0.975, 10), 3), round(t_ppf(0.975, 10**6), 4)
    (2.228, 1.96)
    """
    if q == T975_Q and 1 <= df < T_SERIES_DF and df == int(df):  # nan, inf fail first
        return _t975()[int(df) - 1]
    if df < T_SERIES_DF or not 0.0 < q < 1.0:
        return float(_special().stdtrit(df, q))
    z = _NORMAL.inv_cdf(q)
    z2 = z * z
    g1 = (z2 + 1.0) * z / 4.0
    g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0
    g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / 384.0
    g4 = ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) * z / 92160.0
    return z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df


def t_sf(x: float, df: float) -> float:
    """Upper tail of Student's t.

    >>> round(t_sf(2.228, 10), 3)
    0.025
    """
    return float(_special().stdtr(df, -x))


def t_cdf(x: float, df: float) -> float:
    """Lower tail of Student's t."""
    return float(_special().stdtr(df, x))


def norm_sf(x: float) -> float:
    """Upper tail of the standard normal.

    >>> round(norm_sf(1.96), 4)
    0.025
    """
    return 0.5 * math.erfc(x / math.sqrt(2.0))


def chi2_sf(x: float, df: float) -> float:
    """Upper tail of chi-squared with ``df`` degrees of freedom.

    For a whole ``df`` up to 1,000 (a table's seats, a trend's points) it is the
    closed form in ``exp`` and ``erfc``, so a report needs no scipy; other
    ``df`` go to scipy.special.

    >>> round(chi2_sf(3.841, 1), 3), round(chi2_sf(9.488, 4), 3)
    (0.05, 0.05)
    """
    if df != int(df) or not 1 <= df <= 1000 or not math.isfinite(x):
        return float(_special().chdtrc(df, x))
    if x <= 0.0:
        return 1.0
    half, m = x / 2.0, int(df) // 2
    if int(df) % 2 == 0:  # e^(-x/2) * sum_{i<m} (x/2)^i / i!
        term = total = math.exp(-half)
        for i in range(1, m):
            term *= half / i
            total += term
        return min(1.0, total)
    # odd: erfc(sqrt(x/2)) + sqrt(2/pi) e^(-x/2) * sum_{r=1..m} x^(r-1/2) / (1*3*...*(2r-1))
    total = math.erfc(math.sqrt(half))
    term = math.sqrt(2.0 * x / math.pi) * math.exp(-half)
    for r in range(1, m + 1):
        total += term
        term *= x / (2 * r + 1)
    return min(1.0, total)


NAN = float("nan")

# Histograms and count rows after `_as_hist`: whole numbers as int64, so sums are exact.
Counts = NDArray[np.int64]
# Per-row statistics (means, quantiles): one float per row.
Floats = NDArray[np.float64]


# --------------------------------------------------------------------------- #
# Histogram basics
# --------------------------------------------------------------------------- #


def _as_hist(hist: ArrayLike) -> Counts:
    """Validate a histogram and return it as int64, so callers can trust counts."""
    h = np.asarray(hist)
    if h.ndim != 1:
        raise ValueError(f"histogram must be 1-D, got shape {h.shape}")
    if (
        h.size
        and not np.issubdtype(h.dtype, np.integer)
        and (not np.all(np.isfinite(h)) or np.any(h != np.round(h)))
    ):
        raise ValueError("histogram counts must be whole numbers")
    counts = h.astype(np.int64, copy=False)
    if counts.size and counts.min() < 0:
        raise ValueError("histogram counts must be non-negative")
    return counts


def _pad(h1: Counts, h2: Counts) -> tuple[Counts, Counts]:
    """Bring two histograms to a common length so bins line up by value."""
    m = max(h1.size, h2.size)
    return np.pad(h1, (0, m - h1.size)), np.pad(h2, (0, m - h2.size))


def hist_sums(hist: ArrayLike) -> tuple[int, int, int]:
    """(n, sum of v, sum of v²) over the rounds of a histogram, as exact integers.

    Python integers, never floats or numpy reductions: every moment is a ratio
    of these, rounded once, so no BLAS kernel, SIMD width or summation order
    can move a printed digit.

    >>> hist_sums([0, 2, 1])  # values 1, 1, 2
    (3, 4, 6)
    """
    h = _as_hist(hist)
    nz = np.flatnonzero(h)
    vals, cnts = nz.tolist(), h[nz].tolist()
    n = sum(cnts)
    s1 = sum(v * c for v, c in zip(vals, cnts, strict=True))
    s2 = sum(v * v * c for v, c in zip(vals, cnts, strict=True))
    return n, s1, s2


def sqrt_ratio(num: int, den: int = 1) -> float:
    """sqrt(num / den) for integers, correctly rounded (one rounding of the exact root).

    The integer square root of the scaled ratio keeps two guard bits and a
    sticky bit, so the one conversion to float rounds as IEEE would round the
    exact value: the same bits on every machine.

    >>> sqrt_ratio(2) == math.sqrt(2), sqrt_ratio(1, 4), sqrt_ratio(0, 7)
    (True, 0.5, 0.0)
    """
    if den <= 0 or num < 0:
        raise ValueError(f"need num >= 0 and den > 0, got {num}/{den}")
    if num == 0:
        return 0.0
    shift = 112 - (num.bit_length() - den.bit_length())
    shift += shift & 1  # even, so the root scales by a whole power of two
    top, bottom = (num << shift, den) if shift >= 0 else (num, den << -shift)
    scaled, rem = divmod(top, bottom)
    root = math.isqrt(scaled)  # at least 55 bits
    if rem or root * root != scaled:
        root |= 1  # inexact: the sticky bit rounds as the true root would
    return math.ldexp(float(root), -shift // 2)


def sqrt_fraction(q: Fraction) -> float:
    """`sqrt_ratio` of a non-negative rational.

    >>> sqrt_fraction(Fraction(9, 4))
    1.5
    """
    return sqrt_ratio(q.numerator, q.denominator)


def _moments(h: Counts) -> tuple[int, float, float]:
    """(n, mean, sample variance) of a histogram; nan where undefined.

    Exact: the variance is (n·Σv² - (Σv)²) / (n(n-1)) in integers, one rounding.
    """
    n, s1, s2 = hist_sums(h)
    if n == 0:
        return 0, NAN, NAN
    if n < 2:
        return n, s1 / n, NAN
    return n, s1 / n, (n * s2 - s1 * s1) / (n * (n - 1))


def _quantile_rows(counts: Counts, q: float) -> Floats:
    """Inverted-CDF q-quantile of each row of a 2-D count array (vectorised)."""
    cum = np.cumsum(counts, axis=1)
    n = cum[:, -1]
    k = np.maximum(np.ceil(q * n), 1)
    return np.asarray((cum >= k[:, None]).argmax(axis=1), dtype=np.float64)


def quantile_hist(hist: ArrayLike, q: float) -> float:
    """Inverted-CDF q-quantile of a histogram: smallest v with F(v) >= q.

    Matches ``np.quantile(expanded, q, method="inverted_cdf")``; chosen because
    it always yields an observed value. ``nan`` for an empty histogram.
    """
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"q must be in [0, 1], got {q}")
    h = _as_hist(hist)
    if h.sum() == 0:
        return NAN
    return float(_quantile_rows(h[None, :], q)[0])


@dataclass(frozen=True)
class HistSummary:
    """Descriptive statistics of one per-round histogram.

    ``std`` is the sample standard deviation (ddof=1); ``ci_low``/``ci_high`` is
    a t-based ``conf`` interval for the mean. Quantiles are inverted-CDF.
    """

    n: int
    mean: float
    std: float
    sem: float
    median: float
    p10: float
    p90: float
    min: float
    max: float
    ci_low: float
    ci_high: float
    conf: float = 0.95


def t_crit(conf: float, df: float) -> float:
    """Two-sided critical value of Student's t with ``df`` degrees of freedom.

    >>> round(t_crit(0.95, 10), 3)
    2.228
    """
    return t_ppf(0.5 + conf / 2.0, df)


def summarize_hist(hist: ArrayLike, conf: float = 0.95) -> HistSummary:
    """Summarise a histogram without expanding it (O(bins), any number of rounds)."""
    h = _as_hist(hist)
    n, s1, s2 = hist_sums(h)
    if n == 0:
        return HistSummary(0, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, conf)
    nz = np.flatnonzero(h)
    mean = s1 / n
    ss = n * s2 - s1 * s1  # n(n-1) times the sample variance, exact
    std = sqrt_ratio(ss, n * (n - 1)) if n >= 2 else NAN
    sem = sqrt_ratio(ss, n * n * (n - 1)) if n >= 2 else NAN
    if n >= 2:
        half = t_crit(conf, n - 1) * sem
        lo, hi = mean - half, mean + half
    else:
        lo = hi = NAN
    rows = h[None, :]
    return HistSummary(
        n=n,
        mean=mean,
        std=std,
        sem=sem,
        median=float(_quantile_rows(rows, 0.5)[0]),
        p10=float(_quantile_rows(rows, 0.1)[0]),
        p90=float(_quantile_rows(rows, 0.9)[0]),
        min=float(nz[0]),
        max=float(nz[-1]),
        ci_low=lo,
        ci_high=hi,
        conf=conf,
    )


# --------------------------------------------------------------------------- #
# Proportions
# --------------------------------------------------------------------------- #


def z_crit(conf: float) -> float:
    """Two-sided critical value of the standard normal.

    >>> round(z_crit(0.95), 3)
    1.96
    """
    return _NORMAL.inv_cdf(0.5 + conf / 2.0)


def wilson_interval(k: float | Fraction, n: int, conf: float = 0.95
                    ) -> tuple[float, float, float]:
    """Wilson score interval (rate, low, high) for k successes in n trials.

    Wilson rather than Wald because win rates near 0 or 1 (and small pilot runs)
    make the Wald interval overshoot [0, 1] and under-cover. ``n == 0`` gives nans.
    ``k`` may be a fraction (match wins shared k ways); the rate is then still
    its exact ratio, rounded once.
    """
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return NAN, NAN, NAN
    n = int(n)
    if isinstance(k, Integral):  # integer ratios are correctly rounded as they are
        ki = int(k)
        p, spread = ki / n, ki * (n - ki) / n
    else:
        kq = Fraction(k)
        p, spread = float(kq / n), float(kq * (n - kq) / n)
    z = z_crit(conf)
    z2 = z * z
    denom = n + z2
    centre = (float(k) + z2 / 2.0) / denom
    half = z * math.sqrt(spread + z2 / 4.0) / denom
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return p, low, high


@dataclass(frozen=True)
class ProportionDiff:
    """Difference of two rates, ``diff = rate2 - rate1``, with a ``conf`` CI.

    The interval is Newcombe's hybrid score interval (his method 10); the
    p-value is from the pooled two-proportion z-test.
    """

    diff: float
    low: float
    high: float
    p_value: float
    rate1: float = NAN
    rate2: float = NAN
    conf: float = 0.95


def two_proportion_test(
    k1: int, n1: int, k2: int, n2: int, conf: float = 0.95
) -> ProportionDiff:
    """Compare rate k2/n2 against baseline k1/n1.

    Newcombe's interval combines the two Wilson intervals, so it stays inside
    [-1, 1] and behaves for rates near 0 or 1 where Wald's does not.
    """
    if n1 == 0 or n2 == 0:
        r1 = k1 / n1 if n1 else NAN
        r2 = k2 / n2 if n2 else NAN
        return ProportionDiff(NAN, NAN, NAN, NAN, r1, r2, conf)
    p1, l1, u1 = wilson_interval(k1, n1, conf)
    p2, l2, u2 = wilson_interval(k2, n2, conf)
    d = p2 - p1
    low = d - math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2)
    high = d + math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2)
    pooled = (k1 + k2) / (n1 + n2)
    se = math.sqrt(pooled * (1.0 - pooled) * (1.0 / n1 + 1.0 / n2))
    if se == 0.0:
        # Both groups all-success or all-failure: identical, nothing to test.
        p_value = 1.0
    else:
        p_value = float(min(1.0, 2.0 * norm_sf(abs(d) / se)))
    return ProportionDiff(d, low, high, p_value, p1, p2, conf)


def chi_square_uniform(counts: ArrayLike) -> float:
    """p-value of Pearson's chi-square test that all categories are equally likely.

    Used for "are wins by seat position fair?". The chi-square approximation
    wants expected counts of about 5 or more per category. ``nan`` when there
    are fewer than two categories or no observations.
    """
    c = _as_hist(counts).tolist()
    total = sum(c)
    if len(c) < 2 or total == 0:
        return NAN
    # sum of (c - N/k)² / (N/k) is (k·Σc² - N²) / N: exact integers, one division
    chi2 = (len(c) * sum(x * x for x in c) - total * total) / total
    return chi2_sf(chi2, len(c) - 1)


# --------------------------------------------------------------------------- #
# Comparing two histograms
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class MeanDiff:
    """Welch comparison of two means: ``diff = mean2 - mean1`` with a ``conf`` CI.

    ``rel_change = diff / mean1`` (nan when ``mean1 == 0``).
    """

    mean1: float
    mean2: float
    diff: float
    low: float
    high: float
    rel_change: float
    p_value: float
    conf: float = 0.95


def diff_of_means_hist(h1: ArrayLike, h2: ArrayLike, conf: float = 0.95) -> MeanDiff:
    """Welch's t-test and CI for ``mean(h2) - mean(h1)`` from histogram moments.

    Welch rather than pooled-variance because rule changes routinely change
    the spread of round lengths as well as their mean.
    """
    n1, a1, b1 = hist_sums(h1)
    n2, a2, b2 = hist_sums(h2)
    m1 = a1 / n1 if n1 else NAN
    m2 = a2 / n2 if n2 else NAN
    d = (a2 * n1 - a1 * n2) / (n1 * n2) if n1 and n2 else m2 - m1  # exact, rounded once
    rel = (a2 * n1 - a1 * n2) / (a1 * n2) if n2 and a1 else NAN
    if n1 < 2 or n2 < 2:
        return MeanDiff(m1, m2, d, NAN, NAN, rel, NAN, conf)
    se1 = sqrt_ratio(n1 * b1 - a1 * a1, n1 * n1 * (n1 - 1))
    se2 = sqrt_ratio(n2 * b2 - a2 * a2, n2 * n2 * (n2 - 1))
    _, low, high, p_value = welch_diff(m1, se1, n1 - 1, m2, se2, n2 - 1, conf=conf, diff=d)
    return MeanDiff(m1, m2, d, low, high, rel, p_value, conf)


def welch_diff(m1: float, se1: float, df1: float, m2: float, se2: float, df2: float, *,
               conf: float = 0.95, diff: float | None = None
               ) -> tuple[float, float, float, float]:
    """Welch difference ``m2 - m1``: (diff, low, high, p) from two means'
    standard errors and degrees of freedom (also for batch-means estimates).
    ``diff``, when given, is ``m2 - m1`` computed exactly by the caller."""
    d = m2 - m1 if diff is None else diff
    a, b = se1 * se1, se2 * se2
    se = math.sqrt(a + b)
    if not math.isfinite(se):
        return d, NAN, NAN, NAN
    if se == 0.0:
        # Both samples constant: the difference is known exactly.
        return d, d, d, 1.0 if d == 0 else 0.0
    df = (a + b) ** 2 / (a * a / df1 + b * b / df2)
    half = t_crit(conf, df) * se
    return d, d - half, d + half, float(2.0 * t_sf(abs(d) / se, df))


def mann_whitney_hist(
    h1: ArrayLike, h2: ArrayLike, use_continuity: bool = True
) -> tuple[float, float]:
    """Mann-Whitney U of sample 1 and its two-sided p-value, from histograms.

    Histogram data are all ties, so midranks and the tie correction come
    straight from the bin counts in O(bins). U is exact (integer arithmetic);
    the p-value uses the tie-corrected normal approximation, matching
    ``scipy.stats.mannwhitneyu(x, y, method="asymptotic")``. Returns
    ``(nan, nan)`` if either sample is empty and p = 1 if all values are equal.
    """
    a, b = _pad(_as_hist(h1), _as_hist(h2))
    nz = np.flatnonzero(a + b)
    av, bv = a[nz].tolist(), b[nz].tolist()
    n1, n2 = sum(av), sum(bv)
    if n1 == 0 or n2 == 0:
        return NAN, NAN
    # U1 = #{(x, y): x > y} + #{x == y} / 2, so 2*U1 is an exact integer; the tie
    # term sum(t³ - t) too. Python integers: exact at any number of rounds.
    u1_twice = ties = below = 0
    for x, y in zip(av, bv, strict=True):
        u1_twice += x * (2 * below + y)
        below += y
        t = x + y
        ties += t * t * t - t
    n = n1 + n2
    # var = n1·n2/12 · ((n+1) - ties/(n(n-1))) = n1·n2·var_num / (12·n(n-1))
    var_num = (n + 1) * n * (n - 1) - ties
    u1 = u1_twice / 2
    if var_num <= 0:
        return u1, 1.0
    # z = (|U - n1·n2/2| - 0.5) / sqrt(var) from exact integers, rounded once
    excess = abs(u1_twice - n1 * n2) - (1 if use_continuity else 0)  # twice the numerator
    z = math.copysign(sqrt_ratio(excess * excess * 12 * n * (n - 1), 4 * n1 * n2 * var_num),
                      excess)
    p = float(min(1.0, 2.0 * norm_sf(z)))
    return u1, p


def _stat_rows(counts: Counts, stat: str | float) -> Floats:
    """Evaluate a named statistic on each row of a 2-D count array."""
    if stat == "mean":  # integer sums (numpy's own loop, no BLAS), one division each
        totals = counts.astype(np.int64) @ np.arange(counts.shape[1], dtype=np.int64)
        means: Floats = totals / counts.sum(axis=1)
        return means
    if stat == "median":
        return _quantile_rows(counts, 0.5)
    if isinstance(stat, str) and stat.startswith("p") and stat[1:].isdigit():
        return _quantile_rows(counts, int(stat[1:]) / 100.0)
    if isinstance(stat, (int, float)) and not isinstance(stat, bool) and 0 <= stat <= 1:
        return _quantile_rows(counts, float(stat))
    raise ValueError(f"unknown statistic {stat!r}: use 'mean', 'median', 'pNN' or q")


def bootstrap_diff_hist(
    h1: ArrayLike,
    h2: ArrayLike,
    stat: str | float = "median",
    n_boot: int = 2000,
    seed: int | np.random.SeedSequence | np.random.Generator = 0,
    conf: float = 0.95,
) -> tuple[float, float, float]:
    """Percentile-bootstrap CI for ``stat(h2) - stat(h1)``: (diff, low, high).

    For statistics like the median, which have no simple standard error.
    Resampling a histogram is one multinomial draw over its bins, so the cost
    is O(n_boot * bins) whatever the number of rounds. ``stat`` is ``"mean"``,
    ``"median"``, ``"pNN"`` (e.g. ``"p90"``) or a quantile in [0, 1]. The RNG
    comes only from ``seed``, so results are reproducible.
    """
    a, b = _pad(_as_hist(h1), _as_hist(h2))
    n1, n2 = int(a.sum()), int(b.sum())
    if n1 == 0 or n2 == 0:
        _stat_rows(np.ones((1, 1), dtype=np.int64), stat)  # still reject bad stat
        return NAN, NAN, NAN
    obs = _stat_rows(np.vstack([a, b]), stat)
    diff = float(obs[1] - obs[0])
    rng = np.random.default_rng(seed)
    r1 = rng.multinomial(n1, a / n1, size=n_boot)
    r2 = rng.multinomial(n2, b / n2, size=n_boot)
    diffs = _stat_rows(r2, stat) - _stat_rows(r1, stat)
    alpha = 1.0 - conf
    low, high = np.quantile(diffs, [alpha / 2.0, 1.0 - alpha / 2.0])
    return diff, float(low), float(high)


# --------------------------------------------------------------------------- #
# How many digits an interval supports
# --------------------------------------------------------------------------- #


def ci_decimals(low: float, high: float, sig: int = 2) -> int:
    """Decimal places showing ``sig`` significant digits of the CI half-width.

    Enough digits that the endpoints differ, no more than the interval
    supports. Falls back to 1 for degenerate (zero-width or nan) intervals.
    """
    half = (high - low) / 2.0
    if not math.isfinite(half) or half <= 0.0:
        return 1
    rounded = float(f"{half:.{sig - 1}e}")  # so 0.0996 counts as 0.10
    return int(min(10, max(0, sig - 1 - math.floor(math.log10(rounded)))))


def format_fixed(x: float, d: int, signed: bool = False) -> str:
    """Fixed-point with thousands separators, never printing '-0.0'."""
    s = f"{x:{'+' if signed else ''},.{d}f}"
    if s.lstrip("+-").strip("0.,") == "":
        s = f"{0.0:{'+' if signed else ''}.{d}f}"
    return s


def ci_label(conf: float) -> str:
    """``"95% CI"`` for ``conf`` 0.95."""
    return f"{100.0 * conf:g}% CI"


def format_ci(
    value: float,
    low: float,
    high: float,
    conf: float = 0.95,
    decimals: int | None = None,
) -> str:
    """``"41.23 (95% CI 41.10–41.36)"``; rounding from the CI width unless given.

    Uses "to" instead of an en dash when an endpoint is negative, so
    "-0.2–0.4" cannot be misread.
    """
    d = ci_decimals(low, high) if decimals is None else decimals
    sep = " to " if (low < 0 or high < 0) else "–"
    return (f"{format_fixed(value, d)} ({ci_label(conf)} "
            f"{format_fixed(low, d)}{sep}{format_fixed(high, d)})")
