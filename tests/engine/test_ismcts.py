"""The ``ismcts`` policy (docs/ismcts.md): its determinizations respect what the
seat knows, it never reads the hidden cards, it goes out when it can, its
games replay through the independent checker, and a seed fixes its moves."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hidden import SUITS, redeal_hidden
from replay_checker import check_trace

import unosim.engine.kernel.state as L
from unosim.engine.game import Round, play_game
from unosim.engine.kernel.batch import simulate
from unosim.engine.kernel.ismcts import determinize, finish, save_position
from unosim.engine.kernel.policies import policy_action
from unosim.engine.kernel.state import compile_config
from unosim.rules.cards import NK
from unosim.rules.config import ConfigError, config_to_dict, load_config, validate_config

FAST = {"policy": "ismcts", "params": {"iterations": 40}}
HOUSE = ["house_rules.stacking.draw_two_on_draw_two=true", "house_rules.stacking.wd4_on_wd4=true",
         "house_rules.stacking.wd4_on_draw_two=true", "house_rules.stacking.draw_two_on_wd4=true",
         "house_rules.jump_in=true", "house_rules.seven_o=true"]


def _cc(name: str, overrides: list[str], seats: list[Any]) -> L.CompiledConfig:
    data = config_to_dict(load_config(name, [*overrides, f"players={len(seats)}"]))
    data["seats"] = seats
    return compile_config(validate_config(data))


def _positions(cc: L.CompiledConfig, games: int, every: int = 3):
    """Rounds played by the seats' policies, stopping at every ``every``-th decision."""
    for g in range(games):
        r = Round.new(cc, seed=3, game=g, trace=False)
        i = 0
        while not r.is_over:
            if i % every == 0:
                yield r
            r.step()
            i += 1


def test_policy_names_are_declared_once() -> None:
    """The schema's types are the one declaration; the tuples and codes follow."""
    from typing import get_args

    from unosim.rules.models import HABIT_NAMES, PLAYOUT_POLICIES, POLICY_NAMES, PolicyName

    assert get_args(PolicyName) == POLICY_NAMES
    assert POLICY_NAMES == ("random", *HABIT_NAMES, "ismcts") == (*PLAYOUT_POLICIES, "ismcts")
    assert [L.POLICY_CODE[n] for n in POLICY_NAMES] == list(range(len(POLICY_NAMES)))
    assert L.HABIT_POLICIES == {L.POLICY_CODE[n] for n in HABIT_NAMES}


def test_params_are_declared_with_limits() -> None:
    cc = _cc("classic", [], [{"policy": "ismcts", "params": {"iterations": 7, "exploration": 2,
                                                            "playout": "greedy"}}, "random"])
    row = cc.pp[0]
    assert row[L.P_KIND] == L.POLICY_ISMCTS and row[L.P_ITERS] == 7
    assert row[L.P_EXPLORE] == 2.0 and row[L.P_PLAYOUT] == L.POLICY_CODE["greedy"]
    assert row[L.P_PRIOR] == L.POLICY_CODE["cautious"] and row[L.P_PRIOR_W] == 0.0
    for bad in ({"iterations": 0}, {"iterations": 10**6}, {"playout": "ismcts"},
                {"exploration": -1}, {"prior": "random"}, {"prior_weight": 1.5}):
        with pytest.raises(ConfigError):
            _cc("classic", [], [{"policy": "ismcts", "params": bad}, "random"])


@pytest.mark.parametrize(("edition", "overrides", "players"), [
    ("classic", [], 4), ("classic", HOUSE, 5), ("disney_wish", [], 3), ("encanto", [], 6)])
def test_every_determinization_respects_what_the_seat_knows(edition: str, overrides: list[str],
                                                             players: int) -> None:
    cc = _cc(edition, overrides, ["random"] * players)
    samples = informed = 0
    for r in _positions(cc, 4, every=1):
        S, C = r.S, r.C
        me = int(S.s[L.S_CUR])
        informed += bool(S.known[me, :players].any())
        hands, draw_n, disc = S.hands.copy(), int(S.s[L.S_NDRAW]), S.piles[1].copy()
        rng, pp = S.rng.copy(), C.pp.copy()
        save_position(S, C)
        for _ in range(30):
            determinize(S, C, me)
            assert (S.hands[me] == hands[me]).all()
            # every card it saw change hands (Seven-O), shown (Wishing Star) or in a
            # challenged hand is dealt to the hand it knows holds it
            assert (S.hands[:players, :NK] >= S.known[me, :players, :NK]).all()
            assert (S.hands[:, L.H_SIZE] == hands[:, L.H_SIZE]).all()
            assert int(S.s[L.S_NDRAW]) == draw_n
            assert (S.piles[1] == disc).all()
            total = S.hands[:players, :NK].sum(axis=0)
            total += np.bincount(S.piles[0, :draw_n], minlength=NK)
            total += np.bincount(S.piles[1, :int(S.s[L.S_NDISC])], minlength=NK)
            assert (total == C.dc[:NK]).all()
            suits = np.array([np.bincount(SUITS, weights=S.hands[q, :NK], minlength=5)
                              for q in range(players)])
            assert (S.hands[:players, L.H_SUIT:L.H_SUIT + 5] == suits).all()
            samples += 1
        finish(S, C)
        assert (S.hands == hands).all() and (S.rng == rng).all() and (C.pp == pp).all()
    assert samples >= 2000
    if "house_rules.seven_o=true" in overrides or edition == "disney_wish":
        assert informed >= 10, "no decision where the seat knew another hand's cards"


