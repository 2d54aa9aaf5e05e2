"""UNO Flip at the terminal (docs/rules.md section 11): ``play``'s log, ``play --human``,
``advise --trace``, ``view``, and the legend and answers of the two-sided cards."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import assert_one_line_error, invoke
from click.testing import CliRunner

from unosim.cli import main
from unosim.cli.cardtext import FlipSeen, Painter, legend, table_lines
from unosim.cli.play import HumanPolicy, _match
from unosim.engine.view import PublicView
from unosim.rules.editions import card_kinds, load_edition

FLIP = load_edition("flip")
DARK_LETTERS = ["color P", "color T", "color O", "color U"]


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run in a fresh directory: a game with --human and no --out writes its trace there."""
    monkeypatch.chdir(tmp_path)


def _trace(tmp_path: Path, seed: int = 3) -> tuple[Path, list[dict[str, Any]]]:
    out = tmp_path / f"flip{seed}.jsonl"
    res = invoke("play", "flip", "--seed", str(seed), "--set", "players=3",
                 "--trace-format", "jsonl", "--out", str(out))
    assert res.exit_code == 0, res.output
    return out, [json.loads(x) for x in out.read_text().splitlines()]


def test_the_text_log_plays_faces_and_says_the_side() -> None:
    res = invoke("play", "flip", "--seed", "3", "--set", "players=3")
    assert res.exit_code == 0, res.output
    text = res.stdout
    assert "(flip, 3 players)" in text and "everything flips: the dark side is in play" in text
    deal = text.split("\n")[1]  # a dealt hand lists the physical cards, light/dark
    assert all("/" in c for c in deal.split(": ")[1].split())
    after = text.split("everything flips: the dark side is in play")[1].split("everything")[0]
    plays = [line.split("plays ")[1].split(",")[0] for line in after.splitlines()
             if "   plays " in line]
    assert plays and all(p[0] in "PTOUW" and "/" not in p for p in plays), plays


def test_the_legend_names_both_sides_kinds_and_colors() -> None:
    text = legend(Painter(False, FLIP.colors, None, FLIP.dark_colors), FLIP.special,
                  FLIP.wd4_wilds_block, None, card_kinds(FLIP))
    assert "light side:\n" in text and "dark side (after a Flip card" in text
    assert "P pink, T teal, O orange, U purple" in text
    for tok in ("D1", "F", "WD2", "D5", "SE", "WK", "WDC"):
        assert f"\n  {tok} " in text, tok
    assert "P7 is pink 7" in text and "Skip Everyone (OSE)" in text
    flat = " ".join(text.split())
    assert ("WDC Wild Draw Color: a wild; you name the color; the next player draws until a "
            "card of that color comes") in flat
    assert "challenge (the wild draw card you face" in flat and "challenge (the WD4" not in flat
    assert "color G (or G; on the dark side color P)" in flat


def test_the_painter_colors_dark_tokens_and_letters() -> None:
    p = Painter(True, FLIP.colors, None, FLIP.dark_colors)
    assert p.color("T").endswith("T (teal)\x1b[0m") and p.card("PSE") != "PSE"
    assert p.card("R5/PSE") == f"{p.card('R5')}/{p.card('PSE')}"
    assert Painter(False).color("U") == "U (purple)"


def test_a_color_answer_takes_either_side_s_letter() -> None:
    assert _match("T", DARK_LETTERS) == "color T"
    assert _match("color o", DARK_LETTERS) == "color O"
    assert _match("color G", DARK_LETTERS) == "color O"  # green's place is orange's
    assert _match("B", ["color R", "color Y", "color G", "color B"]) == "color B"
    assert _match("X", DARK_LETTERS) is None


def test_the_table_shows_the_side_and_the_backs_a_seat_sees() -> None:
    lines = table_lines(Painter(False), hand=["P5", "TSE"], top="T2", color="T", direction=1,
                        sizes=[("seat 0", 2), ("seat 1", 3)], draw_size=40, pending=0,
                        flip=FlipSeen("dark", [("seat 1", ["R1", "G5", "WD2"])], "Y7"))
    assert lines[0] == "top T2, color T (teal), dark side, direction +1"
    assert lines[-1] == "backs (light faces) you see: seat 1 R1 G5 WD2; draw pile top Y7"
    one_sided = table_lines(Painter(False), hand=["R5"], top="R2", color="R", direction=1,
                            sizes=[("P0", 1)], draw_size=3, pending=0)
    assert len(one_sided) == 3 and "side" not in one_sided[0]


