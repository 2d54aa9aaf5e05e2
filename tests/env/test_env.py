"""The learning environments (unosim.env, docs/env.md): the libraries' own conformance
suites, the replay checker on traces of random actions, the shared observation, the
vector env against the single one, and the interface the training example relies on."""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

# The rl extra is part of `make setup` and CI: a missing library fails here, it does not skip.
import gymnasium
import numpy as np
import pyspiel
import pytest
from gymnasium.utils.env_checker import check_env
from hidden import redeal_hidden_faces
from pettingzoo.test import api_test, seed_test
from replay_checker import assert_valid_trace

import unosim.env  # noqa: F401  (registers unosim/UNO-v0 and python_unosim)
from unosim.engine.game import play_game
from unosim.engine.kernel import state as L
from unosim.engine.kernel.flip import index_faces
from unosim.engine.view import PublicLog, public_view
from unosim.env import aec, encode_view, layout
from unosim.env.single import UnoEnv
from unosim.env.table import Table, load
from unosim.env.vector import UnoVectorEnv
from unosim.rules.config import load_config

# every kind of decision somewhere: stacking and challenges, jump-ins, Seven-O targets,
# draw-until-play, a special wild, a match with scoring
CONFIGS = ["two_player", "chaos", "seven_o", "jump_in", "stacking_full", "draw_until_play",
           "disney_wish", "match", "flip"]


def _replays(events: list[dict]) -> None:
    """The trace passes the project's replay checker (which models UNO Flip too)."""
    assert_valid_trace(events, allow_bluffs=True, agents=True)


def _random_game(step, legal, rng: np.random.Generator, limit: int = 20_000) -> None:
    for _ in range(limit):
        acts = legal()
        if acts is None:
            return
        step(int(rng.choice(acts)))
    raise AssertionError("game did not end")


# --- spaces ----------------------------------------------------------------------------------
def test_layout_follows_the_kind_table_and_players():
    cc = Table(load("chaos")).cc
    lay = layout(cc)
    n, k = int(cc.ci[L.C_PLAYERS]), len(cc.deck_counts)
    assert lay.sizes["hand"] == k and lay.sizes["known"] == n * k
    assert lay.size == sum(lay.sizes.values()) and lay.offset("scores") + n == lay.size


@pytest.mark.parametrize("config", [
    "seven_o",
    "flip",
    str(Path(__file__).resolve().parents[2] / "examples/editions/skip_everyone_added_game.yaml"),
])
def test_plugin_view_encodes_like_the_env(config):
    """A trained policy playing as a plug-in reads the same vector the env gave it (an
    edition's new kinds too: the view's own layout is the env's)."""
    t = Table(load(config), seed=5)
    t.reset()
    rng = np.random.default_rng(0)
    seen = 0
    while not t.done:
        p = t.current
        log = PublicLog(p)
        log.feed(t.events)
        view = public_view(t.round, log)
        np.testing.assert_array_equal(encode_view(view, t.layout), t.observe(p))
        np.testing.assert_array_equal(encode_view(view), t.observe(p))
        t.step(int(rng.choice(np.flatnonzero(t.mask(p)))))
        seen += 1
    assert seen > 10


def test_observation_hides_other_hands():
    """Two states that differ only in another seat's hand give the same observation."""
    cfg = load("two_player")
    a = Table(cfg, seed=1)
    a.reset(game=0)
    b = Table(cfg, seed=1)
    b.reset(game=0)
    S = b.round.S
    me = a.current
    other = 1 - me
    nk = b.round.kinds.nk
    k1 = int(np.flatnonzero(S.hands[other, :nk])[0])
    k2 = (k1 + 1) % nk
    S.hands[other, k1] -= 1
    S.hands[other, k2] += 1
    np.testing.assert_array_equal(a.observe(me), b.observe(me))


def test_flip_observation_hides_the_faces_a_seat_cannot_see():
    """UNO Flip: at every decision of a game, dealing again every face a seat cannot see
    (tests/hidden.py) leaves its observation as it was; what the backs show is in it."""
    t = Table(load("flip"), seed=3, trace=False)
    t.reset()
    rng = np.random.default_rng(3)
    lay, n = t.layout, t.players
    S, C = t.round.S, t.round.C
    sides = set()
    while not t.done:
        for q in range(n):
            before = t.observe(q)
            saved = S.fl.copy(), S.hands.copy(), S.s.copy()
            redeal_hidden_faces(S, C, n, q, rng)
            np.testing.assert_array_equal(t.observe(q), before)
            S.fl[:], S.hands[:], S.s[:] = saved
            index_faces(S, C)  # the engine's index follows the face table
            backs = lay.section(before, "backs")
            assert backs[q].sum() == 0
            assert [int(backs[o].sum()) for o in range(n) if o != q] == [
                len(t.round.hand(o)) for o in range(n) if o != q]
            assert lay.section(before, "draw_back").sum() == (1 if t.round.draw_pile else 0)
        sides.add(int(lay.section(before, "side")[0]))
        t.step(int(rng.choice(np.flatnonzero(t.mask(t.current)))))
    assert sides == {0, 1}


