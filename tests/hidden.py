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


def hidden_faces(S: L.State, players: int, p: int) -> tuple[list[int], list[int]]:
    """UNO Flip: the physical cards whose face in play ``p`` cannot see (the other
    hands, the whole draw pile), and those whose other face it cannot see (its own hand,
    the discard pile, the draw pile below its top card: docs/rules.md section 11)."""
    nd, nx = int(S.s[L.S_NDRAW]), int(S.s[L.S_NDISC])
    draw = [int(v) for v in S.piles[0, :nd]]  # the top card is the last
    others = [int(v) for q in range(players) if q != p for v in np.flatnonzero(S.hp[q])]
    own = [int(v) for v in np.flatnonzero(S.hp[p])]
    return others + draw, own + [int(v) for v in S.piles[1, :nx]] + draw[:-1]


def redeal_hidden_faces(S: L.State, C: L.Config, players: int, p: int,
                        gen: np.random.Generator) -> None:
    """UNO Flip: deal again every face ``p`` cannot see among the cards whose face it is
    (`hidden_faces`; every card stays where it is), recount the hands' faces in play,
    and flip whether a conditioned wild on the table was legal at random."""
    from unosim.engine.kernel.flip import index_faces, recount

    side = int(S.s[L.S_SIDE])
    for s, cards in zip((side, 1 - side), hidden_faces(S, players, p), strict=True):
        idx = np.array(cards, dtype=np.int64)
        S.fl[s, idx] = gen.permutation(S.fl[s, idx])
    index_faces(S, C)  # the engine's index of which cards show which face
    for q in range(players):
        recount(S, C, q)
    S.s[L.S_WD4_LEGAL] = gen.integers(2)
