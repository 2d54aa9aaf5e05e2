"""League charts: the head-to-head heatmap and rating dots with intervals.

Built like `unosim.report.charts` (a ``Figure`` on an Agg canvas, never
pyplot) and with its palette: ``COLORS[i]`` is the i-th rule set.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from unosim.report.charts import COLORS
from unosim.run.files import atomic_write

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

# (label, ratings, lows, highs): one value per policy in each
Series = tuple[str, "ArrayLike", "ArrayLike", "ArrayLike"]

__all__ = ["matrix_chart", "rating_chart", "rating_figure"]

DPI = 110
GREY = "#666666"


def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), dpi=DPI)
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Figure, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, lambda f: fig.savefig(f, format="png", dpi=DPI, facecolor="white",
                                             bbox_inches="tight", pad_inches=0.1))
    return path


def rating_chart(names: Sequence[str],
                 series: Sequence[Series],
                 path: str | Path, title: str) -> Path:
    """`rating_figure` saved as a PNG at ``path``."""
    return _save(rating_figure(names, series, title), Path(path))


def rating_figure(names: Sequence[str], series: Sequence[Series],
                  title: str) -> Figure:
    """One row per policy, a dot and 95% interval per series (rule set), a zero line.

    Each series is ``(label, ratings, lows, highs)`` (sequences or arrays, one
    value per policy); rows are sorted by the first series' rating, highest on top.
    """
    order = np.argsort(-np.asarray(series[0][1], dtype=float), kind="stable")
    k, s = len(names), len(series)
    fig = _figure(7.5, 1.2 + 0.45 * k * max(1, s * 0.6))
    ax = fig.add_axes((0.22, 0.15, 0.74, 0.72))
    ax.axvline(0, color=GREY, linewidth=1.0, linestyle="--")
    offsets = (np.arange(s) - (s - 1) / 2) * (0.6 / max(s, 1)) if s > 1 else np.zeros(1)
    for j, (label, vals, lows, highs) in enumerate(series):
        v, lo, hi = (np.asarray(a, dtype=float)[order] for a in (vals, lows, highs))
        y = np.arange(k)[::-1] + offsets[j]
        ax.errorbar(v, y, xerr=[v - lo, hi - v], fmt="o", color=COLORS[j % len(COLORS)],
                    capsize=4, markersize=7, elinewidth=1.8, label=label if s > 1 else None)
        for yi, vi, hj in zip(y, v, hi, strict=True):
            ax.annotate(f"{vi:+.0f}", (hj, yi), xytext=(6, 0), textcoords="offset points",
                        va="center", fontsize=8.5)
    ax.set_yticks(np.arange(k)[::-1], [names[i] for i in order], fontsize=9)
    ax.set_ylim(-0.7, k - 0.3)
    ax.set_xlabel("rating (Elo points, mean of the policies = 0)")
    ax.grid(True, axis="x", alpha=0.3, linewidth=0.6)
    ax.spines[["top", "right"]].set_visible(False)
    if s > 1:
        ax.legend(fontsize=8.5, frameon=False, loc="best")
    ax.set_title(title, fontsize=12, fontweight="bold")
    return fig


def matrix_chart(names: Sequence[str], rates: np.ndarray, path: str | Path,
                 title: str) -> Path:
    """A heatmap of ``rates[row, col]`` (row's win rate against col); 50% is white, the scale symmetric."""
    k = len(names)
    fig = _figure(1.6 + 0.9 * k, 1.2 + 0.8 * k)
    ax = fig.add_axes((0.22, 0.12, 0.62, 0.72))
    data = np.ma.masked_invalid(np.asarray(rates, dtype=float))
    dev = max(0.1, float(np.ma.max(np.ma.abs(data - 0.5))) if data.count() else 0.1)
    im = ax.imshow(data, cmap="RdBu", vmin=0.5 - dev, vmax=0.5 + dev)
    for a in range(k):
        for b in range(k):
            if a == b or np.ma.is_masked(data[a, b]):
                continue
            v = float(data[a, b])
            ax.text(b, a, f"{100 * v:.1f}%", ha="center", va="center", fontsize=9,
                    color="white" if abs(v - 0.5) > 0.6 * dev else "black")
    ax.set_xticks(range(k), list(names), rotation=30, ha="right", fontsize=9)
    ax.set_yticks(range(k), list(names), fontsize=9)
    ax.set_xlabel("opponent (column)")
    ax.set_ylabel("policy (row)")
    cbar = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    cbar.set_label("row's win rate", fontsize=9)
    ax.set_title(title, fontsize=12, fontweight="bold")
    return _save(fig, Path(path))
