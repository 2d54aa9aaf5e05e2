"""The standing battery of issue 10: every bad input and fault, through the real CLI.

Each case runs ``python -m unosim`` in a subprocess (`hostile.harness`: cwd a
folder of its own, its own process group, memory capped) and checks what a
careful user would expect: the exit status (2 for errors, 0 for success, 130
for Ctrl-C), one ``unosim: error:`` (or ``unosim: warning:``) line on stderr,
no traceback, bounded peak memory and time, no process left behind, and no
file changed outside the command's out dir. The selected cases all start when
the first test asks for the battery (a thread pool); each test then collects
its case's verdict, so the battery takes about as long as its slowest case
once the two cores are shared out.
"""

from __future__ import annotations

import contextlib
import csv
import itertools
import json
import re
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from hostile.harness import (
    TIMEOUT,
    Proc,
    assert_same,
    chunks,
    cli,
    error_line,
    expect_error,
    expect_interrupted,
    expect_ok,
    expect_ok_or_error,
    expect_sane,
    snapshot,
    stamps,
    wait_for,
)

WORKERS = 6  # cases at a time: most wait on start-up, signals or timeouts
BIG = str(10**6)  # games of a run that is interrupted long before it ends
RUN = ("-q", "--jobs", "1", "--no-report")  # a cheap `unosim run`
STUDY = ("-q", "--jobs", "1")  # a cheap `unosim compare` or `unosim sweep`
# A match to 1,500 points lasts dozens of rounds. A compare or sweep chunks by
# 1,000 games (its smallest chunk): STUDY_GAMES make eight chunks a cell, and
# Ctrl-C follows the first one saved, so seven eighths of the work (seconds of
# CPU) is still to do when it lands, however busy the machine.
SLOW = "extends: match.yaml\nname: slow\ntarget: 1500\n"
STUDY_GAMES = "8000"
SLOW_3P = "extends: slow.yaml\nname: slow3\nplayers: 3\n"


# --- the battery -----------------------------------------------------------------------
@dataclass
class Case:
    """One case's folder: ``root`` must not change except the out dir; commands run in ``cwd``.

    ``cwd`` sits two levels down, so a path that climbs out of ``cwd/runs`` with
    ``../../..`` still lands in ``root``, where the snapshot sees it.
    """

    root: Path
    battery: Battery
    verdicts: dict[str, BaseException | None] = field(default_factory=dict)

    @property
    def cwd(self) -> Path:
        return self.root / "home" / "work"

    def write(self, name: str, text: str | bytes) -> None:
        path = self.cwd / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text if isinstance(text, bytes) else text.encode())

    @contextlib.contextmanager
    def unchanged(self, *outs: str) -> Iterator[None]:
        """Nothing in the case's folder may change but the out dirs ``outs`` (under cwd)."""
        skip = [self.cwd / o for o in outs]
        before = snapshot(self.root, *skip)
        yield
        assert_same(before, snapshot(self.root, *skip), f"{self.root} outside {outs}")

    @contextlib.contextmanager
    def check(self, name: str) -> Iterator[None]:
        """The verdict of case ``name`` of a function that checks several."""
        try:
            yield
        except Exception as exc:  # the test of that name re-raises it
            self.verdicts[name] = exc
        else:
            self.verdicts[name] = None


CaseFunc = Callable[[Case], None]
CASES: dict[str, CaseFunc] = {}  # case name -> the function that checks it (maybe several)


def case(*names: str) -> Callable[[CaseFunc], CaseFunc]:
    def register(fn: CaseFunc) -> CaseFunc:
        for name in names:
            CASES[name] = fn
        return fn
    return register


