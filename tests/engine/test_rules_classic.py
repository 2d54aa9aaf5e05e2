"""Classic rules (docs/rules.md §2, §3 and §5, with the fine print of §10) on
stacked decks and chosen positions.

Every test pins one rule: it would fail if the engine applied the rule wrongly
(wrong player, wrong count, wrong order of events). Events are compared as the
short lines of `rules_helpers.log`.
"""

from __future__ import annotations

from collections import Counter

import pytest
from rules_helpers import all_cards, card_points, cfg, deck_for, fresh_cfg, hand_pts, log, same

from unosim.engine.game import IllegalActionError, Round, play_game
from unosim.engine.kernel import state as L
from unosim.engine.kernel.scoring import next_dealer, score_round
from unosim.rules.cards import kind, token
from unosim.rules.config import ConfigError, load_config

FILLER = ["B1", "B2", "B3", "B4", "B5", "B6"]


def at(hands, discard, player=0, draw=(), color=None, direction=1, cc=None,  # noqa: PLR0917  a position's fields, as tests write them
       **kw):
    """A regular turn of ``player`` in a chosen position (classic, len(hands) players)."""
    if cc is None:
        cc = cfg(f"players={len(hands)}")
    top = discard[-1]
    color = color or top[0]
    return Round.from_position(cc, hands=hands, draw=list(draw), discard=list(discard),
                               color=color, player=player, direction=direction, **kw)


def flip_round(flip_and_rest, players=4, dealer=0, extra=(), seed=0):
    """A round dealt one card each from ``dealer``'s left, then ``flip_and_rest``."""
    hands = [[c] for c in ["R1", "Y1", "G1", "B1", "R2", "Y2"][:players]]
    cc = cfg("hand_size=1", f"players={players}", *extra)
    return Round.from_deck(cc, deck_for(hands, flip_and_rest, dealer), dealer=dealer, seed=seed)


# --- §2: set-up --------------------------------------------------------
def test_deal_goes_one_card_at_a_time_from_the_dealers_left():
    deck = ["R1", "Y1", "G1", "B1", "R2", "Y2", "G2", "B2", "R5", "B9", "B8"]
    r = Round.from_deck(cfg("hand_size=2"), deck, dealer=2)
    # seat 3 (left of dealer 2) gets the first card, then 0, 1, 2, and round again
    assert r.hands == [["Y1", "Y2"], ["G1", "G2"], ["B1", "B2"], ["R1", "R2"]]
    assert r.discard == ["R5"]
    assert r.draw_pile == ["B9", "B8"]
    deal = r.events()[0]
    assert deal["e"] == "deal" and deal["dealer"] == 2
    assert deal["hands"] == r.hands and deal["draw"] == ["B8", "B9", "R5"]  # before the flip
    assert log(r)[1:] == ["flip R5", "turn 3 R R5"]
    assert r.direction == 1 and r.current_player == 3 and r.phase == "turn"


def test_first_flip_number_starts_play_left_of_dealer():
    r = flip_round(["G4", *FILLER], dealer=1)
    assert log(r) == ["deal 1", "flip G4", "turn 2 G G4"]
    assert r.direction == 1 and r.color == "G"
    assert r.stats["drawn"] == 0


@pytest.mark.parametrize("stacking", [False, True])
def test_first_flip_draw_two_first_player_draws_two_and_is_skipped(stacking):
    extra = ["house_rules.stacking.draw_two_on_draw_two=true", "house_rules.jump_in=true"] \
        if stacking else []
    # seat 1 holds a Draw Two: even with stacking on, a flip is not a play (docs/rules.md §10)
    hands = [["R1"], ["YD2"], ["G1"], ["B1"]]
    cc = cfg("hand_size=1", *extra)
    r = Round.from_deck(cc, deck_for(hands, ["GD2", "B9", "B8", "R3"]), dealer=0)
    assert log(r)[1:] == ["flip GD2", "draw 1 B9 B8 (draw2)", "skip 1", "turn 2 G GD2"]
    assert same(r.hand(1), ["YD2", "B9", "B8"])
    assert r.pending == 0 and r.current_player == 2
    assert r.stats["turns"] == 1  # the lost turn is not a turn


def test_first_flip_skip_skips_the_first_player():
    r = flip_round(["GS", *FILLER])
    assert log(r)[1:] == ["flip GS", "skip 1", "turn 2 G GS"]
    assert r.stats["drawn"] == 0


