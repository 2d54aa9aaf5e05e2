"""Bring your own strategy: Python policies on the same compiled rules.

A plug-in is a class named ``package.module:Class`` or ``path/to/file.py:Class``
(`unosim.rules.plugins`), built with no arguments, one instance per seat. It
implements `Policy`: ``choose(view, legal_actions) -> action`` and, if it
likes, ``color(view)``, ``target(view, candidates)`` and ``challenge(view)``
(docs/plugins.md). Games run through the `Round` façade: the plug-in seats
decide in Python from their `PublicView`, the other seats by their compiled
policy (`Round.policy_action`), and every action goes through the façade's
legality check, so the trace is the engine's own and replays like any other.
A game's aggregates are recorded by the batch loop's own compiled recorders,
so summaries and reports read them unchanged.

>>> from unosim.rules.config import load_config
>>> from unosim.engine.state import compile_config
>>> cc = compile_config(load_config("classic"))
>>> agg = play_games(cc, seed=1, start=0, count=3,
...                  plugins={0: "examples/policies/first_legal.py:FirstLegal"})
>>> int(agg["counts"][1])
3
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from unosim.engine import state as L
from unosim.engine.batch import (
    COUNT_GAMES,
    NGF,
    Aggregates,
    _record_match,
    _record_round,
    empty_aggregates,
    finish_features,
)
from unosim.engine.deal import new_round
from unosim.engine.game import IllegalActionError, Round, action_name, parse_action
from unosim.engine.policies import policy_action
from unosim.engine.rng import seed_game, seed_keys
from unosim.engine.rules import apply_action
from unosim.engine.scoring import next_dealer, score_round, start_match
from unosim.engine.state import CompiledConfig, IntArray, compile_config
from unosim.engine.view import PublicLog, PublicView, public_view
from unosim.rules.cards import COLORS
from unosim.rules.config import GameConfig
from unosim.rules.plugins import is_plugin_name

__all__ = ["Policy", "PluginActionError", "PluginError", "Seat", "compile_with_plugins",
           "decide", "load_policy", "play_game", "play_games", "plugin_seats", "simulate_plugins"]


_DRAIN_EVERY = 16  # compiled steps between trace drains (each writes a few rows of EV_ROWS)


class PluginError(ValueError):
    """A plug-in that cannot be loaded (bad name, missing module, file or class)."""


class PluginActionError(IllegalActionError):
    """A plug-in chose an action that is not legal; one line naming the policy,
    the state (phase, top card, colour, hand) and the action."""


@runtime_checkable
class Policy(Protocol):
    """A player. Only ``choose`` is required.

    ``choose(view, legal_actions)`` gets the legal actions by name (``R7``,
    ``draw``, ``pass``, ``accept``, ``challenge``, ``color G``, ``target 2``)
    and returns one of them (a name or an action id). The optional methods
    take over one kind of decision when a class defines them:
    ``color(view) -> "R"|"Y"|"G"|"B"`` (naming a colour after a wild),
    ``target(view, candidates) -> seat`` (Seven-O swaps, special wilds) and
    ``challenge(view) -> bool`` (facing a WD4 that may be challenged).
    A decision with a single legal action is taken without asking.
    """

    def choose(self, view: PublicView, legal_actions: list[str]) -> str | int: ...


@dataclass
class Seat:
    """A plug-in seat: its name (for errors) and its policy object."""

    name: str
    policy: Any
    log: PublicLog = field(init=False)
    seat: int = -1

    def bind(self, seat: int) -> Seat:
        self.seat = seat
        self.log = PublicLog(seat)
        return self


def _load_class(name: str) -> type:
    if not is_plugin_name(name):
        raise PluginError(f"policy {name!r}: expected module:Class or path/to/file.py:Class")
    target, cls_name = name.rsplit(":", 1)
    if target.endswith(".py"):
        path = Path(target)
        if not path.is_file():
            raise PluginError(f"policy {name!r}: no such file {target}")
        mod_name = "unosim_plugin_" + "".join(c if c.isalnum() else "_" for c in str(path))
        module = sys.modules.get(mod_name)
        if module is None:
            spec = importlib.util.spec_from_file_location(mod_name, path)
            if spec is None or spec.loader is None:
                raise PluginError(f"policy {name!r}: cannot load {target}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[mod_name] = module
            try:
                spec.loader.exec_module(module)
            except Exception as exc:
                del sys.modules[mod_name]
                raise PluginError(f"policy {name!r}: {target} failed to load: "
                                  f"{type(exc).__name__}: {exc}") from exc
    else:
        try:
            module = importlib.import_module(target)
        except ImportError as exc:
            raise PluginError(f"policy {name!r}: cannot import {target}: {exc}") from exc
    cls = getattr(module, cls_name, None)
    if not isinstance(cls, type):
        raise PluginError(f"policy {name!r}: {target} has no class {cls_name}")
    if not callable(getattr(cls, "choose", None)):
        raise PluginError(f"policy {name!r}: {cls_name} has no choose(view, legal_actions)")
    return cls


def load_policy(name: str) -> Seat:
    """Load ``module:Class`` or ``file.py:Class`` and build one instance of it."""
    cls = _load_class(name)
    try:
        obj = cls()
    except Exception as exc:
        raise PluginError(f"policy {name!r}: {cls.__name__}() failed: "
                          f"{type(exc).__name__}: {exc}") from exc
    return Seat(name, obj)


def _seat(spec: str | Seat | Any) -> Seat:
    if isinstance(spec, Seat):
        return spec
    if isinstance(spec, str):
        return load_policy(spec)
    if not callable(getattr(spec, "choose", None)):
        raise PluginError(f"policy {spec!r} has no choose(view, legal_actions)")
    return Seat(type(spec).__name__, spec)


def plugin_seats(seat_policies: list[str]) -> dict[int, str]:
    """The seats whose policy name is a plug-in, by seat."""
    return {i: p for i, p in enumerate(seat_policies) if is_plugin_name(p)}


def compile_with_plugins(cfg: GameConfig) -> tuple[CompiledConfig, dict[int, str]]:
    """The compiled config and the plug-in seats of ``cfg``.

    A plug-in seat is compiled as ``random`` (a row the plug-in never uses: it
    takes no bluffs and forgets UNO at the config's rate like any seat)."""
    plugins = plugin_seats(cfg.seat_policies)
    if not plugins:
        return compile_config(cfg), {}
    seats: list[Any] = ["random" if i in plugins else p for i, p in enumerate(cfg.seat_policies)]
    if cfg.seats is not None:
        seats = [s if i not in plugins else "random" for i, s in enumerate(cfg.seats)]
    policy = "random" if is_plugin_name(cfg.policy) else cfg.policy
    return compile_config(cfg.model_copy(update={"seats": seats, "policy": policy})), plugins


def _bind(cc: CompiledConfig, plugins: Mapping[int, str | Seat | Any]) -> dict[int, Seat]:
    n = int(cc.ci[L.C_PLAYERS])
    out: dict[int, Seat] = {}
    for seat, spec in plugins.items():
        if not 0 <= seat < n:
            raise PluginError(f"seat {seat} is not a seat of this {n}-player game")
        out[seat] = _seat(spec).bind(seat)
    return out


# --- deciding ------------------------------------------------------------------------------
def _refuse(seat: Seat, r: Round, chosen: object, why: str = "not legal") -> PluginActionError:
    hand = " ".join(r.hand(seat.seat)) or "-"
    return PluginActionError(
        f"policy {seat.name} (seat {seat.seat}) chose {chosen!r}, {why}, in phase {r.phase}: "
        f"top {r.top}, colour {r.color}, hand {hand} "
        f"(legal: {', '.join(r.legal_action_names())})")


def _ask(seat: Seat, r: Round, names: list[str]) -> str | int:
    """The plug-in's answer for this decision, mapped onto an action."""
    pol, view = seat.policy, public_view(r, seat.log)
    phase = r.phase
    if phase == "color" and callable(getattr(pol, "color", None)):
        c = pol.color(view)
        return c if isinstance(c, str) and c.lower().startswith("color") else f"color {c}"
    if phase == "target" and callable(getattr(pol, "target", None)):
        t = pol.target(view, [int(a.split()[1]) for a in names])
        return t if isinstance(t, str) else f"target {t}"
    if phase == "pending" and "challenge" in names and callable(getattr(pol, "challenge", None)):
        if pol.challenge(view):
            return "challenge"
        names = [a for a in names if a != "challenge"]
        if len(names) == 1:
            return names[0]
    return pol.choose(view, list(names))


def decide(seat: Seat, r: Round) -> int:
    """The legal action id ``seat``'s plug-in picks now; `PluginActionError` otherwise."""
    legal = r.legal_actions()
    if len(legal) == 1:
        return legal[0]
    names = [action_name(a) for a in legal]
    chosen = _ask(seat, r, names)
    if isinstance(chosen, str) and chosen.strip().lower().startswith("color "):
        word = chosen.split()[1].upper()
        if word not in COLORS:
            raise _refuse(seat, r, chosen, "not a colour")
    try:
        a = parse_action(chosen) if isinstance(chosen, (str, int, np.integer)) else None
    except IllegalActionError:
        a = None
    if a is None or isinstance(chosen, bool):
        raise _refuse(seat, r, chosen, "not an action")
    if a not in legal:
        raise _refuse(seat, r, chosen)
    return a


def _sync(r: Round, seats: dict[int, Seat]) -> None:
    """Feed each plug-in seat's log the events it has not seen (one masked event each)."""
    events = r._events
    for s in seats.values():
        if len(s.log.events) < len(events):
            s.log.feed(events[len(s.log.events):])


def _play_round(r: Round, seats: dict[int, Seat]) -> None:
    """Play the current round to its end: plug-in seats in Python, others compiled.

    The compiled seats' steps call the rules directly (the same legality check as
    `Round.apply`) and the trace rows are rendered in batches, before each plug-in
    decision and at the end, well within the trace buffer."""
    S, C = r.S, r.C
    s = S.s
    since = 0
    while s[L.S_PHASE] != L.PH_DONE:
        seat = seats.get(int(s[L.S_CUR]))
        if seat is None:
            a = int(policy_action(S, C))
            if not apply_action(S, C, a):  # a bug in a compiled policy, not the user's
                raise RuntimeError(f"compiled policy chose illegal {action_name(a)}")
            since += 1
            if since >= _DRAIN_EVERY:
                r._drain()
                since = 0
            continue
        r._drain()
        since = 0
        _sync(r, seats)
        apply_action(S, C, decide(seat, r))  # legal: `decide` checked it
    r._drain()
    _sync(r, seats)


# --- games -------------------------------------------------------------------------------------
class _Recorder:
    """The batch loop's compiled recorders, fed one finished round or match at a time."""

    def __init__(self, cc: CompiledConfig, agg: dict[str, IntArray],
                 features: IntArray | None = None, start: int = 0) -> None:
        self.agg = Aggregates(**agg)
        self.rec = np.zeros((1, 1), np.int64)
        self.features = features if features is not None else np.zeros((1, NGF), np.int64)
        self.want = features is not None
        self.start = start
        self.match_mode = int(cc.ci[L.C_MODE]) == 1

    def _row(self, g: int) -> IntArray:
        return self.features[g - self.start] if self.want else self.features[0]

    def round(self, r: Round, g: int, rnd: int) -> None:
        row = self._row(g)
        _record_round(r.S, r.C, g, rnd, self.agg, self.rec, 0, False, row, self.want)
        if self.want and not self.match_mode:
            finish_features(r.S, row, False, 0, 0)

    def match(self, r: Round, g: int, rounds: int, nw: int) -> None:
        margin = _record_match(r.S, r.C, rounds, nw, self.agg)
        if self.want:
            finish_features(r.S, self._row(g), True, nw, margin)


def _game(cc: CompiledConfig, keys: tuple[int, int], game: int, seats: dict[int, Seat],
          rec: _Recorder | None, sink: list[dict] | None = None) -> list[dict]:
    """Game ``game`` exactly as `unosim.engine.game.play_game` plays it, plug-ins deciding
    for their seats; its events (each seat's log restarts with the game). ``sink``
    receives the events as they are rendered (what an interrupted game had played)."""
    for s in seats.values():
        s.log = PublicLog(s.seat)
    r = Round._blank(cc)
    if sink is not None:
        r._events = sink
    seed_game(r.S.rng, np.uint64(keys[0]), np.uint64(keys[1]), game)
    if rec is not None:
        rec.agg.counts[COUNT_GAMES] += 1
    if int(cc.ci[L.C_MODE]) == 0:
        new_round(r.S, r.C, game % r.players)
        r._drain()
        _play_round(r, seats)
        if rec is not None:
            rec.round(r, game, 0)
        return r.events()
    start_match(r.S, r.C)
    dealer = 0
    while True:
        new_round(r.S, r.C, dealer)
        r._drain()
        _play_round(r, seats)
        if rec is not None:
            rec.round(r, game, r.round_index)
        over, nw = score_round(r.S, r.C)
        r._drain()
        if over:
            if rec is not None:
                rec.match(r, game, r.round_index + 1, int(nw))
            return r.events()
        r.round_index += 1
        dealer = int(next_dealer(r.S, r.C))


def play_game(cc: CompiledConfig, seed: int, game: int = 0,
              plugins: Mapping[int, str | Seat | Any] | None = None,
              sink: list[dict] | None = None) -> list[dict]:
    """Trace events of game ``game`` of ``seed`` with plug-ins at some seats
    (``{seat: "module:Class" | policy object}``); without plug-ins it is exactly
    `unosim.engine.game.play_game`. ``sink``, if given, is filled as the game goes."""
    return _game(cc, seed_keys(seed), game, _bind(cc, plugins or {}), None, sink)


def play_games(cc: CompiledConfig, seed: int, start: int = 0, count: int = 1,
               plugins: Mapping[int, str | Seat | Any] | None = None,
               features: IntArray | None = None) -> dict[str, IntArray]:
    """Aggregates (`unosim.engine.batch.empty_aggregates`) of games ``start ..
    start+count-1``, plug-ins deciding at their seats (and each game's ``GF_*``
    row in ``features``, as `unosim.engine.batch.simulate` gives them). Without
    plug-ins the totals equal `unosim.engine.batch.simulate`'s."""
    seats = _bind(cc, plugins or {})
    agg = empty_aggregates(cc)
    if features is not None:
        features[:] = 0
    rec = _Recorder(cc, agg, features, start)
    keys = seed_keys(seed)
    for g in range(start, start + count):
        _game(cc, keys, g, seats, rec)
    return agg


def simulate_plugins(cc: CompiledConfig, seed: int, start: int, count: int,
                     plugins: Mapping[int, str | Seat | Any],
                     features: IntArray | None = None) -> tuple[dict[str, IntArray], None]:
    """`play_games` shaped like `unosim.engine.batch.simulate` (no records)."""
    return play_games(cc, seed, start, count, plugins, features), None
