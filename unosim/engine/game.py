"""The Python façade over the compiled rules (OpenSpiel-style).

A `Round` owns the state arrays and calls the very same compiled step
functions the batch simulator uses: build a round (shuffled, from a chosen
deck order, or from a given position), list the legal actions, apply one,
read the state, and collect the trace events of docs/trace.md.

>>> from unosim.rules.config import load_config
>>> from unosim.engine.kernel.state import compile_config
>>> cc = compile_config(load_config("configs/classic.yaml"))
>>> r = Round.from_position(cc, hands=[["R7", "G2"], ["B1"], ["Y3"], ["Y9"]],
...                         draw=["B2", "B3"], discard=["R5"], color="R", player=0)
>>> [action_name(a) for a in r.legal_actions()]
['R7', 'draw']
>>> r.apply("R7"); r.current_player, r.color
(1, 'R')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from unosim.engine.kernel import state as L
from unosim.engine.kernel.batch import Tally, begin_game, end_round, next_round
from unosim.engine.kernel.deal import deal, new_round, reset_state
from unosim.engine.kernel.flip import hold, index_faces
from unosim.engine.kernel.policies import policy_action
from unosim.engine.kernel.rng import seed_game, seed_keys
from unosim.engine.kernel.rules import apply_action, begin_turn, legal_actions
from unosim.engine.kernel.state import (
    CompiledConfig,
    Config,
    State,
    alloc_state,
    config_tuple,
    copy_record,
)
from unosim.engine.kernel.table import add_card, hand_points
from unosim.engine.trace import SIDE_COLORS, SIDES, card_token, pair_code, render_events
from unosim.rules.cards import CLASSIC, CardError, KindTable

PHASE_NAMES = {
    L.PH_DONE: "done", L.PH_TURN: "turn", L.PH_DRAWN: "drawn", L.PH_COLOR: "color",
    L.PH_PENDING: "pending", L.PH_TARGET: "target", L.PH_JUMP: "jump", L.PH_MULTI: "multi",
}


DRAIN_EVERY = 16  # compiled steps between trace renderings (each writes a few rows)


# state fields that hold nothing between two actions: the trace buffers (rendered after
# every action) and the search's scratch
SCRATCH_FIELDS = ("ev", "cl", "x_")


class IllegalActionError(ValueError):
    """An action that is not legal in the current state (names both)."""


class RoundOverError(IllegalActionError):
    """An action applied to a finished round."""


def action_name(a: int, kinds: KindTable = CLASSIC, side: int = 0) -> str:
    """Readable name of an action id: a card token of the edition's ``kinds``,
    ``draw``, ``color G`` (on a Flip deck's dark ``side``, ``color P``)..."""
    if 0 <= a < L.A_DRAW:
        return kinds.token(a) if a < kinds.nk else f"<action {a}>"
    if a == L.A_DRAW:
        return "draw"
    if a == L.A_PASS:
        return "pass"
    if L.A_COLOR <= a < L.A_COLOR + L.NCOLORS:
        return f"color {SIDE_COLORS[a - L.A_COLOR + L.NCOLORS * side]}"
    if a == L.A_ACCEPT:
        return "accept"
    if a == L.A_CHALLENGE:
        return "challenge"
    if L.A_TARGET <= a < L.NA:
        return f"target {a - L.A_TARGET}"
    return f"<action {a}>"


def parse_action(a: int | str, kinds: KindTable = CLASSIC) -> int:
    """Action id from an id or a name (``R7``, ``play R7``, ``draw``, ``color G``,
    ``target 2``); card tokens are those of the edition's ``kinds``."""
    if isinstance(a, (int, np.integer)):
        return int(a)
    words = a.strip().split()
    if not words:
        raise IllegalActionError("empty action")
    w = words[0].lower()
    simple = {"draw": L.A_DRAW, "pass": L.A_PASS, "keep": L.A_PASS, "accept": L.A_ACCEPT,
              "challenge": L.A_CHALLENGE}
    if w in simple and len(words) == 1:
        return simple[w]
    try:
        if w == "color" and len(words) == 2:  # either side's letter names the color
            return L.A_COLOR + SIDE_COLORS.index(words[1].upper()) % L.NCOLORS
        if w == "target" and len(words) == 2:
            return L.A_TARGET + int(words[1])
        if w in ("play", "jump", "stack") and len(words) == 2:
            return kinds.kind(words[1])
        if len(words) == 1:
            return kinds.kind(words[0])
    except (ValueError, CardError):
        pass
    raise IllegalActionError(f"unknown action {a!r}")


def _tokens(table: KindTable, tokens: Sequence[str], what: str) -> list[int]:
    try:
        return [table.kind(t) for t in tokens]
    except CardError as e:
        raise IllegalActionError(f"{what}: {e}") from None


def card_pairs(table: KindTable, tokens: Sequence[str], what: str) -> list[tuple[int, int]]:
    """A two-sided deck's cards, each written ``"light/dark"``: (light kind, dark kind)."""
    out = []
    for t in tokens:
        parts = str(t).split("/")
        if len(parts) != 2:
            raise IllegalActionError(f"{what}: a Flip card is written light/dark, not {t!r}")
        light, dark = _tokens(table, parts, what)
        if table.side[light] != 0 or table.side[dark] != 1:
            raise IllegalActionError(f"{what}: {t!r} is not a light face over a dark face")
        out.append((light, dark))
    return out


@dataclass
class Round:
    """One round (or a match, via `play_game`) driven one action at a time."""

    cc: CompiledConfig
    S: State
    C: Config
    round_index: int = 0
    _events: list[dict] = field(default_factory=list)
    history: list[int] = field(default_factory=list)  # the actions applied, in order

    # --- construction ----------------------------------------------------
    @classmethod
    def blank(cls, cc: CompiledConfig, trace: bool = True) -> Round:
        """A round with nothing dealt yet (its stream seeded by `reseed`).

        Every round of the façade runs the whole engine: any seat may be asked for
        any policy's move, a position may hold any card, and the state can be
        traced (``trace`` only switches the writing on), so it compiles once."""
        C = config_tuple(cc, L.ALL_CONFIG_FEATURES)
        C.ci[L.C_KNOWN] = 1  # the façade keeps what each seat knows (views, advise)
        S = alloc_state(cc, trace=True)
        S.s[L.S_TRACE] = 1 if trace else 0
        return cls(cc, S, C)

    @classmethod
    def new(cls, cc: CompiledConfig, seed: int = 0, game: int = 0, dealer: int | None = None,
            trace: bool = True) -> Round:
        """A shuffled round: game ``game`` of the stream keyed by ``seed``."""
        r = cls.blank(cc, trace)
        r.reseed(*seed_keys(seed), game)
        new_round(r.S, r.C, game % r.players if dealer is None else dealer)
        r.drain()
        return r

    @classmethod
    def from_deck(cls, cc: CompiledConfig, deck: Sequence[str], dealer: int = 0,
                  seed: int = 0) -> Round:
        """Deal from a chosen deck order: ``deck[0]`` is the first card dealt.

        Cards go one at a time from the dealer's left; what remains is the draw
        pile in the same order (the next flip or draw takes the first)."""
        r = cls.blank(cc)
        if r.two_sided:  # physical cards "light/dark": card i is the i-th listed
            pairs = card_pairs(cc.kinds, deck, "deck")
            ks = list(range(len(pairs)))
            if len(ks) != cc.ci[L.C_DECK_SIZE]:
                raise IllegalActionError(f"a Flip deck order lists all {cc.ci[L.C_DECK_SIZE]} "
                                         f"cards, not {len(ks)}")
            r.S.fl[0, : len(ks)] = [a for a, _ in pairs]
            r.S.fl[1, : len(ks)] = [b for _, b in pairs]
            index_faces(r.S, r.C)
        else:
            ks = _tokens(cc.kinds, deck, "deck")
        if len(ks) > r.S.piles.shape[1] - 1:
            raise IllegalActionError(f"deck of {len(ks)} cards exceeds the pile size")
        r.reseed(seed, 0, 0)
        reset_state(r.S, r.C, dealer)
        r.S.piles[0, : len(ks)] = ks[::-1]
        r.S.s[L.S_NDRAW] = len(ks)
        deal(r.S, r.C, dealer)
        r.drain()
        return r

    @classmethod
    def from_position(cls, cc: CompiledConfig, hands: Sequence[Sequence[str]],
                      draw: Sequence[str], discard: Sequence[str], color: str, player: int,
                      direction: int = 1, dealer: int | None = None, seed: int = 0,
                      side: str = "light") -> Round:
        """Start a regular turn of ``player`` in a given position.

        ``draw`` lists the draw pile in draw order (first element drawn first);
        ``discard`` bottom first (last element on top). A Flip deck's cards are
        written ``"light/dark"`` (only those given are in the game) and ``side`` is
        the side in play."""
        r = cls.blank(cc)
        n = r.players
        if len(hands) != n:
            raise IllegalActionError(f"{len(hands)} hands for {n} players")
        r.reseed(seed, 0, 0)
        reset_state(r.S, r.C, (player - direction) % n if dealer is None else dealer)
        if r.two_sided:
            d, x = r._place_pairs(hands, draw, discard, SIDES.index(side))
        else:
            for p, h in enumerate(hands):
                for k in _tokens(cc.kinds, h, f"hand {p}"):
                    add_card(r.S, r.C, p, k)
            d = _tokens(cc.kinds, draw, "draw")[::-1]
            x = _tokens(cc.kinds, discard, "discard")
        if not x:
            raise IllegalActionError("the discard pile needs a top card")
        s, piles = r.S.s, r.S.piles
        piles[0, : len(d)] = d
        piles[1, : len(x)] = x
        s[L.S_NDRAW], s[L.S_NDISC] = len(d), len(x)
        s[L.S_COLOR] = SIDE_COLORS.index(color.upper()) % L.NCOLORS
        s[L.S_DIR] = direction
        begin_turn(r.S, r.C, player)
        r.drain()
        return r

    def _place_pairs(self, hands: Sequence[Sequence[str]], draw: Sequence[str],
                     discard: Sequence[str], side: int) -> tuple[list[int], list[int]]:
        """A Flip position's physical cards, numbered in the order given (hands, draw
        pile, discard pile): the face table, the hands held; the piles' values."""
        kinds, S = self.cc.kinds, self.S
        listed = [*(t for h in hands for t in h), *draw, *discard]
        pairs = card_pairs(kinds, listed, "position")
        if len(pairs) > S.fl.shape[1]:
            raise IllegalActionError(f"{len(pairs)} cards exceed the pile size")
        S.s[L.S_SIDE] = side
        S.fl[:] = -1  # only the cards listed are in this game
        for v, (a, b) in enumerate(pairs):
            S.fl[0, v], S.fl[1, v] = a, b
        index_faces(S, self.C)
        v = 0
        for p, h in enumerate(hands):
            for _ in h:
                hold(S, p, v)
                add_card(S, self.C, p, int(S.fl[side, v]))
                v += 1
        d = list(range(v, v + len(draw)))[::-1]
        v += len(draw)
        return d, list(range(v, v + len(discard)))

    def reseed(self, key0: int, key1: int, game: int) -> None:
        """Seed the round's stream as game ``game`` of the keys ``key0, key1``."""
        seed_game(self.S.rng, np.uint64(key0), np.uint64(key1), game)

    def clone(self) -> Round:
        """An independent copy: the same position, stream, config and events so far.

        What a search or a trace follower tries on the copy leaves this round as it
        was (the rendered events are copied; the trace buffers and the search's
        scratch are not state between two actions, so they start empty).

        >>> from unosim.rules.config import load_config
        >>> from unosim.engine.kernel.state import compile_config
        >>> r = Round.new(compile_config(load_config("classic")), seed=3)
        >>> c = r.clone()
        >>> c.play_out()
        >>> r.is_over, c.is_over, r.hands == Round.new(r.cc, seed=3).hands
        (False, True, True)
        """
        self.drain()
        S = copy_record(self.S, SCRATCH_FIELDS)
        C = copy_record(self.C)
        return Round(self.cc, S, C, self.round_index, list(self._events), list(self.history))

    # --- reading ------------------------------------------------------------
    @property
    def players(self) -> int:
        return int(self.C.ci[L.C_PLAYERS])

    @property
    def phase(self) -> str:
        return PHASE_NAMES[int(self.S.s[L.S_PHASE])]

    @property
    def is_over(self) -> bool:
        return int(self.S.s[L.S_PHASE]) == L.PH_DONE

    @property
    def current_player(self) -> int:
        """Who must decide now (-1 once the round is over)."""
        return -1 if self.is_over else int(self.S.s[L.S_CUR])

    @property
    def color(self) -> str:
        return SIDE_COLORS[int(self.S.s[L.S_COLOR]) + L.NCOLORS * self._side]

    @property
    def two_sided(self) -> bool:
        """A UNO Flip deck: cards are written ``"light/dark"``, the side in play decides."""
        return bool(self.cc.ci[L.C_FLIP])

    @property
    def _side(self) -> int:
        return int(self.S.s[L.S_SIDE]) if self.two_sided else 0

    @property
    def side(self) -> str:
        """The side in play: ``light`` (always, for a one-sided deck) or ``dark``."""
        return SIDES[self._side]

    def _card(self, v: int) -> str:
        """A pile value's token: a kind's, or a physical card's ``"light/dark"``."""
        if not self.two_sided:
            return self.cc.kinds.tokens[v]
        fl = self.S.fl
        return card_token(self.cc.kinds.tokens, pair_code(int(fl[0, v]), int(fl[1, v])))

    def face(self, card: str) -> str:
        """The face in play of a card token (a Flip card's ``"light/dark"``: one side)."""
        parts = card.split("/")
        return parts[self._side] if len(parts) == 2 else card

    @property
    def direction(self) -> int:
        return int(self.S.s[L.S_DIR])

    @property
    def pending(self) -> int:
        """Cards the next player faces drawing (Draw Two / WD4 / a stack)."""
        return int(self.S.s[L.S_PEND])

    @property
    def kinds(self) -> KindTable:
        """The edition's card kinds: token of each kind id, and back."""
        return self.cc.kinds

    def hand(self, p: int) -> list[str]:
        kinds = self.cc.kinds
        if self.two_sided:  # its physical cards, in card order
            return [self._card(int(v)) for v in np.flatnonzero(self.S.hp[p])]
        row = self.S.hands[p, : kinds.nk]
        return [kinds.tokens[k] for k in np.repeat(np.arange(kinds.nk), row)]

    @property
    def hands(self) -> list[list[str]]:
        return [self.hand(p) for p in range(self.players)]

    def known(self, observer: int) -> list[list[str]]:
        """The cards ``observer`` knows each seat holds (`unosim.engine.kernel.known`): the
        hand it gave away in a Seven-O swap or rotation, a hand it saw by
        challenging, an icon card shown for a Wishing Star; its own seat is empty."""
        K, kinds = self.S.known[observer], self.cc.kinds
        return [[kinds.tokens[k] for k in range(kinds.nk) for _ in range(int(K[q, k]))]
                for q in range(self.players)]

    def set_known(self, observer: int, holder: int, cards: Sequence[str]) -> None:
        """Let ``observer`` know ``holder`` holds ``cards`` (a position built by hand,
        as `unosim advise` does); they must be in that hand."""
        nk = self.cc.kinds.nk
        ks = _tokens(self.cc.kinds, cards, f"known cards of seat {holder}")
        if observer == holder:
            raise IllegalActionError("a seat's own hand is not 'known cards'")
        counts = np.bincount(np.array(ks, dtype=np.int64), minlength=nk)
        if (counts > self.S.hands[holder, :nk]).any():
            raise IllegalActionError(f"seat {holder} does not hold {' '.join(cards)}")
        self.S.known[observer, holder, :nk] = counts

    @property
    def draw_pile(self) -> list[str]:
        """Draw pile in draw order (first element is the next card drawn)."""
        n = int(self.S.s[L.S_NDRAW])
        return [self._card(v) for v in self.S.piles[0, :n][::-1]]

    @property
    def discard(self) -> list[str]:
        """Discard pile, bottom first (last element is the top card)."""
        n = int(self.S.s[L.S_NDISC])
        return [self._card(v) for v in self.S.piles[1, :n]]

    @property
    def top(self) -> str:
        return self.discard[-1]

    @property
    def active(self) -> list[int]:
        """Seats in play (a match's elimination scoring takes seats out)."""
        return [q for q in range(self.players) if self.S.seat[q, L.SEAT_ALIVE]]

    @property
    def scores(self) -> list[int]:
        """Match scores by seat."""
        return [int(x) for x in self.S.seat[: self.players, L.SEAT_SCORE]]

    @property
    def winner(self) -> int | None:
        w = int(self.S.st[L.R_WINNER])
        return None if w < 0 else w

    @property
    def stats(self) -> dict[str, Any]:
        st = self.S.st
        out: dict[str, Any] = {c.name: int(st[c.slot]) for c in L.COUNTERS}
        out["winner"] = self.winner
        out["drawn_by_cause"] = {c: int(st[L.R_DRAW_BY_CAUSE + i]) for i, c in enumerate(L.CAUSES)}
        return out

    def hand_points(self, p: int) -> int:
        return int(hand_points(self.S, self.C, p))

    # --- what the trace shows of the edition ----------------------------------
    @property
    def edition_name(self) -> str:
        return self.cc.edition_name

    @property
    def rules(self) -> dict[str, Any]:
        return self.cc.rules

    @property
    def card_list(self) -> list[dict[str, Any]]:
        return self.cc.card_list

    @property
    def special(self) -> int:
        return int(self.C.ci[L.C_SPECIAL])

    @property
    def wish_icons(self) -> list[str]:
        return [t for k, t in enumerate(self.cc.kinds.tokens) if self.C.icons[k]]

    # --- acting ---------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        out = np.zeros(L.NA, np.int64)
        n = legal_actions(self.S, self.C, out)
        return [int(a) for a in out[:n]]

    def legal_action_names(self) -> list[str]:
        return [self.action_name(a) for a in self.legal_actions()]

    def action_name(self, a: int) -> str:
        """`action_name` with this round's card tokens (and side's color letters)."""
        return action_name(a, self.cc.kinds, self._side)

    def parse_action(self, a: int | str) -> int:
        """`parse_action` with this round's card tokens."""
        return parse_action(a, self.cc.kinds)

    def apply(self, action: int | str) -> None:
        """Apply one action; an illegal one raises `IllegalActionError` naming it."""
        a = self.parse_action(action)
        if self.is_over:
            raise RoundOverError(f"{self.action_name(a)}: the round is over")
        if not apply_action(self.S, self.C, a):
            raise IllegalActionError(
                f"{self.action_name(a)} is not legal for player {self.current_player} "
                f"in phase {self.phase} (legal: {', '.join(self.legal_action_names())})")
        self.history.append(a)
        self.drain()

    def policy_action(self) -> int:
        """The action the seat's compiled policy would take now."""
        return int(policy_action(self.S, self.C))

    def step(self) -> int:
        """Let the current seat's compiled policy act; returns the action."""
        a = self.policy_action()
        self.apply(a)
        return a

    def play_out(self, deciders: Mapping[int, Callable[[Round], int]] | None = None,
                 drain_every: int = DRAIN_EVERY) -> None:
        """Play the round to its end: the seats in ``deciders`` by their Python decider
        (a legal action id for this round, asked after the trace is rendered), every
        other seat by its compiled policy. The trace rows are rendered every
        ``drain_every`` compiled steps, before each Python decision and at the end:
        well within the trace buffer, and the events are the same at any cadence."""
        S, C = self.S, self.C
        s = S.s
        since = 0
        while s[L.S_PHASE] != L.PH_DONE:
            decide = deciders.get(int(s[L.S_CUR])) if deciders else None
            if decide is None:
                a = int(policy_action(S, C))
                if not apply_action(S, C, a):  # a bug in a compiled policy, not the user's
                    raise RuntimeError(f"compiled policy chose illegal {self.action_name(a)}")
                self.history.append(a)
                since += 1
                if since >= drain_every:
                    self.drain()
                    since = 0
                continue
            self.drain()
            since = 0
            a = decide(self)
            if not apply_action(S, C, a):
                raise IllegalActionError(f"{self.action_name(a)} is not legal for player "
                                         f"{self.current_player} in phase {self.phase}")
            self.history.append(a)
        self.drain()

    # --- trace -------------------------------------------------------------------
    def events(self, start: int = 0) -> list[dict]:
        """The trace events so far (docs/trace.md §2 dicts), from the ``start``-th."""
        return self._events[start:]

    def clear_events(self) -> None:
        """Forget the events rendered so far (a reused round starting another game)."""
        self._events = []

    @property
    def event_count(self) -> int:
        """How many trace events the round has rendered so far."""
        return len(self._events)

    def drain(self) -> None:
        """Render the event rows the compiled code wrote since the last drain, and empty
        the buffers (every method of the façade does; a caller of compiled functions on
        ``S`` drains after them)."""
        s = self.S.s
        if s[L.S_TRACE] == 0:
            return
        if s[L.S_OVERFLOW]:
            raise RuntimeError("trace buffer overflow")
        n = int(s[L.S_NEV])
        self._events.extend(render_events(self, self.S.ev[:n], self.S.cl))
        s[L.S_NEV] = 0
        s[L.S_NCL] = 0


def drive_game(cc: CompiledConfig, keys: tuple[int, int], game: int,
               play_round: Callable[[Round], None] = Round.play_out,
               tally: Tally | None = None, events: list[dict] | None = None) -> Round:
    """Play game ``game`` of the stream keyed by ``keys`` (a round, or a whole match)
    with the batch loop's own compiled steps (`unosim.engine.kernel.batch.begin_game`,
    ``end_round``, ``next_round``), each round played by ``play_round``; the finished
    `Round`. ``tally`` receives the game's aggregates, ``events`` (if given) the
    trace events as they are rendered (what an interrupted game had played)."""
    r = Round.blank(cc)
    if events is not None:
        r._events = events
    t = tally if tally is not None else Tally(cc)
    row = t.row(game)
    begin_game(r.S, r.C, np.uint64(keys[0]), np.uint64(keys[1]), game, t.agg)
    r.drain()
    while True:
        play_round(r)
        _, over = end_round(r.S, r.C, game, r.round_index, t.agg, t.rec, 0, False, row,
                            t.want_gf)
        r.drain()
        if over:
            return r
        r.round_index += 1
        next_round(r.S, r.C)
        r.drain()


def traced_game(cc: CompiledConfig, seed: int, game: int = 0) -> Round:
    """Game ``game`` of seed ``seed`` played as the batch simulator plays it, traced: the
    finished `Round` (its ``events()``, and its ``history`` for a fast `replay`)."""
    return drive_game(cc, seed_keys(seed), game)


def play_game(cc: CompiledConfig, seed: int, game: int = 0) -> list[dict]:
    """Trace events of one game (a round, or a whole match) exactly as the batch
    simulator plays game ``game`` of seed ``seed``."""
    return traced_game(cc, seed, game).events()
