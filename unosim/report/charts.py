"""PNG charts for run reports, comparisons and sweeps (matplotlib, headless).

Figures are built with ``matplotlib.figure.Figure`` and saved through the Agg
canvas, never through ``pyplot``: no global state, no display needed, and
charts drawn from worker threads or CI machines look the same. Every chart
takes plain numbers (histograms, counts, intervals) so that it can be tested
without running a simulation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
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
from unosim.report.format import ordinal
from unosim.run.files import atomic_write

__all__ = [
    "COLORS",
    "Line",
    "Series",
    "draws_chart",
    "forest_chart",
    "grouped_rates_chart",
    "hist_chart",
    "line_chart",
    "position_labels",
    "rate_chart",
    "stacked_bars_chart",
    "turns_chart",
]

DPI = 110
COLORS = (
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
    "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22",
)
FAIR_COLOR = "#555555"
MEAN_COLOR = "#d62728"
MEDIAN_COLOR = "#2ca02c"


def _figure(width: float = 10.0, height: float = 4.2) -> Figure:
    """A figure with the house style; constrained layout keeps labels inside."""
    fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _style(ax: Axes) -> None:
    ax.grid(True, alpha=0.3, linewidth=0.6)
    ax.spines[["top", "right"]].set_visible(False)


def _save(fig: Figure, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, lambda f: fig.savefig(f, format="png", dpi=DPI, facecolor="white"))
    return path


def _x_limit(hists: Sequence[np.ndarray], q: float = 0.995) -> int:
    """Upper x limit covering the bulk of every histogram (long tails are noted, not drawn)."""
    top = 1
    for h in hists:
        if h.sum():
            top = max(top, int(stats.quantile_hist(h, q)) + 1)
    return top


def _binned(h: np.ndarray, width: int, top: int) -> tuple[np.ndarray, np.ndarray]:
    """Left bin edges and the share of all rounds in each bin of ``width`` up to ``top``."""
    n = h.sum()
    h = np.pad(h, (0, max(0, top + width - h.size)))[: top + width]
    nb = -(-(top + 1) // width)
    shares = h[: nb * width].reshape(nb, width).sum(axis=1) / max(n, 1)
    return np.arange(nb) * width, shares


def _nice_width(top: int, bins: int = 70) -> int:
    """Integer bin width giving about ``bins`` bins (1, 2, 5, 10, ...)."""
    raw = max(1.0, top / bins)
    for w in (1, 2, 3, 4, 5, 10, 20, 25, 50, 100, 200, 500):
        if w >= raw:
            return w
    return int(raw)


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
) -> Path:
    """Histogram and CDF of a per-round count; mean and median marked.

    One series gives bars with its mean and median drawn as lines; several
    give overlaid step outlines so that the shapes can be compared. The x axis
    stops at the 99.5th percentile; the note under the chart says how far the
    tail goes, so the cut hides nothing.
    """
    hists = [np.asarray(s.hist, dtype=np.int64) for s in series]
    top = _x_limit(hists, 0.995 if len(series) == 1 else 0.99)
    width = _nice_width(top)
    fig = _figure(11.0, 4.4)
    ax_h, ax_c = fig.subplots(1, 2)
    single = len(series) == 1
    tail_notes = []
    for i, (s, h) in enumerate(zip(series, hists, strict=True)):
        if h.sum() == 0:
            continue
        color = COLORS[0] if single else COLORS[i % len(COLORS)]
        summ = stats.summarize_hist(h)
        edges, shares = _binned(h, width, top)
        if single:
            ax_h.bar(edges, shares, width=width, align="edge", color=color, alpha=0.75,
                     edgecolor="white", linewidth=0.3, label="share of rounds")
        else:
            ax_h.step(np.append(edges, edges[-1] + width), np.append(shares, shares[-1]),
                      where="post", color=color, linewidth=1.6, label=s.label)
        cdf = np.cumsum(h) / h.sum()
        xs = np.arange(h.size)
        ax_c.step(xs, cdf, where="post", color=color, linewidth=1.6,
                  label=s.label if not single else "cumulative share")
        mean_label = f"mean {summ.mean:,.1f}"
        med_label = f"median {summ.median:,.0f}"
        if single:
            for ax in (ax_h, ax_c):
                ax.axvline(summ.mean, color=MEAN_COLOR, linewidth=1.6, label=mean_label)
                ax.axvline(summ.median, color=MEDIAN_COLOR, linewidth=1.6, linestyle="--",
                           label=med_label)
        else:
            ax_c.plot([summ.mean], [float(np.interp(summ.mean, xs, cdf))], marker="o",
                      color=color, markersize=6, linestyle="none")
            ax_c.plot([summ.median], [0.5], marker="D", color=color, markersize=5,
                      markerfacecolor="white", linestyle="none")
        if summ.max > top:
            tail_notes.append(f"{s.label}: longest {summ.max:,.0f}" if not single
                              else f"longest round {summ.max:,.0f} {unit.split()[0]}")
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
    ax_h.set_title("Distribution")
    ax_c.set_xlabel(unit_c)
    ax_c.set_ylabel(f"share of rounds with at most x {unit.split()[0]}")
    ax_c.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax_c.set_ylim(0, 1.02)
    ax_c.axhline(0.5, color=FAIR_COLOR, linewidth=0.8, linestyle=":")
    ax_c.set_title("Cumulative distribution" + ("" if single else " (o mean, ◇ median)"))
    for ax in (ax_h, ax_c):
        _style(ax)
        ax.legend(fontsize=8.5, loc="upper right" if ax is ax_h else "lower right",
                  frameon=False)
    fig.suptitle(title, fontsize=12, fontweight="bold")
    if tail_notes:
        pct = "99.5th" if single else "99th"
        fig.supxlabel(f"x axes stop at the {pct} percentile; " + "; ".join(tail_notes),
                      fontsize=8, color=FAIR_COLOR, x=0.99, ha="right")
    return _save(fig, path)


def hist_chart(
    panels: Sequence[tuple[str, np.ndarray, str]],
    path: str | Path,
    title: str,
) -> Path:
    """Side-by-side histograms, one per ``(panel title, hist, x label)``, mean and median marked."""
    panels = [p for p in panels if np.asarray(p[1]).sum() > 0]
    fig = _figure(5.5 * max(1, len(panels)), 4.2)
    axes = fig.subplots(1, max(1, len(panels)), squeeze=False)[0]
    for ax, (ptitle, hist, xlabel) in zip(axes, panels, strict=False):
        h = np.asarray(hist, dtype=np.int64)
        lo = int(np.flatnonzero(h)[0])
        top = _x_limit([h])
        width = _nice_width(top - lo + 1, bins=50)
        start = lo - lo % width
        edges, shares = _binned(h, width, top)
        keep = edges >= start
        ax.bar(edges[keep], shares[keep], width=width, align="edge", color=COLORS[0],
               alpha=0.75, edgecolor="white", linewidth=0.3)
        summ = stats.summarize_hist(h)
        ax.axvline(summ.mean, color=MEAN_COLOR, linewidth=1.6, label=f"mean {summ.mean:,.1f}")
        ax.axvline(summ.median, color=MEDIAN_COLOR, linewidth=1.6, linestyle="--",
                   label=f"median {summ.median:,.0f}")
        ax.set_xlim(start, top + width)
        ax.set_title(ptitle)
        ax.set_xlabel(xlabel + (f" (bins of {width})" if width > 1 else ""))
        ax.set_ylabel("share")
        _percent_axis(ax)
        ax.legend(fontsize=8.5, frameon=False)
        _style(ax)
        if summ.max > top:
            ax.set_xlabel(ax.get_xlabel() + f"\naxis stops at the 99.5th percentile; "
                          f"max {summ.max:,.0f}")
    fig.suptitle(title, fontsize=12, fontweight="bold")
    return _save(fig, path)


def position_labels(n: int) -> list[str]:
    """Seat-position tick labels: 1st plays first (dealer's left), the dealer is last."""
    out = [ordinal(i + 1) for i in range(n)]
    out[0] += "\n(dealer's left)"
    out[-1] += "\n(dealer)"
    return out


def _percent_axis(ax: Axes) -> None:
    """Y ticks at 1-2-5 steps, labelled as percentages with just enough decimals.

    Call once the y limits are final: the decimals are the fewest that print
    every tick exactly (0.0005%, 25.5%, 40%), so no two labels look alike.
    """
    ax.yaxis.set_major_locator(MaxNLocator(nbins=7, steps=[1, 2, 5, 10]))
    lo, hi = ax.get_ylim()
    ticks = [t * 100 for t in ax.yaxis.get_major_locator().tick_values(lo, hi)]
    d = next((d for d in range(7)
              if all(abs(round(t, d) - t) < 1e-9 * max(1.0, abs(t)) for t in ticks)), 6)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=d))


