"""Parameter sweeps: run a grid of config variants and chart each metric against the first.

``--vary KEY=VALUES`` names one axis of the grid: ``players=2..10`` (an
inclusive integer range, ``2..10..2`` with a step) or a comma-separated list of
YAML values (``false,true``; flow mappings such as ``{}`` or
``{draw_two_on_draw_two: true, wd4_on_wd4: true}`` keep their inner commas).
Each cell is the config with ``--set`` overrides, then the cell's values,
validated before anything runs, so a bad cell fails fast. Cells run one after
another, each in parallel through the runner. Every cell plays the same games
(one ``--games``, one ``--seed``), so differences between cells are the
rules', not the dice's: ``--vary games=...`` or ``seed=...`` is refused.
A grid holds at most MAX_SWEEP_CELLS cells, checked before any is built.

Output: a tidy ``sweep.csv`` and ``sweep.parquet`` (one row per cell: the
varied values, then each headline metric with its 95% interval), one line
chart per headline metric against the first axis (one line per combination of
the others, 95% bands), and ``sweep.md`` / ``sweep.html`` tying them together.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from unosim.analysis.estimates import METRIC_BY_KEY, Metric, estimate, metrics_for
from unosim.report import charts
from unosim.report.format import fmt_metric
from unosim.report.render import Doc
from unosim.report.runs import Job, Run, cell_dirs, run_jobs
from unosim.rules.config import GameConfig, load_config
from unosim.rules.errors import ConfigError, quoted
from unosim.rules.settings import house_rule_switches, setting_label, stacking_phrase
from unosim.rules.yamlio import parse_yaml
from unosim.run.files import atomic_write, write_text

__all__ = ["Axis", "Cell", "Sweep", "VaryError", "build_cells", "parse_vary", "run_sweep",
           "sweep_table", "value_label", "write_sweep"]

CHART_METRICS = ("turns_mean", "first_player_win_rate", "first_player_vs_fair",
                 "stalemate_rate", "drawn_mean", "match_rounds_mean")
_STACKING = "house_rules.stacking"
_RANGE = re.compile(r"^\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*(?:\.\.\s*(\d+)\s*)?$")
# Validating a cell takes ~20 ms and running one seconds to minutes: a bigger
# grid is a typo (players=2..100000000000), not a study.
MAX_SWEEP_CELLS = 1_000
# Keys that choose the games, not the rules: set once per sweep, by these options.
_RUN_OPTIONS = {"games": "--games", "seed": "--seed"}


class VaryError(ValueError):
    """A ``--vary`` spec that cannot be parsed (the message is one line)."""


def _check_cells(n: int, what: str) -> None:
    """Refuse ``n`` cells (of ``what``) beyond MAX_SWEEP_CELLS, before any is made."""
    if n > MAX_SWEEP_CELLS:
        raise VaryError(f"{what}: {n:,} cells, more than a sweep's {MAX_SWEEP_CELLS:,}; "
                        "vary fewer values")


@dataclass(frozen=True)
class Axis:
    """One swept key: its values, the YAML text of each, and readable labels."""

    key: str
    values: tuple[Any, ...]
    texts: tuple[str, ...]

    @property
    def label(self) -> str:
        """The swept setting's name, as the rules layer declares it."""
        return setting_label(self.key)

    @property
    def labels(self) -> list[str]:
        return [value_label(v, self.key) for v in self.values]


def _split_top(text: str) -> list[str]:
    """Split on commas outside brackets, braces and quotes."""
    parts: list[str] = []
    cur: list[str] = []
    depth, quote = 0, ""
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur).strip())
    return parts


