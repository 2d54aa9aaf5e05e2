"""The habit policies ``greedy``, ``cautious``, ``defender`` and ``strategic``.

They are one compiled machine read from the seat's ``pp`` row: each habit
is a switch (and, for some, a hand-size threshold) in its ``P_*`` column,
and a policy is a set of habits turned on (`unosim.rules.models.POLICY_DEFAULTS`;
docs/policies.md describes every habit). A turn scores each legal card by
the habits that are on and plays the best; colors, targets, stacks,
challenges and jump-ins each have their own habit.

What a seat may know, and so all a habit reads: its own hand
(``hands[p, :]``); every hand's size (``hands[q, H_SIZE]``); the discard
pile (``piles[1, :S_NDISC]``) and the draw pile's size; the active color,
direction, pending draw and the other public scalars (``S_COLOR``,
``S_DIR``, ``S_PEND*``, ``S_CHAIN``, ``S_WD4_PLAYER``, ``S_WD4_COLOR``,
``S_NALIVE``, ``S_DRAWN`` of its own draw); the seats (``seat``); who drew
on which color (``voids``); and the config. Never the draw pile's cards,
another hand's cards, nor ``S_WD4_LEGAL``: tests/test_public_view.py
shuffles all of those and checks every decision stays the same.
"""

from __future__ import annotations

from unosim.engine.kernel.flip import face_of
from unosim.engine.kernel.jit import jit, optional
from unosim.engine.kernel.kinds import colored_kind
from unosim.engine.kernel.rng import chance, rng_int
from unosim.engine.kernel.rules import can_stack, challengeable, last_card_play, wd4_ok
from unosim.engine.kernel.rulings import can_deflect, deflect_kind, jump_card_ok, ruled
from unosim.engine.kernel.state import (
    A_ACCEPT,
    A_CHALLENGE,
    A_COLOR,
    A_DRAW,
    A_PASS,
    A_TARGET,
    C_DEFLECT,
    C_DRAW_THEN_PLAY,
    C_JUMP_IN,
    C_NCOL,
    C_NK,
    C_NO_ACTION_FINISH,
    C_PLAYERS,
    C_REVERSE_SYM,
    C_SKIP_SYM,
    C_STACK_D2_D2,
    C_STACK_D2_WD4,
    C_STACK_WD4_D2,
    C_STACK_WD4_WD4,
    C_WBASE,
    C_WD4_WILDS_BLOCK,
    H_SIZE,
    H_SUIT,
    HABITS,
    JUMP_SAME_NUMBER,
    NCOLORS,
    P_ATTACK,
    P_ATTACK_AT,
    P_BLUFF,
    P_CHALLENGE,
    P_DUMP,
    P_DUMP_AT,
    P_HOLD_WD4,
    P_JUMP,
    P_KEEP_COLORS,
    P_NAME_MOST,
    P_NUMBERS,
    P_RESERVE,
    P_REVERSE,
    P_REVERSE_AT,
    P_SHED,
    P_TARGET,
    P_VOID,
    P_WD4_AT,
    PH_COLOR,
    PH_DRAWN,
    PH_JUMP,
    PH_MULTI,
    PH_PENDING,
    PH_TARGET,
    PH_TURN,
    S_COLOR,
    S_CUR,
    S_DIR,
    S_DRAWN,
    S_NALIVE,
    S_NDISC,
    S_PHASE,
    S_WD4_COLOR,
    S_WD4_PLAYER,
    SEAT_ALIVE,
    THEN_ANY,
    Config,
    State,
)
from unosim.engine.kernel.table import next_alive, top_card
from unosim.rules.effects import FX_COND, FX_DRAW, FX_REVERSE, FX_SKIP, FX_SKIP_ALL, FX_WILD
from unosim.rules.limits import MAX_KINDS

# Score tiers of a turn's cards. A base order (shed_points or numbers_first)
# spreads cards over 0..400; keep_colors and switch_to_void reorder within a
# tier; the situational habits move a card above or below every tier.
TIER_NUMBER, TIER_ACTION, TIER_WILD = 300.0, 200.0, 100.0
KEEP_COLORS_WEIGHT = 2.0  # per card held of the card's color
HOLD_ACTION = -75.0  # a saved Draw Two / Skip: after numbers and Reverses, before wilds
HOLD_WD4 = -50.0  # a held WD4: after everything else
DUMP_WEIGHT = 10.0  # per point, once someone is nearly out: wilds, then actions, first
ATTACK = 1000.0
REVERSE_AWAY = 900.0
SWITCH_TO_VOID = 40.0
DEFLECT_BACK = 1000.0  # deflect: send the draw to the smaller neighbouring hand, first of all
KEEP_RESERVE = -10000.0  # the last stackable card: only if nothing else is legal
# Naming a color (name_most_held): each card held of it, then switch_to_void's pull
# towards a color the next player drew on (held: above any count; not held: a tie-break).
NAME_HELD_WEIGHT = 10.0
NAME_VOID_HELD = 1000.0
NAME_VOID_UNHELD = 5.0


