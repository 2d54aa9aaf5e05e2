"""Card kinds, tokens, points: the one place that knows card tokens.

The engine never sees card objects: a card is its *kind*, an integer. Two
physical copies of the same card are indistinguishable in play, so hands are
count vectors over kinds and piles are arrays of kinds.

Each edition numbers its own kinds from its ``cards:`` list (`KindTable`):
the colored kinds first, color-major (``color * ncolored + i``, ``i`` the
colored token's place in the list), then the wild kinds in list order. The
kernel reads each kind's attributes from tables built here (color, match
symbol, number face value), never from kind arithmetic.

The classic layout (`CLASSIC`) is what the shipped editions give:

    kind = color * 13 + rank   for colored cards (color 0..3 = R Y G B,
                               rank 0..9 numbers, 10 Skip, 11 Reverse, 12 Draw Two)
    52 = W, 53 = WD4, 54 = WX (the seed editions' special wild)

The predicates and ``kind``/``token`` below speak that layout; the Python
side (tests, the older ``deck:`` form) uses them for the seed editions.

>>> token(kind("YD2"))
'YD2'
>>> kind("W"), kind("WD4"), kind("WX")
(52, 53, 54)
>>> [token(k) for k in STACKABLE]
['RD2', 'YD2', 'GD2', 'BD2', 'WD4']
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

NRANKS = 13
NK = 55  # number of card kinds
SKIP, REVERSE, DRAW2 = 10, 11, 12  # action ranks
W, WD4, WX = 52, 53, 54
NWILD = NK - W  # wild kinds: W and up
COLORS = "RYGB"
# UNO Flip's dark side (docs/rules.md section 11): the kernel's colors 0..3 again,
# written with their own letters (pink, teal, orange, purple, by place)
DARK_COLORS = "PTOU"
RANK_TOKENS = [str(i) for i in range(10)] + ["S", "R", "D2"]
WILD_TOKENS = {W: "W", WD4: "WD4", WX: "WX"}
# What the draw cards cost (docs/rules.md §3): the next player draws two for a
# Draw Two and four for a Wild Draw Four. A challenged WD4 that was illegal costs
# its player the four; a legal one costs the challenger the four and two more.
DRAW_TWO_DRAW = 2
WD4_DRAW = 4
BLUFF_CAUGHT_DRAW = WD4_DRAW
CHALLENGE_LOST_EXTRA = 2  # a wrong challenger draws the card's draw and two more
CHALLENGE_LOST_DRAW = WD4_DRAW + CHALLENGE_LOST_EXTRA
# The editions' special wilds (docs/rules.md §4): a failed Movie Madness makes its
# target draw four; a silenced player who talks (Don't Talk) draws three.
MOVIE_MADNESS_DRAW = 4
DONT_TALK_SLIP_DRAW = 3


class CardError(ValueError):
    """A card token that names no card."""


def card(color: int, rank: int) -> int:
    """The kind of the colored card ``rank`` of ``color``.

    >>> token(card(2, 7)), token(card(3, SKIP))
    ('G7', 'BS')
    """
    return color * NRANKS + rank


def is_wild(k: int) -> bool:
    """W, WD4 and the special wild: no color, no rank of a colored card.

    >>> is_wild(kind("W")), is_wild(kind("WX")), is_wild(kind("B9"))
    (True, True, False)
    """
    return k >= W


def color_of(k: int) -> int:
    """Color 0..3 of a colored kind, -1 for wilds (which never equal a color).

    >>> color_of(kind("G5")), color_of(kind("WD4"))
    (2, -1)
    """
    return -1 if k >= W else k // NRANKS


def suit_of(k: int) -> int:
    """Color 0..3 of a colored kind, 4 for every wild (a hand's count columns).

    >>> suit_of(kind("B2")), suit_of(kind("W")), suit_of(kind("WX"))
    (3, 4, 4)
    """
    return k // NRANKS


def rank_of(k: int) -> int:
    """Rank 0..12 of a colored kind; 13, 14, 15 for W, WD4, WX.

    Every kind has a rank of its own, so a rank comparison needs no wild check.

    >>> rank_of(kind("Y7")), rank_of(kind("BD2")) == DRAW2, rank_of(kind("WD4"))
    (7, True, 14)
    """
    return k % NRANKS if k < W else NRANKS + (k - W)


def is_number(k: int) -> bool:
    """A colored number card 0-9.

    >>> is_number(kind("R0")), is_number(kind("RS")), is_number(kind("W"))
    (True, False, False)
    """
    return k < W and k % NRANKS < SKIP


def is_action(k: int) -> bool:
    """A colored Skip, Reverse or Draw Two (wilds are not action cards here).

    >>> is_action(kind("YR")), is_action(kind("Y9")), is_action(kind("WD4"))
    (True, False, False)
    """
    return k < W and k % NRANKS >= SKIP


def is_skip(k: int) -> bool:
    """A colored Skip.

    >>> is_skip(kind("GS")), is_skip(kind("G5"))
    (True, False)
    """
    return k < W and k % NRANKS == SKIP


def is_reverse(k: int) -> bool:
    """A colored Reverse.

    >>> is_reverse(kind("BR")), is_reverse(kind("BS"))
    (True, False)
    """
    return k < W and k % NRANKS == REVERSE


def is_draw_two(k: int) -> bool:
    """A colored Draw Two (a Wild Draw Four is not one).

    >>> is_draw_two(kind("RD2")), is_draw_two(kind("WD4"))
    (True, False)
    """
    return k < W and k % NRANKS == DRAW2


def same_rank(a: int, b: int) -> bool:
    """Two colored cards of one rank or symbol (a wild matches no rank).

    >>> same_rank(kind("R7"), kind("B7")), same_rank(kind("W"), kind("W"))
    (True, False)
    """
    return a < W and b < W and a % NRANKS == b % NRANKS


# The kinds that can ever go onto a pending draw (stacking), in kind order.
STACKABLE = tuple(k for k in range(NK) if is_draw_two(k)) + (WD4,)


def token(k: int) -> str:
    """The token (docs/rules.md §1) of kind ``k``."""
    k = int(k)
    if k in WILD_TOKENS:
        return WILD_TOKENS[k]
    if not 0 <= k < W:
        raise CardError(f"no card kind {k}")
    return COLORS[color_of(k)] + RANK_TOKENS[rank_of(k)]


_BY_TOKEN = {token(k): k for k in range(NK)}


def kind(tok: str) -> int:
    """The kind of a card token such as ``R7``, ``GS``, ``BR``, ``YD2``, ``WD4``."""
    try:
        return _BY_TOKEN[tok.strip().upper()]
    except (KeyError, AttributeError):
        raise CardError(f"unknown card token {tok!r}") from None


def default_points(k: int, special_points: int = 50) -> int:
    """Points of a card left in hand: face value, 20 for actions, 50 for wilds.

    >>> default_points(kind("G8")), default_points(kind("GS")), default_points(kind("WX"), 40)
    (8, 20, 40)
    """
    if is_wild(k):
        return special_points if k == WX else 50
    return rank_of(k) if is_number(k) else 20


# --- an edition's kinds -------------------------------------------------------------
WILD_PREFIX = "W"  # a wild kind's token starts with it; a colored kind's never does
MAX_TOKEN_LENGTH = 5


def token_error(tok: str) -> str | None:
    """Why ``tok`` cannot name a card kind in an edition file (None: it can).

    A colored kind's token is short (digits and capitals, e.g. ``7``, ``D2``,
    ``SE``) and never starts with ``W``; a wild kind's starts with ``W``.

    >>> token_error("SE"), token_error("WD10")
    (None, None)
    >>> token_error("s e")
    "card tokens are 1-5 digits or capital letters, not 's e'"
    """
    if not (1 <= len(tok) <= MAX_TOKEN_LENGTH and tok.isascii() and tok.isalnum()
            and tok == tok.upper()):
        return f"card tokens are 1-{MAX_TOKEN_LENGTH} digits or capital letters, not {tok!r}"
    return None


def is_wild_token(tok: str) -> bool:
    """A wild kind's token (``W``, ``WD4``, ``WD10``...): black, no color."""
    return tok.startswith(WILD_PREFIX)


