"""The independent replay checker on docs/rules.md §11's effects and settings.

Hand-written traces on a small edition whose card list (``deal.cards``) has
Draw Two, Discard All, Skip Everyone, Wild Reverse Draw Four, Wild Draw Ten and
Wild Color Roulette, with value stacking, no challenges and a mercy limit. Each
valid trace is written card by card from docs/rules.md §11 and docs/trace.md;
each mutation breaks one rule and must be reported. The builder only keeps the
piles and hands; every rule decision is written in the tests.
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

from replay_checker import check_trace

COLORS = "RYGB"
CARDS: list[dict[str, Any]] = [
    *({"token": str(i), "count": 2, "effects": ["match"]} for i in range(1, 10)),
    {"token": "D2", "count": 2, "points": 20, "effects": ["match", "draw 2"], "stacking": 2},
    {"token": "DA", "count": 2, "points": 20, "effects": ["match", "discard_color"]},
    {"token": "SE", "count": 1, "points": 20, "effects": ["match", "skip_all"]},
    {"token": "WRD4", "count": 2, "points": 50, "effects": ["match", "reverse", "draw 4"],
     "stacking": 4},
    {"token": "WD10", "count": 2, "points": 50, "effects": ["match", "draw 10"], "stacking": 10},
    {"token": "WCR", "count": 2, "points": 50, "effects": ["match", "draw_until_color"]},
]


def deck() -> Counter[str]:
    d: Counter[str] = Counter()
    for c in CARDS:
        for t in [c["token"]] if c["token"].startswith("W") else [k + c["token"] for k in COLORS]:
            d[t] += c["count"]
    return d


def points(card: str) -> int:
    return int(card[1]) if card[1:].isdigit() else 50 if card.startswith("W") else 20


def table_rules(hands: list[list[str]], first_flip: str, seven_o: bool = False,
                draw_until_play: bool = False, **edition: Any) -> dict[str, Any]:
    """A hand-written deal's resolved rules: one round, no other house rule."""
    house = {"stacking": dict.fromkeys(("draw_two_on_draw_two", "wd4_on_wd4",
                                        "wd4_on_draw_two", "draw_two_on_wd4"), False),
             "jump_in": False, "seven_o": seven_o, "draw_until_play": draw_until_play,
             "two_player_reverse": False}
    return {"players": len(hands), "hand_size": len(hands[0]), "decks": 1,
            "first_flip": first_flip, "wd4_wilds_block": False, "uno_penalty": 2,
            "special": "none", "special_points": 0, "house_rules": house,
            "max_turns": 1000, "mode": "round", "scoring": "standard", "target": 500,
            **edition}


class NB:
    """Trace builder: writes events and keeps the piles and hands they imply."""

    def __init__(self, hands: list[list[str]], upcoming: list[str], first: str = "R3",
                 mercy_limit: int = 25, draw_until_play: bool = False,
                 seven_o: bool = False) -> None:
        used = Counter(c for h in hands for c in h) + Counter(upcoming) + Counter([first])
        assert not used - deck(), used - deck()
        self.pile = sorted((deck() - used).elements()) + upcoming[::-1] + [first]
        self.hands = [list(h) for h in hands]
        self.discard: list[str] = []
        self.color = ""
        self.turns = 0
        rules = table_rules(hands, "redraw", seven_o, draw_until_play, stacking="value",
                            mercy_limit=mercy_limit, challenge=False)
        self.events: list[dict[str, Any]] = []
        self.ev("deal", dealer=0, players=len(hands), hands=[list(h) for h in hands],
                draw=list(self.pile), edition="test", rules=rules, cards=CARDS)
        self.pile.pop()
        self.discard.append(first)
        self.color = first[0]
        self.ev("flip", card=first)

    def ev(self, kind: str, **kw: Any) -> NB:
        self.events.append({"e": kind, "round": 0, **kw})
        return self

    def turn(self, p: int) -> NB:
        self.turns += 1
        return self.ev("turn", p=p, color=self.color, top=self.discard[-1])

    def play(self, p: int, card: str, color: str | None = None) -> NB:
        self.hands[p].remove(card)
        self.discard.append(card)
        self.color = color or card[0]
        return self.ev("play", p=p, card=card, color=self.color)

    def draw(self, p: int, n: int, cause: str, **kw: Any) -> NB:
        cards = [self.pile.pop() for _ in range(n)]
        self.hands[p] += cards
        return self.ev("draw", p=p, cards=cards, cause=cause, **kw)

    def discard_all(self, p: int, cards: list[str]) -> NB:
        for c in cards:
            self.hands[p].remove(c)
        self.discard[-1:-1] = cards
        return self.ev("discard", p=p, cards=cards)

    def out(self, p: int) -> NB:
        cards = sorted(self.hands[p])
        self.discard[:0] = cards
        self.hands[p] = []
        return self.ev("out", p=p, reason="mercy", cards=cards, to="discard_bottom")

    def end(self, w: int) -> list[dict[str, Any]]:
        pts = sum(points(c) for s, h in enumerate(self.hands) if s != w for c in h)
        self.ev("end", winner=w, points=pts, hands=[sorted(h) for h in self.hands],
                turns=self.turns)
        return self.events