# --- PettingZoo ----------------------------------------------------------------------------
@pytest.mark.parametrize("config", ["two_player", "chaos", "match", "flip"])
def test_pettingzoo_api_test(config):
    api_test(aec(config, trace=False), num_cycles=300, verbose_progress=False)


@pytest.mark.parametrize("config", ["seven_o", "flip"])
def test_pettingzoo_seed_test(config):
    seed_test(lambda: aec(config, trace=False), num_cycles=200)


@pytest.mark.parametrize("config", CONFIGS)
def test_aec_random_actions_replay(config):
    env = aec(config)
    rng = np.random.default_rng(1)
    traces = []
    for seed in (1, 2):
        env.reset(seed=seed)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        table = env.unwrapped.table
        assert table.done
        traces.append(table.events)
    for events in traces:
        _replays(events)


def test_aec_points_reward_is_the_match_score():
    env = aec("match", reward="points", trace=False)
    env.reset(seed=2)
    total = dict.fromkeys(env.possible_agents, 0.0)
    rng = np.random.default_rng(2)
    for agent in env.agent_iter():
        obs, rew, term, trunc, _ = env.last()
        total[agent] += rew
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    scores = env.unwrapped.table.round.scores
    assert [total[a] for a in env.possible_agents] == [float(s) for s in scores]


def test_table_is_the_engine_game():
    """Compiled seats acting through the table replay `play_game` event for event."""
    for config in ("stacking_full", "match"):
        t = Table(load(config), seed=9)  # one table, its state reused from game to game
        for g in (0, 1, 2, 1):
            t.reset(game=g)
            while not t.done:
                t.step(t.round.policy_action())
            assert t.events == play_game(t.cc, 9, g)


# --- Gymnasium -------------------------------------------------------------------------------
@pytest.mark.parametrize("config,opponents", [("two_player", ["cautious"]),
                                              ("flip", ["cautious", "strategic", "random"])])
def test_gymnasium_check_env(config, opponents):
    env = gymnasium.make("unosim/UNO-v0", config=config, opponents=opponents,
                         disable_env_checker=True)
    check_env(env.unwrapped, skip_render_check=True)


@pytest.mark.parametrize("config", CONFIGS)
def test_single_env_random_actions_replay(config):
    n = load_config(config).players
    env = UnoEnv(config, opponents=["random"] * (n - 1), seat=n - 1, trace=True)
    rng = np.random.default_rng(3)
    obs, info = env.reset(seed=4)
    done = False
    while not done:
        assert env.observation_space.contains(obs)
        masks = env.action_masks()
        assert masks.any() and (masks == info["action_mask"].astype(bool)).all()
        obs, rew, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(masks))))
        done = term or trunc
    assert "illegal" not in info
    _replays(env.table.events)


def test_single_env_plugin_opponent_and_illegal_action():
    env = UnoEnv("two_player", opponents=["examples/policies/first_legal.py:FirstLegal"])
    obs, info = env.reset(seed=1)
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, rew, term, _, info = env.step(bad)
    assert term and rew == -1.0 and info["illegal"]
    obs, info = env.reset(seed=1)
    rng = np.random.default_rng(0)
    term = trunc = False
    while not (term or trunc):
        obs, rew, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    assert rew in (-1.0, 1.0) and env.table.winners
    assert_valid_trace(env.table.events, allow_bluffs=True, agents=True)


def test_single_env_plugin_opponents_on_flip():
    """UNO Flip with the example plug-ins as opponents: they decide on their views (faces
    in play, the backs) while the learner steps; the game runs to its end."""
    ex = "examples/policies/"
    env = UnoEnv("flip", opponents=[f"{ex}colour_keeper.py:ColourKeeper",
                                    f"{ex}first_legal.py:FirstLegal", "random"], seat=2)
    rng = np.random.default_rng(5)
    for seed in (1, 2):
        env.reset(seed=seed)
        term = trunc = False
        while not (term or trunc):
            _, rew, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        assert "illegal" not in info and env.table.winners
        assert any(e["e"] == "flip_all" for e in env.table.events)