def parse_vary(spec: str) -> Axis:
    """``KEY=2..10`` or ``KEY=v1,v2,...`` (YAML values) as an ``Axis``.

    A range's size is checked before it is expanded:

    >>> parse_vary("players=2..8..3").values
    (2, 5, 8)
    >>> parse_vary("players=2..100000000000")
    Traceback (most recent call last):
    unosim.report.sweep.VaryError: --vary 'players=2..100000000000': 99,999,999,999 cells, more than a sweep's 1,000; vary fewer values
    """
    key, sep, rest = spec.partition("=")
    key, shown = key.strip(), f"--vary {quoted(spec)}"
    if not sep or not key or not rest.strip():
        raise VaryError(f"{shown}: expected KEY=VALUES (e.g. players=2..10 or "
                        "house_rules.jump_in=false,true)")
    if key in _RUN_OPTIONS:
        raise VaryError(f"--vary {key}: every cell of a sweep plays the same games; set "
                        f"{key} for all of them with {_RUN_OPTIONS[key]}"
                        + (" (to replicate, run the sweep again with another --seed)"
                           if key == "seed" else ""))
    m = _RANGE.match(rest)
    if m:
        try:
            lo, hi, step = int(m[1]), int(m[2]), int(m[3] or 1)
        except ValueError:  # more digits than int() parses: beyond any limit anyway
            raise VaryError(f"{shown}: a number too large") from None
        if hi < lo or step < 1:
            raise VaryError(f"{shown}: empty range")
        _check_cells((hi - lo) // step + 1, shown)
        vals = range(lo, hi + 1, step)
        return Axis(key, tuple(vals), tuple(str(v) for v in vals))
    texts = _split_top(rest)
    _check_cells(len(texts), shown)
    if any(not t for t in texts):
        raise VaryError(f"{shown}: empty value in the list")
    values = []
    for t in texts:
        try:  # the config layer's bounded reader: no alias bombs, no duplicate keys
            values.append(parse_yaml(t, f"--vary {key}"))
        except ConfigError as exc:
            raise VaryError(f"{shown}: value {quoted(t)}: {exc.message}") from None
    if len(set(texts)) != len(texts):
        raise VaryError(f"{shown}: a value is listed twice")
    return Axis(key, tuple(values), tuple(texts))


def value_label(v: Any, key: str = "") -> str:
    """A short readable label for a swept value (stacking switch sets get their phrase)."""
    if isinstance(v, bool):
        return "on" if v else "off"
    if isinstance(v, dict):
        if key == _STACKING and all(f"{key}.{k}" in house_rule_switches() for k in v):
            return stacking_phrase(v)
        if not v:
            return "as in config"
        return ", ".join(f"{k}={value_label(x)}" for k, x in v.items())
    if isinstance(v, list):
        return ", ".join(value_label(x) for x in v)
    return str(v)


@dataclass
class Cell:
    """One point of the grid: its values (one per axis), config and, once run, its run."""

    values: tuple[Any, ...]
    texts: tuple[str, ...]
    cfg: GameConfig
    run: Run | None = None


@dataclass
class Sweep:
    """The grid and its runs."""

    config: str
    axes: list[Axis]
    cells: list[Cell]
    games: int
    seed: int
    overrides: tuple[str, ...] = ()
    elapsed: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


def build_cells(config: str | Path, axes: Sequence[Axis], overrides: Sequence[str] = ()
                ) -> list[Cell]:
    """Every cell's validated config (raises ConfigError naming the bad cell's key)."""
    keys = [a.key for a in axes]
    if len(set(keys)) != len(keys):
        raise VaryError("each key may be varied only once")
    _check_cells(math.prod(len(a.values) for a in axes), "the grid of every --vary")
    cells = []
    for combo in itertools.product(*[list(zip(a.values, a.texts, strict=True)) for a in axes]):
        sets = [f"{a.key}={text}" for a, (_, text) in zip(axes, combo, strict=True)]
        cfg = load_config(config, [*overrides, *sets])
        cells.append(Cell(tuple(v for v, _ in combo), tuple(t for _, t in combo), cfg))
    return cells


def _cell_name(texts: Sequence[str], axes: Sequence[Axis]) -> str:
    """A cell's run dir name before `unosim.rules.config.name_slug`: each key's last part and value."""
    return "_".join(f"{a.key.split('.')[-1]}-{t}" for a, t in zip(axes, texts, strict=True))


def run_sweep(
    config: str | Path,
    axes: Sequence[Axis],
    *,
    games: int | None = None,
    seed: int | None = None,
    out: str | Path | None = None,
    jobs: int | None = None,
    overrides: Sequence[str] = (),
    progress: bool = False,
    reuse: bool = False,
    resume: bool = False,
    force: bool = False,
    on_cell: Callable[[int, int, Cell, float], None] | None = None,
    on_warning: Callable[[str], None] | None = None,
    **backend_opts: Any,
) -> Sweep:
    """Validate every cell, then run them in order (runs under ``out/runs/<cell>``).

    Every cell's run dir is checked before the first runs; ``reuse``,
    ``resume`` and ``force`` apply to each (see `unosim.report.runs`).
    """
    import time

    axes = list(axes)
    if not axes:
        raise VaryError("a sweep needs at least one --vary")
    cells = build_cells(config, axes, overrides)
    base = cells[0].cfg
    games = base.games if games is None else games
    seed = base.seed if seed is None else seed
    dirs: list[Path | None] = [None] * len(cells)
    if out is not None:
        dirs = list(cell_dirs(Path(out) / "runs", [_cell_name(c.texts, axes) for c in cells]))

    def done(i: int, run: Run, seconds: float) -> None:
        cells[i].run = run
        if on_cell is not None:
            on_cell(i, len(cells), cells[i], seconds)

    t0 = time.perf_counter()
    run_jobs([Job(c.cfg, games, seed, d) for c, d in zip(cells, dirs, strict=True)],
             reuse=reuse, resume=resume, force=force, on_done=done, jobs=jobs,
             progress=progress, on_warning=on_warning, **backend_opts)
    return Sweep(str(config), axes, cells, games, seed, tuple(overrides),
                 time.perf_counter() - t0)


def _metrics(sweep: Sweep) -> list[Metric]:
    runs = [c.run for c in sweep.cells if c.run is not None]
    keys = set.intersection(*[{m.key for m in metrics_for(r.aggregates)} for r in runs])
    return [m for m in metrics_for(runs[0].aggregates) if m.key in keys]


def _column_value(v: Any, key: str) -> Any:
    return v if isinstance(v, (int, float, str, bool)) else value_label(v, key)


def sweep_table(sweep: Sweep) -> pd.DataFrame:
    """One row per cell: varied values, run facts, each metric with ``_low``/``_high``."""
    metrics = _metrics(sweep)
    rows = []
    for cell in sweep.cells:
        assert cell.run is not None
        row: dict[str, Any] = {a.key: _column_value(v, a.key)
                               for a, v in zip(sweep.axes, cell.values, strict=True)}
        row.update(config=cell.cfg.name, players=cell.cfg.players, games=cell.run.games,
                   rounds=cell.run.rounds, seed=cell.run.seed)
        for m in metrics:
            e = estimate(cell.run.aggregates, m)
            row[m.key] = e.value
            row[f"{m.key}_low"] = e.low
            row[f"{m.key}_high"] = e.high
        rows.append(row)
    return pd.DataFrame(rows)


def _chart(sweep: Sweep, m: Metric, path: Path) -> Path:
    """One metric against the first axis, one line per combination of the other axes."""
    first, others = sweep.axes[0], sweep.axes[1:]
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in first.values)
    xs = list(first.values) if numeric else list(range(len(first.values)))
    lines = []
    combos = list(itertools.product(*[range(len(a.values)) for a in others])) or [()]
    for combo in combos:
        pts = []
        for xi, x in zip(range(len(first.values)), xs, strict=True):
            idx = (xi, *combo)
            cell = sweep.cells[_cell_index(sweep, idx)]
            assert cell.run is not None
            pts.append((x, estimate(cell.run.aggregates, m)))
        if len(others) == 1:
            label = others[0].labels[combo[0]]
        else:
            label = "; ".join(f"{a.label}={a.labels[j]}"
                              for a, j in zip(others, combo, strict=True)) or m.label
        lines.append(charts.Line(label, [p[0] for p in pts], [p[1].value for p in pts],
                                 [p[1].low for p in pts], [p[1].high for p in pts]))
    reference = None
    if m.key == "first_player_vs_fair":
        reference = charts.Line("fair share (1.0)", xs, [1.0] * len(xs), [], [])
    if m.key == "first_player_win_rate":
        if first.key == "players":
            reference = charts.Line("fair share 1/N", xs, [1 / x for x in xs], [], [])
        elif len({c.cfg.players for c in sweep.cells}) == 1:
            n = sweep.cells[0].cfg.players
            reference = charts.Line(f"fair share 1/{n}", xs, [1 / n] * len(xs), [], [])
    unit = {"turns_mean": "mean turns per round", "drawn_mean": "cards drawn per round",
            "first_player_win_rate": "win rate of the player on the dealer's left",
            "first_player_vs_fair": "first-player win rate ÷ 1/N",
            "stalemate_rate": "share of rounds ending in a stalemate",
            "match_rounds_mean": "rounds per match"}.get(m.key, m.label)
    legend_title = others[0].label if len(others) == 1 else None
    return charts.line_chart(
        lines, path, f"{m.label} by {first.label}", first.label, unit, percent=m.percent,
        reference=reference, legend_title=legend_title,
        xticklabels=None if numeric else first.labels)


