"""End of a round and matches (docs/rules.md §5).

A round's points depend on the match scoring: ``standard`` counts every
other hand, ``lowest`` and ``elimination`` every hand (each seat adds its
own), ``partners`` the two opponents' hands. A match adds rounds until a
seat reaches the target (or, under ``elimination``, one seat is left).
"""

from __future__ import annotations

from unosim.engine.kernel.events import emit, log_card
from unosim.engine.kernel.jit import jit
from unosim.engine.kernel.state import (
    C_MAX_ROUNDS,
    C_PLAYERS,
    C_SCORING,
    C_TARGET,
    EV_MATCH_END,
    EV_SCORE,
    R_POINTS,
    R_WINNER,
    S_DEALER,
    S_NCL,
    S_ROUND,
    S_TRACE,
    SCORING_ELIMINATION,
    SCORING_LOWEST,
    SCORING_PARTNERS,
    SCORING_STANDARD,
    SEAT_ALIVE,
    SEAT_SCORE,
    Config,
    State,
)
from unosim.engine.kernel.table import hand_points, next_alive


@jit
def team(q: int) -> int:
    """Partners scoring: seats 0 & 2 are team 0, seats 1 & 3 team 1."""
    return q % 2


@jit
def round_points(S: State, C: Config, w: int) -> int:
    """Points of the round ``w`` won (0 for a stalemate, ``w`` < 0)."""
    ci = C.ci
    if w < 0:
        return 0
    sc = ci[C_SCORING]
    pts = 0
    for q in range(ci[C_PLAYERS]):
        if S.seat[q, SEAT_ALIVE] == 0:
            continue
        if sc == SCORING_LOWEST or sc == SCORING_ELIMINATION:
            pts += hand_points(S, C, q)
        elif sc == SCORING_PARTNERS:
            if team(q) != team(w):
                pts += hand_points(S, C, q)
        elif q != w:
            pts += hand_points(S, C, q)
    return pts


@jit
def start_match(S: State, C: Config) -> None:
    seat = S.seat
    for q in range(C.ci[C_PLAYERS]):
        seat[q, SEAT_ALIVE] = 1
        seat[q, SEAT_SCORE] = 0
    S.s[S_ROUND] = 0


@jit
def score_round(S: State, C: Config) -> tuple[bool, int]:
    """Add the finished round to the match: (is the match over, winners).

    The winning seats are ``S.winners[:nw]``; a match over with no winner
    (``nw`` = 0) hit ``max_rounds`` unfinished."""
    s, seat, st, winners = S.s, S.seat, S.st, S.winners
    ci = C.ci
    n = ci[C_PLAYERS]
    sc = ci[C_SCORING]
    w = st[R_WINNER]
    target = ci[C_TARGET]
    if w >= 0:
        if sc == SCORING_STANDARD:
            seat[w, SEAT_SCORE] += st[R_POINTS]
        elif sc == SCORING_PARTNERS:
            for q in range(n):
                if team(q) == team(w):
                    seat[q, SEAT_SCORE] += st[R_POINTS]
        else:
            for q in range(n):
                if seat[q, SEAT_ALIVE] != 0:
                    seat[q, SEAT_SCORE] += hand_points(S, C, q)
    nw = 0
    over = False
    if sc == SCORING_ELIMINATION:
        for q in range(n):
            if seat[q, SEAT_ALIVE] != 0 and seat[q, SEAT_SCORE] >= target:
                seat[q, SEAT_ALIVE] = 0
        alive = 0
        last = -1
        for q in range(n):
            if seat[q, SEAT_ALIVE] != 0:
                alive += 1
                last = q
        if alive <= 1:
            over = True
            if last >= 0:
                winners[0] = last
                nw = 1
    else:
        reached = False
        for q in range(n):
            if seat[q, SEAT_SCORE] >= target:
                reached = True
        if reached:
            over = True
            if sc == SCORING_LOWEST:
                lo = seat[0, SEAT_SCORE]
                for q in range(n):
                    lo = min(lo, seat[q, SEAT_SCORE])
                for q in range(n):
                    if seat[q, SEAT_SCORE] == lo:
                        winners[nw] = q
                        nw += 1
            elif sc == SCORING_PARTNERS:
                for q in range(n):
                    if team(q) == team(w):
                        winners[nw] = q
                        nw += 1
            else:
                winners[0] = w
                nw = 1
    if s[S_TRACE] != 0:
        off = s[S_NCL]
        for q in range(n):
            log_card(S, seat[q, SEAT_SCORE])
        if sc == SCORING_ELIMINATION:
            for q in range(n):
                if seat[q, SEAT_ALIVE] == 0:
                    log_card(S, q)
        emit(S, EV_SCORE, n, 0, 0, off, s[S_NCL] - off)
    s[S_ROUND] += 1
    if not over and s[S_ROUND] >= ci[C_MAX_ROUNDS]:
        over = True
        nw = 0
    if over:
        off = s[S_NCL]
        for i in range(nw):
            log_card(S, winners[i])
        emit(S, EV_MATCH_END, nw, 0, 0, off, nw)
    return over, nw


@jit
def next_dealer(S: State, C: Config) -> int:
    """The deal passes left to the next seat still in the match."""
    return next_alive(S, C, S.s[S_DEALER], 1)
