"""How reports write numbers and names: estimates with intervals, differences, p-values.

Run reports, comparisons and sweeps all format through here, so one figure
reads the same everywhere: decimals follow the width of its 95% interval,
rates are percentages, differences of rates are percentage points.
"""

from __future__ import annotations

import math

import yaml

from unosim.analysis import stats
from unosim.analysis.estimates import Diff, Estimate, Metric
from unosim.engine.kernel import state as L
from unosim.rules.config import GameConfig, config_to_dict

__all__ = [
    "CAUSE_LABELS",
    "EVENT_LABELS",
    "config_yaml",
    "fmt_diff",
    "fmt_metric",
    "fmt_p",
    "fmt_pvalue",
    "num_ci",
    "ordinal",
    "pct",
    "pct_ci",
    "position_name",
    "sig3",
]

NAN = float("nan")

CAUSE_LABELS = {
    "turn": "ordinary draw (no playable card)",
    "draw2": "Draw Two penalty",
    "wd4": "Wild Draw Four penalty",
    "stack": "stacked penalty",
    "challenge": "challenge penalty",
    "uno": "missed-UNO penalty",
    "special": "special wild, Color Roulette or Wild Draw Color",
    "dont_talk": "Don't Talk slip",
}

# Per-round counters kept only as totals in ``sums`` that a report lists (their labels
# are declared with the counters, `unosim.engine.kernel.state.COUNTERS`).
EVENT_LABELS = {c.slot: c.label for c in L.COUNTERS if c.label}


def num_ci(e: Estimate, unit: str = "", decimals: int | None = None) -> str:
    """A value and its interval; just the value when there is no interval.

    >>> num_ci(Estimate(50.21, 50.03, 50.39, 100), "turns")
    '50.21 turns (95% CI 50.03–50.39)'
    >>> num_ci(Estimate(0.0113, NAN, NAN, 100))
    '0.0113 (no interval: totals only)'
    """
    if not math.isfinite(e.value):
        return "n/a"
    u = f" {unit}" if unit else ""
    if not (math.isfinite(e.low) and math.isfinite(e.high)):
        return f"{sig3(e.value)}{u} (no interval: totals only)"
    if e.low == e.high == e.value and decimals is None:
        return f"{e.value:,.0f}{u} (95% CI {e.low:,.0f}–{e.high:,.0f})"
    text = stats.format_ci(e.value, e.low, e.high, decimals=decimals)
    value, rest = text.split(" ", 1)
    return f"{value}{u} {rest}"


def sig3(x: float) -> str:
    """Three significant digits without exponent noise.

    >>> [sig3(x) for x in (41.63, 0.011347, 1234.0, 0.0)]
    ['41.6', '0.0113', '1,234', '0']
    """
    if not math.isfinite(x):
        return "n/a"
    if x == 0 or abs(x) >= 100:
        return f"{x:,.0f}"
    d = max(0, 2 - math.floor(math.log10(abs(x))))
    return f"{x:,.{d}f}"


def _sig_decimals(x: float, sig: int = 2) -> int:
    """Decimals that show ``sig`` significant digits of ``x`` (0 for |x| >= 10**(sig-1))."""
    if not math.isfinite(x) or x == 0:
        return 0
    return max(0, sig - 1 - math.floor(math.log10(abs(float(f"{x:.{sig - 1}e}")))))


def pct(rate: float, sig: int = 2) -> str:
    """A rate (0..1) as a percentage: one decimal, more for rare rates, "0%" only for zero.

    Rare events must not print as zero: at least ``sig`` significant digits.

    >>> [pct(x) for x in (0.25907, 0.25, 1.0, 0.031, 0.0012, 0.000012, 0.0)]
    ['25.9%', '25.0%', '100.0%', '3.1%', '0.12%', '0.0012%', '0%']
    >>> pct(float("nan"))
    'n/a'
    """
    if not math.isfinite(rate):
        return "n/a"
    if rate == 0:
        return "0%"
    v = 100 * rate
    return f"{v:.{max(1, _sig_decimals(v, sig))}f}%"


def _enough(d: int, values: tuple[float, ...], sig: int = 2) -> int:
    """Raise ``d`` until every nonzero value shows ``sig`` significant digits (rare rates)."""
    need = [_sig_decimals(v, sig) for v in values if math.isfinite(v) and v != 0]
    return max([d, *need])


