"""Who sits where in a league: every arrangement of the policies, or a balanced random design.

In UNO the player after you takes your Draw Twos, so a league that fixed who sits
after whom would rate the seating, not the policy. Every arrangement (each seat
and each ordered pair of neighbours equally often, both ways round since a
Reverse flips play) is played where their number is manageable; beyond
`MAX_SEATINGS`, a seeded random design of relabelled groups (exact seat balance)
whose each step keeps the candidate that evens the neighbour counts. Integer
draws only, so the design is the same on every machine.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence

import numpy as np

__all__ = ["CANDIDATES", "MAX_SEATINGS", "SAMPLED_SEATINGS", "balance", "full_count",
           "neighbours", "seatings"]

MAX_SEATINGS = 400  # every arrangement up to this many; beyond it, a random design
SAMPLED_SEATINGS = 240  # the random design's size (at least)
CANDIDATES = 16  # random seatings drawn for each one the random design keeps


def _profile(k: int, n: int) -> tuple[int, int]:
    """(q, r): with ``k < n`` each policy holds ``q`` seats, ``r`` of them one more."""
    return divmod(n, k)


def full_count(k: int, n: int) -> int:
    """How many seatings the full design of ``k`` policies at ``n`` seats has.

    >>> full_count(5, 4), full_count(2, 4), full_count(3, 4), full_count(6, 6)
    (120, 6, 36, 720)
    """
    if k >= n:
        return math.perm(k, n)
    q, r = _profile(k, n)
    return int(math.comb(k, r) * math.factorial(n)
               // (math.factorial(q + 1) ** r * math.factorial(q) ** (k - r)))


def _arrangements(counts: list[int]) -> list[tuple[int, ...]]:
    """Every distinct sequence holding policy ``p`` ``counts[p]`` times, in lexicographic order."""
    n = sum(counts)
    out: list[tuple[int, ...]] = []
    cur: list[int] = []

    def rec() -> None:
        if len(cur) == n:
            out.append(tuple(cur))
            return
        for p, c in enumerate(counts):
            if c:
                counts[p] -= 1
                cur.append(p)
                rec()
                cur.pop()
                counts[p] += 1
    rec()
    return out


def _full(k: int, n: int) -> list[tuple[int, ...]]:
    if k >= n:
        return list(itertools.permutations(range(k), n))
    q, r = _profile(k, n)
    rows: list[tuple[int, ...]] = []
    for extra in itertools.combinations(range(k), r):
        rows += _arrangements([q + (p in extra) for p in range(k)])
    return sorted(rows)


def _sampled(k: int, n: int, seed: int) -> list[tuple[int, ...]]:
    """Random seatings from ``seed``, each with its relabellings ``p -> +-p + c (mod k)``.

    Each step draws `CANDIDATES` random seatings and keeps the one whose
    relabellings leave the ordered-neighbour counts most even (a greedy
    balance; the seats are balanced exactly by the relabellings).
    """
    rng = np.random.default_rng([seed, 0x1EA6])  # integer draws only: the same on every CPU
    q, r = _profile(k, n) if k < n else (0, 0)
    rows: list[tuple[int, ...]] = []
    seen: set[tuple[int, ...]] = set()
    pairs: Counter[tuple[int, int]] = Counter()
    others = [(a, b) for a in range(k) for b in range(k) if a != b]

    def draw() -> tuple[int, ...]:
        perm = [int(x) for x in rng.permutation(k)]
        if k >= n:
            return tuple(perm[:n])
        seats = [p for p in range(k) for _ in range(q + (p in perm[:r]))]
        return tuple(seats[int(i)] for i in rng.permutation(n))

    def spread(orbit: list[tuple[int, ...]]) -> tuple[int, list[tuple[int, ...]]]:
        c = pairs + Counter(x for row in orbit for x in neighbours(row))
        counts = [c[x] for x in others]
        return max(counts) - min(counts), orbit

    for _ in range(100 * SAMPLED_SEATINGS):
        if len(rows) >= SAMPLED_SEATINGS:
            break
        cands = []
        for _ in range(CANDIDATES):
            base = draw()
            if base not in seen:
                cands.append(sorted({tuple((sign * p + c) % k for p in base)
                                     for sign in (1, -1) for c in range(k)}))
        if not cands:
            continue
        _, orbit = min(spread(o) for o in cands)
        seen.update(orbit)
        pairs.update(x for row in orbit for x in neighbours(row))
        rows += orbit
    return rows


def seatings(k: int, n: int, seed: int = 0) -> list[tuple[int, ...]]:
    """The seatings of ``k`` policies at ``n`` seats: policy index per seat (see the module doc).

    >>> seatings(2, 2), seatings(3, 2)[:3]
    ([(0, 1), (1, 0)], [(0, 1), (0, 2), (1, 0)])
    >>> len(seatings(5, 4)), seatings(2, 4)[:3]
    (120, [(0, 0, 1, 1), (0, 1, 0, 1), (0, 1, 1, 0)])
    """
    if full_count(k, n) <= MAX_SEATINGS:
        return _full(k, n)
    return _sampled(k, n, seed)


def neighbours(row: Sequence[int]) -> list[tuple[int, int]]:
    """The ordered pairs (seat's policy, next seat's policy) around the table, both ways."""
    n = len(row)
    if n == 2:
        return [(row[0], row[1]), (row[1], row[0])]
    return ([(row[j], row[(j + 1) % n]) for j in range(n)]
            + [(row[(j + 1) % n], row[j]) for j in range(n)])


def balance(rows: Sequence[Sequence[int]], k: int) -> dict[str, tuple[int, int]]:
    """The fewest and most times any policy takes any seat (``seat``), any ordered pair of
    different policies are neighbours (``pair``), and a policy neighbours itself (``self``).

    >>> balance(seatings(3, 3), 3)
    {'seat': (2, 2), 'pair': (6, 6), 'self': (0, 0)}
    """
    n = len(rows[0])
    seat = Counter((j, p) for row in rows for j, p in enumerate(row))
    pairs = Counter(x for row in rows for x in neighbours(row))
    seat_counts = [seat[(j, p)] for j in range(n) for p in range(k)]
    pair_counts = [pairs[(a, b)] for a in range(k) for b in range(k) if a != b]
    self_counts = [pairs[(a, a)] for a in range(k)]
    return {"seat": (min(seat_counts), max(seat_counts)),
            "pair": (min(pair_counts), max(pair_counts)),
            "self": (min(self_counts), max(self_counts))}
