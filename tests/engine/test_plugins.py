"""Plug-in policies (docs/plugins.md): loading, the public view, illegal actions,
aggregates equal to the compiled batch, and traces that replay on every config."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from replay_checker import check_trace

from unosim.engine.game import play_game as compiled_game
from unosim.engine.kernel.batch import simulate
from unosim.engine.kernel.state import compile_config
from unosim.engine.plugins import (
    PluginActionError,
    PluginError,
    compile_with_plugins,
    load_policy,
    play_game,
    play_games,
    plugin_seats,
)
from unosim.engine.replay import replay
from unosim.engine.view import HIDDEN, PublicView
from unosim.rules.config import load_config
from unosim.rules.plugins import is_plugin_name

ROOT = Path(__file__).resolve().parents[2]
FIRST = str(ROOT / "examples/policies/first_legal.py") + ":FirstLegal"
KEEPER = str(ROOT / "examples/policies/colour_keeper.py") + ":ColourKeeper"
CONFIGS = sorted(p.stem for p in (ROOT / "unosim/rules/configs").glob("*.yaml"))
# docs/rules.md section 11's effects and settings (value stacking, the mercy rule, ...): these
# games are also followed by the engine's own replay
ENGINE_REPLAY_TOO = {"no_mercy", "flip"}


def _cc(name: str = "classic", over: list[str] | None = None):
    return compile_config(load_config(name, over or []))


@pytest.mark.parametrize("text,ok", [
    ("pkg.mod:Cls", True), ("mod:Cls", True), ("examples/policies/first_legal.py:FirstLegal", True),
    ("/abs/path/p.py:P", True), ("random", False), ("strategic", False), ("mod:", False),
    (":Cls", False), ("mod:Cls:X", False), ("a b.py:C", False), ("mod.py", False), (3, False),
])
def test_plugin_names(text: object, ok: bool) -> None:
    assert is_plugin_name(text) is ok


@pytest.mark.parametrize("name,words", [
    ("random", ["expected module:Class"]),
    ("no/such/file.py:P", ["no such file"]),
    ("no_such_module_xyz:P", ["cannot import no_such_module_xyz"]),
    ("examples/policies/first_legal.py:Nope", ["has no class Nope"]),
    ("json:JSONDecoder", ["has no choose"]),
])
def test_load_errors_are_one_line(name: str, words: list[str]) -> None:
    if name.startswith("examples"):
        name = str(ROOT / name)
    with pytest.raises(PluginError) as e:
        load_policy(name)
    msg = str(e.value)
    assert "\n" not in msg and "policy" in msg
    for w in words:
        assert w in msg


def test_module_name_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my_players.py").write_text(
        "class Last:\n    def choose(self, view, legal):\n        return legal[-1]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    seat = load_policy("my_players:Last")
    assert seat.name == "my_players:Last" and seat.policy.choose(None, ["a", "b"]) == "b"
    agg = play_games(_cc(), seed=2, count=3, plugins={1: "my_players:Last"})
    assert int(agg["counts"][1]) == 3


@pytest.mark.slow  # up to 19 s a case: games in Python
@pytest.mark.parametrize("name,over", [("classic", []), ("chaos", []),
                                       ("classic", ["mode=match", "target=200"])])
def test_no_plugins_equals_the_compiled_batch(name: str, over: list[str]) -> None:
    cc = _cc(name, over)
    ours = play_games(cc, seed=4, start=3, count=12)
    theirs, _ = simulate(cc, 4, 3, 12)
    for k in theirs:
        assert np.array_equal(ours[k], theirs[k]), k
    assert play_game(cc, 4, 7) == compiled_game(cc, 4, 7)


@pytest.mark.parametrize("config", CONFIGS)
def test_plugin_games_replay_on_every_config(config: str) -> None:
    cc = _cc(config)
    n = int(cc.ci[0])
    plugins = {0: FIRST, n - 1: KEEPER}
    names = ["plugin" if q in plugins else pol for q, pol in enumerate(cc.seat_policies)]
    for seed in range(4):
        events = play_game(cc, seed, plugins=plugins)
        if config in ENGINE_REPLAY_TOO:
            tables, complete = replay(events)
            assert complete and len(tables) == len(events), (config, seed)
        res = check_trace(events, policies=names)
        assert not res.violations, (config, seed, res.violations[:3])
    agg = play_games(cc, seed=9, count=6, plugins=plugins)
    assert int(agg["counts"][0]) == 6 and int(agg["counts"][1]) >= 6


def test_house_rules_replay_with_plugins() -> None:
    over = ["house_rules.stacking.draw_two_on_draw_two=true", "house_rules.stacking.wd4_on_wd4=true",
            "house_rules.jump_in=true", "house_rules.seven_o=true", "players=5"]
    cc = _cc("classic", over)
    for seed in range(10):
        events = play_game(cc, seed, plugins={0: FIRST, 2: KEEPER, 4: KEEPER})
        assert not check_trace(events).violations


class Recorder:
    """Takes the first legal action; keeps every view and decision it saw."""

    def __init__(self) -> None:
        self.seen: list[tuple[PublicView, list[str]]] = []
        self.colors = self.targets = self.challenges = 0

    def choose(self, view: PublicView, legal: list[str]) -> str:
        self.seen.append((view, legal))
        return legal[0]


class Chooser(Recorder):
    def color(self, view: PublicView) -> str:
        self.colors += 1
        return "G"

    def target(self, view: PublicView, candidates: list[int]) -> int:
        self.targets += 1
        assert view.seat not in candidates
        return candidates[-1]

    def challenge(self, view: PublicView) -> bool:
        self.challenges += 1
        return True


def test_view_shows_only_what_the_seat_may_know() -> None:
    cc = _cc("classic", ["players=3"])
    rec = Recorder()
    events = play_game(cc, 5, plugins={1: rec})
    assert rec.seen
    for view, legal in rec.seen:
        assert view.seat == 1 and len(legal) > 1
        assert sum(view.hand_sizes) + view.draw_size + len(view.discard) == int(cc.deck_counts.sum())
        assert len(view.hand) == view.hand_sizes[1]
        for e in view.events:
            if e["e"] == "deal":
                assert all(c == HIDDEN for q, h in enumerate(e["hands"]) if q != 1 for c in h)
                assert set(e["draw"]) <= {HIDDEN}
            if e["e"] == "draw" and e["p"] != 1 or e["e"] in ("reshuffle", "return"):
                assert set(e.get("cards", e.get("draw", []))) <= {HIDDEN}
        if view.phase == "drawn":
            assert view.drawn in legal
    # the view's draws and passes agree with the full trace
    last = rec.seen[-1][0]
    drawn = [0, 0, 0]
    for e in events[: len(last.events)]:
        if e["e"] == "draw":
            drawn[e["p"]] += len(e["cards"])
    assert list(last.draws) == drawn


def test_optional_methods_take_their_decisions() -> None:
    cc = _cc("classic", ["house_rules.seven_o=true", "players=3"])
    pol = Chooser()
    for seed in range(12):
        play_game(cc, seed, plugins={0: pol})
    assert pol.colors and pol.targets and pol.challenges
    for _view, legal in pol.seen:
        assert not any(a.startswith(("color", "target")) for a in legal)
        assert "challenge" not in legal


class Cheater:
    def __init__(self, answer: object) -> None:
        self.answer = answer

    def choose(self, view: PublicView, legal: list[str]) -> object:
        return self.answer


@pytest.mark.parametrize("answer,word", [("R0", "not legal"), ("nonsense", "not an action"),
                                         (True, "not an action"), (None, "not an action"),
                                         ("color Q", "not a colour")])
def test_illegal_action_is_one_line_naming_policy_state_and_action(answer: object,
                                                                   word: str) -> None:
    cc = _cc("classic")
    with pytest.raises(PluginActionError) as e:
        for seed in range(30):  # some deal where R0 is not legal at the first decision
            play_game(cc, seed, plugins={2: Cheater(answer)})
    msg = str(e.value)
    assert "\n" not in msg and word in msg
    for part in ("seat 2 (policy Cheater)", repr(answer), "in phase", "top ", "colour ",
                 "hand ", "legal: "):
        assert part in msg, (part, msg)


def test_bad_seat_is_refused() -> None:
    with pytest.raises(PluginError, match="seat 4"):
        play_games(_cc(), 1, plugins={4: FIRST})


def test_config_plugin_seats_compile_as_random() -> None:
    cfg = load_config("classic")
    cfg = cfg.model_copy(update={"seats": [FIRST, "strategic", "random", KEEPER]})
    assert plugin_seats(cfg.seat_policies) == {0: FIRST, 3: KEEPER}
    cc, plugins = compile_with_plugins(cfg)
    assert plugins == {0: FIRST, 3: KEEPER}
    assert cc.seat_policies == ["random", "strategic", "random", "random"]
    assert not check_trace(play_game(cc, 3, plugins=plugins)).violations


# --- the example players ---------------------------------------------------------------
def _view(**kw: object) -> PublicView:
    base: dict = dict(seat=0, phase="turn", players=2, hand=("R1", "G5", "G7", "W"), top="G2",
                      color="G", direction=1, hand_sizes=(4, 3), active=(0, 1), pending=0,
                      discard=("G2",), draw_size=50, drawn=None, draws=(0, 0), passes=(0, 0),
                      last_draw_color=(None, None), scores=(0, 0), known=((), ()), round_index=0,
                      events=())
    return PublicView(**{**base, **kw})


class DarkNamer(Chooser):
    """Names purple with the dark side's letter, on either side."""

    def color(self, view: PublicView) -> str:
        self.colors += 1
        return "U"


