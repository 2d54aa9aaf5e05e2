"""The Python API: `import unosim` is light; `unosim.run` gives a Result with intervals."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

import unosim


def test_import_unosim_loads_nothing_heavy():
    code = ("import sys, unosim; unosim.__version__; "
            "print([m for m in ('pydantic', 'numba', 'pandas', 'numpy', 'unosim.api') "
            "if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_run_is_callable_and_still_the_run_package():
    import unosim.run as run_package

    assert unosim.run is run_package and callable(unosim.run)
    assert unosim.run.run_simulation is not None and "run" in dir(unosim)


def test_run_is_callable_whichever_import_comes_first():
    # The import system sets ``unosim.run`` itself when a run module is imported first.
    code = ("import unosim.run.errors, sys, unosim; "
            "print(callable(unosim.run), unosim.run is sys.modules['unosim.run'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == ["True", "True"]


def test_version_is_declared_once_in_a_leaf_module():
    import tomllib
    from pathlib import Path

    from unosim._version import __version__

    assert unosim.__version__ == __version__
    project = tomllib.loads((Path(unosim.__file__).parents[1] / "pyproject.toml").read_text())
    assert "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "unosim._version.__version__"}


@pytest.fixture(scope="module")
def result():
    return unosim.run("classic", games=300, seed=3, jobs=1)


def test_result_summary_turns_and_frame(result):
    assert result.summary["games"] == 300 and result.summary["seed"] == 3
    t = result.turns
    assert t.low < t.mean < t.high and t.n == 300
    assert t.mean == pytest.approx(result.summary["turns"]["mean"])
    df = result.frame()
    assert list(df.columns) == ["config", "metric", "label", "value", "low", "high", "n"]
    row = df.set_index("metric").loc["turns_mean"]
    assert (row["value"], row["low"], row["high"]) == (t.mean, t.low, t.high)
    assert {"first_player_win_rate", "win_rate_position_3", "win_rate_seat_0",
            "win_rate_random"} <= set(df["metric"])
    assert "classic" in repr(result)


def test_report_and_records(tmp_path, result):
    page = result.report(tmp_path / "rep")
    assert page.name == "report.html" and page.is_file()
    with pytest.raises(ValueError, match="no records"):
        result.records()
    r = unosim.run("classic", games=50, jobs=1, records=True, out=tmp_path / "r")
    assert len(r.records()) == 50 and r.out == tmp_path / "r"
    assert unosim.Result.from_dir(tmp_path / "r").summary == r.summary


def test_set_names_the_variant_and_dicts_are_configs():
    r = unosim.run({"extends": "classic", "name": "duel", "players": 2}, games=40, jobs=1,
                   set={"house_rules.jump_in": True})
    assert r.cfg.name == "duel+jump_in" and r.cfg.players == 2 and r.cfg.house_rules.jump_in
    assert r.summary["config_name"] == "duel+jump_in"


def test_precision_stops_the_run():
    r = unosim.run("classic", precision=4.0, max_games=20_000, jobs=1)
    assert r.stop is not None and r.stop["met"] and r.turns.half_width <= 4.0
    assert r.summary["stop"]["precision"] == 4.0 and r.games < 20_000
    with pytest.raises(ValueError, match="not both"):
        unosim.run("classic", games=10, precision=1.0)


def test_bad_config_is_a_one_line_error():
    from unosim.rules.config import ConfigError

    with pytest.raises(ConfigError, match="players"):
        unosim.run("classic", games=10, set={"players": 1})
    assert not math.isnan(unosim.config("stacking").players)