def _rate_limits(lows: Sequence[float], highs: Sequence[float], fair: Sequence[float]
                 ) -> tuple[float, float]:
    vals = [v for v in (*lows, *highs, *fair) if math.isfinite(v)]
    if not vals:
        return 0.0, 1.0
    lo, hi = min(vals), max(vals)
    pad = max((hi - lo) * 0.25, 0.005)
    return max(0.0, lo - pad), min(1.0, hi + pad)


def rate_chart(
    labels: Sequence[str],
    ks: Sequence[int] | np.ndarray,
    n: int | Sequence[int],
    fair: float | Sequence[float] | None,
    path: str | Path,
    title: str,
    xlabel: str,
    ylabel: str = "win rate",
    colors: Sequence[str] | None = None,
    legend: Sequence[tuple[str, str]] = (),
) -> Path:
    """Rates k/n as points with 95% Wilson intervals against a dashed fair line.

    Points rather than bars: the differences of interest are fractions of a
    percentage point, and bars from zero would hide them. The y axis is
    zoomed and says so.
    """
    ns = [n] * len(ks) if isinstance(n, (int, np.integer)) else list(n)
    fairs = [fair] * len(ks) if isinstance(fair, (int, float)) or fair is None else list(fair)
    rates, lows, highs = [], [], []
    for k, m in zip(ks, ns, strict=True):
        r, lo, hi = stats.wilson_interval(int(k), int(m))
        rates.append(r)
        lows.append(lo)
        highs.append(hi)
    x = np.arange(len(ks))
    fig = _figure(max(6.0, 1.1 * len(ks) + 3.0), 4.4)
    ax = fig.subplots()
    cols = list(colors) if colors else [COLORS[0]] * len(ks)
    for xi, r, lo, hi, c in zip(x, rates, lows, highs, cols, strict=True):
        ax.errorbar([xi], [r], yerr=[[r - lo], [hi - r]], fmt="o", color=c, capsize=6,
                    markersize=7, elinewidth=1.8)
        ax.annotate(f"{100 * r:.1f}%", (xi, hi), xytext=(0, 5), textcoords="offset points",
                    ha="center", fontsize=8.5)
    if fair is not None:
        fvals = [f for f in fairs if f is not None]
        if len(set(fvals)) == 1:
            ax.axhline(fvals[0], color=FAIR_COLOR, linestyle="--", linewidth=1.2,
                       label=f"fair share {100 * fvals[0]:.1f}%")
        else:
            ax.scatter(x, fvals, marker="_", s=600, color=FAIR_COLOR, label="fair share")
    for lab, c in legend:  # proxies: one legend entry per colour (e.g. per policy)
        ax.plot([], [], "o", color=c, label=lab)
    ax.set_xticks(x, labels, fontsize=9)
    ylo, yhi = _rate_limits(lows, highs, [f for f in fairs if f is not None])
    ax.set_ylim(ylo, yhi + (yhi - ylo) * 0.08)
    _percent_axis(ax)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"{ylabel} (95% Wilson interval)\naxis zoomed, does not start at 0")
    ax.set_title(title, fontsize=12, fontweight="bold")
    ax.legend(fontsize=8.5, frameon=False, loc="best")
    _style(ax)
    return _save(fig, path)


