"""Plain-language verdicts: one sentence per question, numbers and interval included.

A verdict is a decision (`unosim.analysis.paired.verdict`) put in words:
"longer"/"shorter" (a change is established), "practically the same" (the
difference is within the margin that matters, by two one-sided tests),
"not decided: run more games", or "identical game for game". A sentence
never says "significant" alone: it says which way, by how much with its
interval, against which margin, with the Holm-adjusted p-value behind the
decision. Figures are rounded to what their 95% interval supports.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from unosim.analysis.estimates import Diff
from unosim.analysis.paired import Margin, PairedDiff, Verdict
from unosim.analysis.stats import ci_decimals, format_fixed

if TYPE_CHECKING:
    from unosim.run.documents import Stop

__all__ = ["CANCELS", "ESTABLISHED", "LITTLE", "MARKER_LEGEND", "QUESTIONS", "Question",
           "decision_sentence", "games_factor", "margin_words", "pairing_words",
           "short_verdict", "stopping_text"]


@dataclass(frozen=True)
class Question:
    """What a metric's verdict answers, in words."""

    key: str
    what: str  # "round length"
    more: str  # "longer"
    less: str  # "shorter"
    unit: str = ""  # "turns"; "" for rates (percentage points)
    sample: str = "games"

    @property
    def rate(self) -> bool:
        return not self.unit


QUESTIONS: tuple[Question, ...] = (
    Question("turns_mean", "round length", "longer", "shorter", "turns"),
    Question("first_player_win_rate", "the first player's win rate", "higher", "lower"),
    Question("drawn_mean", "cards drawn per round", "more", "fewer", "cards"),
    Question("stalemate_rate", "the stalemate rate", "higher", "lower"),
    Question("match_rounds_mean", "rounds per match", "more", "fewer", "rounds", "matches"),
)


# the decisions that claim a change; an effect chart fills exactly these markers
ESTABLISHED = ("higher", "lower")
# what a filled marker means, on every effect chart (sweep and compare) and in its caption
MARKER_LEGEND = ("filled: a change established after Holm's adjustment, as the verdicts say; "
                 "hollow: not established (intervals: 95%, unadjusted)")


def _p(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.2g}"


def _nums(q: Question, d: Diff, va: float, vb: float) -> tuple[str, int]:
    """'45.6 vs 46.6 turns (difference -0.98, 95% CI -1.04 to -0.92' and the decimals.

    The subject's value ``vb`` comes first, as the sentence names it first
    ("stacking vs classic"), and the difference is ``vb - va``.
    """
    s = 100.0 if q.rate else 1.0
    lo, hi = s * d.low, s * d.high
    dec = ci_decimals(lo, hi) if math.isfinite(lo) and hi > lo else 2
    unit = "%" if q.rate else f" {q.unit}"
    pts = " points" if q.rate else ""
    text = (f"{format_fixed(s * vb, dec)}{'%' if q.rate else ''} vs "
            f"{format_fixed(s * va, dec)}{unit} (difference {format_fixed(s * d.diff, dec, True)}"
            f"{pts}")
    if math.isfinite(lo):
        text += f", 95% CI {format_fixed(lo, dec, True)} to {format_fixed(hi, dec, True)}{pts}"
    return text, dec


def _margin_text(q: Question, margin: float, relative: float | None, dec: int) -> str:
    s = 100.0 if q.rate else 1.0
    m = f"±{format_fixed(s * margin, max(dec, 1) if q.rate else dec)}"
    m += " points" if q.rate else f" {q.unit}"
    return m + " margin" + (f", {100 * relative:g}% of the baseline," if relative is not None
                            else "")


def decision_sentence(q: Question, base: str, who: str, d: Diff, v: Verdict, va: float,
                      vb: float, n: int, players: int | None = None,
                      relative: float | None = None) -> str:
    """The verdict on question ``q`` for rule set ``who`` against ``base``, in one sentence.

    ``va``/``vb`` are the two values, ``n`` the games per config, ``relative``
    the margin as a share of the baseline when it was given so.

    >>> from unosim.analysis.paired import verdict
    >>> d = Diff(-0.98, -1.04, -0.92, 1e-9, "paired t", -0.021)
    >>> print(decision_sentence(QUESTIONS[0], "classic", "stacking", d,
    ...       verdict(-0.98, 1e-9, 0.9, 0.47), 46.6, 45.62, 100_000, players=4, relative=0.01))
    Stacking makes 4-player rounds shorter: 45.620 vs 46.600 turns (difference -0.980, 95% CI \
-1.040 to -0.920; paired t, 100,000 games each, Holm-adjusted p < 0.001), by more than the \
±0.470 turns margin, 1% of the baseline.
    """
    head = who[:1].upper() + who[1:]
    what = q.what
    if q.key == "turns_mean" and players:
        what = f"{players}-player round length"
    paired = isinstance(d, PairedDiff)
    if v.word == "identical":
        return (f"{head} gives the same {what} as {base} in every one of the {n:,} "
                f"{q.sample} (they play each of them identically): no test is needed.")
    nums, dec = _nums(q, d, va, vb)
    how = f"{d.test}{' over' if paired else ','} {n:,} {q.sample} each"
    margin = _margin_text(q, v.margin, relative, dec)
    if v.word in ("higher", "lower"):
        way = q.more if v.word == "higher" else q.less
        subject = (f"makes {players}-player rounds {way}" if q.key == "turns_mean" and players
                   else f"makes rounds {way}" if q.key == "turns_mean"
                   else f"gives {way} {q.what}" if q.unit else f"makes {q.what} {way}")
        beyond = min(abs(d.low), abs(d.high)) >= v.margin and d.low * d.high > 0
        tail = (f"by more than the {margin}" if beyond
                else f"though the change may be smaller than the {margin}")
        return f"{head} {subject}: {nums}; {how}, Holm-adjusted {_p(v.p_diff)}), " \
               f"{tail.rstrip(',')}."
    if v.word == "same":
        same = what[4:] if what.startswith("the ") else what
        return (f"{head} and {base} have practically the same {same}: {nums}; {how}), "
                f"within the {margin.rstrip(',')} (two one-sided tests, Holm-adjusted "
                f"{_p(v.p_same)}).")
    return (f"Not decided: run more games. {head} against {base}, {what}: {nums}; {how}); "
            f"neither a change nor a difference within the {margin} is established "
            "(Holm-adjusted).")


