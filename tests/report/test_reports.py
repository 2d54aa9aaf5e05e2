"""Reports, comparisons and sweeps: what the pages say, headless charts, labels and
verdicts, a null comparison that finds nothing, and a sweep's tidy table.

(The HTML of every page is checked in test_report_html.py.)"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from unosim.analysis.estimates import per_round_estimate
from unosim.cli import main as cli_main
from unosim.cli.compare import compare_cmd
from unosim.cli.sweep import sweep_cmd
from unosim.engine.kernel import state as L
from unosim.engine.kernel.batch import simulate
from unosim.engine.kernel.state import compile_config
from unosim.report import charts
from unosim.report.comparison import compare_runs, run_label
from unosim.report.run_report import write_report
from unosim.report.runs import load_run
from unosim.report.sweep import VaryError, parse_vary
from unosim.rules.config import load_config
from unosim.rules.settings import describe_difference, rules_on
from unosim.study import StudyOptions
from unosim.study.runs import run_config

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _agg(name: str, games: int, seed: int = 1, sets: tuple[str, ...] = ()) -> tuple:
    cfg = load_config(name, list(sets))
    agg, _ = simulate(compile_config(cfg), seed, 0, games)
    return cfg, agg


# --------------------------------------------------------------------------- #
# run reports
# --------------------------------------------------------------------------- #


@pytest.mark.slow  # about 8 s a case
@pytest.mark.parametrize("name,games,sets", [
    ("classic", 3000, ()),
    ("match", 150, ()),
    ("classic", 2000, ("seats=[strategic,random,random,random]",)),
])
def test_report_opens_with_the_answer_and_links_every_chart(tmp_path, name, games, sets):
    cfg, agg = _agg(name, games, sets=sets)
    paths = write_report(tmp_path, cfg, agg, {"seed": 1, "config_hash": "abc123"})
    pngs = [p for p in paths if p.suffix == ".svg"]  # the run report's charts are SVG
    assert paths[:2] == [tmp_path / "report.md", tmp_path / "report.html"]
    assert len(pngs) >= 4 and all(p.read_bytes().startswith(b"<svg ") for p in pngs)
    md = (tmp_path / "report.md").read_text()
    first = md.split("\n\n")[1]  # the conclusion comes first, with sample size and seed
    assert "seed 1" in first and f"{int(agg['counts'][1]):,}" in first
    for p in pngs:
        assert f"]({p.name})" in md
    assert "Config hash `abc123`" in md
    assert "t intervals from per-round sums of squares" in md
    if cfg.mode == "match":
        assert "Rounds per match" in md and "Match win rate" in md
    if len(set(cfg.seat_policies)) > 1:
        assert "win_seat.svg" in {p.name for p in pngs} and "By policy" in first


def test_report_without_sums_of_squares_shows_no_interval(tmp_path):
    cfg, agg = _agg("classic", 500)
    old = {k: v for k, v in agg.items() if k != "sums_sq"}  # as an older unosim wrote them
    write_report(tmp_path, cfg, old)
    md = (tmp_path / "report.md").read_text()
    assert "no interval: totals only" in md and "no per-round sums of squares" in md
    assert np.isnan(per_round_estimate(old, L.R_RESHUFFLES).low)


def test_rules_line_uses_the_declared_labels(tmp_path):
    cfg, agg = _agg("chaos", 300)
    write_report(tmp_path, cfg, agg)
    md = (tmp_path / "report.md").read_text()
    assert f"house rules: {', '.join(rules_on(cfg))}" in md


def test_charts_are_headless_agg(tmp_path):
    fig = charts.new_figure()
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    assert isinstance(fig.canvas, FigureCanvasAgg)
    p = charts.turns_chart([charts.Series("a", np.array([0, 3, 5]))], tmp_path / "t.png", "t")
    assert p.read_bytes()[:8] == PNG_MAGIC


# --------------------------------------------------------------------------- #
# labels and verdicts of a comparison
# --------------------------------------------------------------------------- #


def test_labels_describe_rule_differences():
    base = load_config("classic")
    assert run_label(base, load_config("stacking")) == "stacking (Draw Two on Draw Two)"
    assert run_label(base, load_config("stacking_full")).startswith("full stacking (every")
    assert run_label(base, load_config("jump_in")) == "jump-in"
    assert run_label(base, load_config("disney100")) == \
        "UNO Disney 100 (Wild Mickey Movie Madness)"
    assert run_label(base, load_config("classic", ["players=6"])) == "6 players"
    chaos = describe_difference(base, load_config("chaos"))
    assert "full stacking" in chaos and "jump-in" in chaos  # two-player rule omitted at 4
    assert not any("two-player" in x for x in chaos)
    assert run_label(base, load_config("classic")) == "classic"


def test_verdict_wording_longer_shorter_none():
    cfgs = [load_config(n) for n in ("classic", "draw_until_play", "jump_in")]
    runs = [run_config(c, StudyOptions(jobs=1), games=3000, seed=1) for c in cfgs]
    cmp = compare_runs(runs)
    longer, shorter = cmp.verdicts[0][0], cmp.verdicts[1][0]
    assert longer.startswith("Draw until you can play makes 4-player rounds ")
    assert "longer: " in longer and "3,000 games each" in longer
    assert shorter.startswith("Jump-in makes 4-player rounds ") and "shorter: " in shorter
    assert "more cards drawn per round" in cmp.verdicts[0][2]


def test_match_comparison_counts_matches():
    runs = [run_config(load_config("match", [f"target={t}"]), StudyOptions(jobs=1), games=60,
                       seed=1)
            for t in (500, 200)]
    cmp = compare_runs(runs)
    assert "match_rounds_mean" in cmp.values
    last = cmp.verdicts[0][-1]
    assert "rounds per match" in last and "60 matches each" in last


# --------------------------------------------------------------------------- #
# the CLI commands, end to end
# --------------------------------------------------------------------------- #


def _yaml(tmp_path: Path, name: str, seed: int) -> str:
    p = tmp_path / f"{name}.yaml"
    p.write_text(f"extends: classic\nname: {name}\nseed: {seed}\n")
    return str(p)


@pytest.mark.slow  # about 8 s
def test_compare_identical_configs_different_seeds_not_decided(tmp_path):
    a, b = _yaml(tmp_path, "same_a", 1), _yaml(tmp_path, "same_b", 2)
    out = tmp_path / "cmp"
    res = CliRunner().invoke(compare_cmd, [a, b, "--games", "4000", "--jobs", "1",
                                           "--out", str(out), "-q"])
    assert res.exit_code == 0, res.output
    assert "Not decided: run more games. Same_b against same_a, 4-player round length" \
        in res.output
    rows = list(csv.DictReader(open(out / "compare.csv")))
    turns = [r for r in rows if r["metric"] == "turns_mean" and r["config"] == "same_b"][0]
    assert float(turns["p"]) > 0.05 and turns["paired"] == "False" and float(turns["diff_low"]) < 0 < float(
        turns["diff_high"])
    assert int(turns["rounds"]) == 4000
    resh = [r for r in rows if r["metric"] == "reshuffles_per_round" and r["config"] == "same_b"]
    assert resh[0]["test"] == "Welch t" and float(resh[0]["diff_low"]) < float(resh[0]["diff"])
    assert len(list(out.glob("compare_*.png"))) >= 4
    # finished run dirs compare again through their summary.json and aggregates.npz alone
    for d in ("same_a", "same_b"):
        for chunk in (out / "runs" / d / "chunks").glob("*"):
            chunk.unlink()
    again = load_run(out / "runs" / "same_b")
    assert again.rounds == 4000 and "sums_sq" in again.aggregates
    res2 = CliRunner().invoke(compare_cmd, [str(out / "runs" / "same_a"),
                                            str(out / "runs" / "same_b"),
                                            "--out", str(tmp_path / "again"), "-q"])
    assert res2.exit_code == 0, res2.output
    assert "Not decided" in res2.output
    assert (tmp_path / "again" / "compare.csv").read_text() == (out / "compare.csv").read_text()


def test_run_dir_of_an_older_version_loads_without_intervals(tmp_path):
    run = run_config(load_config("classic"), StudyOptions(jobs=1), games=300, seed=1,
                     out=tmp_path / "r")
    with np.load(tmp_path / "r" / "aggregates.npz") as z:
        old = {k: z[k] for k in z.files if k != "sums_sq"}
    np.savez(tmp_path / "r" / "aggregates.npz", **old)
    loaded = load_run(tmp_path / "r")
    assert "sums_sq" not in loaded.aggregates and loaded.rounds == run.rounds
    assert np.isnan(per_round_estimate(loaded.aggregates, L.R_RESHUFFLES).low)
    (tmp_path / "r" / "summary.json").unlink()
    with pytest.raises(ValueError, match="not a finished run directory"):
        load_run(tmp_path / "r")


def test_sweep_writes_tidy_table(tmp_path):
    out = tmp_path / "sw"
    res = CliRunner().invoke(sweep_cmd, ["classic", "--vary", "players=2..4", "--vary",
                                         "house_rules.jump_in=false,true", "--games", "400",
                                         "--jobs", "1", "--out", str(out), "-q"])
    assert res.exit_code == 0, res.output
    table = pd.read_csv(out / "sweep.csv")
    turns = table[table.metric == "turns_mean"]
    assert list(turns["players"]) == [2, 2, 3, 3, 4, 4]
    assert list(turns["house_rules.jump_in"]) == [False, True] * 3
    for m in ("turns_mean", "first_player_win_rate", "stalemate_rate", "drawn_mean"):
        rows = table[table.metric == m]
        assert len(rows) == 6 and (rows["low"] <= rows["value"]).all()
        assert (rows["value"] <= rows["high"]).all()
    assert (table["rounds"] == 400).all()
    assert pd.read_parquet(out / "sweep.parquet").shape == table.shape
    for m in ("turns_mean", "first_player_win_rate", "drawn_mean"):
        assert (out / f"sweep_{m}.png").read_bytes()[:8] == PNG_MAGIC
    assert not (out / "sweep_stalemate_rate.png").exists()  # all zero: a sentence instead
    md = (out / "sweep.md").read_text()
    assert "| number of players | jump-in | rounds |" in md  # the declared labels


def test_parse_vary():
    assert parse_vary("players=2..5").values == (2, 3, 4, 5)
    assert parse_vary("players=2..10..4").values == (2, 6, 10)
    ax = parse_vary("house_rules.stacking={},{draw_two_on_draw_two: true, wd4_on_wd4: true}")
    assert ax.values == ({}, {"draw_two_on_draw_two": True, "wd4_on_wd4": True})
    assert ax.labels == ["no stacking", "stacking (Draw Two on Draw Two, Wild Draw Four on "
                                        "Wild Draw Four)"]
    assert ax.label == "stacking"
    assert parse_vary("house_rules.jump_in=false,true").labels == ["off", "on"]
    for bad in ("players", "players=", "players=5..2", "x=1,1", "x=a,,b"):
        with pytest.raises(VaryError):
            parse_vary(bad)


@pytest.mark.parametrize("args", [
    ["classic"],
    ["classic", "no_such_config"],
    ["classic", "stacking", "--set", "players=99"],
    ["classic", "stacking", "--games", "0"],
])
def test_compare_bad_input_exits_2_with_one_line(args):
    res = CliRunner().invoke(cli_main, ["compare", *args, "-q"])
    assert res.exit_code == 2
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("unosim: error: "), res.output


def test_sweep_bad_vary_exits_2():
    res = CliRunner().invoke(sweep_cmd, ["classic", "--vary", "bogus=1,2", "-q"])
    assert res.exit_code == 2 and "bogus" in res.output and "Traceback" not in res.output