def grouped_rates_chart(
    groups: Sequence[str],
    series: Sequence[tuple[str, Sequence[int] | np.ndarray, int]],
    fair: float | None,
    path: str | Path,
    title: str,
    xlabel: str,
    ylabel: str = "win rate",
) -> Path:
    """Several configs' rates per group (e.g. seat position) side by side, with intervals.

    ``series`` holds ``(label, counts per group, trials)``; each config gets
    one colour and a small horizontal offset so intervals do not overlap.
    """
    m = len(series)
    fig = _figure(min(12.5, max(7.0, 0.45 * m * len(groups) + 3.5)), 4.6)
    ax = fig.subplots()
    spread = min(0.8, 0.14 * m)
    offsets = np.linspace(-spread / 2, spread / 2, m) if m > 1 else np.zeros(1)
    lows_all, highs_all = [], []
    for j, (label, ks, n) in enumerate(series):
        rates, lo_err, hi_err = [], [], []
        for k in ks:
            r, lo, hi = stats.wilson_interval(int(k), int(n))
            rates.append(r)
            lo_err.append(r - lo)
            hi_err.append(hi - r)
            lows_all.append(lo)
            highs_all.append(hi)
        ax.errorbar(np.arange(len(ks)) + offsets[j], rates, yerr=[lo_err, hi_err], fmt="o",
                    color=COLORS[j % len(COLORS)], capsize=3, markersize=5, elinewidth=1.4,
                    label=label)
    if fair is not None:
        ax.axhline(fair, color=FAIR_COLOR, linestyle="--", linewidth=1.2,
                   label=f"fair share {100 * fair:.1f}%")
    ylo, yhi = _rate_limits(lows_all, highs_all, [fair] if fair is not None else [])
    ax.set_ylim(ylo, yhi)
    ax.set_xticks(np.arange(len(groups)), groups, fontsize=9)
    for x in np.arange(len(groups) - 1) + 0.5:
        ax.axvline(x, color="#dddddd", linewidth=0.8)
    _percent_axis(ax)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"{ylabel} (95% Wilson interval)\naxis zoomed, does not start at 0")
    ax.set_title(title, fontsize=12, fontweight="bold")
    ax.legend(fontsize=8.5, frameon=False, loc="center left", bbox_to_anchor=(1.0, 0.5))
    _style(ax)
    ax.grid(False, axis="x")
    return _save(fig, path)


