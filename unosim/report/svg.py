"""The run report's charts as SVG, written without a plotting library.

Why not matplotlib here: importing it and drawing four charts cost about 0.7 s
of CPU, more than a cached ``unosim run --games 1000`` spends on everything
else. This module writes the same charts (histograms with mean and median,
cumulative distributions, rates with Wilson intervals against a fair share,
bars by cause) as plain SVG text: a few milliseconds, no import beyond numpy,
and the same bytes on every machine (every coordinate is printed with two
decimals from integer counts; no font rasteriser is involved).

Text is laid out from an estimated width (`text_box`), never measured: the
margins leave room for the widest label, and `Svg.outside` lists any text
whose estimated box leaves the picture, so a test can hold every chart to it.
The palette, bins and ranges are the study charts' (`unosim.report.chartkit`).
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from unosim.analysis import stats
from unosim.report.chartkit import (
    COLORS,
    FAIR_COLOR,
    MEAN_COLOR,
    MEDIAN_COLOR,
    binned,
    nice_width,
    percent_decimals,
    rate_limits,
    wrap_label,
    x_limit,
    ylabel_rate,
)
from unosim.report.format import pct
from unosim.run.files import write_text

__all__ = ["Svg", "draws_chart", "hist_chart", "nice_ticks", "rate_chart", "text_box",
           "turns_chart"]

FONT = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"
EM = 0.6  # estimated advance of one character, in font sizes (DejaVu Sans averages 0.55)
LINE = 1.25  # line height, in font sizes
TEXT, TICK, LABEL, PANEL_TITLE, TITLE = "#222222", 11.0, 12.0, 13.0, 16.0
GRID, SPINE, WHITE = "#e3e3e3", "#444444", "#ffffff"
DASH = "6 4"
DOT = "1.5 3"


def _n(v: float) -> str:
    """A coordinate with at most two decimals: the same text on every machine.

    >>> _n(3.14159), _n(2.0), _n(-0.001)
    ('3.14', '2', '0')
    """
    s = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def text_box(text: str, size: float) -> tuple[float, float]:
    """Estimated (width, height) of a possibly multi-line text at ``size`` pixels."""
    lines = text.split("\n")
    return (max(len(line) for line in lines) * EM * size,
            size + (len(lines) - 1) * LINE * size)


@dataclass
class Svg:
    """An SVG picture built element by element; text extents are kept for `outside`."""

    width: float
    height: float
    parts: list[str] = field(default_factory=list)
    boxes: list[tuple[str, float, float, float, float]] = field(default_factory=list)
    clips: int = 0

    def line(self, x1: float, y1: float, x2: float, y2: float, color: str,
             width: float = 1.0, dash: str | None = None) -> None:
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self.parts.append(f'<line x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}" '
                          f'stroke="{color}" stroke-width="{_n(width)}"{d}/>')

    def polyline(self, pts: Sequence[tuple[float, float]], color: str, width: float = 1.6,
                 dash: str | None = None) -> None:
        d = f' stroke-dasharray="{dash}"' if dash else ""
        xy = " ".join(f"{_n(x)},{_n(y)}" for x, y in pts)
        self.parts.append(f'<polyline points="{xy}" fill="none" stroke="{color}" '
                          f'stroke-width="{_n(width)}"{d}/>')

    def rect(self, x: float, y: float, w: float, h: float, fill: str,
             stroke: str | None = None, opacity: float | None = None) -> None:
        s = f' stroke="{stroke}" stroke-width="0.5"' if stroke else ""
        o = f' fill-opacity="{_n(opacity)}"' if opacity is not None else ""
        self.parts.append(f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" '
                          f'fill="{fill}"{o}{s}/>')

    def circle(self, x: float, y: float, r: float, fill: str) -> None:
        self.parts.append(f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{_n(r)}" fill="{fill}"/>')

    def clip(self, x: float, y: float, w: float, h: float) -> str:
        """Open a group clipped to a box (close it with `end`); its id."""
        self.clips += 1
        cid = f"c{self.clips}"
        self.parts.append(f'<clipPath id="{cid}"><rect x="{_n(x)}" y="{_n(y)}" '
                          f'width="{_n(w)}" height="{_n(h)}"/></clipPath>'
                          f'<g clip-path="url(#{cid})">')
        return cid

    def end(self) -> None:
        self.parts.append("</g>")

    def text(self, x: float, y: float, text: str, size: float = LABEL, anchor: str = "start",
             valign: str = "top", bold: bool = False, color: str = TEXT,
             rotate: bool = False) -> None:
        """Text whose box's ``valign`` edge ("top", "middle", "bottom") is at ``y`` (at
        ``x`` for ``rotate``, which turns it a quarter left, lines stacking rightwards)."""
        w, h = text_box(text, size)
        shift = {"top": 0.0, "middle": h / 2, "bottom": h}[valign]
        lines = text.split("\n")
        attrs = (f'font-size="{_n(size)}"' + (' font-weight="bold"' if bold else "")
                 + (f' fill="{color}"' if color != TEXT else "")
                 + {"start": "", "middle": ' text-anchor="middle"',
                    "end": ' text-anchor="end"'}[anchor])
        if rotate:
            base = x - shift + 0.8 * size
            px, py = base, y
            attrs += f' transform="rotate(-90 {_n(px)} {_n(py)})"'
            cx = {"start": y, "middle": y + w / 2, "end": y + w}[anchor]
            self.boxes.append((text, x - shift, cx - w, x - shift + h, cx))
        else:
            px, py = x, y - shift + 0.8 * size
            left = {"start": x, "middle": x - w / 2, "end": x - w}[anchor]
            self.boxes.append((text, left, y - shift, left + w, y - shift + h))
        spans = "".join(
            html.escape(ln) if i == 0 else
            f'<tspan x="{_n(px)}" dy="{_n(LINE * size)}">{html.escape(ln)}</tspan>'
            for i, ln in enumerate(lines))
        self.parts.append(f'<text x="{_n(px)}" y="{_n(py)}" {attrs}>{spans}</text>')

    def outside(self, tol: float = 1.0) -> list[str]:
        """Texts whose estimated box leaves the picture (none, in a chart laid out right)."""
        return [t for t, x0, y0, x1, y1 in self.boxes
                if x0 < -tol or y0 < -tol or x1 > self.width + tol or y1 > self.height + tol]

    def document(self) -> str:
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(self.width)}" '
                f'height="{_n(self.height)}" viewBox="0 0 {_n(self.width)} '
                f'{_n(self.height)}" font-family="{FONT}" fill="{TEXT}">\n'
                f'<rect width="100%" height="100%" fill="{WHITE}"/>\n'
                + "\n".join(self.parts) + "\n</svg>\n")

    def save(self, path: str | Path) -> Path:
        """Write the picture (atomically: a full disk leaves the old file whole)."""
        out = Path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        write_text(out, self.document())
        return out


def nice_ticks(lo: float, hi: float, nbins: int = 7) -> list[float]:
    """Ticks at a 1-2-5 step within [lo, hi], at most ``nbins`` intervals.

    >>> nice_ticks(0, 1.02, 6), nice_ticks(0, 87)
    ([0.0, 0.2, 0.4, 0.6, 0.8, 1.0], [0.0, 20.0, 40.0, 60.0, 80.0])
    """
    if not hi > lo:
        return [float(lo)]
    raw = (hi - lo) / nbins
    mag = 10.0 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw * (1 - 1e-9))
    first, last = math.ceil(lo / step - 1e-9), math.floor(hi / step + 1e-9)
    return [round(k * step, 12) + 0.0 for k in range(first, last + 1)]


def _percent_labels(ticks: Sequence[float]) -> list[str]:
    d = percent_decimals(ticks)
    return [f"{100 * t:.{d}f}%" for t in ticks]


def _number_labels(ticks: Sequence[float]) -> list[str]:
    return [f"{t:,.0f}" if float(t).is_integer() else f"{t:,g}" for t in ticks]


Entry = tuple[str, str, str]  # (kind: bar / line / dash / dot / marker, colour, label)


@dataclass
class Panel:
    """One plot area: data limits mapped onto a box of the picture."""

    svg: Svg
    x0: float
    y0: float
    w: float
    h: float
    xlim: tuple[float, float] = (0.0, 1.0)
    ylim: tuple[float, float] = (0.0, 1.0)

    def X(self, v: float) -> float:
        """The picture's x of data value ``v``."""
        lo, hi = self.xlim
        return self.x0 + (v - lo) / ((hi - lo) or 1.0) * self.w

    def Y(self, v: float) -> float:
        """The picture's y of data value ``v`` (downwards, as SVG counts)."""
        lo, hi = self.ylim
        return self.y0 + self.h - (v - lo) / ((hi - lo) or 1.0) * self.h

    def grid(self, xticks: Sequence[float] = (), yticks: Sequence[float] = ()) -> None:
        s = self.svg
        for t in xticks:
            s.line(self.X(t), self.y0, self.X(t), self.y0 + self.h, GRID, 0.8)
        for t in yticks:
            s.line(self.x0, self.Y(t), self.x0 + self.w, self.Y(t), GRID, 0.8)

    def axes(self, xticks: Sequence[float], xlabels: Sequence[str], yticks: Sequence[float],
             ylabels: Sequence[str], xlabel: str, ylabel: str, title: str,
             legend: Sequence[Entry] = ()) -> None:
        """Spines, ticks and their labels, axis labels, the title and a legend row
        between the title and the plot (drawn over the data: call it last)."""
        s, bottom = self.svg, self.y0 + self.h
        s.line(self.x0, self.y0, self.x0, bottom, SPINE, 1.0)
        s.line(self.x0, bottom, self.x0 + self.w, bottom, SPINE, 1.0)
        for t, lab in zip(xticks, xlabels, strict=True):
            s.line(self.X(t), bottom, self.X(t), bottom + 4, SPINE, 1.0)
            s.text(self.X(t), bottom + 6, lab, TICK, anchor="middle")
        for t, lab in zip(yticks, ylabels, strict=True):
            s.line(self.x0 - 4, self.Y(t), self.x0, self.Y(t), SPINE, 1.0)
            s.text(self.x0 - 6, self.Y(t), lab, TICK, anchor="end", valign="middle")
        xl_top = bottom + 10 + max((text_box(lab, TICK)[1] for lab in xlabels), default=0)
        if xlabel:
            s.text(self.x0 + self.w / 2, xl_top, xlabel, LABEL, anchor="middle")
        widest = max((text_box(lab, TICK)[0] for lab in ylabels), default=0)
        if ylabel:
            s.text(self.x0 - 12 - widest - text_box(ylabel, LABEL)[1], self.y0 + self.h / 2,
                   ylabel, LABEL, anchor="middle", rotate=True)
        rows = legend_rows(legend, self.w)
        if title:
            s.text(self.x0 + self.w / 2, self.y0 - 8 - LEGEND_ROW * len(rows), title,
                   PANEL_TITLE, anchor="middle", valign="bottom", bold=True)
        draw_legend(s, rows, self.x0 + self.w, self.y0 - 6 - LEGEND_ROW * len(rows))

    def bars(self, edges: np.ndarray, heights: np.ndarray, width: float, color: str) -> None:
        """Histogram bars from 0 (white edges, as the study charts draw them)."""
        for e, v in zip(edges.tolist(), heights.tolist(), strict=True):
            if v > 0:
                top = self.Y(v)
                self.svg.rect(self.X(e), top, self.X(e + width) - self.X(e),
                              self.Y(0) - top, color, WHITE, 0.8)

    def vline(self, x: float, color: str, width: float = 1.5, dash: str | None = None) -> None:
        self.svg.line(self.X(x), self.y0, self.X(x), self.y0 + self.h, color, width, dash)

    def hline(self, y: float, color: str, width: float = 1.2, dash: str | None = None) -> None:
        self.svg.line(self.x0, self.Y(y), self.x0 + self.w, self.Y(y), color, width, dash)


