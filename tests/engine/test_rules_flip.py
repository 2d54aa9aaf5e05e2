"""UNO Flip on stacked positions (docs/rules.md section 11, "UNO Flip").

Each test is named after the rule it checks and reads the trace's events
(tests/rules_helpers.py). A Flip card is written ``"light/dark"``; the face in
play is the light one on the light side and the dark one on the dark side.
Positions built with `Round.from_position` hold only the cards they list.
"""

from __future__ import annotations

from collections import Counter
from functools import cache

import numpy as np
import pytest

from tests.rules_helpers import Round, all_cards, log
from unosim.engine.game import play_game
from unosim.engine.kernel import state as L
from unosim.engine.kernel.state import CompiledConfig, compile_config
from unosim.rules.config import load_config
from unosim.rules.editions import load_edition, points_by_kind
from unosim.rules.errors import ConfigError


@cache
def flip_cfg(players: int = 2, *sets: str) -> CompiledConfig:
    return compile_config(load_config("flip", [f"players={players}", *sets]))


# light draw pile fillers whose dark faces are numbers of one dark color
def fill(n: int, light: str = "G", dark: str = "T") -> list[str]:
    ranks = "12456789"
    return [f"{light}{ranks[i % 8]}/{dark}{ranks[(i + 3) % 8]}" for i in range(n)]


def position(hands: list[list[str]], draw: list[str] | None = None, *,
             discard: tuple[str, ...] = ("R3/P3",), color: str = "R", side: str = "light",
             players: int | None = None, player: int = 0, bluff: bool = False) -> Round:
    cc = flip_cfg(players or len(hands))
    if bluff:  # seat 0's policy bluffs: a conditioned wild is playable against its condition
        cc = compile_config(load_config("flip", [f"players={players or len(hands)}"]))
        cc.pp[0, L.P_BLUFF] = 1.0
    r = Round.from_position(cc, hands=hands, draw=draw if draw is not None else fill(12),
                            discard=list(discard), color=color, player=player, side=side)
    return r


def after(r: Round, *actions: str) -> list[str]:
    start = len(r.events())
    for a in actions:
        r.apply(a)
    return log(r, start)


def faces(r: Round, q: int) -> Counter[str]:
    return Counter(r.face(c) for c in r.hand(q))


# --- the Flip card ------------------------------------------------------------------------
def test_flip_card_turns_discard_pile_every_hand_and_the_draw_pile() -> None:
    r = position([["RF/U2", "B5/O6", "B7/P1"], ["Y1/T4", "G2/WK"]],
                 draw=["G9/O9", "Y8/T8"], discard=("B3/T5", "R3/P3"))
    before = all_cards(r)
    lines = after(r, "RF")
    # the Flip card's other face (U2, purple) is now the card to match, with its color
    assert lines[:2] == ["play 0 RF/U2 R", "flip_all 0 dark U"]
    assert lines[2] == "turn 1 U RF/U2"
    assert r.side == "dark" and r.color == "U"
    assert faces(r, 0) == Counter({"O6": 1, "P1": 1})
    assert faces(r, 1) == Counter({"T4": 1, "WK": 1})
    # nothing moved: the same physical cards, in the same piles and order
    assert all_cards(r) == before
    assert [r.face(c) for c in r.draw_pile] == ["O9", "T8"]
    assert [r.face(c) for c in r.discard] == ["T5", "P3", "U2"]
    # legality now reads the dark faces: a purple card or a 2 matches, a wild always
    assert r.legal_action_names() == ["WK", "draw"]


def test_flip_card_twice_returns_to_the_light_side() -> None:
    r = position([["RF/U2", "B5/O6"], ["Y1/T4", "G2/UF", "B9/T9"]], draw=fill(4))
    after(r, "RF")
    lines = after(r, "UF")
    assert lines[:2] == ["play 1 G2/UF U", "flip_all 1 light G"]
    assert r.side == "light" and r.color == "G"
    assert faces(r, 1) == Counter({"Y1": 1, "B9": 1})