@jit
def fewest_other(S: State, C: Config, p: int) -> int:
    """Fewest cards in another hand still in the round."""
    hands, seat = S.hands, S.seat
    best = 1 << 30
    for q in range(C.ci[C_PLAYERS]):
        if q != p and seat[q, SEAT_ALIVE] != 0 and hands[q, H_SIZE] < best:
            best = hands[q, H_SIZE]
    return best


@jit
def is_reserve(C: Config, k: int) -> bool:
    """Could ``k`` ever be stacked on (or deflect) a pending draw under this config's switches?"""
    ci, fx = C.ci, C.fx
    if (ruled(C) and ci[C_DEFLECT] != 0 and C.kc[k] >= 0
            and (fx[k, FX_SKIP] != 0 or fx[k, FX_REVERSE] != 0)):
        return True
    if fx[k, FX_DRAW] == 0:
        return False
    if fx[k, FX_WILD] != 0:
        return ci[C_STACK_WD4_WD4] != 0 or ci[C_STACK_WD4_D2] != 0
    return ci[C_STACK_D2_D2] != 0 or ci[C_STACK_D2_WD4] != 0


@jit
def reserve_held(S: State, C: Config, p: int) -> int:
    n = 0
    stk, ci = C.stk, C.ci
    for i in range(MAX_KINDS):
        k = stk[i]
        if k < 0:
            break
        if is_reserve(C, k):
            n += S.hands[p, k]
    if ruled(C) and ci[C_DEFLECT] != 0:  # every Skip and Reverse can deflect
        for sym in (ci[C_SKIP_SYM], ci[C_REVERSE_SYM]):
            if sym >= 0:
                for c in range(NCOLORS):
                    n += S.hands[p, colored_kind(C, c, sym)]
    return n


@jit
def situation(S: State, C: Config, p: int, turn: bool) -> tuple[int, float, float, float,
                                                                   float, float]:
    """What the situational habits make of the table, once per decision:
    (next seat, bonus of a Draw Two or Skip, of the WD4, of a Reverse,
    points weight, bonus of the last reserve card)."""
    s, hands, pp = S.s, S.hands, C.pp
    d = s[S_DIR]
    nxt = next_alive(S, C, p, d)
    nsz = hands[nxt, H_SIZE]
    dump = 0.0
    if turn and pp[p, P_DUMP] != 0:
        # dump_high_value: an opponent is nearly out, and before this seat
        short = fewest_other(S, C, p)
        if short <= pp[p, P_DUMP_AT] and hands[p, H_SIZE] > short:
            dump = DUMP_WEIGHT
    # save_attack: a Draw Two or Skip waits for a next hand of attack_at cards or fewer
    action = 0.0
    if pp[p, P_ATTACK] != 0:
        if nsz <= pp[p, P_ATTACK_AT]:
            action = ATTACK
        elif dump == 0.0:
            action = HOLD_ACTION
    # hold_wd4: the WD4 waits until it is legal (it is, to be scored) and useful
    wd4 = 0.0
    if pp[p, P_HOLD_WD4] != 0:
        wd4 = ATTACK if nsz <= pp[p, P_WD4_AT] else HOLD_WD4
    # reverse_away: turn play away from a next player about to go out
    reverse = 0.0
    if (turn and pp[p, P_REVERSE] != 0 and s[S_NALIVE] >= 3 and nsz <= pp[p, P_REVERSE_AT]
            and hands[next_alive(S, C, p, -d), H_SIZE] > nsz):
        reverse = REVERSE_AWAY
    # keep_stack_reserve: the last stackable card stays to bounce a penalty
    reserve = 0.0
    if turn and pp[p, P_RESERVE] != 0 and reserve_held(S, C, p) == 1:
        reserve = KEEP_RESERVE
    return nxt, action, wd4, reverse, dump, reserve


