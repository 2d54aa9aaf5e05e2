"""The runs of a study, and its out dir: each cell simulated into its own run dir.

A study (``compare``, ``sweep``, ``league``) runs each cell into its own run
dir under ``OUT/runs`` with the rules of ``unosim run``: each cell's dir is
locked while it runs, ``resume`` continues interrupted cells, ``force`` clears
finished ones, and without either a cell dir that holds a run is refused
before any cell starts. Run dirs given as inputs are read-only: no cell is
written there, and the study's out dir may not lie inside one.

The study's out dir has a manifest of its own, ``study.json``: the study's
identity (`study_identity`: its kind, configs, games, seed, ...), written
before anything else. ``--resume`` continues only the same study, and no
option ever writes into a folder that is not empty and holds no manifest
(`check_study`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TypeAlias, cast

import numpy as np

from unosim._version import __version__
from unosim.analysis.paired import PairMoments
from unosim.analysis.summary import summarize_run
from unosim.report.runs import Run, load_run
from unosim.rules.config import ConfigError, GameConfig, config_hash, name_slug
from unosim.run import OutDirError, ResumeMismatchError, check_run_dir, lock_out_dir
from unosim.run.documents import Stop
from unosim.run.files import write_json
from unosim.run.lock import is_lock_file
from unosim.run.manifest import read_checked, rules_hash
from unosim.study.options import StudyError, StudyOptions

__all__ = ["STUDY", "Identity", "Json", "cell_dirs", "check_reuse", "check_study", "default_out",
           "default_run_out", "finished_run", "paired_turns_half_width", "read_study",
           "run_config", "run_paired", "study_dir", "study_identity"]

# JSON data, as `json` reads and writes it; a study's identity is an object of it.
Json: TypeAlias = None | bool | int | float | str | list["Json"] | dict[str, "Json"]
Identity: TypeAlias = dict[str, Json]


def run_config(cfg: GameConfig, opts: StudyOptions, *, games: int, seed: int,
               out: str | Path | None = None) -> Run:
    """Simulate ``games`` games of ``cfg`` into run dir ``out``, as ``unosim run`` would.

    Runs through ``unosim.run.run_simulation`` and writes ``summary.json``, so
    ``out`` is a finished run directory; ``out`` stays locked until then.
    ``opts.reuse`` returns the finished run already in ``out`` when it is
    exactly this one (same config, seed and games); ``resume`` and ``force``
    are the runner's.
    """
    from unosim.run import run_simulation

    if out is None:
        res = run_simulation(cfg, games=games, seed=seed, **opts.runner())
        return Run(cfg, dict(res.aggregates), seed, games, None, summarize_run(res))
    out_dir = Path(out)
    with lock_out_dir(out_dir, opts.on_warning):
        old = _reusable(cfg, games, seed, out_dir, opts.on_warning) if opts.reuse else None
        if old is not None:
            return old
        res = run_simulation(cfg, games=games, seed=seed, out=out_dir, resume=opts.resume,
                             force=opts.force, **opts.runner())
        return Run(cfg, dict(res.aggregates), seed, games, out_dir, summarize_run(res))


def finished_run(run_dir: str | Path) -> Run:
    """The finished run in ``run_dir`` (`unosim.report.runs.load_run`); a `StudyError`
    with its one-line reason when it is not one, so the CLI prints it as is."""
    try:
        return load_run(run_dir)
    except ValueError as exc:  # one line: the run dir and why it is not a run
        raise StudyError(str(exc)) from None


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
    opts: StudyOptions,
    *,
    games: int,
    seed: int,
    pairs: Sequence[tuple[int, int]] = (),
    dirs: Sequence[Path] | None = None,
    pair_out: Path | None = None,
    precision: float | None = None,
    what: str = "",
) -> tuple[list[Run], dict[int, PairMoments], Stop | None]:
    """Run ``cfgs`` in lockstep on the same games, pairing each ``(base, i)`` of ``pairs``.

    Returns the runs, the moments of each pair keyed by ``i``, and the stopping
    rule's outcome. ``precision`` stops at the first chunk boundary where every
    pair's paired 95% half-width of mean turns per round (each run's own,
    without pairs) is at most ``precision``; ``games`` is then the cap.
    ``opts.reuse`` continues only cell dirs that hold exactly this run
    (`check_reuse`); ``resume`` and ``force`` are the runner's.
    """
    from unosim.run.runner import StopRule, run_lockstep, turns_half_width

    reuse, resume, force = opts.reuse, opts.resume, opts.force
    if reuse and not (resume or force) and dirs is not None:
        for c, d in zip(cfgs, dirs, strict=True):
            check_reuse(c, games, seed, d, opts.on_warning, precision)
    rule = None
    if precision is not None:
        match = all(c.mode == "match" for c in cfgs)
        rule = (StopRule(precision, paired_turns_half_width(match),
                         "95% half-width of the paired difference in mean turns per round"
                         + what) if pairs else StopRule(precision, turns_half_width))
    lock = run_lockstep(cfgs, games=games, seed=seed, pairs=tuple(pairs), stop=rule,
                        outs=dirs, pair_out=pair_out if pairs else None,
                        resume=resume or reuse, force=force, **opts.runner())
    runs = [Run(c, dict(r.aggregates), seed, r.games, r.out, summarize_run(r),
                reused=reuse and r.chunks_run == 0)
            for c, r in zip(cfgs, lock.runs, strict=True)]
    moments = {b: PairMoments(lock.games, lock.pair_sums[p], lock.pair_moments[p])
               for p, (_, b) in enumerate(pairs)}
    return runs, moments, lock.stop


def paired_turns_half_width(
        match: bool) -> Callable[[list[dict[str, np.ndarray]], np.ndarray, np.ndarray, int], float]:
    """A stopping rule's measure: the widest paired 95% half-width of mean turns per round."""
    from unosim.engine.kernel.batch import GF_ROUNDS, GF_TURNS

    def half_width(_aggs: list[dict[str, np.ndarray]], sums: np.ndarray, moments: np.ndarray,
                   games: int) -> float:
        return max(PairMoments(games, sums[p], moments[p])
                   .mean_diff(GF_TURNS, GF_ROUNDS if match else None).half_width
                   for p in range(len(sums)))
    return half_width


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