def test_flip_turning_up_a_wild_face_lets_its_player_name_the_color() -> None:
    r = position([["RF/WK", "B5/O6"], ["Y1/T4", "G2/T2"]])
    lines = after(r, "RF")
    assert lines == ["play 0 RF/WK R", "uno 0 called"]
    assert r.phase == "color" and r.current_player == 0
    assert r.legal_action_names() == ["color P", "color T", "color O", "color U"]
    lines = after(r, "color T")
    assert lines[:2] == ["flip_all 0 dark T", "turn 1 T RF/WK"]


def test_flip_as_the_last_card_still_flips_and_scores_the_new_side() -> None:
    # the loser holds Y1/WDC: 1 point on the light side, 60 on the dark side
    r = position([["RF/U2"], ["Y1/WDC"]])
    lines = after(r, "RF")
    assert lines == ["play 0 RF/U2 R", "flip_all 0 dark U", "end 0 60"]


def test_scoring_on_the_side_in_play() -> None:
    light = position([["R5/PSE"], ["Y9/TD5", "WD2/O1", "BF/WK"]])
    assert after(light, "R5")[-1] == "end 0 79"  # 9 + 50 + 20
    dark = position([["Y5/P5"], ["Y9/TD5", "WD2/O1", "BF/WK"]], discard=("R3/P3",),
                    color="P", side="dark")
    assert after(dark, "P5")[-1] == "end 0 61"  # 20 + 1 + 40
    # the edition's points, per face
    pts = dict(zip(flip_cfg().kinds.tokens, points_by_kind(load_edition("flip")), strict=True))
    assert (pts["RD1"], pts["RF"], pts["W"], pts["WD2"]) == (10, 20, 40, 50)
    assert (pts["PD5"], pts["PSE"], pts["PF"], pts["WK"], pts["WDC"]) == (20, 30, 20, 40, 60)


def test_first_flip_of_a_flip_card_starts_on_the_dark_side() -> None:
    cc = flip_cfg(2, "hand_size=2")
    cards = ["R1/P1", "Y1/T1", "R2/P2", "Y2/T2", "GF/OD5"]
    rest = [f"B{i}/U{i}" for i in range(3, 10)]
    deck = [*cards, *rest]
    light = [t for t in cc.kinds.tokens if cc.kinds.side[cc.kinds.kind(t)] == 0]
    dark = [t for t in cc.kinds.tokens if cc.kinds.side[cc.kinds.kind(t)] == 1]
    used_l = Counter(c.split("/")[0] for c in deck)
    used_d = Counter(c.split("/")[1] for c in deck)
    counts = cc.deck_counts
    left_l = [t for t in light for _ in range(counts[cc.kinds.kind(t)] - used_l[t])]
    left_d = [t for t in dark for _ in range(counts[cc.kinds.kind(t)] - used_d[t])]
    deck += [f"{a}/{b}" for a, b in zip(left_l, left_d, strict=True)]
    r = Round.from_deck(cc, deck, dealer=1)
    lines = log(r)
    assert lines[1:4] == ["flip GF/OD5", "flip_all -1 dark O", "turn 0 O GF/OD5"]
    # its dark face's effect (Draw Five) is not applied; the hands show their dark faces
    assert faces(r, 0) == Counter({"P1": 1, "P2": 1})


# --- Wild Draw Two and Wild Draw Color, challenged both ways ----------------------------------
def test_wild_draw_two_challenge_of_a_bluff_costs_its_player_two() -> None:
    r = position([["WD2/P1", "R5/P5", "B1/T1"], ["Y1/T4", "G2/T2"]], bluff=True)
    assert after(r, "WD2", "color B")[:1] == ["play 0 WD2/P1 B"]
    lines = after(r, "challenge")
    assert lines[0] == "challenge 1 0 success"
    assert lines[1].startswith("draw 0 ") and lines[1].endswith("(challenge)")
    assert len(lines[1].split("(")[0].split()) - 2 == 2


