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
import textwrap
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol

import click

from unosim.rules.cards import CLASSIC, COLORS, DARK_COLORS, KindTable, face_value
from unosim.rules.editions import STANDARD_EFFECTS, WILD_DRAW_CONDITION, CardKind

if TYPE_CHECKING:
    from unosim.rules.editions import Special
    from unosim.rules.models import HouseRules

DEFAULT_LABELS = ("red", "yellow", "green", "blue")
DEFAULT_DARK_LABELS = ("pink", "teal", "orange", "purple")  # UNO Flip's dark side
# terminal colors for the labels the shipped editions use; any other label takes
# the color of its position (R red, Y yellow, G green, B blue)
_STYLE = {"red": "red", "yellow": "yellow", "green": "green", "blue": "blue",
          "pink": "bright_magenta", "gold": "yellow", "purple": "magenta",
          "orange": "bright_red", "teal": "cyan"}


def token_pattern(kinds: KindTable = CLASSIC) -> re.Pattern[str]:
    """A card token of ``kinds`` standing alone (not ``P0``, not part of a word); longer
    tokens first, so ``WD10`` is one token and not ``W`` then text.

    >>> from unosim.rules.cards import KindTable
    >>> token_pattern(KindTable(("7", "SE"), ("W", "WD10"))).findall("RSE, WD10 W R7 P0")
    ['RSE', 'WD10', 'W', 'R7']
    """
    alts = sorted(kinds.tokens, key=lambda t: (-len(t), t))
    return re.compile(r"(?<![\w?])(?:" + "|".join(map(re.escape, alts)) + r")(?![\w])")


_TOKEN = token_pattern()

# what each kind of token means (docs/rules.md §1 and §3): the classic cards' lines,
# kept word for word for every edition that has them with their classic effects; any
# other kind gets a line made from its effects (`card_line`), the special wild its
# own from `SPECIAL_EFFECT`
_HEAD = "card tokens: a color letter, then what the card is ({letters})\n"
_NUMBERS = "  {span:<5} a number card: {c}{n} is {r} {n}; it plays on {r} or on any {n}\n"
# UNO Flip (docs/rules.md section 11): each card has a light and a dark face
_FLIP_HEAD = ("UNO Flip: every card has a light face and a dark face; the side in play is the\n"
              "  one you play and match, and you see the other face of the other hands' cards\n"
              "  and of the draw pile's top card\n")
_DARK_HEAD = "dark side (after a Flip card turns everything over; {letters}):\n"
_CLASSIC_LINES = {
    "S": "  S     Skip (GS): the next player loses their turn\n",
    "R": "  R     Reverse (BR): play changes direction (RR is the {r} Reverse)\n",
    "D2": "  D2    Draw Two (YD2): the next player draws 2 and loses their turn\n",
    "W": "  W     Wild: plays on anything; you name the color\n",
    "WD4": "  WD4   Wild Draw Four: name the color; the next player draws 4 and loses their "
           "turn,\n        or challenges. Legal only without a card of the active color"
           "{block};\n        played anyway it is a bluff: a challenge catches it and you "
           "draw 4 instead\n",
}
_CLASSIC_NAMES = {"S": "Skip", "R": "Reverse", "D2": "Draw Two", "W": "Wild",
                  "WD4": "Wild Draw Four"}
_ANSWERS = """\
answers: the number of a choice, or its name: a card (R7, play R7), draw,
  pass (keep the card you drew), color G (or G), accept (take the pending draw),
  challenge (the WD4 you face: a bluff makes its player draw 4, a legal one makes
  you draw 6), target 2 (a seat); ? shows this legend
"""
# the answers of an edition whose challengeable cards are other wild draws (UNO Flip)
_ANSWERS_DRAWS = """\
answers: the number of a choice, or its name: a card (R7, play R7), draw,
  pass (keep the card you drew), color G (or G; on the dark side color P),
  accept (take the pending draw), challenge (the wild draw card you face: a bluff
  makes its player take the draw, a legal one makes you take it and 2 more),
  target 2 (a seat); ? shows this legend
"""
# the answers where no card can be challenged (no challengeable kind, or challenges off)
_ANSWERS_NO_CHALLENGE = """\
answers: the number of a choice, or its name: a card (R7, play R7), draw,
  pass (keep the card you drew), color G (or G), accept (take the pending draw),
  target 2 (a seat); ? shows this legend
"""
_BLOCK = "\n        (in this edition, nor a W or WX)"
_BLOCK_WORDS = " (in this edition, nor a W or WX)"

