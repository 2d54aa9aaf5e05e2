"""Regenerate the committed example reports under ``reports/`` (``make reports``).

``python -m unosim.examples [NAME ...] [--scale X] [--jobs N]`` runs the
four studies below and writes, for each, ``reports/NAME/README.md`` (answer
first), a self-contained ``reports/NAME/report.html`` and the sweep and
comparison outputs they draw on; ``reports/README.md`` indexes them with the
time each took. Every study calls the same functions as ``unosim sweep`` and
``unosim compare`` with the parameters of the command it quotes, so running
that command reproduces its numbers. The answers are worded from the
results, so they stay true when the engine changes.

``--scale`` multiplies every game count (``--scale 0.05`` for a quick look;
the committed reports use 1).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shlex
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from unosim import __version__
from unosim.analysis import stats
from unosim.analysis.estimates import Estimate, per_round_estimate
from unosim.engine import state as L
from unosim.report import charts
from unosim.report.compare import run_comparison, write_comparison
from unosim.report.comparison import Comparison
from unosim.report.format import CAUSE_LABELS, num_ci, pct_ci
from unosim.report.render import Doc
from unosim.report.sweep import Sweep, parse_vary, run_sweep, write_sweep
from unosim.rules.config import load_config
from unosim.rules.yamlio import CONFIGS_DIR

REPORTS = Path(__file__).resolve().parent.parent / "reports"
SEED = 1
SWEEP_GAMES = 500_000  # per cell of the stacking sweep (54 cells)
PLAYER_GAMES = 1_000_000  # per player count in the first-player study
COMPARE_GAMES = 1_000_000  # per config in every 4-player comparison

STACK_SETS = (
    "{}",
    "{draw_two_on_draw_two: true}",
    "{wd4_on_wd4: true}",
    "{wd4_on_draw_two: true}",
    "{draw_two_on_wd4: true}",
    "{draw_two_on_draw_two: true, wd4_on_wd4: true, wd4_on_draw_two: true, "
    "draw_two_on_wd4: true}",
)
HOUSE_RULES = ("stacking", "stacking_full", "jump_in", "seven_o", "draw_until_play", "chaos")
EDITIONS = ("classic_1992", "disney100", "disney_wish", "encanto")


@dataclass
class Ctx:
    """Options shared by every study."""

    scale: float
    jobs: int | None
    quiet: bool

    def games(self, n: int) -> int:
        return max(200, int(round(n * self.scale)))

    def log(self, msg: str) -> None:
        if not self.quiet:
            print(msg, flush=True)


def _rel(path: Path) -> str:
    """A path relative to the repository root, for commands quoted in reports."""
    try:
        return path.resolve().relative_to(REPORTS.parent).as_posix()
    except ValueError:
        return str(path)


def _cfg_path(name: str) -> str:
    return _rel(CONFIGS_DIR / f"{name}.yaml")


def _compare(ctx: Ctx, names: Sequence[str], out: Path, games: int,
             intro: Sequence[str] = (), title: str | None = None,
             overrides: Sequence[str] = ()) -> tuple[Comparison, str]:
    """Run ``unosim compare`` on shipped configs (same code path) and write its report."""
    paths = [_cfg_path(n) for n in names]
    cmd = shlex.join(["unosim", "compare", *paths, "--games", str(games), "--seed", str(SEED),
                      *[x for o in overrides for x in ("--set", o)], "--out", _rel(out)])
    ctx.log(f"  $ {cmd}")
    cfgs = [load_config(REPORTS.parent / p, overrides) for p in paths]
    cmp = run_comparison(cfgs, games=games, seeds=[SEED] * len(cfgs), out=out, jobs=ctx.jobs,
                         force=True)
    write_comparison(cmp, out, title=title, command=cmd, intro=intro)
    return cmp, cmd


def _sweep(ctx: Ctx, config: str, varies: Sequence[str], out: Path, games: int
           ) -> tuple[Sweep, str]:
    """Run ``unosim sweep`` (same code path); the report is written by the caller."""
    cmd = shlex.join(["unosim", "sweep", _cfg_path(config),
                      *[x for v in varies for x in ("--vary", v)], "--games", str(games),
                      "--seed", str(SEED), "--out", _rel(out)])
    ctx.log(f"  $ {cmd}")

    def on_cell(i: int, n: int, cell: object, seconds: float) -> None:
        if (i + 1) % 9 == 0 or i + 1 == n:
            ctx.log(f"    {i + 1}/{n} cells")

    sw = run_sweep(REPORTS.parent / _cfg_path(config), [parse_vary(v) for v in varies],
                   games=games, seed=SEED, out=out, jobs=ctx.jobs, on_cell=on_cell, force=True)
    return sw, cmd


def _turns_diff(a: dict, b: dict) -> stats.MeanDiff:
    return stats.diff_of_means_hist(a["turns_hist"], b["turns_hist"])


def _pct(x: float, d: int = 1) -> str:
    return f"{100 * x:+.{d}f}%"


def _write_readme(out: Path, doc: Doc) -> list[Path]:
    """README.md (GitHub renders it) and the same page as a self-contained report.html."""
    out.mkdir(parents=True, exist_ok=True)
    md, page = out / "README.md", out / "report.html"
    md.write_text(doc.to_markdown(out), encoding="utf-8")
    page.write_text(doc.to_html(), encoding="utf-8")
    return [md, page]


def _provenance(doc: Doc, commands: Sequence[str], samples: str, seconds: float) -> None:
    doc.h2("How this was made")
    doc.p(f"Generated by `python -m unosim.examples` (`make reports`) with unosim {__version__}; "
          f"this study took {seconds / 60:.1f} min on {os.cpu_count()} cores. It runs the "
          "same code as these commands, which reproduce its numbers:")
    doc.code("\n".join(commands), "sh")
    doc.p(f"Seed {SEED} for every run. {samples} Intervals are 95%; the policy is the "
          "reference `random` player everywhere.")


# --------------------------------------------------------------------------- #
# 1. Does stacking make games longer?
# --------------------------------------------------------------------------- #


def stacking(ctx: Ctx) -> str:
    """Every stacking switch, 2-10 players, and the shipped stacking configs at 4 players."""
    t0 = time.perf_counter()
    out = REPORTS / "stacking"
    g_sw, g_cmp = ctx.games(SWEEP_GAMES), ctx.games(COMPARE_GAMES)
    sw, sw_cmd = _sweep(ctx, "classic", ["players=2..10",
                                         "house_rules.stacking=" + ",".join(STACK_SETS)],
                        out / "sweep", g_sw)
    write_sweep(sw, out / "sweep", command=sw_cmd,
                title="Stacking sweep: every stacking switch at 2–10 players")
    cmp, cmp_cmd = _compare(ctx, ["classic", "stacking", "stacking_full"], out / "compare",
                            g_cmp, title="Stacking at 4 players: classic vs stacking vs "
                                         "full stacking")

    # Effect of each switch set against no stacking at the same player count.
    players_ax, stack_ax = sw.axes
    labels = stack_ax.labels
    effects: dict[str, list[tuple[int, stats.MeanDiff]]] = {}
    for j in range(1, len(stack_ax.values)):
        row = []
        for i, n in enumerate(players_ax.values):
            base = sw.cells[i * len(stack_ax.values)].run
            cell = sw.cells[i * len(stack_ax.values) + j].run
            assert base is not None and cell is not None
            row.append((n, _turns_diff(base.aggregates, cell.aggregates)))
        effects[labels[j]] = row
    lines = [charts.Line(lab, [n for n, _ in row],
                         [100 * d.diff / d.mean1 for _, d in row],
                         [100 * d.low / d.mean1 for _, d in row],
                         [100 * d.high / d.mean1 for _, d in row])
             for lab, row in effects.items()]
    zero = charts.Line("no change", list(players_ax.values), [0.0] * len(players_ax.values),
                       [], [])
    effect_png = charts.line_chart(
        lines, out / "stacking_effect.png",
        "Change in mean round length from stacking, by number of players",
        "number of players", "change in mean turns vs no stacking (%)", reference=zero,
        legend_title="stacking switches on", colors=charts.COLORS[1:])

    shorter = longer = ns = 0
    per_set = []
    for lab, row in effects.items():
        sig_s = [(n, d) for n, d in row if d.p_value < 0.05 and d.diff < 0]
        sig_l = [(n, d) for n, d in row if d.p_value < 0.05 and d.diff > 0]
        shorter += len(sig_s)
        longer += len(sig_l)
        ns += len(row) - len(sig_s) - len(sig_l)
        rels = [d.rel_change for _, d in sig_s + sig_l]
        span = (f" (significant changes of {100 * min(map(abs, rels)):.1f}% to "
                f"{100 * max(map(abs, rels)):.1f}%)" if rels else "")
        per_set.append(f"{lab}: significantly shorter at {len(sig_s)} of {len(row)} player "
                       f"counts, longer at {len(sig_l)}, no significant change at "
                       f"{len(row) - len(sig_s) - len(sig_l)}{span}")
    total = shorter + longer + ns
    if longer == 0 and shorter > 0:
        answer = ("**No — stacking does not make games longer; it makes them slightly "
                  "shorter.**")
    elif shorter == 0 and longer > 0:
        answer = "**Yes — stacking makes games longer.**"
    elif shorter == longer == 0:
        answer = "**No — stacking makes no measurable difference to round length.**"
    else:
        answer = "**It depends on the table:** stacking shortens some games and lengthens others."
    full_4 = cmp.verdicts[1][0]
    d2_4 = cmp.verdicts[0][0]
    intro = (f"{answer} With the reference random player, {d2_4[:1].lower() + d2_4[1:]} "
             f"{full_4} Across 2–10 players and each stacking switch on its own or all four "
             f"together, stacking made rounds significantly shorter in {shorter} of {total} "
             f"(player count, switch set) cells, longer in {longer}, and made no significant "
             f"difference in {ns} (5% level, no correction for the {total} comparisons). "
             f"{_draw_shift(cmp, 2)}")
    doc = Doc("Does stacking make games longer?")
    doc.p(intro, lead=True)
    doc.h2("At 4 players")
    doc.ul(cmp.verdicts[0] + cmp.verdicts[1])
    doc.image(out / "compare" / "compare_effects.png", "Effect of stacking at 4 players")
    doc.image(out / "compare" / "compare_turns.png", "Turn distributions at 4 players")
    doc.image(out / "compare" / "compare_draws.png", "Cards drawn by cause at 4 players")
    doc.p("Full comparison with every metric, test and interval: "
          "[compare/compare.md](compare/compare.md) "
          "([self-contained HTML](compare/compare.html), [CSV](compare/compare.csv)).")
    doc.h2("From 2 to 10 players, switch by switch")
    doc.ul(per_set)
    doc.image(effect_png, "Change in mean turns from each stacking switch set, by players")
    doc.image(out / "sweep" / "sweep_turns_mean.png", "Mean turns by players and stacking")
    doc.image(out / "sweep" / "sweep_drawn_mean.png", "Cards drawn by players and stacking")
    doc.image(out / "sweep" / "sweep_first_player_vs_fair.png",
              "First-player advantage by players and stacking")
    doc.p("Every cell with every metric: [sweep/sweep.md](sweep/sweep.md) "
          "([HTML](sweep/sweep.html), [CSV](sweep/sweep.csv), "
          "[Parquet](sweep/sweep.parquet)).")
    seconds = time.perf_counter() - t0
    _provenance(doc, [sw_cmd, cmp_cmd],
                f"Sweep: {len(sw.cells)} cells × {g_sw:,} rounds; comparison: "
                f"{g_cmp:,} rounds per config.", seconds)
    _write_readme(out, doc)
    return intro


def _draw_shift(cmp: Comparison, i: int) -> str:
    """Where the cards drawn go under config ``i`` vs the baseline, per cause, from the data."""
    a, b = cmp.base, cmp.runs[i]
    per = {c: (b.aggregates["sums"][L.R_DRAW_BY_CAUSE + k] / b.rounds
               - a.aggregates["sums"][L.R_DRAW_BY_CAUSE + k] / a.rounds)
           for k, c in enumerate(L.CAUSES)}
    d = cmp.diffs["drawn_mean"][i]
    assert d is not None
    parts = [f"{CAUSE_LABELS[c]} {v:+.2f}" for c, v in per.items() if abs(v) >= 0.005]
    return (f"Where the cards go at 4 players under `{cmp.labels[i]}` (change in cards drawn "
            f"per round, by cause): {', '.join(parts)}; in all {d.diff:+.2f} (95% CI "
            f"{d.low:+.2f} to {d.high:+.2f}). A player who stacks plays a card where they "
            "would otherwise have drawn and lost their turn.")


# --------------------------------------------------------------------------- #
# 2. First-player advantage by player count
# --------------------------------------------------------------------------- #


def first_player(ctx: Ctx) -> str:
    """Win rate of each seat position, 2-10 players, against the fair share."""
    t0 = time.perf_counter()
    out = REPORTS / "first_player"
    g = ctx.games(PLAYER_GAMES)
    sw, cmd = _sweep(ctx, "classic", ["players=2..10"], out / "sweep", g)
    write_sweep(sw, out / "sweep", command=cmd,
                title="First-player advantage sweep: classic, 2–10 players")
    rows, lines = [], []
    firsts = []
    for cell in sw.cells:
        run = cell.run
        assert run is not None
        n, agg = cell.cfg.players, run.aggregates
        k0, rounds = int(agg["wins_pos"][0]), run.rounds
        r, lo, hi = stats.wilson_interval(k0, rounds)
        firsts.append((n, r, lo, hi))
        last = int(agg["wins_pos"][-1])
        rows.append([str(n), f"{100 / n:.1f}%", pct_ci(Estimate(r, lo, hi, rounds)),
                     f"{r * n:.3f}× ({lo * n:.3f}–{hi * n:.3f})",
                     pct_ci(Estimate(*stats.wilson_interval(last, rounds), rounds)),
                     f"{stats.chi_square_uniform(agg['wins_pos']):.2g}", f"{rounds:,}"])
        xs = list(range(1, n + 1))
        ci = [stats.wilson_interval(int(k), rounds) for k in agg["wins_pos"]]
        lines.append(charts.Line(f"{n} players", xs, [c[0] * n for c in ci],
                                 [c[1] * n for c in ci], [c[2] * n for c in ci]))
    pos_png = charts.line_chart(
        lines, out / "position_vs_fair.png",
        "Win rate by seat position ÷ fair share, for each table size",
        "seat position in playing order (1 = dealer's left, last = dealer)",
        "win rate ÷ 1/N", reference=charts.Line("fair share (1.0)", list(range(1, 11)),
                                                [1.0] * 10, [], []),
        legend_title="table size")
    above = [n for n, _, lo, _ in firsts if lo > 1 / n]
    slope, slope_lo, slope_hi = _trend(firsts)
    if slope_lo > 0:
        trend = (f"and the edge grows with the table: +{100 * slope:.2f}% of the fair share per "
                 f"extra player (weighted linear fit, 95% CI +{100 * slope_lo:.2f}% to "
                 f"+{100 * slope_hi:.2f}%).**")
    elif slope_hi < 0:
        trend = (f"and the edge shrinks as the table grows ({100 * slope:+.2f}% of the fair "
                 f"share per extra player, 95% CI {100 * slope_lo:+.2f}% to "
                 f"{100 * slope_hi:+.2f}%).**")
    else:
        trend = "with no clear trend in table size.**"
    dealer_low = [c.cfg.players for c in sweep_cells(sw)
                  if int(c.run.aggregates["wins_pos"].argmin()) == c.cfg.players - 1]
    dealer_below = [c.cfg.players for c in sweep_cells(sw)
                    if stats.wilson_interval(int(c.run.aggregates["wins_pos"][-1]),
                                             c.run.rounds)[2] < 1 / c.cfg.players]
    ratios = [(n, r * n) for n, r, _, _ in firsts]
    n_lo, r_lo = ratios[0]
    n_hi, r_hi = ratios[-1]
    best = max(ratios, key=lambda t: t[1])
    fp = [f for f in firsts if f[0] == 4][0] if any(f[0] == 4 for f in firsts) else firsts[0]
    if len(above) == len(firsts):
        verdict = "**Yes, at every table size from 2 to 10 players the first player is favoured"
    elif above:
        verdict = (f"**Yes, at {len(above)} of {len(firsts)} table sizes "
                   f"({', '.join(map(str, above))} players) the first player is favoured")
    else:
        verdict = "**No significant first-player advantage at any table size"
    intro = (f"{verdict}, {trend} The player on the dealer's "
             f"left, who normally plays first, wins {r_lo:.3f} times the fair share at "
             f"{n_lo} players and {r_hi:.3f} times at {n_hi} (largest: {best[1]:.3f}× at "
             f"{best[0]} players). At 4 players that is "
             f"{pct_ci(Estimate(fp[1], fp[2], fp[3], 0))} of rounds against a fair 25.0%. "
             "The advantage is real but small: about one extra win in "
             f"{_one_in(fp[1] - 0.25)} rounds at a 4-player table. The dealer, who plays "
             f"last, has the lowest win rate of all positions at {len(dealer_low)} of "
             f"{len(firsts)} table sizes and wins significantly less than the fair share at "
             f"{len(dealer_below)}.")
    doc = Doc("First-player advantage by player count")
    doc.p(intro, lead=True)
    doc.table(["Players", "Fair share", "First player wins", "÷ fair share (95% CI)",
               "Dealer (last) wins", "χ² p (all positions equal)", "Rounds"], rows)
    doc.image(out / "sweep" / "sweep_first_player_vs_fair.png",
              "First-player win rate relative to the fair share, by players")
    doc.image(pos_png, "Win rate of every seat position relative to the fair share")
    doc.image(out / "sweep" / "sweep_first_player_win_rate.png",
              "First-player win rate with the fair share 1/N")
    doc.image(out / "sweep" / "sweep_turns_mean.png", "Mean turns per round by players")
    doc.p("Positions are counted from each round's dealer (the dealer rotates every game, so "
          "every seat plays every position equally often). A flipped Skip or Reverse can "
          "change who actually starts; the position is still the seat's place relative to "
          "the dealer. Every cell with every metric: [sweep/sweep.md](sweep/sweep.md) "
          "([HTML](sweep/sweep.html), [CSV](sweep/sweep.csv)).")
    _provenance(doc, [cmd], f"{len(sw.cells)} player counts × {g:,} rounds.",
                time.perf_counter() - t0)
    _write_readme(out, doc)
    return intro


def sweep_cells(sw: Sweep) -> list:
    """The sweep's cells (all have runs once the sweep has finished)."""
    return [c for c in sw.cells if c.run is not None]


