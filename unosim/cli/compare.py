"""``unosim compare``: rule sets on the same games, every headline metric tested."""

from __future__ import annotations

import json
from pathlib import Path

import click

from unosim.cli import options
from unosim.cli.console import Command, compile_engines, info, warn


@click.command("compare", cls=Command)
@click.argument("configs", nargs=-1, required=True, metavar="A.yaml B.yaml [C.yaml ...]",
                shell_complete=options.complete_config)
@options.study
@options.answers
def compare_cmd(configs: tuple[str, ...], games: int | None, seed: int | None,
                out: str | None, overrides: tuple[str, ...], jobs: int | None, backend: str,
                scheduler: str | None, reuse: bool, resume: bool, force: bool,
                quiet: bool, precision: float | None, max_games: int | None,
                margins: tuple[str, ...], fmt: str) -> None:
    """Compare rule sets: run them on the same games, paired, and decide every question.

    Each argument is a config file (or shipped config name) or a finished run
    directory (holding aggregates.npz and summary.json), which is read, never
    written: a config whose run dir would be an input's gets OUT/runs/LABEL-2
    instead. The first is the baseline. The configs run in lockstep on the same
    games, so every difference is paired game by game; each question is
    decided against --margin (longer, shorter, practically the same, or not
    decided), Holm-corrected. Writes compare.md, compare.html, compare.csv,
    compare.parquet and charts to --out and prints one verdict per rule set.

    Each config runs into its own run dir OUT/runs/LABEL. An out dir that is
    not empty needs --resume (finish an interrupted comparison), --force
    (remove the previous study's runs, then run this one) or --reuse (keep the
    finished runs that match). The default OUT is runs/compare-NAMES-HASH, HASH
    short for what is compared, so another --games or --precision gets its own.
    """
    from unosim.report.labels import difference_labels
    from unosim.study import compare as study
    from unosim.study.runs import default_out

    if len(configs) < 2:
        raise click.UsageError("compare needs at least two configs (A.yaml B.yaml ...)")
    text = fmt == "text"
    opts = options.study_options(games, precision, max_games, margins=margins, jobs=jobs,
                                 backend=backend, scheduler=scheduler, reuse=reuse,
                                 resume=resume, force=force, progress=not quiet and text)
    cfgs, seeds, prebuilt = study.inputs(configs, overrides, seed, warn)
    identity = study.identity(cfgs, seeds, opts, prebuilt)
    out_dir = Path(out) if out is not None else default_out(
        "compare-" + "-vs-".join(c.name for c in cfgs), identity)
    n_games = identity["games"]
    info(quiet or not text, f"comparing {len(cfgs)} configs, "
         + (f"until the paired interval is ±{precision:g} (at most {n_games:,} games)"
            if precision is not None else f"{n_games:,} games each") + f" -> {out_dir}")
    cmd = options.command_line("compare", list(configs), [
        ("--games", games), ("--precision", precision), ("--max-games", max_games),
        ("--seed", seed), ("--set", overrides), ("--margin", margins), ("--out", out_dir)])
    cmp, paths = study.compare(
        cfgs, opts, seeds=seeds, out=out_dir, prebuilt=prebuilt,
        labels=difference_labels(cfgs), command=cmd, study=identity,
        # here, once, before any worker starts
        prepare=lambda fresh: compile_engines(fresh, quiet or not text))
    if not text:
        click.echo(json.dumps({
            "out": str(out_dir), "report": str(paths[1]), "labels": cmp.labels,
            "stop": cmp.stop,
            "verdicts": {cmp.labels[i]: vs for i, vs in enumerate(cmp.verdicts, start=1)},
            "table": json.loads(cmp.table().to_json(orient="records")),
        }, indent=2))
        return
    for i, verdicts in enumerate(cmp.verdicts, start=1):
        click.echo(f"{cmp.labels[i]} vs {cmp.labels[0]}:")
        for v in verdicts:
            click.echo(f"  - {v}")
    if cmp.stop:
        click.echo(f"stopped after {cmp.stop['games']:,} games: the paired interval is "
                   f"±{cmp.stop['half_width']:.4g}"
                   + ("" if cmp.stop["met"] else f", target ±{precision:g} not met at the cap"))
    click.echo(f"written to {paths[1]} (and .md, .csv, .parquet, charts)")
