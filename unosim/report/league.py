"""``unosim league``: policies play each other in balanced seatings on duplicate deals, then are rated.

Design. In UNO the player after you takes your Draw Twos, so a league must
balance not only who sits where but who sits after whom. With ``k``
policies at ``N`` players the seatings are every arrangement of the policies
at the table: every ordered choice of ``N`` of them when ``k >= N``;
otherwise every seating in which each policy holds ``N // k`` or one more
seats. This set is the same whatever order the policies are named in, so
each policy takes each seat equally often and each ordered pair of
neighbours (who plays right after whom; both ways round, since a Reverse
flips play) occurs equally often. When there are more than
`MAX_SEATINGS` such seatings, random ones are drawn from the seed, each with
its relabellings ``p -> +-p + c (mod k)`` (which keep the seats exactly
balanced), and the neighbour imbalance left is measured and reported.

Every seating is one config (the base config with ``seats`` set) and all of
them play the same games of one seed in lockstep: game ``g`` starts from the
same shuffle in every seating (duplicate deals), so card luck and seat
advantage cancel in the comparison of policies. Two more designs run beside
the league on the same games: the 2-player head-to-head (every pair, both
seatings) and, to measure how much skill a rule set leaves, the strongest
policy against ``N - 1`` ``random`` players in each seat.

Policies are put in a canonical order (by label) before anything runs, so the
seatings, runs, ratings and every table are the same whatever order they were
named in. Two policies that play every game of the league identically (found
from the games, not their names) are reported as such and not ranked.
Ratings are the Luce/Bradley-Terry fit of `unosim.analysis.ratings`; every
decision of one command is Holm-corrected together.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from unosim.analysis.estimates import Estimate
from unosim.analysis.paired import holm
from unosim.analysis.ratings import (
    Ratings,
    Table,
    Z,
    edge_over_fair,
    rate_policies,
    rating_spread,
)
from unosim.analysis.seating import (
    balance,
    full_count,
    seatings,
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

__all__ = ["League", "LeagueError", "LeagueSet", "PILOT_GAMES", "balance", "check_options",
           "decide", "design_text", "full_count", "refuse_seat_keys", "run_league", "seatings",
           "write_league"]

if TYPE_CHECKING:
    from matplotlib.figure import Figure

PILOT_GAMES = 2_000  # --precision: games of the pilot that sizes the run
ROUND_TO = 1_000  # --precision: the games a run needs are rounded up to this
ALPHA = 0.05


class LeagueError(ValueError):
    """A league that cannot be played as asked (the message is one line)."""


def _times(lo_hi: tuple[int, int]) -> str:
    lo, hi = lo_hi
    return f"{lo:,} times" if lo == hi else f"between {lo:,} and {hi:,} times"


def design_text(names: Sequence[str], n: int, rows: Sequence[Sequence[int]] | None = None,
                seed: int = 0) -> str:
    """One paragraph stating the seating design of ``names`` at ``n`` players and its balance."""
    k = len(names)
    rows = list(rows) if rows is not None else seatings(k, n, seed)
    b = balance(rows, k)
    full = full_count(k, n)
    if len(rows) == full:
        how = (f"all {len(rows):,} seatings of the {k} policies at {n} seats"
               + (f" (every ordered choice of {n} of them)" if k > n else
                  " (every order)" if k == n else
                  f" (every seating in which each policy holds {n // k}"
                  + (f" or {n // k + 1}" if n % k else "") + " seats)"))
    else:
        how = (f"{len(rows):,} seatings drawn at random from the {full:,} possible (seed "
               f"{seed}), each with its relabellings p → ±p + c (mod {k}), which keeps the "
               "seats exactly balanced; the neighbour balance below is what remains")
    self_text = (f"; a policy sits next to itself {_times(b['self'])}" if b["self"][1] else "")
    return (f"**Design:** {how}. Each policy takes each seat {_times(b['seat'])}, and each "
            f"ordered pair of different policies are neighbours (one plays right after the "
            f"other, counted both ways round since a Reverse flips play) {_times(b['pair'])}"
            f"{self_text}. The order the policies are named in does not matter. Every "
            "seating plays the same games (duplicate deals: game g starts from the same "
            "shuffle in every seating), so seat advantage and card luck cancel between "
            "policies.")


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
    """One rule set's league: its tables, ratings, head-to-head, skill measures and verdicts."""

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
    design: str = ""
    identical: list[tuple[int, int]] = field(default_factory=list)  # pairs that played alike
    identical_how: str = ""
    decisions: dict[tuple[int, int], tuple[float, float, float, float]] = field(
        default_factory=dict)  # (a, b) a < b: rating a - b, low, high, Holm p
    h2h_decisions: dict[tuple[int, int], float] = field(default_factory=dict)  # Holm p
    sentences: list[str] = field(default_factory=list)

    @property
    def unit(self) -> str:
        return "matches" if self.cfg.mode == "match" else "rounds"

    def tied(self, a: int, b: int) -> bool:
        """Whether ``a`` and ``b`` played every game of the league alike."""
        return (min(a, b), max(a, b)) in self.identical

    def win_rates(self) -> list[Estimate]:
        """Each policy's win rate per seat it holds, over the whole league (Wilson)."""
        out = []
        for p in range(len(self.names)):
            wins = math.fsum(t.wins[s] for t in self.tables for s, q in enumerate(t.seats)
                             if q == p)
            trials = sum(t.games for t in self.tables for q in t.seats if q == p)
            r, lo, hi = wilson_interval(int(round(wins)), int(trials))
            out.append(Estimate(r, lo, hi, int(trials)))
        return out

    def h2h_wins(self, a: int, b: int) -> tuple[float, float]:
        """(rounds ``a`` won, rounds ``b`` won) over their 2-player seatings."""
        wa = math.fsum(t.wins[t.seats.index(a)] for t in self.h2h if set(t.seats) == {a, b})
        wb = math.fsum(t.wins[t.seats.index(b)] for t in self.h2h if set(t.seats) == {a, b})
        return wa, wb

    def matrix(self) -> pd.DataFrame:
        """Head to head at 2 players, labelled: row ``policy``'s win rate against column
        ``opponent``, its 95% Wilson interval and the games behind it.

        Columns are (measure, opponent): ``matrix()["rate"]`` is the square table
        of win rates, ``["low"]``, ``["high"]`` its interval, ``["games"]`` the
        games; NA on the diagonal and without a head-to-head.
        """
        m = self.h2h_array()
        index = pd.Index(self.names, name="policy")
        columns = pd.Index(self.names, name="opponent")
        parts = {measure: pd.DataFrame(m[:, :, j], index=index, columns=columns)
                 for j, measure in enumerate(("rate", "low", "high"))}
        parts["games"] = pd.DataFrame(m[:, :, 3], index=index, columns=columns).astype("Int64")
        return pd.concat(parts, axis=1, names=["measure"])

    def h2h_array(self) -> np.ndarray:
        """``[row, col, (rate, low, high, games)]``: row's 2-player win rate against col."""
        k = len(self.names)
        m = np.full((k, k, 4), np.nan)
        for a, b in itertools.permutations(range(k), 2):
            wins, _ = self.h2h_wins(a, b)
            games = sum(t.games for t in self.h2h if set(t.seats) == {a, b})
            if games:
                m[a, b] = (*wilson_interval(int(round(wins)), int(games)), games)
        return m

    def edge(self) -> tuple[float, float, float] | None:
        """The strongest policy's win rate per seat against random players, above 1/players."""
        if not self.vs_random or self.best is None:
            return None
        wins = math.fsum(t.wins[t.seats.index(self.best)] for t in self.vs_random)
        games = sum(t.games for t in self.vs_random)
        return edge_over_fair(wins, games, 1 / self.players)

    def spread(self) -> tuple[float, float, float]:
        return rating_spread(self.ratings)

    def verdicts(self) -> list[str]:
        """The verdict sentences in plain text (the page's, without its emphasis)."""
        return _verdicts(self, markdown=False)

    def __repr__(self) -> str:
        from unosim.report.notebook import league_text

        return league_text(self)

    def _repr_html_(self) -> str:
        from unosim.report.notebook import league_html

        return league_html(self)


