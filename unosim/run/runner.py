"""Run many games in parallel chunks: reproducible, resumable, constant memory.

Games are split into fixed chunks ``[i * chunk_size, (i + 1) * chunk_size)``
whose boundaries depend only on ``games`` and ``chunk_size``. Game ``g`` plays
the same whatever chunk or worker runs it (its random stream is keyed by the
seed and ``g``), and aggregates merge by integer addition, so any number of
jobs, any backend, any completion order and any chunk size give the same
totals, byte for byte.

With an out dir every finished chunk is written atomically as soon as it
arrives (``chunks/chunk-000123.npz``, and ``records/part-000123.parquet`` with
``records``), next to a ``run.json`` manifest naming what is being run. A
resumed run checks the manifest, reuses the chunks that verify and recomputes
the rest, so an interrupted run finishes with exactly the result of an
uninterrupted one. Only the merged aggregates stay in memory.

Errors are typed (`RunError` subclasses, one-line messages); this module
never prints except for the optional tqdm bar, and never exits.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import numbers
import os
import shutil
import signal
import sys
import threading
import time
import warnings as _warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np

from unosim import __version__
from unosim.engine import kernel as K
from unosim.engine import layout as L
from unosim.engine.batch import AGG_KEYS, empty_aggregates, merge_aggregates, simulate

if TYPE_CHECKING:
    from unosim.rules.config import GameConfig

# Workers import this module to run `_chunk_task`: the config layer (pydantic) and
# the statistics (scipy) are imported lazily, by the parent only, to keep worker
# start-up short.

MANIFEST_VERSION = 1
MAX_CHUNK = 50_000
MIN_CHUNK = 1_000
TARGET_CHUNKS = 32  # enough to balance a few workers and checkpoint often; few enough
# that the per-chunk cost (IPC, checksum, chunk file: ~2 ms in the parent) stays small
SMALL_RUN = 20_000  # games; below this the default is one in-process job
DASK_CONNECT_TIMEOUT = 5  # seconds
BACKENDS = ("loky", "threads", "dask")

__all__ = [
    "BackendError",
    "BadOptionError",
    "OutDirError",
    "ResumeMismatchError",
    "RunError",
    "RunInterrupted",
    "RunResult",
    "chunk_plan",
    "default_chunk_size",
    "load_aggregates",
    "run_simulation",
]


# --- errors ------------------------------------------------------------------------
class RunError(Exception):
    """A run that cannot start or finish; ``str()`` is one line for the CLI."""


class BadOptionError(RunError):
    """An option value that makes no sense (games <= 0, jobs 0, ...)."""


class OutDirError(RunError):
    """The out dir is unusable: unwritable, not empty, or not a run directory."""


class ResumeMismatchError(OutDirError):
    """``--resume`` on a directory holding a different run."""


class BackendError(RunError):
    """The parallel backend is missing or unreachable."""


class RunInterrupted(RunError):
    """Ctrl-C: finished chunks are kept; ``--resume`` completes the run."""


@dataclass
class RunResult:
    """What a finished run produced (the summary is also in ``out/summary.json``)."""

    aggregates: dict[str, np.ndarray]
    summary: dict[str, Any]
    out: Path | None
    elapsed: float  # seconds, this invocation only
    chunk_size: int
    chunks_total: int
    chunks_run: int  # computed by this invocation
    chunks_reused: int  # verified on disk (resume)
    rounds_run: int  # rounds computed by this invocation
    warnings: list[str] = field(default_factory=list)

    @property
    def rounds_per_s(self) -> float:
        """Throughput of this invocation (rounds it simulated / wall time)."""
        return self.rounds_run / self.elapsed if self.elapsed > 0 else float("nan")


# --- chunking ----------------------------------------------------------------------
def default_chunk_size(games: int) -> int:
    """About TARGET_CHUNKS chunks, within [MIN_CHUNK, MAX_CHUNK] games."""
    return min(MAX_CHUNK, max(MIN_CHUNK, -(-games // TARGET_CHUNKS)))


def chunk_plan(games: int, chunk_size: int) -> list[tuple[int, int, int]]:
    """``(index, start, count)`` of every chunk; depends on nothing else."""
    n = -(-games // chunk_size)
    return [(i, i * chunk_size, min(chunk_size, games - i * chunk_size)) for i in range(n)]


_KERNEL_FIELDS = ("ci", "cf", "pp", "points", "wish_icons", "deck_counts")


# --- the worker side ---------------------------------------------------------------
class _WorkerState(threading.local):
    """Per thread: the kernel releases the GIL, so threads of one process (the
    threads backend, a multi-threaded dask worker) must never share state."""

    key: str | None = None
    state: Any = None
    quiet: bool = False


_WORKER = _WorkerState()


def _chunk_task(cc: Any, key: str, seed: int, index: int, start: int, count: int,
                records: bool, in_worker: bool) -> tuple[int, dict[str, np.ndarray],
                                                         np.ndarray | None]:
    """Simulate one chunk; a worker keeps its state arrays across chunks of one config."""
    if in_worker and not _WORKER.quiet:
        # Ctrl-C reaches the whole process group: the parent decides what
        # happens (it kills the pool), so workers must not die noisily first.
        with contextlib.suppress(ValueError):  # not the main thread (dask)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        _WORKER.quiet = True
    if _WORKER.key != key:
        from unosim.engine.game import alloc_state

        _WORKER.key, _WORKER.state = key, alloc_state(cc, trace=False)
    agg, rec = simulate(cc, seed, start, count, records, state=_WORKER.state)
    return index, agg, rec


# --- chunk files -------------------------------------------------------------------
def _digest(agg: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for k in AGG_KEYS:
        h.update(np.ascontiguousarray(agg[k], dtype=np.int64).tobytes())
    return h.hexdigest()


def _atomic_write(path: Path, write: Callable[[Any], None]) -> None:
    """Write via a temp file and rename, so a reader never sees half a file.

    No fsync: it would cost more than the aggregation itself, and the one case
    it guards against (an OS crash leaving a renamed but empty file) is caught
    by the chunk checksum on resume anyway.
    """
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            write(f)
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def _chunk_path(out: Path, index: int) -> Path:
    return out / "chunks" / f"chunk-{index:06d}.npz"


def _records_path(out: Path, index: int) -> Path:
    return out / "records" / f"part-{index:06d}.parquet"


def _save_chunk(out: Path, meta: dict[str, Any], agg: dict[str, np.ndarray]) -> None:
    meta = {**meta, "digest": _digest(agg)}
    _atomic_write(_chunk_path(out, meta["index"]),
                  lambda f: np.savez(f, meta=np.array(json.dumps(meta, sort_keys=True)), **agg))


def _load_chunk(out: Path, expect: dict[str, Any], shapes: dict[str, tuple[int, ...]],
                records: bool) -> dict[str, np.ndarray]:
    """A chunk's aggregates if its file verifies; raises ValueError saying why not."""
    path = _chunk_path(out, expect["index"])
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            agg = {k: np.array(z[k], dtype=np.int64) for k in AGG_KEYS}
    except Exception as exc:  # zipfile, EOF, OSError, KeyError, JSON: all mean unreadable
        raise ValueError(f"unreadable ({type(exc).__name__}: {exc})") from None
    for k, v in expect.items():
        if meta.get(k) != v:
            raise ValueError(f"{k} is {meta.get(k)!r}, expected {v!r}")
    for k in AGG_KEYS:
        if agg[k].shape != shapes[k]:
            raise ValueError(f"{k} has shape {agg[k].shape}, expected {shapes[k]}")
    if meta.get("digest") != _digest(agg):
        raise ValueError("checksum mismatch")
    if int(agg["counts"][0]) != expect["count"]:
        raise ValueError("game count mismatch")
    if records:
        rp = _records_path(out, expect["index"])
        try:
            import pyarrow.parquet as pq

            rows = pq.read_metadata(rp).num_rows
        except Exception as exc:
            raise ValueError(f"records shard unreadable ({type(exc).__name__})") from None
        if rows != meta.get("n_records"):
            raise ValueError(f"records shard has {rows} rows, expected {meta.get('n_records')}")
    return agg


