"""The compiled rules: one implementation of UNO for every caller.

Everything here is ``numba.njit(cache=True)`` over flat numpy arrays, so the
same step functions serve the million-round batch loop and the Python façade
(`unosim.engine.game`) that tests, traces and custom strategies drive one
action at a time. There is no second copy of the rules anywhere.

State ``S`` is a numpy record (one pointer per call) with array fields:

- ``s``     int64 scalars, indexed by the ``S_*`` constants below;
- ``hands`` int64[P, NK+1]: card counts per kind, column NK = hand size;
- ``piles`` int64[2, deck]: row 0 draw pile, row 1 discard, bottom first;
- ``seat``  int64[P, 4]: in-the-round flag, silenced flag, match score;
- ``rng``   uint64[4]: xoshiro256** state (no global RNG anywhere);
- ``ev``/``cl``: event rows and card log, written only when tracing;
- ``st``    int64[NR]: the round's counters (``R_*`` in layout);
- ``scratch`` int64[4, NK+1]: work space (the kernel never allocates).

Config ``C`` is a record with fields ``ci, cf, pp, points, icons, dc``
built from `unosim.rules.config.compile_config`.

The round is a state machine: ``apply_action`` runs the rules forward until
the next decision (a ``PH_*`` phase naming who must choose) or the end.
Rule decisions that RULES.md leaves open are recorded in docs/DECISIONS.md.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from unosim.engine.layout import (
    A_ACCEPT,
    A_CHALLENGE,
    A_COLOR,
    A_DRAW,
    A_PASS,
    A_TARGET,
    C_DRAW_UNTIL_PLAY,
    C_FIRST_FLIP,
    C_HAND_SIZE,
    C_JUMP_IN,
    C_MAX_ROUNDS,
    C_MAX_TURNS,
    C_MODE,
    C_PLAYERS,
    C_SCORING,
    C_SEVEN_O,
    C_SPECIAL,
    C_STACK_D2_D2,
    C_STACK_D2_WD4,
    C_STACK_WD4_D2,
    C_STACK_WD4_WD4,
    C_TARGET,
    C_TWO_PLAYER_REVERSE,
    C_UNO_PENALTY,
    C_WD4_WILDS_BLOCK,
    CAUSE_CHALLENGE,
    CAUSE_DONT_TALK,
    CAUSE_DRAW2,
    CAUSE_SPECIAL,
    CAUSE_STACK,
    CAUSE_TURN,
    CAUSE_UNO,
    CAUSE_WD4,
    EV_CHALLENGE,
    EV_DEAL,
    EV_DRAW,
    EV_END,
    EV_FLIP,
    EV_JUMP,
    EV_MATCH_END,
    EV_PLAY,
    EV_RESHUFFLE,
    EV_RETURN,
    EV_REVERSE,
    EV_ROTATE,
    EV_SCORE,
    EV_SILENCE_END,
    EV_SKIP,
    EV_SLIP,
    EV_SPECIAL,
    EV_SWAP,
    EV_TURN,
    EV_UNO,
    F_MOVIE_FAIL,
    F_SLIP,
    F_UNO_CATCH,
    F_UNO_FORGET,
    FLIP_REDRAW,
    NA,
    NR,
    P_BLUFF,
    P_CHALLENGE,
    P_KIND,
    PH_COLOR,
    PH_DONE,
    PH_DRAWN,
    PH_JUMP,
    PH_PENDING,
    PH_TARGET,
    PH_TURN,
    POLICY_STRATEGIC,
    R_CHALLENGES,
    R_DRAWN,
    R_JUMPS,
    R_PLAYED,
    R_POINTS,
    R_RESHUFFLES,
    R_SPECIAL_DRAWN,
    R_SPECIAL_PLAYS,
    R_SWAPS,
    R_TURNS,
    R_WINNER,
    SCORING_ELIMINATION,
    SCORING_LOWEST,
    SCORING_PARTNERS,
    SCORING_STANDARD,
    SPECIAL_DONT_TALK,
    SPECIAL_MOVIE,
    SPECIAL_WISH,
)

# No NRT: refcounting on every array access would cost ~20 ns a call in the
# inner loop (numba issue #2350), so the kernel never allocates; scratch
# space lives in the state record.
jit = njit(cache=True, _nrt=False, nogil=True)

NK = 55
W, WD4, WX = 52, 53, 54
SKIP, REVERSE, DRAW2 = 10, 11, 12

# --- scalar state indices ---------------------------------------------------
S_PHASE = 0
S_CUR = 1  # who must decide now
S_DIR = 2
S_COLOR = 3
S_NDRAW = 4
S_NDISC = 5
S_PEND = 6  # accumulated pending draw total
S_CHAIN = 7  # cards in the pending chain
S_PEND_KIND = 8  # DRAW2 rank (12) or WD4 kind of the last chained card
S_WD4_PLAYER = 9
S_WD4_LEGAL = 10
S_LASTP = 11  # player of the card being resolved / of the top card
S_LASTK = 12
S_NEXT = 13  # who takes the next regular turn once the play resolves
S_DRAWN = 14  # the drawn playable card (PH_DRAWN)
S_COLOR_CTX = 15  # 0 a played wild, 1 the first flip
S_TARGET_CTX = 16  # 0 Seven-O swap, 1 special wild
S_TGT = 17
S_JUMP_I = 18  # jump-in scan position
S_NEV = 19
S_NCL = 20
S_TRACE = 21
S_DEALER = 22
S_NALIVE = 23
S_DRAW_P = 24  # open draw event: player, cause, card-log start
S_DRAW_CAUSE = 25
S_DRAW_OFF = 26
S_ROUND = 27
S_OVERFLOW = 28
S_FIRSTP = 29
S_STACK_TURN = 30  # a stacking turn has started (turn and slip written), card still to play
NS = 32

SEAT_ALIVE, SEAT_SILENCED, SEAT_SCORE = 0, 1, 2
TGT_SWAP, TGT_SPECIAL = 0, 1

_U11 = np.uint64(11)
_INV53 = 1.0 / 9007199254740992.0


# --- random numbers: xoshiro256** ------------------------------------------
@jit
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@jit
def rng_next(rng):
    """Next 64-bit output of xoshiro256** (state updated in place)."""
    r = _rotl(rng[1] * np.uint64(5), 7) * np.uint64(9)
    t = rng[1] << np.uint64(17)
    rng[2] ^= rng[0]
    rng[3] ^= rng[1]
    rng[1] ^= rng[2]
    rng[0] ^= rng[3]
    rng[2] ^= t
    rng[3] = _rotl(rng[3], 45)
    return r


@jit
def rng_float(rng):
    return np.float64(rng_next(rng) >> _U11) * _INV53


@jit
def rng_int(rng, n):
    """Uniform integer in [0, n)."""
    v = np.int64(rng_float(rng) * n)
    return v if v < n else n - 1


@jit
def _splitmix(z):
    z = z + np.uint64(0x9E3779B97F4A7C15)
    x = z
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z, x ^ (x >> np.uint64(31))


@jit
def seed_game(rng, key0, key1, game):
    """Seed the stream of game ``game``: a pure function of (key, game index),
    so results never depend on how games are split into chunks or workers."""
    z = np.uint64(key0) ^ (np.uint64(game) * np.uint64(0xD1B54A32D192ED03))
    z, a = _splitmix(z)
    z = z ^ np.uint64(key1)
    for i in range(4):
        z, a = _splitmix(z)
        rng[i] = a
    if rng[0] == 0 and rng[1] == 0 and rng[2] == 0 and rng[3] == 0:
        rng[0] = np.uint64(1)


@jit
def chance(rng, rate):
    """A behaviour-rate event; rates of exactly 0 or 1 consume no randomness."""
    if rate <= 0.0:
        return False
    if rate >= 1.0:
        return True
    return rng_float(rng) < rate


# --- events (tracing only) ---------------------------------------------------
@jit
def emit(S, code, a, b, c, off, ln):
    s, ev = S.s, S.ev
    if s[S_TRACE] == 0:
        return
    i = s[S_NEV]
    if i >= ev.shape[0]:
        s[S_OVERFLOW] = 1
        return
    ev[i, 0] = code
    ev[i, 1] = a
    ev[i, 2] = b
    ev[i, 3] = c
    ev[i, 4] = off
    ev[i, 5] = ln
    s[S_NEV] = i + 1


@jit
def log_card(S, k):
    s, cl = S.s, S.cl
    if s[S_TRACE] == 0:
        return
    i = s[S_NCL]
    if i >= cl.shape[0]:
        s[S_OVERFLOW] = 1
        return
    cl[i] = k
    s[S_NCL] = i + 1


@jit
def log_pile(S, row):
    s, piles = S.s, S.piles
    n = s[S_NDRAW] if row == 0 else s[S_NDISC]
    off = s[S_NCL]
    for i in range(n):
        log_card(S, piles[row, i])
    return off, s[S_NCL] - off


# --- small helpers ------------------------------------------------------------
@jit
def _copy(dst, src):
    for i in range(dst.shape[0]):
        dst[i] = src[i]


@jit
def next_alive(S, C, p, d):
    """Next seat in the round from ``p`` in direction ``d`` (no modulo: an
    integer division would be the costliest instruction of a turn)."""
    seat = S.seat
    n = C.ci[C_PLAYERS]
    q = p
    for _ in range(n):
        q += d
        if q >= n:
            q -= n
        elif q < 0:
            q += n
        if seat[q, SEAT_ALIVE] != 0:
            return q
    return p


@jit
def top_card(S):
    s, piles = S.s, S.piles
    return piles[1, s[S_NDISC] - 1]


@jit
def hand_points(S, C, q):
    hands, pts = S.hands, C.points
    t = 0
    for k in range(NK):
        t += hands[q, k] * pts[k]
    return t


@jit
def wd4_ok(S, C, p):
    """RULES 3: a WD4 is legal only without another card of the active color
    (and, where the edition says wilds match the color, without W or WX)."""
    s, hands = S.s, S.hands
    c = s[S_COLOR]
    base = c * 13
    for r in range(13):
        if hands[p, base + r] > 0:
            return False
    if C.ci[C_WD4_WILDS_BLOCK] != 0 and (hands[p, W] > 0 or hands[p, WX] > 0):
        return False
    return True


@jit
def can_play(S, C, p, k):
    """Section 3 legality of kind ``k`` for player ``p`` (held is not checked)."""
    if k == W or k == WX:
        return True
    if k == WD4:
        return wd4_ok(S, C, p)
    if k // 13 == S.s[S_COLOR]:
        return True
    t = top_card(S)
    return t < 52 and t % 13 == k % 13


@jit
def can_stack(S, C, p, k):
    """May ``k`` be added to the pending draw (stacking switches + section 3)?"""
    ci, s, pp = C.ci, S.s, C.pp
    if S.hands[p, k] <= 0:
        return False
    if s[S_PEND_KIND] == WD4:
        if k == WD4:
            return ci[C_STACK_WD4_WD4] != 0 and (wd4_ok(S, C, p) or pp[p, P_BLUFF] > 0)
        return ci[C_STACK_D2_WD4] != 0 and k < 52 and k % 13 == DRAW2 and k // 13 == s[S_COLOR]
    if k == WD4:
        return ci[C_STACK_WD4_D2] != 0 and (wd4_ok(S, C, p) or pp[p, P_BLUFF] > 0)
    return ci[C_STACK_D2_D2] != 0 and k < 52 and k % 13 == DRAW2


@jit
def add_card(S, p, k):
    hands = S.hands
    hands[p, k] += 1
    hands[p, NK] += 1


@jit
def remove_card(S, p, k):
    hands = S.hands
    hands[p, k] -= 1
    hands[p, NK] -= 1


@jit
def shuffle_row(S, row, n):
    piles, rng = S.piles, S.rng
    for i in range(n - 1, 0, -1):
        j = rng_int(rng, i + 1)
        t = piles[row, i]
        piles[row, i] = piles[row, j]
        piles[row, j] = t


# --- drawing ------------------------------------------------------------------
@jit
def open_draw(S, p, cause):
    s = S.s
    s[S_DRAW_P] = p
    s[S_DRAW_CAUSE] = cause
    s[S_DRAW_OFF] = s[S_NCL]


@jit
def close_draw(S):
    s = S.s
    n = s[S_NCL] - s[S_DRAW_OFF]
    if n > 0:
        emit(S, EV_DRAW, s[S_DRAW_P], s[S_DRAW_CAUSE], 0, s[S_DRAW_OFF], n)


@jit
def reshuffle(S):
    """Keep the top discard, shuffle the rest into a new draw pile (RULES 3)."""
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
def draw_one(S):
    """Top card of the draw pile into the open draw's hand; -1 if both piles are dry."""
    s, piles, st = S.s, S.piles, S.st
    if s[S_NDRAW] == 0:
        if not reshuffle(S):
            return -1
    n = s[S_NDRAW] - 1
    k = piles[0, n]
    s[S_NDRAW] = n
    add_card(S, s[S_DRAW_P], k)
    st[R_DRAWN] += 1
    st[16 + s[S_DRAW_CAUSE]] += 1
    log_card(S, k)
    return k