@dataclass
class LeagueSet:
    """The leagues of one command: one per rule set (one without ``--vary``)."""

    leagues: list[League]
    axis: Axis | None
    stop: dict[str, Any] | None = None
    moves: list[str] = field(default_factory=list)  # rating moves between rule sets
    n_tests: int = 0  # the Holm family: every decision of the command

    @property
    def names(self) -> list[str]:
        return self.leagues[0].names

    @property
    def design(self) -> str:
        texts = list(dict.fromkeys(lg.design for lg in self.leagues))
        if len(texts) == 1:
            return texts[0]
        return " ".join(f"{lg.rule}: {lg.design}" for lg in self.leagues)

    def matrix(self) -> pd.DataFrame:
        """The head-to-head matrix (`League.matrix`), so ``unosim.league(...).matrix()``
        works as a notebook user types it; with ``vary``, the rule sets' matrices one
        under the other, the rows indexed by (``rule``, ``policy``)."""
        if self.axis is None:
            return self.leagues[0].matrix()
        return pd.concat({lg.rule: lg.matrix() for lg in self.leagues}, names=["rule"])

    def table(self) -> pd.DataFrame:
        """The tidy table: rule, measure, policy, opponent, value, low, high, n."""
        rows: list[dict[str, Any]] = []

        def add(lg: League, measure: str, policy: str, value: float, low: float, high: float,
                n: float, opponent: str | None = None) -> None:
            rows.append({"rule": lg.rule or None, "measure": measure, "policy": policy,
                         "opponent": opponent, "value": value, "low": low, "high": high,
                         "n": int(round(n)),
                         "players": 2 if measure == "head_to_head" else lg.players,
                         "games": lg.games, "seed": lg.seed})

        for lg in self.leagues:
            r = lg.ratings
            decided = math.fsum(t.decided for t in lg.tables)
            for p, (name, e) in enumerate(zip(lg.names, lg.win_rates(), strict=True)):
                add(lg, "win_rate_per_seat", name, e.value, e.low, e.high, e.n)
                add(lg, "rating", name, r.rating[p], r.low[p], r.high[p], decided)
            m = lg.h2h_array()
            for a, b in itertools.permutations(range(len(lg.names)), 2):
                if not math.isnan(m[a, b, 3]):
                    rate, low, high, n = (float(x) for x in m[a, b])
                    add(lg, "head_to_head", lg.names[a], rate, low, high, n, lg.names[b])
            s = lg.spread()
            add(lg, "rating_spread", lg.names[r.order()[0]], s[0], s[1], s[2], decided,
                lg.names[r.order()[-1]])
            edge = lg.edge()
            if edge is not None and lg.best is not None:
                add(lg, "edge_over_random", lg.names[lg.best], edge[0], edge[1], edge[2],
                    sum(t.games for t in lg.vs_random), "random")
        return pd.DataFrame(rows).astype({"rule": "string", "measure": "string",
                                          "policy": "string", "opponent": "string",
                                          "n": "int64", "players": "int64", "games": "int64",
                                          "seed": "int64"})

    def verdicts(self) -> list[list[str]]:
        """Each league's verdict sentences in plain text, one list per rule set."""
        return [lg.verdicts() for lg in self.leagues]

    def __repr__(self) -> str:
        from unosim.report.notebook import leagues_text

        return leagues_text(self)

    def _repr_html_(self) -> str:
        from unosim.report.notebook import leagues_html

        return leagues_html(self)

    def plot(self) -> Figure:
        """Each policy's rating (Elo) with its 95% interval, one series per rule set (the
        page's rating chart), as a matplotlib Figure."""
        from unosim.report.notebook import displayable

        title = ("Policy ratings (Elo, 95% CI)" if self.axis is None
                 else f"Ratings by {self.axis.label} (Elo, 95% CI)")
        return displayable(league_charts.rating_figure(
            self.names, [(lg.rule or "rating", lg.ratings.rating, lg.ratings.low,
                          lg.ratings.high) for lg in self.leagues], title))

    def to_json(self) -> dict[str, Any]:
        return {
            "design": self.design, "stop": self.stop, "tests": self.n_tests,
            "vary": self.axis.key if self.axis else None, "moves": self.moves,
            "leagues": [{
                "rule": lg.rule, "players": lg.players, "games": lg.games, "seed": lg.seed,
                "seatings": len(lg.tables), "design": lg.design,
                "ratings": {n: {"rating": lg.ratings.rating[i], "low": lg.ratings.low[i],
                                "high": lg.ratings.high[i]}
                            for i, n in enumerate(lg.names)},
                "order": [lg.names[i] for i in lg.ratings.order()],
                "identical": [[lg.names[a], lg.names[b]] for a, b in lg.identical],
                "win_rate_per_seat": {n: {"rate": e.value, "low": e.low, "high": e.high}
                                      for n, e in zip(lg.names, lg.win_rates(), strict=True)},
                "rating_spread": dict(zip(("value", "low", "high"), lg.spread(), strict=True)),
                "edge_over_random": (None if lg.edge() is None or lg.best is None else
                                     {"policy": lg.names[lg.best],
                                      **dict(zip(("value", "low", "high"), lg.edge() or (),
                                                 strict=True))}),
                "verdicts": lg.verdicts(),
            } for lg in self.leagues],
        }


