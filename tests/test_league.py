"""unosim league: balanced seatings, duplicate deals, ratings, and every output."""

from __future__ import annotations

import ast
import itertools
import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import unosim
from unosim.analysis import ratings as ratings_module
from unosim.analysis.ratings import ELO, Table, fit_luce, pairwise_wins, rate_policies
from unosim.analysis.seating import MAX_SEATINGS, SAMPLED_SEATINGS, balance, full_count, seatings
from unosim.analysis.summary import build_summary
from unosim.cli.app import main
from unosim.report.grid import parse_vary
from unosim.report.league import League, LeagueSet, decide, design_text
from unosim.rules.config import config_to_dict, load_config
from unosim.study import StudyOptions
from unosim.study.league import LeagueError, run_league


@pytest.mark.parametrize("k", range(2, 7))
@pytest.mark.parametrize("n", range(2, 7))
def test_seatings_balance_seats_and_neighbours(k, n):
    rows = seatings(k, n, seed=3)
    assert len(set(rows)) == len(rows)
    per_seat = [Counter(row[j] for row in rows) for j in range(n)]
    for counts in per_seat:
        assert sorted(counts) == list(range(k))  # every policy sits in every seat
        assert len(set(counts.values())) == 1  # equally often
    held = Counter(p for row in rows for p in row)
    assert len(set(held.values())) == 1  # the same seat-games for every policy
    b = balance(rows, k)
    assert b["seat"][0] == b["seat"][1]
    text = design_text([f"p{i}" for i in range(k)], n, rows, seed=3)
    assert "Design:" in text and "neighbours" in text
    if full_count(k, n) <= MAX_SEATINGS:
        # every arrangement: the same set under any relabelling, so who plays after whom
        # (both ways round) is balanced too, and the naming order cannot matter
        assert len(rows) == full_count(k, n)
        assert b["pair"][0] == b["pair"][1]
        for perm in itertools.permutations(range(k)):
            assert {tuple(perm[p] for p in row) for row in rows} == set(rows)
        assert "all " in text
    else:  # a random design: the imbalance left is measured and stated
        assert len(rows) >= SAMPLED_SEATINGS
        assert "drawn at random" in text and f"{b['pair'][0]:,}" in text


def test_a_random_design_is_the_seeds():
    assert seatings(6, 6, seed=1) == seatings(6, 6, seed=1) != seatings(6, 6, seed=2)


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
    tables = _synthetic(strength, n, 1000, np.random.default_rng(n))
    r = rate_policies(list("abcd"), tables)
    assert [r.names[i] for i in r.order()] == ["d", "c", "b", "a"]
    truth = ELO * (np.log(strength) - np.log(strength).mean())
    assert all(lo <= t + 5 and t - 5 <= hi for lo, t, hi in zip(r.low, truth, r.high, strict=True))
    assert all(lo < x < hi for lo, x, hi in zip(r.low, r.rating, r.high, strict=True))
    d, lo, hi, p = r.diff(3, 0)
    assert lo < d < hi and p < 1e-6
    w = pairwise_wins(tables, 4)
    assert w[3][0] > w[0][3]


def test_ratings_are_finite_for_a_policy_that_never_wins():
    tables = [Table((0, 1), (100.0, 0.0), 100), Table((1, 0), (0.0, 100.0), 100)]
    r = fit_luce(tables, 2)
    assert all(math.isfinite(x) for x in r) and r[0] > 300


def test_ratings_use_plain_python_numerics():
    """Issue 19: no BLAS, np.linalg or vectorised reduction decides a printed digit."""
    tree = ast.parse(Path(ratings_module.__file__).read_text())
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not any(m.split(".")[0] in ("numpy", "scipy") for m in imported)
    tables = _synthetic(np.array([1.0, 1.5, 2.0]), 3, 500, np.random.default_rng(9))
    r = rate_policies(list("abc"), tables)
    assert all(type(x) is float for x in [*r.rating, *r.low, *r.high])
    # the same tables in another order give the same digits (pooled in a fixed order)
    again = rate_policies(list("abc"), tables[::-1])
    assert (again.rating, again.low, again.high) == (r.rating, r.low, r.high)