LEGEND_ROW = 17.0
LEGEND_SIZE = 11.0
SWATCH = 22.0


def _entry_width(e: Entry) -> float:
    return SWATCH + 6 + text_box(e[2], LEGEND_SIZE)[0] + 14


def legend_rows(entries: Sequence[Entry], width: float) -> list[list[Entry]]:
    """Legend entries in rows no wider than ``width``."""
    rows: list[list[Entry]] = []
    for e in entries:
        if rows and sum(map(_entry_width, rows[-1])) + _entry_width(e) <= width:
            rows[-1].append(e)
        else:
            rows.append([e])
    return rows


def draw_legend(s: Svg, rows: Sequence[Sequence[Entry]], right: float, top: float) -> None:
    """Rows of swatches and labels, each row ending at ``right``."""
    for i, row in enumerate(rows):
        x = right - sum(map(_entry_width, row)) + 14
        y = top + i * LEGEND_ROW + LEGEND_ROW / 2
        for kind, color, label in row:
            if kind == "bar":
                s.rect(x + 4, y - 5, SWATCH - 8, 10, color, opacity=0.8)
            elif kind == "marker":
                s.circle(x + SWATCH / 2, y, 4.5, color)
            else:
                s.line(x, y, x + SWATCH, y, color, 1.6,
                       {"line": None, "dash": DASH, "dot": DOT}[kind])
            s.text(x + SWATCH + 6, y, label, LEGEND_SIZE, valign="middle")
            x += _entry_width((kind, color, label))