@pytest.mark.parametrize("players,dealer,then", [(4, 0, 3), (4, 2, 1), (3, 1, 0), (2, 0, 1), (2, 1, 0)])
def test_first_flip_reverse_dealer_plays_first_direction_minus_one(players, dealer, then):
    r = flip_round(["GR", *FILLER], players=players, dealer=dealer)
    assert log(r)[1:] == ["flip GR", "reverse -1", f"turn {dealer} G GR"]
    assert r.direction == -1 and r.current_player == dealer
    r.apply("draw")  # the dealer draws B1, which does not fit: the turn passes to its right
    assert r.current_player == then


def test_first_flip_wild_first_player_names_the_color_then_plays():
    r = flip_round(["W", *FILLER], dealer=3)
    assert log(r)[1:] == ["flip W"]
    assert r.phase == "color" and r.current_player == 0
    assert r.legal_action_names() == ["color R", "color Y", "color G", "color B"]
    with pytest.raises(IllegalActionError):
        r.apply("draw")
    r.apply("color B")
    assert log(r)[2:] == ["turn 0 B W"]
    assert r.phase == "turn" and r.current_player == 0 and r.color == "B"
    assert r.stats["turns"] == 1
    assert r.hand(0) == ["R1"] and r.legal_action_names() == ["draw"]


def test_first_flip_wild_draw_four_goes_back_at_a_random_gap_and_is_reflipped():
    rest = ["WD4", "R3", "R4", "R5", "R6"]
    gaps, reflipped = set(), False
    for seed in range(30):
        r = flip_round(rest, seed=seed)
        lines = log(r)
        returns = [e for e in r.events() if e["e"] == "return"]
        flips = [e["card"] for e in r.events() if e["e"] == "flip"]
        assert len(returns) >= 1 and all(e["card"] == "WD4" for e in returns)
        assert flips == ["WD4"] * len(returns) + ["R3"]
        reflipped |= len(returns) > 1
        # the other cards keep their order; the WD4 is back in the pile
        assert r.discard == ["R3"] and r.color == "R"
        pile = r.draw_pile
        assert pile.count("WD4") == 1 and [c for c in pile if c != "WD4"] == ["R4", "R5", "R6"]
        gaps.add(pile.index("WD4"))
        # the return event shows the whole new pile, bottom first
        assert returns[-1]["draw"][-1] == "R3"
        assert lines[-1] == "turn 1 R R3" and r.stats["drawn"] == 0
    assert gaps == {0, 1, 2, 3}
    assert reflipped  # the top of the pile is one of the gaps


def test_too_few_cards_for_the_deal_is_a_config_error():
    load_config("classic", ["hand_size=25"])  # 100 dealt, 8 left >= 5
    with pytest.raises(ConfigError, match="hand_size"):
        load_config("classic", ["hand_size=26"])
    with pytest.raises(ConfigError):
        load_config("classic", ["players=10", "hand_size=11"])


# --- §3: legal plays ----------------------------------------------------------
def test_legal_play_matches_color_or_rank_or_is_wild():
    r = at([["R3", "G7", "GS", "B9", "W"], ["B1"]], ["R7"])
    assert r.legal_action_names() == ["R3", "G7", "W", "draw"]
    with pytest.raises(IllegalActionError, match="GS"):
        r.apply("GS")
    with pytest.raises(IllegalActionError):
        r.apply("Y3")  # not held
    assert r.hand(0) == ["R3", "G7", "GS", "B9", "W"] and r.discard == ["R7"]


@pytest.mark.parametrize("top,hand,legal", [
    ("GS", ["YS", "Y3", "G2", "BR"], ["YS", "G2"]),  # a Skip on a Skip
    ("RD2", ["BD2", "B2", "YS"], ["BD2"]),  # a Draw Two on a Draw Two
    ("YR", ["GR", "G0", "YD2"], ["YD2", "GR"]),  # a Reverse on a Reverse
])
def test_symbols_match_symbols(top, hand, legal):
    r = at([hand, ["B1"]], ["R0", top])
    assert r.legal_action_names() == sorted(legal, key=kind) + ["draw"]


def test_on_a_wild_only_the_named_color_or_a_wild_fits():
    r = at([["B1", "R1", "G5", "W"], ["B2"]], ["R0", "W"], color="B")
    assert r.legal_action_names() == ["B1", "W", "draw"]


