"""PNG charts for comparisons, sweeps and the notebook API (matplotlib, headless).

A run report's charts are SVG, drawn without matplotlib (`unosim.report.svg`):
importing and drawing with matplotlib cost most of a short run's CPU.

Figures are built with ``matplotlib.figure.Figure`` and saved through the Agg
canvas, never through ``pyplot``: no global state, no display needed, and
charts drawn from worker threads or CI machines look the same. Every chart
takes plain numbers (histograms, counts, intervals) so that it can be tested
without running a simulation.

Colours: one colour-blind-safe palette (Okabe & Ito), one meaning per page.
``COLORS[i]`` is the i-th thing a page compares (a config, a sweep line; in a
run report, the run itself is ``COLORS[0]`` and policies take ``COLORS[1:]``).
Means and medians are black (solid, dashed), fair shares and other references
grey dashed, and the parts of a stacked bar (draw causes) greys with hatches,
so no part can be mistaken for a config.

Speed: a run report must be written within about a second of the simulation,
so axes are placed with fixed margins in inches (no layout engine) and the
canvas is drawn once; only a chart whose text still sticks out of the figure
is saved a second time with a tight bounding box (:func:`save_chart`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TypedDict

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.ticker import (
    FixedLocator,
    FormatStrFormatter,
    MaxNLocator,
    NullFormatter,
    PercentFormatter,
    ScalarFormatter,
)

from unosim.analysis import stats
from unosim.report.chartkit import (
    COLORS,
    FAIR_COLOR,
    MEAN_COLOR,
    MEDIAN_COLOR,
    all_zero,
    label_lines,
    percent_decimals,
    position_labels,
    text_width,
    wrap_label,
)
from unosim.report.chartkit import binned as _binned
from unosim.report.chartkit import nice_width as _nice_width
from unosim.report.chartkit import rate_limits as _rate_limits
from unosim.report.chartkit import x_limit as _x_limit
from unosim.report.chartkit import ylabel_rate as _ylabel_rate
from unosim.report.format import pct
from unosim.run.files import atomic_write

__all__ = [
    "COLORS",
    "MEAN_COLOR",
    "MEDIAN_COLOR",
    "PART_STYLES",
    "Line",
    "Series",
    "all_zero",
    "forest_chart",
    "forest_figure",
    "grouped_rates_chart",
    "line_chart",
    "markers_text",
    "png_markers",
    "position_labels",
    "stacked_bars_chart",
    "turns_chart",
    "turns_figure",
]

DPI = 110
MEDIAN_STYLE = "--"
# Parts of a stacked bar: greys and hatches, never a config's colour.
PART_STYLES = (
    ("#4d4d4d", ""), ("#a6a6a6", ""), ("#d9d9d9", ""), ("#7f7f7f", "//"),
    ("#bfbfbf", ".."), ("#f0f0f0", "xx"), ("#666666", "\\\\"), ("#e0e0e0", "++"),
)
TITLE_SIZE = 12
LINE_IN = 0.19  # height of one line of 9-point text, in inches
TITLE_IN = 0.24  # height of one more line of a title
COMPRESS = 3  # zlib level of the PNGs: 6 costs 50% more time for 2% smaller files


def new_figure(width: float = 10.0, height: float = 4.2) -> Figure:
    """A figure with an Agg canvas; axes are placed by :func:`axes_grid`."""
    fig = Figure(figsize=(width, height), dpi=DPI)
    FigureCanvasAgg(fig)
    return fig


def axes_grid(
    fig: Figure,
    ncols: int = 1,
    *,
    left: float = 0.9,
    right: float = 0.25,
    top: float = 0.5,
    bottom: float = 0.65,
    wspace: float = 0.9,
    width_ratios: Sequence[float] | None = None,
    sharey: bool = False,
) -> list[Axes]:
    """Axes in one row, margins and gaps in inches (fast, unlike a layout engine)."""
    w, h = fig.get_size_inches()
    axes_w = max(0.5, (w - left - right - (ncols - 1) * wspace) / ncols)
    gs = fig.add_gridspec(1, ncols, left=left / w, right=1 - right / w, bottom=bottom / h,
                          top=1 - top / h, wspace=wspace / axes_w, width_ratios=width_ratios)
    axes: list[Axes] = []
    for i in range(ncols):
        axes.append(fig.add_subplot(gs[0, i], sharey=axes[0] if sharey and axes else None))
    return axes


def _suptitle(fig: Figure, title: str) -> None:
    """The figure's bold title, top centre (the top margin leaves room for it)."""
    h = fig.get_size_inches()[1]
    fig.text(0.5, 1 - 0.1 / h, title, ha="center", va="top", fontsize=TITLE_SIZE,
             fontweight="bold")


