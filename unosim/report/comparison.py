"""Rule sets side by side: every headline metric of each run against the first, and verdicts.

The estimates come from ``unosim.analysis.estimates``; differences from the
baseline are paired (``unosim.analysis.paired``) when the two runs played the
same games in lockstep, and unpaired (Welch, Newcombe) otherwise, e.g. for a
finished run read back from its directory. Each question (round length,
first-player win rate, cards drawn, stalemates, rounds per match) gets a
decision against a practical margin by two one-sided tests, with Holm's
correction across every decision of the comparison. This module names the
runs, words the verdicts and lays the numbers out as one tidy table
(``compare.csv`` and ``compare.parquet``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pandas as pd

from unosim.analysis.estimates import (
    METRIC_BY_KEY,
    Diff,
    Estimate,
    Metric,
    compare_aggregates,
    is_match,
    position_diff,
    wilson_estimate,
)
from unosim.analysis.paired import (
    DEFAULT_MARGINS,
    NGF,
    Margin,
    PairedDiff,
    PairMoments,
    Verdict,
    holm,
    identical_diff,
    paired_diff,
    tost_p,
    verdict,
)
from unosim.report.format import fmt_diff, fmt_metric, position_name
from unosim.report.notebook import HEADLINES, html, text
from unosim.report.runs import Run
from unosim.report.verdicts import (
    ESTABLISHED,
    MARKER_LEGEND,
    QUESTIONS,
    Question,
    decision_sentence,
    short_verdict,
)
from unosim.rules.config import GameConfig
from unosim.rules.settings import describe_difference

__all__ = ["Comparison", "compare_runs", "comparison_html", "comparison_table",
           "comparison_text", "decide_together", "effect_markers", "effects_figure",
           "effects_spec",
           "diff_se", "questions_for", "run_label", "seat_diff", "unique_labels"]

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from unosim.report.charts import ForestSpec
    from unosim.run.documents import Stop

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
    ``diffs[key][i]`` is run ``i`` minus the first run (``None`` for the first),
    a `PairedDiff` when run ``i`` was paired with the baseline.
    ``decisions[key][i]`` is the Holm-adjusted decision on question ``key``;
    ``verdicts[i - 1]`` are run ``i``'s sentences, the round-length verdict first.
    """

    runs: list[Run]
    labels: list[str]
    subjects: list[str]
    metrics: list[Metric]
    values: dict[str, list[Estimate]]
    diffs: dict[str, list[Diff | None]]
    decisions: dict[str, list[Verdict | None]] = field(default_factory=dict)
    margins: dict[str, Margin] = field(default_factory=dict)
    verdicts: list[list[str]] = field(default_factory=list)
    paired: list[bool] = field(default_factory=list)
    identical: list[bool] = field(default_factory=list)
    stop: Stop | None = None
    n_tests: int = 0

    @property
    def base(self) -> Run:
        return self.runs[0]

    def table(self) -> pd.DataFrame:
        """The tidy table: one row per metric and config (then per seat position)."""
        return comparison_table(self)

    def __repr__(self) -> str:
        return comparison_text(self)

    def _repr_html_(self) -> str:
        return comparison_html(self)

    def plot(self) -> Figure:
        """The paired difference of each config from the first, with its 95% interval: mean
        turns (%) and first-player win rate (points); filled where the verdict decides a
        change. A matplotlib Figure (the page's effects chart)."""
        from unosim.report.notebook import displayable

        if len(self.runs) < 2:
            raise ValueError("nothing to plot: one config, no difference")
        return displayable(effects_figure(self))


def questions_for(cmp: Comparison) -> list[Question]:
    """The questions this comparison answers (stalemates only when there are any)."""
    keys = {m.key for m in cmp.metrics}
    stalemates = any(r.aggregates["counts"][2] for r in cmp.runs)
    return [q for q in QUESTIONS if q.key in keys
            and (q.key != "stalemate_rate" or stalemates)]