def test_bluffs_and_challenges_speak_of_flip_s_wild_draws() -> None:
    player = HumanPolicy(["seat 0 (you)", "seat 1 (random)"], list(FLIP.colors),
                         cards=card_kinds(FLIP))
    assert player.two_sided and set(player.bluffs) == {"WD2", "WDC"}
    view = PublicView(seat=0, phase="turn", players=2, hand=("T3", "WDC"), top="T5",
                      color="T", direction=1, hand_sizes=(2, 4), active=(0, 1), pending=0,
                      discard=("T5",), draw_size=50, drawn=None, draws=(0, 0), passes=(0, 0),
                      last_draw_color=(None, None), scores=(0, 0), known=((), ()),
                      round_index=0, events=())
    choices = player.choices(view, ["T3", "WDC", "draw"])
    assert choices[-1][0] == "WDC" and "until a card of the color you named" in choices[-1][1]
    assert "2 more" in player.note("challenge", view)


def test_a_person_plays_a_flip_round(tmp_path: Path) -> None:
    out = tmp_path / "round.jsonl"
    res = CliRunner().invoke(main, ["play", "flip", "--seed", "3", "--set", "players=3",
                                    "--human", "0", "--trace-format", "jsonl",
                                    "--out", str(out)], input="1\n" * 600)
    assert res.exit_code == 0, res.output
    text = res.stdout
    assert "-- seat 0 (you), your move (turn)" in text and "light side" in text
    assert "backs (dark faces) you see: seat 1 (random) " in text
    assert "dark side" in text and "backs (light faces) you see" in text
    # the hand shows faces in play: no light/dark pair, dark letters on the dark side
    for block in text.split("your move")[1:]:
        head = block.split("\n")[1:3]
        side = "dark" if "dark side" in head[0] else "light"
        hand = head[1].split("hand: ")[1].split()
        assert all("/" not in c and (c[0] in ("PTOUW" if side == "dark" else "RYGBW"))
                   for c in hand), block
    events = [json.loads(x) for x in out.read_text().splitlines()]
    assert events[0]["e"] == "deal" and any(e["e"] == "flip_all" for e in events)
    res = invoke("view", str(out))
    assert res.exit_code == 0, res.output


def test_advise_on_a_dark_side_decision_of_a_trace(tmp_path: Path) -> None:
    path, events = _trace(tmp_path)
    flip = next(i for i, e in enumerate(events) if e["e"] == "flip_all" and e["side"] == "dark")
    n = next(i for i in range(flip, len(events)) if events[i]["e"] == "turn")
    res = invoke("advise", "--trace", str(path), "--event", str(n), "--playouts", "60",
                 "--format", "json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    pos = data["position"]
    assert pos["side"] == "dark" and pos["color"] in "PTOU"
    assert all("/" not in c for c in pos["hand"]) and pos["top"] == events[n]["top"].split("/")[1]
    assert set(pos["backs"]) == {str(q) for q in range(3) if q != pos["seat"]}
    assert all(c[0] in "RYGBW" for cards in pos["backs"].values() for c in cards)
    names = [r["action"] for r in data["actions"]]
    assert all(not a.startswith("color ") or a[-1] in "PTOU" for a in names)
    text = invoke("advise", "--trace", str(path), "--event", str(n), "--playouts", "30")
    assert text.exit_code == 0 and "dark side" in text.stdout and "backs (light faces)" in text.stdout


def test_view_writes_a_flip_page(tmp_path: Path) -> None:
    path, _ = _trace(tmp_path, 4)
    res = invoke("view", str(path), "--out", str(tmp_path / "f.html"), "--seat", "1")
    assert res.exit_code == 0, res.output
    page = (tmp_path / "f.html").read_text()
    assert '"two_sided":true' in page and '"U":"purple"' in page


def test_a_bad_flip_trace_is_one_line(tmp_path: Path) -> None:
    path, events = _trace(tmp_path)
    events[0]["hands"][0][0] = "R5/R5"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    for args in (["view", str(path)], ["advise", "--trace", str(path), "--event", "3"]):
        assert_one_line_error(invoke(*args), "line 1", "dark face")

