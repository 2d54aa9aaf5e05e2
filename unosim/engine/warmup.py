"""Compile the engine ahead of the first run, and say how it goes.

Each config compiles only the parts of the engine it reaches (a variant:
`unosim.engine.kernel.state.config_features`), once, into the on-disk cache.
`is_compiled` answers whether a config's variant is cached without loading
it; `prepare` compiles it in this process (so a run's workers only load it,
and the compile time is reported apart from the simulation). ``python -m unosim.engine.warmup`` (what ``make
setup`` runs) compiles every variant the shipped configs use, the search
player's tables and the façade, printing its progress on stderr.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from unosim.engine.kernel import jit
from unosim.engine.kernel.batch import run_games, simulate
from unosim.engine.kernel.state import (
    CompiledConfig,
    KernelArrays,
    alloc_state,
    compile_config,
    config_tuple,
)

__all__ = ["is_compiled", "prepare", "variant_name", "warm"]


_LABELS = {"habits": "habit policies", "ismcts": "search player", "known": "known cards",
           "specials": "special wilds", "trace": "trace writer", "rulings": "rulings",
           "effects": "section 11 effects"}


def variant_name(cc: KernelArrays) -> str:
    """What a config's compiled kernel holds beyond the rules and random seats.

    >>> from unosim.rules.config import load_config
    >>> variant_name(compile_config(load_config("classic")))
    'the rules, random seats'
    >>> variant_name(compile_config(load_config("disney100", ["policy=greedy"])))
    'the rules, random seats, habit policies, special wilds'
    """
    from unosim.engine.kernel.state import config_features

    return ", ".join(["the rules", "random seats",
                      *(_LABELS[f] for f in sorted(config_features(cc)))])


def is_compiled(cc: KernelArrays | None = None) -> bool:
    """Is the batch kernel for ``cc``'s variant in the cache (None: any variant)?

    Reads numba's index of the entry point, loads no code."""
    if cc is None:
        return jit.is_compiled()
    from numba import typeof

    entry: Any = run_games
    cache = getattr(entry, "_cache", None)
    if cache is None:
        return False
    st, ct = typeof(alloc_state(cc, trace=False)), typeof(config_tuple(cc))
    _, magic, hashes = cache._index_key((), entry.targetctx.codegen())
    index = cache._cache_file._load_index()
    return any(k[0][:2] == (st, ct) and k[1] == magic and k[2] == hashes for k in index)


def prepare(cc: KernelArrays) -> float:
    """Load ``cc``'s variant of the batch kernel into this process, compiling it
    first unless it is cached; the seconds the compilation took (0.0: cached).

    numba announces each function it compiles ("numba:compile" events): the
    CLI's progress line counts them. No game is played (a table of search
    players takes seconds a game): calling the kernel for none loads it."""
    cached = is_compiled(cc)
    t0 = time.perf_counter()
    simulate(cc, seed=0, start=0, count=0, records=True)
    return 0.0 if cached else time.perf_counter() - t0


def _facade(cc: CompiledConfig) -> None:
    """The façade's entry points (one variant for every config)."""
    from unosim.engine.game import Round, play_game

    play_game(cc, seed=0)
    r = Round.from_position(cc, hands=[["R1"], ["B1"], ["G1"], ["Y1"]], draw=["B2"],
                            discard=["R5"], color="R", player=0)
    r.legal_actions()
    r.hand_points(0)
    Round.from_deck(cc, ["R1"] * 30)


def _shipped_configs() -> list[str]:
    from unosim.rules.config import resolve_config_path

    folder = resolve_config_path("classic").parent
    return sorted(p.stem for p in Path(folder).glob("*.yaml"))


def warm(say: Callable[[str], None] | None = None) -> None:
    """Compile every variant the shipped configs use, a habit seat's and a search
    seat's (with and without special wilds) and the façade's (a no-op once cached)."""
    from unosim.rules.config import load_config

    cfgs = [load_config(name) for name in _shipped_configs()]
    for seat in ("strategic", "ismcts"):  # the seats the studies and the docs use
        seats = [f"seats=[{seat}, random, random, random]"]
        cfgs += [load_config("classic", seats), load_config("disney100", seats)]
    seen: dict[str, CompiledConfig | None] = {}
    for cfg in cfgs:
        cc = compile_config(cfg)
        seen.setdefault(variant_name(cc), cc)
    steps = [*seen.items(), ("the façade (unosim play, plug-ins, advise)", None)]
    for i, (name, step) in enumerate(steps, 1):
        t0 = time.perf_counter()
        if say is not None:
            say(f"compiling the engine ({i} of {len(steps)}): {name}")
        if step is None:
            _facade(compile_config(load_config("classic", ["mode=match", "target=50"])))
        else:
            prepare(step)
        if say is not None:
            say(f"  done in {time.perf_counter() - t0:.1f} s")


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


if __name__ == "__main__":
    warm(_stderr)
