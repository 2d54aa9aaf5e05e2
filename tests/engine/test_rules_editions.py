"""Edition rules (docs/rules.md §1, §2, §3 and §4, fine print of §10):
redrawn first flips, wilds blocking a Wild Draw Four, the three special wilds
and the scoring examples of the Disney sheets (docs/rules.md, "Sources")."""

from __future__ import annotations

import pytest
from rules_helpers import cfg, deck_for, fresh_cfg, log, same

from unosim.engine.game import IllegalActionError, Round
from unosim.engine.kernel import state as L
from unosim.rules.cards import WX

DISNEY = ["disney100", "disney_wish", "encanto"]
FILLER = ["B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8"]


def at(edition, hands, discard, player=0, draw=FILLER, color=None, direction=1,  # noqa: PLR0917  a position's fields, as tests write them
       cc=None, overrides=()):
    if cc is None:
        cc = cfg(f"players={len(hands)}", *overrides, config=edition)
    return Round.from_position(cc, hands=hands, draw=list(draw), discard=list(discard),
                               color=color or discard[-1][0], player=player,
                               direction=direction)


# --- §2: redrawn first flip -------------------------------------------------
@pytest.mark.parametrize("edition", DISNEY)
def test_redraw_flips_over_action_and_wild_cards_until_a_number(edition):
    hands = [["R1"], ["Y1"], ["G1"], ["B1"]]
    rest = ["RS", "GD2", "WD4", "W", "BR", "WX", "Y5", "B9", "B8"]
    r = Round.from_deck(cfg("hand_size=1", config=edition), deck_for(hands, rest, 2), dealer=2)
    assert log(r) == ["deal 2", "flip RS", "flip GD2", "flip WD4", "flip W", "flip BR", "flip WX",
                      "flip Y5", "turn 3 Y Y5"]
    # no effect was applied: nobody drew or was skipped, direction +1, the WD4 stays put
    assert r.discard == rest[:7] and r.draw_pile == ["B9", "B8"]
    assert r.direction == 1 and r.stats["drawn"] == 0 and r.phase == "turn"


@pytest.mark.parametrize("edition", DISNEY)
def test_redraw_number_flip_starts_normally(edition):
    r = Round.from_deck(cfg("hand_size=1", config=edition),
                        deck_for([["R1"], ["Y1"], ["G1"], ["B1"]], ["G0", "B9"]), dealer=0)
    assert log(r) == ["deal 0", "flip G0", "turn 1 G G0"]


# --- §3: a held wild blocks a Wild Draw Four in the Disney editions -----------------
@pytest.mark.parametrize("edition,blocks", [(e, True) for e in DISNEY] + [("classic", False)])
@pytest.mark.parametrize("hand,ok_anyway", [
    (["WD4", "W", "G1"], False),
    (["WD4", "WX", "G1"], False),
    (["WD4", "WD4", "G1"], True),  # another WD4 does not block
    (["WD4", "G7", "B7"], True),  # numbers of other colors never block
    (["WD4", "R1"], None),  # the active color always blocks
])
def test_wd4_legality_with_wilds_in_hand(edition, blocks, hand, ok_anyway):
    if edition == "classic" and "WX" in hand:
        hand = [c if c != "WX" else "W" for c in hand]
    r = at(edition, [hand, ["B1"], ["B2"], ["B3"]], ["R7"])
    if ok_anyway is None:
        legal = False
    else:
        legal = ok_anyway or not blocks
    assert ("WD4" in r.legal_action_names()) == legal
    if not legal:
        with pytest.raises(IllegalActionError):
            r.apply("WD4")


@pytest.mark.parametrize("edition", DISNEY)
def test_wd4_challenge_counts_held_wilds_as_the_color(edition):
    """A bluffed WD4 played while holding a Wild is caught by a challenge."""
    cc = fresh_cfg(config=edition)
    cc.pp[0, L.P_BLUFF] = 1.0
    r = at(edition, [["WD4", "W", "G1"], ["B1", "B2"], ["B3"], ["B4"]], ["R7"], cc=cc)
    r.apply("WD4")
    r.apply("color B")
    assert r.legal_action_names() == ["accept", "challenge"]
    r.apply("challenge")
    assert log(r)[2:4] == ["challenge 1 0 success", "draw 0 B1 B2 B3 B4 (challenge)"]
    assert r.current_player == 1 and r.color == "B"


