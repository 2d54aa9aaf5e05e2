"""Run many games in parallel chunks: reproducible, resumable, constant memory.

Games are split into fixed chunks (`unosim.run.chunks`). Game ``g`` plays the
same whatever chunk or worker runs it (its random stream is keyed by the seed
and ``g``), and aggregates merge by integer addition, so any number of jobs,
any backend (`unosim.run.backends`), any completion order and any chunk size
give the same totals, byte for byte.

With an out dir every finished chunk is checkpointed as soon as it arrives
(`unosim.run.checkpoints`). A resumed run checks the manifest, reuses the
chunks that verify and recomputes the rest, so an interrupted run finishes
with exactly the result of an uninterrupted one. Only the merged aggregates
stay in memory.

The runner returns aggregates: summaries are the analysis layer's
(`unosim.analysis.summary.summarize_run`), reports the report layer's. It
never prints except for the optional tqdm bar (warnings go to a callback),
and never exits: errors are typed `RunError` subclasses with one-line messages.
"""

from __future__ import annotations

import contextlib
import numbers
import os
import sys
import time
import warnings as _warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np

from unosim.engine.batch import empty_aggregates, merge_aggregates
from unosim.run.backends import BACKENDS, Executor, executor
from unosim.run.checkpoints import reuse_chunks, save_chunk
from unosim.run.chunks import chunk_plan, default_chunk_size
from unosim.run.errors import BadOptionError, RunInterrupted
from unosim.run.lock import lock_out_dir
from unosim.run.manifest import check_out, make_manifest, prepare_out, save_results

if TYPE_CHECKING:
    from unosim.rules.config import GameConfig

__all__ = ["SMALL_RUN", "RunResult", "check_run_dir", "run_simulation"]

SMALL_RUN = 20_000  # games; below this the default is one in-process job
_KERNEL_FIELDS = ("ci", "cf", "pp", "points", "wish_icons", "deck_counts")


@dataclass
class RunResult:
    """What a finished run produced: merged aggregates and how the run went."""

    aggregates: dict[str, np.ndarray]
    cfg: GameConfig
    seed: int
    games: int
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
    """Simulate ``games`` games of ``cfg`` from ``seed`` and merge their aggregates.

    ``jobs`` defaults to all cores (one for runs of at most SMALL_RUN games);
    ``out`` None keeps everything in memory (no checkpoints, so no ``records``
    or ``resume``). ``progress`` shows a tqdm bar on stderr when it is a
    terminal. Warnings (e.g. a corrupt chunk recomputed on resume) go to
    ``on_warning`` and into the result.

    The out dir is locked for the run (`unosim.run.lock`; a caller may hold
    the lock longer, e.g. to write a report) and must be missing, empty, or
    the run dir to ``resume`` or, with ``force``, to clear (`unosim.run.manifest`).

    A KeyboardInterrupt (Ctrl-C; the CLI turns SIGTERM into one too) stops the
    workers, keeps the finished chunks and raises `RunInterrupted`.
    """
    t0 = time.perf_counter()
    warnings: list[str] = []

    def warn(msg: str) -> None:
        warnings.append(msg)
        if on_warning is not None:
            on_warning(msg)

    _check_options(games, seed, jobs, chunk_size, backend, scheduler, out, records, resume,
                   force)
    games, seed = int(games), int(seed)
    import joblib

    from unosim.engine.state import compile_config

    if jobs is None:
        # Starting worker processes costs about a second; a small run is done sooner
        # in this process. An explicit --jobs is always honoured.
        jobs = 1 if games <= SMALL_RUN and backend != "dask" else joblib.cpu_count()
    chunk_size = chunk_size or default_chunk_size(games)
    key, manifest = _manifest(cfg, games, seed, chunk_size, records)
    full = compile_config(cfg)
    # Only the kernel's arrays travel to workers (no pydantic import there).
    cc = SimpleNamespace(**{k: getattr(full, k) for k in _KERNEL_FIELDS})
    out_dir = Path(out) if out is not None else None
    with lock_out_dir(out_dir, warn) if out_dir is not None else contextlib.nullcontext():
        # Check the out dir before starting a backend (a refusal should be instant), and
        # write to it only once the backend is up (an unreachable cluster leaves no trace).
        old = check_out(out_dir, manifest, resume, force, warn) if out_dir else None
        with executor(cc, key, seed, records, jobs, backend, scheduler) as execute:
            if out_dir is not None:
                manifest = prepare_out(out_dir, manifest, old, wipe=force)
            result = _run(cfg, cc, execute, key=key, seed=seed, games=games,
                          chunk_size=chunk_size, out_dir=out_dir, records=records,
                          progress=progress, t0=t0, warn=warn)
        result.warnings = warnings
        if out_dir is not None:
            save_results(out_dir, result.aggregates, manifest, jobs=jobs, backend=backend,
                         elapsed_s=round(result.elapsed, 3), chunks_run=result.chunks_run,
                         chunks_reused=result.chunks_reused, rounds_run=result.rounds_run,
                         rounds_per_s=(round(result.rounds_per_s, 1) if result.rounds_run
                                       else None))
    return result