def _trend(firsts: Sequence[tuple[int, float, float, float]]) -> tuple[float, float, float]:
    """Weighted least-squares slope of (win rate x N) on N, with a 95% interval.

    Weights are inverse variances from each Wilson interval's half-width, so
    table sizes measured more precisely count for more.
    """
    xs = [float(n) for n, *_ in firsts]
    ys = [r * n for n, r, _, _ in firsts]
    ws = [1.0 / max(((hi - lo) * n / 3.92) ** 2, 1e-12) for n, _, lo, hi in firsts]
    sw_ = sum(ws)
    xm = sum(w * x for w, x in zip(ws, xs, strict=True)) / sw_
    ym = sum(w * y for w, y in zip(ws, ys, strict=True)) / sw_
    sxx = sum(w * (x - xm) ** 2 for w, x in zip(ws, xs, strict=True))
    if sxx == 0:
        return math.nan, math.nan, math.nan
    slope = sum(w * (x - xm) * (y - ym) for w, x, y in zip(ws, xs, ys, strict=True)) / sxx
    se = math.sqrt(1.0 / sxx)
    return slope, slope - 1.96 * se, slope + 1.96 * se


def _one_in(excess: float) -> str:
    return f"{1 / excess:,.0f}" if excess > 0 else "∞"