def ok(events: list[dict[str, Any]]) -> None:
    res = check_trace(events)
    assert res.ok, res.violations


def caught(events: list[dict[str, Any]], needle: str) -> None:
    res = check_trace(events)
    assert any(needle in v for v in res.violations), res.violations


def find(events: list[dict[str, Any]], kind: str, **want: Any) -> int:
    return next(i for i, e in enumerate(events)
                if e["e"] == kind and all(e.get(k) == v for k, v in want.items()))


TWELVE = ["G1", "G2", "G4", "G5", "G6", "G8", "G9", "Y4", "Y5", "Y6", "Y8", "Y9"]
UNO = {"called": True, "caught": False}
# Seat 0 deals: seat 1 (the dealer's left) plays first.


def stacked(mercy_limit: int = 25) -> NB:
    """Seat 1's Draw Two, seat 2's Draw Ten on it (value 10 >= 2), seat 0 draws 12."""
    t = NB([["Y1", "Y2"], ["RD2", "B5"], ["WD10", "B1"]], TWELVE, mercy_limit=mercy_limit)
    t.turn(1).play(1, "RD2").ev("uno", p=1, **UNO)
    t.turn(2).play(2, "WD10", "B").ev("uno", p=2, **UNO)
    return t.draw(0, 12, "stack")


def test_value_stacking_draw_ten_on_draw_two() -> None:
    t = stacked().ev("skip", p=0)
    ok(t.turn(1).play(1, "B5").end(1))


def test_value_stacking_draw_two_on_draw_ten_caught() -> None:
    t = NB([["Y1", "Y2"], ["WD10", "R5"], ["RD2", "B1"]], TWELVE)
    t.turn(1).play(1, "WD10", "B").ev("uno", p=1, **UNO)
    t.turn(2).play(2, "RD2").ev("uno", p=2, **UNO)
    t.draw(0, 12, "stack").ev("skip", p=0)
    caught(t.turn(1).play(1, "R5").end(1), "value stacking needs an equal or higher one")


def test_mercy_knock_out_and_the_round_goes_on() -> None:
    t = stacked(mercy_limit=14).out(0)  # 2 + 12 cards: out, and no skip
    ev = t.turn(1).play(1, "B5").end(1)
    ok(ev)
    assert ev[-1]["hands"][0] == [] and ev[-1]["points"] == 1


def test_mercy_knock_out_missing_caught() -> None:
    t = stacked(mercy_limit=14).ev("skip", p=0)
    caught(t.turn(1).play(1, "B5").end(1), "expected out")


def test_mercy_knock_out_below_the_limit_caught() -> None:
    t = stacked(mercy_limit=15).out(0)
    caught(t.turn(1).play(1, "B5").end(1), "the mercy limit is 15")


def test_mercy_last_player_standing_wins() -> None:
    t = NB([["Y1", "Y2"], ["WD10", "B5"]], TWELVE, mercy_limit=12)
    t.turn(1).play(1, "WD10", "B").ev("uno", p=1, **UNO)
    ev = t.draw(0, 10, "wd4").out(0).end(1)
    ok(ev)
    bad = copy.deepcopy(ev)
    bad[-1]["winner"] = None
    caught(bad, "end.winner is None, expected 1")


