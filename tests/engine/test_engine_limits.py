"""Every config the limits allow fits the engine's arrays (rules/limits.py).

The state record is sized from MAX_PLAYERS and MAX_DECKS, so the largest
valid table simulates, and its traces replay in the independent checker,
with the house rules that address seats (Seven-O targets) switched on.
"""

from __future__ import annotations

import pytest
from replay_checker import check_trace

from unosim.engine.game import play_game
from unosim.engine.kernel.batch import AGG_KEYS, REC_SEAT_POINTS, simulate
from unosim.engine.kernel.state import A_TARGET, NA, compile_config
from unosim.rules.config import load_config
from unosim.rules.limits import MAX_DECKS, MAX_PLAYERS, PLAYERS_PER_DECK

TABLES = [
    (12, 2),  # once died with "could not broadcast (12,4) into (10,4)"
    (PLAYERS_PER_DECK * 2, 2),
    (MAX_PLAYERS, MAX_DECKS),
]


@pytest.mark.parametrize(("players", "decks"), TABLES)
def test_big_tables_simulate(players: int, decks: int) -> None:
    cc = compile_config(load_config("classic", [f"players={players}", f"decks={decks}"]))
    agg, rec = simulate(cc, seed=3, start=0, count=40, records=True)
    assert agg["counts"][1] == 40 == int(agg["wins_seat"].sum()) + int(agg["counts"][2])
    assert set(agg) == set(AGG_KEYS) and len(agg["wins_seat"]) == players
    assert rec is not None and rec.shape == (40, REC_SEAT_POINTS + players)


@pytest.mark.parametrize(("players", "decks"), TABLES)
def test_big_tables_replay(players: int, decks: int) -> None:
    over = [f"players={players}", f"decks={decks}", "house_rules.seven_o=true",
            "house_rules.jump_in=true"]
    cc = compile_config(load_config("classic", over))
    for seed in range(3):
        res = check_trace(play_game(cc, seed))
        assert not res.violations, (players, seed, res.violations[:5])


def test_match_of_the_largest_table_replays() -> None:
    over = [f"players={MAX_PLAYERS}", f"decks={MAX_DECKS}", "mode=match", "scoring=lowest",
            "target=300"]
    res = check_trace(play_game(compile_config(load_config("classic", over)), 1))
    assert not res.violations and res.rounds >= 1


def test_every_seat_has_a_target_action() -> None:
    assert NA == A_TARGET + MAX_PLAYERS
