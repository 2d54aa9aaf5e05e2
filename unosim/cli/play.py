"""``unosim play``: one game, turn by turn; ``--human SEAT`` lets a person play a seat.

With ``--human``, each decision of that seat shows what happened since the
last one (other hands hidden as ``?``), the hand, the top card and active
colour, every hand's size and the numbered legal actions. The player types a
number or an action name (``R7``, ``draw``, ``pass``, ``color G``, ``G``,
``accept``, ``challenge``, ``target 2``); anything else is asked again (a
line is read up to ``MAX_ANSWER`` bytes, the rest of a longer one dropped).
When the input ends before the game does, the command fails with one error
line and exit code 2, and writes no trace. At the end the trace is written as
without ``--human``: to ``--out``, or to stdout after the game.

The game runs off the main thread (`unosim.run.backends.Foreground`), so
Ctrl-C lands at once even while search seats think; an interrupted game
writes what was played to ``--out`` (or, with ``--human``, to stdout) and
exits 130. ``--out`` replaces a regular file atomically and
writes anything else (a FIFO, a terminal, ``/dev/stdout``) as a stream.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from unosim.cli import options
from unosim.cli.console import CliError, Command, compile_notice
from unosim.rules.limits import MAX_GAMES, MAX_PLAYERS

MAX_ANSWER = 1000  # bytes of one typed answer (an action name is under 20)
_SHOWN = 60  # characters of a refused answer echoed back


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
            answer = _read_answer()
            if answer is None:
                click.echo("")
                raise CliError(f"input ended before the game was over ({self.names[view.seat]} "
                               "to move); no trace written")
            text, size = answer[0].strip(), answer[1]
            shown = text if size <= _SHOWN else f"{text[:_SHOWN]}... ({size:,} bytes)"
            if not sys.stdin.isatty():  # piped input: show it, so the log reads as typed
                click.echo(shown)
            pick = _match(text, legal_actions) if size <= MAX_ANSWER else None
            if pick is not None:
                return pick
            click.echo(f"   not a legal choice: {shown!r}")


def _read_answer() -> tuple[str, int] | None:
    """One line of standard input (at most `MAX_ANSWER` + 1 bytes of it) and its
    length; None at the end of input. A longer line is read through and dropped
    piece by piece, so memory stays bounded; bytes that are not UTF-8 are replaced."""
    stdin = sys.stdin
    if stdin is None:  # started with standard input closed
        return None
    raw = getattr(stdin, "buffer", None)
    if raw is None:  # a text-only stream (an embedding caller's)
        head = stdin.readline(MAX_ANSWER + 1)
        size, more = len(head), head
        while more and not more.endswith("\n"):
            more = stdin.readline(2**16)
            size += len(more)
        return (head, size) if head else None
    data = raw.readline(MAX_ANSWER + 1)
    size, more = len(data), data
    while more and not more.endswith(b"\n"):
        more = raw.readline(2**16)
        size += len(more)
    return (data.decode("utf-8", errors="replace"), size) if data else None


def _match(text: str, legal: list[str]) -> str | None:
    """The legal action ``text`` names: its number, its name, ``play R7`` or a colour."""
    from unosim.engine.game import IllegalActionError, action_name, parse_action

    if text.isascii() and text.isdigit():  # '²' is a digit int() refuses
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
              show_default=True, help="Readable log, or JSON Lines per docs/trace.md.")
@options.overrides
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              callback=lambda _ctx, _param, v: _not_empty(v),
              help="Write the trace to FILE instead of stdout (a FIFO or device as a stream).")
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
    from unosim.run.backends import foreground
    from unosim.run.errors import RunInterrupted

    cfg = options.load(config, overrides)
    if human is not None and human >= cfg.players:
        raise CliError(f"--human {human}: the game has seats 0-{cfg.players - 1}")
    compile_notice()
    policies: list[str] = list(cfg.seat_policies)
    labels = list(cfg.edition_spec.colors)
    seats: dict[int, Any] = {}

    def render(events: list[dict]) -> str:
        if trace_format == "jsonl":
            return to_jsonl(events)
        names = ([f"P{i} ({p})" for i, p in enumerate(policies)]
                 if len(set(policies)) > 1 else None)
        return to_text(events, seat_names=names, color_labels=labels)

    played: list[dict] = []  # the game so far, kept if it is interrupted
    try:
        cc, named = compile_with_plugins(cfg)
        seats.update(named)
        if human is not None:
            policies[human] = "you"
            player = HumanPolicy([f"P{i} ({p})" for i, p in enumerate(policies)], labels)
            seats[human] = Seat("human", player)
        with foreground() as fg:  # off the main thread: Ctrl-C lands while seats think
            events = fg.call(play_game, cc, cfg.seed if seed is None else seed, game,
                             plugins=seats, sink=played)
    except (PluginError, PluginActionError) as exc:
        raise CliError(exc) from None
    except KeyboardInterrupt:
        so_far = list(played)  # the game thread may still add to it
        if so_far and (out is not None or human is not None):
            if human is not None:
                click.echo("")  # ends the prompt's line
            _write_trace(out, render(so_far))
            where = out if out is not None else "stdout"
            raise RunInterrupted(f"interrupted: the {len(so_far)} events played so far "
                                 f"are written to {where}") from None
        raise
    if human is not None:
        player.show_news(seats[human].log.events)
        click.echo("-- game over")
    _write_trace(out, render(events))


def _not_empty(value: str | None) -> str | None:
    """``--out ''`` names no file."""
    if value is not None and not value:
        raise click.BadParameter("must not be empty (omit it to print the trace)")
    return value


def _write_trace(out: str | None, text: str) -> None:
    """The trace to stdout (``out`` None) or to ``out`` (`unosim.run.files.write_output`:
    a regular file replaced atomically, a FIFO or a device written as a stream)."""
    from unosim.run.files import write_output

    if out is None:
        click.echo(text, nl=False)
        return
    try:
        write_output(out, text)
    except OSError as exc:
        raise CliError(f"{out}: {exc.strerror or exc}") from None