def test_wild_draw_two_wrong_challenge_costs_the_challenger_four() -> None:
    r = position([["WD2/P1", "B5/P5", "B1/T1"], ["Y1/T4", "G2/T2"]])
    after(r, "WD2", "color B")
    lines = after(r, "challenge")
    assert lines[0] == "challenge 1 0 fail"
    assert len(lines[1].split("(")[0].split()) - 2 == 4
    assert lines[2] == "skip 1"


def dark_draw() -> list[str]:
    # light faces irrelevant; the dark faces: two teal, then an orange, then more
    return ["G1/T1", "G2/T2", "G4/O4", "G5/T5", "G6/T6", "G7/P7", "G8/O8", "G9/U9"]


def test_wild_draw_color_accepted_draws_until_the_named_color() -> None:
    r = position([["R9/WDC", "B1/T3", "B2/U4"], ["Y1/T4", "Y2/T2"]], draw=dark_draw(),
                 discard=("R3/P3",), color="P", side="dark")
    assert after(r, "WDC", "color O")[:1] == ["play 0 R9/WDC O"]
    assert r.phase == "pending" and r.legal_action_names() == ["accept", "challenge"]
    lines = after(r, "accept")
    assert lines[0] == "draw 1 G1/T1 G2/T2 G4/O4 (draw_until_color O)"
    assert lines[1] == "skip 1"
    assert lines[2] == "turn 0 O R9/WDC"


def test_wild_draw_color_challenge_of_a_bluff_costs_its_player_the_draw() -> None:
    # seat 0 held a pink card (T3 is teal, B1/P6 is pink): the play was a bluff
    r = position([["R9/WDC", "B1/P6", "B2/U4"], ["Y1/T4", "Y2/T2"]], draw=dark_draw(),
                 color="P", side="dark", bluff=True)
    after(r, "WDC", "color O")
    lines = after(r, "challenge")
    assert lines[:2] == ["challenge 1 0 success",
                         "draw 0 G1/T1 G2/T2 G4/O4 (challenge O)"]
    assert lines[2] == "turn 1 O R9/WDC"  # the challenger plays normally


def test_wild_draw_color_wrong_challenge_draws_until_the_color_and_two_more() -> None:
    r = position([["R9/WDC", "B1/T3", "B2/U4"], ["Y1/T4", "Y2/T2"]], draw=dark_draw(),
                 color="P", side="dark")
    after(r, "WDC", "color O")
    lines = after(r, "challenge")
    assert lines[:3] == ["challenge 1 0 fail",
                         "draw 1 G1/T1 G2/T2 G4/O4 G5/T5 G6/T6 (challenge O)", "skip 1"]


def test_wild_draw_color_as_the_last_card_still_draws() -> None:
    r = position([["R9/WDC"], ["Y1/T4", "Y2/T2"]], draw=dark_draw(), color="P", side="dark")
    lines = after(r, "WDC", "color O")
    assert lines[:2] == ["play 0 R9/WDC O", "draw 1 G1/T1 G2/T2 G4/O4 (draw_until_color O)"]
    assert lines[-1].startswith("end 0 ")


def test_nothing_stacks_on_a_wild_draw_color() -> None:
    cc = compile_config(load_config("flip", ["players=2", "house_rules.stacking.wd4_on_wd4=true",
                                             "house_rules.stacking.draw_two_on_draw_two=true"]))
    r = Round.from_position(cc, hands=[["R9/WDC", "B1/T3"], ["Y1/WDC", "Y2/PD5"]],
                            draw=dark_draw(), discard=["R3/P3"], color="P", player=0,
                            side="dark")
    after(r, "WDC", "color O")
    assert r.legal_action_names() == ["accept", "challenge"]


