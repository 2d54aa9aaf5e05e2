"""Tests of the independent trace replay checker on small hand-made traces.

Each valid trace is written out card by card from docs/rules.md; each mutation
breaks one rule and must be reported. The builder below only does the
bookkeeping a person writing a trace by hand would do (which card is on top of
the pile, what is left in each hand); every rule decision is written in the
tests themselves.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from replay_checker import assert_valid_trace, check_trace, load_jsonl

COLORS = "RYGB"
WILD = ("W", "WD4", "WX")
# docs/rules.md §12: absent from a trace's house_rules while at the printed default
RULING_KEYS = ("draw_then_play", "forced_play", "wd4_unrestricted", "challenge", "deflect",
               "no_action_finish", "multiple_play", "seven_o_swap", "seven_o_pass",
               "last_card_draws")


def full_deck(decks: int = 1, special: bool = False) -> Counter[str]:
    d: Counter[str] = Counter()
    for c in COLORS:
        d[c + "0"] += 1
        for r in [*"123456789", "S", "R", "D2"]:
            d[c + r] += 2
    d["W"] += 4
    d["WD4"] += 4
    if special:
        d["WX"] += 4
    return Counter({k: v * decks for k, v in d.items()})


def points(card: str, special_points: int = 50) -> int:
    if card == "WX":
        return special_points
    if card in WILD:
        return 50
    return int(card[1:]) if card[1:].isdigit() else 20


def make_rules(**over: Any) -> dict[str, Any]:
    house = {
        "stacking": {
            "draw_two_on_draw_two": False,
            "wd4_on_wd4": False,
            "wd4_on_draw_two": False,
            "draw_two_on_wd4": False,
        },
        "jump_in": False,
        "seven_o": False,
        "draw_until_play": False,
        "two_player_reverse": False,
    }
    rules: dict[str, Any] = {
        "players": 3,
        "hand_size": 3,
        "decks": 1,
        "first_flip": "apply",
        "wd4_wilds_block": False,
        "uno_penalty": 2,
        "special": "none",
        "special_points": 50,
        "house_rules": house,
        "max_turns": 1000,
        "mode": "round",
        "scoring": "standard",
        "target": 500,
    }
    for k, v in over.items():
        if k in house["stacking"]:
            house["stacking"][k] = v
        elif k in house or k in RULING_KEYS:
            house[k] = v
        else:
            rules[k] = v
    return rules


class TB:
    """Trace builder: writes events and keeps the piles and hands they imply."""

    def __init__(
        self,
        hands: list[list[str]],
        upcoming: list[str],
        *,
        dealer: int = 0,
        rnd: int = 0,
        extra: dict[str, Any] | None = None,
        **rule_over: Any,
    ) -> None:
        rule_over.setdefault("players", len(hands))
        rule_over.setdefault("hand_size", max(len(h) for h in hands))
        self.rules = make_rules(**rule_over)
        deck = full_deck(self.rules["decks"], self.rules["special"] != "none")
        used = Counter(c for h in hands for c in h) + Counter(upcoming)
        assert not used - deck, f"cards not in the deck: {used - deck}"
        self.pile = sorted((deck - used).elements()) + upcoming[::-1]
        self.hands = [list(h) for h in hands]
        self.discard: list[str] = []
        self.color: str | None = None
        self.rnd = rnd
        self.turns = 0
        self.events: list[dict[str, Any]] = []
        self.ev(
            "deal",
            dealer=dealer,
            players=len(hands),
            hands=[list(h) for h in hands],
            draw=list(self.pile),
            edition="test",
            rules=self.rules,
            **(extra or {}),
        )

    def ev(self, e: str, **kw: Any) -> TB:
        self.events.append({"e": e, "round": self.rnd, **kw})
        return self

    def flip(self) -> TB:
        c = self.pile.pop()
        self.discard.append(c)
        self.color = None if c in WILD else c[0]
        return self.ev("flip", card=c)

    def turn(self, p: int, color: str | None = None) -> TB:
        if color is not None:
            self.color = color
        self.turns += 1
        return self.ev("turn", p=p, color=self.color, top=self.discard[-1])

    def play(self, p: int, card: str, color: str | None = None) -> TB:
        self.hands[p].remove(card)
        self.discard.append(card)
        self.color = color or card[0]
        return self.ev("play", p=p, card=card, color=self.color)

    def draw(self, p: int, n: int, cause: str) -> TB:
        got: list[str] = []
        for _ in range(n):
            if not self.pile:
                if len(self.discard) < 2:
                    break
                if got:
                    self.ev("draw", p=p, cards=got, cause=cause)
                got = []
                self.reshuffle()
            c = self.pile.pop()
            self.hands[p].append(c)
            got.append(c)
        return self.ev("draw", p=p, cards=got, cause=cause)

    def reshuffle(self) -> TB:
        self.pile = sorted(self.discard[:-1])
        self.discard = self.discard[-1:]
        return self.ev("reshuffle", draw=list(self.pile))

    def uno(self, p: int, called: bool = True, caught: bool = False) -> TB:
        return self.ev("uno", p=p, called=called, caught=caught)

    def skip(self, p: int) -> TB:
        return self.ev("skip", p=p)

    def jump(self, p: int, card: str) -> TB:
        self.ev("jump", p=p, card=card)
        return self.play(p, card)

    def swap(self, a: int, b: int) -> TB:
        self.hands[a], self.hands[b] = self.hands[b], self.hands[a]
        return self.ev("swap", a=a, b=b)

    def rotate(self, direction: int) -> TB:
        n = len(self.hands)
        old = [list(h) for h in self.hands]
        for s in range(n):
            self.hands[(s + direction) % n] = old[s]
        return self.ev("rotate", direction=direction)

    def hand_points(self, s: int) -> int:
        return sum(points(c, self.rules["special_points"]) for c in self.hands[s])

    def end(self, winner: int | None, **over: Any) -> TB:
        pts = 0
        if winner is not None:
            n = len(self.hands)
            if self.rules["scoring"] in ("lowest", "elimination"):
                pts = sum(self.hand_points(s) for s in range(n))
            elif self.rules["scoring"] == "partners":
                pts = self.hand_points((winner + 1) % 4) + self.hand_points((winner + 3) % 4)
            else:
                pts = sum(self.hand_points(s) for s in range(n) if s != winner)
        fields = {
            "winner": winner,
            "points": pts,
            "hands": [list(h) for h in self.hands],
            "turns": self.turns,
        }
        fields.update(over)
        return self.ev("end", **fields)


def violations(events: list[dict[str, Any]], **kw: Any) -> list[str]:
    return check_trace(events, **kw).violations


def assert_caught(events: list[dict[str, Any]], *needles: str) -> None:
    v = violations(events)
    assert v, "mutation not caught"
    text = "\n".join(v)
    for needle in needles:
        assert needle in text, f"{needle!r} not in:\n{text}"


def find(events: list[dict[str, Any]], e: str, k: int = 0, **want: Any) -> int:
    """Index of the k-th event of kind ``e`` with the given fields."""
    hits = [
        i
        for i, x in enumerate(events)
        if x["e"] == e and all(x.get(a) == b for a, b in want.items())
    ]
    return hits[k]


# --- the reference classic round ---------------------------------------------


def classic_round() -> list[dict[str, Any]]:
    """3 players, hand 3, dealer 0: Draw Two, a draw then play, UNO, a Wild, going out."""
    t = TB(
        [["R7", "G2", "B9"], ["R3", "RD2", "Y4"], ["G5", "Y1", "W"]],
        ["R5", "G8", "B1", "Y9"],
    )
    t.flip()  # R5: a number, seat 1 (dealer's left) starts
    t.turn(1).play(1, "RD2")
    t.draw(2, 2, "draw2").skip(2)
    t.turn(0).play(0, "R7")
    t.turn(1).play(1, "R3").uno(1)
    t.turn(2).play(2, "W", "Y")
    t.turn(0).draw(0, 1, "turn").play(0, "Y9")  # no yellow: draws Y9 and plays it
    t.turn(1).play(1, "Y4")
    t.ev("end", winner=1, points=26, hands=[["G2", "B9"], [], ["G5", "Y1", "G8", "B1"]], turns=6)
    return t.events


def test_valid_classic_round_passes() -> None:
    res = assert_valid_trace(classic_round())
    assert res.rounds == 1 and res.ok


def test_jsonl_round_trip(tmp_path: Any) -> None:
    ev = classic_round()
    text = "\n".join(json.dumps(e) for e in ev) + "\n"
    assert load_jsonl(text) == ev
    path = tmp_path / "t.jsonl"
    path.write_text(text)
    assert load_jsonl(path) == ev
    assert load_jsonl(str(path)) == ev
    assert assert_valid_trace(path).ok


def mutate(fn: Any) -> list[dict[str, Any]]:
    ev = copy.deepcopy(classic_round())
    fn(ev)
    return ev


def test_illegal_play_caught() -> None:
    def f(ev: list[dict[str, Any]]) -> None:
        ev[find(ev, "play", p=0, card="R7")].update(card="B9", color="B")

    assert_caught(mutate(f), "illegal play: seat 0 plays B9 on RD2")


def test_wrong_draw_card_caught() -> None:
    def f(ev: list[dict[str, Any]]) -> None:
        ev[find(ev, "draw", cause="draw2")]["cards"] = ["B1", "G8"]

    assert_caught(mutate(f), "draws B1 but the top of the draw pile is G8")


def test_lost_card_in_deal_caught() -> None:
    assert_caught(mutate(lambda ev: ev[0]["draw"].pop(0)), "deal holds 107 cards")


def test_lost_card_in_draw_caught() -> None:
    def f(ev: list[dict[str, Any]]) -> None:
        ev[find(ev, "draw", cause="draw2")]["cards"] = ["G8"]

    assert_caught(mutate(f), "seat 2 draws 1 card(s) (cause draw2), expected 2")


def test_wrong_turn_count_caught() -> None:
    assert_caught(mutate(lambda ev: ev[-1].update(turns=5)), "end.turns is 5")


def test_wrong_points_caught() -> None:
    assert_caught(mutate(lambda ev: ev[-1].update(points=27)), "end.points is 27, expected 26")


def test_wrong_end_hands_caught() -> None:
    assert_caught(mutate(lambda ev: ev[-1]["hands"][2].pop()), "end.hands[2]")


def test_wrong_winner_caught() -> None:
    assert_caught(mutate(lambda ev: ev[-1].update(winner=0)), "end.winner is 0, expected 1")


def test_missing_skip_after_draw_two_caught() -> None:
    assert_caught(mutate(lambda ev: ev.pop(find(ev, "skip"))), "expected skip (p=2)")


def test_missing_uno_caught() -> None:
    assert_caught(mutate(lambda ev: ev.pop(find(ev, "uno"))), "expected uno (p=1)")


def test_missing_uno_penalty_draw_caught() -> None:
    def f(ev: list[dict[str, Any]]) -> None:
        ev[find(ev, "uno")].update(called=False, caught=True)

    assert_caught(mutate(f), "expected draw by seat 1 (cause uno)")


def test_play_out_of_turn_caught() -> None:
    def f(ev: list[dict[str, Any]]) -> None:
        ev[find(ev, "turn", p=2)]["p"] = 0

    assert_caught(mutate(f), "expected turn (p=2)")


def test_play_after_draw_must_be_drawn_card() -> None:
    def f(ev: list[dict[str, Any]]) -> None:
        i = find(ev, "draw", cause="turn")
        ev[i]["cards"] = ["Y9"]
        ev[i + 1].update(card="G2", color="G")

    assert_caught(mutate(f), "only the drawn card Y9 may be played")


def test_wrong_turn_color_and_top_caught() -> None:
    def f(ev: list[dict[str, Any]]) -> None:
        ev[find(ev, "turn", p=0, k=0)].update(color="G", top="R5")

    assert_caught(mutate(f), "turn.color is G, active color is R", "turn.top is R5")


def test_colored_play_with_wrong_color_caught() -> None:
    def f(ev: list[dict[str, Any]]) -> None:
        ev[find(ev, "play", card="R7")]["color"] = "B"

    assert_caught(mutate(f), "play.color is B for the colored card R7")


def test_flip_not_from_top_caught() -> None:
    assert_caught(mutate(lambda ev: ev[1].update(card="R6")), "flip shows R6")


def test_reshuffle_with_cards_left_caught() -> None:
    def f(ev: list[dict[str, Any]]) -> None:
        ev.insert(find(ev, "turn", p=0, k=0), {"e": "reshuffle", "round": 0, "draw": ["R5"]})

    assert_caught(mutate(f), "reshuffle while the draw pile still holds")


def test_stalemate_before_max_turns_caught() -> None:
    def f(ev: list[dict[str, Any]]) -> None:
        del ev[find(ev, "turn", p=1, k=2) :]
        ev.append({"e": "end", "round": 0, "winner": None, "points": 0, "hands": [], "turns": 5})

    assert_caught(mutate(f), "expected turn (p=1), found 'end'")


def test_truncated_trace_caught() -> None:
    assert_caught(mutate(lambda ev: ev.pop()), "trace ends; expected end")


def test_unknown_event_and_missing_keys_caught() -> None:
    assert_caught(mutate(lambda ev: ev[1].pop("card")), "flip event lacks card")
    assert_caught(
        mutate(lambda ev: ev.insert(2, {"e": "bogus", "round": 0})), "unknown event kind 'bogus'"
    )


def test_wrong_round_index_caught() -> None:
    assert_caught(mutate(lambda ev: ev[3].update(round=1)), "has round 1, expected 0")


def test_wrong_dealer_caught() -> None:
    assert_caught(mutate(lambda ev: ev[0].update(dealer=1)), "dealer of round 0 is 1")


def test_assert_valid_trace_lists_violations() -> None:
    ev = mutate(lambda ev: ev[-1].update(points=1, turns=1))
    with pytest.raises(AssertionError, match="2 trace violation"):
        assert_valid_trace(ev)


# --- Wild Draw Four ----------------------------------------------------------


def wd4_round(s1: list[str], answer: str, **rules: Any) -> TB:
    """Seat 1 opens with a WD4 naming green on R5; seat 2 answers."""
    t = TB(
        [["Y2", "G3", "B4"], s1, ["Y5", "B6", "G7"]],
        ["R5", "R1", "R2", "R3", "R4", "Y6", "B8"],
        **rules,
    )
    t.flip()
    t.turn(1).play(1, "WD4", "G")
    if answer == "accept":
        t.draw(2, 4, "wd4").skip(2)
    return t


def test_wd4_accepted_valid() -> None:
    t = wd4_round(["WD4", "G9", "G1"], "accept")
    t.turn(0).play(0, "G3")
    t.turn(1).play(1, "G9").uno(1)
    t.turn(2).play(2, "G7")
    t.turn(0).draw(0, 1, "turn")  # Y6: no match for G7, kept
    t.turn(1).play(1, "G1").end(1)
    assert_valid_trace(t.events)


def test_illegal_wd4_unchallenged_caught() -> None:
    t = wd4_round(["WD4", "R8", "G1"], "accept", max_turns=6)  # holds red: illegal
    t.turn(0).play(0, "G3")
    t.turn(1).play(1, "G1").uno(1)
    t.turn(2).play(2, "G7")
    t.turn(0).draw(0, 1, "turn")
    t.turn(1).draw(1, 1, "turn")  # B8
    t.end(None)
    assert_caught(t.events, "illegal WD4: seat 1 held the active color")
    assert violations(t.events, allow_bluffs=True) == []


def test_wd4_challenge_success_valid() -> None:
    t = wd4_round(["WD4", "R8", "G1"], "challenge", max_turns=6)
    t.ev("challenge", p=2, target=1, success=True)
    t.draw(1, 4, "challenge")  # R1..R4 to the bluffer
    t.turn(2).play(2, "G7")  # the challenger plays normally; green stands
    t.turn(0).play(0, "G3")
    t.turn(1).play(1, "G1")
    t.turn(2).draw(2, 1, "turn")  # Y6
    t.turn(0).draw(0, 1, "turn")  # B8
    t.end(None)  # max_turns reached: stalemate
    assert_valid_trace(t.events)
    bad = copy.deepcopy(t.events)
    bad[find(bad, "turn", p=2)]["p"] = 0
    assert_caught(bad, "expected turn (p=2)")


def test_wd4_challenge_failure_valid_and_wrong_success_caught() -> None:
    t = wd4_round(["WD4", "G9", "G1"], "challenge")
    t.ev("challenge", p=2, target=1, success=False)
    t.draw(2, 6, "challenge").skip(2)
    t.turn(0).play(0, "G3")
    t.turn(1).play(1, "G9").uno(1)
    t.turn(2).play(2, "G7")
    t.turn(0).draw(0, 1, "turn")
    t.turn(1).play(1, "G1").end(1)
    assert_valid_trace(t.events)
    ev = copy.deepcopy(t.events)
    ev[find(ev, "challenge")]["success"] = True
    assert_caught(ev, "challenge.success is True but the WD4 was legal")


def test_wd4_wilds_block() -> None:
    """With wd4_wilds_block a held Wild makes the WD4 illegal; another WD4 does not."""

    def trace(extra: str, block: bool) -> list[dict[str, Any]]:
        t = TB(
            [["Y2", "G3", "B4"], ["WD4", extra, "G1"], ["Y5", "B6", "G7"]],
            ["R5", "R1", "R2", "R3", "R4"],
            wd4_wilds_block=block,
            max_turns=4,
        )
        t.flip()
        t.turn(1).play(1, "WD4", "G")
        t.draw(2, 4, "wd4").skip(2)
        t.turn(0).play(0, "G3")
        t.turn(1).play(1, "G1").uno(1)
        t.turn(2).play(2, "G7")
        return t.end(None).events

    assert violations(trace("W", False)) == []
    assert violations(trace("WD4", True)) == []
    assert_caught(trace("W", True), "illegal WD4: seat 1 held the active color or a wild")


# --- first flip --------------------------------------------------------------


def one_card(flip: list[str], hands: list[list[str]], **rules: Any) -> TB:
    """A round with one card per hand: the first play ends it."""
    return TB(hands, flip, **rules)


def test_first_flip_apply_draw_two() -> None:
    t = one_card(["GD2", "B1", "B2"], [["R9"], ["Y9"], ["G5"]])
    t.flip().draw(1, 2, "draw2").skip(1)
    t.turn(2).play(2, "G5").end(2)
    assert_valid_trace(t.events)
    assert t.events[-1]["points"] == 9 + 9 + 1 + 2


def test_first_flip_apply_skip_and_reverse() -> None:
    t = one_card(["GS"], [["R9"], ["Y9"], ["G5"]])
    t.flip().skip(1)
    t.turn(2).play(2, "G5").end(2)
    assert_valid_trace(t.events)
    t = one_card(["GR"], [["G9"], ["Y9"], ["G5"]])
    t.flip().ev("reverse", direction=-1)
    t.turn(0).play(0, "G9").end(0)  # the dealer plays first
    assert_valid_trace(t.events)
    t = one_card(["GR", "B1"], [["R9"], ["Y9"], ["G5"]])
    t.flip().ev("reverse", direction=-1)
    t.turn(0).draw(0, 1, "turn")
    t.turn(2).play(2, "G5").end(2)  # direction -1: seat 2 after the dealer
    assert_valid_trace(t.events)
    bad = copy.deepcopy(t.events)
    bad[find(bad, "turn", p=0)]["p"] = 1
    assert_caught(bad, "expected turn (p=0)")


def test_first_flip_apply_wild_color_named_in_turn() -> None:
    t = one_card(["W"], [["R9"], ["Y9"], ["G5"]])
    t.flip().turn(1, "Y").play(1, "Y9").end(1)
    assert_valid_trace(t.events)


def test_first_flip_apply_wd4_returned() -> None:
    t = one_card(["WD4", "B3"], [["R9"], ["B9"], ["G5"]])
    t.flip()
    t.discard.pop()
    pile = list(t.pile)
    pile.insert(7, "WD4")
    t.pile = pile
    t.ev("return", card="WD4", draw=list(pile))
    t.flip().turn(1).play(1, "B9").end(1)
    assert_valid_trace(t.events)
    bad = copy.deepcopy(t.events)
    bad[find(bad, "return")]["draw"].insert(0, "R1")
    assert_caught(bad, "return.draw is not the old draw pile with the WD4 inserted")


def test_first_flip_redraw() -> None:
    t = one_card(["GS", "WD4", "Y4"], [["R9"], ["Y9"], ["G5"]], first_flip="redraw")
    t.flip().flip().flip().turn(1).play(1, "Y9").end(1)
    assert_valid_trace(t.events)
    bad = copy.deepcopy(t.events)
    del bad[2:4]  # play starts on the Skip: not allowed under redraw
    assert_caught(bad, "expected flip, found 'turn'")


# --- two players, reverse ------------------------------------------------------


def test_two_player_reverse_as_skip() -> None:
    t = TB([["R1", "B2"], ["RR", "R3"]], ["R5"], two_player_reverse=True)
    t.flip().turn(1).play(1, "RR").uno(1).skip(0)
    t.turn(1).play(1, "R3").end(1)
    assert_valid_trace(t.events)


def test_two_player_reverse_without_house_rule() -> None:
    t = TB([["R1", "B2"], ["RR", "R3"]], ["R5"])
    t.flip().turn(1).play(1, "RR").uno(1).ev("reverse", direction=-1)
    t.turn(0).play(0, "R1").uno(0)
    t.turn(1).play(1, "R3").end(1)
    assert_valid_trace(t.events)
    bad = copy.deepcopy(t.events)
    bad[find(bad, "reverse")] = {"e": "skip", "round": 0, "p": 0}
    assert_caught(bad, "expected reverse")


def test_skip_names_the_next_seat() -> None:
    t = TB([["R1", "B2"], ["RS", "R3"], ["G1", "G2"]], ["R5"])
    t.flip().turn(1).play(1, "RS").uno(1).skip(2)
    t.turn(0).play(0, "R1").uno(0)
    t.turn(1).play(1, "R3").end(1)
    assert_valid_trace(t.events)
    bad = copy.deepcopy(t.events)
    bad[find(bad, "skip")]["p"] = 0
    assert_caught(bad, "expected skip (p=2) (Skip)")


# --- piles: reshuffle, stalemate ---------------------------------------------


def test_reshuffle_inside_a_draw_and_stalemate() -> None:
    upcoming = ["R5", "B1", "B2", "B3", "B4", "B5"]  # 4 x decks + 1 = 5 must be left
    deck = full_deck() - Counter(upcoming)
    mine = ["RD2", "GD2", "YD2", "Y7"]
    rest = sorted((deck - Counter(mine)).elements())
    s1 = mine + rest[:47]
    s0 = rest[47:]
    t = TB([s0, s1], upcoming, players=2, hand_size=51, max_turns=4)
    t.flip()
    t.turn(1).play(1, "RD2").draw(0, 2, "draw2").skip(0)
    t.turn(1).play(1, "GD2").draw(0, 2, "draw2").skip(0)
    t.turn(1).play(1, "YD2").draw(0, 2, "draw2").skip(0)  # B5, reshuffle, one more
    kinds = [e["e"] for e in t.events[-4:]]
    assert kinds == ["draw", "reshuffle", "draw", "skip"]
    t.turn(1).play(1, "Y7").end(None)
    assert_valid_trace(t.events)
    bad = copy.deepcopy(t.events)
    bad[find(bad, "reshuffle")]["draw"].append("YD2")  # the top may not be shuffled in
    assert_caught(bad, "reshuffled pile is not the discard pile less its top")
    bad = copy.deepcopy(t.events)
    bad[-1]["points"] = 10
    assert_caught(bad, "end.points is 10, expected 0")
    bad = copy.deepcopy(t.events)
    bad[0]["rules"]["max_turns"] = 5
    assert_caught(bad, "expected turn (p=0), found 'end'")
    bad = copy.deepcopy(t.events)  # reshuffling before the pile is empty
    i = find(bad, "reshuffle")
    bad[i - 1]["cards"] = []
    bad[i + 1]["cards"] = ["B5", *bad[i + 1]["cards"]]
    assert_caught(bad, "reshuffle while the draw pile still holds 1 card(s)")


def test_deal_must_leave_enough_cards() -> None:
    deck = sorted(full_deck().elements())
    t = TB([deck[:52], deck[52:104]], deck[104:], players=2, max_turns=1)
    t.flip().turn(1).draw(1, 1, "turn").end(None)
    assert_caught(t.events, "the deal leaves 4 cards")


# --- stacking ----------------------------------------------------------------


def test_stacking_draw_two_chain() -> None:
    t = TB(
        [["Y2", "B4"], ["RD2", "G9"], ["BD2", "WD4"]],
        ["R5", "Y1", "Y3", "G4", "G6", "B9"],
        draw_two_on_draw_two=True,
    )
    t.flip()
    t.turn(1).play(1, "RD2").uno(1)
    t.turn(2).play(2, "BD2").uno(2)  # stacking is a regular turn
    t.draw(0, 4, "stack").skip(0)
    t.turn(1).draw(1, 1, "turn").play(1, "B9").uno(1)
    t.turn(2).play(2, "WD4", "G")  # last card: always legal; the penalty comes before end
    t.draw(0, 4, "wd4").end(2)
    assert_valid_trace(t.events)
    assert t.events[-1]["turns"] == 4
    bad = copy.deepcopy(t.events)
    bad[0]["rules"]["house_rules"]["stacking"]["draw_two_on_draw_two"] = False
    assert_caught(bad, "expected draw by seat 2 (cause draw2), found 'turn'")
    bad = copy.deepcopy(t.events)
    bad[find(bad, "draw", cause="stack")]["cause"] = "draw2"
    assert_caught(bad, "expected draw by seat 0 (cause stack)")


def test_stacking_wd4_rules() -> None:
    def trace(stack_card: str, color: str, **rules: Any) -> list[dict[str, Any]]:
        t = TB(
            [["Y2", "B4"], ["WD4", "G9"], [stack_card, "R1"]],
            ["R5", "Y1", "Y3", "G4", "G6", "B7", "B8", "B9", "Y9"],
            **rules,
        )
        t.flip()
        t.turn(1).play(1, "WD4", "G").uno(1)  # legal: no red
        t.turn(2).play(2, stack_card, color).uno(2)
        total = 6 if stack_card.endswith("D2") else 8
        t.draw(0, total, "stack").skip(0)
        t.turn(1).play(1, "G9").end(1)
        return t.events

    assert violations(trace("GD2", "G", draw_two_on_wd4=True)) == []
    assert_caught(
        trace("BD2", "B", draw_two_on_wd4=True), "stacked BD2 does not match the named color G"
    )
    assert_caught(
        trace("GD2", "G", draw_two_on_wd4=False, wd4_on_wd4=True),
        "Draw Two stacked on WD4, draw_two_on_wd4 is off",
    )
    # seat 2 holds R1 but the active color is green: the stacked WD4 is legal
    assert violations(trace("WD4", "G", wd4_on_wd4=True)) == []
    ev = trace("WD4", "G", wd4_on_wd4=True)  # only the chain's first WD4 may be challenged
    i = find(ev, "draw", cause="stack")
    ev[i : i + 2] = [{"e": "challenge", "round": 0, "p": 0, "target": 2, "success": False}]
    assert_caught(ev, "challenge of a card that cannot be challenged")


def test_stacked_wd4_holding_active_color_caught() -> None:
    t = TB(
        [["Y2", "B4"], ["RD2", "G9"], ["WD4", "R1"]],
        ["R5", "Y1", "Y3", "G4", "G6", "B7", "B8"],
        wd4_on_draw_two=True,
    )
    t.flip()
    t.turn(1).play(1, "RD2").uno(1)
    t.turn(2).play(2, "WD4", "G").uno(2)  # holds R1 with red active: illegal
    t.draw(0, 6, "stack").skip(0)
    t.turn(1).play(1, "G9").end(1)
    assert_caught(t.events, "illegal stacked WD4: seat 2 holds the active color R")


def test_last_card_draw_two_pending_drawn_before_end() -> None:
    t = TB(
        [["Y2", "B4"], ["RD2", "R3"], ["BD2", "B1"]], ["R5", "G1", "G2"], draw_two_on_draw_two=True
    )
    t.flip()
    t.turn(1).play(1, "R3").uno(1)
    t.turn(2).draw(2, 1, "turn")  # G1: no red, no 3
    t.turn(0).draw(0, 1, "turn")  # G2
    t.turn(1).play(1, "RD2").draw(2, 2, "draw2").end(1)  # no stacking, no skip
    ev = t.events
    assert_valid_trace(ev)
    bad = copy.deepcopy(ev)
    bad.insert(len(bad) - 1, {"e": "skip", "round": 0, "p": 2})
    assert_caught(bad, "expected end")


def test_stacking_turn_after_max_turns_is_a_stalemate() -> None:
    def trace(s2: list[str]) -> list[dict[str, Any]]:
        t = TB([["Y2", "B4"], ["RD2", "G9"], s2], ["R5"], draw_two_on_draw_two=True, max_turns=1)
        t.flip().turn(1).play(1, "RD2").uno(1)
        return t.end(None).events  # seat 2 would stack: that turn would be turn 2

    assert violations(trace(["BD2", "B3"]), policies="random") == []
    assert_caught(trace(["B1", "B3"]), "seat 2 has nothing to stack: it must accept")


def test_stacked_wd4_judged_after_the_slip_draw() -> None:
    """A Don't Talk slip comes before the stacking play; the WD4 condition is checked
    against the hand after the slip's draw (here it draws R6 with red active)."""

    def trace(slip: bool) -> list[dict[str, Any]]:
        t = TB(
            [["WD4", "G1", "G2"], ["WX", "R3", "R4"], ["RD2", "G5", "G6"]],
            ["R5", "R6", "B7", "B8", "Y1", "Y2", "Y3", "Y4", "Y5", "Y6"],
            special="dont_talk",
            wd4_on_draw_two=True,
            max_turns=3,
        )
        t.flip().turn(1).play(1, "WX", "R")
        t.ev("special", p=1, card="WX", target=0, outcome="silenced")
        t.turn(2).play(2, "RD2")
        t.turn(0)
        if slip:
            t.ev("slip", p=0).draw(0, 3, "dont_talk")
        t.play(0, "WD4", "G")
        t.draw(1, 6, "stack").skip(1)
        return t.end(None).events

    assert violations(trace(False)) == []
    assert_caught(trace(True), "illegal stacked WD4: seat 0 holds the active color R")


