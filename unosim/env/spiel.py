"""The OpenSpiel game ``python_unosim`` (registered with ``pyspiel.register_game``).

``pyspiel.load_game("python_unosim", {"config": "two_player"})`` after
``import unosim.env``. Parameters: ``config`` (a built-in name or a path),
``set`` (``--set`` overrides separated by ``;``, each ``KEY.PATH=VALUE`` or
``KEY.PATH:VALUE``, the form the game's string keeps), ``reward`` (``win`` or
``points``), ``seed`` (the stream the deals come from), ``deals`` (how many
deals the opening chance node chooses among) and ``trace`` (keep the events).

The game opens with one explicit chance node that picks the deal: game
``d`` of the seed's stream, exactly as ``unosim run`` plays it. Everything
after it (the shuffle, reshuffles, behaviour rates such as forgetting UNO)
follows from that game's stream, so a history replays to the same state.

Serialization and clones keep that history, not the state: OpenSpiel pickles a
Python state's attributes, and a state holds its table as a `Record` (the
compiled config and the stream: under a kilobyte compressed; the actions are the
state's history, which OpenSpiel keeps) until something reads it, when the
kernel replays the history (about a millisecond for a thousand actions). A
clone OpenSpiel never reads (``random_sim_test`` keeps one per step) costs its
record, not a table's megabytes. Players see the observation of
`unosim.env.spaces`; the game provides no information-state tensor.

>>> import pyspiel, unosim.env
>>> game = pyspiel.load_game("python_unosim", {"config": "two_player", "deals": 8})
>>> state = game.new_initial_state()
>>> state.is_chance_node(), len(state.chance_outcomes())
(True, 8)
>>> state.apply_action(3); state.current_player() in (0, 1)
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import pyspiel

from unosim.engine.game import Round, action_name
from unosim.engine.kernel import state as L
from unosim.engine.trace import SIDES
from unosim.env.table import Record, Table, load
from unosim.rules.limits import MAX_PLAYERS

if TYPE_CHECKING:
    from unosim.rules.config import GameConfig

__all__ = ["GAME_TYPE", "UnoGame", "UnoState"]

GameParam = str | int | float | bool  # a value of OpenSpiel's game parameters
_DEFAULTS: dict[str, GameParam] = {"config": "two_player", "set": "", "reward": "win",
                                   "seed": 0, "deals": 1024, "trace": False}
_POINTS_BOUND = 100_000.0  # points rewards stay within (a match ends at its target)

GAME_TYPE = pyspiel.GameType(
    short_name="python_unosim",
    long_name="unosim: UNO with editions, house rules and match modes",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=2,
    provides_information_state_string=False,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)


def _setting(text: str) -> str:
    """One ``set`` override as ``--set`` writes it: ``KEY.PATH=VALUE``, or ``KEY.PATH:VALUE``
    (a key never holds ":").

    >>> _setting(" house_rules.jump_in:true "), _setting("seats=[a.py:Mine, random]")
    ('house_rules.jump_in=true', 'seats=[a.py:Mine, random]')
    """
    text = text.strip()
    key, colon, value = text.partition(":")
    return f"{key}={value}" if colon and "=" not in key else text


class UnoGame(pyspiel.Game):
    """A unosim config as an OpenSpiel game."""

    def __init__(self, params: Mapping[str, GameParam] | None = None) -> None:
        p = {**_DEFAULTS, **(params or {})}
        sets = [_setting(s) for s in str(p["set"]).split(";") if s.strip()]
        # OpenSpiel's game string takes no "=" in a value: ":" writes it there, so
        # serialize_game_and_state loads back
        p["set"] = ";".join(s.replace("=", ":", 1) for s in sets)
        cfg = load(str(p["config"]), sets)
        self.seed, self.trace, self.reward = int(p["seed"]), bool(p["trace"]), str(p["reward"])
        self.probe = self.table(cfg)
        self.cc = self.probe.cc
        self.blank = self.probe.record()  # a state before the deal
        self.deals = int(p["deals"])
        n = cfg.players
        rounds = cfg.max_rounds if cfg.mode == "match" else 1
        win = self.reward == "win"
        info = pyspiel.GameInfo(
            num_distinct_actions=L.NA,
            max_chance_outcomes=self.deals,
            num_players=n,
            min_utility=-1.0 if win else -_POINTS_BOUND,
            max_utility=1.0 if win else _POINTS_BOUND,
            utility_sum=None,
            # a turn is at most a play, a colour, a target, a pending choice and every
            # other seat's jump-in pass; a stalemate ends a round at max_turns
            max_game_length=1 + rounds * (cfg.max_turns + 1) * (n + 4) * 2,
        )
        super().__init__(GAME_TYPE, info, p)

    def table(self, cfg: GameConfig | None = None) -> Table:
        """A fresh table of this game's config, stream, tracing and rewards."""
        return Table(self.cc if cfg is None else cfg, seed=self.seed, trace=self.trace,
                     reward=self.reward)

    def new_initial_state(self) -> UnoState:
        return UnoState(self)

    def make_py_observer(self, iig_obs_type: pyspiel.IIGObservationType | None = None,
                         params: Mapping[str, GameParam] | None = None) -> UnoObserver:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            raise ValueError("python_unosim provides no perfect-recall information state")
        return UnoObserver(self)


