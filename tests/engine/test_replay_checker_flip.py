"""The independent replay checker on UNO Flip (docs/rules.md §11, docs/trace.md §6).

Hand-written two-player traces on the shipped Flip deck (its card list as the
deal's ``cards``): every card is a ``"light/dark"`` pair, the side in play
decides which face counts. Each valid trace is written card by card from the
rules; each mutation breaks one Flip rule (a missing or wrong ``flip_all``, a
dark-side play matched on its light face, a Wild Draw Color draw that stops
early or late, a wrong challenge penalty, points counted on the wrong side) and
must be reported. The builder only keeps the piles, hands and the side; every
rule decision (colors, counts, points) is written in the tests.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from replay_checker import SIDES, check_trace

from tests.engine.test_replay_checker_s11 import table_rules
from unosim.engine.game import play_game
from unosim.engine.kernel.state import compile_config
from unosim.rules.config import load_config, validate_config

LIGHT, DARK = "RYGB", "PTOU"
NUMBERS = [{"token": str(i), "count": 2} for i in range(1, 10)]
CARDS: list[dict[str, Any]] = [
    *NUMBERS,
    {"token": "D1", "count": 2, "points": 10, "effects": ["match", "draw 1"], "stacking": 1},
    {"token": "R", "count": 2, "points": 20, "effects": ["match", "reverse"]},
    {"token": "S", "count": 2, "points": 20, "effects": ["match", "skip"]},
    {"token": "F", "count": 2, "points": 20, "effects": ["match", "flip"]},
    {"token": "W", "count": 4, "points": 40},
    {"token": "WD2", "count": 4, "points": 50, "effects": ["match", "draw 2"],
     "condition": "only_without_color", "challengeable": True, "stacking": 2},
    *({**n, "side": "dark"} for n in NUMBERS),
    {"token": "D5", "count": 2, "points": 20, "effects": ["match", "draw 5"], "stacking": 5,
     "side": "dark"},
    {"token": "R", "count": 2, "points": 20, "effects": ["match", "reverse"], "side": "dark"},
    {"token": "SE", "count": 2, "points": 30, "effects": ["match", "skip_all"], "side": "dark"},
    {"token": "F", "count": 2, "points": 20, "effects": ["match", "flip"], "side": "dark"},
    {"token": "WK", "count": 4, "points": 40, "side": "dark"},
    {"token": "WDC", "count": 4, "points": 60, "effects": ["match", "draw_until_color"],
     "condition": "only_without_color", "challengeable": True, "names_color": "player",
     "side": "dark"},
]


def faces(side: int) -> Counter[str]:
    """The 112 faces of one side."""
    d: Counter[str] = Counter()
    for c in CARDS:
        if (c.get("side") == "dark") == bool(side):
            tok = c["token"]
            for t in [tok] if tok.startswith("W") else [k + tok for k in (LIGHT, DARK)[side]]:
                d[t] += c["count"]
    return d


class FB:
    """Flip trace builder: writes events and keeps the piles, hands and side they imply.
    ``upcoming`` are the next cards of the draw pile, in the order they come."""

    def __init__(self, hands: list[list[str]], upcoming: list[str], first: str,
                 seven_o: bool = False) -> None:
        used = [*(c for h in hands for c in h), *upcoming, first]
        rest = [faces(s) - Counter(c.split("/")[s] for c in used) for s in (0, 1)]
        assert sum(rest[0].values()) == sum(rest[1].values()) == 112 - len(used), rest
        others = [f"{a}/{b}" for a, b in zip(sorted(rest[0].elements()),
                                             sorted(rest[1].elements()), strict=True)]
        self.pile = others + upcoming[::-1] + [first]
        self.hands = [list(h) for h in hands]
        self.discard: list[str] = []
        self.side = 0
        self.turns = 0
        rules = table_rules(hands, "apply", seven_o)
        self.events: list[dict[str, Any]] = []
        self.ev("deal", dealer=0, players=len(hands), hands=[list(h) for h in hands],
                draw=list(self.pile), edition="flip", rules=rules, cards=CARDS)
        self.pile.pop()
        self.discard.append(first)
        self.ev("flip", card=first)

    def ev(self, kind: str, **kw: Any) -> FB:
        self.events.append({"e": kind, "round": 0, **kw})
        return self

    def face(self, card: str) -> str:
        return card.split("/")[self.side]

    def turn(self, p: int, color: str) -> FB:
        self.turns += 1
        return self.ev("turn", p=p, color=color, top=self.discard[-1])

    def play(self, p: int, card: str, color: str) -> FB:
        self.hands[p].remove(card)
        self.discard.append(card)
        return self.ev("play", p=p, card=card, color=color)

    def flip_all(self, p: int, side: str, color: str | None) -> FB:
        self.side = 1 - self.side
        return self.ev("flip_all", p=p, side=side, color=color)

    def draw(self, p: int, n: int, cause: str) -> FB:
        cards = [self.pile.pop() for _ in range(n)]
        self.hands[p] += cards
        return self.ev("draw", p=p, cards=cards, cause=cause)

    def uno(self, p: int) -> FB:
        return self.ev("uno", p=p, called=True, caught=False)

    def end(self, w: int, points: int) -> list[dict[str, Any]]:
        self.ev("end", winner=w, points=points, hands=[sorted(h) for h in self.hands],
                turns=self.turns)
        return self.events


def violations(events: list[dict[str, Any]]) -> list[str]:
    return check_trace(events).violations


def ok(events: list[dict[str, Any]]) -> None:
    assert not violations(events), violations(events)


def caught(events: list[dict[str, Any]], needle: str) -> None:
    found = violations(events)
    assert any(needle in v for v in found), found


def find(events: list[dict[str, Any]], kind: str, **want: Any) -> int:
    return next(i for i, e in enumerate(events)
                if e["e"] == kind and all(e.get(k) == v for k, v in want.items()))


def mutated(events: list[dict[str, Any]], i: int, **change: Any) -> list[dict[str, Any]]:
    bad = copy.deepcopy(events)
    bad[i].update(change)
    return bad


def without(events: list[dict[str, Any]], i: int) -> list[dict[str, Any]]:
    return events[:i] + events[i + 1:]


# Seat 0 deals; seat 1 (the dealer's left) plays first.


def flip_midround(second: str = "R9/O3") -> list[dict[str, Any]]:
    """Seat 1's Flip RF/O5 turns everything over: the top (the Flip card itself) now
    shows O5 (orange). Seat 0 plays ``second`` (its dark face O3 matches orange), seat 1
    goes out on the dark side."""
    t = FB([["Y5/P2", "R9/O3", "R2/T9"], ["RF/O5", "G4/O8", "B6/O1"]], ["Y1/U4"], "R3/P4")
    t.turn(1, "R").play(1, "RF/O5", "R").flip_all(1, "dark", "O")
    t.turn(0, "O").play(0, second, "O")
    t.turn(1, "O").play(1, "G4/O8", "O").uno(1)
    t.turn(0, "O").draw(0, 1, "turn")  # U4: neither orange nor an 8
    # seat 0 keeps Y5/P2 (2), R2/T9 (9), Y1/U4 (4) on the dark side: 15 (light: 8)
    return t.turn(1, "O").play(1, "B6/O1", "O").end(1, 15)


def test_flip_midround_replays() -> None:
    ok(flip_midround())


def test_flip_all_missing_caught() -> None:
    ev = flip_midround()
    caught(without(ev, find(ev, "flip_all")), "expected flip_all (p=1)")


def test_flip_all_wrong_side_caught() -> None:
    ev = flip_midround()
    caught(mutated(ev, find(ev, "flip_all"), side="light"),
           "flip_all.side is 'light', expected 'dark'")


def test_flip_all_wrong_color_caught() -> None:
    """The new top's dark face O5 is orange: its light face's red is not the color."""
    ev = flip_midround()
    caught(mutated(ev, find(ev, "flip_all"), color="R"), "flip_all.color is 'R'")


def test_dark_side_play_matched_on_the_light_face_caught() -> None:
    """R2/T9 on RF/O5 on the dark side: T9 matches neither orange nor a 5 (R2 on RF
    would have matched red on the light side)."""
    caught(flip_midround(second="R2/T9"), "illegal play: seat 0 plays R2/T9")


def test_points_on_the_light_side_caught() -> None:
    ev = flip_midround()
    caught(mutated(ev, len(ev) - 1, points=8), "end.points is 8, expected 15")


def test_pairs_must_be_light_then_dark() -> None:
    ev = copy.deepcopy(flip_midround())
    ev[0]["hands"][0][0] = "P2/Y5"
    caught(ev, "deal has unknown card tokens ['P2/Y5']")


def test_flip_onto_a_wild_face_the_player_names_the_color() -> None:
    """Seat 1's RF/WK shows a wild dark face after the flip: seat 1 names teal."""
    t = FB([["Y5/T2", "Y6/P2", "Y7/P3"], ["RF/WK", "G4/T8", "B6/T1"]], ["Y1/U4"], "R3/U7")
    t.turn(1, "R").play(1, "RF/WK", "R").flip_all(1, "dark", "T")
    t.turn(0, "T").play(0, "Y5/T2", "T")
    t.turn(1, "T").play(1, "G4/T8", "T").uno(1)
    t.turn(0, "T").draw(0, 1, "turn")
    ev = t.turn(1, "T").play(1, "B6/T1", "T").end(1, 2 + 3 + 4)
    ok(ev)
    i = find(ev, "flip_all")
    caught(mutated(ev, i, color=None), "flip_all.color None is not a dark color")
    caught(mutated(ev, i, color="R"), "flip_all.color 'R' is not a dark color")