# --------------------------------------------------------------------------- #
# 3. House-rule shoot-out and 4. editions
# --------------------------------------------------------------------------- #


def _effects_sentence(cmp: Comparison) -> list[str]:
    """'jump-in −12.0% (95% CI ...)' per config, ordered by effect on mean turns."""
    base = cmp.values["turns_mean"][0].value
    items = []
    for i in range(1, len(cmp.runs)):
        d = cmp.diffs["turns_mean"][i]
        assert d is not None
        sig = d.p_value < 0.05
        items.append((d.diff / base, f"`{cmp.labels[i]}` {_pct(d.diff / base)} "
                      f"(95% CI {_pct(d.low / base)} to {_pct(d.high / base)}"
                      + ("" if sig else ", not significant") + ")"))
    return [t for _, t in sorted(items, key=lambda t: t[0])]


def _extremes(cmp: Comparison) -> str:
    """Which configs lengthen and shorten rounds the most (significant effects only)."""
    base = cmp.values["turns_mean"][0].value
    sig = [(d.diff / base, cmp.labels[i]) for i, d in enumerate(cmp.diffs["turns_mean"])
           if d is not None and d.p_value < 0.05]
    up = max((t for t in sig if t[0] > 0), default=None)
    down = min((t for t in sig if t[0] < 0), default=None)
    parts = []
    if up:
        parts.append(f"`{up[1]}` lengthens 4-player rounds the most ({_pct(up[0])})")
    if down:
        parts.append(f"`{down[1]}` shortens them the most ({_pct(down[0])})")
    if not parts:
        return "No rule set changes 4-player round length significantly."
    text = "; ".join(parts)
    return text[:1].upper() + text[1:] + "."


