"""Plain-language verdicts: one sentence per question, numbers and interval included.

Each sentence names the rule set being described (``b_label``) against the
baseline (``a_label``), says whether the difference is significant at
``alpha``, and rounds every figure to what its 95% interval supports (2
significant digits of the half-width; the headline percentage to 1).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from unosim.analysis.estimates import Diff
from unosim.analysis.stats import MeanDiff, ProportionDiff, ci_decimals, ci_label, format_fixed

__all__ = ["verdict_amount", "verdict_length", "verdict_rate"]


def _p_text(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.2g}"


def _counts(n_a: int, n_b: int, sample: str = "rounds") -> str:
    return f"{n_a:,} {sample} each" if n_a == n_b else f"{n_a:,} and {n_b:,} {sample}"


def _mean_verdict(a_label: str, b_label: str, diff: MeanDiff, counts: str, unit: str,
                  compared: str, subject: str, change: Callable[[str, bool], str],
                  alpha: float) -> str:
    """The sentence shared by every comparison of two means.

    ``compared`` names what is compared when data are missing ("4-player
    rounds"), ``subject`` what shows no significant difference ("4-player
    round length"); ``change(percent, up)`` words a significant change.
    """
    if not all(math.isfinite(x) for x in (diff.mean1, diff.mean2, diff.p_value, diff.low)):
        return f"Not enough data to compare {compared} under {b_label} with {a_label} ({counts})."
    who = b_label[:1].upper() + b_label[1:]
    d = ci_decimals(diff.low, diff.high)
    nums = (f"{format_fixed(diff.mean1, d)} vs {format_fixed(diff.mean2, d)} {unit} "
            f"(difference {format_fixed(diff.diff, d, True)}, {ci_label(diff.conf)} "
            f"{format_fixed(diff.low, d, True)} to {format_fixed(diff.high, d, True)}")
    if not diff.p_value < alpha:
        return (f"{who} makes no significant difference to {subject}: {nums}, "
                f"{_p_text(diff.p_value)}, {counts}).")
    pct = ""
    if math.isfinite(diff.rel_change) and diff.mean1:
        rel_half = 100.0 * (diff.high - diff.low) / 2.0 / abs(diff.mean1)
        pd = ci_decimals(-rel_half, rel_half, sig=1)
        pct = f"{format_fixed(100.0 * abs(diff.rel_change), pd)}% "
    return f"{who} {change(pct, diff.diff > 0)}: {nums}, {counts})."


def verdict_length(a_label: str, b_label: str, diff: MeanDiff, n_a: int, n_b: int,
                   players: int | None = None, unit: str = "turns",
                   alpha: float = 0.05) -> str:
    """Whether rule set ``b_label`` lengthens rounds against ``a_label``.

    ``diff`` must be ``diff_of_means_hist(hist_a, hist_b)``.

    >>> from unosim.analysis.stats import MeanDiff
    >>> print(verdict_length("classic", "jump-in", MeanDiff(50.2, 44.1, -6.1, -6.5, -5.7,
    ...                      -6.1 / 50.2, 1e-9), 1000, 1000, players=4))
    Jump-in makes 4-player rounds 12.2% shorter: 50.20 vs 44.10 turns (difference -6.10, ...).
    """
    rounds = f"{players}-player rounds" if players else "rounds"
    what = f"{players}-player round length" if players else "round length"
    return _mean_verdict(
        a_label, b_label, diff, _counts(n_a, n_b), unit, rounds, what,
        lambda pct, up: f"makes {rounds} {pct}{'longer' if up else 'shorter'}", alpha)


def verdict_amount(a_label: str, b_label: str, what: str, unit: str, diff: Diff,
                   mean_a: float, mean_b: float, n_a: int, n_b: int,
                   alpha: float = 0.05, sample: str = "rounds") -> str:
    """Whether ``b_label`` means more or fewer of ``what`` (e.g. cards drawn per round).

    ``diff`` is ``metric_diff`` of the mean; ``sample`` names what ``n_a`` and
    ``n_b`` count.
    """
    md = MeanDiff(mean_a, mean_b, diff.diff, diff.low, diff.high, diff.rel_change, diff.p_value)
    return _mean_verdict(
        a_label, b_label, md, _counts(n_a, n_b, sample), unit, what, what,
        lambda pct, up: f"means {pct}{'more' if up else 'fewer'} {what}", alpha)


def verdict_rate(a_label: str, b_label: str, what: str, diff: ProportionDiff, n_a: int,
                 n_b: int, alpha: float = 0.05) -> str:
    """How often ``what`` happens under ``b_label`` against ``a_label``, in percentage points.

    ``diff`` must be ``two_proportion_test(k_a, n_a, k_b, n_b)``; ``what`` is a
    clause such as "the first player wins".
    """
    counts = _counts(n_a, n_b)
    if not all(math.isfinite(x) for x in (diff.rate1, diff.rate2, diff.p_value)):
        return (f"Not enough data to compare how often {what} under {b_label} with "
                f"{a_label} ({counts}).")
    lo, hi = 100.0 * diff.low, 100.0 * diff.high
    d = ci_decimals(lo, hi)
    rates = (f"With {b_label} {what} {format_fixed(100.0 * diff.rate2, d)}% of rounds "
             f"vs {format_fixed(100.0 * diff.rate1, d)}%")
    detail = (f"difference {format_fixed(100.0 * diff.diff, d, True)} points, "
              f"{ci_label(diff.conf)} {format_fixed(lo, d, True)} to {format_fixed(hi, d, True)}")
    if not diff.p_value < alpha:
        return f"{rates}, no significant difference ({detail}, {_p_text(diff.p_value)}, {counts})."
    return f"{rates} ({detail}, {counts})."