@pytest.mark.parametrize("hand,top,color,ok", [
    (["WD4", "R2"], "R7", "R", False),  # holds the active color
    (["WD4", "G7"], "R7", "R", True),  # a matching number of another color does not count
    (["WD4", "GS"], "RS", "R", True),  # nor a matching symbol
    (["WD4", "W"], "R7", "R", True),  # classic: a held Wild does not block
    (["WD4", "WD4", "G1"], "R7", "R", True),  # another WD4 does not block
    (["WD4", "Y5", "R1"], "W", "Y", False),  # the active color is the named one
    (["WD4", "R5"], "W", "Y", True),
])
def test_wild_draw_four_legality(hand, top, color, ok):
    r = at([hand, ["B1"]], ["B0", top], color=color)
    assert ("WD4" in r.legal_action_names()) == ok
    if not ok:
        with pytest.raises(IllegalActionError):
            r.apply("WD4")


def test_draw_then_only_the_drawn_card_may_be_played():
    r = at([["G1", "G2"], ["B1"], ["B2"], ["B3"]], ["R7"], draw=["R9", "B3"])
    r.apply("draw")
    assert r.phase == "drawn" and r.current_player == 0
    assert r.legal_action_names() == ["R9", "pass"]
    with pytest.raises(IllegalActionError):
        r.apply("G1")
    r.apply("R9")
    assert log(r) == ["turn 0 R R7", "draw 0 R9 (turn)", "play 0 R9 R", "turn 1 R R9"]
    assert r.stats["turns"] == 2  # draw and play were one turn


def test_drawn_playable_card_may_be_kept():
    r = at([["G1"], ["B1"], ["B2"], ["B3"]], ["R7"], draw=["R9", "B3"])
    r.apply("draw")
    r.apply("pass")
    assert log(r)[-1] == "turn 1 R R7"
    assert same(r.hand(0), ["G1", "R9"])


def test_unplayable_drawn_card_ends_the_turn():
    r = at([["G1"], ["B1"], ["B2"], ["B3"]], ["R7"], draw=["B3", "R9"])
    r.apply("draw")
    assert log(r) == ["turn 0 R R7", "draw 0 B3 (turn)", "turn 1 R R7"]


def test_voluntary_draw_while_holding_a_playable_card():
    r = at([["R3", "G1"], ["B1"], ["B2"], ["B3"]], ["R7"], draw=["R4", "B3"])
    assert "draw" in r.legal_action_names()
    r.apply("draw")
    # only the drawn card, not the R3 that was playable all along
    assert r.legal_action_names() == ["R4", "pass"]
    r.apply("pass")
    assert same(r.hand(0), ["R3", "G1", "R4"]) and r.current_player == 1


@pytest.mark.parametrize("held,playable", [(["R1"], False), (["G1"], True)])
def test_drawn_wild_draw_four_is_playable_only_if_legal(held, playable):
    r = at([held, ["B1"]], ["R7"], draw=["WD4", "B3"])
    r.apply("draw")
    if playable:
        assert r.legal_action_names() == ["WD4", "pass"]
    else:
        assert r.current_player == 1 and r.phase == "turn"


def test_reshuffle_keeps_the_top_discard():
    r = at([["G1"], ["B1"]], ["B1", "B2", "Y3", "R7"], draw=[])
    r.apply("draw")
    lines = log(r)
    assert lines[1] == "reshuffle" and lines[2].startswith("draw 0 ")
    resh = next(e for e in r.events() if e["e"] == "reshuffle")
    assert same(resh["draw"], ["B1", "B2", "Y3"])
    assert r.discard == ["R7"]
    drawn = r.events()[2]["cards"]
    assert same(r.draw_pile + drawn, ["B1", "B2", "Y3"])
    assert r.stats["reshuffles"] == 1


def test_penalty_spanning_a_reshuffle_is_draw_reshuffle_draw():
    r = at([["RD2", "R1", "G9"], ["B1"], ["B2"], ["B3"]], ["Y4", "Y5", "R7"], draw=["G5"])
    r.apply("RD2")
    lines = log(r)
    assert lines[1:3] == ["play 0 RD2 R", "draw 1 G5 (draw2)"]
    assert lines[3] == "reshuffle" and lines[4].startswith("draw 1 ") and lines[4].endswith("(draw2)")
    assert lines[5:] == ["skip 1", "turn 2 R RD2"]
    assert r.discard == ["RD2"] and len(r.hand(1)) == 3


def test_empty_piles_skip_the_draw():
    r = at([["G1"], ["B1"], ["B2"]], ["R7"], draw=[])
    r.apply("draw")
    assert log(r) == ["turn 0 R R7", "turn 1 R R7"]  # no cards, no draw event
    assert r.hand(0) == ["G1"] and r.stats["drawn"] == 0


