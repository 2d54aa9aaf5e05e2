"""``make bench``'s start-up figures: each one measurable alone, and read back as reported.

The first-run measurement compiles the engine from an empty cache (minutes of
CPU), so it is not run here; the measuring is, on the cached command.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench", ROOT / "scripts" / "bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench"] = module
    spec.loader.exec_module(module)
    return module


def test_cli_cpu_counts_the_command_and_nothing_before_it(bench: ModuleType) -> None:
    m = bench.cli_cpu(bench.CLI_TABLES["random"])
    # at least the interpreter's start-up and the imports; a cached run stays far below
    # a compile (which costs a minute of CPU)
    assert 0.2 < m["cpu_s"] < 30, m
    assert m["wall_s"] > 0


def test_the_ismcts_table_is_a_valid_command(bench: ModuleType) -> None:
    from unosim.rules.config import load_config

    args = bench.CLI_TABLES["ismcts"]
    cfg = load_config(args[1], [args[args.index("--set") + 1]])
    assert [getattr(s, "policy", s) for s in cfg.seats][:2] == ["ismcts", "random"]


def test_suite_time_is_read_back_and_reported(bench: ModuleType, tmp_path: Path) -> None:
    assert bench.suite_time(tmp_path / "missing.json") is None
    path = tmp_path / "suite-time.json"
    path.write_text(json.dumps({"wall_s": 540.0, "tests": 900, "workers": 2,
                                "loadavg_end": [4.0, 3.0, 2.0], "finished": "today"}))
    res = {"suite": bench.suite_time(path),
           "cached_cli_start": {"cpu_s": 0.9, "wall_s": 1.0},
           "first_run_random": {"first_cpu_s": 20.5, "first_wall_s": 30.0,
                                "cached_cpu_s": 0.9, "cached_wall_s": 1.0,
                                "compile_cpu_s": 19.6}}
    text = "\n".join(bench.startup_lines(res))
    assert "9.0 min" in text and "19.6 s" in text and "0.90 s" in text
    assert "ismcts" not in text  # not measured: not reported


def test_only_rejects_an_unknown_measurement(bench: ModuleType) -> None:
    with pytest.raises(SystemExit):
        bench.main(["--only", "cached,nonsense"])


def test_the_edition_rows_give_each_editions_cost_per_turn_against_classic(
        bench: ModuleType) -> None:
    """`--only editions` prints one row an edition, Flip's among them, with its cost per
    turn as classic's turns per CPU-second over its own."""
    rate = {"rounds_per_cpu_s": 1000.0}
    res = {"kernel_edition_classic": rate | {"turns_per_cpu_s": 50_000.0},
           "kernel_edition_flip": rate | {"turns_per_cpu_s": 20_000.0}}
    lines = bench.edition_lines(res)
    assert len(lines) == 2 and "edition flip" in lines[1] and "(2.50x)" in lines[1]
    assert "(1.00x)" in lines[0] and lines[1].rstrip().endswith("<= 2x")
    from unosim.rules.editions import list_editions

    assert "flip" in list_editions()  # so edition_figures measures it