class Held:
    """A state's table, or the `Record` it is replayed from when first read.

    OpenSpiel clones a Python state by deep-copying its attributes and
    serializes it by pickling them: both take the record without its moves,
    which are the state's own history (after the deal), kept by OpenSpiel."""

    __slots__ = ("live", "rec")

    def __init__(self, rec: Record) -> None:
        self.rec: Record | None = rec
        self.live: Table | None = None

    def table(self, state: pyspiel.State) -> Table:
        if self.live is None:
            assert self.rec is not None
            moves = tuple(state.history()[1:]) if self.rec.deal is not None else ()
            self.live = Table.replayed(dataclasses.replace(self.rec, moves=moves))
            self.rec = None
        return self.live

    def record(self) -> Record:
        """The record, less the moves."""
        if self.live is not None:
            return dataclasses.replace(self.live.record(), moves=())
        assert self.rec is not None
        return self.rec

    def __deepcopy__(self, memo: dict[int, object]) -> Held:
        return Held(self.record())

    def __reduce__(self) -> tuple[type[Held], tuple[Record]]:
        return Held, (self.record(),)


class UnoState(pyspiel.State):
    """A game in progress: before the deal (a chance node), then the table's decisions."""

    def __init__(self, game: UnoGame) -> None:
        super().__init__(game)
        self.deals = game.deals
        self.held = Held(game.blank)
        self.dealt = False

    @property
    def table(self) -> Table:
        """The state's table (replayed from its record on first use)."""
        return self.held.table(self)

    def current_player(self) -> int:
        if not self.dealt:
            return int(pyspiel.PlayerId.CHANCE)
        if self.table.done:
            return int(pyspiel.PlayerId.TERMINAL)
        return self.table.current

    def _legal_actions(self, player: int) -> list[int]:
        return [int(a) for a in np.flatnonzero(self.table.mask(player))]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        p = 1.0 / self.deals
        return [(d, p) for d in range(self.deals)]

    def _apply_action(self, action: int) -> None:
        if not self.dealt:
            self.table.reset(game=int(action))
            self.dealt = True
        else:
            self.table.step(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}"
        side = SIDES.index(self.table.round.side) if self.dealt else 0  # colours' letters
        return action_name(int(action), self.table.cc.kinds, side)

    def is_terminal(self) -> bool:
        return self.dealt and self.table.done

    def returns(self) -> list[float]:
        return [float(x) for x in self.table.returns]

    def __str__(self) -> str:
        if not self.dealt:
            return "before the deal"
        r = self.table.round
        hands = " | ".join(" ".join(h) or "-" for h in r.hands)
        return (f"round {r.round_index} phase {r.phase} player {self.table.current} top {r.top} "
                f"colour {r.color} direction {r.direction} pending {r.pending} "
                f"draw {len(r.draw_pile)} scores {r.scores} hands {hands}")


class UnoObserver:
    """What one player sees, as OpenSpiel's Python observer (tensor and string)."""

    def __init__(self, game: UnoGame) -> None:
        self.layout = game.probe.layout
        self.tensor = np.zeros(self.layout.size, np.float32)
        self.dict = {name: self.layout.section(self.tensor, name) for name in self.layout.sizes}

    def set_from(self, state: UnoState, player: int) -> None:
        if not state.dealt:
            self.tensor.fill(0.0)
            return
        state.table.observe(player, out=self.tensor)

    def string_from(self, state: UnoState, player: int) -> str:
        if not state.dealt:
            return f"p{player} before the deal"
        r = state.table.round
        sizes = ",".join(str(len(h)) for h in r.hands)
        known = " ".join(" ".join(k) for k in r.known(player) if k) or "-"
        hand, top, faces = _flip_sight(r, player) if r.two_sided else (r.hand(player), r.top, "")
        return (f"p{player} hand {' '.join(hand) or '-'} top {top} colour {r.color} "
                f"direction {r.direction} phase {r.phase} to play {state.table.current} "
                f"sizes {sizes} pending {r.pending} known {known} scores {r.scores}{faces}")


def _flip_sight(r: Round, player: int) -> tuple[list[str], str, str]:
    """UNO Flip: ``player``'s own faces in play, the top card's face in play, and what
    the backs show it (docs/rules.md section 11): the side, each other hand's other
    faces, the draw pile's top back. Sorted by kind: a hand's card order would tell
    the faces it hides."""
    kind, back = r.kinds.kind, 1 - SIDES.index(r.side)

    def sort(cards: list[str]) -> list[str]:
        return sorted(cards, key=kind)

    hand = sort([r.face(c) for c in r.hand(player)])
    backs = " | ".join("-" if q == player else " ".join(sort([c.split("/")[back]
                                                             for c in r.hand(q)])) or "-"
                       for q in range(r.players))
    pile = r.draw_pile
    top_back = pile[0].split("/")[back] if pile else "-"
    return hand, r.face(r.top), f" side {r.side} backs {backs} draw back {top_back}"


pyspiel.register_game(GAME_TYPE, UnoGame)
