"""Dots with 95% error bars over a swept setting, with an optional fitted trend.

A category (an edition, a policy, a switch) has no order or distance to its
neighbours, so a line joining categories would draw a trend that does not
exist: categorical x values get dots with error bars only, each series
nudged sideways so none hides another. A numeric x (players) gets the same
dots plus, when given, each series' fitted line and its 95% band. Drawn with
the helpers and palette of `unosim.report.charts` (Agg canvas, no pyplot).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict, Unpack

import numpy as np
from matplotlib.figure import Figure

from unosim.report.charts import (
    COLORS,
    FAIR_COLOR,
    LINE_IN,
    TITLE_SIZE,
    axes_grid,
    chart_title,
    finish_axes,
    label_lines,
    markers_text,
    new_figure,
    save_chart,
    style_axes,
    text_width,
    wrap_label,
)

__all__ = ["Dots", "Fit", "dots_chart", "dots_figure"]


@dataclass(frozen=True)
class Fit:
    """A fitted line along ``x`` with its 95% band (``low``..``high``)."""

    x: Sequence[float]
    y: Sequence[float]
    low: Sequence[float]
    high: Sequence[float]


@dataclass(frozen=True)
class Dots:
    """One series: a value and 95% interval per x, and optionally its fitted trend."""

    label: str
    x: Sequence[float]
    y: Sequence[float]
    low: Sequence[float]
    high: Sequence[float]
    fit: Fit | None = None
    filled: Sequence[bool] | None = None  # per dot; None: by its interval (see dots_chart)


class DotsOptions(TypedDict, total=False):
    """The keyword arguments of a dots chart (`dots_chart`, `dots_figure`)."""

    xticklabels: Sequence[str] | None
    percent: bool
    zero: bool
    reference: Sequence[float] | None
    reference_label: str
    legend_title: str | None
    footnote: str | None


def dots_chart(series: Sequence[Dots], path: str | Path, title: str, xlabel: str,
               ylabel: str, **options: Unpack[DotsOptions]) -> Path:
    """`dots_figure` saved as a PNG at ``path``, the fills drawn recorded in it
    (``options``: the keyword arguments of `_dots`)."""
    fig, drawn = _dots(series, title, xlabel, ylabel, **options)
    return save_chart(fig, path, markers_text(drawn))


def dots_figure(series: Sequence[Dots], title: str, xlabel: str, ylabel: str,
                **options: Unpack[DotsOptions]) -> Figure:
    """Dots with 95% error bars as a figure (``options``: the keyword arguments of `_dots`)."""
    return _dots(series, title, xlabel, ylabel, **options)[0]


def _dots(
    series: Sequence[Dots],
    title: str,
    xlabel: str,
    ylabel: str,
    *,
    xticklabels: Sequence[str] | None = None,
    percent: bool = False,
    zero: bool = False,
    reference: Sequence[float] | None = None,
    reference_label: str = "",
    legend_title: str | None = None,
    footnote: str | None = None,
) -> tuple[Figure, list[list[bool]]]:
    """Each series as dots with 95% error bars; ``xticklabels`` makes x categorical.

    Categorical: series ``j`` is drawn at ``x + offset_j`` around positions
    0, 1, ... and never joined. Numeric: dots at the x values (nudged a little)
    and each series' ``fit`` as a line with a band. ``zero`` draws the
    no-effect line; ``reference`` one grey dashed value per x (e.g. the fair
    share), a short segment per category. A series' ``filled`` decides which
    dots are filled (a sweep passes its Holm-adjusted decisions, so the chart
    and the words agree); without it, a hollow dot's interval includes zero
    when ``zero`` is set. The fills drawn are recorded in the PNG
    (`unosim.report.charts.png_markers`).
    """
    categorical = xticklabels is not None
    labels = [wrap_label(s.label, 30) for s in series]
    legend = len(series) > 1 or bool(reference_label)
    legend_w = (text_width([*labels, reference_label, legend_title or ""], 8.5) + 0.6
                if legend else 0.0)
    ticks = [wrap_label(t, 14) for t in xticklabels] if xticklabels is not None else None
    note = 0.3 if footnote else 0.0
    fig = new_figure(9.5 + legend_w, 4.8 + note + LINE_IN * (label_lines(ticks or [""]) - 1))
    (ax,) = axes_grid(fig, left=1.05, right=0.25 + legend_w, top=0.5,
                  bottom=0.5 + note + LINE_IN * label_lines(ticks or [""]))
    xs_all = sorted({float(v) for s in series for v in s.x})
    step = min(np.diff(xs_all), default=1.0) if len(xs_all) > 1 else 1.0
    spread = (0.5 if categorical else 0.25) * step
    k = len(series)
    drawn: list[list[bool]] = []
    for j, (s, label) in enumerate(zip(series, labels, strict=True)):
        c = COLORS[j % len(COLORS)]
        offset = (j - (k - 1) / 2) * spread / max(k, 1) if k > 1 else 0.0
        x = np.asarray(s.x, dtype=float) + offset
        y, lo, hi = (np.asarray(v, dtype=float) for v in (s.y, s.low, s.high))
        if s.fit is not None:
            fx = np.asarray(s.fit.x, dtype=float)
            ax.plot(fx, s.fit.y, color=c, linewidth=1.4, alpha=0.9)
            ax.fill_between(fx, np.asarray(s.fit.low, dtype=float),
                            np.asarray(s.fit.high, dtype=float), color=c,
                            alpha=0.15 if k <= 3 else 0.08, linewidth=0)
        finite = np.isfinite(lo) & np.isfinite(hi)
        err = np.where(finite, [y - np.where(finite, lo, y), np.where(finite, hi, y) - y], 0.0)
        ax.errorbar(x, y, yerr=err, fmt="none", ecolor=c, elinewidth=1.6, capsize=3.5)
        if s.filled is not None:
            solid = np.asarray(s.filled, dtype=bool)
        else:
            solid = ~(finite & (lo <= 0) & (hi >= 0)) if zero else np.ones(len(y), bool)
        drawn.append([bool(b) for b in solid])
        ax.scatter(x[solid], y[solid], s=30, color=c, zorder=3, label=label)
        if (~solid).any():
            ax.scatter(x[~solid], y[~solid], s=30, facecolor="white", edgecolor=c,
                       linewidth=1.4, zorder=3, label=None if solid.any() else label)
    if zero:
        ax.axhline(0, color=FAIR_COLOR, linewidth=1.0, linestyle="--")
    if reference is not None:
        ref = np.asarray(reference, dtype=float)
        if categorical:
            ax.hlines(ref, np.arange(len(ref)) - 0.4, np.arange(len(ref)) + 0.4,
                      color=FAIR_COLOR, linestyle="--", linewidth=1.2, label=reference_label)
        else:
            ax.plot(xs_all, ref, color=FAIR_COLOR, linestyle="--", linewidth=1.2,
                    label=reference_label)
    finish_axes(ax, xlabel, ylabel + " (95% interval)", percent)
    if ticks is not None:
        ax.set_xticks(range(len(ticks)), ticks, fontsize=9)
        ax.set_xlim(-0.6, len(ticks) - 0.4)
    elif xs_all and all(v.is_integer() for v in xs_all) and len(xs_all) <= 20:
        ax.set_xticks(xs_all)
    chart_title(ax, wrap_label(title, 85), fontsize=TITLE_SIZE, fontweight="bold")
    if legend:
        ax.legend(fontsize=8.5, frameon=False, loc="center left", bbox_to_anchor=(1.0, 0.5),
                  title=legend_title, title_fontsize=8.5)
    style_axes(ax)
    if categorical:
        ax.grid(False, axis="x")
    if footnote:
        h = fig.get_size_inches()[1]
        fig.text(0.5, 0.06 / h, wrap_label(footnote, 140), ha="center", va="bottom", fontsize=8,
                 color=FAIR_COLOR)
    return fig, drawn