def test_plugins_play_uno_flip_on_the_faces_in_play() -> None:
    """Under UNO Flip a plug-in's view and legal actions are faces in play, its colour
    the side's letter, and it sees the backs of the other hands (docs/plugins.md)."""
    cc = _cc("flip")
    rec, dark = Chooser(), DarkNamer()
    for seed in range(3):
        play_game(cc, seed, plugins={0: rec, 1: KEEPER, 2: FIRST, 3: dark})
    sides = set()
    for view, legal in rec.seen:
        kinds = view.kinds
        sides.add(view.side)
        assert view.color in ("RYGB" if view.side == "light" else "PTOU")
        faces = (*view.hand, view.top, *view.discard)
        assert all(kinds.side[kinds.kind(c)] == (view.side == "dark") for c in faces)
        assert {a for a in legal if a in kinds.tokens} <= set(view.hand)
        assert view.other_faces[0] == ()
        assert [len(f) for f in view.other_faces[1:]] == list(view.hand_sizes[1:])
        assert all(kinds.side[kinds.kind(c)] != (view.side == "dark")
                   for f in view.other_faces for c in f)
        assert sum(view.hand_sizes) + view.draw_size + len(view.discard) == 112
    assert sides == {"light", "dark"}
    assert rec.colors > 0 and dark.colors > 0


