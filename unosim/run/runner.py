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

With a stopping rule (``precision``) the chunks grow from small to large and
the rule is checked at every chunk boundary in game order: the run ends at
the first boundary where the headline interval is narrow enough (or at the
cap). Which games are used depends only on the seed, the configs and the
rule, never on the backend or the number of jobs; chunks a fast worker
finished beyond the stopping point are kept on disk but not counted.

`run_lockstep` runs several configs on the same games, chunk by chunk, and
accumulates the sums and sums of products of their per-game features for the
pairs asked for (`unosim.run.backends.pair_moments`), from which the analysis
layer derives paired intervals without any per-game data in memory.
"""

from __future__ import annotations

import contextlib
import functools
import math
import numbers
import os
import re
import sys
import time
import warnings as _warnings
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Protocol, TypeGuard, cast

import numpy as np

from unosim.engine.kernel.batch import NGF, empty_aggregates, merge_aggregates
from unosim.rules.limits import MAX_GAMES, MAX_SEED
from unosim.run.backends import BACKENDS, ChunkResult, Executor, executor
from unosim.run.checkpoints import (
    PAIR_KEYS,
    ForeignChunk,
    load_chunk,
    load_pair_chunk,
    save_chunk,
    save_pair_chunk,
)
from unosim.run.chunks import (
    MIN_CHUNK,
    Chunk,
    ChunkPlan,
    chunk_plan,
    default_chunk_size,
    growing_plan,
)
from unosim.run.documents import RUN_MEASURE, Manifest, Stop
from unosim.run.errors import BadOptionError, OutDirError, RunInterrupted
from unosim.run.lock import lock_out_dir
from unosim.run.manifest import (
    MANIFEST,
    check_out,
    make_manifest,
    prepare_out,
    read_manifest,
    rules_hash,
    save_results,
)

if TYPE_CHECKING:
    from unosim.rules.config import GameConfig

__all__ = ["SMALL_RUN", "Lockstep", "RunResult", "StopRule", "check_games",
           "check_run_dir", "check_seed", "run_lockstep", "run_simulation", "turns_half_width"]

SMALL_RUN = 20_000  # games; below this the default is one in-process job
_KERNEL_FIELDS = ("ci", "cf", "pp", "points", "wish_icons", "deck_counts", "effects",
                  "kinds")
_FACADE_FIELDS = ("edition_name", "seat_policies", "rules", "card_list")
Aggs = dict[str, np.ndarray]
Pair = tuple[int, int]


@dataclass(frozen=True)
class StopRule:
    """Stop at the first chunk boundary where ``half_width(prefix) <= target``.

    ``half_width(aggs, pair_sums, pair_moments, games)`` gets the merged prefix
    (one aggregate per config, the pairs' moments, the games in it) and returns
    the current 95% half-width of the headline quantity; ``what`` names it.
    """

    target: float
    half_width: Callable[[list[Aggs], np.ndarray, np.ndarray, int], float]
    what: str = RUN_MEASURE
    min_games: int = 2 * MIN_CHUNK  # no stop on a variance from fewer games


def turns_half_width(aggs: list[Aggs], _sums: np.ndarray, _moments: np.ndarray,
                     _games: int) -> float:
    """The largest 95% t half-width of mean turns per round among ``aggs``.

    The same interval the reports print (`unosim.analysis.stats.summarize_hist`).
    """
    from scipy import special

    worst = 0.0
    for agg in aggs:
        # Exact integer sums, one division: no float reduction decides where a run stops.
        counts = np.asarray(agg["turns_hist"], dtype=np.int64).tolist()
        n = sum(counts)
        if n < 2:
            return math.inf
        s1 = sum(v * c for v, c in enumerate(counts))
        s2 = sum(v * v * c for v, c in enumerate(counts))
        sem = math.sqrt((n * s2 - s1 * s1) / (n * n * (n - 1)))
        worst = max(worst, float(special.stdtrit(n - 1, 0.975)) * sem)
    return worst


@dataclass
class RunResult:
    """What a finished run produced: merged aggregates and how the run went."""

    aggregates: dict[str, np.ndarray]
    cfg: GameConfig
    seed: int
    games: int  # games in the result (with a stopping rule: where it stopped)
    out: Path | None
    elapsed: float  # seconds, this invocation only
    chunk_size: int
    chunks_total: int  # chunks in the result
    chunks_run: int  # computed by this invocation
    chunks_reused: int  # verified on disk (resume)
    rounds_run: int  # rounds computed by this invocation
    warnings: list[str] = field(default_factory=list)
    stop: Stop | None = None  # the stopping rule and how it ended

    @property
    def rounds_per_s(self) -> float:
        """Throughput of this invocation (rounds it simulated / wall time)."""
        return self.rounds_run / self.elapsed if self.elapsed > 0 else float("nan")


@dataclass
class Lockstep:
    """Configs run on the same games: each one's run, and the pairs' moments.

    ``pair_sums[p]`` and ``pair_moments[p]`` hold, for pair ``pairs[p] = (a, b)``,
    the sums and sums of products of the per-game features ``GF_*`` of ``a``
    (first NGF columns) and ``b`` (next NGF) over all ``games`` games.
    """

    runs: list[RunResult]
    pairs: tuple[Pair, ...]
    pair_sums: np.ndarray
    pair_moments: np.ndarray
    games: int
    stop: Stop | None = None


PROGRESS_EVERY = 30.0  # seconds between progress lines when stderr is not a terminal


class _ProgressLines:
    """Progress as plain lines, for a stderr that is not a terminal (a log, CI, a pipe).

    A tqdm bar there is either hidden or a stream of carriage returns; a slow
    run (a plug-in seat plays about 100 rounds/s) would then say nothing for
    minutes. One line at each tenth of the games (or, without a known end,
    every `PROGRESS_EVERY` seconds), and one at the end.
    """

    def __init__(self, total: int | None, initial: int) -> None:
        self.total, self.done = total, initial
        self.t0 = self.last = time.perf_counter()
        self.tenth = self._tenth()

    def _tenth(self) -> int:
        return 10 * self.done // self.total if self.total else 0

    def _say(self) -> None:
        seconds = time.perf_counter() - self.t0
        of = f" of {self.total:,} ({100 * self.done // self.total}%)" if self.total else ""
        print(f"progress: {self.done:,}{of} games, {seconds:.0f} s", file=sys.stderr,
              flush=True)
        self.last = time.perf_counter()

    def update(self, n: int) -> None:
        self.done += n
        tenth = self._tenth()
        if tenth > self.tenth or (self.total is None
                                  and time.perf_counter() - self.last >= PROGRESS_EVERY):
            self.tenth = tenth
            self._say()

    def close(self) -> None:
        if self.total is None or self.tenth < 10:  # the last line says where it ended
            self._say()
            self.tenth = 10


class _Bar(Protocol):
    """What a run needs of a progress bar (tqdm's, `_ProgressLines`, `_NoProgress`)."""

    def update(self, n: int) -> object: ...

    def close(self) -> None: ...


class _NoProgress:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _progress_bar(enabled: bool, total: int | None, initial: int) -> _Bar:
    """A tqdm bar on a terminal, `_ProgressLines` elsewhere, nothing if not ``enabled``."""
    if not enabled:
        return _NoProgress()
    if not sys.stderr.isatty():
        return _ProgressLines(total, initial)
    from tqdm import tqdm

    bar: _Bar = tqdm(total=total, initial=initial, unit="game", unit_scale=True,
                     file=sys.stderr, dynamic_ncols=True, smoothing=0.1)
    return bar


def run_simulation(  # noqa: PLR0913  the run options, each by keyword, until issue 21's options value
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
    precision: float | None = None,
) -> RunResult:
    """Simulate ``games`` games of ``cfg`` from ``seed`` and merge their aggregates.

    ``jobs`` defaults to all cores (one for runs of at most SMALL_RUN games);
    ``out`` None keeps everything in memory (no checkpoints, so no ``records``
    or ``resume``). ``progress`` shows a tqdm bar on stderr when it is a
    terminal. Warnings (e.g. a corrupt chunk recomputed on resume) go to
    ``on_warning`` and into the result.

    With ``precision``, ``games`` is the cap and the run stops at the first
    chunk boundary where the 95% half-width of mean turns per round is at most
    ``precision`` (`StopRule`); the result says where (``games``, ``stop``).

    The out dir is locked for the run (`unosim.run.lock`; a caller may hold
    the lock longer, e.g. to write a report) and must be missing, empty, or
    the run dir to ``resume`` or, with ``force``, to clear (`unosim.run.manifest`).

    A KeyboardInterrupt (Ctrl-C; the CLI turns SIGTERM into one too) stops the
    workers, keeps the finished chunks and raises `RunInterrupted`.
    """
    stop = StopRule(precision, turns_half_width) if precision is not None else None
    return run_lockstep([cfg], games=games, seed=seed, jobs=jobs,
                        outs=[out] if out is not None else None, records=records,
                        resume=resume, force=force, backend=backend, scheduler=scheduler,
                        chunk_size=chunk_size, progress=progress, on_warning=on_warning,
                        stop=stop).runs[0]


def run_lockstep(  # noqa: PLR0913  the run options, each by keyword, until issue 21's options value
    cfgs: Sequence[GameConfig],
    *,
    games: int,
    seed: int,
    pairs: Sequence[Pair] = (),
    stop: StopRule | None = None,
    jobs: int | None = None,
    outs: Sequence[str | os.PathLike[str]] | None = None,
    pair_out: str | os.PathLike[str] | None = None,
    records: bool = False,
    resume: bool = False,
    force: bool = False,
    backend: str = "loky",
    scheduler: str | None = None,
    chunk_size: int | None = None,
    progress: bool = True,
    on_warning: Callable[[str], None] | None = None,
) -> Lockstep:
    """Run every config on games ``0 .. games-1`` of ``seed``, chunk by chunk together.

    Each config's run is exactly what `run_simulation` gives alone (the same
    aggregates; with ``outs``, the same run dir, one per config). ``pairs``
    lists (baseline, other) indices whose per-game moments to accumulate;
    with ``pair_out`` their chunks are checkpointed there too, and a chunk is
    reused on resume only when every config's and pair's file verifies.
    ``stop`` ends the run early at the first chunk boundary that meets it.
    """
    t0 = time.perf_counter()
    warnings: list[str] = []

    def warn(msg: str) -> None:
        warnings.append(msg)
        if on_warning is not None:
            on_warning(msg)

    out_dirs = _out_dirs(outs, len(cfgs))
    _check_options(games, seed, jobs=jobs, chunk_size=chunk_size, backend=backend,
                   scheduler=scheduler, out=out_dirs[0] if out_dirs else None,
                   records=records, resume=resume, force=force)
    _check_stop_and_pairs(stop, pair_out is not None, out_dirs is not None)
    games, seed = int(games), int(seed)
    pairs = tuple((int(a), int(b)) for a, b in pairs)
    from unosim.engine.kernel.state import compile_config
    from unosim.engine.plugins import plugin_seats

    if jobs is None:
        # Starting worker processes costs about a second; a small run is done sooner
        # in this process (without importing joblib, a tenth of a second of CPU).
        # An explicit --jobs is always honoured.
        small = games * len(cfgs) <= SMALL_RUN and stop is None
        if small and backend != "dask":
            jobs = 1
        else:
            import joblib

            jobs = joblib.cpu_count()
    precision = stop.target if stop is not None else None
    chunk_size, plan = _chunking(cfgs, games, chunk_size, stop, out_dirs, resume)
    plugins = tuple(plugin_seats(c.seat_policies) for c in cfgs)
    if records and any(plugins):
        raise BadOptionError("--records is not available with plug-in seats")
    keys, manifests = zip(*(_manifest(c, games, seed, chunk_size, records, precision)
                            for c in cfgs), strict=True)
    # Only the kernel's arrays travel to workers (no pydantic import there).
    # (a plug-in seat's games go through the façade, which also names the edition and rules)
    ccs = tuple(SimpleNamespace(**{k: getattr(compile_config(c), k)
                                   for k in _KERNEL_FIELDS + (_FACADE_FIELDS if p else ())})
                for c, p in zip(cfgs, plugins, strict=True))
    po = Path(pair_out) if pair_out is not None else None
    with contextlib.ExitStack() as held:
        olds: list[Manifest | None] = [None] * len(cfgs)
        if out_dirs is not None:
            # Check every out dir before starting a backend (a refusal should be
            # instant), and write only once it is up (an unreachable cluster leaves
            # no trace).
            for d in out_dirs:
                held.enter_context(lock_out_dir(d, warn))
            olds = [check_out(d, m, resume, force, warn)
                    for d, m in zip(out_dirs, manifests, strict=True)]
        execute = held.enter_context(executor(ccs, keys, seed, records=records, jobs=jobs,
                                              backend=backend, scheduler=scheduler,
                                              pairs=pairs, plugins=plugins))
        if out_dirs is not None:
            manifests = tuple(prepare_out(d, m, o, wipe=force)
                              for d, m, o in zip(out_dirs, manifests, olds, strict=True))
            if po is not None:
                (po / "chunks").mkdir(parents=True, exist_ok=True)
        # Chunk files are keyed by the rules, seed and game range, not by the run's
        # games: a resume with more --games reuses every chunk of the shorter run.
        chunk_keys = [rules_hash(c) for c in cfgs]
        job = _Job(cfgs, ccs, chunk_keys, seed, pairs, plan, out_dirs, po, records, stop, warn)
        res = job.run(execute, progress, games)
        elapsed = time.perf_counter() - t0
        dirs: list[Path | None] = list(out_dirs) if out_dirs else [None] * len(cfgs)
        runs = [RunResult(agg, c, seed, res.games, d, elapsed, chunk_size, res.chunks,
                          res.run, res.reused, rounds, warnings, res.stop)
                for agg, c, d, rounds in zip(res.totals, cfgs, dirs, res.rounds_run,
                                             strict=True)]
        if out_dirs is not None:
            for r, d, m in zip(runs, out_dirs, manifests, strict=True):
                save_results(d, r.aggregates, m, jobs=jobs, backend=backend,
                             elapsed_s=round(elapsed, 3), chunks_run=r.chunks_run,
                             chunks_reused=r.chunks_reused, rounds_run=r.rounds_run,
                             rounds_per_s=(round(r.rounds_per_s, 1) if r.rounds_run
                                           else None), stop=r.stop, games_used=r.games)
    return Lockstep(runs, pairs, res.pair_sums, res.pair_moments, res.games, res.stop)


def check_run_dir(cfg: GameConfig, *, games: int, seed: int, out: str | os.PathLike[str],
                  resume: bool = False, force: bool = False, records: bool = False,
                  chunk_size: int | None = None, precision: float | None = None) -> None:
    """Raise what `run_simulation` would raise about ``out``, touching nothing.

    A study checks every cell's run dir this way before running any, so a
    refusal comes before the first cell's minutes of work, not after.
    """
    _check_options(games, seed, jobs=1, chunk_size=chunk_size, backend="loky", scheduler=None,
                   out=out, records=records, resume=resume, force=force)
    size = chunk_size or (MIN_CHUNK if precision is not None
                          else default_chunk_size(int(games), slow=_slow([cfg])))
    _, manifest = _manifest(cfg, int(games), int(seed), size, records, precision)
    check_out(Path(out), manifest, resume, force, lambda _msg: None)


def _out_dirs(outs: Sequence[str | os.PathLike[str]] | None, n: int) -> list[Path] | None:
    """``outs`` as paths, one per config, none of them an empty string (not ".")."""
    if outs is None:
        return None
    if any(isinstance(o, str) and not o for o in outs):
        raise BadOptionError("the out dir must not be empty (--out '')")
    if len(outs) != n:
        raise BadOptionError("one out dir per config is needed")
    return [Path(o) for o in outs]


def _check_stop_and_pairs(stop: StopRule | None, pair_out: bool, outs: bool) -> None:
    """Refuse a precision that is not a positive number, and paired checkpoints
    without the configs' own out dirs."""
    if stop is not None and not (math.isfinite(stop.target) and stop.target > 0):
        raise BadOptionError(f"precision must be a positive number, got {stop.target!r}")
    if pair_out and not outs:
        raise BadOptionError("paired checkpoints need the configs' out dirs")


def _chunking(cfgs: Sequence[GameConfig], games: int, chunk_size: int | None,
              stop: StopRule | None, outs: Sequence[Path] | None,
              resume: bool) -> tuple[int, ChunkPlan]:
    """The chunk size and plan: chunks that grow from ``MIN_CHUNK`` when a rule may stop
    the run early (it is checked at each boundary), else the size a resumed run used or
    the default for this many games."""
    if stop is not None:
        size = chunk_size or MIN_CHUNK
        return size, growing_plan(games, size)
    size = (chunk_size or _extended_chunk_size(outs, resume)
            or default_chunk_size(games * len(cfgs), slow=_slow(cfgs)))
    return size, chunk_plan(games, size)


def _slow(cfgs: Sequence[GameConfig]) -> bool:
    """Does a plug-in (Python) seat play in any of ``cfgs``? Its games are slow."""
    from unosim.engine.plugins import plugin_seats

    return any(plugin_seats(c.seat_policies) for c in cfgs)


def _extended_chunk_size(outs: Sequence[Path] | None, resume: bool) -> int | None:
    """On ``resume``, the chunk size the run(s) in ``outs`` used, if they agree on one.

    A run resumed with more games keeps its chunk size (the default one grows
    with the games), so that its chunks are the first chunks of the longer run.
    """
    if not resume or not outs:
        return None
    sizes = set()
    for d in outs:
        if not (d / MANIFEST).is_file():
            return None
        try:
            old = read_manifest(d)
        except OutDirError:
            return None  # check_out says why, under the lock
        if old.get("precision") is not None:
            return None
        sizes.add(old["chunk_size"])
    return sizes.pop() if len(sizes) == 1 else None


def _manifest(cfg: GameConfig, games: int, seed: int, chunk_size: int, records: bool,
              precision: float | None = None) -> tuple[str, Manifest]:
    """The run's config hash (games and seed included) and its manifest."""
    from unosim.rules.config import config_hash

    key = config_hash(cfg.model_copy(update={"games": games, "seed": seed}))
    return key, make_manifest(cfg, key, seed, games, chunk_size, records=records,
                              precision=precision)


@dataclass
class _Outcome:
    totals: list[Aggs]
    pair_sums: np.ndarray
    pair_moments: np.ndarray
    games: int
    chunks: int
    run: int
    reused: int
    rounds_run: list[int]
    stop: Stop | None


@dataclass
class _Job:
    """One lockstep run's chunks: reuse, compute, checkpoint, merge, stop."""

    cfgs: Sequence[GameConfig]
    ccs: tuple[Any, ...]
    keys: list[str]
    seed: int
    pairs: tuple[Pair, ...]
    plan: ChunkPlan
    outs: list[Path] | None
    pair_out: Path | None
    records: bool
    stop: StopRule | None
    warn: Callable[[str], None]
    kept: dict[int, set[int]] = field(default_factory=dict)  # chunk -> files found whole

    def _reuse(self, chunk: tuple[int, int, int]) -> ChunkResult | None:
        """The chunk from disk if every config's (and pair's) file verifies.

        Otherwise the chunk is recomputed for every config, and the files that
        did verify are remembered so that they are kept, not rewritten.
        """
        if self.outs is None:
            return None
        aggs: list[dict[str, np.ndarray] | None] = []
        for d, cc, key in zip(self.outs, self.ccs, self.keys, strict=True):
            shapes = {k: v.shape for k, v in empty_aggregates(cc).items()}
            aggs.append(self._verified(d, functools.partial(
                load_chunk, d, chunk, self.seed, key, shapes, self.records), chunk[0]))
        sums = np.zeros((len(self.pairs), 2 * NGF), np.int64)
        moments = np.zeros((len(self.pairs), 2 * NGF, 2 * NGF), np.int64)
        pair_ok = not self.pairs
        if self.pairs and self.pair_out is not None:
            po = self.pair_out
            arr = self._verified(po, lambda: load_pair_chunk(
                po, chunk, self.seed, self.keys, [list(p) for p in self.pairs],
                {PAIR_KEYS[0]: sums.shape, PAIR_KEYS[1]: moments.shape}), chunk[0])
            if arr is not None:
                sums, moments, pair_ok = arr[PAIR_KEYS[0]], arr[PAIR_KEYS[1]], True
        kept = {i for i, a in enumerate(aggs) if a is not None} | ({-1} if pair_ok else set())
        if len(kept) == len(aggs) + 1:
            return ChunkResult(chunk[0], [a for a in aggs if a is not None], [None] * len(aggs),
                               sums, moments)
        self.kept[chunk[0]] = kept
        return None

    def _on_disk(self) -> list[int]:
        """The chunks of the plan that have a file in some checkpoint folder, in order.

        Only these can be reused: a fresh run of millions of chunks looks at
        one empty folder, not at millions of paths.
        """
        found: set[int] = set()
        for d in [*(self.outs or ()), *([self.pair_out] if self.pair_out and self.pairs else [])]:
            with contextlib.suppress(OSError):
                with os.scandir(d / "chunks") as entries:
                    found.update(int(m[1]) for e in entries
                                 if (m := _CHUNK_FILE.fullmatch(e.name)))
        return sorted(i for i in found if i < len(self.plan))

    def _verified(self, where: Path, load: Callable[[], dict[str, np.ndarray]],
                  index: int) -> dict[str, np.ndarray] | None:
        """``load()`` if its file is there and verifies; None (with a warning if corrupt)."""
        try:
            return load()
        except (FileNotFoundError, ForeignChunk):  # missing, or another study's: computed anew
            return None
        except ValueError as exc:
            self.warn(f"chunk {index} in {where / 'chunks'} is corrupt ({exc}); recomputing it")
            return None

    def _save(self, res: ChunkResult) -> None:
        """A computed chunk's files, except those a resume found whole (they stay as they are)."""
        chunk = self.plan[res.idx]
        kept = self.kept.get(res.idx, set())
        if self.outs is not None:
            for i, (d, c, key, agg, rec) in enumerate(zip(self.outs, self.cfgs, self.keys,
                                                          res.aggs, res.recs, strict=True)):
                if i not in kept:
                    save_chunk(d, c, self.seed, key, chunk, agg, rec=rec)
        if self.pair_out is not None and self.pairs and -1 not in kept:
            save_pair_chunk(self.pair_out, chunk, self.seed, self.keys,
                            [list(p) for p in self.pairs],
                            dict(zip(PAIR_KEYS, (res.pair_sums, res.pair_moments),
                                     strict=True)))

    def run(self, execute: Executor, progress: bool, games: int) -> _Outcome:  # noqa: C901
        # (C901: reuse, save, merge and the stop rule share one try block, so that a Ctrl-C
        # anywhere in it counts the chunks saved exactly)
        """Every chunk not reused, merged (in game order when a rule may stop the run)."""
        totals = [empty_aggregates(cc) for cc in self.ccs]
        sums = np.zeros((len(self.pairs), 2 * NGF), np.int64)
        moments = np.zeros((len(self.pairs), 2 * NGF, 2 * NGF), np.int64)
        reused = {i: r for i in self._on_disk() if (r := self._reuse(self.plan[i])) is not None}
        # the chunks to compute, listed lazily: a plan may hold millions
        todo = cast("list[Chunk]", _Remaining(self.plan, reused.keys()))
        # a run that stops on precision has no known end: the bar counts games only
        bar = _progress_bar(progress, games if self.stop is None else None,
                            sum(self.plan[i][2] for i in reused) if self.stop is None else 0)
        pending: dict[int, ChunkResult] = dict(reused)
        merged, used, n_run, n_reused, done_games = 0, 0, 0, 0, 0
        rounds_run = [0] * len(self.ccs)
        outcome: Stop | None = None
        results = execute(todo)
        # (chunk being saved or -1, chunks saved): one name, so a Ctrl-C between two
        # bytecodes never sees a chunk counted twice or not at all
        saving = (-1, 0)

        def save(res: ChunkResult) -> None:
            nonlocal saving
            saving = (res.idx, saving[1])
            self._save(res)
            saving = (-1, saving[1] + 1)

        def merge(res: ChunkResult) -> None:
            nonlocal totals, sums, moments, used, n_run, n_reused, done_games
            totals = [merge_aggregates(t, a) for t, a in zip(totals, res.aggs, strict=True)]
            sums, moments = sums + res.pair_sums, moments + res.pair_moments
            used += 1
            done_games += self.plan[res.idx][2]
            if res.idx in reused:
                n_reused += 1
            else:
                n_run += 1
                for i, a in enumerate(res.aggs):
                    rounds_run[i] += int(a["counts"][1])

        try:
            if self.stop is None:
                for res in reused.values():
                    merge(res)
                for res in results:
                    save(res)
                    merge(res)
                    bar.update(self.plan[res.idx][2])
            else:
                while merged < len(self.plan):
                    while merged not in pending:
                        res = next(results)
                        save(res)
                        pending[res.idx] = res
                    merge(pending.pop(merged))
                    bar.update(self.plan[merged][2])
                    merged += 1
                    if done_games >= self.stop.min_games:
                        hw = self.stop.half_width(totals, sums, moments, done_games)
                        if hw <= self.stop.target:
                            outcome = self._stopped(hw, True, done_games, games)
                            break
                if outcome is None:
                    hw = self.stop.half_width(totals, sums, moments, done_games)
                    outcome = self._stopped(hw, hw <= self.stop.target, done_games, games)
        except KeyboardInterrupt:
            raise self._interrupted(len(reused), *saving) from None
        finally:
            bar.close()
            with _warnings.catch_warnings():  # joblib warns about the tasks it cancels
                _warnings.simplefilter("ignore")
                results.close()
        return _Outcome(totals, sums, moments, done_games, used, n_run, n_reused, rounds_run,
                        outcome)

    def _interrupted(self, reused: int, inflight: int, written: int) -> RunInterrupted:
        """What a Ctrl-C leaves: how many chunks are saved, and where."""
        # interrupted while saving: the chunk counts if its files are whole (as --resume sees)
        if inflight >= 0 and self._reuse(self.plan[inflight]) is not None:
            written += 1
        d = self.outs[0].parent if self.outs and len(self.outs) > 1 else (
            self.outs[0] if self.outs else None)
        where = (f"{reused + written} of {len(self.plan)} chunks saved in {d}; "
                 "rerun with --resume to finish"
                 if d is not None else "nothing was saved (no out dir)")
        return RunInterrupted(f"interrupted: {where}")

    def _stopped(self, hw: float, met: bool, used: int, cap: int) -> Stop:
        assert self.stop is not None
        return {"rule": f"stop at the first chunk boundary where the {self.stop.what} "
                        f"is at most {self.stop.target:g} (checked from "
                        f"{self.stop.min_games:,} games on; chunks grow from "
                        f"{self.plan[0][2]:,} games)",
                "precision": self.stop.target, "max_games": cap, "games": used,
                "half_width": round(hw, 6) if math.isfinite(hw) else None, "met": met}


_CHUNK_FILE = re.compile(r"(?:chunk|pairs)-(\d{6,})\.npz")


class _Remaining:
    """The chunks of ``plan`` not in ``done``, in order, without listing them."""

    def __init__(self, plan: ChunkPlan, done: Collection[int]) -> None:
        self.plan, self.done = plan, done

    def __len__(self) -> int:
        return len(self.plan) - len(self.done)

    def __iter__(self) -> Iterator[Chunk]:
        return (c for c in self.plan if c[0] not in self.done)


def _whole(value: object) -> TypeGuard[int]:
    """A whole number: an int or a numpy integer, never a bool."""
    return not isinstance(value, bool) and isinstance(value, numbers.Integral)


def check_games(games: object, name: str = "games") -> None:
    """Refuse a game count (or cap) outside the limits the CLI's options enforce.

    Game indices and seeds are 64-bit integers in the kernel's random streams
    (`unosim.rules.limits`): a larger value would fail at the end of a run, or
    never end. Every caller (CLI, API, studies) meets this one check.
    """
    if not _whole(games) or not 1 <= games <= MAX_GAMES:
        raise BadOptionError(f"{name} must be a whole number from 1 to {MAX_GAMES:,}, "
                             f"got {_short(games)}")


def check_seed(seed: object) -> None:
    """Refuse a seed outside the CLI's limits (see `check_games`)."""
    if not _whole(seed) or not 0 <= seed <= MAX_SEED:
        raise BadOptionError(f"seed must be a whole number from 0 to {MAX_SEED:,}, "
                             f"got {_short(seed)}")


def _short(value: object) -> str:
    """``repr(value)``, cut short: a hostile value must not make a long message."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _check_options(games: int, seed: int, *, jobs: int | None, chunk_size: int | None,
                   backend: str, scheduler: str | None, out: object, records: bool,
                   resume: bool, force: bool) -> None:
    check_games(games)
    check_seed(seed)
    if jobs is not None and (not _whole(jobs) or jobs < 1):
        raise BadOptionError("jobs must be a whole number of at least 1 (omit it to use all "
                             f"cores), got {_short(jobs)}")
    if chunk_size is not None and (not _whole(chunk_size) or not 1 <= chunk_size <= MAX_GAMES):
        raise BadOptionError(f"chunk size must be a whole number from 1 to {MAX_GAMES:,}, "
                             f"got {_short(chunk_size)}")
    if backend not in BACKENDS:
        raise BadOptionError(f"unknown backend {_short(backend)} "
                             f"(choose {' or '.join(BACKENDS)})")
    if scheduler and backend != "dask":
        raise BadOptionError("--scheduler needs --backend dask")
    if resume and force:
        raise BadOptionError("--resume and --force cannot be combined")
    if out is None and (records or resume):
        raise BadOptionError("--records and --resume need an out dir")
    if isinstance(out, str) and not out:
        raise BadOptionError("the out dir must not be empty (--out '')")