class Battery:
    """Every case function started at once on a thread pool; verdicts by case name."""

    def __init__(self, root: Path, names: Iterable[str]) -> None:
        self.root = root
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(WORKERS)
        self._futures: dict[CaseFunc, Future[Case]] = {}
        for name in names:
            fn = CASES[name]
            if fn not in self._futures:
                self._futures[fn] = self._pool.submit(self._run, fn, root / name)

    def _run(self, fn: CaseFunc, root: Path) -> Case:
        c = Case(root, self)
        c.cwd.mkdir(parents=True)
        try:
            fn(c)
        except Exception as exc:  # every name it checks but gave no verdict for fails so
            for name, other in CASES.items():
                if other is fn:
                    c.verdicts.setdefault(name, exc)
        return c

    def verdict(self, name: str) -> BaseException | None:
        return self._futures[CASES[name]].result().verdicts.get(name)

    def finished_run(self, to: Path) -> None:
        """Copy a finished run dir with its report (made once, shared) to ``to``."""
        pristine = self.root / "pristine-run"
        with self._lock:
            if not pristine.is_dir():  # made aside, so a failed run is retried, never shared
                made = self.root / "pristine-run.tmp"
                shutil.rmtree(made, ignore_errors=True)
                expect_ok(cli(self.root, "run", "classic", "--games", "500", "--seed", "2",
                              "--out", str(made), *STUDY))
                made.rename(pristine)
        shutil.copytree(pristine, to)

    def close(self) -> None:
        self._pool.shutdown(wait=True)


@pytest.fixture(scope="module")
def battery(request: pytest.FixtureRequest,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Battery]:
    """The cases of the selected tests (``-k`` picks a few), all started at once."""
    names = [item.callspec.params["name"] for item in request.session.items
             if isinstance(item, pytest.Function) and item.module is request.module]
    b = Battery(tmp_path_factory.mktemp("hostile"), names)
    yield b
    b.close()


# --- data loss 1: a run directory given as input is read-only -------------------------
@case("compare_input_run_is_read_only", "compare_force_input_run_is_read_only")
def _compare_inputs(c: Case) -> None:
    # The reproduction: a compare into C that reads the run C/runs/classic.
    inputs = c.cwd / "C" / "runs" / "classic"
    c.battery.finished_run(inputs)
    for name, extra in (("compare_input_run_is_read_only", ()),
                        ("compare_force_input_run_is_read_only", ("--force",))):
        with c.check(name):
            before = snapshot(inputs)
            with c.unchanged("C"):
                r = cli(c.cwd, "compare", "C/runs/classic", "classic", "--games", "300",
                        "--seed", "4", "--out", "C", *STUDY, *extra)
            assert_same(before, snapshot(inputs), "the input run C/runs/classic")
            expect_ok_or_error(r)


# --- data loss 2: an exclusive lock on the out dir --------------------------------------
@case("second_run_on_a_locked_out_dir", "force_on_a_locked_out_dir", "ctrl_c_exits_130")
def _locked_out_dir(c: Case) -> None:
    holder = Proc(c.cwd, ("run", "match", "--games", BIG, "--chunk-size", "1000", "--out", "D",
                          *RUN))
    rivals: dict[str, Proc] = {}
    try:
        wait_for("a chunk", lambda: bool(chunks(c.cwd / "D")), holder)
        with c.unchanged("D"):
            for name, extra in (("second_run_on_a_locked_out_dir", ()),
                                ("force_on_a_locked_out_dir", ("--force",))):
                rivals[name] = Proc(c.cwd, ("run", "classic", "--games", "200", "--out", "D",
                                            *RUN, *extra))
            for name, rival in rivals.items():
                with c.check(name):
                    expect_error(rival.wait(), str(holder.pid))
        with c.check("ctrl_c_exits_130"):
            holder.signal(signal.SIGINT)
            expect_interrupted(holder.wait(), "--resume")
    finally:
        for p in (holder, *rivals.values()):
            p.stop()


@case("stale_lock_is_taken_over")
def _stale_lock(c: Case) -> None:
    c.write("slow.yaml", SLOW)
    args = ("run", "slow.yaml", "--games", "800", "--chunk-size", "20", "--out", "D", *RUN)
    holder = Proc(c.cwd, args)
    try:
        wait_for("a chunk", lambda: bool(chunks(c.cwd / "D")), holder)
        holder.signal(signal.SIGKILL)  # dies holding the lock: nothing can clean up
    finally:
        holder.stop()
    with c.unchanged("D"):
        expect_ok(cli(c.cwd, *args, "--resume"), warning="lock")


