"""Parameter sweeps that answer: a grid of config variants, each cell's effect against a baseline.

``--vary KEY=VALUES`` names one axis of the grid: ``players=2..10`` (an
inclusive integer range, ``2..10..2`` with a step) or a comma-separated list of
YAML values (``false,true``; flow mappings such as ``{}`` or
``{draw_two_on_draw_two: true, wd4_on_wd4: true}`` keep their inner commas).
Each cell is the config with ``--set`` overrides, then the cell's values,
validated before anything runs, so a bad cell fails fast. Every cell plays the
same games (one ``--games``, one ``--seed``), so differences between cells are
the rules', not the dice's: ``--vary games=...`` or ``seed=...`` is refused.
A grid holds at most MAX_SWEEP_CELLS cells, checked before any is built.

``--baseline KEY=VALUE`` picks one varied key and its reference value
(default: the last varied key with two or more values, at its first value).
The baseline cell of a cell is the cell with that key at the baseline value
and every other key unchanged. All cells run in lockstep on the same game
range, chunk by chunk (`unosim.run.run_lockstep`), with each cell paired game
by game with its baseline cell, so every effect gets a paired interval and a
decision against a practical margin (`unosim.report.comparison`); Holm's
method adjusts every decision of the sweep together.

Output: ``sweep.md`` / ``sweep.html`` opening with the answer in words, effect
charts (dots with 95% error bars; for a numeric axis, a weighted trend line
whose band allows for lack of fit, `unosim.analysis.trend`), level charts per
headline metric, and ``sweep.csv`` / ``sweep.parquet``: one tidy table, the
shape of ``compare.csv`` plus one column per varied key.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from unosim.analysis.estimates import (
    METRIC_BY_KEY,
    Metric,
    compare_aggregates,
    estimate,
    metrics_for,
)
from unosim.analysis.paired import (
    DEFAULT_MARGINS,
    Margin,
    PairMoments,
)
from unosim.analysis.trend import Trend, linear_trend
from unosim.report import charts
from unosim.report.compare import write_table
from unosim.report.comparison import (
    Comparison,
    compare_runs,
    comparison_table,
    decide_together,
    diff_se,
    questions_for,
)
from unosim.report.dots import Dots, Fit, dots_chart
from unosim.report.format import fmt_metric
from unosim.report.render import Doc
from unosim.report.runs import Run, cell_dirs, run_paired
from unosim.report.verdicts import margin_words, short_verdict, stopping_text
from unosim.rules.config import GameConfig, load_config
from unosim.rules.errors import ConfigError, quoted
from unosim.rules.settings import house_rule_switches, setting_label, stacking_phrase
from unosim.rules.yamlio import parse_yaml

__all__ = ["Axis", "Cell", "Group", "Sweep", "VaryError", "build_cells", "parse_baseline",
           "parse_vary", "run_sweep", "sweep_table", "value_label", "write_sweep"]

CHART_METRICS = ("turns_mean", "first_player_win_rate", "first_player_vs_fair",
                 "stalemate_rate", "drawn_mean", "match_rounds_mean")
# The questions a sweep answers in words and charts as effects: (key, effect axis label).
EFFECTS = (("turns_mean", "change in mean turns per round (%)"),
           ("first_player_win_rate", "change in first-player win rate (percentage points)"))
_STACKING = "house_rules.stacking"
_RANGE = re.compile(r"^\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*(?:\.\.\s*(\d+)\s*)?$")
# Validating a cell takes ~20 ms and running one seconds to minutes: a bigger
# grid is a typo (players=2..100000000000), not a study.
MAX_SWEEP_CELLS = 1_000
# Keys that choose the games, not the rules: set once per sweep, by these options.
_RUN_OPTIONS = {"games": "--games", "seed": "--seed"}
NAN = float("nan")


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
class Group:
    """A baseline cell and the cells compared with it (``cells[0]`` is the baseline).

    ``cmp`` compares their runs in that order; its decisions are the sweep's
    (Holm across every group), not the group's alone.
    """

    cells: list[int]
    cmp: Comparison


@dataclass
class Sweep:
    """The grid, its runs, and every cell's effect against its baseline cell.

    ``baseline`` is (axis index, value index) of the baseline key and value;
    ``groups`` hold the comparisons; ``n_tests`` counts the tests Holm
    adjusted together; ``stop`` is the precision rule's outcome, if any.
    """

    config: str
    axes: list[Axis]
    cells: list[Cell]
    games: int
    seed: int
    overrides: tuple[str, ...] = ()
    elapsed: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)
    baseline: tuple[int, int] = (0, 0)
    groups: list[Group] = field(default_factory=list)
    margins: dict[str, Margin] = field(default_factory=dict)
    stop: dict[str, Any] | None = None
    n_tests: int = 0

    @property
    def baseline_axis(self) -> Axis:
        return self.axes[self.baseline[0]]

    @property
    def x_axis(self) -> int:
        """The axis effects are drawn and described along: the first that is not the baseline's."""
        return next((i for i in range(len(self.axes)) if i != self.baseline[0]),
                    self.baseline[0])

    def place(self, cell: int) -> tuple[Group, int]:
        """The group holding ``cell`` and its position there (0: a baseline cell)."""
        for g in self.groups:
            if cell in g.cells:
                return g, g.cells.index(cell)
        raise KeyError(cell)

    def table(self) -> pd.DataFrame:
        """The tidy table of `sweep_table` (``sweep.csv``)."""
        return sweep_table(self)

    def answers(self) -> list[str]:
        """The sweep's answer in sentences, as strong as the Holm-adjusted decisions allow."""
        return answer_sentences(self)

    def to_json(self) -> dict[str, Any]:
        """What ``--format json`` prints: the answer, the baseline, and the table's records."""
        import json

        a, v = self.baseline_axis, self.baseline[1]
        return {
            "config": self.config, "games": self.games, "seed": self.seed,
            "axes": {ax.key: list(ax.texts) for ax in self.axes},
            "baseline": {"key": a.key, "value": a.texts[v]},
            "answers": self.answers(), "tests_holm_adjusted": self.n_tests,
            "stop": self.stop,
            "table": json.loads(self.table().to_json(orient="records")),
        }


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




