"""Sweeps that answer: paired effects against a baseline, Holm across the sweep, words.

Every cell of a sweep runs in lockstep with the others and is paired with its
baseline cell (the baseline key at its baseline value, the rest the same).
The effect of a cell is exactly what `unosim compare` finds for the same two
configs on the same games; the decisions of the whole sweep are adjusted
together; categorical keys are never drawn as lines; numeric keys get a trend
whose interval widens when the points are not on a line.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_cli import CLASSIC, assert_one_line_error, invoke

import unosim.report.sweep as sw
from unosim.analysis.trend import linear_trend
from unosim.report.comparison import comparison_table
from unosim.report.sweep import (
    VaryError,
    default_baseline,
    parse_baseline,
    parse_vary,
    write_sweep,
)
from unosim.study import StudyOptions
from unosim.study.compare import run_comparison
from unosim.study.sweep import run_sweep

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
GAMES = 1500


@pytest.fixture(scope="module")
def jump_in() -> sw.Sweep:
    """players 3, 4 × jump-in off, on: jump-in shortens rounds a lot (about 12%)."""
    return run_sweep("classic", [parse_vary("players=3,4"),
                                 parse_vary("house_rules.jump_in=false,true")],
                     StudyOptions(games=GAMES, jobs=1), seed=3)


# --- the trend ------------------------------------------------------------------------


def test_trend_on_a_line_keeps_its_interval():
    x = np.arange(2, 11, dtype=float)
    t = linear_trend(x, 1.0 + 0.5 * x + np.array([.05, -.05] * 4 + [0]), [0.1] * 9)
    assert t is not None and t.linear and t.birge == 1.0
    assert t.low < 0.5 < t.high
    assert "the points fit a straight line" in t.words()


def test_trend_lack_of_fit_widens_the_interval_and_says_not_linear():
    x = np.arange(2, 11, dtype=float)
    y = (x - 6) ** 2 / 4 + 0.3 * x  # a curve, measured precisely
    se = [0.05] * len(x)
    t = linear_trend(x, y, se)
    assert t is not None and not t.linear and t.p_lack_of_fit < 0.05
    assert t.birge == pytest.approx(math.sqrt(t.chi2 / t.df))
    naive = 1.959964 * t.se_slope / t.birge  # the interval that ignores lack of fit
    assert (t.high - t.low) / 2 > 2 * naive
    assert "the trend is not linear" in t.words()
    y_fit, lo, hi = t.band([2.0, 10.0])
    assert (lo < y_fit).all() and (y_fit < hi).all()


def test_trend_needs_two_usable_points():
    assert linear_trend([1, 2, 3], [1.0, 2.0, 3.0], [0.0, 0.0, 1.0]) is None  # se 0: left out
    two = linear_trend([1, 2], [1.0, 2.0], [0.1, 0.1])
    assert two is not None and math.isnan(two.p_lack_of_fit)
    assert "cannot be tested" in two.words()


# --- the baseline ---------------------------------------------------------------------


def test_baseline_parsing_and_default():
    axes = [parse_vary("players=2..4"), parse_vary("house_rules.jump_in=false,true")]
    assert default_baseline(axes) == (1, 0)
    assert default_baseline([axes[0], parse_vary("house_rules.jump_in=true")]) == (0, 0)
    assert parse_baseline("players=4", axes) == (0, 2)
    assert parse_baseline("house_rules.jump_in=on", axes) == (1, 1)  # YAML: on is true
    for bad in ("players", "seed=1", "players=7", "house_rules.jump_in=[x"):
        with pytest.raises(VaryError, match="--baseline"):
            parse_baseline(bad, axes)
    # each cell's baseline: the baseline key at its value, every other key kept
    assert sw.baseline_cells(axes, (1, 0)) == [0, 0, 2, 2, 4, 4]
    assert sw.baseline_cells(axes, (0, 1)) == [2, 3, 2, 3, 2, 3]


def test_bad_baseline_is_one_line_before_anything_runs(tmp_path: Path):
    r = invoke("sweep", CLASSIC, "--vary", "players=2,3", "--baseline", "jump_in=true",
               "--out", str(tmp_path / "s"), "-q")
    assert_one_line_error(r, "--baseline", "not varied")
    assert not (tmp_path / "s").exists()


# --- effects, decisions, table --------------------------------------------------------


def test_each_cell_is_paired_with_its_baseline_cell(jump_in: sw.Sweep):
    assert [g.cells for g in jump_in.groups] == [[0, 1], [2, 3]]
    for g in jump_in.groups:
        assert g.cmp.paired == [False, True]
        assert g.cmp.n_tests == jump_in.n_tests
    # Holm over the whole sweep: every test of every group in one family
    assert jump_in.n_tests == sum(
        2 * sum(1 for i in range(1, len(g.cmp.runs)) for q in sw.questions_for(g.cmp)
                if g.cmp.diffs[q.key][i] is not None) for g in jump_in.groups)


def test_a_cell_effect_is_what_compare_finds_for_the_same_configs(jump_in: sw.Sweep):
    base, cell = jump_in.cells[2], jump_in.cells[3]
    cmp = run_comparison([base.cfg, cell.cfg], StudyOptions(games=GAMES, jobs=1), seeds=[3, 3])
    g, k = jump_in.place(3)
    for key in ("turns_mean", "first_player_win_rate", "drawn_mean"):
        a, b = cmp.diffs[key][1], g.cmp.diffs[key][k]
        assert a is not None and b is not None
        assert (a.diff, a.low, a.high) == pytest.approx((b.diff, b.low, b.high))


def test_answer_says_which_way_and_where_it_is_largest(jump_in: sw.Sweep):
    answers = jump_in.answers()
    turns = answers[0]
    assert turns.startswith("Turning jump-in on shortens rounds at both 3 and 4 players")
    assert "%" in turns
    # "largest" only where that cell's interval clears the other's; else both are named
    e3, e4 = (sw.cell_effect(jump_in, c, "turns_mean") for c in (1, 3))
    assert e3 is not None and e4 is not None
    top, other = sorted((e3, e4), key=lambda e: abs(e.value), reverse=True)
    clears = max(abs(other.low), abs(other.high)) < min(abs(top.low), abs(top.high))
    assert ("the effect is largest at" in turns) == clears
    assert ("but the intervals do not tell it apart from the effect at" in turns) != clears
    assert any("first player's win rate" in a for a in answers[1:])


def test_table_is_compare_shaped_with_the_varied_keys(jump_in: sw.Sweep):
    table = jump_in.table()
    cmp_cols = list(comparison_table(jump_in.groups[0].cmp).columns)
    assert list(table.columns) == ["players", "house_rules.jump_in", *cmp_cols, "baseline"]
    turns = table[table["metric"] == "turns_mean"]
    assert list(turns["players"]) == [3, 3, 4, 4]
    assert list(turns["house_rules.jump_in"]) == [False, True, False, True]
    assert list(turns["diff"].iloc[[0, 2]]) == [0.0, 0.0]  # baseline cells
    assert list(turns["verdict"].iloc[[1, 3]]) == ["shorter", "shorter"]
    assert (turns["baseline"].iloc[1] == turns["label"].iloc[0])
    assert len(table) == len(table.drop_duplicates(["metric", "label"]))


def test_written_sweep_opens_with_the_answer(jump_in: sw.Sweep, tmp_path: Path):
    paths = write_sweep(jump_in, tmp_path, command="unosim sweep ...")
    md = (tmp_path / "sweep.md").read_text()
    body = md.split("## Answer", 1)[1].lstrip()
    assert body.startswith("- Turning jump-in on shortens rounds")
    assert f"all {jump_in.n_tests} tests of this sweep are adjusted together" in md
    assert "two points: linearity cannot be tested" in md  # players 3 and 4 only
    for p in paths:
        if p.suffix == ".png":
            assert p.read_bytes()[:8] == PNG_MAGIC
    assert (tmp_path / "sweep_effect_turns_mean.png").is_file()
    csv = pd.read_csv(tmp_path / "sweep.csv")
    assert csv.shape == pd.read_parquet(tmp_path / "sweep.parquet").shape


def test_categorical_key_is_drawn_as_dots_never_lines(tmp_path: Path, monkeypatch):
    s = run_sweep("classic", [parse_vary("edition=classic,disney100,classic_1992")],
                  StudyOptions(games=600, jobs=1), seed=1)
    assert s.baseline == (0, 0)

    def no_line(*_a, **_k):
        raise AssertionError("a categorical axis drawn as a line")

    monkeypatch.setattr(sw.charts, "line_chart", no_line)
    write_sweep(s, tmp_path)
    assert (tmp_path / "sweep_effect_turns_mean.png").read_bytes()[:8] == PNG_MAGIC
    assert (tmp_path / "sweep_turns_mean.png").read_bytes()[:8] == PNG_MAGIC


def test_numeric_key_gets_a_trend_with_its_linearity_verdict(tmp_path: Path):
    s = run_sweep("classic", [parse_vary("players=2..5")], StudyOptions(games=600, jobs=1),
                  seed=1)
    assert s.answers()[0].startswith("Changing number of players from 2 ")
    write_sweep(s, tmp_path)
    md = (tmp_path / "sweep.md").read_text()
    assert "per player (95% CI" in md
    assert ("the points fit a straight line" in md) or ("the trend is not linear" in md)


# --- the command line -----------------------------------------------------------------


def test_cli_json_precision_and_margin(tmp_path: Path):
    out = tmp_path / "s"
    r = invoke("sweep", CLASSIC, "--vary", "players=3", "--vary",
               "house_rules.jump_in=false,true", "--precision", "5", "--max-games", "4000",
               "--margin", "turns_mean=2%", "--jobs", "1", "--out", str(out), "-q",
               "--format", "json")
    assert r.exit_code == 0, r.output
    got = json.loads(r.stdout)
    assert got["baseline"] == {"key": "house_rules.jump_in", "value": "false"}
    assert got["answers"] and got["answers"][0].startswith("Turning jump-in on")
    assert got["stop"]["max_games"] == 4000 and got["stop"]["games"] <= 4000
    rows = [row for row in got["table"] if row["metric"] == "turns_mean"]
    assert [row["house_rules.jump_in"] for row in rows] == [False, True]
    assert rows[1]["margin"] == pytest.approx(0.02 * rows[0]["value"])
    assert "--precision 5" in (out / "sweep.md").read_text()


def test_cli_refuses_games_with_precision_and_a_bad_margin(tmp_path: Path):
    base = ("sweep", CLASSIC, "--vary", "players=2,3", "-q", "--out", str(tmp_path / "s"))
    assert invoke(*base, "--games", "100", "--precision", "1").exit_code == 2
    assert_one_line_error(invoke(*base, "--margin", "turns_mean=-1"), "--margin")
    assert not (tmp_path / "s").exists()