def test_example_plugins_run_a_flip_game_from_the_command_line(tmp_path: Path) -> None:
    """``unosim run configs/flip.yaml`` with the example plug-ins at two seats."""
    import json

    from cli_helpers import invoke

    res = invoke("run", str(ROOT / "configs/flip.yaml"), "--games", "30", "--jobs", "1", "-q",
                 "--out", str(tmp_path / "run"), "--set", f"seats=[{KEEPER}, {FIRST}, random, "
                 "strategic]")
    assert res.exit_code == 0, res.output
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["games"] == 30 and "ColourKeeper" in json.dumps(summary)


def test_first_legal_takes_the_first() -> None:
    p = load_policy(FIRST).policy
    assert p.choose(_view(), ["G5", "G7", "W", "draw"]) == "G5"


def test_colour_keeper_keeps_its_colour() -> None:
    p = load_policy(KEEPER).policy
    assert p.choose(_view(), ["G5", "G7", "W", "draw"]) == "G7"  # green held most, high first
    assert p.choose(_view(), ["W", "draw"]) == "W"
    assert p.color(_view()) == "G"
    assert p.target(_view(players=3, hand_sizes=(4, 5, 2), active=(0, 1, 2)), [1, 2]) == 2
    assert p.choose(_view(phase="drawn", drawn="W"), ["W", "pass"]) == "pass"
    wd4 = ({"e": "play", "p": 1, "card": "WD4", "color": "R"},)
    assert p.challenge(_view(events=wd4, hand_sizes=(4, 7))) is True
    assert p.challenge(_view(events=wd4, hand_sizes=(4, 2))) is False


