"""The kernel's reading of an edition's kind table (`unosim.rules.cards.KindTable`).

Every card attribute is a per-kind table in the config record (``C.kc`` color,
``C.sym`` match symbol, ``C.face`` number face value, ``C.suit`` hand column,
``C.points``, ``C.fx``, ``C.act``); the rules read those, never kind arithmetic.
The one layout fact the kernel uses is that colored kinds come color-major, so
one color's kinds are one block of ``C.ci[C_NCOL]`` ids: `colored_kind` finds a
symbol's card in another color with one multiply.
"""

from __future__ import annotations

from unosim.engine.kernel.jit import jit
from unosim.engine.kernel.state import C_NCOL, Config


@jit
def colored_kind(C: Config, c: int, sym: int) -> int:
    """The colored kind of symbol ``sym`` (a colored kind's ``C.sym``) in color ``c``."""
    return c * C.ci[C_NCOL] + sym
