"""The command line: outputs and one-line errors with exit code 2 (Ctrl-C: test_signals)."""

from __future__ import annotations

import json

import pytest
from cli_helpers import CLASSIC, assert_one_line_error, invoke

from unosim.rules.editions import list_editions


def test_play_jsonl_parses_and_is_byte_identical():
    a = invoke("play", CLASSIC, "--seed", "11", "--trace-format", "jsonl")
    b = invoke("play", CLASSIC, "--seed", "11", "--trace-format", "jsonl")
    assert a.exit_code == 0 and a.stdout == b.stdout
    events = [json.loads(line) for line in a.stdout.splitlines()]
    assert events[0]["e"] == "deal" and events[-1]["e"] == "end"
    other = invoke("play", CLASSIC, "--seed", "12", "--trace-format", "jsonl")
    assert other.stdout != a.stdout


def test_play_text_match_mode_and_out_file(tmp_path):
    r = invoke("play", "match", "--seed", "3", "--set", "target=100")
    assert r.exit_code == 0
    assert r.stdout.startswith("== Round 1") and "Match won by" in r.stdout
    out = tmp_path / "trace.jsonl"
    r = invoke("play", CLASSIC, "--seed", "3", "--trace-format", "jsonl", "--out", str(out))
    assert r.exit_code == 0 and r.stdout == ""
    assert out.read_text() == invoke("play", CLASSIC, "--seed", "3",
                                     "--trace-format", "jsonl").stdout


def test_run_writes_summary_and_prints_a_short_summary(tmp_path):
    out = tmp_path / "run"
    r = invoke("run", CLASSIC, "--games", "500", "--seed", "4", "--out", str(out),
               "--jobs", "1", "--quiet")
    assert r.exit_code == 0, r.output
    assert "turns per round" in r.stdout and "first player wins" in r.stdout
    assert "rounds/s" in r.stdout and r.stderr == ""
    s = json.loads((out / "summary.json").read_text())
    assert s["games"] == 500 and s["seed"] == 4 and s["config"]["name"] == "classic"
    assert (out / "aggregates.npz").is_file() and (out / "run.json").is_file()


def test_run_default_out_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = invoke("run", CLASSIC, "--games", "50", "--seed", "9", "--jobs", "1", "-q")
    assert r.exit_code == 0, r.output
    # runs/NAME-seedS-HASH: the hash keeps other games or rules out of this folder
    made = list((tmp_path / "runs").glob("classic-seed9-*/summary.json"))
    assert len(made) == 1 and len(made[0].parent.name) == len("classic-seed9-") + 6


@pytest.mark.parametrize("args,words", [
    (["--games", "0"], ["games"]),
    (["--games", "-3"], ["games"]),
    (["--jobs", "0"], ["jobs"]),
    (["--jobs", "two"], ["--jobs"]),
    (["--chunk-size", "0"], ["chunk"]),
    (["--backend", "mpi"], ["--backend"]),
    (["--seed", "-1"], ["seed"]),
    (["--resume", "--force"], ["--resume"]),
    (["--set", "nope=1"], ["nope", "unknown key"]),
    (["--set", "players=1"], ["players"]),
])
def test_bad_options_are_one_line_errors(tmp_path, args, words):
    assert_one_line_error(invoke("run", CLASSIC, "--out", str(tmp_path / "o"), "-q", *args),
                          *words)


def test_bad_configs_are_one_line_errors(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nplayers: [4\n")
    assert_one_line_error(invoke("run", str(bad)), "bad.yaml", "malformed YAML")
    assert_one_line_error(invoke("play", str(bad)), "malformed YAML")
    typo = tmp_path / "typo.yaml"
    typo.write_text("extends: classic.yaml\nplayrs: 4\n")
    assert_one_line_error(invoke("run", str(typo), "--games", "10"), "playrs", "players")
    assert_one_line_error(invoke("play", str(tmp_path / "missing.yaml")), "not found")
    assert_one_line_error(invoke("nosuchcommand"), "nosuchcommand")


def test_out_dir_errors(tmp_path):
    out = tmp_path / "run"
    assert invoke("run", CLASSIC, "--games", "50", "--out", str(out), "-q", "--jobs", "1"
                  ).exit_code == 0
    assert_one_line_error(invoke("run", CLASSIC, "--games", "50", "--out", str(out), "-q"),
                          "not empty", "--resume", "--force")
    # (more games would extend the run: tests/cli/test_newcomer.py)
    assert_one_line_error(invoke("run", CLASSIC, "--games", "40", "--out", str(out), "-q",
                                 "--resume"), "games 50 -> 40")
    assert invoke("run", CLASSIC, "--games", "60", "--out", str(out), "-q", "--jobs", "1",
                  "--force").exit_code == 0
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert_one_line_error(invoke("run", CLASSIC, "--games", "5", "--out", str(blocker / "x"),
                                 "-q"), "cannot write")


def test_editions_table():
    r = invoke("editions")
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert lines[0].split()[:2] == ["name", "title"]
    names = [line.split()[0] for line in lines[1:]]
    assert names == list_editions()
    classic = next(line for line in lines if line.startswith("classic "))
    assert "108" in classic and classic.rstrip().endswith("-")
    encanto = next(line for line in lines if line.startswith("encanto"))
    assert "112" in encanto and "Don't Talk" in encanto and "first_flip redraw" in encanto