@jit
def draw_n(S, p, n, cause):
    open_draw(S, p, cause)
    got = 0
    for _ in range(n):
        if draw_one(S) < 0:
            break
        got += 1
    close_draw(S)
    return got


# --- round set-up ---------------------------------------------------------------
@jit
def reset_state(S, C, dealer):
    s, hands, seat, st = S.s, S.hands, S.seat, S.st
    for q in range(hands.shape[0]):
        for k in range(hands.shape[1]):
            hands[q, k] = 0
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
    n = 0
    for q in range(C.ci[C_PLAYERS]):
        seat[q, SEAT_SILENCED] = 0
        if seat[q, SEAT_ALIVE] != 0:
            n += 1
    s[S_NALIVE] = n


@jit
def shuffled_deck(S, C):
    s, piles, dc = S.s, S.piles, C.dc
    n = 0
    for k in range(NK):
        for _ in range(dc[k]):
            piles[0, n] = k
            n += 1
    s[S_NDRAW] = n
    shuffle_row(S, 0, n)


@jit
def deal(S, C, dealer):
    """Deal one card at a time from the top, starting left of the dealer, then
    flip (RULES 2). The draw pile must already be in ``piles[0]``."""
    s, hands, piles = S.s, S.hands, S.piles
    ci = C.ci
    first = next_alive(S, C, dealer, 1)
    for _ in range(ci[C_HAND_SIZE]):
        q = first
        for _ in range(s[S_NALIVE]):
            n = s[S_NDRAW] - 1
            add_card(S, q, piles[0, n])
            s[S_NDRAW] = n
            q = next_alive(S, C, q, 1)
    if s[S_TRACE] != 0:
        off = s[S_NCL]
        for q in range(ci[C_PLAYERS]):
            log_card(S, hands[q, NK])
            for k in range(NK):
                for _ in range(hands[q, k]):
                    log_card(S, k)
        log_pile(S, 0)
        emit(S, EV_DEAL, dealer, 0, 0, off, s[S_NCL] - off)
    s[S_FIRSTP] = first
    first_flip(S, C)