def _cell_label(cell: Cell, axes: Sequence[Axis]) -> str:
    """A cell's label in tables: each axis and its value ("number of players 3, jump-in on")."""
    return ", ".join(f"{a.label} {value_label(v, a.key)}"
                     for a, v in zip(axes, cell.values, strict=True))


def parse_baseline(spec: str, axes: Sequence[Axis]) -> tuple[int, int]:
    """``KEY=VALUE`` as (axis index, value index): a varied key and one of its values.

    >>> axes = [parse_vary("players=2..4"), parse_vary("house_rules.jump_in=false,true")]
    >>> parse_baseline("house_rules.jump_in=true", axes), parse_baseline("players=3", axes)
    ((1, 1), (0, 1))
    >>> parse_baseline("players=9", axes)
    Traceback (most recent call last):
    unosim.report.sweep.VaryError: --baseline 'players=9': 9 is not one of the values of players (2, 3, 4)
    """
    key, sep, text = spec.partition("=")
    key, text, shown = key.strip(), text.strip(), f"--baseline {quoted(spec)}"
    keys = [a.key for a in axes]
    if not sep or not key or not text:
        raise VaryError(f"{shown}: expected KEY=VALUE, a varied key and one of its values")
    if key not in keys:
        raise VaryError(f"{shown}: {key} is not varied (varied: {', '.join(keys)})")
    a = axes[keys.index(key)]
    if text in a.texts:
        return keys.index(key), a.texts.index(text)
    try:
        value = parse_yaml(text, "--baseline")
    except ConfigError as exc:
        raise VaryError(f"{shown}: {exc.message}") from None
    for j, v in enumerate(a.values):
        if type(v) is type(value) and v == value:
            return keys.index(key), j
    raise VaryError(f"{shown}: {text} is not one of the values of {key} "
                    f"({', '.join(a.texts)})")


def default_baseline(axes: Sequence[Axis]) -> tuple[int, int]:
    """The last varied key with two or more values (the first is the x axis), first value."""
    return next((i for i in reversed(range(len(axes))) if len(axes[i].values) > 1),
                len(axes) - 1), 0


