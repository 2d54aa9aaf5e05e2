"""The runs a comparison or sweep reports on: simulated now, or read back from a run directory.

A finished run directory is read through its ``summary.json`` (the resolved
config, seed and config hash) and ``aggregates.npz`` (the merged aggregates),
never through the runner's checkpoints: every interval a report prints comes
from the aggregates alone. Both files are checked before they are trusted.

A study (``compare``, ``sweep``) runs each cell into its own run dir under
``OUT/runs`` with the rules of ``unosim run``: each cell's dir is locked while
it runs, ``resume`` continues interrupted cells, ``force`` clears finished
ones, and without either a cell dir that holds a run is refused before any
cell starts. Run dirs given as inputs are read-only: no cell is written there,
and the study's out dir may not lie inside one.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from unosim.analysis.estimates import n_rounds
from unosim.analysis.summary import summarize_run
from unosim.engine.batch import empty_aggregates
from unosim.engine.state import compile_config
from unosim.rules.config import (
    ConfigError,
    GameConfig,
    config_hash,
    name_slug,
    validate_config,
)
from unosim.run import OutDirError, check_run_dir, lock_out_dir, read_arrays
from unosim.run.lock import is_lock_file

__all__ = ["Job", "Run", "cell_dirs", "check_reuse", "paired_turns_half_width", "run_paired", "load_run", "run_config", "run_jobs", "study_dir"]

# Aggregates an older unosim wrote lack these; their estimates then carry no interval.
OPTIONAL_KEYS = ("sums_sq",)
MAX_SUMMARY = 1 << 20  # bytes; a summary.json is a few KB


@dataclass
class Run:
    """One config's merged aggregates and where they came from."""

    cfg: GameConfig
    aggregates: dict[str, np.ndarray]
    seed: int
    games: int
    out: Path | None = None
    summary: dict[str, Any] | None = None
    reused: bool = False

    @property
    def rounds(self) -> int:
        return n_rounds(self.aggregates)


@dataclass(frozen=True)
class Job:
    """One run a study needs: a config, its games and seed, and its run dir."""

    cfg: GameConfig
    games: int
    seed: int
    out: Path | None = None


def run_config(
    cfg: GameConfig,
    *,
    games: int,
    seed: int,
    out: str | Path | None = None,
    jobs: int | None = None,
    progress: bool = False,
    reuse: bool = False,
    resume: bool = False,
    force: bool = False,
    on_warning: Callable[[str], None] | None = None,
    backend: str = "loky",
    scheduler: str | None = None,
) -> Run:
    """Simulate ``games`` games of ``cfg`` into run dir ``out``, as ``unosim run`` would.

    Runs through ``unosim.run.run_simulation`` and writes ``summary.json``, so
    ``out`` is a finished run directory; ``out`` stays locked until then.
    ``reuse`` returns the finished run already in ``out`` when it is exactly
    this one (same config, seed and games); ``resume`` and ``force`` are the
    runner's.
    """
    from unosim.run import run_simulation

    opts: dict[str, Any] = {"jobs": jobs, "progress": progress, "on_warning": on_warning,
                            "backend": backend, "scheduler": scheduler}
    if out is None:
        res = run_simulation(cfg, games=games, seed=seed, **opts)
        return Run(cfg, dict(res.aggregates), seed, games, None, summarize_run(res))
    out_dir = Path(out)
    with lock_out_dir(out_dir, on_warning):
        old = _reusable(cfg, games, seed, out_dir, on_warning) if reuse else None
        if old is not None:
            return old
        res = run_simulation(cfg, games=games, seed=seed, out=out_dir, resume=resume,
                             force=force, **opts)
        return Run(cfg, dict(res.aggregates), seed, games, out_dir, summarize_run(res))


def _reusable(cfg: GameConfig, games: int, seed: int, out: Path,
              warn: Callable[[str], None] | None) -> Run | None:
    """The finished run in ``out`` if it is exactly ``cfg`` with ``games`` and ``seed``."""
    if not (out / "aggregates.npz").is_file():
        return None
    try:
        old = load_run(out)
    except (ValueError, ConfigError) as exc:
        if warn is not None:
            warn(f"cannot reuse {out}: {exc}")
        return None
    key = config_hash(cfg.model_copy(update={"games": int(games), "seed": int(seed)}))
    return old if old.summary and old.summary.get("config_hash") == key else None