def _mean_median(p: Panel, mean: float, median: float) -> list[Entry]:
    p.vline(mean, MEAN_COLOR)
    p.vline(median, MEDIAN_COLOR, dash=DASH)
    return [("line", MEAN_COLOR, f"mean {mean:,.1f}"), ("dash", MEDIAN_COLOR,
                                                         f"median {median:,.0f}")]


def _layout(width: float, title: str, panels: int, *, left: float, right: float = 24,
            gap: float = 90, plot_h: float = 260, top_extra: float = 0, bottom: float = 70,
            note: str = "", ratios: Sequence[float] | None = None
            ) -> tuple[Svg, list[tuple[float, float, float, float]]]:
    """The picture and its panels' boxes: the title on top, then each panel's title and
    legend (``top_extra``), the plots, their labels (``bottom``), a footnote."""
    title_h = text_box(title, TITLE)[1] + 14
    note_h = text_box(note, 10)[1] + 8 if note else 0
    top = title_h + 30 + top_extra
    s = Svg(width, top + plot_h + bottom + note_h)
    s.text(width / 2, 8, title, TITLE, anchor="middle", bold=True)
    if note:
        s.text(width / 2, s.height - 6, note, 10, anchor="middle", valign="bottom",
               color=FAIR_COLOR)
    ratios = list(ratios or [1.0] * panels)
    inner = width - left - right - gap * (panels - 1)
    boxes, x = [], left
    for r in ratios:
        w = inner * r / sum(ratios)
        boxes.append((x, top, w, plot_h))
        x += w + gap
    return s, boxes


