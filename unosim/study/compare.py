"""``compare``'s runs: rule sets in lockstep on the same games, paired with the first.

The configs run in lockstep on one game range (`unosim.run.run_lockstep`),
chunk by chunk, so each later config is paired game by game with the first
(the baseline) at no extra memory. Finished run directories given as inputs
are compared unpaired. The page is `unosim.report.compare`'s.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from unosim.analysis.paired import PairMoments
from unosim.report.compare import write_comparison
from unosim.report.comparison import Comparison, compare_runs, unique_labels
from unosim.report.runs import Run, load_run
from unosim.rules.config import GameConfig, load_config
from unosim.study.options import StudyError, StudyOptions
from unosim.study.runs import cell_dirs, run_paired, study_dir, study_identity

__all__ = ["compare", "identity", "inputs", "run_comparison"]


def inputs(args: Sequence[str], overrides: Sequence[str], seed: int | None,
           warn: Callable[[str], None] | None = None
           ) -> tuple[list[GameConfig], list[int], dict[int, Run]]:
    """The configs, seeds and finished input runs that ``compare``'s arguments name.

    An argument that is a folder is a finished run dir (read-only, its own seed;
    ``overrides`` do not apply to it, ``warn`` says so); anything else is a
    config with ``overrides``, at ``seed`` (None: the config's).
    """
    cfgs: list[GameConfig] = []
    seeds: list[int] = []
    prebuilt: dict[int, Run] = {}
    for i, arg in enumerate(args):
        if Path(arg).is_dir():
            try:
                run = load_run(arg)
            except ValueError as exc:  # one line: the run dir and why it is not a run
                raise StudyError(str(exc)) from None
            if overrides and warn is not None:
                warn(f"--set does not apply to the finished run in {arg}")
            prebuilt[i] = run
            cfgs.append(run.cfg)
            seeds.append(run.seed)
        else:
            cfg = load_config(arg, overrides)
            cfgs.append(cfg)
            seeds.append(cfg.seed if seed is None else seed)
    return cfgs, seeds, prebuilt


def _games(cfgs: Sequence[GameConfig], opts: StudyOptions,
           prebuilt: Mapping[int, Run]) -> int:
    """The games of each fresh config: the options', else the first fresh config's."""
    fresh = [c for i, c in enumerate(cfgs) if i not in prebuilt]
    return opts.games_for(fresh[0].games if fresh else 0)


def identity(cfgs: Sequence[GameConfig], seeds: Sequence[int], opts: StudyOptions,
             prebuilt: Mapping[int, Run] | None = None) -> dict[str, Any]:
    """The comparison's `study_identity`: its configs (an input run as itself), seeds,
    games and precision."""
    pre = dict(prebuilt or {})
    return study_identity("compare", seeds=list(seeds), games=_games(cfgs, opts, pre),
                          precision=opts.precision,
                          configs=[pre.get(i, c) for i, c in enumerate(cfgs)])


def run_comparison(
    cfgs: Sequence[GameConfig],
    opts: StudyOptions,
    *,
    seeds: Sequence[int],
    out: str | Path | None = None,
    prebuilt: Mapping[int, Run] | None = None,
    labels: Sequence[str] | None = None,
) -> Comparison:
    """Run every config in lockstep (into ``out/runs/<label>``) and compare them.

    The configs that are not ``prebuilt`` and share the baseline's seed run
    together and are paired with it; ``opts.precision`` stops them at the
    first chunk boundary where every paired difference of mean turns per round
    has a 95% half-width of at most that (the games are then the cap).
    ``prebuilt`` maps positions to runs loaded from existing run directories,
    which are read-only: a config whose run dir would be one of them runs into
    ``<label>-2`` instead. ``reuse`` and ``resume`` continue from the chunks on
    disk, ``force`` clears every cell dir first (see `unosim.study.runs`).
    """
    done = dict(prebuilt or {})
    games = _games(cfgs, opts, done)
    names = list(labels) if labels is not None else unique_labels(
        [Run(c, {}, s, games) for c, s in zip(cfgs, seeds, strict=True)])
    fresh = [i for i in range(len(cfgs)) if i not in done]
    dirs: list[Path] | None = None
    if out is not None:
        avoid = [r.out for r in done.values() if r.out is not None]
        dirs = list(cell_dirs(Path(out) / "runs", [names[i] for i in fresh], avoid=avoid))
    groups: dict[int, list[int]] = {}
    for i in fresh:
        groups.setdefault(seeds[i], []).append(i)
    pairs: dict[int, PairMoments] = {}
    stop = None
    for seed, members in groups.items():
        pair_idx = [(0, members.index(i)) for i in members if members[0] == 0 and i != 0]
        runs, moments, lock_stop = run_paired(
            [cfgs[i] for i in members], opts, games=games, seed=seed, pairs=pair_idx,
            dirs=[dirs[fresh.index(i)] for i in members] if dirs else None,
            pair_out=Path(out) / "paired" if out is not None else None,
            precision=opts.precision)
        done.update(zip(members, runs, strict=True))
        pairs.update({members[b]: pm for b, pm in moments.items()})
        stop = stop or lock_stop
    return compare_runs([done[i] for i in range(len(cfgs))], labels=names, pairs=pairs,
                        margins=opts.margins, stop=stop)


def compare(
    cfgs: Sequence[GameConfig],
    opts: StudyOptions,
    *,
    seeds: Sequence[int],
    out: Path | None = None,
    prebuilt: Mapping[int, Run] | None = None,
    labels: Sequence[str] | None = None,
    prepare: Callable[[list[GameConfig]], object] | None = None,
    command: str | None = None,
    study: dict[str, Any] | None = None,
) -> tuple[Comparison, list[Path]]:
    """The whole ``compare``: out dir checked and locked, runs, then the page's files.

    ``study`` is the identity (default: `identity`); ``prepare`` gets the fresh
    configs once the out dir is held, before anything runs (the CLI compiles
    their engines there). Without ``out`` nothing is written (no paths).
    """
    pre = dict(prebuilt or {})
    with contextlib.ExitStack() as held:
        if out is not None:
            held.enter_context(study_dir(
                out, study or identity(cfgs, seeds, opts, pre), resume=opts.resume,
                force=opts.force, reuse=opts.reuse,
                inputs=[r.out for r in pre.values() if r.out is not None],
                warn=opts.on_warning))
        if prepare is not None:
            prepare([c for i, c in enumerate(cfgs) if i not in pre])
        cmp = run_comparison(cfgs, opts, seeds=seeds, out=out, prebuilt=pre, labels=labels)
        paths = write_comparison(cmp, out, command=command) if out is not None else []
    return cmp, paths
