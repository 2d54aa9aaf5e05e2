"""Parameter sweeps that answer: a grid of config variants, each cell's effect against a baseline.

The grid (``--vary`` axes, cells, ``--baseline``) is `unosim.report.grid`;
the answer in words and the effect charts are `unosim.report.sweep_answers`.
All cells run in lockstep on the same game
range, chunk by chunk (`unosim.run.run_lockstep`), with each cell paired game
by game with its baseline cell, so every effect gets a paired interval and a
decision against a practical margin (`unosim.report.comparison`); Holm's
method adjusts every decision of the sweep together.

Output: ``sweep.md`` / ``sweep.html`` opening with the answer in words, effect
charts (dots with 95% error bars; for a numeric axis, a weighted trend line
whose band allows for lack of fit, `unosim.analysis.trend`), level charts per
headline metric, and ``sweep.csv`` / ``sweep.parquet``: one tidy table, the
shape of ``compare.csv`` plus one column per varied key.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from unosim.analysis.estimates import (
    METRIC_BY_KEY,
    Metric,
    compare_aggregates,
    estimate,
    metrics_for,
)
from unosim.analysis.paired import (
    DEFAULT_MARGINS,
    Margin,
    PairedDiff,
    PairMoments,
)
from unosim.report import charts
from unosim.report.compare import write_table
from unosim.report.comparison import (
    Comparison,
    compare_runs,
    comparison_table,
    decide_together,
    questions_for,
)
from unosim.report.dots import Dots, dots_chart
from unosim.report.format import fmt_metric
from unosim.report.grid import (
    MAX_SWEEP_CELLS,
    Axis,
    Cell,
    VaryError,
    baseline_cells,
    build_cells,
    cell_label,
    cell_position,
    default_baseline,
    parse_baseline,
    parse_vary,
    value_label,
)
from unosim.report.notebook import html, text
from unosim.report.render import Doc
from unosim.report.runs import Run
from unosim.report.sweep_answers import (
    EFFECTS,
    answer_sentences,
    cell_effect,
    effect_charts,
    fmt_effect,
    numeric_axis,
    value_phrase,
)
from unosim.report.sweep_types import Group
from unosim.report.verdicts import (
    games_factor,
    margin_words,
    pairing_words,
    short_verdict,
    stopping_text,
)

# the grid's names are re-exported: callers of a sweep need not know where the grid lives
__all__ = ["MAX_SWEEP_CELLS", "Axis", "Cell", "Group", "Sweep", "VaryError", "build_cells",
           "default_baseline", "parse_baseline", "parse_vary", "build_sweep", "sweep_table",
           "value_label", "write_sweep"]

CHART_METRICS = ("turns_mean", "first_player_win_rate", "first_player_vs_fair",
                 "stalemate_rate", "drawn_mean", "match_rounds_mean")
NAN = float("nan")

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from unosim.run.documents import Stop


@dataclass
class Sweep:
    """The grid, its runs, and every cell's effect against its baseline cell.

    ``baseline`` is (axis index, value index) of the baseline key and value;
    ``groups`` hold the comparisons; ``n_tests`` counts the tests Holm
    adjusted together; ``stop`` is the precision rule's outcome, if any.
    """

    config: str
    axes: list[Axis]
    cells: list[Cell]
    games: int
    seed: int
    overrides: tuple[str, ...] = ()
    elapsed: float = 0.0
    extra: dict[str, object] = field(default_factory=dict)
    baseline: tuple[int, int] = (0, 0)
    groups: list[Group] = field(default_factory=list)
    margins: dict[str, Margin] = field(default_factory=dict)
    stop: Stop | None = None
    n_tests: int = 0

    @property
    def baseline_axis(self) -> Axis:
        return self.axes[self.baseline[0]]

    @property
    def x_axis(self) -> int:
        """The axis effects are drawn and described along: the first that is not the baseline's."""
        return next((i for i in range(len(self.axes)) if i != self.baseline[0]),
                    self.baseline[0])

    def place(self, cell: int) -> tuple[Group, int]:
        """The group holding ``cell`` and its position there (0: a baseline cell)."""
        for g in self.groups:
            if cell in g.cells:
                return g, g.cells.index(cell)
        raise KeyError(cell)

    def table(self) -> pd.DataFrame:
        """The tidy table of `sweep_table` (``sweep.csv``)."""
        return sweep_table(self)

    def answers(self) -> list[str]:
        """The sweep's answer in sentences, as strong as the Holm-adjusted decisions allow."""
        return answer_sentences(self)

    def __repr__(self) -> str:
        return sweep_text(self)

    def _repr_html_(self) -> str:
        return sweep_html(self)

    def plot(self, metric: str = "turns_mean") -> Figure:
        """Each cell's paired effect against its baseline cell with its 95% interval, along
        the first axis that is not the baseline key (the page's effect chart): ``metric``
        is ``turns_mean`` (change in %) or ``first_player_win_rate`` (points)."""
        from unosim.report.dots import dots_figure
        from unosim.report.notebook import displayable
        from unosim.report.sweep_answers import effect_specs

        specs = {c.key: c for c in effect_specs(self)}
        if metric not in specs:
            raise ValueError(f"no effect of {metric!r} to plot (have: "
                             f"{', '.join(specs) or 'none, one value per key'})")
        c = specs[metric]
        return displayable(dots_figure(c.dots, *c.labels, **c.options))

    def to_json(self) -> dict[str, object]:
        """What ``--format json`` prints: the answer, the baseline, and the table's records."""
        import json

        a, v = self.baseline_axis, self.baseline[1]
        return {
            "config": self.config, "games": self.games, "seed": self.seed,
            "axes": {ax.key: list(ax.texts) for ax in self.axes},
            "baseline": {"key": a.key, "value": a.texts[v]},
            "answers": self.answers(), "tests_holm_adjusted": self.n_tests,
            "stop": self.stop,
            "table": json.loads(self.table().to_json(orient="records")),
        }