# --- jump-in, Seven-O ----------------------------------------------------------


def test_jump_in() -> None:
    t = TB([["R7", "R2"], ["R7", "R1"], ["B3", "B4"]], ["R5"], jump_in=True)
    t.flip()
    t.turn(1).play(1, "R7").uno(1)
    t.jump(0, "R7").uno(0)  # seat 2 holds none; seat 0 is first in order after seat 1
    t.turn(1).play(1, "R1").end(1)  # play continues from the jumper
    assert_valid_trace(t.events)
    assert t.events[-1]["turns"] == 2
    bad = copy.deepcopy(t.events)
    bad[0]["rules"]["house_rules"]["jump_in"] = False
    assert_caught(bad, "jump-in where none may come")


def test_jump_in_must_be_first_in_order() -> None:
    t = TB([["R7", "R2"], ["R7", "R1"], ["R7", "B4"]], ["R5"], jump_in=True, decks=2)
    t.flip()
    t.turn(1).play(1, "R7").uno(1)
    t.jump(0, "R7").uno(0)
    t.turn(1).play(1, "R1").end(1)
    assert_caught(t.events, "seat 0 jumps in, but seat 2 comes first in turn order")


def test_seven_o_swap_and_rotate() -> None:
    t = TB(
        [["G1", "G2", "G3"], ["R7", "R0", "B5"], ["Y1", "Y2", "Y3"]],
        ["R5", "Y7", "G0", "R9"],
        seven_o=True,
        max_turns=7,
    )
    t.flip()
    t.turn(1).play(1, "R7").swap(1, 0)
    t.turn(2).draw(2, 1, "turn").play(2, "Y7").swap(2, 0)
    t.turn(0).play(0, "Y1")
    t.turn(1).play(1, "G1")
    t.turn(2).draw(2, 1, "turn").play(2, "G0").rotate(1)
    t.turn(0).play(0, "R0").uno(0).rotate(1)
    t.turn(1).draw(1, 1, "turn").play(1, "R9").uno(1)
    assert t.hands == [["G2", "G3"], ["B5"], ["Y2", "Y3"]]
    t.end(None)  # max_turns
    assert_valid_trace(t.events)
    bad = copy.deepcopy(t.events)
    bad[find(bad, "rotate")]["direction"] = -1
    assert_caught(bad, "rotate.direction is -1")