def _footnote(fig: Figure, text: str, x: float = 0.5, ha: str = "center") -> None:
    h = fig.get_size_inches()[1]
    fig.text(x, 0.06 / h, text, ha=ha, va="bottom", fontsize=8, color=FAIR_COLOR)


def style_axes(ax: Axes) -> None:
    ax.grid(True, alpha=0.3, linewidth=0.6)
    ax.spines[["top", "right"]].set_visible(False)


def _sticks_out(fig: Figure) -> bool:
    """Whether any text whose size depends on the data leaves the drawn figure.

    Checks titles, axis labels, legends, annotations and figure texts (their
    extents are cached by the draw); tick labels are short numbers or wrapped
    labels that the fixed margins leave room for. Much cheaper than
    ``get_tightbbox``, which lays every tick out again.
    """
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    frame = fig.bbox
    artists: list[Artist] = list(fig.texts)
    for ax in fig.axes:
        artists += [ax.title, ax.xaxis.label, ax.yaxis.label, *ax.texts]
        legend = ax.get_legend()
        if legend is not None:
            artists.append(legend)
    tol = 2.0  # pixels
    for a in artists:
        if not a.get_visible() or (hasattr(a, "get_text") and not a.get_text()):
            continue
        b = a.get_window_extent(renderer)
        if b.x0 < -tol or b.y0 < -tol or b.x1 > frame.x1 + tol or b.y1 > frame.y1 + tol:
            return True
    return False


MARKERS_KEY = "unosim-markers"  # PNG text chunk: which markers a chart drew filled


