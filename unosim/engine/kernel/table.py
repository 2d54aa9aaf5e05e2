"""The table: seats in the round, hands, the two piles, and drawing.

Everything the rules do to cards goes through here, so hand sizes, the
draw counters and the trace's draw events stay in step (docs/rules.md §3:
an empty draw pile is refilled from the discard, keeping its top card).
"""

from __future__ import annotations

import numpy as np

from unosim.engine.kernel.events import emit, log_card, log_pile
from unosim.engine.kernel.flip import card_code, face_of, hold
from unosim.engine.kernel.jit import flag, jit
from unosim.engine.kernel.rng import below, xoshiro
from unosim.engine.kernel.state import (
    C_NK,
    C_PLAYERS,
    EFFECTS,
    EV_DRAW,
    EV_RESHUFFLE,
    H_SIZE,
    H_SUIT,
    R_DRAW_BY_CAUSE,
    R_DRAWN,
    R_RESHUFFLES,
    S_DRAW_CAUSE,
    S_DRAW_COLOR,
    S_DRAW_OFF,
    S_DRAW_P,
    S_NCL,
    S_NDISC,
    S_NDRAW,
    S_TRACE,
    SEAT_ALIVE,
    Config,
    IntArray,
    State,
)

# Section 11's code: ``if effects_on(C) and ...`` compiles away for a table that cannot
# reach it (classic), leaving the kernel it had before section 11 (jit.flag).
effects_on = flag(EFFECTS)


@jit
def next_alive(S: State, C: Config, p: int, d: int) -> int:
    """Next seat in the round from ``p`` in direction ``d`` (no modulo: an
    integer division would be the costliest instruction of a turn)."""
    seat = S.seat
    n = C.ci[C_PLAYERS]
    q, tries = p, n
    if effects_on(C):
        # the first of the next two seats in the round by a select, not a branch: under
        # the mercy rule a seat out of the round made the branch a coin flip
        a = p + d
        a = a - n if a >= n else (a + n if a < 0 else a)
        b = a + d
        b = b - n if b >= n else (b + n if b < 0 else b)
        q = a if seat[a, SEAT_ALIVE] != 0 else b
        if seat[q, SEAT_ALIVE] != 0:
            return q
        q, tries = b, n - 2  # two seats or more out in a row (or nobody left): on from b
    for _ in range(tries):
        q += d
        if q >= n:
            q -= n
        elif q < 0:
            q += n
        if seat[q, SEAT_ALIVE] != 0:
            return q
    return p


@jit
def top_card(S: State) -> int:
    return face_of(S, S.piles[1, S.s[S_NDISC] - 1])


@jit
def top_code(S: State) -> int:
    """The top card as events write it (`unosim.engine.kernel.flip.card_code`)."""
    return card_code(S, S.piles[1, S.s[S_NDISC] - 1])


@jit
def hand_points(S: State, C: Config, q: int) -> int:
    """Points of the cards left in ``q``'s hand (docs/rules.md §1)."""
    hands, pts = S.hands, C.points
    t = 0
    for k in range(C.ci[C_NK]):
        t += hands[q, k] * pts[k]
    return t


@jit
def add_card(S: State, C: Config, p: int, k: int) -> None:
    hands = S.hands
    hands[p, k] += 1
    hands[p, H_SIZE] += 1
    hands[p, H_SUIT + C.suit[k]] += 1


@jit
def remove_card(S: State, C: Config, p: int, k: int) -> None:
    hands = S.hands
    hands[p, k] -= 1
    hands[p, H_SIZE] -= 1
    hands[p, H_SUIT + C.suit[k]] -= 1


@jit
def copy_hand(C: Config, dst: IntArray, src: IntArray) -> None:
    """A hand row into another: the edition's kinds, then the size and the suits
    (the columns between are room for other editions' kinds, always 0)."""
    for i in range(C.ci[C_NK]):
        dst[i] = src[i]
    for i in range(H_SIZE, dst.shape[0]):
        dst[i] = src[i]


