"""``unosim league``: policies play each other in balanced seatings on duplicate deals, then are rated.

Design. With ``k`` policies at ``N`` players:

- ``k <= N``: ``k`` seatings; in seating ``r`` seat ``j`` holds policy
  ``(j + r) mod k``. Each policy takes every seat exactly once over the
  seatings and holds ``N`` seat-games per game played (when ``k`` divides
  ``N`` it holds ``N / k`` seats at every table; otherwise some tables give
  it one seat more, others one fewer). With ``k == N`` these are the ``N``
  cyclic rotations.
- ``k > N``: every ``N``-subset of the policies (in the order given) in its
  ``N`` cyclic rotations: each policy meets every other equally often and takes
  every seat equally often.

Every seating is one config (the base config with ``seats`` set) and all of
them play the same games of one seed in lockstep: game ``g`` starts from the
same shuffle in every seating (duplicate deals), so card luck and seat
advantage cancel in the comparison of policies. Two more designs run beside
the league on the same games: the 2-player head-to-head (every pair, both
seatings) and, to measure how much skill a rule set leaves, the strongest
policy against ``N - 1`` ``random`` players in each seat.

Ratings are the Luce/Bradley-Terry fit of `unosim.analysis.ratings`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from unosim.analysis.estimates import Estimate
from unosim.analysis.ratings import (
    Ratings,
    Table,
    edge_over_fair,
    rate_policies,
    rating_spread,
)
from unosim.analysis.stats import wilson_interval
from unosim.analysis.summary import match_win_shares
from unosim.report import league_charts
from unosim.report.compare import write_table
from unosim.report.format import config_yaml, pct, pct_ci
from unosim.report.grid import Axis, build_cells
from unosim.report.render import Doc
from unosim.report.runs import Run, cell_dirs, run_paired
from unosim.rules.config import (
    ConfigError,
    GameConfig,
    config_to_dict,
    load_config,
    name_slug,
    validate_config,
)

__all__ = ["League", "LeagueError", "LeagueSet", "PILOT_GAMES", "design_text", "run_league", "seatings",
           "write_league"]

PILOT_GAMES = 2_000  # --precision: games of the pilot that sizes the run
ROUND_TO = 1_000  # --precision: the games a run needs are rounded up to this
MAX_SEATINGS = 400
Z = 1.959963984540054


class LeagueError(ValueError):
    """A league that cannot be played as asked (the message is one line)."""


def seatings(k: int, n: int) -> list[tuple[int, ...]]:
    """The seatings of ``k`` policies at ``n`` seats: policy index per seat (see the module doc).

    >>> seatings(2, 4)
    [(0, 1, 0, 1), (1, 0, 1, 0)]
    >>> seatings(3, 3)
    [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    >>> len(seatings(5, 2)), seatings(3, 2)[:2]
    (20, [(0, 1), (1, 0)])
    """
    if k <= n:
        return [tuple((j + r) % k for j in range(n)) for r in range(k)]
    out = []
    for sub in itertools.combinations(range(k), n):
        out += [tuple(sub[(j + r) % n] for j in range(n)) for r in range(n)]
    return out


def design_text(names: Sequence[str], n: int) -> str:
    """One paragraph stating the seating design of ``names`` at ``n`` players."""
    k = len(names)
    rows = seatings(k, n)
    if k == n:
        how = (f"the {n} cyclic rotations of the list ({', '.join(names)}): each policy "
               "takes each seat once")
    elif k < n:
        even = n % k == 0
        how = (f"{k} seatings; in seating r, seat j holds policy (j + r) mod {k} of the list "
               f"({', '.join(names)}): each policy takes each seat once over the seatings and "
               + (f"holds {n // k} seats at every table" if even else
                  f"holds {n} seat-games per game in all (the tables give it {n // k} or "
                  f"{n // k + 1} seats)"))
    else:
        how = (f"every {n}-player subset of the {k} policies in its {n} cyclic rotations "
               f"({len(rows)} seatings): each policy meets every other equally often and "
               "takes every seat equally often")
    return (f"**Design:** {how}. Every seating plays the same games (duplicate deals: game g "
            "starts from the same shuffle in every seating), so seat advantage and card luck "
            "cancel between policies.")


def _label(seat: Any) -> str:
    return str(seat)


def _with_seats(base: GameConfig, policies: Sequence[Any], seats: Sequence[int],
                players: int, tag: str) -> GameConfig:
    data = config_to_dict(base)
    data.update(players=players, seats=[policies[i] for i in seats],
                name=f"{base.name}-{tag}"[:60])
    return validate_config(data)


def _table(run: Run, seats: tuple[int, ...]) -> Table:
    """A run's wins by seat: rounds (matches in match mode, a shared win split)."""
    agg = run.aggregates
    if run.cfg.mode == "match":
        wins = match_win_shares(agg, run.cfg.scoring)[0]
        games = int(agg["counts"][0])
    else:
        wins, games = agg["wins_seat"], run.rounds
    return Table(seats, tuple(float(w) for w in wins), games)


@dataclass
class League:
    """One rule set's league: its tables, ratings, head-to-head and skill measures."""

    rule: str  # the rule set's label ("" without --vary)
    cfg: GameConfig
    names: list[str]
    players: int
    games: int
    seed: int
    tables: list[Table]
    ratings: Ratings
    h2h: list[Table] = field(default_factory=list)
    h2h_note: str = ""
    vs_random: list[Table] = field(default_factory=list)
    best: int | None = None
    runs: list[Run] = field(default_factory=list)

    @property
    def unit(self) -> str:
        return "matches" if self.cfg.mode == "match" else "rounds"

    def win_rates(self) -> list[Estimate]:
        """Each policy's win rate per seat it holds, over the whole league (Wilson)."""
        out = []
        for p in range(len(self.names)):
            wins = sum(t.wins[s] for t in self.tables for s, q in enumerate(t.seats) if q == p)
            trials = sum(t.games for t in self.tables for q in t.seats if q == p)
            r, lo, hi = wilson_interval(int(round(wins)), int(trials))
            out.append(Estimate(r, lo, hi, int(trials)))
        return out

    def matrix(self) -> np.ndarray:
        """``[row, col, (rate, low, high, games)]``: row's 2-player win rate against col."""
        k = len(self.names)
        m = np.full((k, k, 4), np.nan)
        for a, b in itertools.permutations(range(k), 2):
            wins = games = 0.0
            for t in self.h2h:
                if set(t.seats) == {a, b}:
                    wins += t.wins[t.seats.index(a)]
                    games += t.games
            if games:
                m[a, b] = (*wilson_interval(int(round(wins)), int(games)), games)
        return m

    def edge(self) -> tuple[float, float, float] | None:
        """The strongest policy's win rate per seat against random players, above 1/players."""
        if not self.vs_random or self.best is None:
            return None
        wins = sum(t.wins[t.seats.index(self.best)] for t in self.vs_random)
        games = sum(t.games for t in self.vs_random)
        return edge_over_fair(wins, games, 1 / self.players)

    def spread(self) -> tuple[float, float, float]:
        return rating_spread(self.ratings)


@dataclass
class LeagueSet:
    """The leagues of one command: one per rule set (one without ``--vary``)."""

    leagues: list[League]
    axis: Axis | None
    design: str
    stop: dict[str, Any] | None = None

    @property
    def names(self) -> list[str]:
        return self.leagues[0].names

    def table(self) -> pd.DataFrame:
        """The tidy table: rule, measure, policy, opponent, value, low, high, n."""
        rows: list[dict[str, Any]] = []

        def add(lg: League, measure: str, policy: str, value: float, low: float, high: float,
                n: float, opponent: str = "") -> None:
            rows.append({"rule": lg.rule, "measure": measure, "policy": policy,
                         "opponent": opponent, "value": value, "low": low, "high": high,
                         "n": n, "players": lg.players, "games": lg.games, "seed": lg.seed})

        for lg in self.leagues:
            r = lg.ratings
            for p, (name, e) in enumerate(zip(lg.names, lg.win_rates(), strict=True)):
                add(lg, "win_rate_per_seat", name, e.value, e.low, e.high, e.n)
                add(lg, "rating", name, float(r.rating[p]), float(r.low[p]), float(r.high[p]),
                    sum(t.decided for t in lg.tables))
            m = lg.matrix()
            for a, b in itertools.permutations(range(len(lg.names)), 2):
                if not math.isnan(m[a, b, 3]):
                    rate, low, high, n = (float(x) for x in m[a, b])
                    add(lg, "head_to_head", lg.names[a], rate, low, high, n, lg.names[b])
            s = lg.spread()
            add(lg, "rating_spread", lg.names[r.order()[0]], s[0], s[1], s[2],
                sum(t.decided for t in lg.tables), lg.names[r.order()[-1]])
            edge = lg.edge()
            if edge is not None and lg.best is not None:
                add(lg, "edge_over_random", lg.names[lg.best], edge[0], edge[1], edge[2],
                    sum(t.games for t in lg.vs_random), "random")
        return pd.DataFrame(rows)

    def verdicts(self) -> list[list[str]]:
        return [_verdicts(lg) for lg in self.leagues]

    def to_json(self) -> dict[str, Any]:
        return {
            "design": self.design, "stop": self.stop,
            "vary": self.axis.key if self.axis else None,
            "leagues": [{
                "rule": lg.rule, "players": lg.players, "games": lg.games, "seed": lg.seed,
                "ratings": {n: {"rating": float(lg.ratings.rating[i]),
                                "low": float(lg.ratings.low[i]),
                                "high": float(lg.ratings.high[i])}
                            for i, n in enumerate(lg.names)},
                "win_rate_per_seat": {n: {"rate": e.value, "low": e.low, "high": e.high}
                                      for n, e in zip(lg.names, lg.win_rates(), strict=True)},
                "rating_spread": dict(zip(("value", "low", "high"), lg.spread(), strict=True)),
                "edge_over_random": (None if lg.edge() is None or lg.best is None else
                                     {"policy": lg.names[lg.best],
                                      **dict(zip(("value", "low", "high"), lg.edge() or (),
                                                 strict=True))}),
                "verdicts": _verdicts(lg),
            } for lg in self.leagues],
        }


def run_league(
    config: str | Path,
    policies: Sequence[Any],
    *,
    players: int | None = None,
    overrides: Sequence[str] = (),
    vary: Axis | None = None,
    games: int | None = None,
    seed: int | None = None,
    precision: float | None = None,
    max_games: int | None = None,
    head_to_head: bool = True,
    out: str | Path | None = None,
    reuse: bool = False,
    resume: bool = False,
    force: bool = False,
    boot: int = 1000,
    on_stage: Callable[[str], None] | None = None,
    **run_opts: Any,
) -> LeagueSet:
    """Play the league of ``policies`` under ``config`` (per value of ``vary``) and rate them.

    ``policies`` are seat specs (a name, or ``{policy, params}``). ``precision``
    X: a pilot of `PILOT_GAMES` games sizes the run so that every policy's
    win rate per seat has a 95% half-width of about X (capped by
    ``max_games``). Raises ``ConfigError`` or `LeagueError` (one line) on bad input.
    """
    base_cfgs = ([c.cfg for c in build_cells(config, [vary], overrides)] if vary is not None
                 else [load_config(config, overrides)])
    rules = vary.labels if vary is not None else [""]
    n = players or base_cfgs[0].players
    if len(policies) < 2:
        raise LeagueError("a league needs at least two policies")
    names = [_label((_with_seats(base_cfgs[0], policies, [i] * n, n, "probe").seats or [""])[0])
             for i in range(len(policies))]
    if len(set(names)) != len(names):
        raise LeagueError(f"each policy may enter the league once (got {', '.join(names)})")
    rows = seatings(len(names), n)
    if len(rows) > MAX_SEATINGS:
        raise LeagueError(f"{len(rows):,} seatings, more than a league's {MAX_SEATINGS}; "
                         "enter fewer policies or seat more players")
    seed = base_cfgs[0].seed if seed is None else seed
    games = base_cfgs[0].games if games is None else games
    stop = None
    if precision is not None:
        games, stop = _games_for(base_cfgs[0], policies, rows, n, precision,
                                 games if max_games is None else max_games, seed, on_stage,
                                 run_opts)
    leagues: list[League] = []
    for rule, base in zip(rules, base_cfgs, strict=True):
        root = None if out is None else Path(out) / "runs"
        if root is not None and vary is not None:
            root = root / name_slug(f"{vary.key.split('.')[-1]}-{vary.texts[len(leagues)]}")
        leagues.append(_one_league(rule, base, policies, names, rows, n, games, seed,
                                   head_to_head, root, reuse, resume, force, boot,
                                   on_stage, run_opts))
    return LeagueSet(leagues, vary, design_text(names, n), stop)


def _games_for(base: GameConfig, policies: Sequence[Any], rows: list[tuple[int, ...]], n: int,
               precision: float, cap: int, seed: int, on_stage: Callable[[str], None] | None,
               run_opts: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """The games a precision target needs, from a pilot of the league's seatings."""
    pilot = min(PILOT_GAMES, cap)
    if on_stage:
        on_stage(f"pilot: {pilot:,} games per seating to size the run")
    cfgs = [_with_seats(base, policies, s, n, f"s{i}") for i, s in enumerate(rows)]
    runs, _, _ = run_paired(cfgs, games=pilot, seed=seed, **run_opts)
    tables = [_table(r, s) for r, s in zip(runs, rows, strict=True)]
    need = 0.0
    for p in {q for s in rows for q in s}:
        wins = sum(t.wins[j] for t in tables for j, q in enumerate(t.seats) if q == p)
        trials = sum(t.games for t in tables for q in t.seats if q == p)
        rate = min(max(wins / trials, 1 / trials), 1 - 1 / trials)
        need = max(need, Z * Z * rate * (1 - rate) / precision**2 / (trials / pilot))
    games = int(min(cap, max(pilot, math.ceil(need / ROUND_TO) * ROUND_TO)))
    return games, {"precision": precision, "pilot": pilot, "max_games": cap, "games": games,
                   "met": need <= cap}


def _one_league(rule: str, base: GameConfig, policies: Sequence[Any], names: list[str],
                rows: list[tuple[int, ...]], n: int, games: int, seed: int, head_to_head: bool,
                root: Path | None, reuse: bool, resume: bool, force: bool, boot: int,
                on_stage: Callable[[str], None] | None, run_opts: dict[str, Any]) -> League:
    """Run one rule set's league (+ head-to-head) in lockstep, then the vs-random stage."""
    k = len(names)

    def tag(s: Sequence[int], p: int) -> str:
        return f"{p}p-" + "-".join(names[i] for i in s)

    jobs = [(_with_seats(base, policies, s, n, tag(s, n)), s, "league") for s in rows]
    note = ""
    if head_to_head and n != 2:
        try:
            jobs += [(_with_seats(base, policies, s, 2, tag(s, 2)), s, "h2h")
                     for s in seatings(k, 2)]
        except ConfigError as exc:
            note = f"No head-to-head: this rule set cannot seat 2 players ({exc.message})."
    elif not head_to_head:
        note = "Head-to-head not run (--no-head-to-head)."
    if on_stage:
        on_stage(f"{rule + ': ' if rule else ''}{len(jobs)} seatings, {games:,} games each")
    runs = _run(jobs, games, seed, root, reuse, resume, force, run_opts)
    tables = [_table(r, s) for r, (_, s, g) in zip(runs, jobs, strict=True) if g == "league"]
    h2h = [_table(r, s) for r, (_, s, g) in zip(runs, jobs, strict=True) if g == "h2h"]
    if n == 2:
        h2h = tables
    ratings = rate_policies(names, tables, boot=boot, seed=seed)
    lg = League(rule, base, names, n, runs[0].games, seed, tables, ratings, h2h, note,
                runs=runs)
    best = ratings.order()[0]
    if "random" in names and names[best] != "random":
        rnd = names.index("random")
        vs = [tuple(best if j == r else rnd for j in range(n)) for r in range(n)]
        vjobs = [(_with_seats(base, policies, s, n, "vs-random-" + tag(s, n)), s, "vs")
                 for s in vs]
        if on_stage:
            on_stage(f"{rule + ': ' if rule else ''}{names[best]} against {n - 1} random "
                     f"players, {n} seatings")
        vruns = _run(vjobs, games, seed, root, reuse, resume, force, run_opts)
        lg.vs_random = [_table(r, s) for r, s in zip(vruns, vs, strict=True)]
        lg.best = best
        lg.runs += vruns
    return lg


def _run(jobs: list[tuple[GameConfig, tuple[int, ...], str]], games: int, seed: int,
         root: Path | None, reuse: bool, resume: bool, force: bool,
         run_opts: dict[str, Any]) -> list[Run]:
    dirs = (cell_dirs(root, [c.name for c, _, _ in jobs]) if root is not None else None)
    runs, _, _ = run_paired([c for c, _, _ in jobs], games=games, seed=seed, dirs=dirs,
                            reuse=reuse, resume=resume, force=force, **run_opts)
    return runs


def _elo(x: float) -> str:
    return f"{x:+.0f}"


def _verdicts(lg: League) -> list[str]:
    """Plain sentences: who rates highest, which neighbours differ, how much skill is left."""
    r, names = lg.ratings, lg.names
    order = r.order()
    rates = lg.win_rates()
    top = order[0]
    fair = 1 / lg.players
    out = [f"**{names[top]}** rates highest: {_elo(r.rating[top])} Elo (95% CI "
           f"{_elo(r.low[top])} to {_elo(r.high[top])}); it wins {pct_ci(rates[top])} of "
           f"{lg.unit} per seat it holds, against a fair {pct(fair)}."]
    for a, b in itertools.pairwise(order):
        d = r.draws[:, a] - r.draws[:, b]
        lo, hi = np.percentile(d, [2.5, 97.5])
        diff = r.rating[a] - r.rating[b]
        if lo > 0:
            out.append(f"{names[a]} is stronger than {names[b]}: {diff:.0f} Elo "
                       f"(95% CI {lo:.0f} to {hi:.0f}).")
        else:
            out.append(f"{names[a]} and {names[b]} cannot be told apart at this sample "
                       f"({diff:.0f} Elo, 95% CI {lo:.0f} to {hi:.0f}): run more games.")
    s = lg.spread()
    out.append(f"Rating spread, strongest to weakest ({names[order[0]]} to "
               f"{names[order[-1]]}): {s[0]:.0f} Elo (95% CI {s[1]:.0f} to {s[2]:.0f}).")
    e = lg.edge()
    if e is not None and lg.best is not None:
        out.append(f"Skill left by the rules: {names[lg.best]} against {lg.players - 1} random "
                   f"player{'s' if lg.players > 2 else ''} wins {pct(e[0] + fair)} per seat, {100 * e[0]:+.1f} points above "
                   f"the fair {pct(fair)} (95% CI {100 * e[1]:+.1f} to {100 * e[2]:+.1f}).")
    return out


def write_league(ls: LeagueSet, out_dir: str | Path, command: str | None = None,
                 stem: str = "league") -> list[Path]:
    """league.md/.html, league.csv/.parquet and the charts; their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    names = ls.names
    doc = Doc("League: " + ", ".join(names))
    first = ls.leagues[0]
    doc.p(f"{len(names)} policies at {first.players} players, {first.games:,} "
          f"{first.unit.replace('rounds', 'games')} per seating, seed {first.seed}"
          + (f"; one league per value of {ls.axis.label}" if ls.axis else "") + ".", lead=True)
    pngs: list[Path] = []
    for i, lg in enumerate(ls.leagues):
        if ls.axis:
            doc.h2(f"{ls.axis.label}: {lg.rule}")
        (doc.h3 if ls.axis else doc.h2)("Verdicts")
        doc.ul(_verdicts(lg))
        pngs += _league_section(doc, lg, out, stem + (f"_{i + 1}" if ls.axis else ""),
                                bool(ls.axis))
    if ls.axis and len(ls.leagues) > 1:
        pngs += _movement(doc, ls, out, stem)
    doc.h2("How this was made")
    doc.p(ls.design)
    if ls.stop:
        doc.p(f"**Games:** a pilot of {ls.stop['pilot']:,} games per seating measured each "
              f"policy's win rate; the run plays the games that bring the widest 95% "
              f"half-width of a win rate per seat to ±{ls.stop['precision']:g} (normal "
              f"approximation, rounded up to {ROUND_TO:,}, at most {ls.stop['max_games']:,}): "
              f"{ls.stop['games']:,} games"
              + ("" if ls.stop["met"] else ", the cap, so the target is not met") + ".")
    doc.p("**Ratings:** Luce's choice model (Bradley-Terry with two players): a policy's seat "
          "wins a round with probability its strength over the sum of the strengths at the "
          "table; stalemates are left out. Elo scale (+100: about 64% head to head), mean 0. "
          f"95% intervals: percentile bootstrap ({first.ratings.draws.shape[0]:,} resamples of "
          "each seating's rounds, fixed seed); resampling seatings independently ignores the duplicate-deal pairing, "
          "so the intervals are a little wide. Win rates per seat: the policy's wins over the "
          "seat-games it held, Wilson interval (conservative when it holds several seats, "
          "whose wins exclude each other).")
    if command:
        doc.code(command, "sh")
    doc.code(config_yaml(first.cfg, first.games, first.seed), "yaml")
    paths = doc.write(out, stem)
    return paths + write_table(ls.table(), out, stem) + pngs


def _league_section(doc: Doc, lg: League, out: Path, stem: str, sub: bool) -> list[Path]:
    h = doc.h3 if sub else doc.h2
    names, r = lg.names, lg.ratings
    h("Ratings and win rates")
    rates = lg.win_rates()
    doc.table(["Policy", "Rating (Elo, 95% CI)", f"Win rate per seat (95% CI; fair "
               f"{pct(1 / lg.players)})", "Seat-games"],
              [[names[i], f"{_elo(r.rating[i])} ({_elo(r.low[i])} to {_elo(r.high[i])})",
                pct_ci(rates[i]), f"{rates[i].n:,}"] for i in r.order()])
    pngs = [league_charts.rating_chart(
        names, [(lg.rule or "rating", r.rating, r.low, r.high)], out / f"{stem}_ratings.png",
        "Policy ratings (Elo, 95% bootstrap CI)")]
    doc.image(pngs[-1], "Each policy's rating with its 95% interval")
    h("Seatings")
    doc.table(["Seating"] + [f"seat {j + 1}" for j in range(lg.players)] + [f"{lg.unit} won by seat"],
              [[str(i + 1)] + [names[p] for p in t.seats]
               + [", ".join(f"{w:g}" for w in t.wins)] for i, t in enumerate(lg.tables)])
    h("Head to head (2 players)")
    if lg.h2h:
        m = lg.matrix()
        doc.table(["Row beats column"] + names,
                  [[names[a]] + ["—" if a == b else pct_ci(Estimate(float(m[a, b, 0]), float(m[a, b, 1]),
                                                        float(m[a, b, 2]), int(m[a, b, 3])))
                                 for b in range(len(names))] for a in range(len(names))])
        doc.p("Each cell: the row policy's win rate against the column policy over both "
              "2-player seatings on the same deals, 95% Wilson interval.")
        pngs.append(league_charts.matrix_chart(names, m[:, :, 0], out / f"{stem}_h2h.png",
                                               "Head to head: row's win rate against column"))
        doc.image(pngs[-1], "Head-to-head win rates as a heatmap")
    else:
        doc.p(lg.h2h_note or "No head-to-head.")
    return pngs


def _movement(doc: Doc, ls: LeagueSet, out: Path, stem: str) -> list[Path]:
    """How each policy's rating moves across the rule sets."""
    assert ls.axis is not None
    doc.h2(f"How the ratings move with {ls.axis.label}")
    base = ls.leagues[0]
    rows = []
    for lg in ls.leagues:
        s, e = lg.spread(), lg.edge()
        row = [lg.rule]
        for i in range(len(ls.names)):
            row.append(f"{_elo(lg.ratings.rating[i])} ({_elo(lg.ratings.low[i])} to "
                       f"{_elo(lg.ratings.high[i])})")
        row.append(f"{s[0]:.0f} ({s[1]:.0f} to {s[2]:.0f})")
        row.append("—" if e is None else f"{100 * e[0]:+.1f} ({100 * e[1]:+.1f} to "
                   f"{100 * e[2]:+.1f}) points")
        rows.append(row)
    doc.table([ls.axis.label] + ls.names + ["Rating spread", "Best vs random, above fair"], rows)
    moves = []
    for lg in ls.leagues[1:]:
        for i, name in enumerate(ls.names):
            d = lg.ratings.draws[:, i] - base.ratings.draws[:, i]
            lo, hi = np.percentile(d, [2.5, 97.5])
            diff = lg.ratings.rating[i] - base.ratings.rating[i]
            if lo > 0 or hi < 0:
                moves.append(f"{name} moves {diff:+.0f} Elo from {base.rule} to {lg.rule} "
                             f"(95% CI {lo:+.0f} to {hi:+.0f}).")
    doc.ul(moves or ["No policy's rating moves beyond its interval between the rule sets."])
    png = league_charts.rating_chart(
        ls.names, [(lg.rule, lg.ratings.rating, lg.ratings.low, lg.ratings.high)
                   for lg in ls.leagues], out / f"{stem}_ratings_by_rule.png",
        f"Ratings by {ls.axis.label} (Elo, 95% CI)")
    doc.image(png, "Each policy's rating under each rule set")
    return [png]