# --- data loss 3: --force clears only what a run wrote --------------------------------
@case("force_keeps_foreign_files_of_a_non_run_dir")
def _force_non_run(c: Case) -> None:
    c.write("D/records/f", "x\n")
    foreign = snapshot(c.cwd / "D" / "records")
    with c.unchanged("D"):
        r = cli(c.cwd, "run", "classic", "--games", "2000", "--out", "D", "--force", *RUN)
    assert_same(foreign, snapshot(c.cwd / "D" / "records"), "D/records")
    expect_ok_or_error(r)


@case("force_keeps_foreign_files_of_a_run_dir")
def _force_run(c: Case) -> None:
    c.battery.finished_run(c.cwd / "D")
    c.write("D/notes.txt", "mine\n")
    c.write("D/records/f", "x\n")  # this run wrote no records: the folder is not its own
    foreign = {p: snapshot(c.cwd / "D" / p) for p in ("notes.txt", "records")}
    with c.unchanged("D"):
        expect_ok(cli(c.cwd, "run", "classic", "--games", "300", "--out", "D", "--force", *RUN))
    for p, before in foreign.items():
        assert_same(before, snapshot(c.cwd / "D" / p), f"D/{p}")
    assert json.loads((c.cwd / "D" / "summary.json").read_text())["games"] == 300


# --- data loss 4: compare and sweep resume exactly ---------------------------------------
def _interrupt_then_resume(c: Case, *args: str) -> None:
    """Ctrl-C once a chunk is saved, ``--resume``, and compare with an uninterrupted run."""
    c.write("slow.yaml", SLOW)
    c.write("slow3.yaml", SLOW_3P)
    study = (*args, "--games", STUDY_GAMES, "--seed", "5", *STUDY)
    p = Proc(c.cwd, (*study, "--out", "I"))
    try:
        wait_for("a saved chunk", lambda: bool(chunks(c.cwd / "I")), p)
        p.signal(signal.SIGINT)
        r = p.wait()
    finally:
        p.stop()
    expect_interrupted(r, "--resume")
    saved = stamps(chunks(c.cwd / "I"))
    assert 0 < len(saved) < 16, f"{len(saved)} of 16 chunks saved: {r}"
    with c.unchanged("I"):
        expect_ok(cli(c.cwd, *study, "--out", "I", "--resume"))
    assert stamps(saved) == saved, "saved chunks were recomputed or removed, not reused"
    expect_ok(cli(c.cwd, *study, "--out", "F"))
    resumed, fresh = ([f.relative_to(c.cwd / d) for f in sorted((c.cwd / d).glob("runs/*/summary.json"))]
                      for d in ("I", "F"))
    assert resumed == fresh and len(fresh) == 2, (resumed, fresh)
    for rel in fresh:
        assert (c.cwd / "I" / rel).read_bytes() == (c.cwd / "F" / rel).read_bytes(), rel


@case("compare_interrupted_then_resume")
def _compare_resume(c: Case) -> None:
    _interrupt_then_resume(c, "compare", "slow.yaml", "slow3.yaml")


@case("sweep_interrupted_then_resume")
def _sweep_resume(c: Case) -> None:
    _interrupt_then_resume(c, "sweep", "slow.yaml", "--vary", "players=4,3")


# --- data loss 5: --out '' and a stale report ------------------------------------------
@case("out_empty_string")
def _out_empty(c: Case) -> None:
    with c.unchanged():
        expect_error(cli(c.cwd, "run", "classic", "--games", "200", "--out", "", *RUN))


@case("force_no_report_removes_the_old_report")
def _stale_report(c: Case) -> None:
    c.battery.finished_run(c.cwd / "D")
    assert (c.cwd / "D" / "report.html").is_file()
    with c.unchanged("D"):
        expect_ok(cli(c.cwd, "run", "classic", "--games", "300", "--out", "D", "--force", *RUN))
    left = sorted(p.name for p in (c.cwd / "D").iterdir()
                  if p.name.startswith("report") or p.suffix == ".png")
    assert not left, f"an old report beside the new summary: {left}"


