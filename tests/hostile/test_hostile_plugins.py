"""Plug-ins under hostile code, through the real CLI (issue 20): one named case each.

A plug-in's code is the user's: whatever it does (raise, ``sys.exit``, print,
recurse, open a missing file, answer 10 MB) the command ends with one
``unosim: error: seat N (policy NAME): ...`` line and exit 2, on every backend,
in ``run``, ``league`` and ``play``; its prints never reach stdout; its source
is part of the run's identity; two files never share a module. Each case runs
``python -m unosim`` in a folder of its own (`hostile.harness`); the selected
cases start together on a small thread pool and each test collects its verdict.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from hostile.harness import TIMEOUT, Result, cli, expect_error, expect_ok, expect_sane, snapshot

pytestmark = pytest.mark.slow  # each case runs the real CLI, dask included

WORKERS = 4
RUN = ("-q", "--no-report", "--games", "60", "--chunk-size", "10")
HAS_DASK = importlib.util.find_spec("distributed") is not None

FIRST = "class P:\n    def choose(self, view, legal):\n        return legal[0]\n"
LAST = "class P:\n    def choose(self, view, legal):\n        return legal[-1]\n"
SOURCES = {
    "raises": "class P:\n    def choose(self, view, legal):\n"
              "        raise ValueError('plug-in trouble')\n",
    "color_raises": "class P:\n    def choose(self, view, legal):\n"
                    "        return ([a for a in legal if a.startswith('W')] or legal)[0]\n"
                    "    def color(self, view):\n        raise KeyError('hue')\n",
    "import_raises": "raise RuntimeError('broken at import')\n" + FIRST,
    "recurses": "class P:\n    def choose(self, view, legal):\n"
                "        return self.choose(view, legal)\n",
    "exits": "import sys\nclass P:\n    def choose(self, view, legal):\n        sys.exit(0)\n",
    "exits_in_color": "import sys\n" + FIRST + "    def color(self, view):\n        sys.exit()\n",
    "exits_at_import": "import sys\nsys.exit(3)\n" + FIRST,
    "opens_missing": "class P:\n    def choose(self, view, legal):\n"
                     "        return open('notes/plugin-data.txt').read()\n",
    "huge_answer": "class P:\n    def choose(self, view, legal):\n        return 'R' * 10_000_000\n",
    "huge_message": "class P:\n    def choose(self, view, legal):\n"
                    "        raise ValueError('y' * 10_000_000)\n",
    "lines": "class P:\n    def choose(self, view, legal):\n"
             "        raise ValueError('first\\nsecond\\r\\n\\x1b[2Jthird')\n",
    "prints": "import os, sys\nprint('plug-in says hello')\n"
              "class P:\n    def choose(self, view, legal):\n"
              "        print('thinking about', legal)\n        sys.stdout.flush()\n"
              "        os.write(1, b'raw bytes\\n')\n        return legal[0]\n",
    # a slow import: the other thread asks for the class while this one runs it
    "slow_import": "import math\nX = sum(math.sqrt(i) for i in range(300_000))\n" + FIRST,
}


def _seats(plugin: str, seat: int = 2, players: int = 4) -> str:
    names = ["random"] * players
    names[seat] = plugin
    return f"seats=[{', '.join(names)}]"


class Case:
    """A case's working folder with the plug-in files written into it."""

    def __init__(self, root: Path) -> None:
        self.cwd = root
        root.mkdir(parents=True)
        for name, text in SOURCES.items():
            (root / f"{name}.py").write_text(text)

    def write(self, name: str, text: str) -> str:
        path = self.cwd / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return name

    def unosim(self, *args: str, timeout: float = TIMEOUT) -> Result:
        return cli(self.cwd, *args, timeout=timeout)


CASES: dict[str, Callable[[Case], None]] = {}


def case(name: str) -> Callable[[Callable[[Case], None]], Callable[[Case], None]]:
    def register(fn: Callable[[Case], None]) -> Callable[[Case], None]:
        CASES[name] = fn
        return fn
    return register


def _plugin_error(r: Result, seat: int, plugin: str, *words: str,
                  seconds: float = TIMEOUT) -> str:
    """Exit 2 and one line ``seat N (policy NAME): ...`` naming ``words``, short."""
    line = expect_error(r, f"seat {seat} (policy {plugin})", *words, seconds=seconds)
    assert len(line) < 1000, line[:300]
    return line


BACKENDS = {"jobs1": ("--jobs", "1"), "threads": ("--jobs", "2", "--backend", "threads"),
            "loky": ("--jobs", "2", "--backend", "loky"),
            "dask": ("--jobs", "2", "--backend", "dask")}