@jit
def flip_one(S):
    s, piles = S.s, S.piles
    n = s[S_NDRAW] - 1
    k = piles[0, n]
    s[S_NDRAW] = n
    piles[1, s[S_NDISC]] = k
    s[S_NDISC] += 1
    emit(S, EV_FLIP, k, 0, 0, 0, 0)
    return k


@jit
def first_flip(S, C):
    s, piles, rng = S.s, S.piles, S.rng
    k = flip_one(S)
    if C.ci[C_FIRST_FLIP] == FLIP_REDRAW:
        # an action or wild card's effect is ignored; flip on top of it
        while (k >= 52 or k % 13 >= 10) and s[S_NDRAW] > 0:
            k = flip_one(S)
    else:
        while k == WD4 and s[S_NDRAW] > 0:
            # back into the pile at a uniformly random gap (top included)
            s[S_NDISC] -= 1
            n = s[S_NDRAW]
            g = rng_int(rng, n + 1)
            for i in range(n, g, -1):
                piles[0, i] = piles[0, i - 1]
            piles[0, g] = WD4
            s[S_NDRAW] = n + 1
            if s[S_TRACE] != 0:
                off, ln = log_pile(S, 0)
                emit(S, EV_RETURN, WD4, 0, 0, off, ln)
            k = flip_one(S)
    fp = s[S_FIRSTP]
    if k >= 52:
        # a flipped wild: the first player names the color before their turn
        # (also the fallback when a redraw exhausts the pile on a wild)
        s[S_COLOR] = 0
        s[S_PHASE] = PH_COLOR
        s[S_CUR] = fp
        s[S_COLOR_CTX] = 1
        return
    s[S_COLOR] = k // 13
    r = k % 13
    if C.ci[C_FIRST_FLIP] == FLIP_REDRAW or r < 10:
        begin_turn(S, C, fp)
    elif r == DRAW2:
        draw_n(S, fp, 2, CAUSE_DRAW2)
        emit(S, EV_SKIP, fp, 0, 0, 0, 0)
        begin_turn(S, C, next_alive(S, C, fp, 1))
    elif r == SKIP:
        emit(S, EV_SKIP, fp, 0, 0, 0, 0)
        begin_turn(S, C, next_alive(S, C, fp, 1))
    else:
        s[S_DIR] = -1
        emit(S, EV_REVERSE, -1, 0, 0, 0, 0)
        begin_turn(S, C, s[S_DEALER])