def build_sweep(config: str | Path, axes: Sequence[Axis], cells: list[Cell], runs: Sequence[Run],
                moments: Mapping[int, PairMoments], *, seed: int, base_of: tuple[int, int],
                overrides: Sequence[str] = (), elapsed: float = 0.0,
                margins: Mapping[str, Margin] | None = None,
                stop: Stop | None = None) -> Sweep:
    """The sweep of ``cells`` from their finished ``runs`` (`unosim.study.sweep` runs them):
    each cell compared with its baseline cell through the pairs' ``moments``, every
    decision Holm-adjusted together."""
    for cell, run in zip(cells, runs, strict=True):
        cell.run = run
    sweep = Sweep(str(config), list(axes), cells, runs[0].games, seed, tuple(overrides),
                  elapsed, baseline=base_of, margins={**DEFAULT_MARGINS, **(margins or {})},
                  stop=stop)
    sweep.groups = _groups(sweep, baseline_cells(list(axes), base_of), moments)
    sweep.n_tests = decide_together([g.cmp for g in sweep.groups])
    return sweep


def _groups(sweep: Sweep, bases: Sequence[int], moments: Mapping[int, PairMoments]
            ) -> list[Group]:
    """One comparison per baseline cell, of it and the cells paired with it."""
    groups = []
    for b in dict.fromkeys(bases):
        members = [b] + [i for i, x in enumerate(bases) if x == b and i != b]
        runs = [sweep.cells[i].run for i in members]
        assert all(r is not None for r in runs)
        labels = [cell_label(sweep.cells[i], sweep.axes) for i in members]
        if len(members) == 1:
            cmp = _lone(runs[0], labels[0], sweep.margins)  # type: ignore[arg-type]
        else:
            cmp = compare_runs(runs, labels=labels,  # type: ignore[arg-type]
                               pairs={k: moments[i] for k, i in enumerate(members) if k},
                               margins=sweep.margins, stop=sweep.stop)
        groups.append(Group(members, cmp))
    return groups


def _lone(run: Run, label: str, margins: dict[str, Margin]) -> Comparison:
    """A 'comparison' of one run (a baseline value with nothing beside it): values only."""
    metrics, values, diffs = compare_aggregates([run.aggregates])
    return Comparison([run], [label], [label], metrics, values, diffs, margins=margins,
                      paired=[False], identical=[False])


def _metrics(sweep: Sweep) -> list[Metric]:
    runs = [c.run for c in sweep.cells if c.run is not None]
    keys = set.intersection(*[{m.key for m in metrics_for(r.aggregates)} for r in runs])
    return [m for m in metrics_for(runs[0].aggregates) if m.key in keys]


