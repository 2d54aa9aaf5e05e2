"""A plug-in's view carries its edition's kind table (issue 22), so a plug-in seat of an
edition with new kinds (``RSE``) encodes its observation at their own ids (and as the
environment does: tests/env/test_env.py)."""

from __future__ import annotations

from pathlib import Path

from unosim.engine.plugins import compile_with_plugins, play_game
from unosim.env.spaces import encode_view, layout_of, view_layout
from unosim.rules.cards import CLASSIC
from unosim.rules.config import load_config
from unosim.rules.editions import kind_table, load_edition

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "editions"


class _Recorder:
    """A plug-in seat that encodes each view it decides on, in the view's own layout."""

    def __init__(self) -> None:
        self.views = 0
        self.tokens: set[str] = set()

    def choose(self, view, legal_actions: list[str]) -> str:  # type: ignore[no-untyped-def]
        lay = view_layout(view)
        obs = encode_view(view)
        assert lay.kinds == view.kinds.nk == len(view.kinds.tokens)
        hand = lay.section(obs, "hand")
        assert hand.sum() == len(view.hand)
        for t in view.hand:
            assert hand[view.kinds.kind(t)] >= 1
        self.views += 1
        self.tokens.update(view.hand)
        return legal_actions[0]


def test_a_plug_in_seat_reads_the_editions_kinds() -> None:
    cfg = load_config(str(EXAMPLES / "skip_everyone_added_game.yaml"))
    cc, _ = compile_with_plugins(cfg)
    seat = _Recorder()
    for game in range(3):
        play_game(cc, seed=7, game=game, plugins={0: seat})
    assert seat.views > 0
    assert seat.tokens & {"RSE", "YSE", "GSE", "BSE"}, "no Skip Everyone held: more games"
    table = kind_table(load_edition(str(EXAMPLES / "skip_everyone_added.yaml")))
    assert table.tokens == cc.kinds.tokens
    # classic's table is still what a layout without one reads (a network trained on it)
    assert layout_of(2, 54).table is CLASSIC