@jit
def wild_score(C: Config, p: int, k: int, wd4: float, dump: float, reserve: float) -> float:
    """How much ``p``'s habits want to play the wild ``k`` now, given the `situation`."""
    pp = C.pp
    sc = dump * C.points[k]
    # shed_points: the most points first (wilds and action cards early)
    if pp[p, P_SHED] != 0:
        sc += C.points[k]
    if C.fx[k, FX_DRAW] > 0:
        sc += wd4  # a wild draw card (WD4); numbers_first puts it last (tier 0)
        if reserve != 0.0 and is_reserve(C, k):
            sc += reserve
    elif pp[p, P_NUMBERS] != 0:
        sc += TIER_WILD
    return sc


@jit
def colored_score(S: State, C: Config, p: int, k: int, c: int, nxt: int,
                  action: float, reverse: float, dump: float, reserve: float) -> float:
    """How much ``p``'s habits want to play ``k`` (color ``c``) now."""
    pp = C.pp
    sc = dump * C.points[k]
    if pp[p, P_SHED] != 0:
        sc += C.points[k]
    face = C.face[k]
    if face >= 0:
        # numbers_first: numbers (high first), then actions, then wilds
        if pp[p, P_NUMBERS] != 0:
            sc += TIER_NUMBER + face
    else:
        if pp[p, P_NUMBERS] != 0:
            sc += TIER_ACTION
        fx = C.fx
        if fx[k, FX_DRAW] > 0 or fx[k, FX_SKIP] != 0 or fx[k, FX_SKIP_ALL] != 0:
            sc += action  # a card that costs the next player their turn
        elif fx[k, FX_REVERSE] != 0:
            sc += reverse
        if reserve != 0.0 and is_reserve(C, k):
            sc += reserve
    # keep_colors: play from the color held most, so the short colors stay in hand
    if pp[p, P_KEEP_COLORS] != 0:
        sc += KEEP_COLORS_WEIGHT * S.hands[p, H_SUIT + c]
    # switch_to_void: change to a color the next player drew on
    if pp[p, P_VOID] != 0 and c != S.s[S_COLOR] and S.voids[nxt, c] != 0:
        sc += SWITCH_TO_VOID
    return sc


@jit
def turn_card(S: State, C: Config, p: int) -> int:
    """The legal card ``p``'s habits rank first; -1 if none is legal.

    A turn's decision is the inner loop of every simulation, so the legal
    cards are visited by class, as `uniform_card` counts them: the active
    color, the top's rank in the other colors, the wilds."""
    s, hands = S.s, S.hands
    if ruled(C) and hands[p, H_SIZE] == 1 and C.ci[C_NO_ACTION_FINISH] != 0:
        return last_card_play(S, C, p)
    nxt, action, wd4, reverse, dump, reserve = situation(S, C, p, True)
    best, bscore = -1, -1e18
    c0 = s[S_COLOR]
    ci = C.ci
    if hands[p, H_SUIT + c0] > 0:
        for r in range(ci[C_NCOL]):
            k = colored_kind(C, c0, r)
            if hands[p, k] > 0:
                sc = colored_score(S, C, p, k, c0, nxt, action, reverse, dump, reserve)
                if sc > bscore:
                    best, bscore = k, sc
    t = top_card(S)
    if C.kc[t] >= 0:
        tr = C.sym[t]
        for c in range(NCOLORS):
            k = colored_kind(C, c, tr)
            if c != c0 and hands[p, k] > 0:
                sc = colored_score(S, C, p, k, c, nxt, action, reverse, dump, reserve)
                if sc > bscore:
                    best, bscore = k, sc
    wo, fx = C.wo, C.fx
    for i in range(ci[C_NK] - ci[C_WBASE]):
        k = wo[i]
        if hands[p, k] > 0 and (fx[k, FX_COND] == 0 or wd4_ok(S, C, p)):
            sc = wild_score(C, p, k, wd4, dump, reserve)
            if sc > bscore:
                best, bscore = k, sc
    return best


@jit
def name_color(S: State, C: Config, p: int) -> int:
    """name_most_held (else uniform), with switch_to_void: a color the next
    player drew on wins if ``p`` holds any of it."""
    hands, pp = S.hands, C.pp
    if pp[p, P_NAME_MOST] == 0:
        return rng_int(S.rng, NCOLORS)
    nxt = next_alive(S, C, p, S.s[S_DIR])
    void = pp[p, P_VOID] != 0
    best, bscore = 0, -1.0
    for c in range(NCOLORS):
        n = hands[p, H_SUIT + c]
        sc = NAME_HELD_WEIGHT * n
        if void and S.voids[nxt, c] != 0:
            sc += NAME_VOID_HELD if n > 0 else NAME_VOID_UNHELD
        if sc > bscore:
            best, bscore = c, sc
    return best