STUDY = "study.json"
STUDY_VERSION = 1
STUDY_KINDS = ("compare", "sweep", "league", "screen")


def study_identity(kind: str, **fields: object) -> Identity:
    """What a study is, as plain JSON: its ``kind`` and the ``fields`` that decide its runs.

    Configs count by their rules (`unosim.run.manifest.rules_hash`: games and
    seed are fields of their own), a finished input run by its rules, seed,
    games and folder, a ``--vary`` axis by its key and value texts, a path as
    text. Options that only change the report (margins, labels) stay out, so
    a resume may change them.

    >>> study_identity("sweep", games=300, seed=1, inputs=[Path("a/b")])
    {'kind': 'sweep', 'games': 300, 'seed': 1, 'inputs': ['a/b']}
    >>> import datetime
    >>> study_identity("league", policies=[{"p": datetime.date(2020, 1, 2)}, float("nan")])
    {'kind': 'league', 'policies': [{'p': 'date:2020-01-02'}, 'nan']}
    """
    if kind not in STUDY_KINDS:
        raise ValueError(f"unknown study kind {kind!r}")
    return {"kind": kind, **{k: _plain(v) for k, v in fields.items()}}


def _plain(value: object) -> Json:
    """``value`` as JSON data that identifies it (see `study_identity`)."""
    if isinstance(value, GameConfig):
        return {"rules": rules_hash(value)}
    if isinstance(value, Run):
        return {"run": str(value.out), "rules": rules_hash(value.cfg), "seed": value.seed,
                "games": value.games}
    if hasattr(value, "key") and hasattr(value, "texts"):  # a --vary axis (report.grid)
        return {"key": value.key, "values": list(value.texts)}
    if isinstance(value, Path):
        return value.as_posix()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # NaN is not equal to itself: it would never resume
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return f"{type(value).__name__}:{value}"  # a YAML date in a policy's params, ...


