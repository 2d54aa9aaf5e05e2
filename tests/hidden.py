"""Dealing again the cards a seat cannot see: the check that a decision reads
only what its seat could know (test_public_view.py, test_ismcts.py)."""

from __future__ import annotations

import numpy as np

from unosim.engine.kernel import state as L
from unosim.rules.cards import NK, suit_of

SUITS = np.array([suit_of(k) for k in range(NK)])


def redeal_hidden(S: L.State, players: int, p: int, gen: np.random.Generator) -> None:
    """Deal again every card ``p`` cannot see (the other hands, sizes kept, and the
    draw pile), keeping the cards ``p`` knows where they are (`unosim.engine.kernel.known`),
    and flip whether a WD4 on the table was legal at random."""
    others = [q for q in range(players) if q != p and S.seat[q, L.SEAT_ALIVE]]
    nd = int(S.s[L.S_NDRAW])
    pool = [int(k) for k in S.piles[0, :nd]]
    for q in others:
        pool += [k for k in range(NK) for _ in range(int(S.hands[q, k] - S.known[p, q, k]))]
    gen.shuffle(pool)
    at = 0
    for q in others:
        free = int(S.hands[q, L.H_SIZE] - S.known[p, q, :NK].sum())
        counts = np.bincount(np.array(pool[at:at + free], dtype=np.int64), minlength=NK)
        counts += S.known[p, q, :NK]
        at += free
        S.hands[q, :NK] = counts
        S.hands[q, L.H_SUIT:L.H_SUIT + 5] = np.bincount(SUITS, weights=counts, minlength=5)
    S.piles[0, :nd] = pool[at:]
    S.s[L.S_WD4_LEGAL] = gen.integers(2)
