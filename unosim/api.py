"""The Python API for notebooks and scripts: ``import unosim; unosim.run("classic")``.

It does what the CLI does, without printing or exiting: configs are read as
``unosim run`` reads them (`config`), a run goes through the same runner,
summary and report, and errors are the same typed one-line exceptions
(``ConfigError``, ``RunError``, ...). A run with ``set`` overrides is named
after them, as ``unosim run --set`` names it (`unosim.report.labels.variant_name`).

``unosim`` imports this module on first use of ``unosim.run`` (the package
itself stays light for the engine's worker processes). Functions that take
several configs (compare, sweep) belong here too, built on `config` and
returning result objects like `Result`. See ``docs/python.md``.

Every public function runs in one frame (`_api_call`): games, seeds and caps
are checked against the CLI's limits before anything runs, a study's ``out``
goes through the CLI's out-dir checks and manifest (`unosim.study.runs.study_dir`),
and the temporary file a mapping config is read from is removed when the
call returns.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import json
import math
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ParamSpec, TypedDict, TypeVar, Unpack

import numpy as np

from unosim.rules.config import GameConfig, load_config

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from unosim.analysis.paired import Margin
    from unosim.analysis.summary import Summary, SummaryStop
    from unosim.report.comparison import Comparison
    from unosim.report.grid import Axis
    from unosim.report.league import LeagueSet
    from unosim.report.screen import Screen
    from unosim.report.sweep import Sweep
    from unosim.run.documents import Stop
    from unosim.study import StudyOptions

__all__ = ["Interval", "Result", "compare", "config", "league", "run", "screen", "sweep"]

# What a config may be given as: a file, a built-in name, a mapping of its YAML, or itself.
ConfigSource = str | Path | Mapping[str, object] | GameConfig

@dataclass(frozen=True)
class Interval:
    """An estimate and its 95% interval: ``mean`` (the point estimate), ``low``, ``high``.

    >>> Interval(41.2, 40.9, 41.5, 1000)
    Interval(mean=41.2, low=40.9, high=41.5, n=1000)
    >>> round(Interval(41.2, 40.9, 41.5, 1000).half_width, 2)
    0.3
    """

    mean: float
    low: float
    high: float
    n: int

    @property
    def half_width(self) -> float:
        """Half the interval's width: the ``precision`` a run can target."""
        return (self.high - self.low) / 2

    def __str__(self) -> str:
        from unosim.analysis.stats import format_ci

        if not (math.isfinite(self.low) and math.isfinite(self.high)):
            return f"{self.mean:g}"
        return format_ci(self.mean, self.low, self.high)


def _overrides(values: Mapping[str, object] | None) -> list[str]:
    """``{"players": 6}`` as ``--set`` texts; JSON is YAML, so every value reads back."""
    return [f"{k}={json.dumps(v)}" for k, v in (values or {}).items()]


def config(source: ConfigSource,
           set: Mapping[str, object] | None = None) -> GameConfig:  # noqa: A002 (as --set)
    """A validated config: a file, a built-in name or a mapping, with ``set`` overrides.

    A mapping is read as a YAML file holding it would be (``extends:`` a
    built-in name works; a name defaults to ``config``). Overrides use the
    ``--set`` keys (``house_rules.jump_in``) and, when there are any, name the
    config as ``unosim run --set`` does.

    >>> cfg = config("classic", set={"house_rules.jump_in": True})
    >>> cfg.name, cfg.house_rules.jump_in
    ('classic+jump_in', True)
    >>> config({"extends": "classic", "name": "six", "players": 6}).players
    6
    """
    from unosim.report.labels import variant_name

    overrides = _overrides(set)
    with _scratch_files():  # the temporary file is read at once
        if isinstance(source, GameConfig):
            cfg = _load_mapping(source.model_dump(mode="json"), source.name,
                                overrides) if overrides else source
        elif isinstance(source, Mapping):
            cfg = _load_mapping(source, "config", overrides)
        else:
            cfg = load_config(source, overrides)
    if overrides:
        cfg = cfg.model_copy(update={"name": variant_name(cfg.name, overrides)})
    return cfg