def _index(axes: Sequence[Axis], pos: int) -> list[int]:
    """Per-axis value indices of cell ``pos`` (row-major, the inverse of `_cell_index`)."""
    idx = []
    for a in reversed(axes):
        pos, i = divmod(pos, len(a.values))
        idx.append(i)
    return idx[::-1]


def _position(axes: Sequence[Axis], idx: Sequence[int]) -> int:
    pos = 0
    for a, i in zip(axes, idx, strict=True):
        pos = pos * len(a.values) + i
    return pos


def _baseline_cells(axes: Sequence[Axis], baseline: tuple[int, int]) -> list[int]:
    """For each cell, the cell with the baseline key at its baseline value, the rest kept."""
    b, v = baseline
    out = []
    for pos in range(math.prod(len(a.values) for a in axes)):
        idx = _index(axes, pos)
        idx[b] = v
        out.append(_position(axes, idx))
    return out


def run_sweep(
    config: str | Path,
    axes: Sequence[Axis],
    *,
    baseline: str | None = None,
    games: int | None = None,
    seed: int | None = None,
    out: str | Path | None = None,
    jobs: int | None = None,
    overrides: Sequence[str] = (),
    progress: bool = False,
    reuse: bool = False,
    resume: bool = False,
    force: bool = False,
    precision: float | None = None,
    margins: Mapping[str, Margin] | None = None,
    on_cell: Callable[[int, int, Cell, float], None] | None = None,
    on_warning: Callable[[str], None] | None = None,
    **backend_opts: Any,
) -> Sweep:
    """Validate every cell, run them all in lockstep (into ``out/runs/<cell>``), compare.

    Each cell is paired game by game with its baseline cell (pair checkpoints
    in ``out/paired``). ``precision`` stops every cell at the first chunk
    boundary where each pair's paired 95% half-width of mean turns per round
    is at most ``precision`` (``games`` is then the cap). ``reuse`` and
    ``resume`` continue from the chunks on disk, ``force`` clears every cell
    dir first (see `unosim.run.run_lockstep`). ``margins`` override
    `DEFAULT_MARGINS` per metric key.
    """
    import time

    axes = list(axes)
    if not axes:
        raise VaryError("a sweep needs at least one --vary")
    base_of = (parse_baseline(baseline, axes) if baseline is not None
               else default_baseline(axes))
    cells = build_cells(config, axes, overrides)
    first = cells[0].cfg
    games = first.games if games is None else games
    seed = first.seed if seed is None else seed
    dirs = (cell_dirs(Path(out) / "runs", [_cell_name(c.texts, axes) for c in cells])
            if out is not None else None)
    bases = _baseline_cells(axes, base_of)
    pairs = tuple((bases[i], i) for i in range(len(cells)) if bases[i] != i)
    t0 = time.perf_counter()
    runs, moments, stop = run_paired(
        [c.cfg for c in cells], games=games, seed=seed, pairs=pairs, dirs=dirs,
        pair_out=Path(out) / "paired" if out is not None else None, precision=precision,
        what=" of every cell from its baseline cell", reuse=reuse, resume=resume, force=force,
        jobs=jobs, progress=progress, on_warning=on_warning, **backend_opts)
    elapsed = time.perf_counter() - t0
    for i, (cell, run) in enumerate(zip(cells, runs, strict=True)):
        cell.run = run
        if on_cell is not None:
            on_cell(i, len(cells), cell, elapsed)
    sweep = Sweep(str(config), axes, cells, runs[0].games, seed, tuple(overrides), elapsed,
                  baseline=base_of, margins={**DEFAULT_MARGINS, **(margins or {})},
                  stop=stop)
    sweep.groups = _groups(sweep, bases, moments)
    sweep.n_tests = decide_together([g.cmp for g in sweep.groups])
    return sweep


def _groups(sweep: Sweep, bases: Sequence[int], moments: Mapping[int, PairMoments]
            ) -> list[Group]:
    """One comparison per baseline cell, of it and the cells paired with it."""
    groups = []
    for b in dict.fromkeys(bases):
        members = [b] + [i for i, x in enumerate(bases) if x == b and i != b]
        runs = [sweep.cells[i].run for i in members]
        assert all(r is not None for r in runs)
        labels = [_cell_label(sweep.cells[i], sweep.axes) for i in members]
        if len(members) == 1:
            cmp = _lone(runs[0], labels[0], sweep.margins)  # type: ignore[arg-type]
        else:
            cmp = compare_runs(runs, labels=labels,  # type: ignore[arg-type]
                               pairs={k: moments[i] for k, i in enumerate(members) if k},
                               margins=sweep.margins, stop=sweep.stop)
        groups.append(Group(members, cmp))
    return groups