def save_chart(fig: Figure, path: str | Path, text: dict[str, str] | None = None) -> Path:
    """Draw once and write the PNG; a chart whose text sticks out is saved tight instead.

    ``text`` goes into the PNG's text chunks, so a page test can read what the
    chart drew (e.g. `MARKERS_KEY`) from the image itself.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    canvas = fig.canvas
    assert isinstance(canvas, FigureCanvasAgg)
    canvas.draw()
    if _sticks_out(fig):
        atomic_write(path, lambda f: fig.savefig(f, format="png", dpi=DPI, facecolor="white",
                                                 bbox_inches="tight", pad_inches=0.1,
                                                 metadata=dict(text or {})))
        return path
    from PIL import Image  # matplotlib's own PNG writer, imported with it
    from PIL.PngImagePlugin import PngInfo

    info = PngInfo()
    for k, v in (text or {}).items():
        info.add_text(k, v)

    w, h = canvas.get_width_height()
    img = Image.frombuffer("RGBA", (w, h), canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
    rgb = img.convert("RGB")  # the figure is opaque white: RGB is a quarter smaller
    atomic_write(path, lambda f: rgb.save(f, format="png", compress_level=COMPRESS,
                                          pnginfo=info))
    return path


def png_markers(path: str | Path | IO[bytes]) -> list[list[bool]]:
    """The filled (True) / hollow (False) markers a chart recorded, one list per panel
    or series; [] for a chart that recorded none."""
    import json

    from PIL import Image

    with Image.open(path) as img:
        raw = img.info.get(MARKERS_KEY)
    return json.loads(raw) if isinstance(raw, str) else []


def markers_text(filled: Sequence[Sequence[bool]]) -> dict[str, str]:
    """``filled`` as the PNG text chunk `png_markers` reads back."""
    import json

    return {MARKERS_KEY: json.dumps([[bool(b) for b in f] for f in filled])}


def _bars(ax: Axes, edges: np.ndarray, heights: np.ndarray, width: float, color: str,
          label: str | None = None) -> None:
    """Histogram bars as one collection: a Rectangle per bar costs ~2 ms each to add."""
    x0, x1 = np.asarray(edges, dtype=float), np.asarray(edges, dtype=float) + width
    y = np.asarray(heights, dtype=float)
    zero = np.zeros_like(y)
    verts = np.stack([np.stack([x0, zero], 1), np.stack([x0, y], 1), np.stack([x1, y], 1),
                      np.stack([x1, zero], 1)], axis=1)
    ax.add_collection(PolyCollection(list(verts), facecolors=color, edgecolors="white",
                                     linewidths=0.3, alpha=0.8, label=label or "_nolegend_"))
    ax.update_datalim([(x0.min(initial=0), 0.0), (x1.max(initial=1), y.max(initial=0))])
    ax.set_ylim(0, max(y.max(initial=0), 1e-9) * 1.05)


def chart_title(ax: Axes, text: str, **kw: Any) -> None:
    """An axes title at a fixed height (automatic placement lays the axis out twice)."""
    ax.set_title(text, y=1.0, pad=6, **kw)


def _mean_median(ax: Axes, mean: float, median: float) -> None:
    ax.axvline(mean, color=MEAN_COLOR, linewidth=1.5, label=f"mean {mean:,.1f}")
    ax.axvline(median, color=MEDIAN_COLOR, linewidth=1.5, linestyle=MEDIAN_STYLE,
               label=f"median {median:,.0f}")


@dataclass(frozen=True)
class Series:
    """One labelled histogram for overlaid distribution charts."""

    label: str
    hist: np.ndarray


def turns_chart(
    series: Sequence[Series],
    path: str | Path,
    title: str,
    unit: str = "turns per round",
    colors: Sequence[str] | None = None,
) -> Path:
    """`turns_figure` saved as a PNG at ``path``."""
    return save_chart(turns_figure(series, title, unit, colors), path)


def turns_figure(
    series: Sequence[Series],
    title: str,
    unit: str = "turns per round",
    colors: Sequence[str] | None = None,
) -> Figure:
    """Histogram and CDF of a per-round count; mean and median marked.

    One series gives bars with its mean and median drawn as lines; several
    give overlaid step outlines so that the shapes can be compared (series i
    in ``colors[i]``, by default ``COLORS[i]``). The x axis stops at the
    99.5th percentile; the note under the chart says how far the tail goes,
    so the cut hides nothing.
    """
    hists = [np.asarray(s.hist, dtype=np.int64) for s in series]
    palette = list(colors) if colors else list(COLORS)
    top = _x_limit(hists, 0.995 if len(series) == 1 else 0.99)
    width = _nice_width(top)
    single = len(series) == 1
    tail_notes = []
    for s, h in zip(series, hists, strict=True):
        if h.sum() and int(np.flatnonzero(h)[-1]) > top:
            longest = int(np.flatnonzero(h)[-1])
            tail_notes.append(f"{s.label}: longest {longest:,}" if not single
                              else f"longest round {longest:,} {unit.split()[0]}")
    note = ""
    if tail_notes:
        pct_s = "99.5th" if single else "99th"
        note = wrap_label(f"x axes stop at the {pct_s} percentile; " + "; ".join(tail_notes), 150)
    title = wrap_label(title, 110)
    extra = TITLE_IN * title.count("\n")
    fig = new_figure(11.0, 4.4 + extra + LINE_IN * (note.count("\n") + 1 if note else 0))
    ax_h, ax_c = axes_grid(fig, 2, left=0.8, right=0.2, top=0.75 + extra, wspace=1.05,
                       bottom=0.6 + (LINE_IN * (note.count("\n") + 1) + 0.05 if note else 0))
    for i, (s, h) in enumerate(zip(series, hists, strict=True)):
        if h.sum() == 0:
            continue
        color = palette[0] if single else palette[i % len(palette)]
        summ = stats.summarize_hist(h)
        edges, shares = _binned(h, width, top)
        if single:
            _bars(ax_h, edges, shares, width, color, "share of rounds")
        else:
            ax_h.step(np.append(edges, edges[-1] + width), np.append(shares, shares[-1]),
                      where="post", color=color, linewidth=1.6, label=s.label)
        last = min(h.size, top + width + 1)
        cdf = np.cumsum(h[:last]) / h.sum()
        xs = np.arange(last)
        ax_c.step(xs, cdf, where="post", color=color, linewidth=1.6)
        if single:
            for ax in (ax_h, ax_c):
                _mean_median(ax, summ.mean, summ.median)
        else:
            ax_c.plot([summ.mean], [float(np.interp(summ.mean, xs, cdf))], marker="o",
                      color=color, markersize=6, linestyle="none")
            ax_c.plot([summ.median], [0.5], marker="D", color=color, markersize=5,
                      markerfacecolor="white", linestyle="none")
    ax_h.set_xlim(0, top + width)
    p99 = [stats.quantile_hist(h, 0.99) for h in hists if h.sum()]
    if len(p99) > 1 and min(p99) > 0 and max(p99) / min(p99) > 2.5:
        # Very different spreads: a log axis keeps the short configs readable.
        ax_c.set_xscale("log")
        lo = max(1.0, min(float(np.flatnonzero(h)[0]) for h in hists if h.sum()) * 0.9)
        ax_c.set_xlim(lo, top + width)
        nice = [v for v in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
                if lo <= v <= top + width]
        ax_c.xaxis.set_major_locator(FixedLocator(nice))
        ax_c.xaxis.set_major_formatter(FormatStrFormatter("%d"))
        ax_c.xaxis.set_minor_formatter(NullFormatter())
        unit_c = unit + " (log scale)"
    else:
        ax_c.set_xlim(0, top + width)
        unit_c = unit
    ax_h.set_xlabel(unit + (f" (bins of {width})" if width > 1 else ""))
    ax_h.set_ylabel("share of rounds")
    _percent_axis(ax_h)
    chart_title(ax_h, "Distribution")
    ax_c.set_xlabel(unit_c)
    ax_c.set_ylabel(f"rounds with at most x {unit.split()[0]}")
    ax_c.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax_c.set_ylim(0, 1.02)
    ax_c.axhline(0.5, color=FAIR_COLOR, linewidth=0.8, linestyle=":")
    chart_title(ax_c, "Cumulative distribution" + ("" if single else " (o mean, ◇ median)"))
    for ax in (ax_h, ax_c):
        style_axes(ax)
    # one legend: the CDF panel uses the same colours and line styles
    ax_h.legend(fontsize=8.5, loc="upper right", frameon=False)
    _suptitle(fig, title)
    if note:
        _footnote(fig, note, x=0.99, ha="right")
    return fig


def _percent_axis(ax: Axes) -> None:
    """Y ticks at 1-2-5 steps, labelled as percentages with just enough decimals.

    Call once the y limits are final: the decimals are the fewest that print
    every tick exactly (0.0005%, 25.5%, 40%), so no two labels look alike.
    """
    ax.yaxis.set_major_locator(MaxNLocator(nbins=7, steps=[1, 2, 5, 10]))
    lo, hi = ax.get_ylim()
    d = percent_decimals(list(ax.yaxis.get_major_locator().tick_values(lo, hi)))
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=d))


def grouped_rates_chart(
    groups: Sequence[str],
    series: Sequence[tuple[str, Sequence[int] | np.ndarray, int]],
    fair: float | None,
    path: str | Path,
    title: str,
    xlabel: str,
    ylabel: str = "win rate",
    colors: Sequence[str] | None = None,
) -> Path:
    """Several configs' rates per group (e.g. seat position) side by side, with intervals.

    ``series`` holds ``(label, counts per group, trials)``; series j is drawn
    in ``colors[j]`` (by default ``COLORS[j]``, the colour config j has in
    every chart of a comparison) with a small horizontal offset so intervals
    do not overlap.
    """
    m = len(series)
    palette = list(colors) if colors else list(COLORS)
    labels = [wrap_label(s[0], 32) for s in series]
    legend_w = text_width(labels + [f"fair share {pct(fair or 0)}"], 8.5) + 0.6
    groups = [wrap_label(g, 16) for g in groups]
    width = min(12.5, max(7.0, 0.45 * m * len(groups) + 3.5)) + legend_w
    title = wrap_label(title, int(9 * (width - legend_w)))
    extra = TITLE_IN * title.count("\n")
    fig = new_figure(width, 4.6 + extra + LINE_IN * (label_lines(groups) - 1))
    (ax,) = axes_grid(fig, left=1.15, right=0.2 + legend_w, top=0.5 + extra,
                  bottom=0.5 + LINE_IN * label_lines(groups))
    spread = min(0.8, 0.14 * m)
    offsets = np.linspace(-spread / 2, spread / 2, m) if m > 1 else np.zeros(1)
    lows_all, highs_all = [], []
    for j, ((_, ks, n), label) in enumerate(zip(series, labels, strict=True)):
        rates, lo_err, hi_err = [], [], []
        for k in ks:
            r, lo, hi = stats.wilson_interval(int(k), int(n))
            rates.append(r)
            lo_err.append(r - lo)
            hi_err.append(hi - r)
            lows_all.append(lo)
            highs_all.append(hi)
        ax.errorbar(np.arange(len(ks)) + offsets[j], rates, yerr=[lo_err, hi_err], fmt="o",
                    color=palette[j % len(palette)], capsize=3, markersize=5, elinewidth=1.4,
                    label=label)
    if fair is not None:
        ax.axhline(fair, color=FAIR_COLOR, linestyle="--", linewidth=1.2,
                   label=f"fair share {pct(fair)}")
    ylo, yhi = _rate_limits(lows_all, highs_all, [fair] if fair is not None else [])
    ax.set_ylim(ylo, yhi)
    ax.set_xticks(np.arange(len(groups)), groups, fontsize=9)
    for x in np.arange(len(groups) - 1) + 0.5:
        ax.axvline(x, color="#dddddd", linewidth=0.8)
    _percent_axis(ax)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(_ylabel_rate(ylabel))
    chart_title(ax, title, fontsize=TITLE_SIZE, fontweight="bold")
    ax.legend(fontsize=8.5, frameon=False, loc="center left", bbox_to_anchor=(1.0, 0.5))
    style_axes(ax)
    ax.grid(False, axis="x")
    return save_chart(fig, path)


def stacked_bars_chart(
    labels: Sequence[str],
    parts: Sequence[tuple[str, Sequence[float]]],
    path: str | Path,
    title: str,
    xlabel: str,
) -> Path:
    """Horizontal stacked bars: one bar per config, one segment per part (e.g. draw cause).

    Parts are greys with hatches (:data:`PART_STYLES`), never a config's
    colour; all-zero parts are left out of the bars and the legend.
    """
    labels = [wrap_label(lab, 28) for lab in labels]
    shown = [(name, np.asarray(vals, dtype=float)) for name, vals in parts
             if np.asarray(vals, dtype=float).any()]
    names = [wrap_label(name, 34) for name, _ in shown]
    legend_w = text_width(names, 8.5) + 0.7
    label_w = min(3.2, text_width(labels) + 0.3)
    rows_h = sum(lab.count("\n") + 1 for lab in labels)
    title = wrap_label(title, 90)
    extra = TITLE_IN * title.count("\n")
    fig = new_figure(10.0 + legend_w,
                  max(3.2, 0.38 * rows_h + 1.8, 0.3 * len(names) + 1.4) + extra)
    (ax,) = axes_grid(fig, left=label_w, right=0.2 + legend_w, top=0.5 + extra, bottom=0.6)
    y = np.arange(len(labels))[::-1]
    left = np.zeros(len(labels))
    for j, ((_, v), name) in enumerate(zip(shown, names, strict=True)):
        color, hatch = PART_STYLES[j % len(PART_STYLES)]
        ax.barh(y, v, left=left, height=0.6, color=color, hatch=hatch, edgecolor="white",
                linewidth=0.6, label=name)
        left += v
    for yi, tot in zip(y, left, strict=True):
        ax.annotate(f"{tot:,.1f}", (tot, yi), xytext=(4, 0), textcoords="offset points",
                    va="center", fontsize=8.5)
    ax.set_yticks(y, labels, fontsize=9)
    ax.set_xlim(0, left.max(initial=0) * 1.12 + 1e-9)
    ax.set_xlabel(xlabel)
    chart_title(ax, title, fontsize=TITLE_SIZE, fontweight="bold")
    if shown:
        ax.legend(fontsize=8.5, frameon=False, loc="center left", bbox_to_anchor=(1.0, 0.5))
    style_axes(ax)
    ax.grid(False, axis="y")
    return save_chart(fig, path)


@dataclass(frozen=True)
class Line:
    """One line of a sweep chart: values with their 95% band along the x values."""

    label: str
    x: Sequence[float]
    y: Sequence[float]
    low: Sequence[float]
    high: Sequence[float]


def finish_axes(ax: Axes, xlabel: str, ylabel: str, percent: bool) -> None:
    """Axis labels (the y label wrapped) and the y scale: percent, or plain numbers."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(wrap_label(ylabel, 45))
    if percent:
        ax.relim()
        ax.autoscale_view()
        _percent_axis(ax)
    else:
        ax.yaxis.set_major_formatter(ScalarFormatter(useOffset=False))


