"""Paired comparisons: streamed moments against records, coverage, precision stopping."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow.parquet as pq
import pytest

from unosim.analysis.estimates import METRIC_BY_KEY, estimate
from unosim.analysis.paired import PairMoments, holm, paired_diff, tost_p, verdict
from unosim.engine.kernel import batch as B
from unosim.engine.kernel.state import alloc_state, compile_config
from unosim.rules.config import load_config
from unosim.run import run_simulation
from unosim.run.chunks import growing_plan
from unosim.run.runner import run_lockstep, turns_half_width
from unosim.study import StudyOptions
from unosim.study.compare import run_comparison


def _features_from_records(run_dir) -> np.ndarray:
    """Per-game feature rows rebuilt from a round-mode run's records (one row per game)."""
    t = pq.ParquetDataset(str(run_dir / "records")).read().to_pandas().sort_values("game")
    f = np.zeros((len(t), B.NGF), np.int64)
    f[:, B.GF_TURNS] = t["turns"]
    f[:, B.GF_ROUNDS] = 1
    f[:, B.GF_DRAWN] = t["cards_drawn"]
    f[:, B.GF_POINTS] = t["points"]
    f[:, B.GF_RESHUFFLES] = t["reshuffles"]
    f[:, B.GF_FIRST_WINS] = (t["winner_position"] == 0).fillna(False).astype(int)
    f[:, B.GF_STALEMATES] = t["stalemate"].astype(int)
    f[:, B.GF_WINNER] = t["winner_seat"].fillna(-1).astype(int) + 1
    return f


def test_streamed_moments_equal_records(tmp_path) -> None:
    """The paired interval from streamed sums equals a direct computation from records."""
    cfgs = [load_config("classic"), load_config("stacking")]
    outs = [tmp_path / "a", tmp_path / "b"]
    lock = run_lockstep(cfgs, games=6_000, seed=11, pairs=((0, 1),), jobs=2, outs=outs,
                        pair_out=tmp_path / "pairs", records=True, chunk_size=1_000,
                        progress=False)
    fa, fb = (_features_from_records(d) for d in outs)
    direct = PairMoments.from_features(fa, fb)
    streamed = PairMoments(lock.games, lock.pair_sums[0], lock.pair_moments[0])
    assert np.array_equal(direct.s, streamed.s) and np.array_equal(direct.m, streamed.m)
    d = paired_diff(streamed, "turns_mean", match=False)
    dt = fb[:, B.GF_TURNS] - fa[:, B.GF_TURNS]
    assert d is not None and d.diff == pytest.approx(dt.mean(), rel=1e-12)
    assert d.se == pytest.approx(dt.std(ddof=1) / math.sqrt(len(dt)), rel=1e-9)
    assert d.corr == pytest.approx(np.corrcoef(fa[:, 0], fb[:, 0])[0, 1], rel=1e-9)
    # and each config's aggregates are exactly those of a run of its own
    alone = run_simulation(cfgs[1], games=6_000, seed=11, jobs=1, progress=False)
    for k in alone.aggregates:
        assert np.array_equal(alone.aggregates[k], lock.runs[1].aggregates[k])


def test_identical_rule_sets_are_reported_identical() -> None:
    cmp = run_comparison([load_config("classic"), load_config("classic_1992")],
                         StudyOptions(games=3_000, jobs=1), seeds=[5, 5])
    assert cmp.identical == [False, True]
    assert cmp.decisions["turns_mean"][1].word == "identical"
    assert "identical" in cmp.verdicts[0][0] and "p =" not in cmp.verdicts[0][0]


def test_match_mode_pairs_by_ratio() -> None:
    """In match mode per-round means are ratios of per-match totals (delta method)."""
    a = load_config("classic", ["mode=match", "target=200"])
    b = load_config("stacking", ["mode=match", "target=200"])
    cmp = run_comparison([a, b], StudyOptions(games=400, jobs=1), seeds=[3, 3])
    d = cmp.diffs["turns_mean"][1]
    va = estimate(cmp.runs[0].aggregates, METRIC_BY_KEY["turns_mean"]).value
    vb = estimate(cmp.runs[1].aggregates, METRIC_BY_KEY["turns_mean"]).value
    assert d is not None and d.diff == pytest.approx(vb - va, rel=1e-9)
    assert d.low < d.diff < d.high