def _records_table(rec: np.ndarray, cfg: GameConfig, seed: int, chunk: int) -> Any:
    """One row per round as an Arrow table (RULES.md section 8's per-round facts)."""
    import pyarrow as pa

    n = cfg.players
    w = rec[:, K.REC_WINNER]
    won = w >= 0
    st = rec[:, K.REC_STATS:K.REC_STATS + L.NR]
    policies = np.array(cfg.seat_policies + [""], dtype=object)
    cols: dict[str, Any] = {
        "config": pa.DictionaryArray.from_arrays(
            pa.array(np.zeros(len(rec), np.int32)), pa.array([cfg.name])),
        "seed": pa.array(np.full(len(rec), seed, np.int64)),
        "chunk": pa.array(np.full(len(rec), chunk, np.int32)),
        "game": pa.array(rec[:, K.REC_GAME]),
        "round": pa.array(rec[:, K.REC_ROUND].astype(np.int32)),
        "dealer": pa.array(rec[:, K.REC_DEALER].astype(np.int8)),
        "turns": pa.array(st[:, L.R_TURNS].astype(np.int32)),
        "winner_seat": pa.array(w.astype(np.int8), mask=~won),
        "winner_position": pa.array(rec[:, K.REC_WINNER_POS].astype(np.int8), mask=~won),
        "winner_policy": pa.array(policies[w], mask=~won, type=pa.string()),
        "points": pa.array(st[:, L.R_POINTS].astype(np.int32)),
        "cards_played": pa.array(st[:, L.R_PLAYED].astype(np.int32)),
        "cards_drawn": pa.array(st[:, L.R_DRAWN].astype(np.int32)),
    }
    for i, cause in enumerate(L.CAUSES):
        cols[f"drawn_{cause}"] = pa.array(st[:, L.R_DRAW_BY_CAUSE + i].astype(np.int32))
    for name, r in (("reshuffles", L.R_RESHUFFLES), ("jumps", L.R_JUMPS),
                    ("swaps", L.R_SWAPS), ("challenges", L.R_CHALLENGES),
                    ("special_plays", L.R_SPECIAL_PLAYS), ("special_drawn", L.R_SPECIAL_DRAWN)):
        cols[name] = pa.array(st[:, r].astype(np.int32))
    cols["stalemate"] = pa.array(~won)
    for q in range(n):
        cols[f"points_left_seat{q}"] = pa.array(rec[:, K.REC_SEAT_POINTS + q].astype(np.int32))
    return pa.table(cols)


