"""Chunk planning: fixed game ranges that depend only on ``games`` and ``chunk_size``.

Game ``g`` plays the same whichever chunk runs it, so the plan only decides
how work is split and checkpointed, never what the results are.
"""

from __future__ import annotations

__all__ = ["MAX_CHUNK", "MIN_CHUNK", "TARGET_CHUNKS", "chunk_plan", "default_chunk_size",
           "growing_plan"]

MAX_CHUNK = 50_000
MIN_CHUNK = 1_000
TARGET_CHUNKS = 32  # enough to balance a few workers and checkpoint often; few enough
# that the per-chunk cost (IPC, checksum, chunk file: ~2 ms in the parent) stays small


def default_chunk_size(games: int) -> int:
    """About TARGET_CHUNKS chunks, within [MIN_CHUNK, MAX_CHUNK] games.

    >>> default_chunk_size(100), default_chunk_size(10**6), default_chunk_size(10**9)
    (1000, 31250, 50000)
    """
    return min(MAX_CHUNK, max(MIN_CHUNK, -(-games // TARGET_CHUNKS)))


def chunk_plan(games: int, chunk_size: int) -> list[tuple[int, int, int]]:
    """``(index, start, count)`` of every chunk; depends on nothing else.

    >>> chunk_plan(10, 4)
    [(0, 0, 4), (1, 4, 4), (2, 8, 2)]
    """
    n = -(-games // chunk_size)
    return [(i, i * chunk_size, min(chunk_size, games - i * chunk_size)) for i in range(n)]


def growing_plan(games: int, first: int) -> list[tuple[int, int, int]]:
    """Chunks for a run that stops once precise enough: ``first`` games twice, then
    doubling up to MAX_CHUNK (never below ``first``), up to ``games`` in all.

    A stopping rule is checked at every chunk boundary, so small first chunks
    let a quick target stop early and large later ones keep a long run cheap.
    The plan depends only on ``games`` and ``first``.

    >>> [c for _, _, c in growing_plan(20_000, 1000)]
    [1000, 1000, 2000, 4000, 8000, 4000]
    """
    plan, start, size, i = [], 0, first, 0
    while start < games:
        count = min(size, games - start)
        plan.append((i, start, count))
        start, i = start + count, i + 1
        if i >= 2:
            size = max(first, min(MAX_CHUNK, size * 2))
    return plan