def refuse_seat_keys(keys: Sequence[str], what: str) -> None:
    """The seatings set ``seats``: a key that sets them too would be silently overridden."""
    for key in keys:
        if key.split(".")[0] in ("seats", "policy"):
            raise LeagueError(f"{what} {key}: a league seats the policies itself (name them "
                              "as POLICY arguments instead)")


def check_options(players: Any, overrides: Sequence[str], vary: Axis | None) -> None:
    """Refuse what a league would silently override: a table size that is not one, a
    ``--set`` or ``--vary`` of the seats, ``--players`` beside ``--vary players``."""
    if players is not None and (isinstance(players, bool) or not isinstance(players, int)
                                or players < 2):
        raise LeagueError(f"players must be a whole number of at least 2, got {players!r}")
    refuse_seat_keys([o.split("=", 1)[0].strip() for o in overrides], "--set")
    if vary is not None:
        refuse_seat_keys([vary.key], "--vary")
        if vary.key == "players" and players is not None:
            raise LeagueError("give the table size once: --players or --vary players=..., "
                              "not both")


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
    on_stage: Callable[[str], None] | None = None,
    **run_opts: Any,
) -> LeagueSet:
    """Play the league of ``policies`` under ``config`` (per value of ``vary``) and rate them.

    ``policies`` are seat specs (a name, or ``{policy, params}``), in any
    order: they are sorted by label first. ``players`` is the table size
    (``None``: the config's; with ``vary`` over ``players``, each value's).
    ``precision`` X: a pilot of `PILOT_GAMES` games sizes the run so that
    every policy's win rate per seat has a 95% half-width of about X (capped
    by ``max_games``). Raises ``ConfigError`` or `LeagueError` (one line) on
    bad input.
    """
    check_options(players, overrides, vary)
    if len(policies) < 2:
        raise LeagueError("a league needs at least two policies")
    base_cfgs = ([c.cfg for c in build_cells(config, [vary], overrides)] if vary is not None
                 else [load_config(config, overrides)])
    rules = vary.labels if vary is not None else [""]
    sizes = [players or c.players for c in base_cfgs]
    labels = [_label((_with_seats(base_cfgs[0], policies, [i] * sizes[0], sizes[0], "probe")
                      .seats or [""])[0]) for i in range(len(policies))]
    if len(set(labels)) != len(labels):
        raise LeagueError(f"each policy may enter the league once (got {', '.join(labels)})")
    order = sorted(range(len(policies)), key=lambda i: labels[i])
    policies = [policies[i] for i in order]
    names = [labels[i] for i in order]
    seed = base_cfgs[0].seed if seed is None else seed
    designs = {n: seatings(len(names), n, seed) for n in sorted(set(sizes))}
    games = base_cfgs[0].games if games is None else games
    stop = None
    if precision is not None:
        n0 = sizes[0]
        games, stop = _games_for(base_cfgs[0], policies, designs[n0], n0, precision,
                                 games if max_games is None else max_games, seed, on_stage,
                                 run_opts)
    leagues: list[League] = []
    for rule, base, n in zip(rules, base_cfgs, sizes, strict=True):
        root = None if out is None else Path(out) / "runs"
        if root is not None and vary is not None:
            root = root / name_slug(f"{vary.key.split('.')[-1]}-{vary.texts[len(leagues)]}")
        lg = _one_league(rule, base, policies, names, designs[n], n, games, seed,
                         head_to_head, root, reuse, resume, force, on_stage, run_opts)
        lg.design = design_text(names, n, designs[n], seed)
        leagues.append(lg)
    ls = LeagueSet(leagues, vary, stop)
    decide(ls)
    return ls


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
    for p in sorted({q for s in rows for q in s}):
        wins = math.fsum(t.wins[j] for t in tables for j, q in enumerate(t.seats) if q == p)
        trials = sum(t.games for t in tables for q in t.seats if q == p)
        rate = min(max(wins / trials, 1 / trials), 1 - 1 / trials)
        need = max(need, Z * Z * rate * (1 - rate) / precision**2 / (trials / pilot))
    games = int(min(cap, max(pilot, math.ceil(need / ROUND_TO) * ROUND_TO)))
    return games, {"precision": precision, "pilot": pilot, "max_games": cap, "games": games,
                   "met": need <= cap}


