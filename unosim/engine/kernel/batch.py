"""Batch simulation: a range of games into mergeable aggregates.

`simulate` is what the runner calls per chunk. Aggregates are integer
arrays that merge by addition (`merge_aggregates`), so any split of the
games into chunks, in any order, on any number of workers, gives the same
totals. Game ``g`` always plays the same way for a given seed (its random
stream is keyed by the seed and ``g`` alone).

>>> from unosim.rules.config import load_config
>>> from unosim.engine.kernel.state import compile_config
>>> agg, rec = simulate(compile_config(load_config("classic")), seed=1, start=0, count=20,
...                     records=True)
>>> int(agg["counts"][COUNT_ROUNDS]), rec.shape == (20, REC_SEAT_POINTS + 4)
(20, True)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from unosim.engine.kernel.deal import new_round
from unosim.engine.kernel.jit import jit, jit_inline
from unosim.engine.kernel.policies import policy_action
from unosim.engine.kernel.rng import seed_game, seed_keys
from unosim.engine.kernel.rules import apply_legal
from unosim.engine.kernel.scoring import next_dealer, score_round, start_match
from unosim.engine.kernel.state import (
    C_MAX_ROUNDS,
    C_MAX_TURNS,
    C_MODE,
    C_PLAYERS,
    NR,
    PH_DONE,
    R_DRAWN,
    R_POINTS,
    R_RESHUFFLES,
    R_TURNS,
    R_WINNER,
    S_DEALER,
    S_PHASE,
    SEAT_ALIVE,
    SEAT_SCORE,
    Config,
    IntArray,
    KernelArrays,
    State,
    alloc_state,
    config_tuple,
)
from unosim.engine.kernel.table import hand_points, next_alive

DRAWN_BINS = 4096
MARGIN_BINS = 4096


class Aggregates(NamedTuple):
    """A chunk's totals, passed to the compiled loop by name (one argument)."""

    turns_hist: IntArray  # rounds by regular turns (last bin: the cap)
    points_hist: IntArray  # rounds by points scored
    drawn_hist: IntArray  # rounds by cards drawn (last bin: DRAWN_BINS - 1 or more)
    wins_pos: IntArray  # round wins by position from the dealer's left
    wins_seat: IntArray  # round wins by seat
    sums: IntArray  # [NR] per-round counters summed
    sums_sq: IntArray  # [NR] and squared: exact variances
    counts: IntArray  # COUNT_* below
    match_wins_seat: IntArray  # match wins by seat (a shared win counts for each)
    match_rounds_hist: IntArray  # matches by rounds played
    margin_hist: IntArray  # matches by the winner's margin over the best loser
    match_wins_k: IntArray  # [seat, k-1]: matches won by seat, the win shared by k seats


AGG_KEYS = Aggregates._fields
COUNT_GAMES, COUNT_ROUNDS, COUNT_STALEMATES, COUNT_UNFINISHED = 0, 1, 2, 3

# record columns (one row per round; `simulate` sizes the seat columns to the config)
REC_GAME, REC_ROUND, REC_DEALER, REC_WINNER, REC_WINNER_POS = 0, 1, 2, 3, 4
REC_STATS = 5  # REC_STATS + R_* (NR columns)
REC_SEAT_POINTS = REC_STATS + NR  # one column per seat: the hand points left

# Per-game features (one row per game, summed over a match's rounds): what paired
# comparisons difference game by game. GF_WINNER is the round's (round mode) or the first
# match winner's seat + 1 (0: none); only its equality across rule sets is meaningful.
GF_TURNS, GF_ROUNDS, GF_DRAWN, GF_POINTS, GF_RESHUFFLES = 0, 1, 2, 3, 4
GF_FIRST_WINS, GF_STALEMATES, GF_WINNER, GF_UNFINISHED, GF_MARGIN = 5, 6, 7, 8, 9
NGF = 10


def empty_aggregates(cc: KernelArrays) -> dict[str, IntArray]:
    """Zeroed aggregates sized for this config."""
    n = int(cc.ci[C_PLAYERS])
    max_pts = int((cc.points * cc.deck_counts).sum())
    return Aggregates(
        turns_hist=np.zeros(int(cc.ci[C_MAX_TURNS]) + 1, np.int64),
        points_hist=np.zeros(max_pts + 1, np.int64),
        drawn_hist=np.zeros(DRAWN_BINS, np.int64),
        wins_pos=np.zeros(n, np.int64),
        wins_seat=np.zeros(n, np.int64),
        sums=np.zeros(NR, np.int64),
        sums_sq=np.zeros(NR, np.int64),
        counts=np.zeros(4, np.int64),
        match_wins_seat=np.zeros(n, np.int64),
        match_rounds_hist=np.zeros(int(cc.ci[C_MAX_ROUNDS]) + 1, np.int64),
        margin_hist=np.zeros(MARGIN_BINS, np.int64),
        match_wins_k=np.zeros((n, n), np.int64),
    )._asdict()


