"""``unosim compare``'s page: rule sets run on the same games (`unosim.study.compare`).

Each later config is paired game by game with the first (the baseline): the
differences get paired intervals and the page reports what the pairing
bought. Finished run directories given as inputs are compared unpaired. Every question gets a decision against a
practical margin, Holm-corrected across the comparison. Output:
``compare.md``, ``compare.html``, ``compare.csv`` and ``compare.parquet``
(one tidy table) and overlaid charts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from unosim.analysis.estimates import (
    BOOT,
    METRIC_BY_KEY,
    Diff,
    Metric,
    is_match,
    per_round_estimate,
    wilson_estimate,
)
from unosim.analysis.paired import PairedDiff
from unosim.engine.kernel import state as L
from unosim.report import charts
from unosim.report.comparison import (
    Comparison,
    effects_spec,
    questions_for,
    seat_diff,
)
from unosim.report.format import (
    CAUSE_LABELS,
    config_yaml,
    fmt_diff,
    fmt_metric,
    fmt_p,
    num_ci,
    pct_ci,
    position_name,
)
from unosim.report.render import Doc
from unosim.report.verdicts import (
    MARKER_LEGEND,
    games_factor,
    margin_words,
    pairing_words,
    stopping_text,
)
from unosim.run.files import atomic_write, write_text

__all__ = ["write_comparison", "write_table"]

_RATE = Metric("win_rate", "", "rate", "first", percent=True)  # formats a position's rate


def write_comparison(
    cmp: Comparison,
    out_dir: str | Path,
    title: str | None = None,
    command: str | None = None,
    intro: Sequence[str] = (),
    stem: str = "compare",
) -> list[Path]:
    """compare.md/.html, compare.csv/.parquet (one tidy table) and the charts; their paths."""
    from unosim.report.viewer import same_game_section  # replays games: loaded when used

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    doc = Doc(title or ("Comparison: " + " vs ".join(cmp.labels)))
    for para in intro:
        doc.p(para, lead=True)
    _verdicts(doc, cmp)
    _pairing(doc, cmp)
    pngs = _headlines(doc, cmp, out, stem)
    pngs += _positions(doc, cmp, out, stem)
    pngs += _draws(doc, cmp, out, stem)
    pages = same_game_section(doc, [(lab, r.cfg, r.seed) for lab, r in
                                    zip(cmp.labels, cmp.runs, strict=True)],
                              cmp.runs[0].games, out, stem)
    doc.h2("How this was made")
    if command:
        doc.code(command, "sh")
    for lab, r in zip(cmp.labels, cmp.runs, strict=True):
        doc.p(f"**{lab}** — {r.games:,} games, seed {r.seed}"
              + (f", run dir `{r.out}`" if r.out else "") + ":")
        doc.code(config_yaml(r.cfg, r.games, r.seed), "yaml")
    paths = doc.write(out, stem)
    return paths + write_table(cmp.table(), out, stem) + pngs + pages


def write_table(frame: pd.DataFrame, out: Path, stem: str) -> list[Path]:
    """A tidy table as ``stem.csv`` and ``stem.parquet``, atomically; their paths."""
    csv_path, pq_path = out / f"{stem}.csv", out / f"{stem}.parquet"
    write_text(csv_path, frame.to_csv(index=False, float_format="%.10g"))
    atomic_write(pq_path, lambda f: frame.to_parquet(f, index=False))
    return [csv_path, pq_path]


def _verdicts(doc: Doc, cmp: Comparison) -> None:
    """The verdicts, the sample, the decision rule and the other questions' sentences."""
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
    if cmp.stop:
        doc.p(stopping_text(cmp.stop))
    qs = questions_for(cmp)
    margins = "; ".join(f"{q.what} {margin_words(q, cmp.margins[q.key])}" for q in qs)
    doc.p("**How the verdicts are decided:** a rule set is called longer/shorter (higher/"
          "lower) when the difference from the baseline is established; *practically the "
          "same* when two one-sided tests show it lies within the margin that matters ("
          + margins + "); otherwise *not decided*, "
          "which means: run more games. The p-values of all "
          f"{cmp.n_tests} tests of this comparison are adjusted together by Holm's method, "
          "so the chance of any false claim among them stays at 5%. The 95% intervals shown "
          "are not adjusted.")
    doc.h3("Other questions")
    depth = max(len(vs) for vs in cmp.verdicts)
    doc.ul([vs[q] for q in range(1, depth) for vs in cmp.verdicts if q < len(vs)])


