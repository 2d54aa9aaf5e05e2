"""Headline estimates of a run and their differences between runs, from merged aggregates.

Every figure a report prints is an :class:`Estimate`: a value, its 95%
interval and the sample size behind it. Means of per-round histograms get t
intervals, quantiles distribution-free order-statistic intervals, rates Wilson
intervals and per-round counters (kept as run totals in ``sums``) exact t
intervals from their sums of squares ``sums_sq``. Aggregates written before
``sums_sq`` existed give those counters no interval (nan), never a guessed one.

:func:`metric_diff` compares one metric between two runs (``b - a``) with the
test that suits its kind; :func:`compare_aggregates` does it for every metric
of a list of runs against the first. Everything here is numbers: wording and
formatting live in ``unosim.report``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from unosim.analysis import stats
from unosim.engine.kernel import state as L

__all__ = [
    "BOOT",
    "METRICS",
    "METRIC_BY_KEY",
    "Diff",
    "Estimate",
    "Metric",
    "compare_aggregates",
    "estimate",
    "is_match",
    "metric_diff",
    "metrics_for",
    "n_rounds",
    "order_ci",
    "per_round_estimate",
    "per_round_se",
    "position_diff",
    "rate_counts",
    "rate_diff",
    "wilson_estimate",
]

NAN = float("nan")
BOOT = 1000  # bootstrap resamples for quantile differences; O(BOOT x bins)

Aggregates = Mapping[str, np.ndarray]


# --------------------------------------------------------------------------- #
# One run
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its 95% interval and the sample size behind it."""

    value: float
    low: float
    high: float
    n: int


@dataclass(frozen=True)
class Metric:
    """A headline metric: how to estimate it from aggregates and how to print it.

    ``kind`` is ``mean`` / ``quantile`` (of histogram ``source``), ``rate``
    (``first`` = position 0 wins, ``stalemate``, ``unfinished``), ``fair_ratio``
    (a rate times the number of players: 1.0 is a fair share, so player counts
    compare on one scale) or ``per_round`` (a ``sums`` index; its interval needs
    ``sums_sq``).
    """

    key: str
    label: str
    kind: str
    source: str | int
    q: float = 0.5
    percent: bool = False
    unit: str = ""
    match_only: bool = False


METRICS: tuple[Metric, ...] = (
    Metric("turns_mean", "Mean turns per round", "mean", "turns_hist", unit="turns"),
    Metric("turns_median", "Median turns per round", "quantile", "turns_hist", q=0.5,
           unit="turns"),
    Metric("turns_p90", "90th percentile of turns", "quantile", "turns_hist", q=0.9,
           unit="turns"),
    Metric("first_player_win_rate", "First-player win rate (dealer's left)", "rate", "first",
           percent=True),
    Metric("first_player_vs_fair", "First-player win rate ÷ fair share 1/N", "fair_ratio",
           "first"),
    Metric("stalemate_rate", "Stalemate rate (round hit max_turns)", "rate", "stalemate",
           percent=True),
    Metric("drawn_mean", "Cards drawn per round", "mean", "drawn_hist", unit="cards"),
    Metric("points_mean", "Points scored per round", "mean", "points_hist", unit="points"),
    Metric("reshuffles_per_round", "Reshuffles per round", "per_round", L.R_RESHUFFLES),
    Metric("match_rounds_mean", "Rounds per match", "mean", "match_rounds_hist",
           unit="rounds", match_only=True),
    Metric("margin_mean", "Final winning margin (points)", "mean", "margin_hist",
           unit="points", match_only=True),
    Metric("unfinished_rate", "Unfinished matches (hit max_rounds)", "rate", "unfinished",
           percent=True, match_only=True),
)
METRIC_BY_KEY = {m.key: m for m in METRICS}


def n_rounds(agg: Aggregates) -> int:
    """Rounds played (games in round mode; every round of every match in match mode)."""
    return int(agg["counts"][1])


def is_match(agg: Aggregates) -> bool:
    """Whether the aggregates come from match mode (more rounds than games)."""
    return int(agg["match_rounds_hist"].sum()) > 0