def line_chart(
    lines: Sequence[Line],
    path: str | Path,
    title: str,
    xlabel: str,
    ylabel: str,
    percent: bool = False,
    reference: Line | None = None,
    legend_title: str | None = None,
    xticklabels: Sequence[str] | None = None,
    colors: Sequence[str] | None = None,
) -> Path:
    """A metric against a swept parameter, one line per other-parameter combination, 95% bands.

    ``reference`` (e.g. the fair share 1/N) is drawn dashed grey without a band;
    ``colors`` lets a chart keep the colours another chart gave the same lines
    (line j is ``COLORS[j]`` by default, the same in every chart of a sweep).
    An all-zero metric (e.g. no stalemates anywhere) makes an empty chart:
    callers should check :func:`all_zero` and write a sentence instead.
    """
    palette = list(colors) if colors else list(COLORS)
    legend = len(lines) > 1 or reference is not None
    labels = [wrap_label(ln.label, 30) for ln in lines]
    ref_label = wrap_label(reference.label, 30) if reference is not None else ""
    legend_w = (text_width([*labels, ref_label, legend_title or ""], 8.5) + 0.6
                if legend else 0.0)
    ticks = [wrap_label(t, 14) for t in xticklabels] if xticklabels is not None else None
    title = wrap_label(title, 85)
    extra = TITLE_IN * title.count("\n")
    fig = new_figure(9.5 + legend_w, 4.8 + extra + LINE_IN * (label_lines(ticks or [""]) - 1))
    (ax,) = axes_grid(fig, left=1.05, right=0.25 + legend_w, top=0.5 + extra,
                  bottom=0.5 + LINE_IN * label_lines(ticks or [""]))
    for j, (ln, label) in enumerate(zip(lines, labels, strict=True)):
        c = palette[j % len(palette)]
        x = np.asarray(ln.x, dtype=float)
        ax.plot(x, ln.y, marker="o", markersize=4, color=c, linewidth=1.6, label=label)
        lo, hi = np.asarray(ln.low, dtype=float), np.asarray(ln.high, dtype=float)
        if np.isfinite(lo).any():
            ax.fill_between(x, lo, hi, color=c, alpha=0.18 if len(lines) <= 3 else 0.1,
                            linewidth=0)
    if reference is not None:
        ax.plot(reference.x, reference.y, color=FAIR_COLOR, linestyle="--", linewidth=1.2,
                label=ref_label)
    finish_axes(ax, xlabel, ylabel + " (95% band)", percent)
    xs = sorted({float(v) for ln in lines for v in ln.x})
    if ticks is not None:
        ax.set_xticks(xs, ticks, fontsize=9)
    elif xs and all(float(v).is_integer() for v in xs) and len(xs) <= 20:
        ax.set_xticks(xs)
    else:
        ax.xaxis.set_major_locator(MaxNLocator(10))
    chart_title(ax, title, fontsize=TITLE_SIZE, fontweight="bold")
    if legend:
        ax.legend(fontsize=8.5, frameon=False, loc="center left", bbox_to_anchor=(1.0, 0.5),
                  title=legend_title, title_fontsize=8.5)
    style_axes(ax)
    return save_chart(fig, path)