def test_example_players_beat_nothing_but_finish() -> None:
    agg = play_games(_cc(), seed=1, count=40, plugins={0: FIRST, 1: KEEPER})
    assert int(agg["counts"][1]) == 40 and int(agg["wins_seat"].sum()) + int(
        agg["counts"][2]) == 40


def test_plugin_seats_in_a_config_run_and_pair_through_the_runner() -> None:
    """A config naming a plug-in seat runs on every path of the runner (and pairs)."""
    import numpy as np

    from unosim.analysis.paired import PairMoments, paired_diff
    from unosim.engine.kernel.batch import NGF, simulate
    from unosim.engine.kernel.state import compile_config
    from unosim.engine.plugins import simulate_plugins
    from unosim.rules.config import load_config
    from unosim.run.runner import run_lockstep

    seat = FIRST
    a = load_config("classic", [f"seats=[{seat}, random, random, random]"])
    b = load_config("stacking", [f"seats=[{seat}, random, random, random]"])
    lock = run_lockstep([a, b], games=60, seed=2, pairs=((0, 1),), jobs=2, backend="threads",
                        progress=False)
    direct, _ = simulate_plugins(compile_config(a), 2, 0, 60, {0: seat})
    for k in direct:
        assert np.array_equal(direct[k], lock.runs[0].aggregates[k])
    d = paired_diff(PairMoments(60, lock.pair_sums[0], lock.pair_moments[0]), "turns_mean",
                    match=False)
    assert d is not None and d.low <= d.diff <= d.high
    # with only compiled seats, the façade's features equal the kernel's
    cc = compile_config(load_config("classic"))
    f1, f2 = np.zeros((30, NGF), np.int64), np.zeros((30, NGF), np.int64)
    simulate(cc, 5, 0, 30, features=f1)
    simulate_plugins(cc, 5, 0, 30, {}, features=f2)
    assert np.array_equal(f1, f2)


# --- issue 20: plug-ins under hostile code ----------------------------------------------
LAST = "class P:\n    def choose(self, view, legal):\n        return legal[-1]\n"
FIRST_SRC = "class P:\n    def choose(self, view, legal):\n        return legal[0]\n"


