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
>>> from unosim.engine.kernel.state import compile_config
>>> cc = compile_config(load_config("classic"))
>>> agg = play_games(cc, seed=1, start=0, count=3,
...                  plugins={0: "examples/policies/first_legal.py:FirstLegal"})
>>> int(agg["counts"][1])
3
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import os
import sys
import threading
import types
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from unosim.engine.game import IllegalActionError, Round, drive_game
from unosim.engine.kernel import state as L
from unosim.engine.kernel.batch import Tally, empty_aggregates
from unosim.engine.kernel.rng import seed_keys
from unosim.engine.kernel.state import CompiledConfig, IntArray, compile_config
from unosim.engine.trace import SIDE_COLORS
from unosim.engine.view import PublicLog, PublicView, public_view
from unosim.rules.config import GameConfig
from unosim.rules.plugins import (
    PluginSourceError,
    file_digest,
    is_plugin_name,
    plugin_digests,
    read_source,
    split_name,
)

__all__ = ["Pinned", "Policy", "PluginActionError", "PluginError", "Seat", "compile_with_plugins",
           "decide", "load_policy", "play_game", "play_games", "plugin_seats", "simulate_plugins"]


_SHOWN = 200  # characters of a plug-in's answer, or of its exception's message, in an error
_LONGEST_ACTION = 64  # characters: no action name is longer ("challenge", "target 39")


class PluginError(ValueError):
    """A plug-in that cannot be loaded (bad name, missing module, file or class), or
    whose code failed (raised, called ``sys.exit``): one line naming seat and policy."""


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
    ``color(view) -> "R"|"Y"|"G"|"B"`` (naming a colour after a wild; on UNO Flip's
    dark side ``"P"|"T"|"O"|"U"``, either side's letter naming the same colour),
    ``target(view, candidates) -> seat`` (Seven-O swaps, special wilds) and
    ``challenge(view) -> bool`` (facing a WD4 that may be challenged).
    A decision with a single legal action is taken without asking.
    """

    def choose(self, view: PublicView, legal_actions: list[str]) -> str | int: ...


def _clip(text: str, limit: int = _SHOWN) -> str:
    """``text`` as one printable line of at most ``limit`` characters.

    Whatever a plug-in says (a 10 MB message, control characters, newlines)
    is quoted in a one-line error, so it is cut and escaped first.

    >>> _clip("two\\nlines\\x1b[31m"), _clip("x" * 500)[-6:]
    ('two lines\\\\x1b[31m', 'xxx...')
    """
    head = " ".join(text[:limit * 4].split())
    head = "".join(c if c.isprintable() else repr(c)[1:-1] for c in head)
    return head if len(head) <= limit and len(text) <= limit * 4 else head[:limit - 3] + "..."


def _who(name: str, seat: int) -> str:
    """How an error names a plug-in: ``seat 2 (policy x.py:P)``."""
    return f"seat {seat} (policy {_clip(name)})" if seat >= 0 else f"policy {_clip(name)}"


@dataclass
class Seat:
    """A plug-in seat: its name (for errors) and its policy object.

    ``guarded``: the policy is user code the engine loaded by name, so what it
    prints goes to stderr and anything it raises becomes a `PluginError`. An
    object handed in directly (the human seat of ``unosim play``) is the
    caller's own code: its exceptions reach the caller unchanged.
    """

    name: str
    policy: Any
    guarded: bool = False
    log: PublicLog = field(init=False)
    seat: int = -1

    def bind(self, seat: int) -> Seat:
        self.seat = seat
        self.log = PublicLog(seat)
        return self

    @property
    def who(self) -> str:
        return _who(self.name, self.seat)


# --- running plug-in code -------------------------------------------------------------------
class _InPlugin(threading.local):
    depth = 0  # plug-in calls this thread is inside


_IN_PLUGIN = _InPlugin()


class _Stdout:
    """``sys.stdout`` while plug-in code runs: a thread inside plug-in code writes to
    stderr, every other thread to the stream this one stands in for."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def _target(self) -> Any:
        return sys.stderr if _IN_PLUGIN.depth else self.stream

    def write(self, text: str) -> int:
        return int(self._target().write(text))

    def flush(self) -> None:
        self._target().flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._target(), name)


