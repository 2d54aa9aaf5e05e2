"""The rules of UNO, compiled: legality, turn flow and the action interface.

One implementation for every caller: the batch loop (`unosim.engine.kernel.batch`)
and the Python façade (`unosim.engine.game`) drive the same functions. The
round is a state machine: `apply_action` runs the rules forward until the
next decision (a ``PH_*`` phase naming who must choose) or the end. The deal
and first flip are `unosim.engine.kernel.deal`, drawing `unosim.engine.kernel.table`.
Rule decisions the rules leave open are in docs/rules.md §10 and
docs/DECISIONS.md.

What each card does (docs/rules.md sections in brackets):

=================  ====================================================================
card               effect
=================  ====================================================================
number 0-9         none; matches its color or number [3]
Skip               the next player loses their turn [3]
Reverse            direction flips; with two players and ``two_player_reverse`` it
                   skips the opponent instead [3, 10]
Draw Two           the next player draws two and loses their turn, unless they stack [3, 6]
Wild               the player names any color [3]
Wild Draw Four     names a color; legal only without a card of the active color (with
                   ``wd4_wilds_block``, without a W or WX either); the next player
                   accepts (draws four, loses the turn), stacks, or challenges: an
                   illegal play costs its player four, a legal one the challenger six [3]
special wild (WX)  a wild, then the edition's effect [4] (`unosim.engine.kernel.specials`):
                   Movie Madness, the chosen player fails at a rate and draws four;
                   Wishing Star, every other player shows an icon card or draws until
                   one comes; Don't Talk, the chosen player is silenced (a slip costs
                   three cards) until someone calls UNO
last card          ends the round; its pending draw still happens and counts [5]
first flip         ``apply``: the flipped card acts on the first player (a WD4 goes back
                   into the pile); ``redraw``: flip until a number card [2, 10]
                   (`unosim.engine.kernel.deal`)
=================  ====================================================================

House rules (all off by default) [6]:

==================  ===================================================================
switch              effect
==================  ===================================================================
stacking (4)        a pending Draw Two / WD4 may be answered with another (which pairs:
                    one switch each); the last player draws the total [6, 10]
jump_in             after a play resolves, the first player in turn order holding its
                    twin (never a wild) may play it out of turn [6, 10]
seven_o             a 7 swaps hands with a chosen player; a 0 passes every hand on [6]
draw_until_play     a turn's draw goes on until a playable card comes, which is played [6]
two_player_reverse  see Reverse [3, 10]
==================  ===================================================================
"""

from __future__ import annotations

from numpy.typing import NDArray

from unosim.engine.kernel.effects import (
    discard_color,
    draw_until,
    draw_until_color,
    effects_on,
    knock_out,
    over_limit,
)
from unosim.engine.kernel.events import emit
from unosim.engine.kernel.flip import (
    card_code,
    color_code,
    flip_on,
    pick,
    release,
    swap_held,
    turn_over,
)
from unosim.engine.kernel.jit import jit, jit_inline, optional
from unosim.engine.kernel.known import (
    forget_all_known,
    known_play,
    known_reveal,
    known_rotate,
    known_swap,
)
from unosim.engine.kernel.rng import chance
from unosim.engine.kernel.rulings import (
    can_deflect,
    deflect_kind,
    finish_ok,
    jump_card_ok,
    jump_ok,
    ruled,
    same_number_held,
)
from unosim.engine.kernel.scoring import round_points
from unosim.engine.kernel.specials import do_special, end_silences, needs_target, slip
from unosim.engine.kernel.state import (
    A_ACCEPT,
    A_CHALLENGE,
    A_COLOR,
    A_DRAW,
    A_PASS,
    A_TARGET,
    C_CHALLENGE,
    C_DEFLECT,
    C_DRAW_THEN_PLAY,
    C_DRAW_UNTIL_PLAY,
    C_FORCED_PLAY,
    C_JUMP_IN,
    C_LAST_CARD_DRAWS,
    C_MAX_TURNS,
    C_MERCY,
    C_MULTIPLE_PLAY,
    C_NK,
    C_NO_ACTION_FINISH,
    C_PLAYERS,
    C_SEVEN_O,
    C_SEVEN_O_PASS,
    C_SEVEN_O_SWAP,
    C_STACK_D2_D2,
    C_STACK_D2_WD4,
    C_STACK_VALUE,
    C_STACK_WD4_D2,
    C_STACK_WD4_WD4,
    C_TWO_PLAYER_REVERSE,
    C_UNO_PENALTY,
    C_WBASE,
    C_WD4_FREE,
    C_WD4_WILDS_BLOCK,
    CAUSE_CHALLENGE,
    CAUSE_DRAW2,
    CAUSE_DRAW_UNTIL,
    CAUSE_STACK,
    CAUSE_TURN,
    CAUSE_UNO,
    CAUSE_WD4,
    COLOR_FLIP,
    COLOR_PLAYED,
    COLOR_ROULETTE,
    COLOR_TURNED,
    EFFECTS,
    EV_CHALLENGE,
    EV_END,
    EV_FLIP_ALL,
    EV_JUMP,
    EV_PLAY,
    EV_REVERSE,
    EV_ROTATE,
    EV_SKIP,
    EV_SKIP_ALL,
    EV_SWAP,
    EV_TURN,
    EV_UNO,
    F_UNO_CATCH,
    F_UNO_FORGET,
    FLIP,
    H_SIZE,
    H_SUIT,
    JUMP_IDENTICAL,
    NA,
    NCOLORS,
    P_BLUFF,
    P_CALL_UNO,
    PASS_LEFT,
    PH_COLOR,
    PH_DONE,
    PH_DRAWN,
    PH_JUMP,
    PH_MULTI,
    PH_MULTI_PASS,
    PH_PENDING,
    PH_TARGET,
    PH_TURN,
    R_CHALLENGES,
    R_JUMPS,
    R_PLAYED,
    R_POINTS,
    R_SWAPS,
    R_TURNS,
    R_WINNER,
    S_CHAIN,
    S_COLOR,
    S_COLOR_CTX,
    S_CUR,
    S_DEFLECTED,
    S_DIR,
    S_DRAWN,
    S_FIRSTP,
    S_JUMP_I,
    S_KNOW,
    S_LASTK,
    S_LASTP,
    S_NALIVE,
    S_NDISC,
    S_NEXT,
    S_PEND,
    S_PEND_KIND,
    S_PHASE,
    S_PID,
    S_SIDE,
    S_STACK_TURN,
    S_TARGET_CTX,
    S_TGT,
    S_WD4_COLOR,
    S_WD4_LEGAL,
    S_WD4_PLAYER,
    SEAT_ALIVE,
    SEAT_MERCY,
    SEAT_SILENCED,
    SWAP_NEXT,
    TGT_SPECIAL,
    TGT_SWAP,
    THEN_ANY,
    Config,
    State,
)
from unosim.engine.kernel.table import (
    clear_voids,
    close_draw,
    copy_hand,
    draw_n,
    draw_one,
    forget_voids,
    next_alive,
    open_draw,
    remove_card,
    top_card,
    top_code,
)
from unosim.rules.cards import CHALLENGE_LOST_EXTRA
from unosim.rules.effects import (
    ACT_DRAW,
    ACT_EFFECTS,
    ACT_PLAIN,
    ACT_REVERSE,
    ACT_SKIP,
    ACT_SKIP_ALL,
    ACT_SPECIAL,
    ACT_WILD_DRAW,
    FX_CHALLENGE,
    FX_COND,
    FX_DISCARD_COLOR,
    FX_DRAW,
    FX_DRAW_UNTIL,
    FX_FLIP,
    FX_NAMER,
    FX_REVERSE,
    FX_ROTATE,
    FX_SKIP,
    FX_SKIP_ALL,
    FX_STACK,
    FX_SWAP,
    FX_WILD,
)
from unosim.rules.limits import MAX_KINDS

