"""Run reports: headline estimates with intervals, PNG charts, Markdown and HTML.

``write_report`` turns one run's merged aggregates into ``report.md``, a
self-contained ``report.html`` (charts embedded as data URIs, so the file can
be mailed or opened offline) and the PNGs themselves. The estimate
functions and the tiny document model here are shared with ``compare`` and
``sweep`` so every output words and rounds numbers the same way.

Every figure that is an estimate is printed with its 95% interval. Counts
the aggregates hold only as totals (reshuffles, draws by cause) get a
batch-means interval from the run's chunk files (the runner's ``chunks/``,
or ``batches.npz`` once compacted), or an exact one if the aggregates ever
carry per-round sums of squares (``sums_sq``); with neither, the report says
so instead of inventing one.
"""

from __future__ import annotations

import base64
import html
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from scipy import stats as _st

from unosim import __version__
from unosim.analysis import stats
from unosim.engine import layout as L
from unosim.report import charts
from unosim.rules.config import GameConfig, config_to_dict

__all__ = [
    "CAUSE_LABELS",
    "Doc",
    "Estimate",
    "Metric",
    "estimate",
    "headline_metrics",
    "load_batches",
    "num_ci",
    "pct_ci",
    "per_round_se",
    "write_report",
]

NAN = float("nan")

CAUSE_LABELS = {
    "turn": "ordinary draw (no playable card)",
    "draw2": "Draw Two penalty",
    "wd4": "Wild Draw Four penalty",
    "stack": "stacked penalty",
    "challenge": "challenge penalty",
    "uno": "missed-UNO penalty",
    "special": "special wild",
    "dont_talk": "Don't Talk slip",
}

# Per-round counters kept only as totals in ``sums`` that a report lists.
EVENT_LABELS = {
    L.R_PLAYED: "cards played",
    L.R_RESHUFFLES: "reshuffles of the discard pile",
    L.R_JUMPS: "jump-ins",
    L.R_CHALLENGES: "Wild Draw Four challenges",
    L.R_SWAPS: "hand swaps / rotations (Seven-O)",
    L.R_SPECIAL_PLAYS: "special wilds played",
    L.R_SPECIAL_DRAWN: "cards drawn because of special wilds",
}


