"""Run reports: headline estimates with intervals, SVG charts, Markdown and HTML.

``write_report`` turns one run's merged aggregates into ``report.md``, a
self-contained ``report.html`` and the SVG charts themselves (`unosim.report.svg`:
no matplotlib, so a short run's report costs milliseconds, not a second). It reads only the
aggregates and ``summary.json``'s facts (seed, version, config hash), never
the runner's checkpoints.

Every figure that is an estimate is printed with its 95% interval. Counts the
aggregates hold only as run totals (reshuffles, draws by cause) get exact t
intervals from their per-round sums of squares; aggregates written by an
older unosim without them are shown without an interval, and the report says
so instead of inventing one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from unosim._version import __version__
from unosim.analysis import stats
from unosim.analysis.estimates import (
    METRIC_BY_KEY,
    estimate,
    is_match,
    n_rounds,
    order_ci,
    per_round_estimate,
    wilson_estimate,
)
from unosim.analysis.summary import Summary, exact_win_shares
from unosim.engine.kernel import state as L
from unosim.report import chartkit, svg
from unosim.report.format import (
    CAUSE_LABELS,
    EVENT_LABELS,
    config_yaml,
    fmt_metric,
    num_ci,
    pct,
    pct_ci,
    position_name,
    sig3,
)
from unosim.report.render import Doc
from unosim.report.verdicts import stopping_text
from unosim.rules.config import GameConfig
from unosim.rules.settings import describe_rules
from unosim.run.documents import RUN_MEASURE, Stop

__all__ = ["policy_groups", "write_report"]

Aggregates = Mapping[str, np.ndarray]


def _fair_test(k: int, n: int, fair: float) -> str:
    """'above' / 'below' / 'consistent with' a fair share, by its 95% Wilson interval."""
    if n == 0:
        return "n/a"
    e = wilson_estimate(k, n)
    if e.low > fair:
        return "above fair"
    if e.high < fair:
        return "below fair"
    return "consistent with fair"


def policy_groups(cfg: GameConfig) -> dict[str, list[int]]:
    """Seats by policy name, in seat order."""
    groups: dict[str, list[int]] = {}
    for seat, pol in enumerate(cfg.seat_policies):
        groups.setdefault(pol, []).append(seat)
    return groups


def _conclusion(cfg: GameConfig, agg: Aggregates, seed: int) -> str:
    """The plain-language first paragraph: length, first-player edge, draws, stalemates."""
    n = n_rounds(agg)
    games = int(agg["counts"][0])
    players = cfg.players
    if n == 0:
        return f"No rounds were played ({games:,} games, seed {seed})."
    t = stats.summarize_hist(agg["turns_hist"])
    mean = num_ci(estimate(agg, METRIC_BY_KEY["turns_mean"]), "turns")
    if is_match(agg):
        parts = [f"Across {games:,} {players}-player matches to {cfg.target} points of "
                 f"**{cfg.name}** ({n:,} rounds in all, seed {seed}), a round lasted "
                 f"{mean} on average"]
    else:
        parts = [f"Across {n:,} {players}-player rounds of **{cfg.name}** (seed {seed}), a "
                 f"round lasted {mean} on average"]
    parts[-1] += (f"; half were over within {t.median:,.0f} turns and nine in ten within "
                  f"{t.p90:,.0f}.")
    fair = 1.0 / players
    e0 = estimate(agg, METRIC_BY_KEY["first_player_win_rate"])
    verdict = _fair_test(int(agg["wins_pos"][0]), n, fair)
    if verdict == "above fair":
        edge = (f"a real first-player advantage: {e0.value / fair:.2f} times the fair share of "
                f"{100 * fair:.1f}%")
    elif verdict == "below fair":
        edge = f"less than the fair share of {100 * fair:.1f}%: a first-player disadvantage"
    else:
        edge = (f"no significant difference from the fair share of {100 * fair:.1f}% at "
                "this sample size")
    parts.append(f"The player on the dealer's left, who normally plays first, won "
                 f"{pct_ci(e0)} of rounds, {edge}.")
    groups = policy_groups(cfg)
    if len(groups) > 1:
        bits = [f"{len(seats)} {pol} seat{'s' if len(seats) > 1 else ''} won "
                f"{pct_ci(wilson_estimate(int(agg['wins_seat'][seats].sum()), n))} of rounds "
                f"(fair {100 * len(seats) / players:.1f}%)" for pol, seats in groups.items()]
        parts.append("By policy: " + "; ".join(bits) + ".")
    d = estimate(agg, METRIC_BY_KEY["drawn_mean"])
    turn_draws = float(agg["sums"][L.R_DRAW_BY_CAUSE + L.CAUSE_TURN])
    total_draws = float(agg["sums"][L.R_DRAWN])
    pen = 1.0 - turn_draws / total_draws if total_draws else 0.0
    parts.append(f"Players drew {num_ci(d, 'cards')} per round, {pct(pen)} of them "
                 "as penalties or special-card effects.")
    limit = cfg.edition_spec.mercy_limit
    if limit is not None:  # rounds with a knock-out: an integer count, its Wilson interval
        outs = wilson_estimate(int(agg["sums"][L.R_OUT_ROUNDS]), n)
        parts.append(f"The mercy rule ({limit} cards) knocked someone out in {pct_ci(outs)} "
                     "of rounds.")
    ks = int(agg["counts"][2])
    if ks == 0:
        parts.append(f"No round hit the {cfg.max_turns:,}-turn stalemate cap.")
    else:
        parts.append(f"{ks:,} rounds hit the {cfg.max_turns:,}-turn cap and ended in a "
                     f"stalemate ({pct_ci(estimate(agg, METRIC_BY_KEY['stalemate_rate']))}).")
    if is_match(agg):
        mr = estimate(agg, METRIC_BY_KEY["match_rounds_mean"])
        parts.append(f"A match took {num_ci(mr, 'rounds')} on average.")
    return " ".join(parts)


def write_report(
    out_dir: str | Path,
    cfg: GameConfig,
    aggregates: Mapping[str, np.ndarray],
    summary: Summary | None = None,
) -> list[Path]:
    """Write report.md, report.html and the SVG charts of one run; returns their paths.

    ``summary`` is the run's ``summary.json`` document; its seed, unosim
    version and config hash are quoted (without it, the config's seed).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    agg = {k: np.asarray(v) for k, v in aggregates.items()}
    summary = summary or {}
    seed = summary.get("seed", cfg.seed)
    n = n_rounds(agg)
    games = int(agg["counts"][0])
    match = is_match(agg)
    doc = Doc(f"{cfg.name}: {cfg.players} players, {n:,} rounds")
    doc.p(_conclusion(cfg, agg, seed), lead=True)
    doc.p(f"**Sample:** {games:,} {'matches' if match else 'games'} ({n:,} rounds), "
          f"seed {seed}, unosim {summary.get('unosim_version', __version__)}. "
          f"**Rules:** {describe_rules(cfg)}. **Policies:** "
          + ", ".join(f"{len(s)} × {p}" for p, s in policy_groups(cfg).items()) + ".")
    doc.p("Intervals are 95%: t intervals for means, order-statistic intervals for "
          "quantiles, Wilson score intervals for rates.")
    if summary.get("stop"):
        # a summary keeps the rule's target, cap and outcome; the games are its own
        stop = summary["stop"]
        doc.p(stopping_text(Stop(
            rule=f"stop at the first chunk boundary where the {RUN_MEASURE} is at "
                 f"most {stop['precision']:g}",
            precision=stop["precision"], max_games=stop["max_games"], games=games,
            half_width=stop["half_width"], met=stop["met"])))
    charts = _round_length(doc, cfg, agg, out)
    charts += _who_wins(doc, cfg, agg, out)
    charts += _scores(doc, cfg, agg, out)
    charts += _draws(doc, cfg, agg, out)
    pages = _examples(doc, cfg, seed, games, out)
    doc.h2("How this was made")
    lines = [f"Seed {seed}; {games:,} {'matches' if match else 'games'}; {n:,} rounds."]
    if summary.get("config_hash"):
        lines.append(f"Config hash `{summary['config_hash']}`.")
    doc.ul(lines)
    doc.p("Resolved config:")
    doc.code(config_yaml(cfg, games, seed), "yaml")
    written = doc.write(out, "report")
    # an earlier report's example pages (--resume to more games) go only once this
    # report is whole: a failed write keeps the old report and every page it links
    from unosim.rules.config import name_slug

    for stale in out.glob(f"example-{name_slug(cfg.name)}-*.html"):
        if stale not in pages:
            stale.unlink()
    return written + charts + pages


def _examples(doc: Doc, cfg: GameConfig, seed: int, games: int, out: Path) -> list[Path]:
    """Example games of the run's own range, each a replay viewer (`write_examples`)."""
    from unosim.engine.kernel.state import compile_config
    from unosim.engine.plugins import plugin_seats
    from unosim.engine.replay import TraceReplayError
    from unosim.report.viewer import EXAMPLE_LIMIT, EXAMPLE_TITLES, play_command, write_examples
    from unosim.rules.config import name_slug

    doc.h2("Example games")
    plugins = sorted(plugin_seats(cfg.seat_policies))
    if plugins or games == 0:
        why = ("no game was played" if not plugins else
               (f"seats {', '.join(map(str, plugins))} play" if len(plugins) > 1 else
                f"seat {plugins[0]} plays") + " a plug-in policy, which the compiled engine "
               "that picks the examples "
               "cannot play; `unosim play` plays any game of the run with `--game G`")
        doc.p(f"No example games are shown: {why}.")
        return []
    slug = name_slug(cfg.name)
    try:
        pages = write_examples(compile_config(cfg), int(seed), range(games), out,
                               name=slug, prefix="example-")
        command, config = play_command(cfg, out / f"example-{slug}.yaml")
    except (TraceReplayError, ValueError) as exc:  # a write error is the report's own
        doc.p(f"No example games are shown: {exc}.")
        return []
    doc.table(["Example", "Replay viewer", "Play it again"], [
        [EXAMPLE_TITLES[what].capitalize(), f"[game {g}]({path.name})",
         f"`{command} --seed {seed} --game {g} --trace-format jsonl`"]
        for what, (g, path) in pages.items()])
    scanned = min(games, EXAMPLE_LIMIT)
    doc.p("Each viewer is one HTML file that works offline: step through the game card by "
          "card with the buttons or the arrow keys, every hand face up or from one seat's "
          f"view. The examples are picked from the run's first {scanned:,} games"
          + ("" if scanned == games else f" (of {games:,})")
          + "; the command writes the same game's trace, which `unosim view` turns into "
          "a page like these.")
    return sorted({path for _, path in pages.values()}) + ([] if config is None else [config])


def _round_length(doc: Doc, cfg: GameConfig, agg: Aggregates, out: Path) -> list[Path]:
    doc.h2("Round length")
    t = stats.summarize_hist(agg["turns_hist"])
    m_mean, m_median = METRIC_BY_KEY["turns_mean"], METRIC_BY_KEY["turns_median"]
    doc.table(["Turns", "Value"], [
        ["Mean turns per round", fmt_metric(estimate(agg, m_mean), m_mean)],
        ["Median", fmt_metric(order_ci(agg["turns_hist"], 0.5), m_median)],
        ["10th / 90th percentile", f"{t.p10:,.0f} / {t.p90:,.0f}"],
        ["Standard deviation", f"{t.std:,.1f}"],
        ["Shortest / longest", f"{t.min:,.0f} / {t.max:,.0f}"],
        ["Rounds", f"{t.n:,}"],
    ])
    if chartkit.all_zero(agg["turns_hist"]):
        doc.p("No rounds were played, so there is no distribution of turns to chart.")
        return []
    chart = svg.turns_chart(agg["turns_hist"], out / "turns.svg",
                          f"Turns per round: {cfg.name}, {cfg.players} players, "
                          f"{n_rounds(agg):,} rounds")
    doc.image(chart, "Histogram and cumulative distribution of turns per round")
    doc.p("A turn is a regular turn: a player played and/or drew on their own turn. Turns "
          "lost to Skip, Draw Two or an accepted Wild Draw Four are not turns, and jump-ins "
          "are counted apart (docs/rules.md §8).")
    return [chart]


def _who_wins(doc: Doc, cfg: GameConfig, agg: Aggregates, out: Path) -> list[Path]:
    """Win rates by seat position, and by policy when seats play different policies."""
    n, players = n_rounds(agg), cfg.players
    doc.h2("Who wins: seat position")
    fair = 1.0 / players
    rows = []
    for i in range(players):
        k = int(agg["wins_pos"][i])
        rows.append([position_name(i, players), f"{k:,}", pct_ci(wilson_estimate(k, n)),
                     _fair_test(k, n, fair)])
    doc.table(["Position", "Rounds won", "Win rate", f"vs fair {100 * fair:.1f}%"], rows)
    p_uniform = stats.chi_square_uniform(agg["wins_pos"])
    chi = (f" Chi-square test that every position wins equally often: p = {p_uniform:.2g}."
           if math.isfinite(p_uniform) else "")
    doc.p("Position is counted from each round's dealer: the 1st seat sits on the dealer's "
          f"left and normally plays first. Rates are out of all {n:,} rounds (stalemates "
          f"have no winner).{chi}")
    if n == 0:
        return []
    charts = [svg.rate_chart(
        chartkit.position_labels(players), agg["wins_pos"], n, fair, out / "win_position.svg",
        f"Win rate by seat position: {cfg.name}, {players} players",
        "seat position, in playing order from the dealer's left")]
    doc.image(charts[-1], "Win rate by seat position with 95% Wilson intervals")
    groups = policy_groups(cfg)
    if len(groups) == 1:
        return charts
    doc.h2("Who wins: policy")
    rows = []
    for pol, seats in groups.items():
        k = int(agg["wins_seat"][seats].sum())
        share = len(seats) / players
        rows.append([pol, ", ".join(str(s) for s in seats), f"{k:,}",
                     pct_ci(wilson_estimate(k, n)), f"{100 * share:.1f}%",
                     _fair_test(k, n, share)])
    doc.table(["Policy", "Seats", "Rounds won", "Share of rounds won", "Fair share",
               "Verdict"], rows)
    # COLORS[0] is the run itself in this report's other charts: policies take the rest
    pol_color = {p: chartkit.COLORS[1 + i % (len(chartkit.COLORS) - 1)]
                 for i, p in enumerate(groups)}
    pols = cfg.seat_policies
    charts.append(svg.rate_chart(
        [f"seat {s}\n{pols[s]}" for s in range(players)], agg["wins_seat"], n, fair,
        out / "win_seat.svg", f"Win rate by seat and policy: {cfg.name}",
        "seat (each seat plays every position equally often)",
        colors=[pol_color[p] for p in pols], legend=list(pol_color.items())))
    doc.image(charts[-1], "Win rate by seat, coloured by policy, with 95% Wilson intervals")
    return charts


def _scores(doc: Doc, cfg: GameConfig, agg: Aggregates, out: Path) -> list[Path]:
    """Points per round, and in match mode rounds per match, margins and match wins."""
    match = is_match(agg)
    doc.h2("Scores")
    ps = stats.summarize_hist(agg["points_hist"])
    rows = [["Points per round (scored by the round's winner)",
             num_ci(estimate(agg, METRIC_BY_KEY["points_mean"]), "points")],
            ["Median / 90th percentile", f"{ps.median:,.0f} / {ps.p90:,.0f}"]]
    panels = [("Points scored per round", agg["points_hist"], "points")]
    if match:
        rows += [["Rounds per match",
                  num_ci(estimate(agg, METRIC_BY_KEY["match_rounds_mean"]), "rounds")],
                 ["Final margin (winner over the closest other seat)",
                  num_ci(estimate(agg, METRIC_BY_KEY["margin_mean"]), "points")],
                 [f"Unfinished matches (hit max_rounds {cfg.max_rounds:,})",
                  pct_ci(estimate(agg, METRIC_BY_KEY["unfinished_rate"]))]]
        panels += [("Rounds per match", agg["match_rounds_hist"], "rounds"),
                   ("Final winning margin", agg["margin_hist"], "points")]
    doc.table(["Score", "Value"], rows)
    charts = []
    if chartkit.all_zero(*(p[1] for p in panels)):
        doc.p(f"No points were scored ({cfg.scoring} scoring), so there is no score "
              "distribution to chart.")
    else:
        empty = [p[0].lower() for p in panels if chartkit.all_zero(p[1])]
        charts.append(svg.hist_chart(
            panels, out / "scores.svg",
            f"Scores ({cfg.scoring} scoring): {cfg.name}, {cfg.players} players"))
        doc.image(charts[-1], f"Distribution of points per round ({cfg.scoring} scoring)" +
                  (", rounds per match and final margins" if match else ""))
        if empty:
            doc.p("Not charted, all zero: " + ", ".join(empty) + ".")
    if match:
        _match_wins(doc, cfg, agg)
    return charts


def _match_wins(doc: Doc, cfg: GameConfig, agg: Aggregates) -> None:
    players = cfg.players
    finished = int(agg["counts"][0]) - int(agg["counts"][3])
    shares, ties, split = exact_win_shares(agg, cfg.scoring)
    share = (float(sum(shares) / finished) if finished else 1.0) / players
    rows = []
    for s in range(players):
        k = float(shares[s])
        rows.append([f"seat {s}" + (" (deals first)" if s == 0 else "")
                     + (" (plays first in round 1)" if s == 1 % players else ""),
                     f"{k:,.4g}", pct_ci(wilson_estimate(round(k), finished)),
                     _fair_test(round(k), finished, share)])
    doc.table(["Seat", "Matches won", "Match win rate", f"vs fair {100 * share:.1f}%"], rows)
    tie = ("A win shared by k seats (a tie under lowest scoring) counts 1/k for each, so "
           f"the wins add up to the finished matches; {ties:,} matches were tied."
           if split and ties is not None else
           "These aggregates do not say how many seats shared a win (an older unosim): "
           "every seat sharing a win counts a full win, so the rates may add up to more "
           "than 1." if not split else "")
    doc.p(f"Out of {finished:,} finished matches; the deal passes to the left each round. "
          + tie)


def _draws(doc: Doc, cfg: GameConfig, agg: Aggregates, out: Path) -> list[Path]:
    """Cards drawn by cause, other per-round events, reshuffles and stalemates."""
    n = n_rounds(agg)
    doc.h2("Draws, penalties, reshuffles and stalemates")
    total = float(agg["sums"][L.R_DRAWN])
    rows, bars = [], []
    for i, cause in enumerate(L.CAUSES):
        idx = L.R_DRAW_BY_CAUSE + i
        if agg["sums"][idx] == 0 and cause not in ("turn", "draw2", "wd4"):
            continue
        e = per_round_estimate(agg, idx)
        share = pct(float(agg["sums"][idx]) / total) if total else "n/a"
        rows.append([CAUSE_LABELS[cause], num_ci(e), share])
        bars.append((CAUSE_LABELS[cause], e))
    rows.append(["**all causes**", num_ci(estimate(agg, METRIC_BY_KEY["drawn_mean"])),
                 "100%"])
    doc.table(["Cause", "Cards drawn per round", "Share of all draws"], rows)
    rows = [[label, num_ci(per_round_estimate(agg, idx))] for idx, label in EVENT_LABELS.items()
            if agg["sums"][idx] or idx in (L.R_RESHUFFLES, L.R_PLAYED)]
    st_e = estimate(agg, METRIC_BY_KEY["stalemate_rate"])
    stalemates = f"{int(agg['counts'][2]):,} of {n:,} rounds"
    rows.append([f"stalemates (rounds reaching max_turns {cfg.max_turns:,})",
                 f"{stalemates}: {pct_ci(st_e)}"])
    doc.table(["Per round", "Value"], rows)
    if "sums_sq" in agg:
        doc.p("Per-round counts carry t intervals from per-round sums of squares.")
    else:
        doc.p("Counts kept only as run totals (draws by cause, reshuffles, other events) are "
              "shown without an interval: these aggregates, written by an older unosim, hold "
              "no per-round sums of squares.")
    resh = per_round_estimate(agg, L.R_RESHUFFLES)
    note = f"Reshuffles: {sig3(resh.value)} per round. Stalemates: {stalemates} ({pct_ci(st_e)})."
    if chartkit.all_zero([b[1].value for b in bars], agg["drawn_hist"]):
        doc.p("No card was drawn in any round, so there is nothing to chart. " + note)
        return []
    chart = svg.draws_chart([b[0] for b in bars], [b[1].value for b in bars],
                          [b[1].low for b in bars], [b[1].high for b in bars],
                          agg["drawn_hist"], note, out / "draws.svg",
                          f"Cards drawn: {cfg.name}, {cfg.players} players")
    doc.image(chart, "Cards drawn per round by cause, and the distribution of the total")
    return [chart]