# The folders of the temporary config files of the API call under way (None: no call).
_scratch: ContextVar[list[Path] | None] = ContextVar("unosim_api_scratch", default=None)


@contextlib.contextmanager
def _scratch_files() -> Iterator[None]:
    """Remove the temporary config files written during the ``with`` block at its end."""
    folders: list[Path] = []
    token = _scratch.set(folders)
    try:
        yield
    finally:
        _scratch.reset(token)
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)


def _load_mapping(data: Mapping[str, object], stem: str,
                  overrides: Sequence[str]) -> GameConfig:
    """A mapping read as its config file would be; an error names the mapping, not the
    temporary file it was read from (a path the caller never wrote, gone at once)."""
    from unosim.rules.errors import ConfigError

    path = _as_file(data, stem)
    try:
        return load_config(path, overrides)
    except ConfigError as exc:
        temp = ConfigError(path, None, "").source or ""
        if not (exc.source or "").startswith(temp):
            raise
        where = f"{stem} (a mapping){(exc.source or '')[len(temp):]}"
        raise ConfigError(where, exc.key, exc.message) from None


def _as_file(data: Mapping[str, object], stem: str) -> Path:
    """A mapping written as a YAML file, so that it is read exactly as a config file is.

    The file lives until the enclosing API call returns (`_scratch_files`).
    """
    import yaml

    folders = _scratch.get()
    if folders is None:
        raise RuntimeError("a temporary config file outside an API call would never be removed")
    folder = Path(tempfile.mkdtemp(prefix="unosim-config-"))
    folders.append(folder)
    path = folder / f"{stem}.yaml"
    path.write_text(yaml.safe_dump(dict(data), sort_keys=False))
    return path


P = ParamSpec("P")
R = TypeVar("R")


def _api_call(func: Callable[P, R]) -> Callable[P, R]:
    """The frame of a public function: limits first, temporary files removed after.

    A study's ``out`` is checked, locked and recorded by the study itself
    (`unosim.study.runs.study_dir`), exactly as the CLI's ``--out`` is.
    """
    signature = inspect.signature(func)

    @functools.wraps(func)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        _check_arguments(bound.arguments)
        with _scratch_files():
            return func(*args, **kwargs)
    return call


def _check_arguments(a: Mapping[str, object]) -> None:
    """Games, caps and seeds within the CLI's limits, and no empty ``out``, before
    anything runs (``out=""`` would be the working directory)."""
    from unosim.run.errors import BadOptionError
    from unosim.run.runner import check_games, check_seed

    if isinstance(a.get("out"), str) and not a["out"]:
        raise BadOptionError("out must not be empty (use '.' for the current directory)")

    for name in ("games", "max_games"):
        if a.get(name) is not None:
            check_games(a[name], name)
    if a.get("seed") is not None:
        check_seed(a["seed"])