def check_reuse(cfg: GameConfig, games: int, seed: int, out: Path,
                warn: Callable[[str], None] | None, precision: float | None = None) -> None:
    """Refuse, touching nothing, a cell dir ``--reuse`` may not continue.

    It may hold exactly this finished run, or nothing; anything else (another
    run, a broken one) is refused as `unosim.run.check_run_dir` would refuse it.
    """
    if precision is None and _reusable(cfg, games, seed, out, warn) is not None:
        return
    try:
        check_run_dir(cfg, games=games, seed=seed, out=out, resume=True, precision=precision)
        if precision is not None:
            return  # the same precision run (its manifest matches): continue it
    except OutDirError:
        pass
    check_run_dir(cfg, games=games, seed=seed, out=out, precision=precision)


def run_paired(
    cfgs: Sequence[GameConfig],
    *,
    games: int,
    seed: int,
    pairs: Sequence[tuple[int, int]] = (),
    dirs: Sequence[Path] | None = None,
    pair_out: Path | None = None,
    precision: float | None = None,
    reuse: bool = False,
    resume: bool = False,
    force: bool = False,
    what: str = "",
    **run_opts: Any,
) -> tuple[list[Run], dict[int, Any], Any]:
    """Run ``cfgs`` in lockstep on the same games, pairing each ``(base, i)`` of ``pairs``.

    Returns the runs, the moments of each pair keyed by ``i``
    (`unosim.analysis.paired.PairMoments`), and the stopping rule's outcome.
    ``precision`` stops at the first chunk boundary where every pair's paired
    95% half-width of mean turns per round (each run's own, without pairs) is
    at most ``precision``; ``games`` is then the cap. ``reuse`` continues only
    cell dirs that hold exactly this run (`check_reuse`); ``resume`` and
    ``force`` are the runner's.
    """
    from unosim.analysis.paired import PairMoments
    from unosim.run.runner import StopRule, run_lockstep, turns_half_width

    if reuse and not (resume or force) and dirs is not None:
        for c, d in zip(cfgs, dirs, strict=True):
            check_reuse(c, games, seed, d, run_opts.get("on_warning"), precision)
    rule = None
    if precision is not None:
        match = all(c.mode == "match" for c in cfgs)
        rule = (StopRule(precision, paired_turns_half_width(match),
                         "95% half-width of the paired difference in mean turns per round"
                         + what) if pairs else StopRule(precision, turns_half_width))
    lock = run_lockstep(cfgs, games=games, seed=seed, pairs=tuple(pairs), stop=rule,
                        outs=dirs, pair_out=pair_out if pairs else None,
                        resume=resume or reuse, force=force, **run_opts)
    runs = [Run(c, dict(r.aggregates), seed, r.games, r.out, summarize_run(r),
                reused=reuse and r.chunks_run == 0)
            for c, r in zip(cfgs, lock.runs, strict=True)]
    moments = {b: PairMoments(lock.games, lock.pair_sums[p], lock.pair_moments[p])
               for p, (_, b) in enumerate(pairs)}
    return runs, moments, lock.stop


def paired_turns_half_width(match: bool) -> Callable[..., float]:
    """A stopping rule's measure: the widest paired 95% half-width of mean turns per round."""
    from unosim.analysis.paired import PairMoments
    from unosim.engine.batch import GF_ROUNDS, GF_TURNS

    def half_width(_aggs: Any, sums: Any, moments: Any, games: int) -> float:
        return max(PairMoments(games, sums[p], moments[p])
                   .mean_diff(GF_TURNS, GF_ROUNDS if match else None).half_width
                   for p in range(len(sums)))
    return half_width


def run_jobs(todo: Sequence[Job], /, *, reuse: bool = False, resume: bool = False,
             force: bool = False, on_done: Callable[[int, Run, float], None] | None = None,
             **run_opts: Any) -> list[Run]:
    """Run a study's jobs in order, once every job's run dir has been checked.

    With ``reuse``, a job whose run dir already holds exactly its finished run
    is read back instead. ``on_done(i, run, seconds)`` follows each job;
    ``run_opts`` go to `run_config`.
    """
    warn = run_opts.get("on_warning")
    reused = [_reusable(j.cfg, j.games, j.seed, j.out, warn) if reuse and j.out else None
              for j in todo]
    for job, old in zip(todo, reused, strict=True):
        if job.out is not None and old is None:
            check_run_dir(job.cfg, games=job.games, seed=job.seed, out=job.out, resume=resume,
                          force=force)
    runs = []
    for i, (job, old) in enumerate(zip(todo, reused, strict=True)):
        t = time.perf_counter()
        runs.append(old or run_config(job.cfg, games=job.games, seed=job.seed, out=job.out,
                                      resume=resume, force=force, **run_opts))
        if on_done is not None:
            on_done(i, runs[-1], time.perf_counter() - t)
    return runs


