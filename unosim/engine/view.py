"""What one seat may know: the public view a plug-in policy decides on.

A seat sees its own hand, the discard pile, the active colour, the direction,
every hand's size, the pending draw, the draw pile's size, and the public
record of the round: who played, drew and passed. It never sees another hand
or the draw pile's order. `PublicLog` keeps that record per seat by masking
the trace events (cards the seat cannot see become `HIDDEN`), and
`public_view` reads the rest from the `Round`.

>>> from unosim.rules.config import load_config
>>> from unosim.engine.kernel.state import compile_config
>>> from unosim.engine.game import Round
>>> r = Round.from_position(compile_config(load_config("classic")),
...     hands=[["R7", "G2"], ["B1"], ["Y3"], ["Y9"]], draw=["B2"], discard=["R5"],
...     color="R", player=0)
>>> log = PublicLog(0); log.feed(r.events())
>>> v = public_view(r, log)
>>> v.hand, v.top, v.hand_sizes, v.draw_size
(('R7', 'G2'), 'R5', (2, 1, 1, 1), 1)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from unosim.engine.game import PHASE_NAMES, Round
from unosim.engine.kernel import state as L
from unosim.rules.cards import CLASSIC, COLORS, KindTable

__all__ = ["HIDDEN", "PublicLog", "PublicView", "public_view"]

HIDDEN = "?"  # a card the seat cannot see, in the masked events


@dataclass(frozen=True, slots=True)
class PublicView:
    """Everything seat ``seat`` may know when it must decide (read-only)."""

    seat: int
    phase: str  # turn, drawn, color, pending, target, jump, multi (engine.game.PHASE_NAMES)
    players: int
    hand: tuple[str, ...]  # own cards, sorted by kind
    top: str  # top of the discard pile
    color: str  # active colour: R Y G B
    direction: int  # +1 or -1
    hand_sizes: tuple[int, ...]  # by seat
    active: tuple[int, ...]  # seats in play (a match's elimination takes seats out)
    pending: int  # cards the player facing a Draw Two / WD4 (or a stack) would draw
    discard: tuple[str, ...]  # the discard pile, bottom first (cards played since a reshuffle)
    draw_size: int  # cards left in the draw pile
    drawn: str | None  # the card this seat just drew, in phase ``drawn``
    draws: tuple[int, ...]  # cards each seat has drawn this round
    passes: tuple[int, ...]  # turns each seat drew on and then did not play
    last_draw_color: tuple[str | None, ...]  # active colour at each seat's latest turn draw
    scores: tuple[int, ...]  # match scores (zeros in round mode)
    known: tuple[tuple[str, ...], ...]  # cards this seat knows each seat holds (engine.known):
    #   the hand it gave away in a Seven-O swap, a hand it challenged, an icon card shown
    round_index: int
    events: tuple[dict[str, Any], ...]  # the trace of the game so far, masked (HIDDEN cards)
    # the edition's card kinds: every token above is one of ``kinds.tokens`` (a plug-in's
    # observation layout, `unosim.env.spaces.view_layout`, numbers them by it)
    kinds: KindTable = CLASSIC

    @property
    def next_seat(self) -> int:
        """The seat after this one in the current direction (skipping seats out of play)."""
        i = self.active.index(self.seat) if self.seat in self.active else 0
        return self.active[(i + self.direction) % len(self.active)]


class PublicLog:
    """The masked event record of one seat, fed the trace events as they come.

    Counts draws and passes on the way: a pass is a turn draw that no play of
    that seat follows before the next turn, jump-in or end of the round.
    """

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.events: list[dict[str, Any]] = []
        self.draws: list[int] = []
        self.passes: list[int] = []
        self.last_draw_color: list[str | None] = []
        self._color: str | None = None
        self._drawing: int | None = None  # seat that drew on its turn and has not played
        self.last_own_draw: list[str] = []

    def _start_round(self, players: int) -> None:
        self.draws = [0] * players
        self.passes = [0] * players
        self.last_draw_color = [None] * players
        self._drawing = None

    def feed(self, events: Iterable[dict[str, Any]]) -> None:
        for e in events:
            self.events.append(self._see(e))

    def _see(self, e: dict[str, Any]) -> dict[str, Any]:
        k = e["e"]
        if k in ("turn", "jump", "end") and self._drawing is not None:
            self.passes[self._drawing] += 1
            self._drawing = None
        if k == "deal":
            self._start_round(e["players"])
            hands = [h if p == self.seat else [HIDDEN] * len(h) for p, h in enumerate(e["hands"])]
            return {**e, "hands": hands, "draw": [HIDDEN] * len(e["draw"])}
        if k == "turn":
            self._color = e["color"]
        elif k == "play":
            if e["p"] == self._drawing:
                self._drawing = None
        elif k == "draw":
            p = e["p"]
            self.draws[p] += len(e["cards"])
            if e["cause"] == "turn":
                self._drawing = p
                self.last_draw_color[p] = self._color
            if p == self.seat:
                self.last_own_draw = list(e["cards"])
            else:
                return {**e, "cards": [HIDDEN] * len(e["cards"])}
        elif k in ("reshuffle", "return"):
            return {**e, "draw": [HIDDEN] * len(e["draw"])}
        return e


def public_view(r: Round, log: PublicLog) -> PublicView:
    """The view of ``log.seat`` now.

    Read from the façade (colour, direction, pending draw, seats in play,
    scores) and, for speed, from the state arrays' public parts only: the
    seat's own count row, every hand's size, the draw pile's size and the
    discard pile. Other hands' cards and the draw pile's order are never read.
    """
    S = r.S
    s, hands = S.s, S.hands
    n = len(log.draws) or r.players
    seat = log.seat
    tokens, nk = r.kinds.tokens, r.kinds.nk
    kinds = np.arange(nk)
    hand = tuple(tokens[k] for k in np.repeat(kinds, hands[seat, :nk]))
    discard = tuple(tokens[k] for k in S.piles[1, : int(s[L.S_NDISC])])
    phase = PHASE_NAMES[int(s[L.S_PHASE])]
    drawn = None
    if phase == "drawn" and int(s[L.S_CUR]) == seat and log.last_own_draw:
        drawn = log.last_own_draw[-1]
    return PublicView(
        seat=seat,
        phase=phase,
        players=n,
        hand=hand,
        top=discard[-1],
        color=COLORS[int(s[L.S_COLOR])],
        direction=int(s[L.S_DIR]),
        hand_sizes=tuple(int(x) for x in hands[:n, L.H_SIZE]),
        active=tuple(int(q) for q in np.flatnonzero(S.seat[:n, L.SEAT_ALIVE])),
        pending=int(s[L.S_PEND]),
        discard=discard,
        draw_size=int(s[L.S_NDRAW]),
        drawn=drawn,
        draws=tuple(log.draws) if log.draws else (0,) * n,
        passes=tuple(log.passes) if log.passes else (0,) * n,
        last_draw_color=tuple(log.last_draw_color) if log.last_draw_color else (None,) * n,
        scores=tuple(int(x) for x in S.seat[:n, L.SEAT_SCORE]),
        known=tuple(tuple(tokens[k] for k in np.repeat(kinds, S.known[seat, q, :nk]))
                    for q in range(n)),
        round_index=r.round_index,
        events=tuple(log.events),
        kinds=r.kinds,
    )