def _cell_index(sweep: Sweep, idx: Sequence[int]) -> int:
    """Position in ``sweep.cells`` (row-major over the axes) of per-axis value indices."""
    pos = 0
    for a, i in zip(sweep.axes, idx, strict=True):
        pos = pos * len(a.values) + i
    return pos


def write_sweep(
    sweep: Sweep,
    out_dir: str | Path,
    command: str | None = None,
    title: str | None = None,
    intro: Sequence[str] = (),
    stem: str = "sweep",
) -> list[Path]:
    """sweep.csv, sweep.parquet, one PNG per headline metric, sweep.md and sweep.html."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    table = sweep_table(sweep)
    csv_path, pq_path = out / f"{stem}.csv", out / f"{stem}.parquet"
    write_text(csv_path, table.to_csv(index=False, float_format="%.10g"))
    atomic_write(pq_path, lambda f: table.to_parquet(f, index=False))
    metrics = _metrics(sweep)
    charted = [m for m in metrics if m.key in CHART_METRICS]
    pngs = [_chart(sweep, m, out / f"{stem}_{m.key}.png") for m in charted]

    doc = Doc(title or f"Sweep of {Path(sweep.config).name} over "
              + " × ".join(a.label for a in sweep.axes))
    for para in intro:
        doc.p(para, lead=True)
    n_cells = len(sweep.cells)
    rounds = sum(c.run.rounds for c in sweep.cells if c.run)
    doc.p(f"**Sample:** {n_cells} cells × {sweep.games:,} games ({rounds:,} rounds in all), "
          f"seed {sweep.seed} in every cell. Axes: "
          + "; ".join(f"{a.label} (`{a.key}`) = {', '.join(a.labels)}" for a in sweep.axes)
          + "."
          + (f" Overrides: {', '.join(f'`{o}`' for o in sweep.overrides)}."
             if sweep.overrides else ""))
    doc.p("Bands and intervals are 95%: t intervals for means, Wilson intervals for rates.")
    for png, m in zip(pngs, charted, strict=True):
        doc.image(png, f"{m.label} against {sweep.axes[0].label}, 95% bands")
    doc.h2("Every cell")
    shown = [METRIC_BY_KEY[k] for k in ("turns_mean", "turns_median", "first_player_win_rate",
                                        "first_player_vs_fair", "stalemate_rate", "drawn_mean",
                                        "match_rounds_mean")
             if k in {m.key for m in metrics}]
    rows = []
    for cell in sweep.cells:
        assert cell.run is not None
        rows.append([value_label(v, a.key) for a, v in zip(sweep.axes, cell.values, strict=True)]
                    + [f"{cell.run.rounds:,}"]
                    + [fmt_metric(estimate(cell.run.aggregates, m), m) for m in shown])
    doc.table([a.label for a in sweep.axes] + ["rounds"] + [m.label for m in shown], rows)
    doc.p(f"Full table with every metric and interval: `{csv_path.name}` / `{pq_path.name}`.")
    doc.h2("How this was made")
    if command:
        doc.code(command, "sh")
    doc.p(f"Config `{sweep.config}`; {sweep.games:,} games per cell; seed {sweep.seed}.")
    paths = doc.write(out, stem)
    return paths + [csv_path, pq_path] + pngs