# what each effect of the vocabulary does, in words (docs/rules.md §11); ``{n}`` is
# a draw's amount
EFFECT_WORDS = {
    "draw": "the next player draws {n} and loses their turn",
    # the victim names the color (Wild Color Roulette, docs/rules.md §11)
    "draw_until_color": "the next player names a color, draws until a card of it comes, "
                        "keeps them all and loses their turn",
    # (UNO Flip's Wild Draw Color, ``names_color: player``: its player names it)
    "skip": "the next player loses their turn",
    "skip_all": "every other player loses their turn: you play again",
    "reverse": "play changes direction",
    "discard_color": "you also discard every card of its color from your hand",
    "swap_hands": "you swap hands with a seat you pick",
    "rotate_hands": "every hand passes on in the direction of play",
    "flip": "the whole deck turns over to its other side",
}

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

    def __init__(self, on: bool, labels: Sequence[str] | None = None,
                 kinds: KindTable | None = None,
                 dark_labels: Sequence[str] | None = None) -> None:
        self.on = on
        # the edition's tokens (``RSE``, ``WD10``) are painted in running text too
        self._token = _TOKEN if kinds is None or kinds is CLASSIC else token_pattern(kinds)
        self.labels = list(labels or DEFAULT_LABELS)
        # UNO Flip's dark side: its colors' labels (P T O U)
        self.dark_labels = list(dark_labels or DEFAULT_DARK_LABELS)
        self._fg = [_STYLE.get(lab.strip().lower(), DEFAULT_LABELS[i])
                    for i, lab in enumerate(self.labels)]
        self._dark_fg = [_STYLE.get(lab.strip().lower(), _STYLE[DEFAULT_DARK_LABELS[i]])
                         for i, lab in enumerate(self.dark_labels)]

    def _style(self, text: str, letter: str) -> str:
        if not self.on:
            return text
        if letter in COLORS:
            return click.style(text, fg=self._fg[COLORS.index(letter)])
        if letter in DARK_COLORS:
            return click.style(text, fg=self._dark_fg[DARK_COLORS.index(letter)])
        return click.style(text, bold=True)  # a wild

    def card(self, tok: str) -> str:
        """One card token (``?`` for a hidden card stays plain; a UNO Flip card
        ``"light/dark"`` has each face painted)."""
        if "/" in tok:
            return "/".join(self.card(f) for f in tok.split("/"))
        return self._style(tok, tok[:1]) if tok and tok != "?" else tok

    def cards(self, toks: Sequence[str]) -> str:
        return " ".join(self.card(t) for t in toks) or "-"

    def text(self, text: str) -> str:
        """Every card token standing alone in ``text``, painted."""
        return self._token.sub(lambda m: self.card(m.group(0)), text) if self.on else text

    def color(self, letter: str) -> str:
        """A color letter with its label: ``G (green)``; UNO Flip's dark side: ``T (teal)``."""
        label = (self.labels[COLORS.index(letter)] if letter in COLORS else
                 self.dark_labels[DARK_COLORS.index(letter)] if letter in DARK_COLORS else "?")
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


def _classic(c: CardKind) -> bool:
    """``c`` is a classic card as classic has it: the classic legend line says it."""
    if c.token not in _CLASSIC_LINES or c.name not in (None, _CLASSIC_NAMES[c.token]):
        return False
    wd4 = c.token == "WD4"
    return (c.effects == STANDARD_EFFECTS[c.token] and c.challengeable is wd4
            and c.condition == (WILD_DRAW_CONDITION if wd4 else None))


def card_line(c: CardKind, example: str = "R", wilds_block: bool = False) -> str:
    """The legend line of a card kind the classic lines do not cover, from its name and
    effects (``example``: the color letter its example token shows).

    >>> from unosim.rules.editions import CardKind
    >>> print(card_line(CardKind(token="SE", name="Skip Everyone", count=2, points=30,
    ...                          effects=["match", "skip_all"]), "G"), end="")
      SE    Skip Everyone (GSE): every other player loses their turn: you play again
    """
    words = [EFFECT_WORDS[name].format(n=n) for name, n in c.parsed
             if name in EFFECT_WORDS]
    if c.wild:
        text = f"{c.name}: a wild; " if c.name else "a wild; "
        by_player = c.names_color == "player"  # UNO Flip's Wild Draw Color
        if by_player:
            words = [w.replace("names a color, draws until a card of it comes",
                               "draws until a card of that color comes") for w in words]
        namer = [] if "draw_until_color" in c.effects and not by_player else [
            "you name the color"]
        text += "; ".join([*namer, *words])
    else:
        text = f"{c.name} ({example}{c.token}): " if c.name else f"({example}{c.token}): "
        text += "; ".join(words) or f"plays on its color or on any {c.token}"
    if c.condition is not None:
        text += (". Legal only without a card of the active color"
                 + (_BLOCK_WORDS if wilds_block else ""))
        if c.challengeable:
            cost = f"draw {c.draw}" if c.draw else "take its draw"
            text += f"; played anyway it is a bluff: a challenge catches it and you {cost} instead"
    return textwrap.fill(text, 88, initial_indent=f"  {c.token:<5} ",
                         subsequent_indent=" " * 8) + "\n"


