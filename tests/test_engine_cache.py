"""The compiled-code cache is keyed to every source the kernel reads.

numba keys a cached function to its own file only; the engine's key covers
the state layout, the card arithmetic and the limits too, so editing a
constant in any of them can never run a stale kernel. Tested on copies of
the files (the real ones are never touched).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from unosim import engine
from unosim.engine import jit
from unosim.engine.batch import simulate
from unosim.engine.state import compile_config
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
    assert {("engine", "state.py"), ("engine", "rules.py"), ("engine", "batch.py"),
            ("rules", "cards.py"), ("rules", "limits.py")} <= names
    assert ("engine", "game.py") not in names and ("engine", "trace.py") not in names


@pytest.mark.parametrize(("name", "old", "new"), [
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
    assert engine.is_compiled() and engine.is_compiled("rules.apply_action")