def test_penalty_ends_with_what_could_be_drawn():
    r = at([["RD2", "R1", "G9"], ["B1"], ["B2"]], ["R7"], draw=[])
    r.apply("RD2")
    assert log(r)[1:] == ["play 0 RD2 R", "reshuffle", "draw 1 R7 (draw2)", "skip 1", "turn 2 R RD2"]
    assert same(r.hand(1), ["B1", "R7"])


def test_wild_may_name_any_color_the_active_one_included():
    r = at([["W", "G1", "G9"], ["B1"], ["B2"], ["B3"]], ["R7"])
    r.apply("W")
    assert r.phase == "color" and r.current_player == 0
    assert r.legal_action_names() == ["color R", "color Y", "color G", "color B"]
    r.apply("color R")
    assert log(r)[1:] == ["play 0 W R", "turn 1 R W"]


def test_skip_reverse_draw_two_with_four_players():
    r = at([["RS", "RR", "RD2", "R1", "G9"], ["B1", "YD2", "YS"], ["B2", "R2"], ["B3", "R3"]], ["R7"],
           draw=["G1", "G2", "G3", "G4", "G5", "G6"])
    r.apply("RS")
    assert log(r)[1:] == ["play 0 RS R", "skip 1", "turn 2 R RS"]
    r.apply("R2")
    r.apply("R3")
    n = len(r.events())
    r.apply("RR")  # the turn goes back to seat 3
    assert log(r, n) == ["play 0 RR R", "reverse -1", "turn 3 R RR"] and r.direction == -1
    for p in (3, 2, 1):  # G1, G2, G3 do not fit
        assert r.current_player == p
        r.apply("draw")
    n = len(r.events())
    r.apply("RD2")  # the victim is the next player in the new direction
    assert log(r, n) == ["play 0 RD2 R", "draw 3 G4 G5 (draw2)", "skip 3", "turn 2 R RD2"]


def test_draw_two_cannot_be_dodged_with_a_draw_two_or_skip():
    r = at([["RD2", "R1", "G9"], ["YD2", "RD2", "RS"], ["B2"], ["B3"]], ["R7"], draw=FILLER)
    r.apply("RD2")
    assert log(r)[1:] == ["play 0 RD2 R", "draw 1 B1 B2 (draw2)", "skip 1", "turn 2 R RD2"]
    assert r.pending == 0


def test_two_players_skip_and_draw_two_bring_the_turn_back():
    r = at([["RS", "RD2", "R1", "G9"], ["B1", "B2"]], ["R7"], draw=FILLER)
    r.apply("RS")
    assert log(r)[1:] == ["play 0 RS R", "skip 1", "turn 0 R RS"]
    r.apply("RD2")
    assert log(r)[4:] == ["play 0 RD2 R", "draw 1 B1 B2 (draw2)", "skip 1", "turn 0 R RD2"]


def test_two_players_wd4_accepted_brings_the_turn_back():
    r = at([["WD4", "G1", "G2"], ["B1", "B2"]], ["R7"], draw=FILLER)
    r.apply("WD4")
    r.apply("color G")
    r.apply("accept")
    assert log(r)[1:] == ["play 0 WD4 G", "draw 1 B1 B2 B3 B4 (wd4)", "skip 1", "turn 0 G WD4"]


@pytest.mark.parametrize("config,reverse_skips", [
    ("classic", False), ("classic_1992", True)])
def test_two_player_reverse(config, reverse_skips):
    cc = cfg("players=2", config=config)
    r = at([["RR", "R1", "R2"], ["B1", "B2"]], ["R7"], cc=cc)
    r.apply("RR")
    if reverse_skips:
        assert log(r)[1:] == ["play 0 RR R", "skip 1", "turn 0 R RR"]
        assert r.direction == 1
    else:
        assert log(r)[1:] == ["play 0 RR R", "reverse -1", "turn 1 R RR"]
        assert r.direction == -1


# --- Wild Draw Four and the challenge ---------------------------------------------------
def _wd4(hand0, challenge_cfg=None):
    r = at([hand0, ["B1", "B2"], ["B3"], ["B4"]], ["R7"], draw=["G1", "G2", "G3", "G4", "G5", "G6"],
           cc=challenge_cfg)
    r.apply("WD4")
    r.apply("color B")
    assert r.phase == "pending" and r.current_player == 1 and r.pending == 4
    assert r.legal_action_names() == ["accept", "challenge"]
    return r