def test_seven_o_last_card_seven_no_swap() -> None:
    t = TB([["G1"], ["R7"], ["Y1"]], ["R5"], seven_o=True)
    t.flip().turn(1).play(1, "R7").end(1)
    assert_valid_trace(t.events)
    bad = copy.deepcopy(t.events)
    bad.insert(len(bad) - 1, {"e": "swap", "round": 0, "a": 1, "b": 0})
    assert_caught(bad, "expected end")


# --- draw until play -----------------------------------------------------------


def test_draw_until_play() -> None:
    t = TB([["G9"], ["Y1"], ["R4"]], ["R5", "G2", "B3", "R8"], draw_until_play=True)
    t.flip()
    t.turn(1).draw(1, 3, "turn").play(1, "R8")
    t.turn(2).play(2, "R4").end(2)
    assert_valid_trace(t.events)
    bad = copy.deepcopy(t.events)
    bad.pop(find(bad, "play", card="R8"))
    assert_caught(bad, "drew the playable R8 but did not play it")


def test_draw_until_play_stops_at_first_playable() -> None:
    t = TB([["G9"], ["Y1"], ["R4"]], ["R5", "G2", "R8", "B3"], draw_until_play=True)
    t.flip()
    t.turn(1).draw(1, 3, "turn")
    t.turn(2).play(2, "R4").end(2)
    assert_caught(t.events, "keeps drawing (cause turn) after R8")