def draws_chart(
    causes: Sequence[str],
    means: Sequence[float],
    lows: Sequence[float],
    highs: Sequence[float],
    drawn_hist: np.ndarray,
    note: str,
    path: str | Path,
    title: str,
) -> Path:
    """Cards drawn per round by cause (bars, intervals when known) and their total's histogram."""
    fig = _figure(11.0, 4.4)
    ax_b, ax_h = fig.subplots(1, 2, width_ratios=[1.1, 1.0])
    y = np.arange(len(causes))[::-1]
    means_a = np.asarray(means, dtype=float)
    ax_b.barh(y, means_a, color=COLORS[0], alpha=0.8, height=0.6)
    lo_a, hi_a = np.asarray(lows, dtype=float), np.asarray(highs, dtype=float)
    ok = np.isfinite(lo_a) & np.isfinite(hi_a)
    if ok.any():
        ax_b.errorbar(means_a[ok], y[ok], xerr=[means_a[ok] - lo_a[ok], hi_a[ok] - means_a[ok]],
                      fmt="none", ecolor="black", capsize=4, elinewidth=1.2)
    for yi, m in zip(y, means_a, strict=True):
        ax_b.annotate(f"{m:,.2f}", (m, yi), xytext=(4, 0), textcoords="offset points",
                      va="center", fontsize=8.5)
    ax_b.set_yticks(y, causes, fontsize=9)
    ax_b.set_xlabel("cards drawn per round (mean" + (", 95% CI)" if ok.any() else ")"))
    ax_b.set_xlim(0, max(means_a.max(initial=0) * 1.22, 0.1))
    ax_b.set_title("Why cards are drawn")
    _style(ax_b)
    ax_b.grid(False, axis="y")
    h = np.asarray(drawn_hist, dtype=np.int64)
    if h.sum():
        top = _x_limit([h])
        width = _nice_width(top, bins=50)
        edges, shares = _binned(h, width, top)
        ax_h.bar(edges, shares, width=width, align="edge", color=COLORS[2], alpha=0.75,
                 edgecolor="white", linewidth=0.3)
        summ = stats.summarize_hist(h)
        ax_h.axvline(summ.mean, color=MEAN_COLOR, linewidth=1.6, label=f"mean {summ.mean:,.1f}")
        ax_h.axvline(summ.median, color=MEDIAN_COLOR, linewidth=1.6, linestyle="--",
                     label=f"median {summ.median:,.0f}")
        ax_h.set_xlim(0, top + width)
        ax_h.legend(fontsize=8.5, frameon=False)
        ax_h.set_xlabel("cards drawn in the round, all causes" +
                        (f" (bins of {width})" if width > 1 else ""))
    ax_h.set_ylabel("share of rounds")
    _percent_axis(ax_h)
    ax_h.set_title("Total cards drawn per round")
    _style(ax_h)
    fig.suptitle(title, fontsize=12, fontweight="bold")
    if note:
        fig.supxlabel(note, fontsize=8.5, color=FAIR_COLOR)
    return _save(fig, path)


