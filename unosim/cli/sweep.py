"""``unosim sweep``: a grid of variants of one config, a table and a chart per metric."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from unosim.cli import options
from unosim.cli.console import Command, compile_notice, info, warn


@click.command("sweep", cls=Command)
@click.argument("config")
@click.option("--vary", "varies", multiple=True, required=True, metavar="KEY=VALUES",
              help="A grid axis: players=2..10, or a comma list of YAML values "
                   "(house_rules.jump_in=false,true). Repeatable; the first is the x axis.")
@options.study
def sweep_cmd(config: str, varies: tuple[str, ...], games: int | None, seed: int | None,
              out: str | None, overrides: tuple[str, ...], jobs: int | None, backend: str,
              scheduler: str | None, reuse: bool, resume: bool, force: bool,
              quiet: bool) -> None:
    """Run a grid of variants of CONFIG; write sweep.csv/.parquet and a chart per metric.

    Each cell runs into its own run dir OUT/runs/CELL. An out dir that is not
    empty needs --resume (finish an interrupted sweep), --force (run it again)
    or --reuse (keep the finished cells that match).

    Every cell plays the same games (--games, --seed), so the differences are
    the rules': games and seed cannot be varied. To replicate a sweep, run it
    again with another --seed and --out.
    """
    from unosim.analysis.estimates import METRIC_BY_KEY
    from unosim.report.format import fmt_metric
    from unosim.report.runs import study_dir
    from unosim.report.sweep import parse_vary, run_sweep, write_sweep
    from unosim.rules.config import name_slug

    axes = [parse_vary(v) for v in varies]
    out_dir = Path(out) if out is not None else Path("runs") / name_slug(f"sweep-{Path(config).stem}")

    def on_cell(i: int, n: int, cell: Any, seconds: float) -> None:
        what = ", ".join(f"{a.key}={t}" for a, t in zip(axes, cell.texts, strict=True))
        info(quiet, f"[{i + 1}/{n}] {what}: {cell.run.rounds:,} rounds in {seconds:.1f} s")

    compile_notice(quiet)
    with study_dir(out_dir, resume=resume, force=force, reuse=reuse, warn=warn):
        sweep = run_sweep(config, axes, games=games, seed=seed, out=out_dir, jobs=jobs,
                          overrides=overrides, progress=False, reuse=reuse, resume=resume,
                          force=force, on_cell=on_cell, on_warning=warn, backend=backend,
                          scheduler=scheduler)
        cmd = options.command_line("sweep", [config], [
            ("--vary", varies), ("--games", sweep.games), ("--seed", seed),
            ("--set", overrides), ("--out", out_dir)])
        paths = write_sweep(sweep, out_dir, command=cmd)
    table = sweep_table_text(sweep, [METRIC_BY_KEY["turns_mean"],
                                     METRIC_BY_KEY["first_player_win_rate"]], fmt_metric)
    click.echo(table)
    click.echo(f"written to {paths[2]} and {paths[1]} (and .parquet, charts)")


def sweep_table_text(sweep: Any, metrics: list[Any], fmt: Any) -> str:
    """A plain-text table of every cell for stdout."""
    from unosim.analysis.estimates import estimate

    header = [a.key for a in sweep.axes] + [m.label for m in metrics]
    rows = [[lab for lab in (a.labels[a.texts.index(t)]
                             for a, t in zip(sweep.axes, cell.texts, strict=True))]
            + [fmt(estimate(cell.run.aggregates, m), m) for m in metrics]
            for cell in sweep.cells]
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
             for r in [header, *rows]]
    return "\n".join(lines)
