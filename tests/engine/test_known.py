"""What a seat knows of other hands (`unosim.engine.kernel.known`): each reveal the rules
make, in a stacked position named after its rule, and the invariant that a seat
never "knows" a card the other hand does not hold, over thousands of real turns."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from rules_helpers import cfg, log, same

from unosim.engine.game import IllegalActionError, Round
from unosim.engine.kernel import state as L
from unosim.engine.kernel.batch import simulate
from unosim.engine.kernel.ismcts import determinize, finish, save_position
from unosim.rules.cards import NK

FILLER = ["B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "Y1", "Y2", "Y3"]
SEVEN_O = "house_rules.seven_o=true"


def at(hands, discard, *overrides, config="classic", player=0, draw=FILLER, direction=1):
    cc = cfg(f"players={len(hands)}", *overrides, config=config)
    return Round.from_position(cc, hands=hands, draw=list(draw), discard=list(discard),
                               color=discard[-1][0], player=player, direction=direction)


def test_seven_o_swap_each_knows_the_hand_it_gave_away():
    r = at([["R7", "G1", "G2"], ["B1"], ["Y5", "Y6"], ["B3", "B4"]], ["R3"], SEVEN_O)
    r.apply("R7")
    r.apply("target 2")
    assert log(r)[1:3] == ["play 0 R7 R", "swap 0 2"]
    assert same(r.known(0)[2], ["G1", "G2"]) and same(r.known(2)[0], ["Y5", "Y6"])
    assert r.known(0)[0] == [] and r.known(2)[2] == []
    assert r.known(1) == [[], [], [], []] and r.known(3) == [[], [], [], []]


def test_seven_o_swap_moves_what_others_knew_with_the_hand():
    r = at([["R7", "R7", "G1"], ["Y1", "Y2"], ["B5", "B6"], ["G3", "G4"]], ["R3"], SEVEN_O,
           "house_rules.jump_in=true")
    r.apply("R7")
    r.apply("target 2")  # 0 knows seat 2 holds R7 G1
    r.apply("R7")  # seat 2 jumps in with it: 0 now knows only G1 there
    assert same(r.known(0)[2], ["G1"])
    r.apply("target 3")  # seat 2's hand (G1) goes to seat 3, seat 3's (G3 G4) to seat 2
    assert same(r.known(0)[3], ["G1"]) and r.known(0)[2] == []
    assert same(r.known(2)[3], ["G1"]) and same(r.known(3)[2], ["G3", "G4"])


@pytest.mark.parametrize("direction", [1, -1])
def test_seven_o_zero_rotation_each_knows_the_hand_it_passed_on(direction):
    hands = [["R0", "G1", "G2"], ["B1", "B2"], ["Y5", "Y6"], ["G3", "G4", "G5"]]
    r = at(hands, ["R3"], SEVEN_O, direction=direction)
    before = [list(h) for h in hands]
    before[0].remove("R0")
    r.apply("R0")
    for q in range(4):
        got = r.known(q)
        receiver = (q + direction) % 4
        assert same(got[receiver], before[q])
        assert all(got[o] == [] for o in range(4) if o != receiver)


def test_seven_o_rotation_carries_what_a_seat_knew():
    r = at([["R7", "R0", "G1"], ["B1", "B2"], ["Y5", "Y6"], ["G3", "G4"]], ["R3"], SEVEN_O)
    r.apply("R7")
    r.apply("target 1")  # 0 knows seat 1 holds R0 G1
    assert same(r.known(0)[1], ["R0", "G1"])
    r.apply("R0")  # seat 1 plays the 0: every hand moves on by one
    # 0 knew G1 was in seat 1's hand; that hand is now seat 2's. Seat 1 passed
    # its hand (G1) to seat 2 as well, and 0 passed B1 B2 (the hand it got) to seat 1.
    assert same(r.known(0)[2], ["G1"]) and same(r.known(0)[1], ["B1", "B2"])
    assert same(r.known(1)[2], ["G1"])


def test_wd4_challenge_shows_the_hand_to_the_challenger():
    r = at([["WD4", "G1", "B9"], ["Y1", "Y2"], ["B5"], ["G3"]], ["R3"], player=0)
    r.apply("WD4")
    r.apply("color B")
    r.apply("challenge")
    assert log(r)[1:3] == ["play 0 WD4 B", "challenge 1 0 fail"]
    assert same(r.known(1)[0], ["G1", "B9"])
    assert r.known(2)[0] == [] and r.known(3)[0] == []


def test_wishing_star_shows_an_icon_card_to_everyone():
    hands = [["WX", "G0", "G2"], ["Y1", "B1", "B5"], ["G5", "B6"], ["R1", "B0"]]
    r = at(hands, ["R7"], config="disney_wish", draw=["B2", "B3", "G1", "B4"])
    r.apply("WX")
    r.apply("color G")
    # seat 1 shows its lowest icon kind (Y1 before B1), seat 3 its R1; seat 2 draws to G1
    for o in (0, 2, 3):
        assert same(r.known(o)[1], ["Y1"])
    for o in (0, 1, 2):
        assert same(r.known(o)[3], ["R1"])
    for o in (0, 1, 3):
        assert same(r.known(o)[2], ["G1"])
    assert r.known(1)[1] == []


def test_playing_a_known_card_removes_it():
    r = at([["R7", "R1", "G2"], ["B1"], ["Y5", "Y6"], ["B3", "B4"]], ["R3"], SEVEN_O)
    r.apply("R7")
    r.apply("target 1")  # seat 1, next to play, now holds R1 G2, known to seat 0
    assert same(r.known(0)[1], ["R1", "G2"])
    r.apply("R1")
    assert r.known(0)[1] == ["G2"]


def test_set_known_checks_the_hand():
    r = at([["R7", "G1"], ["B1", "B2"], ["Y5"], ["G3"]], ["R3"])
    r.set_known(0, 1, ["B2"])
    assert r.known(0)[1] == ["B2"]
    with pytest.raises(IllegalActionError, match="does not hold"):
        r.set_known(0, 1, ["R9"])
    with pytest.raises(IllegalActionError, match="own hand"):
        r.set_known(0, 0, ["R7"])


def _knowledge_holds(r: Round) -> None:
    n = r.players
    K = r.S.known[:n, :n, :NK]
    assert (K <= r.S.hands[None, :n, :NK]).all(), "a seat 'knows' a card that is not there"
    assert all(K[q, q].sum() == 0 for q in range(n))


@pytest.mark.parametrize(("config", "overrides", "players"), [
    ("classic", [SEVEN_O, "house_rules.jump_in=true"], 4),
    ("classic", [SEVEN_O], 6),
    ("disney_wish", [SEVEN_O], 4),
    ("classic", [SEVEN_O, "mode=match", "scoring=elimination", "target=100"], 5),
])
def test_what_a_seat_knows_is_always_in_the_hand(config, overrides, players):
    """Habit policies challenge, Seven-O swaps and rotates, Wishing Star shows: at
    every action of hundreds of rounds each known card is in its holder's hand,
    and a determinization deals every known card to its holder."""
    cc = cfg(f"players={players}", "seats=[strategic, cautious, random, greedy, strategic, random]"
             if players == 6 else "policy=strategic", *overrides, config=config)
    learned = 0
    for g in range(60):
        r = Round.new(cc, seed=11, game=g, trace=False)
        steps = 0
        while not r.is_over:
            r.step()
            _knowledge_holds(r)
            steps += 1
            if steps % 7 == 0 and not r.is_over and r.S.known[:players, :players].any():
                S, C = r.S, r.C
                me = int(S.s[L.S_CUR])
                save_position(S, C)
                for _ in range(5):
                    determinize(S, C, me)
                    assert (S.hands[:players, :NK] >= S.known[me, :players, :NK]).all()
                finish(S, C)
                learned += 1
    assert learned > 100


@pytest.mark.slow  # 15 s: many games played twice
def test_the_record_does_not_change_play():
    """Keeping the record draws nothing: a table with it on plays the same games."""
    cc = cfg("players=4", SEVEN_O, "policy=strategic")
    on = dataclasses.replace(cc, ci=cc.ci.copy())
    on.ci[L.C_KNOWN] = 1
    a, ra = simulate(cc, 5, 0, 300, records=True)
    b, rb = simulate(on, 5, 0, 300, records=True)
    assert ra is not None and rb is not None and np.array_equal(ra, rb)
    for key in a:
        assert np.array_equal(a[key], b[key]), key


def test_a_plugin_sees_what_its_seat_knows():
    from unosim.engine.view import PublicLog, public_view

    r = at([["R7", "G1", "G2"], ["B1"], ["Y5", "Y6"], ["B3", "B4"]], ["R3"], SEVEN_O)
    r.apply("R7")
    r.apply("target 2")
    log0 = PublicLog(0)
    log0.feed(r.events())
    v = public_view(r, log0)
    assert v.known == ((), (), ("G1", "G2"), ())