def test_single_draw_without_house_rule() -> None:
    t = TB([["G9"], ["Y1"], ["R4"]], ["R5", "G2", "B3", "R8"])
    t.flip()
    t.turn(1).draw(1, 3, "turn")
    t.turn(2).play(2, "R4").end(2)
    assert_caught(t.events, "seat 1 draws 3 card(s) (cause turn), expected 1")


# --- edition special wilds -------------------------------------------------------


def test_movie_madness() -> None:
    t = TB(
        [["B1"], ["WX"], ["Y1"]],
        ["R5", "G1", "G2", "G3", "G4"],
        special="movie_madness",
        special_points=50,
    )
    t.flip().turn(1).play(1, "WX", "G")
    t.ev("special", p=1, card="WX", target=2, outcome="failed").draw(2, 4, "special")
    t.end(1)
    assert_valid_trace(t.events)
    assert t.events[-1]["points"] == 1 + 1 + 1 + 2 + 3 + 4
    bad = copy.deepcopy(t.events)
    bad[find(bad, "special")]["target"] = 1
    assert_caught(bad, "Movie Madness target 1 is not another seat")


def test_wishing_star() -> None:
    t = TB(
        [["B3", "B4"], ["WX", "B9"], ["R1", "B2"]],
        ["R5", "Y3", "G1"],
        special="wishing_star",
        extra={"wish_icons": ["R1", "G1"]},
    )
    t.flip().turn(1).play(1, "WX", "B")
    t.ev("special", p=1, card="WX", target=None, outcome=[2])
    t.draw(0, 2, "special")  # seat 0 has no icon: draws Y3, then the icon G1
    t.uno(1)
    t.turn(2).play(2, "B2").uno(2)
    t.turn(0).play(0, "B3")
    t.turn(1).play(1, "B9").end(1)
    assert_valid_trace(t.events)
    bad = copy.deepcopy(t.events)
    bad[find(bad, "special")]["outcome"] = [0, 2]
    assert_caught(bad, "Wishing Star outcome [0, 2]")


