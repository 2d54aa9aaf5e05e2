"""``unosim compare``: run rule sets on the same games and write the comparison page.

Each config is run on the same number of games through the runner (or read
back from a finished run directory). Every metric of the later configs is
compared with the first: the difference, its 95% interval, a p-value (Welch t
and Mann-Whitney for lengths, a bootstrap interval for quantiles, a
two-proportion test for rates) and the relative change, then one
plain-language verdict per question. Output: ``compare.md``,
``compare.html``, ``compare.csv`` and overlaid charts.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from unosim.analysis.estimates import (
    BOOT,
    METRIC_BY_KEY,
    Metric,
    is_match,
    per_round_estimate,
    position_diff,
    wilson_estimate,
)
from unosim.engine import state as L
from unosim.report import charts
from unosim.report.comparison import Comparison, compare_runs, comparison_rows, unique_labels
from unosim.report.format import (
    CAUSE_LABELS,
    config_yaml,
    fmt_diff,
    fmt_metric,
    fmt_p,
    fmt_pvalue,
    num_ci,
    pct_ci,
    position_name,
)
from unosim.report.render import Doc
from unosim.report.runs import Job, Run, cell_dirs, run_jobs
from unosim.rules.config import GameConfig
from unosim.run.files import write_text

__all__ = ["run_comparison", "write_comparison"]

_RATE = Metric("win_rate", "", "rate", "first", percent=True)  # formats a position's rate


def run_comparison(
    cfgs: Sequence[GameConfig],
    *,
    games: int,
    seeds: Sequence[int],
    out: str | Path | None = None,
    jobs: int | None = None,
    reuse: bool = False,
    resume: bool = False,
    force: bool = False,
    progress: bool = False,
    prebuilt: Mapping[int, Run] | None = None,
    on_warning: Callable[[str], None] | None = None,
    **backend_opts: Any,
) -> Comparison:
    """Run every config (into ``out/runs/<label>`` when ``out`` is given) and compare them.

    ``prebuilt`` maps positions to runs loaded from existing run directories,
    which are read-only: a config whose run dir would be one of them runs into
    ``<label>-2`` instead. ``reuse``, ``resume`` and ``force`` apply to every
    run dir (see `unosim.report.runs`).
    """
    prebuilt = dict(prebuilt or {})
    labels = unique_labels([Run(c, {}, s, games) for c, s in zip(cfgs, seeds, strict=True)])
    fresh = [i for i in range(len(cfgs)) if i not in prebuilt]
    dirs: list[Path | None] = [None] * len(fresh)
    if out is not None:
        inputs = [r.out for r in prebuilt.values() if r.out is not None]
        dirs = list(cell_dirs(Path(out) / "runs", [labels[i] for i in fresh], avoid=inputs))
    done = run_jobs([Job(cfgs[i], games, seeds[i], d) for i, d in zip(fresh, dirs, strict=True)],
                    reuse=reuse, resume=resume, force=force, jobs=jobs, progress=progress,
                    on_warning=on_warning, **backend_opts)
    prebuilt.update(zip(fresh, done, strict=True))
    return compare_runs([prebuilt[i] for i in range(len(cfgs))])


def write_comparison(
    cmp: Comparison,
    out_dir: str | Path,
    title: str | None = None,
    command: str | None = None,
    intro: Sequence[str] = (),
    stem: str = "compare",
) -> list[Path]:
    """compare.md, compare.html, compare.csv and the overlaid charts; returns their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    doc = Doc(title or ("Comparison: " + " vs ".join(cmp.labels)))
    for para in intro:
        doc.p(para, lead=True)
    _verdicts(doc, cmp)
    pngs = _headlines(doc, cmp, out, stem)
    pngs += _positions(doc, cmp, out, stem)
    pngs += _draws(doc, cmp, out, stem)
    doc.h2("How this was made")
    if command:
        doc.code(command, "sh")
    for lab, r in zip(cmp.labels, cmp.runs, strict=True):
        doc.p(f"**{lab}** — {r.games:,} games, seed {r.seed}"
              + (f", run dir `{r.out}`" if r.out else "") + ":")
        doc.code(config_yaml(r.cfg, r.games, r.seed), "yaml")
    paths = doc.write(out, stem)
    csv_path = out / f"{stem}.csv"
    _write_csv(csv_path, comparison_rows(cmp))
    return paths + [csv_path] + pngs


