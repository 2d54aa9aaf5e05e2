"""A screen's factors, effects and page: which two-valued settings change the game.

A screen (``unosim screen``) plays every point of a two-level design (`unosim.
analysis.factorial`) on the same games, so each main effect and two-factor
interaction is a per-game contrast with a paired interval. This module names
the factors (`parse_factors`: any setting declared with two values), turns
the design points' moments into effects with Holm-adjusted decisions
(`analyse`), and writes the page: the answer in words, the design and its
aliasing in words, a ranked effect chart per metric, interaction plots for
the largest interactions, and ``screen.csv`` / ``screen.parquet``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from unosim.analysis.factorial import (
    Design,
    Effect,
    FullMoments,
    bounded_effect,
    decide,
    effect,
    term_factors,
)
from unosim.analysis.paired import DEFAULT_MARGINS, Margin, Verdict
from unosim.analysis.stats import ci_decimals, format_fixed, sqrt_fraction, t_crit
from unosim.engine.kernel import batch as B
from unosim.report import charts
from unosim.report.compare import write_table
from unosim.report.dots import Dots, dots_chart
from unosim.report.render import Doc
from unosim.report.runs import Run
from unosim.report.verdicts import (
    ESTABLISHED,
    MARKER_LEGEND,
    QUESTIONS,
    Question,
    decision_sentence,
    margin_words,
    short_verdict,
    stopping_text,
)
from unosim.rules.settings import (
    can_act,
    setting_label,
    setting_phrase,
    two_valued,
    two_values,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from unosim.analysis.estimates import Diff
    from unosim.analysis.paired import PairedDiff
    from unosim.report.charts import Panel
    from unosim.run.documents import Stop

__all__ = ["METRICS", "Factor", "FactorError", "Screen", "Term", "analyse", "full_moments",
           "parse_factors", "point_overrides", "write_screen"]

# metric key -> the per-game feature it averages (round mode: one round per game)
METRICS: dict[str, int] = {"turns_mean": B.GF_TURNS, "first_player_win_rate": B.GF_FIRST_WINS,
                           "drawn_mean": B.GF_DRAWN}
# the skill of one strategic seat against random seats (only at such a table)
SKILL = Question("skill", "the strategic seat's win rate", "higher", "lower")
SKILL_MARGIN = Margin(0.005, False)
QUESTION = {q.key: q for q in (*QUESTIONS, SKILL)}
INTERACTION_PLOTS = 3  # the largest interactions of mean turns get a plot each
NAN = float("nan")


class FactorError(ValueError):
    """A --factors entry that is no two-valued setting (one line)."""


@dataclass(frozen=True)
class Factor:
    """A two-valued setting and its two levels (``low`` is coded -1, ``high`` +1)."""

    key: str
    low: object
    high: object

    @property
    def label(self) -> str:
        return setting_label(self.key)

    @property
    def short(self) -> str:
        """The key's last part, as the issue writes factors ('jump_in × seven_o')."""
        return self.key.rsplit(".", 1)[-1]

    def phrase(self, level: int) -> str:
        """The setting at level -1 or +1, in words ('no jump-in', 'jump-in')."""
        return setting_phrase(self.key, self.high if level > 0 else self.low)

    def text(self, level: int) -> str:
        """The level as ``--set`` text (JSON is YAML)."""
        return json.dumps(self.high if level > 0 else self.low)


