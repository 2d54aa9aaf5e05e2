"""The editions' special wilds (docs/rules.md §4 and its fine print in §10).

- Wild Mickey Movie Madness (disney100): the chosen player fails with rate
  ``movie_madness_fail_rate`` and then draws four; nobody loses a turn.
- Wild Wishing Star (disney_wish): every other player, in turn order from the
  next, shows an icon card or draws until one comes (or both piles are dry).
  Who can show is settled before anyone draws.
- Wild Don't Talk (encanto): the chosen player is silenced; on each of their
  turns they slip with rate ``dont_talk_slip_rate`` and draw three. Any UNO
  call ends every silence.

A special wild is also a wild: the color is named first, then the target is
chosen (Movie Madness, Don't Talk), then the effect resolves before the
ordinary end-of-play steps (UNO, skips, jump-ins).

A deck without special wilds compiles none of this (`optional`): nobody can
play one, so nobody is ever silenced either.
"""

from __future__ import annotations

from unosim.engine.kernel.events import emit, log_card
from unosim.engine.kernel.jit import jit, optional
from unosim.engine.kernel.known import known_shown
from unosim.engine.kernel.rng import chance
from unosim.engine.kernel.state import (
    C_NK,
    C_PLAYERS,
    CAUSE_DONT_TALK,
    CAUSE_SPECIAL,
    EV_SILENCE_END,
    EV_SLIP,
    EV_SPECIAL,
    F_MOVIE_FAIL,
    F_SLIP,
    R_SPECIAL_DRAWN,
    R_SPECIAL_PLAYS,
    S_DIR,
    S_LASTK,
    S_NALIVE,
    S_NCL,
    S_TGT,
    SEAT_SILENCED,
    SPECIAL_DONT_TALK,
    SPECIAL_MOVIE,
    SPECIAL_WISH,
    SPECIALS,
    Config,
    State,
)
from unosim.engine.kernel.table import close_draw, draw_n, draw_one, next_alive, open_draw
from unosim.rules.cards import DONT_TALK_SLIP_DRAW, MOVIE_MADNESS_DRAW
from unosim.rules.effects import FX_SPECIAL


def _no_target(S: State, C: Config, k: int) -> bool:
    return False


def _no_effect(S: State, C: Config, p: int) -> None:
    return None


def _no_silence(S: State, C: Config) -> None:
    return None


@optional(SPECIALS, _no_target)
def needs_target(S: State, C: Config, k: int) -> bool:
    """Does playing ``k`` ask its player to choose another player?"""
    sp = C.fx[k, FX_SPECIAL]
    return (sp == SPECIAL_MOVIE or sp == SPECIAL_DONT_TALK) and S.s[S_NALIVE] > 1


@optional(SPECIALS, _no_effect)
def do_special(S: State, C: Config, p: int) -> None:
    """Resolve the special wild ``p`` just played (color and target chosen)."""
    s, st = S.s, S.st
    sp = C.fx[s[S_LASTK], FX_SPECIAL]
    st[R_SPECIAL_PLAYS] += 1
    if sp == SPECIAL_WISH:
        wishing_star(S, C, p)
        return
    if s[S_NALIVE] <= 1:
        return
    t = s[S_TGT]
    if sp == SPECIAL_MOVIE:
        fail = chance(S.rng, C.cf[F_MOVIE_FAIL])
        emit(S, EV_SPECIAL, p, t, 1 if fail else 0, 0, 0)
        if fail:
            st[R_SPECIAL_DRAWN] += draw_n(S, C, t, MOVIE_MADNESS_DRAW, CAUSE_SPECIAL)
    elif sp == SPECIAL_DONT_TALK:
        S.seat[t, SEAT_SILENCED] = 1
        emit(S, EV_SPECIAL, p, t, 0, 0, 0)


@jit
def _shown_icon(S: State, C: Config, q: int) -> int:
    """The icon card ``q`` shows: the lowest kind it holds (-1: none)."""
    hands, icons = S.hands, C.icons
    for k in range(C.ci[C_NK]):
        if icons[k] != 0 and hands[q, k] > 0:
            return k
    return -1


@jit
def wishing_star(S: State, C: Config, p: int) -> None:
    """Every other player shows an icon card or draws until one comes."""
    s, st, icons = S.s, S.st, C.icons
    showed = S.flags
    n_other = s[S_NALIVE] - 1
    off = s[S_NCL]
    q = p
    for _ in range(n_other):
        q = next_alive(S, C, q, s[S_DIR])
        k = _shown_icon(S, C, q)
        showed[q] = 1 if k >= 0 else 0
        if showed[q]:
            log_card(S, q)
            known_shown(S, C, q, k, False)
    emit(S, EV_SPECIAL, p, -1, 0, off, s[S_NCL] - off)
    q = p
    for _ in range(n_other):
        q = next_alive(S, C, q, s[S_DIR])
        if showed[q]:
            continue
        open_draw(S, q, CAUSE_SPECIAL)
        while True:
            k = draw_one(S, C)
            if k < 0:
                break
            st[R_SPECIAL_DRAWN] += 1
            if icons[k] != 0:
                known_shown(S, C, q, k, True)  # the draws end on a card everyone sees
                break
        close_draw(S)


@optional(SPECIALS, _no_effect)
def slip(S: State, C: Config, p: int) -> None:
    """A silenced player's turn starts: do they talk (and draw three)?"""
    if chance(S.rng, C.cf[F_SLIP]):
        emit(S, EV_SLIP, p, 0, 0, 0, 0)
        # the special wild's doing: counted with its other draws
        S.st[R_SPECIAL_DRAWN] += draw_n(S, C, p, DONT_TALK_SLIP_DRAW, CAUSE_DONT_TALK)


@optional(SPECIALS, _no_silence)
def end_silences(S: State, C: Config) -> None:
    """An UNO call ends every Don't Talk silence."""
    seat = S.seat
    for q in range(C.ci[C_PLAYERS]):
        if seat[q, SEAT_SILENCED] != 0:
            seat[q, SEAT_SILENCED] = 0
            emit(S, EV_SILENCE_END, q, 0, 0, 0, 0)