def test_dont_talk_slip_and_silence_end() -> None:
    t = TB(
        [["B3", "B4", "Y8"], ["WX", "B9", "B8"], ["B2", "B1", "Y5"]],
        ["R5", "G1", "G2", "G3"],
        special="dont_talk",
    )
    t.flip().turn(1).play(1, "WX", "B")
    t.ev("special", p=1, card="WX", target=0, outcome="silenced")
    t.turn(2).play(2, "B2")
    t.turn(0).ev("slip", p=0).draw(0, 3, "dont_talk").play(0, "B3")
    t.turn(1).play(1, "B9").uno(1).ev("silence_end", p=0)
    t.turn(2).play(2, "B1").uno(2)
    t.turn(0).play(0, "B4")
    t.turn(1).play(1, "B8").end(1)
    assert_valid_trace(t.events)
    bad = copy.deepcopy(t.events)
    i = find(bad, "turn", p=2, k=0)
    bad.insert(i + 1, {"e": "slip", "round": 0, "p": 2})
    assert_caught(bad, "slip for seat 2, which is not a silenced seat")
    bad = copy.deepcopy(t.events)
    bad.pop(find(bad, "silence_end"))
    assert_caught(bad, "expected silence_end")


# --- match mode ----------------------------------------------------------------


def match(target: int = 15, scoring: str = "standard") -> list[dict[str, Any]]:
    """Three one-card rounds between two players; the deal passes left."""
    ev: list[dict[str, Any]] = []
    rounds = [
        (0, [["B9"], ["R4"]], ["R5"], 1),
        (1, [["Y3"], ["Y8"]], ["Y5"], 0),
        (0, [["G7"], ["G1"]], ["G5"], 1),
    ]
    scores = [0, 0]
    for rnd, (dealer, hands, up, w) in enumerate(rounds):
        t = TB(hands, up, dealer=dealer, rnd=rnd, mode="match", target=target, scoring=scoring)
        t.flip().turn(w).play(w, hands[w][0]).end(w)
        ev += t.events
        if scoring == "standard":
            scores[w] += ev[-1]["points"]
        else:
            scores = [a + t.hand_points(s) for s, a in enumerate(scores)]
        ev.append({"e": "score", "round": rnd, "scores": list(scores), "eliminated": []})
        if max(scores) >= target:
            break
    if scoring == "standard":
        win: Any = max(range(2), key=lambda s: scores[s])
    else:
        win = min(range(2), key=lambda s: scores[s])
    ev.append({"e": "match_end", "round": rnd, "winner": win, "scores": list(scores)})
    return ev


