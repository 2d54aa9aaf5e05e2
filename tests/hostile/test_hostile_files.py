"""Issue 20, files and bounds: studies own their folders, run dirs are what they claim.

Each test is named after a case of the issue (data loss, silently wrong
answers, bounds, tracebacks on a full stdout) and runs ``python -m unosim``
as a user would (`hostile.harness`: its own process group, memory capped,
no traceback, one ``unosim: error:`` line), or the Python API in process.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import unosim
from hostile.harness import (
    Proc,
    assert_same,
    chunks,
    cli,
    expect_error,
    expect_interrupted,
    expect_ok,
    snapshot,
    wait_for,
)
from unosim.report.runs import load_run
from unosim.rules.config import ConfigError, load_config
from unosim.run import BadOptionError, OutDirError
from unosim.run.chunks import chunk_plan, growing_plan
from unosim.study import StudyOptions
from unosim.study.runs import STUDY, check_study, study_identity

pytestmark = pytest.mark.slow  # studies run, interrupted and resumed through the CLI

STUDY_OPTS = ("--games", "300", "-q", "--jobs", "1")
# One study of each kind, and another of the same kind to resume in its folder.
STUDIES = {
    "compare": (("compare", "classic", "stacking"), ("compare", "classic", "chaos")),
    "sweep": (("sweep", "classic", "--vary", "players=2,3"),
              ("sweep", "classic", "--vary", "players=2,4")),
    "league": (("league", "random", "greedy", "--no-head-to-head"),
               ("league", "random", "cautious", "--no-head-to-head")),
}


# --- data loss: a study's folder is its own -------------------------------------------
@pytest.mark.parametrize("kind", list(STUDIES))
def test_study_resume_with_a_different_study_overwrites_nothing(tmp_path, kind):
    """The issue's reproduction (compare classic stacking, then classic chaos --resume),
    for each kind of study: one line naming what changed, and not a byte rewritten."""
    first, other = STUDIES[kind]
    expect_ok(cli(tmp_path, *first, *STUDY_OPTS, "--out", "C"))
    before = snapshot(tmp_path / "C")
    line = expect_error(cli(tmp_path, *other, *STUDY_OPTS, "--out", "C", "--resume"),
                        "cannot resume", "different", kind)
    assert "changed" in line
    assert_same(before, snapshot(tmp_path / "C"), "the first study")
    # the same study resumes (nothing left to do), with the same options
    expect_ok(cli(tmp_path, *first, *STUDY_OPTS, "--out", "C", "--resume"))


def test_study_resume_with_other_games_is_refused_and_keeps_its_checkpoints(tmp_path):
    expect_ok(cli(tmp_path, "compare", "classic", "stacking", *STUDY_OPTS, "--out", "C"))
    before = snapshot(tmp_path / "C")
    expect_error(cli(tmp_path, "compare", "classic", "stacking", "--games", "400", "-q",
                     "--jobs", "1", "--out", "C", "--resume"), "games changed")
    assert_same(before, snapshot(tmp_path / "C"), "the study")


def test_reuse_into_another_comparison_calls_no_checkpoint_corrupt(tmp_path):
    """--reuse keeps the matching runs; the other comparison's paired checkpoints are
    whole, not corrupt, and are replaced without a warning."""
    expect_ok(cli(tmp_path, "compare", "classic", "stacking", *STUDY_OPTS, "--out", "C"))
    run = tmp_path / "C" / "runs" / "classic"
    saved, summary = snapshot(run / "chunks"), (run / "summary.json").read_bytes()
    expect_ok(cli(tmp_path, "compare", "classic", "chaos", *STUDY_OPTS, "--out", "C",
                  "--reuse"))
    assert_same(saved, snapshot(run / "chunks"), "the reused run's chunks")
    assert (run / "summary.json").read_bytes() == summary
    identity = json.loads((tmp_path / "C" / STUDY).read_text())["identity"]
    assert identity["configs"][1] == {"rules": _rules("chaos")}


def _rules(name: str) -> str:
    from unosim.run.manifest import rules_hash

    return rules_hash(load_config(name))


@pytest.mark.parametrize("kind", list(STUDIES))
def test_force_and_reuse_leave_a_folder_without_a_study_alone(tmp_path, kind):
    """``mkdir Cu; echo notes > Cu/compare.md``: no option writes into Cu."""
    first, _ = STUDIES[kind]
    cu = tmp_path / "Cu"
    cu.mkdir()
    for name in ("compare.md", "sweep.md", "league.md"):
        (cu / name).write_text("notes\n")
    before = snapshot(tmp_path)
    for flag in ("--force", "--reuse", "--resume"):
        line = expect_error(cli(tmp_path, *first, *STUDY_OPTS, "--out", "Cu", flag),
                            "Cu", "no unosim study", "nothing was changed")
        assert flag in line
    assert_same(before, snapshot(tmp_path), "the user's folder")


def test_force_of_another_kind_of_study_is_refused(tmp_path):
    expect_ok(cli(tmp_path, "compare", "classic", "stacking", *STUDY_OPTS, "--out", "C"))
    before = snapshot(tmp_path / "C")
    for flag in ("--force", "--reuse", "--resume"):
        expect_error(cli(tmp_path, *STUDIES["sweep"][0], *STUDY_OPTS, "--out", "C", flag),
                     "holds a compare, not a sweep")
    assert_same(before, snapshot(tmp_path / "C"), "the compare")


def test_study_that_fails_before_its_first_file_leaves_no_folder(tmp_path):
    r = cli(tmp_path, "sweep", "classic", "--vary", "players=2,99", *STUDY_OPTS, "--out", "S")
    expect_error(r, "players")
    assert not (tmp_path / "S").exists()


def test_check_study_reads_only_and_refuses_a_foreign_manifest(tmp_path):
    ident = study_identity("compare", games=300)
    assert check_study(tmp_path / "new", ident, StudyOptions(resume=True)) is None
    (tmp_path / "d" / "runs" / "x").mkdir(parents=True)  # folders only: nothing to lose
    assert check_study(tmp_path / "d", ident, StudyOptions()) is None
    (tmp_path / "d" / STUDY).write_text('{"mine": true}\n')  # the user's study.json
    with pytest.raises(OutDirError, match="not a unosim study manifest"):
        check_study(tmp_path / "d", ident, StudyOptions(force=True))
    assert (tmp_path / "d" / STUDY).read_text() == '{"mine": true}\n'


# --- the API goes through the same checks, and leaves nothing behind -------------------
def test_api_out_gets_the_cli_out_dir_checks(tmp_path):
    """``unosim.compare``, ``sweep`` and ``league`` with ``out=`` a folder holding no study."""
    cu = tmp_path / "Cu"
    cu.mkdir()
    (cu / "compare.md").write_text("notes\n")
    before = snapshot(tmp_path)
    calls = [lambda **kw: unosim.compare(["classic", "stacking"], **kw),
             lambda **kw: unosim.sweep("classic", vary={"players": [2, 3]}, **kw),
             lambda **kw: unosim.league(["random", "greedy"], head_to_head=False, **kw)]
    for call in calls:
        with pytest.raises(OutDirError, match="no unosim study"):
            call(games=200, jobs=1, out=cu)
    assert_same(before, snapshot(tmp_path), "the user's folder")
    # a study of its own resumes only as itself
    c = unosim.compare(["classic", "stacking"], games=200, jobs=1, out=tmp_path / "C")
    with pytest.raises(OutDirError, match="not empty"):
        unosim.compare(["classic", "stacking"], games=200, jobs=1, out=tmp_path / "C")
    with pytest.raises(OutDirError, match="different compare"):
        unosim.compare(["classic", "chaos"], games=200, jobs=1, out=tmp_path / "C",
                       resume=True)
    again = unosim.compare(["classic", "stacking"], games=200, jobs=1, out=tmp_path / "C",
                           resume=True)
    assert again.table().equals(c.table())


def test_api_leaves_no_temporary_folders(tmp_path, monkeypatch):
    """Every sweep and league call, and a run with a dict config, left unosim-config-*."""
    import tempfile

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    unosim.run({"extends": "classic", "name": "duel", "players": 2}, games=50, jobs=1)
    unosim.run(unosim.config("classic"), games=50, jobs=1, set={"players": 3})
    unosim.sweep("classic", vary={"players": [2, 3]}, games=200, jobs=1)
    unosim.league(["random", "greedy"], games=200, jobs=1, head_to_head=False)
    with pytest.raises(ConfigError, match="players"):  # a failing call cleans up too
        unosim.sweep({"extends": "classic"}, vary={"players": [2, 99]}, games=200, jobs=1)
    assert list(scratch.iterdir()) == []


def test_api_checks_games_and_seed_against_the_cli_limits(tmp_path):
    """games=10**30 and seed=2**70 were accepted (the seed failed at the end)."""
    for kw in ({"games": 10**30}, {"games": 10**12 + 1}, {"seed": 2**70}, {"seed": -1},
               {"games": 2.5}, {"games": True}, {"precision": 1.0, "max_games": 10**30}):
        for call in (unosim.run, lambda **k: unosim.compare(["classic", "stacking"], **k),
                     lambda **k: unosim.sweep("classic", vary={"players": [2, 3]}, **k),
                     lambda **k: unosim.league(["random", "greedy"], **k)):
            with pytest.raises(BadOptionError, match="games|seed"):
                call(**({"config": "classic"} if call is unosim.run else {}), **kw,
                     jobs=1, out=tmp_path / "never")
    assert not (tmp_path / "never").exists()


def test_api_empty_out_is_refused_not_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for call in (lambda: unosim.run("classic", games=100, jobs=1, out=""),
                 lambda: unosim.compare(["classic", "stacking"], games=100, jobs=1, out="")):
        with pytest.raises(BadOptionError, match="out must not be empty"):
            call()
    assert list(tmp_path.iterdir()) == []


def test_api_report_never_overwrites_a_users_folder(tmp_path):
    """``Result.report(path)`` wrote report.md over whatever a folder held."""
    r = unosim.run("classic", games=100, jobs=1, out=tmp_path / "run")
    mine = tmp_path / "notes"
    mine.mkdir()
    (mine / "report.md").write_text("my notes\n")
    with pytest.raises(OutDirError, match="not empty"):
        r.report(mine)
    assert [p.name for p in mine.iterdir()] == ["report.md"]
    assert (mine / "report.md").read_text() == "my notes\n"
    assert r.report().parent == tmp_path / "run"  # its own run dir, listed in run.json
    outputs = json.loads((tmp_path / "run" / "run.json").read_text())["outputs"]
    assert "report.md" in outputs and "report.html" in outputs
    assert r.report(tmp_path / "new").is_file()


# --- silently wrong answers: a run dir is the run its manifest recorded ------------------
def _edit_json(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2))


@pytest.mark.parametrize("edit", ["config", "config_and_hash", "seed", "aggregates"])
def test_hand_edited_summary_is_not_compared_as_what_it_claims(tmp_path, edit):
    """A run of classic whose summary.json was edited to claim stacking (or another seed,
    or whose aggregates were swapped) is refused, not compared as what it claims."""
    expect_ok(cli(tmp_path, "run", "classic", "--games", "300", "--out", "R", "-q",
                  "--jobs", "1", "--no-report"))
    run = tmp_path / "R"
    summary = run / "summary.json"
    stacking = load_config("stacking").house_rules.model_dump(mode="json")
    if edit == "config":
        _edit_json(summary, lambda s: s["config"].update(house_rules=stacking))
    elif edit == "config_and_hash":
        from unosim.rules.config import config_hash, validate_config

        def claim(s: dict) -> None:
            s["config"]["house_rules"] = stacking
            s["config_hash"] = config_hash(validate_config(s["config"]))
        _edit_json(summary, claim)
    elif edit == "seed":
        _edit_json(summary, lambda s: s.update(seed=2))
    else:
        expect_ok(cli(tmp_path, "run", "classic", "--games", "300", "--seed", "2", "--out",
                      "R2", "-q", "--jobs", "1", "--no-report"))
        (run / "aggregates.npz").write_bytes((tmp_path / "R2" / "aggregates.npz").read_bytes())
    with pytest.raises(ValueError, match="does not match its run.json"):
        load_run(run)
    expect_error(cli(tmp_path, "compare", "R", "classic", *STUDY_OPTS, "--out", "C"),
                 "R", "run.json")
    assert not (tmp_path / "C").exists()


def test_run_dir_without_its_manifest_is_not_compared(tmp_path):
    expect_ok(cli(tmp_path, "run", "classic", "--games", "300", "--out", "R", "-q",
                  "--jobs", "1", "--no-report"))
    (tmp_path / "R" / "run.json").unlink()
    with pytest.raises(ValueError, match="run.json"):
        load_run(tmp_path / "R")


# --- bounds: the chunk plan is computed, never listed -----------------------------------
def test_games_at_the_maximum_start_at_once_in_bounded_memory(tmp_path):
    """``--games 1000000000000`` filled 5.5 GB before its first chunk: it now saves chunks
    at once, stops on Ctrl-C within the harness's memory cap, and resumes."""
    big = ("run", "classic", "--games", str(10**12), "--out", "B", "-q", "--jobs", "1",
           "--no-report")
    proc = Proc(tmp_path, big)
    try:
        wait_for("a first chunk", lambda: bool(chunks(tmp_path / "B")), proc, limit=120)
        proc.signal(signal.SIGINT)
        expect_interrupted(proc.wait(), "of 20000000 chunks saved", "--resume")
    finally:
        proc.stop()
    manifest = json.loads((tmp_path / "B" / "run.json").read_text())
    assert manifest["chunks"] == 20_000_000 and manifest["games"] == 10**12


