"""One table for the Python environments: a game (a round, or a match) on the `Round` façade.

The environments never touch the rules: a `Table` builds the game exactly as
`unosim.engine.game.play_game` does (game ``game`` of the stream keyed by
``seed``), applies each action through the façade's legality check, and
starts a match's next round with the engine's own scoring. So a game played
here by the seats' compiled policies is the engine's game, event for event.

>>> t = Table(load("classic"), seed=1)
>>> t.reset(game=0)
>>> while not t.done:
...     t.step(t.round.policy_action())
>>> t.events == play_game(t.cc, 1, 0), t.winners, t.returns.tolist()
(True, (2,), [-1.0, -1.0, 1.0, -1.0])
"""

from __future__ import annotations

import copy
import pickle
import re
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from unosim.engine.game import DRAIN_EVERY, Round, action_name, play_game
from unosim.engine.kernel import state as L
from unosim.engine.kernel.deal import new_round
from unosim.engine.kernel.jit import jit
from unosim.engine.kernel.rng import seed_game, seed_keys
from unosim.engine.kernel.rules import apply_action
from unosim.engine.kernel.scoring import next_dealer, score_round, start_match
from unosim.engine.kernel.state import CompiledConfig
from unosim.env.spaces import Layout, encode, layout, legal_mask
from unosim.rules.config import GameConfig, load_config, validate_config
from unosim.rules.errors import ConfigError
from unosim.rules.models import POLICY_NAMES

__all__ = ["REWARDS", "Record", "Table", "load", "play_game", "with_opponents"]

REWARDS = ("win", "points")  # win/loss at the game's end, or match points as they are scored


def load(config: str | GameConfig, overrides: Sequence[str] = (),
         seats: Sequence[object] | None = None) -> GameConfig:
    """A validated config from a name, a path or a `GameConfig`, with ``--set`` overrides
    and, if given, one seat (as a config's ``seats`` entry) per seat; a bad one is a
    one-line `ConfigError`."""
    cfg = config if isinstance(config, GameConfig) else load_config(config, overrides)
    if isinstance(config, GameConfig) and overrides:
        raise ValueError("overrides apply to a config read by name or path")
    if seats is not None:
        data = cfg.model_dump(exclude_none=True)
        data["seats"] = list(seats)
        cfg = validate_config(data)
    return cfg


def with_opponents(cfg: GameConfig, seat: int, opponents: Sequence[object] | None
                   ) -> tuple[GameConfig, dict[int, object]]:
    """``cfg`` with ``seat`` learning and ``opponents`` (one per other seat, in seat order;
    None: the config's own seats) in the other seats, and the plug-in opponents by seat.

    An opponent is what a config's ``seats`` entry may be: a policy name, a plug-in
    (``file.py:Class``, ``module:Class``), ``{policy: NAME, params: {...}}`` or a
    `SeatSpec`; or a policy object with ``choose``. A plug-in's compiled row is
    ``random``'s (unused: the plug-in decides), as is the learner's (it never bluffs).
    A bad opponent is a one-line `ValueError` naming its seat.

    >>> cfg, plugins = with_opponents(load("classic"), 1, ["cautious",
    ...     {"policy": "strategic", "params": {"bluff_rate": 0.5}}, "x.py:Mine"])
    >>> cfg.seat_policies, cfg.seat_params[2].bluff_rate, plugins
    (['cautious', 'random', 'strategic', 'random'], 0.5, {3: 'x.py:Mine'})
    >>> with_opponents(load("two_player"), 0, [{"policy": "greedy", "params": {"dump_at": 99}}])
    Traceback (most recent call last):
    ValueError: opponent at seat 1: params.dump_at: must be <= 20, got 99
    """
    n = cfg.players
    if not 0 <= seat < n:
        raise ValueError(f"seat {seat} is not a seat of this {n}-player game")
    seats: list[object] = list(cfg.seats) if cfg.seats is not None else list(cfg.seat_policies)
    plugins: dict[int, object] = {}
    if opponents is not None:
        if isinstance(opponents, str | Mapping) or not isinstance(opponents, Sequence):
            raise ValueError(f"opponents: a list of {n - 1} (one per other seat), got "
                             f"{type(opponents).__name__} {str(opponents)[:60]!r}")
        if len(opponents) != n - 1:
            raise ValueError(f"opponents: a list of {n - 1} (one per other seat), got "
                             f"{len(opponents)}")
        for q, op in zip([q for q in range(n) if q != seat], opponents, strict=True):
            seats[q] = op
    for q, op in enumerate(seats):
        if q != seat and callable(getattr(op, "choose", None)):
            plugins[q] = op  # a policy object
    seats[seat] = "random"
    try:
        out = load(cfg, seats=["random" if q in plugins else s for q, s in enumerate(seats)])
    except ConfigError as exc:
        key = re.sub(r"^seats\[(\d+)\]\.?", r"opponent at seat \1: ", exc.key or "")
        raise ValueError(f"{key.rstrip(': ')}: {exc.message}" if key else exc.message) from None
    named = {q: s for q, s in enumerate(out.seat_policies) if s not in POLICY_NAMES}
    if named:  # plug-ins by name
        plugins.update(named)
        out = load(out, seats=["random" if q in named else s
                               for q, s in enumerate(out.seats or out.seat_policies)])
    return out, dict(sorted(plugins.items()))