@dataclass
class Result:
    """One finished run: its summary, headline estimates, a tidy table, records, a report.

    ``aggregates`` are the merged totals every figure comes from; ``out`` is
    the run directory (None for a run kept in memory); ``stop`` says how a
    run with a precision target ended (None otherwise).
    """

    cfg: GameConfig
    seed: int
    games: int
    aggregates: dict[str, np.ndarray]
    summary: Summary
    out: Path | None = None
    stop: Stop | SummaryStop | None = None  # read back from a run dir: the summary's part
    elapsed: float | None = field(default=None, repr=False)

    def __repr__(self) -> str:
        where = f", out={str(self.out)!r}" if self.out else ""
        return (f"Result({self.cfg.name!r}, games={self.games:,}, seed={self.seed}, "
                f"turns={self.turns}{where})")

    def _repr_html_(self) -> str:
        from unosim.report.notebook import result_html

        return result_html(self.cfg.name, self.games, self.seed, self.aggregates)

    def plot(self) -> Figure:
        """Turns per round: the distribution and its CDF, mean and median marked (the run
        report's chart), as a matplotlib Figure."""
        from unosim.report.charts import Series, turns_figure
        from unosim.report.notebook import displayable

        return displayable(turns_figure(
            [Series(self.cfg.name, self.aggregates["turns_hist"])],
            f"Turns per round: {self.cfg.name}, {self.cfg.players} players, "
            f"{self.games:,} games"))

    @classmethod
    def from_dir(cls, run_dir: str | Path) -> Result:
        """A finished run directory (``summary.json`` + ``aggregates.npz``) read back."""
        from unosim.report.runs import load_run

        r = load_run(run_dir)
        summary: Summary = r.summary or {}
        return cls(r.cfg, r.seed, r.games, r.aggregates, summary, r.out, summary.get("stop"))

    def estimate(self, key: str) -> Interval:
        """A headline metric by key (``turns_mean``, ``first_player_win_rate``, ...)."""
        from unosim.analysis.estimates import METRIC_BY_KEY, estimate

        if key not in METRIC_BY_KEY:
            raise KeyError(f"unknown metric {key!r} (known: {', '.join(METRIC_BY_KEY)})")
        e = estimate(self.aggregates, METRIC_BY_KEY[key])
        return Interval(e.value, e.low, e.high, e.n)

    @property
    def turns(self) -> Interval:
        """Mean turns per round, with its 95% t interval."""
        return self.estimate("turns_mean")

    def frame(self) -> pd.DataFrame:
        """Every metric with its 95% interval, one row each (a tidy pandas DataFrame).

        Columns: ``config``, ``metric``, ``label``, ``value``, ``low``,
        ``high``, ``n``. Rows: the headline metrics of ``unosim compare``,
        then the round win rate of each position from the dealer's left, each
        seat and each policy (and, in match mode, each seat's share of match
        wins). Intervals that cannot be computed are NaN.
        """
        import pandas as pd

        from unosim.analysis.estimates import estimate, metrics_for, wilson_estimate

        agg = self.aggregates
        rows: list[tuple[str | float, ...]] = []
        for m in metrics_for(agg):
            e = estimate(agg, m)
            rows.append((m.key, m.label, e.value, e.low, e.high, e.n))
        n = int(agg["counts"][1])
        for i, k in enumerate(agg["wins_pos"]):
            e = wilson_estimate(int(k), n)
            rows.append((f"win_rate_position_{i}", f"Round win rate, position {i} "
                         "from the dealer's left", e.value, e.low, e.high, n))
        for i, k in enumerate(agg["wins_seat"]):
            e = wilson_estimate(int(k), n)
            rows.append((f"win_rate_seat_{i}", f"Round win rate, seat {i}",
                         e.value, e.low, e.high, n))
        for name, p in self.summary.get("win_rate_by_policy", {}).items():
            rows.append((f"win_rate_{name}", f"Round win rate, {name} seats",
                         *_nan(p["rate"], p["low"], p["high"]), n))
        matches = self.summary.get("matches") or {}
        for i, s in enumerate(matches.get("win_share_by_seat", [])):
            rows.append((f"match_win_share_seat_{i}",
                         f"Match win share, seat {i} (a tie shared by k counts 1/k)",
                         *_nan(s["rate"], s["low"], s["high"]), int(matches["count"])))
        df = pd.DataFrame(rows, columns=["metric", "label", "value", "low", "high", "n"])
        df.insert(0, "config", self.cfg.name)
        return df

    def records(self) -> pd.DataFrame:
        """One row per round, when the run kept records (``run(..., records=True)``)."""
        import pandas as pd

        parts = sorted((self.out / "records").glob("part-*.parquet")) if self.out else []
        if not parts:
            raise ValueError("this run kept no records: run it with records=True")
        return pd.concat([pd.read_parquet(p) for p in parts], ignore_index=True)

    def report(self, path: str | Path | None = None) -> Path:
        """Write report.md, report.html and the charts into ``path`` (default: the run's
        out dir); returns the path of report.html.

        ``path`` must be the run's own out dir (the files are then listed in
        its ``run.json``, as ``unosim run`` lists them), or a new or empty
        folder: a folder holding other files may be the user's, and its
        report.md is never overwritten.
        """
        from unosim.report.runs import Run
        from unosim.study.simulate import report_run

        if isinstance(path, str) and not path:
            raise ValueError("report() needs a folder name, not ''")
        target = Path(path) if path is not None else self.out
        if target is None:
            raise ValueError("this run has no out dir: give report() a folder")
        return report_run(target, Run(self.cfg, self.aggregates, self.seed, self.games,
                                      self.out, self.summary))


