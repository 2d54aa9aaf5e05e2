"""Compare rule sets: the same headline metrics side by side, with tests and verdicts.

Each config is run on the same number of games (through ``unosim.run.runner``
when it is installed, in-process ``simulate`` otherwise) or read back from an
existing run directory. Every metric of the later configs is compared with the
first: the difference, its 95% interval, a p-value (Welch t and Mann-Whitney
for lengths, a bootstrap interval for quantiles, a two-proportion test for
rates) and the relative change, then one plain-language verdict per question.

Runs that share a seed share each game's random stream. The intervals treat
the samples as independent, which is conservative when rule sets play
similarly (their results are then positively correlated), so a same-seed
comparison never claims more precision than the samples give.
"""

from __future__ import annotations

import csv
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from unosim.analysis import stats
from unosim.engine import layout as L
from unosim.engine.batch import AGG_KEYS, empty_aggregates, merge_aggregates, simulate
from unosim.report import charts
from unosim.report.run_report import (
    CAUSE_LABELS,
    METRIC_BY_KEY,
    Doc,
    Estimate,
    Metric,
    config_yaml,
    estimate,
    fmt_metric,
    is_match,
    load_batches,
    metrics_for,
    n_rounds,
    num_ci,
    pct_ci,
    per_round_estimate,
    per_round_se,
    position_name,
)
from unosim.rules.config import GameConfig, compile_config, config_hash, config_to_dict

__all__ = [
    "Comparison",
    "Diff",
    "Run",
    "compare_runs",
    "describe_difference",
    "load_run",
    "run_config",
    "run_label",
    "write_comparison",
]

NAN = float("nan")
BOOT = 1000  # bootstrap resamples for quantile differences; O(BOOT x bins)


# --------------------------------------------------------------------------- #
# Running or loading one config
# --------------------------------------------------------------------------- #


@dataclass
class Run:
    """One config's merged aggregates and where they came from."""

    cfg: GameConfig
    aggregates: dict[str, np.ndarray]
    seed: int
    games: int
    out: Path | None = None
    summary: dict[str, Any] | None = None
    reused: bool = False

    @property
    def rounds(self) -> int:
        return n_rounds(self.aggregates)


