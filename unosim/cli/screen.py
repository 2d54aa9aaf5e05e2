"""``unosim screen``: which two-valued settings change the game, and which interact."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from unosim.cli import options
from unosim.cli.console import Command, compile_engines, info

if TYPE_CHECKING:
    from unosim.report.screen import Screen
    from unosim.rules.config import GameConfig


@click.command("screen", cls=Command)
@click.argument("config", shell_complete=options.complete_config)
@click.option("--factors", required=True, metavar="KEY,KEY,...",
              help="The settings to screen: any key declared with two values (a switch such "
                   "as jump_in, or a choice of two), by its full or last name; KEY=A/B picks "
                   "two values of any other setting.")
@click.option("--resolution", type=click.Choice(["4", "5", "full"]), default="full",
              show_default=True,
              help="4: main effects clear of two-factor interactions (these aliased in "
                   "chains); 5: those clear of each other too; full: every combination.")
@options.study
@options.precision
@options.max_games
@options.margin
@options.format_option
def screen_cmd(config: str, factors: str, resolution: str, games: int | None,
               seed: int | None, out: str | None, overrides: tuple[str, ...],
               jobs: int | None, backend: str, scheduler: str | None, reuse: bool,
               resume: bool, force: bool, quiet: bool, precision: float | None,
               max_games: int | None, margins: tuple[str, ...], fmt: str) -> None:
    """Screen settings of CONFIG with a two-level (fractional) factorial design.

    Each design point is CONFIG with every factor at one of its two values;
    pyDOE3 gives the design, and the page states its runs, resolution and
    aliasing. All points play the same games in lockstep, so every main
    effect and two-factor interaction (on mean turns, the first player's win
    rate and cards drawn) gets a paired interval; the decisions of the whole
    screen are Holm-adjusted together. Writes screen.md/.html (the answer
    first), screen.csv/.parquet and charts into OUT (default
    runs/screen-NAME-HASH); --resume continues an interrupted screen.
    """
    from unosim.report.screen import parse_factors
    from unosim.study import screen as study
    from unosim.study.runs import default_out

    text = fmt == "text"
    opts = options.study_options(games, precision, max_games, margins=margins, jobs=jobs,
                                 backend=backend, scheduler=scheduler, reuse=reuse,
                                 resume=resume, force=force, progress=not quiet)
    facs = parse_factors(factors)
    res: int | str = resolution if resolution == "full" else int(resolution)
    identity = study.identity(options.load(config, overrides), facs, res, opts, seed=seed)
    out_dir = Path(out) if out is not None else default_out(
        f"screen-{Path(config).stem}", identity)

    def command(scr: Screen) -> str:
        return options.command_line("screen", [config], [
            ("--factors", factors), ("--resolution", resolution),
            ("--games", scr.games if precision is None else None),
            ("--precision", precision), ("--max-games", opts.cap), ("--seed", seed),
            ("--margin", margins), ("--set", overrides), ("--out", out_dir)])

    def prepare(cfgs: list[GameConfig]) -> None:
        info(quiet or not text, f"{len(cfgs)} design points × "
             f"{'up to ' if opts.cap else ''}{opts.games_for(cfgs[0].games):,} games")
        compile_engines(cfgs, quiet)  # every point's engine here, before any worker starts

    scr, paths = study.screen(config, facs, opts, resolution=res, seed=seed, out=out_dir,
                              overrides=overrides, prepare=prepare, command=command,
                              study=identity)
    if not text:
        out_json: dict[str, object] = {**scr.to_json(), "out": str(out_dir),
                                    "report": str(paths[1])}
        click.echo(json.dumps(out_json, indent=2))
        return
    for sentence in scr.answers()[:3]:
        click.echo(f"- {sentence}")
    click.echo(f"written to {paths[1]} and {paths[2]} (and .md, .parquet, charts)")
