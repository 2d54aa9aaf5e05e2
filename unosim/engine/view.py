"""What one seat may know: the public view a plug-in policy decides on.

A seat sees its own hand, the discard pile, the active colour, the direction,
every hand's size, the pending draw, the draw pile's size, and the public
record of the round: who played, drew and passed. It never sees another hand
or the draw pile's order. `PublicLog` keeps that record per seat by masking
the trace events (cards the seat cannot see become `HIDDEN`), and
`public_view` reads the rest from the `Round`.

Under UNO Flip (docs/rules.md section 11) the backs show the other side: a
seat also sees the other face of every card in the other hands and of the
draw pile's top card (`PublicView.other_faces`, `PublicView.draw_top_back`),
but not its own cards' other faces. A masked Flip card keeps the face the
seat sees and writes ``?`` for the other (`mask_card`).

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
from unosim.engine.trace import SIDE_COLORS, SIDES
from unosim.rules.cards import CLASSIC, KindTable

__all__ = ["HIDDEN", "PublicLog", "PublicView", "mask_card", "public_view"]

HIDDEN = "?"  # a card the seat cannot see, in the masked events


def mask_card(card: str, side: int | None) -> str:
    """A Flip card ``"light/dark"`` as a seat sees it: only face ``side`` (0 light,
    1 dark), the other written `HIDDEN`; ``side`` None: the whole card is hidden.

    >>> mask_card("R5/PSE", 1), mask_card("R5/PSE", 0), mask_card("R5/PSE", None)
    ('?/PSE', 'R5/?', '?')
    """
    if side is None:
        return HIDDEN
    faces = card.split("/")
    return "/".join(f if i == side else HIDDEN for i, f in enumerate(faces))


@dataclass(frozen=True, slots=True)
class PublicView:
    """Everything seat ``seat`` may know when it must decide (read-only)."""

    seat: int
    phase: str  # turn, drawn, color, pending, target, jump, multi (engine.game.PHASE_NAMES)
    players: int
    hand: tuple[str, ...]  # own cards, sorted by kind (UNO Flip: their faces in play)
    top: str  # top of the discard pile (UNO Flip: its face in play)
    color: str  # active colour: R Y G B (UNO Flip's dark side: P T O U)
    direction: int  # +1 or -1
    hand_sizes: tuple[int, ...]  # by seat
    active: tuple[int, ...]  # seats in play (a match's elimination takes seats out)
    pending: int  # cards the player facing a Draw Two / WD4 (or a stack) would draw
    discard: tuple[str, ...]  # the discard pile, bottom first (cards played since a reshuffle;
    #   UNO Flip: their faces in play)
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
    # UNO Flip (docs/rules.md section 11): the side in play; per seat, the other faces of
    # its cards, which this seat sees on their backs (sorted by kind; its own: empty); the
    # other face of the draw pile's top card (None: an empty pile). One-sided editions:
    # "light", no faces, None.
    side: str = "light"
    other_faces: tuple[tuple[str, ...], ...] = ()
    draw_top_back: str | None = None

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

    def __init__(self, seat: int, players: int = 0) -> None:
        """``players``: the table's seats, for a record that starts without a ``deal``
        event (a position built by hand); a deal sets it."""
        self.seat = seat
        self.events: list[dict[str, Any]] = []
        self.draws: list[int] = []
        self.passes: list[int] = []
        self.last_draw_color: list[str | None] = []
        self._color: str | None = None
        self._drawing: int | None = None  # seat that drew on its turn and has not played
        self.last_own_draw: list[str] = []
        if players:
            self._start_round(players)
        self._side = 0  # UNO Flip: the side in play, from the ``flip_all`` events

    def _held(self, cards: list[str], holder: int) -> list[str]:
        """The cards of ``holder``'s hand as this seat sees them: its own in full (one-sided)
        or their faces in play (Flip); another's hidden, or their other faces (Flip)."""
        flip = any("/" in c for c in cards)
        if holder == self.seat:
            return [mask_card(c, self._side) for c in cards] if flip else cards
        return [mask_card(c, 1 - self._side if flip else None) for c in cards]

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
            self._side = 0  # every round starts on the light side
            hands = [self._held(h, p) for p, h in enumerate(e["hands"])]
            return {**e, "hands": hands, "draw": [HIDDEN] * len(e["draw"])}
        if k == "flip_all":
            self._side = SIDES.index(e["side"])
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
            cards = self._held(list(e["cards"]), p)
            if p == self.seat:
                self.last_own_draw = cards
            if cards != e["cards"]:
                return {**e, "cards": cards}
        elif k in ("reshuffle", "return"):
            return {**e, "draw": [HIDDEN] * len(e["draw"])}
        return e


def public_view(r: Round, log: PublicLog) -> PublicView:
    """The view of ``log.seat`` now.

    Read from the façade (colour, direction, pending draw, seats in play,
    scores) and, for speed, from the state arrays' public parts only: the
    seat's own count row, every hand's size, the draw pile's size and the
    discard pile. Other hands' cards and the draw pile's order are never read;
    under UNO Flip only the faces the seat sees are (`_flip_faces`).
    """
    S = r.S
    s, hands = S.s, S.hands
    n = len(log.draws) or r.players
    seat = log.seat
    tokens, nk = r.kinds.tokens, r.kinds.nk
    kinds = np.arange(nk)
    side = SIDES.index(r.side)
    hand = tuple(tokens[k] for k in np.repeat(kinds, hands[seat, :nk]))
    piled = S.piles[1, : int(s[L.S_NDISC])]
    discard = tuple(tokens[k] for k in (S.fl[side, piled] if r.two_sided else piled))
    phase = PHASE_NAMES[int(s[L.S_PHASE])]
    drawn = None
    if phase == "drawn" and int(s[L.S_CUR]) == seat and log.last_own_draw:
        drawn = log.last_own_draw[-1].split("/")[side]  # (a Flip card: its face in play)
    other_faces, draw_top_back = _flip_faces(r, seat, n) if r.two_sided else ((), None)
    return PublicView(
        seat=seat,
        phase=phase,
        players=n,
        hand=hand,
        top=discard[-1],
        color=SIDE_COLORS[int(s[L.S_COLOR]) + L.NCOLORS * side],
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
        side=r.side,
        other_faces=other_faces,
        draw_top_back=draw_top_back,
    )


def _flip_faces(r: Round, seat: int, n: int) -> tuple[tuple[tuple[str, ...], ...], str | None]:
    """What the backs show ``seat`` under UNO Flip: per seat, the other faces of its
    cards (sorted by kind; its own: none), and the other face of the draw pile's top
    card. Reads the face table only at those cards' other side."""
    S, tokens = r.S, r.kinds.tokens
    back = S.fl[1 - SIDES.index(r.side)]
    other = tuple(() if q == seat else
                  tuple(tokens[k] for k in np.sort(back[np.flatnonzero(S.hp[q])]))
                  for q in range(n))
    nd = int(S.s[L.S_NDRAW])
    return other, (tokens[int(back[S.piles[0, nd - 1]])] if nd else None)
