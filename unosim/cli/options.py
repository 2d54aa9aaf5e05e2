"""The options several commands share, each declared once, and the helpers they feed.

Limits come from the layers that own them (``unosim.rules.limits``), the
``--set`` keys and their help from the settings' declarations
(``unosim.rules.settings``), read only when help or completion asks, so
``unosim --help`` and shell completion start fast.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import TYPE_CHECKING, TypedDict, TypeVar, Unpack

import click
from click.shell_completion import CompletionItem

from unosim.rules.limits import DEFAULT_MAX_GAMES, MAX_GAMES, MAX_SEED

if TYPE_CHECKING:
    from unosim.analysis.paired import Margin
    from unosim.rules.config import GameConfig
    from unosim.study import StudyOptions

__all__ = [
    "BACKENDS",
    "backend",
    "chunk_size",
    "command_line",
    "complete_config",
    "complete_policy",
    "games_and_cap",
    "answers",
    "force",
    "format_option",
    "games",
    "jobs",
    "load",
    "margin",
    "max_games",
    "out_dir",
    "overrides",
    "parse_margins",
    "precision",
    "quiet",
    "records",
    "resume",
    "reuse",
    "scheduler",
    "seed",
    "study_options",
    "study",
]

F = TypeVar("F", bound=Callable[..., object])

# unosim.run.BACKENDS, spelled out so the CLI starts without loading the engine
# (tests/test_cli_options.py checks they agree).
BACKENDS = ("loky", "threads", "dask")


# Keys that size a run of many games: meaningless where one round is played.
_MANY_GAMES_KEYS = ("games", "seed")
_ONE_ROUND_COMMANDS = ("play", "advise")


class _SetOption(click.Option):
    """``--set``: the command's help lists every settable key, completion offers them."""

    def help_section(self, ctx: click.Context | None = None
                     ) -> tuple[str, list[tuple[str, str]]]:
        """A help section of its own (see `unosim.cli.console.Command.format_epilog`).

        ``play`` and ``advise`` play one position: ``games=``/``seed=`` are not theirs.
        """
        from unosim.rules.settings import settings

        one_round = ctx is not None and ctx.command.name in _ONE_ROUND_COMMANDS
        return "Settings (--set KEY=VALUE)", [
            (f"{s.key}={s.values}", s.label) for s in settings()
            if not (one_round and s.key in _MANY_GAMES_KEYS)]


def _setting_values(key: str, values: str) -> list[str]:
    """The values completion offers for a setting: its choices, or none for a range.

    >>> _setting_values("mode", "round|match"), _setting_values("players", "2..40")
    (['round', 'match'], [])
    """
    from unosim.rules.models import POLICY_NAMES

    if key == "edition":
        from unosim.rules.editions import list_editions

        return list_editions()
    if key == "policy":
        return list(POLICY_NAMES)
    if key == "seats":
        return ["[" + ", ".join(["random"] * 4) + "]", "null"]
    if "|" in values and not any(c in values for c in "[ ."):
        return values.split("|")
    return []


def _complete_setting(ctx: click.Context, param: click.Parameter,
                      incomplete: str) -> list[CompletionItem]:
    """``--set`` keys for shell completion, each with its label; after ``KEY=``, its values."""
    from unosim.rules.settings import settings

    key, sep, value = incomplete.partition("=")
    if sep:
        return [CompletionItem(f"{key}={v}") for s in settings() if s.key == key
                for v in _setting_values(s.key, s.values) if v.startswith(value)]
    return [CompletionItem(f"{s.key}=", help=s.label) for s in settings()
            if s.key.startswith(incomplete)]


def complete_vary(ctx: click.Context, param: click.Parameter,
                  incomplete: str) -> list[CompletionItem]:
    """``--vary`` keys, as ``--set``'s but those the command refuses (games and seed; a
    league's seats too); after ``KEY=``, every value of a key with choices, in both orders
    for two (``house_rules.seven_o=false,true``), and off/on first for a switch with
    named values (``house_rules.jump_in``).
    """
    refused = {"games=", "seed="} | ({"policy=", "seats="}
                                     if ctx is not None and ctx.info_name == "league" else set())
    key, sep, value = incomplete.partition("=")
    if not sep:
        return [c for c in _complete_setting(ctx, param, incomplete) if c.value not in refused]
    every = [v.value.partition("=")[2] for v in _complete_setting(ctx, param, f"{key}=")]
    lists = [every, every[::-1]] if len(every) == 2 else [every] if every else []
    if len(every) > 2 and {"false", "true"} <= set(every):  # a switch with named values
        lists = [["false", "true"], ["true", "false"], every]
    return [CompletionItem(f"{key}={','.join(vs)}") for vs in lists
            if ",".join(vs).startswith(value)]


