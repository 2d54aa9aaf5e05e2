"""``unosim compare`` and ``unosim sweep``: click commands over unosim.report.compare / unosim.report.sweep.

``unosim.cli`` calls ``register(main)``. Every expected failure (a bad
config or ``--vary``, a bad option, an unusable run directory) is raised as a
``ReportsError``: a ``click.ClickException`` with exit code 2 and a one-line
message, so the user sees no traceback whether the commands run under the
main group or on their own.
"""

from __future__ import annotations

import contextlib
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

__all__ = ["ReportsError", "compare_cmd", "register", "sweep_cmd"]


class ReportsError(click.ClickException):
    """A one-line error that exits with code 2 (bad input, like click's usage errors)."""

    exit_code = 2

    def __init__(self, message: Any) -> None:
        super().__init__(" ".join(str(message).split()))


@contextlib.contextmanager
def _errors() -> Iterator[None]:
    """Turn the typed errors of the layers below into ``ReportsError``."""
    from unosim.report.sweep import VaryError
    from unosim.rules.config import ConfigError

    expected: tuple[type[BaseException], ...] = (ConfigError, VaryError)
    try:
        from unosim.run.runner import RunError

        expected += (RunError,)
    except ImportError:
        pass
    try:
        yield
    except click.ClickException:
        raise
    except expected as exc:
        raise ReportsError(str(exc)) from None
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        raise ReportsError(f"{where}{exc.strerror or exc}") from None


def _info(quiet: bool, message: str) -> None:
    if not quiet:
        click.echo(message, err=True)


def _warn(message: str) -> None:
    click.echo(f"unosim: warning: {' '.join(message.split())}", err=True)


def _check_counts(games: int | None, seed: int | None, jobs: int | None) -> None:
    if games is not None and games < 1:
        raise click.UsageError(f"--games must be at least 1, got {games}")
    if seed is not None and seed < 0:
        raise click.UsageError(f"--seed must be >= 0, got {seed}")
    if jobs is not None and jobs < 1:
        raise click.UsageError(f"--jobs must be at least 1 (omit it to use all cores), got {jobs}")


def _command_line(name: str, positional: list[str], options: list[tuple[str, Any]]) -> str:
    """The command as it could be retyped: given arguments, resolved options, in order."""
    parts = ["unosim", name, *positional]
    for opt, value in options:
        if value is None or value is False:
            continue
        if value is True:
            parts.append(opt)
        elif isinstance(value, (list, tuple)):
            for v in value:
                parts += [opt, str(v)]
        else:
            parts += [opt, str(value)]
    return shlex.join(parts)


_common = [
    click.option("--games", type=int, default=None,
                 help="Games per config (default: the first config's `games`)."),
    click.option("--seed", type=int, default=None,
                 help="Seed for every run (default: each config's own `seed`)."),
    click.option("--out", type=click.Path(file_okay=False), default=None,
                 help="Output directory (default: runs/compare-... or runs/sweep-...)."),
    click.option("--set", "overrides", multiple=True, metavar="KEY.PATH=VALUE",
                 help="Override a key in every config (value parsed as YAML); repeatable."),
    click.option("--jobs", type=int, default=None, help="Parallel workers (default: all cores)."),
    click.option("--backend", type=click.Choice(["loky", "threads", "dask"]), default="loky",
                 show_default=True, help="Where chunks run: local processes, threads, or dask."),
    click.option("--scheduler", default=None, metavar="ADDR",
                 help="Dask scheduler address (tcp://host:port); default a LocalCluster."),
    click.option("--reuse", is_flag=True,
                 help="Reuse finished runs under OUT/runs that match config, seed and games."),
    click.option("--quiet", "-q", is_flag=True, help="No progress on stderr."),
]


def _with_common(func: Any) -> Any:
    for opt in reversed(_common):
        func = opt(func)
    return func