@pytest.mark.parametrize(("edition", "overrides"), [("classic", []), ("classic", HOUSE),
                                                    ("disney_wish", [])])
def test_decisions_ignore_hidden_cards(edition: str, overrides: list[str]) -> None:
    players = 4
    cc = _cc(edition, overrides, [FAST, "random", FAST, "strategic"])
    gen = np.random.default_rng(0)
    checked = 0
    for r in _positions(cc, 3, every=1):
        S, C = r.S, r.C
        p = int(S.s[L.S_CUR])
        if C.pp[p, L.P_KIND] != L.POLICY_ISMCTS:
            continue
        rng0, state0 = S.rng.copy(), S.s.copy()
        a = int(policy_action(S, C))
        assert (S.rng == rng0).all() and (S.s == state0).all(), "the search left a trace"
        hands, draw, flag = S.hands.copy(), S.piles[0].copy(), int(S.s[L.S_WD4_LEGAL])
        redeal_hidden(S, players, p, gen)
        assert int(policy_action(S, C)) == a
        S.hands[:], S.piles[0], S.s[L.S_WD4_LEGAL] = hands, draw, flag
        checked += 1
    assert checked > 50


@pytest.mark.parametrize("playout", ["random", "greedy", "strategic"])
def test_goes_out_when_it_can(playout: str) -> None:
    seat = {"policy": "ismcts", "params": {"iterations": 200, "playout": playout}}
    cc = _cc("classic", [], [seat, "random", "random"])
    r = Round.from_position(cc, hands=[["B7"], ["R1", "G2", "Y3"], ["R2", "G3", "Y4"]],
                            draw=["R9", "G9", "Y9", "B9"], discard=["B3"], color="B", player=0)
    assert r.legal_action_names() == ["B7", "draw"]
    assert r.policy_action() == r.legal_actions()[0]


def test_a_seed_fixes_the_moves() -> None:
    cc = _cc("classic", [], [FAST, "random", "random", "random"])
    a, _ = simulate(cc, 9, 0, 6)
    b, _ = simulate(cc, 9, 0, 6)
    assert all((a[k] == b[k]).all() for k in a)


@pytest.mark.parametrize(("config", "overrides"), [
    ("classic", []), ("disney100", []), ("disney_wish", []), ("encanto", []),
    ("classic_1992", []), ("classic", HOUSE), ("classic", ["house_rules.draw_until_play=true"]),
    ("classic", ["house_rules.two_player_reverse=true"]),
    ("classic", ["mode=match", "scoring=partners", "target=100"])])
def test_replays_through_the_checker(config: str, overrides: list[str]) -> None:
    seats = [FAST, "strategic", "random", FAST]
    cfg = validate_config({**config_to_dict(load_config(config, [*overrides, "players=4"])),
                           "seats": seats})
    for seed in range(3):
        res = check_trace(play_game(compile_config(cfg), seed), allow_bluffs=True,
                          policies=cfg.seat_policies)
        assert not res.violations, (config, overrides, seed, res.violations[:5])


def test_a_full_prior_weight_plays_the_prior_s_move() -> None:
    """``prior_weight: 1`` starts the prior's move a whole budget ahead: the search
    can never overturn it, so the seat plays exactly as the prior policy would."""
    from unosim.engine.kernel.ismcts import prior_action

    seat = {"policy": "ismcts", "params": {"iterations": 20, "prior": "defender",
                                           "prior_weight": 1.0}}
    cc = _cc("classic", HOUSE, [seat, "random", "random", "random"])
    checked = 0
    for r in _positions(cc, 6, every=1):
        S, C = r.S, r.C
        if int(S.s[L.S_CUR]) != 0 or len(r.legal_actions()) < 2:
            continue
        rng = S.rng.copy()
        want = int(prior_action(S, C, 0, L.POLICY_CODE["defender"]))
        assert (S.rng == rng).all()
        assert int(policy_action(S, C)) == want
        checked += 1
    assert checked > 20
