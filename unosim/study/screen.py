"""``unosim screen``'s runs: a two-level design of settings, played in lockstep.

Every design point (`unosim.analysis.factorial.design`) is a config: the
base config with each factor at its low or high value. All points run in
lockstep on the same games (`unosim.run.run_lockstep`), with every pair of
points paired so that the per-game moments of all of them are known: each
main effect and interaction is then a per-game contrast with a paired
interval (`unosim.report.screen.analyse`). Run dirs go to ``OUT/runs/``, pair
checkpoints to ``OUT/paired``, so ``--resume`` continues an interrupted screen.
"""

from __future__ import annotations

import contextlib
import itertools
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from unosim.analysis.factorial import Design, FullMoments, design, effect
from unosim.analysis.summary import summarize_run
from unosim.report.runs import Run
from unosim.report.screen import (
    METRICS,
    Factor,
    FactorError,
    Screen,
    analyse,
    estimable_terms,
    full_moments,
    point_overrides,
    write_screen,
)
from unosim.rules.config import GameConfig, load_config
from unosim.study.options import StudyOptions
from unosim.study.runs import Identity, cell_dirs, check_reuse, study_dir, study_identity

if TYPE_CHECKING:
    import numpy as np

    from unosim.run.runner import Aggs

__all__ = ["build_points", "identity", "run_screen", "screen"]


def build_points(config: str | Path, factors: Sequence[Factor], d: Design,
                 overrides: Sequence[str] = ()) -> list[GameConfig]:
    """Every design point's config, each checked (a bad value fails before anything runs)."""
    cfgs = []
    for row in d.matrix:
        cfg = load_config(config, [*overrides, *point_overrides(factors, row)])
        if cfg.mode != "round":
            raise FactorError("a screen plays single rounds (mode: round): its metrics are "
                              "per round, and a match is many rounds")
        cfgs.append(cfg)
    return cfgs


def identity(base: GameConfig, factors: Sequence[Factor], resolution: int | str,
             opts: StudyOptions, *, seed: int | None = None) -> Identity:
    """What decides a screen's runs (its ``study.json``)."""
    return study_identity("screen", config=base,
                          factors=[{"key": f.key, "low": f.low, "high": f.high}
                                   for f in factors],
                          resolution=str(resolution), games=opts.games_for(base.games),
                          seed=base.seed if seed is None else seed, precision=opts.precision)


def _half_width(runs: int, pairs: Sequence[tuple[int, int]], d: Design
                ) -> Callable[[list[Aggs], np.ndarray, np.ndarray, int], float]:
    """A stopping rule's measure: the widest 95% half-width of any effect on mean turns."""
    from unosim.engine.kernel.batch import GF_TURNS

    terms = estimable_terms(d)

    def measure(_aggs: list[Aggs], sums: np.ndarray, moments: np.ndarray, games: int) -> float:
        fm = full_moments(games, runs, pairs, sums, moments, GF_TURNS)
        return max(effect(fm, d.column(t.term)).half_width for t in terms)
    return measure


def run_screen(
    config: str | Path,
    factors: Sequence[Factor],
    opts: StudyOptions,
    *,
    resolution: int | str = "full",
    seed: int | None = None,
    out: str | Path | None = None,
    overrides: Sequence[str] = (),
    cfgs: list[GameConfig] | None = None,
) -> Screen:
    """Build the design, run every point in lockstep (into ``out/runs``), estimate effects.

    ``opts.precision`` stops at the first chunk boundary where every effect on
    mean turns has a 95% half-width of at most that (the games are then the
    cap). ``reuse``, ``resume`` and ``force`` are sweep's. ``cfgs``: the design
    points' configs when the caller built them already.
    """
    from unosim.run.runner import StopRule, run_lockstep

    if not factors:
        raise FactorError("a screen needs at least one factor (--factors KEY,KEY,...)")
    d = design(len(factors), resolution)
    cfgs = build_points(config, factors, d, overrides) if cfgs is None else cfgs
    games = opts.games_for(cfgs[0].games)
    seed = cfgs[0].seed if seed is None else seed
    n = d.runs
    pairs = tuple(itertools.combinations(range(n), 2))
    dirs = (cell_dirs(Path(out) / "runs", [f"point-{r + 1:02d}" for r in range(n)])
            if out is not None else None)
    if opts.reuse and not (opts.resume or opts.force) and dirs is not None:
        for c, dd in zip(cfgs, dirs, strict=True):
            check_reuse(c, games, seed, dd, opts.on_warning, opts.precision)
    rule = (StopRule(opts.precision, _half_width(n, pairs, d),
                     "95% half-width of every effect on mean turns per round")
            if opts.precision is not None else None)
    t0 = time.perf_counter()
    lock = run_lockstep(cfgs, games=games, seed=seed, pairs=pairs, stop=rule, outs=dirs,
                        pair_out=Path(out) / "paired" if out is not None else None,
                        resume=opts.resume or opts.reuse, force=opts.force, **opts.runner())
    runs = [Run(c, dict(r.aggregates), seed, r.games, r.out, summarize_run(r),
                reused=opts.reuse and r.chunks_run == 0)
            for c, r in zip(cfgs, lock.runs, strict=True)]
    moments: dict[str, FullMoments] = {
        key: full_moments(lock.games, n, pairs, lock.pair_sums, lock.pair_moments, feature)
        for key, feature in METRICS.items()}
    scr = Screen(str(config), list(factors), d, runs, lock.games, seed,
                 margins=dict(opts.margins), overrides=tuple(overrides),
                 elapsed=time.perf_counter() - t0, stop=lock.stop)
    return analyse(scr, moments)


def screen(
    config: str | Path,
    factors: Sequence[Factor],
    opts: StudyOptions,
    *,
    resolution: int | str = "full",
    seed: int | None = None,
    out: Path | None = None,
    overrides: Sequence[str] = (),
    prepare: Callable[[list[GameConfig]], object] | None = None,
    command: Callable[[Screen], str] | None = None,
    study: Identity | None = None,
) -> tuple[Screen, list[Path]]:
    """The whole ``screen``: the design and every point checked, the out dir checked and
    locked, the runs, then the page's files (without ``out``, none: no paths).

    ``study`` is the identity (default: `identity`); ``prepare`` gets every
    point's config once the out dir is held, before anything runs; ``command``
    gives the command line the page prints, from the finished screen.
    """
    if not factors:
        raise FactorError("a screen needs at least one factor (--factors KEY,KEY,...)")
    d = design(len(factors), resolution)  # an impossible design fails before anything
    cfgs = build_points(config, factors, d, overrides)
    with contextlib.ExitStack() as held:
        if out is not None:
            ident = study or identity(load_config(config, overrides), factors, resolution,
                                      opts, seed=seed)
            held.enter_context(study_dir(out, ident, opts))
        if prepare is not None:
            prepare(cfgs)
        scr = run_screen(config, factors, opts, resolution=resolution, seed=seed, out=out,
                         overrides=overrides, cfgs=cfgs)
        paths = (write_screen(scr, out, command=command(scr) if command else None)
                 if out is not None else [])
    return scr, paths
