"""Structure the engine keeps: card arithmetic in one place, imports pointing down."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

UNOSIM = Path(__file__).resolve().parents[2] / "unosim"
UPPER = ("unosim.run", "unosim.analysis", "unosim.report", "unosim.study", "unosim.env", "unosim.cli")


def test_no_raw_card_arithmetic_outside_cards_py() -> None:
    raw = re.compile(r"% ?13|// ?13|\* ?13")
    hits = [f"{p.relative_to(UNOSIM)}:{i}: {line.strip()}"
            for p in sorted(UNOSIM.rglob("*.py")) if p.name != "cards.py"
            for i, line in enumerate(p.read_text().splitlines(), 1) if raw.search(line)]
    assert hits == []


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_engine_modules_import_no_upper_layer() -> None:
    for path in sorted((UNOSIM / "engine").glob("*.py")):
        bad = {m for m in _imports(path) if m.startswith(UPPER)}
        assert not bad, (path.name, bad)


def test_importing_the_engine_loads_no_upper_layer() -> None:
    code = ("import sys, unosim.engine, unosim.engine.kernel.batch, unosim.engine.game, "
            "unosim.engine.trace, unosim.engine.warmup; "
            f"print(sorted(m for m in sys.modules if m.startswith({UPPER!r})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