# --- paths and names -------------------------------------------------------------------
def _stays_under_runs(c: Case, name: str, *args: str) -> None:
    """A config named ``name`` writes only under cwd/runs, into slug-named folders."""
    c.write("cfg.yaml", f"extends: classic.yaml\nname: {json.dumps(name)}\n")
    with c.unchanged("runs"):
        expect_ok(cli(c.cwd, *args, "--games", "200", "-q", "--jobs", "1"))
    made = [p for p in (c.cwd / "runs").rglob("*") if p.is_dir() and p.name != "chunks"]
    assert made, "nothing written under runs/"
    for p in made:
        assert re.fullmatch(r"[A-Za-z0-9_-]+", p.name), f"not a slug: {p}"


@case("run_name_absolute_path")
def _name_abs(c: Case) -> None:
    _stays_under_runs(c, str(c.root / "abs"), "run", "cfg.yaml", "--no-report")


@case("run_name_parent_path")
def _name_parent(c: Case) -> None:
    _stays_under_runs(c, "../../../x", "run", "cfg.yaml", "--no-report")


@case("compare_name_parent_path")
def _compare_name_parent(c: Case) -> None:
    _stays_under_runs(c, "../../../x", "compare", "cfg.yaml", "classic")


def _bad_name(c: Case, yaml_name: str) -> None:
    c.write("cfg.yaml", f"extends: classic.yaml\nname: {yaml_name}\n")
    with c.unchanged("D"):
        expect_error(cli(c.cwd, "run", "cfg.yaml", "--games", "200", "--out", "D", *RUN),
                     "name")


@case("name_with_nul")
def _name_nul(c: Case) -> None:
    _bad_name(c, '"run\\0name"')


@case("name_with_control_character")
def _name_control(c: Case) -> None:
    _bad_name(c, '"run\\e[2J\\e[31mname"')  # ESC: clears a terminal that prints it


# --- hostile or broken input -------------------------------------------------------------
def alias_bomb(kind: str, levels: int = 9, width: int = 9) -> str:
    """``levels`` anchors, each ``width`` aliases of the one before: width**levels leaves.

    >>> len(alias_bomb("list")), len(alias_bomb("mapping"))
    (346, 742)
    """
    def node(item: Callable[[int], str]) -> str:
        items = [item(j) for j in range(width)]
        return f"[{','.join(items)}]" if kind == "list" else f"{{{', '.join(items)}}}"

    def entry(j: int, value: str) -> str:
        return value if kind == "list" else f"k{j}: {value}"

    names = "abcdefghijklmnopqrstuvwxyz"[:levels]
    leaf = node(lambda j: entry(j, '"x"'))
    lines = ["extends: classic.yaml", f"a: &a {leaf}"]
    lines += [f"{n}: &{n} {node(lambda j, p=p: entry(j, '*' + p))}"
              for p, n in itertools.pairwise(names)]
    return "\n".join(lines) + "\n"


def _bad_config(c: Case, text: str | bytes, *words: str, named: str = "cfg.yaml") -> str:
    """``unosim run cfg.yaml`` holding ``text``: a quick one-line error naming file ``named``."""
    c.write("cfg.yaml", text)
    with c.unchanged("D"):
        r = cli(c.cwd, "run", "cfg.yaml", "--games", "200", "--out", "D", *RUN)
    return expect_error(r, named, *words)


@case("list_alias_bomb")
def _list_bomb(c: Case) -> None:
    _bad_config(c, alias_bomb("list"))


@case("mapping_alias_bomb")
def _mapping_bomb(c: Case) -> None:
    _bad_config(c, alias_bomb("mapping"))


@case("duplicate_key")
def _duplicate_key(c: Case) -> None:
    text = "extends: classic.yaml\nname: dup\nplayers: 4\nhand_size: 7\nplayers: 5\n"
    line = _bad_config(c, text, "players")
    assert re.search(r"\b3\b", line) and re.search(r"\b5\b", line), f"lines 3 and 5: {line}"


@case("non_utf8_file")
def _latin1(c: Case) -> None:
    _bad_config(c, "extends: classic.yaml\nname: café\n".encode("latin-1"))


@case("utf16_file")
def _utf16(c: Case) -> None:
    _bad_config(c, "extends: classic.yaml\nname: utf16\n".encode("utf-16"))


@case("config_over_1mb")
def _big_config(c: Case) -> None:
    _bad_config(c, "extends: classic.yaml\n" + ("# padding" + " " * 90 + "\n") * 20_000)


