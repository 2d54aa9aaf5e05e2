"""One document model, two templates: every page is written as Markdown and as HTML.

A page is built once as a :class:`Doc` (headings, paragraphs, lists, tables,
code, images) whose text uses a small inline Markdown subset: ```code```,
``**bold**``, ``*emphasis*`` and ``[text](link)``. ``templates/page.md``
writes it as Markdown (the text as is, images as relative links);
``templates/page.html`` writes a self-contained HTML page: the inline markup
becomes tags, links to a Markdown page point at its HTML twin, images are
embedded as data URIs and the stylesheet is inline, so the file can be mailed
or opened offline.
"""

from __future__ import annotations

import base64
import functools
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from unosim.run.files import write_text

__all__ = ["Block", "Doc", "Span", "spans"]


@dataclass(frozen=True)
class Span:
    """A piece of inline text: ``text`` (plain or code) or ``children`` (bold, em, link)."""

    kind: str  # "text", "code", "strong", "em" or "link"
    text: str = ""
    children: tuple[Span, ...] = ()
    href: str = ""


_INLINE = re.compile(
    r"`(?P<code>[^`]+)`"
    r"|\*\*(?P<strong>.+?)\*\*"
    r"|\*(?P<em>[^*\s](?:[^*]*[^*\s])?)\*"
    r"|\[(?P<link>[^\]]+)\]\((?P<href>[^)\s]+)\)"
)


def spans(text: str) -> list[Span]:
    """Parse the inline Markdown subset the reports write into nested spans.

    >>> [(s.kind, s.text or [c.text for c in s.children]) for s in spans("a `x` **b `y`**")]
    [('text', 'a '), ('code', 'x'), ('text', ' '), ('strong', ['b ', 'y'])]
    >>> spans("[page](other.md)")[0].href
    'other.md'
    >>> [s.kind for s in spans("2 * 3 * 4")]
    ['text']
    """
    out: list[Span] = []
    pos = 0
    for m in _INLINE.finditer(text):
        if m.start() > pos:
            out.append(Span("text", text[pos:m.start()]))
        kind = next(k for k in ("code", "strong", "em", "link") if m.group(k) is not None)
        if kind == "code":
            out.append(Span("code", m.group("code")))
        else:
            out.append(Span(kind, children=tuple(spans(m.group(kind))),
                            href=m.group("href") or ""))
        pos = m.end()
    if pos < len(text):
        out.append(Span("text", text[pos:]))
    return out


@dataclass(frozen=True)
class Block:
    """One block of a page; which fields matter depends on ``kind``.

    ``h2``/``h3``/``p``/``lead``: ``text``; ``ul``: ``items``; ``table``:
    ``header`` and ``rows``; ``code``: ``text`` and ``lang``; ``img``: ``path``
    and ``text`` (the alt text).
    """

    kind: str
    text: str = ""
    items: tuple[str, ...] = ()
    header: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    lang: str = ""
    path: Path | None = None


@dataclass
class Doc:
    """A page: a title and blocks, written as ``.md`` and ``.html`` by the two templates."""

    title: str
    blocks: list[Block] = field(default_factory=list)

    def h2(self, text: str) -> None:
        self.blocks.append(Block("h2", text))

    def h3(self, text: str) -> None:
        self.blocks.append(Block("h3", text))

    def p(self, text: str, lead: bool = False) -> None:
        """A paragraph; ``lead`` marks the opening summary (highlighted in HTML)."""
        self.blocks.append(Block("lead" if lead else "p", text))

    def ul(self, items: Sequence[str]) -> None:
        self.blocks.append(Block("ul", items=tuple(items)))

    def table(self, header: Sequence[object], rows: Sequence[Sequence[object]]) -> None:
        self.blocks.append(Block("table", header=tuple(str(h) for h in header),
                                 rows=tuple(tuple(str(c) for c in r) for r in rows)))

    def code(self, text: str, lang: str = "") -> None:
        self.blocks.append(Block("code", text.rstrip("\n"), lang=lang))

    def image(self, path: str | Path, alt: str) -> None:
        """A PNG or SVG chart: linked from the Markdown, embedded in the HTML."""
        self.blocks.append(Block("img", alt, path=Path(path)))

    def to_markdown(self, base: str | Path) -> str:
        """Markdown with image links relative to ``base`` (the .md file's folder)."""
        def rel(path: Path) -> str:
            return Path(os.path.relpath(path, base)).as_posix()

        text = _env().get_template("page.md").render(doc=self, rel=rel)
        return text.rstrip("\n") + "\n"

    def to_html(self, base: str | Path | None = None) -> str:
        """A standalone HTML page; every image is inlined so it opens offline.

        A relative link to ``X.md`` points at ``X.html`` when that page exists
        under ``base`` (every page here is written in both formats, so without
        a ``base`` the twin is assumed).
        """
        text = _env().get_template("page.html").render(doc=self, href=_html_href(base))
        return text.rstrip("\n") + "\n"

    def write(self, out_dir: str | Path, stem: str) -> list[Path]:
        """Write ``stem.md`` and ``stem.html`` into ``out_dir``; returns both paths."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        md, page = out / f"{stem}.md", out / f"{stem}.html"
        write_text(md, self.to_markdown(out))  # atomic: a full disk leaves the old page whole
        write_text(page, self.to_html(out))
        return [md, page]


_EXTERNAL = re.compile(r"^([a-z][a-z0-9+.-]*:|/|#)", re.I)


def _html_href(base: str | Path | None) -> Callable[[str], str]:
    """The link rewriter for one HTML page: ``X.md`` -> ``X.html`` where that page exists."""
    def href(target: str) -> str:
        path, hash_, frag = target.partition("#")
        if _EXTERNAL.match(target) or not path.endswith(".md"):
            return target
        twin = path[: -len(".md")] + ".html"
        if base is not None and not (Path(base) / twin).is_file():
            return target
        return twin + hash_ + frag

    return href


def _md_cell(text: str) -> str:
    """A table cell's text: pipes escaped, one line."""
    return text.replace("|", "\\|").replace("\n", " ")


def _data_uri(path: Path) -> str:
    """A PNG or SVG file as a ``data:`` URI, so the HTML page needs no other file."""
    mime = "image/svg+xml" if path.suffix == ".svg" else "image/png"
    return f"data:{mime};base64," + base64.b64encode(path.read_bytes()).decode("ascii")


@functools.cache
def _env() -> jinja2.Environment:
    """The templates' environment, built on first use (the package data is read then)."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("unosim.report", "templates"),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html",),
                                            default_for_string=False),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters.update(spans=spans, md_cell=_md_cell, data_uri=_data_uri)
    return env