class Table:
    """A game driven one action at a time, with win/loss or points rewards per seat."""

    def __init__(self, cfg: GameConfig | CompiledConfig, seed: int = 0, trace: bool = True,
                 reward: str = "win") -> None:
        from unosim.engine.kernel.state import compile_config

        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        self.cc = cfg if isinstance(cfg, CompiledConfig) else compile_config(cfg)
        self.trace = trace
        self.reward = reward
        self.players = int(self.cc.ci[L.C_PLAYERS])
        self.match = int(self.cc.ci[L.C_MODE]) == 1
        # standard and partners scoring count up for the winner; lowest and
        # elimination add each seat's own hand, so fewer points are better
        self.points_sign = 1 if int(self.cc.ci[L.C_SCORING]) in (
            L.SCORING_STANDARD, L.SCORING_PARTNERS) else -1
        self.layout: Layout = layout(self.cc)
        self._off = self.layout.offsets
        self.keys = seed_keys(seed)
        self.game = 0
        self.round = Round.blank(self.cc, trace)
        # views of the state's arrays: a record's attributes are slow to read from Python
        self._s, self._seats = self.round.S.s, self.round.S.seat
        self.rewards = np.zeros(self.players)  # of the latest step
        self.returns = np.zeros(self.players)  # of the game so far
        self.winners: tuple[int, ...] = ()
        self.done = True
        self.deal: tuple[int, int, int] | None = None  # the keys and index of the game in play
        self.moves: list[int] = []  # its actions so far: with ``deal``, what `record` keeps

    def __deepcopy__(self, memo: dict[int, object]) -> Table:
        """A copy that plays on alone (OpenSpiel clones states): its own round, and the
        array views rebound to that round's state."""
        new = copy.copy(self)
        new.round = copy.deepcopy(self.round, memo)
        new.rewards, new.returns = self.rewards.copy(), self.returns.copy()
        new.moves = list(self.moves)
        new._s, new._seats = new.round.S.s, new.round.S.seat
        return new

    # --- the game ---------------------------------------------------------------------------
    def reseed(self, seed: int) -> None:
        """Key the stream by ``seed``; the next `reset` plays its game 0."""
        self.keys = seed_keys(seed)
        self.game = 0

    def reset(self, game: int | None = None) -> None:
        """Start game ``game`` of the stream (default: the one after the last).

        The table's state record is reused, as the batch loop reuses its own
        from game to game (a round resets every part of the state it reads)."""
        if game is not None:
            self.game = game
        self.deal = (*self.keys, self.game)
        self.moves = []
        r = self.round
        r.history = []  # the table keeps its own game's actions (``moves``)
        r.clear_events()
        r.round_index = 0
        S = r.S
        seed_game(S.rng, np.uint64(self.keys[0]), np.uint64(self.keys[1]), self.game)
        self.game += 1
        self.rewards = np.zeros(self.players)
        self.returns = np.zeros(self.players)
        self.winners = ()
        self.done = False
        if self.match:
            start_match(S, r.C)
            new_round(S, r.C, 0)
        else:
            self._seats[: self.players, L.SEAT_ALIVE] = 1
            new_round(S, r.C, (self.game - 1) % self.players)
        r.drain()
        self._settle()

    def step(self, action: int | str) -> None:
        """Apply the current seat's action (`IllegalActionError` if it is not legal)."""
        self.rewards = np.zeros(self.players)
        self.round.apply(action)
        self.moves.append(self.round.history[-1])
        self._settle()

    def _settle(self) -> None:
        """Score a finished round; start a match's next one, or end the game."""
        r = self.round
        while self._s[L.S_PHASE] == L.PH_DONE and not self.done:
            if not self.match:
                w = r.winner
                self._end((w,) if w is not None else ())
                return
            before = np.array(r.scores, float)
            over, nw = score_round(r.S, r.C)
            r.drain()
            if self.reward == "points":
                self._give(self.points_sign * (np.array(r.scores, float) - before))
            if over:
                self._end(tuple(int(q) for q in r.S.winners[: int(nw)]))
                return
            r.round_index += 1
            new_round(r.S, r.C, int(next_dealer(r.S, r.C)))
            r.drain()

    def _end(self, winners: tuple[int, ...]) -> None:
        self.done = True
        self.winners = winners
        if self.reward == "win" and winners:
            won = np.full(self.players, -1.0)
            won[list(winners)] = 1.0
            self._give(won)
        elif self.reward == "points" and not self.match:
            pts = float(self.round.S.st[L.R_POINTS])
            delta = np.zeros(self.players)
            if winners:
                delta[winners[0]] = pts
            self._give(delta)

    def _give(self, r: NDArray[np.float64]) -> None:
        self.rewards = self.rewards + r
        self.returns = self.returns + r

    # --- a record to replay ---------------------------------------------------------------------
    def record(self) -> Record:
        """What the game so far follows from (a few hundred bytes pickled; the state
        record it rebuilds is megabytes)."""
        return Record(self.cc, self.trace, self.reward, self.keys, self.game, self.deal,
                      tuple(self.moves))

    @classmethod
    def replayed(cls, rec: Record) -> Table:
        """The table ``rec`` was taken from, rebuilt by dealing its game again and
        applying its actions through the kernel: the same state, rewards and events."""
        t = cls(rec.cc, trace=rec.trace, reward=rec.reward)
        if rec.deal is not None:
            t.keys = rec.deal[:2]
            t.reset(game=rec.deal[2])
            t._replay(np.array(rec.moves, np.int64))
        t.keys, t.game = rec.keys, rec.game
        return t

    def _replay(self, moves: NDArray[np.int64]) -> None:
        """Apply ``moves`` as `step` would, a compiled run of them at a time: each run
        stops where a round ends (scored here, as `step` scores it) and, when the table
        traces, every `DRAIN_EVERY` moves (the events are rendered between runs)."""
        r = self.round
        i, n = 0, len(moves)
        run = DRAIN_EVERY if self.trace else n
        while i < n:
            if self.done:
                raise ValueError(f"a record with moves after its game's end (move {i})")
            j = int(_apply_run(r.S, r.C, moves, i, run))
            if j < 0:
                raise ValueError(f"a record with an illegal move: {action_name(int(moves[-1 - j]))} "
                                 f"(move {-1 - j})")
            r.drain()
            self.rewards = np.zeros(self.players)  # those of the run's last move
            self._settle()
            i = j
        self.moves = moves.tolist()
        r.history = list(self.moves)

    # --- what a seat sees -----------------------------------------------------------------------
    @property
    def current(self) -> int:
        """The seat that must decide (-1 once the game is over)."""
        return -1 if self.done else int(self._s[L.S_CUR])

    def observe(self, seat: int, out: NDArray[np.float32] | None = None) -> NDArray[np.float32]:
        obs = np.zeros(self.layout.size, np.float32) if out is None else out
        encode(self.round.S, self.round.C, seat, self._off, obs)
        return obs

    def mask(self, seat: int) -> NDArray[np.int8]:
        """The legal-action mask of ``seat``: the legal actions if it must decide, else zeros."""
        m = np.zeros(L.NA, np.int8)
        if not self.done and seat == self._s[L.S_CUR]:
            legal_mask(self.round.S, self.round.C, m)
        return m

    @property
    def events(self) -> list[dict[str, Any]]:
        """The trace events of the game so far (docs/trace.md §2)."""
        return self.round.events()