def _column_value(v: object, key: str) -> object:
    return v if isinstance(v, (int, float, str, bool)) else value_label(v, key)


def sweep_table(sweep: Sweep) -> pd.DataFrame:
    """The tidy table: ``compare.csv``'s columns, one column per varied key first, then
    ``baseline`` (the label of the cell each row's ``diff`` is taken against).

    One row per metric and cell (then per seat position), ordered by metric,
    then cell; a baseline cell's ``diff`` is 0.
    """
    frames = []
    for g in sweep.groups:
        f = comparison_table(g.cmp)
        f.insert(0, "_cell", [g.cells[g.cmp.labels.index(lab)] for lab in f["label"]])
        f["baseline"] = g.cmp.labels[0]
        frames.append(f)
    table = pd.concat(frames, ignore_index=True)
    order = {m: k for k, m in enumerate(dict.fromkeys(table["metric"]))}
    table = table.sort_values(["metric", "_cell"], key=lambda s: s.map(order)
                              if s.name == "metric" else s, kind="stable")
    for k, a in reversed(list(enumerate(sweep.axes))):
        table.insert(0, a.key, [_column_value(sweep.cells[c].values[k], a.key)
                                for c in table["_cell"]])
    return table.drop(columns="_cell").reset_index(drop=True)


def _level_chart(sweep: Sweep, m: Metric, path: Path) -> Path:
    """One metric against the first axis, one series per combination of the other axes.

    A numeric first axis gets lines with 95% bands; a categorical one dots
    with error bars, never joined.
    """
    first, others = sweep.axes[0], sweep.axes[1:]
    numeric = numeric_axis(first)
    xs = list(first.values) if numeric else list(range(len(first.values)))
    series = []
    for combo in list(itertools.product(*[range(len(a.values)) for a in others])) or [()]:
        pts = []
        for xi, x in enumerate(xs):
            cell = sweep.cells[cell_position(sweep.axes, (xi, *combo))]
            assert cell.run is not None
            pts.append((x, estimate(cell.run.aggregates, m)))
        if len(others) == 1:
            label = others[0].labels[combo[0]]
        else:
            label = "; ".join(f"{a.label}={a.labels[j]}"
                              for a, j in zip(others, combo, strict=True)) or m.label
        series.append(charts.Line(label, [p[0] for p in pts], [p[1].value for p in pts],
                                  [p[1].low for p in pts], [p[1].high for p in pts]))
    fair: list[float] | None = None
    ref_label = ""
    if m.key == "first_player_vs_fair":
        fair, ref_label = [1.0] * len(xs), "fair share (1.0)"
    if m.key == "first_player_win_rate":
        if first.key == "players":
            fair, ref_label = [1 / x for x in xs], "fair share 1/N"
        elif len({c.cfg.players for c in sweep.cells}) == 1:
            n = sweep.cells[0].cfg.players
            fair, ref_label = [1 / n] * len(xs), f"fair share 1/{n}"
    unit = {"turns_mean": "mean turns per round", "drawn_mean": "cards drawn per round",
            "first_player_win_rate": "win rate of the player on the dealer's left",
            "first_player_vs_fair": "first-player win rate ÷ 1/N",
            "stalemate_rate": "share of rounds ending in a stalemate",
            "match_rounds_mean": "rounds per match"}.get(m.key, m.label)
    legend_title = others[0].label if len(others) == 1 else None
    title = f"{m.label} by {first.label}"
    if numeric:
        reference = charts.Line(ref_label, xs, fair, [], []) if fair is not None else None
        return charts.line_chart(series, path, title, first.label, unit, percent=m.percent,
                                 reference=reference, legend_title=legend_title)
    return dots_chart([Dots(ln.label, ln.x, ln.y, ln.low, ln.high) for ln in series], path,
                      title, first.label, unit, xticklabels=first.labels, percent=m.percent,
                      reference=fair, reference_label=ref_label, legend_title=legend_title)