def wilson_estimate(k: int, n: int) -> Estimate:
    """``k`` successes in ``n`` trials as a rate with its Wilson interval (nan when n is 0).

    >>> wilson_estimate(0, 0).n
    0
    >>> round(wilson_estimate(50, 100).low, 4)
    0.4038
    """
    if n == 0:
        return Estimate(NAN, NAN, NAN, 0)
    return Estimate(*stats.wilson_interval(k, n), n)


def order_ci(h: np.ndarray, q: float, conf: float = 0.95) -> Estimate:
    """Quantile of a histogram with a distribution-free order-statistic interval.

    The interval runs between the sample quantiles at ranks ``q ± z·sqrt(q(1-q)/n)``
    (the normal approximation to the binomial count below the true quantile),
    so it needs no resampling and is valid for any distribution.
    """
    h = np.asarray(h, dtype=np.int64)
    n = int(h.sum())
    if n == 0:
        return Estimate(NAN, NAN, NAN, 0)
    z = stats.z_crit(conf)
    half = z * math.sqrt(q * (1 - q) / n)
    lo = stats.quantile_hist(h, max(0.0, q - half))
    hi = stats.quantile_hist(h, min(1.0, q + half + 1.0 / n))
    return Estimate(stats.quantile_hist(h, q), lo, hi, n)


def rate_counts(agg: Aggregates, source: str) -> tuple[int, int]:
    """(successes, trials) of a rate metric."""
    c = agg["counts"]
    if source == "first":
        return int(agg["wins_pos"][0]), int(c[1])
    if source == "stalemate":
        return int(c[2]), int(c[1])
    if source == "unfinished":
        return int(c[3]), int(c[0]) if is_match(agg) else 0
    raise ValueError(f"unknown rate {source!r}")


def per_round_se(agg: Aggregates, idx: int) -> tuple[float, float, float]:
    """(mean per round, its standard error, degrees of freedom) of a ``sums`` counter.

    The error is exact, from the per-round sums of squares ``sums_sq``; without
    them (aggregates of an older unosim) it is nan.
    """
    n = n_rounds(agg)
    if n == 0:
        return NAN, NAN, NAN
    s = int(agg["sums"][idx])
    sq = agg.get("sums_sq")
    if sq is None or n < 2:
        return s / n, NAN, NAN
    # se² = (n·Σx² - (Σx)²) / (n²(n-1)): exact integers, one rounding
    return s / n, stats.sqrt_ratio(max(0, n * int(sq[idx]) - s * s), n * n * (n - 1)), \
        float(n - 1)


def per_round_estimate(agg: Aggregates, idx: int) -> Estimate:
    """Mean of a per-round counter with a t interval when its error is known."""
    n = n_rounds(agg)
    mean, se, df = per_round_se(agg, idx)
    if not math.isfinite(se):
        return Estimate(mean, NAN, NAN, n)
    half = stats.t_crit(0.95, df) * se
    return Estimate(mean, mean - half, mean + half, n)


def estimate(agg: Aggregates, metric: Metric) -> Estimate:
    """The metric's estimate and 95% interval from merged aggregates."""
    if metric.kind == "mean":
        s = stats.summarize_hist(agg[str(metric.source)])
        return Estimate(s.mean, s.ci_low, s.ci_high, s.n)
    if metric.kind == "quantile":
        return order_ci(agg[str(metric.source)], metric.q)
    if metric.kind == "rate":
        return wilson_estimate(*rate_counts(agg, str(metric.source)))
    if metric.kind == "fair_ratio":
        e = wilson_estimate(*rate_counts(agg, str(metric.source)))
        players = len(agg["wins_pos"])
        return Estimate(e.value * players, e.low * players, e.high * players, e.n)
    if metric.kind == "per_round":
        return per_round_estimate(agg, int(metric.source))
    raise ValueError(f"unknown metric kind {metric.kind!r}")


def metrics_for(agg: Aggregates) -> list[Metric]:
    """The headline metrics that apply to these aggregates (match ones only in match mode)."""
    match = is_match(agg)
    return [m for m in METRICS if match or not m.match_only]


# --------------------------------------------------------------------------- #
# Two runs
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class Diff:
    """``b - a`` for one metric, its 95% interval, p-values and relative change."""

    diff: float
    low: float
    high: float
    p_value: float
    test: str
    rel_change: float
    p_value_mw: float = NAN


