"""``unosim play``: one game, turn by turn."""

from __future__ import annotations

import click

from unosim.cli import options
from unosim.cli.console import Command, compile_notice
from unosim.rules.limits import MAX_GAMES


@click.command("play", cls=Command)
@click.argument("config")
@options.seed
@click.option("--game", type=click.IntRange(0, MAX_GAMES - 1), default=0,
              show_default=True, help="Which game of the seed to play (game G of `run --seed S`).")
@click.option("--trace-format", type=click.Choice(["text", "jsonl"]), default="text",
              show_default=True, help="Readable log, or JSON Lines per TRACE.md.")
@options.overrides
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="Write the trace to FILE instead of stdout.")
def play_cmd(config: str, seed: int | None, game: int, trace_format: str,
             overrides: tuple[str, ...], out: str | None) -> None:
    """Play one game (a round, or a match in match mode) and print its trace."""
    from unosim.engine.game import play_game
    from unosim.engine.state import compile_config
    from unosim.engine.trace import to_jsonl, to_text
    from unosim.run.files import write_text

    cfg = options.load(config, overrides)
    compile_notice()
    events = play_game(compile_config(cfg), cfg.seed if seed is None else seed, game)
    if trace_format == "jsonl":
        text = to_jsonl(events)
    else:
        policies = cfg.seat_policies
        names = ([f"P{i} ({p})" for i, p in enumerate(policies)]
                 if len(set(policies)) > 1 else None)
        text = to_text(events, seat_names=names, color_labels=cfg.edition_spec.colors)
    if out is None:
        click.echo(text, nl=False)
    else:
        write_text(out, text)