def _hist_panel(s: Svg, box: tuple[float, float, float, float], h: np.ndarray, title: str,
                xlabel: str, ylabel: str, *, top: int, width: int, start: int = 0,
                label: str | None = None) -> None:
    """Bars of a histogram's shares from ``start`` to ``top``, mean and median marked."""
    edges, shares = binned(h, width, top)
    keep = edges >= start
    p = Panel(s, *box, xlim=(start, top + width),
              ylim=(0.0, max(float(shares.max(initial=0)), 1e-9) * 1.05))
    yt = nice_ticks(*p.ylim)
    xt = [t for t in nice_ticks(*p.xlim, nbins=8) if t >= start]
    p.grid(xt, yt)
    p.bars(edges[keep], shares[keep], width, COLORS[0])
    summ = stats.summarize_hist(h)
    legend = ([("bar", COLORS[0], label)] if label else []) + _mean_median(
        p, summ.mean, summ.median)
    p.axes(xt, _number_labels(xt), yt, _percent_labels(yt), xlabel, ylabel, title, legend)


def turns_chart(hist: np.ndarray, path: str | Path, title: str,
                unit: str = "turns per round") -> Path:
    """Histogram and cumulative distribution of a per-round count; mean and median
    marked. The x axes stop at the 99.5th percentile; the note under the chart says how
    far the tail goes, so the cut hides nothing."""
    h = np.asarray(hist, dtype=np.int64)
    top = x_limit([h])
    width = nice_width(top)
    longest = int(np.flatnonzero(h)[-1]) if h.sum() else 0
    note = (wrap_label(f"x axes stop at the 99.5th percentile; longest round {longest:,} "
                       f"{unit.split()[0]}", 150) if longest > top else "")
    s, (b1, b2) = _layout(1060, wrap_label(title, 110), 2, left=86, top_extra=LEGEND_ROW,
                          note=note)
    if not h.sum():  # nothing to draw (a report writes a sentence instead)
        Panel(s, *b1).axes([], [], [], [], unit, "share of rounds", "Distribution")
        Panel(s, *b2).axes([], [], [], [], unit, "", "Cumulative distribution")
        return s.save(path)
    _hist_panel(s, b1, h, "Distribution", unit + (f" (bins of {width})" if width > 1 else ""),
                "share of rounds", top=top, width=width, label="share of rounds")
    last = min(h.size, top + width + 1)
    cdf = (np.cumsum(h[:last]) / h.sum()).tolist()
    p = Panel(s, *b2, xlim=(0.0, top + width), ylim=(0.0, 1.02))
    xt, yt = nice_ticks(*p.xlim, nbins=8), nice_ticks(0.0, 1.0, 5)
    p.grid(xt, yt)
    p.hline(0.5, FAIR_COLOR, 0.8, DOT)
    s.clip(p.x0, p.y0, p.w, p.h)
    pts: list[tuple[float, float]] = []
    for x, c in enumerate(cdf):
        pts += [(p.X(x), p.Y(c)), (p.X(x + 1), p.Y(c))]
    s.polyline(pts, COLORS[0])
    s.end()
    summ = stats.summarize_hist(h)
    _mean_median(p, summ.mean, summ.median)
    p.axes(xt, _number_labels(xt), yt, [f"{100 * t:.0f}%" for t in yt], unit,
           f"rounds with at most x {unit.split()[0]}", "Cumulative distribution")
    return s.save(path)