@jit
def smallest_hand(S: State, C: Config, p: int) -> int:
    """target_by_size: the other seat with the fewest cards, nearest in turn order."""
    hands = S.hands
    d = S.s[S_DIR]
    q = next_alive(S, C, p, d)
    best, bn = q, hands[q, H_SIZE]
    for _ in range(S.s[S_NALIVE] - 2):
        q = next_alive(S, C, q, d)
        if hands[q, H_SIZE] < bn:
            best, bn = q, hands[q, H_SIZE]
    return best


@jit
def random_other(S: State, C: Config, p: int) -> int:
    """A uniformly chosen other seat still in the round."""
    r = rng_int(S.rng, S.s[S_NALIVE] - 1)
    for q in range(C.ci[C_PLAYERS]):
        if q != p and S.seat[q, SEAT_ALIVE] != 0:
            if r == 0:
                return q
            r -= 1
    return p


@jit
def wd4_illegal_chance(S: State, C: Config, p: int) -> float:
    """The chance the WD4 ``p`` faces was illegal, from what ``p`` can see.

    Its player kept ``n`` cards (a public size), dealt from the cards ``p``
    cannot see: the deck less ``p``'s hand and the discard pile. Holding one
    of the color active before it (or, where wilds block it, a W or WX)
    made it illegal; the chance ``h`` of that is hypergeometric. A player
    known to have drawn on that color since taking any card holds none of
    it (``voids``). Only a bluff plays an illegal WD4, so with the player's
    declared bluff rate ``b`` (the config is public) the chance is
    ``h b / (h b + 1 - h)``: a seat that never bluffs is never challenged."""
    s, hands, piles = S.s, S.hands, S.piles
    w = s[S_WD4_PLAYER]
    c = s[S_WD4_COLOR]
    block = C.ci[C_WD4_WILDS_BLOCK] != 0
    colored = S.voids[w, c] == 0
    fx, kc = C.fx, C.kc
    total, bad = 0, 0
    for k in range(C.ci[C_NK]):
        unseen = C.dc[k] - hands[p, k]
        total += unseen
        if ((colored and kc[k] == c)
                or (block and kc[k] < 0 and fx[k, FX_COND] == 0)):
            bad += unseen
    for i in range(s[S_NDISC]):
        k = face_of(S, piles[1, i])
        total -= 1
        if ((colored and kc[k] == c)
                or (block and kc[k] < 0 and fx[k, FX_COND] == 0)):
            bad -= 1
    clean = 1.0
    for i in range(hands[w, H_SIZE]):
        if total - i <= 0:
            break
        clean *= max(0, total - bad - i) / (total - i)
    b = C.pp[w, P_BLUFF]
    held = (1.0 - clean) * b
    return held / (held + clean) if held > 0.0 else 0.0


@jit
def stack_card(S: State, C: Config, p: int) -> int:
    """The stackable card the habits rank first (an illegal WD4 only at the
    bluff rate); -1 to accept."""
    pp, stk, fx = C.pp, C.stk, C.fx
    nxt, action, wd4, reverse, dump, reserve = situation(S, C, p, False)
    best, bscore = -1, -1e18
    for i in range(MAX_KINDS):
        k = stk[i]
        if k < 0:
            break
        if not can_stack(S, C, p, k):
            continue
        if fx[k, FX_COND] != 0 and not wd4_ok(S, C, p) and not chance(S.rng, pp[p, P_BLUFF]):
            continue
        if fx[k, FX_WILD] != 0:
            sc = wild_score(C, p, k, wd4, dump, reserve)
        else:
            sc = colored_score(S, C, p, k, C.kc[k], nxt, action, reverse, dump, reserve)
        if sc > bscore:
            best, bscore = k, sc
    if ruled(C) and C.ci[C_DEFLECT] != 0:
        for i in range(2):
            k = deflect_kind(S, C, i)
            if can_deflect(S, C, p, k):
                sc = colored_score(S, C, p, k, C.kc[k], nxt, action, reverse,
                                   dump, reserve) + deflect_gain(S, C, p, k)
                if sc > bscore:
                    best, bscore = k, sc
    return best