SWAP_RANK, ROTATE_RANK = 7, 0  # Seven-O


# --- legality (docs/rules.md §3) ----------------------------------------------------------
@jit
def wilds_block(C: Config, hand: NDArray) -> bool:
    """Where the edition says wilds match the color (``wd4_wilds_block``), does
    ``hand`` (a hand row) hold a wild without a legality condition?"""
    if C.ci[C_WD4_WILDS_BLOCK] == 0:
        return False
    fx = C.fx
    for k in range(C.ci[C_WBASE], C.ci[C_NK]):
        if hand[k] > 0 and fx[k, FX_COND] == 0:
            return True
    return False


@jit
def wd4_ok(S: State, C: Config, p: int) -> bool:
    """A card with the ``only_without_color`` condition (the Wild Draw Four) is
    legal only without another card of the active color (and, where the
    edition says wilds match the color, without an unconditioned wild); always
    under wd4_unrestricted (docs/rules.md §12)."""
    if ruled(C) and C.ci[C_WD4_FREE] != 0:
        return True
    if S.hands[p, H_SUIT + S.s[S_COLOR]] > 0:
        return False
    return not wilds_block(C, S.hands[p])


@jit
def can_play(S: State, C: Config, p: int, k: int) -> bool:
    """Legality of kind ``k`` for player ``p`` (whether it is held is not checked)."""
    if ruled(C) and not finish_ok(S, C, p, k):
        return False
    c = C.kc[k]
    if c < 0:  # a wild
        return C.fx[k, FX_COND] == 0 or wd4_ok(S, C, p)
    if c == S.s[S_COLOR]:
        return True
    return C.sym[top_card(S)] == C.sym[k]  # a wild's symbol is no colored kind's


@jit_inline
def can_stack(S: State, C: Config, p: int, k: int) -> bool:
    """May ``p`` add ``k`` to the pending draw (stacking switches + docs/rules.md §3)?

    The switches pair a colored draw card (Draw Two) and a wild one (WD4): each
    kind with a draw effect is one or the other. A conditioned wild meets its
    condition (or is a bluff)."""
    ci, s, fx = C.ci, S.s, C.fx
    if S.hands[p, k] <= 0 or fx[k, FX_DRAW] == 0 or (ruled(C) and not finish_ok(S, C, p, k)):
        return False
    if effects_on(C) and fx[s[S_PEND_KIND], FX_DRAW_UNTIL] != 0:
        return False  # nothing answers a pending draw until color (docs/DECISIONS.md)
    if effects_on(C) and ci[C_STACK_VALUE] != 0:
        # value stacking (docs/rules.md section 11): any color, an equal or higher draw value
        on = fx[k, FX_STACK] >= fx[s[S_PEND_KIND], FX_STACK]
        return on and (fx[k, FX_COND] == 0 or wd4_ok(S, C, p) or C.pp[p, P_BLUFF] > 0)
    wild = fx[k, FX_WILD] != 0
    if fx[s[S_PEND_KIND], FX_WILD] != 0:
        if not wild:
            return ci[C_STACK_D2_WD4] != 0 and C.kc[k] == s[S_COLOR]
        on = ci[C_STACK_WD4_WD4] != 0
    elif wild:
        on = ci[C_STACK_WD4_D2] != 0
    else:
        return ci[C_STACK_D2_D2] != 0
    # the switch first: the condition's hand scan only when it can matter
    return on and (fx[k, FX_COND] == 0 or wd4_ok(S, C, p) or C.pp[p, P_BLUFF] > 0)


@jit
def value_stackable(S: State, C: Config, p: int) -> tuple[int, int]:
    """Value stacking (``effects_on`` and ``C_STACK_VALUE``) without the rulings: the
    cards ``p`` holds that stack on the pending draw with no legality condition, and
    the kinds held of enough value that have one (for which only `can_stack` can say).
    Summed without a branch a kind: a "held?" test was a coin flip the CPU mispredicted."""
    hand, stk, fx = S.hands[p], C.stk, C.fx
    v = fx[S.s[S_PEND_KIND], FX_STACK]
    sure = 0
    cond = 0
    for i in range(MAX_KINDS):
        k = stk[i]
        if k < 0:
            break
        n = hand[k] if fx[k, FX_STACK] >= v else 0
        free = fx[k, FX_COND] == 0
        sure += n if free else 0
        cond += 0 if free or n == 0 else 1
    return sure, cond


