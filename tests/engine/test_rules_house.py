"""House rules (docs/rules.md §6 and its fine print in §10): stacking,
jump-in, Seven-O, draw until play and the two-player Reverse."""

from __future__ import annotations

import pytest
from rules_helpers import cfg, deck_for, fresh_cfg, log, same

from unosim.engine.game import IllegalActionError, Round
from unosim.engine.kernel import state as L

FILLER = ["B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "Y1", "Y2", "Y3"]
D2D2 = "house_rules.stacking.draw_two_on_draw_two=true"
W4W4 = "house_rules.stacking.wd4_on_wd4=true"
W4D2 = "house_rules.stacking.wd4_on_draw_two=true"
D2W4 = "house_rules.stacking.draw_two_on_wd4=true"
ALL_STACKING = (D2D2, W4W4, W4D2, D2W4)
JUMP = "house_rules.jump_in=true"
SEVEN_O = "house_rules.seven_o=true"
DUP = "house_rules.draw_until_play=true"
TPR = "house_rules.two_player_reverse=true"


def at(hands, discard, *overrides, player=0, draw=FILLER, color=None, direction=1, cc=None):
    if cc is None:
        cc = cfg(f"players={len(hands)}", *overrides)
    return Round.from_position(cc, hands=hands, draw=list(draw), discard=list(discard),
                               color=color or discard[-1][0], player=player,
                               direction=direction)


# --- stacking ---------------------------------------------------------------------------
def test_stacking_chain_of_three_after_a_reverse():
    hands = [["RR", "G1", "G2"], ["BD2", "B1", "B2"], ["YD2", "Y5", "Y6"], ["RD2", "R1", "R2"]]
    r = at(hands, ["R7"], D2D2)
    r.apply("RR")  # direction -1: seat 3 is next
    assert r.current_player == 3
    r.apply("RD2")
    assert r.phase == "pending" and r.current_player == 2 and r.pending == 2
    assert r.legal_action_names() == ["YD2", "accept"]  # a Draw Two of any color stacks
    r.apply("YD2")
    assert r.current_player == 1 and r.pending == 4
    r.apply("BD2")
    # seat 0 holds no Draw Two: the total of six reaches it and is drawn at once
    assert log(r)[3:] == ["turn 3 R RR", "play 3 RD2 R", "turn 2 R RD2", "play 2 YD2 Y",
                          "turn 1 Y YD2", "play 1 BD2 B", "draw 0 B1 B2 B3 B4 B5 B6 (stack)",
                          "skip 0", "turn 3 B BD2"]
    assert r.pending == 0 and r.direction == -1
    # regular turns: seat 0, seat 3, the two stacks, seat 3 again; accepting is not a turn
    assert r.stats["turns"] == 5
    assert r.stats["drawn_by_cause"]["stack"] == 6


def test_accepting_a_stackable_draw_two():
    r = at([["RD2", "G1", "G2"], ["YD2", "B1"], ["B2"], ["B3"]], ["R7"], D2D2)
    r.apply("RD2")
    r.apply("accept")
    assert log(r)[1:] == ["play 0 RD2 R", "draw 1 B1 B2 (draw2)", "skip 1", "turn 2 R RD2"]
    assert same(r.hand(1), ["YD2", "B1", "B1", "B2"])


@pytest.mark.parametrize("overrides,stackable", [
    ((), []),
    ((D2D2,), ["YD2"]),
    ((W4D2,), ["WD4"]),
    ((D2D2, W4D2), ["YD2", "WD4"]),
    ((W4W4, D2W4), []),  # switches for a pending WD4 do not apply to a Draw Two
])
def test_stacking_switches_on_a_pending_draw_two(overrides, stackable):
    r = at([["RD2", "G1", "G2"], ["YD2", "WD4", "B1"], ["B2"], ["B3"]], ["R7"], *overrides)
    r.apply("RD2")
    if stackable:
        assert r.phase == "pending" and r.legal_action_names() == stackable + ["accept"]
    else:
        assert log(r)[2:4] == ["draw 1 B1 B2 (draw2)", "skip 1"]


@pytest.mark.parametrize("overrides,hand,stackable", [
    ((), ["YD2", "BD2", "WD4", "G3"], []),
    ((W4W4,), ["YD2", "WD4", "G3"], ["WD4"]),
    ((W4W4,), ["YD2", "BD2", "WD4", "G3"], []),  # holding the named blue makes it illegal
    ((D2W4,), ["YD2", "BD2", "WD4", "G3"], ["BD2"]),  # a Draw Two must match the named color
    ((W4W4, D2W4), ["BD2", "RD2", "WD4"], ["BD2"]),
    ((W4W4, D2W4), ["RD2", "WD4"], ["WD4"]),
    ((D2D2, W4D2), ["YD2", "BD2", "WD4", "G3"], []),
])
def test_stacking_switches_on_a_pending_wd4(overrides, hand, stackable):
    r = at([["WD4", "G1", "G2"], hand, ["B2"], ["B3"]], ["R7"], *overrides)
    r.apply("WD4")
    r.apply("color B")
    # the WD4 starts the chain: it may always be challenged
    assert r.legal_action_names() == stackable + ["accept", "challenge"]


def test_stacked_wd4_must_meet_the_color_condition():
    # seat 1 holds blue, the color named for the first WD4: its own WD4 would be illegal
    r = at([["WD4", "G1", "G2"], ["WD4", "B5"], ["B2"], ["B3"]], ["R7"], W4W4)
    r.apply("WD4")
    r.apply("color B")
    assert r.legal_action_names() == ["accept", "challenge"]
    with pytest.raises(IllegalActionError):
        r.apply("WD4")


def test_wd4_on_wd4_no_challenge_on_the_stacked_one():
    hands = [["WD4", "G1", "G2"], ["WD4", "G3", "G4"], ["WD4", "G5", "B9"], ["B3", "Y3"]]
    r = at(hands, ["R7"], W4W4)
    r.apply("WD4")
    r.apply("color B")
    assert r.legal_action_names() == ["WD4", "accept", "challenge"]
    r.apply("WD4")  # seat 1 stacks (it holds no blue)
    assert r.phase == "color" and r.current_player == 1
    r.apply("color G")
    # seat 2 faces 8: it holds green so cannot stack, and a stacked WD4 is not challenged
    assert log(r)[1:] == ["play 0 WD4 B", "turn 1 B WD4", "play 1 WD4 G",
                          "draw 2 B1 B2 B3 B4 B5 B6 B7 B8 (stack)", "skip 2", "turn 3 G WD4"]


def test_wd4_on_wd4_offered_but_seat_may_challenge_instead():
    hands = [["WD4", "G1", "G2"], ["WD4", "G3", "G4"], ["B2"], ["B3"]]
    r = at(hands, ["R7"], W4W4, W4D2, D2D2, D2W4)
    r.apply("WD4")
    r.apply("color B")
    assert r.legal_action_names() == ["WD4", "accept", "challenge"]
    r.apply("challenge")  # the WD4 was legal: six cards and the turn is lost
    assert log(r)[2:] == ["challenge 1 0 fail", "draw 1 B1 B2 B3 B4 B5 B6 (challenge)", "skip 1",
                          "turn 2 B WD4"]


def test_challenge_of_a_bluffed_wd4_that_starts_a_chain():
    cc = fresh_cfg(*ALL_STACKING)
    cc.pp[0, L.P_BLUFF] = 1.0
    hands = [["WD4", "R1", "G2"], ["WD4", "BD2", "G4"], ["B2"], ["B3"]]
    r = at(hands, ["R7"], cc=cc)
    r.apply("WD4")
    r.apply("color B")
    assert r.legal_action_names() == ["BD2", "accept", "challenge"]
    r.apply("challenge")
    assert log(r)[2:] == ["challenge 1 0 success", "draw 0 B1 B2 B3 B4 (challenge)",
                          "turn 1 B WD4"]
    assert r.pending == 0 and r.phase == "turn"  # seat 1 plays normally, nothing pending
    assert r.legal_action_names() == ["BD2", "draw"]


def test_draw_two_on_wd4_then_wd4_on_draw_two():
    hands = [["WD4", "G1", "G2"], ["BD2", "G3", "G4"], ["WD4", "G5", "G6"], ["Y3", "Y4"]]
    r = at(hands, ["R7"], *ALL_STACKING)
    r.apply("WD4")
    r.apply("color B")
    r.apply("BD2")
    assert r.current_player == 2 and r.pending == 6
    assert r.legal_action_names() == ["WD4", "accept"]  # seat 2 holds no blue; no challenge
    r.apply("WD4")
    r.apply("color Y")
    # seat 3 cannot stack anything: ten cards
    assert log(r)[-3:] == ["draw 3 B1 B2 B3 B4 B5 B6 B7 B8 B9 Y1 (stack)", "skip 3", "turn 0 Y WD4"]


def test_last_card_on_a_chain_passes_the_whole_total():
    hands = [["RD2", "G1", "G2"], ["YD2"], ["GD2", "B3"], ["B4"]]
    r = at(hands, ["R7"], D2D2)
    r.apply("RD2")
    r.apply("YD2")  # seat 1's last card: seat 2 draws four, no further stacking
    assert log(r)[1:] == ["play 0 RD2 R", "turn 1 R RD2", "play 1 YD2 Y",
                          "draw 2 B1 B2 B3 B4 (stack)", "end 1 " + str(3 + 20 + 3 + 4 + 1 + 2 + 3 + 4)]


def test_last_card_wd4_on_a_chain_cannot_be_challenged():
    hands = [["RD2", "G1", "G2"], ["WD4"], ["WD4", "B3"], ["B4"]]
    r = at(hands, ["R7"], *ALL_STACKING)
    r.apply("RD2")
    r.apply("WD4")
    r.apply("color G")
    assert r.is_over and log(r)[-2:] == ["draw 2 B1 B2 B3 B4 B5 B6 (stack)", f"end 1 {3 + 3 + 50 + 4 + 21}"]


def test_random_policy_stacks_when_it_can():
    r = at([["RD2", "G1", "G2"], ["YD2", "B1"], ["B2"], ["B3"]], ["R7"], D2D2)
    r.apply("RD2")
    assert r.policy_action() == r.legal_actions()[0]  # YD2, never accept
    r.step()
    assert log(r)[-6:-1] == ["turn 1 R RD2", "play 1 YD2 Y", "uno 1 called", "draw 2 B1 B2 B3 B4 (stack)",
                           "skip 2"]


# --- jump-in --------------------------------------------------------------------------------
def test_jump_in_on_a_number_play_continues_from_the_jumper():
    hands = [["R5", "G1", "G2"], ["B1", "B2"], ["R5", "G3", "G4"], ["B3", "B4"]]
    r = at(hands, ["R7"], JUMP)
    r.apply("R5")
    assert r.phase == "jump" and r.current_player == 2
    assert r.legal_action_names() == ["R5", "pass"]
    r.apply("R5")
    assert log(r)[1:] == ["play 0 R5 R", "jump 2 R5", "play 2 R5 R", "turn 3 R R5"]
    assert r.stats["jumps"] == 1 and r.stats["turns"] == 2  # a jump-in is not a turn


def test_jump_in_declined_play_goes_on():
    hands = [["R5", "G1", "G2"], ["B1", "B2"], ["R5", "G3", "G4"], ["B3", "B4"]]
    r = at(hands, ["R7"], JUMP)
    r.apply("R5")
    r.apply("pass")
    assert log(r)[1:] == ["play 0 R5 R", "turn 1 R R5"]


def test_jump_in_on_a_skip_skips_the_player_after_the_jumper():
    hands = [["RS", "G1", "G2"], ["B1", "B2"], ["B5", "B6"], ["RS", "B3", "B4"]]
    r = at(hands, ["R7"], JUMP)
    r.apply("RS")
    assert r.phase == "jump" and r.current_player == 3
    r.apply("RS")
    assert log(r)[1:] == ["play 0 RS R", "skip 1", "jump 3 RS", "play 3 RS R", "skip 0",
                          "turn 1 R RS"]


def test_jump_in_order_after_a_reverse_uses_the_new_direction():
    cc = cfg("players=4", "decks=2", JUMP)
    hands = [["RR", "G1", "G2"], ["RR", "B1", "B2"], ["B5", "B6"], ["RR", "B3", "B4"]]
    r = at(hands, ["R7"], cc=cc)
    r.apply("RR")  # direction -1: seat 3 comes before seat 1
    assert r.phase == "jump" and r.current_player == 3
    r.apply("RR")  # back to +1: seat 0 next, and seat 1 may now jump on seat 3's card
    assert r.phase == "jump" and r.current_player == 1
    r.apply("RR")
    assert log(r)[1:] == ["play 0 RR R", "reverse -1", "jump 3 RR", "play 3 RR R", "reverse +1",
                          "jump 1 RR", "play 1 RR R", "reverse -1", "turn 0 R RR"]


def test_jump_in_on_a_draw_two_after_the_penalty_is_taken():
    hands = [["RD2", "G1", "G2"], ["B1", "B2"], ["RD2", "G3", "G4"], ["B3", "B4"]]
    r = at(hands, ["R7"], JUMP, draw=["Y1", "Y2", "Y3", "Y4", "Y5"])
    r.apply("RD2")
    assert r.phase == "jump" and r.current_player == 2
    r.apply("RD2")
    assert log(r)[1:] == ["play 0 RD2 R", "draw 1 Y1 Y2 (draw2)", "skip 1", "jump 2 RD2",
                          "play 2 RD2 R", "draw 3 Y3 Y4 (draw2)", "skip 3", "turn 0 R RD2"]


def test_jump_in_by_the_player_who_just_took_the_draw_two():
    # jump-ins are checked after the penalty: seat 1 may jump in on the card it drew for
    hands = [["RD2", "G1", "G2"], ["RD2", "B2"], ["B5", "G4"], ["B3", "B4"]]
    r = at(hands, ["R7"], JUMP, draw=["Y1", "Y2", "Y3", "Y4", "Y5"])
    r.apply("RD2")
    assert log(r)[2:4] == ["draw 1 Y1 Y2 (draw2)", "skip 1"]
    assert r.phase == "jump" and r.current_player == 1


def test_jump_in_with_the_last_card_wins():
    hands = [["R5", "G1", "G2"], ["B1", "B2"], ["R5"], ["B3", "B4"]]
    r = at(hands, ["R7"], JUMP)
    r.apply("R5")
    r.apply("R5")
    assert log(r)[-1] == "end 2 " + str(1 + 2 + 1 + 2 + 3 + 4)
    assert r.winner == 2


def test_jump_in_last_card_draw_two_is_still_drawn():
    hands = [["RD2", "G1", "G2"], ["B1", "B2"], ["RD2"], ["B3", "B4"]]
    r = at(hands, ["R7"], JUMP, draw=["Y1", "Y2", "Y3", "Y4"])
    r.apply("RD2")
    r.apply("RD2")
    assert log(r)[-3:] == ["play 2 RD2 R", "draw 3 Y3 Y4 (draw2)", "end 2 23"]


def test_two_eligible_jumpers_first_in_turn_order_gets_it():
    cc = cfg("players=4", "decks=2", JUMP)
    hands = [["R5", "G1", "G2"], ["B1", "B2"], ["R5", "G3", "G4"], ["R5", "B3", "B4"]]
    r = at(hands, ["R7"], cc=cc)
    r.apply("R5")
    assert r.current_player == 2  # seat 2 comes before seat 3
    assert r.policy_action() == r.legal_actions()[0]  # the reference policy jumps
    r.apply("pass")
    assert r.phase == "jump" and r.current_player == 3  # declined: the next holder is asked
    r.apply("R5")
    # seat 3's card: seat 2 still holds a twin and is asked again
    assert r.phase == "jump" and r.current_player == 2
    r.apply("pass")
    assert log(r)[1:] == ["play 0 R5 R", "jump 3 R5", "play 3 R5 R", "turn 0 R R5"]


def test_no_jump_in_on_own_card_on_a_wild_or_on_the_first_flip():
    cc = cfg("players=4", "decks=2", JUMP)
    r = at([["R5", "R5", "G1"], ["B1", "B2"], ["B5", "W"], ["B3", "B4"]], ["R7"], cc=cc)
    r.apply("R5")
    assert log(r)[-1] == "turn 1 R R5"  # the player of the top card never jumps on it
    r = at([["W", "R5", "G1"], ["B1", "B2"], ["B5", "W"], ["B3", "B4"]], ["R7"], cc=cc)
    r.apply("W")
    r.apply("color R")
    assert log(r)[-1] == "turn 1 R W"  # never on a wild
    hands = [["R1"], ["Y1"], ["G5"], ["B1"]]
    r = Round.from_deck(cfg("hand_size=1", JUMP), deck_for(hands, ["G5", "B9", "B8"]), dealer=0)
    assert log(r)[1:] == ["flip G5", "turn 1 G G5"]  # the flip is not a play


def test_jump_in_uno_event():
    hands = [["R5", "G1", "G2"], ["B1", "B2"], ["R5", "G3"], ["B3", "B4"]]
    r = at(hands, ["R7"], JUMP)
    r.apply("R5")
    r.apply("R5")
    assert log(r)[2:5] == ["jump 2 R5", "play 2 R5 R", "uno 2 called"]


def test_jump_in_cap_ends_the_round_as_a_stalemate():
    cc = cfg("players=4", "decks=2", "max_turns=1", JUMP)
    hands = [["R5", "R5", "G1"], ["B1", "B2"], ["R5", "G3", "G4"], ["B3", "B4"]]
    r = at(hands, ["R7"], cc=cc)
    r.apply("R5")
    r.apply("R5")  # the first jump-in: seat 0 may jump back on seat 2's card
    assert r.phase == "jump" and r.current_player == 0
    r.apply("R5")  # a second jump-in would exceed max_turns jump-ins
    assert log(r)[-1] == "end None 0" and r.winner is None


# --- Seven-O --------------------------------------------------------------------------------
def test_seven_swaps_hands_with_the_chosen_player():
    hands = [["R7", "G1", "G2"], ["B1"], ["Y5", "Y6", "Y8", "Y9"], ["B3", "B4"]]
    r = at(hands, ["R3"], SEVEN_O)
    r.apply("R7")
    assert r.phase == "target" and r.current_player == 0
    assert r.legal_action_names() == ["target 1", "target 2", "target 3"]
    r.apply("target 2")
    assert log(r)[1:] == ["play 0 R7 R", "swap 0 2", "turn 1 R R7"]
    assert same(r.hand(0), ["Y5", "Y6", "Y8", "Y9"]) and same(r.hand(2), ["G1", "G2"])
    assert r.stats["swaps"] == 1


def test_seven_swap_does_not_trigger_uno():
    hands = [["R7", "G1", "G2"], ["B1"], ["Y5"], ["B3", "B4"]]
    r = at(hands, ["R3"], SEVEN_O, "behaviour.uno_forget_rate=1")
    r.apply("R7")
    r.apply("target 2")  # seat 0 ends up with one card: no UNO event, no penalty
    assert log(r)[1:] == ["play 0 R7 R", "swap 0 2", "turn 1 R R7"]
    assert r.hand(0) == ["Y5"]


@pytest.mark.parametrize("last", ["R7", "R0"])
def test_seven_or_zero_as_last_card_ends_without_swap(last):
    r = at([[last], ["B1"], ["Y5"], ["B3", "B4"]], ["R3"], SEVEN_O)
    r.apply(last)
    assert log(r)[1:] == [f"play 0 {last} R", "end 0 13"]


@pytest.mark.parametrize("players", [3, 5])
@pytest.mark.parametrize("direction", [1, -1])
def test_zero_passes_every_hand_in_the_direction_of_play(players, direction):
    hands = [["R0", "G1", "G2"]] + [[f"B{q}", f"Y{q}"] + ["G9"] * q for q in range(1, players)]
    r = at(hands, ["R3"], SEVEN_O, direction=direction)
    before = [list(h) for h in hands]
    before[0].remove("R0")
    r.apply("R0")
    assert log(r)[1:] == ["play 0 R0 R", f"rotate {direction:+d}",
                          f"turn {direction % players} R R0"]
    for q in range(players):
        assert same(r.hand((q + direction) % players), before[q])


def test_jump_in_seven_under_seven_o_swaps_again():
    hands = [["R7", "R7", "G1", "G9"], ["Y1", "Y2"], ["B5", "B6", "B7"], ["G3", "G4"]]
    r = at(hands, ["R3"], SEVEN_O, JUMP)
    r.apply("R7")
    r.apply("target 2")  # seat 2 now holds the other red 7
    assert r.phase == "jump" and r.current_player == 2
    r.apply("R7")
    assert r.phase == "target" and r.current_player == 2
    r.apply("target 3")
    assert log(r)[1:] == ["play 0 R7 R", "swap 0 2", "jump 2 R7", "play 2 R7 R", "swap 2 3",
                          "turn 3 R R7"]
    assert same(r.hand(0), ["B5", "B6", "B7"]) and same(r.hand(2), ["G3", "G4"])
    assert same(r.hand(3), ["G1", "G9"])


def test_seven_o_targets_only_players_in_the_round():
    cc = cfg("mode=match", "scoring=elimination", SEVEN_O)
    r = at([["R7", "G1"], ["B1"], ["B2"], ["B3"]], ["R3"], cc=cc)
    r.S['seat'][1, L.SEAT_ALIVE] = 0
    r.S['s'][L.S_NALIVE] = 3
    r.apply("R7")
    assert r.legal_action_names() == ["target 2", "target 3"]


# --- draw until play ----------------------------------------------------------------------------
def test_draw_until_play_keeps_drawing_then_must_play():
    r = at([["G1"], ["B1"], ["B2"], ["B3"]], ["R7"], DUP, draw=["B4", "Y2", "R9", "B5"])
    r.apply("draw")
    assert r.phase == "drawn" and r.legal_action_names() == ["R9"]  # no pass
    with pytest.raises(IllegalActionError):
        r.apply("pass")
    r.apply("R9")
    assert log(r) == ["turn 0 R R7", "draw 0 B4 Y2 R9 (turn)", "play 0 R9 R", "turn 1 R R9"]


def test_draw_until_play_a_wd4_while_holding_the_color_is_not_playable():
    r = at([["R1"], ["B1"], ["B2"], ["B3"]], ["R7"], DUP, draw=["WD4", "B4", "G7", "B5"])
    r.apply("draw")  # voluntary: R1 was playable
    assert log(r)[-1] == "draw 0 WD4 B4 G7 (turn)" and r.legal_action_names() == ["G7"]
    r = at([["G1"], ["B1"], ["B2"], ["B3"]], ["R7"], DUP, draw=["WD4", "B4", "G7", "B5"])
    r.apply("draw")
    assert log(r)[-1] == "draw 0 WD4 (turn)" and r.legal_action_names() == ["WD4"]


def test_draw_until_play_across_a_reshuffle():
    r = at([["G1"], ["B1"], ["B2"], ["B3"]], ["G2", "B9", "R5", "Y4", "R7"], DUP, draw=["B4"])
    r.apply("draw")
    lines = log(r)
    assert lines[1] == "draw 0 B4 (turn)" and lines[2] == "reshuffle"
    assert lines[3].startswith("draw 0 ") and lines[3].endswith(" R5 (turn)")
    assert r.legal_action_names() == ["R5"] and r.discard == ["R7"]
    assert all(c in ("G2", "B9", "Y4") for c in lines[3].split()[2:-2])


def test_draw_until_play_with_dry_piles_ends_the_turn():
    r = at([["G1"], ["B1"], ["B2"], ["B3"]], ["R7"], DUP, draw=["B4", "Y2"])
    r.apply("draw")
    assert log(r) == ["turn 0 R R7", "draw 0 B4 Y2 (turn)", "turn 1 R R7"]


def test_draw_until_play_never_applies_to_penalties():
    r = at([["RD2", "G1", "G2"], ["B1"], ["B2"], ["B3"]], ["R7"], DUP, draw=["B4", "Y2", "R9"])
    r.apply("RD2")
    assert log(r)[1:] == ["play 0 RD2 R", "draw 1 B4 Y2 (draw2)", "skip 1", "turn 2 R RD2"]


def test_draw_until_play_random_policy_plays_the_final_card():
    r = at([["G1"], ["B1"], ["B2"], ["B3"]], ["R7"], DUP, draw=["B4", "Y2", "R9", "B5"])
    assert r.policy_action() == L.A_DRAW  # nothing playable
    r.step()
    r.step()
    assert log(r)[-2:] == ["play 0 R9 R", "turn 1 R R9"]


# --- two-player Reverse ---------------------------------------------------------------------------
@pytest.mark.parametrize("on", [False, True])
def test_two_player_reverse_house_rule(on):
    over = (TPR,) if on else ()
    r = at([["RR", "G1", "G2"], ["B1", "B2"]], ["R7"], *over)
    r.apply("RR")
    if on:
        assert log(r)[1:] == ["play 0 RR R", "skip 1", "turn 0 R RR"] and r.direction == 1
    else:
        assert log(r)[1:] == ["play 0 RR R", "reverse -1", "turn 1 R RR"] and r.direction == -1


def test_two_player_reverse_needs_two_players():
    r = at([["RR", "G1", "G2"], ["B1", "B2"], ["B3"]], ["R7"], TPR)
    r.apply("RR")
    assert log(r)[1:] == ["play 0 RR R", "reverse -1", "turn 2 R RR"]


def test_two_player_reverse_first_flip_still_reverses():
    hands = [["R1"], ["Y1"]]
    r = Round.from_deck(cfg("players=2", "hand_size=1", TPR), deck_for(hands, ["GR", "B9"]),
                        dealer=0)
    assert log(r)[1:] == ["flip GR", "reverse -1", "turn 0 G GR"] and r.direction == -1


def test_two_player_reverse_with_two_seats_left_in_a_match():
    cc = cfg("mode=match", "scoring=elimination", TPR, "players=3")
    r = at([["RR", "G1", "G2"], ["B1"], ["B2", "B3"]], ["R7"], cc=cc)
    r.S['seat'][1, L.SEAT_ALIVE] = 0
    r.S['s'][L.S_NALIVE] = 2
    r.apply("RR")
    assert log(r)[1:] == ["play 0 RR R", "skip 2", "turn 0 R RR"]


def test_illegal_actions_in_each_phase():
    r = at([["RD2", "G1", "G2"], ["YD2", "B1"], ["B2"], ["B3"]], ["R7"], D2D2, JUMP)
    r.apply("RD2")
    for bad in ("draw", "pass", "challenge", "color R", "B1", "target 2"):
        with pytest.raises(IllegalActionError):
            r.apply(bad)
    assert r.phase == "pending" and r.pending == 2
