"""The runner: the same totals whatever the parallelism, and nothing lost on resume."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from unosim.analysis.summary import summarize_run, summary_json
from unosim.engine.kernel.batch import AGG_KEYS, simulate
from unosim.engine.kernel.state import compile_config
from unosim.rules.config import load_config
from unosim.run import (
    BackendError,
    BadOptionError,
    OutDirError,
    ResumeMismatchError,
    chunk_plan,
    default_chunk_size,
    load_aggregates,
    run_simulation,
)

GAMES = 3000


@pytest.fixture(scope="module")
def cfg():
    return load_config("configs/classic.yaml")


@pytest.fixture(scope="module")
def reference(cfg):
    """One uninterrupted in-memory run: what every other way of running must equal."""
    return run_simulation(cfg, games=GAMES, seed=7, jobs=1, chunk_size=GAMES, progress=False)


@pytest.fixture(scope="module")
def reference_json(reference):
    """The reference run's summary.json text."""
    return summary_json(summarize_run(reference))


def same(a: dict, b: dict) -> bool:
    return all(np.array_equal(a[k], b[k]) for k in AGG_KEYS)


def test_chunk_plan_covers_every_game_once():
    for games, size in [(1, 1), (10, 3), (3000, 1000), (12345, 50000)]:
        plan = chunk_plan(games, size)
        starts = [s for _, s, _ in plan]
        assert sum(c for _, _, c in plan) == games
        assert starts == sorted(starts) and starts[0] == 0
        assert all(s + c == t for (_, s, c), t in zip(plan, starts[1:] + [games], strict=True))
    assert default_chunk_size(100) == 1000  # a small run is one chunk


def test_totals_equal_one_plain_simulate(cfg, reference):
    agg, _ = simulate(compile_config(cfg), 7, 0, GAMES)
    assert same(reference.aggregates, agg)
    assert reference.aggregates["counts"][0] == GAMES == reference.aggregates["counts"][1]
    assert (reference.seed, reference.games, reference.out) == (7, GAMES, None)


@pytest.mark.parametrize("jobs,chunk", [(1, 1), (1, 701), (2, 500), (2, 2999)])
def test_jobs_and_chunk_size_do_not_change_results(cfg, reference, reference_json, jobs, chunk):
    games = GAMES if chunk != 1 else 50  # chunk size 1: a short run, same check
    r = run_simulation(cfg, games=games, seed=7, jobs=jobs, chunk_size=chunk, progress=False)
    if games == GAMES:
        assert same(r.aggregates, reference.aggregates)
        assert summary_json(summarize_run(r)) == reference_json
    else:
        ref = run_simulation(cfg, games=games, seed=7, jobs=1, progress=False)
        assert same(r.aggregates, ref.aggregates)


