"""The specification the project cites is the one it contains.

docs/rules.md and docs/trace.md are unosim's rules and trace specification.
Code, tests, edition files, reports and docs cite them ("docs/rules.md §3",
"docs/trace.md#t2"); a citation of a specification file kept outside the
repository would send a reader to a file they do not have, and a citation of
a section that does not exist sends them nowhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
# The changelog records what earlier versions said and is written at release time.
HISTORY = {ROOT / "CHANGELOG.md"}
ENGINE = ROOT / "unosim" / "engine"

# Citations of the specification files that are not in the repository, spelled
# so that this file does not match them itself.
OUTSIDE = re.compile(r"\b(?:RULES|TRACE)[.]md\b|\bshared[/]|\bRULES (?:sec[.]|§|section|\d)")
# "rules.md §2, §3 and §5", "trace.md section 2", "[rules.md §7](rules.md#s7)"
NUMBERED = re.compile(
    r"\b(rules|trace)[.]md(?:\]\([^)\s]*\))?((?:\s*(?:,|and|or)?\s*(?:§|section )\d+\b)+)")
ANCHORED = re.compile(r"\b(rules|trace)[.]md#([st])(\d+)\b")
IN_PAGE = re.compile(r"\]\(#([a-z]+\d*)\)")


def _text_files(under: Path) -> Iterator[tuple[Path, str]]:
    """Every text file under ``under``, outside hidden, cache and build folders."""
    for path in sorted(under.rglob("*")):
        rel = path.relative_to(ROOT).parts
        if any(p.startswith(".") or p in {"__pycache__", "build", "dist"}
               or p.endswith(".egg-info") for p in rel[:-1]):
            continue
        if not path.is_file() or path.is_symlink() or path in HISTORY:
            continue
        data = path.read_bytes()
        if b"\0" in data[:8192]:
            continue
        try:
            yield path, data.decode("utf-8")
        except UnicodeDecodeError:
            continue


def _files(engine: bool) -> list[tuple[Path, str]]:
    return [(path, text) for path, text in _text_files(ROOT)
            if path.is_relative_to(ENGINE) == engine]


def _sections(page: str, prefix: str) -> set[int]:
    """The numbered sections of a docs page; each must carry its stable anchor."""
    text = (DOCS / page).read_text()
    headings = {int(n) for n in re.findall(r"(?m)^## (\d+)\. ", text)}
    anchors = {int(n) for n in re.findall(rf'<a id="{prefix}(\d+)"></a>', text)}
    assert headings and headings == anchors, f"docs/{page}: headings {headings}, anchors {anchors}"
    return headings


def _outside_citations(files: list[tuple[Path, str]]) -> list[str]:
    return [f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
            for path, text in files for m in OUTSIDE.finditer(text)]


def test_nothing_cites_a_specification_outside_the_repository() -> None:
    files = _files(engine=False)
    assert len(files) > 100  # the walk found the repository
    assert _outside_citations(files) == []


def test_the_engine_cites_only_the_project_docs() -> None:
    assert _outside_citations(_files(engine=True)) == []


def test_every_numbered_citation_names_a_section_that_exists() -> None:
    sections = {"rules": _sections("rules.md", "s"), "trace": _sections("trace.md", "t")}
    prefix = {"s": "rules", "t": "trace"}
    bad: list[str] = []
    seen = 0
    for path, text in _text_files(ROOT):
        where = path.relative_to(ROOT)
        for m in NUMBERED.finditer(text):
            for n in re.findall(r"\d+", m.group(2)):
                seen += 1
                if int(n) not in sections[m.group(1)]:
                    bad.append(f"{where}: {m.group(0)!r}")
        for m in ANCHORED.finditer(text):
            seen += 1
            if prefix[m.group(2)] != m.group(1) or int(m.group(3)) not in sections[m.group(1)]:
                bad.append(f"{where}: {m.group(0)!r}")
    assert seen > 50  # the citations are there to check
    assert bad == []


@pytest.mark.parametrize("page", ["rules.md", "trace.md"])
def test_in_page_links_of_the_specification_resolve(page: str) -> None:
    text = (DOCS / page).read_text()
    ids = set(re.findall(r'<a id="([a-z]+\d*)"></a>', text))
    assert set(IN_PAGE.findall(text)) <= ids