def _run_fails(c: Case, module: str, backend: str, *words: str) -> str:
    """``unosim run`` with plug-in ``module.py:P`` at seat 2 fails on one line naming it."""
    r = c.unosim("run", "classic", *RUN, *BACKENDS[backend], "--out", "R",
                 "--set", _seats(f"{module}.py:P"))
    return _plugin_error(r, 2, f"{module}.py:P", *words)


def _play_fails(c: Case, module: str, *words: str, seed: int = 1) -> str:
    """``unosim play`` with plug-in ``module.py:P`` at seat 2 fails on one line naming it."""
    r = c.unosim("play", "classic", "--seed", str(seed), "--set", _seats(f"{module}.py:P"))
    return _plugin_error(r, 2, f"{module}.py:P", *words)


# --- the run's identity -------------------------------------------------------------
@case("plugin_edit_before_resume_is_refused")
def _edit_then_resume(c: Case) -> None:
    c.write("edited.py", FIRST)
    args = ("run", "classic", *RUN, "--jobs", "1", "--set", _seats("edited.py:P"), "--out", "R")
    expect_ok(c.unosim(*args))
    (sorted((c.cwd / "R" / "chunks").glob("chunk-*.npz"))[-1]).unlink()  # as if interrupted
    c.write("edited.py", LAST)
    before = snapshot(c.cwd / "R")
    expect_error(c.unosim(*args, "--resume"), "cannot resume", "plug-in edited.py:P",
                 "changed")
    assert snapshot(c.cwd / "R") == before


@case("plugin_edit_compare_reuse_does_not_keep_the_old_result")
def _edit_then_reuse(c: Case) -> None:
    c.write("edited.py", FIRST)
    args = ("compare", "classic", "stacking", "-q", "--jobs", "1", "--games", "60",
            "--set", _seats("edited.py:P"), "--out", "C")
    expect_ok(c.unosim(*args))
    old = json.loads((c.cwd / "C/runs/classic/summary.json").read_text())["config_hash"]
    c.write("edited.py", LAST)
    r = c.unosim(*args, "--reuse")
    expect_sane(r, TIMEOUT)
    if r.rc == 0:  # rerun with the new code, or ...
        new = json.loads((c.cwd / "C/runs/classic/summary.json").read_text())["config_hash"]
        assert new != old, "compare --reuse kept the result of the old plug-in"
    else:  # ... refused, touching nothing
        assert r.rc == 2, str(r)
        new = json.loads((c.cwd / "C/runs/classic/summary.json").read_text())["config_hash"]
        assert new == old


@case("plugin_files_never_share_a_module_name")
def _module_names(c: Case) -> None:
    # before: cx/y.py and cx_y.py both became unosim_plugin_cx_y_py, so seat 1
    # silently played cx/y.py's class; now it plays its own (which fails, saying so)
    c.write("cx/y.py", FIRST)
    c.write("cx_y.py", "class P:\n    def choose(self, view, legal):\n"
                       "        raise ValueError('the second file plays')\n")
    r = c.unosim("run", "classic", *RUN, "--jobs", "1", "--out", "R",
                 "--set", "seats=[cx/y.py:P, cx_y.py:P, random, random]")
    _plugin_error(r, 1, "cx_y.py:P", "the second file plays")


@case("plugin_threads_jobs_2_never_half_loaded")
def _threads(c: Case) -> None:
    for i in range(2):
        r = c.unosim("run", "classic", "-q", "--no-report", "--games", "200",
                     "--chunk-size", "10", "--jobs", "2", "--backend", "threads",
                     "--set", _seats("slow_import.py:P", 0), "--out", f"R{i}")
        expect_ok(r)


# --- sys.exit -----------------------------------------------------------------------
@case("plugin_sys_exit_in_choose_run")
def _exit_run(c: Case) -> None:
    _run_fails(c, "exits", "jobs1", "SystemExit")


@case("plugin_sys_exit_in_color_run_threads")
def _exit_color(c: Case) -> None:
    _run_fails(c, "exits_in_color", "threads", "SystemExit")


@case("plugin_sys_exit_at_import_run")
def _exit_import(c: Case) -> None:
    _run_fails(c, "exits_at_import", "jobs1", "failed to load", "SystemExit: 3")


@case("plugin_sys_exit_in_choose_play")
def _exit_play(c: Case) -> None:
    _play_fails(c, "exits", "SystemExit")


@case("plugin_sys_exit_at_import_play")
def _exit_import_play(c: Case) -> None:
    _play_fails(c, "exits_at_import", "SystemExit: 3")


# --- stdout is the CLI's ------------------------------------------------------------
@case("plugin_print_keeps_run_json_clean")
def _print_json(c: Case) -> None:
    r = c.unosim("run", "classic", *RUN, "--jobs", "1", "--format", "json", "--out", "R",
                 "--set", _seats("prints.py:P"))
    expect_sane(r, TIMEOUT)
    assert r.rc == 0, str(r)
    json.loads(r.stdout)  # nothing but the result
    assert "plug-in says hello" in r.stderr and "raw bytes" in r.stderr


