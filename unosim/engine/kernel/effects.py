"""The kernel side of docs/rules.md section 11's new effects: what they do to the table.

`unosim.engine.kernel.rules` decides when each happens (a play's resolution walks the
kind's row of the effect table, ``C.fx``); here are the moves themselves, each
writing its trace event:

- ``discard_color`` (Discard All): the player's cards of the played card's
  color go under it (it stays on top), one ``discard`` event;
- ``draw_until_color`` (Wild Color Roulette): the victim draws until a card of
  the color they named comes (or both piles run dry), one ``draw`` event whose
  cause is ``draw_until_color``;
- the mercy rule (``mercy_limit``): a player holding that many cards or more is
  out of the round at once, their hand under the discard pile, one ``out``
  event. They are back for the next round (`unosim.engine.kernel.deal.reset_state`).
"""

from __future__ import annotations

import numpy as np

from unosim.engine.kernel.events import emit, log_card
from unosim.engine.kernel.flip import color_code
from unosim.engine.kernel.jit import jit, optional
from unosim.engine.kernel.known import known_play
from unosim.engine.kernel.state import (
    C_MERCY,
    C_NCOL,
    C_NK,
    C_PLAYERS,
    CAUSE_DRAW_UNTIL,
    EFFECTS,
    EV_DISCARD,
    EV_OUT,
    H_SIZE,
    H_SUIT,
    OUT_MERCY,
    R_OUT_ROUNDS,
    R_OUTS,
    S_DRAW_COLOR,
    S_KNOW,
    S_NALIVE,
    S_NCL,
    S_NDISC,
    S_TRACE,
    SEAT_ALIVE,
    SEAT_MERCY,
    Config,
    IntArray,
    State,
)
from unosim.engine.kernel.table import clear_voids, close_draw, draw_one, open_draw
from unosim.engine.kernel.table import effects_on as effects_on  # rules.py's, from here


@jit
def fill4(pile: IntArray, at: int, k: int) -> None:
    """``k`` at ``pile[at:at + 4]``, for a run of 0-4 cards whose next run overwrites
    the extra ones: four stores whatever the count, where a loop of 0-2 cards a kind
    was a mispredicted branch a kind (most of a knock-out's time)."""
    u = np.uint64(at)  # unsigned: no negative-index fix-up
    pile[u] = k
    pile[u + np.uint64(1)] = k
    pile[u + np.uint64(2)] = k
    pile[u + np.uint64(3)] = k



def _no_discard(S: State, C: Config, p: int, k: int) -> None:
    return None  # unreached: a config without the EFFECTS feature has no Discard All


@optional(EFFECTS, _no_discard)
def discard_color(S: State, C: Config, p: int, k: int) -> None:
    """Discard All: ``p``'s cards of ``k``'s color go under ``k`` (on top of the pile),
    in kind order."""
    s, hand, pile = S.s, S.hands[p], S.piles[1]
    c = C.kc[k]
    total = hand[H_SUIT + c]
    if total == 0:
        return
    off = s[S_NCL]
    nd = s[S_NDISC]
    top = pile[nd - 1]
    end = nd - 1 + total  # where the top card goes
    at = nd - 1
    ncol = C.ci[C_NCOL]
    for j in range(c * ncol, (c + 1) * ncol):  # the color's block of kinds
        n = hand[j]
        if n <= 4 and at + 3 <= end:  # four stores, the extra ones overwritten (knock_out)
            fill4(pile, at, j)
        else:
            for i in range(at, at + n):
                pile[i] = j
        at += n
        if s[S_KNOW] != 0:
            for _ in range(n):
                known_play(S, C, p, j)
        hand[j] = 0
    pile[end] = top
    s[S_NDISC] = nd + total
    hand[H_SIZE] -= total
    hand[H_SUIT + c] = 0
    if s[S_TRACE] != 0:
        for i in range(nd - 1, end):
            log_card(S, pile[i])
    emit(S, EV_DISCARD, p, c, 0, off, s[S_NCL] - off)


@jit
def draw_until_color(S: State, C: Config, v: int, c: int) -> int:
    """``v`` draws until a card of color ``c`` comes (kept with the rest); how many
    came. Both piles dry: the draw stops there (docs/DECISIONS.md)."""
    return draw_until(S, C, v, c, CAUSE_DRAW_UNTIL, 0)


@jit
def draw_until(S: State, C: Config, v: int, c: int, cause: int, extra: int) -> int:
    """``v`` draws until a card of color ``c`` comes, then ``extra`` more (a wrong
    challenge of a Wild Draw Color), as one draw of ``cause``; how many came."""
    open_draw(S, v, cause)
    S.s[S_DRAW_COLOR] = 1 + color_code(S, c)
    got = 0
    while True:
        k = draw_one(S, C)
        if k < 0:
            break
        got += 1
        if C.kc[k] == c:  # a wild's is -1
            break
    for _ in range(extra):
        if draw_one(S, C) < 0:
            break
        got += 1
    close_draw(S)
    S.s[S_DRAW_COLOR] = 0
    return got


@jit
def over_limit(S: State, C: Config, q: int) -> bool:
    """Is ``q`` in the round and holding the mercy limit or more?"""
    lim = C.ci[C_MERCY]
    return lim > 0 and S.seat[q, SEAT_ALIVE] != 0 and S.hands[q, H_SIZE] >= lim


@jit
def knock_out(S: State, C: Config, q: int) -> None:
    """The mercy rule: ``q`` is out of the round; their hand goes under the discard
    pile (in kind order, the first kind at the very bottom): the pile moves up once."""
    hands, seat, s = S.hands, S.seat, S.s
    pile, hand = S.piles[1], hands[q]
    m = hand[H_SIZE]
    nd = s[S_NDISC]
    # unsigned indices: no negative-index fix-up in the move (2.6 knock-outs a No Mercy round)
    for i in range(nd - 1, -1, -1):
        pile[np.uint64(i + m)] = pile[np.uint64(i)]
    at = 0
    for j in range(C.ci[C_NK]):
        n = hand[j]
        if n <= 4 and at + 4 <= m:
            fill4(pile, at, j)
        else:  # the last kinds, or many of one kind: exactly the count
            for i in range(at, at + n):
                pile[np.uint64(i)] = j
        at += n
        hand[j] = 0
    off = s[S_NCL]
    if s[S_TRACE] != 0:
        for i in range(m):
            log_card(S, pile[i])
    for i in range(H_SIZE, hands.shape[1]):  # the size and the suit counts
        hands[q, i] = 0
    s[S_NDISC] = nd + m
    seat[q, SEAT_ALIVE] = 0
    seat[q, SEAT_MERCY] = 1
    s[S_NALIVE] -= 1
    S.st[R_OUTS] += 1
    S.st[R_OUT_ROUNDS] = 1
    clear_voids(S, q)
    forget_known(S, C, q)
    emit(S, EV_OUT, q, OUT_MERCY, 0, off, s[S_NCL] - off)


@jit
def forget_known(S: State, C: Config, q: int) -> None:
    """Nobody holds any card of ``q``'s any more."""
    if S.s[S_KNOW] == 0:
        return
    known = S.known
    for o in range(C.ci[C_PLAYERS]):
        for j in range(C.ci[C_NK]):
            known[o, q, j] = 0
