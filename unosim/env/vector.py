"""N tables stepped together in compiled code, through Gymnasium's vector API.

``gymnasium.make_vec("unosim/UNO-v0", num_envs=1024, vectorization_mode="vector_entry_point",
config=..., opponents=[...])`` or `UnoVectorEnv` directly. One compiled call,
`step_tables`, applies each table's action with the kernel's own
`apply_action`, lets the other seats play their compiled policies
(`policy_action`) until the learner must decide again, scores rounds and
matches with the engine's scoring, resets finished tables on the spot (the
next game of the seed's stream), and writes every observation and action mask.
No Python runs per table.

Auto-reset is Gymnasium's ``SAME_STEP`` mode: a table whose game ended returns
the first observation of its next game, and ``info["final_obs"]`` (rows where
``info["_final_obs"]``) holds its last one. Opponents are what a config's
``seats`` take, compiled policies only: a name or ``{policy: NAME, params:
{...}}``. A plug-in decides in Python, one call per decision, which would stop
the one compiled call per step: it is refused (use `unosim.env.single.UnoEnv`).

>>> env = UnoVectorEnv(4, config="two_player", opponents=["random"])
>>> obs, info = env.reset(seed=1)
>>> obs.shape, info["action_mask"].shape
((4, 348), (4, 176))
>>> acts = np.array([np.flatnonzero(m)[0] for m in info["action_mask"]])
>>> obs, rew, term, trunc, info = env.step(acts)
>>> rew.dtype, term.shape
(dtype('float64'), (4,))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from numpy.typing import ArrayLike, NDArray

from unosim.engine.kernel import state as L
from unosim.engine.kernel.deal import new_round
from unosim.engine.kernel.jit import jit
from unosim.engine.kernel.policies import policy_action
from unosim.engine.kernel.rng import seed_game, seed_keys
from unosim.engine.kernel.rules import apply_action, apply_legal
from unosim.engine.kernel.scoring import next_dealer, score_round, start_match
from unosim.engine.kernel.state import (
    ISMCTS,
    KNOWN,
    compile_config,
    config_features,
    config_tuple,
    face_copies,
    pile_size,
    state_dtype,
)
from unosim.env.multi import OBS_HIGH
from unosim.env.spaces import encode, layout, legal_mask
from unosim.env.table import REWARDS, load, with_opponents
from unosim.rules.config import GameConfig

__all__ = ["UnoVectorEnv", "step_tables", "table_dtype"]

_ILLEGAL = -1.0  # reward of an illegal action (it ends the game, as in the single env)


def table_dtype(cc: L.KernelArrays) -> np.dtype:
    """The kernel's state record for one table, without the search player's work space
    when no seat searches (its tree is most of the record: 1024 tables would need
    half a gigabyte)."""
    full = state_dtype(pile_size(cc), trace=False, flip=bool(cc.ci[L.C_FLIP]),
                       copies=face_copies(cc))
    if ISMCTS in config_features(cc):
        return full
    fields = []
    names = full.names or ()
    subs: Any = full.fields
    for name in names:
        sub = subs[name][0]
        fields.append((name, sub.base, (1,) if name.startswith("x_") else sub.shape))
    return np.dtype(fields)


# --- compiled --------------------------------------------------------------------------------
@jit
def _start(S: L.State, C: L.Config, k0: np.uint64, k1: np.uint64, g: int) -> None:
    """Game ``g`` of the stream, as `unosim.engine.game.play_game` starts it."""
    seed_game(S.rng, k0, k1, g)
    n = C.ci[L.C_PLAYERS]
    if C.ci[L.C_MODE] == 1:
        start_match(S, C)
        new_round(S, C, 0)
    else:
        for q in range(n):
            S.seat[q, L.SEAT_ALIVE] = 1
        new_round(S, C, g % n)


@jit
def _run(S: L.State, C: L.Config, me: int, points: bool, sign: float, out: NDArray[np.int64]
         ) -> float:
    """The other seats act until ``me`` must decide or the game ends; ``me``'s reward
    on the way. ``out[0]``: 0 going on, 1 won by someone, 2 ended with no winner;
    ``out[1]``: 1 if ``me`` is among the winners."""
    s = S.s
    r = 0.0
    out[0] = 0
    out[1] = 0
    match = C.ci[L.C_MODE] == 1
    while True:
        while s[L.S_PHASE] != L.PH_DONE and s[L.S_CUR] != me:
            apply_legal(S, C, policy_action(S, C))
        if s[L.S_PHASE] != L.PH_DONE:
            return r
        if not match:
            w = S.st[L.R_WINNER]
            if points and w == me:
                r += S.st[L.R_POINTS]
            out[0] = 1 if w >= 0 else 2
            out[1] = 1 if w == me else 0
            return r
        before = S.seat[me, L.SEAT_SCORE]
        over, nw = score_round(S, C)
        if points:
            r += sign * (S.seat[me, L.SEAT_SCORE] - before)
        if over:
            out[0] = 1 if nw > 0 else 2
            for i in range(nw):
                if S.winners[i] == me:
                    out[1] = 1
            return r
        new_round(S, C, next_dealer(S, C))


@jit
def _outcome(out: NDArray[np.int64], points: bool) -> float:
    """The win/loss reward of a finished game (0 in points mode or with no winner)."""
    if points or out[0] != 1:
        return 0.0
    return 1.0 if out[1] == 1 else -1.0


@jit
def step_tables(states: np.ndarray, C: L.Config, me: int, actions: NDArray[np.int64],
                reset: NDArray[np.bool_], k0: np.uint64, k1: np.uint64,
                games: NDArray[np.int64], next_game: NDArray[np.int64], points: bool,
                sign: float, off: NDArray[np.int64], obs: NDArray[np.float32],
                mask: NDArray[np.int8], rew: NDArray[np.float64], term: NDArray[np.bool_],
                trunc: NDArray[np.bool_], final: NDArray[np.float32],
                has_final: NDArray[np.bool_], out: NDArray[np.int64]) -> None:
    """One step of every table: table ``i`` starts its next game if ``reset[i]``, else
    takes ``actions[i]`` for seat ``me``; then the others play, a finished game is
    recorded (``final``) and the table starts its next one; observations and masks
    are written for seat ``me``. ``out``: two int64 of work space (the kernel allocates
    nothing)."""
    for i in range(states.shape[0]):
        S = states[i]
        rew[i] = 0.0
        term[i] = False
        trunc[i] = False
        has_final[i] = False
        done = reset[i]
        if not done:
            if apply_action(S, C, actions[i]):
                rew[i] = _run(S, C, me, points, sign, out)
                if out[0] != 0:
                    rew[i] += _outcome(out, points)
                    term[i] = out[0] == 1
                    trunc[i] = out[0] == 2
                    done = True
            else:
                rew[i] = _ILLEGAL
                term[i] = True
                done = True
            if done:
                encode(S, C, me, off, final[i])
                has_final[i] = True
        while done:  # a game over before ``me``'s first decision is skipped
            g = next_game[0]
            next_game[0] += 1
            games[i] = g
            _start(S, C, k0, k1, g)
            _run(S, C, me, points, sign, out)
            done = out[0] != 0
        encode(S, C, me, off, obs[i])
        legal_mask(S, C, mask[i])


# --- the Gymnasium vector env ------------------------------------------------------------------
class UnoVectorEnv(VectorEnv):
    """``num_envs`` tables of one config, seat ``seat`` learning against compiled opponents."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int, config: str | GameConfig = "two_player",
                 overrides: Sequence[str] = (), *, opponents: Sequence[object] | None = None,
                 seat: int = 0, reward: str = "win", copy: bool = True, **_: object) -> None:
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        cfg, plugins = with_opponents(load(config, overrides), seat, opponents)
        if plugins:
            q, op = next(iter(plugins.items()))
            name = op if isinstance(op, str) else type(op).__name__
            raise ValueError(
                f"the vector env plays compiled policies only, not {name!r} at seat {q}: it "
                f"steps every table in one compiled call, and a plug-in decides in Python "
                f"(use the single env, unosim.env.single.UnoEnv)")
        self.cc = compile_config(cfg)
        self.C = config_tuple(self.cc, config_features(self.cc) | {KNOWN})
        self.C.ci[L.C_KNOWN] = 1  # the observation holds the cards the seat knows
        self.layout = layout(self.cc)
        self._off = self.layout.offsets
        self.num_envs = num_envs
        self.seat = seat
        self.points = reward == "points"
        self.sign = 1.0 if int(self.cc.ci[L.C_SCORING]) in (
            L.SCORING_STANDARD, L.SCORING_PARTNERS) else -1.0
        self.copy = copy
        self.single_observation_space = spaces.Box(-OBS_HIGH, OBS_HIGH, (self.layout.size,),
                                                   np.float32)
        self.single_action_space = spaces.Discrete(L.NA)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.states = np.zeros(num_envs, table_dtype(self.cc))
        self.states["seat"][:, :, L.SEAT_ALIVE] = 1
        self.games = np.zeros(num_envs, np.int64)
        self._next = np.zeros(1, np.int64)
        self._keys = seed_keys(0)
        N, size = num_envs, self.layout.size
        self._obs = np.zeros((N, size), np.float32)
        self._mask = np.zeros((N, L.NA), np.int8)
        self._rew = np.zeros(N, np.float64)
        self._term = np.zeros(N, bool)
        self._trunc = np.zeros(N, bool)
        self._final = np.zeros((N, size), np.float32)
        self._has_final = np.zeros(N, bool)
        self._none = np.zeros(N, np.int64)
        self._work = np.zeros(2, np.int64)

    def _call(self, actions: NDArray[np.int64], reset: NDArray[np.bool_]) -> None:
        step_tables(self.states, self.C, self.seat, actions, reset, np.uint64(self._keys[0]),
                    np.uint64(self._keys[1]), self.games, self._next, self.points, self.sign,
                    self._off, self._obs, self._mask, self._rew, self._term, self._trunc,
                    self._final, self._has_final, self._work)

    def _out(self, x: np.ndarray) -> np.ndarray:
        return x.copy() if self.copy else x

    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None
              ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Every table starts a game: games 0..N-1 of ``seed``'s stream, then onward."""
        if isinstance(seed, list):
            seed = seed[0]
        if seed is not None:
            self._keys = seed_keys(seed)
            self._next[0] = 0
        self._call(self._none, np.ones(self.num_envs, bool))
        return self._out(self._obs), {"action_mask": self._out(self._mask)}

    def step(self, actions: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                              dict[str, np.ndarray]]:
        acts = np.asarray(actions, np.int64).reshape(self.num_envs)
        self._call(acts, np.zeros(self.num_envs, bool))
        info: dict[str, np.ndarray] = {"action_mask": self._out(self._mask)}
        if self._has_final.any():
            info["final_obs"] = self._final.copy()
            info["_final_obs"] = self._has_final.copy()
        return (self._out(self._obs), self._out(self._rew), self._out(self._term),
                self._out(self._trunc), info)

    def action_masks(self) -> np.ndarray:
        """Each table's legal actions as booleans (sb3-contrib's convention)."""
        return self._mask.astype(bool)
