"""Numbers that cannot run away: sweep grids, --games, --game and --seed.

A sweep's axes are sized before they are expanded (at most MAX_SWEEP_CELLS
cells), run options cannot be varied, and every huge count is one line, exit 2.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import CLASSIC, assert_one_line_error, invoke
from hostile.harness import cli, expect_error

import unosim.report.grid as grid
from unosim.report.sweep import MAX_SWEEP_CELLS, VaryError, build_cells, parse_vary
from unosim.rules.config import ConfigError

HUGE = str(10**20)


def test_sweep_vary_huge_range_is_one_line_with_bounded_memory(tmp_path: Path) -> None:
    """``players=2..100000000000`` used to build a list of 10^11 values."""
    r = cli(tmp_path, "sweep", "classic", "--vary", "players=2..100000000000", "-q")
    expect_error(r, "players=2..100000000000", f"{MAX_SWEEP_CELLS:,}")
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("spec", [f"players=2..{MAX_SWEEP_CELLS + 2}",
                                  "players=" + ",".join(map(str, range(MAX_SWEEP_CELLS + 1)))])
def test_sweep_vary_axis_over_the_cap(spec: str) -> None:
    with pytest.raises(VaryError, match=f"{MAX_SWEEP_CELLS + 1:,} cells"):
        parse_vary(spec)


def test_sweep_vary_range_at_the_cap_and_with_a_step() -> None:
    assert len(parse_vary(f"players=1..{MAX_SWEEP_CELLS}").values) == MAX_SWEEP_CELLS
    assert parse_vary("players=2..9..3").texts == ("2", "5", "8")


def test_sweep_grid_over_the_cap_is_refused_before_any_cell(monkeypatch) -> None:
    def no_cell(*_args: object) -> None:
        raise AssertionError("a cell was built")

    monkeypatch.setattr(grid, "load_config", no_cell)
    axes = [parse_vary("players=2..40"), parse_vary("hand_size=1..40")]  # 1,560 cells
    with pytest.raises(VaryError, match="1,560 cells"):
        build_cells(CLASSIC, axes)


@pytest.mark.parametrize("key,option", [("seed", "--seed"), ("games", "--games")])
def test_sweep_vary_seed_and_games_are_refused(key: str, option: str) -> None:
    """They used to be ignored silently: every cell ran with the first value."""
    with pytest.raises(VaryError, match=f"--vary {key}:.*{option}"):
        parse_vary(f"{key}=1,2")
    assert_one_line_error(invoke("sweep", CLASSIC, "--vary", f" {key} =100..200", "-q"),
                          option)


@pytest.mark.parametrize("spec,key", [
    ("players=100000000000..100000000001", "players"),
    (f"max_turns=10,{HUGE}", "max_turns"),
    (f"target=500,{HUGE}", "target"),
])
def test_sweep_vary_beyond_the_rules_limits_names_the_key(spec: str, key: str) -> None:
    with pytest.raises(ConfigError, match=key):
        build_cells(CLASSIC, [parse_vary(spec)])


@pytest.mark.parametrize("spec", ["players=1" + "0" * 5000 + "..2",
                                  "players=2,1" + "0" * 5000])
def test_sweep_vary_number_of_too_many_digits(spec: str) -> None:
    """More digits than int() parses: a short message, not a traceback or the argument."""
    with pytest.raises(VaryError, match="too large|digits") as err:
        parse_vary(spec)
    assert len(str(err.value)) < 400 and "0" * 100 not in str(err.value)


@pytest.mark.parametrize("args,option", [
    (("run", CLASSIC, "--games", HUGE), "--games"),
    (("run", CLASSIC, "--seed", HUGE), "--seed"),
    (("play", CLASSIC, "--game", HUGE), "--game"),
    (("play", CLASSIC, "--seed", HUGE), "--seed"),
    (("compare", "classic", "stacking", "--games", HUGE), "--games"),
    (("sweep", CLASSIC, "--vary", "players=2,3", "--seed", HUGE), "--seed"),
], ids=["run-games", "run-seed", "play-game", "play-seed", "compare-games", "sweep-seed"])
def test_huge_games_game_and_seed_are_one_line(args: tuple[str, ...], option: str) -> None:
    assert_one_line_error(invoke(*args), option, "range")