@case("plugin_print_keeps_run_json_clean_threads")
def _print_json_threads(c: Case) -> None:
    r = c.unosim("run", "classic", *RUN, "--jobs", "2", "--backend", "threads",
                 "--format", "json", "--out", "R", "--set", _seats("prints.py:P"))
    expect_sane(r, TIMEOUT)
    assert r.rc == 0, str(r)
    json.loads(r.stdout)


@case("plugin_print_keeps_jsonl_trace_clean")
def _print_jsonl(c: Case) -> None:
    r = c.unosim("play", "classic", "--trace-format", "jsonl", "--set", _seats("prints.py:P"))
    expect_sane(r, TIMEOUT)
    assert r.rc == 0, str(r)
    lines = r.stdout.splitlines()
    assert lines and all(isinstance(json.loads(line), dict) for line in lines)
    assert "thinking about" in r.stderr


# --- exceptions: one line naming policy, seat and exception, on every backend ---------
RAISING = {"choose": ("raises", ["ValueError: plug-in trouble"]),
           "color": ("color_raises", ["KeyError: 'hue'"]),
           "import": ("import_raises", ["failed to load", "RuntimeError: broken at import"]),
           "recursion": ("recurses", ["RecursionError"])}
# every backend for choose, and each other place on two of them (dask starts slowly)
RUN_MATRIX = [*(("choose", b) for b in BACKENDS), ("color", "threads"), ("color", "loky"),
              ("import", "jobs1"), ("import", "loky"), ("recursion", "threads"),
              ("recursion", "loky")]


def _run_case(where: str, backend: str) -> Callable[[Case], None]:
    def check(c: Case) -> None:
        if backend == "dask" and not HAS_DASK:
            pytest.skip("dask is not installed")
        module, words = RAISING[where]
        _run_fails(c, module, backend, *words)
    return check


for _where, _backend in RUN_MATRIX:
    case(f"plugin_exception_in_{_where}_run_{_backend}")(_run_case(_where, _backend))


def _league_case(where: str, backend: str) -> Callable[[Case], None]:
    def check(c: Case) -> None:
        if backend == "dask" and not HAS_DASK:
            pytest.skip("dask is not installed")
        module, words = RAISING[where]
        r = c.unosim("league", "random", f"{module}.py:P", "--players", "2", "--games", "40",
                     "-q", *BACKENDS[backend], "--out", "L")
        line = expect_error(r, f"(policy {module}.py:P)", *words, seconds=TIMEOUT)
        assert line.startswith("unosim: error: seat "), line
    return check


for _where, _backend in [("choose", "jobs1"), ("choose", "threads"), ("choose", "loky"),
                         ("choose", "dask"), ("import", "threads"), ("recursion", "jobs1")]:
    case(f"plugin_exception_in_{_where}_league_{_backend}")(_league_case(_where, _backend))


def _play_case(where: str) -> Callable[[Case], None]:
    def check(c: Case) -> None:
        module, words = RAISING[where]
        # seed 2's game 0: seat 2, playing wilds first, names a colour (color_raises)
        _play_fails(c, module, *words, seed=2)
    return check


for _where in RAISING:
    case(f"plugin_exception_in_{_where}_play")(_play_case(_where))


# --- messages that mislead -----------------------------------------------------------
@case("plugin_opening_a_missing_file_is_the_plugins_error")
def _missing(c: Case) -> None:
    (c.cwd / "notes").mkdir()
    line = _run_fails(c, "opens_missing", "jobs1", "FileNotFoundError", "plugin-data.txt")
    assert not line.startswith("unosim: error: notes/"), line


@case("plugin_returning_10mb_string_is_a_bounded_error")
def _huge_answer(c: Case) -> None:
    _play_fails(c, "huge_answer", "10,000,000 characters")


@case("plugin_raising_10mb_message_is_a_bounded_error")
def _huge_message(c: Case) -> None:
    _run_fails(c, "huge_message", "loky", "ValueError: yyy")


@case("plugin_error_message_never_spans_lines")
def _lines(c: Case) -> None:
    _play_fails(c, "lines", "ValueError: first second")


# --- the battery ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def verdicts(request: pytest.FixtureRequest,
             tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Future[None]]]:
    """Every selected case started at once (``-k`` picks a few); futures by name."""
    names = [item.callspec.params["name"] for item in request.session.items
             if isinstance(item, pytest.Function) and item.module is request.module]
    root = tmp_path_factory.mktemp("plugins")

    def run(name: str) -> None:
        CASES[name](Case(root / name))

    with ThreadPoolExecutor(WORKERS) as pool:
        yield {name: pool.submit(run, name) for name in names}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_plugin(name: str, verdicts: dict[str, Future[None]]) -> None:
    verdicts[name].result()
