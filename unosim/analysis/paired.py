"""Paired comparisons from streamed moments, practical-significance verdicts, Holm.

Rule sets run at one seed share game *g*'s random stream, so their per-game
results are paired: differencing game by game removes the card luck both
share. The runner (`unosim.run.run_lockstep`) streams, for each pair of
configs, the sums and sums of products of per-game features (``GF_*``);
everything here derives from those integers:

- means of per-round quantities (turns, cards drawn, points, reshuffles; in
  match mode a ratio of two per-game totals) get the paired t interval of the
  linearised per-game difference (exact differences in round mode, the delta
  method for ratios in match mode);
- per-game rates (first-player wins and stalemates in round mode, unfinished
  matches) get Newcombe's hybrid-score interval for paired proportions
  (his method 10) and McNemar's test;
- rule sets that play every game identically are reported as such, no test.

:func:`verdict` turns a difference into "longer" / "shorter" / "practically
the same" (two one-sided tests against a margin) / "not decided"; :func:`holm`
adjusts every p-value of one invocation together.

>>> import numpy as np
>>> x = np.array([[3, 1], [5, 1], [4, 1]])          # turns, rounds of 3 games
>>> y = x + np.array([[1, 0], [1, 0], [2, 0]])      # one to two turns longer
>>> ps = PairMoments.from_features(x, y, cols=(0, 1))
>>> d = ps.mean_diff(0, 1)
>>> round(d.diff, 3), d.identical
(1.333, False)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from unosim.analysis import stats
from unosim.analysis.estimates import Diff
from unosim.engine.kernel import batch as B

__all__ = [
    "DEFAULT_MARGINS",
    "PAIRED_METRICS",
    "Margin",
    "PairMoments",
    "PairedDiff",
    "Verdict",
    "holm",
    "identical_diff",
    "paired_diff",
    "parse_margin",
    "tost_p",
    "verdict",
]

NAN = float("nan")
NGF = B.NGF


@dataclass(frozen=True)
class PairedDiff(Diff):
    """``b - a`` for one metric over paired games, with what pairing bought.

    ``se_unpaired`` is the standard error the same samples would give if they
    were independent; ``games_saved`` the extra independent games per config
    that would match the paired precision. ``identical``: every game gave the
    same value under both rule sets (no interval, no test).
    """

    se: float = NAN
    se_unpaired: float = NAN
    corr: float = NAN
    n: int = 0
    base: float = NAN
    identical: bool = False

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    @property
    def games_saved(self) -> float:
        """Independent games per config the pairing saved for this precision."""
        if not (self.se > 0 and math.isfinite(self.se_unpaired)):
            return NAN
        return self.n * ((self.se_unpaired / self.se) ** 2 - 1)


def _paired(diff: float, low: float, high: float, p: float, test: str, *, se: float,
            se_u: float, corr: float, n: int, base: float) -> PairedDiff:
    return PairedDiff(diff, low, high, p, test, diff / base if base else NAN, NAN, se, se_u,
                      corr, n, base)


def identical_diff(n: int, base: float) -> PairedDiff:
    """The difference between rule sets that played all ``n`` games identically."""
    return replace(
        _paired(0.0, 0.0, 0.0, NAN, "identical game for game", se=0.0, se_u=0.0, corr=1.0,
                n=n, base=base), identical=True)


@dataclass(frozen=True)
class PairMoments:
    """Sums ``s`` and sums of products ``m`` of per-game features of two configs.

    Columns ``0 .. k-1`` are config ``a``'s features, ``k .. 2k-1`` config ``b``'s.
    """

    n: int
    s: NDArray[np.int64]
    m: NDArray[np.int64]

    @classmethod
    def from_features(cls, fa: np.ndarray, fb: np.ndarray,
                      cols: Sequence[int] | None = None) -> PairMoments:
        """Moments of per-game feature rows (tests and records use this)."""
        if cols is not None:
            fa, fb = fa[:, list(cols)], fb[:, list(cols)]
        x = np.concatenate([fa, fb], axis=1).astype(np.int64)
        return cls(len(x), x.sum(axis=0), x.T @ x)

    @property
    def k(self) -> int:
        return len(self.s) // 2

    def _cov(self, u: dict[int, Fraction], v: dict[int, Fraction]) -> Fraction:
        """Exact sample covariance of the per-game combinations ``Σ u[i]·x_i`` and
        ``Σ v[j]·x_j``: rational arithmetic on the integer moments, so no BLAS
        kernel or summation order can move a digit."""
        n = int(self.n)
        return sum((u[i] * v[j] * (n * int(self.m[i, j]) - int(self.s[i]) * int(self.s[j]))
                    for i in u for j in v), Fraction(0)) / (n * (n - 1))

    def identical(self, cols: Sequence[int]) -> bool:
        """Whether every game has the same value of each feature in ``cols`` in both."""
        k = self.k
        return all(int(self.m[c, c]) + int(self.m[k + c, k + c]) - 2 * int(self.m[c, k + c])
                   == 0 and int(self.s[c]) == int(self.s[k + c]) for c in cols)

    def mean_diff(self, num: int, den: int | None = None) -> PairedDiff:
        """Paired t interval of mean(num)/mean(den) of ``b`` minus that of ``a``.

        ``den`` None is a plain per-game mean. A ratio is linearised per game
        (delta method): ``u = (x - r·R)/mean(R)``; with ``R`` = 1 per game this
        is the exact per-game difference.
        """
        k, n = self.k, int(self.n)
        s = [int(x) for x in self.s]
        # ca, cb: the per-game linearisation of each side, as exact coefficients
        if den is None:
            qa, qb = Fraction(s[num], n), Fraction(s[k + num], n)
            ca, cb = {num: Fraction(1)}, {k + num: Fraction(1)}
        else:
            qa, qb = Fraction(s[num], s[den]), Fraction(s[k + num], s[k + den])
            ra, rb = Fraction(s[den], n), Fraction(s[k + den], n)
            ca = {num: 1 / ra, den: -qa / ra}
            cb = {k + num: 1 / rb, k + den: -qb / rb}
        va, diff = float(qa), float(qb - qa)
        cols = [num] + ([den] if den is not None else [])
        if self.identical(cols):
            return identical_diff(n, va)
        if n < 2:
            return _paired(diff, NAN, NAN, NAN, "paired t", se=NAN, se_u=NAN, corr=NAN, n=n,
                           base=va)
        var_a, var_b, cov_ab = self._cov(ca, ca), self._cov(cb, cb), self._cov(ca, cb)
        var_d = max(Fraction(0), var_a + var_b - 2 * cov_ab) / n
        se = stats.sqrt_fraction(var_d)
        var_u = max(Fraction(0), var_a + var_b) / n
        se_u = stats.sqrt_fraction(var_u)
        if var_a > 0 and var_b > 0:
            r2 = cov_ab * cov_ab / (var_a * var_b)
            corr = math.copysign(stats.sqrt_fraction(r2), cov_ab)
        else:
            corr = NAN
        t = stats.t_crit(0.95, n - 1)
        p = _t_p(diff / se, n - 1) if se > 0 else (1.0 if diff == 0 else 0.0)
        return _paired(diff, diff - t * se, diff + t * se, p, "paired t", se=se, se_u=se_u,
                       corr=corr, n=n, base=va)

    def rate_diff(self, col: int) -> PairedDiff:
        """Paired proportions of the 0/1 feature ``col``: Newcombe's interval, McNemar's test."""
        k, n = self.k, int(self.n)
        both = int(self.m[col, k + col])
        ka, kb = int(self.s[col]), int(self.s[k + col])
        n10, n01 = ka - both, kb - both  # a only, b only
        n00 = n - both - n10 - n01
        pa, pb = ka / n, kb / n
        if n10 == 0 and n01 == 0:
            return identical_diff(n, pa)
        _, la, ua = stats.wilson_interval(ka, n)
        _, lb, ub = stats.wilson_interval(kb, n)
        denom = (both + n10) * (n01 + n00) * (both + n01) * (n10 + n00)
        phi = (both * n00 - n10 * n01) / math.sqrt(denom) if denom > 0 else 0.0
        d = (kb - ka) / n  # exact, rounded once
        delta = math.sqrt(max(0.0, (pb - lb) ** 2 - 2 * phi * (pb - lb) * (ua - pa)
                              + (ua - pa) ** 2))
        eps = math.sqrt(max(0.0, (ub - pb) ** 2 - 2 * phi * (ub - pb) * (pa - la)
                            + (pa - la) ** 2))
        chi2 = (n01 - n10) ** 2 / (n01 + n10)
        p = stats.chi2_sf(chi2, 1)
        se = stats.sqrt_ratio(max(0, (n01 + n10) * n - (n01 - n10) ** 2), n ** 3)
        se_u = math.sqrt((pa * (1 - pa) + pb * (1 - pb)) / n)
        va, vb = pa * (1 - pa), pb * (1 - pb)
        corr = (both / n - pa * pb) / math.sqrt(va * vb) if va > 0 and vb > 0 else NAN
        return _paired(d, d - delta, d + eps, p, "McNemar", se=se, se_u=se_u, corr=corr, n=n,
                       base=pa)


def _t_p(t: float, df: float) -> float:
    """Two-sided p-value of Student's t."""
    return 2 * stats.t_sf(abs(t), df)