class _Redirect:
    """Where stdout went while any thread runs plug-in code (counted across threads)."""

    lock = threading.Lock()
    users = 0
    router: _Stdout | None = None
    saved_fd = -1  # a duplicate of the real fd 1


def _redirect() -> None:
    """Point stdout at stderr, for print() (``sys.stdout``) and for the fd underneath."""
    stream = sys.stdout
    with contextlib.suppress(Exception):  # what was written before goes where it was meant to
        stream.flush()
    with contextlib.suppress(OSError):  # fd 1 or 2 closed: nothing to protect at that level
        fd = os.dup(1)
        try:
            os.dup2(2, 1)  # os.write(1, ...), child processes, C code
        except OSError:
            os.close(fd)
            raise
        _Redirect.saved_fd = fd
    if stream is not None:
        _Redirect.router = _Stdout(stream)
        sys.stdout = _Redirect.router


def _restore() -> None:
    router, fd = _Redirect.router, _Redirect.saved_fd
    _Redirect.router, _Redirect.saved_fd = None, -1
    if router is not None:
        with contextlib.suppress(Exception):  # a plug-in's writes to the real stream, if any
            router.stream.flush()
        sys.stdout = router.stream  # also if a plug-in replaced sys.stdout
    if fd >= 0:
        os.dup2(fd, 1)
        os.close(fd)


@contextlib.contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    """While plug-in code runs, what it prints goes to stderr.

    The CLI's stdout is machine-readable (``--format json``, JSONL traces), so
    only the CLI may write there. The first thread to enter redirects, the last
    to leave restores; a thread outside plug-in code still writes to stdout.
    """
    with _Redirect.lock:
        if _Redirect.users == 0:
            _redirect()
        _Redirect.users += 1
    _IN_PLUGIN.depth += 1
    try:
        yield
    finally:
        _IN_PLUGIN.depth -= 1
        with _Redirect.lock:
            _Redirect.users -= 1
            if _Redirect.users == 0:
                _restore()


def _describe(exc: BaseException) -> str:
    """``Type: message`` of what plug-in code raised (its ``str`` is plug-in code too)."""
    try:
        text = str(exc)
    except Exception:
        text = "(its message cannot be shown)"
    name = type(exc).__name__
    return _clip(f"{name}: {text}" if text else name)


@contextlib.contextmanager
def _plugin_code(who: str) -> Iterator[None]:
    """Run plug-in code: it prints to stderr, and whatever it raises (``sys.exit``,
    ``RecursionError``, an ``OSError`` about its own files) becomes one `PluginError`
    line naming ``who``, never a traceback or an exit code of its choosing.
    Ctrl-C still stops the command."""
    with _stdout_to_stderr():
        try:
            yield
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            raise PluginError(f"{who}: {_describe(exc)}") from exc


# --- loading ------------------------------------------------------------------------------------
_LOAD_LOCK = threading.RLock()  # re-entrant: a plug-in's module may load another plug-in
_FILES: dict[str, tuple[str, types.ModuleType]] = {}  # resolved path -> (source digest, module)
_MODULE_DIGESTS: dict[str, str] = {}  # module name -> digest of its file when last loaded


def _module_name(path: Path) -> str:
    """The module name of a plug-in file: readable (its stem) and its own (a hash of
    its resolved path), so ``cx/y.py`` and ``cx_y.py`` never share one.

    >>> _module_name(Path("/a/cx/y.py")) != _module_name(Path("/a/cx_y.py"))
    True
    """
    stem = "".join(c if c.isascii() and c.isalnum() else "_" for c in path.stem)[:40]
    return f"unosim_plugin_{stem}_{hashlib.sha256(os.fsencode(path)).hexdigest()[:16]}"