def _nan(*values: float | None) -> tuple[float, ...]:
    return tuple(float("nan") if v is None else float(v) for v in values)


@_api_call
def run(config: ConfigSource, games: int | None = None,
        seed: int | None = 1, precision: float | None = None,
        set: Mapping[str, object] | None = None,  # noqa: A002 (named as the CLI's --set)
        jobs: int | None = None, *, max_games: int | None = None,
        out: str | Path | None = None, records: bool = False, resume: bool = False,
        force: bool = False, backend: str = "loky", chunk_size: int | None = None,
        progress: bool = False) -> Result:
    """Simulate ``config`` and return its `Result`, as ``unosim run`` would.

    ``config`` is a file, a built-in name, a mapping or a ``GameConfig``;
    ``set`` holds ``--set`` overrides (``{"players": 6}``). ``games`` defaults
    to the config's; ``seed`` None means the config's. With ``precision``,
    games are added chunk by chunk until the 95% interval of mean turns per
    round is at most ± ``precision`` (at most ``max_games``, default
    10,000,000); ``games`` may then not be given. Without ``out`` the run
    stays in memory, except that ``records`` needs a folder (a new temporary
    one, then). ``jobs`` defaults to one process for small runs, else all
    cores.
    """
    from unosim.study.simulate import simulate

    cfg = _config(config, set)
    opts = _options(games, precision, max_games, jobs=jobs, resume=resume, force=force,
                    backend=backend, chunk_size=chunk_size, progress=progress)
    if records and out is None:
        out = tempfile.mkdtemp(prefix=f"unosim-{cfg.name[:40]}-")
    done = simulate(cfg, opts, seed=seed, out=None if out is None else Path(out),
                    records=records)
    r = done.result
    return Result(r.cfg, r.seed, r.games, r.aggregates, done.summary, r.out,
                  getattr(r, "stop", None), r.elapsed)


_config = config  # `run` takes a parameter named config


class _Runner(TypedDict, total=False):
    """The options a function passes on to `StudyOptions` as given."""

    jobs: int | None
    backend: str
    chunk_size: int | None
    resume: bool
    force: bool
    reuse: bool
    progress: bool


def _options(games: int | None, precision: float | None, max_games: int | None,
             margins: Mapping[str, str | float] | None = None,
             **runner: Unpack[_Runner]) -> StudyOptions:
    """The study's one options value from a function's arguments (the CLI's rules)."""
    from unosim.study import StudyOptions

    return StudyOptions(games=games, precision=None if precision is None else float(precision),
                        max_games=max_games, margins=_margins(margins), **runner)