@jit
def challengeable(S: State, C: Config) -> bool:
    """May the player facing the pending draw challenge it? Only a challengeable
    card (the WD4) that starts a chain, not once that player has begun a
    stacking turn, not after a deflection, and not where the rulings remove
    the challenge."""
    s, ci = S.s, C.ci
    return (C.fx[s[S_PEND_KIND], FX_CHALLENGE] != 0 and s[S_CHAIN] == 1
            and s[S_STACK_TURN] == 0
            and (not ruled(C) or (s[S_DEFLECTED] == 0 and ci[C_CHALLENGE] != 0
                                  and ci[C_WD4_FREE] == 0)))

@jit
def may_answer(S: State, C: Config, p: int, k: int) -> bool:
    """May ``p`` play ``k`` on the pending draw (stack it, or deflect it)? Nothing
    answers a pending draw until color (docs/DECISIONS.md)."""
    if effects_on(C) and C.fx[S.s[S_PEND_KIND], FX_DRAW_UNTIL] != 0:
        return False
    return can_stack(S, C, p, k) or can_deflect(S, C, p, k)


@jit
def last_card_play(S: State, C: Config, p: int) -> int:
    """``p``'s one card if it is legal to play (no_action_finish: a number), else -1."""
    for k in range(C.ci[C_NK]):
        if S.hands[p, k] > 0:
            return k if can_play(S, C, p, k) else -1
    return -1


@jit
def has_legal(S: State, C: Config, p: int) -> bool:
    """Does ``p`` hold a legal card (forced_play)?"""
    for k in range(C.ci[C_NK]):
        if S.hands[p, k] > 0 and can_play(S, C, p, k):
            return True
    return False


@jit
def pending_choice(S: State, C: Config, p: int) -> bool:
    """Does ``p`` have anything to decide when facing the pending draw?"""
    if challengeable(S, C):
        return True
    if effects_on(C) and C.fx[S.s[S_PEND_KIND], FX_DRAW_UNTIL] != 0:
        return False
    ci, stk = C.ci, C.stk
    if ruled(C) and ci[C_DEFLECT] != 0:  # deflect (docs/rules.md §12), stacking on or off
        for i in range(2):
            if can_deflect(S, C, p, deflect_kind(S, C, i)):
                return True
    if (ci[C_STACK_D2_D2] | ci[C_STACK_D2_WD4] | ci[C_STACK_WD4_D2] | ci[C_STACK_WD4_WD4]
            | ci[C_STACK_VALUE]) == 0:
        return False  # no stacking switch on: nothing can stack (the common table)
    if effects_on(C) and ci[C_STACK_VALUE] != 0 and not ruled(C):
        sure, cond = value_stackable(S, C, p)
        if sure > 0 or cond == 0:
            return sure > 0
    hand = S.hands[p]
    for i in range(MAX_KINDS):
        k = stk[i]
        if k < 0:
            break
        if hand[k] > 0 and can_stack(S, C, p, k):  # held first: no call per kind not held
            return True
    return False


# --- turn flow (docs/rules.md §3, §5, §6) ------------------------------------------------------
@jit
def end_round(S: State, C: Config, w: int) -> None:
    """``w`` went out (-1: stalemate); the round is over."""
    st = S.st
    pts = round_points(S, C, w)
    st[R_WINNER] = w
    st[R_POINTS] = pts
    if effects_on(C) and C.ci[C_MERCY] != 0:  # knocked out of this round only: still in the match
        for q in range(C.ci[C_PLAYERS]):
            if S.seat[q, SEAT_MERCY] != 0:
                S.seat[q, SEAT_MERCY] = 0
                S.seat[q, SEAT_ALIVE] = 1
    S.s[S_PHASE] = PH_DONE
    S.s[S_DEFLECTED] = 0  # a stalemate can end a round mid-deflection
    emit(S, EV_END, w, pts, st[R_TURNS], 0, 0)


@jit
def begin_turn(S: State, C: Config, p: int) -> None:
    """A regular turn starts (or the round stalls at the turn cap, or ends with one
    player left under the mercy rule)."""
    s, st = S.s, S.st
    if effects_on(C) and C.ci[C_MERCY] != 0:
        if s[S_NALIVE] <= 1:
            end_round(S, C, next_alive(S, C, p, 1) if S.seat[p, SEAT_ALIVE] == 0 else p)
            return
        if S.seat[p, SEAT_ALIVE] == 0:  # knocked out since they were named next
            p = next_alive(S, C, p, s[S_DIR])
    if st[R_TURNS] >= C.ci[C_MAX_TURNS]:
        end_round(S, C, -1)
        return
    st[R_TURNS] += 1
    s[S_PHASE] = PH_TURN
    s[S_CUR] = p
    emit(S, EV_TURN, p, color_code(S, s[S_COLOR]), top_code(S), 0, 0)
    if S.seat[p, SEAT_SILENCED] != 0:
        slip(S, C, p)


@jit
def next_turn(S: State, C: Config) -> None:
    begin_turn(S, C, S.s[S_NEXT])


@jit
def start_play(S: State, C: Config, p: int, k: int) -> None:
    """``p`` puts ``k`` on the discard; wilds wait for their color."""
    s, piles, st = S.s, S.piles, S.st
    c = C.kc[k]
    if c < 0 and C.fx[k, FX_COND] != 0:
        s[S_WD4_LEGAL] = 1 if wd4_ok(S, C, p) else 0
        s[S_WD4_PLAYER] = p
        s[S_WD4_COLOR] = s[S_COLOR]
    remove_card(S, C, p, k)
    if s[S_KNOW] != 0:  # checked here: a call per card played costs the kernel ~5%
        known_play(S, C, p, k)
    piles[1, s[S_NDISC]] = release(S, C, p, k)  # the kind; a two-sided deck's card
    s[S_NDISC] += 1
    st[R_PLAYED] += 1
    s[S_LASTP] = p
    s[S_LASTK] = k
    if c < 0:  # a wild: its player names the color
        if effects_on(C) and C.fx[k, FX_DRAW_UNTIL] != 0 and C.fx[k, FX_NAMER] == 0:
            # Color Roulette: its victim names the color
            after_choices(S, C)
            return
        s[S_PHASE] = PH_COLOR
        s[S_CUR] = p
        s[S_COLOR_CTX] = COLOR_PLAYED
        return
    s[S_COLOR] = c
    after_choices(S, C)