def test_tied_policies_share_one_rating():
    tables = _synthetic(np.array([1.0, 1.5, 1.5]), 3, 500, np.random.default_rng(2))
    r = rate_policies(list("abc"), tables, tied=[[1, 2]])
    assert r.rating[1] == r.rating[2] and r.low[1] == r.low[2]
    assert r.diff(1, 2) == (0.0, 0.0, 0.0, 1.0)


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
    ls = run_league("classic", ["strategic", "random"], StudyOptions(games=300, jobs=1),
                    players=3, seed=4, head_to_head=False)
    lg = ls.leagues[0]
    assert len(lg.runs) == 6 + 3  # six seatings, then strategic against random in each seat
    ref = config_to_dict(lg.runs[0].cfg)
    for run in lg.runs:
        d = config_to_dict(run.cfg)
        assert {k for k in d if d[k] != ref[k]} <= {"seats", "name"}  # only the seats differ
        assert (run.seed, run.games) == (4, 300)  # the same games of the same seed
    assert lg.names == ["random", "strategic"]  # sorted: the naming order does not matter
    assert [t.seats for t in lg.tables] == [(0, 0, 1), (0, 1, 0), (0, 1, 1), (1, 0, 0),
                                            (1, 0, 1), (1, 1, 0)]


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
    runs = [d for d in (out / "runs").iterdir() if d.name != "paired"]
    assert len(runs) == 6 + 2 + 4  # league, head to head, vs random
    # the identical-play probes are checkpointed, so --resume need not replay their chunks
    assert list((out / "runs" / "paired" / "chunks").iterdir())
    again = CliRunner().invoke(main, ["league", "random", "strategic", "--out", str(out)])
    assert again.exit_code == 2 and "not empty" in again.output


def test_a_small_league_runs_from_the_api(tmp_path):
    ls = unosim.league(["random", "strategic"], "classic", players=4, games=2000, seed=3,
                       jobs=1, vary={"house_rules.stacking.draw_two_on_draw_two": [False, True]},
                       out=tmp_path / "api")
    assert [lg.rule for lg in ls.leagues] == ["off", "on"]
    assert all(lg.names[lg.ratings.order()[0]] == "strategic" for lg in ls.leagues)
    _check_outputs(tmp_path / "api", vary=True)
    rate = ls.leagues[0].matrix()["rate"]
    assert rate.loc["strategic", "random"] + rate.loc["random", "strategic"] == pytest.approx(
        1.0, abs=0.02)  # stalemates aside


@pytest.mark.parametrize("args", [["random"], ["random", "random"], ["random", "nobody"],
                                  ["random", "strategic", "--vary", "players"]])
def test_bad_leagues_are_one_line_errors(args, tmp_path):
    res = CliRunner().invoke(main, ["league", *args, "--games", "10", "--out",
                                    str(tmp_path / "x")])
    assert res.exit_code == 2, res.output
    assert len(res.output.strip().splitlines()) <= 3


def test_precision_sizes_the_run_from_a_pilot():
    ls = run_league("classic", ["random", "strategic"],
                    StudyOptions(precision=0.001, max_games=1000, jobs=1), players=2, seed=2)
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


def _league(policies, **kw):
    opts = {"players": 3, "seed": 5, "head_to_head": False}
    return run_league("classic", policies, StudyOptions(games=200, jobs=1), **{**opts, **kw})


def test_ratings_verdicts_and_tables_do_not_depend_on_the_naming_order():
    """Issue 18: naming the policies in another order used to flip a verdict."""
    orders = [["cautious", "greedy", "random"], ["random", "cautious", "greedy"],
              ["greedy", "random", "cautious"]]
    results = [_league(o) for o in orders]
    first = results[0]
    for ls in results[1:]:
        assert ls.to_json() == first.to_json()  # ratings exactly, verdicts, design
        assert ls.table().equals(first.table())
        assert [set(t.seats) for t in ls.leagues[0].tables] == \
            [set(t.seats) for t in first.leagues[0].tables]


def test_policies_that_play_alike_are_reported_identical_and_not_ranked():
    """Without stacking, defender plays exactly as cautious: found from the games."""
    ls = _league(["defender", "greedy", "cautious"])
    lg = ls.leagues[0]
    assert [(lg.names[a], lg.names[b]) for a, b in lg.identical] == [("cautious", "defender")]
    i, j = lg.names.index("cautious"), lg.names.index("defender")
    assert lg.ratings.rating[i] == lg.ratings.rating[j]
    text = " ".join(lg.sentences)
    assert "cautious and defender are identical in these games" in text
    assert "cautious is stronger than defender" not in text
    assert "defender is stronger than cautious" not in text
    assert ls.n_tests == 2  # each of them against greedy; the identical pair is not tested
    assert ls.to_json()["leagues"][0]["identical"] == [["cautious", "defender"]]


def test_policies_that_differ_are_not_called_identical():
    ls = run_league("stacking_full", ["cautious", "defender"], StudyOptions(games=200, jobs=1),
                    players=3, seed=5, head_to_head=False)
    assert ls.leagues[0].identical == []  # with stacking, defender keeps its Draw Twos


def _fake_league(tables, h2h, names=("a", "b", "c")):
    ratings = rate_policies(list(names), tables)
    return League("", load_config("classic"), list(names), 3, 1000, 1, tables, ratings,
                  h2h=h2h)


