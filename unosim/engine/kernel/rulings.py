"""The rulings people argue about (docs/rules.md §12): the kernel's hooks for them.

Each ruling is a house-rule switch (``C_*`` in `unosim.engine.kernel.state`, declared
once in `unosim.rules.models.HouseRules`). With every ruling at its printed
default these helpers are never reached, or answer as the printed rules do,
so the turn flow of `unosim.engine.kernel.rules` reads them in a few guarded places:

==================  ===================================================================
ruling              where it acts
==================  ===================================================================
draw_then_play      after a turn's draw: only the drawn card, any legal card, or nothing
forced_play         a turn's draw (and keeping a playable drawn card) needs no legal card
wd4_unrestricted    `wd4_ok` is always true; nothing to challenge
challenge           `challengeable` is false when off
deflect             a pending draw may be answered with a Skip / Reverse of the active
                    color (`can_deflect`); it moves on unchanged
no_action_finish    a last card must be a number (`finish_ok`)
multiple_play       after a turn's number, the same number in other colors (``PH_MULTI``)
jump_in             ``same_number``: any color of the top number jumps in (`jump_ok`)
seven_o_swap/pass   a 7 swaps with the next player; a 0 passes to the left
last_card_draws     off: a last Draw Two / WD4 (or deflected draw) draws nothing
==================  ===================================================================
"""

from __future__ import annotations

from typing import Any

from numba.extending import overload

from unosim.engine.kernel.jit import jit, uses
from unosim.engine.kernel.kinds import colored_kind
from unosim.engine.kernel.state import (
    C_DEFLECT,
    C_JUMP_IN,
    C_NO_ACTION_FINISH,
    C_REVERSE_SYM,
    C_SKIP_SYM,
    H_SIZE,
    JUMP_SAME_NUMBER,
    NCOLORS,
    RULINGS,
    S_COLOR,
    Config,
    State,
    marker,
)
from unosim.rules.effects import FX_REVERSE, FX_SKIP


def ruled(C: Any) -> bool:
    """Does the config play a ruling away from the printed rules? A constant of the
    config record's type in compiled code (`unosim.engine.kernel.state.RULINGS`), so with
    the printed rules every guarded hook compiles away and the kernel is the one
    it was before the rulings."""
    return marker(RULINGS) in (getattr(getattr(C, "dtype", None), "names", None) or ())


@overload(ruled, inline="always")
def _ruled(C: Any) -> Any:
    if uses(RULINGS, C):
        def on(C: Any) -> bool:
            return True
        return on

    def off(C: Any) -> bool:
        return False
    return off


@jit
def finish_ok(S: State, C: Config, p: int, k: int) -> bool:
    """no_action_finish: ``k`` may be ``p``'s last card only if it is a number."""
    return S.hands[p, H_SIZE] != 1 or C.ci[C_NO_ACTION_FINISH] == 0 or C.face[k] >= 0


@jit
def can_deflect(S: State, C: Config, p: int, k: int) -> bool:
    """deflect: may ``p`` answer the pending draw with ``k``, a Skip or Reverse of
    the active color that ``p`` holds? (-1, no such kind in the edition: no.)"""
    return (C.ci[C_DEFLECT] != 0 and k >= 0 and S.hands[p, k] > 0
            and (C.fx[k, FX_SKIP] != 0 or C.fx[k, FX_REVERSE] != 0)
            and C.kc[k] == S.s[S_COLOR] and finish_ok(S, C, p, k))


@jit
def deflect_kind(S: State, C: Config, i: int) -> int:
    """The i-th card that could deflect now (0: the Skip, 1: the Reverse of the active
    color; -1 if the edition has no such kind)."""
    sym = C.ci[C_SKIP_SYM] if i == 0 else C.ci[C_REVERSE_SYM]
    return colored_kind(C, S.s[S_COLOR], sym) if sym >= 0 else -1


@jit
def same_number_held(S: State, C: Config, p: int, k: int) -> int:
    """How many cards of ``k``'s number ``p`` holds (``k`` a number card)."""
    r = C.sym[k]
    n = 0
    for c in range(NCOLORS):
        n += S.hands[p, colored_kind(C, c, r)]
    return n


@jit
def jump_card_ok(S: State, C: Config, p: int, k: int, top: int) -> bool:
    """May ``p`` (holding ``k``) jump in with it on ``top``? The identical card, or
    under ``jump_in: same_number`` any color of the top's number."""
    if S.hands[p, k] <= 0 or not finish_ok(S, C, p, k):
        return False
    if k == top:
        return True
    return (C.ci[C_JUMP_IN] == JUMP_SAME_NUMBER and C.face[top] >= 0 and C.face[k] >= 0
            and C.sym[k] == C.sym[top])


@jit
def jump_ok(S: State, C: Config, q: int, top: int) -> bool:
    """Does ``q`` hold a card it may jump in with on ``top`` (never a wild)?"""
    if C.ci[C_JUMP_IN] == JUMP_SAME_NUMBER and C.face[top] >= 0:
        r = C.sym[top]
        for c in range(NCOLORS):
            if S.hands[q, colored_kind(C, c, r)] > 0:
                return True
        return False
    return S.hands[q, top] > 0 and finish_ok(S, C, q, top)