def first_flip_f(first: str = "GF/U7", color: str | None = "U") -> FB:
    """A flipped Flip card turns everything over before the first turn (no player: p -1);
    its dark face's own effect is not applied: seat 1 plays first."""
    t = FB([["Y5/P2", "R9/O3", "R2/U9"], ["B6/U1", "G4/U8", "Y6/U6"]], ["Y1/T4"], first)
    return t.flip_all(-1, "dark", color)


def test_first_flip_of_a_flip_card_turns_to_the_dark_side() -> None:
    t = first_flip_f()
    t.turn(1, "U").play(1, "B6/U1", "U")
    t.turn(0, "U").play(0, "R2/U9", "U")
    t.turn(1, "U").play(1, "G4/U8", "U").uno(1)
    t.turn(0, "U").draw(0, 1, "turn")  # T4 on U8: no
    ev = t.turn(1, "U").play(1, "Y6/U6", "U").end(1, 2 + 3 + 4)
    ok(ev)
    i = find(ev, "flip_all")
    caught(without(ev, i), "expected flip_all (p=-1)")
    caught(mutated(ev, i, p=1), "expected flip_all (p=-1)")
    caught(mutated(ev, i, color="G"), "flip_all.color is 'G'")


def test_first_flip_onto_a_dark_wild_the_first_player_names_the_color() -> None:
    t = first_flip_f("GF/WK", None)
    t.turn(1, "U").play(1, "B6/U1", "U")
    t.turn(0, "U").play(0, "R2/U9", "U")
    t.turn(1, "U").play(1, "G4/U8", "U").uno(1)
    t.turn(0, "U").draw(0, 1, "turn")
    ev = t.turn(1, "U").play(1, "Y6/U6", "U").end(1, 2 + 3 + 4)
    ok(ev)
    caught(mutated(ev, find(ev, "flip_all"), color="U"), "expected null")




