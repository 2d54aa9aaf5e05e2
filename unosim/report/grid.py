"""A sweep's grid: the ``--vary`` axes, their cells' configs, and each cell's baseline cell.

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
and every other key unchanged. `unosim.report.sweep` runs the grid;
`unosim.report.league` builds its rule sets from the same axes.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from unosim.report.runs import Run
from unosim.rules.config import GameConfig, load_config
from unosim.rules.errors import ConfigError, clip, quoted
from unosim.rules.settings import house_rule_switches, setting_label, stacking_phrase
from unosim.rules.yamlio import parse_yaml

__all__ = ["MAX_SWEEP_CELLS", "STACKING", "Axis", "Cell", "VaryError", "baseline_cells",
           "build_cells", "cell_index", "cell_label", "cell_name", "cell_position",
           "default_baseline", "parse_baseline", "parse_vary", "value_label"]

STACKING = "house_rules.stacking"
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
    unosim.report.grid.VaryError: --vary 'players=2..100000000000': 99,999,999,999 cells, more than a sweep's 1,000; vary fewer values
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


def value_label(v: object, key: str = "") -> str:
    """A short readable label for a swept value (stacking switch sets get their phrase)."""
    if isinstance(v, bool):
        return "on" if v else "off"
    if isinstance(v, dict):
        if key == STACKING and all(f"{key}.{k}" in house_rule_switches() for k in v):
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
        try:
            cfg = load_config(config, [*overrides, *sets])
        except ConfigError as exc:  # a --vary value is applied as a --set: say --vary
            src = exc.source or ""
            if any(src.endswith(f" --set {clip(s)}") for s in sets):
                raise ConfigError(src.replace(" --set ", " --vary ", 1), exc.key,
                                  exc.message) from None
            raise
        cells.append(Cell(tuple(v for v, _ in combo), tuple(t for _, t in combo), cfg))
    return cells


def cell_name(texts: Sequence[str], axes: Sequence[Axis]) -> str:
    """A cell's run dir name before `unosim.rules.config.name_slug`: each key's last part and value."""
    return "_".join(f"{a.key.split('.')[-1]}-{t}" for a, t in zip(axes, texts, strict=True))




def cell_label(cell: Cell, axes: Sequence[Axis]) -> str:
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
    unosim.report.grid.VaryError: --baseline 'players=9': 9 is not one of the values of players (2, 3, 4)
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


def cell_index(axes: Sequence[Axis], pos: int) -> list[int]:
    """Per-axis value indices of cell ``pos`` (row-major, the inverse of `cell_position`)."""
    idx = []
    for a in reversed(axes):
        pos, i = divmod(pos, len(a.values))
        idx.append(i)
    return idx[::-1]


def cell_position(axes: Sequence[Axis], idx: Sequence[int]) -> int:
    pos = 0
    for a, i in zip(axes, idx, strict=True):
        pos = pos * len(a.values) + i
    return pos


def baseline_cells(axes: Sequence[Axis], baseline: tuple[int, int]) -> list[int]:
    """For each cell, the cell with the baseline key at its baseline value, the rest kept."""
    b, v = baseline
    out = []
    for pos in range(math.prod(len(a.values) for a in axes)):
        idx = cell_index(axes, pos)
        idx[b] = v
        out.append(cell_position(axes, idx))
    return out
