"""What a seat sees under UNO Flip (docs/rules.md section 11, "What a seat sees").

A seat sees its own hand's faces in play and the other face of every card in
the other hands and of the draw pile's top card (the backs show the other
side); not its own cards' other faces, nor the other hands' faces in play, nor
the draw pile below its top. At every decision of real Flip games, every face a
seat cannot see is dealt again among the cards whose face it is: its
`PublicView` must not change, and the compiled policies must take the same
action with the same random numbers (as tests/engine/test_public_view.py does
for one-sided decks). Changing a face it can see does change its view.
"""

from __future__ import annotations

from collections import Counter
from functools import cache

import numpy as np
import pytest
from hidden import hidden_faces, redeal_hidden_faces

from unosim.engine.game import Round
from unosim.engine.kernel import state as L
from unosim.engine.kernel.flip import index_faces, recount
from unosim.engine.kernel.policies import policy_action
from unosim.engine.kernel.state import CompiledConfig, compile_config
from unosim.engine.view import HIDDEN, PublicLog, mask_card, public_view
from unosim.rules.config import config_to_dict, load_config, validate_config


@cache
def flip_cfg(players: int) -> CompiledConfig:
    return compile_config(load_config("flip", [f"players={players}"]))


def _view(r: Round, seat: int):  # type: ignore[no-untyped-def]
    log = PublicLog(seat, r.players)
    log.feed(r.events())
    return public_view(r, log)


def _position(side: str = "light") -> Round:
    return Round.from_position(
        flip_cfg(2), hands=[["R5/PSE", "B7/O1"], ["Y1/T4", "G2/WK"]],
        draw=["G9/O9", "Y8/T8", "B2/U3"], discard=["R3/P3"],
        color="R" if side == "light" else "P", player=0, side=side)


# --- the view of a position ---------------------------------------------------------------
def test_light_side_view_shows_own_faces_and_the_other_hands_backs() -> None:
    r = _position()
    v = _view(r, 0)
    assert (v.side, v.hand, v.top, v.discard, v.color) == ("light", ("R5", "B7"), "R3",
                                                           ("R3",), "R")
    assert v.other_faces == ((), ("T4", "WK"))
    assert v.draw_top_back == "O9"  # the next card drawn is G9/O9
    w = _view(r, 1)
    assert w.hand == ("Y1", "G2") and w.other_faces == (("PSE", "O1"), ())


def test_dark_side_view_shows_dark_faces_and_light_backs() -> None:
    r = _position("dark")
    v = _view(r, 0)
    assert (v.side, v.hand, v.top, v.color) == ("dark", ("PSE", "O1"), "P3", "P")
    assert v.other_faces == ((), ("Y1", "G2")) and v.draw_top_back == "G9"


def test_a_flip_card_turns_the_view_over() -> None:
    r = Round.from_position(flip_cfg(2), hands=[["RF/U2", "B5/O6"], ["Y1/T4", "G2/WK"]],
                            draw=["G9/O9", "Y8/T8"], discard=["R3/P3"], color="R", player=0)
    r.apply("RF")
    v = _view(r, 1)
    assert (v.side, v.top, v.color, v.hand) == ("dark", "U2", "U", ("T4", "WK"))
    assert v.other_faces == (("B5",), ()) and v.draw_top_back == "G9"
    assert v.discard == ("P3", "U2")


def test_one_sided_editions_have_no_faces_to_show() -> None:
    r = Round.from_position(compile_config(load_config("classic", ["players=2"])),
                            hands=[["R7"], ["B1"]], draw=["B2"], discard=["R5"], color="R",
                            player=0)
    v = _view(r, 0)
    assert (v.side, v.other_faces, v.draw_top_back) == ("light", (), None)


@pytest.mark.parametrize("change", ["other hand's back", "draw top's back", "own face",
                                    "top card's face"])
def test_changing_a_face_a_seat_sees_changes_its_view(change: str) -> None:
    r = _position()
    before = _view(r, 0)
    S = r.S
    held = {q: [int(v) for v in np.flatnonzero(S.hp[q])] for q in (0, 1)}
    card, side = {"other hand's back": (held[1][0], 1),
                  "draw top's back": (int(S.piles[0, int(S.s[L.S_NDRAW]) - 1]), 1),
                  "own face": (held[0][0], 0),
                  "top card's face": (int(S.piles[1, int(S.s[L.S_NDISC]) - 1]), 0)}[change]
    S.fl[side, card] = r.kinds.kind("U9" if side else "G8")
    recount(S, r.C, 0)
    assert _view(r, 0) != before


# --- the masked record ----------------------------------------------------------------------
def test_log_keeps_only_the_faces_a_seat_sees() -> None:
    r = _position()
    r.apply("R5")  # seat 1 has no red card and no 5: it draws G9/O9
    r.apply("draw")
    full = [e for e in r.events() if e["e"] == "draw"][-1]
    assert full["cards"] == ["G9/O9"]
    seen = {q: [e for e in _view(r, q).events if e["e"] == "draw"][-1]["cards"] for q in (0, 1)}
    assert seen == {0: ["?/O9"], 1: ["G9/?"]}


def test_deal_shows_own_faces_in_play_and_the_other_hands_backs() -> None:
    r = Round.new(flip_cfg(3), seed=3, game=0)
    full = r.events()[0]
    for seat in range(3):
        deal = _view(r, seat).events[0]
        for q, hand in enumerate(full["hands"]):
            side = 0 if q == seat else 1  # the light side is in play
            assert deal["hands"][q] == [mask_card(c, side) for c in hand]
        assert deal["draw"] == [HIDDEN] * len(full["draw"])
    assert mask_card("R5/PSE", 0) == "R5/?"