def _swap(row: Sequence[int], a: int, b: int) -> tuple[int, ...]:
    return tuple(b if p == a else a if p == b else p for p in row)


def _probe_pairs(rows: Sequence[tuple[int, ...]], k: int) -> dict[tuple[int, int], tuple[int, int]]:
    """For each pair of policies, one seating and the seating with the two swapped, to be
    compared game by game (each second seating used once: the moments are keyed by it)."""
    index = {r: i for i, r in enumerate(rows)}
    used: set[int] = set()
    out: dict[tuple[int, int], tuple[int, int]] = {}
    for a, b in itertools.combinations(range(k), 2):
        for i, row in enumerate(rows):
            j = index.get(_swap(row, a, b))
            if j is not None and j != i and j not in used and i not in used:
                out[(a, b)] = (i, j)
                used.add(j)
                break
    return out


def _same_games(x: Run, y: Run) -> bool:
    """Whether two runs' totals agree exactly (every aggregate, every bin)."""
    return x.aggregates.keys() == y.aggregates.keys() and all(
        np.array_equal(x.aggregates[key], y.aggregates[key]) for key in x.aggregates)


def _identical(rows: Sequence[tuple[int, ...]], runs: Sequence[Run], k: int,
               probes: dict[tuple[int, int], tuple[int, int]], moments: dict[int, Any],
               ) -> list[tuple[int, int]]:
    """Pairs of policies that played alike: game by game in their probe pair of seatings,
    and in every seating's totals against the seating with the two swapped."""
    from unosim.engine.batch import NGF

    index = {r: i for i, r in enumerate(rows)}
    out = []
    for (a, b), (_, j) in probes.items():
        if not moments[j].identical(range(NGF)):
            continue
        if all(_same_games(runs[i], runs[index[_swap(row, a, b)]])
               for i, row in enumerate(rows) if _swap(row, a, b) in index):
            out.append((a, b))
    return out


