"""compare and sweep resume like run: Ctrl-C, then --resume gives the uninterrupted bytes.

Each cell of a study is a run dir that resumes; a rerun without --resume or
--force is refused and never deletes the saved chunks.
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_helpers import ROOT, assert_one_line_error, invoke
from hostile.harness import Proc, expect_interrupted, wait_for

MATCH = str(ROOT / "configs" / "match.yaml")
# Matches (about ten rounds each) keep each 1000-game chunk busy for about half a
# second, eight chunks a cell; the signal follows the first chunk saved, so
# seven eighths of the study is left when it lands.
STUDY = ["--games", "8000", "--seed", "2", "-q"]
pytestmark = pytest.mark.slow  # three studies a test


def _chunks(d: Path) -> dict[Path, int]:
    """Every saved chunk under ``d`` with its modification time."""
    return {p: p.stat().st_mtime_ns for p in d.rglob("chunk-*.npz")}


def _interrupt(args: list[str], cwd: Path, ready: Callable[[], bool]) -> None:
    """Run ``unosim ARGS`` with two workers; Ctrl-C (SIGINT to its group) once ``ready()``."""
    proc = Proc(cwd, (*args, "--jobs", "2"))
    try:
        wait_for("a saved chunk", ready, proc)
        proc.signal(signal.SIGINT)
        r = proc.wait()
    finally:
        proc.stop()
    expect_interrupted(r, "--resume")


def _resume_equals_fresh(args: list[str], out: Path, fresh: Path, tables: list[str]) -> None:
    """Refused without --resume (nothing deleted); resumed, the same bytes as ``fresh``."""
    saved = _chunks(out)
    assert saved
    assert_one_line_error(invoke(*args, "--out", str(out), "--jobs", "1"), "not empty",
                          "--resume")
    assert _chunks(out) == saved
    r = invoke(*args, "--out", str(out), "--jobs", "1", "--resume")
    assert r.exit_code == 0, r.output
    assert all(_chunks(out)[p] == t for p, t in saved.items())  # reused, not recomputed
    r = invoke(*args, "--out", str(fresh), "--jobs", "1")
    assert r.exit_code == 0, r.output
    for name in tables:
        assert (out / name).read_bytes() == (fresh / name).read_bytes(), name
    cells = sorted(p.relative_to(fresh) for p in fresh.glob("runs/*/summary.json"))
    assert cells == sorted(p.relative_to(out) for p in out.glob("runs/*/summary.json"))
    for cell in cells:
        assert (out / cell).read_bytes() == (fresh / cell).read_bytes(), cell


def test_compare_ctrl_c_then_resume_equals_an_uninterrupted_compare(tmp_path):
    short = tmp_path / "short.yaml"
    short.write_text(f"extends: {MATCH}\nname: short\ntarget: 200\n")
    args = ["compare", MATCH, str(short), *STUDY]
    out = tmp_path / "cmp"
    _interrupt([*args, "--out", str(out)], tmp_path, lambda: len(_chunks(out)) >= 1)
    assert not (out / "compare.csv").exists()
    _resume_equals_fresh(args, out, tmp_path / "fresh", ["compare.csv"])


def test_sweep_ctrl_c_then_resume_equals_an_uninterrupted_sweep(tmp_path):
    """Interrupted in the second cell: the first is reused whole, the second resumed."""
    args = ["sweep", MATCH, "--vary", "players=3,4", *STUDY]
    out = tmp_path / "sweep"
    second = out / "runs" / "players-4"
    _interrupt([*args, "--out", str(out)], tmp_path, lambda: len(_chunks(second)) >= 1)
    assert (out / "paired").is_dir()  # lockstep: every cell is part-way, pairs checkpointed
    assert not (out / "sweep.csv").exists()
    _resume_equals_fresh(args, out, tmp_path / "fresh", ["sweep.csv"])
