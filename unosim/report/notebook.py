"""What a notebook shows of a result: a short text, an HTML summary, figures that display.

Results hold runs, arrays and aggregates, so their dataclass reprs ran to
thousands of characters. The ``__repr__`` and ``_repr_html_`` of the API's
results (`unosim.api.Result`, `Comparison`, `Sweep`, `League`, `LeagueSet`)
are built here from the figures the pages print, formatted the same way: the
headline estimates with their 95% intervals and the decisions, nothing more.
The HTML is escaped and well formed (it parses as XML). ``plot()`` figures
are the pages' own charts, made displayable by `displayable`.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING, Any

from unosim.analysis.estimates import METRIC_BY_KEY, estimate, metrics_for
from unosim.report.format import fmt_diff, fmt_metric, pct, pct_ci

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from unosim.report.comparison import Comparison
    from unosim.report.league import League, LeagueSet
    from unosim.report.sweep import Sweep

__all__ = ["comparison_html", "comparison_text", "displayable", "html", "league_html",
           "league_text", "leagues_html", "leagues_text", "result_html", "sweep_html",
           "sweep_text"]

HEADLINES = ("turns_mean", "first_player_win_rate")  # the questions a summary shows


def html(title: str, lines: Sequence[str] = (), head: Sequence[str] = (),
         rows: Sequence[Sequence[str]] = (), items: Sequence[str] = ()) -> str:
    """A bold title, paragraphs, a table and a list, escaped, in one ``<div>``.

    >>> html("A & B", ["one"], ["x"], [["<1>"]], ["said"])
    '<div><p><strong>A &amp; B</strong></p><p>one</p><table><thead><tr><th>x</th></tr>\
</thead><tbody><tr><td>&lt;1&gt;</td></tr></tbody></table><ul><li>said</li></ul></div>'
    """
    out = [f"<div><p><strong>{escape(title)}</strong></p>"]
    out += [f"<p>{escape(line)}</p>" for line in lines]
    if rows:
        out.append("<table><thead><tr>" + "".join(f"<th>{escape(h)}</th>" for h in head)
                   + "</tr></thead><tbody>")
        out += ["<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in r) + "</tr>"
                for r in rows]
        out.append("</tbody></table>")
    if items:
        out.append("<ul>" + "".join(f"<li>{escape(i)}</li>" for i in items) + "</ul>")
    return "".join(out) + "</div>"


def _text(title: str, lines: Sequence[str]) -> str:
    return "\n".join([title, *(f"  {line}" for line in lines)])


def _png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=fig.dpi, facecolor="white", bbox_inches="tight",
                pad_inches=0.1)
    return buf.getvalue()


def displayable(fig: Figure) -> Figure:
    """``fig`` with a PNG repr, so that Jupyter shows it even when pyplot was never imported.

    The figure is not registered with pyplot: a notebook shows it once (as the
    cell's value), never a second time when the cell ends.
    """
    setattr(fig, "_repr_png_", functools.partial(_png, fig))  # noqa: B010 (an instance's repr)
    return fig


# --------------------------------------------------------------------------- #
# one run
# --------------------------------------------------------------------------- #

def result_html(name: str, games: int, seed: int, aggregates: dict[str, Any]) -> str:
    """A run's headline metrics, each with its 95% interval."""
    rows = [[m.label, fmt_metric(estimate(aggregates, m), m)] for m in metrics_for(aggregates)]
    return html(f"Result: {name}", [f"{games:,} games, seed {seed}"],
                ["Metric", "Value (95% CI)"], rows)


# --------------------------------------------------------------------------- #
# comparisons
# --------------------------------------------------------------------------- #

def _keys(cmp: Comparison) -> list[str]:
    return [k for k in HEADLINES if k in cmp.values] or [cmp.metrics[0].key]


def _cells(cmp: Comparison, key: str, i: int) -> list[str]:
    """Value, difference from the baseline (95% CI) and decision of config ``i`` on ``key``."""
    from unosim.report.comparison import questions_for
    from unosim.report.verdicts import short_verdict

    m = METRIC_BY_KEY[key]
    value = fmt_metric(cmp.values[key][i], m)
    d = cmp.diffs[key][i]
    if i == 0 or d is None:
        return [value, "baseline" if i == 0 else "—", ""]
    diff, ci, _ = fmt_diff(d, m)
    v = cmp.decisions.get(key, [None] * len(cmp.runs))[i]
    q = next((q for q in questions_for(cmp) if q.key == key), None)
    return [value, f"{diff} (95% CI {ci})" if "n/a" not in ci else diff,
            short_verdict(q, v) if v is not None and q is not None else ""]


def _sample(cmp: Comparison) -> str:
    from unosim.analysis.estimates import is_match

    unit = "matches" if all(is_match(r.aggregates) for r in cmp.runs) else "games"
    games = sorted({r.games for r in cmp.runs})
    seeds = sorted({r.seed for r in cmp.runs})
    how = ("paired game by game with " + cmp.labels[0] if any(cmp.paired)
           else "not paired")
    return (f"{', '.join(f'{g:,}' for g in games)} {unit} each, "
            f"seed{'s' if len(seeds) > 1 else ''} {', '.join(map(str, seeds))}, {how}")


def comparison_text(cmp: Comparison) -> str:
    """A few lines: each config's mean turns, its paired difference and the decision."""
    key = _keys(cmp)[0]
    lines = []
    for i, lab in enumerate(cmp.labels):
        value, diff, word = _cells(cmp, key, i)
        lines.append(f"{lab}: {value}" + (f"; {diff} against {cmp.labels[0]}: {word}"
                                          if i else ""))
    return _text(f"Comparison of {METRIC_BY_KEY[key].label.lower()}, {_sample(cmp)}:", lines)


def comparison_html(cmp: Comparison) -> str:
    """The headline metrics side by side with their differences and decisions; the verdicts."""
    head, rows = ["Config"], [[lab] for lab in cmp.labels]
    for key in _keys(cmp):
        label = METRIC_BY_KEY[key].label
        head += [f"{label} (95% CI)", f"Difference from {cmp.labels[0]}", "Decision"]
        for i, row in enumerate(rows):
            row += _cells(cmp, key, i)
    return html("Comparison: " + " vs ".join(cmp.labels), [_sample(cmp) + "."], head, rows,
                [v for vs in cmp.verdicts for v in vs[:1]])


# --------------------------------------------------------------------------- #
# sweeps
# --------------------------------------------------------------------------- #

def _sweep_title(sweep: Sweep) -> str:
    from pathlib import Path

    from unosim.report.sweep_answers import value_phrase

    b, bv = sweep.baseline
    return (f"Sweep of {Path(sweep.config).stem} over "
            + " × ".join(a.label for a in sweep.axes)
            + f": {len(sweep.cells)} cells, {sweep.games:,} games each, seed {sweep.seed}, "
            f"against {value_phrase(sweep.axes[b], bv)}")


def sweep_text(sweep: Sweep) -> str:
    """The sweep's grid and its answer in sentences."""
    return _text(_sweep_title(sweep), sweep.answers() or ["nothing to compare"])


def sweep_html(sweep: Sweep) -> str:
    """The answer, then each cell's mean turns and its effect against its baseline cell."""
    from unosim.report.comparison import questions_for
    from unosim.report.grid import value_label
    from unosim.report.sweep_answers import cell_effect, fmt_effect
    from unosim.report.verdicts import short_verdict

    m = METRIC_BY_KEY["turns_mean"]
    rows = []
    for i, cell in enumerate(sweep.cells):
        assert cell.run is not None
        row = [value_label(v, a.key) for a, v in zip(sweep.axes, cell.values, strict=True)]
        row.append(fmt_metric(estimate(cell.run.aggregates, m), m))
        g, k = sweep.place(i)
        e = cell_effect(sweep, i, m.key)
        v = g.cmp.decisions.get(m.key, [None] * len(g.cells))[k]
        q = next((q for q in questions_for(g.cmp) if q.key == m.key), None)
        row += (["baseline", ""] if k == 0 else ["—", ""] if e is None or v is None or q is None
                else [fmt_effect(e, m.key), short_verdict(q, v)])
        rows.append(row)
    head = [a.label for a in sweep.axes] + [f"{m.label} (95% CI)",
                                            "Change against the baseline cell", "Decision"]
    return html(_sweep_title(sweep), [], head, rows, sweep.answers())


# --------------------------------------------------------------------------- #
# leagues
# --------------------------------------------------------------------------- #

def _rating_rows(lg: League) -> list[list[str]]:
    from unosim.report.league import format_elo

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
    return _text(_league_title(lg, rule) + ":", [f"{n}: {elo}, wins {rate} per seat"
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
