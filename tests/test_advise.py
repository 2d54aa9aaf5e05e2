"""``unosim advise`` on hand-built positions whose right move is known."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from unosim.cli.app import main


def _advise(tmp_path: Path, text: str, *args: str) -> list[dict]:
    pos = tmp_path / "position.yaml"
    pos.write_text(text)
    res = CliRunner().invoke(main, ["advise", str(pos), "--format", "json", *args])
    assert res.exit_code == 0, res.output
    return json.loads(res.output)["actions"]


def test_goes_out_when_possible(tmp_path: Path) -> None:
    rows = _advise(tmp_path, "hand: [B7]\ntop: B3\nhands: [1, 4, 5]\n", "--playouts", "200")
    assert rows[0]["action"] == "B7" and rows[0]["win"] == 1.0
    assert [r["action"] for r in rows] == ["B7", "draw"]


def test_draw_two_on_a_next_player_with_one_card(tmp_path: Path) -> None:
    rows = _advise(tmp_path, "hand: [BD2, B5, R9]\ntop: B3\nhands: [3, 1, 6, 6]\n",
                   "--playouts", "1500")
    assert rows[0]["action"] == "BD2"
    assert rows[0]["low"] > next(r for r in rows if r["action"] == "B5")["high"]


def test_names_the_only_color_held(tmp_path: Path) -> None:
    rows = _advise(tmp_path, "hand: [W, R5, R7]\ntop: B3\nhands: [3, 5, 5]\nmoves: [W]\n",
                   "--playouts", "1000", "--playout", "greedy")
    assert rows[0]["action"] == "color R"
    assert len(rows) == 4 and all(r["playouts"] == 1000 for r in rows)


def test_precision_stops_early_and_text_output(tmp_path: Path) -> None:
    rows = _advise(tmp_path, "hand: [B7, R2]\ntop: B3\nhands: [2, 3]\n",
                   "--playouts", "100000", "--precision", "0.05")
    assert all(r["high"] - r["low"] <= 0.1 + 1e-9 for r in rows)
    assert rows[0]["playouts"] < 100000
    pos = tmp_path / "position.yaml"
    res = CliRunner().invoke(main, ["advise", str(pos), "--playouts", "50"])
    assert res.exit_code == 0 and "seat 0 to act" in res.output


@pytest.mark.parametrize(("text", "message"), [
    ("hand: [B7]\ntop: B3\nhands: [2, 4]\n", "hand: 1 cards"),
    ("hand: [ZZ]\ntop: B3\nhands: [1, 4]\n", "unknown card token"),
    ("hand: [B7]\ntop: B3\nhands: [1, 4]\nbogus: 1\n", "unknown key"),
    ("hand: [B7]\ntop: B3\nhands: [1, 4]\ndraw: 999\n", "draw:"),
])
def test_bad_positions_are_one_line_errors(tmp_path: Path, text: str, message: str) -> None:
    pos = tmp_path / "position.yaml"
    pos.write_text(text)
    res = CliRunner().invoke(main, ["advise", str(pos)])
    assert res.exit_code == 2 and message in res.output, res.output
    assert res.output.strip().count("\n") == 0
