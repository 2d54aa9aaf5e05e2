"""Every page as HTML: well formed, self-contained, and showing no Markdown syntax as text.

The run report (round and match mode, mixed policies), the comparison and
the sweep are each rendered once; every page must parse, embed every chart as
a data URI, and its visible text must carry no raw Markdown (links, bold,
emphasis, code ticks, table rules, headings).
"""

from __future__ import annotations

import base64
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from unosim.engine.kernel.batch import simulate
from unosim.engine.kernel.state import compile_config
from unosim.report.compare import write_comparison
from unosim.report.render import Doc
from unosim.report.run_report import write_report
from unosim.report.sweep import parse_vary, write_sweep
from unosim.rules.config import load_config
from unosim.study import StudyOptions
from unosim.study.compare import run_comparison
from unosim.study.sweep import run_sweep

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
VOID = {"meta", "img", "br", "hr", "link", "input", "col", "area", "base", "source", "wbr"}
MARKDOWN = {
    "link": re.compile(r"\[[^\]\n]*\]\([^)\n]*\)"),
    "bold": re.compile(r"\*\*|__"),
    "emphasis": re.compile(r"(?<![\w*])\*[^\s*][^*\n]*\*(?![\w*])"),
    "code tick": re.compile(r"`"),
    "table rule": re.compile(r"\|\s*:?-{3,}"),
    "heading": re.compile(r"^\s*#{1,6} ", re.M),
    "image": re.compile(r"!\["),
}


class Page(HTMLParser):
    """A parsed page: structural errors, <img> sources, link targets and visible text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.imgs: list[str] = []
        self.links: list[str] = []
        self.text: list[str] = []
        self.doctype = False
        self.seen: set[str] = set()

    def handle_decl(self, decl: str) -> None:
        self.doctype = decl.lower() == "doctype html"

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.seen.add(tag)
        if tag == "img":
            self.imgs.append(a.get("src") or "")
            if not a.get("alt"):
                self.errors.append("img without alt")
        if tag == "a":
            self.links.append(a.get("href") or "")
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"unexpected </{tag}> (open: {self.stack[-3:]})")
            return
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        if "style" not in self.stack:
            self.text.append(data)

    @property
    def visible(self) -> str:
        return "".join(self.text)


def check_page(path: Path) -> Page:
    """Parse a page; assert it is well formed, self-contained and free of raw Markdown."""
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    assert page.doctype, "missing <!DOCTYPE html>"
    assert not page.errors, page.errors
    assert not page.stack, f"unclosed tags: {page.stack}"
    assert {"html", "head", "title", "body", "style"} <= page.seen
    for src in page.imgs:  # a run report's charts are SVG, a study page's PNG
        head = base64.b64decode(src.split(",", 1)[1])[:8]
        assert (src.startswith("data:image/png;base64,") and head == PNG_MAGIC) or (
            src.startswith("data:image/svg+xml;base64,") and head.startswith(b"<svg ")), \
            src[:60]
    for name, pattern in MARKDOWN.items():
        hit = pattern.search(page.visible)
        assert hit is None, f"{path.name} shows Markdown ({name}): {hit and hit.group()!r}"
    return page


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every kind of page, rendered once for the module."""
    out = tmp_path_factory.mktemp("pages")
    found = {}
    for name, games, sets in [("classic", 1500, ("seats=[strategic,random,random,random]",)),
                              ("match", 60, ())]:
        cfg = load_config(name, list(sets))
        agg, _ = simulate(compile_config(cfg), 1, 0, games)
        write_report(out / name, cfg, agg, {"seed": 1, "config_hash": "abc"})
        found[f"report-{name}"] = out / name / "report.html"
    cmp = run_comparison([load_config("classic"), load_config("stacking")],
                         StudyOptions(games=1500, jobs=1), seeds=[1, 1])
    write_comparison(cmp, out / "compare", command="unosim compare classic stacking")
    found["compare"] = out / "compare" / "compare.html"
    sweep = run_sweep("classic", [parse_vary("players=2,3"),
                                  parse_vary("house_rules.jump_in=false,true")],
                      StudyOptions(games=300, jobs=1), overrides=["max_turns=500"])
    write_sweep(sweep, out / "sweep", command="unosim sweep classic --vary players=2,3")
    found["sweep"] = out / "sweep" / "sweep.html"
    return found


@pytest.mark.slow  # about 8 s a page
@pytest.mark.parametrize("kind", ["report-classic", "report-match", "compare", "sweep"])
def test_page_is_self_contained_html_without_markdown(pages, kind):
    path = pages[kind]
    page = check_page(path)
    pngs = sorted([*path.parent.glob("*.png"), *path.parent.glob("*.svg")])
    assert pngs and len(page.imgs) == len(pngs)  # every chart embedded, nothing else
    embedded = {base64.b64decode(s.split(",", 1)[1]) for s in page.imgs}
    assert embedded == {p.read_bytes() for p in pngs}
    md = path.with_suffix(".md").read_text(encoding="utf-8")
    for p in pngs:
        assert f"]({p.name})" in md  # the Markdown links the same charts


def test_inline_markup_becomes_tags_and_text_is_escaped(tmp_path):
    doc = Doc("<script>alert(1)</script>")
    doc.p("a < b & `code` **bold `x`** *g* 2 * 3 * 4")
    doc.table(["h|1"], [["<td>"]])
    doc.write(tmp_path, "x")
    html = (tmp_path / "x.html").read_text()
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<code>code</code>" in html and "<strong>bold <code>x</code></strong>" in html
    assert "<em>g</em>" in html and "2 * 3 * 4" in html
    check_page(tmp_path / "x.html")
    md = (tmp_path / "x.md").read_text()
    assert "h\\|1" in md and "**bold `x`**" in md


def test_links_point_at_html_pages_where_they_exist(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "page.html").write_text("<!DOCTYPE html>")
    doc = Doc("Links")
    doc.p("[there](sub/page.md), [missing](sub/none.md), [data](sub/t.csv), "
          "[site](https://example.org/x.md)")
    doc.write(tmp_path, "links")
    page = check_page(tmp_path / "links.html")
    assert page.links == ["sub/page.html", "sub/none.md", "sub/t.csv", "https://example.org/x.md"]
    assert "[there](sub/page.md)" in (tmp_path / "links.md").read_text()
    assert 'href="sub/page.html"' in Doc("x", doc.blocks).to_html()  # no base: twin assumed