def _first_player_changes(cmp: Comparison) -> str:
    sig = []
    for i in range(1, len(cmp.runs)):
        d = cmp.diffs["first_player_win_rate"][i]
        assert d is not None
        if d.p_value < 0.05:
            sig.append(f"`{cmp.labels[i]}` ({100 * d.diff:+.2f} points, 95% CI "
                       f"{100 * d.low:+.2f} to {100 * d.high:+.2f})")
    if not sig:
        return ("None of them changes the first player's win rate significantly at this "
                "sample size.")
    only = "only " if len(sig) == 1 else ""
    return f"The first player's win rate changes significantly {only}under " + "; ".join(sig) + "."


def house_rules(ctx: Ctx) -> str:
    """Every shipped house-rule config against classic at 4 players (+ the 2-player rule)."""
    t0 = time.perf_counter()
    out = REPORTS / "house_rules"
    g = ctx.games(COMPARE_GAMES)
    cmp, cmd = _compare(ctx, ["classic", *HOUSE_RULES], out / "compare", g,
                        title="House rules against classic at 4 players")
    cmp2, cmd2 = _compare(ctx, ["two_player", "two_player_reverse"], out / "two_player", g,
                          title="Two-player Reverse-as-Skip against plain 2-player rules")
    effects = _effects_sentence(cmp)
    base = cmp.values["turns_mean"][0]
    intro = (f"**{_extremes(cmp)}** Classic rounds last "
             f"{num_ci(base, 'turns')}. Change in mean turns per round against classic, "
             f"shortest first: {'; '.join(effects)}. {_first_player_changes(cmp)} "
             f"Head to head, {cmp2.verdicts[0][0][:1].lower() + cmp2.verdicts[0][0][1:]}")
    doc = Doc("House-rule shoot-out at 4 players")
    doc.p(intro, lead=True)
    doc.h2("Verdicts")
    doc.ul([vs[0] for vs in cmp.verdicts])
    doc.image(out / "compare" / "compare_effects.png", "Effect of each house rule")
    doc.image(out / "compare" / "compare_turns.png", "Turn distributions")
    doc.image(out / "compare" / "compare_draws.png", "Cards drawn by cause")
    doc.image(out / "compare" / "compare_win_position.png", "Win rate by seat position")
    doc.h3("Other questions")
    doc.ul([vs[q] for q in range(1, 4) for vs in cmp.verdicts if q < len(vs)])
    doc.p("Full comparison: [compare/compare.md](compare/compare.md) "
          "([HTML](compare/compare.html), [CSV](compare/compare.csv)).")
    doc.h2("Two players: Reverse acts as Skip")
    doc.p("`two_player_reverse` only acts with two players, so it is tested on its own: "
          "`configs/two_player_reverse.yaml` against `configs/two_player.yaml`.")
    doc.ul(cmp2.verdicts[0])
    doc.image(out / "two_player" / "compare_turns.png", "2-player turn distributions")
    doc.p("Full comparison: [two_player/compare.md](two_player/compare.md).")
    _provenance(doc, [cmd, cmd2], f"{g:,} rounds per config.", time.perf_counter() - t0)
    _write_readme(out, doc)
    return intro


