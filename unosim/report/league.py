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
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from unosim.analysis.estimates import Estimate
from unosim.analysis.paired import holm
from unosim.analysis.ratings import (
    Ratings,
    Table,
    Z,
    edge_over_fair,
    rating_spread,
)
from unosim.analysis.seating import (
    balance,
    full_count,
    seatings,
)
from unosim.analysis.stats import wilson_interval
from unosim.report import league_charts
from unosim.report.compare import write_table
from unosim.report.format import config_yaml, pct, pct_ci
from unosim.report.grid import Axis
from unosim.report.notebook import html, text
from unosim.report.render import Doc
from unosim.report.runs import Run
from unosim.rules.config import (
    GameConfig,
)

__all__ = ["League", "LeagueSet", "PILOT_GAMES", "balance", "decide", "design_text",
           "full_count", "seatings", "write_league"]

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from unosim.run.documents import PilotStop

PILOT_GAMES = 2_000  # --precision: games of the pilot that sizes the run
ROUND_TO = 1_000  # --precision: the games a run needs are rounded up to this
ALPHA = 0.05


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
        return league_text(self)

    def _repr_html_(self) -> str:
        return league_html(self)


@dataclass
class LeagueSet:
    """The leagues of one command: one per rule set (one without ``--vary``)."""

    leagues: list[League]
    axis: Axis | None
    stop: PilotStop | None = None
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
        rows: list[dict[str, object]] = []

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
        return leagues_text(self)

    def _repr_html_(self) -> str:
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

    def to_json(self) -> dict[str, object]:
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


# what a notebook shows of a league (`unosim.report.notebook`)

def _rating_rows(lg: League) -> list[list[str]]:
    """Policy, rating (95% CI) and win rate per seat, strongest first."""
    r, rates = lg.ratings, lg.win_rates()
    return [[lg.names[i],
             f"{format_elo(r.rating[i])} Elo (95% CI {format_elo(r.low[i])} to {format_elo(r.high[i])})",
             pct_ci(rates[i])] for i in r.order()]


def _league_title(lg: League, rule: str = "") -> str:
    """What was played; ``rule`` names the rule set ("jump-in on") of one of several."""
    rule = f"{rule or lg.rule}: " if rule or lg.rule else ""
    return (f"{rule}League of {', '.join(lg.names)} at {lg.players} players, "
            f"{lg.games:,} {lg.unit.replace('rounds', 'games')} per seating, "
            f"{len(lg.tables):,} seatings, seed {lg.seed}")


def league_text(lg: League, rule: str = "") -> str:
    """The league's ratings, strongest first, with intervals and win rates per seat."""
    return text(_league_title(lg, rule) + ":", [f"{n}: {elo}, wins {rate} per seat"
                                           for n, elo, rate in _rating_rows(lg)])


def _head(lg: League) -> list[str]:
    return ["Policy", "Rating (95% CI)",
            f"Win rate per seat (95% CI; fair {pct(1 / lg.players)})"]


def league_html(lg: League, rule: str = "") -> str:
    """The ratings table and the plain verdicts."""
    return html(_league_title(lg, rule), [], _head(lg), _rating_rows(lg), lg.verdicts())


def _rules(ls: LeagueSet) -> list[str]:
    return [f"{ls.axis.label} {lg.rule}" if ls.axis else "" for lg in ls.leagues]


def leagues_text(ls: LeagueSet) -> str:
    """Each league's ratings (one block per rule set), then the rating moves."""
    return "\n".join([league_text(lg, r) for lg, r in zip(ls.leagues, _rules(ls), strict=True)]
                     + ls.moves)


def leagues_html(ls: LeagueSet) -> str:
    """Each league's summary, then the rating moves between rule sets."""
    parts = [league_html(lg, r) for lg, r in zip(ls.leagues, _rules(ls), strict=True)]
    if ls.moves:
        parts.append(html("Rating moves between rule sets", items=ls.moves))
    return "<div>" + "".join(parts) + "</div>"
