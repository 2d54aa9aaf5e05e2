"""``unosim sweep``: a grid of variants of one config, each cell's effect against a baseline."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click

from unosim.cli import options
from unosim.cli.console import Command, compile_engines, info

if TYPE_CHECKING:
    from unosim.report.grid import Cell
    from unosim.report.sweep import Sweep

F = TypeVar("F", bound=Callable[..., object])

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
    from unosim.report.grid import parse_vary
    from unosim.study import sweep as study
    from unosim.study.runs import default_out

    text = fmt == "text"
    opts = options.study_options(games, precision, max_games, margins=margins, jobs=jobs,
                                 backend=backend, scheduler=scheduler, reuse=reuse,
                                 resume=resume, force=force, progress=not quiet)
    axes = [parse_vary(v) for v in varies]
    # a bad --baseline fails before anything runs; every cell before the out dir
    identity = study.identity(options.load(config, overrides), axes, opts, baseline=baseline,
                              seed=seed)
    out_dir = Path(out) if out is not None else default_out(
        f"sweep-{Path(config).stem}", identity)

    def on_cell(i: int, n: int, cell: Cell, seconds: float) -> None:
        assert cell.run is not None  # a cell is reported once it has run
        what = ", ".join(f"{a.key}={t}" for a, t in zip(axes, cell.texts, strict=True))
        info(quiet or not text, f"[{i + 1}/{n}] {what}: {cell.run.rounds:,} rounds")

    def command(sw: Sweep) -> str:
        return options.command_line("sweep", [config], [
            ("--vary", varies), ("--baseline", baseline),
            ("--games", sw.games if precision is None else None),
            ("--precision", precision), ("--max-games", opts.cap), ("--seed", seed),
            ("--margin", margins), ("--set", overrides), ("--out", out_dir)])

    sweep, paths = study.sweep(
        config, axes, opts, baseline=baseline, seed=seed, out=out_dir, overrides=overrides,
        on_cell=on_cell, command=command, study=identity,
        # every cell's engine here, once, before any worker starts
        prepare=lambda cfgs: compile_engines(cfgs, quiet))
    if not text:
        click.echo(json.dumps({**sweep.to_json(), "out": str(out_dir),
                               "report": str(paths[1])}, indent=2))
        return
    for sentence in sweep.answers():
        click.echo(f"- {sentence}")
    click.echo(f"written to {paths[1]} and {paths[2]} (and .md, .parquet, charts)")
