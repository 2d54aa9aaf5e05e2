"""``unosim play``: one game, turn by turn; ``--human SEAT`` lets a person play a seat.

With ``--human``, each decision of that seat shows what happened since the
last one (other hands hidden as ``?``), the hand, the top card and active
colour, every hand's size and the numbered legal actions. The player types a
number or an action name (``R7``, ``draw``, ``pass``, ``color G``, ``G``,
``accept``, ``challenge``, ``target 2``); anything else is asked again. When
the input ends before the game does, the command fails with one error line
and exit code 2, and writes no trace. At the end the trace is written as
without ``--human``: to ``--out``, or to stdout after the game.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from unosim.cli import options
from unosim.cli.console import CliError, Command, compile_notice
from unosim.rules.limits import MAX_GAMES, MAX_PLAYERS


class HumanPolicy:
    """A plug-in policy (docs/plugins.md) that asks a person at the terminal."""

    def __init__(self, seat_names: list[str], color_labels: list[str]) -> None:
        self.names = seat_names
        self.labels = color_labels
        self.shown = 0  # events of the view already shown

    def show_news(self, events: tuple[dict, ...] | list[dict]) -> None:
        from unosim.engine.trace import to_text

        news = list(events[self.shown:])
        self.shown = len(events)
        if news:
            click.echo(to_text(news, seat_names=self.names, color_labels=self.labels), nl=False)

    def choose(self, view: Any, legal_actions: list[str]) -> str:
        self.show_news(view.events)
        sizes = ", ".join(f"{self.names[q]} {view.hand_sizes[q]}" for q in view.active)
        click.echo(f"-- {self.names[view.seat]}, your move ({view.phase})")
        click.echo(f"   top {view.top}, colour {view.color}, direction {view.direction:+d}"
                   + (f", pending draw {view.pending}" if view.pending else ""))
        click.echo(f"   hand: {' '.join(view.hand) or '-'}")
        click.echo(f"   cards: {sizes}; draw pile {view.draw_size}")
        for i, a in enumerate(legal_actions, 1):
            click.echo(f"   {i}. {a}")
        while True:
            click.echo(f"choose 1-{len(legal_actions)} or a name: ", nl=False)
            line = sys.stdin.readline()
            if not line:
                click.echo("")
                raise CliError(f"input ended before the game was over ({self.names[view.seat]} "
                               "to move); no trace written")
            if not sys.stdin.isatty():  # piped input: show it, so the log reads as typed
                click.echo(line.strip())
            pick = _match(line.strip(), legal_actions)
            if pick is not None:
                return pick
            click.echo(f"   not a legal choice: {line.strip()!r}")


def _match(text: str, legal: list[str]) -> str | None:
    """The legal action ``text`` names: its number, its name, ``play R7`` or a colour."""
    from unosim.engine.game import IllegalActionError, action_name, parse_action

    if text.isdigit():
        i = int(text)
        return legal[i - 1] if 1 <= i <= len(legal) else None
    words = text.split()
    if len(words) == 1 and any(a.startswith("color ") for a in legal):
        words = ["color", words[0][:1]] if words[0][:1].upper() in "RYGB" else words
    try:
        name = action_name(parse_action(" ".join(words)))
    except IllegalActionError:
        return None
    return name if name in legal else None


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
@click.option("--human", type=click.IntRange(0, MAX_PLAYERS - 1), default=None, metavar="SEAT",
              help="Play seat SEAT yourself at the terminal, against the configured policies.")
def play_cmd(config: str, seed: int | None, game: int, trace_format: str,
             overrides: tuple[str, ...], out: str | None, human: int | None) -> None:
    """Play one game (a round, or a match in match mode) and print its trace."""
    from unosim.engine.plugins import (
        PluginActionError,
        PluginError,
        Seat,
        compile_with_plugins,
        play_game,
    )
    from unosim.engine.trace import to_jsonl, to_text
    from unosim.run.files import write_text

    cfg = options.load(config, overrides)
    if human is not None and human >= cfg.players:
        raise CliError(f"--human {human}: the game has seats 0-{cfg.players - 1}")
    compile_notice()
    policies: list[str] = list(cfg.seat_policies)
    labels = list(cfg.edition_spec.colors)
    seats: dict[int, Any] = {}
    try:
        cc, named = compile_with_plugins(cfg)
        seats.update(named)
        if human is not None:
            policies[human] = "you"
            player = HumanPolicy([f"P{i} ({p})" for i, p in enumerate(policies)], labels)
            seats[human] = Seat("human", player)
        events = play_game(cc, cfg.seed if seed is None else seed, game, plugins=seats)
    except (PluginError, PluginActionError) as exc:
        raise CliError(exc) from None
    if human is not None:
        player.show_news(seats[human].log.events)
        click.echo("-- game over")
    if trace_format == "jsonl":
        text = to_jsonl(events)
    else:
        names = ([f"P{i} ({p})" for i, p in enumerate(policies)]
                 if len(set(policies)) > 1 else None)
        text = to_text(events, seat_names=names, color_labels=labels)
    if out is None:
        click.echo(text, nl=False)
    else:
        write_text(out, text)
