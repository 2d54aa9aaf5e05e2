"""The Python façade over the compiled rules (OpenSpiel-style).

A `Round` owns the state arrays and calls the very same compiled step
functions the batch simulator uses: build a round (shuffled, from a chosen
deck order, or from a given position), list the legal actions, apply one,
read the state, and collect the trace events of TRACE.md.

>>> from unosim.rules.config import load_config, compile_config
>>> cc = compile_config(load_config("configs/classic.yaml"))
>>> r = Round.from_position(cc, hands=[["R7", "G2"], ["B1"], ["Y3"], ["Y9"]],
...                         draw=["B2", "B3"], discard=["R5"], color="R", player=0)
>>> [action_name(a) for a in r.legal_actions()]
['R7', 'draw']
>>> r.apply("R7"); r.current_player, r.color
(1, 'R')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from unosim.engine import kernel as K
from unosim.engine import layout as L
from unosim.rules.cards import COLORS, NK, CardError, kind, token

EV_ROWS = 8192
CL_SIZE = 1 << 18

PHASE_NAMES = {
    L.PH_DONE: "done", L.PH_TURN: "turn", L.PH_DRAWN: "drawn", L.PH_COLOR: "color",
    L.PH_PENDING: "pending", L.PH_TARGET: "target", L.PH_JUMP: "jump",
}


class IllegalActionError(ValueError):
    """An action that is not legal in the current state (names both)."""


class RoundOverError(IllegalActionError):
    """An action applied to a finished round."""


def action_name(a: int) -> str:
    """Readable name of an action id: a card token, ``draw``, ``color G``..."""
    if 0 <= a < NK:
        return token(a)
    if a == L.A_DRAW:
        return "draw"
    if a == L.A_PASS:
        return "pass"
    if L.A_COLOR <= a < L.A_COLOR + 4:
        return f"color {COLORS[a - L.A_COLOR]}"
    if a == L.A_ACCEPT:
        return "accept"
    if a == L.A_CHALLENGE:
        return "challenge"
    if L.A_TARGET <= a < L.NA:
        return f"target {a - L.A_TARGET}"
    return f"<action {a}>"


def parse_action(a: int | str) -> int:
    """Action id from an id or a name (``R7``, ``play R7``, ``draw``, ``color G``, ``target 2``)."""
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
        if w == "color" and len(words) == 2:
            return L.A_COLOR + COLORS.index(words[1].upper())
        if w == "target" and len(words) == 2:
            return L.A_TARGET + int(words[1])
        if w in ("play", "jump", "stack") and len(words) == 2:
            return kind(words[1])
        if len(words) == 1:
            return kind(words[0])
    except (ValueError, CardError):
        pass
    raise IllegalActionError(f"unknown action {a!r}")


MAXP = 10
PILE_MIN = 4 * 112 + 1


def _config_dtype(cc: Any) -> np.dtype:
    return np.dtype([("ci", np.int64, (L.NCI,)), ("cf", np.float64, (L.NCF,)),
                     ("pp", np.float64, (MAXP, L.NPP)), ("points", np.int64, (NK,)),
                     ("icons", np.int64, (NK,)), ("dc", np.int64, (NK,))])


def config_tuple(cc: Any) -> np.void:
    """The kernel's config record from a `CompiledConfig`.

    Records travel into compiled calls as one pointer; a tuple of arrays
    would be copied field by field into every call of the inner loop."""
    rec = np.zeros(1, _config_dtype(cc))
    n = int(cc.ci[L.C_PLAYERS])
    rec["ci"][0] = cc.ci
    rec["cf"][0] = cc.cf
    rec["pp"][0][:n] = cc.pp
    rec["points"][0] = cc.points
    rec["icons"][0] = cc.wish_icons
    rec["dc"][0] = cc.deck_counts
    return rec[0]


def state_dtype(pile: int) -> np.dtype:
    """One fixed layout for every config of a standard size, so the kernel
    compiles once (a bigger custom deck widens the piles)."""
    return np.dtype([("s", np.int64, (K.NS,)), ("hands", np.int64, (MAXP, NK + 1)),
                     ("piles", np.int64, (2, pile)), ("seat", np.int64, (MAXP, 4)),
                     ("rng", np.uint64, (4,)), ("ev", np.int64, (EV_ROWS, L.EV_W)),
                     ("cl", np.int64, (CL_SIZE,)), ("st", np.int64, (L.NR,)),
                     ("scratch", np.int64, (4, NK + 1))])


def alloc_state(cc: Any, trace: bool) -> np.void:
    """A fresh state record (fields as in the kernel docstring)."""
    size = int(cc.ci[L.C_DECK_SIZE])
    rec = np.zeros(1, state_dtype(max(PILE_MIN, size + 1)))[0]
    rec["s"][K.S_TRACE] = 1 if trace else 0
    rec["seat"][:, K.SEAT_ALIVE] = 1
    return rec


def seed_keys(seed: int) -> tuple[int, int]:
    """Two 64-bit keys for the per-game streams, from `numpy.random.SeedSequence`."""
    k = np.random.SeedSequence(int(seed)).generate_state(2, dtype=np.uint64)
    return int(k[0]), int(k[1])


def _tokens(kinds: Sequence[str], what: str) -> list[int]:
    try:
        return [kind(t) for t in kinds]
    except CardError as e:
        raise IllegalActionError(f"{what}: {e}") from None


@dataclass
class Round:
    """One round (or a match, via `Match`) driven one action at a time."""

    cc: Any
    S: np.void
    C: np.void
    round_index: int = 0
    _events: list | None = None

    # --- construction ----------------------------------------------------
    @classmethod
    def _blank(cls, cc: Any, trace: bool = True) -> Round:
        return cls(cc, alloc_state(cc, trace), config_tuple(cc), 0, [])

    @classmethod
    def new(cls, cc: Any, seed: int = 0, game: int = 0, dealer: int | None = None,
            trace: bool = True) -> Round:
        """A shuffled round: game ``game`` of the stream keyed by ``seed``."""
        r = cls._blank(cc, trace)
        k0, k1 = seed_keys(seed)
        K.seed_game(r.S['rng'], np.uint64(k0), np.uint64(k1), game)
        n = r.players
        K.new_round(r.S, r.C, game % n if dealer is None else dealer)
        r._drain()
        return r

    @classmethod
    def from_deck(cls, cc: Any, deck: Sequence[str], dealer: int = 0, seed: int = 0) -> Round:
        """Deal from a chosen deck order: ``deck[0]`` is the first card dealt.

        Cards go one at a time from the dealer's left; what remains is the draw
        pile in the same order (the next flip or draw takes the first)."""
        r = cls._blank(cc)
        ks = _tokens(deck, "deck")
        if len(ks) > r.S['piles'].shape[1] - 1:
            raise IllegalActionError(f"deck of {len(ks)} cards exceeds the pile size")
        K.seed_game(r.S['rng'], np.uint64(seed), np.uint64(0), 0)
        K.reset_state(r.S, r.C, dealer)
        r.S['piles'][0, : len(ks)] = ks[::-1]
        r.S['s'][K.S_NDRAW] = len(ks)
        K.deal(r.S, r.C, dealer)
        r._drain()
        return r

    @classmethod
    def from_position(cls, cc: Any, hands: Sequence[Sequence[str]], draw: Sequence[str],
                      discard: Sequence[str], color: str, player: int, direction: int = 1,
                      dealer: int | None = None, seed: int = 0) -> Round:
        """Start a regular turn of ``player`` in a given position.

        ``draw`` lists the draw pile in draw order (first element drawn first);
        ``discard`` bottom first (last element on top)."""
        r = cls._blank(cc)
        n = r.players
        if len(hands) != n:
            raise IllegalActionError(f"{len(hands)} hands for {n} players")
        K.seed_game(r.S['rng'], np.uint64(seed), np.uint64(0), 0)
        K.reset_state(r.S, r.C, (player - direction) % n if dealer is None else dealer)
        s, _, piles = r.S['s'], r.S['hands'], r.S['piles']
        for p, h in enumerate(hands):
            for k in _tokens(h, f"hand {p}"):
                K.add_card(r.S, p, k)
        d = _tokens(draw, "draw")[::-1]
        x = _tokens(discard, "discard")
        if not x:
            raise IllegalActionError("the discard pile needs a top card")
        piles[0, : len(d)] = d
        piles[1, : len(x)] = x
        s[K.S_NDRAW], s[K.S_NDISC] = len(d), len(x)
        s[K.S_COLOR] = COLORS.index(color.upper())
        s[K.S_DIR] = direction
        K.begin_turn(r.S, r.C, player)
        r._drain()
        return r

    # --- reading ------------------------------------------------------------
    @property
    def players(self) -> int:
        return int(self.C['ci'][L.C_PLAYERS])

    @property
    def phase(self) -> str:
        return PHASE_NAMES[int(self.S['s'][K.S_PHASE])]

    @property
    def is_over(self) -> bool:
        return int(self.S['s'][K.S_PHASE]) == L.PH_DONE

    @property
    def current_player(self) -> int:
        """Who must decide now (-1 once the round is over)."""
        return -1 if self.is_over else int(self.S['s'][K.S_CUR])

    @property
    def color(self) -> str:
        return COLORS[int(self.S['s'][K.S_COLOR])]

    @property
    def direction(self) -> int:
        return int(self.S['s'][K.S_DIR])

    @property
    def pending(self) -> int:
        """Cards the next player faces drawing (Draw Two / WD4 / a stack)."""
        return int(self.S['s'][K.S_PEND])

    def hand(self, p: int) -> list[str]:
        row = self.S['hands'][p]
        return [token(k) for k in range(NK) for _ in range(int(row[k]))]

    @property
    def hands(self) -> list[list[str]]:
        return [self.hand(p) for p in range(self.players)]

    @property
    def draw_pile(self) -> list[str]:
        """Draw pile in draw order (first element is the next card drawn)."""
        n = int(self.S['s'][K.S_NDRAW])
        return [token(k) for k in self.S['piles'][0, :n][::-1]]

    @property
    def discard(self) -> list[str]:
        """Discard pile, bottom first (last element is the top card)."""
        n = int(self.S['s'][K.S_NDISC])
        return [token(k) for k in self.S['piles'][1, :n]]

    @property
    def top(self) -> str:
        return self.discard[-1]

    @property
    def winner(self) -> int | None:
        w = int(self.S['st'][L.R_WINNER])
        return None if w < 0 else w

    @property
    def stats(self) -> dict[str, Any]:
        st = self.S['st']
        out = {name: int(st[getattr(L, "R_" + name.upper())]) for name in (
            "turns", "jumps", "played", "drawn", "reshuffles", "special_plays",
            "special_drawn", "points", "challenges", "swaps")}
        out["winner"] = self.winner
        out["drawn_by_cause"] = {c: int(st[L.R_DRAW_BY_CAUSE + i]) for i, c in enumerate(L.CAUSES)}
        return out

    def hand_points(self, p: int) -> int:
        return int(K.hand_points(self.S, self.C, p))

    # --- acting ---------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        out = np.zeros(L.NA, np.int64)
        n = K.legal_actions(self.S, self.C, out)
        return [int(a) for a in out[:n]]

    def legal_action_names(self) -> list[str]:
        return [action_name(a) for a in self.legal_actions()]

    def apply(self, action: int | str) -> None:
        """Apply one action; an illegal one raises `IllegalActionError` naming it."""
        a = parse_action(action)
        if self.is_over:
            raise RoundOverError(f"{action_name(a)}: the round is over")
        if not K.apply_action(self.S, self.C, a):
            raise IllegalActionError(
                f"{action_name(a)} is not legal for player {self.current_player} "
                f"in phase {self.phase} (legal: {', '.join(self.legal_action_names())})")
        self._drain()

    def policy_action(self) -> int:
        """The action the seat's compiled policy would take now."""
        return int(K.policy_action(self.S, self.C))

    def step(self) -> int:
        """Let the current seat's compiled policy act; returns the action."""
        a = self.policy_action()
        self.apply(a)
        return a

    def play_out(self) -> None:
        while not self.is_over:
            self.step()

    # --- trace -------------------------------------------------------------------
    def events(self) -> list[dict]:
        """The trace events so far (TRACE.md dicts)."""
        return list(self._events or [])

    def _drain(self) -> None:
        s = self.S['s']
        if s[K.S_TRACE] == 0:
            return
        if s[K.S_OVERFLOW]:
            raise RuntimeError("trace buffer overflow")
        from unosim.engine.trace import render_events

        n = int(s[K.S_NEV])
        self._events.extend(render_events(self, self.S['ev'][:n], self.S['cl']))
        s[K.S_NEV] = 0
        s[K.S_NCL] = 0


def play_game(cc: Any, seed: int, game: int = 0) -> list[dict]:
    """Trace events of one game (a round, or a whole match) exactly as the batch
    simulator plays game ``game`` of seed ``seed``."""
    r = Round._blank(cc)
    k0, k1 = seed_keys(seed)
    K.seed_game(r.S['rng'], np.uint64(k0), np.uint64(k1), game)
    n = r.players
    if int(cc.ci[L.C_MODE]) == 0:
        K.new_round(r.S, r.C, game % n)
        r._drain()
        r.play_out()
        return r.events()
    K.start_match(r.S, r.C)
    winners = r.S['scratch'][3]
    dealer = 0
    while True:
        K.new_round(r.S, r.C, dealer)
        r._drain()
        r.play_out()
        over, _ = K.score_round(r.S, r.C, winners)
        r._drain()
        if over:
            return r.events()
        r.round_index += 1
        dealer = int(K.next_dealer(r.S, r.C))