_FOREST_LEGEND = "filled: the 95% interval excludes no change; hollow: it includes it"
Panel = tuple[str, Sequence[float], Sequence[float], Sequence[float]]


class ForestSpec(TypedDict):
    """A forest chart's content (`forest_figure`'s arguments but the colours)."""

    labels: Sequence[str]
    panels: Sequence[Panel]
    title: str
    filled: Sequence[Sequence[bool]] | None
    legend: str


def forest_chart(
    labels: Sequence[str],
    panels: Sequence[Panel],
    path: str | Path,
    title: str,
    colors: Sequence[str] | None = None,
    filled: Sequence[Sequence[bool]] | None = None,
    legend: str = _FOREST_LEGEND,
) -> Path:
    """`forest_figure` saved as a PNG at ``path``, its filled markers recorded in it."""
    fills = _fills(panels, filled)
    return save_chart(forest_figure(labels, panels, title, colors, fills, legend), path,
                 markers_text(fills))


def _fills(panels: Sequence[Panel], filled: Sequence[Sequence[bool]] | None
           ) -> list[list[bool]]:
    """Which markers are filled: as given, else those whose interval excludes zero."""
    if filled is not None:
        return [list(f) for f in filled]
    return [[bool(li > 0 or hj < 0) for li, hj in zip(p[2], p[3], strict=True)]
            for p in panels]