def _number_span(faces: list[int]) -> str:
    """``0-9`` for a run of face values, else the values listed: ``1,3,5``."""
    if faces == list(range(faces[0], faces[-1] + 1)):
        return f"{faces[0]}-{faces[-1]}" if len(faces) > 1 else str(faces[0])
    return ",".join(map(str, faces))


def card_lines(painter: Painter, cards: Sequence[CardKind] | None,
               wilds_block: bool = False, dark: bool = False) -> str:
    """One line per card kind of an edition (None: the classic cards), numbers on one;
    a special wild (WX) is left to its own line. ``dark``: the kinds are UNO Flip's
    dark faces (their examples in the dark colors, no classic wording)."""
    letters, labels = (DARK_COLORS, painter.dark_labels) if dark else (COLORS, painter.labels)
    r = labels[0]
    block = _BLOCK if wilds_block else ""
    if cards is None:
        return (_NUMBERS.format(span="0-9", n=7, r=r, c="R")
                + "".join(line.format(r=r, block=block) for line in _CLASSIC_LINES.values()))
    numbers = sorted(face_value(c.token) for c in cards
                     if face_value(c.token) >= 0 and c.effects == ["match"])
    out = ""
    if numbers:
        n = 7 if 7 in numbers else numbers[-1]
        out = _NUMBERS.format(span=_number_span(numbers), n=n, r=r, c=letters[0])
    shown = 0
    for c in cards:
        if c.special is not None or (c.effects == ["match"] and face_value(c.token) >= 0):
            continue
        if _classic(c) and not dark:
            out += _CLASSIC_LINES[c.token].format(r=r, block=block)
        else:
            out += card_line(c, letters[shown % len(letters)], wilds_block)
            shown += 1
    return out


def legend(painter: Painter, special: Special | None = None, wilds_block: bool = False,
           house: HouseRules | None = None, cards: Sequence[CardKind] | None = None) -> str:
    """What every token and answer means; ``special`` is the edition's special wild
    (`unosim.rules.editions.Special`) or None, ``house`` the config's house rules,
    ``cards`` the edition's card kinds (`unosim.rules.editions.card_kinds`; None: the
    classic ones)."""
    letters = ", ".join(f"{c} {lab}" for c, lab in zip(COLORS, painter.labels, strict=True))
    line = ""
    if special is not None:
        effect = SPECIAL_EFFECT.get(special.kind, "see docs/rules.md §4")
        line = f"  WX    {special.name}: a wild;\n        {effect}\n"
    challenge = (house is None or house.challenge) and (
        cards is None or any(c.challengeable for c in cards))
    dark = [c for c in cards or () if c.side == "dark"]
    answers = (_ANSWERS_NO_CHALLENGE if not challenge else _ANSWERS if not dark
               else _ANSWERS_DRAWS)
    if dark:  # UNO Flip: each side's kinds under its own heading
        light = [c for c in cards or () if c.side != "dark"]
        dark_letters = ", ".join(f"{c} {lab}" for c, lab in zip(DARK_COLORS, painter.dark_labels,
                                                               strict=True))
        text = (_HEAD.format(letters=letters) + _FLIP_HEAD
                + "light side:\n" + card_lines(painter, light, wilds_block)
                + _DARK_HEAD.format(letters=dark_letters)
                + card_lines(painter, dark, wilds_block, dark=True) + line + answers)
    else:
        text = (_HEAD.format(letters=letters) + card_lines(painter, cards, wilds_block)
                + line + answers)
    rules = house_lines(house)
    if rules:
        text += "house rules:\n" + "".join(f"  {x}\n" for x in rules)
    return text


class FlipSeen(NamedTuple):
    """What a seat sees under UNO Flip beyond a one-sided game (docs/rules.md §11)."""

    side: str  # the side in play
    backs: Sequence[tuple[str, Sequence[str]]]  # each other seat's cards' other faces
    draw_back: str | None  # the other face of the draw pile's top card


def table_lines(painter: Painter, *, hand: Sequence[str], top: str, color: str,
                direction: int, sizes: Sequence[tuple[str, int]], draw_size: int,
                pending: int, flip: FlipSeen | None = None) -> list[str]:
    """The position a decision is taken in: top card, color, direction, pending draw,
    the hand, every hand's size and the draw pile; under UNO Flip (``flip``) the side
    in play and the backs the seat sees."""
    lines = [
        f"top {painter.card(top)}, color {painter.color(color)}"
        + (f", {flip.side} side" if flip else "") + f", direction {direction:+d}"
        + (f", pending draw {pending}" if pending else ""),
        f"hand: {painter.cards(hand)}",
        "cards: " + ", ".join(f"{name} {n}" for name, n in sizes) + f"; draw pile {draw_size}",
    ]
    if flip:
        other = "dark" if flip.side == "light" else "light"
        seen = [f"{name} {painter.cards(cards)}" for name, cards in flip.backs]
        if flip.draw_back is not None:
            seen.append(f"draw pile top {painter.card(flip.draw_back)}")
        if seen:
            lines.append(f"backs ({other} faces) you see: " + "; ".join(seen))
    return lines