def parse_factors(spec: str | Sequence[str]) -> list[Factor]:
    """``KEY,KEY,...`` as factors; a key may be written by its last part (``jump_in``).

    Every key must be declared with exactly two values (`two_values`): a
    switch, or a choice of two. ``KEY=A/B`` picks two values of any setting
    (``draw_then_play=drawn/any``).

    >>> [(f.key, f.low, f.high) for f in parse_factors("seven_o,mode,jump_in=false/true")]
    [('house_rules.seven_o', False, True), ('mode', 'round', 'match'), ('house_rules.jump_in', False, True)]
    """
    import yaml

    items = [s.strip() for s in (spec.split(",") if isinstance(spec, str) else spec)]
    known = two_valued()
    out: list[Factor] = []
    for item in items:
        if not item:
            raise FactorError("--factors has an empty entry")
        name, _, given = item.partition("=")
        key = _resolve(name.strip())
        if given:
            parts = given.split("/")
            if len(parts) != 2:
                raise FactorError(f"factor {item!r}: give two values as KEY=A/B")
            try:
                low, high = (yaml.safe_load(p) for p in parts)
            except yaml.YAMLError:
                raise FactorError(f"factor {item!r}: its values are not YAML") from None
            if low == high:
                raise FactorError(f"factor {item!r}: its two values are the same")
        elif key in known:
            pair = two_values(key)
            assert pair is not None
            low, high = pair
        else:
            raise FactorError(f"factor {name.strip()!r} is not a two-valued setting (a switch "
                              "or a choice of two); give two of its values as "
                              f"{name.strip()}=A/B")
        if any(f.key == key for f in out):
            raise FactorError(f"factor {key!r} is given twice")
        out.append(Factor(key, low, high))
    return out


def _resolve(name: str) -> str:
    """A dotted key from its full name or a unique last part."""
    from unosim.rules.settings import settings

    keys = [s.key for s in settings()]
    if name in keys:
        return name
    hits = [k for k in keys if k.endswith("." + name)]
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        raise FactorError(f"factor {name!r} is ambiguous: {', '.join(hits)}")
    switches = ", ".join(k.rsplit(".", 1)[-1] for k in two_valued())
    raise FactorError(f"unknown factor {name!r} (two-valued settings: {switches})")


def point_overrides(factors: Sequence[Factor], row: Sequence[int]) -> list[str]:
    """A design point as ``--set`` overrides."""
    return [f"{f.key}={f.text(int(x))}" for f, x in zip(factors, row, strict=True)]


@dataclass(frozen=True)
class Term:
    """A main effect or two-factor interaction, and the others its contrast also measures.

    ``aliases`` are (term, sign) of the other terms of at most two factors with
    the same contrast column (sign -1: the opposite column).
    """

    term: int
    aliases: tuple[tuple[int, int], ...] = ()

    @property
    def order(self) -> int:
        return bin(self.term).count("1")


def estimable_terms(d: Design) -> list[Term]:
    """One term per distinct contrast among the main effects and two-factor interactions."""
    k = d.k
    terms = [1 << i for i in range(k)] + [1 << i | 1 << j for i in range(k)
                                          for j in range(i + 1, k)]
    seen: dict[bytes, int] = {}
    chains: dict[int, list[tuple[int, int]]] = {}
    for t in terms:
        col = d.column(t)
        for sign, c in ((1, col), (-1, -col)):
            head = seen.get(c.tobytes())
            if head is not None:
                chains[head].append((t, sign))
                break
        else:
            seen[col.tobytes()] = t
            chains[t] = []
    return [Term(t, tuple(a)) for t, a in chains.items()]