def test_chunk_plans_take_no_memory_per_chunk():
    plan = chunk_plan(10**12, 50_000)
    assert len(plan) == 20_000_000 and plan[-1] == (19_999_999, 10**12 - 50_000, 50_000)
    assert list(chunk_plan(7, 3)) == [(0, 0, 3), (1, 3, 3), (2, 6, 1)]
    grow = growing_plan(10**12, 1000)
    assert len(grow) == 20_000_006 and sum(c for _, _, c in grow[:8]) == 114_000
    assert grow[8] == (8, 114_000, 50_000)
    assert sys.getsizeof(plan) + sys.getsizeof(grow) < 10_000
    with pytest.raises(IndexError):
        plan[len(plan)]


# --- tracebacks: a full stdout ----------------------------------------------------------
def _to(stdout: int | object, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "unosim", *args], cwd=cwd, stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=300)


COMMANDS = {
    "run": ("run", "classic", "--games", "100", "--jobs", "1", "--out", "R"),
    "run_json": ("run", "classic", "--games", "100", "--jobs", "1", "--out", "R",
                 "--format", "json", "-q"),
    "compare": ("compare", "classic", "stacking", *STUDY_OPTS, "--out", "C"),
    "sweep": ("sweep", "classic", "--vary", "players=2,3", *STUDY_OPTS, "--out", "S"),
    "league": ("league", "random", "greedy", "--no-head-to-head", *STUDY_OPTS, "--out", "L"),
    "play": ("play", "classic", "--seed", "3"),
    "play_jsonl": ("play", "classic", "--seed", "3", "--trace-format", "jsonl"),
    "editions": ("editions",),
    "rulings": ("rulings",),
    "help": ("--help",),
    "version": ("--version",),
    "no_command": (),
    "advise": ("advise", "--trace", "round.jsonl", "--event", "10", "--playouts", "50"),
}
# what each command must still have written, its output lost
KEPT = {"run": ["R/summary.json", "R/report.html"], "run_json": ["R/report.html"],
        "compare": ["C/compare.csv"], "sweep": ["S/sweep.csv"], "league": ["L/league.csv"]}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_full_stdout_is_one_line_on_every_command(tmp_path, command):
    """``unosim run classic --games 100 > /dev/full`` ended in a traceback and lost the
    report: now the work is done, then one line, exit 2."""
    if command == "advise":
        with open(tmp_path / "round.jsonl", "w") as f:
            assert _to(f, tmp_path, "play", "classic", "--seed", "3", "--trace-format",
                       "jsonl").returncode == 0
    with open("/dev/full", "w") as full:
        r = _to(full, tmp_path, *COMMANDS[command])
    lines = r.stderr.splitlines()
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert lines[-1] == ("unosim: error: cannot write to standard output (No space left on "
                         "device); the output was lost"), r.stderr
    assert all(not line.startswith("unosim: error") for line in lines[:-1]), r.stderr
    for path in KEPT.get(command, []):
        assert (tmp_path / path).is_file(), path


