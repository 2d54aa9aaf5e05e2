"""Trace events: compact rows the kernel writes only when tracing.

A row is (code, a, b, c, off, len) with ``EV_*`` codes; events that carry
cards point into the card log ``S.cl`` (``off``, ``len``). The batch loop
runs with tracing off, where every call here returns at its first test.
`unosim.engine.trace` turns the rows into the events of docs/trace.md. Only a state built
for tracing has the buffers, and only code that runs on one compiles the
writer: elsewhere every call here compiles to nothing (`optional`).
"""

from __future__ import annotations

from unosim.engine.kernel.flip import card_code
from unosim.engine.kernel.jit import jit, optional
from unosim.engine.kernel.state import (
    S_NCL,
    S_NDISC,
    S_NDRAW,
    S_NEV,
    S_OVERFLOW,
    S_TRACE,
    TRACE,
    State,
)


def _no_event(S: State, code: int, a: int, b: int, c: int, off: int, ln: int) -> None:
    return None


def _no_log(S: State, k: int) -> None:
    return None


def _no_pile(S: State, row: int) -> tuple[int, int]:
    return S.s[S_NCL], 0


@jit
def _slot(S: State, counter: int, size: int) -> int:
    """The next free row of a trace buffer (``S.s[counter]`` rows used of
    ``size``); -1 when not tracing or full (a full buffer sets ``S_OVERFLOW``)."""
    s = S.s
    if s[S_TRACE] == 0:
        return -1
    i = s[counter]
    if i >= size:
        s[S_OVERFLOW] = 1
        return -1
    s[counter] = i + 1
    return i


@optional(TRACE, _no_event)
def emit(S: State, code: int, a: int, b: int, c: int, off: int, ln: int) -> None:
    """Append one event row."""
    ev = S.ev
    i = _slot(S, S_NEV, ev.shape[0])
    if i < 0:
        return
    ev[i, 0] = code
    ev[i, 1] = a
    ev[i, 2] = b
    ev[i, 3] = c
    ev[i, 4] = off
    ev[i, 5] = ln


@optional(TRACE, _no_log)
def log_card(S: State, k: int) -> None:
    """Append one value (a card, a seat, a score) to the card log."""
    i = _slot(S, S_NCL, S.cl.shape[0])
    if i >= 0:
        S.cl[i] = k


@optional(TRACE, _no_pile)
def log_pile(S: State, row: int) -> tuple[int, int]:
    """Log pile ``row`` (0 draw, 1 discard) bottom first; its (offset, length)."""
    s, piles = S.s, S.piles
    n = s[S_NDRAW] if row == 0 else s[S_NDISC]
    off = s[S_NCL]
    for i in range(n):
        log_card(S, card_code(S, piles[row, i]))
    return off, s[S_NCL] - off
