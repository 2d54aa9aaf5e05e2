"""The ``unosim`` command line: ``play``, ``run``, ``editions`` (and reports' commands).

This is the only module that prints or exits. Every expected failure (a bad
config, a bad option, an unusable out dir, Ctrl-C) becomes one line
``unosim: error: ...`` on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import functools
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import click

from unosim import __version__

EXIT_ERROR = 2


def fail(message: str) -> NoReturn:
    """Print one error line and exit 2."""
    click.echo(f"unosim: error: {' '.join(str(message).split())}", err=True)
    sys.exit(EXIT_ERROR)


def warn(message: str) -> None:
    """Print one warning line on stderr."""
    click.echo(f"unosim: warning: {' '.join(str(message).split())}", err=True)


def _expected(exc: BaseException) -> bool:
    """Whether ``exc`` is a typed, one-line error of the layers below."""
    from unosim.rules.config import ConfigError
    from unosim.run.runner import RunError

    return isinstance(exc, (ConfigError, RunError))


def handle_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn the typed errors of the layers below into one-line exits (also under CliRunner)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except KeyboardInterrupt:
            fail("interrupted")
        except Exception as exc:
            if _expected(exc):
                fail(str(exc))
            raise

    return wrapper


class _Group(click.Group):
    """Click's usage errors become the same one line as ours (scripts grep one format)."""

    def main(self, args: Any = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             **extra: Any) -> Any:
        if not standalone_mode:  # tests and embedding callers handle exceptions
            return super().main(args, prog_name, complete_var, False, **extra)
        # Library warnings (numba, joblib, dask) also become single lines.
        warnings.showwarning = lambda message, *_args, **_kw: warn(str(message))
        try:
            rv = super().main(args, prog_name, complete_var, False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:
            click.echo(exc.ctx.get_help())
            sys.exit(0)
        except click.ClickException as exc:
            fail(exc.format_message())
        except (click.Abort, KeyboardInterrupt):
            fail("interrupted")
        except Exception as exc:  # typed errors from any subcommand, registered ones too
            if _expected(exc):
                fail(str(exc))
            raise
        sys.exit(rv if isinstance(rv, int) else 0)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="unosim")
def main() -> None:
    """UNO rules-variant simulator: play one game, run millions, compare rule sets."""


def _load(config: str, overrides: tuple[str, ...]) -> Any:
    from unosim.rules.config import load_config

    return load_config(config, overrides)


set_option = click.option("--set", "overrides", multiple=True, metavar="KEY.PATH=VALUE",
                          help="Override a config key (value parsed as YAML); repeatable.")


# --- play ------------------------------------------------------------------------------
@main.command()
@click.argument("config")
@click.option("--seed", type=int, default=None, help="Seed (default: the config's).")
@click.option("--game", type=click.IntRange(min=0), default=0, show_default=True,
              help="Which game of the seed to play (game G of `run --seed S`).")
@click.option("--trace-format", type=click.Choice(["text", "jsonl"]), default="text",
              show_default=True, help="Readable log, or JSON Lines per TRACE.md.")
@set_option
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="Write the trace to FILE instead of stdout.")
@handle_errors
def play(config: str, seed: int | None, game: int, trace_format: str,
         overrides: tuple[str, ...], out: str | None) -> None:
    """Play one game (a round, or a match in match mode) and print its trace."""
    from unosim.engine.game import play_game
    from unosim.engine.trace import to_jsonl, to_text
    from unosim.rules.config import compile_config

    cfg = _load(config, overrides)
    seed = cfg.seed if seed is None else seed
    if seed < 0:
        fail(f"seed must be >= 0, got {seed}")
    events = play_game(compile_config(cfg), seed, game)
    if trace_format == "jsonl":
        text = to_jsonl(events)
    else:
        policies = cfg.seat_policies
        names = ([f"P{i} ({p})" for i, p in enumerate(policies)]
                 if len(set(policies)) > 1 else None)
        text = to_text(events, seat_names=names, color_labels=cfg.edition_spec.colors)
    if out is None:
        click.echo(text, nl=False)
        return
    try:
        Path(out).write_text(text, encoding="utf-8")
    except OSError as exc:
        fail(f"cannot write {out}: {exc.strerror or exc}")


# --- run -------------------------------------------------------------------------------
@main.command()
@click.argument("config")
@click.option("--games", type=int, default=None,
              help="Games to simulate: rounds, or matches in match mode (default: the config's).")
