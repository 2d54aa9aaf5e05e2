"""The compiled-code cache is keyed to every source the kernel reads.

numba keys a cached function to its own file only; the engine's key covers
the state layout, the card arithmetic, the limits and every other rules
module the engine imports (the policy defaults), so editing a constant in
any of them can never run a stale kernel. Tested on copies of
the files (the real ones are never touched).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from unosim import engine
from unosim.engine.kernel import jit, state
from unosim.engine.kernel.batch import simulate
from unosim.engine.kernel.state import compile_config
from unosim.rules.config import load_config


@pytest.fixture
def sources(tmp_path: Path) -> list[Path]:
    copies = []
    for p in jit.kernel_sources():
        dst = tmp_path / p.parent.name / p.name
        dst.parent.mkdir(exist_ok=True)
        shutil.copy(p, dst)
        copies.append(dst)
    return copies


def _edit(paths: list[Path], name: str, old: str, new: str) -> None:
    path = next(p for p in paths if p.name == name)
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_the_key_covers_state_cards_and_limits() -> None:
    names = {(p.parent.name, p.name) for p in jit.kernel_sources()}
    assert {("kernel", "state.py"), ("kernel", "rules.py"), ("kernel", "batch.py"),
            ("rules", "cards.py"), ("rules", "limits.py")} <= names
    assert not {n for n in names if n[0] == "engine"}  # the façade and traces: Python


def test_the_key_is_the_kernel_package() -> None:
    """Every file of unosim/engine/kernel is in the key, and only those of the engine:
    a module that joins the kernel joins the key by where it lives."""
    keyed = {p for p in jit.kernel_sources() if p.parent == jit.KERNEL_DIR}
    assert keyed == set(jit.KERNEL_DIR.glob("*.py"))


def test_the_key_covers_every_rules_module_the_engine_imports() -> None:
    """The kernel freezes the iteration limit and the policy defaults from
    rules/models.py (through engine/kernel/state.py); its text must be in the key.
    Failed before the key was derived from the engine's imports."""
    names = {(p.parent.name, p.name) for p in jit.kernel_sources()}
    assert ("rules", "models.py") in names
    assert ("rules", "settings.py") in names and ("rules", "editions.py") in names


def _ast_rules_imports(path: Path) -> set[Path]:
    """The rules modules ``path`` imports, by its syntax tree (the slow, sure way)."""
    import ast

    found: set[Path] = set()
    for node in ast.walk(ast.parse(path.read_bytes())):
        if not isinstance(node, ast.ImportFrom) or node.module is None:
            continue
        if node.module == "unosim.rules":
            names = [a.name for a in node.names]
        elif node.module.startswith("unosim.rules."):
            names = [node.module.split(".")[2]]
        else:
            continue
        found.update(p for p in (jit.RULES_DIR / f"{n}.py" for n in names) if p.is_file())
    return found


def test_the_text_scan_finds_the_imports_the_syntax_tree_has(tmp_path: Path) -> None:
    """The key's import scan reads text (fast at start-up); on every engine and rules
    source, and on the forms it must read, it finds what ``ast`` finds."""
    for p in [*jit.KERNEL_DIR.glob("*.py"), *jit.RULES_DIR.glob("*.py")]:
        assert jit._rules_imports(p) == _ast_rules_imports(p), p.name
    forms = tmp_path / "forms.py"
    forms.write_text("from unosim.rules import (\n    cards,  # the deck\n    limits as lim,\n)\n"
                     "def f():\n    from unosim.rules.models import X\n")
    assert jit._rules_imports(forms) == _ast_rules_imports(forms) == {
        jit.RULES_DIR / "cards.py", jit.RULES_DIR / "limits.py", jit.RULES_DIR / "models.py"}


@pytest.mark.parametrize(("name", "old", "new"), [
    ("models.py", "MAX_ISMCTS_ITERATIONS = 10_000", "MAX_ISMCTS_ITERATIONS = 20_000"),
    ("state.py", "S_PHASE = 0", "S_PHASE = 30"),
    ("cards.py", "NRANKS = 13", "NRANKS = 14"),
    ("limits.py", "MAX_DECKS = 4", "MAX_DECKS = 5"),
    ("habits.py", "0.0", "0.5"),
])
def test_a_changed_constant_changes_the_key(sources: list[Path], name: str, old: str,
                                            new: str) -> None:
    before = jit.cache_key(sources)
    assert jit.cache_key(sources) == before  # stable
    _edit(sources, name, old, new)
    assert jit.cache_key(sources) != before


