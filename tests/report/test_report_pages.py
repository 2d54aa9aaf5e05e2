"""compare.html and sweep.html agree with themselves and with the command's JSON.

Each page is parsed as HTML and checked against the JSON result of the same
command: every test the differences table's note names is a test that made a
number in it (and no other); each quantity has one interval wherever it is
shown (the first player's difference in the differences table, the seat table
and the verdict); every effect chart's filled markers are exactly the
Holm-adjusted decisions that the words state; numbers are ordered as the
sentence names them ("stacking ... vs classic": stacking's figure first) in the
terminal, Markdown, HTML and JSON; and a sweep names only the values it ran and
says how much pairing helped, claiming that card luck cancels only where it did.
"""

from __future__ import annotations

import base64
import io
import json
import math
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import invoke

from unosim.report import charts
from unosim.report.charts import png_markers
from unosim.report.verdicts import CANCELS, LITTLE, MARKER_LEGEND

# short verdicts that claim a change (every other one leaves a marker hollow)
NOT_ESTABLISHED = {"", "practically the same", "not decided", "identical"}
NUM = r"[+-]?\d[\d,]*(?:\.\d+)?"


class Page(HTMLParser):
    """Paragraphs, list items, tables (header + rows) and images of one page, in order."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.paras: list[str] = []
        self.items: list[str] = []
        self.tables: list[tuple[list[str], list[list[str]]]] = []
        self.imgs: list[tuple[str, str]] = []  # (alt, src)
        self._text: list[str] | None = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("p", "li"):
            self._text = []
        elif tag == "table":
            self.tables.append(([], []))
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "img":
            a = dict(attrs)
            self.imgs.append((a.get("alt") or "", a.get("src") or ""))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("p", "li") and self._text is not None:
            (self.paras if tag == "p" else self.items).append("".join(self._text).strip())
            self._text = None
        elif tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            header, rows = self.tables[-1]
            if not header:
                header.extend(self._row)
            else:
                rows.append(self._row)
            self._row = None

    def handle_data(self, data: str) -> None:
        for buf in (self._text, self._cell):
            if buf is not None:
                buf.append(data)

    def table(self, first_header: str, *also: str) -> tuple[list[str], list[dict[str, str]]]:
        """The table whose first column is headed ``first_header`` (and that has the
        columns ``also``), rows as dicts."""
        for header, rows in self.tables:
            if header and header[0] == first_header and set(also) <= set(header):
                return header, [dict(zip(header, r, strict=True)) for r in rows]
        raise AssertionError(f"no table headed {first_header!r}")

    def markers(self, alt_start: str) -> tuple[str, list[list[bool]]]:
        """An embedded chart's caption and the markers it recorded."""
        for alt, src in self.imgs:
            if alt.startswith(alt_start):
                png = base64.b64decode(src.split(",", 1)[1])
                return alt, png_markers(io.BytesIO(png))
        raise AssertionError(f"no chart captioned {alt_start!r}")


def _numbers(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(NUM, text)]


def _close(shown: str, value: float) -> bool:
    """Whether the number ``shown`` (as printed) is ``value`` rounded to its decimals."""
    decimals = len(shown.split(".")[1]) if "." in shown else 0
    return abs(float(shown.replace(",", "")) - value) <= 0.5 * 10 ** -decimals + 1e-9


def _interval_matches(cell: str, low: float, high: float, scale: float = 1.0) -> bool:
    """'-2.10 to +0.50 pts' shows (low, high) × scale to its printed precision."""
    m = re.search(rf"({NUM})%? to ({NUM})", cell)
    assert m, cell
    return _close(m.group(1), scale * low) and _close(m.group(2), scale * high)


def _established(verdict: str) -> bool:
    return verdict not in NOT_ESTABLISHED


# --------------------------------------------------------------------------- #
# compare
# --------------------------------------------------------------------------- #

COMPARE = ("classic", "stacking", "seven_o", "classic_1992")


@pytest.fixture(scope="module")
def compare_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], str]:
    """One comparison: its out dir, its JSON result, and its terminal output (--reuse)."""
    out = tmp_path_factory.mktemp("compare") / "C"
    r = invoke("compare", *COMPARE, "--games", "4000", "--jobs", "1", "--out", str(out),
               "-q", "--format", "json")
    assert r.exit_code == 0, r.output
    text = invoke("compare", *COMPARE, "--games", "4000", "--jobs", "1", "--out", str(out),
                  "-q", "--reuse")
    assert text.exit_code == 0, text.output
    return out, json.loads(r.stdout), text.stdout


def _rows(result: dict[str, Any], metric: str) -> dict[str, dict[str, Any]]:
    return {r["label"]: r for r in result["table"] if r["metric"] == metric}