def _chunk_size(games: int) -> int:
    """About 64 chunks: enough batches for batch-means intervals on per-round totals."""
    return min(50_000, max(100, -(-games // 64)))


def compact_run_dir(run_dir: str | Path) -> bool:
    """Replace a finished run's ``chunks/`` by one small ``batches.npz``.

    Chunk files are the runner's checkpoints (tens of KB each, 64 per run);
    once a run is complete only their per-chunk sums matter to a report.
    Returns whether the directory was compacted.
    """
    import shutil

    d = Path(run_dir)
    if not (d / "chunks").is_dir() or not (d / "aggregates.npz").is_file():
        return False
    try:
        run = load_run(d)
    except (OSError, ValueError, KeyError):
        return False
    if "batch_sums" not in run.aggregates:
        return False
    key = (run.summary or {}).get("config_hash", "")
    np.savez_compressed(d / "batches.npz", batch_sums=run.aggregates["batch_sums"],
                        batch_rounds=run.aggregates["batch_rounds"], config_hash=np.array(key))
    shutil.rmtree(d / "chunks")
    return True


def _simulate_in_process(cfg: GameConfig, games: int, seed: int) -> dict[str, np.ndarray]:
    """All games in this process, chunked so batch sums exist (tests, quick checks)."""
    cc = compile_config(cfg)
    total = empty_aggregates(cc)
    size = _chunk_size(games)
    bsums, brounds = [], []
    for start in range(0, games, size):
        agg, _ = simulate(cc, seed, start, min(size, games - start))
        bsums.append(agg["sums"].copy())
        brounds.append(int(agg["counts"][1]))
        total = merge_aggregates(total, agg)
    total["batch_sums"] = np.vstack(bsums)
    total["batch_rounds"] = np.asarray(brounds, dtype=np.int64)
    return total


def _run_hash(cfg: GameConfig, games: int, seed: int) -> str:
    return config_hash(cfg.model_copy(update={"games": int(games), "seed": int(seed)}))


def run_config(
    cfg: GameConfig,
    *,
    games: int,
    seed: int,
    out: str | Path | None = None,
    jobs: int | None = None,
    progress: bool = False,
    reuse: bool = False,
    on_warning: Callable[[str], None] | None = None,
    backend: str = "loky",
    scheduler: str | None = None,
) -> Run:
    """Simulate ``games`` games of ``cfg`` (or reuse ``out`` if it already holds exactly that).

    Runs through ``unosim.run.runner.run_simulation``. ``out`` is
    overwritten unless ``reuse`` finds a finished run of the same config,
    seed and games there.
    """
    out_dir = Path(out) if out is not None else None
    key = _run_hash(cfg, games, seed)
    if reuse and out_dir is not None and (out_dir / "aggregates.npz").is_file():
        try:
            old = load_run(out_dir)
        except (OSError, ValueError, KeyError):
            old = None
        if old is not None and old.summary and old.summary.get("config_hash") == key:
            return old
    from unosim.run.runner import run_simulation

    res = run_simulation(cfg, games=games, seed=seed, jobs=jobs, out=out_dir, force=True,
                         progress=progress, chunk_size=_chunk_size(games),
                         on_warning=on_warning, backend=backend, scheduler=scheduler)
    agg = dict(res.aggregates)
    if out_dir is not None:
        agg.update(load_batches(out_dir, agg, key))
    return Run(cfg, agg, seed, games, out_dir, dict(res.summary))


def load_run(run_dir: str | Path) -> Run:
    """A finished run directory (``aggregates.npz`` + ``summary.json``) as a ``Run``.

    Raises ``ValueError`` with a one-line reason when the directory is not a run.
    """
    from unosim.rules.config import validate_config

    d = Path(run_dir)
    npz, sj = d / "aggregates.npz", d / "summary.json"
    if not npz.is_file() or not sj.is_file():
        raise ValueError(f"{d} is not a finished run directory (needs aggregates.npz and "
                         "summary.json)")
    summary = json.loads(sj.read_text())
    if not isinstance(summary.get("config"), dict):
        raise ValueError(f"{sj} holds no resolved config")
    cfg = validate_config(summary["config"], sj)
    with np.load(npz, allow_pickle=False) as z:
        agg = {k: np.array(z[k], dtype=np.int64) for k in z.files
               if k in AGG_KEYS or k in ("sums_sq", "batch_sums", "batch_rounds")}
    missing = [k for k in AGG_KEYS if k not in agg]
    if missing:
        raise ValueError(f"{npz} lacks {', '.join(missing)}")
    if "batch_sums" not in agg:
        agg.update(load_batches(d, agg, summary.get("config_hash")))
    seed = int(summary.get("seed", cfg.seed))
    return Run(cfg, agg, seed, int(agg["counts"][0]), d, summary, reused=True)


# --------------------------------------------------------------------------- #
# Labels: by name, or by what differs from the first config
# --------------------------------------------------------------------------- #

_STACK = {
    "draw_two_on_draw_two": "Draw Two on Draw Two",
    "wd4_on_wd4": "Wild Draw Four on Wild Draw Four",
    "wd4_on_draw_two": "Wild Draw Four on Draw Two",
    "draw_two_on_wd4": "Draw Two on Wild Draw Four",
}
_RULES = {
    "jump_in": "jump-in",
    "seven_o": "Seven-O",
    "draw_until_play": "draw until you can play",
    "two_player_reverse": "two-player Reverse as Skip",
}


def _flat(d: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        if isinstance(v, Mapping):
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def stacking_phrase(switches: Mapping[str, Any], short: bool = False) -> str:
    """'stacking (Draw Two on Draw Two)', 'full stacking (...)' or 'no stacking'.

    ``short`` drops the explanation of full stacking, for lists of several changes.
    """
    on = [_STACK[k] for k in _STACK if switches.get(k)]
    if not on:
        return "no stacking"
    if len(on) == len(_STACK):
        return "full stacking" + ("" if short else " (every draw card on every other)")
    return f"stacking ({', '.join(on)})"


def describe_difference(base: GameConfig, cfg: GameConfig) -> list[str]:
    """Plain phrases for how ``cfg`` differs from ``base`` (name, games and seed ignored).

    A switch that cannot act (two-player Reverse with more than two players)
    is left out; so are the behaviour rates an edition change brings along.
    """
    a, b = _flat(config_to_dict(base)), _flat(config_to_dict(cfg))
    changed = [k for k in b if a.get(k) != b[k] and k not in ("name", "games", "seed")]
    items: list[str] = []
    stack_short = sum(1 for k in changed if not k.startswith("house_rules.stacking.")) > 0
    if "edition" in changed:
        ed = cfg.edition_spec
        items.append(ed.title + (f" ({ed.special.name})" if ed.special else " edition"))
    stack_keys = [k for k in changed if k.startswith("house_rules.stacking.")]
    if stack_keys:
        sw = {k.rsplit(".", 1)[1]: b[k] for k in b if k.startswith("house_rules.stacking.")}
        items.append(stacking_phrase(sw, short=stack_short))
    for key, phrase in _RULES.items():
        k = f"house_rules.{key}"
        if k in changed and not (key == "two_player_reverse" and cfg.players != 2):
            items.append(phrase if b[k] else f"no {phrase}")
    for k in changed:
        if k == "edition" or k.startswith("house_rules."):
            continue
        if k.startswith("behaviour.") and "edition" in changed:
            continue
        v = b[k]
        if k == "players":
            items.append(f"{v} players")
        elif k == "decks":
            items.append(f"{v} decks")
        elif k == "hand_size":
            items.append(f"{v}-card hands")
        elif k == "mode":
            items.append("matches to a target" if v == "match" else "single rounds")
        elif k == "seats":
            items.append("seats " + ", ".join(v) if v else "one policy for all seats")
        else:
            items.append(f"{k.split('.')[-1].replace('_', ' ')} {v}")
    return items


def run_label(base: GameConfig, cfg: GameConfig) -> str:
    """The subject of a verdict: what differs from ``base`` when short, else the name."""
    items = describe_difference(base, cfg)
    if not items:
        return cfg.name
    if len(items) <= 2:
        return " with ".join(items) if len(items) == 2 else items[0]
    return f"{cfg.name} ({', '.join(items)})"


def unique_labels(runs: Sequence[Run]) -> list[str]:
    """Column labels: config names, made unique by the differing rules, then the seed."""
    labels = [r.cfg.name for r in runs]
    for i, r in enumerate(runs):
        if labels.count(r.cfg.name) > 1 and i > 0:
            items = describe_difference(runs[0].cfg, r.cfg)
            if items:
                labels[i] = f"{r.cfg.name} ({', '.join(items)})"
    for i, r in enumerate(runs):
        if labels.count(labels[i]) > 1:
            labels[i] = f"{labels[i]} (seed {r.seed})"
    for i in range(len(labels)):
        if labels.count(labels[i]) > 1:
            labels[i] = f"{labels[i]} #{i + 1}"
    return labels


# --------------------------------------------------------------------------- #
# Statistics of one metric between two runs
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class Diff:
    """``b - a`` for one metric, its 95% interval, p-values and relative change."""

    diff: float
    low: float
    high: float
    p_value: float
    test: str
    rel_change: float
    p_value_mw: float = NAN


def metric_diff(a: Mapping[str, np.ndarray], b: Mapping[str, np.ndarray], m: Metric,
                seed: int = 0) -> Diff:
    """Compare metric ``m`` of run ``b`` against baseline ``a``."""
    if m.kind == "mean":
        ha, hb = a[str(m.source)], b[str(m.source)]
        md = stats.diff_of_means_hist(ha, hb)
        _, p_mw = stats.mann_whitney_hist(ha, hb)
        return Diff(md.diff, md.low, md.high, md.p_value, "Welch t", md.rel_change, p_mw)
    if m.kind == "quantile":
        ha, hb = a[str(m.source)], b[str(m.source)]
        d, lo, hi = stats.bootstrap_diff_hist(ha, hb, stat=m.q, n_boot=BOOT, seed=seed)
        base = stats.quantile_hist(ha, m.q)
        _, p_mw = stats.mann_whitney_hist(ha, hb)
        return Diff(d, lo, hi, NAN, "bootstrap CI", d / base if base else NAN, p_mw)
    if m.kind == "rate":
        from unosim.report.run_report import rate_counts

        k1, n1 = rate_counts(a, str(m.source))
        k2, n2 = rate_counts(b, str(m.source))
        pd = stats.two_proportion_test(k1, n1, k2, n2)
        rel = pd.diff / pd.rate1 if pd.rate1 else NAN
        return Diff(pd.diff, pd.low, pd.high, pd.p_value, "two-proportion z", rel)
    if m.kind == "fair_ratio":
        from unosim.report.run_report import rate_counts

        k1, n1 = rate_counts(a, str(m.source))
        k2, n2 = rate_counts(b, str(m.source))
        p1, p2 = len(a["wins_pos"]), len(b["wins_pos"])
        if p1 != p2:  # different tables: compare the rates instead (see that row)
            return Diff(NAN, NAN, NAN, NAN, "n/a (player counts differ)", NAN)
        pd = stats.two_proportion_test(k1, n1, k2, n2)
        rel = pd.diff / pd.rate1 if pd.rate1 else NAN
        return Diff(p1 * pd.diff, p1 * pd.low, p1 * pd.high, pd.p_value, "two-proportion z",
                    rel)
    if m.kind == "per_round":
        idx = int(m.source)
        m1, se1, df1 = per_round_se(a, idx)
        m2, se2, df2 = per_round_se(b, idx)
        d, lo, hi, p = stats.welch_diff(m1, se1, df1, m2, se2, df2)
        return Diff(d, lo, hi, p, "Welch t (batch means)", d / m1 if m1 else NAN)
    raise ValueError(f"unknown metric kind {m.kind!r}")


def verdict_amount(a_label: str, b_label: str, what: str, unit: str, diff: Diff,
                   mean_a: float, mean_b: float, n_a: int, n_b: int,
                   alpha: float = 0.05) -> str:
    """'B makes players draw 12% more cards per round: ...', worded like stats.verdict_length."""
    who = b_label[:1].upper() + b_label[1:]
    counts = (f"{n_a:,} rounds each" if n_a == n_b else f"{n_a:,} and {n_b:,} rounds")
    if not all(math.isfinite(x) for x in (mean_a, mean_b, diff.p_value, diff.low)):
        return f"Not enough data to compare {what} under {b_label} with {a_label} ({counts})."
    d = stats.ci_decimals(diff.low, diff.high)
    nums = (f"{mean_a:,.{d}f} vs {mean_b:,.{d}f} {unit} (difference {diff.diff:+,.{d}f}, "
            f"95% CI {diff.low:+,.{d}f} to {diff.high:+,.{d}f}")
    if not diff.p_value < alpha:
        p = "p < 0.001" if diff.p_value < 0.001 else f"p = {diff.p_value:.2g}"
        return f"{who} makes no significant difference to {what}: {nums}, {p}, {counts})."
    rel_half = 100.0 * (diff.high - diff.low) / 2.0 / abs(mean_a) if mean_a else NAN
    pd = stats.ci_decimals(-rel_half, rel_half, sig=1) if math.isfinite(rel_half) else 0
    pct = f"{100.0 * abs(diff.rel_change):.{pd}f}% " if math.isfinite(diff.rel_change) else ""
    direction = "more" if diff.diff > 0 else "fewer"
    return f"{who} means {pct}{direction} {what}: {nums}, {counts})."


# --------------------------------------------------------------------------- #
# The comparison
# --------------------------------------------------------------------------- #


@dataclass
class Comparison:
    """Runs, their labels, every metric's estimates and differences, and the verdicts."""

    runs: list[Run]
    labels: list[str]
    subjects: list[str]
    metrics: list[Metric]
    values: dict[str, list[Estimate]]
    diffs: dict[str, list[Diff | None]]
    verdicts: list[list[str]] = field(default_factory=list)

    @property
    def base(self) -> Run:
        return self.runs[0]


def compare_runs(runs: Sequence[Run], labels: Sequence[str] | None = None) -> Comparison:
    """Every headline metric of every run, and each run's differences from the first."""
    runs = list(runs)
    if len(runs) < 2:
        raise ValueError("compare needs at least two runs")
    labels = list(labels) if labels is not None else unique_labels(runs)
    # Verdicts name what differs from the baseline ("stacking (Draw Two on Draw Two)");
    # configs that differ in nothing but seed or name keep their column label.
    subjects = [labels[0]] + [
        run_label(runs[0].cfg, r.cfg) if describe_difference(runs[0].cfg, r.cfg) else labels[i]
        for i, r in enumerate(runs[1:], start=1)]
    subjects = [s if subjects.count(s) == 1 else labels[i] for i, s in enumerate(subjects)]
    match = all(is_match(r.aggregates) for r in runs)
    metrics = [m for m in metrics_for(runs[0].aggregates) if match or not m.match_only]
    values = {m.key: [estimate(r.aggregates, m) for r in runs] for m in metrics}
    diffs: dict[str, list[Diff | None]] = {
        m.key: [None] + [metric_diff(runs[0].aggregates, r.aggregates, m, seed=i)
                         for i, r in enumerate(runs[1:], start=1)]
        for m in metrics}
    cmp = Comparison(runs, labels, subjects, metrics, values, diffs)
    cmp.verdicts = [_verdicts(cmp, i) for i in range(1, len(runs))]
    return cmp


def _verdicts(cmp: Comparison, i: int) -> list[str]:
    """The plain-language sentences for run ``i`` against the first run."""
    a, b = cmp.base, cmp.runs[i]
    al, bl = cmp.labels[0], cmp.subjects[i]
    ha, hb = a.aggregates, b.aggregates
    na, nb = a.rounds, b.rounds
    players = a.cfg.players if a.cfg.players == b.cfg.players else None
    out = [stats.verdict_length(al, bl, stats.diff_of_means_hist(ha["turns_hist"],
                                                                  hb["turns_hist"]),
                                na, nb, players=players)]
    from unosim.report.run_report import rate_counts

    def rate(source: str, what: str) -> str:
        k1, n1 = rate_counts(ha, source)
        k2, n2 = rate_counts(hb, source)
        return stats.verdict_rate(al, bl, what, stats.two_proportion_test(k1, n1, k2, n2),
                                  n1, n2)

    out.append(rate("first", "the player on the dealer's left (who normally plays first) "
                             "wins"))
    dd = cmp.diffs["drawn_mean"][i]
    va, vb = cmp.values["drawn_mean"][0].value, cmp.values["drawn_mean"][i].value
    if dd is not None:
        out.append(verdict_amount(al, bl, "cards drawn per round", "cards", dd, va, vb, na, nb))
    if ha["counts"][2] or hb["counts"][2]:
        out.append(rate("stalemate", "a round hits the turn cap (stalemate)"))
    if "match_rounds_mean" in cmp.values:
        md = stats.diff_of_means_hist(ha["match_rounds_hist"], hb["match_rounds_hist"])
        out.append(stats.verdict_length(al, bl, md, int(ha["match_rounds_hist"].sum()),
                                        int(hb["match_rounds_hist"].sum()), unit="rounds")
                   .replace("rounds each", "matches each").replace("round length",
                                                                   "match length"))
    return out


def _p_text(d: Diff) -> str:
    def one(p: float) -> str:
        return "<0.001" if p < 0.001 else f"{p:.2g}"

    parts = []
    if math.isfinite(d.p_value):
        parts.append(f"{one(d.p_value)} ({d.test})")
    elif d.test == "bootstrap CI":
        parts.append("CI only (bootstrap)")
    if math.isfinite(d.p_value_mw):
        parts.append(f"{one(d.p_value_mw)} (Mann–Whitney)")
    return "; ".join(parts) if parts else "n/a"


def _diff_text(d: Diff, m: Metric) -> tuple[str, str, str]:
    """(difference, its 95% CI, relative change) as table cells."""
    if not math.isfinite(d.diff):
        return "n/a", "n/a", "n/a"
    if not (math.isfinite(d.low) and math.isfinite(d.high)):
        rel = f"{100 * d.rel_change:+.1f}%" if math.isfinite(d.rel_change) else "n/a"
        return f"{d.diff:+.3g}", "n/a (totals only)", rel
    if m.percent:
        lo, hi = 100 * d.low, 100 * d.high
        dec = min(3, stats.ci_decimals(lo, hi))
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


def comparison_rows(cmp: Comparison) -> list[dict[str, Any]]:
    """Tidy rows (one per metric and config) for compare.csv."""
    rows = []
    for m in cmp.metrics:
        for i, r in enumerate(cmp.runs):
            e = cmp.values[m.key][i]
            d = cmp.diffs[m.key][i]
            rows.append({
                "metric": m.key, "metric_label": m.label, "config": r.cfg.name,
                "label": cmp.labels[i], "games": r.games, "rounds": r.rounds, "seed": r.seed,
                "value": e.value, "low": e.low, "high": e.high,
                "diff": d.diff if d else 0.0 if i == 0 else NAN,
                "diff_low": d.low if d else NAN, "diff_high": d.high if d else NAN,
                "rel_change": d.rel_change if d else NAN,
                "p_value": d.p_value if d else NAN, "test": d.test if d else "",
                "p_value_mann_whitney": d.p_value_mw if d else NAN,
            })
    for pos in range(min(r.cfg.players for r in cmp.runs)):
        k1, n1 = int(cmp.base.aggregates["wins_pos"][pos]), cmp.base.rounds
        for i, r in enumerate(cmp.runs):
            k2, n2 = int(r.aggregates["wins_pos"][pos]), r.rounds
            rate, lo, hi = stats.wilson_interval(k2, n2) if n2 else (NAN, NAN, NAN)
            pd = stats.two_proportion_test(k1, n1, k2, n2) if i else None
            rows.append({
                "metric": f"win_rate_position_{pos}",
                "metric_label": f"Win rate, {position_name(pos, r.cfg.players)}",
                "config": r.cfg.name, "label": cmp.labels[i], "games": r.games,
                "rounds": r.rounds, "seed": r.seed, "value": rate, "low": lo, "high": hi,
                "diff": pd.diff if pd else 0.0, "diff_low": pd.low if pd else NAN,
                "diff_high": pd.high if pd else NAN,
                "rel_change": pd.diff / pd.rate1 if pd and pd.rate1 else NAN,
                "p_value": pd.p_value if pd else NAN, "test": "two-proportion z" if pd else "",
                "p_value_mann_whitney": NAN,
            })
    return rows


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "run"


def write_comparison(
    cmp: Comparison,
    out_dir: str | Path,
    title: str | None = None,
    command: str | None = None,
    intro: Sequence[str] = (),
    stem: str = "compare",
) -> list[Path]:
    """compare.md, compare.html, compare.csv and the overlaid charts; returns their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    runs, labels = cmp.runs, cmp.labels
    base = cmp.base
    title = title or ("Comparison: " + " vs ".join(labels))
    doc = Doc(title)
    for para in intro:
        doc.p(para, lead=True)
    doc.h2("Verdicts")
    doc.p(f"Each rule set against **{labels[0]}**:")
    doc.ul([v for vs in cmp.verdicts for v in vs[:1]])
    seeds = sorted({r.seed for r in runs})
    games = sorted({r.games for r in runs})
    sample = (f"**Sample:** {', '.join(f'{g:,}' for g in games)} "
              f"{'matches' if all(is_match(r.aggregates) for r in runs) else 'games'} per "
              f"config; seed{'s' if len(seeds) > 1 else ''} {', '.join(map(str, seeds))}; "
              + "; ".join(f"{lab}: {r.rounds:,} rounds"
                          + (f" (reused from `{r.out}`)" if r.reused and r.out else "")
                          for lab, r in zip(labels, runs, strict=True)) + ".")
    doc.p(sample)
    if len(seeds) == 1:
        doc.p("All configs ran from the same seed, so game *g* starts from the same random "
              "stream under every rule set. The intervals and tests below assume independent "
              "samples, which is conservative for such positively correlated runs: they do "
              "not claim more precision than the samples give.")
    doc.h3("Other questions")
    depth = max(len(vs) for vs in cmp.verdicts)
    doc.ul([vs[q] for q in range(1, depth) for vs in cmp.verdicts if q < len(vs)])

    # --- overview table ---------------------------------------------------------------
    doc.h2("Headline metrics side by side")
    rows = []
    for m in cmp.metrics:
        rows.append([m.label] + [fmt_metric(cmp.values[m.key][i], m) for i in range(len(runs))])
    doc.table(["Metric"] + labels, rows)
    doc.p("Values with 95% intervals: t intervals for means, order-statistic intervals for "
          "quantiles, Wilson intervals for rates, batch-means t intervals for per-round "
          "totals (chunks of games as batches).")

    # --- differences ------------------------------------------------------------------
    doc.h2(f"Differences from {labels[0]}")
    rows = []
    for m in cmp.metrics:
        if m.kind == "rate" and all(v.value == 0 for v in cmp.values[m.key]):
            continue  # e.g. no stalemates anywhere: nothing to compare
        for i in range(1, len(runs)):
            d = cmp.diffs[m.key][i]
            assert d is not None
            diff, ci, rel = _diff_text(d, m)
            rows.append([m.label, labels[i], fmt_metric(cmp.values[m.key][i], m), diff, ci,
                         _p_text(d), rel])
    doc.table(["Metric", "Config", "Value (95% CI)", f"Difference from {labels[0]}",
               "95% CI of difference", "p-value (test)", "Relative change"], rows)
    doc.p("Differences are config minus the first config. Lengths are tested with Welch's t "
          "(means) and Mann–Whitney (whole distributions); quantile differences carry a "
          f"percentile-bootstrap interval ({BOOT:,} resamples); rates use a two-proportion "
          "z-test with Newcombe's interval.")
    pngs: list[Path] = []
    seriess = [charts.Series(lab, r.aggregates["turns_hist"])
               for lab, r in zip(labels, runs, strict=True)]
    players = {r.cfg.players for r in runs}
    pl = f"{next(iter(players))} players" if len(players) == 1 else "players vary"
    pngs.append(charts.turns_chart(seriess, out / f"{stem}_turns.png",
                                   f"Turns per round ({pl})"))
    doc.image(pngs[-1], "Overlaid distributions and CDFs of turns per round")
    m1 = cmp.values["turns_mean"][0].value
    dt = [cmp.diffs["turns_mean"][i] for i in range(1, len(runs))]
    dp = [cmp.diffs["first_player_win_rate"][i] for i in range(1, len(runs))]
    pngs.append(charts.forest_chart(
        labels[1:],
        [("change in mean turns per round (%)", [100 * d.diff / m1 for d in dt],
          [100 * d.low / m1 for d in dt], [100 * d.high / m1 for d in dt]),
         ("change in first-player win rate (percentage points)", [100 * d.diff for d in dp],
          [100 * d.low for d in dp], [100 * d.high for d in dp])],
        out / f"{stem}_effects.png", f"Effect of each rule set against {labels[0]} (95% CI)"))
    doc.image(pngs[-1], "Relative change in mean turns and change in first-player win rate, "
              "with 95% intervals")

    # --- win rate by position ------------------------------------------------------------
    doc.h2("Win rate by seat position")
    npos = min(players)
    rows = []
    for pos in range(npos):
        for i, r in enumerate(runs):
            k, n = int(r.aggregates["wins_pos"][pos]), r.rounds
            e = Estimate(*stats.wilson_interval(k, n), n)
            if i == 0:
                rows.append([position_name(pos, r.cfg.players), labels[i], pct_ci(e), "—",
                             "—", "—"])
                continue
            pd = stats.two_proportion_test(int(base.aggregates["wins_pos"][pos]),
                                           base.rounds, k, n)
            dm = Metric("x", "", "rate", "first", percent=True)
            diff, ci, _ = _diff_text(Diff(pd.diff, pd.low, pd.high, pd.p_value, "", NAN), dm)
            p = "<0.001" if pd.p_value < 0.001 else f"{pd.p_value:.2g}"
            rows.append(["", labels[i], pct_ci(e), diff, ci, p])
    doc.table(["Position", "Config", "Win rate (95% CI)", f"Difference from {labels[0]}",
               "95% CI of difference", "p-value (two-proportion z)"], rows)
    if len(players) == 1:
        n_pl = next(iter(players))
        pngs.append(charts.grouped_rates_chart(
            charts.position_labels(n_pl),
            [(lab, r.aggregates["wins_pos"], r.rounds) for lab, r in zip(labels, runs,
                                                                          strict=True)],
            1.0 / n_pl, out / f"{stem}_win_position.png",
            f"Win rate by seat position ({n_pl} players)",
            "seat position, in playing order from the dealer's left"))
        doc.image(pngs[-1], "Win rates by seat position for each config, 95% Wilson intervals")

    # --- draws -------------------------------------------------------------------------------
    doc.h2("Why cards are drawn")
    causes = [i for i, _ in enumerate(L.CAUSES)
              if any(r.aggregates["sums"][L.R_DRAW_BY_CAUSE + i] for r in runs)]
    rows = []
    for i, r in enumerate(runs):
        n = max(r.rounds, 1)
        rows.append([labels[i]] + [num_ci(per_round_estimate(r.aggregates,
                                                              L.R_DRAW_BY_CAUSE + c))
                                   for c in causes]
                    + [fmt_metric(cmp.values["drawn_mean"][i], METRIC_BY_KEY["drawn_mean"]),
                       fmt_metric(cmp.values["reshuffles_per_round"][i],
                                  METRIC_BY_KEY["reshuffles_per_round"])])
    doc.table(["Config"] + [CAUSE_LABELS[L.CAUSES[c]] for c in causes]
              + ["all causes (95% CI)", "reshuffles per round"], rows)
    parts = [(CAUSE_LABELS[L.CAUSES[c]],
              [r.aggregates["sums"][L.R_DRAW_BY_CAUSE + c] / max(r.rounds, 1) for r in runs])
             for c in causes]
    pngs.append(charts.stacked_bars_chart(labels, parts, out / f"{stem}_draws.png",
                                          "Cards drawn per round, by cause",
                                          "mean cards drawn per round"))
    doc.image(pngs[-1], "Mean cards drawn per round by cause, one bar per config")

    # --- provenance ----------------------------------------------------------------------------
    doc.h2("How this was made")
    if command:
        doc.code(command, "sh")
    for lab, r in zip(labels, runs, strict=True):
        doc.p(f"**{lab}** — {r.games:,} games, seed {r.seed}"
              + (f", run dir `{r.out}`" if r.out else "") + ":")
        doc.code(config_yaml(r.cfg, r.games, r.seed), "yaml")
    paths = doc.write(out, stem)
    csv_path = out / f"{stem}.csv"
    _write_csv(csv_path, comparison_rows(cmp))
    return paths + [csv_path] + pngs


def _write_csv(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        for row in rows:
            w.writerow({k: (f"{v:.10g}" if isinstance(v, float) else v) for k, v in row.items()})


def run_comparison(
    cfgs: Sequence[GameConfig],
    *,
    games: int,
    seeds: Sequence[int],
    out: str | Path | None = None,
    jobs: int | None = None,
    reuse: bool = False,
    progress: bool = False,
    prebuilt: Mapping[int, Run] | None = None,
    on_warning: Callable[[str], None] | None = None,
    **backend_opts: Any,
) -> Comparison:
    """Run every config (into ``out/runs/<label>`` when ``out`` is given) and compare them.

    ``prebuilt`` maps positions to runs loaded from existing run directories.
    """
    prebuilt = dict(prebuilt or {})
    runs: list[Run] = []
    provisional = unique_labels([Run(c, {}, s, games) for c, s in zip(cfgs, seeds,
                                                                       strict=True)])
    for i, (cfg, seed) in enumerate(zip(cfgs, seeds, strict=True)):
        if i in prebuilt:
            runs.append(prebuilt[i])
            continue
        run_dir = Path(out) / "runs" / _slug(provisional[i]) if out is not None else None
        runs.append(run_config(cfg, games=games, seed=seed, out=run_dir, jobs=jobs,
                               progress=progress, reuse=reuse, on_warning=on_warning,
                               **backend_opts))
    return compare_runs(runs)