def _margins(margins: Mapping[str, str | float] | None) -> dict[str, Margin]:
    """``{"turns_mean": "2%", "first_player_win_rate": 1}`` as Margin objects."""
    from unosim.analysis.estimates import METRIC_BY_KEY
    from unosim.analysis.paired import parse_margin

    out = {}
    for key, value in (margins or {}).items():
        if key not in METRIC_BY_KEY:
            raise ValueError(f"unknown metric {key!r} for a margin")
        out[key] = parse_margin(str(value), rate=METRIC_BY_KEY[key].kind == "rate")
    return out


@_api_call
def compare(configs: Sequence[ConfigSource],
            games: int | None = None, seed: int = 1, precision: float | None = None,
            set: Mapping[str, object] | None = None,  # noqa: A002 (named as the CLI's --set)
            jobs: int | None = None, *, max_games: int | None = None,
            margins: Mapping[str, str | float] | None = None,
            out: str | Path | None = None, resume: bool = False, force: bool = False,
            reuse: bool = False, backend: str = "loky", progress: bool = False) -> Comparison:
    """Run ``configs`` on the same games, paired with the first; as ``unosim compare``.

    Returns the `unosim.report.comparison.Comparison`: ``.table()`` (a tidy
    DataFrame: metric, config, label, value, low, high, diff, diff_low,
    diff_high, p, verdict, ...), ``.verdicts`` (sentences per config) and
    ``.decisions``. ``margins`` maps metric keys to "2%" (of the baseline) or a
    number (percentage points for rates). With ``out`` the runs and the report
    (compare.md/.html/.csv/.parquet) are written there; ``out`` must be new or
    empty, or hold a study that ``resume``, ``force`` or ``reuse`` may use, as
    with ``unosim compare --out``.
    """
    from unosim.report.labels import difference_labels
    from unosim.study.compare import compare as run_compare

    opts = _options(games, precision, max_games, margins, jobs=jobs, resume=resume,
                    force=force, reuse=reuse, backend=backend, progress=progress)
    cfgs = [_config(c, set) for c in configs]
    if len(cfgs) < 2:
        raise ValueError("compare needs at least two configs")
    return run_compare(cfgs, opts, seeds=[seed] * len(cfgs), out=_out(out),
                       labels=difference_labels(cfgs))[0]


def _out(out: str | Path | None) -> Path | None:
    return None if out is None else Path(out)


def _axes(vary: Mapping[str, str | Iterable[object]]) -> list[Axis]:
    """``vary`` as `unosim.report.grid.Axis` objects, each read as ``--vary`` reads it."""
    from unosim.report.grid import parse_vary

    return [parse_vary(f"{k}={v if isinstance(v, str) else _vary_text(v)}")
            for k, v in vary.items()]


@_api_call
def sweep(config: ConfigSource,
          vary: Mapping[str, str | Iterable[object]], baseline: str | None = None,
          games: int | None = None, seed: int = 1, precision: float | None = None,
          set: Mapping[str, object] | None = None,  # noqa: A002 (named as the CLI's --set)
          jobs: int | None = None, *, max_games: int | None = None,
          margins: Mapping[str, str | float] | None = None,
          out: str | Path | None = None, resume: bool = False, force: bool = False,
          reuse: bool = False, backend: str = "loky", progress: bool = False) -> Sweep:
    """Run a grid of variants of ``config`` in lockstep; as ``unosim sweep``.

    ``vary`` maps keys to values: ``{"players": range(2, 7)}``, a list, or the
    CLI's text (``"2..10"``, ``"false,true"``). ``baseline`` is ``KEY=VALUE``
    (default: the last varied key at its first value). Returns the
    `unosim.report.sweep.Sweep`: ``.table()`` and ``.answers()``. ``out``,
    ``resume``, ``force`` and ``reuse`` are ``unosim sweep``'s.
    """
    from unosim.study.sweep import sweep as run_sweep

    opts = _options(games, precision, max_games, margins, jobs=jobs, resume=resume,
                    force=force, reuse=reuse, backend=backend, progress=progress)
    axes = _axes(vary)
    cfg = _config(config, set)
    path = _as_file(cfg.model_dump(mode="json"), cfg.name)
    return run_sweep(path, axes, opts, baseline=baseline, seed=seed, out=_out(out))[0]