def test_masked_draws_follow_the_side_in_play() -> None:
    """Over whole games: another seat's draw shows the back of the side then in play,
    the seat's own draw its face in play; no other card of a hand is shown."""
    sides_seen = set()
    for g in range(4):
        r = Round.new(flip_cfg(2), seed=11, game=g)
        r.play_out()
        full = r.events()
        masked = PublicLog(0)
        masked.feed(full)
        side = 0
        for e, m in zip(full, masked.events, strict=True):
            if e["e"] == "flip_all":
                side = ("light", "dark").index(e["side"])
            sides_seen.add(side)
            if e["e"] == "draw":
                assert m["cards"] == [mask_card(c, side if e["p"] == 0 else 1 - side)
                                      for c in e["cards"]]
            elif e["e"] in ("reshuffle", "return"):
                assert set(m["draw"]) <= {HIDDEN}
            elif e["e"] != "deal":
                assert m == e  # played cards, the top card, the end's hands: public
    assert sides_seen == {0, 1}


# --- hidden faces change nothing --------------------------------------------------------------
BLUFFER = {"policy": "cautious", "params": {"bluff_rate": 0.3}}
CHALLENGER = {"policy": "strategic", "params": {"challenge_threshold": 0.05}}
SEATS = ["strategic", "greedy", "cautious", "defender", "random", BLUFFER, CHALLENGER]


def _config(players: int, shift: int, seats: list | None = None) -> CompiledConfig:
    seats = seats or SEATS
    data = config_to_dict(load_config("flip", [f"players={players}"]))
    data["seats"] = [seats[(i + shift) % len(seats)] for i in range(players)]
    return compile_config(validate_config(data))


def _decisions(cc: CompiledConfig, games: range, gen: np.random.Generator) -> Counter:
    """Play ``games``; at each decision, redeal what each seat cannot see and check
    its view, and the deciding seat's compiled policy, ignore it."""
    seen: Counter = Counter()
    n = int(cc.ci[L.C_PLAYERS])
    for g in games:
        r = Round.new(cc, seed=5, game=g)
        logs = [PublicLog(q) for q in range(n)]
        while not r.is_over:
            S, C = r.S, r.C
            for log in logs:
                log.feed(r.events(len(log.events)))
            p = int(S.s[L.S_CUR])
            saved = S.fl.copy(), S.hands.copy(), S.s.copy(), S.rng.copy()
            a = int(policy_action(S, C))
            after = S.rng.copy()
            for q in range(n):
                S.rng[:] = saved[3]
                before = public_view(r, logs[q])
                redeal_hidden_faces(S, C, n, q, gen)
                seen["faces changed"] += int((S.fl != saved[0]).any())
                assert public_view(r, logs[q]) == before, (g, q)
                if q == p:
                    assert int(policy_action(S, C)) == a, (g, p, int(S.s[L.S_PHASE]))
                    assert (S.rng == after).all(), (g, p, "a different use of the stream")
                S.fl[:], S.hands[:], S.s[:] = saved[:3]
                index_faces(S, C)  # the engine's index follows the face table
            S.rng[:] = after
            seen[("side", int(S.s[L.S_SIDE]))] += 1
            seen[("phase", int(S.s[L.S_PHASE]))] += 1
            r.apply(a)
    return seen


@pytest.mark.slow  # about 2 s a case once compiled; the first Flip compile takes minutes
@pytest.mark.parametrize("players", [2, 4])
def test_views_and_policies_ignore_the_faces_a_seat_cannot_see(players: int) -> None:
    gen = np.random.default_rng(players)
    seen: Counter = Counter()
    for shift in range(len(SEATS)):
        seen += _decisions(_config(players, shift), range(shift * 2, shift * 2 + 2), gen)
    assert seen[("side", 1)] > 0 and seen[("side", 0)] > 0
    assert seen[("phase", L.PH_PENDING)] > 0 and seen[("phase", L.PH_COLOR)] > 0
    assert seen["faces changed"] > 100


def test_hidden_faces_are_the_ones_the_rules_hide() -> None:
    r = _position()
    S = r.S
    in_play_hidden, other_hidden = hidden_faces(S, 2, 0)
    held = {q: {int(v) for v in np.flatnonzero(S.hp[q])} for q in (0, 1)}
    draw = [int(v) for v in S.piles[0, : int(S.s[L.S_NDRAW])]]
    assert set(in_play_hidden) == held[1] | set(draw)
    assert set(other_hidden) == held[0] | {int(S.piles[1, 0])} | set(draw[:-1])
    assert draw[-1] not in other_hidden  # the top card's back is in sight


@pytest.mark.slow  # the Flip search compiles once (minutes); the games then take seconds
def test_search_player_ignores_the_faces_it_cannot_see() -> None:
    """The search's determinization deals faces, never cards: each iteration starts from
    the real draw pile (an earlier version left the last playout's pile there, so cards
    outside the sample kept their real hidden faces and the action followed them)."""
    ismcts = {"policy": "ismcts", "params": {"iterations": 30}}
    seen = _decisions(_config(2, 0, [ismcts, "random"]), range(3), np.random.default_rng(0))
    assert seen[("phase", L.PH_PENDING)] > 0 and seen["faces changed"] > 20
