"""``random``, the reference policy of docs/rules.md §7, and its uniform choices.

It must stay exactly as it is (every published figure uses it). It lives apart
from the dispatcher (`unosim.engine.kernel.policies`) because the search player plays
out with it: the dispatcher imports the search, the search imports this, and
nothing imports back.
"""

from __future__ import annotations

from unosim.engine.kernel.jit import jit
from unosim.engine.kernel.kinds import colored_kind
from unosim.engine.kernel.rng import rng_int
from unosim.engine.kernel.rules import (
    can_play,
    can_stack,
    effects_on,
    may_answer,
    value_stackable,
    wilds_block,
)
from unosim.engine.kernel.rulings import jump_card_ok, ruled
from unosim.engine.kernel.state import (
    A_ACCEPT,
    A_COLOR,
    A_DRAW,
    A_PASS,
    A_TARGET,
    C_DEFLECT,
    C_JUMP_IN,
    C_NCOL,
    C_NK,
    C_PLAYERS,
    C_STACK_VALUE,
    C_TURN_RULED,
    C_WBASE,
    H_SUIT,
    JUMP_SAME_NUMBER,
    NCOLORS,
    PH_COLOR,
    PH_DRAWN,
    PH_JUMP,
    PH_MULTI,
    PH_PENDING,
    PH_TARGET,
    PH_TURN,
    S_COLOR,
    S_CUR,
    S_DRAWN,
    S_NALIVE,
    S_PEND_KIND,
    S_PHASE,
    SEAT_ALIVE,
    Config,
    State,
)
from unosim.engine.kernel.table import top_card
from unosim.rules.effects import FX_DRAW_UNTIL, FX_STACK
from unosim.rules.limits import MAX_KINDS


@jit
def uniform_card(S: State, C: Config, p: int, stack: bool) -> int:
    """A uniformly chosen physical card among the playable (or stackable) ones
    in ``p``'s hand; -1 if there is none.

    Only kinds with a draw effect (``C.stk``) can stack. A turn's play is the innermost loop of
    every simulation, so there the legal cards are counted per class (the
    active color, whose count the table keeps; the top's symbol in the other
    colors; wilds) instead of calling `can_play` once per kind; tests check both
    agree with the definitions."""
    hands, rng, stk = S.hands, S.rng, C.stk
    if stack:
        if ruled(C) and C.ci[C_DEFLECT] != 0:
            return uniform_answer(S, C, p)
        if effects_on(C) and C.fx[S.s[S_PEND_KIND], FX_DRAW_UNTIL] != 0:
            return -1  # nothing answers a pending draw until color (docs/DECISIONS.md)
        if effects_on(C) and C.ci[C_STACK_VALUE] != 0 and not ruled(C):
            k = uniform_by_value(S, C, p)
            if k != UNDECIDED:
                return k
        # the held test first (can_stack's own first test): most draw kinds are not
        # held, and a call per kind was a tenth of a No Mercy turn
        total = 0
        for i in range(MAX_KINDS):
            k = stk[i]
            if k < 0:
                break
            if hands[p, k] > 0 and can_stack(S, C, p, k):
                total += hands[p, k]
        if total == 0:
            return -1
        x = rng_int(rng, total)
        for i in range(MAX_KINDS):
            k = stk[i]
            if k < 0:
                break
            if hands[p, k] > 0 and can_stack(S, C, p, k):
                if x < hands[p, k]:
                    return k
                x -= hands[p, k]
        return -1
    # the hot path: active color, same symbol in other colors, wilds (in this order)
    c = S.s[S_COLOR]
    t = top_card(S)
    h = hands[p]
    ci = C.ci
    nc = ci[C_NCOL]
    base = colored_kind(C, c, 0)
    color = h[base:base + nc]  # a slice: no index checks in the loops below
    held_color = h[H_SUIT + c]
    total = held_color
    tr = -1 if C.kc[t] < 0 else C.sym[t]
    if tr >= 0:
        for cc in range(NCOLORS):
            if cc != c:
                total += h[colored_kind(C, cc, tr)]
    # the wilds: the unconditioned ones (C.wo[:C.wfree]), then the conditioned
    # ones (WD4) if they are legal; most hands hold none (the wild suit's count)
    wo = C.wo
    nw = 0
    if h[H_SUIT + NCOLORS] > 0:
        nw = ci[C_NK] - ci[C_WBASE] if held_color == 0 and not wilds_block(C, h) else C.wfree
        for i in range(nw):
            total += h[wo[i]]
    if total == 0:
        return -1
    x = rng_int(rng, total)
    if x < held_color:
        # the first rank whose running count passes x (counted, not searched:
        # a search's exit branch is a coin flip the CPU mispredicts)
        passed = 0
        run = 0
        for r in range(nc):
            run += color[r]
            passed += run <= x
        return base + passed
    x -= held_color
    if tr >= 0:
        for cc in range(NCOLORS):
            if cc != c:
                k = colored_kind(C, cc, tr)
                n = h[k]
                if x < n:
                    return k
                x -= n
    for i in range(nw):
        k = wo[i]
        if x < h[k]:
            return k
        x -= h[k]
    return -1