def test_closed_pipe_on_stdout_is_one_line(tmp_path):
    read, write = os.pipe()
    os.close(read)
    try:
        r = _to(write, tmp_path, "run", "classic", "--games", "100", "--jobs", "1", "--out",
                "R", "-q")
    finally:
        os.close(write)
    assert r.returncode == 2 and "Broken pipe" in error_line_of(r)
    assert (tmp_path / "R" / "report.html").is_file()


def test_closed_stdout_is_one_line_and_never_written_to_descriptor_1(tmp_path):
    """``unosim run ... >&-``: descriptor 1 may then be a file the run opened itself."""
    r = subprocess.run([sys.executable, "-m", "unosim", "run", "classic", "--games", "100",
                        "--jobs", "1", "--out", "R"], cwd=tmp_path, stderr=subprocess.PIPE,
                       text=True, timeout=300, preexec_fn=lambda: os.close(1))
    assert r.returncode == 2 and "Bad file descriptor" in error_line_of(r)
    assert load_run(tmp_path / "R").games == 100 and (tmp_path / "R" / "report.html").is_file()


def error_line_of(r: subprocess.CompletedProcess[str]) -> str:
    """The one error line (stderr is a pipe: a run's progress lines come first)."""
    lines = [x for x in r.stderr.splitlines() if not x.startswith("progress: ")]
    assert len(lines) == 1 and lines[0].startswith("unosim: error: "), r.stderr
    return lines[0]


def test_full_stdout_after_a_failed_command_keeps_its_own_error(tmp_path):
    with open("/dev/full", "w") as full:
        r = _to(full, tmp_path, "run", "no-such-config", "--games", "10")
    assert r.returncode == 2 and "no-such-config" in error_line_of(r)