def _save_records(out: Path, table: Any, index: int) -> None:
    import pyarrow.parquet as pq

    _atomic_write(_records_path(out, index), lambda f: pq.write_table(table, f))


def load_aggregates(path: str | os.PathLike[str]) -> dict[str, np.ndarray]:
    """Merged aggregates saved by a run (``aggregates.npz`` or a chunk file)."""
    with np.load(path, allow_pickle=False) as z:
        return {k: np.array(z[k]) for k in AGG_KEYS}


# --- the out dir -------------------------------------------------------------------
_OWNED = ("chunks", "records", "run.json", "summary.json", "aggregates.npz")


def _manifest(cfg: GameConfig, key: str, seed: int, games: int, chunk_size: int,
              records: bool) -> dict[str, Any]:
    from unosim.rules.config import config_hash

    # rules_hash ignores games and seed, so a resume can say which of them changed
    rules = config_hash(cfg.model_copy(update={"games": 1, "seed": 0}))
    return {"manifest_version": MANIFEST_VERSION, "config_name": cfg.name, "config_hash": key,
            "rules_hash": rules,
            "seed": seed, "games": games, "chunk_size": chunk_size, "records": records,
            "chunks": len(chunk_plan(games, chunk_size)), "unosim_version": __version__}


def _write_json(path: Path, data: dict[str, Any]) -> None:
    _atomic_write(path, lambda f: f.write((json.dumps(data, indent=2) + "\n").encode()))