@jit
def new_round(S, C, dealer):
    """Shuffle, deal and flip: the round waits for its first decision."""
    reset_state(S, C, dealer)
    shuffled_deck(S, C)
    deal(S, C, dealer)


# --- turns ------------------------------------------------------------------------
@jit
def end_round(S, C, w):
    s, seat, st = S.s, S.seat, S.st
    ci = C.ci
    pts = 0
    if w >= 0:
        sc = ci[C_SCORING]
        for q in range(ci[C_PLAYERS]):
            if seat[q, SEAT_ALIVE] == 0:
                continue
            if sc == SCORING_LOWEST or sc == SCORING_ELIMINATION:
                pts += hand_points(S, C, q)
            elif sc == SCORING_PARTNERS:
                if q % 2 != w % 2:
                    pts += hand_points(S, C, q)
            elif q != w:
                pts += hand_points(S, C, q)
    st[R_WINNER] = w
    st[R_POINTS] = pts
    s[S_PHASE] = PH_DONE
    emit(S, EV_END, w, pts, st[R_TURNS], 0, 0)


@jit
def begin_turn(S, C, p):
    """A regular turn starts (or the round stalls at the turn cap)."""
    s, _seat, st = S.s, S.seat, S.st
    if st[R_TURNS] >= C.ci[C_MAX_TURNS]:
        end_round(S, C, -1)
        return
    st[R_TURNS] += 1
    s[S_PHASE] = PH_TURN
    s[S_CUR] = p
    emit(S, EV_TURN, p, s[S_COLOR], top_card(S), 0, 0)
    slip_check(S, C, p)


@jit
def slip_check(S, C, p):
    if S.seat[p, SEAT_SILENCED] != 0 and chance(S.rng, C.cf[F_SLIP]):
        emit(S, EV_SLIP, p, 0, 0, 0, 0)
        # the special wild's doing: counted with its other draws
        S.st[R_SPECIAL_DRAWN] += draw_n(S, p, 3, CAUSE_DONT_TALK)


@jit
def next_turn(S, C):
    begin_turn(S, C, S.s[S_NEXT])


@jit
def start_play(S, C, p, k):
    """``p`` puts ``k`` on the discard; wilds wait for their color."""
    s, piles, st = S.s, S.piles, S.st
    if k == WD4:
        s[S_WD4_LEGAL] = 1 if wd4_ok(S, C, p) else 0
        s[S_WD4_PLAYER] = p
    remove_card(S, p, k)
    piles[1, s[S_NDISC]] = k
    s[S_NDISC] += 1
    st[R_PLAYED] += 1
    s[S_LASTP] = p
    s[S_LASTK] = k
    if k >= 52:
        s[S_PHASE] = PH_COLOR
        s[S_CUR] = p
        s[S_COLOR_CTX] = 0
        return
    s[S_COLOR] = k // 13
    after_choices(S, C)


@jit
def after_color(S, C):
    s, ci = S.s, C.ci
    p, k = s[S_LASTP], s[S_LASTK]
    sp = ci[C_SPECIAL]
    if k == WX and (sp == SPECIAL_MOVIE or sp == SPECIAL_DONT_TALK) and s[S_NALIVE] > 1:
        s[S_PHASE] = PH_TARGET
        s[S_CUR] = p
        s[S_TARGET_CTX] = TGT_SPECIAL
        return
    after_choices(S, C)


@jit
def do_uno(S, C, p):
    seat, rng, cf = S.seat, S.rng, C.cf
    if not chance(rng, cf[F_UNO_FORGET]):
        emit(S, EV_UNO, p, 1, 0, 0, 0)
        for q in range(C.ci[C_PLAYERS]):
            if seat[q, SEAT_SILENCED] != 0:
                seat[q, SEAT_SILENCED] = 0
                emit(S, EV_SILENCE_END, q, 0, 0, 0, 0)
        return
    caught = chance(rng, cf[F_UNO_CATCH])
    emit(S, EV_UNO, p, 0, 1 if caught else 0, 0, 0)
    if caught:
        draw_n(S, p, C.ci[C_UNO_PENALTY], CAUSE_UNO)


@jit
def do_special(S, C, p):
    s, hands, rng, st = S.s, S.hands, S.rng, S.st
    ci, cf, icons = C.ci, C.cf, C.icons
    sp = ci[C_SPECIAL]
    st[R_SPECIAL_PLAYS] += 1
    if sp == SPECIAL_MOVIE:
        t = s[S_TGT]
        if s[S_NALIVE] <= 1:
            return
        fail = chance(rng, cf[F_MOVIE_FAIL])
        emit(S, EV_SPECIAL, p, t, 1 if fail else 0, 0, 0)
        if fail:
            st[R_SPECIAL_DRAWN] += draw_n(S, t, 4, CAUSE_SPECIAL)
    elif sp == SPECIAL_DONT_TALK:
        if s[S_NALIVE] <= 1:
            return
        t = s[S_TGT]
        S.seat[t, SEAT_SILENCED] = 1
        emit(S, EV_SPECIAL, p, t, 0, 0, 0)
    elif sp == SPECIAL_WISH:
        # who can show an icon card is decided before anyone draws
        n_other = s[S_NALIVE] - 1
        off = s[S_NCL]
        q = p
        showed = 0
        for _ in range(n_other):
            q = next_alive(S, C, q, s[S_DIR])
            has = False
            for k in range(NK):
                if icons[k] != 0 and hands[q, k] > 0:
                    has = True
                    break
            if has:
                showed |= 1 << q
                log_card(S, q)
        emit(S, EV_SPECIAL, p, -1, 0, off, s[S_NCL] - off)
        q = p
        for _ in range(n_other):
            q = next_alive(S, C, q, s[S_DIR])
            if showed & (1 << q):
                continue
            open_draw(S, q, CAUSE_SPECIAL)
            while True:
                k = draw_one(S)
                if k < 0:
                    break
                st[R_SPECIAL_DRAWN] += 1
                if icons[k] != 0:
                    break
            close_draw(S)