def _write(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return str(path)


def _with_seat(path: str, config: str = "classic") -> object:
    return load_config(config, [f"seats=[{path}, random, random, random]"])


def test_plugin_source_is_part_of_the_run_identity(tmp_path: Path) -> None:
    from unosim.rules.config import config_hash

    plain = load_config("classic")
    before = config_hash(plain)
    p = _write(tmp_path / "p.py", FIRST_SRC) + ":P"
    cfg = _with_seat(p)
    h1 = config_hash(cfg)
    assert h1 == config_hash(_with_seat(p))  # the same source hashes the same
    _write(tmp_path / "p.py", LAST)
    assert config_hash(cfg) != h1  # an edited plug-in is another run
    assert config_hash(plain) == before  # a config without plug-ins hashes as it did


def test_module_plugin_source_is_hashed_without_running_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from unosim.rules.config import config_hash
    from unosim.rules.plugins import module_file

    pkg = tmp_path / "hashpkg_a"
    _write(pkg / "__init__.py", "raise SystemExit('the package ran')\n")
    _write(pkg / "players.py", "raise SystemExit('the module ran')\n" + LAST)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert module_file("hashpkg_a.players") == str(pkg / "players.py")
    cfg = _with_seat("hashpkg_a.players:P")
    h1 = config_hash(cfg)  # neither file ran (either would have raised SystemExit)
    _write(pkg / "players.py", LAST)
    assert config_hash(cfg) != h1
    assert "hashpkg_a" not in sys.modules


def test_api_plays_the_new_class_after_the_file_changes(tmp_path: Path) -> None:
    import unosim

    p = _write(tmp_path / "edited.py", FIRST_SRC) + ":P"
    over = {"seats": [p, "random", "random", "random"]}
    a = unosim.run("classic", games=40, seed=3, set=over, jobs=1)
    _write(tmp_path / "edited.py", LAST)
    b = unosim.run("classic", games=40, seed=3, set=over, jobs=1)
    assert b.summary["config_hash"] != a.summary["config_hash"]
    direct = play_games(_cc(), seed=3, count=40, plugins={0: _MakeLast()})
    assert np.array_equal(b.aggregates["turns_hist"], direct["turns_hist"])
    assert not np.array_equal(a.aggregates["turns_hist"], b.aggregates["turns_hist"])


class _MakeLast:
    def choose(self, view: PublicView, legal: list[str]) -> str:
        return legal[-1]


def test_module_plugin_reloads_when_its_file_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path / "reload_players_b.py", "VERSION = 1\n" + FIRST_SRC)
    monkeypatch.syspath_prepend(str(tmp_path))
    one = load_policy("reload_players_b:P").policy
    assert one.choose(None, ["a", "b"]) == "a"
    _write(tmp_path / "reload_players_b.py", "VERSION = 2\n" + LAST)
    two = load_policy("reload_players_b:P").policy
    assert two.choose(None, ["a", "b"]) == "b"
    assert sys.modules["reload_players_b"].VERSION == 2


def test_two_plugin_files_never_share_a_module_name(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "cx" / "y.py", FIRST_SRC)
    _write(tmp_path / "cx_y.py", LAST)
    a, b = load_policy("cx/y.py:P").policy, load_policy("cx_y.py:P").policy
    assert type(a) is not type(b)
    assert a.choose(None, ["a", "b"]) == "a" and b.choose(None, ["a", "b"]) == "b"
    assert type(a).__module__ != type(b).__module__


def test_concurrent_loads_never_see_a_half_loaded_module(tmp_path: Path) -> None:
    """Thread A is inside the plug-in's import; thread B asks for the same class and
    waits for A's module (it is executed once), never seeing it half loaded."""
    import builtins
    import inspect
    import threading

    from unosim.engine import plugins as mod

    started, go = threading.Event(), threading.Event()
    builtins._unosim_test_load = (started, go)  # type: ignore[attr-defined]
    path = _write(tmp_path / "slow_import.py",
                  "import builtins\nRUNS = getattr(builtins, '_unosim_runs', 0) + 1\n"
                  "builtins._unosim_runs = RUNS\nstarted, go = builtins._unosim_test_load\n"
                  "started.set()\ngo.wait()\n" + FIRST_SRC) + ":P"
    got: dict[str, object] = {}

    def load(who: str) -> None:
        try:
            got[who] = load_policy(path).policy
        except Exception as exc:  # noqa: BLE001 (the test reports it)
            got[who] = exc

    a = threading.Thread(target=load, args=("a",))
    a.start()
    assert started.wait(60)
    b = threading.Thread(target=load, args=("b",))
    b.start()
    lines, first = inspect.getsourcelines(mod._load_file)
    lock_line = first + next(i for i, t in enumerate(lines) if "with _LOAD_LOCK" in t)

    def b_waits_for_the_lock() -> bool:
        frame = sys._current_frames().get(b.ident or -1)
        return (frame is not None and frame.f_code is mod._load_file.__code__
                and frame.f_lineno == lock_line)

    try:
        while not b_waits_for_the_lock():  # an event (B reached the lock), not a time
            assert b.is_alive(), got
            threading.Event().wait(0.001)
    finally:
        go.set()
        a.join()
        b.join()
    assert type(got["a"]) is type(got["b"]), got
    assert builtins._unosim_runs == 1  # type: ignore[attr-defined]
    del builtins._unosim_test_load, builtins._unosim_runs  # type: ignore[attr-defined]


