"""What a notebook shows of a result: a short text, an HTML summary, figures that display.

Results hold runs, arrays and aggregates, so their dataclass reprs ran to
thousands of characters. The ``__repr__`` and ``_repr_html_`` of the API's
results (`unosim.api.Result`, `Comparison`, `Sweep`, `League`, `LeagueSet`)
are built from the figures the pages print, formatted the same way: the
headline estimates with their 95% intervals and the decisions, nothing more.
The pieces they share are here; each result's own text lives beside its class
(`comparison_text` in `unosim.report.comparison`, ...), so that this module
imports none of them (no cycle).
The HTML is escaped and well formed (it parses as XML). ``plot()`` figures
are the pages' own charts, made displayable by `displayable`.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING

from unosim.analysis.estimates import Aggregates, estimate, metrics_for
from unosim.report.format import fmt_metric

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["HEADLINES", "displayable", "html", "result_html", "text"]

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


def text(title: str, lines: Sequence[str]) -> str:
    """A title and its lines, indented: a result's ``__repr__``.

    >>> print(text("Sweep:", ["one", "two"]))
    Sweep:
      one
      two
    """
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

def result_html(name: str, games: int, seed: int, aggregates: Aggregates) -> str:
    """A run's headline metrics, each with its 95% interval."""
    rows = [[m.label, fmt_metric(estimate(aggregates, m), m)] for m in metrics_for(aggregates)]
    return html(f"Result: {name}", [f"{games:,} games, seed {seed}"],
                ["Metric", "Value (95% CI)"], rows)