def test_wd4_accepted_next_player_draws_four_and_loses_the_turn():
    r = _wd4(["WD4", "G1", "Y2"])
    r.apply("accept")
    assert log(r)[1:] == ["play 0 WD4 B", "draw 1 G1 G2 G3 G4 (wd4)", "skip 1", "turn 2 B WD4"]


def test_wd4_challenge_of_a_legal_play_costs_the_challenger_six():
    # seat 0 held no red (the color before the WD4); holding the named blue does not matter
    r = _wd4(["WD4", "G1", "B9"])
    r.apply("challenge")
    assert log(r)[1:] == ["play 0 WD4 B", "challenge 1 0 fail",
                          "draw 1 G1 G2 G3 G4 G5 G6 (challenge)", "skip 1", "turn 2 B WD4"]
    assert len(r.hand(1)) == 8 and r.color == "B"
    assert r.stats["challenges"] == 1


def test_wd4_challenge_of_a_bluff_costs_the_player_four_and_the_challenger_plays():
    cc = fresh_cfg()
    cc.pp[0, L.P_BLUFF] = 1.0  # seat 0's policy bluffs: an illegal WD4 is allowed
    r = _wd4(["WD4", "R1", "G1"], cc)
    r.apply("challenge")
    assert log(r)[1:] == ["play 0 WD4 B", "challenge 1 0 success",
                          "draw 0 G1 G2 G3 G4 (challenge)", "turn 1 B WD4"]
    assert same(r.hand(0), ["R1", "G1", "G1", "G2", "G3", "G4"])
    assert r.color == "B"  # the named color stands
    r.apply("B1")  # the challenger takes the turn normally


def test_wd4_bluff_accepted_is_drawn_like_a_legal_one():
    cc = fresh_cfg()
    cc.pp[0, L.P_BLUFF] = 1.0
    r = _wd4(["WD4", "R1", "G1"], cc)
    r.apply("accept")
    assert log(r)[2:] == ["draw 1 G1 G2 G3 G4 (wd4)", "skip 1", "turn 2 B WD4"]


def test_without_a_bluffing_policy_an_illegal_wd4_is_refused():
    r = at([["WD4", "R1"], ["B1"]], ["R7"])
    assert "WD4" not in r.legal_action_names()


# --- UNO -------------------------------------------------------------------------------
@pytest.mark.parametrize("config,overrides,expect,penalty", [
    ("classic", [], ["uno 0 called"], 0),
    ("classic", ["behaviour.uno_forget_rate=1", "behaviour.uno_catch_rate=0"], ["uno 0 forgot"], 0),
    ("classic", ["behaviour.uno_forget_rate=1"], ["uno 0 caught", "draw 0 G1 G2 (uno)"], 2),
    ("classic_1992", ["behaviour.uno_forget_rate=1"],
     ["uno 0 caught", "draw 0 G1 G2 G3 G4 (uno)"], 4),
])
def test_uno_call_and_penalty(config, overrides, expect, penalty):
    cc = cfg(*overrides, config=config)
    r = at([["R1", "R2", "R3"], ["B1"], ["B2"], ["B3"]], ["R7"], draw=["G1", "G2", "G3", "G4", "G5"],
           cc=cc, player=0)
    r.apply("R1")  # three cards to two: no UNO yet
    assert log(r)[1:] == ["play 0 R1 R", "turn 1 R R1"]
    r = at([["R1", "R2"], ["B1"], ["B2"], ["B3"]], ["R7"], draw=["G1", "G2", "G3", "G4", "G5"],
           cc=cc)
    r.apply("R2")
    assert log(r)[1:] == ["play 0 R2 R", *expect, "turn 1 R R2"]
    assert r.stats["drawn_by_cause"]["uno"] == penalty
    assert len(r.hand(0)) == 1 + penalty


def test_uno_penalty_comes_before_the_cards_effect():
    cc = cfg("behaviour.uno_forget_rate=1")
    r = at([["RD2", "R2"], ["B1"], ["B2"], ["B3"]], ["R7"], draw=["G1", "G2", "G3", "G4"], cc=cc)
    r.apply("RD2")
    assert log(r)[1:] == ["play 0 RD2 R", "uno 0 caught", "draw 0 G1 G2 (uno)",
                          "draw 1 G3 G4 (draw2)", "skip 1", "turn 2 R RD2"]