def face_value(tok: str) -> int:
    """A colored token's number face value (``"7"``: 7), -1 for any other token."""
    return int(tok) if len(tok) == 1 and tok.isdigit() else -1


@dataclass(frozen=True, eq=False)
class KindTable:
    """An edition's card kinds: their ids, tokens and the attributes the kernel reads.

    ``colored`` are the colored tokens and ``wild`` the wild ones, each in the
    order the edition lists them. Colored kinds come first, color-major, so
    one color's kinds are one block of ``ncolored`` ids. A two-sided (Flip)
    edition adds its dark side's kinds: ``dark_colored`` after the light ones
    in each color's block (their color letters are `DARK_COLORS`), and
    ``dark_wild`` after the light wilds.

    >>> t = KindTable(("7", "SE"), ("W", "WD10"))
    >>> t.tokens
    ('R7', 'RSE', 'Y7', 'YSE', 'G7', 'GSE', 'B7', 'BSE', 'W', 'WD10')
    >>> t.kind("gse"), t.slots("SE"), t.slots("WD10")
    (5, [1, 3, 5, 7], [9])
    >>> t.color.tolist(), t.face.tolist()[:3], t.sym.tolist()[-2:]
    ([0, 0, 1, 1, 2, 2, 3, 3, -1, -1], [7, -1, 7], [2, 3])
    >>> f = KindTable(("1", "F"), ("W",), ("1", "SE"), ("WK",))
    >>> f.tokens[:4], f.tokens[-2:], f.slots("SE", dark=True), f.side.tolist()[:4]
    (('R1', 'RF', 'P1', 'PSE'), ('W', 'WK'), [3, 7, 11, 15], [0, 0, 1, 1])
    """

    colored: tuple[str, ...]
    wild: tuple[str, ...]
    dark_colored: tuple[str, ...] = ()
    dark_wild: tuple[str, ...] = ()

    @property
    def two_sided(self) -> bool:
        """A Flip edition: its cards have a dark face too."""
        return bool(self.dark_colored or self.dark_wild)

    @property
    def ncolored(self) -> int:
        """Colored kinds per color (both sides)."""
        return len(self.colored) + len(self.dark_colored)

    @property
    def wild_base(self) -> int:
        """The first wild kind's id."""
        return len(COLORS) * self.ncolored

    @property
    def nk(self) -> int:
        """How many kinds the edition has."""
        return self.wild_base + len(self.wild) + len(self.dark_wild)

    @functools.cached_property
    def tokens(self) -> tuple[str, ...]:
        """Each kind's token: color letter + token for colored kinds, the token for wilds."""
        return (*(t for c in range(len(COLORS))
                  for t in (*(COLORS[c] + x for x in self.colored),
                            *(DARK_COLORS[c] + x for x in self.dark_colored))),
                *self.wild, *self.dark_wild)

    @functools.cached_property
    def _ids(self) -> dict[str, int]:
        return {t: k for k, t in enumerate(self.tokens)}

    def kind(self, tok: str) -> int:
        """The kind of a card token of this edition (``R7``, ``YD2``, ``WD4``)."""
        try:
            return self._ids[tok.strip().upper()]
        except (KeyError, AttributeError):
            raise CardError(f"unknown card token {tok!r}") from None

    def token(self, k: int) -> str:
        """The token of kind ``k``."""
        k = int(k)
        if not 0 <= k < self.nk:
            raise CardError(f"no card kind {k}")
        return self.tokens[k]

    def slots(self, tok: str, dark: bool = False) -> list[int]:
        """The kinds an edition file's token fills: one per color, or the one wild."""
        wild, colored = ((self.dark_wild, self.dark_colored) if dark
                         else (self.wild, self.colored))
        if tok in wild:
            return [self.wild_base + (len(self.wild) if dark else 0) + wild.index(tok)]
        i = colored.index(tok) + (len(self.colored) if dark else 0)
        return [c * self.ncolored + i for c in range(len(COLORS))]

    @functools.cached_property
    def _colored_all(self) -> tuple[str, ...]:
        return (*self.colored, *self.dark_colored)

    @functools.cached_property
    def side(self) -> np.ndarray:
        """Each kind's side: 0 light (every kind of a one-sided edition), 1 dark (int64[nk])."""
        nl = len(self.colored)
        return np.array([int(k % self.ncolored >= nl) if k < self.wild_base
                         else int(k - self.wild_base >= len(self.wild))
                         for k in range(self.nk)], dtype=np.int64)

    @functools.cached_property
    def color(self) -> np.ndarray:
        """Each kind's color 0..3, -1 for wilds (int64[nk])."""
        return np.array([k // self.ncolored if k < self.wild_base else -1
                         for k in range(self.nk)], dtype=np.int64)

    @functools.cached_property
    def sym(self) -> np.ndarray:
        """Each kind's match symbol: two colored kinds match across colors when
        theirs are equal (the token's place); wilds get symbols of their own."""
        return np.array([k % self.ncolored if k < self.wild_base
                         else self.ncolored + k - self.wild_base
                         for k in range(self.nk)], dtype=np.int64)

    @functools.cached_property
    def face(self) -> np.ndarray:
        """Each kind's number face value, -1 for every other kind (int64[nk])."""
        return np.array([face_value(self._colored_all[k % self.ncolored]) if k < self.wild_base
                         else -1 for k in range(self.nk)], dtype=np.int64)

    def color_letter(self, c: int, side: int = 0) -> str:
        """Color ``c``'s letter on ``side`` (``R``; ``P`` on the dark side)."""
        return (DARK_COLORS if side else COLORS)[c]


# The classic layout: what the seed editions' kinds number to (the module's predicates).
CLASSIC = KindTable(tuple(RANK_TOKENS), tuple(WILD_TOKENS[k] for k in sorted(WILD_TOKENS)))
assert CLASSIC.tokens == tuple(token(k) for k in range(NK))
