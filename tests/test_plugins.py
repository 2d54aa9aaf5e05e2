"""Plug-in policies (docs/plugins.md): loading, the public view, illegal actions,
aggregates equal to the compiled batch, and traces that replay on every config."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from replay_checker import check_trace

from unosim.engine.batch import simulate
from unosim.engine.game import play_game as compiled_game
from unosim.engine.plugins import (
    PluginActionError,
    PluginError,
    compile_with_plugins,
    load_policy,
    play_game,
    play_games,
    plugin_seats,
)
from unosim.engine.state import compile_config
from unosim.engine.view import HIDDEN, PublicView
from unosim.rules.config import load_config
from unosim.rules.plugins import is_plugin_name

ROOT = Path(__file__).resolve().parent.parent
FIRST = str(ROOT / "examples/policies/first_legal.py") + ":FirstLegal"
KEEPER = str(ROOT / "examples/policies/colour_keeper.py") + ":ColourKeeper"
CONFIGS = sorted(p.stem for p in (ROOT / "unosim/rules/configs").glob("*.yaml"))


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
        res = check_trace(play_game(cc, seed, plugins=plugins), policies=names)
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
    for part in ("policy Cheater (seat 2)", repr(answer), "in phase", "top ", "colour ",
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
    from unosim.engine.batch import NGF, simulate
    from unosim.engine.plugins import simulate_plugins
    from unosim.engine.state import compile_config
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