# --- §5: end of a round and scoring --------------------------------------------
@pytest.mark.parametrize("last,color_action,drawn,cause", [
    ("RD2", None, ["G1", "G2"], "draw2"),
    ("WD4", "color G", ["G1", "G2", "G3", "G4"], "wd4"),
])
def test_last_card_draw_is_still_drawn_and_scored(last, color_action, drawn, cause):
    r = at([[last], ["B1", "Y9"], ["B2"], ["B3"]], ["R0", "R7"], draw=["G1", "G2", "G3", "G4", "G5"])
    r.apply(last)
    if color_action:
        r.apply(color_action)
    pts = 1 + 9 + 2 + 3 + sum(card_points(c) for c in drawn)
    color = "G" if color_action else "R"
    assert log(r)[1:] == [f"play 0 {last} {color}", f"draw 1 {' '.join(drawn)} ({cause})",
                          f"end 0 {pts}"]
    assert r.is_over and r.winner == 0 and r.stats["points"] == pts
    assert r.legal_actions() == []  # no challenge of a last WD4


@pytest.mark.parametrize("last", ["RS", "RR", "W"])
def test_last_action_card_ends_the_round_at_once(last):
    r = at([[last], ["B1"], ["B2"], ["B3"]], ["R7"])
    r.apply(last)
    if last == "W":
        r.apply("color Y")
    assert log(r)[-1] == "end 0 6" and len([e for e in r.events() if e["e"] == "skip"]) == 0


def test_card_points():
    cc = cfg()
    for k in range(52):
        assert cc.points[k] == card_points(token(k))
    assert list(cc.points[52:54]) == [50, 50]


def test_147_point_example_of_seed_004():
    # Dee goes out with a yellow 3; the others hold what the sheet lists
    hands = [["B8", "G5", "W"], ["R6", "YS", "G0"], ["WD4", "R7", "R1"], ["Y3"]]
    r = at(hands, ["Y9"], player=3)
    r.apply("Y3")
    assert log(r)[-1] == "end 3 147"
    assert [r.hand_points(p) for p in range(4)] == [63, 26, 58, 0]
    end = r.events()[-1]
    assert all(same(end["hands"][p], hands[p]) for p in range(3)) and end["hands"][3] == []


def test_seed_004_sample_round():
    """Ana (0) deals to Ben (1), Cal (2) and Dee (3); the text's round, card by card.

    Hands of four so that Ben is down to one card after three plays; the rest
    of the round ("a few turns later") is chosen to end in the 147-point hands."""
    cc = fresh_cfg("hand_size=4", "behaviour.uno_forget_rate=1")
    hands = [["R5", "B8", "G5", "W"],  # Ana
             ["GS", "Y9", "R2", "R6"],  # Ben
             ["W", "WD4", "R7", "R1"],  # Cal
             ["YS", "BR", "W", "Y3"]]  # Dee
    rest = ["G4", "B9", "YS", "G0", "YR", "B1", "B2"]
    r = Round.from_deck(cc, deck_for(hands, rest, dealer=0), dealer=0)
    assert log(r) == ["deal 0", "flip G4", "turn 1 G G4"]  # Ben starts
    steps = [
        # Ben plays a green Skip; Cal is skipped
        (["GS"], ["play 1 GS G", "skip 2", "turn 3 G GS"]),
        # Dee has no green but a yellow Skip; Ana is skipped
        (["YS"], ["play 3 YS Y", "skip 0", "turn 1 Y YS"]),
        (["Y9"], ["play 1 Y9 Y", "turn 2 Y Y9"]),
        # Cal has no yellow and no 9 (his wilds would fit, he draws anyway): a blue 9
        (["draw", "B9"], ["draw 2 B9 (turn)", "play 2 B9 B", "turn 3 B B9"]),
        # Dee's blue Reverse sends the turn back to Cal
        (["BR"], ["play 3 BR B", "reverse -1", "turn 2 B BR"]),
        (["W", "color R"], ["play 2 W R", "turn 1 R W"]),
        # Ben plays the red 2, forgets UNO, Ana catches him before her turn
        (["R2"], ["play 1 R2 R", "uno 1 caught", "draw 1 YS G0 (uno)", "turn 0 R R2"]),
    ]
    for actions, expect in steps:
        n = len(r.events())
        for a in actions:
            r.apply(a)
        assert log(r, n) == expect
    r.C['cf'][L.F_UNO_FORGET] = 0.0  # from here on everybody remembers
    steps = [
        (["R5"], ["play 0 R5 R", "turn 3 R R5"]),
        (["W", "color Y"], ["play 3 W Y", "uno 3 called", "turn 2 Y W"]),
        (["draw", "YR"], ["draw 2 YR (turn)", "play 2 YR Y", "reverse +1", "turn 3 Y YR"]),
        (["Y3"], ["play 3 Y3 Y", "end 3 147"]),
    ]
    for actions, expect in steps:
        n = len(r.events())
        for a in actions:
            r.apply(a)
        assert log(r, n) == expect
    assert same(r.hand(0), ["B8", "G5", "W"])
    assert same(r.hand(1), ["R6", "YS", "G0"])
    assert same(r.hand(2), ["WD4", "R7", "R1"])
    assert r.winner == 3 and r.stats["points"] == 147 and r.stats["turns"] == 11
    assert r.events()[-1]["turns"] == 11