def compare_runs(runs: Sequence[Run], labels: Sequence[str] | None = None,
                 pairs: Mapping[int, PairMoments] | None = None,
                 margins: Mapping[str, Margin] | None = None,
                 stop: Stop | None = None) -> Comparison:
    """Every headline metric of every run, each run's differences from the first, verdicts.

    ``pairs[i]`` holds the per-game moments of run ``i`` with the baseline
    when they ran in lockstep; ``margins`` override `DEFAULT_MARGINS` per
    metric key; ``stop`` is the stopping rule's outcome when one ended the run.
    """
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
    pairs = dict(pairs or {})
    match = all(is_match(r.aggregates) for r in runs)
    players = runs[0].cfg.players
    for i, pm in pairs.items():
        if pm.identical(range(NGF)):  # every game the same: every metric too, exactly
            for m in metrics:
                diffs[m.key][i] = identical_diff(pm.n, values[m.key][0].value)
            continue
        for m in metrics:
            pd_ = paired_diff(pm, m.key, match, players)
            if pd_ is not None and (m.kind != "fair_ratio" or runs[i].cfg.players == players):
                diffs[m.key][i] = pd_
    cmp = Comparison(runs, labels, subjects, metrics, values, diffs,
                     margins={**DEFAULT_MARGINS, **(margins or {})},
                     paired=[False] + [i in pairs for i in range(1, len(runs))],
                     identical=[False] + [i in pairs and pairs[i].identical(range(NGF))
                                          for i in range(1, len(runs))], stop=stop)
    decide_together([cmp])
    return cmp


def decide_together(cmps: Sequence[Comparison]) -> int:
    """Decide every question of every comparison with one Holm adjustment; the test count.

    Each comparison's ``decisions`` are replaced by ones whose p-values are
    adjusted across all of ``cmps`` (a sweep is one family of claims), and
    ``n_tests`` set to the number of tests in that family.
    """
    tests: list[tuple[Comparison, str, int, Diff, float, bool]] = []
    raw: list[float] = []
    for cmp in cmps:
        for q in questions_for(cmp):
            base = cmp.values[q.key][0]
            for i in range(1, len(cmp.runs)):
                d = cmp.diffs[q.key][i]
                if d is None or not math.isfinite(d.diff):
                    continue
                margin = cmp.margins[q.key].absolute(base.value)
                same = isinstance(d, PairedDiff) and d.identical
                se = diff_se(d)
                df = max(min(base.n, cmp.values[q.key][i].n) - 1, 1)
                tests.append((cmp, q.key, i, d, margin, same))
                raw += [NAN, NAN] if same else [d.p_value, tost_p(d.diff, se, margin, df)]
    adj = holm(raw)
    n = sum(math.isfinite(p) for p in raw)
    for cmp in cmps:
        cmp.decisions = {q.key: [None] * len(cmp.runs) for q in questions_for(cmp)}
        cmp.n_tests = n
    for j, (cmp, key, i, d, margin, same) in enumerate(tests):
        p_diff, p_same = (p if math.isfinite(p) else 1.0 for p in adj[2 * j:2 * j + 2])
        cmp.decisions[key][i] = verdict(d.diff, p_diff, p_same, margin, identical=same)
    for cmp in cmps:
        cmp.verdicts = [_verdicts(cmp, i) for i in range(1, len(cmp.runs))]
    return n


def _verdicts(cmp: Comparison, i: int) -> list[str]:
    """The plain-language sentences for run ``i`` against the first run."""
    a, b = cmp.base, cmp.runs[i]
    players = a.cfg.players if a.cfg.players == b.cfg.players else None
    out = []
    if cmp.identical[i]:
        out.append(f"{cmp.subjects[i][:1].upper()}{cmp.subjects[i][1:]} plays every one of "
                   f"the {b.games:,} games exactly as {cmp.labels[0]} does (the same turns, "
                   "draws, points and winners): these rule sets are identical here, so "
                   "there is nothing to test.")
        return out
    for q in questions_for(cmp):
        v, d = cmp.decisions[q.key][i], cmp.diffs[q.key][i]
        if v is None or d is None:
            continue
        m = cmp.margins[q.key]
        n = a.games if q.sample == "matches" or not is_match(a.aggregates) else a.rounds
        sample_n = n if isinstance(d, PairedDiff) else min(cmp.values[q.key][0].n,
                                                           cmp.values[q.key][i].n)
        out.append(decision_sentence(
            q, cmp.labels[0], cmp.subjects[i], d, v, cmp.values[q.key][0].value,
            cmp.values[q.key][i].value, sample_n if q.sample == "games" else b.games,
            players=players, relative=m.value if m.relative else None))
    return out


