"""The policy examples/rl/train.py trained, as a plug-in seat (docs/plugins.md): numpy only.

    unosim league random cautious examples/rl/ppo_seat.py:PPOSeat --config two_player

It reads the same observation the environment gave it while training
(`unosim.env.encode_view` of its public view), runs the exported network
(tanh layers, then one logit per action) and plays the legal action with the
highest logit. Needs the ``rl`` extra (for `unosim.env`), not torch.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from unosim.engine.game import parse_action
from unosim.engine.kernel.state import A_DRAW
from unosim.env.spaces import encode_view, layout_of
from unosim.rules.cards import NK

WEIGHTS = Path(__file__).with_name("ppo_uno_2p.npz")
# The network was trained when the play actions were the 55 classic kinds (then draw,
# pass, colours, accept, challenge, seats): its logits keep that layout.
TRAINED_KINDS = NK


def trained_id(a: int) -> int:
    """The network's logit of the engine's action id ``a``."""
    return a if a < A_DRAW else a - A_DRAW + TRAINED_KINDS


class PPOSeat:
    """Plays the trained network's favourite legal action."""

    def __init__(self) -> None:
        z = np.load(WEIGHTS)
        self.layers = [(z[f"w{i}"], z[f"b{i}"]) for i in range(int(z["layers"]))]

    def logits(self, obs: np.ndarray) -> np.ndarray:
        x = obs.astype(np.float32)
        for i, (w, b) in enumerate(self.layers):
            x = w @ x + b
            if i < len(self.layers) - 1:
                x = np.tanh(x)
        return x

    def choose(self, view, legal_actions: list[str]) -> str:
        obs = encode_view(view, layout_of(view.players, NK))
        z = self.logits(obs)
        ids = [trained_id(parse_action(a)) for a in legal_actions]
        return legal_actions[int(np.argmax(z[ids]))]
