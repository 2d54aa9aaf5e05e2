"""Cards a seat knows another seat holds: what the rules show, kept per observer.

``S.known[o, q, k]`` is how many cards of kind ``k`` seat ``o`` knows seat ``q``
holds, a lower bound of ``q``'s real count. Seats learn them where the rules
put cards in view (docs/DECISIONS.md, "What a seat knows"):

- a Seven-O swap: each of the two knows the hand it gave away; a 0's rotation:
  every seat knows the hand it passed on; what anyone knew of a hand moves with it;
- a WD4 challenge: the challenger sees the challenged hand;
- a Wishing Star: every other seat shows one icon card (the lowest kind it holds)
  or shows the icon card its draws ended on.

A card leaves what others know of its holder when the holder plays one of its
kind. The record is kept only where someone reads it (``S_KNOW``: a table with an
``ismcts`` seat, the façade, `unosim advise`); it draws nothing from the
stream, so games play the same with it on or off. ``ismcts`` deals each
determinization's known cards first (`unosim.engine.kernel.ismcts.determinize`).
A config that nobody reads it for compiles none of it (`optional`).
"""

from __future__ import annotations

from unosim.engine.kernel.jit import jit, optional
from unosim.engine.kernel.state import (
    C_KNOWN,
    C_NK,
    C_PLAYERS,
    KNOWN,
    S_KNOW,
    S_NALIVE,
    SEAT_ALIVE,
    Config,
    State,
)
from unosim.engine.kernel.table import next_alive


def _never_known(S: State, C: Config) -> None:
    S.s[S_KNOW] = 0


def _nothing2(S: State, C: Config, a: int) -> None:
    return None


def _nothing3(S: State, C: Config, a: int, b: int) -> None:
    return None


def _nothing4(S: State, C: Config, a: int, b: int, new: bool) -> None:
    return None


@optional(KNOWN, _never_known)
def reset_known(S: State, C: Config) -> None:
    """A new round: nobody knows anything of another hand (and the record is on
    when the config says someone reads it)."""
    S.s[S_KNOW] = C.ci[C_KNOWN]
    if S.s[S_KNOW] == 0:
        return
    known, n = S.known, C.ci[C_PLAYERS]
    for o in range(n):
        for q in range(n):
            for k in range(C.ci[C_NK]):
                known[o, q, k] = 0


@optional(KNOWN, _nothing3)
def known_play(S: State, C: Config, p: int, k: int) -> None:
    """``p`` played a ``k``: one fewer known to be left in its hand."""
    if S.s[S_KNOW] == 0:
        return
    known = S.known
    for o in range(C.ci[C_PLAYERS]):
        if known[o, p, k] > 0:
            known[o, p, k] -= 1


@optional(KNOWN, _nothing3)
def known_swap(S: State, C: Config, a: int, b: int) -> None:
    """After ``a`` and ``b`` swapped hands: what anyone knew moves with the hands,
    and each knows the whole hand it gave away."""
    if S.s[S_KNOW] == 0:
        return
    known, hands = S.known, S.hands
    for o in range(C.ci[C_PLAYERS]):
        for k in range(C.ci[C_NK]):
            t = known[o, a, k]
            known[o, a, k] = known[o, b, k]
            known[o, b, k] = t
    for k in range(C.ci[C_NK]):
        known[a, b, k] = hands[b, k]
        known[b, a, k] = hands[a, k]
        known[a, a, k] = 0
        known[b, b, k] = 0


@optional(KNOWN, _nothing2)
def known_rotate(S: State, C: Config, d: int) -> None:
    """After a 0 passed every hand to the seat in direction ``d``: what anyone knew
    moves with the hands, and each seat knows the hand it passed on."""
    if S.s[S_KNOW] == 0:
        return
    known, hands, tmp, seat = S.known, S.hands, S.scratch, S.seat
    n = C.ci[C_PLAYERS]
    # the same walk as rotate_hands: seat q's row goes to the next seat in play
    first = next_alive(S, C, 0, 1) if seat[0, SEAT_ALIVE] == 0 else 0
    for o in range(n):
        for k in range(C.ci[C_NK]):
            tmp[0, k] = known[o, first, k]
        q = first
        for _ in range(S.s[S_NALIVE]):
            t = next_alive(S, C, q, d)
            for k in range(C.ci[C_NK]):
                tmp[1, k] = known[o, t, k]
                known[o, t, k] = tmp[0, k]
                tmp[0, k] = tmp[1, k]
            q = t
    for o in range(n):
        if seat[o, SEAT_ALIVE] == 0:
            continue
        r = next_alive(S, C, o, d)
        for k in range(C.ci[C_NK]):
            known[o, r, k] = hands[r, k]
            known[o, o, k] = 0


@optional(KNOWN, _nothing3)
def known_reveal(S: State, C: Config, o: int, q: int) -> None:
    """``o`` sees ``q``'s whole hand (a WD4 challenge)."""
    if S.s[S_KNOW] == 0:
        return
    known, hands = S.known, S.hands
    for k in range(C.ci[C_NK]):
        known[o, q, k] = hands[q, k]


@optional(KNOWN, _nothing4)
def known_shown(S: State, C: Config, q: int, k: int, new: bool) -> None:
    """``q`` showed everyone a ``k``: a card they knew of (``new`` False: at least
    one), or the card its draws just ended on (``new``: one more)."""
    if S.s[S_KNOW] == 0:
        return
    known = S.known
    for o in range(C.ci[C_PLAYERS]):
        if o == q:
            continue
        if new:
            known[o, q, k] += 1
        elif known[o, q, k] == 0:
            known[o, q, k] = 1


@jit
def forget_all_known(S: State, C: Config) -> None:
    """A Flip turned every card over: what a seat knew of others' hands (by face)
    no longer names a card in play (docs/DECISIONS.md)."""
    if S.s[S_KNOW] == 0:
        return
    known, n = S.known, C.ci[C_PLAYERS]
    for o in range(n):
        for q in range(n):
            for k in range(C.ci[C_NK]):
                known[o, q, k] = 0