def _load_file(who: str, target: str) -> tuple[types.ModuleType, str]:
    """The module of plug-in file ``target``, executed once per version of its source.

    The source is read once and the bytes read are the bytes run and hashed.
    Loading holds a lock, and the module is published (to this loader's cache,
    where every seat looks) only once fully executed, so another thread never
    sees a half-loaded module; an edited file loads afresh. Returns the module
    and its source's digest.
    """
    try:
        source = read_source(target)
        path = Path(target).resolve()
    except (PluginSourceError, OSError, RuntimeError) as exc:
        raise PluginError(f"{who}: cannot read {_clip(target)}: {exc}") from None
    digest = hashlib.sha256(source).hexdigest()
    key = os.fsdecode(path)
    with _LOAD_LOCK:
        cached = _FILES.get(key)
        if cached is not None and cached[0] == digest:
            return cached[1], digest
        name = _module_name(path)
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None:
            raise PluginError(f"{who}: cannot load {_clip(target)}")
        module = importlib.util.module_from_spec(spec)
        before = sys.modules.get(name)
        # in sys.modules while it runs, as `import` does: dataclasses and pickle look there
        sys.modules[name] = module
        try:
            with _plugin_code(f"{who}: {_clip(target)} failed to load"):
                exec(compile(source, key, "exec", dont_inherit=True), module.__dict__)
        except BaseException:
            if before is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = before
            raise
        _FILES[key] = (digest, module)
        return module, digest


def _load_module(who: str, target: str) -> tuple[types.ModuleType, str]:
    """Module ``target``, imported (and re-imported once its file changed), and the
    digest of its file."""
    with _LOAD_LOCK, _plugin_code(f"{who}: cannot import {target}"):
        module = importlib.import_module(target)
        file = getattr(module, "__file__", None)
        digest = file_digest(file if isinstance(file, str) else None)
        if _MODULE_DIGESTS.get(target, digest) != digest:  # edited since: the new code plays
            module = importlib.reload(module)
        _MODULE_DIGESTS[target] = digest
        return module, digest


def _load_class(name: str, seat: int = -1) -> type:
    who = _who(name, seat)
    if not is_plugin_name(name):
        raise PluginError(f"{who}: expected module:Class or path/to/file.py:Class")
    target, cls_name, is_file = split_name(name)
    module, digest = _load_file(who, target) if is_file else _load_module(who, target)
    pinned = getattr(name, "digest", None)
    if pinned is not None and pinned != digest:
        raise PluginError(f"{who}: {_clip(target)} changed since the run started (its "
                          "results would mix two versions); start the run again")
    with _plugin_code(who):  # a module's __getattr__, a metaclass: plug-in code
        cls = getattr(module, cls_name, None)
        is_class = isinstance(cls, type)
        has_choose = is_class and callable(getattr(cls, "choose", None))
    if not is_class:
        raise PluginError(f"{who}: {_clip(target)} has no class {cls_name}")
    if not has_choose:
        raise PluginError(f"{who}: {cls_name} has no choose(view, legal_actions)")
    assert isinstance(cls, type)
    return cls


def load_policy(name: str, seat: int = -1) -> Seat:
    """Load ``module:Class`` or ``file.py:Class`` and build one instance of it
    (for ``seat``, which errors name)."""
    cls = _load_class(name, seat)
    with _plugin_code(f"{_who(name, seat)}: {cls.__name__}() failed"):
        obj = cls()
    return Seat(name, obj, guarded=True)


def _seat(spec: str | Seat | Any, seat: int) -> Seat:
    if isinstance(spec, Seat):
        return spec
    if isinstance(spec, str):
        return load_policy(spec, seat)
    if not callable(getattr(spec, "choose", None)):
        raise PluginError(f"{_who(type(spec).__name__, seat)} has no choose(view, legal_actions)")
    return Seat(type(spec).__name__, spec)