_CCS = {}


def _rep(seed: int, games: int = 5_000) -> PairMoments:
    """One small paired comparison, classic against stacking, at ``seed``."""
    feats = []
    for name in ("classic", "stacking"):
        if name not in _CCS:
            _CCS[name] = compile_config(load_config(name))
        cc = _CCS[name]
        f = np.zeros((games, B.NGF), np.int64)
        B.simulate(cc, seed, 0, games, state=alloc_state(cc, trace=False), features=f)
        feats.append(f)
    return PairMoments.from_features(*feats)


@pytest.mark.slow  # 15 s: hundreds of paired runs
def test_paired_interval_coverage() -> None:
    """200 paired 5,000-game comparisons: their 95% intervals cover the difference
    measured at 2,000,000 games 91-99% of the time, for mean turns and for the
    first player's win rate."""
    ref = run_lockstep([load_config("classic"), load_config("stacking")], games=2_000_000,
                       seed=987_654, pairs=((0, 1),), jobs=2, backend="threads",
                       progress=False)
    pm = PairMoments(ref.games, ref.pair_sums[0], ref.pair_moments[0])
    truth = {k: paired_diff(pm, k, match=False).diff  # type: ignore[union-attr]
             for k in ("turns_mean", "first_player_win_rate")}
    with ThreadPoolExecutor(2) as pool:
        reps = list(pool.map(_rep, range(1, 201)))
    for key, value in truth.items():
        covered = 0
        for pm_rep in reps:
            d = paired_diff(pm_rep, key, match=False)
            assert d is not None
            covered += d.low <= value <= d.high
        assert 0.91 <= covered / len(reps) <= 0.99, (key, covered)


@pytest.mark.parametrize("backend,jobs", [("loky", 2), ("threads", 2)])
def test_precision_stops_within_one_chunk(backend: str, jobs: int) -> None:
    cfg = load_config("classic")
    res = run_simulation(cfg, games=1_000_000, seed=4, precision=0.4, jobs=jobs,
                         backend=backend, progress=False)
    base = run_simulation(cfg, games=1_000_000, seed=4, precision=0.4, jobs=1, progress=False)
    assert res.games == base.games and res.stop == base.stop
    for k in res.aggregates:
        assert np.array_equal(res.aggregates[k], base.aggregates[k])
    assert res.stop is not None and res.stop["met"]
    hw = turns_half_width([res.aggregates], np.zeros(0), np.zeros(0), res.games)
    assert hw <= 0.4
    ends = np.cumsum([c for _, _, c in growing_plan(1_000_000, 1_000)])
    prev = int(ends[list(ends).index(res.games) - 1])
    before = run_simulation(cfg, games=prev, seed=4, jobs=1, progress=False)
    assert turns_half_width([before.aggregates], np.zeros(0), np.zeros(0), prev) > 0.4


def test_compare_precision_is_deterministic() -> None:
    cfgs = [load_config("classic"), load_config("stacking")]
    target = StudyOptions(precision=0.5, max_games=500_000)
    a = run_comparison(cfgs, target.with_(jobs=2, backend="loky"), seeds=[2, 2])
    b = run_comparison(cfgs, target.with_(jobs=1), seeds=[2, 2])
    assert a.stop == b.stop and a.stop is not None and a.stop["met"]
    da, db = a.diffs["turns_mean"][1], b.diffs["turns_mean"][1]
    assert da == db and da is not None and (da.high - da.low) / 2 <= 0.5


def test_holm_and_tost() -> None:
    assert holm([0.01, 0.02]) == [0.02, 0.02]
    assert tost_p(0.0, 0.01, 0.1, 1000) < 1e-6
    assert tost_p(0.2, 0.01, 0.1, 1000) > 0.99
    assert verdict(0.0, 1.0, 1.0, 0.1, identical=True).word == "identical"