# --- §5: the Disney scoring examples ----------------------------------------------
@pytest.mark.parametrize("edition,numbers,total", [
    ("disney100", ["R2", "Y5", "B9"], 226),  # 000: 2 + 5 + 9 = 16, three actions, three wilds
    ("disney_wish", ["R6", "Y7", "B9"], 232),  # 001: 6 + 7 + 9 = 22
    ("encanto", ["R4", "Y5", "B8"], 227),  # 003: 4 + 5 + 8 = 17
])
def test_disney_scoring_examples(edition, numbers, total):
    hands = [["G3"], [numbers[0], "GD2", "W"], [numbers[1], "BR", "WD4"], [numbers[2], "RS", "WX"]]
    r = at(edition, hands, ["G9"])
    r.apply("G3")
    assert log(r)[-1] == f"end 0 {total}"
    assert r.hand_points(3) == int(numbers[2][1:]) + 20 + 50
    assert r.cc.points[WX] == 50


@pytest.mark.parametrize("edition", DISNEY)
def test_disney_uno_penalty_is_two(edition):
    r = at(edition, [["R1", "R2"], ["B1"], ["B2"], ["B3"]], ["R7"],
           overrides=("behaviour.uno_forget_rate=1",))
    r.apply("R1")
    assert log(r)[1:] == ["play 0 R1 R", "uno 0 caught", "draw 0 B1 B2 (uno)", "turn 1 R R1"]


# --- §4: Wild Mickey Movie Madness (Disney 100 sheet) ------------------------------------
def _movie(fail, hand0=("WX", "G1", "G2"), target=2, players=4):
    hands = [list(hand0)] + [[f"Y{q}", f"B{q}"] for q in range(1, players)]
    r = at("disney100", hands, ["R7"],
           overrides=(f"behaviour.movie_madness_fail_rate={fail}",))
    r.apply("WX")
    assert r.phase == "color" and r.current_player == 0
    r.apply("color B")
    assert r.phase == "target" and r.current_player == 0
    assert r.legal_action_names() == [f"target {q}" for q in range(1, players)]
    with pytest.raises(IllegalActionError):
        r.apply("target 0")
    r.apply(f"target {target}")
    return r


def test_movie_madness_named_nothing_happens():
    r = _movie(0)
    assert log(r)[1:] == ["play 0 WX B", "special 0 2 named", "turn 1 B WX"]
    assert r.stats["special_plays"] == 1 and r.stats["drawn"] == 0


@pytest.mark.parametrize("target", [1, 2])
def test_movie_madness_failed_target_draws_four_and_nobody_loses_a_turn(target):
    r = _movie(1, target=target)
    assert log(r)[1:] == ["play 0 WX B", f"special 0 {target} failed",
                          f"draw {target} B1 B2 B3 B4 (special)", "turn 1 B WX"]
    assert len(r.hand(target)) == 6
    assert r.stats["special_drawn"] == 4 and r.stats["drawn_by_cause"]["special"] == 4


def test_movie_madness_as_last_card_draws_and_scores():
    r = _movie(1, hand0=("WX",), target=3)
    assert log(r)[1:] == ["play 0 WX B", "special 0 3 failed", "draw 3 B1 B2 B3 B4 (special)",
                          "end 0 " + str(1 + 1 + 2 + 2 + 3 + 3 + 1 + 2 + 3 + 4)]


def test_movie_madness_events_then_uno():
    r = _movie(1, hand0=("WX", "G1"), target=1)
    assert log(r)[1:] == ["play 0 WX B", "special 0 1 failed", "draw 1 B1 B2 B3 B4 (special)",
                          "uno 0 called", "turn 1 B WX"]


def test_movie_madness_two_players():
    r = _movie(1, players=2, target=1)
    assert log(r)[1:] == ["play 0 WX B", "special 0 1 failed", "draw 1 B1 B2 B3 B4 (special)",
                          "turn 1 B WX"]


# --- §4: Wild Wishing Star (Disney Wish sheet) -------------------------------------------------
def test_wish_icons_are_the_edition_default():
    cc = cfg(config="disney_wish")
    r = Round.new(cc, seed=1)
    assert r.events()[0]["wish_icons"] == ["R1", "Y1", "G1", "B1"]


