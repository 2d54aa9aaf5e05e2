"""Rule sets side by side: every headline metric of each run against the first, and verdicts.

The numbers come from ``unosim.analysis.estimates.compare_aggregates``;
this module names the runs (by what differs from the baseline, in the rules
layer's words), words one verdict per question and lays the numbers out as
the tidy rows of ``compare.csv``.

Runs that share a seed share each game's random stream. The intervals treat
the samples as independent, which is conservative when rule sets play
similarly (their results are then positively correlated), so a same-seed
comparison never claims more precision than the samples give.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from unosim.analysis import stats
from unosim.analysis.estimates import (
    Diff,
    Estimate,
    Metric,
    compare_aggregates,
    position_diff,
    rate_counts,
    wilson_estimate,
)
from unosim.report.format import position_name
from unosim.report.runs import Run
from unosim.report.verdicts import verdict_amount, verdict_length, verdict_rate
from unosim.rules.config import GameConfig
from unosim.rules.settings import describe_difference

__all__ = ["Comparison", "compare_runs", "comparison_rows", "run_label", "unique_labels"]

NAN = float("nan")


def run_label(base: GameConfig, cfg: GameConfig) -> str:
    """The subject of a verdict: what differs from ``base`` when short, else the name."""
    items = describe_difference(base, cfg)
    if not items:
        return cfg.name
    if len(items) <= 2:
        return " with ".join(items)
    return f"{cfg.name} ({', '.join(items)})"


def unique_labels(runs: Sequence[Run]) -> list[str]:
    """Column labels: config names, made unique by the differing rules, then the seed."""
    labels = [r.cfg.name for r in runs]
    for i, r in enumerate(runs):
        if labels.count(r.cfg.name) > 1 and i > 0:
            items = describe_difference(runs[0].cfg, r.cfg)
            if items:
                labels[i] = f"{r.cfg.name} ({', '.join(items)})"
    for i, r in enumerate(runs):
        if labels.count(labels[i]) > 1:
            labels[i] = f"{labels[i]} (seed {r.seed})"
    for i in range(len(labels)):
        if labels.count(labels[i]) > 1:
            labels[i] = f"{labels[i]} #{i + 1}"
    return labels


@dataclass
class Comparison:
    """Runs, their labels, every metric's estimates and differences, and the verdicts.

    ``values[key][i]`` is run ``i``'s estimate of metric ``key``;
    ``diffs[key][i]`` is run ``i`` minus the first run (``None`` for the first).
    ``subjects`` name each run in verdicts; ``verdicts[i - 1]`` are run ``i``'s
    sentences, the round-length verdict first.
    """

    runs: list[Run]
    labels: list[str]
    subjects: list[str]
    metrics: list[Metric]
    values: dict[str, list[Estimate]]
    diffs: dict[str, list[Diff | None]]
    verdicts: list[list[str]] = field(default_factory=list)

    @property
    def base(self) -> Run:
        return self.runs[0]


def compare_runs(runs: Sequence[Run], labels: Sequence[str] | None = None) -> Comparison:
    """Every headline metric of every run, and each run's differences from the first."""
    runs = list(runs)
    if len(runs) < 2:
        raise ValueError("compare needs at least two runs")
    labels = list(labels) if labels is not None else unique_labels(runs)
    # Verdicts name what differs from the baseline ("stacking (Draw Two on Draw Two)");
    # configs that differ in nothing but seed or name keep their column label.
    subjects = [labels[0]] + [
        run_label(runs[0].cfg, r.cfg) if describe_difference(runs[0].cfg, r.cfg) else labels[i]
        for i, r in enumerate(runs[1:], start=1)]
    subjects = [s if subjects.count(s) == 1 else labels[i] for i, s in enumerate(subjects)]
    metrics, values, diffs = compare_aggregates([r.aggregates for r in runs])
    cmp = Comparison(runs, labels, subjects, metrics, values, diffs)
    cmp.verdicts = [_verdicts(cmp, i) for i in range(1, len(runs))]
    return cmp


def _verdicts(cmp: Comparison, i: int) -> list[str]:
    """The plain-language sentences for run ``i`` against the first run."""
    a, b = cmp.base, cmp.runs[i]
    al, bl = cmp.labels[0], cmp.subjects[i]
    ha, hb = a.aggregates, b.aggregates
    players = a.cfg.players if a.cfg.players == b.cfg.players else None
    out = [verdict_length(al, bl, stats.diff_of_means_hist(ha["turns_hist"], hb["turns_hist"]),
                          a.rounds, b.rounds, players=players)]

    def rate(source: str, what: str) -> str:
        k1, n1 = rate_counts(ha, source)
        k2, n2 = rate_counts(hb, source)
        return verdict_rate(al, bl, what, stats.two_proportion_test(k1, n1, k2, n2), n1, n2)

    def amount(key: str, what: str, unit: str, sample: str = "rounds") -> str:
        d = cmp.diffs[key][i]
        assert d is not None
        va, vb = cmp.values[key][0], cmp.values[key][i]
        return verdict_amount(al, bl, what, unit, d, va.value, vb.value, va.n, vb.n,
                              sample=sample)

    out.append(rate("first", "the player on the dealer's left (who normally plays first) "
                             "wins"))
    out.append(amount("drawn_mean", "cards drawn per round", "cards"))
    if ha["counts"][2] or hb["counts"][2]:
        out.append(rate("stalemate", "a round hits the turn cap (stalemate)"))
    if "match_rounds_mean" in cmp.values:
        out.append(amount("match_rounds_mean", "rounds per match", "rounds", sample="matches"))
    return out


def comparison_rows(cmp: Comparison) -> list[dict[str, Any]]:
    """Tidy rows (one per metric and config, then per seat position) for compare.csv."""
    rows = []

    def row(metric: str, label: str, i: int, e: Estimate, d: Diff | None) -> dict[str, Any]:
        r = cmp.runs[i]
        return {
            "metric": metric, "metric_label": label, "config": r.cfg.name,
            "label": cmp.labels[i], "games": r.games, "rounds": r.rounds, "seed": r.seed,
            "value": e.value, "low": e.low, "high": e.high,
            "diff": d.diff if d else 0.0 if i == 0 else NAN,
            "diff_low": d.low if d else NAN, "diff_high": d.high if d else NAN,
            "rel_change": d.rel_change if d else NAN,
            "p_value": d.p_value if d else NAN, "test": d.test if d else "",
            "p_value_mann_whitney": d.p_value_mw if d else NAN,
        }

    for m in cmp.metrics:
        rows += [row(m.key, m.label, i, cmp.values[m.key][i], cmp.diffs[m.key][i])
                 for i in range(len(cmp.runs))]
    base = cmp.base.aggregates
    for pos in range(min(r.cfg.players for r in cmp.runs)):
        for i, r in enumerate(cmp.runs):
            e = wilson_estimate(int(r.aggregates["wins_pos"][pos]), r.rounds)
            d = position_diff(base, r.aggregates, pos) if i else None
            rows.append(row(f"win_rate_position_{pos}",
                            f"Win rate, {position_name(pos, r.cfg.players)}", i, e, d))
    return rows