def hist_chart(panels: Sequence[tuple[str, np.ndarray, str]], path: str | Path,
               title: str) -> Path:
    """Side-by-side histograms, one per ``(panel title, hist, x label)``, mean and median
    marked. All-zero panels are left out; a caller with nothing left to draw writes a
    sentence instead (`unosim.report.chartkit.all_zero`)."""
    panels = [p for p in panels if np.asarray(p[1]).sum() > 0] or list(panels[:1])
    k = max(1, len(panels))
    width = max(620.0, 500.0 * k + 60)
    tails = any(int(np.asarray(hh).sum()) and
                int(np.flatnonzero(hh)[-1]) > x_limit([np.asarray(hh, dtype=np.int64)])
                for _, hh, _ in panels)
    s, boxes = _layout(width, wrap_label(title, int(width / 10)), k, left=80,
                       top_extra=LEGEND_ROW, bottom=70 + (LABEL * LINE if tails else 0))
    for box, (ptitle, hist, xlabel) in zip(boxes, panels, strict=False):
        h = np.asarray(hist, dtype=np.int64)
        if not h.sum():
            Panel(s, *box).axes([], [], [], [], xlabel, "", ptitle)
            continue
        lo, top = int(np.flatnonzero(h)[0]), x_limit([h])
        bw = nice_width(top - lo + 1, bins=50)
        label = xlabel + (f" (bins of {bw})" if bw > 1 else "")
        mx = int(np.flatnonzero(h)[-1])
        if mx > top:
            label += f"\naxis stops at the 99.5th percentile; max {mx:,}"
        _hist_panel(s, box, h, ptitle, label, "share", top=top, width=bw, start=lo - lo % bw)
    return s.save(path)


def rate_chart(labels: Sequence[str], ks: Sequence[int] | np.ndarray, n: int,
               fair: float | None, path: str | Path, title: str, xlabel: str,
               ylabel: str = "win rate", colors: Sequence[str] | None = None,
               legend: Sequence[tuple[str, str]] = ()) -> Path:
    """Rates k/n as points with 95% Wilson intervals against a dashed fair line.

    Points rather than bars: the differences of interest are fractions of a
    percentage point, and bars from zero would hide them. The y axis is zoomed
    and says so; ``legend`` names the colours (e.g. one per policy)."""
    rates, lows, highs = [], [], []
    for k in ks:
        r, lo, hi = stats.wilson_interval(int(k), int(n))
        rates.append(r)
        lows.append(lo)
        highs.append(hi)
    m = len(rates)
    per = 110.0 if m <= 8 else 80.0
    labels = [wrap_label(lab, max(10, int(per / 8))) for lab in labels]
    entries: list[Entry] = [("marker", c, wrap_label(lab, 30)) for lab, c in legend]
    if fair is not None:
        entries.append(("dash", FAIR_COLOR, f"fair share {pct(fair)}"))
    width = max(640.0, per * m + 340)
    ylab = ylabel_rate(ylabel)
    left = 40 + text_box(ylab, LABEL)[1] + TICK * EM * 7
    rows = legend_rows(entries, width - left - 24)
    tick_h = max(text_box(lab, TICK)[1] for lab in labels) if labels else TICK
    s, (box,) = _layout(width, wrap_label(title, int(width / 10)), 1, left=left, plot_h=300,
                        top_extra=LEGEND_ROW * len(rows) - 16, bottom=46 + tick_h)
    ylo, yhi = rate_limits(lows, highs, [fair] if fair is not None else [])
    p = Panel(s, *box, xlim=(-0.5, m - 0.5), ylim=(ylo, yhi + (yhi - ylo) * 0.08))
    yt = nice_ticks(*p.ylim)
    p.grid((), yt)
    if fair is not None:
        p.hline(fair, FAIR_COLOR, 1.2, DASH)
    cols = list(colors) if colors else [COLORS[0]] * m
    for i, (r, lo, hi) in enumerate(zip(rates, lows, highs, strict=True)):
        if not math.isfinite(r):
            continue
        x, c = p.X(i), cols[i]
        s.line(x, p.Y(lo), x, p.Y(hi), c, 1.8)
        for v in (lo, hi):
            s.line(x - 6, p.Y(v), x + 6, p.Y(v), c, 1.8)
        s.circle(x, p.Y(r), 4.5, c)
        s.text(x, p.Y(hi) - 4, pct(r), 11, anchor="middle", valign="bottom")
    p.axes(list(range(m)), labels, yt, _percent_labels(yt), xlabel, ylab, "", entries)
    return s.save(path)