def _pairing(doc: Doc, cmp: Comparison) -> None:
    """What pairing bought for the headline difference of each config, measured."""
    doc.h2("Pairing")
    if not any(cmp.paired):
        doc.p("These runs were not paired (a finished run read back, or different seeds): "
              "the differences use independent-samples methods (Welch's t, Newcombe's "
              "interval), which are valid but wider than paired ones.")
        return
    paired = [d for d in cmp.diffs["turns_mean"][1:] if isinstance(d, PairedDiff)]
    doc.p("Every config ran the same games as the baseline, in lockstep: game *g* starts "
          "from the same shuffle under each rule set, and the differences are taken game by "
          "game. " + pairing_words(paired))
    rows = []
    for i in range(1, len(cmp.runs)):
        d = cmp.diffs["turns_mean"][i]
        if not cmp.paired[i] or not isinstance(d, PairedDiff):
            rows.append([cmp.labels[i], "not paired", "—", "—", "—"])
        elif d.identical:
            rows.append([cmp.labels[i], "identical game for game", "0", "0", "—"])
        else:
            f = games_factor(d)
            rows.append([cmp.labels[i], f"{d.corr:.2f}", f"{d.se:.4g}", f"{d.se_unpaired:.4g}",
                         f"{f:.1f} times the games ({d.n * f:,.0f} instead of {d.n:,})"
                         if math.isfinite(f) else "—"])
    doc.table(["Config", "Correlation of per-game turns", "Paired standard error",
               "Unpaired standard error", "An unpaired comparison would need"], rows)
    doc.p("The last column is how many games per config independent runs would need to "
          "measure the difference in mean turns as precisely as these paired ones did.")


def _tests_used(cmp: Comparison, shown: Sequence[tuple[Metric, int, Diff]]) -> str:
    """The tests and intervals behind the differences table, each with the metrics it made.

    Read from the differences ``shown`` in the table, so the note names exactly
    the tests its numbers came from.
    """
    what = {
        "paired t": "paired t on the game-by-game differences",
        "McNemar": "McNemar's test with Newcombe's interval for paired proportions",
        "Welch t": "Welch's t (runs not paired)",
        "two-proportion z": "two-proportion z-test with Newcombe's interval (runs not paired)",
        "bootstrap CI": f"a percentile-bootstrap interval ({BOOT:,} resamples, unpaired) "
                        "without a p-value",
        "Mann–Whitney": "Mann–Whitney on the whole distribution (unpaired)",
    }
    used: dict[str, list[str]] = {}
    same: list[str] = []
    for m, i, d in shown:
        if isinstance(d, PairedDiff) and d.identical:
            if cmp.labels[i] not in same:
                same.append(cmp.labels[i])
            continue
        for t in [d.test] + (["Mann–Whitney"] if math.isfinite(d.p_value_mw) else []):
            if m.label not in used.setdefault(t, []):
                used[t].append(m.label)
    parts = [f"{what.get(t, t)} for {', '.join(labels)}" for t, labels in used.items()]
    if same:
        parts.append(f"no test for {', '.join(same)} (identical game for game)")
    return "; ".join(parts)


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
    shown: list[tuple[Metric, int, Diff]] = []
    for m in cmp.metrics:
        if m.kind == "rate" and all(v.value == 0 for v in cmp.values[m.key]):
            continue  # e.g. no stalemates anywhere: nothing to compare
        for i in range(1, len(runs)):
            d = cmp.diffs[m.key][i]
            assert d is not None
            shown.append((m, i, d))
            diff, ci, rel = fmt_diff(d, m)
            rows.append([m.label, labels[i], fmt_metric(cmp.values[m.key][i], m), diff, ci,
                         fmt_p(d), rel])
    doc.table(["Metric", "Config", "Value (95% CI)", f"Difference from {labels[0]}",
               "95% CI of difference", "p-value (test)", "Relative change"], rows)
    doc.p(f"Differences are config minus the first config. Tests and intervals: "
          f"{_tests_used(cmp, shown)}. The p-values in this table are not adjusted; the verdicts "
          "use Holm-adjusted ones.")
    players = {r.cfg.players for r in runs}
    pl = f"{next(iter(players))} players" if len(players) == 1 else "players vary"
    pngs = [charts.turns_chart([charts.Series(lab, r.aggregates["turns_hist"])
                                for lab, r in zip(labels, runs, strict=True)],
                               out / f"{stem}_turns.png", f"Turns per round ({pl})")]
    doc.image(pngs[-1], "Overlaid distributions and CDFs of turns per round")
    pngs.append(_effects_chart(cmp, out / f"{stem}_effects.png"))
    doc.image(pngs[-1], "Relative change in mean turns and change in first-player win rate, "
              f"with 95% intervals; {MARKER_LEGEND}")
    return pngs


def _effects_chart(cmp: Comparison, path: Path) -> Path:
    """`effects_figure` saved as a PNG, its filled markers recorded in it."""
    return charts.forest_chart(**effects_spec(cmp), path=path)


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
            d = seat_diff(cmp, i, pos)
            diff, ci, _ = fmt_diff(d, _RATE)
            rows.append(["", labels[i], e, diff, ci, fmt_p(d)])
    doc.table(["Position", "Config", "Win rate (95% CI)", f"Difference from {labels[0]}",
               "95% CI of difference", "p-value (test)"], rows)
    doc.p("The first position's row is the first-player win rate of the tables above, with "
          "the same interval and test. The other positions' differences use a two-proportion "
          "z-test with Newcombe's interval (their game-by-game pairs are not recorded).")
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
