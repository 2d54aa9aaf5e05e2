"""Reports, comparisons and sweeps: valid self-contained HTML, headless charts,
verdict wording, a null comparison that finds nothing, and a sweep's tidy table."""

from __future__ import annotations

import base64
import csv
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from unosim.cli.reports import compare_cmd, sweep_cmd
from unosim.engine import layout as L
from unosim.engine.batch import simulate
from unosim.report import charts
from unosim.report.compare import (
    Diff,
    _simulate_in_process,
    compact_run_dir,
    compare_runs,
    describe_difference,
    load_run,
    run_config,
    run_label,
    verdict_amount,
)
from unosim.report.run_report import (
    METRIC_BY_KEY,
    Doc,
    estimate,
    order_ci,
    per_round_estimate,
    write_report,
)
from unosim.report.sweep import VaryError, parse_vary
from unosim.rules.config import compile_config, load_config

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
VOID = {"meta", "img", "br", "hr", "link", "input", "col", "area", "base", "source", "wbr"}


class _Checker(HTMLParser):
    """Collects structural problems and every <img> src of a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.imgs: list[str] = []
        self.doctype = False
        self.seen: set[str] = set()

    def handle_decl(self, decl: str) -> None:
        self.doctype = decl.lower() == "doctype html"

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.seen.add(tag)
        if tag == "img":
            src = dict(attrs).get("src") or ""
            self.imgs.append(src)
            if not dict(attrs).get("alt"):
                self.errors.append("img without alt")
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"unexpected </{tag}> (open: {self.stack[-3:]})")
            return
        self.stack.pop()


def check_html(path: Path) -> _Checker:
    """Parse a page and assert it is well formed, complete and fully self-contained."""
    c = _Checker()
    c.feed(path.read_text(encoding="utf-8"))
    c.close()
    assert c.doctype, "missing <!DOCTYPE html>"
    assert not c.errors, c.errors
    assert not c.stack, f"unclosed tags: {c.stack}"
    assert {"html", "head", "title", "body"} <= c.seen
    for src in c.imgs:
        assert src.startswith("data:image/png;base64,"), src[:60]
        assert base64.b64decode(src.split(",", 1)[1])[:8] == PNG_MAGIC
    return c


def _agg(name: str, games: int, seed: int = 1, sets: tuple[str, ...] = ()) -> tuple:
    cfg = load_config(name, list(sets))
    agg, _ = simulate(compile_config(cfg), seed, 0, games)
    return cfg, agg


# --------------------------------------------------------------------------- #
# run reports
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("name,games,sets", [
    ("classic", 3000, ()),
    ("match", 150, ()),
    ("classic", 2000, ("seats=[strategic,random,random,random]",)),
])
def test_report_html_is_valid_and_embeds_every_chart(tmp_path, name, games, sets):
    cfg, agg = _agg(name, games, sets=sets)
    paths = write_report(tmp_path, cfg, agg, {"seed": 1})
    pngs = [p for p in paths if p.suffix == ".png"]
    assert (tmp_path / "report.md") in paths and (tmp_path / "report.html") in paths
    assert len(pngs) >= 4 and all(p.read_bytes()[:8] == PNG_MAGIC for p in pngs)
    page = check_html(tmp_path / "report.html")
    assert len(page.imgs) == len(pngs)  # every chart embedded, nothing else
    embedded = {base64.b64decode(s.split(",", 1)[1]) for s in page.imgs}
    assert embedded == {p.read_bytes() for p in pngs}
    md = (tmp_path / "report.md").read_text()
    first = md.split("\n\n")[1]  # the conclusion comes first, with sample size and seed
    assert "seed 1" in first and f"{int(agg['counts'][1]):,}" in first
    for p in pngs:
        assert f"]({p.name})" in md
    if cfg.mode == "match":
        assert "Rounds per match" in md and "Match win rate" in md
    if len(set(cfg.seat_policies)) > 1:
        assert "win_seat.png" in {p.name for p in pngs} and "By policy" in first


def test_charts_are_headless_agg(tmp_path):
    fig = charts._figure()
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    assert isinstance(fig.canvas, FigureCanvasAgg)
    p = charts.rate_chart(["a", "b"], [40, 60], 100, 0.5, tmp_path / "r.png", "t", "x")
    assert p.read_bytes()[:8] == PNG_MAGIC


def test_doc_escapes_text(tmp_path):
    doc = Doc("<script>alert(1)</script>")
    doc.p("a < b & `code` **bold**")
    doc.table(["h|1"], [["<td>"]])
    doc.write(tmp_path, "x")
    page = (tmp_path / "x.html").read_text()
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "<code>code</code>" in page and "<strong>bold</strong>" in page
    check_html(tmp_path / "x.html")
    assert "h\\|1" in (tmp_path / "x.md").read_text()


def test_estimates_have_intervals():
    cfg = load_config("classic")
    agg = _simulate_in_process(cfg, 3000, 1)  # chunked: batch sums for per-round totals
    for key in ("turns_mean", "first_player_win_rate", "first_player_vs_fair", "drawn_mean",
                "reshuffles_per_round"):
        e = estimate(agg, METRIC_BY_KEY[key])
        assert e.low <= e.value <= e.high, key
    e = per_round_estimate(agg, L.R_DRAW_BY_CAUSE + L.CAUSE_DRAW2)
    assert e.low < e.value < e.high
    med = order_ci(agg["turns_hist"], 0.5)
    assert med.low <= med.value <= med.high
    bare = {k: v for k, v in agg.items() if not k.startswith("batch_") and k != "sums_sq"}
    assert np.isnan(per_round_estimate(bare, L.R_RESHUFFLES).low)  # totals only: no interval


# --------------------------------------------------------------------------- #
# labels and verdict wording
# --------------------------------------------------------------------------- #


def test_labels_describe_rule_differences():
    base = load_config("classic")
    assert run_label(base, load_config("stacking")) == "stacking (Draw Two on Draw Two)"
    assert run_label(base, load_config("stacking_full")).startswith("full stacking (every")
    assert run_label(base, load_config("jump_in")) == "jump-in"
    assert run_label(base, load_config("disney100")) == \
        "UNO Disney 100 (Wild Mickey Movie Madness)"
    assert run_label(base, load_config("classic", ["players=6"])) == "6 players"
    chaos = describe_difference(base, load_config("chaos"))
    assert "full stacking" in chaos and "jump-in" in chaos  # two-player rule omitted at 4
    assert not any("two-player" in x for x in chaos)
    assert run_label(base, load_config("classic")) == "classic"


def test_verdict_wording_longer_shorter_none():
    cfgs = [load_config(n) for n in ("classic", "draw_until_play", "jump_in")]
    runs = [run_config(c, games=3000, seed=1, jobs=1) for c in cfgs]
    cmp = compare_runs(runs)
    longer, shorter = cmp.verdicts[0][0], cmp.verdicts[1][0]
    assert longer.startswith("Draw until you can play makes 4-player rounds ")
    assert "longer: " in longer and "3,000 rounds each" in longer
    assert shorter.startswith("Jump-in makes 4-player rounds ") and "shorter: " in shorter
    assert "more cards drawn per round" in cmp.verdicts[0][2]
    d = Diff(0.1, -0.2, 0.4, 0.5, "Welch t", 0.004)
    text = verdict_amount("classic", "seven-O", "cards drawn per round", "cards", d, 26.3,
                          26.4, 1000, 1000)
    assert text.startswith("Seven-O makes no significant difference to cards drawn per round")
    assert "p = 0.5" in text
    d = Diff(-2.0, -2.5, -1.5, 1e-9, "Welch t", -0.076)
    text = verdict_amount("a", "b", "cards drawn per round", "cards", d, 26.3, 24.3, 10, 20)
    assert "fewer cards drawn per round" in text and "10 and 20 rounds" in text


# --------------------------------------------------------------------------- #
# the CLI commands
# --------------------------------------------------------------------------- #


def _yaml(tmp_path: Path, name: str, seed: int) -> str:
    p = tmp_path / f"{name}.yaml"
    p.write_text(f"extends: classic\nname: {name}\nseed: {seed}\n")
    return str(p)


def test_compare_identical_configs_different_seeds_not_significant(tmp_path):
    a, b = _yaml(tmp_path, "same_a", 1), _yaml(tmp_path, "same_b", 2)
    out = tmp_path / "cmp"
    res = CliRunner().invoke(compare_cmd, [a, b, "--games", "4000", "--jobs", "1",
                                           "--out", str(out), "-q"])
    assert res.exit_code == 0, res.output
    assert "makes no significant difference to 4-player round length" in res.output
    rows = list(csv.DictReader(open(out / "compare.csv")))
    turns = [r for r in rows if r["metric"] == "turns_mean" and r["config"] == "same_b"][0]
    assert float(turns["p_value"]) > 0.05 and float(turns["diff_low"]) < 0 < float(
        turns["diff_high"])
    assert int(turns["rounds"]) == 4000
    page = check_html(out / "compare.html")
    assert len(page.imgs) == len(list(out.glob("compare_*.png"))) >= 4
    # the run dirs can be compared again without re-running, also once compacted
    assert compact_run_dir(out / "runs" / "same_b")
    assert not (out / "runs" / "same_b" / "chunks").exists()
    again = load_run(out / "runs" / "same_b")
    assert again.rounds == 4000 and "batch_sums" in again.aggregates
    res2 = CliRunner().invoke(compare_cmd, [str(out / "runs" / "same_a"),
                                            str(out / "runs" / "same_b"),
                                            "--out", str(tmp_path / "again"), "-q"])
    assert res2.exit_code == 0, res2.output
    assert "no significant difference" in res2.output


def test_sweep_writes_tidy_table(tmp_path):
    out = tmp_path / "sw"
    res = CliRunner().invoke(sweep_cmd, ["classic", "--vary", "players=2..4", "--vary",
                                         "house_rules.jump_in=false,true", "--games", "400",
                                         "--jobs", "1", "--out", str(out), "-q"])
    assert res.exit_code == 0, res.output
    table = pd.read_csv(out / "sweep.csv")
    assert len(table) == 6
    assert list(table["players"]) == [2, 2, 3, 3, 4, 4]
    assert list(table["house_rules.jump_in"]) == [False, True] * 3
    for m in ("turns_mean", "first_player_win_rate", "stalemate_rate", "drawn_mean"):
        assert (table[f"{m}_low"] <= table[m]).all() and (table[m] <= table[f"{m}_high"]).all()
    assert (table["rounds"] == 400).all()
    assert pd.read_parquet(out / "sweep.parquet").shape == table.shape
    for m in ("turns_mean", "first_player_win_rate", "stalemate_rate", "drawn_mean"):
        assert (out / f"sweep_{m}.png").read_bytes()[:8] == PNG_MAGIC
    check_html(out / "sweep.html")


def test_parse_vary():
    assert parse_vary("players=2..5").values == (2, 3, 4, 5)
    assert parse_vary("players=2..10..4").values == (2, 6, 10)
    ax = parse_vary("house_rules.stacking={},{draw_two_on_draw_two: true, wd4_on_wd4: true}")
    assert ax.values == ({}, {"draw_two_on_draw_two": True, "wd4_on_wd4": True})
    assert ax.labels == ["no stacking", "stacking (Draw Two on Draw Two, Wild Draw Four on "
                                        "Wild Draw Four)"]
    assert parse_vary("house_rules.jump_in=false,true").labels == ["off", "on"]
    for bad in ("players", "players=", "players=5..2", "x=1,1", "x=a,,b"):
        with pytest.raises(VaryError):
            parse_vary(bad)


@pytest.mark.parametrize("args", [
    ["classic"],
    ["classic", "no_such_config"],
    ["classic", "stacking", "--set", "players=99"],
    ["classic", "stacking", "--games", "0"],
])
def test_compare_bad_input_exits_2_with_one_line(args):
    res = CliRunner().invoke(compare_cmd, [*args, "-q"])  # standalone: click's own format
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert res.output.strip().splitlines()[-1].startswith("Error: ")
    cli = pytest.importorskip("unosim.cli")
    res = CliRunner().invoke(cli.main, ["compare", *args, "-q"])  # under `unosim`: one line
    assert res.exit_code == 2
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("unosim: error: "), res.output


def test_sweep_bad_vary_exits_2():
    res = CliRunner().invoke(sweep_cmd, ["classic", "--vary", "bogus=1,2", "-q"])
    assert res.exit_code == 2 and "bogus" in res.output and "Traceback" not in res.output