# --------------------------------------------------------------------------- #
# Which metric pairs how
# --------------------------------------------------------------------------- #

# metric key -> (how, numerator feature, denominator feature or None, round mode only)
PAIRED_METRICS: dict[str, tuple[str, int, int | None]] = {
    "turns_mean": ("mean", B.GF_TURNS, B.GF_ROUNDS),
    "drawn_mean": ("mean", B.GF_DRAWN, B.GF_ROUNDS),
    "points_mean": ("mean", B.GF_POINTS, B.GF_ROUNDS),
    "reshuffles_per_round": ("mean", B.GF_RESHUFFLES, B.GF_ROUNDS),
    "first_player_win_rate": ("rate", B.GF_FIRST_WINS, B.GF_ROUNDS),
    "first_player_vs_fair": ("fair", B.GF_FIRST_WINS, B.GF_ROUNDS),
    "stalemate_rate": ("rate", B.GF_STALEMATES, B.GF_ROUNDS),
    "match_rounds_mean": ("mean", B.GF_ROUNDS, None),
    "unfinished_rate": ("rate", B.GF_UNFINISHED, None),
}


def paired_diff(pm: PairMoments, key: str, match: bool, players: int = 0
                ) -> PairedDiff | None:
    """The paired difference of metric ``key`` (None: the metric does not pair).

    In round mode a game is one round, so per-round rates are per-game 0/1
    features (Newcombe/McNemar); in match mode they are ratios over the
    rounds of each match (delta method). ``players`` scales the fair-share ratio.
    """
    spec = PAIRED_METRICS.get(key)
    if spec is None:
        return None
    how, num, den = spec
    if den is not None and not match:
        # a match-mode config beside round-mode ones: its games hold several rounds, so
        # per-round figures are ratios on both sides (a one-round game's ratio is exact)
        k, n = pm.k, int(pm.n)
        match = int(pm.s[den]) != n or int(pm.s[k + den]) != n
    if how in ("rate", "fair") and (den is None or not match):
        d = pm.rate_diff(num)
    else:
        d = pm.mean_diff(num, den if match else None)
    if how == "fair":
        f = float(players)
        d = replace(d, diff=f * d.diff, low=f * d.low, high=f * d.high, se=f * d.se,
                    se_unpaired=f * d.se_unpaired, base=f * d.base)
    return d