def test_match_standard() -> None:
    ev = match()
    assert [e["scores"] for e in ev if e["e"] == "score"] == [[0, 9], [8, 9], [8, 16]]
    res = assert_valid_trace(ev)
    assert res.rounds == 3
    bad = copy.deepcopy(ev)
    bad[find(bad, "deal", k=1)]["dealer"] = 0
    assert_caught(bad, "dealer is 0, expected 1")
    bad = copy.deepcopy(ev)
    bad[find(bad, "score", k=1)]["scores"] = [8, 10]
    assert_caught(bad, "score.scores is [8, 10], expected [8, 9]")
    bad = copy.deepcopy(ev)
    bad[-1]["winner"] = 0
    assert_caught(bad, "match_end.winner is 0, expected [1]")
    assert_caught(ev[:-1], "match-mode trace ends without match_end")
    assert_caught(
        [e for e in ev if e["e"] != "score" or e["round"] != 1],
        "expected score after the round's end",
    )


def test_match_ends_when_target_reached() -> None:
    ev = match(target=9)  # seat 1 reaches 9 in round 0
    assert sum(e["e"] == "deal" for e in ev) == 1
    assert_valid_trace(ev)
    bad = match(target=15)
    bad[0]["rules"]["target"] = 9  # the match goes on past its target
    assert_caught(bad, "a new round is dealt after the match was decided")


def test_match_lowest() -> None:
    ev = match(target=12, scoring="lowest")
    assert ev[find(ev, "end")]["points"] == 9  # all remaining hands: seat 0's B9
    assert_valid_trace(ev)
    assert ev[-1]["winner"] == 1


def test_several_games_in_one_trace() -> None:
    res = check_trace(classic_round() + classic_round())
    assert res.ok and res.rounds == 2


def test_reshuffle_lazy_or_eager() -> None:
    """A reshuffle may open a draw (lazy) or follow the draw that emptied the pile."""
    upcoming = ["R5", "B1", "B2", "B3", "B4", "B5"]
    deck = full_deck() - Counter(upcoming)
    mine = ["RD2", "GD2", "G7"]
    rest = sorted((deck - Counter(mine)).elements())
    t = TB([rest[48:], mine + rest[:48]], upcoming, players=2, max_turns=5)
    t.flip()
    t.turn(1).play(1, "RD2").draw(0, 2, "draw2").skip(0)
    t.turn(1).play(1, "GD2").draw(0, 2, "draw2").skip(0)
    t.turn(1).play(1, "G7")
    t.turn(0).draw(0, 1, "turn")  # B5: the pile is now empty
    t.turn(1).draw(1, 1, "turn")  # reshuffle first, then the draw
    assert [e["e"] for e in t.events[-3:]] == ["turn", "reshuffle", "draw"]
    t.end(None)
    assert_valid_trace(t.events)
    eager = copy.deepcopy(t.events)
    i = find(eager, "reshuffle")
    eager.insert(i - 1, eager.pop(i))
    assert_valid_trace(eager)


# --- reference policy and behaviour rates ----------------------------------------


def test_random_policy_checks() -> None:
    assert_valid_trace(classic_round(), policies="random")
    ev = classic_round()
    i = find(ev, "play", p=0, card="R7")
    ev[i] = {"e": "draw", "round": 0, "p": 0, "cards": ["R1"], "cause": "turn"}
    v = violations(ev, policies=["strategic", "random", "random"])
    assert not any("random policy" in x for x in v)
    v = violations(ev, policies="random")
    assert any("random policy: seat 0 draws while holding the legal R7" in x for x in v)


def test_random_policy_plays_a_legal_drawn_card() -> None:
    t = TB([["B1"], ["Y9"], ["G5"]], ["R5", "R1", "B2"], max_turns=2)
    t.flip().turn(1).draw(1, 1, "turn")  # R1 is playable, but kept
    t.turn(2).draw(2, 1, "turn")
    t.end(None)
    assert violations(t.events) == []
    assert_caught_with(t.events, "random", "random policy: seat 1 keeps the playable drawn R1")


def assert_caught_with(events: list[dict[str, Any]], policies: Any, needle: str) -> None:
    text = "\n".join(violations(events, policies=policies))
    assert needle in text, text