@jit
def after_choices(S, C):
    """Every choice for the play is made: write it and resolve it (RULES 3, 5, 6)."""
    s, hands, ci = S.s, S.hands, C.ci
    p, k = s[S_LASTP], s[S_LASTK]
    d = s[S_DIR]
    emit(S, EV_PLAY, p, k, s[S_COLOR], 0, 0)
    if k == WX:
        do_special(S, C, p)
    if hands[p, NK] == 1:
        do_uno(S, C, p)
    victim = next_alive(S, C, p, d)
    if hands[p, NK] == 0:
        # last card: its draw still happens and counts in scoring
        if k == WD4 or (k < 52 and k % 13 == DRAW2):
            total = s[S_PEND] + (4 if k == WD4 else 2)
            chain = s[S_CHAIN] + 1
            cause = CAUSE_STACK if chain >= 2 else (CAUSE_WD4 if k == WD4 else CAUSE_DRAW2)
            draw_n(S, victim, total, cause)
        s[S_PEND] = 0
        s[S_CHAIN] = 0
        end_round(S, C, p)
        return
    if k == WD4:
        s[S_PEND] += 4
        s[S_CHAIN] += 1
        s[S_PEND_KIND] = WD4
        goto_pending(S, C, victim)
        return
    if k >= 52:
        s[S_NEXT] = victim
        resolved(S, C)
        return
    r = k % 13
    if r == SKIP:
        emit(S, EV_SKIP, victim, 0, 0, 0, 0)
        s[S_NEXT] = next_alive(S, C, victim, d)
    elif r == REVERSE:
        if s[S_NALIVE] == 2 and ci[C_TWO_PLAYER_REVERSE] != 0:
            emit(S, EV_SKIP, victim, 0, 0, 0, 0)
            s[S_NEXT] = p
        else:
            s[S_DIR] = -d
            emit(S, EV_REVERSE, -d, 0, 0, 0, 0)
            s[S_NEXT] = next_alive(S, C, p, -d)
    elif r == DRAW2:
        s[S_PEND] += 2
        s[S_CHAIN] += 1
        s[S_PEND_KIND] = DRAW2
        goto_pending(S, C, victim)
        return
    elif ci[C_SEVEN_O] != 0 and r == 7 and s[S_NALIVE] > 1:
        s[S_PHASE] = PH_TARGET
        s[S_CUR] = p
        s[S_TARGET_CTX] = TGT_SWAP
        return
    elif ci[C_SEVEN_O] != 0 and r == 0:
        rotate_hands(S, C, d)
        s[S_NEXT] = victim
    else:
        s[S_NEXT] = victim
    resolved(S, C)


@jit
def rotate_hands(S, C, d):
    """Seven-O 0: seat i's hand goes to seat i + direction (seats in the round)."""
    hands, st = S.hands, S.st
    first = next_alive(S, C, 0, 1) if S.seat[0, SEAT_ALIVE] == 0 else 0
    carry, tmp = S.scratch[1], S.scratch[2]
    _copy(carry, hands[first])
    q = first
    for _ in range(S.s[S_NALIVE]):
        t = next_alive(S, C, q, d)
        _copy(tmp, hands[t])
        _copy(hands[t], carry)
        _copy(carry, tmp)
        q = t
    st[R_SWAPS] += 1
    emit(S, EV_ROTATE, d, 0, 0, 0, 0)


@jit
def challengeable(S):
    """May the player facing the pending draw challenge it? Only a WD4 that
    starts a chain, and not once that player has begun a stacking turn."""
    s = S.s
    return s[S_PEND_KIND] == WD4 and s[S_CHAIN] == 1 and s[S_STACK_TURN] == 0


@jit
def pending_choice(S, C, p):
    """Does ``p`` have anything to decide when facing the pending draw?"""
    if challengeable(S):
        return True
    for k in range(NK):
        if S.hands[p, k] > 0 and can_stack(S, C, p, k):
            return True
    return False


@jit
def goto_pending(S, C, victim):
    s = S.s
    s[S_PHASE] = PH_PENDING
    s[S_CUR] = victim
    if not pending_choice(S, C, victim):
        accept(S, C)


@jit
def accept(S, C):
    s = S.s
    v = s[S_CUR]
    if s[S_CHAIN] >= 2:
        cause = CAUSE_STACK
    elif s[S_PEND_KIND] == WD4:
        cause = CAUSE_WD4
    else:
        cause = CAUSE_DRAW2
    draw_n(S, v, s[S_PEND], cause)
    emit(S, EV_SKIP, v, 0, 0, 0, 0)
    s[S_PEND] = 0
    s[S_CHAIN] = 0
    s[S_STACK_TURN] = 0
    s[S_NEXT] = next_alive(S, C, v, s[S_DIR])
    resolved(S, C)


@jit
def challenge(S, C):
    s, st = S.s, S.st
    v = s[S_CUR]
    wp = s[S_WD4_PLAYER]
    success = s[S_WD4_LEGAL] == 0
    st[R_CHALLENGES] += 1
    emit(S, EV_CHALLENGE, v, wp, 1 if success else 0, 0, 0)
    s[S_PEND] = 0
    s[S_CHAIN] = 0
    if success:
        draw_n(S, wp, 4, CAUSE_CHALLENGE)
        s[S_NEXT] = v
    else:
        draw_n(S, v, 6, CAUSE_CHALLENGE)
        emit(S, EV_SKIP, v, 0, 0, 0, 0)
        s[S_NEXT] = next_alive(S, C, v, s[S_DIR])
    resolved(S, C)