# --------------------------------------------------------------------------- #
# Verdicts
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class Margin:
    """A difference too small to matter: ``value`` absolute, or relative to the baseline."""

    value: float
    relative: bool

    def absolute(self, base: float) -> float:
        return abs(base) * self.value if self.relative else self.value

    def __str__(self) -> str:
        return f"{100 * self.value:g}% of the baseline" if self.relative else f"{self.value:g}"


# 1% of the baseline for lengths and counts; 0.5 percentage points for rates
DEFAULT_MARGINS: dict[str, Margin] = {
    "turns_mean": Margin(0.01, True), "turns_median": Margin(0.01, True),
    "turns_p90": Margin(0.01, True), "drawn_mean": Margin(0.01, True),
    "points_mean": Margin(0.01, True), "reshuffles_per_round": Margin(0.01, True),
    "match_rounds_mean": Margin(0.01, True), "margin_mean": Margin(0.01, True),
    "first_player_win_rate": Margin(0.005, False), "stalemate_rate": Margin(0.005, False),
    "unfinished_rate": Margin(0.005, False), "first_player_vs_fair": Margin(0.02, False),
}


def parse_margin(spec: str, rate: bool) -> Margin:
    """``2%`` (of the baseline) or an absolute number; for rates a number is in
    percentage points.

    >>> parse_margin("2%", rate=False), parse_margin("0.5", rate=True)
    (Margin(value=0.02, relative=True), Margin(value=0.005, relative=False))
    """
    text = spec.strip()
    try:
        if text.endswith("%"):
            value = float(text[:-1]) / 100
            m = Margin(value, True)
        else:
            value = float(text)
            m = Margin(value / 100 if rate else value, False)
    except ValueError:
        raise ValueError(f"margin {spec!r} is not a number or a percentage") from None
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"margin {spec!r} must be positive")
    return m