def test_wishing_star_players_without_an_icon_draw_until_one():
    hands = [["WX", "G0", "G2"], ["Y1", "B5"], ["G5", "B6"], ["R1", "B0"]]
    r = at("disney_wish", hands, ["R7"], draw=["B2", "B3", "G1", "B4"])
    r.apply("WX")
    assert r.phase == "color"
    r.apply("color G")  # no target to choose
    assert log(r)[1:] == ["play 0 WX G", "special 0 None 1,3", "draw 2 B2 B3 G1 (special)",
                          "turn 1 G WX"]
    sp = next(e for e in r.events() if e["e"] == "special")
    assert sp["target"] is None and sp["outcome"] == [1, 3]
    assert same(r.hand(2), ["G5", "B6", "B2", "B3", "G1"]) and r.stats["special_drawn"] == 3


def test_wishing_star_asks_in_turn_order_from_the_next_player():
    hands = [["WX", "G0", "G2"], ["Y5", "B5"], ["B1", "B6"], ["Y6", "B0"]]
    r = at("disney_wish", hands, ["R7"], draw=["B2", "G1", "B3", "R1", "B4"], direction=-1)
    r.apply("WX")
    r.apply("color G")
    assert log(r)[1:] == ["play 0 WX G", "special 0 None 2", "draw 3 B2 G1 (special)",
                          "draw 1 B3 R1 (special)", "turn 3 G WX"]


def test_wishing_star_stops_when_both_piles_run_dry():
    hands = [["WX", "G0", "G2"], ["Y5"], ["Y6"], ["Y1"]]
    r = at("disney_wish", hands, ["B5", "B6", "R8", "R7"], draw=["B2"])
    r.apply("WX")
    r.apply("color G")
    lines = log(r)[1:]
    assert lines[:4] == ["play 0 WX G", "special 0 None 3", "draw 1 B2 (special)", "reshuffle"]
    assert lines[4].startswith("draw 1 ") and lines[4].endswith("(special)")
    assert lines[5:] == ["turn 1 G WX"]  # seat 2 had nothing left to draw
    assert same(r.hand(1), ["Y5", "B2", "B5", "B6", "R8", "R7"])
    assert r.hand(2) == ["Y6"] and r.draw_pile == [] and r.discard == ["WX"]


def test_wishing_star_as_last_card_draws_count_in_scoring():
    hands = [["WX"], ["Y5"], ["Y1"], ["Y6"]]
    r = at("disney_wish", hands, ["R7"], draw=["B2", "R1", "B3", "B4"])
    r.apply("WX")
    r.apply("color Y")
    assert log(r)[1:] == ["play 0 WX Y", "special 0 None 2", "draw 1 B2 R1 (special)",
                          "draw 3 B3 B4 (special)", "reshuffle", "draw 3 R7 (special)",
                          "end 0 " + str(5 + 2 + 1 + 1 + 6 + 3 + 4 + 7)]


# --- §4: Wild Don't Talk (Encanto sheet) ------------------------------------------------------------
def _silence(slip, hands=None, target=2, overrides=(), draw=FILLER, color="G"):
    hands = hands or [["WX", "G1", "G2"], ["B1", "B2"], ["B3", "Y3", "Y4"], ["B4", "B5"]]
    r = at("encanto", hands, ["R7"], draw=draw,
           overrides=(f"behaviour.dont_talk_slip_rate={slip}", *overrides))
    r.apply("WX")
    r.apply(f"color {color}")
    assert r.phase == "target"
    r.apply(f"target {target}")
    return r