def test_the_drawn_physical_card_is_the_one_played() -> None:
    """After a draw only the drawn card may be played: the physical card, not another
    of the same face in play (its other face is a different card for the next flip)."""
    t = FB([["Y5/P2", "R9/O3"], ["R7/T1", "R4/O8"]], ["R7/U2", "Y1/U4"], "R3/P4")
    t.turn(1, "R").draw(1, 1, "turn").play(1, "R7/U2", "R")
    t.turn(0, "R").play(0, "R9/O3", "R").uno(0)
    t.turn(1, "R").play(1, "R7/T1", "R").uno(1)
    t.turn(0, "R").draw(0, 1, "turn")
    ev = t.turn(1, "R").play(1, "R4/O8", "R").end(1, 5 + 1)
    ok(ev)
    caught(mutated(ev, find(ev, "play", card="R7/U2"), card="R7/T1"),
           "only the drawn card R7/U2 may be played")

# --- Wild Draw Two (light side) ------------------------------------------------


def wild_draw_two(challenge: bool, penalty: int) -> list[dict[str, Any]]:
    """Seat 1's legal WD2/P6 on R3 (no other red card held), naming green: seat 0 takes
    the penalty (accepted: 2, a wrong challenge: 4) and is skipped."""
    t = FB([["Y5/P2", "R9/O3", "R2/T9"], ["WD2/P6", "G4/O8", "G6/O1"]],
           ["Y1/U4", "Y2/U5", "Y3/U6", "Y4/U7", "Y6/U8"], "R3/P4")
    t.turn(1, "R").play(1, "WD2/P6", "G")
    if challenge:
        t.ev("challenge", p=0, target=1, success=False).draw(0, penalty, "challenge")
    else:
        t.draw(0, penalty, "wd4")
    t.ev("skip", p=0)
    t.turn(1, "G").play(1, "G4/O8", "G").uno(1)
    t.turn(0, "G").draw(0, 1, "turn")  # a yellow card: nothing green or 4
    left = sum(int(c[1]) for c in t.hands[0])  # light numbers: face value
    return t.turn(1, "G").play(1, "G6/O1", "G").end(1, left)