def _lone(run: Run, label: str, margins: dict[str, Margin]) -> Comparison:
    """A 'comparison' of one run (a baseline value with nothing beside it): values only."""
    metrics, values, diffs = compare_aggregates([run.aggregates])
    return Comparison([run], [label], [label], metrics, values, diffs, margins=margins,
                      paired=[False], identical=[False])


def _metrics(sweep: Sweep) -> list[Metric]:
    runs = [c.run for c in sweep.cells if c.run is not None]
    keys = set.intersection(*[{m.key for m in metrics_for(r.aggregates)} for r in runs])
    return [m for m in metrics_for(runs[0].aggregates) if m.key in keys]


def _column_value(v: Any, key: str) -> Any:
    return v if isinstance(v, (int, float, str, bool)) else value_label(v, key)


def sweep_table(sweep: Sweep) -> pd.DataFrame:
    """The tidy table: ``compare.csv``'s columns, one column per varied key first, then
    ``baseline`` (the label of the cell each row's ``diff`` is taken against).

    One row per metric and cell (then per seat position), ordered by metric,
    then cell; a baseline cell's ``diff`` is 0.
    """
    frames = []
    for g in sweep.groups:
        f = comparison_table(g.cmp)
        f.insert(0, "_cell", [g.cells[g.cmp.labels.index(lab)] for lab in f["label"]])
        f["baseline"] = g.cmp.labels[0]
        frames.append(f)
    table = pd.concat(frames, ignore_index=True)
    order = {m: k for k, m in enumerate(dict.fromkeys(table["metric"]))}
    table = table.sort_values(["metric", "_cell"], key=lambda s: s.map(order)
                              if s.name == "metric" else s, kind="stable")
    for k, a in reversed(list(enumerate(sweep.axes))):
        table.insert(0, a.key, [_column_value(sweep.cells[c].values[k], a.key)
                                for c in table["_cell"]])
    return table.drop(columns="_cell").reset_index(drop=True)


# --------------------------------------------------------------------------- #
# Effects in words and charts
# --------------------------------------------------------------------------- #

# verbs for (higher, lower) of each question the sweep answers in words
_VERBS = {"turns_mean": ("lengthens rounds", "shortens rounds"),
          "first_player_win_rate": ("raises the first player's win rate",
                                    "lowers the first player's win rate")}
_WORDS = {"same": "makes no difference that matters to {what}",
          "identical": "makes no difference at all to {what} (every game plays the same)",
          "undecided": "has no decided effect on {what} (run more games)"}


@dataclass(frozen=True)
class _Effect:
    """One cell's effect against its baseline cell, in display units (% or points)."""

    value: float
    low: float
    high: float
    se: float
    word: str


@dataclass(frozen=True)
class _Series:
    """Cells sharing a baseline-key value (and the other keys but x), along the x axis."""

    subject: str
    label: str
    xs: list[int]  # value indices on the x axis
    cells: list[int]


def _numeric(axis: Axis) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in axis.values)


def _phrase(axis: Axis, j: int) -> str:
    """A value as a reader says it: '3 players', 'jump-in on', 'stacking (...)', 'edition X'."""
    v = axis.values[j]
    if axis.key == "players":
        return f"{v} players"
    if axis.key == _STACKING and isinstance(v, dict):
        return value_label(v, axis.key)
    return f"{axis.label} {value_label(v, axis.key)}"


def _effect(sweep: Sweep, cell: int, key: str) -> _Effect | None:
    """``cell``'s effect on ``key`` against its baseline cell (None for a baseline cell)."""
    g, k = sweep.place(cell)
    d = g.cmp.diffs.get(key, [None])[k] if k else None
    v = g.cmp.decisions.get(key, [None] * len(g.cells))[k] if k else None
    if d is None or v is None:
        return None
    scale = 100.0 if key != "turns_mean" else 100.0 / g.cmp.values[key][0].value
    se = diff_se(d)
    return _Effect(scale * d.diff, scale * d.low, scale * d.high, scale * se, v.word)


