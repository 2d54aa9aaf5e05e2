"""From merged aggregates to ``summary.json`` and the few lines ``unosim run`` prints.

The summary is a pure function of the merged aggregates, the resolved config
and the seed: no timings, paths or chunking in it, so the same run gives a
byte-identical ``summary.json`` whatever the jobs, backend, chunk size or
resumes (run-specific facts live in ``run.json``). Rates of whole-run counts
carry 95% Wilson intervals; means of per-round histograms carry t intervals.

Schema (``schema_version`` 1; the JSON Schema is ``summary.schema.json`` next to
this module, see `SCHEMA_PATH`), every mean is per round unless named otherwise:

- ``games`` (rounds, or matches in match mode), ``rounds``;
- ``turns``, ``points``, ``cards_drawn``: ``{n, mean, std, sem, median, p10, p90,
  min, max, ci_low, ci_high}`` (inverted-CDF quantiles, see `unosim.analysis.stats`);
- ``win_rate_by_position``: index 0 is the seat to the dealer's left (the
  normal first player), clockwise to the dealer last; each entry
  ``{rate, low, high, wins}`` over all rounds (a stalemate is no win);
- ``win_rate_by_seat`` (same shape), ``win_rate_by_policy`` (``{policy: {rate,
  low, high, wins, seats}}``, the share of all rounds won by that policy's seats);
- ``stalemates`` ``{count, rate, low, high}``;
- ``cards_played``, ``reshuffles``, ``jumps``, ``swaps``, ``challenges``: means;
- ``draws_by_cause``: mean cards drawn per round for each cause of
  ``engine.state.CAUSES``; ``special``: ``{card, plays_per_round,
  cards_drawn_per_round}`` (``card`` is the edition's special wild, or null);
- ``matches`` (match mode only): ``{count, rounds_per_match, win_rate_by_seat,
  win_rate_by_policy, unfinished, margin}``;
- ``seed``, ``config_hash``, ``unosim_version``, ``config_name`` and ``config``
  (the resolved config, with the run's own ``games`` and ``seed``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from unosim import __version__
from unosim.analysis.stats import ci_decimals, format_ci, summarize_hist, wilson_interval
from unosim.engine import state as L
from unosim.rules.config import GameConfig, config_hash, config_to_dict
from unosim.run.files import atomic_write

if TYPE_CHECKING:
    from unosim.run import RunResult

SCHEMA_VERSION = 1
SCHEMA_PATH = Path(__file__).with_name("summary.schema.json")

_HIST_FIELDS = ("n", "mean", "std", "sem", "median", "p10", "p90", "min", "max",
                "ci_low", "ci_high")


def _clean(x: float) -> float | None:
    """JSON has no NaN: undefined statistics become null."""
    return None if isinstance(x, float) and not math.isfinite(x) else x


def hist_stats(hist: np.ndarray) -> dict[str, Any]:
    """Descriptive statistics of one histogram, JSON-ready."""
    s = summarize_hist(hist)
    out: dict[str, Any] = {}
    for f in _HIST_FIELDS:
        v = getattr(s, f)
        out[f] = int(v) if f == "n" else _clean(float(v))
    return out


def rate(k: int, n: int) -> dict[str, Any]:
    """``{rate, low, high}`` with a 95% Wilson interval (nulls when n is 0)."""
    r, lo, hi = wilson_interval(int(k), int(n))
    return {"rate": _clean(r), "low": _clean(lo), "high": _clean(hi)}


def _wins(wins: np.ndarray, n: int) -> list[dict[str, Any]]:
    return [{**rate(int(w), n), "wins": int(w)} for w in wins]


def _by_policy(wins_seat: np.ndarray, policies: Sequence[str], n: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in sorted(set(policies)):
        seats = [i for i, p in enumerate(policies) if p == name]
        k = int(sum(int(wins_seat[i]) for i in seats))
        # Partners matches have two winners, so a policy's wins can exceed n.
        out[name] = {**(rate(k, n) if k <= n else {"rate": k / n, "low": None, "high": None}),
                     "wins": k, "seats": len(seats)}
    return out


def build_summary(agg: dict[str, np.ndarray], cfg: GameConfig, *, seed: int,
                  games: int) -> dict[str, Any]:
    """The ``summary.json`` document for merged aggregates of ``games`` games of ``cfg``."""
    run_cfg = cfg.model_copy(update={"games": int(games), "seed": int(seed)})
    counts = agg["counts"]
    rounds = int(counts[1])
    sums = agg["sums"]

    def per_round(i: int) -> float | None:
        return _clean(float(sums[i]) / rounds) if rounds else None

    policies = cfg.seat_policies
    stale = int(counts[2])
    summary: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "config_name": cfg.name,
        "games": int(counts[0]),
        "rounds": rounds,
        "turns": hist_stats(agg["turns_hist"]),
        "win_rate_by_position": _wins(agg["wins_pos"], rounds),
        "win_rate_by_seat": _wins(agg["wins_seat"], rounds),
        "win_rate_by_policy": _by_policy(agg["wins_seat"], policies, rounds),
        "stalemates": {"count": stale, **rate(stale, rounds)},
        "points": hist_stats(agg["points_hist"]),
        "cards_drawn": hist_stats(agg["drawn_hist"]),
        "cards_played": per_round(L.R_PLAYED),
        "draws_by_cause": {c: per_round(L.R_DRAW_BY_CAUSE + i) for i, c in enumerate(L.CAUSES)},
        "reshuffles": per_round(L.R_RESHUFFLES),
        "special": {"card": (cfg.edition_spec.special.name
                             if cfg.edition_spec.special else None),
                    "plays_per_round": per_round(L.R_SPECIAL_PLAYS),
                    "cards_drawn_per_round": per_round(L.R_SPECIAL_DRAWN)},
        "jumps": per_round(L.R_JUMPS),
        "swaps": per_round(L.R_SWAPS),
        "challenges": per_round(L.R_CHALLENGES),
    }
    if cfg.mode == "match":
        m = int(counts[0])
        unfinished = int(counts[3])
        summary["matches"] = {
            "count": m,
            "rounds_per_match": hist_stats(agg["match_rounds_hist"]),
            "win_rate_by_seat": _wins(agg["match_wins_seat"], m),
            "win_rate_by_policy": _by_policy(agg["match_wins_seat"], policies, m),
            "unfinished": {"count": unfinished, **rate(unfinished, m)},
            "margin": hist_stats(agg["margin_hist"]),
        }
    summary.update(
        seed=int(seed),
        config_hash=config_hash(run_cfg),
        unosim_version=__version__,
        config=config_to_dict(run_cfg),
    )
    return summary


def summary_json(summary: dict[str, Any]) -> str:
    """Canonical text of a summary: stable key order, so equal runs give equal bytes."""
    return json.dumps(summary, indent=2, allow_nan=False) + "\n"


def summarize_run(result: RunResult) -> dict[str, Any]:
    """The summary of a finished run, also written to its out dir's ``summary.json``.

    Written atomically, after the runner has marked the run complete: the
    summary is derived from ``aggregates.npz``, so a resumed run rewrites it.
    """
    summary = build_summary(result.aggregates, result.cfg, seed=result.seed, games=result.games)
    if result.out is not None:
        text = summary_json(summary).encode()
        atomic_write(result.out / "summary.json", lambda f: f.write(text))
    return summary


def format_text(summary: dict[str, Any], elapsed: float | None = None,
                rounds_computed: int | None = None) -> str:
    """The short human summary ``unosim run`` prints."""
    t = summary["turns"]
    rounds = summary["rounds"]
    unit = "matches" if "matches" in summary else "rounds"
    lines = [f"{summary['config_name']}: {summary['games']:,} {unit}"
             + (f", {rounds:,} rounds" if unit == "matches" else "")
             + f", seed {summary['seed']}"]
    if t["mean"] is not None and t["ci_low"] is not None:
        lines.append(f"  turns per round   {format_ci(t['mean'], t['ci_low'], t['ci_high'])}, "
                     f"median {t['median']:g}, p90 {t['p90']:g}")
    elif t["mean"] is not None:
        lines.append(f"  turns per round   {t['mean']:.1f}")
    first = summary["win_rate_by_position"][0]
    if first["rate"] is not None:
        lo, hi = 100 * first["low"], 100 * first["high"]
        d = ci_decimals(lo, hi)
        fair = 100 / len(summary["win_rate_by_position"])
        lines.append(f"  first player wins {100 * first['rate']:.{d}f}% "
                     f"(95% CI {lo:.{d}f}–{hi:.{d}f}%; fair share {fair:.1f}%)")
    st = summary["stalemates"]
    lines.append(f"  stalemates        {st['count']:,}"
                 + (f" ({100 * st['rate']:.2g}%)" if st["count"] else ""))
    sp = summary.get("special") or {}
    if sp.get("card"):
        lines.append(f"  {sp['card']}: played {sp['plays_per_round']:.2f} times a round, "
                     f"{sp['cards_drawn_per_round']:.2f} cards drawn because of it")
    if "matches" in summary:
        mr = summary["matches"]["rounds_per_match"]
        if mr["mean"] is not None and mr["ci_low"] is not None:
            lines.append(f"  rounds per match  {format_ci(mr['mean'], mr['ci_low'], mr['ci_high'])}")
        lines.append(f"  unfinished        {summary['matches']['unfinished']['count']:,}")
    if elapsed is not None:
        line = f"  elapsed           {elapsed:.1f} s"
        if rounds_computed and elapsed > 0:
            line += f" ({rounds_computed / elapsed:,.0f} rounds/s)"
        lines.append(line)
    return "\n".join(lines) + "\n"
