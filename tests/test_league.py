"""unosim league: balanced seatings, duplicate deals, ratings, and every output."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import unosim
from unosim.analysis.ratings import ELO, Table, fit_luce, pairwise_wins, rate_policies
from unosim.analysis.summary import build_summary
from unosim.cli.app import main
from unosim.report.league import design_text, run_league, seatings
from unosim.rules.config import config_to_dict, load_config


@pytest.mark.parametrize("k", range(2, 7))
@pytest.mark.parametrize("n", range(2, 7))
def test_every_policy_takes_every_seat_equally_often(k, n):
    rows = seatings(k, n)
    per_seat = [Counter(row[j] for row in rows) for j in range(n)]
    for counts in per_seat:
        assert sorted(counts) == list(range(k))  # every policy sits in every seat
        assert len(set(counts.values())) == 1  # equally often
    held = Counter(p for row in rows for p in row)
    assert len(set(held.values())) == 1  # the same seat-games for every policy
    if k > n:  # every pair meets equally often
        meets = Counter((a, b) for row in rows for a in row for b in row if a < b)
        assert len(set(meets.values())) == 1
    assert "Design:" in design_text([f"p{i}" for i in range(k)], n)


def _synthetic(strength, n, games, rng):
    k = len(strength)
    tables = []
    for row in seatings(k, n):
        p = np.asarray(strength)[list(row)]
        wins = rng.multinomial(games, p / p.sum())
        tables.append(Table(row, tuple(float(w) for w in wins), games))
    return tables


@pytest.mark.parametrize("n", [2, 3, 4])
def test_ratings_recover_a_known_strength_order(n):
    strength = np.array([0.6, 1.0, 1.7, 2.5])
    tables = _synthetic(strength, n, 4000, np.random.default_rng(n))
    r = rate_policies(list("abcd"), tables, boot=200, seed=1)
    assert [r.names[i] for i in r.order()] == ["d", "c", "b", "a"]
    truth = ELO * (np.log(strength) - np.log(strength).mean())
    assert np.all(r.low <= truth + 5) and np.all(truth - 5 <= r.high)
    assert np.all(r.low < r.rating) and np.all(r.rating < r.high)
    w = pairwise_wins(tables, 4)
    assert w[3, 0] > w[0, 3]


def test_ratings_are_finite_for_a_policy_that_never_wins():
    tables = [Table((0, 1), (100.0, 0.0), 100), Table((1, 0), (0.0, 100.0), 100)]
    r = fit_luce(tables, 2)
    assert np.all(np.isfinite(r)) and r[0] > 300


def test_summary_gives_each_policy_a_rate_per_seat():
    cfg = load_config("classic", ["seats=[random,strategic,random,random]"])
    agg = {"counts": np.array([100, 100, 0, 0]), "wins_seat": np.array([23, 31, 22, 24])}
    by = build_summary.__globals__["_by_policy"](agg["wins_seat"], cfg.seat_policies, 100)
    rnd = by["random"]
    assert rnd["rate"] == pytest.approx(0.69) and rnd["seats"] == 3
    assert rnd["per_seat"]["rate"] == pytest.approx(0.23)
    assert rnd["per_seat"]["low"] == pytest.approx(rnd["low"] / 3)
    assert by["strategic"]["per_seat"]["rate"] == by["strategic"]["rate"]


def test_every_seating_plays_the_same_deals():
    ls = run_league("classic", ["random", "strategic"], players=3, games=300, seed=4,
                    head_to_head=False, jobs=1, progress=False, boot=50)
    lg = ls.leagues[0]
    assert len(lg.runs) == 2 + 3  # two seatings, then strategic against random in each seat
    ref = config_to_dict(lg.runs[0].cfg)
    for run in lg.runs:
        d = config_to_dict(run.cfg)
        assert {k for k in d if d[k] != ref[k]} <= {"seats", "name"}  # only the seats differ
        assert (run.seed, run.games) == (4, 300)  # the same games of the same seed
    assert [t.seats for t in lg.tables] == [(0, 1, 0), (1, 0, 1)]


def _check_outputs(out: Path, vary: bool = False) -> None:
    for name in ("league.md", "league.html", "league.csv", "league.parquet"):
        assert (out / name).stat().st_size > 0
    assert list(out.glob("*ratings*.png")) and list(out.glob("*h2h*.png"))
    frame = pd.read_parquet(out / "league.parquet")
    assert set(frame["measure"]) >= {"win_rate_per_seat", "rating", "head_to_head",
                                     "rating_spread", "edge_over_random"}
    assert len(pd.read_csv(out / "league.csv")) == len(frame)
    md = (out / "league.md").read_text()
    assert "**Design:**" in md and "Head to head" in md
    if vary:
        assert (out / "league_ratings_by_rule.png").is_file()


def test_a_small_league_runs_from_the_cli(tmp_path):
    out = tmp_path / "lg"
    res = CliRunner().invoke(main, ["league", "random", "strategic", "--players", "4",
                                    "--games", "2000", "--seed", "3", "--out", str(out),
                                    "--quiet", "--jobs", "1", "--format", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    lg = doc["leagues"][0]
    assert lg["ratings"]["strategic"]["rating"] > lg["ratings"]["random"]["rating"]
    assert lg["edge_over_random"]["policy"] == "strategic"
    assert {"value", "low", "high"} <= set(lg["rating_spread"])
    assert doc["table"] and Path(doc["report"]).name == "league.html"
    _check_outputs(out)
    assert len(list((out / "runs").iterdir())) == 2 + 2 + 4  # league, head to head, vs random
    again = CliRunner().invoke(main, ["league", "random", "strategic", "--out", str(out)])
    assert again.exit_code == 2 and "not empty" in again.output


def test_a_small_league_runs_from_the_api(tmp_path):
    ls = unosim.league(["random", "strategic"], "classic", players=4, games=2000, seed=3,
                       jobs=1, vary={"house_rules.stacking.draw_two_on_draw_two": [False, True]},
                       out=tmp_path / "api")
    assert [lg.rule for lg in ls.leagues] == ["off", "on"]
    assert all(lg.names[lg.ratings.order()[0]] == "strategic" for lg in ls.leagues)
    _check_outputs(tmp_path / "api", vary=True)
    m = ls.leagues[0].matrix()
    assert m[1, 0, 0] + m[0, 1, 0] == pytest.approx(1.0, abs=0.02)  # stalemates aside


@pytest.mark.parametrize("args", [["random"], ["random", "random"], ["random", "nobody"],
                                  ["random", "strategic", "--vary", "players"]])
def test_bad_leagues_are_one_line_errors(args, tmp_path):
    res = CliRunner().invoke(main, ["league", *args, "--games", "10", "--out",
                                    str(tmp_path / "x")])
    assert res.exit_code == 2, res.output
    assert len(res.output.strip().splitlines()) <= 3


def test_precision_sizes_the_run_from_a_pilot():
    ls = run_league("classic", ["random", "strategic"], players=2, games=1000, seed=2,
                    precision=0.001, max_games=1000, jobs=1, progress=False, boot=50)
    assert ls.stop == {"precision": 0.001, "pilot": 1000, "max_games": 1000, "games": 1000,
                       "met": False}
    assert ls.leagues[0].games == 1000


def test_a_league_with_ismcts_is_the_same_on_every_backend(tmp_path):
    """The search draws from its own stream and counts iterations, not seconds: the
    same league, game for game, in one process, in two worker processes and in threads."""
    seat = {"policy": "ismcts", "params": {"iterations": 15}}
    runs = [(1, "loky"), (2, "loky"), (2, "threads")]
    tables = []
    for jobs, backend in runs:
        ls = unosim.league([seat, "cautious", "random"], "classic", players=3, games=60,
                           seed=4, jobs=jobs, backend=backend, head_to_head=False,
                           out=tmp_path / f"{backend}-{jobs}")
        tables.append(ls.table().drop(columns=[c for c in ls.table().columns
                                               if "elapsed" in c], errors="ignore"))
    for t in tables[1:]:
        assert t.equals(tables[0])
    assert "ismcts(iterations=15)" in set(tables[0]["policy"])