def diff_se(d: Diff) -> float:
    """A difference's standard error (an unpaired one's from its 95% interval)."""
    if isinstance(d, PairedDiff):
        return d.se
    return (d.high - d.low) / (2 * 1.959964) if math.isfinite(d.low) else NAN


def seat_diff(cmp: Comparison, i: int, pos: int) -> Diff:
    """Run ``i``'s win rate at seat position ``pos`` minus the baseline's.

    Position 0 (the dealer's left) is the first player: its difference is the
    headline's own (paired when the runs were), so a page gives that quantity
    one interval and one test. Other positions have no paired moments: a
    two-proportion z-test with Newcombe's interval.
    """
    d = cmp.diffs.get("first_player_win_rate", [None] * len(cmp.runs))[i] if pos == 0 else None
    return d if d is not None else position_diff(cmp.base.aggregates, cmp.runs[i].aggregates,
                                                 pos)


def comparison_table(cmp: Comparison) -> pd.DataFrame:
    """Tidy rows (one per metric and config, then per seat position): compare.csv's shape."""
    rows = []

    def row(metric: str, label: str, i: int, e: Estimate, d: Diff | None,
            v: Verdict | None = None, q: Question | None = None) -> dict[str, object]:
        r = cmp.runs[i]
        pd_ = d if isinstance(d, PairedDiff) else None
        return {
            "metric": metric, "metric_label": label, "config": r.cfg.name,
            "label": cmp.labels[i], "games": r.games, "rounds": r.rounds, "seed": r.seed,
            "value": e.value, "low": e.low, "high": e.high,
            "diff": d.diff if d else 0.0 if i == 0 else NAN,
            "diff_low": d.low if d else NAN, "diff_high": d.high if d else NAN,
            "rel_change": d.rel_change if d else NAN,
            "p": d.p_value if d else NAN, "test": d.test if d else "",
            "p_mann_whitney": d.p_value_mw if d else NAN,
            "paired": pd_ is not None,
            "corr": pd_.corr if pd_ else NAN,
            "se": pd_.se if pd_ else (diff_se(d) if d else NAN),
            "se_unpaired": pd_.se_unpaired if pd_ else (diff_se(d) if d else NAN),
            "p_holm_diff": v.p_diff if v else NAN,
            "p_holm_same": v.p_same if v else NAN,
            "margin": v.margin if v else NAN,
            "verdict": short_verdict(q, v) if v and q else "",
        }

    qs = {q.key: q for q in questions_for(cmp)}
    for m in cmp.metrics:
        dec = cmp.decisions.get(m.key, [None] * len(cmp.runs))
        rows += [row(m.key, m.label, i, cmp.values[m.key][i], cmp.diffs[m.key][i], dec[i],
                     qs.get(m.key)) for i in range(len(cmp.runs))]
    for pos in range(min(r.cfg.players for r in cmp.runs)):
        for i, r in enumerate(cmp.runs):
            e = wilson_estimate(int(r.aggregates["wins_pos"][pos]), r.rounds)
            d = seat_diff(cmp, i, pos) if i else None
            rows.append(row(f"win_rate_position_{pos}",
                            f"Win rate, {position_name(pos, r.cfg.players)}", i, e, d))
    return pd.DataFrame(rows)


# what a notebook shows of a comparison (`unosim.report.notebook`)

def _keys(cmp: Comparison) -> list[str]:
    """The headline questions a summary shows (the first metric if neither is there)."""
    return [k for k in HEADLINES if k in cmp.values] or [cmp.metrics[0].key]