def _one_league(rule: str, base: GameConfig, policies: Sequence[Any], names: list[str],
                rows: list[tuple[int, ...]], n: int, games: int, seed: int, head_to_head: bool,
                root: Path | None, reuse: bool, resume: bool, force: bool,
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
    probes = _probe_pairs(rows, k)
    if on_stage:
        on_stage(f"{rule + ': ' if rule else ''}{len(jobs)} seatings, {games:,} games each")
    runs, moments = _run(jobs, games, seed, root, reuse, resume, force, run_opts,
                         pairs=list(probes.values()))
    tables = [_table(r, s) for r, (_, s, g) in zip(runs, jobs, strict=True) if g == "league"]
    h2h = [_table(r, s) for r, (_, s, g) in zip(runs, jobs, strict=True) if g == "h2h"]
    if n == 2:
        h2h = tables
    same = _identical(rows, runs, k, probes, moments)
    groups = _tie_groups(same, k)
    ratings = rate_policies(names, tables, tied=groups)
    lg = League(rule, base, names, n, runs[0].games, seed, tables, ratings, h2h, note,
                runs=runs, identical=same)
    if same:
        lg.identical_how = (
            "Checked from the games: game by game (each game's turns, cards drawn, points "
            "and winning seat) in one seating against the seating with the two swapped, and "
            f"by the exact totals of every one of the {len(rows):,} seatings against its swap.")
    best = ratings.order()[0]
    if "random" in names and names[best] != "random":
        rnd = names.index("random")
        vs = [tuple(best if j == r else rnd for j in range(n)) for r in range(n)]
        vjobs = [(_with_seats(base, policies, s, n, "vs-random-" + tag(s, n)), s, "vs")
                 for s in vs]
        if on_stage:
            on_stage(f"{rule + ': ' if rule else ''}{names[best]} against {n - 1} random "
                     f"players, {n} seatings")
        vruns, _ = _run(vjobs, games, seed, root, reuse, resume, force, run_opts)
        lg.vs_random = [_table(r, s) for r, s in zip(vruns, vs, strict=True)]
        lg.best = best
        lg.runs += vruns
    return lg


def _tie_groups(pairs: Sequence[tuple[int, int]], k: int) -> list[list[int]]:
    """Policies joined by identical play, as groups of two or more."""
    parent = list(range(k))

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for a, b in pairs:
        parent[max(root(a), root(b))] = min(root(a), root(b))
    groups: dict[int, list[int]] = {}
    for i in range(k):
        groups.setdefault(root(i), []).append(i)
    return [g for g in groups.values() if len(g) > 1]


def _run(jobs: list[tuple[GameConfig, tuple[int, ...], str]], games: int, seed: int,
         root: Path | None, reuse: bool, resume: bool, force: bool,
         run_opts: dict[str, Any], pairs: Sequence[tuple[int, int]] = (),
         ) -> tuple[list[Run], dict[int, Any]]:
    dirs = (cell_dirs(root, [c.name for c, _, _ in jobs]) if root is not None else None)
    # the probe pairs' per-game moments are checkpointed too, so --resume reuses their chunks
    runs, moments, _ = run_paired([c for c, _, _ in jobs], games=games, seed=seed, dirs=dirs,
                                  pairs=pairs, pair_out=None if root is None else root / "paired",
                                  reuse=reuse, resume=resume, force=force, **run_opts)
    return runs, moments


def format_elo(x: float) -> str:
    """Elo points signed and rounded, never "-0".

    >>> format_elo(-0.3), format_elo(12.6)
    ('+0', '+13')
    """
    v = round(x)
    return f"{v:+d}" if v else "+0"


def _whole(x: float) -> str:
    v = round(x)
    return f"{v:d}" if v else "0"


def _p(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.2g}"


def _normal_p(z: float) -> float:
    return math.erfc(abs(z) / math.sqrt(2))


def decide(ls: LeagueSet) -> int:
    """Decide every question of the command with one Holm adjustment; the number of tests.

    The family: every pair of policies' rating difference in every league,
    every pair's head-to-head (who wins more of their 2-player games), and,
    with ``--vary``, every policy's rating move from the first rule set.
    Pairs that played identically are not tested. Sets each league's
    ``decisions``, ``h2h_decisions`` and ``sentences`` and the set's ``moves``.
    """
    raw: list[float] = []
    keys: list[tuple[str, League, int, int]] = []
    for lg in ls.leagues:
        k = len(lg.names)
        for a, b in itertools.combinations(range(k), 2):
            if lg.tied(a, b):
                continue
            raw.append(lg.ratings.diff(a, b)[3])
            keys.append(("rating", lg, a, b))
            wa, wb = lg.h2h_wins(a, b)
            if wa + wb > 0 and lg.players != 2:
                raw.append(_normal_p((wa - wb) / math.sqrt(wa + wb)))
                keys.append(("h2h", lg, a, b))
    base = ls.leagues[0]
    for lg in ls.leagues[1:]:
        for i in range(len(lg.names)):
            d = lg.ratings.rating[i] - base.ratings.rating[i]
            se = math.sqrt(lg.ratings.cov[i][i] + base.ratings.cov[i][i])
            raw.append(_normal_p(d / se) if se > 0 else 1.0)
            keys.append(("move", lg, i, -1))
    adj = holm(raw)
    ls.n_tests = len(raw)
    ls.moves = []
    for (what, lg, a, b), p in zip(keys, adj, strict=True):
        if what == "rating":
            d, lo, hi, _ = lg.ratings.diff(a, b)
            lg.decisions[(a, b)] = (d, lo, hi, p)
        elif what == "h2h":
            lg.h2h_decisions[(a, b)] = p
        elif p < ALPHA:
            d = lg.ratings.rating[a] - base.ratings.rating[a]
            se = math.sqrt(lg.ratings.cov[a][a] + base.ratings.cov[a][a])
            ls.moves.append(f"{lg.names[a]} moves {d:+.0f} Elo from {base.rule} to {lg.rule} "
                            f"(95% CI {d - Z * se:+.0f} to {d + Z * se:+.0f}; Holm-adjusted "
                            f"{_p(p)}).")
    for lg in ls.leagues:
        lg.sentences = _verdicts(lg)
    return ls.n_tests


def _decision(lg: League, a: int, b: int) -> tuple[float, float, float, float]:
    """Rating ``a`` minus ``b``, its interval and Holm p, whichever order they are asked in."""
    if a < b:
        return lg.decisions[(a, b)]
    d, lo, hi, p = lg.decisions[(b, a)]
    return -d, -hi, -lo, p


def _h2h_words(lg: League, a: int, b: int) -> str:
    """A note when the head-to-head of ``a`` (rated above) and ``b`` points the other way."""
    key = (min(a, b), max(a, b))
    if key not in lg.h2h_decisions:
        return ""
    wa, wb = lg.h2h_wins(a, b)
    if wb <= wa:
        return ""
    p = lg.h2h_decisions[key]
    games = sum(t.games for t in lg.h2h if set(t.seats) == {a, b})
    rate = Estimate(*wilson_interval(int(round(wb)), games), games)  # the table's cell
    why = ("because a rating averages over every table of the league, with all the other "
           "policies seated around them, while a head-to-head is one pairing at 2 players.")
    if p < ALPHA:
        return (f" Head to head at 2 players, though, {lg.names[b]} beats {lg.names[a]}: it "
                f"wins {pct_ci(rate)} of their games (Holm-adjusted {_p(p)}). They disagree "
                + why)
    return (f" Head to head at 2 players, {lg.names[b]} wins {pct_ci(rate)} of its games "
            f"against {lg.names[a]}, more than half but not decidedly (Holm-adjusted "
            f"{_p(p)}); the two can point different ways " + why)


def _verdicts(lg: League, markdown: bool = True) -> list[str]:
    """Plain sentences: who rates highest, which neighbours differ, how much skill is left.

    With ``markdown`` the leader is in bold, for the page; the API's verdicts are plain.
    """
    r, names = lg.ratings, lg.names
    order = r.order()
    rates = lg.win_rates()
    top = order[0]
    fair = 1 / lg.players
    co_top = [i for i in order if i != top and lg.tied(top, i)]
    who = " and ".join(f"**{names[i]}**" if markdown else names[i] for i in [top, *co_top])
    units = [i for i in order if not any(lg.tied(i, j) and j < i for j in range(len(names)))]

    def unit(i: int) -> tuple[str, str]:
        group = [names[j] for j in range(len(names)) if j == i or lg.tied(i, j)]
        return " and ".join(group), "are" if len(group) > 1 else "is"

    # the leader is named as such only when the runner-up is told apart from it
    lead = (f"{'rate' if co_top else 'rates'} highest" if len(units) < 2
            or _decision(lg, units[0], units[1])[3] < ALPHA else
            f"{'have' if co_top else 'has'} the highest rating, not told apart from "
            f"{unit(units[1])[0]}")
    out = [f"{who} {lead}: {format_elo(r.rating[top])} Elo (95% CI "
           f"{format_elo(r.low[top])} to {format_elo(r.high[top])}); "
           f"{'each' if co_top else 'it'} wins {pct_ci(rates[top])} of "
           f"{lg.unit} per seat it holds, against a fair {pct(fair)}."]
    for a, b in lg.identical:
        out.append(f"{names[a]} and {names[b]} are identical in these games: they play every "
                   f"one of the {lg.games:,} games of every seating exactly alike, so they "
                   f"share one rating and are not ranked. {lg.identical_how}")

    for a, b in itertools.pairwise(units):
        d, lo, hi, p = _decision(lg, a, b)
        (na, verb), (nb, _) = unit(a), unit(b)
        if p < ALPHA:
            out.append(f"{na} {verb} stronger than {nb}: {_whole(d)} Elo (95% CI {_whole(lo)} "
                       f"to {_whole(hi)}; Holm-adjusted {_p(p)})." + _h2h_words(lg, a, b))
        else:
            out.append(f"Not decided: {na} and {nb} cannot be told apart at this sample "
                       f"({format_elo(d)} Elo, 95% CI {format_elo(lo)} to {format_elo(hi)}; Holm-adjusted "
                       f"{_p(p)}): run more games." + _h2h_words(lg, a, b))
    s = lg.spread()
    if len(units) > 1:
        out.append(f"Rating spread, strongest to weakest ({unit(order[0])[0]} to "
                   f"{unit(order[-1])[0]}): {_whole(s[0])} Elo (95% CI {_whole(s[1])} to "
                   f"{_whole(s[2])}).")
    e = lg.edge()
    if e is not None and lg.best is not None:
        out.append(f"Skill left by the rules: {names[lg.best]} against {lg.players - 1} random "
                   f"player{'s' if lg.players > 2 else ''} wins {pct(e[0] + fair)} per seat, "
                   f"{100 * e[0]:+.1f} points above the fair {pct(fair)} (95% CI "
                   f"{100 * e[1]:+.1f} to {100 * e[2]:+.1f}).")
    return out


def write_league(ls: LeagueSet, out_dir: str | Path, command: str | None = None,
                 stem: str = "league") -> list[Path]:
    """league.md/.html, league.csv/.parquet and the charts; their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    names = ls.names
    doc = Doc("League: " + ", ".join(names))
    first = ls.leagues[0]
    sizes = sorted({lg.players for lg in ls.leagues})
    doc.p(f"{len(names)} policies at {' and '.join(map(str, sizes))} players, {first.games:,} "
          f"{first.unit.replace('rounds', 'games')} per seating, seed {first.seed}"
          + (f"; one league per value of {ls.axis.label}" if ls.axis else "") + ".", lead=True)
    pngs: list[Path] = []
    for i, lg in enumerate(ls.leagues):
        if ls.axis:
            doc.h2(f"{ls.axis.label}: {lg.rule}")
        (doc.h3 if ls.axis else doc.h2)("Verdicts")
        doc.ul(lg.sentences)
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
          "Tables with the same policies seated are pooled (the model has no seats). 95% "
          "intervals: normal, from the robust (sandwich) covariance of the fit; they treat "
          "every round as independent, which ignores the duplicate-deal pairing, so they err "
          "wide. Computed in plain floating point in a fixed order: the same digits on every "
          "machine. Win rates per seat: the policy's wins over the seat-games it held, Wilson "
          "interval (conservative when it holds several seats, whose wins exclude each "
          "other).")
    h2h = any(lg.h2h_decisions for lg in ls.leagues)
    doc.p(f"**Verdicts:** each is decided by its p-value after Holm's adjustment over all "
          f"{ls.n_tests:,} tests of this page (every pair of policies' rating difference"
          + (", every pair's head-to-head" if h2h else "")
          + (", every policy's move between rule sets" if ls.axis else "")
          + "), at 5%; the interval beside it is the plain 95% interval. A rating difference "
          "is tested by a normal (Wald) test on the sandwich covariance"
          + (", a head-to-head by a normal approximation to the sign test on the two "
             "policies' wins (stalemates aside)" if h2h else "")
          + ". Policies that played every game identically are not tested.")
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
              [[names[i] + "".join(f" (identical to {names[j]} in these games)"
                                   for j in range(len(names)) if j != i and lg.tied(i, j)),
                f"{format_elo(r.rating[i])} ({format_elo(r.low[i])} to {format_elo(r.high[i])})",
                pct_ci(rates[i]), f"{rates[i].n:,}"] for i in r.order()])
    pngs = [league_charts.rating_chart(
        names, [(lg.rule or "rating", r.rating, r.low, r.high)], out / f"{stem}_ratings.png",
        "Policy ratings (Elo, 95% CI)")]
    doc.image(pngs[-1], "Each policy's rating with its 95% interval")
    h("Seatings")
    doc.table(["Seating"] + [f"seat {j + 1}" for j in range(lg.players)] + [f"{lg.unit} won by seat"],
              [[str(i + 1)] + [names[p] for p in t.seats]
               + [", ".join(f"{w:g}" for w in t.wins)] for i, t in enumerate(lg.tables)])
    h("Head to head (2 players)")
    if lg.h2h:
        m = lg.h2h_array()
        doc.table(["Row beats column"] + names,
                  [[names[a]] + ["—" if a == b else "identical" if lg.tied(a, b) else pct_ci(Estimate(float(m[a, b, 0]), float(m[a, b, 1]),
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
    rows = []
    for lg in ls.leagues:
        s, e = lg.spread(), lg.edge()
        row = [lg.rule]
        for i in range(len(ls.names)):
            row.append(f"{format_elo(lg.ratings.rating[i])} ({format_elo(lg.ratings.low[i])} to "
                       f"{format_elo(lg.ratings.high[i])})")
        row.append(f"{s[0]:.0f} ({s[1]:.0f} to {s[2]:.0f})")
        row.append("—" if e is None else f"{100 * e[0]:+.1f} ({100 * e[1]:+.1f} to "
                   f"{100 * e[2]:+.1f}) points")
        rows.append(row)
    doc.table([ls.axis.label] + ls.names + ["Rating spread", "Best vs random, above fair"], rows)
    doc.ul(ls.moves or ["No policy's rating moves between the rule sets at this sample "
                        "(Holm-adjusted, 5%)."])
    png = league_charts.rating_chart(
        ls.names, [(lg.rule, lg.ratings.rating, lg.ratings.low, lg.ratings.high)
                   for lg in ls.leagues], out / f"{stem}_ratings_by_rule.png",
        f"Ratings by {ls.axis.label} (Elo, 95% CI)")
    doc.image(png, "Each policy's rating under each rule set")
    return [png]