def stacked_bars_chart(
    labels: Sequence[str],
    parts: Sequence[tuple[str, Sequence[float]]],
    path: str | Path,
    title: str,
    xlabel: str,
) -> Path:
    """Horizontal stacked bars: one bar per config, one segment per part (e.g. draw cause)."""
    fig = _figure(10.0, max(3.2, 0.55 * len(labels) + 1.8))
    ax = fig.subplots()
    y = np.arange(len(labels))[::-1]
    left = np.zeros(len(labels))
    for j, (name, vals) in enumerate(parts):
        v = np.asarray(vals, dtype=float)
        if not v.any():
            continue
        ax.barh(y, v, left=left, height=0.6, color=COLORS[j % len(COLORS)], label=name)
        left += v
    for yi, tot in zip(y, left, strict=True):
        ax.annotate(f"{tot:,.1f}", (tot, yi), xytext=(4, 0), textcoords="offset points",
                    va="center", fontsize=8.5)
    ax.set_yticks(y, labels, fontsize=9)
    ax.set_xlim(0, left.max(initial=0) * 1.12 + 1e-9)
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=12, fontweight="bold")
    ax.legend(fontsize=8.5, frameon=False, loc="center left", bbox_to_anchor=(1.0, 0.5))
    _style(ax)
    ax.grid(False, axis="y")
    return _save(fig, path)


