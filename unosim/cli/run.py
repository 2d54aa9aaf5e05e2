"""``unosim run``: many games in parallel, then summary.json and the run report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from unosim.cli import options
from unosim.cli.console import (
    Command,
    collecting,
    compile_engine,
    compile_notice,
    few_collections,
)

if TYPE_CHECKING:
    from unosim.study import StudyOptions


@click.command("run", cls=Command)
@click.argument("config", shell_complete=options.complete_config)
@options.games
@options.precision
@options.max_games
@options.seed
@options.out_dir
@options.overrides
@options.jobs
@options.records
@options.resume
@options.force
@options.quiet
@options.backend
@options.scheduler
@options.chunk_size
@options.format_option
@click.option("--no-report", is_flag=True,
              help="Skip report.md / report.html / charts (summary.json only).")
def run_cmd(config: str, games: int | None, precision: float | None, max_games: int | None,
            seed: int | None, out: str | None, overrides: tuple[str, ...], jobs: int | None,
            records: bool, resume: bool, force: bool, quiet: bool, backend: str,
            scheduler: str | None, chunk_size: int | None, fmt: str, no_report: bool) -> None:
    """Simulate many games in parallel and write DIR/summary.json (and a report).

    With --set, the run is named after the config and its overrides
    (``classic+jump_in`` for ``classic --set house_rules.jump_in=true``), so
    variants never share a default DIR. DIR (--out; default runs/NAME-seedS-HASH,
    HASH short for the rules, games and precision)
    is locked while the command runs. It must be new or empty, or hold a run:
    --resume continues that run, --force discards it (only the files it
    wrote; a directory holding no run is never cleared).
    """
    with few_collections():  # imports, loading and the report; the games collect
        opts = options.study_options(games, precision, max_games, jobs=jobs, backend=backend,
                                     scheduler=scheduler, chunk_size=chunk_size,
                                     resume=resume, force=force, progress=not quiet)
        _run(config, opts, seed, out, overrides, records, quiet, fmt, no_report)


def _run(config: str, opts: StudyOptions, seed: int | None, out: str | None,
         overrides: tuple[str, ...], records: bool, quiet: bool, fmt: str,
         no_report: bool) -> None:
    from unosim.report.labels import variant_name
    from unosim.study.runs import default_run_out
    from unosim.study.simulate import Simulated, simulate

    cfg = options.load(config, overrides)
    if overrides:
        cfg = cfg.model_copy(update={"name": variant_name(cfg.name, overrides)})
    seed = cfg.seed if seed is None else seed
    out_dir = Path(out) if out is not None else default_run_out(
        cfg, seed=seed, games=opts.games_for(cfg.games), precision=opts.precision)
    text = fmt == "text"

    def said(done: Simulated) -> None:
        if not text:
            return
        from unosim.analysis.summary import format_text

        result = done.result
        click.echo(format_text(done.summary), nl=False)
        click.echo(timing_line(done.compiled_s, result.elapsed, result.rounds_run))
        note = f"  written to        {out_dir}/summary.json"
        if result.chunks_reused:
            note += f" ({result.chunks_reused} of {result.chunks_total} chunks reused)"
        click.echo(note)

    done = simulate(cfg, opts, seed=seed, out=out_dir, records=records, report=not no_report,
                    compile_engine=lambda cc: compile_engine(cc, quiet),
                    notice=lambda: compile_notice(quiet),
                    on_summary=said, running=collecting)
    result, summary, report, compiled_s = (done.result, done.summary, done.report,
                                           done.compiled_s)
    if report is not None and text:
        click.echo(f"  report            {report} (and report.md, charts)")
    if not text:
        click.echo(json.dumps({
            "out": str(out_dir),
            "report": None if report is None else str(report),
            "elapsed": result.elapsed,
            "compile_s": round(compiled_s, 3),
            "rounds_run": result.rounds_run,
            "chunks_reused": result.chunks_reused,
            "chunks_total": result.chunks_total,
            "summary": summary,
        }, indent=2, allow_nan=False))


def timing_line(compiled_s: float, elapsed: float, rounds: int) -> str:
    """Where the time went: compiling the engine (a first run) and simulating.

    >>> timing_line(14.25, 0.5, 1000)
    '  time              compiled the engine in 14.2 s; simulated 1,000 rounds in 0.50 s (2,000 rounds/s)'
    >>> timing_line(0.0, 2.0, 0)
    '  time              2.00 s (every chunk reused)'
    """
    compiled = f"compiled the engine in {compiled_s:.1f} s; " if compiled_s > 0 else ""
    if rounds == 0 or elapsed <= 0:
        return f"  time              {compiled}{elapsed:.2f} s (every chunk reused)"
    return (f"  time              {compiled}simulated {rounds:,} rounds in {elapsed:.2f} s "
            f"({rounds / elapsed:,.0f} rounds/s)")
