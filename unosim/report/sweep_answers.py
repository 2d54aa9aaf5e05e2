"""A sweep's answer in words and its effect charts.

Each cell's effect against its baseline cell (`unosim.report.sweep`) is read
along the x axis in series; the sentences say, per question, where the rules
lengthen or shorten rounds (or move the first player's edge), as strongly as
the Holm-adjusted decisions allow and no more; a numeric axis also gets a
weighted trend (`unosim.analysis.trend`) whose words admit lack of fit.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from unosim.analysis.trend import Trend, linear_trend
from unosim.report.comparison import diff_se, questions_for
from unosim.report.dots import Dots, DotsOptions, Fit, dots_chart
from unosim.report.grid import STACKING, Axis, cell_position, value_label
from unosim.report.sweep_types import SweepGrid
from unosim.report.verdicts import ESTABLISHED, MARKER_LEGEND

__all__ = ["EFFECTS", "Effect", "EffectChart", "Series", "answer_sentences", "cell_effect",
           "decided", "effect_charts", "effect_specs", "fmt_effect", "numeric_axis", "trend_words",
           "value_phrase"]

# The questions a sweep answers in words and charts as effects: (key, effect axis label).
EFFECTS = (("turns_mean", "change in mean turns per round (%)"),
           ("first_player_win_rate", "change in first-player win rate (percentage points)"))

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
class Effect:
    """One cell's effect against its baseline cell, in display units (% or points)."""

    value: float
    low: float
    high: float
    se: float
    word: str


@dataclass(frozen=True)
class Series:
    """Cells sharing a baseline-key value (and the other keys but x), along the x axis."""

    subject: str
    label: str
    xs: list[int]  # value indices on the x axis
    cells: list[int]


def numeric_axis(axis: Axis) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in axis.values)


def value_phrase(axis: Axis, j: int) -> str:
    """A value as a reader says it: '3 players', 'jump-in on', 'stacking (...)', 'edition X'."""
    v = axis.values[j]
    if axis.key == "players":
        return f"{v} players"
    if axis.key == STACKING and isinstance(v, dict):
        return value_label(v, axis.key)
    return f"{axis.label} {value_label(v, axis.key)}"


def cell_effect(sweep: SweepGrid, cell: int, key: str) -> Effect | None:
    """``cell``'s effect on ``key`` against its baseline cell (None for a baseline cell)."""
    g, k = sweep.place(cell)
    d = g.cmp.diffs.get(key, [None])[k] if k else None
    v = g.cmp.decisions.get(key, [None] * len(g.cells))[k] if k else None
    if d is None or v is None:
        return None
    scale = 100.0 if key != "turns_mean" else 100.0 / g.cmp.values[key][0].value
    se = diff_se(d)
    return Effect(scale * d.diff, scale * d.low, scale * d.high, scale * se, v.word)


def _series(sweep: SweepGrid) -> list[Series]:
    """Every non-baseline value of the baseline key (× the other keys), along the x axis."""
    b, bv = sweep.baseline
    x = sweep.x_axis
    axes = sweep.axes
    base = value_phrase(axes[b], bv)
    rest = [i for i in range(len(axes)) if i not in (b, x)]
    out = []
    if x == b:
        xs = [j for j in range(len(axes[b].values)) if j != bv]
        subject = f"changing {axes[b].label} from {value_label(axes[b].values[bv], axes[b].key)}"
        return [Series(subject, f"against {base}", xs,
                        [cell_position(axes, [j]) for j in xs])] if xs else []
    for j in range(len(axes[b].values)):
        if j == bv:
            continue
        for combo in itertools.product(*[range(len(axes[r].values)) for r in rest]):
            where = ", ".join(value_phrase(axes[r], c) for r, c in zip(rest, combo, strict=True))
            cells = []
            for xi in range(len(axes[x].values)):
                idx = [0] * len(axes)
                idx[b], idx[x] = j, xi
                for r, c in zip(rest, combo, strict=True):
                    idx[r] = c
                cells.append(cell_position(axes, idx))
            if isinstance(axes[b].values[j], bool):  # a switch: turning it on (or off)
                subject = f"turning {axes[b].label} {value_label(axes[b].values[j])}"
            else:
                subject = f"{value_phrase(axes[b], j)}, against {base},"
            subject += f" with {where}," if where else ""
            label = value_phrase(axes[b], j) + (f" ({where})" if where else "")
            out.append(Series(subject, label, list(range(len(axes[x].values))), cells))
    return out