def tost_p(diff: float, se: float, margin: float, df: float) -> float:
    """p-value of two one-sided t tests that ``|true difference| < margin``."""
    if not (se > 0) or not math.isfinite(se):
        return 0.0 if abs(diff) < margin else 1.0
    return max(stats.t_sf((diff + margin) / se, df), stats.t_cdf((diff - margin) / se, df))


@dataclass(frozen=True)
class Verdict:
    """A decision on one difference: ``word`` is higher / lower / same / undecided / identical."""

    word: str
    p_diff: float  # Holm-adjusted p of "no difference"
    p_same: float  # Holm-adjusted p of "differs by at least the margin" (TOST)
    margin: float  # absolute


def verdict(diff: float, p_diff: float, p_same: float, margin: float,
            identical: bool = False, alpha: float = 0.05) -> Verdict:
    """The decision for adjusted p-values: within the margin beats a tiny detected shift.

    >>> verdict(0.3, 0.001, 0.2, 0.1).word, verdict(0.01, 0.001, 0.001, 0.1).word
    ('higher', 'same')
    >>> verdict(0.05, 0.4, 0.3, 0.1).word
    'undecided'
    """
    if identical:
        return Verdict("identical", NAN, NAN, margin)
    if p_same < alpha:
        return Verdict("same", p_diff, p_same, margin)
    if p_diff < alpha:
        return Verdict("higher" if diff > 0 else "lower", p_diff, p_same, margin)
    return Verdict("undecided", p_diff, p_same, margin)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment (nan stays nan and is not counted).

    >>> [round(p, 3) for p in holm([0.01, 0.04, 0.03, float("nan")])]
    [0.03, 0.06, 0.06, nan]
    """
    idx = [i for i, p in enumerate(pvalues) if math.isfinite(p)]
    order = sorted(idx, key=lambda i: pvalues[i])
    m = len(order)
    out = [NAN] * len(pvalues)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        out[i] = running
    return out