def test_the_house_rule_order_is_part_of_the_key(sources: list[Path]) -> None:
    keys = ["house_rules.jump_in", "house_rules.seven_o"]
    assert jit.cache_key(sources, keys) != jit.cache_key(sources, keys[::-1])


def test_cache_dir_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert jit.cache_dir("abcdef0123456789") == tmp_path / "xdg" / "unosim" / "numba-abcdef012345"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "nb"))
    assert jit.cache_dir("abcdef0123456789") == tmp_path / "nb" / "unosim-abcdef012345"


def test_compiled_code_lands_in_the_keyed_dir(monkeypatch: pytest.MonkeyPatch,
                                              tmp_path: Path) -> None:
    simulate(compile_config(load_config("classic")), seed=1, start=0, count=2)
    assert jit.is_compiled()
    assert any(jit.CACHE_DIR.glob("*/batch.run_games-*.nbi"))
    monkeypatch.setattr(jit, "CACHE_DIR", tmp_path)
    assert not jit.is_compiled()


def test_warm_compiles_the_facade_too() -> None:
    engine.warm()
    assert engine.is_compiled() and jit.is_compiled("rules.apply_action")
    for name in ("classic", "disney100", "chaos"):
        assert engine.is_compiled(compile_config(load_config(name)))


# --- variants: a config compiles only the parts of the engine it reaches ------------------
@pytest.mark.parametrize(("config", "overrides", "features"), [
    ("classic", [], set()),
    ("classic", ["seats=[strategic, random, random, random]"], {"habits"}),
    ("classic", ["seats=[ismcts, random, random, random]"], {"habits", "ismcts", "known"}),
    ("disney100", [], {"specials"}),
    ("encanto", ["policy=greedy"], {"habits", "specials"}),
    ("no_mercy", [], {"effects"}),
])
def test_each_config_names_the_parts_it_reaches(config: str, overrides: list[str],
                                                features: set[str]) -> None:
    cc = compile_config(load_config(config, overrides))
    assert state.config_features(cc) == features
    C = state.config_tuple(cc)
    assert {f for f in state.FEATURES if state.marker(f) in (C.dtype.names or ())} == features


def test_the_facade_state_alone_carries_the_trace_writer() -> None:
    cc = compile_config(load_config("classic"))
    assert "ev" not in (state.alloc_state(cc, trace=False).dtype.names or ())
    traced = state.alloc_state(cc, trace=True).dtype.names or ()
    assert "ev" in traced and state.marker(state.TRACE) in traced


def test_is_compiled_tells_variants_apart(monkeypatch: pytest.MonkeyPatch,
                                          tmp_path: Path) -> None:
    plain = compile_config(load_config("classic"))
    simulate(plain, seed=1, start=0, count=1)
    assert engine.is_compiled(plain)
    # a variant never compiled: a config record marked for the trace writer (only the
    # state of a traced round carries that marker)
    odd = compile_config(load_config("classic"))
    monkeypatch.setattr(state, "config_features", lambda cc: frozenset({state.TRACE}))
    assert not engine.is_compiled(odd)


_FIRST_RUN = """
from unosim.rules.config import load_config
from unosim.engine.kernel.state import compile_config
from unosim.engine.kernel.batch import simulate
simulate(compile_config(load_config("classic")), seed=1, start=0, count=2)
"""


@pytest.mark.slow  # 15 s: compiles the engine in a child
def test_classic_with_random_seats_compiles_no_optional_part(tmp_path: Path) -> None:
    """From an empty cache: the search player, the habit policies, the special wilds,
    the known-cards record, the trace writer and section 11's effects are never
    compiled (no cache entry)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    subprocess.run([sys.executable, "-c", _FIRST_RUN], env=env, check=True)
    compiled = {p.name.split("-")[0] for p in tmp_path.rglob("*.nbi")}
    assert "batch.run_games" in compiled and "rules.apply_legal" in compiled
    for part in ("ismcts.ismcts_action", "ismcts.search", "habits.habit_action",
                 "habits.turn_card", "specials.do_special", "specials.wishing_star",
                 "known.known_play", "known.reset_known", "events.emit", "events.log_card",
                 "rules.resolve_effects", "rules.mercy", "rules.roulette",
                 "effects.discard_color", "effects.knock_out", "effects.draw_until_color",
                 # UNO Flip's physical cards: only a two-sided deck's state compiles them
                 "flip.face_of", "flip.card_code", "flip.color_code", "flip.hold", "flip.pick",
                 "flip.release", "flip.turn_over", "flip.recount", "flip.physical_deck",
                 "flip.swap_held", "flip.index_side", "deal.log_hand", "rules.flip_first",
                 "rules.flip_play", "ismcts.determinize_faces"):
        assert part not in compiled
