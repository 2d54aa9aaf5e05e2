"""Each table the kernel lowers or names is declared once; the rest is derived.

Policy names come from the schema's types, the ``pp`` columns from
`HabitParams`' fields, the ``cf`` slots from `Behaviour`'s rates, the special
wilds' codes from one tuple; the draw amounts live with the cards.
"""

from __future__ import annotations

from typing import get_args

import numpy as np

import unosim.engine.kernel.state as L
from unosim.engine.kernel import ismcts
from unosim.rules import cards
from unosim.rules.config import Behaviour, load_config
from unosim.rules.editions import SPECIAL_RATE, Special
from unosim.rules.limits import MAX_PLAYERS
from unosim.rules.models import HabitParams


def test_param_columns_follow_the_declared_fields() -> None:
    assert list(L.PARAM_COLUMNS) == list(HabitParams.model_fields)
    assert list(L.PARAM_COLUMNS.values()) == list(range(1, L.NPP))


def test_behaviour_slots_follow_the_declared_rates() -> None:
    assert L.BEHAVIOUR_KEYS == tuple(Behaviour.model_fields)
    cfg = load_config("disney100", ["behaviour.uno_forget_rate=0.25"])
    cc = L.compile_config(cfg)
    assert list(cc.cf) == [getattr(cfg.behaviour, k) for k in L.BEHAVIOUR_KEYS]
    assert cc.cf[L.F_UNO_FORGET] == 0.25 and cc.cf.dtype == np.float64


def test_special_codes_and_names_are_one_table() -> None:
    kinds = get_args(Special.model_fields["kind"].annotation)
    assert L.SPECIAL_NAMES == ("none", *kinds) and set(SPECIAL_RATE) == set(kinds)
    assert all(L.SPECIAL_NAMES[code] == name for name, code in L.SPECIAL_CODE.items())


def test_challenge_penalties_follow_the_draw_amounts() -> None:
    assert (cards.DRAW_TWO_DRAW, cards.WD4_DRAW) == (2, 4)
    assert (cards.BLUFF_CAUGHT_DRAW, cards.CHALLENGE_LOST_DRAW) == (4, 6)


def test_the_search_seed_packs_seat_and_phase_apart() -> None:
    phases = [v for k, v in vars(L).items() if k.startswith("PH_")]
    assert MAX_PLAYERS <= ismcts.SEED_SEAT_STRIDE and max(phases) < ismcts.SEED_SEAT_STRIDE
    assert ismcts.SEED_TURN_STRIDE == ismcts.SEED_SEAT_STRIDE * 64


def test_round_counters_are_the_r_indices() -> None:
    assert all(getattr(L, "R_" + c.name.upper()) == c.slot for c in L.COUNTERS)
    slots = [c.slot for c in L.COUNTERS]
    assert len(set(slots)) == len(slots) and L.R_WINNER not in slots
    assert max(slots) < L.R_DRAW_BY_CAUSE and L.NR == L.R_DRAW_BY_CAUSE + L.NCAUSES
    for field in ("name", "column", "summary"):
        values = [getattr(c, field) for c in L.COUNTERS]
        assert len(set(values)) == len(values), field