@jit
def after_color(S: State, C: Config) -> None:
    s = S.s
    if needs_target(S, C, s[S_LASTK]):
        s[S_PHASE] = PH_TARGET
        s[S_CUR] = s[S_LASTP]
        s[S_TARGET_CTX] = TGT_SPECIAL
        return
    after_choices(S, C)


@jit
def do_uno(S: State, C: Config, p: int) -> None:
    """``p``'s play left one card: they call UNO, or forget and may be caught."""
    rng, cf = S.rng, C.cf
    # a seat whose policy has the call_uno habit never forgets (no random draw)
    if C.pp[p, P_CALL_UNO] != 0 or not chance(rng, cf[F_UNO_FORGET]):
        emit(S, EV_UNO, p, 1, 0, 0, 0)
        end_silences(S, C)
        return
    caught = chance(rng, cf[F_UNO_CATCH])
    emit(S, EV_UNO, p, 0, 1 if caught else 0, 0, 0)
    if caught:
        draw_n(S, C, p, C.ci[C_UNO_PENALTY], CAUSE_UNO)


@jit
def multi_offer(S: State, C: Config, p: int, k: int) -> bool:
    """multiple_play: after a number played on ``p``'s turn (or in the drop), ``p``
    may drop another card of that number before the play resolves."""
    s = S.s
    ph = s[S_PHASE]
    if ((ph == PH_TURN or ph == PH_DRAWN or ph == PH_MULTI) and C.face[k] >= 0
            and same_number_held(S, C, p, k) > 0):
        s[S_PHASE] = PH_MULTI
        s[S_CUR] = p
        return True
    return False


@jit
def after_choices(S: State, C: Config) -> None:
    """Every choice for the play is made: write it and resolve it. The kind's
    action code (``C.act``) is read once: a number card costs one lookup. After
    a multiple_play drop (``PH_MULTI_PASS``) only its last card resolves."""
    s, hands, ci = S.s, S.hands, C.ci
    p, k = s[S_LASTP], s[S_LASTK]
    d = s[S_DIR]
    code = card_code(S, s[S_PID]) if flip_on(S) else k
    if not ruled(C) or ci[C_MULTIPLE_PLAY] == 0:
        emit(S, EV_PLAY, p, code, color_code(S, s[S_COLOR]), 0, 0)
    elif s[S_PHASE] != PH_MULTI_PASS:
        emit(S, EV_PLAY, p, code, color_code(S, s[S_COLOR]), 0, 0)
        if multi_offer(S, C, p, k):
            return
    act = C.act[k]
    if act >= ACT_SPECIAL:
        do_special(S, C, p)
        act -= ACT_SPECIAL
    if effects_on(C) and act == ACT_EFFECTS and C.fx[k, FX_DISCARD_COLOR] != 0:
        discard_color(S, C, p, k)  # before the UNO call and the last-card check
    if hands[p, H_SIZE] == 1:
        do_uno(S, C, p)
    victim = next_alive(S, C, p, d)
    if hands[p, H_SIZE] == 0:
        # last card: its draw still happens and counts in scoring (a Color
        # Roulette's does not: docs/DECISIONS.md)
        dr = C.fx[k, FX_DRAW]
        if dr > 0:
            if not ruled(C) or ci[C_LAST_CARD_DRAWS] != 0:
                if effects_on(C) and act == ACT_EFFECTS and C.fx[k, FX_REVERSE] != 0:
                    victim = next_alive(S, C, p, -d)  # reverse, then the draw
                total = s[S_PEND] + dr
                chain = s[S_CHAIN] + 1
                wild = C.fx[k, FX_WILD] != 0
                cause = CAUSE_STACK if chain >= 2 else (CAUSE_WD4 if wild else CAUSE_DRAW2)
                draw_n(S, C, victim, total, cause)
                mercy(S, C, victim)
        elif ruled(C) and s[S_PEND] > 0:
            deflect_last(S, C, p, k)
        elif effects_on(C) and act == ACT_EFFECTS:
            last_effects(S, C, p, k, victim)
        s[S_PEND] = 0
        s[S_CHAIN] = 0
        end_round(S, C, p)
        return
    if act == ACT_PLAIN:
        if ci[C_SEVEN_O] != 0 and s[S_NALIVE] > 1 and C.face[k] == SWAP_RANK:
            if ruled(C) and ci[C_SEVEN_O_SWAP] == SWAP_NEXT:
                seven_swap(S, C, p, victim)
                return
            s[S_PHASE] = PH_TARGET
            s[S_CUR] = p
            s[S_TARGET_CTX] = TGT_SWAP
            return
        if ci[C_SEVEN_O] != 0 and C.face[k] == ROTATE_RANK:
            rotate_hands(S, C, 1 if ruled(C) and ci[C_SEVEN_O_PASS] == PASS_LEFT else d)
            mercy_all(S, C, p)
        s[S_NEXT] = victim
    elif act == ACT_WILD_DRAW or act == ACT_DRAW:
        pend_draw(S, C, k, victim)
        return
    elif act == ACT_SKIP:
        if ruled(C) and s[S_PEND] > 0:  # deflect: the pending draw moves on
            deflect(S, C, p, k)
            return
        emit(S, EV_SKIP, victim, 0, 0, 0, 0)
        s[S_NEXT] = next_alive(S, C, victim, d)
    elif act == ACT_SKIP_ALL:
        skip_all(S, C, p)
    elif act == ACT_REVERSE:
        if ruled(C) and s[S_PEND] > 0:
            deflect(S, C, p, k)
            return
        # the switch applies only with two seats in play
        if s[S_NALIVE] == 2 and ci[C_TWO_PLAYER_REVERSE] != 0:
            emit(S, EV_SKIP, victim, 0, 0, 0, 0)
            s[S_NEXT] = p
        else:
            s[S_DIR] = -d
            emit(S, EV_REVERSE, -d, 0, 0, 0, 0)
            s[S_NEXT] = next_alive(S, C, p, -d)
    elif effects_on(C) and act == ACT_EFFECTS:
        resolve_effects(S, C, p, k, victim)
        return
    else:  # ACT_WILD
        s[S_NEXT] = victim
    resolved(S, C)