def test_stalemate_at_max_turns():
    cc = cfg("max_turns=3")
    r = at([["G1"], ["G2"], ["G3"], ["G4"]], ["R7"], draw=FILLER, cc=cc)
    r.apply("draw")
    r.apply("draw")
    r.apply("draw")
    assert log(r)[-2:] == ["draw 2 B3 (turn)", "end None 0"]
    assert r.is_over and r.winner is None and r.stats["points"] == 0 and r.stats["turns"] == 3
    assert r.events()[-1]["turns"] == 3


def test_stalemate_of_a_played_round():
    cc = cfg("max_turns=5")
    r = Round.new(cc, seed=3)
    r.play_out()
    ev = r.events()
    assert ev[-1]["e"] == "end" and ev[-1]["winner"] is None and ev[-1]["points"] == 0
    assert sum(e["e"] == "turn" for e in ev) == 5


# --- match scoring -------------------------------------------------------------------------
def _rounds(events):
    """(deal, end, score) triples of a match trace."""
    out, cur = [], {}
    for e in events:
        if e["e"] in ("deal", "end", "score"):
            cur[e["e"]] = e
        if e["e"] == "score":
            out.append((cur["deal"], cur["end"], e))
            cur = {}
    return out


def _hand_points(hands):
    return [hand_pts(h) for h in hands]


@pytest.mark.parametrize("seed", [1, 2])
def test_match_standard_scoring_and_dealer_rotation(seed):
    cc = cfg("mode=match", "scoring=standard", "target=300")
    ev = play_game(cc, seed)
    rounds = _rounds(ev)
    assert len(rounds) >= 2
    scores = [0, 0, 0, 0]
    for i, (deal, end, score) in enumerate(rounds):
        assert deal["dealer"] == i % 4  # seat 0 deals first, then the deal passes left
        w = end["winner"]
        if w is not None:
            pts = _hand_points(end["hands"])
            assert end["points"] == sum(pts) and pts[w] == 0
            scores[w] += end["points"]
        assert score["scores"] == scores
        over = max(scores) >= 300
        assert over == (i == len(rounds) - 1)
    assert ev[-1]["e"] == "match_end" and ev[-1]["winner"] == scores.index(max(scores))
    assert ev[-1]["scores"] == scores


def test_match_stalemate_rounds_score_nothing_and_a_capped_match_is_unfinished():
    cc = cfg("mode=match", "max_turns=2", "max_rounds=3")
    ev = play_game(cc, 5)
    assert log(ev, kinds=["end", "score", "match_end"]) == [
        "end None 0", "score [0, 0, 0, 0]"] * 3 + ["match_end None"]
    assert [e["dealer"] for e in ev if e["e"] == "deal"] == [0, 1, 2]


def test_match_lowest_scoring():
    cc = cfg("mode=match", "scoring=lowest", "target=150")
    ev = play_game(cc, 4)
    scores = [0, 0, 0, 0]
    rounds = _rounds(ev)
    for i, (_deal, end, score) in enumerate(rounds):
        if end["winner"] is not None:
            scores = [s + p for s, p in zip(scores, _hand_points(end["hands"]), strict=True)]
        assert score["scores"] == scores
        assert (max(scores) >= 150) == (i == len(rounds) - 1)
    lo = min(scores)
    winners = [q for q in range(4) if scores[q] == lo]
    w = ev[-1]["winner"]
    assert (w if isinstance(w, list) else [w]) == winners