def test_wrappers_keep_action_masks():
    """What MaskablePPO reaches through: the mask survives gymnasium's wrappers."""
    env = gymnasium.make("unosim/UNO-v0", config="two_player", opponents=["random"])
    env = gymnasium.wrappers.RecordEpisodeStatistics(env)
    env.reset(seed=0)
    m = env.get_wrapper_attr("action_masks")()
    assert m.dtype == bool and m.shape == (L.NA,) and m.any()


# --- OpenSpiel --------------------------------------------------------------------------------
@pytest.mark.parametrize("config", ["two_player", "seven_o", "flip"])
def test_openspiel_random_sim_test(config):
    game = pyspiel.load_game("python_unosim", {"config": config, "deals": 64})
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def _same_state(a, b, players: int) -> None:
    """Everything OpenSpiel and a player can read of two states is equal."""
    assert (str(a), a.history(), a.current_player(), a.is_terminal()) == (
        str(b), b.history(), b.current_player(), b.is_terminal())
    assert a.returns() == b.returns() and a.rewards() == b.rewards()
    if not a.is_chance_node() and not a.is_terminal():
        assert a.legal_actions() == b.legal_actions()
        assert a.legal_actions_mask() == b.legal_actions_mask()
    for p in range(players):
        assert a.observation_string(p) == b.observation_string(p)
        assert a.observation_tensor(p) == b.observation_tensor(p)
    if a.dealt:
        assert a.table.events == b.table.events and a.table.moves == b.table.moves


# A serialized state is the game's parameters, OpenSpiel's history (about 5 characters
# an action) and the state's own part: the compiled config and the stream, not the actions.
# the state's own part (config with its kind tables), however long: about 1,900 for
# two_player's, 2,300 for UNO Flip's (108 kinds, both faces' decks) early in a game, and
# its compressed actions; a long Flip game (hundreds of actions) went past 3,000
OWN_BYTES = 4_000
SERIALIZED_BYTES = 10_000  # the whole, for a state of at most 1,000 actions


@pytest.mark.parametrize("config,params", [("two_player", {}), ("seven_o", {"trace": True}),
                                           ("match", {"reward": "points"}),
                                           ("chaos", {"set": "house_rules.jump_in=true;players=3"}),
                                           ("flip", {"trace": True})])
def test_openspiel_serialization_is_compact_and_exact(config, params):
    """A state serializes as its record (config, stream, deal, actions): a few kilobytes,
    and the state it loads to is the original in every way a player or OpenSpiel sees."""
    game = pyspiel.load_game("python_unosim", {"config": config, "deals": 32, **params})
    n = game.num_players()
    rng = np.random.default_rng(11)
    state = game.new_initial_state()
    sizes = []
    step = 0
    while True:
        if step % 37 == 0 or state.is_terminal():
            own = state.serialize().split("__dict__=")[1]
            assert len(own) < OWN_BYTES, len(own)
            text = pyspiel.serialize_game_and_state(game, state)
            if len(state.history()) <= 1000:
                sizes.append(len(text))
            again, back = pyspiel.deserialize_game_and_state(text)
            assert str(again) == str(game)
            _same_state(state, back, n)
            _same_state(state, game.deserialize_state(state.serialize()), n)
            clone = state.clone()
            assert clone.held.live is None  # a record until read: no kernel state yet
            _same_state(state, clone, n)
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
        step += 1
    assert step > 20 and max(sizes) < SERIALIZED_BYTES, (step, sizes)
    assert len(pickle.dumps(state.table.round.S.base)) > 100 * SERIALIZED_BYTES  # what it was