@click.option("--seed", type=int, default=None, help="Seed (default: the config's).")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Output directory (default: runs/<config name>-seed<S>).")
@set_option
@click.option("--jobs", type=int, default=None,
              help="Parallel workers (default: all cores; 1 for runs of at most 20,000 games; "
                   "with --scheduler, the cluster's).")
@click.option("--records", is_flag=True, help="Also write one Parquet row per round.")
@click.option("--resume", is_flag=True, help="Continue an interrupted run in --out.")
@click.option("--force", is_flag=True, help="Discard a previous run in --out.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option("--backend", type=click.Choice(["loky", "threads", "dask"]), default="loky",
              show_default=True, help="Where chunks run: local processes, threads, or dask.")
@click.option("--scheduler", default=None, metavar="ADDR",
              help="Dask scheduler address (tcp://host:port); default a LocalCluster.")
@click.option("--chunk-size", type=int, default=None,
              help="Games per chunk (checkpoint unit; does not change results).")
@click.option("--no-report", is_flag=True,
              help="Skip report.md / report.html / charts (summary.json only).")
@handle_errors
def run(config: str, games: int | None, seed: int | None, out: str | None,
        overrides: tuple[str, ...], jobs: int | None, records: bool, resume: bool,
        force: bool, quiet: bool, backend: str, scheduler: str | None,
        chunk_size: int | None, no_report: bool) -> None:
    """Simulate many games in parallel and write DIR/summary.json."""
    from unosim.run.runner import run_simulation

    cfg = _load(config, overrides)
    games = cfg.games if games is None else games
    seed = cfg.seed if seed is None else seed
    if seed < 0:
        fail(f"seed must be >= 0, got {seed}")
    out_dir = Path(out) if out is not None else Path("runs") / f"{cfg.name}-seed{seed}"
    result = run_simulation(cfg, games=games, seed=seed, jobs=jobs, out=out_dir,
                            records=records, resume=resume, force=force, backend=backend,
                            scheduler=scheduler, chunk_size=chunk_size, progress=not quiet,
                            on_warning=warn)
    from unosim.analysis.summary import format_text  # scipy: only once the games are done

    click.echo(format_text(result.summary, result.elapsed, result.rounds_run), nl=False)
    note = f"  written to        {out_dir}/summary.json"
    if result.chunks_reused:
        note += f" ({result.chunks_reused} of {result.chunks_total} chunks reused)"
    click.echo(note)
    if not no_report:
        from unosim.report.run_report import write_report

        write_report(out_dir, cfg, result.aggregates, result.summary)
        click.echo(f"  report            {out_dir}/report.html (and report.md, charts)")


# --- editions --------------------------------------------------------------------------
def editions_table() -> str:
    """One row per shipped edition, naming where it differs from classic."""
    from unosim.rules.editions import HouseRules, deck_counts, list_editions, load_edition

    base = load_edition("classic")
    rows = [("name", "title", "cards", "special card", "differs from classic")]
    for name in list_editions():
        ed = load_edition(name)
        diffs = [f"{k} {getattr(ed, k)}".replace("True", "yes").replace("False", "no")
                 for k in ("first_flip", "wd4_wilds_block", "uno_penalty")
                 if getattr(ed, k) != getattr(base, k)]
        on = _rules_on(ed.house_rules.model_dump(), HouseRules().model_dump())
        if on:
            diffs.append("house rules on: " + ", ".join(on))
        if ed.behaviour != base.behaviour:
            diffs.append("behaviour " + ", ".join(f"{k} {v}" for k, v in
                                                  ed.behaviour.model_dump().items()))
        special = ed.special.name if ed.special else "-"
        rows.append((name, ed.title, str(int(deck_counts(ed).sum())), special,
                     "; ".join(diffs) if diffs else "-"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r[:-1], widths, strict=True)) + "  " + r[-1]
             for r in rows]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def _rules_on(rules: dict[str, Any], default: dict[str, Any], prefix: str = "") -> list[str]:
    out: list[str] = []
    for k, v in rules.items():
        if isinstance(v, dict):
            out += _rules_on(v, default[k], f"{prefix}{k}.")
        elif v != default[k]:
            out.append(f"{prefix}{k}")
    return out


@main.command()
@handle_errors
def editions() -> None:
    """List the shipped editions and how each differs from classic."""
    click.echo(editions_table(), nl=False)


try:  # compare / sweep live with the reports layer when it is installed
    from unosim.cli.reports import register
except ImportError:
    pass
else:
    register(main)

