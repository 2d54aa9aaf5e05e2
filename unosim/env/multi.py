"""The PettingZoo AEC environment: every seat an agent, one decision at a time.

Agents are ``player_0 .. player_{n-1}`` (the seats). Each observes a dict:
``observation`` (`unosim.env.spaces`, float32) and ``action_mask`` (int8 over
the `Discrete` action space; all zeros for a seat that is not deciding), the
PettingZoo convention for masked games; ``infos[agent]["action_mask"]`` holds
the same mask. A game is one round or one match, as the config says; its end
terminates every agent (truncates, when it ended with no winner: a stalemate
at ``max_turns``, an unfinished match at ``max_rounds``).

>>> from unosim.env import aec
>>> env = aec("two_player", seed=3)
>>> env.reset(seed=3)
>>> for agent in env.agent_iter():
...     obs, reward, term, trunc, info = env.last()
...     env.step(None if term or trunc else int(obs["action_mask"].nonzero()[0][0]))
>>> env.unwrapped.table.done, float(sum(env.unwrapped.table.returns))
(True, 0.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict, Unpack

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from unosim.engine.kernel import state as L
from unosim.env.table import Table, load
from unosim.rules.config import GameConfig

__all__ = ["env", "observation_space", "raw_env"]

OBS_HIGH = 10_000.0  # above any count, size, pending draw or score an observation holds


class EnvOptions(TypedDict, total=False):
    """The keywords of the AEC environment besides its config (`raw_env`)."""

    reward: str
    trace: bool
    seed: int
    render_mode: str | None


class EnvArguments(EnvOptions, total=False):
    """Every keyword of the AEC environment (`raw_env`, `env`)."""

    config: str | GameConfig
    overrides: Sequence[str]


def observation_space(size: int) -> spaces.Dict:
    """The dict space of one agent's observation (and its action mask)."""
    return spaces.Dict({
        "observation": spaces.Box(-OBS_HIGH, OBS_HIGH, (size,), np.float32),
        "action_mask": spaces.Box(0, 1, (L.NA,), np.int8),
    })


class raw_env(AECEnv):  # noqa: N801 (PettingZoo's name for the unwrapped env)
    """Every seat of a unosim game as a PettingZoo agent (see the module doc)."""

    metadata = {"name": "unosim_uno_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, config: str | GameConfig = "classic", overrides: Sequence[str] = (),
                 reward: str = "win", trace: bool = True, seed: int = 0,
                 render_mode: str | None = None) -> None:
        super().__init__()
        self.table = Table(load(config, overrides), seed=seed, trace=trace, reward=reward)
        n = self.table.players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents: list[str] = []
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        self.render_mode = render_mode
        self._obs_space = observation_space(self.table.layout.size)
        self._act_space = spaces.Discrete(L.NA)
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, np.ndarray]] = {}
        self.agent_selection = self.possible_agents[0]

    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_space

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self.table.reseed(seed)
        self.table.reset()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.agent_selection = self.possible_agents[self.table.current]
        self._infos()

    def _infos(self) -> None:
        self.infos = {a: {"action_mask": self.table.mask(self._index[a])} for a in self.agents}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        i = self._index[agent]
        return {"observation": self.table.observe(i), "action_mask": self.table.mask(i)}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        t = self.table
        t.step(int(action))
        self.rewards = {a: float(t.rewards[self._index[a]]) for a in self.agents}
        if t.done:
            ended = self.terminations if t.winners else self.truncations
            for a in self.agents:
                ended[a] = True
            i = self._index[agent]
            self.agent_selection = self.agents[(i + 1) % len(self.agents)]
        else:
            self.agent_selection = self.possible_agents[t.current]
        self._infos()
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        from unosim.engine.trace import to_text

        return to_text(self.table.events)

    def close(self) -> None:
        pass


def env(**kwargs: Unpack[EnvArguments]) -> AECEnv:
    """The AEC environment, wrapped as PettingZoo's classic games are: an out-of-range
    action is an error, methods are called in order, and an illegal action ends the
    game with -1 for the seat that took it."""
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)
