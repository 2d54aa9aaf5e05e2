"""Card kinds, tokens, points and the predicates every rule is written with.

The engine never sees card objects: a card is its *kind*, an integer 0..54.
Two physical copies of the same card are indistinguishable in play, so hands
are count vectors over kinds and piles are arrays of kinds.

    kind = color * 13 + rank   for colored cards (color 0..3 = R Y G B,
                               rank 0..9 numbers, 10 Skip, 11 Reverse, 12 Draw Two)
    52 = W, 53 = WD4, 54 = WX (the edition's special wild)

This module is the only place that knows that arithmetic: the predicates
below are plain Python (used as they are by the rules layer and tests) and
the engine compiles the very same functions (`unosim.engine.kinds`), so the
rules read ``is_draw_two(k)``, never ``k % 13 == 12``. Each predicate stands
alone (no calls between them), which is what lets numba compile it as is.

>>> token(kind("YD2"))
'YD2'
>>> kind("W"), kind("WD4"), kind("WX")
(52, 53, 54)
>>> [token(k) for k in STACKABLE]
['RD2', 'YD2', 'GD2', 'BD2', 'WD4']
"""

from __future__ import annotations

NRANKS = 13
NK = 55  # number of card kinds
SKIP, REVERSE, DRAW2 = 10, 11, 12  # action ranks
W, WD4, WX = 52, 53, 54
NWILD = NK - W  # wild kinds: W and up
COLORS = "RYGB"
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
