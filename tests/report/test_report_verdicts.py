"""Verdict sentences (unosim.report.verdicts): the wording of every decision, never
"significant" alone, and each decision's rule (two one-sided tests, Holm)."""

from __future__ import annotations

from unosim.analysis.estimates import Diff
from unosim.analysis.paired import Margin, PairedDiff, identical_diff, verdict
from unosim.report.verdicts import QUESTIONS, decision_sentence, margin_words, short_verdict

TURNS, FIRST, DRAWN = QUESTIONS[0], QUESTIONS[1], QUESTIONS[2]


def paired(diff: float, low: float, high: float, base: float) -> PairedDiff:
    return PairedDiff(diff, low, high, 1e-9, "paired t", diff / base, float("nan"), 0.1, 0.2,
                      0.5, 10_000, base)


def test_longer_beyond_the_margin() -> None:
    d = paired(5.067, 4.771, 5.363, 41.234)
    text = decision_sentence(TURNS, "classic", "draw until you can play", d,
                             verdict(d.diff, 1e-9, 1.0, 0.41), 41.234, 46.301, 10_000,
                             players=4, relative=0.01)
    assert text.startswith("Draw until you can play makes 4-player rounds longer: 46.30 vs "
                           "41.23 turns (difference +5.07, 95% CI +4.77 to +5.36; paired t "
                           "over 10,000 games each, Holm-adjusted p < 0.001)")
    assert text.endswith("by more than the ±0.41 turns margin, 1% of the baseline.")
    assert "significant" not in text


def test_shorter_but_maybe_within_the_margin() -> None:
    d = paired(-0.13, -0.25, -0.01, 50.0)
    text = decision_sentence(TURNS, "classic", "stacking", d,
                             verdict(d.diff, 0.01, 0.2, 0.5), 50.0, 49.87, 10_000)
    assert "makes rounds shorter" in text
    assert text.endswith("though the change may be smaller than the ±0.50 turns margin.")


def test_practically_the_same() -> None:
    d = paired(0.01, -0.05, 0.07, 50.0)
    v = verdict(d.diff, 0.7, 0.001, 0.5)
    text = decision_sentence(TURNS, "classic", "seven-O", d, v, 50.0, 50.01, 10_000,
                             relative=0.01)
    assert text.startswith("Seven-O and classic have practically the same round length:")
    assert "within the ±0.500 turns margin, 1% of the baseline (two one-sided tests, " \
           "Holm-adjusted p = 0.001)" in text
    assert short_verdict(TURNS, v) == "practically the same"


def test_not_decided_says_run_more_games() -> None:
    d = Diff(-0.004, -0.0126, 0.0045, 0.35, "two-proportion z", -0.016)
    text = decision_sentence(FIRST, "classic", "stacking", d, verdict(d.diff, 0.9, 0.4, 0.005),
                             0.25, 0.246, 20_000)
    assert text.startswith("Not decided: run more games. Stacking against classic, the first "
                           "player's win rate: 24.60% vs 25.00% (difference -0.40 points, "
                           "95% CI -1.26 to +0.45 points; two-proportion z, 20,000 games each)")
    assert "±0.50 points margin" in text


def test_identical_needs_no_test() -> None:
    d = identical_diff(5_000, 26.3)
    text = decision_sentence(DRAWN, "classic", "the 1992 sheet", d,
                             verdict(0.0, 1.0, 1.0, 0.26, identical=True), 26.3, 26.3, 5_000)
    assert text == ("The 1992 sheet gives the same cards drawn per round as classic in every "
                    "one of the 5,000 games (they play each of them identically): no test is "
                    "needed.")


def test_margin_words() -> None:
    assert margin_words(TURNS, Margin(0.01, True)) == "±1% of the baseline"
    assert margin_words(FIRST, Margin(0.005, False)) == "±0.5 points"
    assert margin_words(TURNS, Margin(0.3, False)) == "±0.3 turns"