@dataclass
class Screen:
    """A finished screen: factors, design, runs, and every term's effect per metric.

    ``effects[key][j]`` and ``verdicts[key][j]`` belong to ``terms[j]``;
    ``grand[key]`` is the mean over every design point; ``moments[key]`` the
    design points' per-game moments the effects come from.
    """

    config: str
    factors: list[Factor]
    design: Design
    runs: list[Run]
    games: int
    seed: int
    terms: list[Term] = field(default_factory=list)
    effects: dict[str, list[Effect]] = field(default_factory=dict)
    verdicts: dict[str, list[Verdict]] = field(default_factory=dict)
    grand: dict[str, float] = field(default_factory=dict)
    moments: dict[str, FullMoments] = field(default_factory=dict)
    margins: dict[str, Margin] = field(default_factory=dict)
    overrides: tuple[str, ...] = ()
    elapsed: float = 0.0
    stop: Stop | None = None
    n_tests: int = 0

    @property
    def players(self) -> int:
        return self.runs[0].cfg.players

    def name(self, term: int, sep: str = " × ") -> str:
        return sep.join(self.factors[i].short for i in term_factors(term))

    def alias_text(self, t: Term) -> str:
        """'jump_in × seven_o is aliased with draw_until_play × stacking' ('' if clear)."""
        if not t.aliases:
            return ""
        others = [("−" if s < 0 else "") + self.name(a) for a, s in t.aliases]
        return f"{self.name(t.term)} is aliased with {_join(others)}"

    def chain(self, j: int) -> list[int]:
        """Term ``j``'s alias chain (itself and its aliases of at most two factors), the
        most plausible first: effect heredity, the largest sum of its factors' main
        effects on round length (the order of the design when there are none)."""
        t = self.terms[j]
        members = [t.term] + [a for a, _ in t.aliases]
        if t.order != 2 or "turns_mean" not in self.effects:
            return members
        main = {self.terms[i].term: abs(e.value)
                for i, e in enumerate(self.effects["turns_mean"]) if self.terms[i].order == 1}
        return sorted(members, key=lambda m: -sum(main.get(1 << f, 0.0)
                                                  for f in term_factors(m)))

    def ranked(self, key: str = "turns_mean") -> list[int]:
        """Term indices by the size of their effect on ``key``, largest first."""
        es = self.effects[key]
        return sorted(range(len(self.terms)), key=lambda j: -abs(es[j].value))

    def table(self) -> pd.DataFrame:
        """One row per metric and term: effect, interval, p, Holm-adjusted decision."""
        return screen_table(self)

    def answers(self) -> list[str]:
        """The answer in sentences, the largest effects on round length first."""
        return answer_sentences(self)

    def __repr__(self) -> str:
        lines = [f"Screen of {Path(self.config).stem}: {len(self.factors)} factors, "
                 f"{self.design.runs} design points ({_resolution_words(self.design)}), "
                 f"{self.games:,} games each, seed {self.seed}"]
        lines += [f"  {s}" for s in self.answers()[:6]]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from unosim.report.notebook import html

        rows = []
        for j in self.ranked()[:12]:
            e, v = self.effects["turns_mean"][j], self.verdicts["turns_mean"][j]
            rows.append([self.name(self.terms[j].term), _fmt_effect(e, "turns_mean"),
                         short_verdict(QUESTION["turns_mean"], v)])
        return html(repr(self).splitlines()[0], [], ["term", "effect on mean turns (95% CI)",
                                                     "decision"], rows, self.answers()[:6])

    def plot(self, metric: str = "turns_mean") -> Figure:
        """The ranked effect chart of ``metric`` (turns_mean, first_player_win_rate,
        drawn_mean) with 95% intervals, as a matplotlib Figure."""
        from unosim.report.notebook import displayable

        if metric not in self.effects:
            raise ValueError(f"no effects of {metric!r} (have: {', '.join(self.effects)})")
        labels, panels, fills, colors = _ranked_panels(self, metric)
        return displayable(charts.forest_figure(labels, panels, _ranked_title(self, metric),
                                                colors, fills, MARKER_LEGEND))

    def to_json(self) -> dict[str, object]:
        """What ``--format json`` prints: the design, the answers and the table's records."""
        return {
            "config": self.config, "games": self.games, "seed": self.seed,
            "factors": [{"key": f.key, "low": f.low, "high": f.high} for f in self.factors],
            "design": {"runs": self.design.runs, "resolution": self.design.resolution,
                       "from": self.design.how,
                       "aliases": [self.alias_text(t) for t in self.terms if t.aliases]},
            "answers": self.answers(), "tests_holm_adjusted": self.n_tests, "stop": self.stop,
            "table": json.loads(self.table().to_json(orient="records")),
        }