# --- the pairing of faces -----------------------------------------------------------------------
def test_pairing_of_faces_is_drawn_from_the_games_stream() -> None:
    cc = flip_cfg(4)
    a, b, c = Round.new(cc, seed=7, game=0), Round.new(cc, seed=7, game=0), Round.new(cc, seed=7, game=1)
    pa, pc = np.array(a.S.fl[:, :112]), np.array(c.S.fl[:, :112])
    assert (pa == np.array(b.S.fl[:, :112])).all()  # the seed decides it
    assert not (pa[1] == pc[1]).all()  # another game, another pairing
    # every light face is paired with a dark face: the deck's 112 of each, once each
    light, dark = Counter(pa[0].tolist()), Counter(pa[1].tolist())
    assert sum(light.values()) == sum(dark.values()) == 112
    assert all(cc.kinds.side[k] == 0 for k in light) and all(cc.kinds.side[k] == 1 for k in dark)
    assert all(cc.deck_counts[k] == n for k, n in (light | dark).items())


def test_pairing_is_uniform_over_games() -> None:
    """Over many games the dark face on a given light card is each dark kind in
    proportion to its count (a chi-square bound far above chance, fixed seeds)."""
    cc = flip_cfg(2)
    dark_kinds = [k for k in range(cc.kinds.nk) if cc.kinds.side[k] == 1]
    seen = Counter()
    for g in range(400):
        r = Round.new(cc, seed=3, game=g, trace=False)
        seen[int(r.S.fl[1, 0])] += 1
    expected = {k: 400 * cc.deck_counts[k] / 112 for k in dark_kinds}
    chi2 = sum((seen[k] - e) ** 2 / e for k, e in expected.items())
    assert chi2 < 120  # 53 degrees of freedom: p < 1e-6 beyond this


def test_pairing_holds_for_a_whole_match() -> None:
    cc = compile_config(load_config("flip", ["mode=match", "target=200", "players=3"]))
    events = play_game(cc, seed=5)
    deals = [e for e in events if e["e"] == "deal"]
    assert len(deals) >= 2

    def pairs(e: dict) -> Counter[str]:
        return Counter([*e["draw"], *(c for h in e["hands"] for c in h)])

    assert all(pairs(d) == pairs(deals[0]) for d in deals[1:])


# --- Seven-O with two-faced cards -------------------------------------------------------------
def test_seven_o_swap_moves_the_physical_cards() -> None:
    cc = compile_config(load_config("flip", ["players=2", "house_rules.seven_o=true"]))
    r = Round.from_position(cc, hands=[["R7/P1", "B2/T2"], ["Y1/T4", "G2/O2", "G5/O5"]],
                            draw=fill(6), discard=["R3/P3"], color="R", player=0)
    after(r, "R7", "target 1")
    assert sorted(r.hand(0)) == ["G2/O2", "G5/O5", "Y1/T4"]
    assert r.hand(1) == ["B2/T2"]


# --- the edition file -------------------------------------------------------------------------
def test_flip_edition_is_112_two_faced_cards() -> None:
    ed = load_edition("flip")
    cc = flip_cfg()
    assert int(cc.ci[L.C_DECK_SIZE]) == 112
    side = cc.kinds.side
    assert cc.deck_counts[side == 0].sum() == cc.deck_counts[side == 1].sum() == 112
    assert ed.dark_colors == ["pink", "teal", "orange", "purple"]


@pytest.mark.parametrize(("change", "key"), [
    (lambda d: d.pop("dark_colors"), "dark_colors"),
    (lambda d: d["cards"][0].update(count=3), "cards"),
    (lambda d: d.update(mercy_limit=25), "mercy_limit"),
])
def test_a_two_sided_deck_refuses_what_it_cannot_be(change, key: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import yaml

    from unosim.rules.editions import edition_path
    from unosim.rules.yamlio import read_yaml
    data = read_yaml(edition_path("flip"))
    change(data)
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError) as err:
        load_edition(str(path))
    assert key in str(err.value) and "\n" not in str(err.value)