def complete_config(ctx: click.Context, param: click.Parameter,
                    incomplete: str) -> list[CompletionItem]:
    """A CONFIG argument: the built-in config names, then files."""
    from unosim.rules.yamlio import list_shipped

    return [*(CompletionItem(n) for n in list_shipped() if n.startswith(incomplete)),
            CompletionItem(incomplete, type="file")]


def complete_policy(ctx: click.Context, param: click.Parameter,
                    incomplete: str) -> list[CompletionItem]:
    """A POLICY argument: the built-in policy names, then files (a plug-in file.py:Class)."""
    from unosim.rules.models import POLICY_NAMES

    return [*(CompletionItem(n) for n in POLICY_NAMES if n.startswith(incomplete)),
            CompletionItem(incomplete, type="file")]


overrides: Callable[[F], F] = click.option(
    "--set", "overrides", cls=_SetOption, multiple=True, metavar="KEY=VALUE",
    shell_complete=_complete_setting,
    help="Override a config key (value parsed as YAML, in every config given); repeatable. "
         "The keys are listed below.")
seed: Callable[[F], F] = click.option(
    "--seed", type=click.IntRange(0, MAX_SEED), default=None,
    help="Seed (default: each config's own `seed`).")
games: Callable[[F], F] = click.option(
    "--games", type=click.IntRange(1, MAX_GAMES), default=None,
    help="Games to simulate: rounds, or matches in match mode (default: the config's "
         "`games`).")


def _positive(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """A precision must be a finite number above 0 (0 could never be met)."""
    if value is not None and not (0 < value < float("inf")):
        raise click.BadParameter("must be a number above 0")
    return value


precision: Callable[[F], F] = click.option(
    "--precision", type=float, default=None, metavar="X", callback=_positive,
    help="Instead of --games: add chunks until the 95% interval of the headline figure "
         "(run: mean turns per round) is at most ±X, capped by --max-games.")
max_games: Callable[[F], F] = click.option(
    "--max-games", type=click.IntRange(1, MAX_GAMES), default=None,
    help=f"With --precision: stop at this many games even if the target is not met "
         f"(default {DEFAULT_MAX_GAMES:,}).")
format_option: Callable[[F], F] = click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text",
    show_default=True,
    help="json: print the machine-readable result on stdout and nothing else "
         "(notes and progress stay on stderr).")