def test_threads_backend_loads_a_plugin_once_per_version(tmp_path: Path) -> None:
    from unosim.run.runner import run_lockstep

    p = _write(tmp_path / "thread_ok.py", "import math\nX = sum(math.sqrt(i) for i in "
                                          "range(200_000))\n" + FIRST_SRC) + ":P"
    lock = run_lockstep([_with_seat(p)], games=80, seed=1, jobs=2, backend="threads",
                        chunk_size=10, progress=False)
    assert int(lock.runs[0].aggregates["counts"][1]) == 80


# Plug-in code that fails, and where: each must be one PluginError line naming the seat,
# the policy and the exception (never a traceback, an exit, or another error's words).
HOSTILE = {
    "choose_raises": ("class P:\n    def choose(self, view, legal):\n"
                      "        raise ValueError('bad luck')\n", ["ValueError: bad luck"]),
    "color_raises": ("class P:\n    def choose(self, view, legal):\n        return legal[0]\n"
                     "    def color(self, view):\n        raise KeyError('hue')\n",
                     ["KeyError: 'hue'"]),
    "import_raises": ("raise RuntimeError('at import')\n" + FIRST_SRC,
                      ["failed to load", "RuntimeError: at import"]),
    "constructor_raises": ("class P:\n    def __init__(self):\n        raise TypeError('no')\n"
                           "    def choose(self, view, legal):\n        return legal[0]\n",
                           ["P() failed", "TypeError: no"]),
    "recursion": ("class P:\n    def choose(self, view, legal):\n"
                  "        return self.choose(view, legal)\n", ["RecursionError"]),
    "sys_exit_in_choose": ("import sys\nclass P:\n    def choose(self, view, legal):\n"
                           "        sys.exit(0)\n", ["SystemExit"]),
    "sys_exit_in_color": ("import sys\nclass P:\n    def choose(self, view, legal):\n"
                          "        return legal[0]\n    def color(self, view):\n"
                          "        sys.exit()\n", ["SystemExit"]),
    "sys_exit_at_import": ("import sys\nsys.exit(3)\n" + FIRST_SRC,
                           ["failed to load", "SystemExit: 3"]),
    "opens_a_missing_file": ("class P:\n    def choose(self, view, legal):\n"
                             "        open('/nonexistent/plugin-data.txt')\n",
                             ["FileNotFoundError", "plugin-data.txt"]),
    "ten_mb_message": ("class P:\n    def choose(self, view, legal):\n"
                       "        raise ValueError('x' * 10_000_000)\n", ["ValueError: xxx"]),
    "multi_line_message": ("class P:\n    def choose(self, view, legal):\n"
                           "        raise ValueError('one\\ntwo\\r\\x1b[2Jthree')\n",
                           ["ValueError: one two"]),
    "unprintable_exception": ("class E(Exception):\n    def __str__(self):\n"
                              "        raise RuntimeError('no str')\n"
                              "class P:\n    def choose(self, view, legal):\n"
                              "        raise E()\n", ["E: (its message cannot be shown)"]),
    "syntax_error": ("class P:\n    def choose(self view, legal):\n", ["SyntaxError"]),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_plugin_code_failures_are_one_line_plugin_errors(case: str, tmp_path: Path) -> None:
    source, words = HOSTILE[case]
    p = _write(tmp_path / f"{case}.py", source) + ":P"
    cc = _cc()
    with pytest.raises(PluginError) as e:
        for seed in range(40):  # some game where a wild is played (color_raises)
            play_game(cc, seed, plugins={2: p})
    msg = str(e.value)
    assert msg.startswith(f"seat 2 (policy {p}): "), msg
    assert msg.isprintable() and len(msg) < 1000, msg[:300]
    for w in words:
        assert w in msg, (w, msg)


def test_sys_exit_in_plugin_is_an_error_on_the_threads_backend(tmp_path: Path) -> None:
    from unosim.run.runner import run_lockstep

    p = _write(tmp_path / "quits.py", HOSTILE["sys_exit_in_choose"][0]) + ":P"
    with pytest.raises(PluginError, match=r"seat 0 \(policy .*quits.py:P\): SystemExit"):
        run_lockstep([_with_seat(p)], games=40, seed=1, jobs=2, backend="threads",
                     chunk_size=10, progress=False)


@pytest.mark.slow  # starts a process pool
def test_plugin_error_crosses_the_process_backend(tmp_path: Path) -> None:
    from unosim.run.runner import run_lockstep

    p = _write(tmp_path / "raises.py", HOSTILE["choose_raises"][0]) + ":P"
    with pytest.raises(PluginError, match=r"seat 0 \(policy .*raises.py:P\): ValueError"):
        run_lockstep([_with_seat(p)], games=40, seed=1, jobs=2, backend="loky",
                     chunk_size=10, progress=False)


PRINTS = ("import os, sys\nprint('at import')\n"
          "class P:\n    def __init__(self):\n        print('built')\n"
          "    def choose(self, view, legal):\n        print('choosing', legal)\n"
          "        sys.stdout.write('written\\n')\n        os.write(1, b'raw\\n')\n"
          "        return legal[0]\n")


def test_plugin_print_goes_to_stderr(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    p = _write(tmp_path / "prints.py", PRINTS) + ":P"
    stdout = sys.stdout
    play_game(_cc(), 1, plugins={0: p})
    print("ours")
    out, err = capfd.readouterr()
    assert out == "ours\n"
    assert "at import" in err and "built" in err and "choosing" in err and "raw" in err
    assert sys.stdout is stdout


def test_plugin_print_goes_to_stderr_across_threads(tmp_path: Path,
                                                    capfd: pytest.CaptureFixture[str]) -> None:
    from unosim.run.runner import run_lockstep

    p = _write(tmp_path / "prints_threads.py", PRINTS) + ":P"
    stdout = sys.stdout
    lock = run_lockstep([_with_seat(p)], games=40, seed=1, jobs=2, backend="threads",
                        chunk_size=5, progress=False)
    assert int(lock.runs[0].aggregates["counts"][1]) == 40
    out, err = capfd.readouterr()
    assert out == "" and "choosing" in err
    assert sys.stdout is stdout


class _Answers:
    def __init__(self, answer: object) -> None:
        self.answer = answer

    def choose(self, view: PublicView, legal: list[str]) -> object:
        return self.answer


class _EvilStr(str):
    def __repr__(self) -> str:
        raise RuntimeError("repr ran")

    def strip(self, *a: object) -> str:
        raise RuntimeError("strip ran")


class _EvilObject:
    def __repr__(self) -> str:
        return "x" * 10_000_000

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq ran")

    __hash__ = None  # type: ignore[assignment]


@pytest.mark.parametrize("answer,shown", [
    ("x" * 10_000_000, "10,000,000 characters"), (10**5000, "16610-bit integer"),
    (_EvilStr("R0\n"), "'R0\\n'"), (_EvilObject(), "an object of type _EvilObject"),
    (2.5, "2.5"), ("color ", "not a colour"), ("R0" * 40, "not an action"),
], ids=["ten_mb_string", "huge_int", "str_subclass", "huge_repr", "float", "bare_color",
        "long_word"])
def test_hostile_answers_give_a_bounded_one_line_error(answer: object, shown: str) -> None:
    cc = _cc()
    with pytest.raises(PluginActionError) as e:
        for seed in range(30):
            play_game(cc, seed, plugins={1: _Answers(answer)})
    msg = str(e.value)
    assert msg.startswith("seat 1 (policy _Answers) chose ") and shown in msg, msg[:400]
    assert msg.isprintable() and len(msg) < 1000


def test_plugin_edited_during_a_run_is_refused_not_mixed(tmp_path: Path) -> None:
    """The plug-in edits its own file during chunk 0; chunk 1 must not play the new code."""
    from unosim.run.runner import run_lockstep

    p = _write(tmp_path / "self_editing.py",
               "EDITED = False\nclass P:\n    def choose(self, view, legal):\n"
               "        global EDITED\n        if not EDITED:\n            EDITED = True\n"
               "            with open(__file__, 'a') as f:\n"
               "                f.write('# edited during the run\\n')\n"
               "        return legal[0]\n") + ":P"
    with pytest.raises(PluginError, match="changed since the run started"):
        run_lockstep([_with_seat(p)], games=40, seed=1, jobs=1, chunk_size=10, progress=False)


def test_pinned_names_pickle_with_their_digest() -> None:
    import pickle

    from unosim.engine.plugins import Pinned

    seats = plugin_seats([FIRST, "random"])
    again = pickle.loads(pickle.dumps(seats))
    assert again == {0: FIRST} and isinstance(again[0], Pinned)
    assert again[0].digest == seats[0].digest != ""
    with pytest.raises(PluginError, match="changed since the run started"):
        play_games(_cc(), 1, count=1, plugins={0: Pinned(FIRST, "0" * 64)})


@pytest.mark.parametrize("method,body,error,words", [
    ("target", "return 10**5000", PluginActionError, ["not a seat"]),
    ("target", "return 'target ' + '9' * 5000", PluginActionError, ["not an action"]),
    ("challenge", "class B:\n            def __bool__(self):\n"
                  "                raise ValueError('no truth')\n        return B()",
     PluginError, ["ValueError: no truth"]),
    ("color", "return 'G' * 10_000_000", PluginActionError, ["10,000,000 characters"]),
], ids=["huge_int_seat", "huge_target_string", "challenge_bool_raises", "ten_mb_colour"])
def test_hostile_optional_methods(method: str, body: str, error: type, words: list[str],
                                  tmp_path: Path) -> None:
    arg = ", candidates" if method == "target" else ""
    p = _write(tmp_path / f"hostile_{method}.py",
               "class P:\n    def choose(self, view, legal):\n"
               "        return ([a for a in legal if a.startswith('W')] or legal)[0]\n"
               f"    def {method}(self, view{arg}):\n        {body}\n") + ":P"
    cc = _cc("classic", ["house_rules.seven_o=true", "players=3"])
    with pytest.raises(error) as e:
        for seed in range(60):
            play_game(cc, seed, plugins={0: p, 1: p, 2: p})
    msg = str(e.value)
    assert msg.startswith("seat ") and msg.isprintable() and len(msg) < 1000, msg[:300]
    for w in words:
        assert w in msg, msg


def test_module_plugin_exit_at_import_is_a_plugin_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path / "exits_on_import_c.py", "import sys\nprint('hi')\nsys.exit(3)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(PluginError) as e:
        play_games(_cc(), 1, count=1, plugins={3: "exits_on_import_c:P"})
    assert str(e.value) == ("seat 3 (policy exits_on_import_c:P): cannot import "
                            "exits_on_import_c: SystemExit: 3")