def editions(ctx: Ctx) -> str:
    """Each edition against classic at 4 players: what its special wild changes."""
    t0 = time.perf_counter()
    out = REPORTS / "editions"
    g = ctx.games(COMPARE_GAMES)
    cmp, cmd = _compare(ctx, ["classic", *EDITIONS], out / "compare", g,
                        title="Editions against classic at 4 players")
    effects = _effects_sentence(cmp)
    same = [cmp.labels[i] for i in range(1, len(cmp.runs))
            if all((cmp.runs[i].aggregates[k] == cmp.base.aggregates[k]).all()
                   for k in ("turns_hist", "wins_pos", "sums"))]
    biggest = max(range(1, len(cmp.runs)),
                  key=lambda i: abs(cmp.diffs["turns_mean"][i].diff))  # type: ignore[union-attr]
    same_text = (f" {', '.join(f'`{x}`' for x in same)} plays exactly like classic here (identical results, "
                 "game for game): its differences — a four-card penalty for a missed UNO and "
                 "a two-player Reverse that skips — never come up at 4 players when nobody "
                 "forgets to call UNO." if same else "")
    sp = []
    for i, r in enumerate(cmp.runs[1:], start=1):
        ed = r.cfg.edition_spec
        if ed.special:
            agg = r.aggregates
            cause = L.CAUSE_DONT_TALK if ed.special.kind == "dont_talk" else L.CAUSE_SPECIAL
            plays = per_round_estimate(agg, L.R_SPECIAL_PLAYS)
            drawn = per_round_estimate(agg, L.R_DRAW_BY_CAUSE + cause)
            how = ("silenced players who slip draw" if cause == L.CAUSE_DONT_TALK
                   else "its effect makes players draw")
            sp.append(f"`{cmp.labels[i]}`: {ed.special.name} is played {num_ci(plays)} times "
                      f"per round; {how} {num_ci(drawn, 'cards')} per round")
    intro = (f"**`{cmp.labels[biggest]}` changes the game the most.** Change in mean turns per "
             f"4-player round against classic: {'; '.join(effects)}.{same_text} "
             f"{_first_player_changes(cmp)}")
    doc = Doc("Editions compared at 4 players")
    doc.p(intro, lead=True)
    doc.h2("Verdicts")
    doc.ul([vs[0] for vs in cmp.verdicts])
    doc.h2("The special wilds")
    doc.ul(sp)
    doc.image(out / "compare" / "compare_effects.png", "Effect of each edition")
    doc.image(out / "compare" / "compare_turns.png", "Turn distributions")
    doc.image(out / "compare" / "compare_draws.png", "Cards drawn by cause")
    doc.image(out / "compare" / "compare_win_position.png", "Win rate by seat position")
    doc.h3("Other questions")
    doc.ul([vs[q] for q in range(1, 4) for vs in cmp.verdicts if q < len(vs)])
    doc.p("Full comparison: [compare/compare.md](compare/compare.md) "
          "([HTML](compare/compare.html), [CSV](compare/compare.csv)). Edition rules and the "
          "assumptions behind each special card are in `configs/editions/`.")
    _provenance(doc, [cmd], f"{g:,} rounds per config.", time.perf_counter() - t0)
    _write_readme(out, doc)
    return intro