# --- compare -----------------------------------------------------------------------
@click.command("compare", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("configs", nargs=-1, required=True, metavar="A.yaml B.yaml [C.yaml ...]")
@_with_common
def compare_cmd(configs: tuple[str, ...], games: int | None, seed: int | None,
                out: str | None, overrides: tuple[str, ...], jobs: int | None, backend: str,
                scheduler: str | None, reuse: bool, quiet: bool) -> None:
    """Compare rule sets: run each config on the same games, test every headline metric.

    Each argument is a config file (or shipped config name) or a finished run
    directory (holding aggregates.npz and summary.json), which is reused as is.
    The first is the baseline. Writes compare.md, compare.html, compare.csv and
    charts to --out and prints one verdict per rule set.
    """
    from unosim.report.compare import load_run, run_comparison, write_comparison
    from unosim.rules.config import load_config

    if len(configs) < 2:
        raise click.UsageError("compare needs at least two configs (A.yaml B.yaml ...)")
    _check_counts(games, seed, jobs)
    with _errors():
        cfgs, seeds, prebuilt = [], [], {}
        for i, arg in enumerate(configs):
            if Path(arg).is_dir():
                try:
                    run = load_run(arg)
                except ValueError as exc:
                    raise ReportsError(str(exc)) from None
                if overrides:
                    _warn(f"--set does not apply to the finished run in {arg}")
                prebuilt[i] = run
                cfgs.append(run.cfg)
                seeds.append(run.seed)
            else:
                cfg = load_config(arg, overrides)
                cfgs.append(cfg)
                seeds.append(cfg.seed if seed is None else seed)
        fresh = [c for i, c in enumerate(cfgs) if i not in prebuilt]
        n_games = games if games is not None else (fresh[0].games if fresh else 0)
        out_dir = Path(out) if out is not None else Path("runs") / (
            "compare-" + "-vs-".join(c.name for c in cfgs))[:120]
        _info(quiet, f"comparing {len(cfgs)} configs, {n_games:,} games each -> {out_dir}")
        cmp = run_comparison(cfgs, games=n_games, seeds=seeds, out=out_dir, jobs=jobs,
                             reuse=reuse, progress=not quiet, prebuilt=prebuilt,
                             on_warning=_warn, backend=backend, scheduler=scheduler)
        cmd = _command_line("compare", list(configs), [
            ("--games", n_games), ("--seed", seed), ("--set", overrides), ("--out", out_dir)])
        paths = write_comparison(cmp, out_dir, command=cmd)
    for i, verdicts in enumerate(cmp.verdicts, start=1):
        click.echo(f"{cmp.labels[i]} vs {cmp.labels[0]}:")
        for v in verdicts:
            click.echo(f"  - {v}")
    click.echo(f"written to {paths[1]} (and .md, .csv, charts)")


# --- sweep -------------------------------------------------------------------------
@click.command("sweep", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("config")
@click.option("--vary", "varies", multiple=True, required=True, metavar="KEY=VALUES",
              help="A grid axis: players=2..10, or a comma list of YAML values "
                   "(house_rules.jump_in=false,true). Repeatable; the first is the x axis.")
@_with_common
def sweep_cmd(config: str, varies: tuple[str, ...], games: int | None, seed: int | None,
              out: str | None, overrides: tuple[str, ...], jobs: int | None, backend: str,
              scheduler: str | None, reuse: bool, quiet: bool) -> None:
    """Run a grid of variants of CONFIG; write sweep.csv/.parquet and a chart per metric."""
    from unosim.report.sweep import parse_vary, run_sweep, write_sweep

    _check_counts(games, seed, jobs)
    with _errors():
        axes = [parse_vary(v) for v in varies]
        out_dir = Path(out) if out is not None else Path("runs") / f"sweep-{Path(config).stem}"

        def on_cell(i: int, n: int, cell: Any, seconds: float) -> None:
            what = ", ".join(f"{a.key}={t}" for a, t in zip(axes, cell.texts, strict=True))
            _info(quiet, f"[{i + 1}/{n}] {what}: {cell.run.rounds:,} rounds in {seconds:.1f} s")

        sweep = run_sweep(config, axes, games=games, seed=seed, out=out_dir, jobs=jobs,
                          overrides=overrides, progress=False, reuse=reuse, on_cell=on_cell,
                          on_warning=_warn, backend=backend, scheduler=scheduler)
        cmd = _command_line("sweep", [config], [
            ("--vary", varies), ("--games", sweep.games), ("--seed", seed),
            ("--set", overrides), ("--out", out_dir)])
        paths = write_sweep(sweep, out_dir, command=cmd)
    from unosim.report.run_report import METRIC_BY_KEY, fmt_metric

    table = sweep_table_text(sweep, [METRIC_BY_KEY["turns_mean"],
                                     METRIC_BY_KEY["first_player_win_rate"]], fmt_metric)
    click.echo(table)
    click.echo(f"written to {paths[2]} and {paths[1]} (and .parquet, charts)")


def sweep_table_text(sweep: Any, metrics: list[Any], fmt: Any) -> str:
    """A plain-text table of every cell for stdout."""
    from unosim.report.run_report import estimate

    header = [a.key for a in sweep.axes] + [m.label for m in metrics]
    rows = [[lab for lab in (a.labels[a.texts.index(t)]
                             for a, t in zip(sweep.axes, cell.texts, strict=True))]
            + [fmt(estimate(cell.run.aggregates, m), m) for m in metrics]
            for cell in sweep.cells]
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
             for r in [header, *rows]]
    return "\n".join(lines)


def register(group: click.Group) -> None:
    """Add ``compare`` and ``sweep`` to the main ``unosim`` group."""
    group.add_command(compare_cmd)
    group.add_command(sweep_cmd)
