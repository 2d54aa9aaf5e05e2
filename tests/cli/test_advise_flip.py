"""``unosim advise POSITION.yaml`` on UNO Flip (docs/rules.md section 11): the side in
play, the faces a seat sees of the others' cards (``backs``, ``draw_back``), and a
physical deck built to agree with them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import assert_one_line_error, invoke

from unosim.cli.advise import advise, build_round
from unosim.rules.yamlio import read_yaml

LIGHT = """config: flip
hand: [R5, RS, W]
top: R3
hands: [3, 2, 4]
backs: {1: [P1, TSE], 2: [WK, O7, U9, PF]}
draw_back: T4
"""

DARK = """config: flip
side: dark
hand: [P5, PSE, T7]
top: P3
color: P
hands: [3, 2]
backs: {1: [R1, WD2]}
draw: 30
"""


def _write(tmp_path: Path, text: str) -> str:
    pos = tmp_path / "position.yaml"
    pos.write_text(text)
    return str(pos)


def _json(tmp_path: Path, text: str, *args: str) -> dict:
    res = invoke("advise", _write(tmp_path, text), "--playouts", "50", "--format", "json",
                 *args)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_a_light_side_position_is_advised_with_what_the_seat_sees(tmp_path: Path) -> None:
    data = _json(tmp_path, LIGHT)
    pos = data["position"]
    assert pos["side"] == "light" and pos["color"] == "R" and pos["top"] == "R3"
    assert sorted(pos["hand"]) == ["R5", "RS", "W"] and pos["hands"] == [3, 2, 4]
    assert {q: sorted(c) for q, c in pos["backs"].items()} == {
        "1": ["P1", "TSE"], "2": ["O7", "PF", "U9", "WK"]}
    assert pos["draw_back"] == "T4" and pos["draw"] == 112 - 9 - 1
    assert {r["action"] for r in data["actions"]} == {"R5", "RS", "W", "draw"}
    text = invoke("advise", _write(tmp_path, LIGHT), "--playouts", "50")
    assert text.exit_code == 0, text.output
    assert "light side" in text.stdout and "draw pile top T4" in text.stdout
    assert "backs (dark faces) you see: seat 1 P1 TSE; seat 2 " in text.stdout


def test_a_dark_side_position_plays_dark_faces_and_letters(tmp_path: Path) -> None:
    data = _json(tmp_path, DARK)
    pos = data["position"]
    assert pos["side"] == "dark" and pos["color"] == "P" and pos["draw"] == 30
    assert pos["backs"] == {"1": ["R1", "WD2"]} and pos["draw_back"][0] in "RYGBW"
    assert {"P5", "PSE", "draw"} <= {r["action"] for r in data["actions"]}
    assert all(r["playouts"] == 50 for r in data["actions"])


def test_moves_apply_on_flip_then_the_color_is_advised(tmp_path: Path) -> None:
    text = DARK.replace("hand: [P5, PSE, T7]", "hand: [WK, O5, O7]") + "moves: [WK]\n"
    data = _json(tmp_path, text)
    assert data["phase"] == "color"
    assert sorted(r["action"] for r in data["actions"]) == [
        "color O", "color P", "color T", "color U"]


def test_the_same_position_and_seed_give_the_same_output(tmp_path: Path) -> None:
    path = _write(tmp_path, LIGHT)
    runs = [invoke("advise", path, "--playouts", "50", "--seed", "7") for _ in range(2)]
    assert runs[0].exit_code == 0 and runs[0].stdout == runs[1].stdout


@pytest.mark.parametrize("text", [LIGHT, DARK.replace("draw: 30", "draw_back: Y4")])
def test_the_advice_does_not_follow_the_deal_of_the_unseen_faces(tmp_path: Path,
                                                                 text: str) -> None:
    """Each playout deals every face the seat cannot see again, from the faces in kind
    order (`ismcts.determinize_faces`): two physical deals of one position advise alike.
    Not without ``draw_back`` (the search takes the draw pile top's other face as seen)
    nor with a ``draw`` below every card left (which faces sit outside the round):
    those are the deal's (docs/ismcts.md)."""
    data = read_yaml(Path(_write(tmp_path, text)))
    one, two = build_round(data, 5, deal_seed=1), build_round(data, 5, deal_seed=2)
    assert one.hands != two.hands  # the deals differ...
    assert advise(one, 50, None, "random") == advise(two, 50, None, "random")  # ...not the advice


@pytest.mark.parametrize(("text", "words"), [
    ("hand: [B7]\ntop: B3\nhands: [1, 4]\nbacks: {1: [R1]}\n", ("backs:", "one-sided")),
    ("hand: [B7]\ntop: B3\nhands: [1, 4]\nside: dark\n", ("side:", "one-sided")),
    (LIGHT.replace("backs: {1: [P1, TSE], ", "backs: {"), ("backs[1]", "missing")),
    (LIGHT.replace("[P1, TSE]", "[P1]"), ("backs[1]", "1 cards", "hands[1] is 2")),
    (LIGHT.replace("backs: {1: [P1, TSE], 2: [WK, O7, U9, PF]}\n", ""), ("backs[1]", "missing")),
    (LIGHT.replace("[P1, TSE]", "[P1, ZZ]"), ("backs[1]", "unknown card token")),
    (LIGHT.replace("hand: [R5, RS, W]", "hand: [R5, R5, R5]"), ("hand:", "more R5")),
    (LIGHT.replace("[WK, O7, U9, PF]", "[WK, P1, P1, PF]"), ("backs[2]", "more P1")),
    (LIGHT.replace("hand: [R5, RS, W]", "hand: [R5, RS, P5]"), ("hand:", "dark face")),
    (LIGHT.replace("draw_back: T4", "draw_back: Y4"), ("draw_back", "light face")),
    (LIGHT + "draw: 0\n", ("draw_back", "empty")),
    (LIGHT.replace("top: R3", "top: W\ncolor: P"), ("color:", "R, Y, G, B")),
    (DARK.replace("color: P", "color: R"), ("color:", "P, T, O, U")),
    (LIGHT + "side: up\n", ("side:", "light or dark")),
])
def test_bad_flip_positions_are_one_line_errors(tmp_path: Path, text: str,
                                                words: tuple[str, ...]) -> None:
    assert_one_line_error(invoke("advise", _write(tmp_path, text)), *words)