# --------------------------------------------------------------------------- #

STUDIES: dict[str, tuple[str, Callable[[Ctx], str]]] = {
    "stacking": ("Does stacking make games longer?", stacking),
    "first_player": ("First-player advantage by player count", first_player),
    "house_rules": ("House-rule shoot-out at 4 players", house_rules),
    "editions": ("Editions compared at 4 players", editions),
}


def _index(timings: dict[str, dict[str, object]]) -> None:
    """reports/README.md: one section per study with its answer and time."""
    total = sum(float(t["seconds"]) for t in timings.values())  # type: ignore[arg-type]
    lines = ["# Example reports", "",
             "Regenerate them all with `make reports` (`python -m unosim.examples`; one study: "
             "`python -m unosim.examples stacking`). Each folder's `README.md` gives the "
             "answer first, then the charts, the exact commands, the seed and the sample "
             "sizes; `report.html` is the same page with its charts embedded.", "",
             f"The last full `make reports` took **{total / 60:.1f} minutes** on "
             f"{os.cpu_count()} cores ({platform.machine()}, Python "
             f"{platform.python_version()}, unosim {__version__}). Per study:", "",
             "| Study | Time | Games |", "|---|---|---|"]
    for name, (title, _) in STUDIES.items():
        t = timings.get(name)
        if t:
            lines.append(f"| [{title}]({name}/README.md) | {float(t['seconds']) / 60:.1f} min "
                         f"| {t['games']} |")
    lines.append("")
    for name, (title, _) in STUDIES.items():
        t = timings.get(name)
        if t:
            lines += [f"## [{title}]({name}/README.md)", "", str(t["answer"]), ""]
    lines += ["`runs/` folders (raw aggregates and chunk files) are ignored by git; "
              "`reports/demo` and `reports/bench.json` come from `make demo` and `make bench`.",
              ""]
    (REPORTS / "README.md").write_text("\n".join(lines), encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the named studies (default all) and rewrite reports/README.md."""
    ap = argparse.ArgumentParser(prog="python -m unosim.examples", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", metavar="NAME",
                    help=f"studies to run (default all): {', '.join(STUDIES)}")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="multiply every game count (quick look: 0.05)")
    ap.add_argument("--jobs", type=int, default=None, help="parallel workers per run")
    ap.add_argument("--quiet", "-q", action="store_true")
    args = ap.parse_args(argv)
    if not args.scale > 0 or not math.isfinite(args.scale):
        ap.error("--scale must be a positive number")
    unknown = [n for n in args.names if n not in STUDIES]
    if unknown:
        ap.error(f"unknown study {unknown[0]!r} (choose from {', '.join(STUDIES)})")
    ctx = Ctx(args.scale, args.jobs, args.quiet)
    tfile = REPORTS / "timings.json"
    timings = json.loads(tfile.read_text()) if tfile.is_file() else {}
    games_note = {
        "stacking": f"54 cells × {ctx.games(SWEEP_GAMES):,} + 3 × {ctx.games(COMPARE_GAMES):,}",
        "first_player": f"9 × {ctx.games(PLAYER_GAMES):,}",
        "house_rules": f"9 × {ctx.games(COMPARE_GAMES):,}",
        "editions": f"5 × {ctx.games(COMPARE_GAMES):,}",
    }
    for name in args.names or list(STUDIES):
        title, fn = STUDIES[name]
        ctx.log(f"{name}: {title}")
        t = time.perf_counter()
        answer = fn(ctx)
        secs = time.perf_counter() - t
        ctx.log(f"  done in {secs:.0f} s")
        timings[name] = {"seconds": round(secs, 1), "games": games_note[name],
                         "scale": args.scale, "answer": answer}
    REPORTS.mkdir(exist_ok=True)
    tfile.write_text(json.dumps(timings, indent=2) + "\n", encoding="utf-8")
    _index(timings)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
