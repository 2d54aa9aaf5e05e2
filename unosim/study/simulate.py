"""``run``'s pipeline, once for the CLI and the API: one config simulated, summarized,
and (in its run dir) reported; and a finished run's report written again
(`report_run`: ``unosim report`` and ``Result.report``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from unosim.rules.config import GameConfig
from unosim.study.options import StudyError, StudyOptions

if TYPE_CHECKING:
    from unosim.analysis.summary import Summary
    from unosim.engine.kernel.state import CompiledConfig
    from unosim.report.runs import Run
    from unosim.run.runner import RunResult

__all__ = ["Simulated", "report_run", "simulate"]


@dataclass(frozen=True)
class Simulated:
    """A finished ``run``: the runner's result (`unosim.run.RunResult`), its summary, the
    report's path (None: no report) and the seconds the engine took to compile here."""

    result: RunResult
    summary: Summary
    report: Path | None = None
    compiled_s: float = 0.0


def simulate(
    cfg: GameConfig,
    opts: StudyOptions,
    *,
    seed: int | None = None,
    out: Path | None = None,
    records: bool = False,
    report: bool = False,
    compile_engine: Callable[[CompiledConfig], float] | None = None,
    notice: Callable[[], None] | None = None,
    on_summary: Callable[[Simulated], None] | None = None,
    running: Callable[[], AbstractContextManager[object]] = contextlib.nullcontext,
) -> Simulated:
    """Simulate ``cfg`` (``opts``' games or precision, ``seed`` or the config's) into
    ``out`` (None: in memory), as ``unosim run`` does.

    ``out`` stays locked until the report is written. With ``compile_engine``
    (the CLI's), the engine is compiled here before any worker starts, once
    ``out`` has been checked, and its seconds are kept apart from the run's;
    a config with a plug-in seat, or a run on a ``scheduler``, compiles
    elsewhere and gets ``notice`` instead. ``on_summary`` hears the finished
    run before its report is written; ``report`` writes
    report.md/.html and the charts into ``out``, listed in its ``run.json``.
    The games run inside ``running()`` (the CLI's turns garbage collection on).
    """
    from unosim.analysis.summary import summarize_run  # scipy: once the games are done
    from unosim.rules.plugins import is_plugin_name
    from unosim.run import check_run_dir, lock_out_dir, run_simulation

    games = opts.games_for(cfg.games)
    seed = cfg.seed if seed is None else seed
    with contextlib.ExitStack() as held:
        if out is not None:
            held.enter_context(lock_out_dir(out, opts.on_warning))  # until the report
        compiled_s = 0.0
        if compile_engine is not None:
            if any(is_plugin_name(p) for p in cfg.seat_policies) or opts.scheduler:
                if notice is not None:
                    notice()  # the façade, or workers on other machines, compile
            else:
                if out is not None:  # refused before a first run's compilation
                    check_run_dir(cfg, games=games, seed=seed, out=out, resume=opts.resume,
                                  force=opts.force, records=records,
                                  chunk_size=opts.chunk_size, precision=opts.precision)
                from unosim.engine.kernel.state import compile_config

                compiled_s = compile_engine(compile_config(cfg))
        with running():
            result = run_simulation(cfg, games=games, seed=seed, out=out, records=records,
                                    resume=opts.resume, force=opts.force,
                                    precision=opts.precision, **opts.runner())
        done = Simulated(result, summarize_run(result), None, compiled_s)
        if on_summary is not None:
            on_summary(done)
        if report and out is not None:
            from unosim.report.runs import Run

            done = replace(done, report=report_run(out, Run(
                cfg, dict(result.aggregates), seed, result.games, out, done.summary)))
    return done


def report_run(target: Path, run: Run | None = None,
               on_warning: Callable[[str], None] | None = None) -> Path:
    """Write ``run``'s report.md, report.html and charts into ``target``; report.html's path.

    ``run`` None is the finished run in ``target``, read under its lock
    (``unosim report``). In the run's own dir the files are listed in its
    ``run.json``, so that ``--force`` removes them with the run; any other
    ``target`` must be new or empty: a folder holding other files may be the
    user's, and its report.md is never overwritten. ``target`` stays locked
    (re-entrantly: ``simulate`` holds it already) until the files are listed.
    """
    from unosim.report.run_report import write_report
    from unosim.run import OutDirError, lock_out_dir, record_outputs
    from unosim.run.lock import is_lock_file
    from unosim.run.manifest import MANIFEST
    from unosim.study.runs import finished_run

    if run is None and not target.is_dir():
        raise StudyError(f"{target} is not a finished run directory (no such folder)")
    with lock_out_dir(target, on_warning):
        if run is None:
            run = finished_run(target)
        own = run.out is not None and target.resolve() == run.out.resolve()
        if not own and any(not is_lock_file(p.name) for p in target.iterdir()):
            raise OutDirError(f"{target} is not empty: give report() a new or empty "
                              "folder (or none, for the run's own out dir)")
        written = write_report(target, run.cfg, run.aggregates, run.summary)
        if own and (target / MANIFEST).is_file():
            record_outputs(target, written)
    return target / "report.html"