def _runs_of(axis: Axis, idxs: Sequence[int]) -> list[list[int]]:
    """Value indices grouped where the values run without a gap: on players 2, 3, 4, 7,
    [0, 1, 2, 3] -> [[0, 1, 2], [3]]; on players 2, 4, 6 every index stands alone (a
    span "2-4" would claim the 3 players that were not run)."""
    groups: list[list[int]] = []
    for i in idxs:
        if groups and i == groups[-1][-1] + 1 and axis.values[i] == axis.values[i - 1] + 1:
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


def _and(parts: Sequence[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _where(axis: Axis, idxs: Sequence[int], every: bool, word: str = "") -> str:
    """Where a series does something, naming only values that were run: 'at every table
    size from 2 to 10 players' (all of 2..10 run), 'at each of 2, 4 and 6 players',
    'at 2-5 and 8 players', 'with edition X and Y'."""
    if numeric_axis(axis):
        unit = " players" if axis.key == "players" else ""
        noun = "table size" if axis.key == "players" else axis.label
        lo, hi = axis.texts[idxs[0]], axis.texts[idxs[-1]]
        runs = _runs_of(axis, idxs)
        if every and len(idxs) == 2:
            if not unit:
                return f"at {noun} {lo} {'or' if word == 'undecided' else 'and'} {hi}"
            return (f"at either {lo} or {hi}{unit}" if word == "undecided"
                    else f"at both {lo} and {hi}{unit}")
        if every and len(idxs) > 1 and len(runs) == 1:
            return f"at {'any' if word == 'undecided' else 'every'} {noun} from {lo} to {hi}{unit}"
        if every and len(idxs) > 1:
            each = "any" if word == "undecided" else "each"
            listed = _and([axis.texts[i] for i in idxs])
            return f"at {each} of {listed}{unit}" if unit else f"at {each} {noun} of {listed}"
        spans = [axis.texts[g[0]] if len(g) == 1 else f"{axis.texts[g[0]]}-{axis.texts[g[-1]]}"
                 for g in runs]
        return f"at {_and(spans)}{unit}" if unit else f"at {noun} {_and(spans)}"
    labels = [axis.labels[i] for i in idxs]
    if every and len(idxs) > 1:
        return f"with {'any' if word == 'undecided' else 'every'} {axis.label} ({', '.join(labels)})"
    if all(axis.label.lower() in lab.lower() for lab in labels):
        return f"with {_and(labels)}"  # 'with full stacking (...)', not 'with stacking full ...'
    return f"with {axis.label} {_and(labels)}"


def fmt_effect(e: Effect, key: str) -> str:
    from unosim.analysis.stats import ci_decimals, format_fixed

    dec = min(3, max(1, ci_decimals(e.low, e.high))) if e.high > e.low else 1
    unit = "%" if key == "turns_mean" else " points"
    return (f"{format_fixed(e.value, dec, True)}{unit}, 95% CI {format_fixed(e.low, dec, True)}"
            f" to {format_fixed(e.high, dec, True)}{unit}")


def _size(e: Effect) -> tuple[float, float]:
    """The interval of an effect's size (its absolute value), for ranking effects."""
    a, b = sorted((abs(e.low), abs(e.high)))
    return (0.0 if e.low <= 0 <= e.high else a), b


def _largest(axis: Axis, known: Sequence[tuple[int, Effect]], key: str) -> str:
    """Where the decided effect is largest, claimed only when its interval clears every
    other cell's (a larger point estimate alone is not a larger effect); with one decided
    cell, only its size.

    >>> from unosim.report.sweep import parse_vary
    >>> ax = parse_vary("players=2,4,6")
    >>> e = lambda v, lo, hi, w="lower": Effect(v, lo, hi, 0.1, w)
    >>> print(_largest(ax, [(0, e(-2.1, -2.4, -1.9)), (1, e(-2.2, -2.4, -2.0)),
    ...                     (2, e(-1.6, -1.8, -1.4))], "turns_mean"))
    ; the largest decided effect is at 4 players (-2.20%, 95% CI -2.40 to -2.00%), but the
    intervals do not tell it apart from the effect at 2 players
    >>> _largest(ax, [(0, e(-3.6, -3.9, -3.4)), (1, e(-2.4, -2.6, -2.2))], "turns_mean")
    '; the effect is largest at 2 players (-3.60%, 95% CI -3.90 to -3.40%)'
    >>> _largest(ax, [(0, e(-3.4, -5.6, -1.2)), (1, e(-1.0, -3.0, 1.0, "undecided"))],
    ...          "turns_mean")
    '; the effect at 2 players is -3.4%, 95% CI -5.6 to -1.2%'
    """
    moved = [(x, f) for x, f in known if f.word in ("higher", "lower")]
    xi, e = max(moved, key=lambda t: abs(t[1].value))
    where, size = _where(axis, [xi], False), fmt_effect(e, key)
    if len(moved) == 1:
        return f"; the effect {where} is {size}"
    floor = _size(e)[0]
    close = [x for x, f in known if x != xi and f.word != "identical" and _size(f)[1] >= floor]
    if not close:
        return f"; the effect is largest {where} ({size})"
    return (f"; the largest decided effect is {where} ({size}), but the intervals do not tell "
            f"it apart from the effect {_where(axis, sorted(close), False)}")


def _sentence(sweep: SweepGrid, key: str, s: Series) -> str | None:
    """One series' answer on ``key``: which way, where, and where it is largest."""
    axis = sweep.axes[sweep.x_axis]
    effects = [cell_effect(sweep, c, key) for c in s.cells]
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
        body += f" ({fmt_effect(moved[0][1], key)})"
    elif moved:
        body += _largest(axis, known, key)
    text = f"{s.subject} {body}."
    return text[:1].upper() + text[1:]


def answer_sentences(sweep: SweepGrid) -> list[str]:
    """Every series' answer on round length, then on the first player's win rate."""
    keys = [k for k, _ in EFFECTS if any(k in g.cmp.decisions for g in sweep.groups)]
    return [t for k in keys for s in _series(sweep) if (t := _sentence(sweep, k, s))]


def effect_charts(sweep: SweepGrid, out: Path, stem: str) -> list[tuple[Path, str, list[str]]]:
    """One dots chart per answered question: (path, caption, trend sentences)."""
    return [(dots_chart(c.dots, out / f"{stem}_effect_{c.key}.png", *c.labels, **c.options),
             c.caption, c.trends) for c in effect_specs(sweep)]


@dataclass(frozen=True)
class EffectChart:
    """What one effect chart draws: its question, dots, (title, x, y labels), options."""

    key: str
    dots: list[Dots]
    labels: tuple[str, str, str]
    options: DotsOptions
    caption: str
    trends: list[str]


def effect_specs(sweep: SweepGrid) -> list[EffectChart]:
    """The effect chart of each answered question, ready to draw or save."""
    b, bv = sweep.baseline
    axis = sweep.axes[sweep.x_axis]
    numeric = numeric_axis(axis)
    series = _series(sweep)
    made = []
    for key, ylabel in EFFECTS:
        if not any(key in g.cmp.decisions for g in sweep.groups) or not series:
            continue
        dots, trends = [], []
        for s in series:
            pts = [(xi, e) for xi, e in zip(s.xs, (cell_effect(sweep, c, key) for c in s.cells),
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
                    trends.append(trend_words(s, t, key, axis))
            dots.append(Dots(s.label if len(series) > 1 else "effect", xs,
                             [e.value for e in es], [e.low for e in es], [e.high for e in es],
                             fit, [decided(e) for e in es]))
        if not dots:
            continue
        what = "mean turns per round" if key == "turns_mean" else "first-player win rate"
        title = (f"Change in {what} against {value_phrase(sweep.axes[b], bv)}, by {axis.label}")
        ticks = None
        if not numeric:
            ticks = [axis.labels[int(x)] for x in sorted({x for d in dots for x in d.x})]
            dots = [Dots(d.label, [sorted({x for dd in dots for x in dd.x}).index(x)
                                   for x in d.x], d.y, d.low, d.high, filled=d.filled)
                    for d in dots]
        options: DotsOptions = {"xticklabels": ticks, "zero": True,
                   "legend_title": sweep.axes[b].label if len(dots) > 1 else None,
                   "footnote": MARKER_LEGEND + ("; lines: weighted linear trend with "
                                                "its 95% band" if numeric else "")}
        caption = (f"Paired effect of each cell against its baseline cell "
                   f"({value_phrase(sweep.axes[b], bv)}), with 95% intervals"
                   + ("; lines are weighted linear trends" if numeric else "")
                   + "; " + MARKER_LEGEND)
        made.append(EffectChart(key, dots, (title, axis.label, ylabel), options, caption,
                                trends))
    return made


def decided(e: Effect) -> bool:
    """Whether an effect's marker is filled: the Holm-adjusted decision behind the
    sentences and the effects table established a change."""
    return e.word in ESTABLISHED


def trend_words(s: Series, t: Trend, key: str, axis: Axis) -> str:
    per = "player" if axis.key == "players" else f"unit of {axis.label}"
    unit = "%" if key == "turns_mean" else " points"
    return f"{s.label[:1].upper()}{s.label[1:]}: {t.words(unit, per)}."
