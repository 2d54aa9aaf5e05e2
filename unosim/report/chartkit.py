"""What every chart shares, without a plotting library: the palette, label wrapping,
histogram binning and axis ranges.

The run report draws its charts as SVG (`unosim.report.svg`) and the study pages
with matplotlib (`unosim.report.charts`); both take their colours, bins and
ranges from here, so a run's chart and a comparison's look alike, and a run
report imports no matplotlib.

Colours: one colour-blind-safe palette (Okabe & Ito), one meaning per page.
``COLORS[i]`` is the i-th thing a page compares (a config, a sweep line; in a
run report, the run itself is ``COLORS[0]`` and policies take ``COLORS[1:]``).
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence

import numpy as np

from unosim.analysis import stats
from unosim.report.format import ordinal

__all__ = ["COLORS", "FAIR_COLOR", "MEAN_COLOR", "MEDIAN_COLOR", "all_zero", "binned",
           "label_lines", "nice_width", "percent_decimals", "position_labels", "rate_limits",
           "text_width", "wrap_label", "x_limit", "ylabel_rate"]

# Okabe & Ito's palette ("Color Universal Design"), ordered so the first four
# stay apart under every common colour-vision deficiency and in greyscale.
COLORS = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#56B4E9",  # sky blue
    "#D55E00",  # vermillion
    "#F0E442",  # yellow
    "#000000",  # black
)
FAIR_COLOR = "#666666"
MEAN_COLOR = "#000000"
MEDIAN_COLOR = "#000000"


def wrap_label(text: str, width: int) -> str:
    """Wrap each line of a label to ``width`` characters (long config names, titles)."""
    return "\n".join(textwrap.fill(line, width, break_on_hyphens=False) or line
                     for line in text.split("\n"))


def label_lines(labels: Sequence[str]) -> int:
    """Lines of the tallest label."""
    return max((lab.count("\n") + 1 for lab in labels), default=1)


def text_width(labels: Sequence[str], size: float = 9.0) -> float:
    """Rough width in inches of the widest line of ``labels`` at ``size`` points."""
    longest = max((len(line) for lab in labels for line in lab.split("\n")), default=0)
    return longest * size * 0.55 / 72


def all_zero(*values: object) -> bool:
    """True when every number in ``values`` (arrays, sequences, scalars) is zero or nan.

    Callers use it to print a sentence instead of an empty chart.

    >>> all_zero([0, 0], np.zeros(3)), all_zero([0, 1e-6]), all_zero([float("nan")])
    (True, False, True)
    """
    for v in values:
        a = np.asarray(v, dtype=float)
        if np.any(np.nan_to_num(a, nan=0.0) != 0):
            return False
    return True


def x_limit(hists: Sequence[np.ndarray], q: float = 0.995) -> int:
    """Upper x limit covering the bulk of every histogram (long tails are noted, not drawn)."""
    top = 1
    for h in hists:
        if h.sum():
            top = max(top, int(stats.quantile_hist(h, q)) + 1)
    return top


def binned(h: np.ndarray, width: int, top: int) -> tuple[np.ndarray, np.ndarray]:
    """Left bin edges and the share of all rounds in each bin of ``width`` up to ``top``."""
    n = h.sum()
    h = np.pad(h, (0, max(0, top + width - h.size)))[: top + width]
    nb = -(-(top + 1) // width)
    shares = h[: nb * width].reshape(nb, width).sum(axis=1) / max(n, 1)
    return np.arange(nb) * width, shares


def nice_width(top: int, bins: int = 70) -> int:
    """Integer bin width giving about ``bins`` bins (1, 2, 5, 10, ...)."""
    raw = max(1.0, top / bins)
    for w in (1, 2, 3, 4, 5, 10, 20, 25, 50, 100, 200, 500):
        if w >= raw:
            return w
    return int(raw)


def position_labels(n: int) -> list[str]:
    """Seat-position tick labels: 1st plays first (dealer's left), the dealer is last."""
    out = [ordinal(i + 1) for i in range(n)]
    out[0] += "\n(dealer's left)"
    out[-1] += "\n(dealer)"
    return out


def rate_limits(lows: Sequence[float], highs: Sequence[float], fair: Sequence[float]
                ) -> tuple[float, float]:
    """A zoomed y range for rates: every interval and fair share, with a margin."""
    vals = [v for v in (*lows, *highs, *fair) if math.isfinite(v)]
    if not vals:
        return 0.0, 1.0
    lo, hi = min(vals), max(vals)
    pad = max((hi - lo) * 0.25, 0.005)
    return max(0.0, lo - pad), min(1.0, hi + pad)


def ylabel_rate(ylabel: str) -> str:
    """A rate axis's label, which says the axis is zoomed."""
    return f"{ylabel} (95% Wilson interval)\naxis zoomed, does not start at 0"


def percent_decimals(ticks: Sequence[float]) -> int:
    """The fewest decimals that print every tick (a share, 0.25 = 25%) exactly, so no
    two labels look alike.

    >>> percent_decimals([0.0, 0.25, 0.5]), percent_decimals([0.000005, 0.00001])
    (0, 4)
    """
    pcts = [t * 100 for t in ticks]
    return next((d for d in range(7)
                 if all(abs(round(t, d) - t) < 1e-9 * max(1.0, abs(t)) for t in pcts)), 6)
