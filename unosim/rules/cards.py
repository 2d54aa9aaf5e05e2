"""Card kinds, tokens and points.

The engine never sees card objects: a card is its *kind*, an integer 0..54.
Two physical copies of the same card are indistinguishable in play, so hands
are count vectors over kinds and piles are arrays of kinds.

    kind = color * 13 + rank   for colored cards (color 0..3 = R Y G B,
                               rank 0..9 numbers, 10 Skip, 11 Reverse, 12 Draw Two)
    52 = W, 53 = WD4, 54 = WX (the edition's special wild)

>>> token(kind("YD2"))
'YD2'
>>> kind("W"), kind("WD4"), kind("WX")
(52, 53, 54)
"""

from __future__ import annotations

NCOLORS = 4
NRANKS = 13
NK = 55  # number of card kinds
SKIP, REVERSE, DRAW2 = 10, 11, 12
W, WD4, WX = 52, 53, 54
COLORS = "RYGB"
RANK_TOKENS = [str(i) for i in range(10)] + ["S", "R", "D2"]
WILD_TOKENS = {W: "W", WD4: "WD4", WX: "WX"}


class CardError(ValueError):
    """A card token that names no card."""


def token(k: int) -> str:
    """The RULES.md token of kind ``k``."""
    k = int(k)
    if k in WILD_TOKENS:
        return WILD_TOKENS[k]
    if not 0 <= k < 52:
        raise CardError(f"no card kind {k}")
    return COLORS[k // NRANKS] + RANK_TOKENS[k % NRANKS]


_BY_TOKEN = {token(k): k for k in range(NK)}


def kind(tok: str) -> int:
    """The kind of a card token such as ``R7``, ``GS``, ``BR``, ``YD2``, ``WD4``."""
    try:
        return _BY_TOKEN[tok.strip().upper()]
    except (KeyError, AttributeError):
        raise CardError(f"unknown card token {tok!r}") from None


def color_of(k: int) -> int:
    """Color 0..3 of a colored kind, -1 for wilds."""
    return -1 if k >= 52 else k // NRANKS


def rank_of(k: int) -> int:
    """Rank 0..12 of a colored kind; 13, 14, 15 for W, WD4, WX."""
    return k % NRANKS if k < 52 else 13 + (k - 52)


def default_points(k: int, special_points: int = 50) -> int:
    """Points of a card left in hand: face value, 20 for actions, 50 for wilds."""
    if k >= 52:
        return special_points if k == WX else 50
    r = k % NRANKS
    return r if r < 10 else 20