def test_wild_draw_two_accepted() -> None:
    ev = wild_draw_two(False, 2)
    ok(ev)
    assert ev[-1]["points"] == 5 + 9 + 2 + 1 + 2 + 3
    caught(wild_draw_two(False, 4), "draws 4 card(s) (cause wd4), expected 2")


def test_wild_draw_two_wrong_challenger_draws_four() -> None:
    ok(wild_draw_two(True, 4))
    caught(wild_draw_two(True, 2), "draws 2 card(s) (cause challenge), expected 4")


def test_wild_draw_two_guilty_player_draws_two() -> None:
    """Seat 1 holds red R5/O1: its WD2 is illegal; seat 0's challenge succeeds, seat 1
    draws 2 and seat 0 plays normally."""
    def trace(penalty: int) -> list[dict[str, Any]]:
        t = FB([["Y5/P2", "Y9/O3", "R2/T9"], ["WD2/P6", "R5/O1", "G6/O8"]],
               ["Y1/U4", "Y2/U5", "Y3/U6", "Y4/U7"], "R3/P4")
        t.turn(1, "R").play(1, "WD2/P6", "Y")
        t.ev("challenge", p=0, target=1, success=True).draw(1, penalty, "challenge")
        t.turn(0, "Y").play(0, "Y5/P2", "Y")
        t.turn(1, "Y").play(1, "Y1/U4", "Y")  # drawn in the penalty
        t.turn(0, "Y").play(0, "Y9/O3", "Y").uno(0)
        t.turn(1, "Y").play(1, "Y2/U5", "Y")
        t.turn(0, "Y").play(0, "R2/T9", "R")  # a 2 on a 2
        return t.end(0, 5 + 6 + (3 + 4 if penalty == 4 else 0))
    ok(trace(2))
    caught(trace(4), "draws 4 card(s) (cause challenge), expected 2")


# --- Wild Draw Color (dark side) -------------------------------------------------
# The first flip GF/U7 turns the game to the dark side, purple (U) active.

UPCOMING = ["Y1/U4", "B7/O2", "G2/P8", "Y3/T6", "Y4/T7"]


def wild_draw_color(drawn: int, held: str = "B5/P1") -> list[dict[str, Any]]:
    """Seat 1's W/WDC naming pink, legal: it holds no other purple face (B5/P1's light
    face is blue, purple's place on the light side, and does not count). Seat 0 draws
    until pink (U4, O2, P8: ``drawn`` is 3) and is skipped."""
    t = FB([["Y5/T2", "R9/O3", "R2/T9"], ["W/WDC", held, "Y6/P3"]], UPCOMING, "GF/U7")
    t.flip_all(-1, "dark", "U")
    t.turn(1, "U").play(1, "W/WDC", "P")
    t.draw(0, drawn, "draw_until_color").ev("skip", p=0)
    if drawn < 3:  # seat 0 lacks G2/P8: the trace stops here
        return t.events
    t.turn(1, "P").play(1, held, "P").uno(1)
    t.turn(0, "P").play(0, "G2/P8", "P")
    return t.turn(1, "P").play(1, "Y6/P3", "P").end(1, 2 + 3 + 9 + 4 + 2)


