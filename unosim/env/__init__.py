"""env layer: learning environments on the compiled engine (docs/env.md).

Needs the ``rl`` extra (``pip install 'unosim[rl]'``). Importing this package
registers the Gymnasium environment ``unosim/UNO-v0`` (single seat; its
vector form steps N tables in compiled code) and the OpenSpiel game
``python_unosim``; `aec` builds the PettingZoo AEC environment (also
``unosim.env.uno_v0.env()``, PettingZoo's module convention).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Unpack

import gymnasium

from unosim.env.spaces import N_ACTIONS, Layout, encode_view, layout, view_layout
from unosim.rules.config import GameConfig

if TYPE_CHECKING:
    from pettingzoo import AECEnv

    from unosim.env.multi import EnvOptions

__all__ = ["ENV_ID", "N_ACTIONS", "Layout", "aec", "encode_view", "layout", "view_layout"]

ENV_ID = "unosim/UNO-v0"


def aec(config: str | GameConfig = "classic", overrides: Sequence[str] = (),
        **kwargs: Unpack[EnvOptions]) -> AECEnv:
    """The PettingZoo AEC environment of ``config`` (a name, a path or a `GameConfig`)
    with ``--set`` style ``overrides``; keywords: ``reward`` (``win`` or ``points``),
    ``trace``, ``seed``, ``render_mode`` (see `unosim.env.multi`)."""
    from unosim.env.multi import env

    return env(config=config, overrides=overrides, **kwargs)


if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="unosim.env.single:UnoEnv",
                       vector_entry_point="unosim.env.vector:UnoVectorEnv")

from unosim.env import spiel as _spiel  # noqa: E402,F401  (registers python_unosim)