def pct_ci(e: Estimate) -> str:
    """A rate as a percentage with its interval, decimals set by the interval width.

    Decimals follow the interval (at most 3 for common rates), but a rare rate
    keeps two significant digits of its value and bounds, so it never reads as
    zero; only an exact zero prints as "0%".

    >>> pct_ci(Estimate(0.2593, 0.2533, 0.2654, 20000))
    '25.93% (95% CI 25.33–26.54%)'
    >>> pct_ci(Estimate(12e-6, 6.9e-6, 21e-6, 1_000_000))
    '0.0012% (95% CI 0.00069–0.0021%)'
    >>> pct_ci(Estimate(0.0, 0.0, 3.84e-6, 1_000_000))
    '0% (95% CI 0–0.00038%)'
    """
    if not math.isfinite(e.value):
        return "n/a"
    lo, hi, v = 100 * e.low, 100 * e.high, 100 * e.value
    d = min(stats.ci_decimals(lo, hi), 3)
    d = _enough(d, (v,) if v else (hi,))
    d_lo = _enough(d, (lo,))
    d_hi = _enough(d, (hi,))

    def f(x: float, dd: int) -> str:
        return "0" if x == 0 else f"{x:.{dd}f}"

    return f"{f(v, d)}% (95% CI {f(lo, d_lo)}–{f(hi, d_hi)}%)"


def fmt_metric(e: Estimate, m: Metric) -> str:
    """A metric's value and interval, formatted for its kind."""
    if m.percent:
        return pct_ci(e)
    if m.kind == "fair_ratio" and math.isfinite(e.value):
        d = max(2, stats.ci_decimals(e.low, e.high))
        return f"{e.value:.{d}f}× (95% CI {e.low:.{d}f}–{e.high:.{d}f})"
    if m.kind == "quantile":
        if not math.isfinite(e.value):
            return "n/a"
        return f"{e.value:,.0f} (95% CI {e.low:,.0f}–{e.high:,.0f})"
    return num_ci(e)


def fmt_pvalue(p: float) -> str:
    """A p-value to two significant digits, tiny ones as ``<0.001``.

    >>> fmt_pvalue(0.0123), fmt_pvalue(1e-9)
    ('0.012', '<0.001')
    """
    return "<0.001" if p < 0.001 else f"{p:.2g}"


def fmt_p(d: Diff) -> str:
    """The p-values of a difference with their tests, e.g. ``<0.001 (Welch t); 0.2 (...)``."""
    parts = []
    if math.isfinite(d.p_value):
        parts.append(f"{fmt_pvalue(d.p_value)} ({d.test})")
    elif d.test == "bootstrap CI":
        parts.append("CI only (bootstrap)")
    if math.isfinite(d.p_value_mw):
        parts.append(f"{fmt_pvalue(d.p_value_mw)} (Mann–Whitney)")
    return "; ".join(parts) if parts else "n/a"


def fmt_diff(d: Diff, m: Metric) -> tuple[str, str, str]:
    """(difference, its 95% CI, relative change) as table cells; rates in points.

    >>> fmt_diff(Diff(-0.004, -0.0126, 0.0045, 0.35, "", -0.016), Metric("r", "", "rate",
    ...          "first", percent=True))
    ('-0.40 pts', '-1.26 to +0.45 pts', '-2%')
    """
    if not math.isfinite(d.diff):
        return "n/a", "n/a", "n/a"
    if not (math.isfinite(d.low) and math.isfinite(d.high)):
        rel = f"{100 * d.rel_change:+.1f}%" if math.isfinite(d.rel_change) else "n/a"
        return f"{d.diff:+.3g}", "n/a (totals only)", rel
    if m.percent:
        lo, hi = 100 * d.low, 100 * d.high
        dec = _enough(min(3, stats.ci_decimals(lo, hi)), (100 * d.diff,))
        diff = f"{100 * d.diff:+.{dec}f} pts"
        ci = f"{lo:+.{dec}f} to {hi:+.{dec}f} pts"
    else:
        dec = 0 if m.kind == "quantile" else stats.ci_decimals(d.low, d.high)
        diff = f"{d.diff:+,.{dec}f}"
        ci = f"{d.low:+,.{dec}f} to {d.high:+,.{dec}f}"
    if math.isfinite(d.rel_change):
        rel_half = 100 * (d.high - d.low) / 2 / abs(d.diff / d.rel_change) if d.diff else NAN
        rdec = stats.ci_decimals(-rel_half, rel_half, sig=1) if math.isfinite(rel_half) else 1
        rel = f"{100 * d.rel_change:+.{min(rdec, 2)}f}%"
    else:
        rel = "n/a"
    return diff, ci, rel


def ordinal(k: int) -> str:
    """``1st``, ``2nd``, ``11th``...

    >>> [ordinal(k) for k in (1, 2, 3, 4, 11, 12, 21)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '21st']
    """
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def position_name(i: int, n: int) -> str:
    """Seat position from the dealer: 0 is the dealer's left (plays first), n-1 the dealer.

    >>> [position_name(i, 3) for i in range(3)]
    ["1st (dealer's left)", '2nd', '3rd (dealer)']
    """
    name = ordinal(i + 1)
    if i == 0:
        return f"{name} (dealer's left)"
    if i == n - 1:
        return f"{name} (dealer)"
    return name


def config_yaml(cfg: GameConfig, games: int | None = None, seed: object = None) -> str:
    """The resolved config as YAML, with the games and seed actually run."""
    data = config_to_dict(cfg)
    if games is not None:
        data["games"] = games
    if seed is not None:
        data["seed"] = seed
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=None)