def _not_empty(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``--out ''`` would mean the current directory: refuse it rather than write there."""
    if value is not None and not value:
        raise click.BadParameter("must not be empty (use --out . for the current directory)")
    return value


out_dir: Callable[[F], F] = click.option(
    "--out", type=click.Path(file_okay=False), default=None, callback=_not_empty,
    help="Output directory (default: a folder under runs/ named after the config).")
jobs: Callable[[F], F] = click.option(
    "--jobs", type=click.IntRange(min=1), default=None,
    help="Parallel workers (default: all cores; 1 for runs of at most 20,000 games; "
         "with --scheduler, the cluster's).")
backend: Callable[[F], F] = click.option(
    "--backend", type=click.Choice(BACKENDS), default="loky", show_default=True,
    help="Where chunks run: local processes, threads, or dask.")
scheduler: Callable[[F], F] = click.option(
    "--scheduler", default=None, metavar="ADDR",
    help="Dask scheduler address (tcp://host:port); default a LocalCluster.")
chunk_size: Callable[[F], F] = click.option(
    "--chunk-size", type=click.IntRange(min=1), default=None,
    help="Games per chunk (checkpoint unit; does not change results).")
quiet: Callable[[F], F] = click.option(
    "--quiet", "-q", is_flag=True, help="No progress on stderr.")
force: Callable[[F], F] = click.option(
    "--force", is_flag=True,
    help="Discard a previous run in --out (only the files a run wrote; a directory "
         "holding no run is never cleared).")
resume: Callable[[F], F] = click.option(
    "--resume", is_flag=True, help="Continue an interrupted run in --out.")
records: Callable[[F], F] = click.option(
    "--records", is_flag=True, help="Also write one Parquet row per round.")
reuse: Callable[[F], F] = click.option(
    "--reuse", is_flag=True,
    help="Reuse finished runs under OUT/runs that match config, seed and games.")


def _stack(*decorators: Callable[[F], F]) -> Callable[[F], F]:
    """Several options as one decorator, listed in help in the order given."""
    def apply(func: F) -> F:
        for decorator in reversed(decorators):
            func = decorator(func)
        return func
    return apply


# What compare and sweep share: several runs into one study folder, each cell a run
# dir that resumes (--resume) or is discarded (--force) like `unosim run`'s.
study = _stack(games, seed, out_dir, overrides, jobs, backend, scheduler, reuse, resume, force,
               quiet)
margin: Callable[[F], F] = click.option(
    "--margin", "margins", multiple=True, metavar="[METRIC=]X",
    help="The difference too small to matter, per metric (repeatable): X% of the baseline "
         "or an absolute number (percentage points for rates). A bare X is for mean turns. "
         "Defaults: 1% of the baseline for lengths and counts, 0.5 points for rates.")
# what a study answers with: precision stopping, margins, machine-readable output
answers = _stack(precision, max_games, margin, format_option)


def parse_margins(specs: tuple[str, ...]) -> dict[str, Margin]:
    """``--margin`` values as {metric key: Margin}; a bad one is a usage error."""
    from unosim.analysis.estimates import METRIC_BY_KEY
    from unosim.analysis.paired import parse_margin

    out: dict[str, Margin] = {}
    for spec in specs:
        key, sep, value = spec.rpartition("=")
        key = key.strip() if sep else "turns_mean"
        if key not in METRIC_BY_KEY:
            raise click.BadParameter(f"unknown metric {key!r} (choose from "
                                     f"{', '.join(METRIC_BY_KEY)})", param_hint="--margin")
        try:
            out[key] = parse_margin(value, rate=METRIC_BY_KEY[key].kind == "rate")
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--margin") from None
    return out


def games_and_cap(games: int | None, precision_: float | None,
                  max_games_: int | None) -> tuple[int | None, int | None]:
    """(games, cap): the study's games-or-precision rule (`unosim.study.options.games_and_cap`),
    its refusal a usage error naming the options."""
    from unosim.study.options import GamesError
    from unosim.study.options import games_and_cap as rule

    try:
        return rule(games, precision_, max_games_, spell=lambda n: "--" + n.replace("_", "-"))
    except GamesError as exc:
        raise click.UsageError(str(exc)) from None


class RunKeywords(TypedDict, total=False):
    """The options of a study besides games, precision and margins, as a command has them
    (`unosim.study.StudyOptions` declares each one)."""

    jobs: int | None
    backend: str
    scheduler: str | None
    chunk_size: int | None
    resume: bool
    force: bool
    reuse: bool
    progress: bool


def study_options(games: int | None, precision_: float | None, max_games_: int | None, *,
                  margins: tuple[str, ...] = (), **runner: Unpack[RunKeywords]) -> StudyOptions:
    """The study's one options value (`unosim.study.StudyOptions`) from a command's
    options: games or precision checked (a usage error), margins parsed, warnings to
    stderr; ``runner`` holds the rest (jobs, backend, resume, progress, ...)."""
    from unosim.cli.console import warn
    from unosim.study import StudyOptions

    games_and_cap(games, precision_, max_games_)
    return StudyOptions(games=games, precision=precision_, max_games=max_games_,
                        margins=parse_margins(margins), on_warning=warn, **runner)


def load(config: str, overrides: tuple[str, ...]) -> GameConfig:
    """The validated config ``config`` (a file or shipped name) with ``--set`` applied."""
    from unosim.rules.config import load_config

    return load_config(config, overrides)


def command_line(name: str, positional: list[str], options: list[tuple[str, object]]) -> str:
    """The command as it could be retyped: given arguments, resolved options, in order.

    >>> command_line("sweep", ["classic"], [("--vary", ["players=2..4"]), ("--seed", None),
    ...                                     ("--reuse", True), ("--out", "runs/my sweep")])
    "unosim sweep classic --vary players=2..4 --reuse --out 'runs/my sweep'"
    """
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