def test_random_policy_never_challenges_and_always_jumps() -> None:
    t = wd4_round(["WD4", "G9", "G1"], "challenge")
    t.ev("challenge", p=2, target=1, success=False)
    t.draw(2, 6, "challenge").skip(2)
    t.turn(0).play(0, "G3")
    t.turn(1).play(1, "G9").uno(1)
    t.turn(2).play(2, "G7")
    t.turn(0).draw(0, 1, "turn")
    t.turn(1).play(1, "G1").end(1)
    assert_caught_with(t.events, "random", "random policy: seat 2 challenges")
    t = TB([["R7", "R2"], ["R7", "R1"], ["R7", "B4"]], ["R5"], jump_in=True, decks=2)
    t.flip()
    t.turn(1).play(1, "R7").uno(1)
    t.jump(2, "R7").uno(2)  # seat 2 is first after seat 1
    t.turn(0).play(0, "R2").uno(0)  # seat 0 still holds R7 on R7 but does not jump
    t.turn(1).play(1, "R1").end(1)
    assert_caught_with(t.events, "random", "random policy: seat 0 holds R7 and does not jump")
    assert violations(t.events) == []  # another policy may decline


def test_random_policy_stacks_when_it_can() -> None:
    t = TB(
        [["Y2", "GD2"], ["RD2", "G9"], ["B1", "B3"]],
        ["R5", "Y1", "Y3", "B9"],
        draw_two_on_draw_two=True,
        max_turns=2,
    )
    t.flip()
    t.turn(1).play(1, "RD2").uno(1)
    t.draw(2, 2, "draw2").skip(2)  # seat 2 has no Draw Two: accepts
    t.turn(0).play(0, "GD2").uno(0)
    t.draw(1, 2, "draw2").skip(1)  # seat 1 holds G9 only: accepts
    t.end(None)
    assert_valid_trace(t.events, policies="random")
    t = TB(
        [["Y2", "GD2"], ["RD2", "G9"], ["BD2", "B3"]],
        ["R5", "Y1", "Y3"],
        draw_two_on_draw_two=True,
        max_turns=1,
    )
    t.flip()
    t.turn(1).play(1, "RD2").uno(1)
    t.draw(2, 2, "draw2").skip(2)  # holds BD2 and could stack
    t.end(None)
    assert violations(t.events) == []
    assert_caught_with(t.events, "random", "seat 2 accepts the penalty holding the stackable BD2")


def behaviour_rules(**rates: float) -> dict[str, float]:
    beh = {
        "uno_forget_rate": 0.0,
        "uno_catch_rate": 1.0,
        "movie_madness_fail_rate": 0.5,
        "dont_talk_slip_rate": 0.1,
    }
    beh.update(rates)
    return beh


def test_uno_penalty_and_behaviour_rates() -> None:
    def trace(called: bool, caught: bool, **rates: float) -> list[dict[str, Any]]:
        t = TB(
            [["G1", "G2"], ["R3", "R4"], ["Y1", "Y2"]],
            ["R5", "B7", "B8"],
            max_turns=1,
            behaviour=behaviour_rules(**rates),
        )
        t.flip().turn(1).play(1, "R3").uno(1, called, caught)
        if caught:
            t.draw(1, 2, "uno")
        return t.end(None).events

    assert violations(trace(False, True, uno_forget_rate=0.5)) == []
    assert violations(trace(False, False, uno_forget_rate=0.5, uno_catch_rate=0.5)) == []
    assert violations(trace(True, False)) == []
    assert_caught(trace(False, True), "uno.called is False with uno_forget_rate 0.0")
    assert_caught(
        trace(False, False, uno_forget_rate=0.5), "uno.caught is False with uno_catch_rate 1.0"
    )
    assert_caught(trace(True, True, uno_forget_rate=0.5), "uno is both called and caught")
    ev = trace(False, True, uno_forget_rate=0.5)
    ev[find(ev, "draw", cause="uno")]["cards"].pop()
    assert_caught(ev, "seat 1 draws 1 card(s) (cause uno), expected 2")


def test_movie_madness_and_slip_rates() -> None:
    t = TB(
        [["B1"], ["WX"], ["Y1"]],
        ["R5"],
        special="movie_madness",
        behaviour=behaviour_rules(movie_madness_fail_rate=1.0),
    )
    t.flip().turn(1).play(1, "WX", "G")
    t.ev("special", p=1, card="WX", target=0, outcome="named").end(1)
    assert_caught(t.events, "Movie Madness outcome 'named' with fail rate 1.0")
    t = TB(
        [["B3", "B4", "B5"], ["WX", "B9", "B8"], ["B2", "B1", "B6"]],
        ["R5"],
        special="dont_talk",
        behaviour=behaviour_rules(dont_talk_slip_rate=0.0),
        max_turns=3,
    )
    t.flip().turn(1).play(1, "WX", "B")
    t.ev("special", p=1, card="WX", target=0, outcome="silenced")
    t.turn(2).play(2, "B2")
    t.turn(0).ev("slip", p=0).draw(0, 3, "dont_talk").play(0, "B3")
    t.end(None)
    assert_caught(t.events, "seat 0 slips with dont_talk_slip_rate 0")
    t.events[0]["rules"]["behaviour"]["dont_talk_slip_rate"] = 0.5
    assert_valid_trace(t.events)


# --- match scoring variants --------------------------------------------------------


def test_match_partners() -> None:
    t = TB([["B9"], ["R4"], ["Y7"], ["G2"]], ["R5"], mode="match", scoring="partners", target=10)
    t.flip().turn(1).play(1, "R4").end(1)
    assert t.events[-1]["points"] == 9 + 7  # seats 0 and 2 hold the opponents' cards
    ev = t.events + [
        {"e": "score", "round": 0, "scores": [0, 16, 0, 16], "eliminated": []},
        {"e": "match_end", "round": 0, "winner": [1, 3], "scores": [0, 16, 0, 16]},
    ]
    assert_valid_trace(ev)
    bad = copy.deepcopy(ev)
    bad[-1]["winner"] = 1
    assert_caught(bad, "match_end.winner is 1, expected [1, 3]")
    bad = copy.deepcopy(ev)
    bad[-3]["points"] = 18  # all three other hands
    assert_caught(bad, "end.points is 18, expected 16")


def test_match_elimination() -> None:
    def rnd(
        r: int, dealer: int, hands: list[list[str]], up: str, w: int, active: list[int]
    ) -> list[dict[str, Any]]:
        t = TB(
            hands,
            [up],
            dealer=dealer,
            rnd=r,
            mode="match",
            scoring="elimination",
            target=10,
            extra={"active": active},
            hand_size=1,
        )
        return t.flip().turn(w).play(w, hands[w][0]).end(w).events

    ev = rnd(0, 0, [["B9"], ["R4"], ["Y5"]], "R5", 1, [0, 1, 2])
    assert ev[-1]["points"] == 14  # every remaining hand
    ev.append({"e": "score", "round": 0, "scores": [9, 0, 5], "eliminated": []})
    ev += rnd(1, 1, [["G3"], ["R4"], ["R2"]], "R6", 2, [0, 1, 2])
    ev.append({"e": "score", "round": 1, "scores": [12, 4, 5], "eliminated": [0]})
    ev += rnd(2, 2, [[], ["Y1"], ["Y8"]], "Y6", 1, [1, 2])  # seat 0 is out
    ev.append({"e": "score", "round": 2, "scores": [12, 4, 13], "eliminated": [0, 2]})
    ev.append({"e": "match_end", "round": 2, "winner": 1, "scores": [12, 4, 13]})
    assert_valid_trace(ev)
    bad = copy.deepcopy(ev)
    bad[find(bad, "deal", k=2)].update(active=[0, 1, 2])
    assert_caught(bad, "deal.active is [0, 1, 2], expected [1, 2]")
    bad = copy.deepcopy(ev)
    bad[find(bad, "score", k=1)]["eliminated"] = []
    assert_caught(bad, "score.eliminated is [], expected [0]")
    bad = copy.deepcopy(ev)
    bad[find(bad, "deal", k=2)]["dealer"] = 1
    assert_caught(bad, "dealer is 1, expected 2")