def default_out(stem: str, identity: object) -> Path:
    """The default out dir of a command: ``runs/STEM-HASH``, HASH short for ``identity``.

    ``identity`` is what decides the runs (a study's `study_identity`, a run's
    rules, seed and games), so two commands that would run different things
    never share a default folder (the README's ``compare ... --games 200000``
    then ``--precision 0.05``), while the same command again lands on its
    own folder (for ``--resume``).

    >>> default_out("compare-a-vs-b", {"kind": "compare", "games": 10}).as_posix()
    'runs/compare-a-vs-b-3f0b98'
    """
    text = json.dumps(_plain(identity), sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(text.encode()).hexdigest()[:6]
    return Path("runs") / f"{name_slug(stem)}-{digest}"


def default_run_out(cfg: GameConfig, *, seed: int, games: int,
                    precision: float | None = None) -> Path:
    """``unosim run``'s default out dir: ``runs/NAME-seedS-HASH`` (see `default_out`).

    The hash covers the rules (`rules_hash`: a plug-in's source too), games and
    precision, so ``run classic --games 1000`` then ``--games 2000`` write to
    two folders.
    """
    return default_out(f"{cfg.name}-seed{seed}", {"rules": rules_hash(cfg), "seed": seed,
                                                   "games": games, "precision": precision})


def read_study(out: Path) -> Identity:
    """The validated identity in ``out/study.json``; `OutDirError` (one line) if it is none."""
    # `_study_problem` checked that it is an object whose identity is an object
    data = cast("dict[str, Identity]", read_checked(out / STUDY, "study manifest",
                                                    _study_problem))
    return data["identity"]


def _study_problem(data: object) -> str | None:
    if not isinstance(data, dict):
        return "not a JSON object"
    if data.get("study_version") != STUDY_VERSION:
        return f"study version {str(data.get('study_version'))[:20]}, this unosim reads " \
               f"{STUDY_VERSION}"
    identity = data.get("identity")
    if not isinstance(identity, dict) or identity.get("kind") not in STUDY_KINDS:
        return "no identity of a compare, sweep, league or screen"
    return None


def check_study(out: Path, identity: Identity, opts: StudyOptions) -> Identity | None:
    """Refuse a study out dir the options may not use; the identity it holds, if any.

    Reads only. ``out`` may be missing or empty (any study starts there), or
    hold a study manifest (``study.json``) of the same kind: ``opts.resume``
    continues only the same study, ``reuse`` and ``force`` may run another one
    there (keeping its matching runs, or running them again). Without a
    manifest a folder that is not empty is never used, whatever the options:
    it may be the user's.
    """
    kind = identity["kind"]
    resume, force, reuse = opts.resume, opts.force, opts.reuse
    if out.exists() and not out.is_dir():
        raise OutDirError(f"out dir {out} exists and is not a directory")
    old = read_study(out) if (out / STUDY).is_file() else None
    if not _holds_files(out):
        return None  # new, empty, or a study that stopped before its first file
    if old is None:
        flag = "--resume" if resume else "--force" if force else "--reuse" if reuse else ""
        raise OutDirError(f"{flag + ' refused: ' if flag else ''}out dir {out} is not empty "
                          f"and holds no unosim study (no {STUDY}); nothing was changed: "
                          "use another --out")
    if not (resume or force or reuse):
        raise OutDirError(f"out dir {out} is not empty (it holds a {old['kind']}): use "
                          "--resume to continue it, --force to run it again, --reuse to reuse "
                          "its finished runs, or another --out")
    if old["kind"] != kind:
        flag = "--resume" if resume else "--force" if force else "--reuse"
        raise OutDirError(f"{flag} refused: {out} holds a {old['kind']}, not a {kind}; "
                          "nothing was changed: use another --out")
    if resume and old != identity:
        changed = [k for k in sorted(old.keys() | identity.keys())
                   if old.get(k) != identity.get(k)]
        raise ResumeMismatchError(
            f"cannot resume {out}: it holds a different {kind} ({', '.join(changed)} "
            "changed); use the original arguments, --reuse to keep its matching runs, "
            "--force to run it again, or another --out")
    return old


@contextlib.contextmanager
def study_dir(out: Path, identity: Identity, opts: StudyOptions, *,
              inputs: Iterable[Path] = ()) -> Iterator[None]:
    """Hold the lock of a study's out dir while it runs and writes its report.

    Refuses an out dir inside an input run dir (inputs are read-only), and one
    that `check_study` refuses for ``opts``; then records ``identity`` in
    ``out/study.json`` before anything else is written, so that the folder is
    known as this study's from its first file on. ``opts.on_warning`` hears
    a stale lock taken over and a cell ``force`` could not clear.
    """
    warn = opts.on_warning
    runs = (out / "runs").resolve()
    for d in inputs:
        if Path(d).resolve() in (runs, *runs.parents):
            raise OutDirError(f"out dir {out} is inside the input run dir {d}, which is "
                              "read-only: use another --out")
    with lock_out_dir(out, warn):
        old = check_study(out, identity, opts)
        if opts.force and old is not None:
            _discard_cells(out, inputs, warn)
        if old != identity:
            try:
                write_json(out / STUDY, {"study_version": STUDY_VERSION, "identity": identity,
                                         "unosim_version": __version__})
            except OSError as exc:
                raise OutDirError(f"cannot write to out dir {out}: "
                                  f"{exc.strerror or exc}") from None
        try:
            yield
        except BaseException:
            if not _holds_files(out):  # failed before its first file: leave no trace
                with contextlib.suppress(OSError):
                    (out / STUDY).unlink()
            raise


def _discard_cells(out: Path, inputs: Iterable[Path],
                   warn: Callable[[str], None] | None) -> None:
    """``--force`` on a study: remove the previous study's cells and paired checkpoints.

    Only run dirs (a valid ``run.json``) under ``out/runs`` lose the files their
    run wrote; input run dirs, symlinks and anything else are left alone. Without
    this, another study's cells would stay beside the new ones and its paired
    chunks would be read and refused one by one.
    """
    from unosim.run.manifest import discard_checkpoints

    keep = {Path(d).resolve() for d in inputs}
    _discard_under(out / "runs", keep, warn, depth=2)  # a league --vary nests one level
    paired = out / "paired"
    if paired.is_dir() and not paired.is_symlink():
        discard_checkpoints(paired)


def _discard_under(folder: Path, keep: set[Path], warn: Callable[[str], None] | None,
                   depth: int) -> None:
    """The run dirs and paired checkpoint folders in ``folder`` (and ``depth - 1`` below)."""
    from unosim.run.manifest import MANIFEST, discard_checkpoints, discard_run

    if depth < 1 or folder.is_symlink() or not folder.is_dir():
        return
    for d in sorted(folder.iterdir()):
        if d.is_symlink() or not d.is_dir() or d.resolve() in keep:
            continue
        if (d / MANIFEST).is_file():
            try:
                discard_run(d)
            except OutDirError as exc:
                if warn is not None:
                    warn(f"--force left {d} as it is: {exc}")
        elif d.name == "paired":  # a league's paired checkpoints
            discard_checkpoints(d)
        else:
            _discard_under(d, keep, warn, depth - 1)
            with contextlib.suppress(OSError):  # kept if anything is left in it
                d.rmdir()


def _holds_files(out: Path) -> bool:
    """Whether ``out`` holds anything but folders, lock files and its ``study.json``.

    Stops at the first such file; a folder it cannot read counts as holding
    some (it may be the user's).
    """
    def fail(exc: OSError) -> None:
        raise exc

    try:
        for folder, dirs, files in os.walk(out, onerror=fail):
            here = Path(folder)
            if any(not is_lock_file(f) and not (here == out and f == STUDY) for f in files):
                return True
            if any((here / d).is_symlink() for d in dirs):
                return True
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return False