@pytest.mark.slow  # about 8 s
def test_compare_names_exactly_the_tests_that_made_its_numbers(compare_run):
    out, result, _ = compare_run
    page = Page((out / "compare.html").read_text())
    note = next(p for p in page.paras if p.startswith("Differences are config minus"))
    _, diffs = page.table("Metric", "Config")
    shown = {(r["Metric"], r["Config"]) for r in diffs}
    used = set()
    for row in result["table"]:
        if (row["metric_label"], row["label"]) not in shown:
            continue
        used.add("identical" if row["test"] == "identical game for game" else row["test"])
        if row["p_mann_whitney"] is not None and math.isfinite(row["p_mann_whitney"]):
            used.add("Mann–Whitney")
    names = {"paired t": "paired t on", "McNemar": "McNemar's test", "Welch t": "Welch's t",
             "two-proportion z": "two-proportion z", "bootstrap CI": "percentile-bootstrap",
             "Mann–Whitney": "Mann–Whitney", "identical": "identical game for game"}
    named = {t for t, words in names.items() if words in note}
    assert named == used, (named, used)
    assert {"paired t", "McNemar"} <= used and "Welch t" not in used  # the runs are paired


def test_compare_gives_one_interval_per_quantity(compare_run):
    out, result, _ = compare_run
    page = Page((out / "compare.html").read_text())
    _, diffs = page.table("Metric", "Config")
    by = {(r["metric_label"], r["label"]): r for r in result["table"]}
    for r in diffs:  # every difference shown is the JSON's, to its printed precision
        j = by[(r["Metric"], r["Config"])]
        if r["95% CI of difference"] in ("n/a", "—"):
            continue
        scale = 100.0 if "pts" in r["95% CI of difference"] else 1.0
        assert _interval_matches(r["95% CI of difference"], j["diff_low"], j["diff_high"],
                                 scale), (r, j)
    _, seats = page.table("Position")
    first = _rows(result, "first_player_win_rate")
    label = next(r["metric_label"] for r in first.values())
    n = len(result["labels"])
    assert seats[0]["Position"].startswith("1st") and not any(r["Position"]
                                                                for r in seats[1:n])
    for r in seats[1:n]:  # the first position's rows after the baseline's
        head = next(d for d in diffs if d["Metric"] == label and d["Config"] == r["Config"])
        assert r["95% CI of difference"] == head["95% CI of difference"]  # the same interval
        assert r["p-value (test)"] == head["p-value (test)"]  # and the same test
    seven = first["Seven-O"]
    sentence = next(i for i in page.items if i.startswith(("Seven-O", "Not decided: run more "
                                                           "games. Seven-O"))
                    and "first player's win rate" in i)
    m = re.search(rf"95% CI ({NUM}) to ({NUM})", sentence)
    assert m and _close(m.group(1), 100 * seven["diff_low"])
    assert _close(m.group(2), 100 * seven["diff_high"])


def test_compare_markers_follow_the_holm_decisions(compare_run):
    out, result, _ = compare_run
    page = Page((out / "compare.html").read_text())
    alt, markers = page.markers("Relative change in mean turns")
    assert MARKER_LEGEND in alt
    labels = result["labels"][1:]
    want = [[_established(_rows(result, key)[lab]["verdict"]) for lab in labels]
            for key in ("turns_mean", "first_player_win_rate")]
    assert markers == want
    # a difference whose unadjusted interval excludes zero is still hollow when Holm's
    # decision does not establish it (as the verdict says "not decided")
    seven = _rows(result, "first_player_win_rate")["Seven-O"]
    if seven["diff_high"] < 0 or seven["diff_low"] > 0:
        assert seven["verdict"] == "not decided" and markers[1][labels.index("Seven-O")] is False


def test_compare_numbers_are_in_the_order_the_sentence_names_them(compare_run):
    out, result, terminal = compare_run
    turns = _rows(result, "turns_mean")
    base = result["labels"][0]
    md = (out / "compare.md").read_text()
    html_items = Page((out / "compare.html").read_text()).items
    for label in result["labels"][1:]:
        first = result["verdicts"][label][0]
        assert f"{label} vs {base}:\n  - {first}" in terminal
        assert first in md and first in html_items
        m = re.search(rf"({NUM}) vs ({NUM}) turns", first)
        if m is None:  # identical game for game: no numbers
            continue
        assert _close(m.group(1), turns[label]["value"]), (first, turns[label]["value"])
        assert _close(m.group(2), turns[base]["value"])


def test_compare_says_how_much_pairing_helped(compare_run):
    out, result, _ = compare_run
    page = Page((out / "compare.html").read_text())
    para = next(p for p in page.paras if "per-game correlation of turns" in p)
    _, pairing = page.table("Config")
    for label, row in _rows(result, "turns_mean").items():
        if label == result["labels"][0] or row["verdict"] == "identical":
            continue
        factor = (row["se_unpaired"] / row["se"]) ** 2
        cell = next(r for r in pairing if r["Config"] == label)
        assert cell["Correlation of per-game turns"] == f"{row['corr']:.2f}"
        assert cell["An unpaired comparison would need"].startswith(
            f"{factor:.1f} times the games")
    factors = [(r["se_unpaired"] / r["se"]) ** 2 for lab, r in _rows(result, "turns_mean").items()
               if lab != result["labels"][0] and r["verdict"] != "identical"]
    big, small = sum(f >= CANCELS for f in factors), sum(f < LITTLE for f in factors)
    n = len(factors)
    assert ("card luck largely cancels in the differences" in para) == (big == n)
    assert ("card luck does not cancel" in para) == (small == n)  # 'helped little'
    assert ("card luck partly cancels in the differences" in para) == (big + small == 0)
    if 0 < big + small and (big < n and small < n):
        assert f"of the {n} configs, card luck cancels " in para
        assert (f"largely for {big} (" in para) == (big > 0)
        assert (f"hardly for {small} (" in para) == (small > 0)


