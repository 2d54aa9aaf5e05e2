"""Mixed tables of every policy, replayed by the independent checker.

Like tests/engine/test_trace_replay.py, but every seat plays a different built-in
policy (some with parameters that bluff, challenge and skip jump-ins), over
every edition and every house-rule set; the ``random`` seats are also held
to docs/rules.md §7 (the checker's conformance mode).
"""

from __future__ import annotations

from typing import Any

import pytest
from replay_checker import check_trace

from unosim.engine.game import play_game
from unosim.engine.kernel.state import compile_config
from unosim.rules.config import config_to_dict, load_config, validate_config

HOUSE = ("stacking", "jump_in", "seven_o", "draw_until_play", "two_player_reverse")
STACK_ALL = [f"house_rules.stacking.{k}=true" for k in
             ("draw_two_on_draw_two", "wd4_on_wd4", "wd4_on_draw_two", "draw_two_on_wd4")]
SEATS: list[Any] = [
    "strategic", "random", "greedy", "cautious", "defender",
    {"policy": "strategic", "params": {"bluff_rate": 0.3, "challenge_threshold": 0.1,
                                        "jump_in_rate": 0.5}},
    {"policy": "greedy", "params": {"bluff_rate": 0.5, "name_most_held": False,
                                     "target_by_size": False}},
]


def _check(config: str, overrides: list[str], seeds: range) -> int:
    base = load_config(config, overrides)
    n = base.players
    rounds = 0
    for seed in seeds:
        data = config_to_dict(base)
        data["seats"] = [SEATS[(seed + i) % len(SEATS)] for i in range(n)]
        cfg = validate_config(data)
        res = check_trace(play_game(compile_config(cfg), seed), allow_bluffs=True,
                          policies=cfg.seat_policies)
        assert not res.violations, (config, overrides, seed, res.violations[:5])
        rounds += res.rounds
    return rounds


@pytest.mark.slow  # 7-13 s an edition
@pytest.mark.parametrize("config", ["classic", "disney100", "disney_wish", "encanto",
                                    "classic_1992"])
def test_every_edition_with_mixed_policies(config: str) -> None:
    for players in (2, 4, 6):
        assert _check(config, [f"players={players}"], range(40)) == 40


@pytest.mark.parametrize("mask", range(32))
def test_every_house_rule_set_with_mixed_policies(mask: int) -> None:
    over: list[str] = []
    for i, h in enumerate(HOUSE):
        if mask >> i & 1:
            over += STACK_ALL if h == "stacking" else [f"house_rules.{h}=true"]
    for players in (2, 3, 5, 7):
        _check("classic", over + [f"players={players}"], range(6))


@pytest.mark.parametrize("scoring,players", [("standard", 3), ("elimination", 5),
                                             ("partners", 4)])
def test_matches_with_mixed_policies(scoring: str, players: int) -> None:
    over = ["mode=match", f"scoring={scoring}", f"players={players}", "target=200"]
    assert _check("classic", over, range(6)) >= 6


def test_every_policy_alone_conforms() -> None:
    """A table of one policy; for ``random`` the checker's conformance mode."""
    for policy in ("random", "greedy", "cautious", "defender", "strategic"):
        over = [f"policy={policy}", *STACK_ALL, "house_rules.jump_in=true"]
        cfg = load_config("classic", over)
        cc = compile_config(cfg)
        for seed in range(40):
            res = check_trace(play_game(cc, seed), policies=cfg.seat_policies)
            assert not res.violations, (policy, seed, res.violations[:5])