def rate_diff(k1: int, n1: int, k2: int, n2: int, scale: float = 1.0) -> Diff:
    """Rate ``k2/n2`` against baseline ``k1/n1``: two-proportion z-test, Newcombe interval.

    ``scale`` multiplies the difference and its interval (the player count, for
    a rate measured as a multiple of the fair share); the relative change is
    unaffected.
    """
    pd = stats.two_proportion_test(k1, n1, k2, n2)
    rel = pd.diff / pd.rate1 if pd.rate1 else NAN
    return Diff(scale * pd.diff, scale * pd.low, scale * pd.high, pd.p_value,
                "two-proportion z", rel)


def position_diff(a: Aggregates, b: Aggregates, pos: int) -> Diff:
    """Win rate of seat position ``pos`` in ``b`` against ``a``, out of all rounds."""
    return rate_diff(int(a["wins_pos"][pos]), n_rounds(a), int(b["wins_pos"][pos]), n_rounds(b))


def metric_diff(a: Aggregates, b: Aggregates, m: Metric, seed: int = 0) -> Diff:
    """Compare metric ``m`` of run ``b`` against baseline ``a``.

    Means: Welch t plus Mann-Whitney on the whole distribution; quantiles: a
    percentile-bootstrap interval (``seed`` makes it reproducible) plus
    Mann-Whitney; rates: a two-proportion z-test; per-round counters: Welch t
    from their exact standard errors.
    """
    if m.kind == "mean":
        ha, hb = a[str(m.source)], b[str(m.source)]
        md = stats.diff_of_means_hist(ha, hb)
        _, p_mw = stats.mann_whitney_hist(ha, hb)
        return Diff(md.diff, md.low, md.high, md.p_value, "Welch t", md.rel_change, p_mw)
    if m.kind == "quantile":
        ha, hb = a[str(m.source)], b[str(m.source)]
        d, lo, hi = stats.bootstrap_diff_hist(ha, hb, stat=m.q, n_boot=BOOT, seed=seed)
        base = stats.quantile_hist(ha, m.q)
        _, p_mw = stats.mann_whitney_hist(ha, hb)
        return Diff(d, lo, hi, NAN, "bootstrap CI", d / base if base else NAN, p_mw)
    if m.kind in ("rate", "fair_ratio"):
        players = len(a["wins_pos"])
        if m.kind == "fair_ratio" and players != len(b["wins_pos"]):
            # different tables: compare the rates instead (see that row)
            return Diff(NAN, NAN, NAN, NAN, "n/a (player counts differ)", NAN)
        return rate_diff(*rate_counts(a, str(m.source)), *rate_counts(b, str(m.source)),
                         scale=players if m.kind == "fair_ratio" else 1.0)
    if m.kind == "per_round":
        idx = int(m.source)
        m1, se1, df1 = per_round_se(a, idx)
        m2, se2, df2 = per_round_se(b, idx)
        d, lo, hi, p = stats.welch_diff(m1, se1, df1, m2, se2, df2)
        return Diff(d, lo, hi, p, "Welch t", d / m1 if m1 else NAN)
    raise ValueError(f"unknown metric kind {m.kind!r}")


def compare_aggregates(aggs: Sequence[Aggregates]
                       ) -> tuple[list[Metric], dict[str, list[Estimate]],
                                  dict[str, list[Diff | None]]]:
    """(metrics, estimates, differences from the first) for the metrics every run shares.

    ``estimates[key][i]`` is run ``i``'s estimate; ``differences[key][i]`` is
    run ``i`` minus run 0 (``None`` for run 0 itself). Match metrics appear
    only when every run is in match mode. Run ``i``'s bootstrap uses seed ``i``.
    """
    match = all(is_match(a) for a in aggs)
    metrics = [m for m in metrics_for(aggs[0]) if match or not m.match_only]
    values = {m.key: [estimate(a, m) for a in aggs] for m in metrics}
    diffs: dict[str, list[Diff | None]] = {
        m.key: [None] + [metric_diff(aggs[0], a, m, seed=i) for i, a in enumerate(aggs[1:], 1)]
        for m in metrics}
    return metrics, values, diffs