def _check_out(out: Path, manifest: dict[str, Any], resume: bool, force: bool,
               warn: Callable[[str], None]) -> bool:
    """Whether ``out`` holds files; refuses what must not be touched. Reads only."""
    if out.exists() and not out.is_dir():
        raise OutDirError(f"out dir {out} exists and is not a directory")
    existing = out.is_dir() and any(out.iterdir())
    if existing and resume:
        mpath = out / "run.json"
        if not mpath.is_file():
            raise OutDirError(f"cannot resume: {out} has no run.json (not a unosim run dir); "
                              "use --force to start over or another --out")
        try:
            old = json.loads(mpath.read_text())
        except (OSError, ValueError) as exc:
            raise OutDirError(f"cannot resume: {mpath} is unreadable ({exc}); "
                              "use --force to start over") from None
        diffs = ["config changed"] if old.get("rules_hash") != manifest["rules_hash"] else []
        diffs += [f"{k} {old.get(k)!r} -> {manifest[k]!r}"
                  for k in ("seed", "games", "chunk_size", "records")
                  if old.get(k) != manifest[k]]
        if diffs:
            what = "; ".join(diffs)
            raise ResumeMismatchError(f"cannot resume {out}: it holds a different run ({what}); "
                                      "use the original options, another --out, or --force")
        if old.get("unosim_version") != __version__:
            warn(f"resuming a run started by unosim {old.get('unosim_version')} "
                 f"with {__version__}")
    elif existing and not force:
        raise OutDirError(f"out dir {out} is not empty: use --resume to continue it, "
                          "--force to overwrite it, or another --out")
    return existing


def _prepare_out(out: Path, manifest: dict[str, Any], wipe: bool) -> None:
    """Make a checked ``out`` ready: our files wiped (``--force``), folders, manifest."""
    try:
        if wipe:
            for name in _OWNED:
                p = out / name
                if p.is_dir():
                    shutil.rmtree(p)
                elif p.exists():
                    p.unlink()
        (out / "chunks").mkdir(parents=True, exist_ok=True)
        if manifest["records"]:
            (out / "records").mkdir(exist_ok=True)
        for d in ("chunks", "records"):  # temp files of an interrupted write
            for tmp in (out / d).glob(".*.tmp-*") if (out / d).is_dir() else ():
                tmp.unlink()
        _write_json(out / "run.json", {**manifest, "status": "running"})
    except OSError as exc:
        raise OutDirError(f"cannot write to out dir {out}: {exc.strerror or exc}") from None


# --- backends ----------------------------------------------------------------------
@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    """Ignore SIGINT while child processes are spawned (they keep ignoring it)."""
    try:
        old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: nothing to protect
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