def test_discard_all_as_the_last_card() -> None:
    t = NB([["Y1", "Y2", "Y4", "Y5"], ["RDA", "R5", "R6", "R8"]], [])
    ev = t.turn(1).play(1, "RDA").discard_all(1, ["R5", "R6", "R8"]).end(1)
    ok(ev)
    bad = copy.deepcopy(ev)
    bad[find(bad, "discard")]["cards"] = ["R5", "R6"]  # R8 left in the hand
    caught(bad, "discard.cards is ['R5', 'R6']")


def test_skip_everyone_plays_again() -> None:
    t = NB([["Y4", "Y5"], ["RSE", "R5"], ["Y1", "Y2"]], [])
    t.turn(1).play(1, "RSE").ev("uno", p=1, **UNO)
    ev = t.ev("skip_all", p=1).ev("skip", p=2).ev("skip", p=0).turn(1).play(1, "R5").end(1)
    ok(ev)
    bad = copy.deepcopy(ev)
    del bad[find(bad, "skip", p=0)]
    caught(bad, "expected skip (p=0)")


def wild_reverse_draw_four() -> list[dict[str, Any]]:
    """4 players: the direction flips, then seat 0 (the next in the new direction) draws."""
    t = NB([["Y4", "Y5"], ["WRD4", "B5"], ["Y1", "Y2"], ["B6", "B8"]],
           ["G1", "G2", "G4", "G5", "G6"])
    t.turn(1).play(1, "WRD4", "B").ev("uno", p=1, **UNO)
    t.ev("reverse", direction=-1).draw(0, 4, "wd4").ev("skip", p=0)
    t.turn(3).play(3, "B6").ev("uno", p=3, **UNO)
    t.turn(2).draw(2, 1, "turn")  # G6: nothing to play
    return t.turn(1).play(1, "B5").end(1)


def test_wild_reverse_draw_four() -> None:
    ev = wild_reverse_draw_four()
    ok(ev)
    bad = copy.deepcopy(ev)
    bad[find(bad, "draw", cause="wd4")]["p"] = 2  # as if it had not reversed
    caught(bad, "expected draw by seat 0 (cause wd4)")


def test_color_roulette() -> None:
    t = NB([["Y4", "Y5"], ["WCR", "B5"], ["Y1", "Y2"]], ["R1", "G2", "B7", "G4"])
    t.turn(1).play(1, "WCR", "R").ev("uno", p=1, **UNO)
    t.draw(2, 3, "draw_until_color", color="B").ev("skip", p=2)
    t.color = "B"
    t.turn(0).draw(0, 1, "turn")
    ev = t.turn(1).play(1, "B5").end(1)
    ok(ev)
    bad = copy.deepcopy(ev)
    bad[find(bad, "draw", cause="draw_until_color")]["color"] = "G"
    caught(bad, "keeps drawing (cause draw_until_color) after G2")


def test_mercy_after_a_forced_seven_swap_in_turn_order() -> None:
    """Checked for every seat in turn order from the card's player: seat 1 takes a
    3-card hand (limit 3) and is out, then seat 0 (3 cards) too; seat 2 is left."""
    t = NB([["Y1", "Y2", "Y4"], ["R7", "R5", "R6"], ["B1", "B2", "B4"]], [], mercy_limit=3,
           seven_o=True)
    t.turn(1).play(1, "R7").ev("swap", a=1, b=2)
    t.hands[1], t.hands[2] = t.hands[2], t.hands[1]
    ev = t.out(1).out(0).end(2)
    ok(ev)
    bad = copy.deepcopy(ev)
    i = find(bad, "out", p=1)
    bad[i], bad[i + 1] = bad[i + 1], bad[i]
    caught(bad, "expected out (p=1)")


def test_challenge_off_caught() -> None:
    """An edition with ``challenge: false``: no challenge, even of a challengeable card."""
    t = NB([["Y1", "Y2"], ["WD10", "B5"], ["B1", "Y5"]], TWELVE)
    t.events[0]["cards"] = [{**c, "challengeable": True} if c["token"] == "WD10" else c
                            for c in CARDS]
    t.turn(1).play(1, "WD10", "B").ev("uno", p=1, **UNO)
    t.ev("challenge", p=2, target=1, success=False)
    caught(t.events, "the edition has challenge: false")
