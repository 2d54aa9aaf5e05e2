"""engine layer: the compiled rules and their Python façade.

A config compiles only the parts of the engine it uses, once, into a disk
cache (`unosim.engine.kernel.jit`). `is_compiled` tells whether a config's compiled
kernel is already cached (None: any config's); `prepare` compiles one config's
ahead of its run; `warm` compiles every variant the shipped configs use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from unosim.engine.kernel.state import KernelArrays


def is_compiled(cc: KernelArrays | None = None) -> bool:
    """Is the batch kernel for ``cc`` (None: for any config) in the cache?"""
    if cc is None:  # cheap: no engine import beyond the cache's location
        from unosim.engine.kernel.jit import is_compiled as any_compiled

        return any_compiled()
    from unosim.engine.warmup import is_compiled as variant_compiled

    return variant_compiled(cc)


def prepare(cc: KernelArrays) -> float:
    """Compile ``cc``'s kernel unless cached; the seconds it took (see `unosim.engine.warmup`)."""
    from unosim.engine.warmup import prepare as _prepare

    return _prepare(cc)


def warm(say: Any = None) -> None:
    """Compile every engine variant the shipped configs use (see `unosim.engine.warmup`)."""
    from unosim.engine.warmup import warm as _warm

    _warm(say)


__all__ = ["is_compiled", "prepare", "warm"]
