"""``unosim sweep``: a grid of variants of one config, each cell's effect against a baseline."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from unosim.cli import options
from unosim.cli.console import Command, compile_engines, info, warn

F = TypeVar("F", bound=Callable[..., Any])

@click.command("sweep", cls=Command)
@click.argument("config", shell_complete=options.complete_config)
@click.option("--vary", "varies", multiple=True, required=True, metavar="KEY=VALUES",
              shell_complete=options.complete_vary,
              help="A grid axis: players=2..10, or a comma list of YAML values "
                   "(house_rules.jump_in=false,true). Repeatable; the first is the x axis.")
@click.option("--baseline", default=None, metavar="KEY=VALUE",
              help="What every cell is compared with: a varied key at one of its values "
                   "(default: the last varied key with two or more values, at its first).")
@options.study
@options.precision
@options.max_games
@options.margin
@options.format_option
def sweep_cmd(config: str, varies: tuple[str, ...], baseline: str | None, games: int | None,
              seed: int | None, out: str | None, overrides: tuple[str, ...], jobs: int | None,
              backend: str, scheduler: str | None, reuse: bool, resume: bool, force: bool,
              quiet: bool, precision: float | None, max_games: int | None,
              margins: tuple[str, ...], fmt: str) -> None:
    """Run a grid of variants of CONFIG; answer how each cell differs from its baseline.

    Every cell is paired game by game with its baseline cell (the cell with
    the --baseline key at its baseline value, every other key the same): all
    cells run in lockstep on the same games. Writes sweep.md/.html (the answer
    first), sweep.csv/.parquet and charts; the decisions of the whole sweep
    are Holm-adjusted together.

    Each cell runs into its own run dir OUT/runs/CELL. An out dir that is not
    empty needs --resume (finish an interrupted sweep), --force (remove the
    previous study's cells, then run this one) or --reuse (keep the finished
    cells that match). The default OUT is runs/sweep-NAME-HASH, HASH short for
    the grid, games and seed, so another grid gets its own.

    Every cell plays the same games (--games, --seed), so the differences are
    the rules': games and seed cannot be varied. To replicate a sweep, run it
    again with another --seed and --out.
    """
    from unosim.report.grid import build_cells
    from unosim.report.runs import default_out, study_dir, study_identity
    from unosim.report.sweep import (
        default_baseline,
        parse_baseline,
        parse_vary,
        run_sweep,
        write_sweep,
    )

    games, cap = options.games_and_cap(games, precision, max_games)
    axes = [parse_vary(v) for v in varies]
    # a bad --baseline fails before anything runs
    base_of = parse_baseline(baseline, axes) if baseline is not None else default_baseline(axes)
    margin_map = options.parse_margins(margins)
    # every cell's keys and values are checked before the out dir is looked at
    cells = build_cells(config, axes, overrides)
    base = options.load(config, overrides)
    identity = study_identity("sweep", config=base, axes=axes, baseline=base_of,
                              games=cap or games or base.games,
                              seed=base.seed if seed is None else seed, precision=precision)
    out_dir = Path(out) if out is not None else default_out(
        f"sweep-{Path(config).stem}", identity)
    text = fmt == "text"

    def on_cell(i: int, n: int, cell: Any, seconds: float) -> None:
        what = ", ".join(f"{a.key}={t}" for a, t in zip(axes, cell.texts, strict=True))
        info(quiet or not text, f"[{i + 1}/{n}] {what}: {cell.run.rounds:,} rounds")

    with study_dir(out_dir, identity, resume=resume, force=force, reuse=reuse, warn=warn):
        # every cell's engine here, once, before any worker starts
        compile_engines([c.cfg for c in build_cells(config, axes, overrides)], quiet)
        sweep = run_sweep(config, axes, baseline=baseline,
                          games=cap if cap is not None else games, seed=seed, out=out_dir,
                          jobs=jobs, overrides=overrides, progress=not quiet, reuse=reuse,
                          resume=resume, force=force, precision=precision, margins=margin_map,
                          on_cell=on_cell, on_warning=warn, backend=backend, cells=cells,
                          scheduler=scheduler)
        cmd = options.command_line("sweep", [config], [
            ("--vary", varies), ("--baseline", baseline),
            ("--games", sweep.games if precision is None else None),
            ("--precision", precision), ("--max-games", cap), ("--seed", seed),
            ("--margin", margins), ("--set", overrides), ("--out", out_dir)])
        paths = write_sweep(sweep, out_dir, command=cmd)
    if not text:
        click.echo(json.dumps({**sweep.to_json(), "out": str(out_dir),
                               "report": str(paths[1])}, indent=2))
        return
    for sentence in sweep.answers():
        click.echo(f"- {sentence}")
    click.echo(f"written to {paths[1]} and {paths[2]} (and .md, .parquet, charts)")
