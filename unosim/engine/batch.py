"""Batch simulation: a range of games into mergeable aggregates.

`simulate` is what the runner calls per chunk. Aggregates are integer
arrays that merge by addition (`merge_aggregates`), so any split of the
games into chunks, in any order, on any number of workers, gives the same
totals. Game ``g`` always plays the same way for a given seed (its random
stream is keyed by the seed and ``g`` alone).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from unosim.engine import kernel as K
from unosim.engine import layout as L
from unosim.engine.game import alloc_state, config_tuple, seed_keys

DRAWN_BINS = 4096
MARGIN_BINS = 4096

AGG_KEYS = ("turns_hist", "points_hist", "drawn_hist", "wins_pos", "wins_seat", "sums",
            "sums_sq", "counts", "match_wins_seat", "match_rounds_hist", "margin_hist")
# counts: games, rounds, stalemates, unfinished matches
COUNT_NAMES = ("games", "rounds", "stalemates", "unfinished")
SUM_NAMES = {i: n for n, i in vars(L).items() if n.startswith("R_") and isinstance(i, int)}


def empty_aggregates(cc: Any) -> dict[str, np.ndarray]:
    """Zeroed aggregates sized for this config."""
    n = int(cc.ci[L.C_PLAYERS])
    max_pts = int((cc.points * cc.deck_counts).sum())
    return {
        "turns_hist": np.zeros(int(cc.ci[L.C_MAX_TURNS]) + 1, np.int64),
        "points_hist": np.zeros(max_pts + 1, np.int64),
        "drawn_hist": np.zeros(DRAWN_BINS, np.int64),
        "wins_pos": np.zeros(n, np.int64),
        "wins_seat": np.zeros(n, np.int64),
        "sums": np.zeros(L.NR, np.int64),
        "sums_sq": np.zeros(L.NR, np.int64),  # per-round counters squared: exact variances
        "counts": np.zeros(4, np.int64),
        "match_wins_seat": np.zeros(n, np.int64),
        "match_rounds_hist": np.zeros(int(cc.ci[L.C_MAX_ROUNDS]) + 1, np.int64),
        "margin_hist": np.zeros(MARGIN_BINS, np.int64),
    }


def merge_aggregates(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Sum of two aggregates (neither is modified)."""
    return {k: a[k] + b[k] for k in AGG_KEYS}


def simulate(cc: Any, seed: int, start: int, count: int, records: bool = False,
             state: np.void | None = None) -> tuple[dict[str, np.ndarray], np.ndarray | None]:
    """Play games ``start .. start+count-1`` of ``seed``; aggregates and, if asked,
    one record row per round (columns `kernel.REC_*`)."""
    S = state if state is not None else alloc_state(cc, trace=False)
    C = config_tuple(cc)
    k0, k1 = seed_keys(seed)
    match = int(cc.ci[L.C_MODE]) == 1
    cap = (count * (8 if match else 1)) if records else 1
    while True:
        agg = empty_aggregates(cc)
        rec = np.zeros((cap, K.NREC), np.int64)
        need = K.run_games(S, C, np.uint64(k0), np.uint64(k1), start, count,
                           *(agg[k] for k in AGG_KEYS), rec, records)
        if not records or need <= cap:
            return agg, (rec[:need] if records else None)
        cap = need  # a match ran long: replay the chunk with room for every row