# --------------------------------------------------------------------------- #
# Estimates
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its 95% interval and the sample size behind it."""

    value: float
    low: float
    high: float
    n: int


@dataclass(frozen=True)
class Metric:
    """A headline metric: how to estimate it from aggregates and how to print it.

    ``kind`` is ``mean`` / ``quantile`` (of histogram ``source``), ``rate``
    (``first`` = position 0 wins, ``stalemate``, ``unfinished``), ``fair_ratio``
    (a rate times the number of players: 1.0 is a fair share, so player counts
    compare on one scale) or ``per_round`` (a ``sums`` index; its interval needs
    ``sums_sq`` or per-chunk batch sums).
    """

    key: str
    label: str
    kind: str
    source: str | int
    q: float = 0.5
    percent: bool = False
    unit: str = ""
    match_only: bool = False


METRICS: tuple[Metric, ...] = (
    Metric("turns_mean", "Mean turns per round", "mean", "turns_hist", unit="turns"),
    Metric("turns_median", "Median turns per round", "quantile", "turns_hist", q=0.5,
           unit="turns"),
    Metric("turns_p90", "90th percentile of turns", "quantile", "turns_hist", q=0.9,
           unit="turns"),
    Metric("first_player_win_rate", "First-player win rate (dealer's left)", "rate", "first",
           percent=True),
    Metric("first_player_vs_fair", "First-player win rate ÷ fair share 1/N", "fair_ratio",
           "first"),
    Metric("stalemate_rate", "Stalemate rate (round hit max_turns)", "rate", "stalemate",
           percent=True),
    Metric("drawn_mean", "Cards drawn per round", "mean", "drawn_hist", unit="cards"),
    Metric("points_mean", "Points scored per round", "mean", "points_hist", unit="points"),
    Metric("reshuffles_per_round", "Reshuffles per round", "per_round", L.R_RESHUFFLES),
    Metric("match_rounds_mean", "Rounds per match", "mean", "match_rounds_hist",
           unit="rounds", match_only=True),
    Metric("margin_mean", "Final winning margin (points)", "mean", "margin_hist",
           unit="points", match_only=True),
    Metric("unfinished_rate", "Unfinished matches (hit max_rounds)", "rate", "unfinished",
           percent=True, match_only=True),
)
METRIC_BY_KEY = {m.key: m for m in METRICS}


def n_rounds(agg: Mapping[str, np.ndarray]) -> int:
    """Rounds played (games in round mode; every round of every match in match mode)."""
    return int(agg["counts"][1])


def is_match(agg: Mapping[str, np.ndarray]) -> bool:
    """Whether the aggregates come from match mode (more rounds than games)."""
    return int(agg["match_rounds_hist"].sum()) > 0


def order_ci(h: np.ndarray, q: float, conf: float = 0.95) -> Estimate:
    """Quantile of a histogram with a distribution-free order-statistic interval.

    The interval runs between the sample quantiles at ranks ``q ± z·sqrt(q(1-q)/n)``
    (the normal approximation to the binomial count below the true quantile),
    so it needs no resampling and is valid for any distribution.
    """
    h = np.asarray(h, dtype=np.int64)
    n = int(h.sum())
    if n == 0:
        return Estimate(NAN, NAN, NAN, 0)
    z = float(_st.norm.ppf(0.5 + conf / 2))
    half = z * math.sqrt(q * (1 - q) / n)
    lo = stats.quantile_hist(h, max(0.0, q - half))
    hi = stats.quantile_hist(h, min(1.0, q + half + 1.0 / n))
    return Estimate(stats.quantile_hist(h, q), lo, hi, n)


def rate_counts(agg: Mapping[str, np.ndarray], source: str) -> tuple[int, int]:
    """(successes, trials) of a rate metric."""
    c = agg["counts"]
    if source == "first":
        return int(agg["wins_pos"][0]), int(c[1])
    if source == "stalemate":
        return int(c[2]), int(c[1])
    if source == "unfinished":
        return int(c[3]), int(c[0]) if is_match(agg) else 0
    raise ValueError(f"unknown rate {source!r}")


MIN_BATCHES = 8  # fewer chunks than this give too rough a batch-means interval


def per_round_se(agg: Mapping[str, np.ndarray], idx: int) -> tuple[float, float, float]:
    """(mean per round, its standard error, degrees of freedom) of a ``sums`` counter.

    The error comes from per-round sums of squares (``sums_sq``) when present,
    else from batch means over the run's chunks (``batch_sums``/``batch_rounds``,
    a ratio estimator since chunks hold different numbers of rounds), else nan.
    """
    n = n_rounds(agg)
    if n == 0:
        return NAN, NAN, NAN
    mean = float(agg["sums"][idx]) / n
    sq = agg.get("sums_sq")
    if sq is not None and n >= 2:
        var = max(0.0, (float(sq[idx]) - n * mean * mean) / (n - 1))
        return mean, math.sqrt(var / n), float(n - 1)
    bs, br = agg.get("batch_sums"), agg.get("batch_rounds")
    if bs is not None and br is not None and len(br) >= MIN_BATCHES:
        resid = bs[:, idx].astype(np.float64) - mean * br.astype(np.float64)
        b = len(br)
        var_mean = b / (b - 1) * float(resid @ resid) / (float(n) ** 2)
        return mean, math.sqrt(var_mean), float(b - 1)
    return mean, NAN, NAN


def per_round_estimate(agg: Mapping[str, np.ndarray], idx: int) -> Estimate:
    """Mean of a per-round counter with a t interval when its error is known."""
    n = n_rounds(agg)
    mean, se, df = per_round_se(agg, idx)
    if not math.isfinite(se):
        return Estimate(mean, NAN, NAN, n)
    half = float(_st.t.ppf(0.975, df)) * se
    return Estimate(mean, mean - half, mean + half, n)


def load_batches(run_dir: str | Path, agg: Mapping[str, np.ndarray],
                 key: str | None = None) -> dict[str, np.ndarray]:
    """Per-chunk sums and rounds from a runner's ``chunks/`` folder, if they add up.

    Chunks are independent batches of games, so the spread of their per-round
    means gives an interval for counters the aggregates keep only as totals.
    Returns ``{}`` unless every chunk belongs to this run and they sum to ``agg``.
    """
    import json

    files = sorted((Path(run_dir) / "chunks").glob("chunk-*.npz"))
    if not files:
        return _load_compacted(Path(run_dir) / "batches.npz", agg, key)
    sums, rounds = [], []
    try:
        for f in files:
            with np.load(f, allow_pickle=False) as z:
                if key is not None and "meta" in z.files:
                    if json.loads(str(z["meta"])).get("config_hash") != key:
                        return {}
                sums.append(np.array(z["sums"], dtype=np.int64))
                rounds.append(int(z["counts"][1]))
    except Exception:  # an unreadable chunk means no interval, never a failed report
        return {}
    bs = np.vstack(sums)
    if not np.array_equal(bs.sum(axis=0), agg["sums"]) or sum(rounds) != n_rounds(agg):
        return {}
    return {"batch_sums": bs, "batch_rounds": np.asarray(rounds, dtype=np.int64)}


def _load_compacted(path: Path, agg: Mapping[str, np.ndarray], key: str | None
                    ) -> dict[str, np.ndarray]:
    """Batch sums kept by ``compare.compact_run_dir``, if they still match the aggregates."""
    if not path.is_file():
        return {}
    try:
        with np.load(path, allow_pickle=False) as z:
            bs = np.array(z["batch_sums"], dtype=np.int64)
            br = np.array(z["batch_rounds"], dtype=np.int64)
            saved = str(z["config_hash"])
    except Exception:  # unreadable: no interval rather than a failed report
        return {}
    if key is not None and saved != key:
        return {}
    if not np.array_equal(bs.sum(axis=0), agg["sums"]) or int(br.sum()) != n_rounds(agg):
        return {}
    return {"batch_sums": bs, "batch_rounds": br}


def estimate(agg: Mapping[str, np.ndarray], metric: Metric) -> Estimate:
    """The metric's estimate and 95% interval from merged aggregates."""
    if metric.kind == "mean":
        s = stats.summarize_hist(agg[str(metric.source)])
        return Estimate(s.mean, s.ci_low, s.ci_high, s.n)
    if metric.kind == "quantile":
        return order_ci(agg[str(metric.source)], metric.q)
    if metric.kind == "rate":
        k, n = rate_counts(agg, str(metric.source))
        r, lo, hi = stats.wilson_interval(k, n) if n else (NAN, NAN, NAN)
        return Estimate(r, lo, hi, n)
    if metric.kind == "fair_ratio":
        k, n = rate_counts(agg, str(metric.source))
        r, lo, hi = stats.wilson_interval(k, n) if n else (NAN, NAN, NAN)
        players = len(agg["wins_pos"])
        return Estimate(r * players, lo * players, hi * players, n)
    if metric.kind == "per_round":
        return per_round_estimate(agg, int(metric.source))
    raise ValueError(f"unknown metric kind {metric.kind!r}")