def _series(sweep: Sweep) -> list[_Series]:
    """Every non-baseline value of the baseline key (× the other keys), along the x axis."""
    b, bv = sweep.baseline
    x = sweep.x_axis
    axes = sweep.axes
    base = _phrase(axes[b], bv)
    rest = [i for i in range(len(axes)) if i not in (b, x)]
    out = []
    if x == b:
        xs = [j for j in range(len(axes[b].values)) if j != bv]
        subject = f"changing {axes[b].label} from {value_label(axes[b].values[bv], axes[b].key)}"
        return [_Series(subject, f"against {base}", xs,
                        [_position(axes, [j]) for j in xs])] if xs else []
    for j in range(len(axes[b].values)):
        if j == bv:
            continue
        for combo in itertools.product(*[range(len(axes[r].values)) for r in rest]):
            where = ", ".join(_phrase(axes[r], c) for r, c in zip(rest, combo, strict=True))
            cells = []
            for xi in range(len(axes[x].values)):
                idx = [0] * len(axes)
                idx[b], idx[x] = j, xi
                for r, c in zip(rest, combo, strict=True):
                    idx[r] = c
                cells.append(_position(axes, idx))
            if isinstance(axes[b].values[j], bool):  # a switch: turning it on (or off)
                subject = f"turning {axes[b].label} {value_label(axes[b].values[j])}"
            else:
                subject = f"{_phrase(axes[b], j)}, against {base},"
            subject += f" with {where}," if where else ""
            label = _phrase(axes[b], j) + (f" ({where})" if where else "")
            out.append(_Series(subject, label, list(range(len(axes[x].values))), cells))
    return out


def _runs_of(idxs: Sequence[int]) -> list[list[int]]:
    """Consecutive value indices grouped: [2, 3, 4, 7] -> [[2, 3, 4], [7]]."""
    groups: list[list[int]] = []
    for i in idxs:
        if groups and i == groups[-1][-1] + 1:
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