def test_openspiel_random_sim_test_memory():
    """``random_sim_test`` with serialization keeps a clone of every state it passes: in
    a fresh process its peak resident memory stays bounded (it was gigabytes when a
    state pickled its megabytes of kernel record)."""
    code = textwrap.dedent("""
        import pyspiel, unosim.env
        game = pyspiel.load_game("python_unosim", {"config": "two_player", "deals": 64})
        pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)
        game = pyspiel.load_game("python_unosim", {"config": "match", "deals": 8})
        pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)
        with open("/proc/self/status") as f:  # this process's own high-water mark
            print(next(line.split()[1] for line in f if line.startswith("VmHWM")))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    peak_mb = int(out.stdout.split()[-1]) / 1024
    assert peak_mb < 600, f"peak resident memory {peak_mb:.0f} MB"


@pytest.mark.parametrize("config", ["chaos", "flip"])
def test_openspiel_random_actions_replay(config):
    # deal 0: the replay checker wants a game's first dealer to be seat 0, and deal d
    # is the engine's game d, dealt by seat d % players
    traces = []
    for seed in (5, 6):
        game = pyspiel.load_game("python_unosim", {"config": config, "trace": True,
                                                   "deals": 16, "seed": seed})
        rng = np.random.default_rng(seed)
        state = game.new_initial_state()
        state.apply_action(0)
        while not state.is_terminal():
            state.apply_action(int(rng.choice(state.legal_actions())))
        ret = state.returns()
        assert sorted(ret)[-1] == 1.0 or ret == [0.0] * len(ret)
        traces.append(state.table.events)
    for events in traces:
        _replays(events)


# --- the vector env -------------------------------------------------------------------------
# seats as a config writes them: a name, and a policy with parameters
SPECS = ["cautious", {"policy": "strategic", "params": {"bluff_rate": 1.0, "dump_at": 5}},
         {"policy": "greedy"}]


@pytest.mark.parametrize("config,reward,opponents", [("jump_in", "win", ["random"] * 3),
                                                     ("match", "points", ["random"] * 3),
                                                     ("classic", "win", SPECS),
                                                     ("flip", "win", SPECS)])
def test_vector_env_plays_the_single_envs_games(config, reward, opponents):
    """Table i of the vector env plays game i of the seed, as the single env does."""
    vec = UnoVectorEnv(3, config=config, opponents=opponents, seat=1, reward=reward)
    obs, info = vec.reset(seed=7)
    singles = [UnoEnv(config, opponents=opponents, seat=1, reward=reward)
               for _ in range(3)]
    sobs = []
    for i, e in enumerate(singles):
        e.table.reseed(7)
        e.table.reset(game=i)
        e._others()
        sobs.append(e.table.observe(1))
    np.testing.assert_array_equal(obs, np.stack(sobs))
    rng = np.random.default_rng(0)
    for _ in range(40 if config != "match" else 300):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        obs, rew, term, trunc, info = vec.step(acts)
        for i, e in enumerate(singles):
            o, r, te, tr, _ = e.step(int(acts[i]))
            assert (rew[i], term[i], trunc[i]) == (r, te, tr)
            if te or tr:
                np.testing.assert_array_equal(info["final_obs"][i], o)
                assert info["_final_obs"][i]
                e.table.reset(game=int(vec.games[i]))
                e._others()
                o = e.table.observe(1)
            np.testing.assert_array_equal(obs[i], o)
            np.testing.assert_array_equal(info["action_mask"][i], e.table.mask(1))


def test_vector_env_through_make_vec_autoresets():
    env = gymnasium.make_vec("unosim/UNO-v0", num_envs=16, vectorization_mode="vector_entry_point",
                             config="two_player", opponents=["cautious"])
    obs, info = env.reset(seed=3)
    assert obs.shape == (16, env.single_observation_space.shape[0])
    rng = np.random.default_rng(1)
    ended = 0
    wins = 0.0
    for _ in range(400):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        obs, rew, term, trunc, info = env.step(acts)
        ended += int((term | trunc).sum())
        wins += float(rew[term].clip(0).sum())
        assert info["action_mask"].any(axis=1).all()  # every table has a decision
    assert ended > 16 and 0 < wins < ended
    assert env.unwrapped.action_masks().shape == (16, L.NA)


def test_vector_env_refuses_plugins():
    first = "examples/policies/first_legal.py:FirstLegal"
    with pytest.raises(ValueError, match="compiled policies only.*decides in Python"):
        UnoVectorEnv(2, config="two_player", opponents=[first])

    class Mine:
        def choose(self, view):
            return view.legal[0]

    with pytest.raises(ValueError, match="compiled policies only, not 'Mine' at seat 1"):
        UnoVectorEnv(2, config="two_player", opponents=[Mine()])
    UnoEnv("two_player", opponents=[first])  # where a plug-in plays


def test_opponents_take_a_configs_seat_specs():
    """The specs' parameters reach the compiled seats, as the config's own seats would."""
    from unosim.engine.kernel.state import compile_config

    vec = UnoVectorEnv(2, config="classic", opponents=SPECS, seat=1)
    cfg = load_config("classic")
    want = compile_config(load(cfg, seats=[SPECS[0], "random", *SPECS[1:]]))
    np.testing.assert_array_equal(vec.cc.pp, want.pp)
    assert UnoEnv("classic", opponents=SPECS, seat=1).table.cc.pp.tolist() == want.pp.tolist()


@pytest.mark.parametrize("opponents,message", [
    ([{"policy": "strategic", "params": {"bluff_rate": 2}}], r"^opponent at seat 1: params\.bluff_rate: "),
    ([{"policy": "strategic", "params": {"blufff": 1}}], r"^opponent at seat 1: params\.blufff"),
    ([{"policy": "random", "params": {"bluff_rate": 0.5}}], r"^opponent at seat 1: .*random takes no params"),
    (["cautios"], r"^opponent at seat 1: expected a policy .*did you mean"),
    ([{"params": {}}], r"^opponent at seat 1: "),
    (["random", "random"], r"^opponents: a list of 1 \(one per other seat\), got 2$"),
    ("random", r"^opponents: a list of 1 \(one per other seat\), got str 'random'$"),
    (5, r"^opponents: a list of 1 .*got int '5'$"),
    ([5], r"^opponent at seat 1: expected a policy"),
])
def test_bad_opponents_are_one_line_errors(opponents, message):
    for make in (lambda: UnoVectorEnv(2, config="two_player", opponents=opponents),
                 lambda: UnoEnv("two_player", opponents=opponents)):
        with pytest.raises(ValueError, match=message) as err:
            make()
        assert "\n" not in str(err.value)


# --- the training example's seat ------------------------------------------------------------
def test_trained_policy_plays_as_a_plugin_seat():
    """examples/rl/ppo_seat.py (numpy only) loads the committed network and plays legal
    games through the plug-in path that `unosim league` uses."""
    from unosim.engine.plugins import play_games

    cc = Table(load("two_player")).cc
    agg = play_games(cc, 1, 0, 4, plugins={0: "examples/rl/ppo_seat.py:PPOSeat"})
    assert int(agg["counts"][1]) == 4 and int(agg["wins_seat"].sum()) <= 4


def test_mask_is_the_engines_legal_actions():
    """The mask (which skips kinds the seat does not hold) lists exactly the façade's
    legal actions, at every decision of random games of every kind of decision."""
    rng = np.random.default_rng(4)
    for config in CONFIGS:
        t = Table(load(config), seed=2, trace=False)
        t.reset()
        while not t.done:
            legal = t.round.legal_actions()
            assert np.flatnonzero(t.mask(t.current)).tolist() == legal
            t.step(int(rng.choice(legal)))


# --- the rulings (docs/rules.md section 12) -------------------------------------------------------
RULINGS = {
    "drop_deflect_same_number": ["house_rules.deflect=true", "house_rules.multiple_play=true",
                                 "house_rules.jump_in=same_number",
                                 "house_rules.draw_then_play=any",
                                 "house_rules.stacking.draw_two_on_draw_two=true"],
    "forced_no_action_finish": ["house_rules.forced_play=true",
                                "house_rules.no_action_finish=true",
                                "house_rules.seven_o=true", "house_rules.seven_o_swap=next",
                                "house_rules.seven_o_pass=left",
                                "house_rules.last_card_draws=false"],
    "unrestricted_no_challenge": ["house_rules.wd4_unrestricted=true",
                                  "house_rules.challenge=false",
                                  "house_rules.draw_then_play=none"],
}


@pytest.mark.parametrize("name", sorted(RULINGS))
def test_rulings_through_the_envs_replay(name):
    """Random actions under the rulings, through the AEC and the single env, give traces
    the replay checker accepts (the rulings' own decisions are the kernel's actions)."""
    sets = RULINGS[name]
    env = aec("classic", sets)
    rng = np.random.default_rng(7)
    for seed in (1, 2, 3):
        env.reset(seed=seed)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert_valid_trace(env.unwrapped.table.events, allow_bluffs=True, agents=True)
    single = UnoEnv("classic", sets, opponents=["strategic", "defender", "random"], seat=3,
                    trace=True)
    obs, info = single.reset(seed=5)
    done = False
    while not done:
        obs, _, term, trunc, info = single.step(int(rng.choice(np.flatnonzero(single.action_masks()))))
        done = term or trunc
    assert "illegal" not in info
    assert_valid_trace(single.table.events, allow_bluffs=True, agents=True)