def _no_effects(S: State, C: Config, p: int, k: int, victim: int) -> None:
    return None  # unreached: a config without the feature has no such kind


def _no_roulette(S: State, C: Config, v: int) -> None:
    return None  # unreached: only resolve_effects asks for a roulette's color


def _no_mercy(S: State, C: Config, q: int) -> bool:
    return False


def _no_mercy_all(S: State, C: Config, p: int) -> None:
    return None


# Section 11's code sits behind the EFFECTS feature (unosim.engine.kernel.jit.optional):
# a table that cannot reach it (classic) compiles none of it.
@optional(EFFECTS, _no_effects)
def resolve_effects(S: State, C: Config, p: int, k: int, victim: int) -> None:
    """A kind with section 11's effects or several actions (``ACT_EFFECTS``), in a
    fixed order: reverse, then a hand swap or rotation, a Color Roulette, a draw,
    a skip (docs/rules.md section 11; the discard came before the UNO call)."""
    s, ci, fx = S.s, C.ci, C.fx
    d = s[S_DIR]
    if fx[k, FX_REVERSE] != 0:
        if s[S_NALIVE] == 2 and ci[C_TWO_PLAYER_REVERSE] != 0 and fx[k, FX_DRAW] == 0:
            emit(S, EV_SKIP, victim, 0, 0, 0, 0)
            s[S_NEXT] = p
            resolved(S, C)
            return
        d = -d
        s[S_DIR] = d
        emit(S, EV_REVERSE, d, 0, 0, 0, 0)
        victim = next_alive(S, C, p, d)  # the next player in the new direction
    if fx[k, FX_FLIP] != 0:
        flip_play(S, C, p)
        return
    if fx[k, FX_SWAP] != 0 and s[S_NALIVE] > 1:
        if ruled(C) and ci[C_SEVEN_O_SWAP] == SWAP_NEXT:
            seven_swap(S, C, p, victim)
            return
        s[S_PHASE] = PH_TARGET
        s[S_CUR] = p
        s[S_TARGET_CTX] = TGT_SWAP
        return
    if fx[k, FX_ROTATE] != 0:
        rotate_hands(S, C, 1 if ruled(C) and ci[C_SEVEN_O_PASS] == PASS_LEFT else d)
        mercy_all(S, C, p)
        s[S_NEXT] = next_alive(S, C, p, d)
    elif fx[k, FX_DRAW_UNTIL] != 0:
        if fx[k, FX_NAMER] != 0:  # Wild Draw Color: a pending draw, challengeable
            pend_draw(S, C, k, victim)
            return
        s[S_PHASE] = PH_COLOR
        s[S_CUR] = victim
        s[S_COLOR_CTX] = COLOR_ROULETTE
        return
    elif fx[k, FX_DRAW] > 0:
        pend_draw(S, C, k, victim)
        return
    elif fx[k, FX_SKIP_ALL] != 0:
        skip_all(S, C, p)
    elif fx[k, FX_SKIP] != 0:
        emit(S, EV_SKIP, victim, 0, 0, 0, 0)
        s[S_NEXT] = next_alive(S, C, victim, d)
    else:
        s[S_NEXT] = victim
    resolved(S, C)


def _no_last(S: State, C: Config, p: int, k: int, victim: int) -> None:
    return None


@optional(EFFECTS, _no_last)
def last_effects(S: State, C: Config, p: int, k: int, victim: int) -> None:
    """A last card's section 11 effects that still happen: a Wild Draw Color's draw
    (its player named the color), a Flip (the round is scored on the new side)."""
    fx = C.fx
    if fx[k, FX_DRAW_UNTIL] != 0 and fx[k, FX_NAMER] != 0:
        draw_until(S, C, victim, S.s[S_COLOR], CAUSE_DRAW_UNTIL, 0)
    elif flip_on(S) and fx[k, FX_FLIP] != 0:
        turned(S, C)
        t = top_card(S)
        c = C.kc[t]
        if c >= 0:
            S.s[S_COLOR] = c
        emit(S, EV_FLIP_ALL, p, S.s[S_SIDE], color_code(S, c), 0, 0)


@jit
def turned(S: State, C: Config) -> None:
    """Everything turned over (a Flip): hands, and what the seats remember of them."""
    turn_over(S, C)
    forget_voids(S, C)  # the colors mean the other side's now
    forget_all_known(S, C)


@jit
def flip_play(S: State, C: Config, p: int) -> None:
    """A Flip card: the other side is in play; the new top face gives the color, or
    (a wild face) its player names one. Then the next player plays."""
    s = S.s
    turned(S, C)
    c = C.kc[top_card(S)]
    if c < 0:
        s[S_PHASE] = PH_COLOR
        s[S_CUR] = p
        s[S_COLOR_CTX] = COLOR_TURNED
        return
    s[S_COLOR] = c
    flipped(S, C, p)


@jit
def flipped(S: State, C: Config, p: int) -> None:
    """The Flip has turned everything and the color is set: write it, play on."""
    s = S.s
    emit(S, EV_FLIP_ALL, p, s[S_SIDE], color_code(S, s[S_COLOR]), 0, 0)
    s[S_NEXT] = next_alive(S, C, p, s[S_DIR])
    resolved(S, C)


