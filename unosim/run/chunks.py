"""Chunk planning: fixed game ranges that depend only on ``games`` and ``chunk_size``.

Game ``g`` plays the same whichever chunk runs it, so the plan only decides
how work is split and checkpointed, never what the results are. A plan is
computed on demand (`ChunkPlan`), never listed: a run of 10**12 games has 20
million chunks, and a list of them would fill the memory before the first ran.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import overload

__all__ = ["MAX_CHUNK", "MIN_CHUNK", "TARGET_CHUNKS", "Chunk", "ChunkPlan", "chunk_plan",
           "default_chunk_size", "growing_plan"]

MAX_CHUNK = 50_000
MIN_CHUNK = 1_000
SLOW_MIN_CHUNK = 50  # plug-in seats: about half a second of games
TARGET_CHUNKS = 32  # enough to balance a few workers and checkpoint often; few enough
# that the per-chunk cost (IPC, checksum, chunk file: ~2 ms in the parent) stays small

Chunk = tuple[int, int, int]  # index, start, count


def default_chunk_size(games: int, slow: bool = False) -> int:
    """About TARGET_CHUNKS chunks, within [MIN_CHUNK, MAX_CHUNK] games; a ``slow`` run
    (plug-in seats play about 100 rounds a second) may take chunks down to
    SLOW_MIN_CHUNK games, so its progress moves every second or so, not every ten.

    >>> default_chunk_size(100), default_chunk_size(10**6), default_chunk_size(10**9)
    (1000, 31250, 50000)
    >>> default_chunk_size(500, slow=True), default_chunk_size(10**6, slow=True)
    (50, 31250)
    """
    return min(MAX_CHUNK, max(SLOW_MIN_CHUNK if slow else MIN_CHUNK, -(-games // TARGET_CHUNKS)))


class ChunkPlan(Sequence[Chunk]):
    """``(index, start, count)`` of every chunk, each computed when asked for.

    The first chunks have the sizes ``head`` (as many as fit), every later one
    ``step`` games, the last one what is left; memory stays that of ``head``
    whatever ``games`` is.

    >>> plan = ChunkPlan(10**12, (), 50_000)
    >>> len(plan), plan[0], plan[-1]
    (20000000, (0, 0, 50000), (19999999, 999999950000, 50000))
    """

    def __init__(self, games: int, head: Sequence[int], step: int) -> None:
        if games < 0 or step < 1 or any(c < 1 for c in head):
            raise ValueError("a plan needs games >= 0, a step and head sizes >= 1")
        sizes: list[int] = []
        starts: list[int] = []
        start = 0
        for c in head:
            if start >= games:
                break
            starts.append(start)
            sizes.append(min(c, games - start))
            start += sizes[-1]
        self.games, self.step = games, step
        self._sizes, self._starts, self._rest = sizes, starts, start
        self._n = len(sizes) + -(-(games - start) // step)

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> Chunk: ...
    @overload
    def __getitem__(self, i: slice) -> list[Chunk]: ...

    def __getitem__(self, i: int | slice) -> Chunk | list[Chunk]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._n))]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError(f"chunk {i} is not in a plan of {self._n}")
        if i < len(self._sizes):
            return i, self._starts[i], self._sizes[i]
        start = self._rest + (i - len(self._sizes)) * self.step
        return i, start, min(self.step, self.games - start)

    def __iter__(self) -> Iterator[Chunk]:
        return (self[i] for i in range(self._n))

    def __repr__(self) -> str:
        return f"ChunkPlan({self.games}, {tuple(self._sizes)}, {self.step})"


def chunk_plan(games: int, chunk_size: int) -> ChunkPlan:
    """Chunks of ``chunk_size`` games (the last one shorter); depends on nothing else.

    >>> list(chunk_plan(10, 4))
    [(0, 0, 4), (1, 4, 4), (2, 8, 2)]
    """
    return ChunkPlan(games, (), chunk_size)


def growing_plan(games: int, first: int) -> ChunkPlan:
    """Chunks for a run that stops once precise enough: ``first`` games twice, then
    doubling up to MAX_CHUNK (never below ``first``), up to ``games`` in all.

    A stopping rule is checked at every chunk boundary, so small first chunks
    let a quick target stop early and large later ones keep a long run cheap.
    The plan depends only on ``games`` and ``first``.

    >>> [c for _, _, c in growing_plan(20_000, 1000)]
    [1000, 1000, 2000, 4000, 8000, 4000]
    """
    head, size = [first, first], first
    while (size := max(first, min(MAX_CHUNK, size * 2))) != head[-1]:
        head.append(size)
    return ChunkPlan(games, head, size)
