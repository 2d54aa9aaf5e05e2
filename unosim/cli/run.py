"""``unosim run``: many games in parallel, then summary.json and the run report."""

from __future__ import annotations

from pathlib import Path

import click

from unosim.cli import options
from unosim.cli.console import Command, compile_notice, warn


@click.command("run", cls=Command)
@click.argument("config")
@options.games
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
@click.option("--no-report", is_flag=True,
              help="Skip report.md / report.html / charts (summary.json only).")
def run_cmd(config: str, games: int | None, seed: int | None, out: str | None,
            overrides: tuple[str, ...], jobs: int | None, records: bool, resume: bool,
            force: bool, quiet: bool, backend: str, scheduler: str | None,
            chunk_size: int | None, no_report: bool) -> None:
    """Simulate many games in parallel and write DIR/summary.json (and a report).

    DIR (--out; default runs/NAME-seedS) is locked while the command runs. It
    must be new or empty, or hold a run: --resume continues that run, --force
    discards it (only the files it wrote; a directory holding no run is never
    cleared).
    """
    from unosim.rules.config import name_slug
    from unosim.run import lock_out_dir, record_outputs, run_simulation

    cfg = options.load(config, overrides)
    games = cfg.games if games is None else games
    seed = cfg.seed if seed is None else seed
    out_dir = Path(out) if out is not None else Path("runs") / f"{name_slug(cfg.name)}-seed{seed}"
    compile_notice(quiet)
    with lock_out_dir(out_dir, warn):  # held until the report is written
        result = run_simulation(cfg, games=games, seed=seed, jobs=jobs, out=out_dir,
                                records=records, resume=resume, force=force, backend=backend,
                                scheduler=scheduler, chunk_size=chunk_size,
                                progress=not quiet, on_warning=warn)
        from unosim.analysis.summary import format_text, summarize_run  # scipy: games done

        summary = summarize_run(result)
        click.echo(format_text(summary, result.elapsed, result.rounds_run), nl=False)
        note = f"  written to        {out_dir}/summary.json"
        if result.chunks_reused:
            note += f" ({result.chunks_reused} of {result.chunks_total} chunks reused)"
        click.echo(note)
        if not no_report:
            from unosim.report.run_report import write_report

            # listed in run.json, so that --force removes them with the run
            record_outputs(out_dir, write_report(out_dir, cfg, result.aggregates, summary))
            click.echo(f"  report            {out_dir}/report.html (and report.md, charts)")