def _no_first(S: State, C: Config) -> None:
    return None  # unreached: only a two-sided deck has a Flip card


@optional(FLIP, _no_first)
def flip_first(S: State, C: Config) -> None:
    """A Flip card turned up by the first flip: everything turns to the other side
    before the first turn; a wild face's color is named by the first player."""
    s = S.s
    turned(S, C)
    c = C.kc[top_card(S)]
    emit(S, EV_FLIP_ALL, -1, s[S_SIDE], color_code(S, c), 0, 0)
    fp = s[S_FIRSTP]
    if c < 0:
        s[S_COLOR] = 0
        s[S_PHASE] = PH_COLOR
        s[S_CUR] = fp
        s[S_COLOR_CTX] = COLOR_FLIP
        return
    s[S_COLOR] = c
    begin_turn(S, C, fp)


@optional(EFFECTS, _no_roulette)
def roulette(S: State, C: Config, v: int) -> None:
    """Color Roulette: ``v`` named the color; they draw until it comes and lose the turn."""
    s = S.s
    draw_until_color(S, C, v, s[S_COLOR])
    if not mercy(S, C, v):
        emit(S, EV_SKIP, v, 0, 0, 0, 0)
    s[S_NEXT] = next_alive(S, C, v, s[S_DIR])
    resolved(S, C)


@optional(EFFECTS, _no_mercy)
def mercy(S: State, C: Config, q: int) -> bool:
    """The mercy rule, after ``q`` took cards: out at the limit (docs/rules.md section 11)."""
    if over_limit(S, C, q):
        knock_out(S, C, q)
        return True
    return False


@optional(EFFECTS, _no_mercy_all)
def mercy_all(S: State, C: Config, p: int) -> None:
    """The mercy rule after hands moved: every seat at the limit, in turn order from ``p``."""
    if C.ci[C_MERCY] == 0:
        return
    q = p
    for _ in range(C.ci[C_PLAYERS]):
        mercy(S, C, q)
        q += 1
        if q >= C.ci[C_PLAYERS]:
            q = 0


@jit
def deflect(S: State, C: Config, p: int, k: int) -> None:
    """deflect: a Reverse sends the pending draw back in the new direction, a Skip
    passes it to the player after ``p``; the total moves on unchanged."""
    s = S.s
    d = s[S_DIR]
    if C.fx[k, FX_REVERSE] != 0:
        s[S_DIR] = -d
        emit(S, EV_REVERSE, -d, 0, 0, 0, 0)
        d = -d
    s[S_DEFLECTED] = 1
    goto_pending(S, C, next_alive(S, C, p, d))


@jit
def deflect_last(S: State, C: Config, p: int, k: int) -> None:
    """A deflecting last card: the draw still moves on and counts (last_card_draws)."""
    s = S.s
    if C.ci[C_LAST_CARD_DRAWS] == 0:
        return
    d = -s[S_DIR] if C.fx[k, FX_REVERSE] != 0 else s[S_DIR]
    cause = CAUSE_STACK if s[S_CHAIN] >= 2 else (
        CAUSE_WD4 if C.fx[s[S_PEND_KIND], FX_WILD] != 0 else CAUSE_DRAW2)
    draw_n(S, C, next_alive(S, C, p, d), s[S_PEND], cause)


@jit
def seven_swap(S: State, C: Config, p: int, t: int) -> None:
    """Seven-O: ``p`` swaps hands with ``t``; the play has resolved."""
    s = S.s
    swap_hands(S, C, p, t)
    known_swap(S, C, p, t)
    S.st[R_SWAPS] += 1
    emit(S, EV_SWAP, p, t, 0, 0, 0)
    mercy_all(S, C, p)
    s[S_NEXT] = next_alive(S, C, p, s[S_DIR])
    resolved(S, C)


@jit
def skip_all(S: State, C: Config, p: int) -> None:
    """Skip Everyone: each other player in turn order loses their turn; ``p`` plays again."""
    emit(S, EV_SKIP_ALL, p, 0, 0, 0, 0)
    q = p
    for _ in range(S.s[S_NALIVE] - 1):
        q = next_alive(S, C, q, S.s[S_DIR])
        emit(S, EV_SKIP, q, 0, 0, 0, 0)
    S.s[S_NEXT] = p


@jit
def swap_hands(S: State, C: Config, a: int, b: int) -> None:
    ha, hb = S.hands[a], S.hands[b]
    # in place, one pass over the columns copy_hand copies (not three copies through scratch)
    for i in range(C.ci[C_NK]):
        ha[i], hb[i] = hb[i], ha[i]
    for i in range(H_SIZE, ha.shape[0]):
        ha[i], hb[i] = hb[i], ha[i]
    swap_held(S, C, a, b)
    clear_voids(S, a)
    clear_voids(S, b)


@jit
def rotate_hands(S: State, C: Config, d: int) -> None:
    """Seven-O 0: seat i's hand goes to seat i + direction (seats in the round)."""
    hands = S.hands
    first = next_alive(S, C, 0, 1) if S.seat[0, SEAT_ALIVE] == 0 else 0
    # backwards from the seat before ``first``: each hand moves once (n + 1 copies, not 3n + 1)
    last = next_alive(S, C, first, -d)
    carry = S.scratch[0]
    copy_hand(C, carry, hands[last])
    q = last
    for _ in range(S.s[S_NALIVE] - 1):
        before = next_alive(S, C, q, -d)
        copy_hand(C, hands[q], hands[before])
        q = before
    copy_hand(C, hands[first], carry)
    if flip_on(S):  # a two-sided deck's cards: a chain of swaps with the first seat
        t = first
        for _ in range(S.s[S_NALIVE] - 1):
            t = next_alive(S, C, t, d)
            swap_held(S, C, first, t)
    known_rotate(S, C, d)
    S.st[R_SWAPS] += 1
    forget_voids(S, C)
    emit(S, EV_ROTATE, d, 0, 0, 0, 0)


