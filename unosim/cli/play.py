"""``unosim play``: one game, turn by turn; ``--human SEAT`` lets a person play a seat.

With ``--human``, each decision of that seat shows what happened since the
last one (other hands hidden as ``?``), the hand, the top card and active
color, every hand's size and the numbered legal actions, cards in their
colors on a terminal (`unosim.cli.cardtext`). The player types a number or an
action name (``R7``, ``draw``, ``pass``, ``color G``, ``G``, ``accept``,
``challenge``, ``target 2``) or ``?`` for the legend; anything else is asked
again (a line is read up to ``MAX_ANSWER`` bytes, the rest of a longer one
dropped). The seat may bluff a Wild Draw Four: it is offered, last, with a
warning. When the input ends before the game does, the command fails with one
error line and exit code 2, and writes no trace. At the end the trace goes to
``--out``, or to a fresh file in the current directory, and the last lines
say the result and where the trace is (not the trace itself, which would push
the result off the screen).

The game runs off the main thread (`unosim.run.backends.Foreground`), so
Ctrl-C lands at once even while search seats think; an interrupted game
writes what was played to ``--out`` (or, with ``--human``, to the fresh file)
and exits 130. ``--out`` replaces a regular file atomically and
writes anything else (a FIFO, a terminal, ``/dev/stdout``) as a stream.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from unosim.cli import options
from unosim.cli.cardtext import FlipSeen, Painter, color_wanted, legend, table_lines
from unosim.cli.console import CliError, Command, compile_notice
from unosim.rules.limits import MAX_GAMES, MAX_PLAYERS

if TYPE_CHECKING:
    from unosim.engine.kernel.state import CompiledConfig
    from unosim.engine.plugins import Seat
    from unosim.engine.view import PublicView
    from unosim.rules.editions import CardKind, Special
    from unosim.rules.models import HouseRules

MAX_ANSWER = 1000  # bytes of one typed answer (an action name is under 20)
_SHOWN = 60  # characters of a refused answer echoed back


class HumanPolicy:
    """A plug-in policy (docs/plugins.md) that asks a person at the terminal."""

    def __init__(self, seat_names: list[str], color_labels: list[str],
                 painter: Painter | None = None, special: Special | None = None,
                 wilds_block: bool = False, house: HouseRules | None = None,
                 cards: Sequence[CardKind] | None = None) -> None:
        self.names = seat_names
        self.labels = color_labels
        self.paint = painter or Painter(False, color_labels)
        self.legend = legend(self.paint, special, wilds_block, house, cards)
        self.wilds_block = wilds_block
        # UNO Flip: cards have two faces; the side in play decides (docs/rules.md §11)
        self.two_sided = any(c.side == "dark" for c in cards or ())
        # the wilds a seat may bluff (only_without_color), and what a lost challenge costs
        self.bluffs = {c.token: _cost(c) for c in cards or ()
                       if c.condition is not None} if cards is not None else {"WD4": "draw 4"}
        self.shown = 0  # events of the view already shown
        self.side = "light"  # UNO Flip: the side in play after them
        self.asked = 0  # decisions asked so far (the first one mentions the legend)

    def echo(self, text: str, nl: bool = True) -> None:
        click.echo(text, nl=nl, color=self.paint.on or None)

    def show_news(self, events: tuple[dict, ...] | list[dict]) -> None:
        from unosim.engine.trace import side_after, to_text

        news = list(events[self.shown:])
        self.shown = len(events)
        if news:
            self.echo(self.paint.text(to_text(news, seat_names=self.names,
                                              color_labels=self.labels,
                                              dark_labels=self.paint.dark_labels,
                                              side=self.side)), nl=False)
            self.side = side_after(news, self.side)  # UNO Flip: where the next news starts

    def choose(self, view: PublicView, legal_actions: list[str]) -> str:
        self.show_news(view.events)
        sizes = [(self.names[q], view.hand_sizes[q]) for q in view.active]
        self.echo(f"-- {self.names[view.seat]}, your move ({view.phase})")
        for line in table_lines(self.paint, hand=view.hand, top=view.top, color=view.color,
                                direction=view.direction, sizes=sizes,
                                draw_size=view.draw_size, pending=view.pending,
                                flip=self.flip_seen(view)):
            self.echo(f"   {line}")
        choices = self.choices(view, legal_actions)
        for i, (a, note) in enumerate(choices, 1):
            self.echo(f"   {i}. {self.paint.text(a)}" + (f"  -- {note}" if note else ""))
        legal = [a for a, _ in choices]
        self.asked += 1
        hint = ", or ? for the legend" if self.asked == 1 else ""
        while True:
            self.echo(f"choose 1-{len(legal)} or a name{hint}: ", nl=False)
            answer = _read_answer()
            if answer is None:
                click.echo("")
                raise CliError(f"input ended before the game was over ({self.names[view.seat]} "
                               "to move); no trace written")
            text, size = answer[0].strip(), answer[1]
            shown = text if size <= _SHOWN else f"{text[:_SHOWN]}... ({size:,} bytes)"
            if not sys.stdin.isatty():  # piped input: show it, so the log reads as typed
                click.echo(shown)
            if text in ("?", "help"):
                self.echo(self.paint.text(self.legend), nl=False)
                continue
            pick = _match(text, legal) if size <= MAX_ANSWER else None
            if pick is not None:
                return pick
            click.echo(f"   not a legal choice: {shown!r} (? for the legend)")

    def flip_seen(self, view: PublicView) -> FlipSeen | None:
        """Under UNO Flip, what `table_lines` shows beyond a one-sided game: the side in
        play, and what the seat sees of the other hands' and the draw pile's backs
        (docs/rules.md section 11, the view's ``other_faces`` and ``draw_top_back``)."""
        if not self.two_sided:
            return None
        other = getattr(view, "other_faces", None)
        backs = [] if other is None else [(self.names[q], other[q]) for q in view.active
                                          if q != view.seat]
        return FlipSeen(getattr(view, "side", "light"), backs,
                        getattr(view, "draw_top_back", None))

    def choices(self, view: PublicView, legal: list[str]) -> list[tuple[str, str]]:
        """The legal actions in the order offered, each with a note: a bluffed wild draw
        (WD4; UNO Flip's WD2, WDC) comes last with its warning; accepting and
        challenging say what they cost."""
        bluffs = [a for a in legal if a in self.bluffs] if self.bluffing(view) else []
        out: list[tuple[str, str]] = []
        for a in legal:
            if a in bluffs:
                continue
            out.append((a, self.note(a, view)))
        held = self.paint.color(view.color)
        for a in bluffs:
            if view.phase == "pending":  # a stacked WD4 (docs/rules.md §6) is never challenged
                note = f"bluff: you hold {held}; a stacked {a} cannot be challenged"
            else:
                note = (f"bluff: you hold {held}; if challenged you {self.bluffs[a]}, "
                        "and the color you name stands")
            out.append((a, note))
        return out

    def note(self, a: str, view: PublicView) -> str:
        """What choosing ``a`` means here, in a few words (empty for a plain card)."""
        if a == "accept":
            return f"draw {view.pending}, lose your turn" if view.pending else (
                "draw until a card of the named color comes, lose your turn")
        elif a == "challenge":
            if self.two_sided:
                return ("a bluff: its player takes the draw and you play; a legal one: "
                        "you take it and 2 more, and lose your turn")
            return "a bluff: its player draws 4 and you play; a legal WD4: you draw 6"
        elif a == "pass" and view.phase == "drawn":
            return "keep the card you drew"
        elif a == "pass" and view.phase == "jump":
            return "do not jump in"
        elif view.phase == "jump":
            return "jump in out of turn"
        elif a == "pass" and view.phase == "multi":
            return "stop dropping cards of this number"
        elif view.phase == "multi":
            return "drop it too (same number)"
        elif a.startswith("target "):
            q = int(a.split()[1])
            return f"{self.names[q]}, {view.hand_sizes[q]} cards"
        return ""

    def bluffing(self, view: PublicView) -> bool:
        """Would playing a WD4 (a conditioned wild) now break its color condition
        (docs/rules.md §3)?"""
        others = [t for t in view.hand if t not in self.bluffs]
        return any(t[:1] == view.color for t in others) or (
            self.wilds_block and any(t in ("W", "WX") for t in others))


def _cost(c: CardKind) -> str:
    """What a lost challenge of a conditioned wild costs its player."""
    if c.draw:
        return f"draw {c.draw}"
    return ("draw until a card of the color you named comes" if "draw_until_color" in c.effects
            else "take its draw")


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
    from unosim.engine.trace import SIDE_COLORS

    if text.isascii() and text.isdigit():  # '²' is a digit int() refuses
        i = int(text)
        return legal[i - 1] if 1 <= i <= len(legal) else None
    words = text.split()
    # a card by its token (any edition's: ``RSE``, ``play WD10``)
    if (1 <= len(words) <= 2 and words[-1].upper() in legal
            and (len(words) == 1 or words[0].lower() in ("play", "jump", "stack"))):
        return words[-1].upper()
    if len(words) == 1 and any(a.startswith("color ") for a in legal):
        words = ["color", words[0][:1]] if words[0][:1].upper() in SIDE_COLORS else words
    try:
        a = parse_action(" ".join(words))
    except IllegalActionError:
        return None
    # a color by either side's letter (UNO Flip's dark side offers ``color P``)
    names = [action_name(a, side=side) for side in (0, 1)]
    return next((name for name in names if name in legal), None)


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
              help="Write the trace to FILE instead of stdout (a FIFO or device as a stream); "
                   "with --human, instead of a fresh file in the current directory.")
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
    from unosim.rules.editions import card_kinds
    from unosim.run.backends import foreground
    from unosim.run.errors import RunInterrupted

    cfg = options.load(config, overrides)
    if human is not None and human >= cfg.players:
        raise CliError(f"--human {human}: the game has seats 0-{cfg.players - 1}")
    compile_notice(entry="rules.apply_action")  # the façade, compiled as it plays
    policies: list[str] = list(cfg.seat_policies)
    labels = list(cfg.edition_spec.colors)
    seats: dict[int, str | Seat] = {}
    seed = cfg.seed if seed is None else seed

    def render(events: list[dict]) -> str:
        if trace_format == "jsonl":
            return to_jsonl(events)
        names = ([f"P{i} ({p})" for i, p in enumerate(policies)]
                 if len(set(policies)) > 1 else None)
        dark = cfg.edition_spec.dark_colors
        return to_text(events, seat_names=names, color_labels=labels,
                       dark_labels=None if dark is None else list(dark))

    def save(events: list[dict]) -> str:
        """Write the trace where it goes; with --human, the path it went to."""
        if human is None or out is not None:
            _write_trace(out, render(events))
            return str(out)
        ext = "jsonl" if trace_format == "jsonl" else "txt"
        return _write_fresh(f"play-{_slug(cfg.name)}-seed{seed}-game{game}", ext, render(events))

    played: list[dict] = []  # the game so far, kept if it is interrupted
    try:
        cc, named = compile_with_plugins(cfg)
        seats.update(named)
        if human is not None:
            cc = _may_bluff(cc, human)
            policies[human] = "you"
            ed = cfg.edition_spec
            # UNO Flip's dark tokens P1..P9 read as seat names P1..P9: call seats "seat N"
            word = "seat " if cc.kinds.two_sided else "P"
            player = HumanPolicy([f"{word}{i} ({p})" for i, p in enumerate(policies)], labels,
                                 Painter(color_wanted(sys.stdout), labels, cc.kinds,
                                         ed.dark_colors),
                                 ed.special, ed.wd4_wilds_block, cfg.house_rules,
                                 card_kinds(ed))
            me = Seat("human", player)
            seats[human] = me
        with foreground() as fg:  # off the main thread: Ctrl-C lands while seats think
            events = fg.call(play_game, cc, seed, game, plugins=seats, sink=played)
    except (PluginError, PluginActionError) as exc:
        raise CliError(exc) from None
    except KeyboardInterrupt:
        so_far = list(played)  # the game thread may still add to it
        if so_far and (out is not None or human is not None):
            if human is not None:
                click.echo("")  # ends the prompt's line
            where = save(so_far)
            raise RunInterrupted(f"interrupted: the {len(so_far)} events played so far "
                                 f"are written to {where}") from None
        raise
    if human is None:
        _write_trace(out, render(events))
        return
    seen = list(me.log.events)  # masked; a match's last score events follow
    player.show_news(seen + events[len(seen):])
    where = save(events)
    click.echo(f"-- game over: {_result(events, player.names, human)}")
    click.echo(f"   the trace is in {where}" + (
        f"; replay it with: unosim view {where}" if trace_format == "jsonl"
        else " (--trace-format jsonl writes one `unosim view` can replay)"))


