"""Tests for unosim.analysis.stats and unosim.analysis.estimates: textbook values,
agreement with numpy/scipy on expanded samples, calibration under a true null, and
headline estimates with exact per-round intervals."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats as st

from unosim.analysis.estimates import (
    METRIC_BY_KEY,
    METRICS,
    compare_aggregates,
    estimate,
    metric_diff,
    order_ci,
    per_round_estimate,
    per_round_se,
)
from unosim.analysis.paired import PairMoments
from unosim.analysis.stats import (
    HistSummary,
    bootstrap_diff_hist,
    chi2_sf,
    chi_square_uniform,
    ci_decimals,
    diff_of_means_hist,
    format_ci,
    hist_sums,
    mann_whitney_hist,
    quantile_hist,
    sqrt_ratio,
    summarize_hist,
    two_proportion_test,
    wilson_interval,
)
from unosim.analysis.trend import linear_trend


def expand(hist: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(len(hist)), hist)


def turns_hist(rng: np.random.Generator, n: int, shift: int = 0) -> np.ndarray:
    """A skewed, heavily tied turns-per-round-like histogram."""
    return np.bincount(rng.negative_binomial(4, 0.1, size=n) + 8 + shift)


# --------------------------------------------------------------------------- #
# Wilson and Newcombe: published values
# --------------------------------------------------------------------------- #

# Newcombe (1998) Stat Med 17:857-872, Table I, method 3 (Wilson score, no CC).
WILSON_CASES = [
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0000, 0.1611),
    (1, 29, 0.0061, 0.1718),
    (29, 29, 0.8830, 1.0000),
    (0, 10, 0.0000, 0.2775),
]


@pytest.mark.parametrize(("k", "n", "low", "high"), WILSON_CASES)
def test_wilson_textbook(k: int, n: int, low: float, high: float) -> None:
    rate, lo, hi = wilson_interval(k, n)
    assert rate == pytest.approx(k / n)
    assert round(lo, 4) == low
    assert round(hi, 4) == high


def test_wilson_81_of_263_rate() -> None:
    assert round(wilson_interval(81, 263)[0], 4) == 0.3080


def test_wilson_bounds_exact_at_extremes() -> None:
    assert wilson_interval(0, 10)[1] == 0.0
    assert wilson_interval(10, 10)[2] == 1.0


def test_wilson_edge_cases() -> None:
    assert all(math.isnan(x) for x in wilson_interval(0, 0))
    with pytest.raises(ValueError):
        wilson_interval(5, 3)


# Newcombe (1998) Stat Med 17:873-890, Table II, method 10 (hybrid score).
# He reports p1 - p2; our diff is p2 - p1, so the baseline is his second group.
NEWCOMBE_CASES = [
    ((56, 70), (48, 80), 0.0524, 0.3339),
    ((9, 10), (3, 10), 0.1705, 0.8090),
    ((5, 56), (0, 29), -0.0381, 0.1926),
    ((0, 10), (0, 20), -0.1611, 0.2775),
    ((0, 10), (0, 10), -0.2775, 0.2775),
    ((10, 10), (0, 20), 0.6791, 1.0000),
    ((10, 10), (0, 10), 0.6075, 1.0000),
]


@pytest.mark.parametrize(("g1", "g2", "low", "high"), NEWCOMBE_CASES)
def test_newcombe_textbook(g1, g2, low: float, high: float) -> None:
    r = two_proportion_test(g2[0], g2[1], g1[0], g1[1])
    assert r.diff == pytest.approx(g1[0] / g1[1] - g2[0] / g2[1])
    assert round(r.low, 4) == low
    assert round(r.high, 4) == high


def test_two_proportion_pvalue_matches_pooled_z() -> None:
    r = two_proportion_test(253, 1000, 271, 1000)
    p = (253 + 271) / 2000
    z = (0.271 - 0.253) / math.sqrt(p * (1 - p) * (2 / 1000))
    assert r.p_value == pytest.approx(2 * st.norm.sf(abs(z)))
    assert (r.rate1, r.rate2) == (0.253, 0.271)
    # chi-square on the 2x2 table without Yates correction is the same test
    chi = st.chi2_contingency([[253, 747], [271, 729]], correction=False)
    assert r.p_value == pytest.approx(chi.pvalue)


def test_two_proportion_edge_cases() -> None:
    r = two_proportion_test(0, 0, 3, 10)
    assert math.isnan(r.diff) and math.isnan(r.p_value)
    assert r.rate2 == 0.3
    assert two_proportion_test(0, 10, 0, 20).p_value == 1.0


def test_chi_square_uniform() -> None:
    assert chi_square_uniform([250, 250, 250, 250]) == pytest.approx(1.0)
    counts = [271, 253, 240, 236]
    assert chi_square_uniform(counts) == pytest.approx(st.chisquare(counts).pvalue)
    assert chi_square_uniform([400, 200, 200, 200]) < 1e-10
    assert math.isnan(chi_square_uniform([0, 0, 0]))
    assert math.isnan(chi_square_uniform([5]))


# --------------------------------------------------------------------------- #
# Histogram summaries
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_summarize_matches_numpy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    h = turns_hist(rng, 997)
    x = expand(h)
    s = summarize_hist(h)
    assert s.n == x.size
    assert s.mean == pytest.approx(x.mean(), rel=1e-12)
    assert s.std == pytest.approx(x.std(ddof=1), rel=1e-12)
    assert s.sem == pytest.approx(st.sem(x), rel=1e-12)
    assert (s.min, s.max) == (x.min(), x.max())
    for got, q in [(s.median, 0.5), (s.p10, 0.1), (s.p90, 0.9)]:
        assert got == np.quantile(x, q, method="inverted_cdf")
    ci = st.t.interval(0.95, x.size - 1, loc=x.mean(), scale=st.sem(x))
    assert (s.ci_low, s.ci_high) == pytest.approx(ci, rel=1e-12)


def test_quantile_matches_numpy_inverted_cdf() -> None:
    rng = np.random.default_rng(7)
    for n in (1, 2, 3, 10, 11, 100, 101):
        h = np.bincount(rng.integers(0, 6, size=n), minlength=9)
        x = expand(h)
        for q in np.linspace(0, 1, 41):
            assert quantile_hist(h, q) == np.quantile(x, q, method="inverted_cdf")


def test_summarize_small_and_empty() -> None:
    empty = summarize_hist(np.zeros(5, dtype=np.int64))
    assert empty.n == 0
    assert all(
        math.isnan(getattr(empty, f)) for f in ("mean", "std", "median", "ci_low")
    )
    assert summarize_hist([]).n == 0
    one = summarize_hist([0, 0, 0, 1])
    assert (one.n, one.mean, one.median, one.min, one.max) == (1, 3.0, 3.0, 3.0, 3.0)
    assert math.isnan(one.std) and math.isnan(one.sem) and math.isnan(one.ci_low)
    const = summarize_hist([0, 0, 5])
    assert const.std == 0.0 and const.ci_low == const.ci_high == 2.0
    assert isinstance(const, HistSummary)
    assert math.isnan(quantile_hist([0, 0], 0.5))


def test_histogram_validation() -> None:
    with pytest.raises(ValueError):
        summarize_hist([1, -1])
    with pytest.raises(ValueError):
        summarize_hist([[1, 2]])
    with pytest.raises(ValueError):
        summarize_hist([1.5, 2.0])
    assert summarize_hist([1.0, 2.0]).n == 3


# --------------------------------------------------------------------------- #
# Two-sample comparisons
# --------------------------------------------------------------------------- #


def test_welch_matches_scipy() -> None:
    rng = np.random.default_rng(11)
    h1, h2 = turns_hist(rng, 300), turns_hist(rng, 450, shift=3)
    x1, x2 = expand(h1), expand(h2)
    r = diff_of_means_hist(h1, h2)
    ref = st.ttest_ind(x2, x1, equal_var=False)
    assert r.diff == pytest.approx(x2.mean() - x1.mean(), rel=1e-12)
    assert r.p_value == pytest.approx(ref.pvalue, rel=1e-9)
    assert (r.low, r.high) == pytest.approx(
        tuple(ref.confidence_interval(0.95)), rel=1e-9
    )
    assert r.rel_change == pytest.approx(r.diff / x1.mean())


def test_welch_edge_cases() -> None:
    r = diff_of_means_hist([], [0, 3])
    assert math.isnan(r.mean1) and math.isnan(r.p_value) and r.mean2 == 1.0
    const = diff_of_means_hist([0, 4], [0, 0, 4])
    assert (const.diff, const.low, const.high, const.p_value) == (1.0, 1.0, 1.0, 0.0)
    assert diff_of_means_hist([0, 4], [0, 4]).p_value == 1.0
    assert math.isnan(diff_of_means_hist([3], [1, 2]).rel_change)  # mean1 == 0


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("cont", [True, False])
def test_mann_whitney_matches_scipy(seed: int, cont: bool) -> None:
    rng = np.random.default_rng(seed)
    n1, n2 = rng.integers(3, 40, size=2)
    h1 = np.bincount(rng.integers(0, 6, size=n1), minlength=6)
    h2 = np.bincount(rng.integers(1, 8, size=n2), minlength=3)  # different lengths
    u, p = mann_whitney_hist(h1, h2, use_continuity=cont)
    ref = st.mannwhitneyu(
        expand(h1), expand(h2), use_continuity=cont, method="asymptotic"
    )
    assert u == ref.statistic
    assert p == pytest.approx(ref.pvalue, rel=1e-10)


def test_mann_whitney_edge_cases_and_scale() -> None:
    assert all(math.isnan(x) for x in mann_whitney_hist([], [1, 2]))
    assert mann_whitney_hist([0, 5], [0, 7]) == (17.5, 1.0)  # all tied
    # two trillion rounds each, which no expansion could hold: O(bins), exact U
    rng = np.random.default_rng(5)
    h1 = turns_hist(rng, 2000) * 10**9
    h2 = turns_hist(rng, 2000, shift=1) * 10**9
    u, p = mann_whitney_hist(h1, h2)
    n1, n2 = int(h1.sum()), int(h2.sum())
    u_small, _ = mann_whitney_hist(h1 // 10**9, h2 // 10**9)
    assert u == u_small * 10**18 and 0 <= u <= n1 * n2  # U scales exactly
    assert p < 1e-6


def test_bootstrap_reproducible_and_sane() -> None:
    rng = np.random.default_rng(21)
    h1, h2 = turns_hist(rng, 3000), turns_hist(rng, 3000, shift=4)
    a = bootstrap_diff_hist(h1, h2, stat="median", n_boot=400, seed=3)
    b = bootstrap_diff_hist(h1, h2, stat="median", n_boot=400, seed=3)
    assert a == b
    x1, x2 = expand(h1), expand(h2)
    obs = np.quantile(x2, 0.5, method="inverted_cdf") - np.quantile(
        x1, 0.5, method="inverted_cdf"
    )
    assert a[0] == obs and a[1] <= obs <= a[2] and a[1] > 0
    # the bootstrap CI of the mean difference should be close to Welch's
    d, lo, hi = bootstrap_diff_hist(h1, h2, stat="mean", n_boot=1000, seed=np.int64(9))
    w = diff_of_means_hist(h1, h2)
    assert d == pytest.approx(w.diff)
    assert (hi - lo) == pytest.approx(w.high - w.low, rel=0.15)
    assert bootstrap_diff_hist(h1, h2, stat="p90", n_boot=50)[0] == pytest.approx(
        quantile_hist(h2, 0.9) - quantile_hist(h1, 0.9)
    )


def test_bootstrap_edge_cases() -> None:
    assert all(math.isnan(x) for x in bootstrap_diff_hist([], [1, 2]))
    with pytest.raises(ValueError):
        bootstrap_diff_hist([1, 2], [2, 1], stat="mode")


def test_null_difference_is_rarely_significant() -> None:
    """Same distribution, different seeds: about 5% false positives at alpha=5%."""
    reps, n = 200, 1000
    sig_t = sig_mw = sig_prop = 0
    for i in range(reps):
        r1, r2 = np.random.default_rng(10_000 + i), np.random.default_rng(20_000 + i)
        h1, h2 = turns_hist(r1, n), turns_hist(r2, n)
        sig_t += diff_of_means_hist(h1, h2).p_value < 0.05
        sig_mw += mann_whitney_hist(h1, h2)[1] < 0.05
        k1, k2 = r1.binomial(n, 0.27), r2.binomial(n, 0.27)
        sig_prop += two_proportion_test(k1, n, k2, n).p_value < 0.05
    for sig in (sig_t, sig_mw, sig_prop):
        assert 0.88 <= 1 - sig / reps <= 0.99


# --------------------------------------------------------------------------- #
# Formatting
# --------------------------------------------------------------------------- #


def test_ci_decimals_and_format_ci() -> None:
    assert ci_decimals(41.10, 41.36) == 2  # half-width 0.13 -> 0.13
    assert ci_decimals(4.8, 5.4) == 2  # 0.30
    assert ci_decimals(0.0, 0.1992) == 2  # 0.0996 rounds to 0.10, not 0.100
    assert ci_decimals(10, 30) == 0
    assert ci_decimals(1.0, 1.0) == 1
    assert format_ci(41.2345, 41.1012, 41.3651) == "41.23 (95% CI 41.10–41.37)"
    assert format_ci(0.1, -0.2, 0.4) == "0.10 (95% CI -0.20 to 0.40)"
    assert format_ci(1234.5, 1200.0, 1269.0, conf=0.9) == "1,234 (90% CI 1,200–1,269)"


# --------------------------------------------------------------------------- #
# Headline estimates from aggregates
# --------------------------------------------------------------------------- #


def fake_aggregates(rng: np.random.Generator, n: int, players: int = 4) -> dict:
    """Aggregates of ``n`` rounds whose per-round counter 0 is a known sample."""
    x = rng.poisson(3.0, size=n)
    wins = np.bincount(rng.integers(0, players, size=n), minlength=players)
    sums, sums_sq = np.zeros(24, np.int64), np.zeros(24, np.int64)
    sums[0], sums_sq[0] = x.sum(), (x * x).sum()
    return {"counts": np.array([n, n, 0, 0]), "sums": sums, "sums_sq": sums_sq, "x": x,
            "turns_hist": turns_hist(rng, n), "drawn_hist": np.bincount(x),
            "points_hist": np.bincount(rng.integers(0, 200, size=n)), "wins_pos": wins,
            "match_rounds_hist": np.zeros(1, np.int64)}


def test_per_round_interval_is_exact_from_sums_of_squares() -> None:
    agg = fake_aggregates(np.random.default_rng(7), 5000)
    mean, se, df = per_round_se(agg, 0)
    x = agg["x"]
    assert mean == pytest.approx(x.mean()) and df == len(x) - 1
    assert se == pytest.approx(x.std(ddof=1) / math.sqrt(len(x)))
    e = per_round_estimate(agg, 0)
    half = st.t.ppf(0.975, len(x) - 1) * se
    assert (e.low, e.high) == pytest.approx((mean - half, mean + half))
    old = {k: v for k, v in agg.items() if k != "sums_sq"}  # an older unosim's aggregates
    assert math.isnan(per_round_estimate(old, 0).low)
    assert per_round_estimate(old, 0).value == pytest.approx(mean)


def test_every_metric_has_an_interval_around_its_value() -> None:
    agg = fake_aggregates(np.random.default_rng(8), 3000)
    for m in METRICS:
        if m.match_only or m.key == "reshuffles_per_round":
            continue
        e = estimate(agg, m)
        assert e.low <= e.value <= e.high, m.key
    med = order_ci(agg["turns_hist"], 0.5)
    assert med.value == quantile_hist(agg["turns_hist"], 0.5) and med.low < med.high
    ratio = estimate(agg, METRIC_BY_KEY["first_player_vs_fair"])
    rate = estimate(agg, METRIC_BY_KEY["first_player_win_rate"])
    assert ratio.value == pytest.approx(4 * rate.value) and ratio.high == pytest.approx(
        4 * rate.high)


def test_differences_between_runs() -> None:
    rng = np.random.default_rng(9)
    a, b = fake_aggregates(rng, 3000), fake_aggregates(rng, 2000)
    metrics, values, diffs = compare_aggregates([a, b])
    assert [m.key for m in metrics] == [m.key for m in METRICS if not m.match_only]
    assert all(diffs[m.key][0] is None for m in metrics)
    turns = diffs["turns_mean"][1]
    assert turns is not None and turns.test == "Welch t" and turns.low < turns.diff < turns.high
    assert turns.diff == pytest.approx(values["turns_mean"][1].value
                                       - values["turns_mean"][0].value)
    ratio, rate = diffs["first_player_vs_fair"][1], diffs["first_player_win_rate"][1]
    assert ratio is not None and rate is not None
    assert ratio.diff == pytest.approx(4 * rate.diff) and ratio.p_value == rate.p_value
    three = fake_aggregates(rng, 2000, players=3)
    assert math.isnan(metric_diff(a, three, METRIC_BY_KEY["first_player_vs_fair"]).diff)


def test_t_and_normal_quantiles_without_scipy_match_scipy() -> None:
    """The series used for large samples (and the stdlib's normal quantile) agree with
    scipy.special to within 1e-12, relative, wherever a report uses them."""
    from scipy import special

    from unosim.analysis.stats import T_SERIES_DF, norm_sf, t_ppf, z_crit

    for df in (T_SERIES_DF, 5_000, 10**5, 10**7):
        for q in (0.005, 0.025, 0.05, 0.5, 0.9, 0.975, 0.995, 0.9995):
            want = float(special.stdtrit(df, q))
            assert abs(t_ppf(q, df) - want) <= 1e-12 * max(1.0, abs(want)), (df, q)
    for conf in (0.5, 0.9, 0.95, 0.99, 0.999):
        assert abs(z_crit(conf) - float(special.ndtri(0.5 + conf / 2))) < 1e-12
    for x in (-3.0, 0.0, 1.0, 1.96, 5.0):
        assert abs(norm_sf(x) - float(special.ndtr(-x))) < 1e-15


def test_t975_table_is_scipys_to_the_bit() -> None:
    """The stored 97.5% quantiles of t (whole df below 1,000) are scipy's own values, so
    a 95% interval prints the same digits with or without scipy imported."""
    from scipy import special

    from unosim.analysis.stats import T975_Q, T_SERIES_DF, _t975, t_crit, t_ppf

    table = _t975()
    assert len(table) == int(T_SERIES_DF) - 1 and T975_Q == 0.975
    for df in range(1, int(T_SERIES_DF)):
        want = float(special.stdtrit(df, 0.975))
        assert table[df - 1] == want and t_crit(0.95, df) == want, df
    # other levels and fractional df still go to scipy
    assert t_ppf(0.975, 10.5) == float(special.stdtrit(10.5, 0.975))
    assert t_ppf(0.995, 10) == float(special.stdtrit(10, 0.995))


def test_chi2_tail_without_scipy_matches_scipy() -> None:
    from scipy import special

    from unosim.analysis.stats import chi2_sf

    for df in (1, 2, 3, 4, 5, 9, 10, 39, 40, 101, 500, 1000):
        for x in (0.0, 0.01, 0.5, 1.0, df / 2, df, 1.5 * df + 3, 3 * df + 10):
            want = float(special.chdtrc(df, x))
            got = chi2_sf(x, df)
            assert abs(got - want) <= 1e-12 + 1e-9 * want, (df, x, got, want)


# --------------------------------------------------------------------------- #
# Exact moments: integer sums, one rounding (the same digits on every machine)
# --------------------------------------------------------------------------- #


def _is_nearest_sqrt(r: float, q: Fraction) -> bool:
    """Whether ``r`` is the float nearest to sqrt(q): q lies between the squares of
    the midpoints to r's neighbours (exact rational comparisons)."""
    lo = (Fraction(r) + Fraction(math.nextafter(r, 0.0))) / 2
    hi = (Fraction(r) + Fraction(math.nextafter(r, math.inf))) / 2
    return lo * lo <= q <= hi * hi


def test_sqrt_ratio_is_correctly_rounded() -> None:
    rng = np.random.default_rng(11)
    cases = [(2, 1), (1, 3), (10**40 + 7, 3), (5, 10**40), (2**106 - 1, 1), (49, 4)]
    cases += [(int(a), int(b)) for a, b in rng.integers(1, 2**62, size=(300, 2))]
    cases += [(int(a) ** 3, int(b)) for a, b in rng.integers(1, 2**40, size=(100, 2))]
    for num, den in cases:
        assert _is_nearest_sqrt(sqrt_ratio(num, den), Fraction(num, den)), (num, den)
    assert sqrt_ratio(49, 4) == 3.5 and sqrt_ratio(0, 5) == 0.0
    assert sqrt_ratio(2) == math.sqrt(2)  # IEEE sqrt is correctly rounded too
    with pytest.raises(ValueError):
        sqrt_ratio(-1, 2)


@pytest.mark.parametrize("scale", [1, 10**9])
def test_moments_are_exact(scale: int) -> None:
    """mean, std and sem are the exact values of the integer sums, each rounded once,
    also at counts where float dot products would lose digits."""
    rng = np.random.default_rng(scale)
    h = turns_hist(rng, 5000) * scale
    h[-1] += 1  # not a multiple: the scaled sums stay odd
    vals = range(len(h))
    n = sum(int(c) for c in h)
    s1 = sum(v * int(c) for v, c in zip(vals, h, strict=True))
    s2 = sum(v * v * int(c) for v, c in zip(vals, h, strict=True))
    assert hist_sums(h) == (n, s1, s2)
    var = Fraction(n * s2 - s1 * s1, n * (n - 1))
    s = summarize_hist(h)
    assert s.mean == float(Fraction(s1, n))
    assert _is_nearest_sqrt(s.std, var) and _is_nearest_sqrt(s.sem, var / n)
    s1_reversed = sum(v * int(c) for v, c in zip(vals, h[::-1], strict=True))
    assert diff_of_means_hist(h, h[::-1].copy()).diff == float(Fraction(s1_reversed - s1, n))


def test_tests_on_counts_are_exact() -> None:
    """Chi-square, Mann-Whitney and the per-round error from exact integers, at any size."""
    c = [10**12 + 3, 10**12 - 7, 10**12 + 11]
    total = sum(c)
    chi2 = sum((Fraction(x) - Fraction(total, 3)) ** 2 / Fraction(total, 3) for x in c)
    assert chi_square_uniform(c) == chi2_sf(float(chi2), 2)
    # beyond int64: U is still exact (2·n1·n2 is about 2e22)
    a, b = np.array([10**10, 3 * 10**10 + 1]), np.array([2 * 10**10, 10**10])
    u, _ = mann_whitney_hist(a, b)
    assert u == (int(a[1]) * int(b[0]) * 2 + int(a[0]) * int(b[0]) + int(a[1]) * int(b[1])) / 2
    agg = fake_aggregates(np.random.default_rng(3), 2000)
    x = [int(v) for v in agg["x"]]
    n = len(x)
    _, se, _ = per_round_se(agg, 0)
    var = (Fraction(sum(v * v for v in x)) - Fraction(sum(x)) ** 2 / n) / (n - 1)
    assert _is_nearest_sqrt(se, var / n)


def test_paired_and_trend_are_exact_and_order_free() -> None:
    """The paired error from exact rational moments; the trend the same bits whatever
    order its points come in (no summation order decides a digit)."""
    rng = np.random.default_rng(4)
    fa = rng.integers(5, 80, size=(500, 2))
    fb = fa + rng.integers(-3, 5, size=fa.shape)
    d = PairMoments.from_features(fa, fb).mean_diff(0)
    u = [Fraction(int(y) - int(x)) for x, y in zip(fa[:, 0], fb[:, 0], strict=True)]
    n = len(u)
    mean = sum(u) / n
    var = sum((v - mean) ** 2 for v in u) / (n - 1)
    assert d.diff == float(mean) and _is_nearest_sqrt(d.se, var / n)
    xs = [2, 3, 4, 5, 6, 7, 8]
    ys = [float(v) / 7 for v in rng.integers(0, 100, len(xs))]
    ses = [float(v) / 13 for v in rng.integers(1, 20, len(xs))]
    t = linear_trend(xs, ys, ses)
    for _ in range(5):
        p = rng.permutation(len(xs))
        assert linear_trend([xs[i] for i in p], [ys[i] for i in p], [ses[i] for i in p]) == t


def test_a_match_config_beside_round_configs_pairs_by_ratio() -> None:
    """compare classic match: the match side's games hold several rounds, so its
    per-round rates pair as ratios (the call with match=False used to raise)."""
    from unosim.analysis.paired import NGF, paired_diff
    from unosim.engine.kernel import batch as B

    rng = np.random.default_rng(9)
    fa = np.zeros((400, NGF), np.int64)
    fa[:, B.GF_ROUNDS], fa[:, B.GF_TURNS] = 1, rng.integers(10, 90, 400)
    fa[:, B.GF_FIRST_WINS] = rng.integers(0, 2, 400)
    fb = fa.copy()
    fb[:, B.GF_ROUNDS] = rng.integers(1, 6, 400)
    fb[:, B.GF_FIRST_WINS] = rng.integers(0, fb[:, B.GF_ROUNDS] + 1)
    fb[:, B.GF_TURNS] = 40 * fb[:, B.GF_ROUNDS]
    pm = PairMoments.from_features(fa, fb)
    for key in ("first_player_win_rate", "turns_mean"):
        d = paired_diff(pm, key, match=False)
        assert d == paired_diff(pm, key, match=True) and d is not None
        assert d.test == "paired t" and d.low < d.diff < d.high
    rounds_only = PairMoments.from_features(fa, fa[::-1].copy())  # one round a game
    assert paired_diff(rounds_only, "first_player_win_rate", match=False).test == "McNemar"