class Pinned(str):
    """A plug-in name that carries the digest of the source its run started with.

    A run hashes each plug-in's source into its identity when it starts; its
    chunks load the plug-in later, maybe in other processes. A seat named by a
    `Pinned` name refuses a source that changed in between, so one run never
    mixes two versions. It pickles to workers as itself.

    >>> p = Pinned("x.py:P", "abc")
    >>> p == "x.py:P", p.digest
    (True, 'abc')
    """

    digest: str

    def __new__(cls, name: str, digest: str) -> Pinned:
        obj = super().__new__(cls, name)
        obj.digest = digest
        return obj

    def __reduce__(self) -> tuple[Any, ...]:
        return (Pinned, (str(self), self.digest))


def plugin_seats(seat_policies: list[str]) -> dict[int, str]:
    """The seats whose policy name is a plug-in, by seat, each `Pinned` to its source now."""
    digests = plugin_digests(seat_policies)
    return {i: Pinned(p, digests[p]) for i, p in enumerate(seat_policies) if p in digests}


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
        out[seat] = _seat(spec, seat).bind(seat)
    return out


# --- deciding ------------------------------------------------------------------------------
def _show(x: object) -> str:
    """A plug-in's answer quoted in an error, short, on one line, without running its code."""
    if x is None or isinstance(x, (bool, np.integer)):
        return repr(x)
    if isinstance(x, int):
        n = int.__index__(x)
        return str(n) if n.bit_length() <= 64 else f"a {n.bit_length()}-bit integer"
    if isinstance(x, float):
        return float.__repr__(x)
    if isinstance(x, str):
        s = str.__str__(x)
        more = f" ({len(s):,} characters)" if len(s) > _SHOWN else ""
        return _clip(repr(s[:_SHOWN])) + more
    return f"an object of type {_clip(type.__getattribute__(type(x), '__name__'))}"


def _refuse(seat: Seat, r: Round, chosen: object, why: str = "not legal") -> PluginActionError:
    hand = " ".join(r.face(c) for c in r.hand(seat.seat)) or "-"  # (Flip: faces in play)
    return PluginActionError(
        f"{seat.who} chose {_show(chosen)}, {why}, in phase {r.phase}: "
        f"top {r.face(r.top)}, colour {r.color}, hand {hand} "
        f"(legal: {', '.join(r.legal_action_names())})")


def _answer(seat: Seat, view: PublicView, phase: str, names: list[str]) -> tuple[str, object]:
    """Which method answered this decision, and its answer (plug-in code, all of it)."""
    pol = seat.policy
    if phase == "color" and callable(getattr(pol, "color", None)):
        return "color", pol.color(view)
    if phase == "target" and callable(getattr(pol, "target", None)):
        return "target", pol.target(view, [int(a.split()[1]) for a in names])
    if phase == "pending" and "challenge" in names and callable(getattr(pol, "challenge", None)):
        if bool(pol.challenge(view)):
            return "choose", "challenge"
        names = [a for a in names if a != "challenge"]
        if len(names) == 1:
            return "choose", names[0]
    return "choose", pol.choose(view, list(names))