def metrics_for(agg: Mapping[str, np.ndarray]) -> list[Metric]:
    """The headline metrics that apply to these aggregates (match ones only in match mode)."""
    match = is_match(agg)
    return [m for m in METRICS if match or not m.match_only]


def headline_metrics(agg: Mapping[str, np.ndarray]) -> dict[str, Estimate]:
    """Every applicable headline metric, keyed by ``Metric.key``."""
    return {m.key: estimate(agg, m) for m in metrics_for(agg)}


# --------------------------------------------------------------------------- #
# Number formatting
# --------------------------------------------------------------------------- #


def num_ci(e: Estimate, unit: str = "", decimals: int | None = None) -> str:
    """``"50.2 turns (95% CI 50.0–50.4)"``; just the value when there is no interval."""
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
    """Three significant digits without exponent noise: 41.6, 0.0113, 1,234."""
    if not math.isfinite(x):
        return "n/a"
    if x == 0 or abs(x) >= 100:
        return f"{x:,.0f}"
    d = max(0, 2 - math.floor(math.log10(abs(x))))
    return f"{x:,.{d}f}"


def pct_ci(e: Estimate) -> str:
    """``"25.9% (95% CI 25.6–26.2%)"`` with decimals set by the interval width."""
    if not math.isfinite(e.value):
        return "n/a"
    lo, hi = 100 * e.low, 100 * e.high
    d = stats.ci_decimals(lo, hi)
    if e.value == 0:
        d = max(d, 3)
    d = min(d, 3)
    return f"{100 * e.value:.{d}f}% (95% CI {lo:.{d}f}–{hi:.{d}f}%)"


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


def ordinal(k: int) -> str:
    """1 -> '1st', 2 -> '2nd', 11 -> '11th'."""
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def position_name(i: int, n: int) -> str:
    """Seat position from the dealer: 0 is the dealer's left (plays first), n-1 the dealer."""
    name = ordinal(i + 1)
    if i == 0:
        return f"{name} (dealer's left)"
    if i == n - 1:
        return f"{name} (dealer)"
    return name