def test_wild_draw_color_accepted() -> None:
    ok(wild_draw_color(3))


def test_wild_draw_color_draw_stopping_early_caught() -> None:
    caught(wild_draw_color(2), "stops drawing (cause draw_until_color) after 2 card(s)")


def test_wild_draw_color_draw_stopping_late_caught() -> None:
    caught(wild_draw_color(4), "keeps drawing (cause draw_until_color) after G2/P8")


def test_wild_draw_color_condition_counts_the_faces_in_play() -> None:
    """Holding B5/U1 (a purple dark face) the WDC is illegal: unchallenged, a violation."""
    caught(wild_draw_color(3, held="B5/U1"), "illegal W/WDC: seat 1 held the active color")


def test_wild_draw_color_draw_names_its_color() -> None:
    ev = wild_draw_color(3)
    i = find(ev, "draw", cause="draw_until_color")
    ok(mutated(ev, i, color="P"))
    caught(mutated(ev, i, color="T"), "draw.color is 'T'; the color named is 'P'")


def wdc_wrong_challenge(drawn: int) -> list[dict[str, Any]]:
    """Seat 0 challenges the legal WDC: it draws until pink and two more (5) and is
    skipped."""
    t = FB([["Y5/T2", "R9/O3", "R2/T9"], ["W/WDC", "B5/P1", "Y6/P3"]], UPCOMING, "GF/U7")
    t.flip_all(-1, "dark", "U")
    t.turn(1, "U").play(1, "W/WDC", "P")
    t.ev("challenge", p=0, target=1, success=False).draw(0, drawn, "challenge")
    t.ev("skip", p=0)
    if drawn < 3:  # seat 0 lacks G2/P8: the trace stops here
        return t.events
    t.turn(1, "P").play(1, "B5/P1", "P").uno(1)
    t.turn(0, "P").play(0, "G2/P8", "P")
    return t.turn(1, "P").play(1, "Y6/P3", "P").end(1, 2 + 3 + 9 + 4 + 2 + 6 + 7)


def test_wild_draw_color_wrong_challenger_draws_until_the_color_and_two_more() -> None:
    ok(wdc_wrong_challenge(5))
    caught(wdc_wrong_challenge(3), "stops drawing (cause challenge) after 3 card(s)")
    caught(wdc_wrong_challenge(4), "stops drawing (cause challenge) after 4 card(s)")


def wdc_guilty(drawn: int, skip: bool = False) -> list[dict[str, Any]]:
    """Seat 1 holds purple B5/U1: its WDC is illegal; seat 0's challenge succeeds, seat 1
    draws until pink (3) and seat 0 plays normally, then goes out."""
    t = FB([["Y5/P2", "R9/O3", "R2/O6"], ["W/WDC", "B5/U1", "Y6/P3"]], UPCOMING, "GF/U7")
    t.flip_all(-1, "dark", "U")
    t.turn(1, "U").play(1, "W/WDC", "P")
    t.ev("challenge", p=0, target=1, success=True).draw(1, drawn, "challenge")
    if skip:
        t.ev("skip", p=0)
    t.turn(0, "P").play(0, "Y5/P2", "P")
    t.turn(1, "P").play(1, "Y6/P3", "P")
    t.turn(0, "P").play(0, "R9/O3", "O").uno(0)  # a 3 on a 3
    t.turn(1, "O").play(1, "B7/O2", "O")
    left = 1 + 4 + 8 + (3 if drawn > 3 else 0)  # U1, U4, P8 (and T6)
    return t.turn(0, "O").play(0, "R2/O6", "O").end(0, left)


def test_wild_draw_color_guilty_player_draws_until_the_color() -> None:
    ok(wdc_guilty(3))
    caught(wdc_guilty(4), "keeps drawing (cause challenge) after G2/P8")
    caught(wdc_guilty(3, skip=True), "expected turn (p=0), found 'skip'")