@jit
def shuffle_row(S: State, row: int, n: int) -> None:
    """Fisher-Yates over the first ``n`` cards of pile ``row`` (the stream's
    state stays in registers for the loop: the piles could alias it in memory)."""
    pile, rng = S.piles[row], S.rng
    s0, s1, s2, s3 = rng[0], rng[1], rng[2], rng[3]
    for i in range(n - 1, 0, -1):
        r, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
        j = np.uint64(below(r, i + 1))  # unsigned: no negative-index fix-up
        t = pile[i]
        pile[i] = pile[j]
        pile[j] = t
    rng[0], rng[1], rng[2], rng[3] = s0, s1, s2, s3


# --- drawing: an open draw collects its cards into one trace event ------------------
@jit
def clear_voids(S: State, p: int) -> None:
    """``p`` takes cards: what it drew on before no longer says what it lacks."""
    voids = S.voids
    for c in range(voids.shape[1]):
        voids[p, c] = 0


@jit
def forget_voids(S: State, C: Config) -> None:
    for q in range(C.ci[C_PLAYERS]):
        clear_voids(S, q)


@jit
def open_draw(S: State, p: int, cause: int) -> None:
    s = S.s
    clear_voids(S, p)
    s[S_DRAW_P] = p
    s[S_DRAW_CAUSE] = cause
    s[S_DRAW_OFF] = s[S_NCL]


@jit
def close_draw(S: State) -> None:
    """The open draw's event (its third column: 1 + the color a draw until color
    waits for, else 0)."""
    s = S.s
    n = s[S_NCL] - s[S_DRAW_OFF]
    if n > 0:
        emit(S, EV_DRAW, s[S_DRAW_P], s[S_DRAW_CAUSE], s[S_DRAW_COLOR], s[S_DRAW_OFF], n)


@jit
def reshuffle(S: State) -> bool:
    """Keep the top discard, shuffle the rest into a new draw pile (docs/rules.md §3)."""
    s, piles, st = S.s, S.piles, S.st
    nd = s[S_NDISC]
    if nd <= 1:
        return False
    close_draw(S)
    for i in range(nd - 1):
        piles[0, i] = piles[1, i]
    piles[1, 0] = piles[1, nd - 1]
    s[S_NDISC] = 1
    s[S_NDRAW] = nd - 1
    shuffle_row(S, 0, nd - 1)
    st[R_RESHUFFLES] += 1
    if s[S_TRACE] != 0:
        off, ln = log_pile(S, 0)
        emit(S, EV_RESHUFFLE, 0, 0, 0, off, ln)
        s[S_DRAW_OFF] = s[S_NCL]
    return True


@jit
def draw_one(S: State, C: Config) -> int:
    """Top card of the draw pile into the open draw's hand; -1 if both piles are dry."""
    s, piles, st = S.s, S.piles, S.st
    if s[S_NDRAW] == 0:
        if not reshuffle(S):
            return -1
    n = s[S_NDRAW] - 1
    v = piles[0, n]
    k = face_of(S, v)
    s[S_NDRAW] = n
    hold(S, s[S_DRAW_P], v)
    add_card(S, C, s[S_DRAW_P], k)
    st[R_DRAWN] += 1
    st[R_DRAW_BY_CAUSE + s[S_DRAW_CAUSE]] += 1
    log_card(S, card_code(S, v))
    return k


@jit
def draw_n(S: State, C: Config, p: int, n: int, cause: int) -> int:
    """``p`` draws ``n`` cards (fewer if the piles run dry); how many came. What
    `draw_one` does a card at a time, in runs: the counters are written once a run
    (No Mercy's rounds draw over a hundred cards)."""
    open_draw(S, p, cause)
    s, pile, row, suit = S.s, S.piles[0], S.hands[p], C.suit
    got = 0
    while got < n:
        nd = s[S_NDRAW]
        if nd == 0:
            if not reshuffle(S):
                break
            nd = s[S_NDRAW]
        take = min(n - got, nd)
        for i in range(nd - 1, nd - 1 - take, -1):
            v = pile[i]
            hold(S, p, v)
            k = face_of(S, v)
            row[k] += 1
            row[H_SUIT + suit[k]] += 1
            log_card(S, card_code(S, v))
        s[S_NDRAW] = nd - take
        row[H_SIZE] += take
        got += take
    st = S.st
    st[R_DRAWN] += got
    st[R_DRAW_BY_CAUSE + cause] += got
    close_draw(S)
    return got