def write_sweep(
    sweep: Sweep,
    out_dir: str | Path,
    command: str | None = None,
    title: str | None = None,
    intro: Sequence[str] = (),
    stem: str = "sweep",
) -> list[Path]:
    """sweep.md/.html (the answer first), sweep.csv/.parquet and the charts; their paths.

    The paths are the page's (md, html), then the table's (csv, parquet), then the PNGs,
    then the same-game viewer pages.
    """
    from unosim.report.viewer import same_game_section  # replays games: loaded when used

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tables = write_table(sweep.table(), out, stem)
    metrics = _metrics(sweep)
    b, bv = sweep.baseline
    base = value_phrase(sweep.axes[b], bv)
    doc = Doc(title or f"Sweep of {Path(sweep.config).name} over "
              + " × ".join(a.label for a in sweep.axes))
    for para in intro:
        doc.p(para, lead=True)
    doc.h2("Answer")
    answers = sweep.answers()
    if answers:
        doc.ul(answers)
    else:
        doc.p(f"Nothing to compare: {sweep.axes[b].label} takes one value only.")
    n_cells = len(sweep.cells)
    rounds = sum(c.run.rounds for c in sweep.cells if c.run)
    doc.p(f"**Sample:** {n_cells} cells × {sweep.games:,} games ({rounds:,} rounds in all), "
          f"seed {sweep.seed} in every cell. Axes: "
          + "; ".join(f"{a.label} (`{a.key}`) = {', '.join(a.labels)}" for a in sweep.axes)
          + "."
          + (f" Overrides: {', '.join(f'`{o}`' for o in sweep.overrides)}."
             if sweep.overrides else ""))
    _method(doc, sweep, base)
    pngs: list[Path] = []
    effects = effect_charts(sweep, out, stem)
    if effects:
        doc.h2(f"Effects against {base}")
        for path, caption, trends in effects:
            doc.image(path, caption)
            pngs.append(path)
            if trends:
                doc.p("Weighted linear trend of the effect (weights 1/SE²; the slope's "
                      "interval is widened by the Birge ratio √(χ²/df) when the points depart "
                      "from the line by more than their errors allow):")
                doc.ul(trends)
        _effects_table(doc, sweep)
    doc.h2("Levels")
    charted = [m for m in metrics if m.key in CHART_METRICS]
    if not any(c.run.aggregates["counts"][2] for c in sweep.cells if c.run is not None):
        charted = [m for m in charted if m.key != "stalemate_rate"]  # an empty chart: a sentence
        doc.p("No round of any cell hit the turn cap: the stalemate rate is 0 everywhere "
              "(its 95% upper bounds are in the table below).")
    for m in charted:
        pngs.append(_level_chart(sweep, m, out / f"{stem}_{m.key}.png"))
        doc.image(pngs[-1], f"{m.label} against {sweep.axes[0].label}, 95% "
                  + ("bands" if numeric_axis(sweep.axes[0]) else "intervals"))
    doc.h2("Every cell")
    shown = [METRIC_BY_KEY[k] for k in ("turns_mean", "turns_median", "first_player_win_rate",
                                        "first_player_vs_fair", "stalemate_rate", "drawn_mean",
                                        "match_rounds_mean")
             if k in {m.key for m in metrics}]
    rows = []
    for cell in sweep.cells:
        assert cell.run is not None
        rows.append([value_label(v, a.key) for a, v in zip(sweep.axes, cell.values, strict=True)]
                    + [f"{cell.run.rounds:,}"]
                    + [fmt_metric(estimate(cell.run.aggregates, m), m) for m in shown])
    doc.table([a.label for a in sweep.axes] + ["rounds"] + [m.label for m in shown], rows)
    doc.p(f"Full table with every metric, interval, difference and decision: "
          f"`{tables[0].name}` / `{tables[1].name}`.")
    pages = same_game_section(doc, [
        (", ".join(f"{a.label} {value_label(v, a.key)}"
                   for a, v in zip(sweep.axes, c.values, strict=True)),
         c.run.cfg, c.run.seed) for c in sweep.cells if c.run is not None], sweep.games, out, stem)
    doc.h2("How this was made")
    if command:
        doc.code(command, "sh")
    doc.p(f"Config `{sweep.config}`; {sweep.games:,} games per cell; seed {sweep.seed}.")
    return doc.write(out, stem) + tables + pngs + pages