@jit
def resolved(S, C):
    """The play is fully resolved: offer jump-ins, else the next turn starts."""
    s = S.s
    if C.ci[C_JUMP_IN] != 0 and s[S_LASTP] >= 0 and top_card(S) < 52:
        s[S_JUMP_I] = 0
        jump_scan(S, C)
        return
    next_turn(S, C)


@jit
def jump_scan(S, C):
    """First seat in turn order after the top card's player holding its twin."""
    s, hands = S.s, S.hands
    t = top_card(S)
    q = s[S_LASTP]
    for _ in range(s[S_JUMP_I] + 1):
        q = next_alive(S, C, q, s[S_DIR])
    i = s[S_JUMP_I]
    while i < s[S_NALIVE] - 1:
        if hands[q, t] > 0:
            s[S_JUMP_I] = i
            s[S_PHASE] = PH_JUMP
            s[S_CUR] = q
            return
        q = next_alive(S, C, q, s[S_DIR])
        i += 1
    next_turn(S, C)


@jit
def draw_for_turn(S, C, p):
    s, ci = S.s, C.ci
    dup = ci[C_DRAW_UNTIL_PLAY] != 0
    open_draw(S, p, CAUSE_TURN)
    k = -1
    while True:
        k = draw_one(S)
        if k < 0 or not dup or can_play(S, C, p, k):
            break
    close_draw(S)
    if k >= 0 and can_play(S, C, p, k):
        s[S_PHASE] = PH_DRAWN
        s[S_DRAWN] = k
        return
    s[S_NEXT] = next_alive(S, C, p, s[S_DIR])
    next_turn(S, C)


# --- the action interface -----------------------------------------------------
@jit
def is_legal(S, C, a):
    """Is action ``a`` legal for the player who must decide now?"""
    s, hands, pp = S.s, S.hands, C.pp
    ph = s[S_PHASE]
    p = s[S_CUR]
    if a < 0 or a >= NA:
        return False
    if ph == PH_TURN:
        if a == A_DRAW:
            return True
        if a < NK and hands[p, a] > 0:
            return can_play(S, C, p, a) or (a == WD4 and pp[p, P_BLUFF] > 0)
        return False
    if ph == PH_DRAWN:
        if a == s[S_DRAWN]:
            return True
        return a == A_PASS and C.ci[C_DRAW_UNTIL_PLAY] == 0
    if ph == PH_COLOR:
        return A_COLOR <= a < A_COLOR + 4
    if ph == PH_PENDING:
        if a == A_ACCEPT:
            return True
        if a == A_CHALLENGE:
            return challengeable(S)
        return a < NK and can_stack(S, C, p, a)
    if ph == PH_TARGET:
        t = a - A_TARGET
        return 0 <= t < C.ci[C_PLAYERS] and t != p and S.seat[t, SEAT_ALIVE] != 0
    if ph == PH_JUMP:
        return a == A_PASS or (a < NK and a == top_card(S) and hands[p, a] > 0)
    return False


@jit
def legal_actions(S, C, out):
    """Write the legal actions into ``out``; return how many."""
    n = 0
    for a in range(NA):
        if is_legal(S, C, a):
            out[n] = a
            n += 1
    return n


@jit
def apply_action(S, C, a):
    """Apply a legal action and run the rules on to the next decision.

    Returns False (changing nothing) when ``a`` is not legal."""
    if not is_legal(S, C, a):
        return False
    apply_legal(S, C, a)
    return True


@jit
def apply_legal(S, C, a):
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
        if s[S_COLOR_CTX] == 1:
            begin_turn(S, C, p)
        else:
            after_color(S, C)
    elif ph == PH_PENDING:
        if a == A_ACCEPT:
            accept(S, C)
        elif a == A_CHALLENGE:
            challenge(S, C)
        else:
            # stacking is a regular turn (RULES 10); a silenced player's slip
            # comes at its start, before the card is played
            if s[S_STACK_TURN] == 0:
                if st[R_TURNS] >= C.ci[C_MAX_TURNS]:
                    end_round(S, C, -1)
                    return
                st[R_TURNS] += 1
                emit(S, EV_TURN, p, s[S_COLOR], top_card(S), 0, 0)
                slip_check(S, C, p)
                if not can_stack(S, C, p, a):
                    # the slip's cards made the chosen WD4 illegal (RULES 10:
                    # a stacked WD4 meets the color condition): within the
                    # same turn, stack another card or take the draw
                    s[S_STACK_TURN] = 1
                    if not pending_choice(S, C, p):
                        accept(S, C)
                    return
            s[S_STACK_TURN] = 0
            start_play(S, C, p, a)
    elif ph == PH_TARGET:
        t = a - A_TARGET
        if s[S_TARGET_CTX] == TGT_SWAP:
            hands = S.hands
            tmp = S.scratch[1]
            _copy(tmp, hands[p])
            _copy(hands[p], hands[t])
            _copy(hands[t], tmp)
            st[R_SWAPS] += 1
            emit(S, EV_SWAP, p, t, 0, 0, 0)
            s[S_NEXT] = next_alive(S, C, p, s[S_DIR])
            resolved(S, C)
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
            emit(S, EV_JUMP, p, a, 0, 0, 0)
            start_play(S, C, p, a)


# --- policies -------------------------------------------------------------------------
@jit
def _playable_mask(S, C, p, stack, mask):
    """Per-kind flags of the cards ``p`` may play now (held or not), or may
    stack (held), straight from the definitions `can_play` / `can_stack`."""
    for k in range(NK):
        if stack:
            mask[k] = 1 if S.hands[p, k] > 0 and can_stack(S, C, p, k) else 0
        else:
            mask[k] = 1 if can_play(S, C, p, k) else 0


