"""Round set-up (docs/rules.md §2 and its fine print in §10).

Empty the table, shuffle the deck, deal one card at a time from the dealer's
left, and flip the first discard, which under ``first_flip: apply`` acts on
the first player. The round then waits for its first decision.
"""

from __future__ import annotations

from unosim.engine.kernel.events import emit, log_card, log_pile
from unosim.engine.kernel.flip import card_code, face_of, flip_on, hold, physical_deck
from unosim.engine.kernel.jit import jit, optional
from unosim.engine.kernel.known import reset_known
from unosim.engine.kernel.rng import rng_int
from unosim.engine.kernel.rules import begin_turn, flip_first, skip_all
from unosim.engine.kernel.state import (
    C_DECK_SIZE,
    C_FIRST_FLIP,
    C_HAND_SIZE,
    C_NK,
    C_PLAYERS,
    CAUSE_DRAW2,
    EV_DEAL,
    EV_FLIP,
    EV_RETURN,
    EV_REVERSE,
    EV_SKIP,
    FLIP,
    FLIP_REDRAW,
    H_SIZE,
    PH_COLOR,
    R_WINNER,
    S_CHAIN,
    S_COLOR,
    S_COLOR_CTX,
    S_CUR,
    S_DEALER,
    S_DIR,
    S_FIRSTP,
    S_LASTK,
    S_LASTP,
    S_NALIVE,
    S_NCL,
    S_NDISC,
    S_NDRAW,
    S_PEND,
    S_PEND_KIND,
    S_PHASE,
    S_STACK_TURN,
    S_TRACE,
    SEAT_ALIVE,
    SEAT_SILENCED,
    Config,
    State,
)
from unosim.engine.kernel.table import add_card, draw_n, forget_voids, next_alive, shuffle_row
from unosim.rules.effects import FX_COND, FX_DRAW, FX_FLIP, FX_REVERSE, FX_SKIP, FX_SKIP_ALL


@jit
def reset_state(S: State, C: Config, dealer: int) -> None:
    """Empty hands, counters and piles; seats keep whether they are in the match."""
    s, hands, seat, st = S.s, S.hands, S.seat, S.st
    n, nk = C.ci[C_PLAYERS], C.ci[C_NK]
    for q in range(n):  # the edition's kinds, the size and the suits (other columns stay 0)
        row = hands[q]
        for k in range(nk):
            row[k] = 0
        for k in range(H_SIZE, row.shape[0]):
            row[k] = 0
    for i in range(st.shape[0]):
        st[i] = 0
    st[R_WINNER] = -1
    s[S_DIR] = 1
    s[S_PEND] = 0
    s[S_CHAIN] = 0
    s[S_PEND_KIND] = 0
    s[S_STACK_TURN] = 0
    s[S_NDISC] = 0
    s[S_DEALER] = dealer
    s[S_LASTP] = -1
    s[S_LASTK] = -1
    alive = 0
    for q in range(n):
        seat[q, SEAT_SILENCED] = 0
        if seat[q, SEAT_ALIVE] != 0:
            alive += 1
    s[S_NALIVE] = alive
    reset_known(S, C)
    # the policies' memory of who drew on what is per round, and read before the first
    # turn (a first flip's wild: the first player names the color), so it starts empty
    # here: a game never reads the game before it (any chunking plays it the same)
    forget_voids(S, C)


@jit
def shuffled_deck(S: State, C: Config) -> None:
    """The whole deck, in kind order, shuffled into the draw pile."""
    s, piles, deck = S.s, S.piles, C.deck
    n = C.ci[C_DECK_SIZE]
    if flip_on(S):  # physical cards (and, once a game, their faces' pairing)
        physical_deck(S, C)
    else:
        for i in range(n):
            piles[0, i] = deck[i]
        s[S_NDRAW] = n
    shuffle_row(S, 0, n)


@jit
def deal(S: State, C: Config, dealer: int) -> None:
    """Deal one card at a time from the top, starting left of the dealer, then
    flip. The draw pile must already be in ``piles[0]``."""
    s, hands, piles = S.s, S.hands, S.piles
    ci = C.ci
    first = next_alive(S, C, dealer, 1)
    for _ in range(ci[C_HAND_SIZE]):
        q = first
        for _ in range(s[S_NALIVE]):
            n = s[S_NDRAW] - 1
            v = piles[0, n]
            hold(S, q, v)
            add_card(S, C, q, face_of(S, v))
            s[S_NDRAW] = n
            q = next_alive(S, C, q, 1)
    if s[S_TRACE] != 0:
        off = s[S_NCL]
        for q in range(ci[C_PLAYERS]):
            log_card(S, hands[q, H_SIZE])
            log_hand(S, C, q)
        log_pile(S, 0)
        emit(S, EV_DEAL, dealer, 0, 0, off, s[S_NCL] - off)
    s[S_FIRSTP] = first
    first_flip(S, C)


