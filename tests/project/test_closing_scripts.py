"""scripts/reader_paths.py and scripts/tree.py: the figures of issue 21's closing note."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # a dataclass looks its module up there
    spec.loader.exec_module(mod)
    return mod


def test_every_reader_path_still_holds() -> None:
    """Each file defines what it is opened for and is reached from the files before it
    (code that moves fails here, and the path in the script is updated by hand)."""
    rp = _script("reader_paths")
    assert {q: rp.check(steps) for q, steps in rp.PATHS.items()} == {q: [] for q in rp.PATHS}


def test_a_broken_path_is_reported() -> None:
    rp = _script("reader_paths")
    steps = [rp.Step("engine/kernel/policies.py", ("policy_action",), ""),
             rp.Step("engine/kernel/habits.py", ("no_such_habit",), ""),
             rp.Step("report/charts.py", (), ""),
             rp.Step("engine/nowhere.py", (), "")]
    assert rp.check(steps) == ["engine/kernel/habits.py: does not define no_such_habit",
                               "report/charts.py: not reached from the files before it",
                               "engine/nowhere.py: no such file"]


def test_tree_totals_are_the_sum_of_the_modules(capsys) -> None:
    tree = _script("tree")
    assert tree.main(["unosim/run"]) == 0
    out = capsys.readouterr().out.splitlines()
    modules = [int(line.split()[-1].replace(",", "")) for line in out[1:-1]]
    assert out[0] == f"run/  {sum(modules):,} lines"
    assert out[-1].startswith("largest module: unosim/run/")