def margin_words(q: Question, m: Margin) -> str:
    """A margin as a reader sets it: '±1% of the baseline', '±0.5 points', '±0.3 turns'.

    >>> margin_words(QUESTIONS[1], Margin(0.005, False))
    '±0.5 points'
    """
    if m.relative:
        return f"±{100 * m.value:g}% of the baseline"
    return f"±{100 * m.value:g} points" if q.rate else f"±{m.value:g} {q.unit}"


def short_verdict(q: Question, v: Verdict) -> str:
    """One or two words for a table cell: 'shorter', 'same', 'not decided', 'identical'.

    >>> from unosim.analysis.paired import verdict
    >>> short_verdict(QUESTIONS[0], verdict(-1, 0.001, 0.9, 0.1))
    'shorter'
    """
    if v.word == "higher":
        return q.more
    if v.word == "lower":
        return q.less
    return {"same": "practically the same", "undecided": "not decided",
            "identical": "identical"}[v.word]


def stopping_text(stop: Stop) -> str:
    """The stopping rule of a precision run and how it ended, for a report."""
    hw = stop.get("half_width")
    hw_text = f"{hw:.4g}" if hw is not None else "unknown"
    return (f"**Stopping rule:** {stop['rule']}, at most {stop['max_games']:,} games. "
            + (f"It was met after {stop['games']:,} games (half-width {hw_text})."
               if stop.get("met") else
               f"It was **not** met at the cap ({stop['games']:,} games, half-width "
               f"{hw_text}): the intervals are wider than asked.")
            + " The rule looks only at the interval's width, never at a verdict, so "
              "stopping does not bias the decisions.")


# Pairing is said to cancel card luck where an unpaired comparison would need at
# least this many times the games (a per-game correlation of about 0.5 or more).
CANCELS = 2.0
# Below this many times the games (a correlation below about 0.17) pairing helped little;
# between the two, card luck partly cancels (a saving of a sixth to a half of the games).
LITTLE = 1.2


def games_factor(d: PairedDiff) -> float:
    """How many times the games an unpaired comparison would need for the same
    precision: (unpaired / paired standard error)²; nan when unknown.

    >>> games_factor(PairedDiff(1.0, 0.5, 1.5, 0.01, "paired t", 0.1, float("nan"), 0.1, 0.2,
    ...                         0.6, 1000, 10.0))
    4.0
    """
    if not (d.se > 0 and math.isfinite(d.se_unpaired)):
        return math.nan
    return (d.se_unpaired / d.se) ** 2


def _span(xs: Sequence[float], fmt: str) -> str:
    lo, hi = format(min(xs), fmt), format(max(xs), fmt)
    return lo if lo == hi else f"{lo} to {hi}"


def pairing_words(diffs: Sequence[PairedDiff], noun: str = "configs") -> str:
    """How much pairing helped the round-length differences, in one sentence, claiming
    that card luck cancels only where it did (see `CANCELS`); "" without paired diffs.

    >>> d = PairedDiff(1.0, 0.5, 1.5, 0.01, "paired t", 0.1, float("nan"), 0.1, 0.102,
    ...                0.02, 1000, 10.0)
    >>> pairing_words([d])
    'The per-game correlation of turns with the baseline is 0.02, so an unpaired \
comparison would need 1.0 times the games for the same precision: pairing helped little \
here, because the change makes the same shuffles play out differently (card luck does not \
cancel).'
    >>> e = PairedDiff(1.0, 0.5, 1.5, 0.01, "paired t", 0.1, float("nan"), 0.1, 0.13,
    ...                0.4, 1000, 10.0)
    >>> pairing_words([e]).split(": ", 1)[1]
    'card luck partly cancels in the differences.'
    >>> print(pairing_words([d, e, e]).split(": ", 1)[1])
    of the 3 configs, card luck cancels partly for 2 (at least 1.2 times) and hardly for 1
    (less than 1.2 times).
    """
    ds = [d for d in diffs if not d.identical and math.isfinite(games_factor(d))]
    if not ds:
        return ""
    factors = [games_factor(d) for d in ds]
    text = (f"The per-game correlation of turns with the baseline is "
            f"{_span([d.corr for d in ds], '.2f')}, so an unpaired comparison would need "
            f"{_span(factors, '.1f')} times the games for the same precision: ")
    big = sum(f >= CANCELS for f in factors)
    small = sum(f < LITTLE for f in factors)
    mid = len(ds) - big - small
    if big == len(ds):
        return text + "card luck largely cancels in the differences."
    if small == len(ds):
        return text + ("pairing helped little here, because the change makes the same "
                       "shuffles play out differently (card luck does not cancel).")
    if mid == len(ds):
        return text + "card luck partly cancels in the differences."
    parts = [f"{how} for {k} ({what})" for how, k, what in (
        ("largely", big, f"an unpaired comparison would need at least {CANCELS:g} times the "
                         "games"),
        ("partly", mid, f"at least {LITTLE:g} times"),
        ("hardly", small, f"less than {LITTLE:g} times")) if k]
    return (text + f"of the {len(ds)} {noun}, card luck cancels "
            + (parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1])
            + ".")