@jit
def _uniform_card(S, C, p, stack):
    """A uniformly chosen physical card among the playable (or stackable) ones.

    Stacking decisions are rare and use the definition; a turn's play is the
    innermost loop of every simulation, so there the legal kinds are summed
    per class (active color, the top's rank in other colors, wilds) instead
    of calling `can_play` 55 times. Tests check both agree with `can_play`."""
    hands, rng = S.hands, S.rng
    if stack:
        total = 0
        for k in range(NK):
            if hands[p, k] > 0 and can_stack(S, C, p, k):
                total += hands[p, k]
        if total == 0:
            return -1
        x = rng_int(rng, total)
        for k in range(NK):
            if hands[p, k] > 0 and can_stack(S, C, p, k):
                if x < hands[p, k]:
                    return k
                x -= hands[p, k]
        return -1
    # the hot path: active color, same rank in other colors, wilds
    s = S.s
    c = s[S_COLOR]
    t = top_card(S)
    tr = t % 13 if t < 52 else -1
    base = c * 13
    total = 0
    for r in range(13):
        total += hands[p, base + r]
    held_color = total
    if tr >= 0:
        for cc in range(4):
            if cc != c:
                total += hands[p, cc * 13 + tr]
    total += hands[p, W] + hands[p, WX]
    wd4 = hands[p, WD4] if (held_color == 0 and (C.ci[C_WD4_WILDS_BLOCK] == 0 or (
        hands[p, W] == 0 and hands[p, WX] == 0))) else 0
    total += wd4
    if total == 0:
        return -1
    x = rng_int(rng, total)
    for r in range(13):
        n = hands[p, base + r]
        if x < n:
            return base + r
        x -= n
    if tr >= 0:
        for cc in range(4):
            if cc != c:
                n = hands[p, cc * 13 + tr]
                if x < n:
                    return cc * 13 + tr
                x -= n
    if x < hands[p, W]:
        return W
    x -= hands[p, W]
    if x < hands[p, WX]:
        return WX
    return WD4


@jit
def _uniform_target(S, C, p):
    rng, seat = S.rng, S.seat
    n = S.s[S_NALIVE] - 1
    r = rng_int(rng, n)
    for q in range(C.ci[C_PLAYERS]):
        if q != p and seat[q, SEAT_ALIVE] != 0:
            if r == 0:
                return q
            r -= 1
    return p


@jit
def random_action(S, C):
    """The reference policy, exactly as RULES.md section 7 fixes it."""
    s, rng = S.s, S.rng
    ph = s[S_PHASE]
    p = s[S_CUR]
    if ph == PH_TURN:
        k = _uniform_card(S, C, p, False)
        return A_DRAW if k < 0 else k
    if ph == PH_DRAWN:
        return s[S_DRAWN]
    if ph == PH_COLOR:
        return A_COLOR + rng_int(rng, 4)
    if ph == PH_PENDING:
        k = _uniform_card(S, C, p, True)
        return A_ACCEPT if k < 0 else k
    if ph == PH_TARGET:
        return A_TARGET + _uniform_target(S, C, p)
    if ph == PH_JUMP:
        return top_card(S)
    return -1


@jit
def _best_color(S, p):
    hands = S.hands
    best, bc = 0, -1
    for c in range(4):
        n = 0
        for r in range(13):
            n += hands[p, c * 13 + r]
        if n > bc:
            best, bc = c, n
    return best


@jit
def _fewest_cards(S, C, p):
    hands, seat = S.hands, S.seat
    best, bn = p, 1 << 30
    for q in range(C.ci[C_PLAYERS]):
        if q != p and seat[q, SEAT_ALIVE] != 0 and hands[q, NK] < bn:
            best, bn = q, hands[q, NK]
    return best


