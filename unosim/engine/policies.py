"""The compiled policies: who plays what when a decision comes up.

``random`` is the reference policy of RULES.md section 7 and must stay
exactly as it is (every published figure uses it); ``strategic`` is a simple
table-sense heuristic. A seat's policy is ``pp[seat, P_KIND]``; adding one is
a ``POLICY_*`` code and its parameters in `unosim.engine.state`, a function
here, and a line in `policy_action`.
"""

from __future__ import annotations

from unosim.engine.jit import jit
from unosim.engine.kinds import card, color_of, is_action, is_draw_two, is_skip, is_wild, rank_of
from unosim.engine.rng import chance, rng_int
from unosim.engine.rules import can_play, can_stack, challengeable
from unosim.engine.state import (
    A_ACCEPT,
    A_CHALLENGE,
    A_COLOR,
    A_DRAW,
    A_TARGET,
    C_PLAYERS,
    C_WD4_WILDS_BLOCK,
    H_SIZE,
    H_SUIT,
    NCOLORS,
    P_BLUFF,
    P_CHALLENGE,
    P_KIND,
    PH_COLOR,
    PH_DRAWN,
    PH_JUMP,
    PH_PENDING,
    PH_TARGET,
    PH_TURN,
    POLICY_STRATEGIC,
    S_COLOR,
    S_CUR,
    S_DIR,
    S_DRAWN,
    S_NALIVE,
    S_PHASE,
    SEAT_ALIVE,
    Config,
    State,
)
from unosim.engine.table import next_alive, top_card
from unosim.rules.cards import NK, NRANKS, STACKABLE, WD4, WX, W


@jit
def uniform_card(S: State, C: Config, p: int, stack: bool) -> int:
    """A uniformly chosen physical card among the playable (or stackable) ones
    in ``p``'s hand; -1 if there is none.

    Only `STACKABLE` kinds can stack. A turn's play is the innermost loop of
    every simulation, so there the legal cards are counted per class (the
    active color, whose count the table keeps; the top's rank in the other
    colors; wilds) instead of calling `can_play` 55 times; tests check both
    agree with the definitions."""
    hands, rng = S.hands, S.rng
    if stack:
        total = 0
        for k in STACKABLE:
            if can_stack(S, C, p, k):
                total += hands[p, k]
        if total == 0:
            return -1
        x = rng_int(rng, total)
        for k in STACKABLE:
            if can_stack(S, C, p, k):
                if x < hands[p, k]:
                    return k
                x -= hands[p, k]
        return -1
    # the hot path: active color, same rank in other colors, wilds (in this order)
    c = S.s[S_COLOR]
    t = top_card(S)
    h = hands[p]
    base = card(c, 0)
    color = h[base:base + NRANKS]  # a slice: no index checks in the loops below
    held_color = h[H_SUIT + c]
    total = held_color
    tr = -1 if is_wild(t) else rank_of(t)
    if tr >= 0:
        for cc in range(NCOLORS):
            if cc != c:
                total += h[card(cc, tr)]
    hw, hx = h[W], h[WX]
    total += hw + hx
    if held_color == 0 and (C.ci[C_WD4_WILDS_BLOCK] == 0 or (hw == 0 and hx == 0)):
        total += h[WD4]
    if total == 0:
        return -1
    x = rng_int(rng, total)
    if x < held_color:
        # the first rank whose running count passes x (counted, not searched:
        # a search's exit branch is a coin flip the CPU mispredicts)
        passed = 0
        run = 0
        for r in range(NRANKS):
            run += color[r]
            passed += run <= x
        return base + passed
    x -= held_color
    if tr >= 0:
        for cc in range(NCOLORS):
            if cc != c:
                n = h[card(cc, tr)]
                if x < n:
                    return card(cc, tr)
                x -= n
    if x < hw:
        return W
    if x < hw + hx:
        return WX
    return WD4


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
    """The reference policy, exactly as RULES.md section 7 fixes it."""
    s, rng = S.s, S.rng
    ph = s[S_PHASE]
    p = s[S_CUR]
    if ph == PH_TURN:
        k = uniform_card(S, C, p, False)
        return A_DRAW if k < 0 else k
    if ph == PH_DRAWN:
        return s[S_DRAWN]
    if ph == PH_COLOR:
        return A_COLOR + rng_int(rng, NCOLORS)
    if ph == PH_PENDING:
        k = uniform_card(S, C, p, True)
        return A_ACCEPT if k < 0 else k
    if ph == PH_TARGET:
        return A_TARGET + uniform_target(S, C, p)
    if ph == PH_JUMP:
        return top_card(S)
    return -1


@jit
def _best_color(S: State, p: int) -> int:
    best, bc = 0, -1
    for c in range(NCOLORS):
        n = S.hands[p, H_SUIT + c]
        if n > bc:
            best, bc = c, n
    return best


@jit
def _fewest_cards(S: State, C: Config, p: int) -> int:
    hands, seat = S.hands, S.seat
    best, bn = p, 1 << 30
    for q in range(C.ci[C_PLAYERS]):
        if q != p and seat[q, SEAT_ALIVE] != 0 and hands[q, H_SIZE] < bn:
            best, bn = q, hands[q, H_SIZE]
    return best


@jit
def strategic_action(S: State, C: Config) -> int:
    """Attack a short next hand, shed points, keep wilds for when nothing else
    fits, name the color held most."""
    s, hands, rng, pp = S.s, S.hands, S.rng, C.pp
    ph = s[S_PHASE]
    p = s[S_CUR]
    if ph == PH_TURN:
        victim = next_alive(S, C, p, s[S_DIR])
        danger = hands[victim, H_SIZE] <= 2
        best, bscore = -1, -1e9
        for k in range(NK):
            if hands[p, k] <= 0 or not can_play(S, C, p, k):
                continue
            if is_wild(k):
                sc = -100.0 if k == W or k == WX else -50.0
                if danger and k == WD4:
                    sc = 100.0
            else:
                sc = 20.0 if is_action(k) else float(rank_of(k))
                if danger and (is_skip(k) or is_draw_two(k)):
                    sc += 200.0
                # prefer keeping a color we hold many of
                sc += 0.5 * hands[p, H_SUIT + color_of(k)]
            if sc > bscore:
                best, bscore = k, sc
        if best < 0:
            if hands[p, WD4] > 0 and chance(rng, pp[p, P_BLUFF]):
                return WD4
            return A_DRAW
        return best
    if ph == PH_DRAWN:
        return s[S_DRAWN]
    if ph == PH_COLOR:
        return A_COLOR + _best_color(S, p)
    if ph == PH_PENDING:
        for k in STACKABLE:
            if can_stack(S, C, p, k):
                return k
        if challengeable(S) and chance(rng, pp[p, P_CHALLENGE]):
            return A_CHALLENGE
        return A_ACCEPT
    if ph == PH_TARGET:
        return A_TARGET + _fewest_cards(S, C, p)
    if ph == PH_JUMP:
        return top_card(S)
    return -1


@jit
def policy_action(S: State, C: Config) -> int:
    """The compiled policy of the seat that must decide now."""
    if C.pp[S.s[S_CUR], P_KIND] == POLICY_STRATEGIC:
        return strategic_action(S, C)
    return random_action(S, C)
