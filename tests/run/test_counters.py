"""The per-round counters are declared once (`unosim.engine.kernel.state.COUNTERS`): every
declared counter reaches `Round.stats`, the records and ``summary.json``, and no place
lists them by hand again."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import pytest

import unosim
import unosim.engine.kernel.state as L
from unosim.analysis.summary import SCHEMA_PATH, summarize_run
from unosim.engine.game import Round
from unosim.report.format import EVENT_LABELS
from unosim.rules.config import load_config
from unosim.run import run_simulation

PACKAGE = Path(unosim.__file__).parent
# The places that derive from the declaration, and what in them must not name a counter.
DERIVED = {
    "run/checkpoints.py": "_records_table",
    "analysis/summary.py": "build_summary",
    "engine/game.py": "stats",
    "report/format.py": "EVENT_LABELS",
}
R_NAMES = {f"R_{c.name.upper()}" for c in L.COUNTERS}
STRINGS = {s for c in L.COUNTERS for s in (c.name, c.column, c.summary.split(".")[-1])}


def _summary_at(summary: dict, path: str) -> object:
    node: object = summary
    for key in path.split("."):
        assert isinstance(node, dict) and key in node, path
        node = node[key]
    return node


def test_every_counter_reaches_records_summary_and_stats(tmp_path):
    pd = pytest.importorskip("pandas")
    cfg = load_config("configs/chaos.yaml")
    result = run_simulation(cfg, games=60, seed=5, jobs=1, out=tmp_path / "r", records=True,
                            progress=False)
    df = pd.read_parquet(tmp_path / "r" / "records")
    summary = summarize_run(result)
    sums = result.aggregates["sums"]
    schema = json.loads(SCHEMA_PATH.read_text())
    stats = Round.new(L.compile_config(cfg), seed=1).stats
    rounds = summary["rounds"]
    for c in L.COUNTERS:
        col = df[c.column]
        assert col.dtype == np.int32 and int(col.sum()) == int(sums[c.slot]), c.name
        value = _summary_at(summary, c.summary)
        mean = value["mean"] if c.hist else value
        assert mean == pytest.approx(col.sum() / rounds), c.name
        group, _, key = c.summary.rpartition(".")
        props = schema["properties"][group]["properties"] if group else schema["properties"]
        assert key in props, c.summary
        assert c.name in stats and (not c.label or EVENT_LABELS[c.slot] == c.label)
    assert len(EVENT_LABELS) == sum(1 for c in L.COUNTERS if c.label)
    # some counter the chaos rules count is not zero, so the sums above compared something
    assert all(sums[c.slot] for c in L.COUNTERS if c.name in ("jumps", "swaps", "played"))


def _named_counters(node: ast.AST) -> list[str]:
    """Counters a piece of code names by hand: ``R_*`` constants and their names as strings."""
    found = []
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and n.attr in R_NAMES:
            found.append(n.attr)
        elif isinstance(n, ast.Name) and n.id in R_NAMES:
            found.append(n.id)
        elif isinstance(n, ast.Constant) and n.value in STRINGS:
            found.append(str(n.value))
    return found


def _definition(tree: ast.Module, name: str) -> ast.AST:
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == name:
            return n
        if isinstance(n, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in n.targets):
            return n
    raise AssertionError(name)


def _listed(e: ast.expr) -> set[str]:
    """What an element of a collection names: ``R_*`` constants anywhere in it, and
    counter names as the element itself or as a member of a tuple (a name/slot pair)."""
    parts = e.elts if isinstance(e, ast.Tuple) else [e]
    strings = {str(p.value) for p in parts if isinstance(p, ast.Constant) and p.value in STRINGS}
    return strings | {x for x in _named_counters(e) if x in R_NAMES}


@pytest.mark.parametrize("path", sorted(DERIVED))
def test_the_derived_places_name_no_counter(path):
    tree = ast.parse((PACKAGE / path).read_text())
    assert _named_counters(_definition(tree, DERIVED[path])) == [], path


def test_no_module_lists_counters_by_hand():
    """A tuple, list, set or dict naming three counters or more is a second declaration."""
    offenders = []
    for f in sorted(PACKAGE.rglob("*.py")):
        if f == PACKAGE / "engine" / "state.py":
            continue
        for n in ast.walk(ast.parse(f.read_text())):
            if isinstance(n, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
                items = n.keys if isinstance(n, ast.Dict) else n.elts
                named = {x for e in items if e is not None for x in _listed(e)}
                if len(named) >= 3:
                    offenders.append(f"{f.relative_to(PACKAGE)}:{n.lineno}")
    assert offenders == []


# The records' columns before the counters were declared once (their order changed).
OLD_HEAD = ["config", "seed", "chunk", "game", "round", "dealer", "turns", "winner_seat",
            "winner_position", "winner_policy", "points", "cards_played", "cards_drawn"]
OLD_TAIL = ["reshuffles", "jumps", "swaps", "challenges", "special_plays", "special_drawn",
            "stalemate"]


def test_a_run_with_old_record_shards_resumes_and_reads(tmp_path):
    """A shard written in the old column order, resumed beside new ones: read by name."""
    pd = pytest.importorskip("pandas")
    pq = pytest.importorskip("pyarrow.parquet")
    cfg = load_config("configs/classic.yaml")
    fresh = tmp_path / "fresh"
    run_simulation(cfg, games=40, seed=3, jobs=1, chunk_size=20, out=fresh, records=True,
                   progress=False)
    out = tmp_path / "old"
    run_simulation(cfg, games=40, seed=3, jobs=1, chunk_size=20, out=out, records=True,
                   progress=False)
    old = out / "records" / "part-000000.parquet"
    table = pq.read_table(old)
    names = table.column_names
    order = [*OLD_HEAD, *(c for c in names if c.startswith("drawn_")), *OLD_TAIL,
             *(c for c in names if c.startswith("points_left"))]
    assert sorted(order) == sorted(names)
    pq.write_table(table.select(order), old)
    (out / "chunks" / "chunk-000001.npz").unlink()  # interrupted before chunk 1 was kept
    r = run_simulation(cfg, games=40, seed=3, jobs=1, chunk_size=20, out=out, records=True,
                       resume=True, progress=False)
    assert (r.chunks_run, r.chunks_reused) == (1, 1)
    a, b = (pd.read_parquet(d / "records") for d in (fresh, out))
    pd.testing.assert_frame_equal(a, b[a.columns])  # a dataset takes its first shard's order