def cell_dirs(root: Path, names: Sequence[str], avoid: Iterable[Path] = ()) -> list[Path]:
    """One distinct run dir under ``root`` per name (its `name_slug`), never one of ``avoid``.

    ``avoid`` are input run dirs, read-only to the study: a cell whose name
    would land on one gets ``-2`` (``-3``, ...) instead.

    >>> [d.as_posix() for d in cell_dirs(Path("C/runs"), ["a b", "a/b", "../x"],
    ...                                  avoid=[Path("C/runs/x")])]
    ['C/runs/a-b', 'C/runs/a-b-2', 'C/runs/x-2']
    """
    taken = {Path(p).resolve() for p in avoid}
    dirs = []
    for name in names:
        base = name_slug(name)
        d, n = root / base, 2
        while d.resolve() in taken:
            d, n = root / f"{base}-{n}", n + 1
        taken.add(d.resolve())
        dirs.append(d)
    return dirs


@contextlib.contextmanager
def study_dir(out: Path, *, resume: bool, force: bool, reuse: bool,
              inputs: Iterable[Path] = (),
              warn: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the lock of a study's out dir while it runs and writes its report.

    Refuses an out dir inside an input run dir (inputs are read-only), and one
    that already holds files unless ``resume``, ``force`` or ``reuse`` says what
    to do with them.
    """
    runs = (out / "runs").resolve()
    for d in inputs:
        if Path(d).resolve() in (runs, *runs.parents):
            raise OutDirError(f"out dir {out} is inside the input run dir {d}, which is "
                              "read-only: use another --out")
    with lock_out_dir(out, warn):
        if not (resume or force or reuse) and any(not is_lock_file(p.name)
                                                  for p in out.iterdir()):
            raise OutDirError(f"out dir {out} is not empty: use --resume to continue it, "
                              "--force to run it again, --reuse to reuse its finished runs, "
                              "or another --out")
        yield


def load_run(run_dir: str | Path) -> Run:
    """A finished run directory (``aggregates.npz`` + ``summary.json``) as a ``Run``.

    Raises ``ValueError`` (or ``ConfigError`` for a bad resolved config) with a
    one-line reason when the directory is not a whole run.
    """
    d = Path(run_dir)
    npz, sj = d / "aggregates.npz", d / "summary.json"
    if not npz.is_file() or not sj.is_file():
        raise ValueError(f"{d} is not a finished run directory (needs aggregates.npz and "
                         "summary.json)")
    try:
        if sj.stat().st_size > MAX_SUMMARY:
            raise ValueError(f"larger than {MAX_SUMMARY:,} bytes")
        summary = json.loads(sj.read_bytes())
    except (OSError, ValueError) as exc:
        raise ValueError(f"{sj} is unreadable ({getattr(exc, 'strerror', None) or exc})"
                         ) from None
    if not isinstance(summary, dict):
        raise ValueError(f"{sj} is not a run summary (not a JSON object)")
    if not isinstance(summary.get("config"), dict):
        raise ValueError(f"{sj} holds no resolved config")
    cfg = validate_config(summary["config"], sj)
    seed = summary.get("seed", cfg.seed)
    if type(seed) is not int or seed < 0:
        raise ValueError(f"{sj}: seed {str(seed)[:40]!r} is not a whole number >= 0")
    shapes = {k: v.shape for k, v in empty_aggregates(compile_config(cfg)).items()}
    try:
        agg = read_arrays(npz, shapes, optional=OPTIONAL_KEYS)
    except ValueError as exc:
        raise ValueError(f"{npz} does not hold this run's aggregates: {exc}") from None
    if any((a < 0).any() for a in agg.values()) or agg["counts"][0] < 1:
        raise ValueError(f"{npz} does not hold this run's aggregates: impossible counts")
    return Run(cfg, agg, seed, int(agg["counts"][0]), d, summary, reused=True)