# --- the rulings (docs/rules.md §12) ----------------------------------------------


def test_forced_play_draw_while_holding_a_legal_card_caught() -> None:
    t = TB([["G1", "G2"], ["R3", "Y4"], ["B3", "B4"]], ["R5", "B1"], forced_play=True)
    t.flip()
    t.turn(1).draw(1, 1, "turn")
    assert_caught(t.events, "forced_play: seat 1 draws while holding the legal R3")


def deflect_round(**rules: Any) -> list[dict[str, Any]]:
    """Seat 2 sends seat 1's Draw Two back with a Reverse; seat 2 then goes out."""
    t = TB([["R7", "G2"], ["RD2", "Y4"], ["RR", "R9"]], ["R5", "B1", "B2"], **rules)
    t.flip()
    t.turn(1).play(1, "RD2").uno(1)
    t.turn(2).play(2, "RR").uno(2).ev("reverse", direction=-1)
    t.draw(1, 2, "draw2").skip(1)
    t.turn(0).play(0, "R7").uno(0)
    t.turn(2).play(2, "R9")
    t.end(2)
    return t.events


def test_deflect_valid_and_caught_without_the_ruling() -> None:
    assert_valid_trace(deflect_round(deflect=True))
    assert_caught(deflect_round(), "expected draw by seat 2")


def multiple_play_round(hand: list[str], **rules: Any) -> TB:
    t = TB([["Y4", "Y6", "Y8"], hand, ["B3", "B8", "B9"]], ["R5"], **rules)
    t.flip()
    t.turn(1).play(1, "R7").play(1, "G7")
    return t


def test_multiple_play_valid_and_caught_without_the_ruling() -> None:
    t = multiple_play_round(["R7", "G7", "B7"], multiple_play=True)
    t.play(1, "B7").end(1)
    assert_valid_trace(t.events)
    t = multiple_play_round(["R7", "G7", "B7"])
    t.play(1, "B7").end(1)
    assert_caught(t.events, "expected turn (p=2), found 'play' (p=1, card=G7")


def test_multiple_play_other_number_and_random_keeping_caught() -> None:
    t = multiple_play_round(["R7", "G7", "G8"], multiple_play=True)
    t.play(1, "G8")
    assert_caught(t.events, "only the same number may follow")
    t = multiple_play_round(["R7", "G7", "B7"], multiple_play=True)
    t.turn(2)
    v = check_trace(t.events, policies="random").violations
    assert any("random policy: seat 1 keeps B7" in x for x in v), v


def test_no_action_finish_last_action_card_caught() -> None:
    t = TB([["G1"], ["RS"], ["B3"]], ["R5"], no_action_finish=True)
    t.flip()
    t.turn(1).play(1, "RS").end(1)
    assert_caught(t.events, "no_action_finish: seat 1 plays RS as its last card")
    t.events[0]["rules"]["house_rules"]["no_action_finish"] = False
    assert_valid_trace(t.events)


def test_seven_o_swap_next_wrong_partner_caught() -> None:
    def swapped(b: int) -> list[str]:
        t = TB([["G1", "G2", "G3"], ["R7", "Y4", "Y5"], ["B3", "B4", "B5"]], ["R5"],
               seven_o=True, seven_o_swap="next")
        t.flip()
        t.turn(1).play(1, "R7").swap(1, b)
        return violations(t.events)
    assert any("seven_o_swap next: seat 1 swaps with 0, not 2" in x for x in swapped(0))
    assert not any("seven_o_swap" in x for x in swapped(2))


def test_last_card_draws_false() -> None:
    def last_draw_two(**rules: Any) -> list[dict[str, Any]]:
        t = TB([["G1"], ["RD2"], ["B3"]], ["R5"], **rules)
        t.flip()
        t.turn(1).play(1, "RD2").end(1)
        return t.events
    assert_valid_trace(last_draw_two(last_card_draws=False))
    assert_caught(last_draw_two(), "expected draw by seat 2")


def test_challenge_removed_by_the_rulings_caught() -> None:
    for rules in ({"challenge": False}, {"wd4_unrestricted": True}):
        t = TB([["G1", "G2", "G3"], ["WD4", "Y4", "Y5"], ["B3", "B4", "B5"]], ["R5"], **rules)
        t.flip()
        t.turn(1).play(1, "WD4", "G").ev("challenge", p=2, target=1, success=False)
        assert_caught(t.events, "the rulings remove the challenge")


def test_jump_in_same_number() -> None:
    def jumped(**rules: Any) -> list[str]:
        t = TB([["G1", "G2", "G3"], ["R7", "Y4", "Y5"], ["G7", "B4", "B5"]], ["R5"], **rules)
        t.flip()
        t.turn(1).play(1, "R7").jump(2, "G7")
        return violations(t.events)
    assert not any("jumps in" in x for x in jumped(jump_in="same_number"))
    assert any("it must be identical" in x for x in jumped(jump_in=True))


def test_draw_then_play_none_and_any() -> None:
    def drew_and_played(card: str, **rules: Any) -> list[str]:
        t = TB([["G1", "G2"], ["R3", "Y4"], ["B3", "B4"]], ["R5", "R8"], **rules)
        t.flip()
        t.turn(1).draw(1, 1, "turn").play(1, card)
        return violations(t.events)
    assert any("draw_then_play none" in x for x in drew_and_played("R8", draw_then_play="none"))
    assert not any("after drawing" in x for x in drew_and_played("R3", draw_then_play="any"))
    assert any("only the drawn card" in x for x in drew_and_played("R3"))


# --- the engine, when it is there ------------------------------------------------


ENGINE_CONFIGS = [
    ("classic.yaml", []),
    ("chaos.yaml", ["behaviour.uno_forget_rate=0.3", "behaviour.uno_catch_rate=0.5"]),
    ("chaos.yaml", ["players=2"]),
    ("disney100.yaml", ["players=3"]),
    ("disney_wish.yaml", []),
    ("encanto.yaml", ["behaviour.dont_talk_slip_rate=0.5"]),
    ("classic.yaml", ["policy=strategic", "house_rules.stacking.wd4_on_wd4=true"]),
    ("match.yaml", ["scoring=elimination", "target=150", "players=5"]),
    ("match.yaml", ["scoring=partners", "target=200"]),
]


@pytest.mark.parametrize(("config", "overrides"), ENGINE_CONFIGS)
def test_engine_traces_replay(config: str, overrides: list[str]) -> None:
    """Real engine traces must replay cleanly."""
    from unosim.engine.game import play_game
    from unosim.engine.kernel.state import compile_config
    from unosim.rules.config import load_config

    path = Path(__file__).resolve().parents[2] / "configs" / config
    cfg = load_config(path, overrides)
    cc = compile_config(cfg)
    for seed in range(5):
        ev = play_game(cc, seed)
        res = assert_valid_trace(ev, policies=cfg.seat_policies)
        assert res.rounds >= 1