def _huge_setting(c: Case, key: str) -> None:
    _bad_config(c, f"extends: match.yaml\n{key}: 100000000000000000000\n", key)


@case("target_1e20")
def _huge_target(c: Case) -> None:
    _huge_setting(c, "target")


@case("max_turns_1e20")
def _huge_turns(c: Case) -> None:
    _huge_setting(c, "max_turns")


@case("max_rounds_1e20")
def _huge_rounds(c: Case) -> None:
    _huge_setting(c, "max_rounds")


@case("games_1e20")
def _huge_games(c: Case) -> None:
    with c.unchanged("D"):
        expect_error(cli(c.cwd, "run", "classic", "--games", "100000000000000000000",
                         "--out", "D", *RUN), "games")


@case("play_game_1e20")
def _huge_game(c: Case) -> None:
    with c.unchanged():
        expect_error(cli(c.cwd, "play", "classic", "--game", "100000000000000000000"), "game")


@case("sweep_vary_huge_range")
def _huge_range(c: Case) -> None:
    with c.unchanged("S"):
        expect_error(cli(c.cwd, "sweep", "classic", "--vary", "players=2..100000000000",
                         "--games", "200", "--out", "S", *STUDY), "players")


@case("run_json_holds_a_list")
def _run_json_list(c: Case) -> None:
    c.write("D/run.json", "[1]\n")
    with c.unchanged("D"):
        r = cli(c.cwd, "run", "classic", "--games", "200", "--out", "D", "--resume", *RUN)
    if expect_ok_or_error(r, "run.json", warning="run.json"):
        assert json.loads((c.cwd / "D" / "summary.json").read_text())["games"] == 200


def _damaged_input(c: Case, damage: Callable[[Path], None], *words: str) -> None:
    """``compare`` of a damaged run dir R: one line (or a warning), and R untouched."""
    c.battery.finished_run(c.cwd / "R")
    damage(c.cwd / "R")
    with c.unchanged("C"):
        r = cli(c.cwd, "compare", "R", "classic", "--games", "200", "--out", "C", *STUDY)
    expect_ok_or_error(r, *words, warning="R")


def _rewrite_arrays(run: Path, change: Callable[[np.ndarray], np.ndarray]) -> None:
    with np.load(run / "aggregates.npz") as z:
        arrays = {k: change(z[k]) for k in z.files}
    np.savez(run / "aggregates.npz", **arrays)


@case("compare_summary_not_an_object")
def _summary_list(c: Case) -> None:
    _damaged_input(c, lambda run: (run / "summary.json").write_text("[]\n"), "summary.json")