def test_dont_talk_silences_and_a_slip_costs_three_each_turn():
    draw = ["B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "Y1", "Y2", "Y3"]
    r = _silence(1, draw=draw)
    assert log(r)[1:] == ["play 0 WX G", "special 0 2 silenced", "turn 1 G WX"]
    assert r.S['seat'][2, L.SEAT_SILENCED] == 1
    r.apply("draw")  # seat 1 draws B1
    assert log(r)[-3:] == ["turn 2 G WX", "slip 2", "draw 2 B2 B3 B4 (dont_talk)"]
    assert r.current_player == 2 and r.phase == "turn"  # the slip comes before they act
    for p in (2, 3, 0, 1):  # B5, B6, B7 (seat 0 keeps its greens), B8
        assert r.current_player == p
        r.apply("draw")
    # a slip does not end the silence: the next turn costs three more
    assert log(r)[-3:] == ["turn 2 G WX", "slip 2", "draw 2 B9 Y1 Y2 (dont_talk)"]
    assert r.stats["drawn_by_cause"]["dont_talk"] == 6
    assert r.stats["special_drawn"] == 6  # counted as the special wild's draws


def test_dont_talk_without_slips_costs_nothing():
    r = _silence(0)
    r.apply("draw")
    assert log(r)[-1] == "turn 2 G WX" and r.S['seat'][2, L.SEAT_SILENCED] == 1


def test_silence_ends_when_another_player_calls_uno():
    hands = [["WX", "G1", "G2"], ["G3", "G4"], ["B3", "Y3", "Y4"], ["B4", "B5"]]
    r = _silence(1, hands)
    r.apply("G3")  # seat 1 is down to one card and calls UNO
    assert log(r)[4:] == ["play 1 G3 G", "uno 1 called", "silence_end 2", "turn 2 G G3"]
    assert r.S['seat'][2, L.SEAT_SILENCED] == 0  # no slip at seat 2's turn


def test_forgotten_uno_does_not_end_the_silence():
    hands = [["WX", "G1", "G2"], ["G3", "G4"], ["B3", "Y3", "Y4"], ["B4", "B5"]]
    r = _silence(0, hands, overrides=("behaviour.uno_forget_rate=1", "behaviour.uno_catch_rate=0"))
    r.apply("G3")
    assert log(r)[4:] == ["play 1 G3 G", "uno 1 forgot", "turn 2 G G3"]
    assert r.S['seat'][2, L.SEAT_SILENCED] == 1


def test_silenced_player_may_call_uno_without_penalty():
    hands = [["WX", "G1", "G2"], ["B1", "B2"], ["G3", "G4"], ["B4", "B5"]]
    r = _silence(0, hands)
    r.apply("draw")
    n = len(r.events())
    r.apply("G3")
    assert log(r, n) == ["play 2 G3 G", "uno 2 called", "silence_end 2", "turn 3 G G3"]
    assert r.stats["drawn_by_cause"]["dont_talk"] == 0 and r.hand(2) == ["G4"]


def test_one_uno_call_ends_every_silence():
    hands = [["WX", "G1", "G2"], ["WX", "G3", "G4"], ["B3", "Y3", "Y4"], ["B4", "B5", "G5"]]
    r = _silence(0, hands, target=2)
    r.apply("WX")
    r.apply("color G")
    r.apply("target 3")
    assert log(r)[-2:] == ["special 1 3 silenced", "turn 2 G WX"]
    assert list(r.S['seat'][:4, L.SEAT_SILENCED]) == [0, 0, 1, 1]
    r.apply("draw")  # seat 2 draws B1
    r.apply("G5")  # seat 3: two cards left
    r.apply("G1")  # seat 0 is down to one card
    assert log(r)[-4:] == ["uno 0 called", "silence_end 2", "silence_end 3", "turn 1 G G1"]


def test_dont_talk_may_target_a_player_already_silenced():
    hands = [["WX", "G1", "G2"], ["WX", "G3", "G4"], ["B3", "Y3", "Y4"], ["B4", "B5", "G5"]]
    r = _silence(0, hands, target=2)
    r.apply("WX")
    r.apply("color G")
    assert "target 2" in r.legal_action_names()
    r.apply("target 2")
    assert log(r)[-2:] == ["special 1 2 silenced", "turn 2 G WX"]


def test_dont_talk_special_event_order_with_uno():
    """play, special, uno, then the silence_end that the UNO call causes."""
    hands = [["WX", "G1"], ["B1", "B2"], ["B3", "Y3", "Y4"], ["B4", "B5"]]
    r = _silence(1, hands, target=3)
    assert log(r)[1:] == ["play 0 WX G", "special 0 3 silenced", "uno 0 called", "silence_end 3",
                          "turn 1 G WX"]


def test_dont_talk_as_last_card_ends_the_round():
    hands = [["WX"], ["B1", "B2"], ["B3", "Y3"], ["B4", "B5"]]
    r = _silence(1, hands)
    assert log(r)[1:] == ["play 0 WX G", "special 0 2 silenced", "end 0 " + str(3 + 6 + 9)]
    assert r.is_over and r.winner == 0


def test_silenced_player_slips_on_a_stacking_turn():
    over = ("house_rules.stacking.draw_two_on_draw_two=true",)
    hands = [["WX", "RD2", "G1"], ["GD2", "B2", "B9"], ["YD2", "B3", "Y3"], ["B4", "B5"]]
    r = _silence(1, hands, target=2, overrides=over)
    r.apply("GD2")  # seat 1 plays a Draw Two on the green: seat 2 faces 2 and may stack
    assert r.phase == "pending" and r.current_player == 2
    assert log(r)[-1] == "play 1 GD2 G"  # no slip before a pending decision
    r.apply("YD2")
    assert log(r)[-8:] == ["play 1 GD2 G", "turn 2 G GD2", "slip 2", "draw 2 B1 B2 B3 (dont_talk)",
                           "play 2 YD2 Y", "draw 3 B4 B5 B6 B7 (stack)", "skip 3", "turn 0 Y YD2"]


def test_silenced_player_does_not_slip_when_a_draw_is_forced_on_them():
    hands = [["WX", "G1", "G2"], ["GD2", "B2", "B9"], ["B3", "Y3", "Y4"], ["B4", "B5"]]
    r = _silence(1, hands, target=2)
    r.apply("GD2")
    assert log(r)[-4:] == ["play 1 GD2 G", "draw 2 B1 B2 (draw2)", "skip 2", "turn 3 G GD2"]


def test_special_targets_skip_players_out_of_the_round():
    cc = cfg("mode=match", "scoring=elimination", config="disney100")
    r = at("disney100", [["WX", "G1"], ["B1"], ["B2"], ["B3"]], ["R7"], cc=cc)
    r.S['seat'][2, L.SEAT_ALIVE] = 0
    r.S['s'][L.S_NALIVE] = 3
    r.apply("WX")
    r.apply("color B")
    assert r.legal_action_names() == ["target 1", "target 3"]


def _slip_on_stack(draw, *stacking):
    """Seat 2 (silenced, slip rate 1) faces seat 1's WD4 naming red and stacks its own."""
    over = ("house_rules.stacking.wd4_on_wd4=true", *stacking)
    hands = [["WX", "G1", "G2"], ["WD4", "G3", "G4"], ["WD4", "G5", "G6"], ["B4", "B5"]]
    r = _silence(1, hands, target=2, overrides=over, draw=draw, color="B")
    r.apply("WD4")
    r.apply("color R")
    assert r.current_player == 2 and r.legal_action_names() == ["WD4", "accept", "challenge"]
    r.apply("WD4")  # chosen while legal; the turn's slip comes first
    return r


def test_slip_that_makes_a_chosen_stacked_wd4_illegal_forces_the_draw():
    """Regression: the WD4 was played although the slip had dealt seat 2 a red card."""
    r = _slip_on_stack(["B1", "R2", "B3", "Y1", "Y2", "Y3", "Y4", "Y5"])
    assert log(r)[4:] == ["play 1 WD4 R", "turn 2 R WD4", "slip 2", "draw 2 B1 R2 B3 (dont_talk)",
                          "draw 2 Y1 Y2 Y3 Y4 (wd4)", "skip 2", "turn 3 R WD4"]
    assert r.hand(2).count("WD4") == 1 and r.stats["turns"] == 4
    assert r.stats["turns"] == sum(e["e"] == "turn" for e in r.events())


def test_slip_that_makes_a_chosen_stacked_wd4_illegal_lets_the_player_choose_again():
    r = _slip_on_stack(["B1", "RD2", "B3", *FILLER], "house_rules.stacking.draw_two_on_wd4=true")
    assert log(r)[-2:] == ["slip 2", "draw 2 B1 RD2 B3 (dont_talk)"]
    # same turn, same player: the WD4 is now illegal and a challenge is no longer open
    assert r.phase == "pending" and r.current_player == 2
    assert r.legal_action_names() == ["RD2", "accept"]
    r.apply("RD2")
    assert log(r)[-4:] == ["play 2 RD2 R", "draw 3 B1 B2 B3 B4 B5 B6 (stack)", "skip 3",
                           "turn 0 R RD2"]
    assert r.stats["turns"] == sum(e["e"] == "turn" for e in r.events()) == 4
