"""The Gymnasium single-agent environment: one seat learns, the others are policies.

``gymnasium.make("unosim/UNO-v0", config=..., opponents=[...])`` (registered
when `unosim.env` is imported). The other seats take what a config's
``seats`` take: a built-in policy (``random``, ``cautious``, ``ismcts``...,
compiled), by name or as ``{policy: NAME, params: {...}}``, or a plug-in
(``file.py:Class``, ``module:Class`` or a policy object with ``choose``;
docs/plugins.md), which decides from its `PublicView` as in ``unosim league``.

Observations are the flat float32 vector of `unosim.env.spaces`; the legal
actions are ``info["action_mask"]`` and `UnoEnv.action_masks()` (what
sb3-contrib's MaskablePPO calls). An illegal action ends the episode with
reward -1 and ``info["illegal"]`` (as PettingZoo's TerminateIllegalWrapper).

>>> import gymnasium, unosim.env
>>> env = gymnasium.make("unosim/UNO-v0", config="two_player", opponents=["cautious"])
>>> obs, info = env.reset(seed=1)
>>> obs.shape == env.observation_space.shape, int(info["action_mask"].sum()) > 0
(True, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import SupportsInt

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from unosim.engine.game import IllegalActionError
from unosim.engine.kernel import state as L
from unosim.engine.plugins import Seat, decide, load_policy
from unosim.engine.view import PublicLog
from unosim.env.multi import OBS_HIGH
from unosim.env.table import Table, load, with_opponents
from unosim.rules.config import GameConfig

__all__ = ["ILLEGAL_REWARD", "UnoEnv"]

ILLEGAL_REWARD = -1.0


class UnoEnv(gym.Env):
    """Seat ``seat`` of a unosim game against ``opponents`` (one per other seat, in seat order;
    default: the config's own seats)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, config: str | GameConfig = "two_player", overrides: Sequence[str] = (),
                 *, opponents: Sequence[object] | None = None, seat: int = 0, reward: str = "win",
                 trace: bool = False, render_mode: str | None = None) -> None:
        cfg, objects = with_opponents(load(config, overrides), seat, opponents)
        self.plugins: dict[int, Seat] = {}
        for q, op in objects.items():
            s = load_policy(op, q) if isinstance(op, str) else Seat(type(op).__name__, op)
            self.plugins[q] = s.bind(q)
        self.seat = seat
        self.table = Table(cfg, trace=trace or bool(self.plugins), reward=reward)
        self.render_mode = render_mode
        self.observation_space = spaces.Box(-OBS_HIGH, OBS_HIGH, (self.table.layout.size,),
                                            np.float32)
        self.action_space = spaces.Discrete(L.NA)

    # --- the others' turns ------------------------------------------------------------------------
    def _sync(self) -> None:
        r = self.table.round
        for s in self.plugins.values():
            if len(s.log.events) < r.event_count:
                s.log.feed(r.events(len(s.log.events)))

    def _others(self) -> float:
        """Let the other seats act until the learner must decide or the game ends;
        the learner's reward on the way."""
        t = self.table
        got = 0.0
        while not t.done and t.current != self.seat:
            q = t.current
            seat = self.plugins.get(q)
            if seat is None:
                t.step(t.round.policy_action())
            else:
                self._sync()
                t.step(decide(seat, t.round))
            got += float(t.rewards[self.seat])
        return got

    def _info(self, **more: object) -> dict[str, object]:
        return {"action_mask": self.table.mask(self.seat), **more}

    # --- gymnasium -------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None
              ) -> tuple[np.ndarray, dict[str, object]]:
        super().reset(seed=seed)
        if seed is not None:
            self.table.reseed(seed)
        self.table.reset()
        for s in self.plugins.values():
            s.log = PublicLog(s.seat)
        self._others()
        return self.table.observe(self.seat), self._info()

    def step(self, action: SupportsInt) -> tuple[np.ndarray, float, bool, bool, dict[str, object]]:
        t = self.table
        try:
            t.step(int(action))
        except IllegalActionError:
            return t.observe(self.seat), ILLEGAL_REWARD, True, False, self._info(illegal=True)
        reward = float(t.rewards[self.seat]) + self._others()
        done = t.done
        return (t.observe(self.seat), reward, done and bool(t.winners),
                done and not t.winners, self._info(winners=t.winners))

    def action_masks(self) -> np.ndarray:
        """The legal actions as booleans (sb3-contrib's MaskablePPO reads this)."""
        return self.table.mask(self.seat).astype(bool)

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        from unosim.engine.trace import to_text

        return to_text(self.table.events)