@jit
def pend_draw(S: State, C: Config, k: int, victim: int) -> None:
    """``k``'s draw joins the pending total, which ``victim`` now faces."""
    s = S.s
    s[S_PEND] += C.fx[k, FX_DRAW]
    s[S_CHAIN] += 1
    s[S_PEND_KIND] = k
    goto_pending(S, C, victim)


@jit
def goto_pending(S: State, C: Config, victim: int) -> None:
    s = S.s
    s[S_PHASE] = PH_PENDING
    s[S_CUR] = victim
    if not pending_choice(S, C, victim):
        accept(S, C)


@jit
def accept(S: State, C: Config) -> None:
    """The player facing the pending draw takes it and loses the turn."""
    s = S.s
    v = s[S_CUR]
    if s[S_CHAIN] >= 2:
        cause = CAUSE_STACK
    elif C.fx[s[S_PEND_KIND], FX_WILD] != 0:
        cause = CAUSE_WD4
    else:
        cause = CAUSE_DRAW2
    if effects_on(C) and C.fx[s[S_PEND_KIND], FX_DRAW_UNTIL] != 0:  # Wild Draw Color
        draw_until(S, C, v, s[S_COLOR], CAUSE_DRAW_UNTIL, 0)
    else:
        draw_n(S, C, v, s[S_PEND], cause)
    if not mercy(S, C, v):
        emit(S, EV_SKIP, v, 0, 0, 0, 0)
    s[S_PEND] = 0
    s[S_CHAIN] = 0
    s[S_STACK_TURN] = 0
    s[S_DEFLECTED] = 0
    s[S_NEXT] = next_alive(S, C, v, s[S_DIR])
    resolved(S, C)


@jit
def challenge(S: State, C: Config) -> None:
    """The WD4 is checked against the color active before it (docs/rules.md §3):
    a guilty player takes its draw, a wrong challenger its draw and two more."""
    s, st = S.s, S.st
    v = s[S_CUR]
    wp = s[S_WD4_PLAYER]
    dr = C.fx[s[S_PEND_KIND], FX_DRAW]
    success = s[S_WD4_LEGAL] == 0
    st[R_CHALLENGES] += 1
    emit(S, EV_CHALLENGE, v, wp, 1 if success else 0, 0, 0)
    known_reveal(S, C, v, wp)  # the challenged hand is shown to the challenger
    s[S_PEND] = 0
    s[S_DEFLECTED] = 0
    s[S_CHAIN] = 0
    until = effects_on(C) and C.fx[s[S_PEND_KIND], FX_DRAW_UNTIL] != 0  # Wild Draw Color
    if success:
        if until:
            draw_until(S, C, wp, s[S_COLOR], CAUSE_CHALLENGE, 0)
        else:
            draw_n(S, C, wp, dr, CAUSE_CHALLENGE)
        mercy(S, C, wp)
        s[S_NEXT] = v
    else:
        if until:
            draw_until(S, C, v, s[S_COLOR], CAUSE_CHALLENGE, CHALLENGE_LOST_EXTRA)
        else:
            draw_n(S, C, v, dr + CHALLENGE_LOST_EXTRA, CAUSE_CHALLENGE)
        if not mercy(S, C, v):
            emit(S, EV_SKIP, v, 0, 0, 0, 0)
        s[S_NEXT] = next_alive(S, C, v, s[S_DIR])
    resolved(S, C)


@jit
def resolved(S: State, C: Config) -> None:
    """The play is fully resolved: offer jump-ins, else the next turn starts."""
    s = S.s
    if C.ci[C_JUMP_IN] != 0 and s[S_LASTP] >= 0 and C.kc[top_card(S)] >= 0:
        s[S_JUMP_I] = 0
        jump_scan(S, C)
        return
    next_turn(S, C)


@jit
def jump_scan(S: State, C: Config) -> None:
    """First seat in turn order after the top card's player holding its twin
    (or, under ``jump_in: same_number``, its number)."""
    s, hands, ci = S.s, S.hands, C.ci
    t = top_card(S)
    q = s[S_LASTP]
    for _ in range(s[S_JUMP_I] + 1):
        q = next_alive(S, C, q, s[S_DIR])
    i = s[S_JUMP_I]
    plain = not ruled(C) or (ci[C_JUMP_IN] == JUMP_IDENTICAL and ci[C_NO_ACTION_FINISH] == 0)
    while i < s[S_NALIVE] - 1:
        if hands[q, t] > 0 if plain else jump_ok(S, C, q, t):
            s[S_JUMP_I] = i
            s[S_PHASE] = PH_JUMP
            s[S_CUR] = q
            return
        q = next_alive(S, C, q, s[S_DIR])
        i += 1
    next_turn(S, C)


@jit
def draw_for_turn(S: State, C: Config, p: int) -> None:
    """``p`` draws on their turn (until playable under ``draw_until_play``)."""
    s = S.s
    dup = C.ci[C_DRAW_UNTIL_PLAY] != 0
    open_draw(S, p, CAUSE_TURN)
    k = -1
    while True:
        k = draw_one(S, C)
        if k < 0 or not dup or can_play(S, C, p, k):
            break
    close_draw(S)
    S.voids[p, s[S_COLOR]] = 1  # public: p drew on this color (any card it keeps is not)
    if effects_on(C) and C.ci[C_MERCY] != 0 and mercy(S, C, p):  # out before playing what came
        s[S_NEXT] = next_alive(S, C, p, s[S_DIR])
        next_turn(S, C)
        return
    then = C.ci[C_DRAW_THEN_PLAY] if ruled(C) else 0
    if then == 0 or dup:  # only the drawn card (draw_until_play: always; docs/DECISIONS.md)
        if k >= 0 and can_play(S, C, p, k):
            s[S_PHASE] = PH_DRAWN
            s[S_DRAWN] = k
            return
    elif then == THEN_ANY and has_legal(S, C, p):
        s[S_PHASE] = PH_DRAWN
        s[S_DRAWN] = k if k >= 0 and can_play(S, C, p, k) else -1
        return
    s[S_NEXT] = next_alive(S, C, p, s[S_DIR])
    next_turn(S, C)


