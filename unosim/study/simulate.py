"""``run``'s pipeline, once for the CLI and the API: one config simulated, summarized,
and (in its run dir) reported.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from unosim.rules.config import GameConfig
from unosim.study.options import StudyOptions

if TYPE_CHECKING:
    from unosim.engine.state import CompiledConfig
    from unosim.run.runner import RunResult

__all__ = ["Simulated", "simulate"]


@dataclass(frozen=True)
class Simulated:
    """A finished ``run``: the runner's result (`unosim.run.RunResult`), its summary, the
    report's path (None: no report) and the seconds the engine took to compile here."""

    result: RunResult
    summary: dict[str, Any]
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
    from unosim.run import check_run_dir, lock_out_dir, record_outputs, run_simulation

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
                from unosim.engine.state import compile_config

                compiled_s = compile_engine(compile_config(cfg))
        with running():
            result = run_simulation(cfg, games=games, seed=seed, out=out, records=records,
                                    resume=opts.resume, force=opts.force,
                                    precision=opts.precision, **opts.runner())
        done = Simulated(result, summarize_run(result), None, compiled_s)
        if on_summary is not None:
            on_summary(done)
        if report and out is not None:
            from unosim.report.run_report import write_report

            # listed in run.json, so that --force removes them with the run
            record_outputs(out, write_report(out, cfg, result.aggregates, done.summary))
            done = replace(done, report=out / "report.html")
    return done