def wdc_last_card(drawn: int | None) -> list[dict[str, Any]]:
    """A Wild Draw Color as the last card: its draw still happens (seat 0 draws until
    teal: U4 then T2), then the round ends, scored on the dark side."""
    t = FB([["Y5/U2", "R9/O3", "R2/T9"], ["W/WDC", "B5/U1", "Y6/U3"]],
           ["Y1/U4", "B7/T2", "G2/P8"], "GF/U7")
    t.flip_all(-1, "dark", "U")
    t.turn(1, "U").play(1, "B5/U1", "U")
    t.turn(0, "U").play(0, "Y5/U2", "U")
    t.turn(1, "U").play(1, "Y6/U3", "U").uno(1)
    t.turn(0, "U").play(0, "R9/O3", "O").uno(0)
    t.turn(1, "O").play(1, "W/WDC", "T")
    if drawn is not None:
        t.draw(0, drawn, "draw_until_color")
    return t.end(1, 9 + 4 + 2)


def test_wild_draw_color_as_the_last_card_still_draws() -> None:
    ok(wdc_last_card(2))
    caught(wdc_last_card(None), "expected draw by seat 0 (cause draw_until_color)")
    caught(wdc_last_card(1), "stops drawing (cause draw_until_color) after 1 card(s)")


def test_flip_as_the_last_card_flips_and_scores_on_the_new_side() -> None:
    """Seat 1's last card RF/WK flips: the new top is a wild face and nobody names a
    color (null); seat 0's Y5/P2 scores 2 on the dark side (5 on the light)."""
    t = FB([["Y5/P2", "R9/O3", "R2/T9"], ["R5/O1", "RF/WK", "R4/O8"]], [], "R3/P4")
    t.turn(1, "R").play(1, "R5/O1", "R")
    t.turn(0, "R").play(0, "R9/O3", "R")
    t.turn(1, "R").play(1, "R4/O8", "R").uno(1)
    t.turn(0, "R").play(0, "R2/T9", "R").uno(0)
    t.turn(1, "R").play(1, "RF/WK", "R").flip_all(1, "dark", None)
    ev = t.end(1, 2)
    ok(ev)
    i = find(ev, "flip_all")
    caught(without(ev, i), "expected flip_all (p=1)")
    caught(mutated(ev, i, color="P"), "expected null")
    caught(mutated(ev, len(ev) - 1, points=5), "end.points is 5, expected 2")


# --- Seven-O on pair hands -------------------------------------------------------


def test_seven_o_swaps_whole_pair_hands_on_the_dark_side() -> None:
    """Under Seven-O the dark face 7 swaps: seat 1 gives its pairs to seat 0."""
    t = FB([["Y5/P2", "R9/O3", "R2/T9"], ["G1/O7", "B6/O1", "Y6/O4"]], [], "GF/O5",
           seven_o=True)
    t.flip_all(-1, "dark", "O")
    t.turn(1, "O").play(1, "G1/O7", "O").ev("swap", a=1, b=0)
    t.hands[0], t.hands[1] = t.hands[1], t.hands[0]
    t.turn(0, "O").play(0, "B6/O1", "O").uno(0)
    t.turn(1, "O").play(1, "R9/O3", "O")
    ev = t.turn(0, "O").play(0, "Y6/O4", "O").end(0, 2 + 9)
    ok(ev)
    caught(without(ev, find(ev, "swap")), "expected swap (a=1)")


# --- the first flip's other light cards, and the dark side's Skip Everyone ---------


def test_first_flip_draw_one_draws_and_skips() -> None:
    t = FB([["R5/P2", "R9/O3", "R2/T9"], ["G4/O8", "B6/O1", "Y6/U6"]],
           ["Y1/U4", "Y3/T6", "Y4/T7"], "RD1/P6")
    t.draw(1, 1, "draw2").ev("skip", p=1)
    t.turn(0, "R").play(0, "R5/P2", "R")
    t.turn(1, "R").draw(1, 1, "turn")
    t.turn(0, "R").play(0, "R9/O3", "R").uno(0)
    t.turn(1, "R").draw(1, 1, "turn")
    ev = t.turn(0, "R").play(0, "R2/T9", "R").end(0, 4 + 6 + 6 + 1 + 3 + 4)
    ok(ev)
    caught(without(ev, find(ev, "skip")), "expected skip (p=1)")