def merge_aggregates(a: dict[str, IntArray], b: dict[str, IntArray]) -> dict[str, IntArray]:
    """Sum of two aggregates (neither is modified)."""
    return {k: a[k] + b[k] for k in AGG_KEYS}


class Tally:
    """Where a game played step by step (`unosim.engine.game.drive_game`) records its
    rounds and match: the aggregates and ``GF_*`` rows `run_games` writes, by the same
    compiled recorders, so it counts exactly as the batch loop does."""

    def __init__(self, cc: KernelArrays, agg: dict[str, IntArray] | None = None,
                 features: IntArray | None = None, start: int = 0) -> None:
        self.agg = Aggregates(**(agg if agg is not None else empty_aggregates(cc)))
        self.rec = np.zeros((1, 1), np.int64)
        self.features = features if features is not None else np.zeros((1, NGF), np.int64)
        self.want_gf = features is not None
        self.start = start

    def row(self, g: int) -> IntArray:
        """Game ``g``'s ``GF_*`` row (a scratch row when none are kept)."""
        return self.features[g - self.start] if self.want_gf else self.features[0]


def simulate(cc: KernelArrays, seed: int, start: int, count: int, records: bool = False,
             state: State | None = None, features: IntArray | None = None
             ) -> tuple[dict[str, IntArray], IntArray | None]:
    """Play games ``start .. start+count-1`` of ``seed``; aggregates and, if asked,
    one record row per round (columns ``REC_*``).

    ``features``, an int64 array of shape ``(count, NGF)``, receives each game's
    ``GF_*`` row (what a paired comparison needs, without keeping records)."""
    S = state if state is not None else alloc_state(cc, trace=False)
    C = config_tuple(cc)
    k0, k1 = seed_keys(seed)
    match = int(cc.ci[C_MODE]) == 1
    width = REC_SEAT_POINTS + int(cc.ci[C_PLAYERS])
    cap = (count * (8 if match else 1)) if records else 1
    gf = features if features is not None else np.zeros((1, NGF), np.int64)
    while True:
        agg = empty_aggregates(cc)
        rec = np.zeros((cap, width), np.int64)
        gf[:] = 0
        need = run_games(S, C, np.uint64(k0), np.uint64(k1), start, count, Aggregates(**agg),
                         rec, records, gf, features is not None)
        if not records or need <= cap:
            return agg, (rec[:need] if records else None)
        cap = need  # a match ran long: replay the chunk with room for every row


# --- compiled ----------------------------------------------------------------------------
@jit
def play_round(S: State, C: Config) -> None:
    """Run the current round to its end under the seats' compiled policies."""
    s = S.s
    while s[S_PHASE] != PH_DONE:
        apply_legal(S, C, policy_action(S, C))


@jit
def _position(S: State, C: Config, dealer: int, w: int) -> int:
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
def _record_round(S: State, C: Config, g: int, rnd: int, agg: Aggregates, rec: IntArray,
                  nrec: int, want_rec: bool, row: IntArray, want_gf: bool) -> int:
    """Add the finished round to ``agg`` (a row to ``rec``, its features to the game's
    ``row``); the record rows needed."""
    s, st = S.s, S.st
    turns_h, points_h, drawn_h = agg.turns_hist, agg.points_hist, agg.drawn_hist
    sums, sums_sq, counts = agg.sums, agg.sums_sq, agg.counts
    turns_h[min(st[R_TURNS], turns_h.shape[0] - 1)] += 1
    points_h[min(st[R_POINTS], points_h.shape[0] - 1)] += 1
    drawn_h[min(st[R_DRAWN], drawn_h.shape[0] - 1)] += 1
    for i in range(NR):
        sums[i] += st[i]
        sums_sq[i] += st[i] * st[i]
    counts[COUNT_ROUNDS] += 1
    w = st[R_WINNER]
    pos = -1
    if w < 0:
        counts[COUNT_STALEMATES] += 1
    else:
        pos = _position(S, C, s[S_DEALER], w)
        agg.wins_pos[pos] += 1
        agg.wins_seat[w] += 1
    if want_gf:
        _add_features(st, pos, row)
    if want_rec:
        if nrec < rec.shape[0]:
            rec[nrec, REC_GAME] = g
            rec[nrec, REC_ROUND] = rnd
            rec[nrec, REC_DEALER] = s[S_DEALER]
            rec[nrec, REC_WINNER] = w
            rec[nrec, REC_WINNER_POS] = pos
            for i in range(NR):
                rec[nrec, REC_STATS + i] = st[i]
            for q in range(C.ci[C_PLAYERS]):
                rec[nrec, REC_SEAT_POINTS + q] = hand_points(S, C, q)
        nrec += 1
    return nrec


