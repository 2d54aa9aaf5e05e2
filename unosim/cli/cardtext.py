"""Cards as a person reads them at a terminal: tokens in their colors, a legend of
the tokens, and the table a decision is taken at (``play --human`` and ``advise``).

Color goes only to a terminal and never when ``NO_COLOR`` is set (no-color.org)
or ``TERM`` is ``dumb``, so a piped log or a test's capture stays plain text.

>>> p = Painter(on=False)
>>> p.text("plays R7, names green"), p.color("G")
('plays R7, names green', 'G (green)')
>>> Painter(on=True).card("R7") == "\\x1b[31mR7\\x1b[0m"
True
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

import click

from unosim.rules.cards import COLORS

if TYPE_CHECKING:
    from unosim.rules.editions import Special
    from unosim.rules.models import HouseRules

DEFAULT_LABELS = ("red", "yellow", "green", "blue")
# terminal colors for the labels the shipped editions use; any other label takes
# the color of its position (R red, Y yellow, G green, B blue)
_STYLE = {"red": "red", "yellow": "yellow", "green": "green", "blue": "blue",
          "pink": "bright_magenta", "gold": "yellow", "purple": "magenta",
          "orange": "bright_red", "teal": "cyan"}
# a card token standing alone (not ``P0``, not part of a word)
_TOKEN = re.compile(r"(?<![\w?])(?:[RYGB](?:D2|\d|S|R)|WD4|WX|W)(?![\w])")

# what each kind of token means (docs/rules.md §1 and §3); the special wild's own line
# is added per edition from `SPECIAL_EFFECT`
_LEGEND = """\
card tokens: a color letter, then what the card is ({letters})
  0-9   a number card: R7 is {r} 7; it plays on {r} or on any 7
  S     Skip (GS): the next player loses their turn
  R     Reverse (BR): play changes direction (RR is the {r} Reverse)
  D2    Draw Two (YD2): the next player draws 2 and loses their turn
  W     Wild: plays on anything; you name the color
  WD4   Wild Draw Four: name the color; the next player draws 4 and loses their turn,
        or challenges. Legal only without a card of the active color{block};
        played anyway it is a bluff: a challenge catches it and you draw 4 instead
{special}\
answers: the number of a choice, or its name: a card (R7, play R7), draw,
  pass (keep the card you drew), color G (or G), accept (take the pending draw),
  challenge (the WD4 you face: a bluff makes its player draw 4, a legal one makes
  you draw 6), target 2 (a seat); ? shows this legend
"""

# the special wild's effect, by edition special kind (docs/rules.md §4)
SPECIAL_EFFECT = {
    "movie_madness": "a seat you pick must name four characters or draw 4",
    "wishing_star": "every other player shows a card with the Wishing Icon or "
                    "draws until one comes",
    "dont_talk": "a seat you pick is silenced: each time it talks it draws 3, "
                 "until someone calls UNO",
}


class Stream(Protocol):
    """What `color_wanted` asks of a stream."""

    def isatty(self) -> bool: ...


def color_wanted(stream: Stream | None, env: Mapping[str, str] | None = None) -> bool:
    """Whether to write colors to ``stream``: a terminal, without ``NO_COLOR`` (any
    non-empty value) and not ``TERM=dumb``.

    >>> import io
    >>> color_wanted(io.StringIO(), {})
    False
    """
    env = os.environ if env is None else env
    if env.get("NO_COLOR") or env.get("TERM") == "dumb":
        return False
    if stream is None:
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):  # no stream, or a closed one
        return False


class Painter:
    """Card tokens and color letters, in their colors when ``on``."""

    def __init__(self, on: bool, labels: Sequence[str] | None = None) -> None:
        self.on = on
        self.labels = list(labels or DEFAULT_LABELS)
        self._fg = [_STYLE.get(lab.strip().lower(), DEFAULT_LABELS[i])
                    for i, lab in enumerate(self.labels)]

    def _style(self, text: str, letter: str) -> str:
        if not self.on:
            return text
        if letter in COLORS:
            return click.style(text, fg=self._fg[COLORS.index(letter)])
        return click.style(text, bold=True)  # a wild

    def card(self, tok: str) -> str:
        """One card token (``?`` for a hidden card stays plain)."""
        return self._style(tok, tok[:1]) if tok and tok != "?" else tok

    def cards(self, toks: Sequence[str]) -> str:
        return " ".join(self.card(t) for t in toks) or "-"

    def text(self, text: str) -> str:
        """Every card token standing alone in ``text``, painted."""
        return _TOKEN.sub(lambda m: self.card(m.group(0)), text) if self.on else text

    def color(self, letter: str) -> str:
        """A color letter with its label: ``G (green)``."""
        label = self.labels[COLORS.index(letter)] if letter in COLORS else "?"
        return self._style(f"{letter} ({label})", letter)


_STACKS = {"draw_two_on_draw_two": "D2 on D2", "wd4_on_wd4": "WD4 on WD4",
           "wd4_on_draw_two": "WD4 on D2", "draw_two_on_wd4": "D2 on WD4"}


def house_lines(house: HouseRules | None) -> list[str]:
    """One line per house rule in play (docs/rules.md §6); ``house`` is the config's
    `unosim.rules.models.HouseRules` or None."""
    if house is None:
        return []
    lines = []
    stacks = [label for key, label in _STACKS.items() if getattr(house.stacking, key)]
    if stacks:
        lines.append(f"stacking ({', '.join(stacks)}): pass a pending draw on with one")
    if house.jump_in:
        lines.append("jump-in: play a twin of the top card out of turn (not a wild)")
    if house.seven_o:
        lines.append("Seven-O: a 7 swaps hands with a seat you pick; a 0 passes all hands on")
    if house.draw_until_play:
        lines.append("draw until play: draw until a playable card comes, then play it")
    if house.two_player_reverse:
        lines.append("two-player Reverse: with two players a Reverse is a Skip")
    return lines


def legend(painter: Painter, special: Special | None = None, wilds_block: bool = False,
           house: HouseRules | None = None) -> str:
    """What every token and answer means; ``special`` is the edition's special wild
    (`unosim.rules.editions.Special`) or None, ``house`` the config's house rules."""
    letters = ", ".join(f"{c} {lab}" for c, lab in zip(COLORS, painter.labels, strict=True))
    line = ""
    if special is not None:
        effect = SPECIAL_EFFECT.get(special.kind, "see docs/rules.md §4")
        line = f"  WX    {special.name}: a wild;\n        {effect}\n"
    text = _LEGEND.format(letters=letters, r=painter.labels[0], special=line,
                          block="\n        (in this edition, nor a W or WX)" if wilds_block else "")
    rules = house_lines(house)
    if rules:
        text += "house rules:\n" + "".join(f"  {x}\n" for x in rules)
    return text


def table_lines(painter: Painter, *, hand: Sequence[str], top: str, color: str,
                direction: int, sizes: Sequence[tuple[str, int]], draw_size: int,
                pending: int) -> list[str]:
    """The position a decision is taken in: top card, color, direction, pending draw,
    the hand, every hand's size and the draw pile."""
    return [
        f"top {painter.card(top)}, color {painter.color(color)}, direction {direction:+d}"
        + (f", pending draw {pending}" if pending else ""),
        f"hand: {painter.cards(hand)}",
        "cards: " + ", ".join(f"{name} {n}" for name, n in sizes) + f"; draw pile {draw_size}",
    ]