def _join(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _resolution_words(d: Design) -> str:
    roman = {3: "III", 4: "IV", 5: "V", 6: "VI", 7: "VII", 8: "VIII"}
    r = d.resolution
    return "full factorial" if r is None else f"resolution {roman.get(r, str(r))}"


def full_moments(n: int, runs: int, pairs: Sequence[tuple[int, int]], sums: np.ndarray,
                 moments: np.ndarray, feature: int) -> FullMoments:
    """One feature's moments over every design point, from the lockstep's pair moments.

    ``pairs`` must hold every pair (a < b) of points: pair ``p``'s moments give
    both points' sums and squares and their product.
    """
    ngf = B.NGF
    s = [0] * runs
    m = [[0] * runs for _ in range(runs)]
    for p, (a, b) in enumerate(pairs):
        s[a], s[b] = int(sums[p][feature]), int(sums[p][ngf + feature])
        m[a][a] = int(moments[p][feature, feature])
        m[b][b] = int(moments[p][ngf + feature, ngf + feature])
        m[a][b] = m[b][a] = int(moments[p][feature, ngf + feature])
    return FullMoments(n, tuple(s), tuple(tuple(r) for r in m))


def skill_seat(runs: Sequence[Run]) -> int | None:
    """The one ``strategic`` seat of a table of otherwise ``random`` seats, if that is it."""
    seats = runs[0].cfg.seat_policies
    if (seats.count("strategic") == 1 and seats.count("random") == len(seats) - 1
            and all(r.cfg.seat_policies == seats for r in runs)):
        return seats.index("strategic")
    return None


def analyse(screen: Screen, moments: Mapping[str, FullMoments]) -> Screen:
    """Every term's effect on every metric, all decided together with Holm's method.

    At a table of one ``strategic`` seat and ``random`` others, its win rate
    ("skill") is a metric too, with a conservative unpaired interval
    (`bounded_effect`).
    """
    screen.terms = estimable_terms(screen.design)
    screen.moments = dict(moments)
    screen.margins = {**DEFAULT_MARGINS, "skill": SKILL_MARGIN, **screen.margins}
    all_effects: list[Effect] = []
    all_margins: list[float] = []
    for key, fm in moments.items():
        screen.grand[key] = float(Fraction(sum(fm.s), fm.n * len(fm.s)))
        screen.effects[key] = [effect(fm, screen.design.column(t.term)) for t in screen.terms]
    seat = skill_seat(screen.runs)
    if seat is not None:
        wins = [int(r.aggregates["wins_seat"][seat]) for r in screen.runs]
        n = screen.runs[0].rounds
        screen.grand["skill"] = sum(wins) / (n * len(wins))
        screen.effects["skill"] = [bounded_effect(wins, n, screen.design.column(t.term))
                                   for t in screen.terms]
    for key, es in screen.effects.items():
        all_effects += es
        all_margins += [screen.margins[key].absolute(screen.grand[key])] * len(es)
    decisions = decide(all_effects, all_margins)
    screen.n_tests = sum(2 for e in all_effects if not e.identical)
    i = 0
    for key in screen.effects:
        screen.verdicts[key] = decisions[i:i + len(screen.terms)]
        i += len(screen.terms)
    return screen


def cell_mean(fm: FullMoments, points: Sequence[int]) -> tuple[float, float, float]:
    """The mean of some design points' per-game average, with its 95% t interval."""
    n, w = fm.n, len(points)
    b = sum(fm.s[r] for r in points)
    a = sum(fm.m[r][q] for r in points for q in points)
    value = float(Fraction(b, n * w))
    if n < 2:
        return value, math.nan, math.nan
    se = sqrt_fraction(Fraction(max(n * a - b * b, 0), n * n * (n - 1) * w * w))
    t = t_crit(0.95, n - 1)
    return value, value - t * se, value + t * se


# --------------------------------------------------------------------------- #
# words
# --------------------------------------------------------------------------- #

def _scale(key: str) -> float:
    return 100.0 if QUESTION[key].rate else 1.0


def _fmt_effect(e: Effect, key: str) -> str:
    s, q = _scale(key), QUESTION[key]
    if e.identical:
        return "0 (identical game for game)"
    dec = ci_decimals(s * e.low, s * e.high) if e.high > e.low else 2
    unit = " points" if q.rate else f" {q.unit}"
    return (f"{format_fixed(s * e.value, dec, True)}{unit} (95% CI "
            f"{format_fixed(s * e.low, dec, True)} to {format_fixed(s * e.high, dec, True)})")


def effect_sentence(screen: Screen, j: int, key: str) -> str:
    """One term's decision on one metric, worded like compare's verdicts."""
    t, e, v = screen.terms[j], screen.effects[key][j], screen.verdicts[key][j]
    q = QUESTION[key]
    alias = f" ({screen.alias_text(t)})" if t.aliases else ""
    if t.order == 1:
        f = screen.factors[term_factors(t.term)[0]]
        d = _as_diff(e, key)
        text = decision_sentence(q, f.phrase(-1), f.phrase(1), d, v, e.minus, e.plus,
                                 screen.games, players=screen.players)
        return text.rstrip(".") + f", averaged over the other factors{alias}."
    i, k = term_factors(t.term)
    a, b = screen.factors[i], screen.factors[k]
    what = f"{screen.players}-player round length" if key == "turns_mean" else q.what
    nums = _fmt_effect(e, key)
    if v.word == "identical":
        return (f"{a.short} × {b.short} does not interact on {what}: every game plays "
                f"alike{alias}.")
    if v.word in ESTABLISHED:
        s = _scale(key)
        dec = ci_decimals(s * e.low, s * e.high) if e.high > e.low else 2
        unit = " points" if q.rate else f" {q.unit}"
        bigger = "larger" if e.value > 0 else "smaller"
        return (f"{a.label[:1].upper()}{a.label[1:]} and {b.label} interact on {what}: the "
                f"effect of {a.label} is {format_fixed(2 * s * abs(e.value), dec)}{unit} "
                f"{bigger} with {b.phrase(1)} than with {b.phrase(-1)} (interaction {nums}; "
                f"{_test(key)} over {screen.games:,} games, Holm-adjusted p {_p(v.p_diff)})"
                f"{alias}.")
    if v.word == "same":
        return (f"{a.short} × {b.short}: practically no interaction on {what}, {nums}, "
                f"within the ±{_margin(screen, key)} margin (two one-sided tests, "
                f"Holm-adjusted p {_p(v.p_same)}){alias}.")
    return (f"Not decided: run more games. {a.short} × {b.short} on {what}: {nums}; neither "
            f"an interaction nor one within the ±{_margin(screen, key)} margin is "
            f"established (Holm-adjusted){alias}.")


def _p(p: float) -> str:
    return "< 0.001" if p < 0.001 else f"= {p:.2g}"


def _margin(screen: Screen, key: str) -> str:
    q = QUESTION[key]
    a = screen.margins[key].absolute(screen.grand[key])
    return f"{100 * a:.2g} points" if q.rate else f"{a:.2g} {q.unit}"


def _test(key: str) -> str:
    return "z with a conservative unpaired bound" if key == "skill" else "paired t"


def _as_diff(e: Effect, key: str) -> Diff | PairedDiff:
    from unosim.analysis.estimates import Diff
    from unosim.analysis.paired import PairedDiff

    if key == "skill":
        return Diff(e.value, e.low, e.high, e.p, _test(key), NAN)
    return PairedDiff(e.value, e.low, e.high, e.p, _test(key), NAN, NAN, e.se, NAN,
                      NAN, e.n, e.minus, e.identical)



def answer_sentences(screen: Screen) -> list[str]:
    """What changes the game most, what interacts, and what is practically zero."""
    key = "turns_mean"
    es, vs = screen.effects[key], screen.verdicts[key]
    order = screen.ranked(key)
    # a factor that cannot act at this table (two-player Reverse with more players) has
    # no effect of its own: in a fraction its column measures only what is aliased with it
    moot = [j for j in order if screen.terms[j].order == 1
            and not can_act(screen.factors[term_factors(screen.terms[j].term)[0]].key,
                            screen.players)]
    mains = [j for j in order if screen.terms[j].order == 1 and vs[j].word in ESTABLISHED
             and j not in moot]
    inter = [j for j in order if screen.terms[j].order == 2 and vs[j].word in ESTABLISHED]
    zero = [j for j in order if screen.terms[j].order == 1 and vs[j].word in ("same",
                                                                                "identical")]
    out = []
    if mains:
        ranked = [f"{screen.name(screen.terms[j].term)} ({_fmt_effect(es[j], key)})"
                  for j in mains]
        out.append(f"Round length ({screen.players} players) changes most with "
                   f"{_join(ranked)}, in that order.")
    else:
        out.append("No factor is established to change round length at this sample size.")
    for j in moot:
        what = (f"its column ({_fmt_effect(es[j], key)}) measures only the three-factor "
                "interactions aliased with it in this design"
                if vs[j].word in ESTABLISHED else "its column shows no established change")
        out.append(f"{screen.name(screen.terms[j].term)} cannot act at {screen.players} "
                   f"players: {what}.")
    if inter:
        j = inter[0]
        chain = screen.chain(j)
        text = (f"The largest established interaction is {screen.name(chain[0])}"
                f" ({_fmt_effect(es[j], key)})")
        if len(chain) > 1:
            others = _join([screen.name(a) for a in chain[1:]])
            text += (f", or an interaction aliased with it ({others}): this design cannot "
                     "tell them apart, and "
                     f"{screen.name(chain[0])} is named first because its factors have the "
                     "largest main effects")
        out.append(text + (f"; {len(inter) - 1} more are established." if len(inter) > 1
                           else "."))
    else:
        out.append("No interaction on round length is established.")
    if zero:
        out.append(f"Practically zero on round length (within the ±{_margin(screen, key)} "
                   f"margin): {_join([screen.name(screen.terms[j].term) for j in zero])}.")
    out += [effect_sentence(screen, j, key) for j in order[:8]]
    for k in screen.effects:
        if k != key:
            out += [effect_sentence(screen, j, k) for j in screen.ranked(k)[:2]
                    if screen.verdicts[k][j].word in ESTABLISHED]
    return out


def screen_table(screen: Screen) -> pd.DataFrame:
    """Tidy rows: metric, term, its factors, aliases, effect, interval, p, decision."""
    rows = []
    for key, es in screen.effects.items():
        q = QUESTION[key]
        for j, (t, e) in enumerate(zip(screen.terms, es, strict=True)):
            v = screen.verdicts[key][j]
            rows.append({
                "metric": key, "term": screen.name(t.term, ":"), "order": t.order,
                "keys": ",".join(screen.factors[i].key for i in term_factors(t.term)),
                "aliases": ";".join(("-" if s < 0 else "") + screen.name(a, ":")
                                    for a, s in t.aliases),
                "effect": e.value, "low": e.low, "high": e.high, "se": e.se, "p": e.p,
                "mean_low": e.minus, "mean_high": e.plus, "grand_mean": screen.grand[key],
                "games": screen.games, "design_points": screen.design.runs,
                "p_holm_diff": v.p_diff, "p_holm_same": v.p_same, "margin": v.margin,
                "verdict": short_verdict(q, v), "identical": e.identical,
            })
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- #
# charts and page
# --------------------------------------------------------------------------- #

def _ranked_title(screen: Screen, key: str) -> str:
    q = QUESTION[key]
    unit = "percentage points" if q.rate else q.unit
    return (f"Effects on {q.what} ({unit}), largest first: {screen.design.runs} design "
            f"points × {screen.games:,} games")


def _ranked_panels(screen: Screen, key: str, top: int = 25
                   ) -> tuple[list[str], list[Panel], list[list[bool]], list[str]]:
    order = screen.ranked(key)[:top]
    es, vs, s = screen.effects[key], screen.verdicts[key], _scale(key)
    labels = [screen.name(screen.terms[j].term) + ("*" if screen.terms[j].aliases else "")
              for j in order]
    q = QUESTION[key]
    panel = (f"effect on {q.what} ({'points' if q.rate else q.unit}; * aliased)",
             [s * es[j].value for j in order], [s * es[j].low for j in order],
             [s * es[j].high for j in order])
    fills = [[vs[j].word in ESTABLISHED for j in order]]
    colors = [charts.COLORS[0] if screen.terms[j].order == 1 else charts.COLORS[1]
              for j in order]
    return labels, [panel], fills, colors


def _interaction_chart(screen: Screen, j: int, path: Path) -> Path:
    """Mean turns at the four combinations of an interaction's two factors."""
    key = "turns_mean"
    i, k = term_factors(screen.terms[j].term)
    a, b = screen.factors[i], screen.factors[k]
    mat = screen.design.matrix
    fm = screen.moments[key]
    series = []
    for lb in (-1, 1):
        ys, lows, highs = [], [], []
        for la in (-1, 1):
            pts = [r for r in range(screen.design.runs) if mat[r, i] == la and mat[r, k] == lb]
            v, lo, hi = cell_mean(fm, pts)
            ys.append(v)
            lows.append(lo)
            highs.append(hi)
        series.append(Dots(b.phrase(lb), [0, 1], ys, lows, highs))
    return dots_chart(series, path, f"Interaction {a.short} × {b.short}: mean turns per round",
                      a.label, "mean turns per round (averaged over the other factors)",
                      xticklabels=[a.phrase(-1), a.phrase(1)], legend_title=b.label)


def write_screen(screen: Screen, out_dir: str | Path, command: str | None = None,
                 title: str | None = None, intro: Sequence[str] = (),
                 stem: str = "screen") -> list[Path]:
    """screen.md/.html (the answer first), screen.csv/.parquet and the charts; their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tables = write_table(screen.table(), out, stem)
    d = screen.design
    doc = Doc(title or f"Screen of {Path(screen.config).stem}: "
              + ", ".join(f.short for f in screen.factors))
    for para in intro:
        doc.p(para, lead=True)
    doc.h2("Answer")
    doc.ul(screen.answers())
    doc.h2("Design")
    doc.p(f"**{d.runs} design points** ({_resolution_words(d)}, from {d.how}), each playing "
          f"the same {screen.games:,} games (seed {screen.seed}): "
          f"{d.runs * screen.games:,} games in all. Factors (− / +): "
          + "; ".join(f"{f.short} (`{f.key}`): {f.phrase(-1)} / {f.phrase(1)}"
                      for f in screen.factors) + "."
          + (f" Overrides: {', '.join(f'`{o}`' for o in screen.overrides)}."
             if screen.overrides else ""))
    aliased = [screen.alias_text(t) for t in screen.terms if t.aliases]
    if d.resolution is None:
        doc.p("**Aliasing:** none. A full factorial estimates every main effect and every "
              "interaction separately.")
    else:
        words = [" × ".join(screen.factors[i].short for i in term_factors(w))
                 for w in sorted(d.words, key=lambda w: (bin(w).count("1"), w))[:8]]
        doc.p(f"**Aliasing:** {_resolution_words(d)}: "
              + ("main effects are aliased with no two-factor interaction, only with "
                 "interactions of three or more factors, which are assumed small"
                 if d.resolution >= 4 else "main effects are aliased with two-factor "
                 "interactions")
              + f". Shortest words of the defining relation: {', '.join(words)}."
              + (" Two-factor interactions are aliased in chains; each contrast is named by "
                 "its first term in the tables and charts and measures the sum of its chain:"
                 if aliased else " No two two-factor interactions share a contrast."))
        if aliased:
            doc.ul(aliased)
    _method(doc, screen)
    pngs: list[Path] = []
    doc.h2("Effects, ranked")
    for key in screen.effects:
        labels, panels, fills, colors = _ranked_panels(screen, key)
        path = charts.forest_chart(labels, panels, out / f"{stem}_effects_{key}.png",
                                   _ranked_title(screen, key), colors, fills, MARKER_LEGEND)
        pngs.append(path)
        doc.image(path, f"Effects on {QUESTION[key].what}, largest first (blue: main effects, "
                        "orange: two-factor interactions; 95% intervals, unadjusted)")
    inter = [j for j in screen.ranked() if screen.terms[j].order == 2][:INTERACTION_PLOTS]
    if inter:
        doc.h2("Largest interactions")
        for j in inter:
            path = _interaction_chart(screen, j, out / f"{stem}_interaction_{len(pngs)}.png")
            pngs.append(path)
            doc.image(path, f"{screen.name(screen.terms[j].term)}: non-parallel dots are the "
                            "interaction (95% intervals)")
    doc.h2("Every effect")
    rows = []
    for j in screen.ranked():
        t = screen.terms[j]
        row = [screen.name(t.term)]
        for key in screen.effects:
            row += [_fmt_effect(screen.effects[key][j], key),
                    short_verdict(QUESTION[key], screen.verdicts[key][j])]
        row.append(", ".join(screen.name(a) for a, _ in t.aliases) or "—")
        rows.append(row)
    head = ["term"]
    for key in screen.effects:
        head += [f"{QUESTION[key].what}: effect", "decision"]
    doc.table(head + ["aliased with"], rows)
    doc.p(f"Full table: `{tables[0].name}` / `{tables[1].name}`.")
    doc.h2("How this was made")
    if command:
        doc.code(command, "sh")
    doc.p(f"Config `{screen.config}`; {screen.games:,} games per design point; seed "
          f"{screen.seed}; {screen.elapsed:,.0f} s.")
    return doc.write(out, stem) + tables + pngs


def _method(doc: Doc, screen: Screen) -> None:
    qs: list[Question] = [QUESTION[k] for k in screen.effects]
    margins = "; ".join(f"{q.what} {margin_words(q, screen.margins[q.key])}" for q in qs)
    doc.p("**How the effects are decided:** a main effect is the mean over the design points "
          "with the factor at + minus the mean over those at −; a two-factor interaction is "
          "the same contrast of the product of the two factors' columns, i.e. half of how much "
          "one factor's effect changes when the other is switched on. Every design point "
          "played the same games in lockstep, so each contrast is taken game by game and its "
          "interval is paired (a t interval of the per-game contrast). An effect is claimed "
          "when it is established; *practically zero* when two one-sided tests show it lies "
          f"within the margin ({margins}, of the mean over all points); otherwise it is *not "
          f"decided*. The p-values of all {screen.n_tests} tests of this screen are adjusted "
          "together by Holm's method; the 95% intervals shown are not adjusted.")
    if "skill" in screen.effects:
        doc.p("**Skill** is the win rate of the table's one `strategic` seat against its "
              "`random` seats. The lockstep streams no per-game 'this seat won' feature, so "
              "its effects are not paired: their standard error is bounded by the sum of the "
              "design points' own (no correlation between points can make it wider), and "
              "their intervals and tests are conservative.")
    if screen.stop:
        doc.p(stopping_text(screen.stop))
