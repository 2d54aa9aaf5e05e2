"""The built-in policies: each habit on a hand-built state, the seat params in
YAML, and the headline figure (docs/policies.md).

A state is a chosen position (`Round.from_position`) where seat 0 decides;
each habit test shows the habit's choice and, with the habit turned off, the
choice it replaces.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from rules_helpers import log

from unosim.analysis.stats import wilson_interval
from unosim.engine.game import Round, action_name
from unosim.engine.kernel import state as L
from unosim.engine.kernel.batch import COUNT_ROUNDS, simulate
from unosim.engine.kernel.state import compile_config
from unosim.rules.config import (
    ConfigError,
    config_hash,
    config_to_dict,
    load_config,
    validate_config,
)
from unosim.rules.models import POLICY_DEFAULTS, POLICY_NAMES, HabitParams

FILLER = ["B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "Y1", "Y2", "Y3"]
D2D2 = "house_rules.stacking.draw_two_on_draw_two=true"


def table(*seats: Any, overrides: tuple[str, ...] = ()) -> L.CompiledConfig:
    data = config_to_dict(load_config("classic", [f"players={len(seats)}", *overrides]))
    data["seats"] = list(seats)
    return compile_config(validate_config(data))


def seat0(policy: str, **params: Any) -> Any:
    return {"policy": policy, "params": params} if params else policy


def at(seat: Any, hands: list[list[str]], discard: list[str], *overrides: str,
       color: str | None = None, direction: int = 1, draw: list[str] = FILLER) -> Round:
    cc = table(seat, *["random"] * (len(hands) - 1), overrides=overrides)
    return Round.from_position(cc, hands=hands, draw=draw, discard=discard,
                               color=color or discard[-1][0], player=0, direction=direction)


def choice(r: Round) -> str:
    a = r.policy_action()
    assert a in r.legal_actions()
    return action_name(a)


OTHERS = [["B1", "B2", "B3", "B4", "B5"], ["G1", "G2", "G3", "G4", "G5"],
          ["Y1", "Y2", "Y3", "Y4", "Y5"]]


# --- the base orders -----------------------------------------------------------------------
def test_greedy_sheds_the_most_points_first():
    hand = ["R5", "RS", "W", "G9"]
    assert choice(at("greedy", [hand, *OTHERS], ["R3"])) == "W"
    assert choice(at("greedy", [["R5", "RS", "G9"], *OTHERS], ["R3"])) == "RS"


def test_cautious_plays_numbers_first_and_the_wd4_last():
    assert choice(at("cautious", [["R5", "RS", "W", "G9"], *OTHERS], ["R3"])) == "R5"
    assert choice(at("cautious", [["RS", "W"], *OTHERS], ["R3"])) == "RS"
    assert choice(at("cautious", [["WD4", "W", "G9"], *OTHERS], ["R3"])) == "W"


def test_name_most_held():
    r = at("greedy", [["W", "G1", "G2", "Y3"], *OTHERS], ["R3"])
    r.apply("W")
    assert r.phase == "color" and choice(r) == "color G"


def test_keep_colors_plays_from_the_color_held_most():
    hand = ["R5", "Y5", "Y6", "Y7"]
    assert choice(at("cautious", [hand, *OTHERS], ["B5"])) == "Y5"
    assert choice(at(seat0("cautious", keep_colors=False), [hand, *OTHERS], ["B5"])) == "R5"


# --- defender --------------------------------------------------------------------------------
def test_defender_keeps_its_last_stackable_card():
    hand = ["RD2", "W"]
    assert choice(at("cautious", [hand, *OTHERS], ["R3"], D2D2)) == "RD2"
    assert choice(at("defender", [hand, *OTHERS], ["R3"], D2D2)) == "W"
    # with two in hand one may go; with nothing else to play the last goes too
    assert choice(at("defender", [["RD2", "YD2", "W"], *OTHERS], ["R3"], D2D2)) == "RD2"
    assert choice(at("defender", [["RD2", "G7"], *OTHERS], ["R3"], D2D2)) == "RD2"
    # without stacking the habit has nothing to keep
    assert choice(at("defender", [hand, *OTHERS], ["R3"])) == "RD2"


def test_defender_bounces_a_penalty():
    cc = table("random", "defender", "random", "random", overrides=(D2D2,))
    r = Round.from_position(cc, hands=[["RD2", "G1"], ["YD2", "B1", "B2"], *OTHERS[1:]],
                            draw=FILLER, discard=["R3"], color="R", player=0)
    r.apply("RD2")
    assert r.phase == "pending" and r.current_player == 1 and choice(r) == "YD2"


# --- strategic, one tip at a time ------------------------------------------------------------
def test_save_attack_for_a_next_player_on_one_card():
    hand = ["R5", "RD2", "G7", "B2", "Y3"]
    short = [hand, ["B1"], *OTHERS[1:]]
    assert choice(at("strategic", short, ["R1"])) == "RD2"
    assert choice(at("strategic", [hand, *OTHERS], ["R1"])) == "R5"
    # a Skip waits behind the Reverse while nobody is short
    assert choice(at("strategic", [["RS", "RR", "W"], *OTHERS], ["R1"])) == "RR"
    no_save = seat0("strategic", save_attack=False)
    assert choice(at(no_save, [["RS", "RR", "W"], *OTHERS], ["R1"])) == "RS"


def test_dump_high_value_once_an_opponent_is_nearly_out():
    hand = ["R5", "W", "G7", "B2", "Y3"]
    near = [hand, OTHERS[0], ["G1", "G2"], OTHERS[2]]  # seat 2, not next, holds two
    assert choice(at("strategic", near, ["R1"])) == "W"
    assert choice(at(seat0("strategic", dump_high_value=False), near, ["R1"])) == "R5"
    assert choice(at(seat0("strategic", dump_at=1), near, ["R1"])) == "R5"
    # this seat is the one nearly out: it keeps its wild
    assert choice(at("strategic", [["R5", "W"], OTHERS[0], ["G1", "G2"], OTHERS[2]],
                     ["R1"])) == "R5"


def test_hold_wd4_until_legal_and_useful():
    hand = ["WD4", "W", "B3"]
    assert choice(at("strategic", [hand, *OTHERS], ["R3"])) == "B3"
    near = [hand, ["B1", "B2"], *OTHERS[1:]]  # the next hand holds two: now it is useful
    assert choice(at("strategic", near, ["R3"])) == "WD4"
    assert choice(at(seat0("strategic", hold_wd4=False), near, ["R3"])) == "W"
    # never while illegal (the seat holds red)
    assert choice(at("strategic", [["WD4", "R9", "G1"], ["B1"], *OTHERS[1:]], ["R3"])) == "R9"


def test_reverse_away_from_a_player_about_to_go_out():
    hand = ["RR", "R5", "G7"]
    hands = [hand, ["B1"], *OTHERS[1:]]
    quiet = {"dump_high_value": False}
    assert choice(at(seat0("strategic", **quiet), hands, ["R1"])) == "RR"
    assert choice(at(seat0("strategic", reverse_away=False, **quiet), hands, ["R1"])) == "R5"
    # not when the player it turns to is as short
    hands = [hand, ["B1"], OTHERS[1], ["Y1"]]
    assert choice(at(seat0("strategic", **quiet), hands, ["R1"])) == "R5"


def test_switch_to_a_color_the_next_player_drew_on():
    hands = [["R5", "Y5"], ["B1", "B2"], *OTHERS[1:]]
    plain = at("strategic", hands, ["B5"])
    assert choice(plain) == "R5"
    plain.S.voids[1, 1] = 1  # the next player drew on yellow
    assert choice(plain) == "Y5"
    off = at(seat0("strategic", switch_to_void=False), hands, ["B5"])
    off.S.voids[1, 1] = 1
    assert choice(off) == "R5"


def test_voids_are_public_memory_of_draws():
    cc = table("random", "random", "random", "random")
    r = Round.from_position(cc, hands=[["R5", "RD2", "G1"], ["B1", "B2"], ["R2", "G3"],
                                       ["R3", "Y1"]],
                            draw=["B9", "Y8", "Y9", "G5", "G6"], discard=["R7"],
                            color="R", player=0)
    assert r.S.voids[:4].sum() == 0
    r.apply("R5")
    r.apply("draw")  # seat 1 holds no red: draws B9, not playable
    assert r.S.voids[1].tolist() == [1, 0, 0, 0]
    r.apply("R2")
    r.apply("R3")
    assert r.S.voids[1].tolist() == [1, 0, 0, 0]
    r.apply("RD2")  # seat 1 takes two cards: they may be red
    assert log(r)[-3:] == ["draw 1 Y8 Y9 (draw2)", "skip 1", "turn 2 R RD2"]
    assert r.S.voids[:4].sum() == 0


def test_name_the_color_the_next_player_drew_on():
    r = at("strategic", [["W", "R1", "R2", "G3"], *OTHERS], ["R9"])
    r.S.voids[1, 2] = 1  # the next player drew on green
    r.apply("W")
    assert choice(r) == "color G"
    r = at("cautious", [["W", "R1", "R2", "G3"], *OTHERS], ["R9"])
    r.S.voids[1, 2] = 1
    r.apply("W")
    assert choice(r) == "color R"


def test_target_by_size_for_seven_o():
    hands = [["R7", "G1", "G2"], ["B1", "B2", "B3"], ["G4", "G5"], ["Y1", "Y2", "Y3", "Y4"]]
    r = at("strategic", hands, ["R3"], "house_rules.seven_o=true")
    r.apply("R7")
    assert r.phase == "target" and choice(r) == "target 2"


def test_target_by_size_for_a_special_wild():
    hands = [["WX", "G1", "G2"], ["B1", "B2", "B3"], ["G4", "G5", "G6"], ["Y1"]]
    r = at("strategic", hands, ["R3"], "edition=encanto")
    r.apply("WX")
    r.apply("color G")
    assert r.phase == "target" and choice(r) == "target 3"


def test_call_uno_even_where_players_forget():
    over = "behaviour.uno_forget_rate=1.0"
    for policy, called in (("strategic", "called"), ("cautious", "forgot")):
        r = at(policy, [["R5", "G1"], *OTHERS], ["R3"], over, "behaviour.uno_catch_rate=0.0")
        r.apply("R5")
        assert log(r, kinds=["uno"]) == [f"uno 0 {called}"]


def _facing_wd4(bluff: float, wd4_hand: list[str]) -> Round:
    cc = table(seat0("cautious", bluff_rate=bluff), "strategic", "random", "random")
    r = Round.from_position(cc, hands=[wd4_hand, ["B1", "B2", "B3"], *OTHERS[1:]],
                            draw=FILLER, discard=["G3"], color="G", player=0)
    r.apply("WD4")
    r.apply("color R")
    assert r.phase == "pending" and r.current_player == 1
    return r


def test_challenge_from_public_cards_and_the_declared_bluff_rate():
    big = ["WD4", "R1", "R2", "Y3", "Y4", "B5", "B6", "B7"]
    # a seat that never bluffs only ever plays a legal WD4: never challenged
    assert choice(_facing_wd4(0.0, big)) == "accept"
    # a bluffing seat with seven cards left very likely held green, whatever it holds
    assert choice(_facing_wd4(0.5, big)) == "challenge"
    assert choice(_facing_wd4(0.5, [*big[:-1], "G7"])) == "challenge"
    # with one card kept the chance is small (about 1/4 it was green, then halved)
    assert choice(_facing_wd4(0.5, ["WD4", "G5"])) == "accept"


def test_wd4_illegal_chance_uses_voids():
    r = _facing_wd4(0.5, ["WD4", "R1", "R2", "Y3", "Y4", "B5", "B6", "B7"])
    r.S.voids[0, 2] = 1  # it drew on green and has taken no card since: it holds none
    assert choice(r) == "accept"


def test_bluff_rate_plays_an_illegal_wd4():
    hand = ["WD4", "R5", "G1"]
    assert choice(at(seat0("cautious", bluff_rate=1.0), [hand, *OTHERS], ["R3"])) == "WD4"
    assert choice(at("cautious", [hand, *OTHERS], ["R3"])) == "R5"


@pytest.mark.parametrize(("rate", "expected"), [(1.0, "B5"), (0.0, "pass")])
def test_jump_in_rate(rate, expected):
    cc = table("random", seat0("cautious", jump_in_rate=rate), "random", "random",
               overrides=("house_rules.jump_in=true",))
    r = Round.from_position(cc, hands=[["B5", "G1"], ["B5", "Y2"], *OTHERS[1:]],
                            draw=FILLER, discard=["B3"], color="B", player=0)
    r.apply("B5")
    assert r.phase == "jump" and r.current_player == 1 and choice(r) == expected


# --- params in YAML ----------------------------------------------------------------------------
def test_seats_take_names_or_policy_and_params():
    cfg = validate_config({"seats": [{"policy": "strategic", "params": {"bluff_rate": 0.2}},
                                     "random", "greedy", {"policy": "defender"}]})
    assert cfg.seat_policies == ["strategic", "random", "greedy", "defender"]
    cc = compile_config(cfg)
    assert cc.pp[0, L.P_KIND] == L.POLICY_CODE["strategic"] and cc.pp[0, L.P_BLUFF] == 0.2
    assert cc.pp[0, L.P_CHALLENGE] == 0.25 and cc.pp[0, L.P_DUMP] == 1
    assert (cc.pp[1] == 0).all()  # random: its code and nothing else
    assert cc.pp[2, L.P_SHED] == 1 and cc.pp[2, L.P_NUMBERS] == 0
    assert cc.pp[3, L.P_RESERVE] == 1 and cc.pp[3, L.P_NUMBERS] == 1
    # dumps only what differs from the defaults, and reads back unchanged
    data = config_to_dict(cfg)
    assert data["seats"] == [{"policy": "strategic", "params": {"bluff_rate": 0.2}},
                             "random", "greedy", {"policy": "defender"}]
    assert validate_config(data) == cfg and config_hash(validate_config(data)) == config_hash(cfg)
    assert [str(s) for s in cfg.seats or []] == ["strategic(bluff_rate=0.2)", "random",
                                                "greedy", "defender"]


def test_seats_from_set_and_yaml():
    cfg = load_config("classic", ["seats=[{policy: strategic, params: {bluff_rate: 0.2}}, "
                                  "random, random, random]"])
    assert cfg.seat_params[0] is not None and cfg.seat_params[0].bluff_rate == 0.2
    assert cfg.seat_params[1] is None


@pytest.mark.parametrize(("seat", "message"), [
    ({"policy": "strategic", "params": {"bluf_rate": 0.2}},
     "seats[0].params.bluf_rate: unknown key (did you mean 'bluff_rate'?)"),
    ({"policy": "strategic", "params": {"bluff_rate": 2}},
     "seats[0].params.bluff_rate: must be <= 1.0, got 2"),
    ({"policy": "cautious", "params": {"dump_at": 0}}, "seats[0].params.dump_at: must be >= 1"),
    ({"policy": "cautious", "params": {"hold_wd4": "yes"}},
     "seats[0].params.hold_wd4: expected a boolean"),
    ({"policy": "random", "params": {"bluff_rate": 0.5}},
     "seats[0].params: random takes no params"),
    ({"policy": "smart"}, "seats[0].policy: expected 'random', 'greedy'"),
    ({"policy": "greedy", "style": 1}, "seats[0].style: unknown key"),
    ({"params": {}}, "seats[0].policy: required key is missing"),
    ("smart", "seats[0]: expected a policy (random, greedy, cautious, defender, strategic, "
              "ismcts)"),
    (5, "seats[0]: expected a policy"),
])
def test_bad_seats_are_one_line_errors(seat, message):
    with pytest.raises(ConfigError) as exc:
        validate_config({"seats": [seat, "random", "random", "random"]})
    assert message in str(exc.value) and "\n" not in str(exc.value)


def test_every_param_has_a_column_and_every_policy_a_code():
    assert set(L.PARAM_COLUMNS) == set(HabitParams.model_fields)
    cols = sorted(L.PARAM_COLUMNS.values())
    assert cols == list(range(1, L.NPP)) and L.P_KIND not in cols
    assert set(L.POLICY_CODE) == set(POLICY_NAMES) == {"random", *POLICY_DEFAULTS}
    for name in POLICY_DEFAULTS:
        assert set(POLICY_DEFAULTS[name]) <= set(HabitParams.model_fields)
    assert L.POLICY_PARAMS["random"] == {c: 0.0 for c in range(L.NPP)}


def test_policy_param_rows_match_compile_config():
    for name in POLICY_NAMES:
        cc = compile_config(load_config("classic", [f"policy={name}"]))
        row = np.array([L.POLICY_PARAMS[name][c] for c in range(L.NPP)])
        assert (cc.pp == row).all()


# --- the headline figure ------------------------------------------------------------------------
def rotated_win_rate(policy: str, rounds: int = 100_000, seed: int = 11) -> tuple[int, int]:
    """Wins of one ``policy`` seat against three ``random`` ones, the seat
    rotated over the four places (a quarter of the rounds each)."""
    wins = n = 0
    for seat in range(4):
        seats = ["random"] * 4
        seats[seat] = policy
        cc = compile_config(load_config("classic", [f"seats=[{', '.join(seats)}]"]))
        agg, _ = simulate(cc, seed=seed, start=0, count=rounds // 4)
        wins += int(agg["wins_seat"][seat])
        n += int(agg["counts"][COUNT_ROUNDS])
    return wins, n


def test_strategic_beats_three_random_seats():
    wins, n = rotated_win_rate("strategic")
    rate, low, high = wilson_interval(wins, n)
    assert n == 100_000
    assert low > 0.25, f"strategic wins {rate:.4f} [{low:.4f}, {high:.4f}]"