def _and(parts: Sequence[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _where(axis: Axis, idxs: Sequence[int], every: bool, word: str = "") -> str:
    """'at every table size from 2 to 10 players', 'at 2-5 players', 'with edition X and Y'."""
    if _numeric(axis):
        unit = " players" if axis.key == "players" else ""
        noun = "table size" if axis.key == "players" else axis.label
        lo, hi = axis.texts[idxs[0]], axis.texts[idxs[-1]]
        if every and len(idxs) == 2:
            if not unit:
                return f"at {noun} {lo} {'or' if word == 'undecided' else 'and'} {hi}"
            return (f"at either {lo} or {hi}{unit}" if word == "undecided"
                    else f"at both {lo} and {hi}{unit}")
        if every and len(idxs) > 1:
            return f"at {'any' if word == 'undecided' else 'every'} {noun} from {lo} to {hi}{unit}"
        spans = [axis.texts[g[0]] if len(g) == 1 else f"{axis.texts[g[0]]}-{axis.texts[g[-1]]}"
                 for g in _runs_of(idxs)]
        return f"at {_and(spans)}{unit}" if unit else f"at {noun} {_and(spans)}"
    labels = [axis.labels[i] for i in idxs]
    if every and len(idxs) > 1:
        return f"with {'any' if word == 'undecided' else 'every'} {axis.label} ({', '.join(labels)})"
    if all(axis.label.lower() in lab.lower() for lab in labels):
        return f"with {_and(labels)}"  # 'with full stacking (...)', not 'with stacking full ...'
    return f"with {axis.label} {_and(labels)}"


def _fmt_effect(e: _Effect, key: str) -> str:
    from unosim.analysis.stats import ci_decimals, format_fixed

    dec = min(3, max(1, ci_decimals(e.low, e.high))) if e.high > e.low else 1
    unit = "%" if key == "turns_mean" else " points"
    return (f"{format_fixed(e.value, dec, True)}{unit}, 95% CI {format_fixed(e.low, dec, True)}"
            f" to {format_fixed(e.high, dec, True)}{unit}")


def _sentence(sweep: Sweep, key: str, s: _Series) -> str | None:
    """One series' answer on ``key``: which way, where, and where it is largest."""
    axis = sweep.axes[sweep.x_axis]
    effects = [_effect(sweep, c, key) for c in s.cells]
    known = [(xi, e) for xi, e in zip(s.xs, effects, strict=True) if e is not None]
    if not known:
        return None
    more, less = _VERBS[key]
    what = next(q.what for g in sweep.groups for q in questions_for(g.cmp) if q.key == key)
    words = {"higher": more, "lower": less, **{w: t.format(what=what) for w, t in _WORDS.items()}}
    segments: list[tuple[str, list[int]]] = []
    for xi, e in known:
        if segments and segments[-1][0] == e.word:
            segments[-1][1].append(xi)
        else:
            segments.append((e.word, [xi]))
    if len(segments) == 1:
        w, idxs = segments[0]
        body = f"{words[w]} {_where(axis, idxs, True, w)}"
    else:
        body = _and([f"{words[w]} {_where(axis, idxs, False)}" for w, idxs in segments])
    moved = [(xi, e) for xi, e in known if e.word in ("higher", "lower")]
    if len(known) == 1 and moved:
        body += f" ({_fmt_effect(moved[0][1], key)})"
    elif moved:
        xi, e = max(moved, key=lambda t: abs(t[1].value))
        body += (f"; the effect is largest {_where(axis, [xi], False)} "
                 f"({_fmt_effect(e, key)})")
    text = f"{s.subject} {body}."
    return text[:1].upper() + text[1:]


def answer_sentences(sweep: Sweep) -> list[str]:
    """Every series' answer on round length, then on the first player's win rate."""
    keys = [k for k, _ in EFFECTS if any(k in g.cmp.decisions for g in sweep.groups)]
    return [t for k in keys for s in _series(sweep) if (t := _sentence(sweep, k, s))]


def _effect_charts(sweep: Sweep, out: Path, stem: str) -> list[tuple[Path, str, list[str]]]:
    """One dots chart per answered question: (path, caption, trend sentences)."""
    b, bv = sweep.baseline
    axis = sweep.axes[sweep.x_axis]
    numeric = _numeric(axis)
    series = _series(sweep)
    made = []
    for key, ylabel in EFFECTS:
        if not any(key in g.cmp.decisions for g in sweep.groups) or not series:
            continue
        dots, trends = [], []
        for s in series:
            pts = [(xi, e) for xi, e in zip(s.xs, (_effect(sweep, c, key) for c in s.cells),
                                            strict=True) if e is not None]
            if not pts:
                continue
            xs = [float(axis.values[xi]) if numeric else float(xi) for xi, _ in pts]
            es = [e for _, e in pts]
            fit = None
            if numeric:
                t = linear_trend(xs, [e.value for e in es], [e.se for e in es])
                if t is not None:
                    grid = [float(v) for v in np.linspace(min(xs), max(xs), 60)]
                    y, lo, hi = t.band(grid)
                    fit = Fit(list(grid), list(y), list(lo), list(hi))
                    trends.append(_trend_words(s, t, key, axis))
            dots.append(Dots(s.label if len(series) > 1 else "effect", xs,
                             [e.value for e in es], [e.low for e in es], [e.high for e in es],
                             fit))
        if not dots:
            continue
        what = "mean turns per round" if key == "turns_mean" else "first-player win rate"
        title = (f"Change in {what} against {_phrase(sweep.axes[b], bv)}, by {axis.label}")
        ticks = None
        if not numeric:
            ticks = [axis.labels[int(x)] for x in sorted({x for d in dots for x in d.x})]
            dots = [Dots(d.label, [sorted({x for dd in dots for x in dd.x}).index(x)
                                   for x in d.x], d.y, d.low, d.high) for d in dots]
        path = dots_chart(dots, out / f"{stem}_effect_{key}.png", title, axis.label, ylabel,
                          xticklabels=ticks, zero=True,
                          legend_title=sweep.axes[b].label if len(dots) > 1 else None,
                          footnote="filled: the 95% interval excludes no change; hollow: it "
                                   "includes it" + ("; lines: weighted linear trend with its "
                                                    "95% band" if numeric else ""))
        caption = (f"Paired effect of each cell against its baseline cell "
                   f"({_phrase(sweep.axes[b], bv)}), with 95% intervals"
                   + ("; lines are weighted linear trends" if numeric else ""))
        made.append((path, caption, trends))
    return made


def _trend_words(s: _Series, t: Trend, key: str, axis: Axis) -> str:
    per = "player" if axis.key == "players" else f"unit of {axis.label}"
    unit = "%" if key == "turns_mean" else " points"
    return f"{s.label[:1].upper()}{s.label[1:]}: {t.words(unit, per)}."


def _level_chart(sweep: Sweep, m: Metric, path: Path) -> Path:
    """One metric against the first axis, one series per combination of the other axes.

    A numeric first axis gets lines with 95% bands; a categorical one dots
    with error bars, never joined.
    """
    first, others = sweep.axes[0], sweep.axes[1:]
    numeric = _numeric(first)
    xs = list(first.values) if numeric else list(range(len(first.values)))
    series = []
    for combo in list(itertools.product(*[range(len(a.values)) for a in others])) or [()]:
        pts = []
        for xi, x in enumerate(xs):
            cell = sweep.cells[_position(sweep.axes, (xi, *combo))]
            assert cell.run is not None
            pts.append((x, estimate(cell.run.aggregates, m)))
        if len(others) == 1:
            label = others[0].labels[combo[0]]
        else:
            label = "; ".join(f"{a.label}={a.labels[j]}"
                              for a, j in zip(others, combo, strict=True)) or m.label
        series.append(charts.Line(label, [p[0] for p in pts], [p[1].value for p in pts],
                                  [p[1].low for p in pts], [p[1].high for p in pts]))
    fair: list[float] | None = None
    ref_label = ""
    if m.key == "first_player_vs_fair":
        fair, ref_label = [1.0] * len(xs), "fair share (1.0)"
    if m.key == "first_player_win_rate":
        if first.key == "players":
            fair, ref_label = [1 / x for x in xs], "fair share 1/N"
        elif len({c.cfg.players for c in sweep.cells}) == 1:
            n = sweep.cells[0].cfg.players
            fair, ref_label = [1 / n] * len(xs), f"fair share 1/{n}"
    unit = {"turns_mean": "mean turns per round", "drawn_mean": "cards drawn per round",
            "first_player_win_rate": "win rate of the player on the dealer's left",
            "first_player_vs_fair": "first-player win rate ÷ 1/N",
            "stalemate_rate": "share of rounds ending in a stalemate",
            "match_rounds_mean": "rounds per match"}.get(m.key, m.label)
    legend_title = others[0].label if len(others) == 1 else None
    title = f"{m.label} by {first.label}"
    if numeric:
        reference = charts.Line(ref_label, xs, fair, [], []) if fair is not None else None
        return charts.line_chart(series, path, title, first.label, unit, percent=m.percent,
                                 reference=reference, legend_title=legend_title)
    return dots_chart([Dots(ln.label, ln.x, ln.y, ln.low, ln.high) for ln in series], path,
                      title, first.label, unit, xticklabels=first.labels, percent=m.percent,
                      reference=fair, reference_label=ref_label, legend_title=legend_title)


def write_sweep(
    sweep: Sweep,
    out_dir: str | Path,
    command: str | None = None,
    title: str | None = None,
    intro: Sequence[str] = (),
    stem: str = "sweep",
) -> list[Path]:
    """sweep.md/.html (the answer first), sweep.csv/.parquet and the charts; their paths.

    The paths are the page's (md, html), then the table's (csv, parquet), then the PNGs.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tables = write_table(sweep.table(), out, stem)
    metrics = _metrics(sweep)
    b, bv = sweep.baseline
    base = _phrase(sweep.axes[b], bv)
    doc = Doc(title or f"Sweep of {Path(sweep.config).name} over "
              + " × ".join(a.label for a in sweep.axes))
    for para in intro:
        doc.p(para, lead=True)
    doc.h2("Answer")
    answers = sweep.answers()
    if answers:
        doc.ul(answers)
    else:
        doc.p(f"Nothing to compare: {sweep.axes[b].label} takes one value only.")
    n_cells = len(sweep.cells)
    rounds = sum(c.run.rounds for c in sweep.cells if c.run)
    doc.p(f"**Sample:** {n_cells} cells × {sweep.games:,} games ({rounds:,} rounds in all), "
          f"seed {sweep.seed} in every cell. Axes: "
          + "; ".join(f"{a.label} (`{a.key}`) = {', '.join(a.labels)}" for a in sweep.axes)
          + "."
          + (f" Overrides: {', '.join(f'`{o}`' for o in sweep.overrides)}."
             if sweep.overrides else ""))
    _method(doc, sweep, base)
    pngs: list[Path] = []
    effects = _effect_charts(sweep, out, stem)
    if effects:
        doc.h2(f"Effects against {base}")
        for path, caption, trends in effects:
            doc.image(path, caption)
            pngs.append(path)
            if trends:
                doc.p("Weighted linear trend of the effect (weights 1/SE²; the slope's "
                      "interval is widened by the Birge ratio √(χ²/df) when the points depart "
                      "from the line by more than their errors allow):")
                doc.ul(trends)
        _effects_table(doc, sweep)
    doc.h2("Levels")
    charted = [m for m in metrics if m.key in CHART_METRICS]
    if not any(c.run.aggregates["counts"][2] for c in sweep.cells if c.run is not None):
        charted = [m for m in charted if m.key != "stalemate_rate"]  # an empty chart: a sentence
        doc.p("No round of any cell hit the turn cap: the stalemate rate is 0 everywhere "
              "(its 95% upper bounds are in the table below).")
    for m in charted:
        pngs.append(_level_chart(sweep, m, out / f"{stem}_{m.key}.png"))
        doc.image(pngs[-1], f"{m.label} against {sweep.axes[0].label}, 95% "
                  + ("bands" if _numeric(sweep.axes[0]) else "intervals"))
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
    doc.p(f"Full table with every metric, interval, difference and decision: "
          f"`{tables[0].name}` / `{tables[1].name}`.")
    doc.h2("How this was made")
    if command:
        doc.code(command, "sh")
    doc.p(f"Config `{sweep.config}`; {sweep.games:,} games per cell; seed {sweep.seed}.")
    return doc.write(out, stem) + tables + pngs


def _method(doc: Doc, sweep: Sweep, base: str) -> None:
    """How the effects were measured and decided: pairing, margins, Holm, stopping."""
    cmps = [g.cmp for g in sweep.groups if len(g.cells) > 1]
    if not cmps:
        return
    qs = {q.key: q for c in cmps for q in questions_for(c)}
    margins = "; ".join(f"{q.what} {margin_words(q, sweep.margins[k])}" for k, q in qs.items())
    doc.p(f"**How the effects are decided:** each cell is compared with its baseline cell, the "
          f"cell with {base} and every other setting the same. All cells played "
          "the same games in lockstep, so each difference is paired game by game (card luck "
          "cancels). A change is claimed when it is established; *no difference that "
          "matters* when two one-sided tests show it lies within the margin (" + margins
          + "); otherwise it is *not decided*. The p-values of all "
          f"{sweep.n_tests} tests of this sweep are adjusted together by Holm's method, so the "
          "chance of any false claim among them stays at 5%. The 95% intervals shown are not "
          "adjusted.")
    if sweep.stop:
        doc.p(stopping_text(sweep.stop))


def _effects_table(doc: Doc, sweep: Sweep) -> None:
    """Every non-baseline cell's effects with intervals and decisions."""
    keys = [k for k, _ in EFFECTS if any(k in g.cmp.decisions for g in sweep.groups)]
    qs = {q.key: q for g in sweep.groups for q in questions_for(g.cmp)}
    rows = []
    for i, cell in enumerate(sweep.cells):
        g, k = sweep.place(i)
        if k == 0:
            continue
        row = [value_label(v, a.key) for a, v in zip(sweep.axes, cell.values, strict=True)]
        for key in keys:
            e = _effect(sweep, i, key)
            v = g.cmp.decisions[key][k]
            row += ["—", "—"] if e is None or v is None else [_fmt_effect(e, key),
                                                              short_verdict(qs[key], v)]
        rows.append(row)
    head = [a.label for a in sweep.axes]
    for key in keys:
        head += ["mean turns: change" if key == "turns_mean" else "first-player win rate: "
                 "change", "decision"]
    doc.table(head, rows)
