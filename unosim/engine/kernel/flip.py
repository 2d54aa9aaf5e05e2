"""UNO Flip's two-faced cards (docs/rules.md section 11), compiled only for them.

A two-sided deck's piles hold physical cards (ids ``0..C_DECK_SIZE-1``), not
kinds: the game's face table ``S.fl[side, card]`` says which kind each card
shows on each side, and ``S.hp[q, card]`` which cards seat ``q`` holds. Hands
keep their counts per kind of the side in play, so legality, the policies and
scoring read them as for any edition; a Flip card turns every count over
through the face table (`turn_over`).

Every function here is `optional` on the state's ``FLIP`` marker: a one-sided
deck's state compiles the stub beside each (a pile value *is* the kind, a card
code is the kind), so the classic loop is the code it was.

The light faces are dealt to the physical cards in kind order; the dark faces
are paired with them by a uniformly random bijection drawn from the game's
stream once per game (the pairing of a real deck is not published).
"""

from __future__ import annotations

import numpy as np

from unosim.engine.kernel.jit import flag, optional
from unosim.engine.kernel.rng import below, xoshiro
from unosim.engine.kernel.state import (
    C_DECK_SIZE,
    C_NK,
    C_PLAYERS,
    FLIP,
    H_SIZE,
    H_SUIT,
    NCOLORS,
    PH_DRAWN,
    S_FK_LIGHT,
    S_HELD,
    S_NDRAW,
    S_PHASE,
    S_PID,
    S_ROUND,
    S_SIDE,
    S_TICK,
    Config,
    State,
)
from unosim.rules.limits import MAX_KINDS

# ``if flip_on(S):`` compiles away for a one-sided deck's state.
flip_on = flag(FLIP)


def _kind(S: State, v: int) -> int:
    return v


@optional(FLIP, _kind)
def face_of(S: State, v: int) -> int:
    """The kind a pile value shows: the card's face on the side in play."""
    return S.fl[S.s[S_SIDE], v]


def _code(S: State, v: int) -> int:
    return v


@optional(FLIP, _code)
def card_code(S: State, v: int) -> int:
    """A pile value as the trace writes it: the kind, or for a physical card both its
    faces (``light + MAX_KINDS * (1 + dark)``, always ``>= MAX_KINDS``)."""
    return S.fl[0, v] + MAX_KINDS * (1 + S.fl[1, v])


def _color(S: State, c: int) -> int:
    return c


@optional(FLIP, _color)
def color_code(S: State, c: int) -> int:
    """A color as events write it: on the dark side ``NCOLORS`` + the color."""
    return c + NCOLORS * S.s[S_SIDE] if c >= 0 else c


def _no_hold(S: State, q: int, v: int) -> None:
    return None


@optional(FLIP, _no_hold)
def hold(S: State, q: int, v: int) -> None:
    """Physical card ``v`` goes into ``q``'s hand (its kind counted by the caller)."""
    S.hp[q, v] = 1
    S.fo[v] = q
    S.s[S_HELD] = v
    S.ft[v] = S.s[S_TICK]
    S.s[S_TICK] += 1


def _as_kind(S: State, C: Config, q: int, k: int) -> int:
    return k


@optional(FLIP, _as_kind)
def pick(S: State, C: Config, q: int, k: int) -> int:
    """Which of ``q``'s cards showing ``k`` a play of ``k`` takes: the card just drawn
    when it shows ``k`` in phase ``drawn`` (the rules let only that card be played), else
    the one that came into the hand first. A seat sees only the faces in play of its
    own cards, so it cannot choose by their backs; the order cards arrive in is the
    deck's shuffle, which says nothing of their backs (the lowest card id would: ids
    follow the light faces, docs/DECISIONS.md)."""
    side, fl, hp, ft = S.s[S_SIDE], S.fl, S.hp, S.ft
    v = S.s[S_HELD]
    if S.s[S_PHASE] == PH_DRAWN and hp[q, v] != 0 and fl[side, v] == k:
        return v
    fk = S.fk[side, k]
    best = -1
    for j in range(S.fkn[side, k]):  # the cards showing k (`index_faces`)
        v = fk[j]
        if hp[q, v] != 0 and (best < 0 or ft[v] < ft[best]):
            best = v
    return best


def _no_index(S: State, C: Config) -> None:
    return None


def _no_index_side(S: State, C: Config, side: int) -> None:
    return None


@optional(FLIP, _no_index)
def index_faces(S: State, C: Config) -> None:
    """The cards showing each kind on each side, in card order, from the face table
    (after it is drawn or changed): `pick` reads a kind's few cards, not the deck."""
    index_side(S, C, 0)
    index_side(S, C, 1)
    S.s[S_FK_LIGHT] = 0  # the light faces may be anything here (a search, a built position)


