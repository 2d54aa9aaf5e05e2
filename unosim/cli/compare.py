"""``unosim compare``: rule sets on the same games, every headline metric tested."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from unosim.cli import options
from unosim.cli.console import CliError, Command, compile_engines, info, warn


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
    from unosim.report.compare import run_comparison, write_comparison
    from unosim.report.labels import difference_labels
    from unosim.report.runs import default_out, load_run, study_dir, study_identity

    if len(configs) < 2:
        raise click.UsageError("compare needs at least two configs (A.yaml B.yaml ...)")
    games, cap = options.games_and_cap(games, precision, max_games)
    margin_map = options.parse_margins(margins)
    cfgs: list[Any] = []
    seeds: list[int] = []
    prebuilt: dict[int, Any] = {}
    for i, arg in enumerate(configs):
        if Path(arg).is_dir():
            try:
                run = load_run(arg)
            except ValueError as exc:
                raise CliError(exc) from None
            if overrides:
                warn(f"--set does not apply to the finished run in {arg}")
            prebuilt[i] = run
            cfgs.append(run.cfg)
            seeds.append(run.seed)
        else:
            cfg = options.load(arg, overrides)
            cfgs.append(cfg)
            seeds.append(cfg.seed if seed is None else seed)
    fresh = [c for i, c in enumerate(cfgs) if i not in prebuilt]
    n_games = cap if cap is not None else games if games is not None else (
        fresh[0].games if fresh else 0)
    identity = study_identity("compare", seeds=seeds, games=n_games, precision=precision,
                              configs=[prebuilt.get(i, c) for i, c in enumerate(cfgs)])
    out_dir = Path(out) if out is not None else default_out(
        "compare-" + "-vs-".join(c.name for c in cfgs), identity)
    text = fmt == "text"
    info(quiet or not text, f"comparing {len(cfgs)} configs, "
         + (f"until the paired interval is ±{precision:g} (at most {n_games:,} games)"
            if precision is not None else f"{n_games:,} games each") + f" -> {out_dir}")
    with study_dir(out_dir, identity, resume=resume, force=force, reuse=reuse,
                   inputs=[r.out for r in prebuilt.values()], warn=warn):
        compile_engines(fresh, quiet or not text)  # here, once, before any worker starts
        cmp = run_comparison(cfgs, games=n_games, seeds=seeds, out=out_dir, jobs=jobs,
                             reuse=reuse, resume=resume, force=force,
                             progress=not quiet and text, prebuilt=prebuilt, on_warning=warn,
                             backend=backend, scheduler=scheduler, precision=precision,
                             margins=margin_map, labels=difference_labels(cfgs))
        cmd = options.command_line("compare", list(configs), [
            ("--games", games), ("--precision", precision), ("--max-games", max_games),
            ("--seed", seed), ("--set", overrides), ("--margin", margins), ("--out", out_dir)])
        paths = write_comparison(cmp, out_dir, command=cmd)
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