def forest_figure(
    labels: Sequence[str],
    panels: Sequence[Panel],
    title: str,
    colors: Sequence[str] | None = None,
    filled: Sequence[Sequence[bool]] | None = None,
    legend: str = _FOREST_LEGEND,
) -> Figure:
    """Effects against a baseline: one row per config, point and 95% interval, zero line.

    ``panels`` holds ``(x label, values, lows, highs)``; ``filled[k][j]`` says
    whether row ``j`` of panel ``k`` is drawn filled (default: its interval
    excludes zero), so the markers can follow the same decision as the page's
    words; ``legend`` says what filled means. Rows are the configs after the
    baseline, so row j is drawn in ``colors[j]`` (default ``COLORS[j + 1]``:
    the colour that config has in the page's other charts).
    """
    palette = list(colors) if colors else list(COLORS[1:]) + [COLORS[0]]
    labels = [wrap_label(lab, 28) for lab in labels]
    label_w = min(3.2, text_width(labels) + 0.3)
    rows_h = sum(lab.count("\n") + 1 for lab in labels)
    k = len(panels)
    title = wrap_label(title, int(9 * (5.0 * k + label_w)))
    extra = TITLE_IN * title.count("\n")
    fig = new_figure(5.0 * k + label_w, max(2.8, 0.3 * rows_h + 0.2 * len(labels) + 1.9) + extra)
    axes = axes_grid(fig, k, left=label_w, right=0.3, top=0.55 + extra, bottom=0.85, wspace=0.35,
                 sharey=True)
    y = np.arange(len(labels))[::-1]
    fills = _fills(panels, filled)
    for ax, (xlabel, vals, lows, highs), fill in zip(axes, panels, fills, strict=True):
        v, lo, hi = (np.asarray(a, dtype=float) for a in (vals, lows, highs))
        ax.axvline(0, color=FAIR_COLOR, linewidth=1.0, linestyle="--")
        for j, (yi, vi, li, hj) in enumerate(zip(y, v, lo, hi, strict=True)):
            c = palette[j % len(palette)]
            sig = fill[j]
            ax.errorbar([vi], [yi], xerr=[[vi - li], [hj - vi]], fmt="o", color=c, capsize=4,
                        markersize=7, elinewidth=1.8,
                        markerfacecolor=c if sig else "white")
            ax.annotate(f"{vi:+.1f}" if abs(vi) >= 0.1 or vi == 0 else f"{vi:+.2g}", (hj, yi),
                        xytext=(7, 0), textcoords="offset points", va="center", fontsize=8.5,
                        bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none",
                              "alpha": 0.8})
        span = np.nanmax(np.abs(np.concatenate([lo, hi, [1e-9]])))
        ax.set_xlim(min(-0.1 * span, np.nanmin(lo) - 0.1 * span),
                    max(0.1 * span, np.nanmax(hi) + 0.3 * span))
        ax.set_xlabel(wrap_label(xlabel, 60))
        style_axes(ax)
        ax.grid(False, axis="y")
    axes[0].set_yticks(y, labels, fontsize=9)
    for ax in axes[1:]:
        ax.tick_params(labelleft=False)
    axes[0].set_ylim(-0.7, len(labels) - 0.3)
    _suptitle(fig, title)
    _footnote(fig, legend)
    return fig
