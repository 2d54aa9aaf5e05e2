"""How the engine is compiled, and where numba keeps the compiled code.

numba's on-disk cache keys each function to its own source file only, while
the kernel freezes constants imported from other modules (the state layout,
the card arithmetic of ``unosim.rules.cards``, the limits, the policy
defaults of ``unosim.rules.models``, the house-rule order). So the engine chooses the cache directory itself: one directory per
hash of every source the compiled code reads (plus the numba version and the
declared house-rule switches), so a changed constant anywhere can never meet
a stale compiled kernel. Old directories are simply never read again.

The directory is ``$XDG_CACHE_HOME/unosim/numba-<hash12>`` (``~/.cache`` when
XDG_CACHE_HOME is unset); a user's ``NUMBA_CACHE_DIR`` becomes the parent
(``$NUMBA_CACHE_DIR/unosim-<hash12>``).

A config compiles only the parts of the engine it can reach (`optional`): the
habit policies, the search player, the editions' special wilds, the
known-cards record and the trace writer are each compiled into the kernel only
when the type of the config (or state) record says the config uses them
(`unosim.engine.kernel.state.FEATURES`). The rules are still one implementation: a
config that cannot reach a part compiles a stub in its place.

>>> cache_dir().name.split("-")[0] in ("numba", "unosim")
True
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar, cast

import numba
from numba.core import types as nbtypes
from numba.extending import overload

from unosim.engine.kernel.state import marker
from unosim.rules.settings import house_rule_switches

# The compiled code and the layout it freezes are this package: its file list is
# the cache key (with the rules modules it imports).
KERNEL_DIR = Path(__file__).resolve().parent

F = TypeVar("F", bound=Callable[..., Any])


RULES_DIR = KERNEL_DIR.parent.parent / "rules"


# ``from unosim.rules[.x] import a, b`` or ``... import (a,\n b)``, at any indentation
_RULES_IMPORT = re.compile(
    r"^[ \t]*from[ \t]+unosim\.rules(?:\.(\w+))?[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.M)


def _rules_imports(path: Path) -> set[Path]:
    """The ``unosim.rules`` modules ``path`` imports (``from unosim.rules.x import``
    or ``from unosim.rules import x``), read from its text, not by importing it.

    A pattern over the text rather than ``ast.parse`` (a twelfth of a second of every
    start, for the whole engine); tests/engine/test_engine_cache.py checks that both
    find the same modules."""
    found: set[Path] = set()
    for m in _RULES_IMPORT.finditer(path.read_text(encoding="utf-8")):
        if m.group(1):
            names = [m.group(1)]
        else:
            body = re.sub(r"#[^\n]*", "", m.group(2)).strip("()")
            names = [n.split(" as ")[0].strip() for n in body.split(",")]
        found.update(p for p in (RULES_DIR / f"{n}.py" for n in names if n) if p.is_file())
    return found


def kernel_sources() -> list[Path]:
    """Every source file whose text the compiled code depends on: every module of
    this package (`unosim.engine.kernel`) and every ``unosim.rules`` module they reach by import
    (transitively), so a constant the kernel freezes (a card number, a limit,
    a policy default) is in the key wherever it is declared."""
    engine = sorted(KERNEL_DIR.glob("*.py"))
    rules: set[Path] = set()
    todo = set().union(*(_rules_imports(p) for p in engine))
    while todo:
        path = todo.pop()
        rules.add(path)
        todo |= _rules_imports(path) - rules
    return [*engine, *sorted(rules)]


def cache_key(paths: Iterable[Path], extra: Iterable[str] = ()) -> str:
    """sha256 of the files' names and contents, the numba and Python versions and
    ``extra`` (declarations the kernel derives constants from)."""
    h = hashlib.sha256(f"numba {numba.__version__} python {sys.version_info[:2]}".encode())
    for p in paths:
        h.update(b"\0" + p.name.encode() + b"\0" + p.read_bytes())
    for item in extra:
        h.update(b"\0" + item.encode())
    return h.hexdigest()


def cache_dir(key: str | None = None) -> Path:
    """The compiled-code directory for ``key`` (default: this code's key)."""
    short = (key or KEY)[:12]
    parent = os.environ.get("NUMBA_CACHE_DIR")
    if parent:
        return Path(parent).expanduser() / f"unosim-{short}"
    xdg = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(xdg).expanduser() / "unosim" / f"numba-{short}"


# numba's settings module (typed without CACHE_DIR in numba's stubs)
_NUMBA_CONFIG: Any = numba.core.config
KEY = cache_key(kernel_sources(), house_rule_switches())
CACHE_DIR = cache_dir()


@contextlib.contextmanager
def _cache_dir_set() -> Iterator[None]:
    """numba picks a function's cache locator when the function is decorated;
    point it at our directory for that moment only, so other numba users in
    the process keep theirs."""
    before = _NUMBA_CONFIG.CACHE_DIR
    _NUMBA_CONFIG.CACHE_DIR = str(CACHE_DIR)
    try:
        yield
    finally:
        _NUMBA_CONFIG.CACHE_DIR = before


# No NRT: refcounting on every array access would cost ~20 ns a call in the
# inner loop (numba issue #2350), so the kernel never allocates; scratch space
# lives in the state record. nogil: the threads backend runs kernels in parallel.
_OPTIONS: dict[str, Any] = {"cache": True, "_nrt": False, "nogil": True}
_GATE_OPTIONS: Any = {"_nrt": False, "nogil": True}


def jit(fn: F) -> F:
    """Compile ``fn`` for the engine (cached in `CACHE_DIR`). Typed as the
    function itself, so mypy checks every call against its annotations."""
    with _cache_dir_set():
        return cast(F, numba.njit(**_OPTIONS)(fn))


def jit_inline(fn: F) -> F:
    """`jit`, and inlined into its compiled callers (numba IR): for small steps called
    once a round, where passing their arguments (the aggregates, a dozen arrays) by
    value in every call would cost the batch loop about a tenth of its speed."""
    with _cache_dir_set():
        return cast(F, numba.njit(inline="always", **_OPTIONS)(fn))


# --- variants: the optional parts of the engine ------------------------------------------
def uses(feature: str, *arg_types: Any) -> bool:
    """Typing time: does any record among ``arg_types`` carry ``feature``'s marker?"""
    name = marker(feature)
    return any(isinstance(t, nbtypes.Record) and name in t.fields for t in arg_types)


def optional(feature: str, off: Callable[..., Any]) -> Callable[[F], F]:
    """Compile ``fn`` where the arguments' record types carry ``feature``; elsewhere
    compile ``off`` (same parameters) in its place.

    numba types a call before it compiles it, so a kernel whose config cannot
    reach ``fn`` never compiles ``fn`` or anything only ``fn`` calls. Which code
    a call gets is decided by types alone (an overload), so one signature is
    one variant and numba's cache keeps each apart. From Python the returned
    function simply calls the compiled ``fn``.
    """

    def wrap(fn: F) -> F:
        compiled = jit(fn)
        stub_off = jit(off)

        name = marker(feature)

        @functools.wraps(fn)
        def stub(*args: Any) -> Any:
            # From Python (and everywhere under NUMBA_DISABLE_JIT) the records'
            # fields decide, as their types do in compiled code.
            on = any(name in (getattr(getattr(a, "dtype", None), "names", None) or ())
                     for a in args)
            return compiled(*args) if on else stub_off(*args)

        def call_on(*args: Any) -> Any:
            return compiled(*args)

        def call_off(*args: Any) -> Any:
            return stub_off(*args)

        # not cached itself: the callers' cached code holds it
        @overload(stub, jit_options=_GATE_OPTIONS)
        def _choose(*args: Any) -> Callable[..., Any]:
            return call_on if uses(feature, *args) else call_off

        stub.compiled = compiled  # type: ignore[attr-defined]
        return cast(F, stub)

    return wrap


def flag(feature: str) -> Callable[[Any], bool]:
    """``on(C)``: does the config record ``C`` carry ``feature``? In compiled code a
    constant of ``C``'s type (inlined), so a branch it guards compiles away
    where the feature is off and the code around it is the one it was without it."""
    name = marker(feature)

    def on(C: Any) -> bool:
        return name in (getattr(getattr(C, "dtype", None), "names", None) or ())

    @overload(on, inline="always")
    def _on(C: Any) -> Callable[[Any], bool]:
        value = uses(feature, C)

        def const(C: Any) -> bool:
            return value
        return const

    return on


def is_compiled(entry: str = "batch.run_games") -> bool:
    """Does the cache for this code already hold ``entry`` (``module.function``)?

    Cheap: looks for numba's index file, loads nothing. The default answers
    "will `simulate` start without compiling?"; ``"rules.apply_action"``
    answers it for the `Round` façade.
    """
    tag = f"py{sys.version_info[0]}{sys.version_info[1]}"
    return any(CACHE_DIR.glob(f"*/{entry}-*.{tag}*.nbi"))