def _log_kinds(S: State, C: Config, q: int) -> None:
    hands = S.hands
    for k in range(C.ci[C_NK]):
        for _ in range(hands[q, k]):
            log_card(S, k)


@optional(FLIP, _log_kinds)
def log_hand(S: State, C: Config, q: int) -> None:
    """``q``'s cards into the card log: by kind, or (two-sided deck) each card's two faces."""
    hp = S.hp
    for v in range(C.ci[C_DECK_SIZE]):
        if hp[q, v] != 0:
            log_card(S, card_code(S, v))


@jit
def flip_one(S: State) -> int:
    """The draw pile's top card onto the discard pile; its pile value."""
    s, piles = S.s, S.piles
    n = s[S_NDRAW] - 1
    v = piles[0, n]
    s[S_NDRAW] = n
    piles[1, s[S_NDISC]] = v
    s[S_NDISC] += 1
    emit(S, EV_FLIP, card_code(S, v), 0, 0, 0, 0)
    return v


@jit
def first_flip(S: State, C: Config) -> None:
    """The first discard, and what it does to the first player (docs/rules.md §2, §10)."""
    s, piles, rng, fx = S.s, S.piles, S.rng, C.fx
    v = flip_one(S)
    k = face_of(S, v)
    if C.ci[C_FIRST_FLIP] == FLIP_REDRAW:
        # an action or wild card's effect is ignored; flip on top of it
        while C.face[k] < 0 and s[S_NDRAW] > 0:
            k = face_of(S, flip_one(S))
    else:
        while fx[k, FX_COND] != 0 and s[S_NDRAW] > 0:
            # back into the pile at a uniformly random gap (top included)
            s[S_NDISC] -= 1
            n = s[S_NDRAW]
            g = rng_int(rng, n + 1)
            for i in range(n, g, -1):
                piles[0, i] = piles[0, i - 1]
            piles[0, g] = v
            s[S_NDRAW] = n + 1
            if s[S_TRACE] != 0:
                off, ln = log_pile(S, 0)
                emit(S, EV_RETURN, card_code(S, v), 0, 0, off, ln)
            v = flip_one(S)
            k = face_of(S, v)
    first_effect(S, C, k)


@jit
def first_effect(S: State, C: Config, k: int) -> None:
    """What the first discard ``k`` does before the first turn (docs/rules.md §2, §10)."""
    s, fx = S.s, C.fx
    fp = s[S_FIRSTP]
    c = C.kc[k]
    if c < 0:
        # a flipped wild: the first player names the color before their turn
        # (also the fallback when a redraw exhausts the pile on a wild)
        s[S_COLOR] = 0
        s[S_PHASE] = PH_COLOR
        s[S_CUR] = fp
        s[S_COLOR_CTX] = 1
        return
    s[S_COLOR] = c
    if C.ci[C_FIRST_FLIP] == FLIP_REDRAW or C.face[k] >= 0:
        begin_turn(S, C, fp)
    elif fx[k, FX_DRAW] > 0:
        draw_n(S, C, fp, fx[k, FX_DRAW], CAUSE_DRAW2)
        emit(S, EV_SKIP, fp, 0, 0, 0, 0)
        begin_turn(S, C, next_alive(S, C, fp, 1))
    elif fx[k, FX_SKIP] != 0:
        emit(S, EV_SKIP, fp, 0, 0, 0, 0)
        begin_turn(S, C, next_alive(S, C, fp, 1))
    elif fx[k, FX_REVERSE] != 0:
        s[S_DIR] = -1
        emit(S, EV_REVERSE, -1, 0, 0, 0, 0)
        begin_turn(S, C, s[S_DEALER])
    elif fx[k, FX_SKIP_ALL] != 0:
        # as if the dealer had played it: everyone else is skipped (docs/DECISIONS.md)
        skip_all(S, C, s[S_DEALER])
        begin_turn(S, C, s[S_DEALER])
    elif flip_on(S) and fx[k, FX_FLIP] != 0:
        flip_first(S, C)  # everything turns to the dark side before the first turn
    else:
        begin_turn(S, C, fp)


@jit
def new_round(S: State, C: Config, dealer: int) -> None:
    """Shuffle, deal and flip: the round waits for its first decision."""
    reset_state(S, C, dealer)
    shuffled_deck(S, C)
    deal(S, C, dealer)
