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

from unosim.engine.kernel.events import emit, log_card
from unosim.engine.kernel.flip import color_code
from unosim.engine.kernel.jit import flag, jit, optional
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
    State,
)
from unosim.engine.kernel.table import clear_voids, close_draw, draw_one, open_draw, remove_card


@jit
def under_top(S: State, k: int, n: int) -> None:
    """``n`` cards of kind ``k`` into the discard pile, under its top card."""
    piles, s = S.piles, S.s
    nd = s[S_NDISC]
    piles[1, nd - 1 + n] = piles[1, nd - 1]
    for i in range(n):
        piles[1, nd - 1 + i] = k
    s[S_NDISC] = nd + n

# Section 11's code in the turn flow: ``if effects_on(C) and ...`` compiles away for a
# table that cannot reach it (classic), leaving the kernel it had before section 11.
effects_on = flag(EFFECTS)


def _no_discard(S: State, C: Config, p: int, k: int) -> None:
    return None  # unreached: a config without the EFFECTS feature has no Discard All


@optional(EFFECTS, _no_discard)
def discard_color(S: State, C: Config, p: int, k: int) -> None:
    """Discard All: ``p``'s cards of ``k``'s color go under ``k`` (on top of the pile)."""
    hands = S.hands
    c = C.kc[k]
    if hands[p, H_SUIT + c] == 0:
        return
    off = S.s[S_NCL]
    ncol = C.ci[C_NCOL]
    for j in range(c * ncol, (c + 1) * ncol):  # the color's block of kinds
        n = hands[p, j]
        if n == 0:
            continue
        under_top(S, j, n)
        for _ in range(n):
            remove_card(S, C, p, j)
            if S.s[S_KNOW] != 0:
                known_play(S, C, p, j)
            if S.s[S_TRACE] != 0:
                log_card(S, j)
    emit(S, EV_DISCARD, p, c, 0, off, S.s[S_NCL] - off)


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
    hands, seat, piles, s = S.hands, S.seat, S.piles, S.s
    m = hands[q, H_SIZE]
    nd = s[S_NDISC]
    for i in range(nd - 1, -1, -1):
        piles[1, i + m] = piles[1, i]
    off = s[S_NCL]
    at = 0
    for j in range(C.ci[C_NK]):
        for _ in range(hands[q, j]):
            piles[1, at] = j
            at += 1
            if s[S_TRACE] != 0:
                log_card(S, j)
        hands[q, j] = 0
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
