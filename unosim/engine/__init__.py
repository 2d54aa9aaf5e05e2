"""engine layer: the compiled rules and their Python façade.

`is_compiled` tells whether this code's compiled kernel is already cached
(a first run compiles for about 25 s); `warm` compiles it ahead of time.
"""

from unosim.engine.jit import is_compiled


def warm() -> None:
    """Compile every engine entry point now (see `unosim.engine.warmup`)."""
    from unosim.engine.warmup import warm as _warm

    _warm()


__all__ = ["is_compiled", "warm"]