@_api_call
def screen(config: ConfigSource,
           factors: str | Sequence[str], resolution: int | str = "full",
           games: int | None = None, seed: int = 1, precision: float | None = None,
           set: Mapping[str, object] | None = None,  # noqa: A002 (named as the CLI's --set)
           jobs: int | None = None, *, max_games: int | None = None,
           margins: Mapping[str, str | float] | None = None,
           out: str | Path | None = None, resume: bool = False, force: bool = False,
           reuse: bool = False, backend: str = "loky", progress: bool = False) -> Screen:
    """A two-level factorial screen of ``factors`` of ``config``; as ``unosim screen``.

    ``factors`` are two-valued settings (``"jump_in,seven_o"`` or a list);
    ``resolution`` is 4, 5 or "full". Returns the `unosim.report.screen.Screen`:
    ``.answers()``, ``.table()`` (one row per metric and effect), ``.plot()``
    (the ranked effect chart) and ``.design`` (runs, resolution, aliases).
    ``out``, ``resume``, ``force`` and ``reuse`` are ``unosim screen``'s.
    """
    from unosim.report.screen import parse_factors
    from unosim.study.screen import screen as run_screen

    opts = _options(games, precision, max_games, margins, jobs=jobs, resume=resume,
                    force=force, reuse=reuse, backend=backend, progress=progress)
    cfg = _config(config, set)
    path = _as_file(cfg.model_dump(mode="json"), cfg.name)
    res = resolution if resolution == "full" else int(resolution)
    return run_screen(path, parse_factors(factors), opts, resolution=res, seed=seed,
                      out=_out(out))[0]


def _vary_text(values: Iterable[object]) -> str:
    """A list of values as ``--vary`` text (YAML flow values, comma separated)."""
    return ",".join(json.dumps(v) for v in values)


@_api_call
def league(policies: Sequence[str | Mapping[str, object]],
           config: ConfigSource = "classic",
           players: int | None = None, games: int | None = None, seed: int = 1,
           precision: float | None = None,
           set: Mapping[str, object] | None = None,  # noqa: A002 (named as the CLI's --set)
           vary: Mapping[str, str | Iterable[object]] | None = None, jobs: int | None = None, *,
           max_games: int | None = None, head_to_head: bool = True,
           out: str | Path | None = None, backend: str = "loky",
           progress: bool = False) -> LeagueSet:
    """Rate ``policies`` in balanced seatings on duplicate deals; as ``unosim league``.

    ``policies`` are names or ``{"policy": NAME, "params": {...}}``. ``vary``
    is one key mapped to its values (``{"house_rules.jump_in": [False, True]}``):
    one league per value. Returns the `unosim.report.league.LeagueSet`:
    ``.leagues`` (ratings, win rates, head-to-head ``.matrix()``, ``.edge()``,
    ``.spread()``), ``.table()`` (tidy) and ``.verdicts()``. With ``out`` the
    runs and the report (league.md/.html/.csv/.parquet, charts) are written there.
    """
    from unosim.study.league import league as run_league
    from unosim.study.league import refuse_seat_keys

    refuse_seat_keys([str(k) for k in (set or {})], "set")
    refuse_seat_keys([str(k) for k in (vary or {})], "vary")
    if vary is not None and len(vary) != 1:
        raise ValueError("vary takes one key (one league per value)")
    axis = None if vary is None else _axes(vary)[0]
    opts = _options(games, precision, max_games, jobs=jobs, backend=backend,
                    progress=progress)
    cfg = _config(config, set)
    path = _as_file(cfg.model_dump(mode="json"), cfg.name)
    return run_league(path, list(policies), opts, players=players, vary=axis, seed=seed,
                      head_to_head=head_to_head, out=_out(out))[0]
