"""The layers above the engine keep their `Any` count at or under a ceiling.

``Any`` switches type checking off wherever it flows: these folders name the
types of what they build (TypedDicts for the JSON documents, Protocols for
duck-typed objects, ``object`` for values only passed on). Each ceiling is the
count reached when they were typed; lower it when a change removes more, and
never raise it without saying why in docs/DECISIONS.md.

The count is of source lines that name ``Any`` as a word (``grep -rw Any``):
the import line counts too. The engine and the rules are not held here yet.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "unosim"

# folder (or "." for the package's top-level modules) -> most lines naming Any
CEILINGS = {
    "analysis": 0,
    "cli": 8,
    "env": 6,
    "report": 13,
    "run": 9,
    "study": 2,
    ".": 3,
}

_ANY = re.compile(r"\bAny\b")


def any_lines(folder: str) -> list[str]:
    """``path:line: text`` of each line of ``folder``'s Python files that names Any."""
    root = PACKAGE / folder
    files = sorted(root.glob("*.py") if folder == "." else root.rglob("*.py"))
    return [f"{p.relative_to(PACKAGE)}:{i}: {line.strip()}"
            for p in files
            for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
            if _ANY.search(line)]


def test_the_count_matches_grep_on_a_sample() -> None:
    """The pattern counts what ``grep -w Any`` counts: a word, not a part of one."""
    lines = ["from typing import Any", "x: dict[str, Any]", "AnyStr", "Anything", "many",
             "_Any", "Any_"]
    assert [bool(_ANY.search(line)) for line in lines] == [True, True, False, False, False,
                                                           False, False]


@pytest.mark.parametrize("folder", sorted(CEILINGS))
def test_any_stays_under_its_ceiling(folder: str) -> None:
    found = any_lines(folder)
    assert len(found) <= CEILINGS[folder], (
        f"{folder}: {len(found)} lines name Any, the ceiling is {CEILINGS[folder]}; "
        "give these a real type:\n" + "\n".join(found))