def _verdicts(doc: Doc, cmp: Comparison) -> None:
    """The verdicts, the sample, and the other questions' sentences."""
    runs, labels = cmp.runs, cmp.labels
    doc.h2("Verdicts")
    doc.p(f"Each rule set against **{labels[0]}**:")
    doc.ul([v for vs in cmp.verdicts for v in vs[:1]])
    seeds = sorted({r.seed for r in runs})
    games = sorted({r.games for r in runs})
    doc.p(f"**Sample:** {', '.join(f'{g:,}' for g in games)} "
          f"{'matches' if all(is_match(r.aggregates) for r in runs) else 'games'} per "
          f"config; seed{'s' if len(seeds) > 1 else ''} {', '.join(map(str, seeds))}; "
          + "; ".join(f"{lab}: {r.rounds:,} rounds"
                      + (f" (reused from `{r.out}`)" if r.reused and r.out else "")
                      for lab, r in zip(labels, runs, strict=True)) + ".")
    if len(seeds) == 1:
        doc.p("All configs ran from the same seed, so game *g* starts from the same random "
              "stream under every rule set. The intervals and tests below assume independent "
              "samples, which is conservative for such positively correlated runs: they do "
              "not claim more precision than the samples give.")
    doc.h3("Other questions")
    depth = max(len(vs) for vs in cmp.verdicts)
    doc.ul([vs[q] for q in range(1, depth) for vs in cmp.verdicts if q < len(vs)])


def _headlines(doc: Doc, cmp: Comparison, out: Path, stem: str) -> list[Path]:
    """Headline metrics side by side, their differences, the turns and effects charts."""
    runs, labels = cmp.runs, cmp.labels
    doc.h2("Headline metrics side by side")
    doc.table(["Metric"] + labels,
              [[m.label] + [fmt_metric(e, m) for e in cmp.values[m.key]] for m in cmp.metrics])
    doc.p("Values with 95% intervals: t intervals for means, order-statistic intervals for "
          "quantiles, Wilson intervals for rates, t intervals from per-round sums of squares "
          "for per-round counts.")
    doc.h2(f"Differences from {labels[0]}")
    rows = []
    for m in cmp.metrics:
        if m.kind == "rate" and all(v.value == 0 for v in cmp.values[m.key]):
            continue  # e.g. no stalemates anywhere: nothing to compare
        for i in range(1, len(runs)):
            d = cmp.diffs[m.key][i]
            assert d is not None
            diff, ci, rel = fmt_diff(d, m)
            rows.append([m.label, labels[i], fmt_metric(cmp.values[m.key][i], m), diff, ci,
                         fmt_p(d), rel])
    doc.table(["Metric", "Config", "Value (95% CI)", f"Difference from {labels[0]}",
               "95% CI of difference", "p-value (test)", "Relative change"], rows)
    doc.p("Differences are config minus the first config. Lengths are tested with Welch's t "
          "(means) and Mann–Whitney (whole distributions); quantile differences carry a "
          f"percentile-bootstrap interval ({BOOT:,} resamples); rates use a two-proportion "
          "z-test with Newcombe's interval.")
    players = {r.cfg.players for r in runs}
    pl = f"{next(iter(players))} players" if len(players) == 1 else "players vary"
    pngs = [charts.turns_chart([charts.Series(lab, r.aggregates["turns_hist"])
                                for lab, r in zip(labels, runs, strict=True)],
                               out / f"{stem}_turns.png", f"Turns per round ({pl})")]
    doc.image(pngs[-1], "Overlaid distributions and CDFs of turns per round")
    m1 = cmp.values["turns_mean"][0].value
    dt = [d for d in cmp.diffs["turns_mean"][1:] if d is not None]
    dp = [d for d in cmp.diffs["first_player_win_rate"][1:] if d is not None]
    pngs.append(charts.forest_chart(
        labels[1:],
        [("change in mean turns per round (%)", [100 * d.diff / m1 for d in dt],
          [100 * d.low / m1 for d in dt], [100 * d.high / m1 for d in dt]),
         ("change in first-player win rate (percentage points)", [100 * d.diff for d in dp],
          [100 * d.low for d in dp], [100 * d.high for d in dp])],
        out / f"{stem}_effects.png", f"Effect of each rule set against {labels[0]} (95% CI)"))
    doc.image(pngs[-1], "Relative change in mean turns and change in first-player win rate, "
              "with 95% intervals")
    return pngs


