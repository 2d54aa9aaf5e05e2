"""``unosim league``: policies in balanced seatings on duplicate deals, rated with intervals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from unosim.cli import options
from unosim.cli.console import Command, compile_engines, info

if TYPE_CHECKING:
    from unosim.study.league import Seat


def _policy(text: str) -> Seat:
    """A POLICY argument: a name, or a YAML mapping ``{policy: NAME, params: {...}}``."""
    if not text.lstrip().startswith("{"):
        return text.strip()
    from unosim.rules.yamlio import parse_yaml

    return parse_yaml(text, "POLICY")


@click.command("league", cls=Command)
@click.argument("policies", nargs=-1, required=True, metavar="POLICY POLICY [...]",
                shell_complete=options.complete_policy)
@click.option("--config", "config", default="classic", show_default=True,
              metavar="RULES.yaml", shell_complete=options.complete_config,
              help="The rule set (a file or shipped config name).")
@click.option("--players", type=click.IntRange(2), default=None,
              help="Players at each table (default: the config's).")
@click.option("--vary", default=None, metavar="KEY=VALUES", shell_complete=options.complete_vary,
              help="Run one league per value (house_rules.stacking.draw_two_on_draw_two="
                   "false,true) and report how the ratings move.")
@click.option("--head-to-head/--no-head-to-head", "head_to_head", default=True,
              show_default=True, help="Also play every pair at 2 players (both seatings).")
@options.study
@options.precision
@options.max_games
@options.format_option
def league_cmd(policies: tuple[str, ...], config: str, players: int | None, vary: str | None,
               head_to_head: bool, games: int | None, seed: int | None, out: str | None,
               overrides: tuple[str, ...], jobs: int | None, backend: str,
               scheduler: str | None, reuse: bool, resume: bool, force: bool, quiet: bool,
               precision: float | None, max_games: int | None, fmt: str) -> None:
    """Rate policies: every seating of them at the table, on the same deals.

    Each POLICY is a name (random, strategic, ...) or a YAML mapping such as
    '{policy: strategic, params: {bluff_rate: 0.2}}'; the order they are
    named in does not matter. The seatings are every arrangement of the
    policies at the table, so each takes each seat, and follows each other,
    equally often (a random design, with its balance stated, beyond 400
    seatings). Every seating is one config and all play the same games
    (duplicate deals), so seat advantage and card luck cancel. Writes
    league.md/.html, league.csv/.parquet (tidy) and charts: win rates per
    seat, Bradley-Terry (Luce) ratings with 95% intervals, Holm-corrected
    verdicts, the 2-player head-to-head matrix, and how much skill the rules
    leave (the strongest policy against random players, the rating spread).
    Policies that play every game alike are reported as identical, not
    ranked. --precision X sizes the run from a 2,000-game pilot so every win
    rate per seat is within about ±X.

    Each seating runs into its own run dir under OUT/runs. An out dir that is
    not empty needs --resume, --force or --reuse.
    """
    from unosim.report.grid import parse_vary
    from unosim.study import league as study
    from unosim.study.runs import default_out

    text = fmt == "text"
    opts = options.study_options(games, precision, max_games, jobs=jobs, backend=backend,
                                 scheduler=scheduler, reuse=reuse, resume=resume, force=force,
                                 progress=not quiet and text)
    if len(policies) < 2:
        raise click.UsageError("a league needs at least two policies")
    axis = parse_vary(vary) if vary is not None else None
    study.check_options(players, overrides, axis)  # before the out dir is touched
    seats = [_policy(p) for p in policies]
    identity = study.identity(options.load(config, overrides), seats, opts, players=players,
                              vary=axis, head_to_head=head_to_head, seed=seed)
    out_dir = Path(out) if out is not None else default_out(
        "league-" + "-".join(policies), identity)
    cmd = options.command_line("league", list(policies), [
        ("--config", config), ("--players", players), ("--vary", vary),
        ("--no-head-to-head", not head_to_head), ("--games", games),
        ("--precision", precision), ("--max-games", max_games), ("--seed", seed),
        ("--set", overrides), ("--out", out_dir)])
    ls, paths = study.league(
        config, seats, opts, players=players, overrides=overrides, vary=axis, seed=seed,
        head_to_head=head_to_head, out=out_dir, command=cmd, study=identity,
        on_stage=lambda m: info(quiet or not text, m),
        # the tables' engines here, once, before any worker starts
        prepare=lambda cfgs: compile_engines(cfgs, quiet or not text))
    if not text:
        click.echo(json.dumps({**ls.to_json(), "out": str(out_dir), "report": str(paths[1]),
                               "table": json.loads(ls.table().to_json(orient="records"))},
                              indent=2))
        return
    for lg, verdicts in zip(ls.leagues, ls.verdicts(), strict=True):
        if lg.rule:
            click.echo(f"{axis.label if axis else ''} {lg.rule}:")
        for v in verdicts:
            click.echo(f"  - {v.replace('**', '')}" if lg.rule else f"- {v.replace('**', '')}")
    click.echo(f"written to {paths[1]} (and .md, .csv, .parquet, charts)")