def check_run_dir(cfg: GameConfig, *, games: int, seed: int, out: str | os.PathLike[str],
                  resume: bool = False, force: bool = False, records: bool = False,
                  chunk_size: int | None = None) -> None:
    """Raise what `run_simulation` would raise about ``out``, touching nothing.

    A study checks every cell's run dir this way before running any, so a
    refusal comes before the first cell's minutes of work, not after.
    """
    _check_options(games, seed, 1, chunk_size, "loky", None, out, records, resume, force)
    _, manifest = _manifest(cfg, int(games), int(seed),
                            chunk_size or default_chunk_size(int(games)), records)
    check_out(Path(out), manifest, resume, force, lambda _msg: None)


def _manifest(cfg: GameConfig, games: int, seed: int, chunk_size: int,
              records: bool) -> tuple[str, dict[str, Any]]:
    """The run's config hash (games and seed included) and its manifest."""
    from unosim.rules.config import config_hash

    key = config_hash(cfg.model_copy(update={"games": games, "seed": seed}))
    return key, make_manifest(cfg, key, seed, games, chunk_size, records)


def _run(cfg: GameConfig, cc: Any, execute: Executor, *, key: str, seed: int, games: int,
         chunk_size: int, out_dir: Path | None, records: bool, progress: bool, t0: float,
         warn: Callable[[str], None]) -> RunResult:
    """Every chunk not reused from ``out_dir``, merged as it arrives (and checkpointed)."""
    plan = chunk_plan(games, chunk_size)
    total, todo = empty_aggregates(cc), plan
    if out_dir is not None:
        total, todo = reuse_chunks(out_dir, plan, seed, key, total, records, warn)
    reused = len(plan) - len(todo)
    rounds_before = int(total["counts"][1])
    bar = _progress_bar(progress, games, games - sum(c for _, _, c in todo))
    results = execute(todo)
    written = 0
    try:
        for index, agg, rec in results:
            if out_dir is not None:
                save_chunk(out_dir, cfg, seed, key, plan[index], agg, rec)
                written += 1
            total = merge_aggregates(total, agg)
            bar.update(plan[index][2])
    except KeyboardInterrupt:
        where = (f"{reused + written} of {len(plan)} chunks saved in {out_dir}; "
                 "rerun with --resume to finish"
                 if out_dir is not None else "nothing was saved (no out dir)")
        raise RunInterrupted(f"interrupted: {where}") from None
    finally:
        bar.close()
        with _warnings.catch_warnings():  # joblib warns about the tasks it cancels
            _warnings.simplefilter("ignore")
            results.close()
    return RunResult(total, cfg, seed, games, out_dir, time.perf_counter() - t0, chunk_size,
                     len(plan), len(todo), reused, int(total["counts"][1]) - rounds_before)


def _whole(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, numbers.Integral)


def _check_options(games: int, seed: int, jobs: int | None, chunk_size: int | None,
                   backend: str, scheduler: str | None, out: Any, records: bool,
                   resume: bool, force: bool) -> None:
    if not _whole(games) or games < 1:
        raise BadOptionError(f"games must be a whole number of at least 1, got {games!r}")
    if not _whole(seed) or seed < 0:
        raise BadOptionError(f"seed must be a whole number >= 0, got {seed!r}")
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
    if isinstance(out, str) and not out:
        raise BadOptionError("the out dir must not be empty (--out '')")