# --------------------------------------------------------------------------- #
# A tiny document model rendered to both Markdown and self-contained HTML
# --------------------------------------------------------------------------- #

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;
margin:2em auto;padding:0 1em;color:#222;line-height:1.5}
h1{font-size:1.7em;margin-bottom:.2em}h2{margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:1em 0;font-size:.92em}
th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}
th{background:#f3f3f3}tr:nth-child(even) td{background:#fafafa}
img{max-width:100%;height:auto;display:block;margin:1em 0}
code,pre{background:#f5f5f5;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em}
pre{padding:.8em;overflow-x:auto}.lead{font-size:1.08em;background:#f4f8ff;
padding:.8em 1em;border-left:4px solid #1f77b4}
"""


def _inline_html(text: str) -> str:
    """Escape, then turn `code` and **bold** into tags (the only inline markup we write)."""
    out = html.escape(text, quote=False)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", out)


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


@dataclass
class Doc:
    """Headings, paragraphs, tables, code and images, written as .md and .html.

    One model for both formats keeps them in step; images are files next to
    the Markdown and base64 data URIs inside the HTML.
    """

    title: str
    blocks: list[tuple[str, Any]] = field(default_factory=list)

    def h2(self, text: str) -> None:
        self.blocks.append(("h2", text))

    def h3(self, text: str) -> None:
        self.blocks.append(("h3", text))

    def p(self, text: str, lead: bool = False) -> None:
        self.blocks.append(("lead" if lead else "p", text))

    def ul(self, items: Sequence[str]) -> None:
        self.blocks.append(("ul", list(items)))

    def table(self, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        self.blocks.append(("table", ([str(h) for h in header],
                                      [[str(c) for c in r] for r in rows])))

    def code(self, text: str, lang: str = "") -> None:
        self.blocks.append(("code", (text.rstrip("\n"), lang)))

    def image(self, path: str | Path, alt: str) -> None:
        self.blocks.append(("img", (Path(path), alt)))

    def images(self) -> list[Path]:
        """Every image file the document shows."""
        return [b[1][0] for b in self.blocks if b[0] == "img"]

    def to_markdown(self, base: Path) -> str:
        """Markdown with image links relative to ``base`` (the .md file's folder)."""
        out = [f"# {self.title}", ""]
        for kind, body in self.blocks:
            if kind == "h2":
                out += [f"## {body}", ""]
            elif kind == "h3":
                out += [f"### {body}", ""]
            elif kind in ("p", "lead"):
                out += [body, ""]
            elif kind == "ul":
                out += [f"- {item}" for item in body] + [""]
            elif kind == "table":
                header, rows = body
                out.append("| " + " | ".join(_md_cell(h) for h in header) + " |")
                out.append("|" + "|".join("---" for _ in header) + "|")
                out += ["| " + " | ".join(_md_cell(c) for c in r) + " |" for r in rows]
                out.append("")
            elif kind == "code":
                text, lang = body
                out += [f"```{lang}", text, "```", ""]
            elif kind == "img":
                path, alt = body
                rel = Path(os.path.relpath(path, base)).as_posix()
                out += [f"![{alt}]({rel})", ""]
        return "\n".join(out).rstrip("\n") + "\n"

    def to_html(self) -> str:
        """A standalone HTML page; every image is inlined so it opens offline."""
        out = [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{html.escape(self.title)}</title>",
            f"<style>{_CSS}</style>",
            "</head>",
            "<body>",
            f"<h1>{_inline_html(self.title)}</h1>",
        ]
        for kind, body in self.blocks:
            if kind in ("h2", "h3"):
                out.append(f"<{kind}>{_inline_html(body)}</{kind}>")
            elif kind == "p":
                out.append(f"<p>{_inline_html(body)}</p>")
            elif kind == "lead":
                out.append(f'<p class="lead">{_inline_html(body)}</p>')
            elif kind == "ul":
                out.append("<ul>" + "".join(f"<li>{_inline_html(i)}</li>" for i in body)
                           + "</ul>")
            elif kind == "table":
                header, rows = body
                out.append("<table>")
                out.append("<thead><tr>" + "".join(f"<th>{_inline_html(h)}</th>"
                                                   for h in header) + "</tr></thead>")
                out.append("<tbody>")
                for r in rows:
                    out.append("<tr>" + "".join(f"<td>{_inline_html(c)}</td>" for c in r)
                               + "</tr>")
                out.append("</tbody></table>")
            elif kind == "code":
                text, _ = body
                out.append(f"<pre><code>{html.escape(text, quote=False)}</code></pre>")
            elif kind == "img":
                path, alt = body
                data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
                out.append(f'<img src="data:image/png;base64,{data}" '
                           f'alt="{html.escape(alt)}">')
        out += ["</body>", "</html>"]
        return "\n".join(out) + "\n"

    def write(self, out_dir: str | Path, stem: str) -> list[Path]:
        """Write ``stem.md`` and ``stem.html`` into ``out_dir``; returns both paths."""
        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        md = out_dir / f"{stem}.md"
        page = out_dir / f"{stem}.html"
        md.write_text(self.to_markdown(out_dir), encoding="utf-8")
        page.write_text(self.to_html(), encoding="utf-8")
        return [md, page]


# --------------------------------------------------------------------------- #
# The run report
# --------------------------------------------------------------------------- #


def _lookup(summary: Mapping[str, Any] | None, *keys: str) -> Any:
    """First of ``keys`` found in the summary or its ``config`` / ``run`` sections."""
    if not summary:
        return None
    for section in (summary, summary.get("config") or {}, summary.get("run") or {}):
        if isinstance(section, Mapping):
            for k in keys:
                if section.get(k) is not None:
                    return section[k]
    return None


def config_yaml(cfg: GameConfig, games: int | None = None, seed: Any = None) -> str:
    """The resolved config as YAML, with the games and seed actually run."""
    data = config_to_dict(cfg)
    if games is not None:
        data["games"] = games
    if seed is not None:
        data["seed"] = seed
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=None)


def _fair_test(k: int, n: int, fair: float) -> str:
    """'above' / 'below' / 'consistent with' a fair share, by its 95% Wilson interval."""
    _, lo, hi = stats.wilson_interval(k, n)
    if lo > fair:
        return "above fair"
    if hi < fair:
        return "below fair"
    return "consistent with fair"


def policy_groups(cfg: GameConfig) -> dict[str, list[int]]:
    """Seats by policy name, in seat order."""
    groups: dict[str, list[int]] = {}
    for seat, pol in enumerate(cfg.seat_policies):
        groups.setdefault(pol, []).append(seat)
    return groups


def describe_rules(cfg: GameConfig) -> str:
    """One line naming the edition and any house rule switched on."""
    hr = cfg.house_rules
    on = [name for name, flag in (
        ("Draw Two on Draw Two", hr.stacking.draw_two_on_draw_two),
        ("Wild Draw Four on Wild Draw Four", hr.stacking.wd4_on_wd4),
        ("Wild Draw Four on Draw Two", hr.stacking.wd4_on_draw_two),
        ("Draw Two on Wild Draw Four", hr.stacking.draw_two_on_wd4),
        ("jump-in", hr.jump_in), ("Seven-O", hr.seven_o),
        ("draw until you can play", hr.draw_until_play),
        ("two-player Reverse acts as Skip", hr.two_player_reverse and cfg.players == 2),
    ) if flag]
    ed = cfg.edition_spec
    text = f"{ed.title}"
    if ed.special:
        text += f" (special wild: {ed.special.name})"
    text += "; house rules: " + (", ".join(on) if on else "none")
    return text


def _conclusion(cfg: GameConfig, agg: Mapping[str, np.ndarray], seed: Any) -> str:
    """The plain-language first paragraph: length, first-player edge, draws, stalemates."""
    n = n_rounds(agg)
    games = int(agg["counts"][0])
    players = cfg.players
    if n == 0:
        return f"No rounds were played ({games:,} games, seed {seed})."
    t = stats.summarize_hist(agg["turns_hist"])
    mean_e = Estimate(t.mean, t.ci_low, t.ci_high, n)
    parts = []
    if is_match(agg):
        parts.append(
            f"Across {games:,} {players}-player matches to {cfg.target} points of "
            f"**{cfg.name}** ({n:,} rounds in all, seed {seed}), a round lasted "
            f"{num_ci(mean_e, 'turns')} on average"
        )
    else:
        parts.append(
            f"Across {n:,} {players}-player rounds of **{cfg.name}** (seed {seed}), a round "
            f"lasted {num_ci(mean_e, 'turns')} on average"
        )
    parts[-1] += (f"; half were over within {t.median:,.0f} turns and nine in ten within "
                  f"{t.p90:,.0f}.")
    k0 = int(agg["wins_pos"][0])
    fair = 1.0 / players
    e0 = estimate(agg, METRIC_BY_KEY["first_player_win_rate"])
    verdict = _fair_test(k0, n, fair)
    if verdict == "above fair":
        ratio = e0.value / fair
        edge = (f"a real first-player advantage: {ratio:.2f} times the fair share of "
                f"{100 * fair:.1f}%")
    elif verdict == "below fair":
        edge = f"less than the fair share of {100 * fair:.1f}%: a first-player disadvantage"
    else:
        edge = (f"no significant difference from the fair share of {100 * fair:.1f}% at "
                "this sample size")
    parts.append(
        f"The player on the dealer's left, who normally plays first, won {pct_ci(e0)} of "
        f"rounds, {edge}."
    )
    groups = policy_groups(cfg)
    if len(groups) > 1:
        bits = []
        for pol, seats in groups.items():
            k = int(agg["wins_seat"][seats].sum())
            r = Estimate(*stats.wilson_interval(k, n), n)
            bits.append(f"{len(seats)} {pol} seat{'s' if len(seats) > 1 else ''} won "
                        f"{pct_ci(r)} of rounds (fair {100 * len(seats) / players:.1f}%)")
        parts.append("By policy: " + "; ".join(bits) + ".")
    d = estimate(agg, METRIC_BY_KEY["drawn_mean"])
    turn_draws = float(agg["sums"][L.R_DRAW_BY_CAUSE + L.CAUSE_TURN])
    total_draws = float(agg["sums"][L.R_DRAWN])
    pen = 1.0 - turn_draws / total_draws if total_draws else 0.0
    parts.append(f"Players drew {num_ci(d, 'cards')} per round, {100 * pen:.0f}% of them "
                 "as penalties or special-card effects.")
    ks = int(agg["counts"][2])
    if ks == 0:
        parts.append(f"No round hit the {cfg.max_turns:,}-turn stalemate cap.")
    else:
        parts.append(
            f"{ks:,} rounds hit the {cfg.max_turns:,}-turn cap and ended in a stalemate "
            f"({pct_ci(estimate(agg, METRIC_BY_KEY['stalemate_rate']))})."
        )
    if is_match(agg):
        mr = estimate(agg, METRIC_BY_KEY["match_rounds_mean"])
        parts.append(f"A match took {num_ci(mr, 'rounds')} on average.")
    return " ".join(parts)


def write_report(
    out_dir: str | Path,
    cfg: GameConfig,
    aggregates: Mapping[str, np.ndarray],
    summary: Mapping[str, Any] | None = None,
) -> list[Path]:
    """Write report.md, report.html and the PNG charts of one run; returns their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    agg = {k: np.asarray(v) for k, v in aggregates.items()}
    if "sums_sq" not in agg and "batch_sums" not in agg:
        agg.update(load_batches(out, agg, _lookup(summary, "config_hash")))
    seed = _lookup(summary, "seed")
    seed = cfg.seed if seed is None else seed
    n = n_rounds(agg)
    games = int(agg["counts"][0])
    players = cfg.players
    match = is_match(agg)
    doc = Doc(f"{cfg.name}: {players} players, {n:,} rounds")
    doc.p(_conclusion(cfg, agg, seed), lead=True)

    sample = (f"**Sample:** {games:,} {'matches' if match else 'games'} ({n:,} rounds), "
              f"seed {seed}, unosim {_lookup(summary, 'version', 'unosim_version') or __version__}. "
              f"**Rules:** {describe_rules(cfg)}. **Policies:** "
              + ", ".join(f"{len(s)} × {p}" for p, s in policy_groups(cfg).items()) + ".")
    doc.p(sample)
    doc.p("Intervals are 95%: t intervals for means, order-statistic intervals for "
          "quantiles, Wilson score intervals for rates.")

    # --- round length ---------------------------------------------------------
    doc.h2("Round length")
    t = stats.summarize_hist(agg["turns_hist"])
    rows = [
        ["Mean turns per round", fmt_metric(estimate(agg, METRIC_BY_KEY["turns_mean"]),
                                            METRIC_BY_KEY["turns_mean"])],
        ["Median", fmt_metric(order_ci(agg["turns_hist"], 0.5), METRIC_BY_KEY["turns_median"])],
        ["10th / 90th percentile", f"{t.p10:,.0f} / {t.p90:,.0f}"],
        ["Standard deviation", f"{t.std:,.1f}"],
        ["Shortest / longest", f"{t.min:,.0f} / {t.max:,.0f}"],
        ["Rounds", f"{t.n:,}"],
    ]
    doc.table(["Turns", "Value"], rows)
    pngs = [charts.turns_chart([charts.Series(cfg.name, agg["turns_hist"])],
                               out / "turns.png",
                               f"Turns per round: {cfg.name}, {players} players, {n:,} rounds")]
    doc.image(pngs[-1], "Histogram and cumulative distribution of turns per round")
    doc.p("A turn is one player's go (a play, a draw, or a skipped turn); see RULES.md "
          "section 8 for exactly what is counted.")

    # --- who wins --------------------------------------------------------------
    doc.h2("Who wins: seat position")
    fair = 1.0 / players
    rows = []
    for i in range(players):
        k = int(agg["wins_pos"][i])
        e = Estimate(*stats.wilson_interval(k, n), n) if n else Estimate(NAN, NAN, NAN, 0)
        rows.append([position_name(i, players), f"{k:,}", pct_ci(e),
                     _fair_test(k, n, fair) if n else "n/a"])
    doc.table(["Position", "Rounds won", "Win rate", f"vs fair {100 * fair:.1f}%"], rows)
    p_uniform = stats.chi_square_uniform(agg["wins_pos"])
    chi = (f" Chi-square test that every position wins equally often: p = {p_uniform:.2g}."
           if math.isfinite(p_uniform) else "")
    doc.p("Position is counted from each round's dealer: the 1st seat sits on the dealer's "
          f"left and normally plays first. Rates are out of all {n:,} rounds (stalemates "
          f"have no winner).{chi}")
    pngs.append(charts.rate_chart(
        charts.position_labels(players), agg["wins_pos"], n, fair, out / "win_position.png",
        f"Win rate by seat position: {cfg.name}, {players} players",
        "seat position, in playing order from the dealer's left"))
    doc.image(pngs[-1], "Win rate by seat position with 95% Wilson intervals")

    groups = policy_groups(cfg)
    if len(groups) > 1:
        doc.h2("Who wins: policy")
        rows = []
        for pol, seats in groups.items():
            k = int(agg["wins_seat"][seats].sum())
            share = len(seats) / players
            rows.append([pol, ", ".join(str(s) for s in seats), f"{k:,}",
                         pct_ci(Estimate(*stats.wilson_interval(k, n), n)),
                         f"{100 * share:.1f}%", _fair_test(k, n, share)])
        doc.table(["Policy", "Seats", "Rounds won", "Share of rounds won", "Fair share",
                   "Verdict"], rows)
        pol_color = {p: charts.COLORS[i] for i, p in enumerate(groups)}
        pols = cfg.seat_policies
        pngs.append(charts.rate_chart(
            [f"seat {s}\n{pols[s]}" for s in range(players)], agg["wins_seat"], n, fair,
            out / "win_seat.png", f"Win rate by seat and policy: {cfg.name}",
            "seat (each seat plays every position equally often)",
            colors=[pol_color[p] for p in pols], legend=list(pol_color.items())))
        doc.image(pngs[-1], "Win rate by seat, coloured by policy, with 95% Wilson intervals")

    # --- scores ------------------------------------------------------------------
    doc.h2("Scores")
    pts = estimate(agg, METRIC_BY_KEY["points_mean"])
    ps = stats.summarize_hist(agg["points_hist"])
    rows = [["Points per round (scored by the round's winner)", num_ci(pts, "points")],
            ["Median / 90th percentile", f"{ps.median:,.0f} / {ps.p90:,.0f}"]]
    panels = [("Points scored per round", agg["points_hist"], "points")]
    if match:
        mr = estimate(agg, METRIC_BY_KEY["match_rounds_mean"])
        mg = estimate(agg, METRIC_BY_KEY["margin_mean"])
        un = estimate(agg, METRIC_BY_KEY["unfinished_rate"])
        rows += [["Rounds per match", num_ci(mr, "rounds")],
                 ["Final margin (winner over the closest other seat)", num_ci(mg, "points")],
                 [f"Unfinished matches (hit max_rounds {cfg.max_rounds:,})", pct_ci(un)]]
        panels += [("Rounds per match", agg["match_rounds_hist"], "rounds"),
                   ("Final winning margin", agg["margin_hist"], "points")]
    doc.table(["Score", "Value"], rows)
    pngs.append(charts.hist_chart(panels, out / "scores.png",
                                  f"Scores: {cfg.name}, {players} players"))
    doc.image(pngs[-1], "Distribution of points per round" +
              (", rounds per match and final margins" if match else ""))
    if match:
        finished = games - int(agg["counts"][3])
        mw = agg["match_wins_seat"]
        per_match = float(mw.sum()) / finished if finished else 1.0
        share = per_match / players
        rows = []
        for s in range(players):
            k = int(mw[s])
            e = Estimate(*stats.wilson_interval(k, finished), finished) if finished else \
                Estimate(NAN, NAN, NAN, 0)
            rows.append([f"seat {s}" + (" (deals first)" if s == 0 else "")
                         + (" (plays first in round 1)" if s == 1 % players else ""),
                         f"{k:,}", pct_ci(e), _fair_test(k, finished, share) if finished
                         else "n/a"])
        doc.table(["Seat", "Matches won", "Match win rate", f"vs fair {100 * share:.1f}%"],
                  rows)
        doc.p(f"Out of {finished:,} finished matches; the deal passes to the left each round.")

    # --- draws -------------------------------------------------------------------
    doc.h2("Draws, penalties, reshuffles and stalemates")
    total = float(agg["sums"][L.R_DRAWN])
    rows, bar_labels, means, lows, highs = [], [], [], [], []
    for i, cause in enumerate(L.CAUSES):
        idx = L.R_DRAW_BY_CAUSE + i
        if agg["sums"][idx] == 0 and cause not in ("turn", "draw2", "wd4"):
            continue
        e = per_round_estimate(agg, idx)
        share = float(agg["sums"][idx]) / total if total else NAN
        rows.append([CAUSE_LABELS[cause], num_ci(e), f"{100 * share:.1f}%"])
        bar_labels.append(CAUSE_LABELS[cause])
        means.append(e.value)
        lows.append(e.low)
        highs.append(e.high)
    rows.append(["**all causes**", num_ci(estimate(agg, METRIC_BY_KEY["drawn_mean"])),
                 "100%"])
    doc.table(["Cause", "Cards drawn per round", "Share of all draws"], rows)
    rows = []
    for idx, label in EVENT_LABELS.items():
        if agg["sums"][idx] == 0 and idx not in (L.R_RESHUFFLES, L.R_PLAYED):
            continue
        rows.append([label, num_ci(per_round_estimate(agg, idx))])
    st_e = estimate(agg, METRIC_BY_KEY["stalemate_rate"])
    rows.append([f"stalemates (rounds reaching max_turns {cfg.max_turns:,})",
                 f"{int(agg['counts'][2]):,} of {n:,} rounds: {pct_ci(st_e)}"])
    doc.table(["Per round", "Value"], rows)
    if "sums_sq" in agg:
        doc.p("Per-round counts carry t intervals from per-round sums of squares.")
    elif math.isfinite(per_round_se(agg, L.R_DRAWN)[1]):
        doc.p(f"Counts kept only as run totals (draws by cause, reshuffles, other events) "
              f"carry batch-means t intervals: the run's {len(agg['batch_rounds'])} chunks of "
              "games are independent batches.")
    else:
        doc.p("Counts kept only as run totals (draws by cause, reshuffles, other events) are "
              f"shown without an interval: they need the run's chunk files (at least "
              f"{MIN_BATCHES}) or per-round sums of squares.")
    resh = per_round_estimate(agg, L.R_RESHUFFLES)
    note = (f"Reshuffles: {resh.value:.3f} per round. Stalemates: {int(agg['counts'][2]):,} of "
            f"{n:,} rounds ({pct_ci(st_e)}).")
    pngs.append(charts.draws_chart(bar_labels, means, lows, highs, agg["drawn_hist"], note,
                                   out / "draws.png",
                                   f"Cards drawn: {cfg.name}, {players} players"))
    doc.image(pngs[-1], "Cards drawn per round by cause, and the distribution of the total")

    # --- provenance -----------------------------------------------------------------
    doc.h2("How this was made")
    command = _lookup(summary, "command")
    lines = []
    if command:
        lines.append(f"Command: `{command}`")
    lines.append(f"Seed {seed}; {games:,} {'matches' if match else 'games'}; {n:,} rounds.")
    chash = _lookup(summary, "config_hash")
    if chash:
        lines.append(f"Config hash `{chash}`.")
    doc.ul(lines)
    doc.p("Resolved config:")
    doc.code(config_yaml(cfg, games, seed), "yaml")
    return doc.write(out, "report") + pngs