def _cells(cmp: Comparison, key: str, i: int) -> list[str]:
    """Value, difference from the baseline (95% CI) and decision of config ``i`` on ``key``."""
    m = METRIC_BY_KEY[key]
    value = fmt_metric(cmp.values[key][i], m)
    d = cmp.diffs[key][i]
    if i == 0 or d is None:
        return [value, "baseline" if i == 0 else "—", ""]
    diff, ci, _ = fmt_diff(d, m)
    v = cmp.decisions.get(key, [None] * len(cmp.runs))[i]
    q = next((q for q in questions_for(cmp) if q.key == key), None)
    return [value, f"{diff} (95% CI {ci})" if "n/a" not in ci else diff,
            short_verdict(q, v) if v is not None and q is not None else ""]


def _sample(cmp: Comparison) -> str:
    unit = "matches" if all(is_match(r.aggregates) for r in cmp.runs) else "games"
    games = sorted({r.games for r in cmp.runs})
    seeds = sorted({r.seed for r in cmp.runs})
    how = ("paired game by game with " + cmp.labels[0] if any(cmp.paired)
           else "not paired")
    return (f"{', '.join(f'{g:,}' for g in games)} {unit} each, "
            f"seed{'s' if len(seeds) > 1 else ''} {', '.join(map(str, seeds))}, {how}")


def comparison_text(cmp: Comparison) -> str:
    """A few lines: each config's mean turns, its paired difference and the decision."""
    key = _keys(cmp)[0]
    lines = []
    for i, lab in enumerate(cmp.labels):
        value, diff, word = _cells(cmp, key, i)
        lines.append(f"{lab}: {value}" + (f"; {diff} against {cmp.labels[0]}: {word}"
                                          if i else ""))
    return text(f"Comparison of {METRIC_BY_KEY[key].label.lower()}, {_sample(cmp)}:", lines)


def comparison_html(cmp: Comparison) -> str:
    """The headline metrics side by side with their differences and decisions; the verdicts."""
    head, rows = ["Config"], [[lab] for lab in cmp.labels]
    for key in _keys(cmp):
        label = METRIC_BY_KEY[key].label
        head += [f"{label} (95% CI)", f"Difference from {cmp.labels[0]}", "Decision"]
        for i, row in enumerate(rows):
            row += _cells(cmp, key, i)
    return html("Comparison: " + " vs ".join(cmp.labels), [_sample(cmp) + "."], head, rows,
                [v for vs in cmp.verdicts for v in vs[:1]])


# the effects chart (the page's and ``Comparison.plot``)

def effect_markers(cmp: Comparison, key: str) -> list[bool]:
    """Which rows of the effects chart are filled for question ``key``: exactly the
    configs whose Holm-adjusted decision (the verdict's) established a change."""
    dec = cmp.decisions.get(key, [None] * len(cmp.runs))
    return [v is not None and v.word in ESTABLISHED for v in dec[1:]]


def effects_figure(cmp: Comparison) -> Figure:
    """Each config's paired effect on round length and on the first player's win rate,
    with 95% intervals, markers filled as the verdicts decide (the page's effects chart)."""
    from unosim.report import charts  # matplotlib: loaded when drawn

    return charts.forest_figure(**effects_spec(cmp))


def effects_spec(cmp: Comparison) -> ForestSpec:
    """The effects chart's labels, panels, title and fills."""
    m1 = cmp.values["turns_mean"][0].value
    nan = float("nan")
    panels: list[tuple[str, list[float], list[float], list[float]]] = []
    for key, xlabel, scale in (
            ("turns_mean", "change in mean turns per round (%)", 100 / m1),
            ("first_player_win_rate", "change in first-player win rate (percentage points)",
             100.0)):
        ds = cmp.diffs[key][1:]
        diff, low, high = ([scale * float(getattr(d, f)) if d is not None else nan for d in ds]
                           for f in ("diff", "low", "high"))
        panels.append((xlabel, diff, low, high))
    return {"labels": cmp.labels[1:], "panels": panels,
            "title": f"Effect of each rule set against {cmp.labels[0]} (95% CI)",
            "filled": [effect_markers(cmp, "turns_mean"),
                       effect_markers(cmp, "first_player_win_rate")],
            "legend": MARKER_LEGEND}