def test_a_rating_that_disagrees_with_the_head_to_head_says_why():
    st = np.array([1.0, 1.3, 0.7])
    tables = _synthetic(st, 3, 3000, np.random.default_rng(1))
    h2h = [Table((0, 1), (600.0, 400.0), 1000), Table((1, 0), (400.0, 600.0), 1000),
           Table((0, 2), (500.0, 500.0), 1000), Table((2, 0), (500.0, 500.0), 1000),
           Table((1, 2), (700.0, 300.0), 1000), Table((2, 1), (300.0, 700.0), 1000)]
    ls = LeagueSet([_fake_league(tables, h2h)], None)
    n = decide(ls)
    assert n == 6  # three rating differences, three head-to-heads, one Holm family
    text = " ".join(ls.leagues[0].sentences)
    assert "b is stronger than a" in text
    assert "Head to head at 2 players, though, a beats b: it wins 60" in text
    assert "a rating averages over every table of the league" in text
    assert "Holm-adjusted" in text


def test_a_head_to_head_that_leans_the_other_way_undecided_is_not_called_a_disagreement():
    st = np.array([1.0, 1.3, 0.7])
    tables = _synthetic(st, 3, 3000, np.random.default_rng(1))
    h2h = [Table((0, 1), (505.0, 495.0), 1000), Table((1, 0), (495.0, 505.0), 1000),
           Table((0, 2), (500.0, 500.0), 1000), Table((2, 0), (500.0, 500.0), 1000),
           Table((1, 2), (700.0, 300.0), 1000), Table((2, 1), (300.0, 700.0), 1000)]
    ls = LeagueSet([_fake_league(tables, h2h)], None)
    decide(ls)
    text = " ".join(ls.leagues[0].sentences)
    assert "b is stronger than a" in text
    assert "Head to head at 2 players, a wins 50.5% (95% CI 48.3–52.7%)" in text
    assert "of its games against b, more than half but not decidedly (Holm-adjusted" in text
    assert "They disagree" not in text and "(not decided)" not in text


def test_a_leader_not_told_apart_from_the_runner_up_is_not_called_highest():
    tables = _synthetic(np.array([1.0, 1.01, 0.6]), 3, 300, np.random.default_rng(2))
    ls = LeagueSet([_fake_league(tables, [])], None)
    decide(ls)
    lg = ls.leagues[0]
    first, second = lg.ratings.order()[:2]
    p = lg.decisions[(min(first, second), max(first, second))][3]
    lead = lg.sentences[0]
    assert ("rates highest" in lead) == (p < 0.05)
    assert (f"has the highest rating, not told apart from {lg.names[second]}" in lead) == \
        (p >= 0.05)


def test_league_verdicts_are_holm_adjusted_together():
    tables = _synthetic(np.array([1.0, 1.02, 1.04]), 3, 2000, np.random.default_rng(4))
    ls = LeagueSet([_fake_league(tables, [])], None)
    decide(ls)
    lg = ls.leagues[0]
    raw = sorted(lg.ratings.diff(a, b)[3] for a, b in itertools.combinations(range(3), 2))
    adjusted = sorted(v[3] for v in lg.decisions.values())
    assert adjusted[0] == pytest.approx(min(1.0, 3 * raw[0]))  # Holm's first step


# Issue 20: league cases of the hostile battery.

def test_league_vary_players_3_4_plays_each_table_size():
    axis = parse_vary("players=3,4")
    ls = run_league("classic", ["random", "greedy"], StudyOptions(games=100, jobs=1),
                    vary=axis, seed=2, head_to_head=False)
    assert [lg.players for lg in ls.leagues] == [3, 4]
    for lg in ls.leagues:
        assert {r.cfg.players for r in lg.runs} == {lg.players}
        assert all(len(t.seats) == lg.players for t in lg.tables)


def test_league_players_4_with_vary_players_2_3_is_refused(tmp_path):
    res = CliRunner().invoke(main, ["league", "random", "greedy", "--players", "4", "--vary",
                                    "players=2,3", "--games", "10", "--out",
                                    str(tmp_path / "x")])
    assert res.exit_code == 2
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("unosim: error:") and "--players" in lines[0]


@pytest.mark.parametrize("args", [["--vary", "policy=random,greedy"],
                                  ["--set", "seats=[random, random, random, random]"],
                                  ["--set", "policy=greedy"]])
def test_league_vary_policy_and_set_seats_are_refused(args, tmp_path):
    res = CliRunner().invoke(main, ["league", "random", "greedy", *args, "--games", "10",
                                    "--out", str(tmp_path / "x")])
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("unosim: error:")
    assert "seats the policies itself" in lines[0]
    assert not (tmp_path / "x").exists()  # refused before the out dir is touched


@pytest.mark.parametrize("players", [0, 1, -4, True])
def test_api_league_players_zero_is_refused(players):
    with pytest.raises(LeagueError, match="players must be"):
        unosim.league(["random", "greedy"], players=players, games=10)


def test_api_league_set_seats_is_refused():
    with pytest.raises(LeagueError, match="seats the policies itself"):
        unosim.league(["random", "greedy"], set={"seats": ["random"] * 4}, games=10)