def draws_chart(causes: Sequence[str], means: Sequence[float], lows: Sequence[float],
                highs: Sequence[float], drawn_hist: np.ndarray, note: str,
                path: str | Path, title: str) -> Path:
    """Cards drawn per round by cause (bars, intervals when known) and their total's
    histogram; ``note`` goes under both."""
    causes = [wrap_label(c, 22) for c in causes]
    rows_h = sum(text_box(c, TICK)[1] + 6 for c in causes)
    left = 30 + max((text_box(c, TICK)[0] for c in causes), default=0)
    s, (b1, b2) = _layout(1060, wrap_label(title, 110), 2, left=left, gap=100,
                          plot_h=max(260.0, rows_h), top_extra=LEGEND_ROW,
                          note=wrap_label(note, 150) if note else "", ratios=[1.0, 1.1])
    mv = [float(v) for v in means]
    lo_v, hi_v = [float(v) for v in lows], [float(v) for v in highs]
    ok = [math.isfinite(a) and math.isfinite(b) for a, b in zip(lo_v, hi_v, strict=True)]
    reach = max([v * 1.25 for v in mv] + [hv * 1.1 for hv, o in zip(hi_v, ok, strict=True)
                                            if o] + [0.1])
    p = Panel(s, *b1, xlim=(0.0, reach), ylim=(-0.6, len(causes) - 0.4))
    xt = nice_ticks(*p.xlim, nbins=6)
    p.grid(xt, ())
    ys = list(range(len(causes)))[::-1]
    for y, v, lo, hi, o in zip(ys, mv, lo_v, hi_v, ok, strict=True):
        s.rect(p.X(0), p.Y(y + 0.3), p.X(v) - p.X(0), p.Y(y - 0.3) - p.Y(y + 0.3),
               COLORS[0], opacity=0.8)
        end = v
        if o:
            s.line(p.X(lo), p.Y(y), p.X(hi), p.Y(y), MEAN_COLOR, 1.2)
            for e in (lo, hi):
                s.line(p.X(e), p.Y(y) - 5, p.X(e), p.Y(y) + 5, MEAN_COLOR, 1.2)
            end = max(v, hi)
        s.text(p.X(end) + 5, p.Y(y), f"{v:,.2f}" if v >= 0.01 or v == 0 else f"{v:.2g}",
               11, valign="middle")
    p.axes(xt, _number_labels(xt), ys, causes, "cards drawn per round (mean"
           + (", 95% CI)" if any(ok) else ")"), "", "Why cards are drawn")
    h = np.asarray(drawn_hist, dtype=np.int64)
    if h.sum():
        top = x_limit([h])
        bw = nice_width(top, bins=50)
        _hist_panel(s, b2, h, "Total cards drawn per round", "cards drawn in the round, "
                    "all causes" + (f" (bins of {bw})" if bw > 1 else ""), "share of rounds",
                    top=top, width=bw)
    else:
        Panel(s, *b2).axes([], [], [], [], "", "share of rounds", "Total cards drawn per round")
    return s.save(path)