@jit
def strategic_action(S, C):
    """A simple table-sense heuristic: attack a short next hand, shed points,
    keep wilds for when nothing else fits, name the color held most."""
    s, hands, rng, pp = S.s, S.hands, S.rng, C.pp
    ph = s[S_PHASE]
    p = s[S_CUR]
    if ph == PH_TURN:
        victim = next_alive(S, C, p, s[S_DIR])
        danger = hands[victim, NK] <= 2
        best, bscore = -1, -1e9
        for k in range(NK):
            if hands[p, k] <= 0 or not can_play(S, C, p, k):
                continue
            if k >= 52:
                sc = -100.0 if k == W or k == WX else -50.0
                if danger and k == WD4:
                    sc = 100.0
            else:
                r = k % 13
                sc = 20.0 if r >= 10 else float(r)
                if danger and (r == SKIP or r == DRAW2):
                    sc += 200.0
                # prefer keeping a color we hold many of
                cnt = 0
                for rr in range(13):
                    cnt += hands[p, (k // 13) * 13 + rr]
                sc += 0.5 * cnt
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
        for k in range(NK):
            if hands[p, k] > 0 and can_stack(S, C, p, k):
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
def policy_action(S, C):
    """The compiled policy of the seat that must decide now."""
    p = S.s[S_CUR]
    if C.pp[p, P_KIND] == POLICY_STRATEGIC:
        return strategic_action(S, C)
    return random_action(S, C)


@jit
def play_round(S, C):
    """Run the current round to its end under the seats' compiled policies."""
    s = S.s
    while s[S_PHASE] != PH_DONE:
        apply_legal(S, C, policy_action(S, C))


# --- matches -------------------------------------------------------------------------
@jit
def start_match(S, C):
    seat = S.seat
    for q in range(C.ci[C_PLAYERS]):
        seat[q, SEAT_ALIVE] = 1
        seat[q, SEAT_SCORE] = 0
    S.s[S_ROUND] = 0


@jit
def score_round(S, C, winners):
    """Add the finished round to the match; return True when the match is over.

    ``winners`` receives the winning seats (count in the return of
    ``match_winners``); a match over with no winner is unfinished."""
    s, seat, st = S.s, S.seat, S.st
    ci = C.ci
    n = ci[C_PLAYERS]
    sc = ci[C_SCORING]
    w = st[R_WINNER]
    target = ci[C_TARGET]
    if w >= 0:
        if sc == SCORING_STANDARD:
            seat[w, SEAT_SCORE] += st[R_POINTS]
        elif sc == SCORING_PARTNERS:
            seat[w, SEAT_SCORE] += st[R_POINTS]
            seat[(w + 2) % 4, SEAT_SCORE] += st[R_POINTS]
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
                lo = 1 << 60
                for q in range(n):
                    lo = min(lo, seat[q, SEAT_SCORE])
                for q in range(n):
                    if seat[q, SEAT_SCORE] == lo:
                        winners[nw] = q
                        nw += 1
            elif sc == SCORING_PARTNERS:
                winners[0] = w % 2
                winners[1] = w % 2 + 2
                nw = 2
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
def next_dealer(S, C):
    return next_alive(S, C, S.s[S_DEALER], 1)


# --- batch simulation ----------------------------------------------------------------
# record columns (one row per round)
REC_GAME, REC_ROUND, REC_DEALER, REC_WINNER, REC_WINNER_POS = 0, 1, 2, 3, 4
REC_STATS = 5  # REC_STATS + R_* (NR columns)
REC_SEAT_POINTS = REC_STATS + NR  # 10 columns: each seat's remaining hand points
NREC = REC_SEAT_POINTS + 10


@jit
def _position(S, C, dealer, w):
    """Seats from the dealer's left (0) round to the dealer (last)."""
    pos = 0
    q = dealer
    for _ in range(C.ci[C_PLAYERS]):
        q = next_alive(S, C, q, 1)
        if q == w:
            return pos
        pos += 1
    return pos


@jit
def _record_round(S, C, g, rnd, turns_h, points_h, drawn_h, wins_pos, wins_seat, sums, sums_sq,
                  counts, rec, nrec, want_rec):
    s, st = S.s, S.st
    n = C.ci[C_PLAYERS]
    t = st[R_TURNS]
    turns_h[min(t, turns_h.shape[0] - 1)] += 1
    points_h[min(st[R_POINTS], points_h.shape[0] - 1)] += 1
    drawn_h[min(st[R_DRAWN], drawn_h.shape[0] - 1)] += 1
    for i in range(NR):
        sums[i] += st[i]
        sums_sq[i] += st[i] * st[i]
    counts[1] += 1
    w = st[R_WINNER]
    pos = -1
    if w < 0:
        counts[2] += 1
    else:
        pos = _position(S, C, s[S_DEALER], w)
        wins_pos[pos] += 1
        wins_seat[w] += 1
    if want_rec:
        if nrec < rec.shape[0]:
            rec[nrec, REC_GAME] = g
            rec[nrec, REC_ROUND] = rnd
            rec[nrec, REC_DEALER] = s[S_DEALER]
            rec[nrec, REC_WINNER] = w
            rec[nrec, REC_WINNER_POS] = pos
            for i in range(NR):
                rec[nrec, REC_STATS + i] = st[i]
            for q in range(10):
                rec[nrec, REC_SEAT_POINTS + q] = hand_points(S, C, q) if q < n else -1
        nrec += 1
    return nrec


@jit
def run_games(S, C, key0, key1, start, count, turns_h, points_h, drawn_h, wins_pos,
              wins_seat, sums, sums_sq, counts, mwins_seat, mrounds_h, margin_h, rec, want_rec):
    """Simulate games ``start .. start+count-1`` into mergeable aggregates.

    A game is one round (``mode: round``; the dealer rotates with the game
    index so seats take turns at every position) or one match. Returns the
    number of record rows needed (rows beyond ``rec`` are counted, not written).
    """
    seat = S.seat
    ci = C.ci
    n = ci[C_PLAYERS]
    match = ci[C_MODE] == 1
    winners = S.scratch[3]
    nrec = 0
    for g in range(start, start + count):
        seed_game(S.rng, key0, key1, g)
        counts[0] += 1
        if not match:
            for q in range(n):
                seat[q, SEAT_ALIVE] = 1
            new_round(S, C, g % n)
            play_round(S, C)
            nrec = _record_round(S, C, g, 0, turns_h, points_h, drawn_h, wins_pos, wins_seat,
                                 sums, sums_sq, counts, rec, nrec, want_rec)
            continue
        start_match(S, C)
        dealer = 0
        rnd = 0
        while True:
            new_round(S, C, dealer)
            play_round(S, C)
            nrec = _record_round(S, C, g, rnd, turns_h, points_h, drawn_h, wins_pos,
                                 wins_seat, sums, sums_sq, counts, rec, nrec, want_rec)
            rnd += 1
            over, nw = score_round(S, C, winners)
            if over:
                break
            dealer = next_dealer(S, C)
        mrounds_h[min(rnd, mrounds_h.shape[0] - 1)] += 1
        if nw == 0:
            counts[3] += 1
        else:
            for i in range(nw):
                mwins_seat[winners[i]] += 1
            # margin: best loser's distance from the winner (by the variant's sense)
            w0 = winners[0]
            other = -1
            for q in range(n):
                if q == w0 or (nw > 1 and q == winners[1]):
                    continue
                if other < 0 or abs(seat[q, SEAT_SCORE] - seat[w0, SEAT_SCORE]) < abs(
                        seat[other, SEAT_SCORE] - seat[w0, SEAT_SCORE]):
                    other = q
            if other >= 0:
                m = abs(seat[w0, SEAT_SCORE] - seat[other, SEAT_SCORE])
                margin_h[min(m, margin_h.shape[0] - 1)] += 1
    return nrec