# --- the action interface -------------------------------------------------------------------
@jit
def is_legal(S: State, C: Config, a: int) -> bool:
    """Is action ``a`` legal for the player who must decide now?"""
    s, hands, pp = S.s, S.hands, C.pp
    ph = s[S_PHASE]
    p = s[S_CUR]
    if a < 0 or a >= NA:
        return False
    if ph == PH_TURN:
        if a == A_DRAW:
            return not ruled(C) or C.ci[C_FORCED_PLAY] == 0 or not has_legal(S, C, p)
        if a < A_DRAW and hands[p, a] > 0:
            return can_play(S, C, p, a) or (C.fx[a, FX_COND] != 0 and pp[p, P_BLUFF] > 0
                                            and finish_ok(S, C, p, a))
        return False
    if ph == PH_DRAWN:
        if a == s[S_DRAWN]:
            return True
        if a == A_PASS:
            return C.ci[C_DRAW_UNTIL_PLAY] == 0 and C.ci[C_FORCED_PLAY] == 0
        return (C.ci[C_DRAW_THEN_PLAY] == THEN_ANY and a < A_DRAW and hands[p, a] > 0
                and can_play(S, C, p, a))
    if ph == PH_COLOR:
        return A_COLOR <= a < A_COLOR + NCOLORS
    if ph == PH_PENDING:
        if a == A_ACCEPT:
            return True
        if a == A_CHALLENGE:
            return challengeable(S, C)
        return a < A_DRAW and may_answer(S, C, p, a)
    if ph == PH_TARGET:
        t = a - A_TARGET
        return 0 <= t < C.ci[C_PLAYERS] and t != p and S.seat[t, SEAT_ALIVE] != 0
    if ph == PH_JUMP:
        return a == A_PASS or (a < A_DRAW and jump_card_ok(S, C, p, a, top_card(S)))
    if ph == PH_MULTI:
        return a == A_PASS or (a < A_DRAW and hands[p, a] > 0 and C.face[a] >= 0
                               and C.sym[a] == C.sym[top_card(S)])
    return False


@jit
def legal_actions(S: State, C: Config, out: NDArray) -> int:
    """Write the legal actions into ``out``; return how many (plays of the
    edition's kinds, then the other actions, in id order)."""
    n = 0
    for a in range(C.ci[C_NK]):
        if is_legal(S, C, a):
            out[n] = a
            n += 1
    for a in range(A_DRAW, NA):
        if is_legal(S, C, a):
            out[n] = a
            n += 1
    return n


@jit
def apply_action(S: State, C: Config, a: int) -> bool:
    """Apply a legal action and run the rules on to the next decision.

    Returns False (changing nothing) when ``a`` is not legal."""
    if not is_legal(S, C, a):
        return False
    apply_legal(S, C, a)
    return True


@jit
def stack_turn(S: State, C: Config, p: int, a: int) -> None:
    """``p`` stacks ``a`` on the pending draw: a regular turn (docs/rules.md §10), whose
    slip (Don't Talk) comes at its start, before the card is played."""
    s, st = S.s, S.st
    if s[S_STACK_TURN] == 0:
        if st[R_TURNS] >= C.ci[C_MAX_TURNS]:
            end_round(S, C, -1)
            return
        st[R_TURNS] += 1
        emit(S, EV_TURN, p, color_code(S, s[S_COLOR]), top_code(S), 0, 0)
        if S.seat[p, SEAT_SILENCED] != 0:
            slip(S, C, p)
        if not may_answer(S, C, p, a):
            # the slip's cards made the chosen WD4 illegal (a stacked WD4 meets
            # the color condition): within the same turn, stack another card
            # or take the draw
            s[S_STACK_TURN] = 1
            if not pending_choice(S, C, p):
                accept(S, C)
            return
    s[S_STACK_TURN] = 0
    start_play(S, C, p, a)


@jit
def apply_legal(S: State, C: Config, a: int) -> None:
    """`apply_action` without the legality check, for the compiled policies'
    own choices (the façade and the property tests check those are legal)."""
    s, st = S.s, S.st
    ph = s[S_PHASE]
    p = s[S_CUR]
    if ph == PH_TURN:
        if a == A_DRAW:
            draw_for_turn(S, C, p)
        else:
            start_play(S, C, p, a)
    elif ph == PH_DRAWN:
        if a == A_PASS:
            s[S_NEXT] = next_alive(S, C, p, s[S_DIR])
            next_turn(S, C)
        else:
            start_play(S, C, p, a)
    elif ph == PH_COLOR:
        s[S_COLOR] = a - A_COLOR
        if s[S_COLOR_CTX] == COLOR_FLIP:
            begin_turn(S, C, p)
        elif s[S_COLOR_CTX] == COLOR_ROULETTE:
            roulette(S, C, p)
        elif s[S_COLOR_CTX] == COLOR_TURNED:
            flipped(S, C, p)
        else:
            after_color(S, C)
    elif ph == PH_PENDING:
        if a == A_ACCEPT:
            accept(S, C)
        elif a == A_CHALLENGE:
            challenge(S, C)
        else:
            stack_turn(S, C, p, a)
    elif ph == PH_TARGET:
        t = a - A_TARGET
        if s[S_TARGET_CTX] == TGT_SWAP:
            seven_swap(S, C, p, t)
        else:
            s[S_TGT] = t
            after_choices(S, C)
    elif ph == PH_JUMP:
        if a == A_PASS:
            s[S_JUMP_I] += 1
            jump_scan(S, C)
        else:
            if st[R_JUMPS] >= C.ci[C_MAX_TURNS]:
                end_round(S, C, -1)
                return
            st[R_JUMPS] += 1
            emit(S, EV_JUMP, p, card_code(S, pick(S, C, p, a)) if flip_on(S) else a, 0, 0, 0)
            start_play(S, C, p, a)
    elif ph == PH_MULTI:
        if a == A_PASS:
            s[S_PHASE] = PH_MULTI_PASS
            after_choices(S, C)
        else:
            start_play(S, C, p, a)