UNDECIDED = -2  # uniform_by_value: a held kind has a legality condition


@jit
def uniform_by_value(S: State, C: Config, p: int) -> int:
    """`uniform_card`'s stacking choice under value stacking without the rulings: the
    same card from the same draw, its kinds tested without a branch each (-1: none);
    ``UNDECIDED`` if a held kind has a legality condition (only `can_stack` can say)."""
    total, cond = value_stackable(S, C, p)
    if cond != 0:
        return UNDECIDED
    if total == 0:
        return -1
    x = rng_int(S.rng, total)
    hand, stk, fx = S.hands[p], C.stk, C.fx
    v = fx[S.s[S_PEND_KIND], FX_STACK]
    for i in range(MAX_KINDS):
        k = stk[i]
        if k < 0:
            break
        n = hand[k] if fx[k, FX_STACK] >= v else 0
        if x < n:
            return k
        x -= n
    return -1


@jit
def uniform_among(S: State, C: Config, p: int, what: int) -> int:
    """A uniformly chosen physical card of ``p``'s that may answer the pending
    draw (``what`` 0: stack or deflect), jump in (1), join the drop (2,
    multiple_play) or be played (3); -1 if none. Not the hot path: only the rulings reach it."""
    hands = S.hands
    t = top_card(S)
    total = 0
    nk = C.ci[C_NK]
    for k in range(nk):
        if hands[p, k] > 0 and pick_ok(S, C, p, k, t, what):
            total += hands[p, k]
    if total == 0:
        return -1
    x = rng_int(S.rng, total)
    for k in range(nk):
        if hands[p, k] > 0 and pick_ok(S, C, p, k, t, what):
            if x < hands[p, k]:
                return k
            x -= hands[p, k]
    return -1


@jit
def pick_ok(S: State, C: Config, p: int, k: int, t: int, what: int) -> bool:
    if what == 0:
        return may_answer(S, C, p, k)
    if what == 1:
        return jump_card_ok(S, C, p, k, t)
    if what == 2:
        return C.face[k] >= 0 and C.sym[k] == C.sym[t]
    return can_play(S, C, p, k)


@jit
def uniform_answer(S: State, C: Config, p: int) -> int:
    """A stackable or deflecting card, uniformly (deflect on)."""
    return uniform_among(S, C, p, 0)


@jit
def uniform_target(S: State, C: Config, p: int) -> int:
    """A uniformly chosen other seat still in the round."""
    rng, seat = S.rng, S.seat
    r = rng_int(rng, S.s[S_NALIVE] - 1)
    for q in range(C.ci[C_PLAYERS]):
        if q != p and seat[q, SEAT_ALIVE] != 0:
            if r == 0:
                return q
            r -= 1
    return p


@jit
def random_action(S: State, C: Config) -> int:
    """The reference policy, exactly as docs/rules.md §7 fixes it."""
    s, rng = S.s, S.rng
    ph = s[S_PHASE]
    p = s[S_CUR]
    if ph == PH_TURN:
        if ruled(C) and C.ci[C_TURN_RULED] != 0:  # a ruling changes what is legal: count by can_play
            k = uniform_among(S, C, p, 3)
        else:
            k = uniform_card(S, C, p, False)
        return A_DRAW if k < 0 else k
    if ph == PH_DRAWN:
        if s[S_DRAWN] >= 0:
            return s[S_DRAWN]
        k = uniform_among(S, C, p, 3)  # draw_then_play: any, the drawn card unplayable
        return A_PASS if k < 0 else k
    if ph == PH_COLOR:
        return A_COLOR + rng_int(rng, NCOLORS)
    if ph == PH_PENDING:
        k = uniform_card(S, C, p, True)
        return A_ACCEPT if k < 0 else k
    if ph == PH_TARGET:
        return A_TARGET + uniform_target(S, C, p)
    if ph == PH_JUMP:
        if ruled(C) and C.ci[C_JUMP_IN] == JUMP_SAME_NUMBER:
            return uniform_among(S, C, p, 1)
        return top_card(S)
    if ph == PH_MULTI:  # multiple_play: drop every card of the number, in uniform order
        return uniform_among(S, C, p, 2)
    return -1