def _action(method: str, chosen: object, r: Round) -> tuple[int | None, str]:
    """The action an answer names, or None and why not; runs none of the answer's code
    (a ``str`` or ``int`` subclass is read as the plain value)."""
    if isinstance(chosen, bool):
        return None, "not an action"
    if isinstance(chosen, np.integer):
        chosen = int(chosen)
    if isinstance(chosen, int):
        n = int.__index__(chosen)
        if method == "color":
            return None, "not a colour"
        if method == "choose":
            return n, ""
        if n.bit_length() > 64:  # (no seat; and str() of a huge int raises)
            return None, "not a seat"
        chosen = f"target {n}"
    if not isinstance(chosen, str):
        return None, "not an action"
    text = str.__str__(chosen)
    if len(text) > _LONGEST_ACTION:
        return None, "not an action"
    if method == "color" and not text.strip().lower().startswith("color"):
        text = f"color {text}"
    words = text.split()
    if words and words[0].lower() == "color" and (len(words) != 2
                                                 or words[1].upper() not in SIDE_COLORS):
        return None, "not a colour"
    try:
        return r.parse_action(text), ""
    except IllegalActionError:
        return None, "not an action"


def decide(seat: Seat, r: Round) -> int:
    """The legal action id ``seat``'s plug-in picks now; `PluginActionError` otherwise
    (`PluginError` when its code fails)."""
    legal = r.legal_actions()
    if len(legal) == 1:
        return legal[0]
    names = [r.action_name(a) for a in legal]
    view, phase = public_view(r, seat.log), r.phase
    if seat.guarded:
        with _plugin_code(seat.who):
            method, chosen = _answer(seat, view, phase, names)
    else:
        method, chosen = _answer(seat, view, phase, names)
    a, why = _action(method, chosen, r)
    if a is None:
        raise _refuse(seat, r, chosen, why)
    if a not in legal:
        raise _refuse(seat, r, chosen)
    return a


def _sync(r: Round, seats: dict[int, Seat]) -> None:
    """Feed each plug-in seat's log the events it has not seen (one masked event each)."""
    n = r.event_count
    for s in seats.values():
        if len(s.log.events) < n:
            s.log.feed(r.events(len(s.log.events)))


def _round_player(seats: dict[int, Seat]) -> Callable[[Round], None]:
    """How a round is played with plug-ins: `Round.play_out`, the plug-in seats deciding
    in Python (each seeing the events so far first), the others compiled."""
    def ask(seat: Seat) -> Callable[[Round], int]:
        def decider(r: Round) -> int:
            _sync(r, seats)
            return decide(seat, r)
        return decider

    deciders = {q: ask(seat) for q, seat in seats.items()}

    def play_round(r: Round) -> None:
        r.play_out(deciders)
        _sync(r, seats)
    return play_round


# --- games -------------------------------------------------------------------------------------
def _game(cc: CompiledConfig, keys: tuple[int, int], game: int, seats: dict[int, Seat],
          tally: Tally | None, sink: list[dict] | None = None) -> list[dict]:
    """Game ``game`` exactly as `unosim.engine.game.play_game` plays it, plug-ins deciding
    for their seats; its events (each seat's log restarts with the game). ``sink``
    receives the events as they are rendered (what an interrupted game had played)."""
    for s in seats.values():
        s.log = PublicLog(s.seat)
    return drive_game(cc, keys, game, _round_player(seats), tally, sink).events()


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
    """Aggregates (`unosim.engine.kernel.batch.empty_aggregates`) of games ``start ..
    start+count-1``, plug-ins deciding at their seats (and each game's ``GF_*``
    row in ``features``, as `unosim.engine.kernel.batch.simulate` gives them). Without
    plug-ins the totals equal `unosim.engine.kernel.batch.simulate`'s."""
    seats = _bind(cc, plugins or {})
    agg = empty_aggregates(cc)
    if features is not None:
        features[:] = 0
    tally = Tally(cc, agg, features, start)
    keys = seed_keys(seed)
    for g in range(start, start + count):
        _game(cc, keys, g, seats, tally)
    return agg


def simulate_plugins(cc: CompiledConfig, seed: int, start: int, count: int,
                     plugins: Mapping[int, str | Seat | Any],
                     features: IntArray | None = None) -> tuple[dict[str, IntArray], None]:
    """`play_games` shaped like `unosim.engine.kernel.batch.simulate` (no records)."""
    return play_games(cc, seed, start, count, plugins, features), None
