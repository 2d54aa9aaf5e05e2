"""Seeded games from the engine, replayed by the independent checker.

The engine's traces (docs/trace.md) are replayed card by card by
`replay_checker`, which shares no code with the engine: every play legal,
every draw from the top, cards conserved, skips, penalties, points and turn
counts right — over all editions and every house-rule combination.
"""

from __future__ import annotations

import itertools

import pytest
from replay_checker import check_trace

from unosim.engine.game import play_game
from unosim.engine.kernel.state import compile_config
from unosim.engine.trace import to_jsonl
from unosim.rules.config import load_config

HOUSE = ("stacking", "jump_in", "seven_o", "draw_until_play", "two_player_reverse")
STACK_ALL = [f"house_rules.stacking.{k}=true" for k in
             ("draw_two_on_draw_two", "wd4_on_wd4", "wd4_on_draw_two", "draw_two_on_wd4")]


def _check(config: str, overrides: list[str], seeds: range) -> int:
    cc = compile_config(load_config(config, overrides))
    rounds = 0
    for seed in seeds:
        events = play_game(cc, seed)
        res = check_trace(events)
        assert not res.violations, (config, overrides, seed, res.violations[:5])
        rounds += res.rounds
    return rounds


@pytest.mark.parametrize("players", range(2, 11))
def test_classic_rounds_replay(players: int) -> None:
    # 9 player counts x 225 seeds = 2,025 classic rounds
    assert _check("configs/classic.yaml", [f"players={players}"], range(225)) == 225


@pytest.mark.slow  # 8-18 s an edition
@pytest.mark.parametrize("config", ["classic", "disney100", "disney_wish", "encanto",
                                    "classic_1992"])
def test_every_edition_replays(config: str) -> None:
    assert _check(f"configs/{config}.yaml", [], range(1000, 1500)) == 500


@pytest.mark.parametrize("mask", range(32))
def test_every_house_rule_combination(mask: int) -> None:
    rules = [h for i, h in enumerate(HOUSE) if mask >> i & 1]
    over: list[str] = []
    for h in rules:
        over += STACK_ALL if h == "stacking" else [f"house_rules.{h}=true"]
    for players in (2, 3, 4, 7, 10):
        extra = ["decks=2"] if players == 10 else []
        _check("configs/classic.yaml", over + [f"players={players}"] + extra, range(8))


@pytest.mark.parametrize("scoring,players", [("standard", 3), ("lowest", 4),
                                             ("elimination", 4), ("partners", 4)])
def test_matches_replay(scoring: str, players: int) -> None:
    over = ["mode=match", f"scoring={scoring}", f"players={players}", "target=200"]
    cc = compile_config(load_config("configs/classic.yaml", over))
    for seed in range(6):
        res = check_trace(play_game(cc, seed))
        assert not res.violations, (scoring, seed, res.violations[:5])
        assert res.rounds >= 1


def test_same_seed_same_trace() -> None:
    cc = compile_config(load_config("configs/chaos.yaml"))
    assert to_jsonl(play_game(cc, 42)) == to_jsonl(play_game(cc, 42))
    assert to_jsonl(play_game(cc, 42)) != to_jsonl(play_game(cc, 43))


def test_behaviour_rates_replay() -> None:
    over = ["behaviour.uno_forget_rate=0.5", "behaviour.uno_catch_rate=0.5"]
    for config in ("configs/encanto.yaml", "configs/disney100.yaml", "configs/classic_1992.yaml"):
        _check(config, over, range(100))


def test_combinations_cover_all_subsets() -> None:
    assert len(list(itertools.product([0, 1], repeat=len(HOUSE)))) == 32


def test_checker_learns_the_deck_from_the_deal() -> None:
    """docs/trace.md §4: the deal lists the edition's cards; the checker's deck is that
    list (a deal that does not match it is reported), and a ``flip`` kind makes it a Flip
    edition, whose cards are light/dark pairs (docs/trace.md §6)."""
    cc = compile_config(load_config("configs/classic.yaml", []))
    events = play_game(cc, 3)
    deal = events[0]
    assert [c["token"] for c in deal["cards"]][-2:] == ["W", "WD4"]
    assert not check_trace(events).violations
    more = [{**e, "cards": [{**c, "count": c["count"] + 1} if c["token"] == "W" else c
                            for c in e["cards"]]} if e["e"] == "deal" else e for e in events]
    assert any("deck has 109" in v for v in check_trace(more).violations)
    new = [{**e, "cards": [*e["cards"], {"token": "SE", "count": 2, "points": 30,
                                         "effects": ["match", "skip_all"]}]}
           if e["e"] == "deal" else e for e in events]
    assert any("deck has 116" in v for v in check_trace(new).violations)  # 8 SE not dealt
    flip = [{**e, "cards": [*e["cards"], {"token": "F", "count": 2, "points": 20,
                                          "effects": ["match", "flip"]}]}
            if e["e"] == "deal" else e for e in events]
    assert any("a Flip card is 'light/dark'" in v for v in check_trace(flip).violations)
    odd = [{**e, "cards": [*e["cards"], {"token": "F", "count": 2, "effects": ["match", "odd"]}]}
           if e["e"] == "deal" else e for e in events]
    assert any("card kind F has the effect 'odd'" in v for v in check_trace(odd).violations)
