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
  low, high, wins, seats, per_seat}}``, the share of all rounds won by that
  policy's seats; ``per_seat`` ``{rate, low, high}`` is that share and its
  interval divided by the seats it holds, comparable with 1/players);
- ``stalemates`` ``{count, rate, low, high}``;
- ``cards_played``, ``reshuffles``, ``jumps``, ``swaps``, ``challenges``: means;
- ``draws_by_cause``: mean cards drawn per round for each cause of
  ``engine.kernel.state.CAUSES``; ``special``: ``{card, plays_per_round,
  cards_drawn_per_round}`` (``card`` is the edition's special wild, or null);
- ``matches`` (match mode only): ``{count, rounds_per_match, win_rate_by_seat,
  win_rate_by_policy, unfinished, margin, ties, win_share_by_seat,
  win_share_by_policy, win_share_convention}``. ``win_rate_by_*`` give every
  seat that shares a win a full win (so under ``lowest`` scoring they add up
  to more than 1); ``win_share_by_*`` count a win shared by k seats as 1/k
  for each (a partners team's win too), so they add up to the finished
  matches; ``ties`` counts matches whose win was shared by two or more seats
  (never under ``partners``, where two winners are one team). Aggregates
  without ``match_wins_k`` (an older unosim) give full wins as shares, null
  ``ties`` and ``win_share_convention`` ``"full"`` (see `match_win_shares`);
- ``stop`` (runs with a precision target only): ``{precision, max_games,
  half_width, met}``, how the run decided it had played enough games;
- ``seed``, ``config_hash``, ``unosim_version``, ``config_name`` and ``config``
  (the resolved config, with the run's own ``games`` and ``seed``).
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict, cast

import numpy as np

from unosim._version import __version__
from unosim.analysis.stats import Floats, ci_decimals, format_ci, summarize_hist, wilson_interval
from unosim.engine.kernel import state as L
from unosim.rules.config import GameConfig, config_hash, config_to_dict
from unosim.run.files import atomic_write

if TYPE_CHECKING:
    from unosim.run import RunResult

SCHEMA_VERSION = 1
STOP_FIELDS = ("precision", "max_games", "half_width", "met")
SCHEMA_PATH = Path(__file__).with_name("summary.schema.json")

# summary.json's key order is its schema's (summary.schema.json, the contract for readers).


class HistStats(TypedDict):
    """A histogram's statistics (`unosim.analysis.stats.HistSummary`); null when undefined."""

    n: int
    mean: float | None
    std: float | None
    sem: float | None
    median: float | None
    p10: float | None
    p90: float | None
    min: float | None
    max: float | None
    ci_low: float | None
    ci_high: float | None


class Rate(TypedDict):
    """A proportion with its 95% Wilson interval; nulls when there were no trials."""

    rate: float | None
    low: float | None
    high: float | None


class Wins(Rate):
    """A seat's or position's win rate and its win count."""

    wins: int


class PolicyWins(Wins):
    """A policy's wins over the seats it holds, and the rate per seat."""

    seats: int
    per_seat: Rate


class Share(Rate):
    """A share of the matches that may count fractions (a tie split k ways)."""

    wins: float | None


class PolicyShare(Share):
    seats: int


class SummaryStop(TypedDict):
    """The part of a run's `unosim.run.documents.Stop` its summary keeps (`STOP_FIELDS`)."""

    precision: float
    max_games: int
    half_width: float | None
    met: bool


class Counted(Rate):
    """How many rounds (or matches) something happened in, and its rate."""

    count: int


class SpecialWild(TypedDict):
    """The edition's special wild (``card`` null when it has none)."""

    card: str | None
    plays_per_round: float | None
    cards_drawn_per_round: float | None


class Mercy(TypedDict):
    """The mercy rule's knock-outs (docs/rules.md section 11): only for an edition
    with a ``mercy_limit``."""

    limit: int
    outs_per_round: float | None
    rounds_with_an_out: float | None


class Matches(TypedDict, total=False):
    """Match mode's part of a summary (``ties`` and the shares: aggregates that count them)."""

    count: int
    rounds_per_match: HistStats
    win_rate_by_seat: list[Wins]
    win_rate_by_policy: dict[str, PolicyWins]
    unfinished: Counted
    margin: HistStats
    ties: Counted | None
    win_share_by_seat: list[Share]
    win_share_by_policy: dict[str, PolicyShare]
    win_share_convention: str


class Summary(TypedDict, total=False):
    """``summary.json``: the fields of summary.schema.json (a test keeps the two alike).

    Per-round counters land where `unosim.engine.kernel.state.COUNTERS` says, so the
    builder fills them by path; ``matches`` and ``stop`` are there only in
    match mode and with a precision target.
    """

    schema_version: int
    config_name: str
    games: int
    rounds: int
    turns: HistStats
    win_rate_by_position: list[Wins]
    win_rate_by_seat: list[Wins]
    win_rate_by_policy: dict[str, PolicyWins]
    stalemates: Counted
    points: HistStats
    cards_drawn: HistStats
    cards_played: float | None
    draws_by_cause: dict[str, float | None]
    reshuffles: float | None
    special: SpecialWild
    jumps: float | None
    swaps: float | None
    challenges: float | None
    mercy: Mercy
    matches: Matches
    stop: SummaryStop
    seed: int
    config_hash: str
    unosim_version: str
    config: dict[str, object]


def _clean(x: float) -> float | None:
    """JSON has no NaN: undefined statistics become null."""
    return None if isinstance(x, float) and not math.isfinite(x) else x


def hist_stats(hist: np.ndarray) -> HistStats:
    """Descriptive statistics of one histogram, JSON-ready."""
    s = summarize_hist(hist)
    return HistStats(n=int(s.n), mean=_clean(float(s.mean)), std=_clean(float(s.std)),
                     sem=_clean(float(s.sem)), median=_clean(float(s.median)),
                     p10=_clean(float(s.p10)), p90=_clean(float(s.p90)),
                     min=_clean(float(s.min)), max=_clean(float(s.max)),
                     ci_low=_clean(float(s.ci_low)), ci_high=_clean(float(s.ci_high)))


def rate(k: int, n: int) -> Rate:
    """``{rate, low, high}`` with a 95% Wilson interval (nulls when n is 0)."""
    r, lo, hi = wilson_interval(int(k), int(n))
    return {"rate": _clean(r), "low": _clean(lo), "high": _clean(hi)}


def _wins(wins: np.ndarray, n: int) -> list[Wins]:
    return [{**rate(int(w), n), "wins": int(w)} for w in wins]


def _per_seat(x: float | None, seats: int) -> float | None:
    return None if x is None else x / seats


def _by_policy(wins_seat: np.ndarray, policies: Sequence[str], n: int) -> dict[str, PolicyWins]:
    """Each policy's share of the wins, and that share per seat it holds.

    ``random: 0.69`` over three seats is 0.23 per seat: the per-seat rate (and
    its Wilson interval) is the group's divided by its seats, so it reads
    against the fair share 1/players whatever the seating.
    """
    out: dict[str, PolicyWins] = {}
    for name in sorted(set(policies)):
        seats = [i for i, p in enumerate(policies) if p == name]
        k = int(sum(int(wins_seat[i]) for i in seats))
        # Partners matches have two winners, so a policy's wins can exceed n.
        group: Rate = rate(k, n) if k <= n else {"rate": k / n, "low": None, "high": None}
        per_seat: Rate = {"rate": _per_seat(group["rate"], len(seats)),
                          "low": _per_seat(group["low"], len(seats)),
                          "high": _per_seat(group["high"], len(seats))}
        out[name] = {**group, "wins": k, "seats": len(seats), "per_seat": per_seat}
    return out


def _share(wins: Fraction, n: int) -> Share:
    """A share of ``n`` trials that may count fractions (a tie split k ways).

    The Wilson interval treats the shares as whole wins, which overstates
    their spread a little, so the interval is conservative.
    """
    r, lo, hi = wilson_interval(wins, n)
    return {"rate": _clean(r), "low": _clean(lo), "high": _clean(hi), "wins": _clean(float(wins))}


def exact_win_shares(agg: Mapping[str, np.ndarray], scoring: str
                     ) -> tuple[list[Fraction], int | None, bool]:
    """`match_win_shares` with each seat's share an exact fraction.

    Shares are sums of ``count / k``: exact, so a policy's total (and the
    finished matches they add up to) never depends on a float summation.

    >>> exact_win_shares({"match_wins_k": np.array([[2, 1, 3], [0, 1, 3]])}, "lowest")[0]
    [Fraction(7, 2), Fraction(3, 2)]
    """
    k_counts = agg.get("match_wins_k")
    if k_counts is None:
        return [Fraction(int(w)) for w in agg["match_wins_seat"]], None, False
    rows = np.asarray(k_counts, dtype=np.int64).tolist()
    shares = [sum((Fraction(c, k) for k, c in enumerate(row, 1)), Fraction(0)) for row in rows]
    if scoring == "partners":
        return shares, 0, True
    by_k = [sum(col) // k for k, col in enumerate(zip(*rows, strict=True), 1)]  # won by k seats
    return shares, sum(by_k[1:]), True


def match_win_shares(agg: Mapping[str, np.ndarray], scoring: str
                     ) -> tuple[Floats, int | None, bool]:
    """(wins per seat, tied matches, split) of match-mode aggregates.

    With ``match_wins_k`` (``[seat, k-1]``: matches won by ``seat`` with the
    win shared by ``k`` seats), a shared win counts ``1/k`` for each seat, so
    the shares add up to the finished matches, and the tied matches are those
    with two or more winners, except under ``partners`` scoring, where the
    two winners are one team. Without it (aggregates of an older unosim) every
    sharing seat keeps a full win, the ties are unknown (None) and ``split``
    is False.

    >>> k = np.array([[2, 1, 0], [1, 1, 0], [3, 0, 0]])  # 6 outright, 1 tie of two
    >>> shares, ties, split = match_win_shares({"match_wins_k": k}, "lowest")
    >>> shares.tolist(), ties, split
    ([2.5, 1.5, 3.0], 1, True)
    >>> match_win_shares({"match_wins_seat": np.array([3, 2, 3])}, "lowest")[1:]
    (None, False)
    """
    shares, ties, split = exact_win_shares(agg, scoring)
    return np.array([float(s) for s in shares], dtype=np.float64), ties, split


def _shares_by_policy(shares: Sequence[Fraction], policies: Sequence[str], n: int
                      ) -> dict[str, PolicyShare]:
    out: dict[str, PolicyShare] = {}
    for name in sorted(set(policies)):
        total = sum((shares[i] for i, p in enumerate(policies) if p == name), Fraction(0))
        out[name] = {**_share(min(total, Fraction(n)), n), "seats": policies.count(name)}
    return out


def build_summary(agg: dict[str, np.ndarray], cfg: GameConfig, *, seed: int,
                  games: int) -> Summary:
    """The ``summary.json`` document for merged aggregates of ``games`` games of ``cfg``."""
    run_cfg = cfg.model_copy(update={"games": int(games), "seed": int(seed)})
    counts = agg["counts"]
    rounds = int(counts[1])
    sums = agg["sums"]

    def per_round(i: int) -> float | None:  # integer ratio, rounded once
        return _clean(int(sums[i]) / rounds) if rounds else None

    policies = cfg.seat_policies
    stale = int(counts[2])
    summary: dict[str, object] = {
        "schema_version": SCHEMA_VERSION,
        "config_name": cfg.name,
        "games": int(counts[0]),
        "rounds": rounds,
        "win_rate_by_position": _wins(agg["wins_pos"], rounds),
        "win_rate_by_seat": _wins(agg["wins_seat"], rounds),
        "win_rate_by_policy": _by_policy(agg["wins_seat"], policies, rounds),
        "stalemates": {"count": stale, **rate(stale, rounds)},
        "draws_by_cause": {c: per_round(L.R_DRAW_BY_CAUSE + i) for i, c in enumerate(L.CAUSES)},
        "special": {"card": (cfg.edition_spec.special.name
                             if cfg.edition_spec.special else None)},
    }
    for c in L.COUNTERS:  # each declared counter, where its `summary` path says
        *group, key = c.summary.split(".")
        node = summary
        for g in group:  # a group the literal above opened (the schema has no other)
            node = cast("dict[str, object]", node.setdefault(g, {}))
        node[key] = hist_stats(agg[c.hist]) if c.hist else per_round(c.slot)
    if cfg.edition_spec.mercy_limit is not None:  # only then: the other summaries as before
        summary["mercy"] = {"limit": cfg.edition_spec.mercy_limit,
                            "outs_per_round": per_round(L.R_OUTS),
                            "rounds_with_an_out": per_round(L.R_OUT_ROUNDS)}
    summary = _schema_order(summary)
    if cfg.mode == "match":
        m = int(counts[0])
        unfinished = int(counts[3])
        shares, ties, split = exact_win_shares(agg, cfg.scoring)
        matches: Matches = {
            "count": m,
            "rounds_per_match": hist_stats(agg["match_rounds_hist"]),
            "win_rate_by_seat": _wins(agg["match_wins_seat"], m),
            "win_rate_by_policy": _by_policy(agg["match_wins_seat"], policies, m),
            "unfinished": {"count": unfinished, **rate(unfinished, m)},
            "margin": hist_stats(agg["margin_hist"]),
            "ties": None if ties is None else {"count": ties, **rate(ties, m)},
            "win_share_by_seat": [_share(min(w, Fraction(m)), m) for w in shares],
            "win_share_by_policy": _shares_by_policy(shares, policies, m),
            "win_share_convention": "split" if split else "full",
        }
        summary["matches"] = matches
    summary.update(
        seed=int(seed),
        config_hash=config_hash(run_cfg),
        unosim_version=__version__,
        config=config_to_dict(run_cfg),
    )
    # its fields are the schema's, in its order (tests validate built summaries against it)
    return cast("Summary", summary)


@functools.cache
def _schema_order_of() -> dict[str, list[str]]:
    """The schema's top-level property names (under ""), and each object property's own:
    their order is the document's."""
    props = json.loads(SCHEMA_PATH.read_text())["properties"]
    out = {"": list(props)}
    out.update({k: list(v["properties"]) for k, v in props.items() if "properties" in v})
    return out


def _schema_order(summary: Mapping[str, object]) -> dict[str, object]:
    """``summary`` with its keys, and those of the groups counters nest in, in the
    schema's order (so a counter declared anywhere lands where the schema puts it)."""
    orders = _schema_order_of()
    groups = {c.summary.split(".")[0] for c in L.COUNTERS if "." in c.summary}
    out: dict[str, object] = {}
    for key in sorted(summary, key=orders[""].index):
        value = summary[key]
        if key in groups:
            order = orders[key]
            group = cast("dict[str, object]", value)
            value = {k: group[k] for k in sorted(group, key=order.index)}
        out[key] = value
    return out


def summary_json(summary: Mapping[str, object]) -> str:
    """Canonical text of a summary: stable key order, so equal runs give equal bytes."""
    return json.dumps(summary, indent=2, allow_nan=False) + "\n"


def summarize_run(result: RunResult) -> Summary:
    """The summary of a finished run, also written to its out dir's ``summary.json``.

    Written atomically, after the runner has marked the run complete: the
    summary is derived from ``aggregates.npz``, so a resumed run rewrites it.
    """
    summary = build_summary(result.aggregates, result.cfg, seed=result.seed, games=result.games)
    stop = getattr(result, "stop", None)
    if stop:
        summary["stop"] = cast("SummaryStop", {k: stop.get(k) for k in STOP_FIELDS})
    if result.out is not None:
        text = summary_json(summary).encode()
        atomic_write(result.out / "summary.json", lambda f: f.write(text))
    return summary


def format_text(summary: Summary, elapsed: float | None = None,
                rounds_computed: int | None = None) -> str:
    """The short human summary ``unosim run`` prints."""
    t = summary["turns"]
    rounds = summary["rounds"]
    unit = "matches" if "matches" in summary else "rounds"
    lines = [f"{summary['config_name']}: {summary['games']:,} {unit}"
             + (f", {rounds:,} rounds" if unit == "matches" else "")
             + f", seed {summary['seed']}"]
    # an interval's two ends are both null or both numbers
    if t["mean"] is not None and t["ci_low"] is not None and t["ci_high"] is not None:
        lines.append(f"  turns per round   {format_ci(t['mean'], t['ci_low'], t['ci_high'])}, "
                     f"median {t['median']:g}, p90 {t['p90']:g}")
    elif t["mean"] is not None:
        lines.append(f"  turns per round   {t['mean']:.1f}")
    first = summary["win_rate_by_position"][0]
    if first["rate"] is not None and first["low"] is not None and first["high"] is not None:
        lo, hi = 100 * first["low"], 100 * first["high"]
        d = ci_decimals(lo, hi)
        fair = 100 / len(summary["win_rate_by_position"])
        lines.append(f"  first player wins {100 * first['rate']:.{d}f}% "
                     f"(95% CI {lo:.{d}f}–{hi:.{d}f}%; fair share {fair:.1f}%)")
    by_policy = summary["win_rate_by_policy"]
    if len(by_policy) > 1:
        for name, p in by_policy.items():
            lines.append(f"  {name + ' wins':<17} {_pct(p)} of rounds "
                         f"({p['seats']} seat{'s' if p['seats'] > 1 else ''}; "
                         f"fair share {100 * p['seats'] / len(summary['win_rate_by_position']):.1f}%)")
    st = summary["stalemates"]
    lines.append(f"  stalemates        {st['count']:,}"
                 + (f" ({100 * st['rate']:.2g}%)" if st["count"] and st["rate"] is not None
                    else ""))
    lines += _mercy_lines(summary)
    sp = summary.get("special")
    if sp and sp.get("card"):
        lines.append(f"  {sp['card']}: played {sp['plays_per_round']:.2f} times a round, "
                     f"{sp['cards_drawn_per_round']:.2f} cards drawn because of it")
    if "matches" in summary:
        mr = summary["matches"]["rounds_per_match"]
        if mr["mean"] is not None and mr["ci_low"] is not None and mr["ci_high"] is not None:
            lines.append(f"  rounds per match  {format_ci(mr['mean'], mr['ci_low'], mr['ci_high'])}")
        lines.append(f"  unfinished        {summary['matches']['unfinished']['count']:,}")
        lines += _match_lines(summary["matches"], summary["config"].get("scoring"))
    stop = summary.get("stop")
    if stop:
        lines.append(_stop_line(stop, summary["games"], unit))
    if elapsed is not None:
        line = f"  elapsed           {elapsed:.1f} s"
        if rounds_computed and elapsed > 0:
            line += f" ({rounds_computed / elapsed:,.0f} rounds/s)"
        lines.append(line)
    return "\n".join(lines) + "\n"


def _mercy_lines(summary: Summary) -> list[str]:
    """The share of rounds with a mercy knock-out, for an edition with a mercy limit: a
    count over the rounds, so it gets its exact (Wilson) interval."""
    mercy = summary.get("mercy")
    if not mercy or mercy["rounds_with_an_out"] is None:
        return []
    n = summary["rounds"]
    out = rate(round(mercy["rounds_with_an_out"] * n), n)
    return [f"  mercy knock-outs  in {_pct(out)} of rounds "
            f"(a hand of {mercy['limit']} cards is out)"]


def _pct(r: Rate) -> str:
    """A rate as '25.3% (95% CI 24.1–26.5%)', or its bare value without an interval."""
    rate, low, high = r["rate"], r["low"], r["high"]
    if rate is None:
        return "n/a"
    if low is None or high is None:
        return f"{100 * rate:.1f}%"
    lo, hi = 100 * low, 100 * high
    d = ci_decimals(lo, hi)
    return f"{100 * rate:.{d}f}% (95% CI {lo:.{d}f}–{hi:.{d}f}%)"


def _match_lines(m: Matches, scoring: object) -> list[str]:
    """Match win shares by seat (and policy) with the tie convention, and the tie rate."""
    shares = m.get("win_share_by_seat")
    if shares is None:  # a summary written before shares existed
        return []
    if m.get("win_share_convention") != "split":
        note = "every seat sharing a win counted a full win: older aggregates"
    elif scoring == "partners":
        note = "a team's win counts 1/2 for each partner"
    else:
        note = "a win shared by k seats counts 1/k"
    lines = [f"  match wins        ({note})"]
    lines += [f"    seat {i:<12} {_pct(r)}" for i, r in enumerate(shares)]
    by_policy = m.get("win_share_by_policy") or {}
    if len(by_policy) > 1:
        lines += [f"    {name:<17} {_pct(r)}" for name, r in by_policy.items()]
    ties = m.get("ties")
    if ties is not None and scoring != "partners":
        lines.append(f"  tied matches      {ties['count']:,}"
                     + (f", {_pct(ties)}" if ties["count"] else ""))
    return lines


def _stop_line(stop: SummaryStop, games: int, unit: str) -> str:
    """How a run with a precision target ended: met at N games, or not met at the cap."""
    h, x = stop.get("half_width"), stop.get("precision")
    hw = "n/a" if h is None else f"{h:.3g}"
    if stop.get("met"):
        return (f"  precision         stopped at {games:,} {unit}: half-width {hw} <= {x:g} "
                "turns")
    return (f"  precision         not met at the cap of {stop.get('max_games', games):,} "
            f"{unit}: half-width {hw} > {x:g} turns")