@optional(FLIP, _no_index_side)
def index_side(S: State, C: Config, side: int) -> None:
    """`index_faces` of one side."""
    fl, fk, fkn = S.fl[side], S.fk[side], S.fkn[side]
    for k in range(C.ci[C_NK]):
        fkn[k] = 0
    room = fk.shape[1]
    for v in range(C.ci[C_DECK_SIZE]):
        k = fl[v]
        if k >= 0 and fkn[k] < room:  # k < 0: no such card (a position built by hand)
            fk[k, fkn[k]] = v
            fkn[k] += 1


@optional(FLIP, _as_kind)
def release(S: State, C: Config, q: int, k: int) -> int:
    """``q`` lets go of a card showing ``k`` (`pick`); the pile value it becomes."""
    v = pick(S, C, q, k)
    S.hp[q, v] = 0
    S.fo[v] = -1
    S.s[S_PID] = v
    return v


def _no_swap(S: State, C: Config, a: int, b: int) -> None:
    return None


@optional(FLIP, _no_swap)
def swap_held(S: State, C: Config, a: int, b: int) -> None:
    """Seats ``a`` and ``b`` exchange their physical cards (a Seven-O swap; a rotation
    is a chain of them)."""
    hp, fo = S.hp, S.fo
    for v in range(C.ci[C_DECK_SIZE]):
        t = hp[a, v]
        hp[a, v] = hp[b, v]
        hp[b, v] = t
        if fo[v] == a:
            fo[v] = b
        elif fo[v] == b:
            fo[v] = a


def _no_deck(S: State, C: Config) -> None:
    return None


@optional(FLIP, _no_deck)
def physical_deck(S: State, C: Config) -> None:
    """A new round of a two-sided deck: the light side in play, nobody holding a card,
    the physical cards in the draw pile (shuffled next) and, in a game's first round,
    the faces paired: light faces in kind order, the dark ones shuffled onto them."""
    s, fl, hp, n = S.s, S.fl, S.hp, C.ci[C_DECK_SIZE]
    s[S_SIDE] = 0
    if s[S_ROUND] == 0:
        s[S_TICK] = 0
    fo = S.fo
    for q in range(C.ci[C_PLAYERS]):  # nobody holds a card: whole rows, no test a card
        row = hp[q]
        for v in range(n):
            row[v] = 0
    for v in range(n):
        fo[v] = -1
    if s[S_ROUND] == 0:
        rng = S.rng
        s0, s1, s2, s3 = rng[0], rng[1], rng[2], rng[3]
        for v in range(n):
            fl[0, v] = C.deck[v]
            fl[1, v] = C.deck2[v]
        for i in range(n - 1, 0, -1):
            r, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
            j = np.uint64(below(r, i + 1))
            t = fl[1, i]
            fl[1, i] = fl[1, j]
            fl[1, j] = t
        rng[0], rng[1], rng[2], rng[3] = s0, s1, s2, s3
        if s[S_FK_LIGHT] == 0:  # the light side's index is the deck's from here on
            index_side(S, C, 0)
            s[S_FK_LIGHT] = 1
        index_side(S, C, 1)
    piles = S.piles
    for v in range(n):
        piles[0, v] = v
    s[S_NDRAW] = n


def _no_turn(S: State, C: Config) -> None:
    return None


@optional(FLIP, _no_turn)
def turn_over(S: State, C: Config) -> None:
    """A Flip card: the other side is in play; every hand's counts are its cards'
    other faces (the piles' order stays: their values are physical cards). One pass
    over the cards: each held one moves its count from its old face to its new one."""
    s, fl, fo, hands, suit = S.s, S.fl, S.fo, S.hands, C.suit
    old = s[S_SIDE]
    side = 1 - old
    s[S_SIDE] = side
    for v in range(C.ci[C_DECK_SIZE]):
        q = fo[v]
        if q >= 0:
            ko, kn = fl[old, v], fl[side, v]
            row = hands[q]
            row[ko] -= 1
            row[kn] += 1
            row[H_SUIT + suit[ko]] -= 1
            row[H_SUIT + suit[kn]] += 1


def _no_count(S: State, C: Config, q: int) -> None:
    return None


@optional(FLIP, _no_count)
def recount(S: State, C: Config, q: int) -> None:
    """``q``'s hand counted again from its cards' faces on the side in play."""
    fl, hp, side = S.fl, S.hp, S.s[S_SIDE]
    row = S.hands[q]
    for k in range(C.ci[C_NK]):
        row[k] = 0
    for i in range(H_SIZE, row.shape[0]):
        row[i] = 0
    for v in range(C.ci[C_DECK_SIZE]):
        if hp[q, v] != 0:
            k = fl[side, v]
            row[k] += 1
            row[H_SIZE] += 1
            row[H_SUIT + C.suit[k]] += 1
