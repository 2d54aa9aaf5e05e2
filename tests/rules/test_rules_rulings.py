"""The rulings people argue about (docs/rules.md §12), one stacked-deck story each,
then every ruling (alone and with the house rules and editions) through the
replay checker, played by every built-in policy."""

from __future__ import annotations

from pathlib import Path

import pytest
from replay_checker import assert_valid_trace
from rules_helpers import cfg, log

from unosim.engine.game import IllegalActionError, Round, action_name, play_game
from unosim.engine.kernel.state import compile_config
from unosim.rules.config import load_config

FILLER = ["B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "Y1", "Y2", "Y3"]
HR = "house_rules."
ANY = HR + "draw_then_play=any"
NONE = HR + "draw_then_play=none"
FORCED = HR + "forced_play=true"
FREE_WD4 = HR + "wd4_unrestricted=true"
NO_CHALLENGE = HR + "challenge=false"
DEFLECT = HR + "deflect=true"
NO_ACTION_FINISH = HR + "no_action_finish=true"
MULTI = HR + "multiple_play=true"
SAME_NUMBER = HR + "jump_in=same_number"
SEVEN_O = HR + "seven_o=true"
SWAP_NEXT = HR + "seven_o_swap=next"
PASS_LEFT = HR + "seven_o_pass=left"
LAST_NO_DRAW = HR + "last_card_draws=false"
D2D2 = HR + "stacking.draw_two_on_draw_two=true"
DUP = HR + "draw_until_play=true"


def at(hands, discard, *overrides, player=0, draw=FILLER, color=None, direction=1):
    cc = cfg(f"players={len(hands)}", *overrides)
    return Round.from_position(cc, hands=hands, draw=list(draw), discard=list(discard),
                               color=color or discard[-1][0], player=player,
                               direction=direction)


# --- draw_then_play -------------------------------------------------------------------
def test_draw_then_play_drawn_is_the_printed_rule():
    r = at([["R1", "G2"], ["B1"], ["B2"]], ["R7"], draw=["R5", "Y9"])
    r.apply("draw")
    assert r.phase == "drawn" and r.legal_action_names() == ["R5", "pass"]


def test_draw_then_play_any_lets_any_legal_card_follow():
    r = at([["R1", "G2"], ["B1"], ["B2"]], ["R7"], ANY, draw=["R5", "Y9"])
    r.apply("draw")  # a voluntary draw: R1 was playable
    assert r.legal_action_names() == ["R1", "R5", "pass"]
    r.apply("R1")
    assert log(r)[1:4] == ["draw 0 R5 (turn)", "play 0 R1 R", "turn 1 R R1"]


def test_draw_then_play_any_after_an_unplayable_draw():
    r = at([["R1", "G2"], ["B1"], ["B2"]], ["R7"], ANY, draw=["G5", "Y9"])
    r.apply("draw")
    assert r.legal_action_names() == ["R1", "pass"]


def test_draw_then_play_none_ends_the_turn():
    r = at([["G1", "G2"], ["B1"], ["B2"]], ["R7"], NONE, draw=["R5", "Y9"])
    r.apply("draw")
    assert log(r)[1:] == ["draw 0 R5 (turn)", "turn 1 R R7"]


def test_draw_then_play_none_under_draw_until_play_still_plays():
    r = at([["G1", "G2"], ["B1"], ["B2"]], ["R7"], NONE, DUP, draw=["Y9", "R5"])
    r.apply("draw")
    assert r.legal_action_names() == ["R5"]


# --- forced_play ------------------------------------------------------------------------
def test_forced_play_forbids_drawing_with_a_legal_card():
    r = at([["R1", "G2"], ["B1"], ["B2"]], ["R7"], FORCED)
    assert r.legal_action_names() == ["R1"]
    with pytest.raises(IllegalActionError):
        r.apply("draw")


def test_forced_play_draws_without_one_and_must_play_it():
    r = at([["G1", "G2"], ["B1"], ["B2"]], ["R7"], FORCED, draw=["R5", "Y9"])
    assert r.legal_action_names() == ["draw"]
    r.apply("draw")
    assert r.legal_action_names() == ["R5"]


def test_forced_play_off_allows_a_draw_by_choice():
    r = at([["R1", "G2"], ["B1"], ["B2"]], ["R7"])
    assert "draw" in r.legal_action_names()


# --- wd4_unrestricted and challenge -----------------------------------------------------
def test_wd4_unrestricted_plays_over_the_active_color_and_cannot_be_challenged():
    r = at([["WD4", "R1", "G2"], ["B1", "B3"], ["B2"]], ["R7"], FREE_WD4)
    assert "WD4" in r.legal_action_names()
    r.apply("WD4")
    r.apply("color G")
    assert log(r)[1:] == ["play 0 WD4 G", "draw 1 B1 B2 B3 B4 (wd4)", "skip 1", "turn 2 G WD4"]


def test_wd4_restricted_by_default():
    r = at([["WD4", "R1", "G2"], ["B1"], ["B2"]], ["R7"])
    assert "WD4" not in r.legal_action_names()


def test_challenge_off_keeps_the_color_condition():
    r = at([["WD4", "R1", "G2"], ["B1", "B3"], ["B2"]], ["R7"], NO_CHALLENGE)
    assert "WD4" not in r.legal_action_names()
    r = at([["WD4", "G2"], ["B1", "B3"], ["B2"]], ["R7"], NO_CHALLENGE)
    r.apply("WD4")
    r.apply("color B")
    assert log(r)[3:5] == ["draw 1 B1 B2 B3 B4 (wd4)", "skip 1"]  # no choice: no challenge


def test_challenge_on_by_default():
    r = at([["WD4", "G2"], ["B1", "B3"], ["B2"]], ["R7"])
    r.apply("WD4")
    r.apply("color B")
    assert r.legal_action_names() == ["accept", "challenge"]


# --- deflect ----------------------------------------------------------------------------
def test_deflect_reverse_sends_the_draw_back():
    r = at([["RD2", "G1", "G2"], ["RR", "B1"], ["B2", "G3"], ["B3", "G4"]], ["R7"], DEFLECT)
    r.apply("RD2")
    assert r.legal_action_names() == ["RR", "accept"]
    r.apply("RR")
    assert log(r)[1:] == ["play 0 RD2 R", "turn 1 R RD2", "play 1 RR R", "uno 1 called",
                          "reverse -1", "draw 0 B1 B2 (draw2)", "skip 0", "turn 3 R RR"]
    assert r.stats["turns"] == 3  # the deflection is a regular turn, like a stack


def test_deflect_skip_passes_the_draw_on():
    r = at([["RD2", "G1", "G2"], ["RS", "B1", "Y5"], ["B2", "G3"], ["B3", "G4"]], ["R7"],
           DEFLECT)
    r.apply("RD2")
    r.apply("RS")
    assert log(r)[3:] == ["play 1 RS R", "draw 2 B1 B2 (draw2)", "skip 2", "turn 3 R RS"]


def test_deflect_needs_the_active_color():
    r = at([["WD4", "G1", "G2"], ["RR", "GS", "B1"], ["B2"], ["B3"]], ["R7"], DEFLECT)
    r.apply("WD4")
    r.apply("color G")
    assert r.legal_action_names() == ["GS", "accept", "challenge"]
    r.apply("GS")  # a deflected WD4 cannot be challenged: seat 2 has no choice
    assert log(r)[-4:] == ["play 1 GS G", "draw 2 B1 B2 B3 B4 (wd4)", "skip 2", "turn 3 G GS"]


def test_deflect_off_by_default():
    r = at([["RD2", "G1", "G2"], ["RR", "B1"], ["B2"], ["B3"]], ["R7"])
    r.apply("RD2")
    assert log(r)[2:4] == ["draw 1 B1 B2 (draw2)", "skip 1"]


def test_deflect_with_stacking_moves_the_whole_total():
    hands = [["RD2", "G1", "G2"], ["YD2", "B1"], ["YR", "B2", "G3"], ["B3", "G4"]]
    r = at(hands, ["R7"], DEFLECT, D2D2)
    r.apply("RD2")
    r.apply("YD2")
    r.apply("YR")  # back to seat 1, who played the last Draw Two
    assert log(r)[-3:] == ["draw 1 B1 B2 B3 B4 (stack)", "skip 1", "turn 0 Y YR"]


def test_deflect_with_the_last_card_still_draws():
    r = at([["RD2", "G1", "G2"], ["RS"], ["B2"], ["B3"]], ["R7"], DEFLECT)
    r.apply("RD2")
    r.apply("RS")
    assert log(r)[-2:] == ["draw 2 B1 B2 (draw2)", "end 1 11"]


# --- no_action_finish --------------------------------------------------------------------
def test_no_action_finish_forbids_a_last_action_card_or_wild():
    for last in ("RS", "W", "WD4", "RD2"):
        r = at([[last], ["B1", "B2"], ["B2", "B3"]], ["R7"], NO_ACTION_FINISH)
        assert r.legal_action_names() == ["draw"], last


def test_no_action_finish_allows_a_last_number():
    r = at([["R1"], ["B1", "B2"], ["B2", "B3"]], ["R7"], NO_ACTION_FINISH)
    r.apply("R1")
    assert log(r)[-1] == "end 0 8"


def test_no_action_finish_no_last_card_stack_or_jump():
    r = at([["RD2", "G1", "G2"], ["YD2"], ["B2"], ["B3"]], ["R7"], NO_ACTION_FINISH, D2D2)
    r.apply("RD2")  # seat 1 may not stack its last card: it must draw
    assert log(r)[2:4] == ["draw 1 B1 B2 (draw2)", "skip 1"]
    r = at([["RS", "G1"], ["B1", "B2"], ["RS"]], ["R7"], NO_ACTION_FINISH,
           HR + "jump_in=true")
    r.apply("RS")
    assert r.phase == "turn" and r.current_player == 2


def test_no_action_finish_off_allows_a_last_skip():
    r = at([["RS"], ["B1", "B2"], ["B2", "B3"]], ["R7"])
    assert r.legal_action_names() == ["RS", "draw"]


# --- multiple_play -----------------------------------------------------------------------
def test_multiple_play_drops_the_same_number():
    r = at([["R5", "G5", "B5", "Y1"], ["B1"], ["B2"]], ["R7"], MULTI)
    r.apply("R5")
    assert r.phase == "multi" and r.legal_action_names() == ["G5", "B5", "pass"]
    r.apply("B5")
    r.apply("G5")
    assert log(r)[1:] == ["play 0 R5 R", "play 0 B5 B", "play 0 G5 G", "uno 0 called",
                          "turn 1 G G5"]
    assert r.stats["played"] == 3 and r.stats["turns"] == 2


def test_multiple_play_may_stop_early_and_go_out():
    r = at([["R5", "G5", "Y1"], ["B1"], ["B2"]], ["R7"], MULTI)
    r.apply("R5")
    r.apply("pass")
    assert log(r)[-1] == "turn 1 R R5"
    r = at([["R5", "G5"], ["B1"], ["B2"]], ["R7"], MULTI)
    r.apply("R5")
    r.apply("G5")
    assert log(r)[-1] == "end 0 3"


def test_multiple_play_numbers_only():
    r = at([["RS", "GS", "Y1"], ["B1", "B3"], ["B2", "B4"]], ["R7"], MULTI)
    r.apply("RS")
    assert log(r)[2] == "skip 1"


def test_multiple_play_off_plays_one_card():
    r = at([["R5", "G5", "Y1"], ["B1"], ["B2"]], ["R7"])
    r.apply("R5")
    assert r.phase == "turn" and r.current_player == 1


# --- jump_in: same_number -----------------------------------------------------------------
def test_jump_in_same_number_any_color():
    r = at([["R5", "G1"], ["B1", "B2"], ["Y5", "B3"]], ["R7"], SAME_NUMBER)
    r.apply("R5")
    assert r.phase == "jump" and r.current_player == 2
    assert r.legal_action_names() == ["Y5", "pass"]
    r.apply("Y5")
    assert log(r)[2:] == ["uno 0 called", "jump 2 Y5", "play 2 Y5 Y", "uno 2 called",
                          "turn 0 Y Y5"]


def test_jump_in_same_number_identical_action_cards_only():
    r = at([["RS", "G1"], ["B1", "B2"], ["YS", "B3"], ["RS", "B4"]], ["R7"], SAME_NUMBER)
    r.apply("RS")
    assert r.phase == "jump" and r.current_player == 3


def test_jump_in_identical_only_by_default():
    r = at([["R5", "G1"], ["B1", "B2"], ["Y5", "B3"]], ["R7"], HR + "jump_in=true")
    r.apply("R5")
    assert r.phase == "turn" and r.current_player == 1


# --- seven_o options ----------------------------------------------------------------------
def test_seven_o_swap_next_swaps_with_the_next_player():
    r = at([["R7", "G1", "G2"], ["B1"], ["B2", "B3"]], ["R3"], SEVEN_O, SWAP_NEXT)
    r.apply("R7")
    assert log(r)[1:] == ["play 0 R7 R", "swap 0 1", "turn 1 R R7"]
    assert r.hand(0) == ["B1"]


def test_seven_o_swap_chosen_by_default():
    r = at([["R7", "G1", "G2"], ["B1"], ["B2", "B3"]], ["R3"], SEVEN_O)
    r.apply("R7")
    assert r.phase == "target"


def test_seven_o_pass_left_whatever_the_direction():
    r = at([["R0", "G1"], ["B1"], ["B2"]], ["R3"], SEVEN_O, PASS_LEFT, direction=-1)
    r.apply("R0")
    assert log(r)[2:4] == ["uno 0 called", "rotate +1"]
    assert r.hand(1) == ["G1"] and r.hand(2) == ["B1"] and r.hand(0) == ["B2"]


def test_seven_o_pass_in_the_direction_of_play_by_default():
    r = at([["R0", "G1"], ["B1"], ["B2"]], ["R3"], SEVEN_O, direction=-1)
    r.apply("R0")
    assert log(r)[2:4] == ["uno 0 called", "rotate -1"]


# --- last_card_draws -----------------------------------------------------------------------
def test_last_card_draws_false_no_draw_on_a_last_draw_two():
    r = at([["RD2"], ["B1", "B2"], ["B3"]], ["R7"], LAST_NO_DRAW)
    r.apply("RD2")
    assert log(r)[1:] == ["play 0 RD2 R", "end 0 6"]


def test_last_card_draws_by_default():
    r = at([["RD2"], ["B1", "B2"], ["B3"]], ["R7"])
    r.apply("RD2")
    assert log(r)[1:] == ["play 0 RD2 R", "draw 1 B1 B2 (draw2)", "end 0 9"]


# --- how the built-in policies play them -------------------------------------------------
def seated(policy: str, hands, discard, *overrides, player=1, direction=1):
    """Every seat plays ``policy``; ``player`` (seat 0 by default) starts."""
    seats = ",".join([policy] * len(hands))
    return at(hands, discard, f"seats=[{seats}]", *overrides, player=player,
              direction=direction)


def choice(r: Round) -> str:
    a = r.policy_action()
    assert a in r.legal_actions()
    return action_name(a)


@pytest.mark.parametrize("policy", ["strategic", "defender", "greedy", "cautious", "random"])
def test_deflect_every_policy_deflects_rather_than_draw(policy: str) -> None:
    hands = [["G1", "G2", "G3"], ["RD2", "B5", "B6"], ["RS", "Y1", "Y2"], ["B3", "B4", "G4"]]
    r = seated(policy, hands, ["R7"], DEFLECT)
    r.apply("RD2")
    assert r.current_player == 2 and choice(r) == "RS"


def test_deflect_strategic_sends_the_draw_to_the_smaller_hand() -> None:
    # seat 1 plays the Draw Two; seat 2 holds both a Skip and a Reverse of red
    short_back = [["G1", "G2", "G3", "G4", "G5"], ["RD2", "B5", "B6"], ["RS", "RR", "Y1"],
                  ["B3", "B4", "G6", "G7", "G8"]]
    r = seated("strategic", short_back, ["R7"], DEFLECT)
    r.apply("RD2")
    assert choice(r) == "RR"  # seat 1 (two cards left) gets it back
    short_ahead = [["G1", "G2", "G3", "G4", "G5"], ["RD2", "B5", "B6", "B7", "B8"],
                   ["RS", "RR", "Y1"], ["B3", "B4", "G6"]]
    r = seated("strategic", short_ahead, ["R7"], DEFLECT)
    r.apply("RD2")
    assert choice(r) == "RS"  # seat 3 (three cards) rather than seat 1 (four)


def test_deflect_defender_keeps_a_skip_in_reserve() -> None:
    hands = [["RS", "R1", "G3"], ["B1", "B2"], ["Y1", "Y2"]]
    r = seated("defender", hands, ["R7"], DEFLECT, player=0)
    assert choice(r) == "R1"
    r = seated("cautious", hands, ["R7"], DEFLECT, player=0)
    assert choice(r) in ("R1", "RS")


def test_multiple_play_each_policy_decides_how_many() -> None:
    hands = [["R5", "G5", "B5", "B1", "Y7"], ["B2", "B3"], ["B4", "B6"]]
    dropped = {}
    for policy in ("greedy", "cautious", "strategic", "random"):
        r = seated(policy, hands, ["R7"], MULTI, player=0)
        r.apply("R5")
        while r.phase == "multi":
            r.step()
        dropped[policy] = sum(1 for line in log(r) if line.startswith("play 0"))
    # greedy and random drop every 5; keep_colors seats keep G5, the last green
    assert dropped == {"greedy": 3, "cautious": 2, "strategic": 2, "random": 3}


def test_forced_play_binds_every_policy() -> None:
    hands = [["R1", "WD4", "G3"], ["B1", "B2"], ["Y1", "Y2"]]
    for policy in ("greedy", "cautious", "defender", "strategic", "random"):
        r = seated(policy, hands, ["R7"], FORCED, player=0)
        assert "draw" not in r.legal_action_names() and choice(r) == "R1"


# --- every ruling through the replay checker, with every policy ------------------------------
RULINGS = [
    [ANY], [NONE], [FORCED], [FREE_WD4], [NO_CHALLENGE], [DEFLECT], [NO_ACTION_FINISH], [MULTI],
    [SAME_NUMBER], [SEVEN_O, SWAP_NEXT], [SEVEN_O, PASS_LEFT], [LAST_NO_DRAW],
]
CONFIGS = Path(__file__).resolve().parents[2] / "configs"
POLICIES = ["random", "greedy", "cautious", "defender", "strategic"]


def replay(config: str, overrides: list[str], games: int = 3) -> None:
    c = load_config(CONFIGS / config, overrides)
    cc = compile_config(c)
    for seed in range(games):
        assert_valid_trace(play_game(cc, seed), policies=c.seat_policies,
                           allow_bluffs=any(p != "random" for p in c.seat_policies))


@pytest.mark.parametrize("ruling", RULINGS, ids=[r[-1].split(".")[1] for r in RULINGS])
def test_rulings_replay_with_every_policy(ruling: list[str]) -> None:
    replay("classic.yaml", [*ruling, "seats=[random,greedy,defender,strategic]"])
    replay("classic.yaml", [*ruling, "seats=[cautious,strategic]", "players=2"], 2)


@pytest.mark.parametrize(("config", "extra"), [
    ("chaos.yaml", []), ("chaos.yaml", ["players=2"]), ("disney100.yaml", ["players=3"]),
    ("disney_wish.yaml", []), ("encanto.yaml", ["behaviour.dont_talk_slip_rate=0.5"]),
    ("classic_1992.yaml", ["players=2"]), ("match.yaml", ["scoring=elimination", "target=150"]),
])
def test_all_rulings_with_the_house_rules_and_editions(config: str, extra: list[str]) -> None:
    every = [ANY, FORCED, DEFLECT, NO_ACTION_FINISH, MULTI, SAME_NUMBER, SWAP_NEXT, PASS_LEFT,
             LAST_NO_DRAW]
    replay(config, [*every, *extra])
    replay(config, [*every, NO_CHALLENGE, FREE_WD4, NONE, "policy=strategic", *extra])


# --- unosim rulings and the config vocabulary ------------------------------------------------
def test_unosim_rulings_lists_every_switch_from_its_declaration() -> None:
    import json

    from click.testing import CliRunner

    from unosim.cli import main
    from unosim.rules.settings import house_rule_switches

    text = CliRunner().invoke(main, ["rulings"])
    assert text.exit_code == 0, text.output
    out = CliRunner().invoke(main, ["rulings", "--format", "json"])
    rows = json.loads(out.output)
    assert [r["key"] for r in rows] == list(house_rule_switches())
    by_key = {r["key"]: r for r in rows}
    assert by_key["house_rules.challenge"]["default"] is True
    assert by_key["house_rules.draw_then_play"]["values"] == "drawn|any|none"
    assert by_key["house_rules.jump_in"]["values"] == "true|false|same_number"
    assert {r["section"] for r in rows} == {6, 12}
    for r in rows:
        assert r["label"] and r["source"], r
        assert r["key"] in text.output and r["label"] in text.output


@pytest.mark.parametrize(("override", "message"), [
    ("house_rules.draw_then_play=maybe", "house_rules.draw_then_play: "),
    ("house_rules.jump_in=sometimes", "house_rules.jump_in: expected true, false or same_number"),
    ("house_rules.deflect=3", "house_rules.deflect: "),
    ("house_rules.seven_o_pass=right", "house_rules.seven_o_pass: "),
])
def test_bad_ruling_values_are_one_line_errors_naming_the_key(override: str, message: str) -> None:
    from unosim.rules.errors import ConfigError

    with pytest.raises(ConfigError) as exc:
        load_config("classic", [override])
    assert message in str(exc.value) and "\n" not in str(exc.value)


def test_rulings_in_yaml_like_house_rules(tmp_path: Path) -> None:
    path = tmp_path / "ruled.yaml"
    path.write_text("extends: classic.yaml\nhouse_rules:\n  deflect: true\n"
                    "  jump_in: same_number\n  draw_then_play: none\n")
    c = load_config(path)
    assert c.house_rules.deflect and c.house_rules.jump_in == "same_number"
    assert c.house_rules.draw_then_play == "none"
    from unosim.rules.settings import rules_on

    assert rules_on(c) == ["jump-in on the same number", "drawing ends the turn",
                           "deflect a draw with Reverse or Skip"]


def test_all_rulings_with_a_search_seat() -> None:
    """ismcts chooses among the legal actions, which every ruling constrains."""
    every = [ANY, FORCED, DEFLECT, NO_ACTION_FINISH, MULTI, SAME_NUMBER, SEVEN_O, SWAP_NEXT,
             LAST_NO_DRAW, D2D2]
    replay("classic.yaml", [*every, "seats=[{policy: ismcts, params: {iterations: 30}}, "
                                    "random, strategic, defender]"], 2)