@jit
def deflect_gain(S: State, C: Config, p: int, k: int) -> float:
    """target_by_size (strategic): a Reverse that sends the draw back is worth more
    when the player it goes back to holds fewer cards than the next one, less
    otherwise (a Skip, like a stack, hits the next player)."""
    if C.pp[p, P_TARGET] == 0 or C.fx[k, FX_REVERSE] == 0:
        return 0.0
    d = S.s[S_DIR]
    back = S.hands[next_alive(S, C, p, -d), H_SIZE]
    ahead = S.hands[next_alive(S, C, p, d), H_SIZE]
    return DEFLECT_BACK if back < ahead else -DEFLECT_BACK if back > ahead else 0.0


@jit
def jump_choice(S: State, C: Config, p: int) -> int:
    """The card to jump in with: the top card's twin, else (``same_number``)
    the same number in the color held most."""
    t = top_card(S)
    if jump_card_ok(S, C, p, t, t):
        return t
    best, bn = A_PASS, -1
    for c in range(NCOLORS):
        k = colored_kind(C, c, C.sym[t])
        if jump_card_ok(S, C, p, k, t) and S.hands[p, H_SUIT + c] > bn:
            best, bn = k, S.hands[p, H_SUIT + c]
    return best


@jit
def drop_choice(S: State, C: Config, p: int) -> int:
    """multiple_play: the next card of the number to drop, or pass. Cards go
    from the color held least, so the color held most ends on top; a
    keep_colors seat keeps a card that is the last of its color."""
    r = C.sym[top_card(S)]
    best, bn = A_PASS, 1 << 30
    for c in range(NCOLORS):
        k = colored_kind(C, c, r)
        n = S.hands[p, H_SUIT + c]
        if S.hands[p, k] > 0 and n < bn and not (C.pp[p, P_KEEP_COLORS] != 0 and n == 1):
            best, bn = k, n
    return best


@jit
def bluff_card(S: State, C: Config, p: int) -> int:
    """The first conditioned wild (the WD4) ``p`` holds, in the turn's order; -1 none."""
    wo, fx = C.wo, C.fx
    for i in range(C.ci[C_NK] - C.ci[C_WBASE]):
        k = wo[i]
        if fx[k, FX_COND] != 0 and S.hands[p, k] > 0:
            return k
    return -1


def _no_habits(S: State, C: Config) -> int:
    return -1  # unreachable: a config without habit seats compiles this instead


@optional(HABITS, _no_habits)
def habit_action(S: State, C: Config) -> int:
    """The decision of a habit policy's seat, in any phase (compiled only for a
    config with habit seats, or a search seat whose playouts may use them)."""
    s, pp = S.s, C.pp
    ph = s[S_PHASE]
    p = s[S_CUR]
    if ph == PH_TURN:
        # bluff_rate: an illegal WD4 (a conditioned card) is played anyway, at
        # this rate per turn
        b = bluff_card(S, C, p)
        if (b >= 0 and pp[p, P_BLUFF] > 0.0 and not wd4_ok(S, C, p)
                and chance(S.rng, pp[p, P_BLUFF])):
            return b
        k = turn_card(S, C, p)
        return A_DRAW if k < 0 else k
    if ph == PH_DRAWN:
        if ruled(C) and C.ci[C_DRAW_THEN_PLAY] == THEN_ANY:  # any legal card: the habits' first
            k = turn_card(S, C, p)
            return A_PASS if k < 0 else k
        return s[S_DRAWN]
    if ph == PH_COLOR:
        return A_COLOR + name_color(S, C, p)
    if ph == PH_PENDING:
        if (pp[p, P_CHALLENGE] < 1.0 and challengeable(S, C)
                and wd4_illegal_chance(S, C, p) > pp[p, P_CHALLENGE]):
            return A_CHALLENGE
        k = stack_card(S, C, p)
        return A_ACCEPT if k < 0 else k
    if ph == PH_TARGET:
        if pp[p, P_TARGET] != 0:
            return A_TARGET + smallest_hand(S, C, p)
        return A_TARGET + random_other(S, C, p)
    if ph == PH_JUMP:
        if not chance(S.rng, pp[p, P_JUMP]):
            return A_PASS
        if ruled(C) and C.ci[C_JUMP_IN] == JUMP_SAME_NUMBER:
            return jump_choice(S, C, p)
        return top_card(S)
    if ph == PH_MULTI:
        return drop_choice(S, C, p)
    return -1