def _positions(doc: Doc, cmp: Comparison, out: Path, stem: str) -> list[Path]:
    """Win rate by seat position for every config, with differences from the first."""
    runs, labels = cmp.runs, cmp.labels
    doc.h2("Win rate by seat position")
    players = {r.cfg.players for r in runs}
    rows = []
    for pos in range(min(players)):
        for i, r in enumerate(runs):
            e = pct_ci(wilson_estimate(int(r.aggregates["wins_pos"][pos]), r.rounds))
            if i == 0:
                rows.append([position_name(pos, r.cfg.players), labels[i], e, "—", "—", "—"])
                continue
            d = position_diff(cmp.base.aggregates, r.aggregates, pos)
            diff, ci, _ = fmt_diff(d, _RATE)
            rows.append(["", labels[i], e, diff, ci, fmt_pvalue(d.p_value)])
    doc.table(["Position", "Config", "Win rate (95% CI)", f"Difference from {labels[0]}",
               "95% CI of difference", "p-value (two-proportion z)"], rows)
    if len(players) > 1:
        return []
    n_pl = next(iter(players))
    png = charts.grouped_rates_chart(
        charts.position_labels(n_pl),
        [(lab, r.aggregates["wins_pos"], r.rounds) for lab, r in zip(labels, runs, strict=True)],
        1.0 / n_pl, out / f"{stem}_win_position.png",
        f"Win rate by seat position ({n_pl} players)",
        "seat position, in playing order from the dealer's left")
    doc.image(png, "Win rates by seat position for each config, 95% Wilson intervals")
    return [png]


def _draws(doc: Doc, cmp: Comparison, out: Path, stem: str) -> list[Path]:
    """Cards drawn per round by cause for every config."""
    runs, labels = cmp.runs, cmp.labels
    doc.h2("Why cards are drawn")
    causes = [i for i, _ in enumerate(L.CAUSES)
              if any(r.aggregates["sums"][L.R_DRAW_BY_CAUSE + i] for r in runs)]
    rows = []
    for i, r in enumerate(runs):
        rows.append([labels[i]]
                    + [num_ci(per_round_estimate(r.aggregates, L.R_DRAW_BY_CAUSE + c))
                       for c in causes]
                    + [fmt_metric(cmp.values[key][i], METRIC_BY_KEY[key])
                       for key in ("drawn_mean", "reshuffles_per_round")])
    doc.table(["Config"] + [CAUSE_LABELS[L.CAUSES[c]] for c in causes]
              + ["all causes (95% CI)", "reshuffles per round"], rows)
    parts = [(CAUSE_LABELS[L.CAUSES[c]],
              [r.aggregates["sums"][L.R_DRAW_BY_CAUSE + c] / max(r.rounds, 1) for r in runs])
             for c in causes]
    png = charts.stacked_bars_chart(labels, parts, out / f"{stem}_draws.png",
                                    "Cards drawn per round, by cause",
                                    "mean cards drawn per round")
    doc.image(png, "Mean cards drawn per round by cause, one bar per config")
    return [png]


def _write_csv(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    text = io.StringIO(newline="")
    w = csv.DictWriter(text, fieldnames=list(rows[0]))
    w.writeheader()
    for row in rows:
        w.writerow({k: (f"{v:.10g}" if isinstance(v, float) else v) for k, v in row.items()})
    write_text(path, text.getvalue())