def test_first_flip_wild_draw_two_goes_back() -> None:
    """A flipped WD2/P6 goes back into the pile (here at the bottom); R3/P4 comes next."""
    t = FB([["R5/P2", "R9/O3", "R2/T9"], ["G4/O8", "B6/O1", "Y6/U6"]], ["R3/P4"], "WD2/P6")
    t.pile.insert(0, t.discard.pop())
    t.ev("return", card="WD2/P6", draw=list(t.pile))
    t.discard.append(t.pile.pop())
    t.ev("flip", card="R3/P4")
    t.turn(1, "R").draw(1, 1, "turn")
    t.turn(0, "R").play(0, "R5/P2", "R")
    t.turn(1, "R").draw(1, 1, "turn")
    t.turn(0, "R").play(0, "R9/O3", "R").uno(0)
    t.turn(1, "R").draw(1, 1, "turn")
    # seat 1 keeps G4, B6, Y6 and the drawn YS/WK, YS/WK, YR/WK (20 each)
    ev = t.turn(0, "R").play(0, "R2/T9", "R").end(0, 4 + 6 + 6 + 3 * 20)
    ok(ev)
    caught(without(ev, find(ev, "return")), "expected return")


def test_skip_everyone_on_the_dark_side() -> None:
    t = FB([["Y5/P2", "R9/O3", "R2/T9"], ["Y1/OSE", "B6/O1", "Y6/O4"]], [], "GF/O5")
    t.flip_all(-1, "dark", "O")
    t.turn(1, "O").play(1, "Y1/OSE", "O").ev("skip_all", p=1).ev("skip", p=0)
    t.turn(1, "O").play(1, "B6/O1", "O").uno(1)
    t.turn(0, "O").play(0, "R9/O3", "O")
    ev = t.turn(1, "O").play(1, "Y6/O4", "O").end(1, 2 + 9)
    ok(ev)
    caught(without(ev, find(ev, "skip_all")), "expected skip_all (p=1)")


# --- the engine's Flip traces (the shipped flip config) -----------------------------

POLICIES: list[Any] = ["random", "greedy", "cautious", "defender", "strategic",
                       {"policy": "ismcts", "params": {"iterations": 20}}]
STACK_ALL = [f"house_rules.stacking.{k}=true" for k in
             ("draw_two_on_draw_two", "wd4_on_wd4", "wd4_on_draw_two", "draw_two_on_wd4")]


def engine_games(players: int, seeds: range, sets: tuple[str, ...] = (),
                 mixed: bool = True) -> Iterator[tuple[int, list[str], list[dict[str, Any]]]]:
    """Seeded flip games, each seat's policy rotating through every built-in one
    (``mixed``) or all random: (seed, the checker's policies, the events)."""
    base = load_config("flip", [f"players={players}", *sets])
    cc = None if mixed else compile_config(base)
    for seed in seeds:
        if mixed:
            data = base.model_dump(mode="json")
            data["seats"] = [POLICIES[(seed + i) % len(POLICIES)] for i in range(players)]
            names = ["random" if s == "random" else "other" for s in data["seats"]]
            events = play_game(compile_config(validate_config(data)), seed)
        else:
            assert cc is not None
            names = ["random"] * players
            events = play_game(cc, seed)
        yield seed, names, events


def replays(events: list[dict[str, Any]], what: Any, **kw: Any) -> int:
    """Check an engine trace, which must pass; the rounds it holds."""
    res = check_trace(events, **kw)
    assert res.ok, (what, res.violations[:3])
    return res.rounds


def kinds_seen(events: list[dict[str, Any]]) -> set[str]:
    """What a trace exercises: flips to each side (and the first flip's), each cause."""
    out = set()
    for e in events:
        if e["e"] == "flip_all":
            out.add(f"flip_all {e['side']}" + (" first" if e["p"] == -1 else ""))
        elif e["e"] == "draw":
            out.add(e["cause"])
        else:
            out.add(e["e"])
    return out