@jit
def _record_match(S: State, C: Config, rounds: int, nw: int, agg: Aggregates) -> int:
    """Add the finished match (winners in ``S.winners[:nw]``) to ``agg``; its margin
    (-1 when unfinished or no other seat)."""
    seat, winners = S.seat, S.winners
    n = C.ci[C_PLAYERS]
    agg.match_rounds_hist[min(rounds, agg.match_rounds_hist.shape[0] - 1)] += 1
    if nw == 0:
        agg.counts[COUNT_UNFINISHED] += 1
        return -1
    for i in range(nw):
        agg.match_wins_seat[winners[i]] += 1
        agg.match_wins_k[winners[i], nw - 1] += 1
    # margin: best loser's distance from the winner (by the variant's sense)
    w0 = winners[0]
    other = -1
    for q in range(n):
        if q == w0 or (nw > 1 and q == winners[1]):
            continue
        if other < 0 or abs(seat[q, SEAT_SCORE] - seat[w0, SEAT_SCORE]) < abs(
                seat[other, SEAT_SCORE] - seat[w0, SEAT_SCORE]):
            other = q
    if other < 0:
        return -1
    m = abs(seat[w0, SEAT_SCORE] - seat[other, SEAT_SCORE])
    agg.margin_hist[min(m, agg.margin_hist.shape[0] - 1)] += 1
    return m


@jit
def _add_features(st: IntArray, pos: int, row: IntArray) -> None:
    """Add a finished round (its counters ``st``, the winner's position) to a game's row."""
    row[GF_TURNS] += st[R_TURNS]
    row[GF_ROUNDS] += 1
    row[GF_DRAWN] += st[R_DRAWN]
    row[GF_POINTS] += st[R_POINTS]
    row[GF_RESHUFFLES] += st[R_RESHUFFLES]
    if pos == 0:
        row[GF_FIRST_WINS] += 1
    if st[R_WINNER] < 0:
        row[GF_STALEMATES] += 1


@jit
def finish_features(S: State, row: IntArray, match: bool, nw: int, margin: int) -> None:
    """A finished game's last features: who won (seat + 1), and for a match whether it
    finished and by what margin."""
    if not match:
        row[GF_WINNER] = S.st[R_WINNER] + 1
        return
    row[GF_WINNER] = S.winners[0] + 1 if nw > 0 else 0
    row[GF_UNFINISHED] = 1 if nw == 0 else 0
    row[GF_MARGIN] = max(margin, 0)


# --- the one game driver ------------------------------------------------------------------
# A game is one round (``mode: round``; the dealer rotates with the game index so seats
# take turns at every position) or one match. Every loop that plays games (`run_games`
# here, `unosim.engine.game.drive_game` for the façade and the plug-ins) is
# ``begin_game``, then ``play a round; end_round`` until it says the game is over, with
# ``next_round`` in between: only the round's play differs (compiled, or step by step).
@jit_inline
def begin_game(S: State, C: Config, key0: np.uint64, key1: np.uint64, g: int,
               agg: Aggregates) -> None:
    """Seed game ``g``'s stream, seat everyone (a new match's scores) and deal its first
    round."""
    seed_game(S.rng, key0, key1, g)
    agg.counts[COUNT_GAMES] += 1
    if C.ci[C_MODE] == 1:
        start_match(S, C)
        new_round(S, C, 0)
        return
    n = C.ci[C_PLAYERS]
    for q in range(n):
        S.seat[q, SEAT_ALIVE] = 1
    new_round(S, C, g % n)


@jit_inline
def end_round(S: State, C: Config, g: int, rnd: int, agg: Aggregates, rec: IntArray,
              nrec: int, want_rec: bool, row: IntArray, want_gf: bool) -> tuple[int, bool]:
    """Record round ``rnd`` of game ``g`` (just finished) and, in a match, score it (and
    the match once over); the record rows needed and whether the game is over."""
    nrec = _record_round(S, C, g, rnd, agg, rec, nrec, want_rec, row, want_gf)
    if C.ci[C_MODE] != 1:
        if want_gf:
            finish_features(S, row, False, 0, 0)
        return nrec, True
    over, nw = score_round(S, C)
    if over:
        margin = _record_match(S, C, rnd + 1, nw, agg)
        if want_gf:
            finish_features(S, row, True, nw, margin)
    return nrec, over


@jit_inline
def next_round(S: State, C: Config) -> None:
    """Deal a match's next round (the scoring's next dealer)."""
    new_round(S, C, next_dealer(S, C))


@jit
def run_games(S: State, C: Config, key0: np.uint64, key1: np.uint64, start: int, count: int,
              agg: Aggregates, rec: IntArray, want_rec: bool, gf: IntArray,
              want_gf: bool) -> int:
    """Simulate games ``start .. start+count-1`` into ``agg`` (and their rows into ``gf``).

    Returns the number of record rows needed (rows beyond ``rec`` are counted,
    not written)."""
    nrec = 0
    for g in range(start, start + count):
        row = gf[g - start] if want_gf else gf[0]
        begin_game(S, C, key0, key1, g, agg)
        rnd = 0
        while True:
            play_round(S, C)
            nrec, over = end_round(S, C, g, rnd, agg, rec, nrec, want_rec, row, want_gf)
            if over:
                break
            rnd += 1
            next_round(S, C)
    return nrec
