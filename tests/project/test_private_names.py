"""No module reaches into another module's private names.

A name with a leading underscore is its module's own business: a module that
imports one from another (``from x import _y``), or reads one off another
module or off an object another module defines (``x._y``, ``r._events``), ties
itself to details its owner may change at will. Read from the source (no
import): every private name each module defines (functions, classes, module
variables, class attributes and ``self._x`` fields), then every use of one
outside the module that defines it. Tests may use privates.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "unosim"

# Uses of another module's private name still open, each with why (empty: none left).
# Uses of another module's private name still open, each with its reason (none today).
ALLOWED: set[tuple[str, str]] = set()


# A named tuple's public API, underscored only so as not to clash with its fields.
NAMEDTUPLE_API = {"_asdict", "_field_defaults", "_fields", "_make", "_replace"}


def _private(name: str) -> bool:
    return (name.startswith("_") and not (name.startswith("__") and name.endswith("__"))
            and name not in NAMEDTUPLE_API)


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _defined(tree: ast.Module) -> set[str]:
    """The private names a module defines: top-level and class-level definitions,
    assignments, and attributes set on ``self``/``cls``."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for sub in ast.walk(t):
                    if isinstance(sub, ast.Name):
                        out.add(sub.id)
                    elif isinstance(sub, ast.Attribute):
                        out.add(sub.attr)
    return {n for n in out if _private(n)}


def _sources() -> dict[str, ast.Module]:
    return {str(p.relative_to(PACKAGE.parent)): ast.parse(p.read_text(), str(p))
            for p in sorted(PACKAGE.rglob("*.py"))}


def reaches(sources: dict[str, ast.Module]) -> set[tuple[str, str]]:
    """(module file, private name) for each use of a private name another module defines.

    >>> src = {"unosim/a.py": ast.parse("_x = 1\\nclass A:\\n    _y = 2"),
    ...        "unosim/b.py": ast.parse("from unosim.a import _x\\nprint(obj._y, obj._z)")}
    >>> sorted(reaches(src))
    [('unosim/b.py', '_x'), ('unosim/b.py', '_y')]
    """
    defined = {path: _defined(tree) for path, tree in sources.items()}
    everywhere = set().union(*defined.values()) if defined else set()
    found: set[tuple[str, str]] = set()
    for path, tree in sources.items():
        own = defined[path]
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("unosim"):
                found |= {(path, a.name) for a in node.names if _private(a.name)}
            elif (isinstance(node, ast.Attribute) and _private(node.attr)
                  and node.attr in everywhere and node.attr not in own
                  and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
                found.add((path, node.attr))
    return found


def test_no_module_uses_another_modules_private_names() -> None:
    found = reaches(_sources())
    assert sorted(found - ALLOWED) == []


def test_the_allowed_list_holds_only_open_uses() -> None:
    """An allowance whose use is gone goes too (it would hide a new one)."""
    assert sorted(ALLOWED - reaches(_sources())) == []
