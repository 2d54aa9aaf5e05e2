"""``unosim play --human SEAT``: a person plays a seat, fed here through standard input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from replay_checker import check_trace

from unosim.cli import main

ROOT = Path(__file__).resolve().parents[2]
CLASSIC = str(ROOT / "configs" / "classic.yaml")


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run in a fresh directory: a game with --human and no --out writes its trace there."""
    monkeypatch.chdir(tmp_path)


def play(*args: str, input: str):
    return CliRunner().invoke(main, ["play", CLASSIC, *args], input=input)


def test_numbers_play_a_whole_round_and_write_a_replayable_trace(tmp_path: Path) -> None:
    out = tmp_path / "round.jsonl"
    res = play("--seed", "3", "--human", "0", "--trace-format", "jsonl", "--out", str(out),
               input="xyz\n99\n" + "1\n" * 400)
    assert res.exit_code == 0, res.output
    assert "-- P0 (you), your move (turn)" in res.stdout
    assert "   hand: " in res.stdout and "   1. " in res.stdout and "top " in res.stdout
    assert "cards: P0 (you) 7, P1 (random) " in res.stdout
    assert "not a legal choice: 'xyz'" in res.stdout and "not a legal choice: '99'" in res.stdout
    assert "-- game over" in res.stdout
    events = [json.loads(line) for line in out.read_text().splitlines()]
    assert events[0]["e"] == "deal" and events[-1]["e"] == "end"
    assert not check_trace(events).violations
    # the other seats' cards stay hidden during the game
    before = res.stdout.split("-- game over")[0]
    assert "P1 (random): ? ? ? ? ? ? ?" in before


def test_names_are_accepted_and_the_text_trace_is_written_to_a_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # draw, keep it, name green, take penalties, 1 for anything else; wrong ones re-asked
    monkeypatch.chdir(tmp_path)
    cycle = "draw\npass\nG\naccept\nplay R0\n1\n"
    res = play("--seed", "8", "--human", "2", input=cycle * 300)
    assert res.exit_code == 0, res.output
    head, tail = res.stdout.split("-- game over")
    assert "draw\n" in head
    assert tail.splitlines()[1] == "   the trace is in play-classic-seed8-game0.txt " \
        "(--trace-format jsonl writes one `unosim view` can replay)"
    trace = (tmp_path / "play-classic-seed8-game0.txt").read_text()
    assert trace.startswith("== Round 1:") and "P2 (you): " in trace
    assert "?" not in trace  # the trace in the file is the full one


def test_end_of_input_is_one_line_error_and_no_trace(tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    res = play("--seed", "3", "--human", "0", "--out", str(out), input="1\n")
    assert res.exit_code == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("unosim: error: input ended"), res.stderr
    assert not out.exists()


def test_seat_out_of_range() -> None:
    res = play("--human", "4", input="")
    assert res.exit_code == 2 and "--human 4: the game has seats 0-3" in res.stderr


def test_human_in_a_match(tmp_path: Path) -> None:
    res = play("--seed", "1", "--human", "1", "--set", "mode=match", "--set", "target=50",
               "--out", str(tmp_path / "match.txt"), input="1\n" * 3000)
    assert res.exit_code == 0, res.output
    assert "== Match won by" in res.stdout
    assert res.stdout.splitlines()[-2].startswith("-- game over: ")
