"""Never lose or overwrite a run: inputs are read-only, out dirs locked, --force precise.

Each test is named after the case of issue 10 it pins down.
"""

from __future__ import annotations

import json
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import CLASSIC, assert_one_line_error, invoke

from unosim.report.runs import load_run
from unosim.rules.config import load_config
from unosim.run import (
    BadOptionError,
    OutDirBusyError,
    OutDirError,
    atomic_write,
    lock_out_dir,
    run_simulation,
)
from unosim.run.lock import LOCK_NAME
from unosim.study import StudyOptions
from unosim.study.runs import run_config

RUN = ["--games", "300", "--jobs", "1", "-q"]


def tree(d: Path) -> dict[str, bytes]:
    """Every file under ``d`` with its bytes."""
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*"))
            if p.is_file()}


def hold_lock(out: Path) -> subprocess.Popen:
    """Another process holding ``out``'s lock until its stdin closes."""
    code = ("import sys\nfrom unosim.run import lock_out_dir\n"
            "with lock_out_dir(sys.argv[1]):\n"
            "    print('locked', flush=True)\n    sys.stdin.read()\n")
    proc = subprocess.Popen([sys.executable, "-c", code, str(out)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


def release(proc: subprocess.Popen) -> None:
    assert proc.stdin is not None
    proc.stdin.close()
    assert proc.wait(timeout=30) == 0


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


# --- 1. compare and sweep never overwrite their inputs --------------------------------
def test_compare_never_overwrites_an_input_run(tmp_path, monkeypatch):
    """The issue's commands: the seed-3 run in C/runs/classic survives a seed-4 compare."""
    monkeypatch.chdir(tmp_path)
    r = invoke("compare", "classic", "stacking", "--games", "2000", "--seed", "3", "--out", "C",
               "--jobs", "1", "-q")
    assert r.exit_code == 0, r.output
    before = tree(tmp_path / "C" / "runs" / "classic")
    again = ["compare", "C/runs/classic", "classic", "--games", "3000", "--seed", "4",
             "--out", "C", "--jobs", "1", "-q"]
    assert_one_line_error(invoke(*again), "not empty", "--resume", "--force")
    r = invoke(*again, "--force")
    assert r.exit_code == 0, r.output
    assert tree(tmp_path / "C" / "runs" / "classic") == before
    assert json.loads((tmp_path / "C/runs/classic/summary.json").read_text())["seed"] == 3
    new = json.loads((tmp_path / "C/runs/classic-2/summary.json").read_text())
    assert (new["seed"], new["games"]) == (4, 3000)


def test_compare_out_dir_inside_an_input_run_is_refused(tmp_path):
    run_dir = tmp_path / "r"
    assert invoke("run", CLASSIC, *RUN, "--out", str(run_dir)).exit_code == 0
    before = tree(run_dir)
    for out in (run_dir, run_dir / "sub", run_dir / "runs" / ".."):
        assert_one_line_error(invoke("compare", str(run_dir), "stacking", *RUN, "--out",
                                     str(out)), "input run dir", "read-only")
    assert tree(run_dir) == before


def test_studies_do_not_run_with_force(tmp_path):
    """A run dir holding a run is refused unless the caller says --resume or --force."""
    cfg = load_config("classic")
    run_config(cfg, StudyOptions(jobs=1), games=200, seed=1, out=tmp_path / "r")
    before = tree(tmp_path / "r")
    with pytest.raises(OutDirError, match="not empty"):
        run_config(cfg, StudyOptions(jobs=1), games=300, seed=2, out=tmp_path / "r")
    assert tree(tmp_path / "r") == before
    r = invoke("sweep", CLASSIC, "--vary", "players=2,3", *RUN, "--out", str(tmp_path / "s"))
    assert r.exit_code == 0, r.output
    cells = tree(tmp_path / "s" / "runs")
    assert_one_line_error(invoke("sweep", CLASSIC, "--vary", "players=2,3", "--games", "400",
                                 "-q", "--out", str(tmp_path / "s")), "not empty", "--resume")
    r = invoke("sweep", CLASSIC, "--vary", "players=2,3", "--games", "400", "--jobs", "1",
               "-q", "--reuse", "--out", str(tmp_path / "s"))
    assert_one_line_error(r, "not empty", "--force")  # --reuse finds other games
    assert tree(tmp_path / "s" / "runs") == cells


# --- 2. one writer per out dir --------------------------------------------------------
def test_second_run_on_a_locked_out_dir_fails_at_once(tmp_path):
    out = tmp_path / "o"
    holder = hold_lock(out)
    try:
        t = time.monotonic()
        r = invoke("run", CLASSIC, *RUN, "--out", str(out), "--force")
        # the holder never lets go: a run that waited for the lock would hang, not be slow
        assert time.monotonic() - t < 300
        assert_one_line_error(r, "in use", f"pid {holder.pid}", socket.gethostname())
        with pytest.raises(OutDirBusyError, match=f"pid {holder.pid}"):
            run_simulation(load_config("classic"), games=10, seed=1, out=out, progress=False)
        assert os.listdir(out) == [LOCK_NAME]
    finally:
        release(holder)
    assert not out.exists()  # the holder created it for its lock only
    assert invoke("run", CLASSIC, *RUN, "--out", str(out)).exit_code == 0
    assert not (out / LOCK_NAME).exists()  # released with the run


def test_compare_and_sweep_lock_their_out_dir_and_cells(tmp_path):
    study = tmp_path / "c"
    holder = hold_lock(study)
    try:
        assert_one_line_error(invoke("compare", "classic", "stacking", *RUN, "--out",
                                     str(study)), "in use", f"pid {holder.pid}")
        assert_one_line_error(invoke("sweep", "classic", "--vary", "players=2,3", *RUN,
                                     "--out", str(study)), "in use", f"pid {holder.pid}")
    finally:
        release(holder)
    cell = tmp_path / "s" / "runs" / "players-3"
    holder = hold_lock(cell)
    try:
        assert_one_line_error(invoke("sweep", "classic", "--vary", "players=2,3", *RUN,
                                     "--resume", "--out", str(tmp_path / "s")),
                              "in use", str(cell))
    finally:
        release(holder)


def test_stale_lock_is_taken_over_with_a_warning(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    pid = dead_pid()
    (out / LOCK_NAME).write_text(json.dumps({"pid": pid, "host": socket.gethostname()}))
    r = invoke("run", CLASSIC, *RUN, "--out", str(out))
    assert r.exit_code == 0, r.output
    assert f"taking over the lock of {out} left by pid {pid}" in r.stderr
    assert not (out / LOCK_NAME).exists()


def test_free_lock_of_a_live_or_remote_holder_is_refused(tmp_path):
    """A free flock naming a live pid (or another host) is not provably stale: one line."""
    out = tmp_path / "o"
    out.mkdir()
    for holder in ({"pid": os.getpid(), "host": "elsewhere"},
                   {"pid": os.getppid(), "host": socket.gethostname()}):
        (out / LOCK_NAME).write_text(json.dumps(holder))
        assert_one_line_error(invoke("run", CLASSIC, *RUN, "--out", str(out)),
                              f"pid {holder['pid']} on {holder['host']}", "delete")
    assert os.listdir(out) == [LOCK_NAME]


def test_lock_is_reentrant_in_its_thread(tmp_path):
    with lock_out_dir(tmp_path / "o"):
        with lock_out_dir(tmp_path / "o"):
            run_simulation(load_config("classic"), games=10, seed=1, jobs=1,
                           out=tmp_path / "o", progress=False)
        assert (tmp_path / "o" / LOCK_NAME).is_file()
    assert not (tmp_path / "o" / LOCK_NAME).exists()


# --- 3. --force clears only a run, and only what the run wrote -------------------------
def test_force_keeps_foreign_files(tmp_path):
    """The issue's case: D holds no run manifest, so --force refuses and D/records/f stays."""
    d = tmp_path / "D"
    (d / "records").mkdir(parents=True)
    (d / "records" / "f").write_text("x\n")
    r = invoke("run", CLASSIC, "--games", "2000", "--out", str(d), "--force", "-q")
    assert_one_line_error(r, "no run.json", "another --out")
    assert_one_line_error(invoke("run", CLASSIC, *RUN, "--out", str(d)), "no run.json")
    assert tree(d) == {"records/f": b"x\n"}


def test_force_clears_only_what_the_run_wrote(tmp_path):
    d = tmp_path / "D"
    assert invoke("run", CLASSIC, *RUN, "--records", "--out", str(d)).exit_code == 0
    manifest = json.loads((d / "run.json").read_text())
    assert {"report.html", "report.md", "turns.svg"} <= set(manifest["outputs"])
    mine = {"notes.txt": b"n", "records/mine.parquet": b"m", "chunks/keep": b"k",
            "extra.png": b"p"}
    for name, data in mine.items():
        (d / name).write_bytes(data)
    r = invoke("run", CLASSIC, "--games", "200", "--seed", "5", "--jobs", "1", "-q",
               "--no-report", "--force", "--out", str(d))
    assert r.exit_code == 0, r.output
    files = tree(d)
    assert all(files[name] == data for name, data in mine.items())
    assert sorted(set(files) - set(mine)) == ["aggregates.npz", "chunks/chunk-000000.npz",
                                              "run.json", "summary.json"]


def test_force_no_report_removes_the_old_report(tmp_path):
    d = tmp_path / "D"
    assert invoke("run", CLASSIC, *RUN, "--out", str(d)).exit_code == 0
    assert (d / "report.html").is_file() and (d / "turns.svg").is_file()
    r = invoke("run", CLASSIC, "--games", "200", *RUN[2:], "--force", "--no-report",
               "--out", str(d))
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in d.iterdir()) == ["aggregates.npz", "chunks", "run.json",
                                                   "summary.json"]


# --- 5. --out '' ----------------------------------------------------------------------
@pytest.mark.parametrize("command", [["run", CLASSIC], ["compare", "classic", "stacking"],
                                     ["sweep", "classic", "--vary", "players=2,3"]])
def test_empty_out_is_an_error(tmp_path, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    assert_one_line_error(invoke(*command, *RUN, "--out", ""), "--out", "empty")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(BadOptionError, match="empty"):
        run_simulation(load_config("classic"), games=10, seed=1, out="", progress=False)


# --- 6. names are never paths ---------------------------------------------------------
HOSTILE_NAMES = ["/abs/path", "../../../x", "..", "a/../../b", "~", "-x-"]


def test_config_name_cannot_escape_runs(tmp_path, monkeypatch):
    """Default run dirs, compare and sweep cells: slugs of the name, all under runs/."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    configs = []
    for i, name in enumerate(HOSTILE_NAMES):
        configs.append(work / f"hostile{i}.yaml")
        configs[-1].write_text(f"extends: classic\nname: {json.dumps(name)}\n")
        assert invoke("run", str(configs[-1]), *RUN, "--no-report", "--seed", str(i)
                      ).exit_code == 0
    assert invoke("compare", str(configs[0]), str(configs[1]), *RUN).exit_code == 0
    names = ",".join(json.dumps(n) for n in HOSTILE_NAMES)
    assert invoke("sweep", str(configs[0]), "--vary", f"name={names}", *RUN).exit_code == 0
    made = list(tmp_path.rglob("summary.json"))
    assert len(made) == 2 * len(HOSTILE_NAMES) + 2
    for p in made:
        rel = p.relative_to(work / "runs")  # raises if outside runs/
        assert all(part and part[0] not in "-." for part in rel.parts), rel
    assert [p.name for p in tmp_path.iterdir()] == ["work"]


# --- 7. broken run dirs as input ------------------------------------------------------
@pytest.mark.parametrize("content", ["[1]", "{}", '{"seed": "x"}', "not json", "\xff",
                                     "outputs"])
def test_resume_or_force_on_a_broken_manifest_is_one_line(tmp_path, content):
    d = tmp_path / "D"
    assert invoke("run", CLASSIC, *RUN, "--out", str(d)).exit_code == 0
    victim = tmp_path / "victim"
    victim.write_text("keep")
    if content == "outputs":  # a manifest pointing --force outside the run dir
        m = json.loads((d / "run.json").read_text())
        content = json.dumps({**m, "outputs": ["../victim"]})
    (d / "run.json").write_bytes(content.encode("utf-8", "surrogateescape")
                                 if content != "\xff" else b"\xff\xfe")
    before = tree(d)
    for flag in ("--resume", "--force"):
        assert_one_line_error(invoke("run", CLASSIC, *RUN, "--out", str(d), flag),
                              "run.json", "not a unosim run manifest")
    assert tree(d) == before and victim.read_text() == "keep"


def _broken(tmp_path: Path, damage: str) -> Path:
    d = tmp_path / damage
    assert invoke("run", CLASSIC, *RUN, "--no-report", "--out", str(d)).exit_code == 0
    npz = d / "aggregates.npz"
    if damage == "summary_list":
        (d / "summary.json").write_text("[1]")
    elif damage == "summary_seed":
        s = json.loads((d / "summary.json").read_text())
        (d / "summary.json").write_text(json.dumps({**s, "seed": [1]}))
    elif damage == "truncated":
        npz.write_bytes(npz.read_bytes()[:5000])
    elif damage == "shape":
        z = dict(np.load(npz))
        z["wins_pos"] = z["wins_pos"][:2]
        np.savez(npz, **z)
    elif damage == "floats":
        z = dict(np.load(npz))
        z["turns_hist"] = z["turns_hist"].astype(float)
        np.savez(npz, **z)
    elif damage == "missing":
        z = dict(np.load(npz))
        del z["counts"]
        np.savez(npz, **z)
    return d


@pytest.mark.parametrize("damage", ["summary_list", "summary_seed", "truncated", "shape",
                                    "floats", "missing"])
def test_compare_rejects_a_broken_run_dir(tmp_path, damage):
    d = _broken(tmp_path, damage)
    with pytest.raises(ValueError):
        load_run(d)
    assert_one_line_error(invoke("compare", str(d), "classic", *RUN, "--out",
                                 str(tmp_path / "c")), str(d))
    assert not (tmp_path / "c").exists()


def test_reuse_of_a_broken_cell_warns_and_refuses_to_overwrite(tmp_path):
    out = tmp_path / "c"
    assert invoke("compare", "classic", "stacking", *RUN, "--out", str(out)).exit_code == 0
    (out / "runs" / "classic" / "summary.json").write_text("[1]")
    before = tree(out / "runs")
    r = invoke("compare", "classic", "stacking", *RUN, "--out", str(out), "--reuse")
    warning, error = r.stderr.strip().splitlines()
    assert r.exit_code == 2 and "cannot reuse" in warning
    assert "not empty" in error and "--resume" in error
    assert tree(out / "runs") == before
    r = invoke("compare", "classic", "stacking", *RUN, "--out", str(out), "--reuse", "--resume")
    assert r.exit_code == 0, r.output  # rebuilt from its verified chunks
    assert load_run(out / "runs" / "classic").games == 300


# --- 8. reports are written atomically ------------------------------------------------
def test_atomic_write_keeps_the_old_file_on_failure(tmp_path):
    path = tmp_path / "f.txt"
    path.write_text("old")

    def fail(f):
        f.write(b"half")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left") as info:
        atomic_write(path, fail)
    assert info.value.filename == str(path)
    assert path.read_text() == "old" and os.listdir(tmp_path) == ["f.txt"]


def _write_with_limit(args: list[str], old: dict[str, bytes], cwd: Path
                      ) -> subprocess.CompletedProcess:
    """``unosim ARGS`` under a file-size limit that only the HTML pages exceed."""
    limit = max(len(v) for k, v in old.items() if not k.endswith(".html")) + 10_000
    assert limit < max(len(v) for k, v in old.items() if k.endswith(".html"))

    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # fail with EFBIG, not a signal
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run([sys.executable, "-m", "unosim", *args], capture_output=True,
                          text=True, cwd=cwd, preexec_fn=apply, timeout=300)


def _results(files: dict[str, bytes]) -> dict[str, bytes]:
    """Everything but the manifests (which record each invocation's timings)."""
    return {k: v for k, v in files.items() if not k.endswith("run.json")}


@pytest.mark.slow  # two runs and reports, 10-17 s
def test_report_write_failure_keeps_the_old_report(tmp_path):
    """A file-size limit hit while writing report.html: one line, the old report whole."""
    d = tmp_path / "D"
    args = ["run", CLASSIC, "--games", "2000", "--jobs", "1", "-q", "--out", str(d)]
    assert invoke(*args).exit_code == 0
    old = tree(d)
    proc = _write_with_limit([*args, "--resume"], old, tmp_path)
    assert proc.returncode == 2, proc.stderr
    # the first HTML page written (an example game's viewer, then report.html) fails
    (line,) = proc.stderr.strip().splitlines()
    assert re.fullmatch(rf"unosim: error: {re.escape(str(d))}/(example-\S+|report)\.html: "
                        "File too large", line), line
    assert _results(tree(d)) == _results(old)  # the old report and its pages whole


@pytest.mark.slow  # a study run, 10-17 s
def test_study_write_failure_leaves_no_truncated_file(tmp_path):
    out = tmp_path / "c"
    args = ["compare", "classic", "stacking", *RUN, "--out", str(out)]
    assert invoke(*args).exit_code == 0
    old = tree(out)
    proc = _write_with_limit([*args, "--resume"], old, tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"unosim: error: {out}/compare.html: File too large"]
    assert _results(tree(out)) == _results(old)


def test_ctrl_c_during_an_npz_write_stays_an_interrupt(tmp_path):
    """zipfile's cleanup turns a Ctrl-C inside np.savez into a ValueError; the write
    must give the interrupt back (exit 130, not a traceback) and leave no temp file."""
    import zipfile

    def interrupted(f):
        with zipfile.ZipFile(f, "w") as z, z.open("a.npy", "w") as member:
            member.write(b"x")
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_write(tmp_path / "chunk.npz", interrupted)
    assert list(tmp_path.iterdir()) == []
