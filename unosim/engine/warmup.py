"""Compile every engine entry point into the cache, ahead of the first run.

``python -m unosim.engine.warmup`` (what ``make setup`` runs) spends the
one-time compilation (about 25 s) up front; afterwards `is_compiled` is true
and every simulation or traced game starts at once. Prints nothing.
"""

from __future__ import annotations

from unosim.engine.batch import simulate
from unosim.engine.game import Round, play_game
from unosim.engine.jit import is_compiled
from unosim.engine.state import compile_config
from unosim.rules.config import load_config

__all__ = ["is_compiled", "warm"]


def warm() -> None:
    """Compile the batch loop and the façade's entry points (a no-op once cached)."""
    cc = compile_config(load_config("classic", ["mode=match", "target=50"]))
    simulate(cc, seed=0, start=0, count=1, records=True)
    play_game(cc, seed=0)
    r = Round.from_position(cc, hands=[["R1"], ["B1"], ["G1"], ["Y1"]], draw=["B2"],
                            discard=["R5"], color="R", player=0)
    r.legal_actions()
    r.hand_points(0)
    Round.from_deck(cc, ["R1"] * 30)


if __name__ == "__main__":
    warm()
