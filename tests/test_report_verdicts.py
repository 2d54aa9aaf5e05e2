"""Verdict sentences (unosim.report.verdicts): exact wording for longer, shorter, no
difference and missing data, for lengths, amounts and rates."""

from __future__ import annotations

import numpy as np

from unosim.analysis.estimates import Diff
from unosim.analysis.stats import (
    MeanDiff,
    ProportionDiff,
    diff_of_means_hist,
    two_proportion_test,
)
from unosim.report.verdicts import verdict_amount, verdict_length, verdict_rate


def turns_hist(rng: np.random.Generator, n: int, shift: int = 0) -> np.ndarray:
    """A skewed, heavily tied turns-per-round-like histogram."""
    return np.bincount(rng.negative_binomial(4, 0.1, size=n) + 8 + shift)


def test_verdict_longer() -> None:
    d = MeanDiff(41.234, 46.301, 5.067, 4.771, 5.363, 5.067 / 41.234, 1e-40)
    assert verdict_length(
        "Standard rules",
        "Stacking (Draw Two on Draw Two)",
        d,
        100_000,
        100_000,
        players=4,
    ) == (
        "Stacking (Draw Two on Draw Two) makes 4-player rounds 12.3% longer: "
        "41.23 vs 46.30 turns (difference +5.07, 95% CI +4.77 to +5.36, "
        "100,000 rounds each)."
    )


def test_verdict_shorter() -> None:
    d = MeanDiff(46.3, 38.9, -7.4, -8.1, -6.7, -7.4 / 46.3, 1e-9)
    assert verdict_length("standard", "seven-0 swapping", d, 20_000, 10_000) == (
        "Seven-0 swapping makes rounds 16% shorter: 46.30 vs 38.90 turns "
        "(difference -7.40, 95% CI -8.10 to -6.70, 20,000 and 10,000 rounds)."
    )


def test_verdict_not_significant() -> None:
    d = MeanDiff(41.21, 41.31, 0.1, -0.2, 0.4, 0.1 / 41.21, 0.5213)
    assert verdict_length("A", "Jump-in", d, 100_000, 100_000, players=4) == (
        "Jump-in makes no significant difference to 4-player round length: "
        "41.21 vs 41.31 turns (difference +0.10, 95% CI -0.20 to +0.40, "
        "p = 0.52, 100,000 rounds each)."
    )


def test_verdict_from_real_histograms() -> None:
    rng = np.random.default_rng(4)
    h1, h2 = turns_hist(rng, 5000), turns_hist(rng, 5000, shift=6)
    text = verdict_length("base", "Stacking", diff_of_means_hist(h1, h2), 5000, 5000)
    assert text.startswith("Stacking makes rounds ") and "% longer: " in text
    assert text.endswith(", 5,000 rounds each).")


def test_verdict_not_enough_data() -> None:
    d = diff_of_means_hist([], [])
    assert verdict_length("A", "B", d, 0, 0) == (
        "Not enough data to compare rounds under B with A (0 rounds each)."
    )
    r = two_proportion_test(0, 0, 0, 0)
    assert verdict_rate("A", "B", "the first player wins", r, 0, 0).startswith(
        "Not enough data"
    )


def test_verdict_rate() -> None:
    r = ProportionDiff(0.0181, 0.0122, 0.0240, 1e-9, rate1=0.2530, rate2=0.2711)
    assert verdict_rate(
        "no stacking", "stacking", "the first player wins", r, 100_000, 100_000
    ) == (
        "With stacking the first player wins 27.11% of rounds vs 25.30% "
        "(difference +1.81 points, 95% CI +1.22 to +2.40, 100,000 rounds each)."
    )
    ns = ProportionDiff(0.0011, -0.0049, 0.0071, 0.7213, rate1=0.2530, rate2=0.2541)
    assert verdict_rate(
        "no stacking", "stacking", "the first player wins", ns, 80_000, 80_000
    ) == (
        "With stacking the first player wins 25.41% of rounds vs 25.30%, "
        "no significant difference (difference +0.11 points, 95% CI -0.49 to +0.71, "
        "p = 0.72, 80,000 rounds each)."
    )


def test_verdict_rate_from_counts() -> None:
    r = two_proportion_test(2530, 10_000, 2900, 10_000)
    text = verdict_rate("A", "stacking", "the first player wins", r, 10_000, 10_000)
    assert text.startswith(
        "With stacking the first player wins 29.0% of rounds vs 25.3% ("
    )


def test_verdict_amount() -> None:
    d = Diff(0.1, -0.2, 0.4, 0.5, "Welch t", 0.004)
    text = verdict_amount("classic", "seven-O", "cards drawn per round", "cards", d, 26.3,
                          26.4, 1000, 1000)
    assert text == ("Seven-O makes no significant difference to cards drawn per round: "
                    "26.30 vs 26.40 cards (difference +0.10, 95% CI -0.20 to +0.40, p = 0.5, "
                    "1,000 rounds each).")
    d = Diff(-2.0, -2.5, -1.5, 1e-9, "Welch t", -2.0 / 26.3)
    text = verdict_amount("a", "b", "cards drawn per round", "cards", d, 26.3, 24.3, 10, 20)
    assert text == ("B means 8% fewer cards drawn per round: 26.30 vs 24.30 cards "
                    "(difference -2.00, 95% CI -2.50 to -1.50, 10 and 20 rounds).")
    d = Diff(0.5, 0.2, 0.8, 1e-4, "Welch t", 0.5 / 3.0)
    text = verdict_amount("a", "b", "rounds per match", "rounds", d, 3.0, 3.5, 60, 60,
                          sample="matches")
    assert text.startswith("B means 17% more rounds per match: ")
    assert text.endswith("60 matches each).")
    nan = float("nan")
    assert verdict_amount("a", "b", "cards drawn per round", "cards",
                          Diff(nan, nan, nan, nan, "Welch t", nan), nan, nan, 0, 0) == (
        "Not enough data to compare cards drawn per round under b with a (0 rounds each).")