@jit
def _apply_run(S: L.State, C: L.Config, moves: NDArray[np.int64], start: int, most: int) -> int:
    """Apply ``moves[start:]`` until one ends a round, ``most`` are applied or none is
    left; the index of the next move (``-1 - i`` if move ``i`` is not legal)."""
    s = S.s
    end = min(len(moves), start + most)
    i = start
    while i < end:
        if not apply_action(S, C, moves[i]):
            return -1 - i
        i += 1
        if s[L.S_PHASE] == L.PH_DONE:
            break
    return i


@dataclass(frozen=True)
class Record:
    """A table's game as what it follows from: the compiled config, the stream and the
    actions taken; `Table.replayed` plays it back through the kernel. It pickles
    compressed, so a serialized OpenSpiel state is a few kilobytes at most.

    >>> t = Table(load("two_player"), seed=3, trace=False)
    >>> t.reset()
    >>> for _ in range(20):
    ...     t.step(int(np.flatnonzero(t.mask(t.current))[0]))
    >>> back = pickle.loads(pickle.dumps(t.record()))
    >>> u = Table.replayed(back)
    >>> bool((u.observe(0) == t.observe(0)).all()), u.moves == t.moves, len(pickle.dumps(back)) < 4000
    (True, True, True)
    """

    cc: CompiledConfig
    trace: bool
    reward: str
    keys: tuple[int, int]  # the stream's keys now
    game: int  # the game the next `Table.reset` plays
    deal: tuple[int, int, int] | None  # the keys and index of the game in play (None: none)
    moves: tuple[int, ...]  # its actions so far

    def __reduce__(self) -> tuple[Callable[[bytes], Record], tuple[bytes]]:
        moves = np.array(self.moves, _MOVE).tobytes()
        fields = (self.cc, self.trace, self.reward, self.keys, self.game, self.deal, moves)
        return _unpack_record, (zlib.compress(pickle.dumps(fields, pickle.HIGHEST_PROTOCOL), 9),)


_MOVE = np.min_scalar_type(L.NA - 1)  # an action id: one byte while there are at most 256


def _unpack_record(blob: bytes) -> Record:
    cc, trace, reward, keys, game, deal, moves = pickle.loads(zlib.decompress(blob))
    return Record(cc, trace, reward, keys, game, deal, tuple(np.frombuffer(moves, _MOVE).tolist()))