# --------------------------------------------------------------------------- #
# sweep
# --------------------------------------------------------------------------- #


def _sweep(tmp_path: Path, *args: str) -> tuple[Path, dict[str, Any]]:
    out = tmp_path / "S"
    r = invoke("sweep", "classic", *args, "--jobs", "1", "--out", str(out), "-q",
               "--format", "json")
    assert r.exit_code == 0, r.output
    return out, json.loads(r.stdout)


@pytest.fixture(scope="module")
def stacking_sweep(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    return _sweep(tmp_path_factory.mktemp("sweep"), "--vary", "players=2,4,6", "--vary",
                  "house_rules.stacking.draw_two_on_draw_two=false,true", "--games", "6000")


def test_sweep_names_only_the_values_it_ran(stacking_sweep):
    _, result = stacking_sweep
    for sentence in result["answers"]:
        assert "from 2 to 6" not in sentence and "4-6" not in sentence and "2-4" not in sentence
        assert re.search(r"(2, 4 and 6|at 2|at 4|at 6|both)", sentence), sentence


def test_sweep_intervals_markers_and_words_agree(stacking_sweep):
    out, result = stacking_sweep
    page = Page((out / "sweep.html").read_text())
    _, effects = page.table("number of players")
    rows = {(r["players"], r["house_rules.stacking.draw_two_on_draw_two"]): r
            for r in result["table"] if r["metric"] == "turns_mean"}
    firsts = {(r["players"], r["house_rules.stacking.draw_two_on_draw_two"]): r
              for r in result["table"] if r["metric"] == "first_player_win_rate"}
    cells = [k for k in rows if k[1] is True]
    for r in effects:
        key = (int(r["number of players"]), r["Draw Two on Draw Two"] == "on")
        j, base = rows[key], rows[(key[0], False)]
        assert _interval_matches(r["mean turns: change"], j["diff_low"], j["diff_high"],
                                 100 / base["value"])
        assert r["decision"] == j["verdict"]
        f = firsts[key]
        assert _interval_matches(r["first-player win rate: change"], f["diff_low"],
                                 f["diff_high"], 100.0)
    for key, metric, source in (("turns_mean", "mean turns", rows),
                                ("first_player_win_rate", "first-player win rate", firsts)):
        alt, markers = _chart(out, key)
        assert MARKER_LEGEND in alt, metric
        assert markers == [[_established(source[k]["verdict"]) for k in cells]], metric


def _chart(out: Path, key: str) -> tuple[str, list[list[bool]]]:
    """The caption of a sweep's effect chart (from sweep.md, which links it by name) and
    the markers embedded in sweep.html's copy of it."""
    md = (out / "sweep.md").read_text()
    m = re.search(rf"!\[([^\]]*)\]\(sweep_effect_{key}\.png\)", md)
    assert m, key
    return Page((out / "sweep.html").read_text()).markers(m.group(1))


def test_sweep_says_how_much_pairing_helped(stacking_sweep):
    out, result = stacking_sweep
    page = Page((out / "sweep.html").read_text())
    rows = [r for r in result["table"] if r["metric"] == "turns_mean" and r["verdict"]]
    corrs = sorted(f"{r['corr']:.2f}" for r in rows)
    para = next(p for p in page.paras if p.startswith("How the effects are decided"))
    span = corrs[0] if corrs[0] == corrs[-1] else f"{corrs[0]} to {corrs[-1]}"
    assert f"per-game correlation of turns with the baseline is {span}" in para
    factors = [(r["se_unpaired"] / r["se"]) ** 2 for r in rows]
    assert ("card luck largely cancels in the differences" in para) == \
        all(f >= CANCELS for f in factors)


def test_a_sweep_over_players_does_not_claim_that_card_luck_cancels(tmp_path: Path):
    out, result = _sweep(tmp_path, "--vary", "players=2,4", "--games", "3000")
    rows = [r for r in result["table"] if r["metric"] == "turns_mean" and r["verdict"]]
    assert all(abs(r["corr"]) < 0.2 for r in rows)  # another table size: other games
    md = (out / "sweep.md").read_text()
    assert "card luck does not cancel" in md and "largely cancels" not in md


def test_forest_chart_fills_what_it_is_told_not_what_the_interval_says(tmp_path: Path):
    path = charts.forest_chart(["a", "b"], [("x", [-2.0, 1.0], [-3.0, 0.5], [-1.0, 1.5])],
                               tmp_path / "f.png", "t", filled=[[False, True]])
    assert png_markers(path) == [[False, True]]
    default = charts.forest_chart(["a", "b"], [("x", [-2.0, 0.1], [-3.0, -0.5], [-1.0, 0.7])],
                                  tmp_path / "g.png", "t")
    assert png_markers(default) == [[True, False]]
