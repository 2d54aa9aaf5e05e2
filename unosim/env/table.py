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
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from unosim.engine import state as L
from unosim.engine.deal import new_round
from unosim.engine.game import Round, play_game
from unosim.engine.rng import seed_game, seed_keys
from unosim.engine.scoring import next_dealer, score_round, start_match
from unosim.engine.state import CompiledConfig
from unosim.env.spaces import Layout, encode, layout, legal_mask
from unosim.rules.config import GameConfig, load_config

__all__ = ["REWARDS", "Table", "load", "play_game"]

REWARDS = ("win", "points")  # win/loss at the game's end, or match points as they are scored


def load(config: str | GameConfig, overrides: Sequence[str] = (),
         seats: Sequence[Any] | None = None) -> GameConfig:
    """A validated config from a name, a path or a `GameConfig`, with ``--set`` overrides
    and, if given, one policy name per seat."""
    cfg = config if isinstance(config, GameConfig) else load_config(config, overrides)
    if isinstance(config, GameConfig) and overrides:
        raise ValueError("overrides apply to a config read by name or path")
    if seats is not None:
        data = cfg.model_dump(exclude_none=True)
        data["seats"] = list(seats)
        cfg = GameConfig.model_validate(data)
    return cfg


class Table:
    """A game driven one action at a time, with win/loss or points rewards per seat."""

    def __init__(self, cfg: GameConfig | CompiledConfig, seed: int = 0, trace: bool = True,
                 reward: str = "win") -> None:
        from unosim.engine.state import compile_config

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

    def __deepcopy__(self, memo: dict[int, Any]) -> Table:
        """A copy that plays on alone (OpenSpiel clones states): its own round, and the
        array views rebound to that round's state."""
        new = copy.copy(self)
        new.round = copy.deepcopy(self.round, memo)
        new.rewards, new.returns = self.rewards.copy(), self.returns.copy()
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
        r = self.round
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