@dataclass(frozen=True)
class Line:
    """One line of a sweep chart: values with their 95% band along the x values."""

    label: str
    x: Sequence[float]
    y: Sequence[float]
    low: Sequence[float]
    high: Sequence[float]


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
    ``colors`` lets a chart keep the colours another chart gave the same lines.
    """
    fig = _figure(9.5, 4.8)
    ax = fig.subplots()
    palette = list(colors) if colors else list(COLORS)
    for j, ln in enumerate(lines):
        c = palette[j % len(palette)]
        x = np.asarray(ln.x, dtype=float)
        ax.plot(x, ln.y, marker="o", markersize=4, color=c, linewidth=1.6, label=ln.label)
        lo, hi = np.asarray(ln.low, dtype=float), np.asarray(ln.high, dtype=float)
        if np.isfinite(lo).any():
            ax.fill_between(x, lo, hi, color=c, alpha=0.18 if len(lines) <= 3 else 0.1,
                            linewidth=0)
    if reference is not None:
        ax.plot(reference.x, reference.y, color=FAIR_COLOR, linestyle="--", linewidth=1.2,
                label=reference.label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel + " (95% band)")
    if percent:
        ax.relim()
        ax.autoscale_view()
        _percent_axis(ax)
    else:
        ax.yaxis.set_major_formatter(ScalarFormatter(useOffset=False))
    xs = sorted({float(v) for ln in lines for v in ln.x})
    if xticklabels is not None:
        ax.set_xticks(xs, xticklabels, fontsize=9)
    elif xs and all(float(v).is_integer() for v in xs) and len(xs) <= 20:
        ax.set_xticks(xs)
    else:
        ax.xaxis.set_major_locator(MaxNLocator(10))
    ax.set_title(title, fontsize=12, fontweight="bold")
    if len(lines) > 1 or reference is not None:
        ax.legend(fontsize=8.5, frameon=False, loc="center left", bbox_to_anchor=(1.0, 0.5),
                  title=legend_title, title_fontsize=8.5)
    _style(ax)
    return _save(fig, path)


def forest_chart(
    labels: Sequence[str],
    panels: Sequence[tuple[str, Sequence[float], Sequence[float], Sequence[float]]],
    path: str | Path,
    title: str,
) -> Path:
    """Effects against a baseline: one row per config, point and 95% interval, zero line.

    ``panels`` holds ``(x label, values, lows, highs)``; a row whose interval
    crosses zero is drawn hollow so "no significant difference" reads at a glance.
    """
    fig = _figure(5.2 * len(panels) + 1.5, max(2.6, 0.5 * len(labels) + 1.6))
    axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    y = np.arange(len(labels))[::-1]
    for ax, (xlabel, vals, lows, highs) in zip(axes, panels, strict=True):
        v, lo, hi = (np.asarray(a, dtype=float) for a in (vals, lows, highs))
        ax.axvline(0, color=FAIR_COLOR, linewidth=1.0, linestyle="--")
        for j, (yi, vi, li, hj) in enumerate(zip(y, v, lo, hi, strict=True)):
            c = COLORS[(j + 1) % len(COLORS)]
            sig = li > 0 or hj < 0
            ax.errorbar([vi], [yi], xerr=[[vi - li], [hj - vi]], fmt="o", color=c, capsize=4,
                        markersize=7, elinewidth=1.8,
                        markerfacecolor=c if sig else "white")
            ax.annotate(f"{vi:+.1f}", (hj, yi), xytext=(7, 0), textcoords="offset points",
                        va="center", fontsize=8.5,
                        bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none",
                              "alpha": 0.8})
        span = np.nanmax(np.abs(np.concatenate([lo, hi, [1e-9]])))
        ax.set_xlim(min(-0.1 * span, np.nanmin(lo) - 0.1 * span),
                    max(0.1 * span, np.nanmax(hi) + 0.25 * span))
        ax.set_xlabel(xlabel)
        _style(ax)
        ax.grid(False, axis="y")
    axes[0].set_yticks(y, labels, fontsize=9)
    axes[0].set_ylim(-0.7, len(labels) - 0.3)
    fig.suptitle(title, fontsize=12, fontweight="bold")
    fig.supxlabel("filled: significant at 5%; hollow: interval includes no change",
                  fontsize=8, color=FAIR_COLOR)
    return _save(fig, path)