# A human seat's declared WD4 bluff rate: it makes the bluff a legal choice for the
# seat (docs/rules.md §3: only where the policy bluffs), and the `strategic` bots
# judge the seat's WD4s by it (`wd4_illegal_chance`: a seat declaring 0 is never
# challenged). 1: the seat may bluff whenever it holds the active color.
HUMAN_BLUFF_RATE = 1.0


def _may_bluff(cc: CompiledConfig, seat: int) -> CompiledConfig:
    """``cc`` with ``seat`` allowed to bluff a WD4 (a copy: compiled arrays are shared)."""
    import dataclasses

    from unosim.engine.kernel.state import P_BLUFF

    pp = cc.pp.copy()
    pp[seat, P_BLUFF] = HUMAN_BLUFF_RATE
    return dataclasses.replace(cc, pp=pp)


def _result(events: list[dict], names: list[str], human: int) -> str:
    """Who won the game, from its last ``end`` or ``match_end`` event."""
    last = next((e for e in reversed(events) if e["e"] in ("end", "match_end")), None)
    w = None if last is None else last["winner"]
    if w is None:
        return ("the match is unfinished" if last is not None and last["e"] == "match_end"
                else "a stalemate, nobody went out")
    won = w if isinstance(w, list) else [w]
    if human in won:
        return "you win" + (" (with your partner)" if len(won) > 1 else "")
    return " & ".join(names[x] for x in won) + (" wins" if len(won) == 1 else " win")


def _slug(name: str) -> str:
    """A config name as a safe piece of a file name."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._")[:40] or "game"


def _write_fresh(stem: str, ext: str, text: str) -> str:
    """Write ``text`` to a file that did not exist, ``STEM.EXT`` or ``STEM-N.EXT``,
    in the current directory (or, if that cannot be written, the temp directory);
    its path. Creating it exclusively never overwrites an earlier game's trace."""
    folders = [".", tempfile.gettempdir()]
    for folder in folders:
        for n in range(1, 1000):
            path = os.path.join(folder, f"{stem}.{ext}" if n == 1 else f"{stem}-{n}.{ext}")
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            except FileExistsError:
                continue
            except OSError:
                break  # not writable: the next folder
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(text.encode("utf-8"))
            except OSError as exc:
                os.unlink(path)
                raise CliError(f"{path}: {exc.strerror or exc}") from None
            return path[2:] if folder == "." else path
    raise CliError(f"cannot create a trace file in {' or '.join(folders)}; give --out FILE")


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
