"""``sweep``'s runs: every cell of a grid in lockstep, each paired with its baseline cell.

All cells run on the same game range, chunk by chunk (`unosim.run.run_lockstep`),
pair checkpoints in ``out/paired``; the answer and page are `unosim.report.sweep`'s.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from unosim.report.grid import (
    Axis,
    Cell,
    VaryError,
    baseline_cells,
    build_cells,
    cell_name,
    default_baseline,
    parse_baseline,
)
from unosim.report.sweep import Sweep, build_sweep, write_sweep
from unosim.rules.config import GameConfig, load_config
from unosim.study.options import StudyOptions
from unosim.study.runs import cell_dirs, run_paired, study_dir, study_identity

__all__ = ["identity", "run_sweep", "sweep"]


def _baseline(baseline: str | None, axes: Sequence[Axis]) -> tuple[int, int]:
    return parse_baseline(baseline, axes) if baseline is not None else default_baseline(axes)


def identity(base: GameConfig, axes: Sequence[Axis], opts: StudyOptions, *,
             baseline: str | None = None, seed: int | None = None) -> dict[str, Any]:
    """The sweep's `study_identity`: the config's rules, the grid, games, seed, precision."""
    return study_identity("sweep", config=base, axes=list(axes),
                          baseline=_baseline(baseline, axes) if axes else None,
                          games=opts.games_for(base.games),
                          seed=base.seed if seed is None else seed, precision=opts.precision)


def run_sweep(
    config: str | Path,
    axes: Sequence[Axis],
    opts: StudyOptions,
    *,
    baseline: str | None = None,
    seed: int | None = None,
    out: str | Path | None = None,
    overrides: Sequence[str] = (),
    on_cell: Callable[[int, int, Cell, float], None] | None = None,
    cells: list[Cell] | None = None,
) -> Sweep:
    """Validate every cell, run them all in lockstep (into ``out/runs/<cell>``), compare.

    Each cell is paired game by game with its baseline cell (pair checkpoints
    in ``out/paired``). ``opts.precision`` stops every cell at the first chunk
    boundary where each pair's paired 95% half-width of mean turns per round
    is at most that (the games are then the cap). ``reuse`` and ``resume``
    continue from the chunks on disk, ``force`` clears every cell dir first.
    ``cells``: `build_cells`'s answer, when the caller checked them already.
    """
    axes = list(axes)
    if not axes:
        raise VaryError("a sweep needs at least one --vary")
    base_of = _baseline(baseline, axes)
    cells = build_cells(config, axes, overrides) if cells is None else cells
    first = cells[0].cfg
    games = opts.games_for(first.games)
    seed = first.seed if seed is None else seed
    dirs = (cell_dirs(Path(out) / "runs", [cell_name(c.texts, axes) for c in cells])
            if out is not None else None)
    bases = baseline_cells(axes, base_of)
    pairs = tuple((bases[i], i) for i in range(len(cells)) if bases[i] != i)
    t0 = time.perf_counter()
    runs, moments, stop = run_paired(
        [c.cfg for c in cells], opts, games=games, seed=seed, pairs=pairs, dirs=dirs,
        pair_out=Path(out) / "paired" if out is not None else None, precision=opts.precision,
        what=" of every cell from its baseline cell")
    elapsed = time.perf_counter() - t0
    sw = build_sweep(config, axes, cells, runs, moments, seed=seed, base_of=base_of,
                     overrides=overrides, elapsed=elapsed, margins=opts.margins, stop=stop)
    if on_cell is not None:
        for i, cell in enumerate(cells):
            on_cell(i, len(cells), cell, elapsed)
    return sw


def sweep(
    config: str | Path,
    axes: Sequence[Axis],
    opts: StudyOptions,
    *,
    baseline: str | None = None,
    seed: int | None = None,
    out: Path | None = None,
    overrides: Sequence[str] = (),
    on_cell: Callable[[int, int, Cell, float], None] | None = None,
    prepare: Callable[[list[GameConfig]], object] | None = None,
    command: Callable[[Sweep], str] | None = None,
    study: dict[str, Any] | None = None,
) -> tuple[Sweep, list[Path]]:
    """The whole ``sweep``: every cell checked, the out dir checked and locked, the
    runs, then the page's files (without ``out``, none: no paths).

    ``study`` is the identity (default: `identity`); ``prepare`` gets every
    cell's config once the out dir is held, before anything runs; ``command``
    gives the command line the page prints, from the finished sweep.
    """
    axes = list(axes)
    cells = build_cells(config, axes, overrides)  # every cell checked before the out dir
    with contextlib.ExitStack() as held:
        if out is not None:
            ident = study or identity(load_config(config, overrides), axes, opts,
                                      baseline=baseline, seed=seed)
            held.enter_context(study_dir(out, ident, resume=opts.resume, force=opts.force,
                                         reuse=opts.reuse, warn=opts.on_warning))
        if prepare is not None:
            prepare([c.cfg for c in cells])
        sw = run_sweep(config, axes, opts, baseline=baseline, seed=seed, out=out,
                       overrides=overrides, on_cell=on_cell, cells=cells)
        paths = (write_sweep(sw, out, command=command(sw) if command else None)
                 if out is not None else [])
    return sw, paths