@case("compare_aggregates_file_truncated")
def _npz_cut(c: Case) -> None:
    def cut(run: Path) -> None:
        npz = run / "aggregates.npz"
        npz.write_bytes(npz.read_bytes()[: npz.stat().st_size // 2])

    _damaged_input(c, cut, "aggregates.npz")


@case("compare_aggregates_arrays_truncated")
def _arrays_cut(c: Case) -> None:
    _damaged_input(c, lambda run: _rewrite_arrays(run, lambda a: a[: len(a) // 2]),
                   "aggregates.npz")


@case("compare_aggregates_wrong_shape")
def _arrays_reshaped(c: Case) -> None:
    _damaged_input(c, lambda run: _rewrite_arrays(run, lambda a: a.reshape(1, -1)),
                   "aggregates.npz")


@case("report_file_size_limit")
def _report_fsize(c: Case) -> None:
    # 120 KB: room for the chunks, aggregates (~95 KB), summary, charts and report.html
    # (SVG charts: ~60 KB), not for the longest example round's page (~160 KB).
    with c.unchanged("D"):
        r = cli(c.cwd, "run", "classic", "--games", "200", "--out", "D", "-q", "--jobs", "1",
                fsize=120_000)
    expect_error(r, seconds=TIMEOUT)  # after the run: as slow as the run
    left = [p.name for p in (c.cwd / "D").iterdir() if ".tmp-" in p.name]
    assert not left, f"a truncated report file left behind: {left}"


@case("dask_scheduler_bad_address")
def _dask_bad_address(c: Case) -> None:
    with c.unchanged("D"):
        expect_error(cli(c.cwd, "run", "classic", "--games", "200", "--out", "D", *RUN,
                         "--backend", "dask", "--scheduler", "foo:bar"), "foo:bar")


@case("dask_scheduler_not_dask")
def _dask_http(c: Case) -> None:
    """A scheduler address that answers, but HTTP: the handshake times out too."""
    (c.root / "served").mkdir()
    server = subprocess.Popen([sys.executable, "-u", "-m", "http.server", "0", "--bind",
                               "127.0.0.1", "--directory", str(c.root / "served")],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert server.stdout is not None
        banner = server.stdout.readline()  # Serving HTTP on 127.0.0.1 port N (...)
        port = re.search(r"port (\d+)", banner)
        assert port, banner
        address = f"tcp://127.0.0.1:{port[1]}"
        with c.unchanged("D"):
            expect_error(cli(c.cwd, "run", "classic", "--games", "200", "--out", "D", *RUN,
                             "--backend", "dask", "--scheduler", address), address)
    finally:
        server.terminate()
        server.wait()


def _varied(c: Case, key: str, values: tuple[str, str]) -> None:
    """``--vary KEY=...`` on a run option: refused, or every cell really differs."""
    with c.unchanged("S"):
        r = cli(c.cwd, "sweep", "classic", "--vary", f"{key}={','.join(values)}",
                "--games", "200", "--out", "S", *STUDY)
    if expect_ok_or_error(r, key):
        with open(c.cwd / "S" / "sweep.csv", newline="") as f:
            got = sorted(row[key] for row in csv.DictReader(f))
        assert got == sorted(values), f"cells ran with {key} {got}, not {values}"


@case("sweep_vary_seed")
def _vary_seed(c: Case) -> None:
    _varied(c, "seed", ("1", "2"))


@case("sweep_vary_games")
def _vary_games(c: Case) -> None:
    _varied(c, "games", ("100", "200"))


@case("sigterm_stops_workers")
def _sigterm(c: Case) -> None:
    p = Proc(c.cwd, ("run", "match", "--games", BIG, "--chunk-size", "1000", "--out", "D",
                     "-q", "--jobs", "2", "--no-report"))
    try:
        wait_for("a chunk", lambda: bool(chunks(c.cwd / "D")), p)
        p.signal(signal.SIGTERM, group=False)  # `kill PID`: the workers get nothing
        r = p.wait()
    finally:
        p.stop()
    expect_sane(r, TIMEOUT)  # no worker lingers
    if r.rc != -signal.SIGTERM:  # died of the signal, or handled it like Ctrl-C:
        assert r.rc in (130, 128 + signal.SIGTERM), str(r)
        error_line(r)


# --- handled well already: they must stay so -------------------------------------------
@case("unknown_key")
def _unknown_key(c: Case) -> None:
    _bad_config(c, "extends: classic.yaml\nplayrs: 4\n", "playrs")


@case("wrong_type")
def _wrong_type(c: Case) -> None:
    _bad_config(c, "extends: classic.yaml\nplayers: four\n", "players")


@case("impossible_deal")
def _impossible_deal(c: Case) -> None:
    _bad_config(c, "extends: classic.yaml\nplayers: 10\nhand_size: 12\n", "hand_size")


@case("extends_cycle")
def _extends_cycle(c: Case) -> None:
    c.write("b.yaml", "extends: cfg.yaml\nname: b\n")
    _bad_config(c, "extends: b.yaml\nname: a\n", "cycle")


@case("extends_traversal")
def _extends_traversal(c: Case) -> None:
    line = _bad_config(c, "extends: " + "../" * 20 + "etc/passwd\n", named="passwd")
    assert "root:" not in line, f"a system file's content in the message: {line}"


@case("python_object_tag")
def _python_tag(c: Case) -> None:
    """A tag that would run a command: never executed (the snapshot sees any file it made)."""
    _bad_config(c, 'extends: classic.yaml\nname: !!python/object/apply:os.system '
                   '["touch PWNED"]\n')
    assert not (c.cwd / "PWNED").exists()


@pytest.mark.parametrize("name", list(CASES))
def test_hostile(battery: Battery, name: str) -> None:
    error = battery.verdict(name)
    if error is not None:
        raise error