def test_match_elimination_scoring():
    cc = cfg("mode=match", "scoring=elimination", "target=120")
    ev = play_game(cc, 7)
    scores = [0, 0, 0, 0]
    out: list[int] = []
    dealer = 0
    rounds = _rounds(ev)
    for i, (deal, end, score) in enumerate(rounds):
        if i > 0:  # the deal passes to the next seat still in
            dealer = next(q % 4 for q in range(dealer + 1, dealer + 5) if q % 4 not in out)
        assert deal["dealer"] == dealer
        assert all(deal["hands"][q] == [] for q in out)  # eliminated seats are dealt nothing
        assert all(end["hands"][q] == [] for q in out)
        if end["winner"] is not None:
            assert end["winner"] not in out
            scores = [s + (0 if q in out else p)
                      for q, (s, p) in enumerate(zip(scores, _hand_points(end["hands"]), strict=True))]
        out = sorted(set(out) | {q for q in range(4) if scores[q] >= 120})
        assert score["scores"] == scores and score["eliminated"] == out
    assert len(out) == 3
    assert ev[-1]["winner"] == next(q for q in range(4) if q not in out)
    # a player is out the moment they reach the target, so some rounds were short-handed
    assert any(len(d["active"]) < 4 for d, _, _ in rounds)


def test_match_partners_scoring():
    cc = cfg("mode=match", "scoring=partners", "target=250")
    ev = play_game(cc, 9)
    scores = [0, 0, 0, 0]
    rounds = _rounds(ev)
    for i, (_deal, end, score) in enumerate(rounds):
        w = end["winner"]
        if w is not None:
            pts = _hand_points(end["hands"])
            opp = pts[(w + 1) % 4] + pts[(w + 3) % 4]
            assert end["points"] == opp
            scores[w] += opp
            scores[(w + 2) % 4] += opp
        assert score["scores"] == scores
        assert scores[0] == scores[2] and scores[1] == scores[3]
        assert (max(scores) >= 250) == (i == len(rounds) - 1)
    team = 0 if scores[0] >= 250 else 1
    assert ev[-1]["winner"] == [team, team + 2]


def _score(r):
    over, nw = score_round(r.S, r.C)
    r.drain()
    return bool(over), [int(w) for w in r.S.winners[:nw]]


@pytest.mark.parametrize("scoring,end_points,scores", [
    ("standard", 63 + 26 + 58, [0, 0, 0, 147]),
    ("lowest", 147, [63, 26, 58, 0]),
    ("elimination", 147, [63, 26, 58, 0]),
    ("partners", 63 + 58, [0, 121, 0, 121]),
])
def test_round_points_by_scoring(scoring, end_points, scores):
    cc = cfg("mode=match", f"scoring={scoring}", "target=500")
    hands = [["B8", "G5", "W"], ["R6", "YS", "G0"], ["WD4", "R7", "R1"], ["Y3"]]
    r = at(hands, ["Y9"], player=3, cc=cc)
    r.apply("Y3")
    assert r.stats["points"] == end_points
    over, _ = _score(r)
    assert not over and r.events()[-1]["scores"] == scores


def test_lowest_scoring_tie_is_shared_and_elimination_removes_seats():
    cc = cfg("mode=match", "scoring=lowest", "target=60")
    r = at([["B8", "G5", "W"], ["R6", "YS", "G0"], ["Y9", "R1"], ["Y3"]], ["Y9"], player=3, cc=cc)
    r.S['seat'][2, L.SEAT_SCORE] = 16  # seat 2 ends on 26, level with seat 1
    r.apply("Y3")
    over, winners = _score(r)
    assert over and winners == [3]
    cc = cfg("mode=match", "scoring=lowest", "target=60")
    r = at([["B8", "G5", "W"], ["R6", "YS", "G0"], ["Y9", "R1"], ["Y3"]], ["Y9"], player=3, cc=cc)
    r.S['seat'][3, L.SEAT_SCORE] = 26
    r.S['seat'][2, L.SEAT_SCORE] = 16
    r.apply("Y3")
    over, winners = _score(r)
    assert over and winners == [1, 2, 3]  # 26 each: the win is shared
    cc = cfg("mode=match", "scoring=elimination", "target=60")
    r = at([["B8", "G5", "W"], ["R6", "YS", "G0"], ["Y9", "R1"], ["Y3"]], ["Y9"], player=3, cc=cc,
           dealer=3)
    r.apply("Y3")
    over, _ = _score(r)
    assert not over and r.events()[-1]["eliminated"] == [0]
    assert int(next_dealer(r.S, r.C)) == 1 and r.S['seat'][0, L.SEAT_ALIVE] == 0


def test_card_conservation_through_a_played_round():
    cc = cfg()
    r = Round.new(cc, seed=11)
    r.play_out()
    full = Counter({token(k): int(v) for k, v in enumerate(cc.deck_counts) if v})
    assert all_cards(r) == full and sum(full.values()) == 108