def test_records_identical_across_chunking(cfg, tmp_path):
    pd = pytest.importorskip("pandas")
    a = run_simulation(cfg, games=900, seed=3, jobs=1, chunk_size=900, out=tmp_path / "a",
                       records=True, progress=False)
    run_simulation(cfg, games=900, seed=3, jobs=2, chunk_size=250, out=tmp_path / "b",
                   records=True, progress=False)
    da = pd.read_parquet(tmp_path / "a" / "records").drop(columns="chunk")
    db = pd.read_parquet(tmp_path / "b" / "records").drop(columns="chunk")
    db = db.sort_values(["game", "round"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(da, db)
    assert len(da) == 900 and sorted(set(db["game"])) == list(range(900))
    # the records agree with the aggregates
    summary = summarize_run(a)
    assert da["turns"].mean() == pytest.approx(summary["turns"]["mean"])
    assert (da["winner_position"] == 0).sum() == summary["win_rate_by_position"][0]["wins"]
    assert set(da["winner_policy"]) == {"random"}


def test_out_dir_layout_and_resume_after_lost_chunks(cfg, reference, reference_json, tmp_path):
    out = tmp_path / "run"
    r = run_simulation(cfg, games=GAMES, seed=7, jobs=1, chunk_size=500, out=out,
                       progress=False)
    assert sorted(p.name for p in (out / "chunks").iterdir()) == [
        f"chunk-{i:06d}.npz" for i in range(6)]
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["chunk_size"] == 500 and manifest["games"] == GAMES
    assert manifest["status"] == "complete"
    assert same(load_aggregates(out / "aggregates.npz"), reference.aggregates)
    assert not (out / "summary.json").exists()  # the analysis layer writes it
    summarize_run(r)
    assert (out / "summary.json").read_text() == reference_json
    assert r.chunks_run == 6
    # lose two chunks (as if interrupted) and the summary: resume recomputes only those
    for i in (1, 4):
        (out / "chunks" / f"chunk-{i:06d}.npz").unlink()
    (out / "summary.json").unlink()
    r2 = run_simulation(cfg, games=GAMES, seed=7, jobs=1, chunk_size=500, out=out,
                        resume=True, progress=False)
    assert (r2.chunks_run, r2.chunks_reused) == (2, 4)
    summarize_run(r2)
    assert (out / "summary.json").read_text() == reference_json


@pytest.mark.parametrize("damage", ["garbage", "truncate", "flip"])
def test_corrupt_chunk_is_detected_and_recomputed(cfg, reference, tmp_path, damage):
    out = tmp_path / "run"
    run_simulation(cfg, games=GAMES, seed=7, jobs=1, chunk_size=1000, out=out, progress=False)
    victim = out / "chunks" / "chunk-000002.npz"
    data = victim.read_bytes()
    if damage == "garbage":
        victim.write_bytes(b"not a chunk")
    elif damage == "truncate":
        victim.write_bytes(data[: len(data) // 2])
    else:  # one count changed inside an array: only the checksum can tell
        z = dict(np.load(victim))
        z["turns_hist"][40] += 1
        np.savez(victim, **z)
    warnings: list[str] = []
    r = run_simulation(cfg, games=GAMES, seed=7, jobs=1, chunk_size=1000, out=out,
                       resume=True, progress=False, on_warning=warnings.append)
    assert len(warnings) == 1 and "chunk 2" in warnings[0] and "corrupt" in warnings[0]
    assert (r.chunks_run, r.chunks_reused) == (1, 2)
    assert same(r.aggregates, reference.aggregates)


def test_resume_refuses_a_different_run(cfg, tmp_path):
    out = tmp_path / "run"
    run_simulation(cfg, games=1000, seed=1, jobs=1, out=out, progress=False)
    before = sorted(p.name for p in (out / "chunks").iterdir())
    other = load_config("configs/classic.yaml", ["players=5"])
    cases = [(cfg, 1000, 2, None, "seed 1 -> 2"), (other, 1000, 1, None, "config changed"),
             (cfg, 500, 1, None, "games 1000 -> 500"), (cfg, 1000, 1, 10, "chunk_size")]
    for c, games, seed, chunk, what in cases:
        with pytest.raises(ResumeMismatchError, match=what):
            run_simulation(c, games=games, seed=seed, jobs=1, out=out, resume=True,
                           chunk_size=chunk, progress=False)
    assert sorted(p.name for p in (out / "chunks").iterdir()) == before  # nothing deleted


def test_non_empty_out_dir_needs_resume_or_force(cfg, tmp_path):
    out = tmp_path / "run"
    run_simulation(cfg, games=200, seed=1, jobs=1, out=out, progress=False)
    with pytest.raises(OutDirError, match="not empty"):
        run_simulation(cfg, games=200, seed=2, jobs=1, out=out, progress=False)
    (out / "notes.txt").write_text("mine")
    r = run_simulation(cfg, games=300, seed=2, jobs=1, out=out, force=True, progress=False)
    assert r.chunks_run == 1 and (out / "notes.txt").exists()  # only our files are wiped
    assert json.loads((out / "run.json").read_text())["seed"] == 2
    stranger = tmp_path / "stranger"
    stranger.mkdir()
    (stranger / "f.txt").write_text("")
    with pytest.raises(OutDirError, match="no run.json"):
        run_simulation(cfg, games=1, seed=2, jobs=1, out=stranger, resume=True, progress=False)
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(OutDirError):
        run_simulation(cfg, games=1, seed=1, jobs=1, out=blocker / "sub", progress=False)


@pytest.mark.parametrize("kw,msg", [
    ({"games": 0}, "games"), ({"games": -5}, "games"), ({"jobs": 0}, "jobs"),
    ({"jobs": -1}, "jobs"), ({"chunk_size": 0}, "chunk"), ({"backend": "mpi"}, "backend"),
    ({"scheduler": "tcp://x:1"}, "dask"), ({"records": True}, "out dir"),
    ({"seed": -1}, "seed"), ({"games": 2.5}, "games"),
])
def test_bad_options(cfg, kw, msg):
    args = {"games": 10, "seed": 1, "progress": False, **kw}
    with pytest.raises(BadOptionError, match=msg):
        run_simulation(cfg, **args)


def test_match_mode_summary(tmp_path):
    cfg = load_config("configs/match.yaml", ["target=200"])
    r = run_simulation(cfg, games=60, seed=2, jobs=1, chunk_size=25, progress=False)
    summary = summarize_run(r)
    m = summary["matches"]
    assert m["count"] == 60 and summary["rounds"] > 60
    assert sum(s["wins"] for s in m["win_rate_by_seat"]) + m["unfinished"]["count"] == 60
    assert m["rounds_per_match"]["mean"] == pytest.approx(summary["rounds"] / 60)


def test_summary_contents(reference):
    s = summarize_run(reference)
    for key in ("schema_version", "games", "rounds", "turns", "win_rate_by_position",
                "win_rate_by_seat", "win_rate_by_policy", "stalemates", "points",
                "cards_drawn", "draws_by_cause", "reshuffles", "special", "jumps", "swaps",
                "challenges", "config", "seed", "config_hash", "unosim_version"):
        assert key in s, key
    for key in ("mean", "std", "sem", "median", "p90", "max", "ci_low", "ci_high"):
        assert isinstance(s["turns"][key], float)
    pos = s["win_rate_by_position"]
    assert len(pos) == 4 and sum(p["wins"] for p in pos) == GAMES - s["stalemates"]["count"]
    assert all(p["low"] <= p["rate"] <= p["high"] for p in pos)
    assert s["config"]["seed"] == 7 and s["config"]["games"] == GAMES
    assert s["win_rate_by_policy"]["random"]["seats"] == 4
    assert "turn" in s["draws_by_cause"] and "matches" not in s


def _need_distributed() -> None:
    # Not a skip: CI must run the dask tests, and `make setup` installs the extra.
    if importlib.util.find_spec("distributed") is None:
        pytest.fail("dask.distributed is not installed: pip install -e '.[dask]'")


@pytest.mark.slow  # starts a local dask cluster
def test_dask_local_cluster_matches_loky(cfg, reference, reference_json, tmp_path):
    """The same chunks on a dask LocalCluster give the same bytes."""
    _need_distributed()
    r = run_simulation(cfg, games=GAMES, seed=7, jobs=2, chunk_size=700, backend="dask",
                       out=tmp_path / "dask", progress=False)
    assert same(r.aggregates, reference.aggregates)
    assert summary_json(summarize_run(r)) == reference_json


def test_unreachable_scheduler_is_a_clear_error(cfg, tmp_path, monkeypatch):
    _need_distributed()
    import unosim.run.backends as backends

    monkeypatch.setattr(backends, "DASK_CONNECT_TIMEOUT", 1)
    with pytest.raises(BackendError, match="scheduler tcp://127.0.0.1:9 "):
        run_simulation(cfg, games=10, seed=1, backend="dask", scheduler="tcp://127.0.0.1:9",
                       out=tmp_path / "never", progress=False)
    assert not (tmp_path / "never").exists()  # the out dir is untouched


def test_completed_chunks_survive_everything(cfg, tmp_path):
    """A failed resume or a refused run never deletes completed chunks."""
    out = tmp_path / "run"
    run_simulation(cfg, games=2000, seed=1, jobs=1, chunk_size=1000, out=out, progress=False)
    keep = out / "keep"
    shutil.copytree(out / "chunks", keep)
    for bad in ({"seed": 9, "resume": True}, {"seed": 1}):
        with pytest.raises(OutDirError):
            run_simulation(cfg, games=2000, jobs=1, chunk_size=1000, out=out, progress=False,
                           **bad)
    for p in keep.iterdir():
        assert (out / "chunks" / p.name).read_bytes() == p.read_bytes()


def test_load_aggregates_roundtrip(reference, tmp_path):
    path = tmp_path / "a.npz"
    np.savez(path, **reference.aggregates)
    assert same(load_aggregates(path), reference.aggregates)
    assert Path(path).exists()


def test_dask_missing_is_a_clear_error(cfg, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # import fails
    with pytest.raises(BackendError, match=r"unosim\[dask\]"):
        run_simulation(cfg, games=10, seed=1, backend="dask", out=tmp_path / "o",
                       progress=False)
    assert not (tmp_path / "o").exists()


def test_progress_bar_only_on_a_terminal(monkeypatch):
    import unosim.run.runner as runner

    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    assert isinstance(runner._progress_bar(True, 10, 0), runner._ProgressLines)  # a log
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert isinstance(runner._progress_bar(False, 10, 0), runner._NoProgress)  # --quiet
    bar = runner._progress_bar(True, 10, 0)
    assert not bar.disable
    bar.close()


def test_progress_lines_at_each_tenth_and_at_the_end(capsys):
    import unosim.run.runner as runner

    lines = runner._ProgressLines(100, 30)
    for _ in range(7):
        lines.update(10)
    lines.close()
    said = capsys.readouterr().err.splitlines()
    assert [s.split(" games")[0] for s in said] == [
        f"progress: {n} of 100 ({n}%)" for n in range(40, 101, 10)]


def test_records_match_the_replayed_games(cfg, tmp_path):
    """Row g of the records is game g as `unosim play --game g` replays it."""
    pd = pytest.importorskip("pandas")
    from unosim.engine.game import play_game

    run_simulation(cfg, games=40, seed=11, jobs=1, chunk_size=15, out=tmp_path / "r",
                   records=True, progress=False)
    df = pd.read_parquet(tmp_path / "r" / "records").set_index("game")
    cc = compile_config(cfg)
    for g in (0, 17, 39):
        end = [e for e in play_game(cc, 11, g) if e["e"] == "end"][-1]
        row = df.loc[g]
        assert row["chunk"] == g // 15
        assert (end["turns"], end["points"]) == (row["turns"], row["points"])
        assert end["winner"] == (None if row["stalemate"] else row["winner_seat"])


def test_threads_backend_matches_loky(cfg, reference, reference_json, tmp_path):
    """Threads share one process (the kernel runs without the GIL) and each keeps
    its own state: the same bytes as processes."""
    r = run_simulation(cfg, games=GAMES, seed=7, jobs=2, chunk_size=300, backend="threads",
                       out=tmp_path / "threads", progress=False)
    assert same(r.aggregates, reference.aggregates)
    assert summary_json(summarize_run(r)) == reference_json


def test_runner_writes_checkpoints_only_and_prints_nothing(cfg, tmp_path, capfd):
    """Summaries and reports are the layers above's; warnings go to the callback."""
    out = tmp_path / "r"
    run_simulation(cfg, games=50, seed=1, jobs=1, out=out, progress=False)
    (out / "chunks" / "chunk-000000.npz").write_bytes(b"damaged")
    warnings: list[str] = []
    run_simulation(cfg, games=50, seed=1, jobs=1, out=out, resume=True, progress=False,
                   on_warning=warnings.append)
    assert capfd.readouterr() == ("", "") and len(warnings) == 1
    assert sorted(p.name for p in out.iterdir()) == ["aggregates.npz", "chunks", "run.json"]


def test_an_interrupt_just_after_a_chunk_is_written_counts_it(tmp_path, monkeypatch):
    """A Ctrl-C that lands after a chunk's file is whole but before the runner moved
    on: the message counts the chunks --resume will find (CI once saw "1 of 100" with
    two files on disk)."""
    import unosim.run.runner as runner
    from unosim.run.errors import RunInterrupted

    real, calls = runner.save_chunk, []

    def save_then_interrupt(*args, **kwargs):
        real(*args, **kwargs)
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(runner, "save_chunk", save_then_interrupt)
    out = tmp_path / "run"
    with pytest.raises(RunInterrupted, match="2 of 5 chunks saved"):
        run_simulation(load_config("classic"), games=500, seed=3, jobs=1, chunk_size=100,
                       out=out, progress=False)
    assert len(list((out / "chunks").glob("chunk-*.npz"))) == 2


def test_a_game_never_reads_the_game_before_it():
    """Game 177 of seed 1 (classic, four strategic seats) starts on a wild, so its first
    player names a color before the first turn, from the seats' memory of who drew on
    what: that memory is the round's own, so the game plays the same alone and after
    others in a chunk (or a reused state)."""
    cc = compile_config(load_config("classic", ["policy=strategic"]))
    together, _ = simulate(cc, 1, 170, 16)
    alone = [simulate(cc, 1, g, 1)[0] for g in range(170, 186)]
    for key in AGG_KEYS:
        assert np.array_equal(together[key], sum(a[key] for a in alone)), key