@contextlib.contextmanager
def _dask(scheduler: str | None, jobs: int | None) -> Iterator[int]:
    """A joblib dask backend on ``scheduler`` or a LocalCluster; yields n_jobs."""
    try:
        import joblib
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise BackendError("the dask backend needs dask.distributed: "
                           "pip install 'unosim[dask]'") from None
    for name in ("distributed", "tornado", "asyncio"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    cluster = None
    try:
        if scheduler:
            client = Client(scheduler, timeout=DASK_CONNECT_TIMEOUT, set_as_default=False)
        else:
            with _sigint_ignored():  # the worker processes inherit it: Ctrl-C is ours
                cluster = LocalCluster(n_workers=jobs or joblib.cpu_count(),
                                       threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=logging.CRITICAL)
            client = Client(cluster, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        if cluster is not None:
            cluster.close()
        where = f"scheduler {scheduler}" if scheduler else "a local dask cluster"
        msg = " ".join(str(exc).split()) or type(exc).__name__
        raise BackendError(f"cannot reach {where} within {DASK_CONNECT_TIMEOUT} s: "
                           f"{msg[:200]}") from None
    try:
        with joblib.parallel_config(backend="dask", client=client,
                                    wait_for_workers_timeout=DASK_CONNECT_TIMEOUT):
            yield jobs or -1
    finally:
        with contextlib.suppress(Exception):
            client.close(timeout=2)
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.close(timeout=2)


Runner = Callable[[list[tuple[int, int, int]]], Iterator[tuple]]


@contextlib.contextmanager
def _executor(cc: Any, key: str, seed: int, records: bool, jobs: int, backend: str,
              scheduler: str | None) -> Iterator[Runner]:
    """A function mapping chunk tasks to finished chunks in completion order.

    Entered before the out dir is touched, so an unreachable cluster leaves no trace.
    """
    def local(tasks: list[tuple[int, int, int]]) -> Iterator[tuple]:
        for index, start, count in tasks:  # in-process: no pool to start
            yield _chunk_task(cc, key, seed, index, start, count, records, False)

    def pool(n_jobs: int, **kw: Any) -> Runner:
        def go(tasks: list[tuple[int, int, int]]) -> Iterator[tuple]:
            from joblib import Parallel, delayed

            if not tasks:
                return
            calls = (delayed(_chunk_task)(cc, key, seed, i, s, c, records, True)
                     for i, s, c in tasks)
            n = min(n_jobs, len(tasks)) if n_jobs > 0 else n_jobs
            yield from Parallel(n_jobs=n, batch_size=1, return_as="generator_unordered",
                                **kw)(calls)
        return go

    if backend in ("loky", "threads"):
        if jobs == 1:
            yield local
        else:
            # threads share the loaded kernel (it runs without the GIL): no
            # worker start-up, which dominates runs of a few seconds
            run_pool = pool(jobs, backend="loky" if backend == "loky" else "threading")
            yield lambda tasks: local(tasks) if len(tasks) == 1 else run_pool(tasks)
        return
    with _dask(scheduler, None if scheduler else jobs) as n_jobs:
        yield pool(n_jobs)


# --- the run -----------------------------------------------------------------------
def _progress_bar(enabled: bool, total: int, initial: int) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit="game", unit_scale=True, file=sys.stderr,
                dynamic_ncols=True, smoothing=0.1,
                disable=not (enabled and sys.stderr.isatty()))


def run_simulation(
    cfg: GameConfig,
    *,
    games: int,
    seed: int,
    jobs: int | None = None,
    out: str | os.PathLike[str] | None = None,
    records: bool = False,
    resume: bool = False,
    force: bool = False,
    backend: str = "loky",
    scheduler: str | None = None,
    chunk_size: int | None = None,
    progress: bool = True,
    on_warning: Callable[[str], None] | None = None,
) -> RunResult:
    """Simulate ``games`` games of ``cfg`` from ``seed`` and summarise them.

    ``jobs`` defaults to all cores (one for runs of at most SMALL_RUN games); ``out`` None keeps everything in memory
    (no checkpoints, so no ``records`` or ``resume``). ``progress`` shows a
    tqdm bar on stderr when it is a terminal. Warnings (e.g. a corrupt chunk
    recomputed on resume) go to ``on_warning`` and into the result.
    """
    t0 = time.perf_counter()
    warnings: list[str] = []

    def warn(msg: str) -> None:
        warnings.append(msg)
        if on_warning is not None:
            on_warning(msg)

    _check_options(games, jobs, chunk_size, backend, scheduler, out, records, resume, force)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise BadOptionError(f"seed must be a whole number >= 0, got {seed!r}")
    games, seed = int(games), int(seed)
    import joblib

    from unosim.rules.config import compile_config, config_hash

    if jobs is None:
        # Starting worker processes costs about a second; a small run is done sooner
        # in this process. An explicit --jobs is always honoured.
        jobs = 1 if games <= SMALL_RUN and backend != "dask" else joblib.cpu_count()
    chunk_size = chunk_size or default_chunk_size(games)
    run_cfg = cfg.model_copy(update={"games": games, "seed": seed})
    key = config_hash(run_cfg)
    full = compile_config(cfg)
    # Only the kernel's arrays travel to workers (no pydantic import there).
    cc = SimpleNamespace(**{k: getattr(full, k) for k in _KERNEL_FIELDS})
    plan = chunk_plan(games, chunk_size)
    out_dir = Path(out) if out is not None else None
    manifest = _manifest(cfg, key, seed, games, chunk_size, records)
    # Check the out dir before starting a backend (a refusal should be instant), and
    # write to it only once the backend is up (an unreachable cluster leaves no trace).
    existing = _check_out(out_dir, manifest, resume, force, warn) if out_dir else False

    with _executor(cc, key, seed, records, jobs, backend, scheduler) as execute:
        if out_dir is not None:
            _prepare_out(out_dir, manifest, wipe=existing and force)
        return _run(cfg, cc, execute, key=key, seed=seed, games=games, jobs=jobs,
                    backend=backend, chunk_size=chunk_size, plan=plan, out_dir=out_dir,
                    records=records, manifest=manifest, progress=progress, t0=t0,
                    warn=warn, warnings=warnings)


def _run(cfg: GameConfig, cc: Any, execute: Runner, *, key: str, seed: int, games: int,
         jobs: int, backend: str, chunk_size: int, plan: list[tuple[int, int, int]],
         out_dir: Path | None, records: bool, manifest: dict[str, Any], progress: bool,
         t0: float, warn: Callable[[str], None], warnings: list[str]) -> RunResult:
    """The body of `run_simulation`, once the backend is up and the out dir ready."""
    shapes = {k: v.shape for k, v in empty_aggregates(cc).items()}
    total = empty_aggregates(cc)
    todo = plan
    reused = 0
    if out_dir is not None:
        todo = []
        for index, start, count in plan:
            expect = {"index": index, "start": start, "count": count, "seed": seed,
                      "config_hash": key}
            if not _chunk_path(out_dir, index).exists():
                todo.append((index, start, count))
                continue
            try:
                total = merge_aggregates(total, _load_chunk(out_dir, expect, shapes, records))
                reused += 1
            except ValueError as exc:
                warn(f"chunk {index} in {out_dir / 'chunks'} is corrupt ({exc}); recomputing it")
                todo.append((index, start, count))

    done_games = games - sum(c for _, _, c in todo)
    rounds_before = int(total["counts"][1])
    bar = _progress_bar(progress, games, done_games)
    results = execute(todo)
    written = 0
    try:
        for index, agg, rec in results:
            if out_dir is not None:
                meta = {"index": index, "start": plan[index][1], "count": plan[index][2],
                        "seed": seed, "config_hash": key,
                        "n_records": int(len(rec)) if rec is not None else None}
                try:
                    if rec is not None:
                        _save_records(out_dir, _records_table(rec, cfg, seed, index), index)
                    _save_chunk(out_dir, meta, agg)
                    written += 1
                except OSError as exc:
                    raise OutDirError(f"cannot write chunk {index} to {out_dir}: "
                                      f"{exc.strerror or exc}") from None
            total = merge_aggregates(total, agg)
            bar.update(plan[index][2])
    except KeyboardInterrupt:
        done = reused + written
        where = (f"{done} of {len(plan)} chunks saved in {out_dir}; rerun with --resume to finish"
                 if out_dir is not None else "nothing was saved (no out dir)")
        raise RunInterrupted(f"interrupted: {where}") from None
    finally:
        bar.close()
        with _warnings.catch_warnings():  # joblib warns about the tasks it cancels
            _warnings.simplefilter("ignore")
            results.close()

    from unosim.analysis.summary import build_summary, summary_json

    elapsed = time.perf_counter() - t0
    summary = build_summary(total, cfg, seed=seed, games=games)
    result = RunResult(total, summary, out_dir, elapsed, chunk_size, len(plan), len(todo),
                       reused, int(total["counts"][1]) - rounds_before, warnings)
    if out_dir is not None:
        try:
            _atomic_write(out_dir / "aggregates.npz", lambda f: np.savez(f, **total))
            _atomic_write(out_dir / "summary.json",
                          lambda f: f.write(summary_json(summary).encode()))
            _write_json(out_dir / "run.json", {
                **manifest, "status": "complete", "jobs": jobs, "backend": backend,
                "elapsed_s": round(elapsed, 3), "chunks_run": len(todo),
                "chunks_reused": reused, "rounds_run": result.rounds_run,
                "rounds_per_s": round(result.rounds_per_s, 1) if result.rounds_run else None})
        except OSError as exc:
            raise OutDirError(f"cannot write results to {out_dir}: "
                              f"{exc.strerror or exc}") from None
    return result


def _check_options(games: int, jobs: int | None, chunk_size: int | None, backend: str,
                   scheduler: str | None, out: Any, records: bool, resume: bool,
                   force: bool) -> None:
    if isinstance(games, bool) or not isinstance(games, numbers.Integral) or games < 1:
        raise BadOptionError(f"games must be a whole number of at least 1, got {games!r}")
    if jobs is not None and jobs < 1:
        raise BadOptionError(f"jobs must be at least 1 (omit it to use all cores), got {jobs}")
    if chunk_size is not None and chunk_size < 1:
        raise BadOptionError(f"chunk size must be at least 1, got {chunk_size}")
    if backend not in BACKENDS:
        raise BadOptionError(f"unknown backend {backend!r} (choose {' or '.join(BACKENDS)})")
    if scheduler and backend != "dask":
        raise BadOptionError("--scheduler needs --backend dask")
    if resume and force:
        raise BadOptionError("--resume and --force cannot be combined")
    if out is None and (records or resume):
        raise BadOptionError("--records and --resume need an out dir")