@pytest.mark.parametrize("players,seeds", [(2, 90), (4, 60), (6, 40)])
def test_engine_flip_traces_replay(players: int, seeds: int) -> None:
    """The shipped flip config, every built-in policy at every seat in turn (random seats
    held to docs/rules.md §7): the checker replays every round (190 in all)."""
    seen: set[str] = set()
    rounds = 0
    for seed, names, events in engine_games(players, range(seeds)):
        rounds += replays(events, (seed, names), policies=names)
        seen |= kinds_seen(events)
    assert rounds == seeds
    assert {"flip_all dark", "flip_all light", "flip_all dark first", "draw_until_color",
            "wd4", "draw2", "skip_all", "challenge", "return"} <= seen


def test_engine_flip_house_rules_and_matches_replay() -> None:
    """Flip under stacking, jump-in, Seven-O and draw-until-play, each alone and all
    together, and matches (the same pairs every round), with random seats."""
    one_each = [(*STACK_ALL,), ("house_rules.jump_in=true",), ("house_rules.seven_o=true",),
                ("house_rules.draw_until_play=true",)]
    seen: set[str] = set()
    for sets in [*one_each, tuple(x for s in one_each for x in s)]:
        for players in (2, 4):
            for seed, names, events in engine_games(players, range(10), sets, mixed=False):
                replays(events, (sets, players, seed), policies=names)
                seen |= kinds_seen(events)
    assert {"jump", "swap", "stack"} <= seen  # no 0 in the deck: no rotate
    rounds = sum(replays(events, seed, policies=names) for seed, names, events
                 in engine_games(3, range(4), ("mode=match", "target=300"), mixed=False))
    assert rounds > 8


def test_engine_flip_challenges_both_ways_replay() -> None:
    """Strategic seats that bluff half the time and challenge readily: Wild Draw Two and
    Wild Draw Color challenges that succeed and that fail, replayed (bluffs allowed)."""
    bluffer = {"policy": "strategic", "params": {"bluff_rate": 0.5, "challenge_threshold": 0.05}}
    seen: Counter[tuple[str, bool]] = Counter()
    for players in (2, 4):
        data = load_config("flip", [f"players={players}"]).model_dump(mode="json")
        data["seats"] = [bluffer] * players
        cc = compile_config(validate_config(data))
        for seed in range(20):
            events = play_game(cc, seed)
            replays(events, (players, seed), allow_bluffs=True)
            side = 0
            for i, e in enumerate(events):
                if e["e"] == "deal":
                    side = 0
                elif e["e"] == "flip_all":
                    side = SIDES.index(e["side"])
                elif e["e"] == "challenge":
                    card = next(x["card"] for x in events[i::-1] if x["e"] == "play")
                    seen[card.split("/")[side], e["success"]] += 1
    assert {("WD2", True), ("WD2", False), ("WDC", True), ("WDC", False)} <= set(seen)


def test_deleting_any_one_event_of_an_engine_flip_trace_is_caught() -> None:
    """In a flip trace with flips both ways and a Wild Draw Color, every single event
    is needed: the trace less any one of them is reported."""
    events = next(ev for _, _, ev in engine_games(2, range(100), mixed=False)
                  if {"flip_all light", "draw_until_color"} <= kinds_seen(ev))
    assert check_trace(events).ok
    for i, e in enumerate(events):
        if e["e"] == "draw" and not e["cards"]:
            continue  # a draw of nothing (both piles dry) may be left out
        assert check_trace(events[:i] + events[i + 1:]).violations, (i, e)


def test_engine_plays_the_drawn_physical_card() -> None:
    """Flip, 2 players (greedy, random), seed 5: seat 0 draws YD1/UR at event 17 holding
    YD1/T1 too; the engine once played YD1/T1 (the lowest card id showing YD1), not the
    drawn card (docs/rules.md §12 draw_then_play). Found by this checker."""
    _, names, events = next(engine_games(2, range(5, 6)))
    res = check_trace(events, policies=names)
    assert res.ok, res.violations


def test_engine_flip_stacking_draw_two_on_wild_draw() -> None:
    """Flip with draw_two_on_wd4, 2 random seats, seed 5: the engine once raised
    "compiled policy chose illegal OD5" at seat 1's turn (event 66); also 4 players,
    seed 26 ("PD5"). Found by these replays."""
    _, names, events = next(engine_games(2, range(5, 6), ("house_rules.stacking."
                                                          "draw_two_on_wd4=true",), False))
    assert check_trace(events, policies=names).ok