def _method(doc: Doc, sweep: Sweep, base: str) -> None:
    """How the effects were measured and decided: pairing, margins, Holm, stopping."""
    cmps = [g.cmp for g in sweep.groups if len(g.cells) > 1]
    if not cmps:
        return
    qs = {q.key: q for c in cmps for q in questions_for(c)}
    margins = "; ".join(f"{q.what} {margin_words(q, sweep.margins[k])}" for k, q in qs.items())
    paired = [d for c in cmps for d in c.diffs["turns_mean"][1:] if isinstance(d, PairedDiff)]
    doc.p(f"**How the effects are decided:** each cell is compared with its baseline cell, the "
          f"cell with {base} and every other setting the same. All cells played "
          "the same games in lockstep, so each difference is taken game by game. "
          + pairing_words(paired, "cells") + " A change is claimed when it is established; *no difference that "
          "matters* when two one-sided tests show it lies within the margin (" + margins
          + "); otherwise it is *not decided*. The p-values of all "
          f"{sweep.n_tests} tests of this sweep are adjusted together by Holm's method, so the "
          "chance of any false claim among them stays at 5%. The 95% intervals shown are not "
          "adjusted.")
    if sweep.stop:
        doc.p(stopping_text(sweep.stop))


def _effects_table(doc: Doc, sweep: Sweep) -> None:
    """Every non-baseline cell's effects with intervals and decisions."""
    keys = [k for k, _ in EFFECTS if any(k in g.cmp.decisions for g in sweep.groups)]
    qs = {q.key: q for g in sweep.groups for q in questions_for(g.cmp)}
    rows = []
    for i, cell in enumerate(sweep.cells):
        g, k = sweep.place(i)
        if k == 0:
            continue
        row = [value_label(v, a.key) for a, v in zip(sweep.axes, cell.values, strict=True)]
        for key in keys:
            e = cell_effect(sweep, i, key)
            v = g.cmp.decisions[key][k]
            row += ["—", "—"] if e is None or v is None else [fmt_effect(e, key),
                                                              short_verdict(qs[key], v)]
        d = g.cmp.diffs["turns_mean"][k]
        f = games_factor(d) if isinstance(d, PairedDiff) else NAN
        row += ([f"{d.corr:.2f}", f"{f:.1f}×"] if isinstance(d, PairedDiff) and
                math.isfinite(f) else ["—", "—"])
        rows.append(row)
    head = [a.label for a in sweep.axes]
    for key in keys:
        head += ["mean turns: change" if key == "turns_mean" else "first-player win rate: "
                 "change", "decision"]
    doc.table(head + ["correlation of per-game turns", "games an unpaired comparison would "
                      "need (× these)"], rows)


# what a notebook shows of a sweep (`unosim.report.notebook`)

def _sweep_title(sweep: Sweep) -> str:
    """What was swept: the config, the axes, the cells, games, seed and baseline."""
    b, bv = sweep.baseline
    return (f"Sweep of {Path(sweep.config).stem} over "
            + " × ".join(a.label for a in sweep.axes)
            + f": {len(sweep.cells)} cells, {sweep.games:,} games each, seed {sweep.seed}, "
            f"against {value_phrase(sweep.axes[b], bv)}")


def sweep_text(sweep: Sweep) -> str:
    """The sweep's grid and its answer in sentences."""
    return text(_sweep_title(sweep), sweep.answers() or ["nothing to compare"])


def sweep_html(sweep: Sweep) -> str:
    """The answer, then each cell's mean turns and its effect against its baseline cell."""
    m = METRIC_BY_KEY["turns_mean"]
    rows = []
    for i, cell in enumerate(sweep.cells):
        assert cell.run is not None
        row = [value_label(v, a.key) for a, v in zip(sweep.axes, cell.values, strict=True)]
        row.append(fmt_metric(estimate(cell.run.aggregates, m), m))
        g, k = sweep.place(i)
        e = cell_effect(sweep, i, m.key)
        v = g.cmp.decisions.get(m.key, [None] * len(g.cells))[k]
        q = next((q for q in questions_for(g.cmp) if q.key == m.key), None)
        row += (["baseline", ""] if k == 0 else ["—", ""] if e is None or v is None or q is None
                else [fmt_effect(e, m.key), short_verdict(q, v)])
        rows.append(row)
    head = [a.label for a in sweep.axes] + [f"{m.label} (95% CI)",
                                            "Change against the baseline cell", "Decision"]
    return html(_sweep_title(sweep), [], head, rows, sweep.answers())
