"""Charts: one colour-blind-safe palette with one meaning per page, nothing clipped,
rare rates printed with their digits, and a sentence instead of an empty chart."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

from unosim.analysis.estimates import Estimate
from unosim.engine.kernel.batch import simulate
from unosim.engine.kernel.state import compile_config
from unosim.report import charts, svg
from unosim.report.format import pct, pct_ci
from unosim.report.run_report import write_report
from unosim.rules.config import load_config

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
OKABE_ITO = {"#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442",
             "#000000"}


@pytest.fixture
def figures(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Figure, bool]]:
    """Every figure saved, with whether it took the tight (slow) path."""
    seen: list[tuple[Figure, bool]] = []
    sticks = charts._sticks_out

    def spy_sticks(fig: Figure) -> bool:
        out = sticks(fig)
        seen.append((fig, out))
        return out

    monkeypatch.setattr(charts, "_sticks_out", spy_sticks)
    return seen


def _inside(fig: Figure) -> bool:
    """Every artist (tick labels included) within the drawn figure."""
    box, frame = fig.get_tightbbox(fig.canvas.get_renderer()), fig.bbox_inches
    tol = 0.03
    return (box.x0 >= -tol and box.y0 >= -tol and box.x1 <= frame.x1 + tol
            and box.y1 <= frame.y1 + tol)


def _colors(fig: Figure) -> set[str]:
    """Colours of the data: lines, markers, collections (not grid, spines or text)."""
    out = set()
    for ax in fig.axes:
        for ln in ax.lines:
            if ln.get_xydata().size:
                out.add(to_hex(ln.get_color()))
        for c in ax.collections:
            for fc in c.get_facecolor():
                out.add(to_hex(fc, keep_alpha=False))
            for ec in c.get_edgecolor():
                out.add(to_hex(ec, keep_alpha=False))
        for p in ax.patches:
            out.add(to_hex(p.get_facecolor(), keep_alpha=False))
    return out - {"#ffffff"}


def _agg(name: str, games: int, sets: tuple[str, ...] = ()) -> tuple:
    cfg = load_config(name, list(sets))
    agg, _ = simulate(compile_config(cfg), 1, 0, games)
    return cfg, agg


def test_one_palette_defined_once() -> None:
    assert {c.lower() for c in charts.COLORS} == OKABE_ITO
    src = Path(charts.__file__).read_text()
    # tab10's colours are gone; every hex colour in the module is declared at the top
    assert "#1f77b4" not in src and "#d62728" not in src and "#2ca02c" not in src
    body = src.split("def new_figure", 1)[1]
    assert not re.findall(r'"#[0-9a-fA-F]{6}"', body.replace('"#dddddd"', "")
                          .replace('"#ffffff"', ""))


@pytest.fixture
def pictures(monkeypatch: pytest.MonkeyPatch) -> list[svg.Svg]:
    """Every SVG chart saved."""
    seen: list[svg.Svg] = []
    save = svg.Svg.save

    def spy_save(self: svg.Svg, path: str | Path) -> Path:
        seen.append(self)
        return save(self, path)

    monkeypatch.setattr(svg.Svg, "save", spy_save)
    return seen


def _marker_colors(doc: str) -> set[str]:
    """The fills of an SVG chart's point markers (the data's colours)."""
    return {c.lower() for c in re.findall(r'<circle [^>]*fill="(#[0-9A-Fa-f]{6})"', doc)}


def test_run_report_charts_fit_and_keep_their_colours(tmp_path, pictures) -> None:
    """The run report's charts are SVG (no matplotlib): every text inside the picture,
    the run in COLORS[0] and policies in the others."""
    cfg, agg = _agg("classic", 1500, ("seats=[strategic,random,random,random]",))
    paths = write_report(tmp_path, cfg, agg, {"seed": 1})
    names = {p.name for p in paths if p.suffix == ".svg"}
    assert names == {"turns.svg", "win_position.svg", "win_seat.svg", "scores.svg",
                     "draws.svg"}
    assert not [p for p in paths if p.suffix == ".png"] and len(pictures) == 5
    for pic in pictures:
        assert not pic.outside(), pic.outside()
    docs = {p.name: p.read_text() for p in paths if p.suffix == ".svg"}
    for doc in docs.values():
        ET.fromstring(doc)  # well-formed
    # the run is COLORS[0]; policies take other colours, so blue never means a policy
    assert _marker_colors(docs["win_position.svg"]) == {charts.COLORS[0].lower()}
    pol = _marker_colors(docs["win_seat.svg"])
    assert charts.COLORS[0].lower() not in pol and pol <= OKABE_ITO and len(pol) == 2
    assert "Scores (standard scoring)" in docs["scores.svg"]
    assert "longest round" in docs["turns.svg"] or "99.5th" not in docs["turns.svg"]


def test_svg_charts_are_the_same_bytes_every_time(tmp_path) -> None:
    """Text from integer counts, two decimals per coordinate, no rasteriser: the same
    aggregates give the same bytes (on any machine)."""
    cfg, agg = _agg("classic", 400)
    a = write_report(tmp_path / "a", cfg, agg, {"seed": 1})
    b = write_report(tmp_path / "b", cfg, agg, {"seed": 1})
    svgs = [(p, q) for p, q in zip(a, b, strict=True) if p.suffix == ".svg"]
    assert len(svgs) == 4
    for p, q in svgs:
        assert p.read_bytes() == q.read_bytes() and p.read_bytes().startswith(b"<svg ")


def test_rare_rates_keep_their_digits(tmp_path, pictures) -> None:
    assert pct(12 / 1_000_000) == "0.0012%" and pct(0.0) == "0%"
    assert pct_ci(Estimate(12e-6, 6.9e-6, 21e-6, 10**6)).startswith("0.0012% ")
    assert "0.000%" not in pct_ci(Estimate(3e-6, 1e-6, 9e-6, 10**6))
    svg.rate_chart(["rare", "common"], [12, 400_000], 1_000_000, None,
                   tmp_path / "r.svg", "Rare", "x", ylabel="stalemate rate")
    texts = [b[0] for b in pictures[-1].boxes]
    assert "0.0012%" in texts and "40.0%" in texts


def test_compare_charts_give_config_i_one_colour(tmp_path, figures) -> None:
    h = [np.bincount(np.random.default_rng(i).poisson(40 + 5 * i, 3000)) for i in range(3)]
    labels = ["classic", "stacking", "a rather long label that has to wrap somewhere sensible"]
    charts.turns_chart([charts.Series(lab, x) for lab, x in zip(labels, h, strict=True)],
                       tmp_path / "t.png", "Turns per round (4 players)")
    charts.grouped_rates_chart(charts.position_labels(4),
                               [(lab, [800, 700, 760, 740], 3000) for lab in labels], 0.25,
                               tmp_path / "g.png", "Win rate by seat position", "position")
    charts.forest_chart(labels[1:], [("change (%)", [1.0, -2.0], [0.5, -3.0], [1.5, -1.0])],
                        tmp_path / "f.png", "Effects")
    turns, grouped, forest = (f for f, _ in figures)
    for i in range(3):
        c = charts.COLORS[i].lower()
        assert c in _colors(turns) and c in _colors(grouped)
        assert (c in _colors(forest)) == (i > 0)  # the baseline has no row there
    for fig, _ in figures:
        assert _inside(fig)


def test_stacked_parts_never_use_a_config_colour(tmp_path, figures) -> None:
    charts.stacked_bars_chart(["classic", "stacking"],
                              [("ordinary draw", [13.0, 12.5]), ("Draw Two penalty", [6.0, 4.0]),
                               ("never", [0.0, 0.0]), ("stacked penalty", [0.0, 2.5])],
                              tmp_path / "s.png", "Cards drawn", "cards")
    fig, _ = figures[-1]
    assert not _colors(fig) & {c.lower() for c in charts.COLORS}
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == \
        ["ordinary draw", "Draw Two penalty", "stacked penalty"]  # all-zero part left out
    assert _inside(fig)


def test_long_labels_wrap_and_nothing_is_clipped(tmp_path, figures, pictures) -> None:
    long = "stacking (Draw Two on Draw Two, Wild Draw Four on Wild Draw Four, jump-in)"
    pic = svg.rate_chart([long, "b", "c"], [40, 60, 50], 150, 1 / 3, tmp_path / "r.svg",
                         "A title " * 20, "x", legend=[(long, charts.COLORS[1])],
                         colors=[charts.COLORS[1]] * 3)
    ET.fromstring(pic.read_text())
    charts.line_chart([charts.Line(long, [2, 3, 4], [0.5, 0.3, 0.2], [0.4, 0.2, 0.1],
                                   [0.6, 0.4, 0.3]),
                       charts.Line("short", [2, 3, 4], [0.4, 0.3, 0.25], [0.3, 0.2, 0.2],
                                   [0.5, 0.4, 0.3])],
                      tmp_path / "l.png", "First-player win rate by number of players",
                      "players", "win rate", percent=True,
                      reference=charts.Line("fair share 1/N", [2, 3, 4], [0.5, 1 / 3, 0.25],
                                            [], []))
    charts.stacked_bars_chart([long, "classic"], [("ordinary draw", [1.0, 2.0])],
                              tmp_path / "s.png", "Cards", "cards")
    charts.forest_chart([long], [("change (%)", [1.0], [0.5], [1.5]),
                                 ("change (pts)", [-0.2], [-0.5], [0.1])],
                        tmp_path / "f.png", "Effects")
    for fig, slow in figures:
        assert not slow and _inside(fig)
        for ax in fig.axes:
            for t in ax.get_xticklabels() + ax.get_yticklabels():
                assert all(len(line) <= 40 for line in t.get_text().split("\n"))
    for p in tmp_path.glob("*.png"):
        assert p.read_bytes()[:8] == PNG_MAGIC
    (pic,) = pictures
    assert not pic.outside()
    ticks = [t for t, *_ in pic.boxes if t.startswith(("stacking", "b", "c"))]
    assert ticks and all(len(line) <= 40 for t in ticks for line in t.split("\n"))


def test_all_zero_scores_are_a_sentence(tmp_path) -> None:
    cfg, agg = _agg("classic", 300)
    agg = {k: np.asarray(v).copy() for k, v in agg.items()}
    agg["points_hist"][:] = 0
    paths = write_report(tmp_path, cfg, agg, {"seed": 1})
    assert "scores.svg" not in {p.name for p in paths}
    md = (tmp_path / "report.md").read_text()
    assert "No points were scored (standard scoring)" in md
    assert charts.all_zero([0, 0.0], np.zeros(4)) and not charts.all_zero([0, 1])


def test_svg_charts_take_empty_and_odd_input(tmp_path, pictures) -> None:
    """An all-zero histogram draws empty axes; labels with markup characters are text."""
    svg.turns_chart(np.zeros(4, dtype=np.int64), tmp_path / "t.svg", "no <rounds> & no turns")
    svg.hist_chart([("nothing", np.zeros(3, dtype=np.int64), "points")], tmp_path / "h.svg",
                   "Scores")
    svg.draws_chart(["a & b"], [0.0], [float("nan")], [float("nan")], np.zeros(2, np.int64),
                    "", tmp_path / "d.svg", "Cards")
    for p in tmp_path.glob("*.svg"):
        ET.fromstring(p.read_text())
    assert "no &lt;rounds&gt; &amp; no turns" in (tmp_path / "t.svg").read_text()
    assert all(not pic.outside() for pic in pictures)
