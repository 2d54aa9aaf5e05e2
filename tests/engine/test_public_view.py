"""A policy sees only what its seat could know (docs/policies.md).

At every decision of real games, the cards the deciding seat cannot see are
dealt again at random (the other hands among themselves, sizes kept, and the
draw pile), and whether a WD4 on the table was legal is flipped; every
policy must then take the same action and draw the same random numbers.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hidden import redeal_hidden

from unosim.engine.game import Round
from unosim.engine.kernel import state as L
from unosim.engine.kernel.policies import policy_action
from unosim.engine.kernel.state import compile_config
from unosim.engine.kernel.table import top_card
from unosim.rules.cards import WD4
from unosim.rules.config import config_to_dict, load_config, validate_config
from unosim.rules.models import POLICY_NAMES

BLUFFER = {"policy": "cautious", "params": {"bluff_rate": 0.3}}
CHALLENGER = {"policy": "strategic", "params": {"challenge_threshold": 0.05, "jump_in_rate": 0.5}}
SEATS = ["strategic", "greedy", "cautious", "defender", "random", BLUFFER, CHALLENGER,
         {"policy": "ismcts", "params": {"iterations": 30}}]
HOUSE = ["house_rules.stacking.draw_two_on_draw_two=true", "house_rules.stacking.wd4_on_wd4=true",
         "house_rules.stacking.wd4_on_draw_two=true", "house_rules.stacking.draw_two_on_wd4=true",
         "house_rules.jump_in=true", "house_rules.seven_o=true"]
# the rulings of docs/rules.md §12 that add decisions (deflect, drops, same-number
# jump-ins, any card after a draw) or constrain them (forced play, last cards)
RULED = ["house_rules.deflect=true", "house_rules.multiple_play=true",
         "house_rules.jump_in=same_number", "house_rules.draw_then_play=any",
         "house_rules.forced_play=true", "house_rules.no_action_finish=true",
         "house_rules.seven_o=true", "house_rules.seven_o_swap=next",
         "house_rules.stacking.draw_two_on_draw_two=true"]
CASES = [
    ("classic", [], 4),
    ("classic", RULED, 4),
    ("classic", HOUSE, 5),
    ("encanto", [], 3),
    ("disney100", ["house_rules.seven_o=true"], 4),
    ("disney_wish", [], 6),
    ("classic_1992", ["house_rules.draw_until_play=true"], 7),
    ("classic", [], 2),
]


def _config(name: str, overrides: list[str], players: int, shift: int) -> L.CompiledConfig:
    data = config_to_dict(load_config(name, [*overrides, f"players={players}"]))
    data["seats"] = [SEATS[(i + shift) % len(SEATS)] for i in range(players)]
    return compile_config(validate_config(data))


def _check_rounds(cc: L.CompiledConfig, games: range, gen: np.random.Generator) -> Counter:
    seen: Counter = Counter()
    players = int(cc.ci[L.C_PLAYERS])
    kinds = cc.pp[:players, L.P_KIND].astype(int)
    for g in games:
        r = Round.new(cc, seed=5, game=g, trace=False)
        while not r.is_over:
            S, C = r.S, r.C
            p = int(S.s[L.S_CUR])
            ph = int(S.s[L.S_PHASE])
            rng0 = S.rng.copy()
            a = int(policy_action(S, C))
            rng1 = S.rng.copy()
            hands, draw = S.hands.copy(), S.piles[0].copy()
            legal_flag = int(S.s[L.S_WD4_LEGAL])
            redeal_hidden(S, players, p, gen)
            S.rng[:] = rng0
            b = int(policy_action(S, C))
            assert b == a, (g, p, ph, a, b)
            assert (S.rng == rng1).all(), (g, p, ph, "a different use of the random stream")
            S.hands[:], S.piles[0] = hands, draw
            S.s[L.S_WD4_LEGAL] = legal_flag
            S.rng[:] = rng1
            challenge = (ph == L.PH_PENDING and S.s[L.S_CHAIN] == 1
                         and S.s[L.S_PEND_KIND] == WD4)
            seen[(int(kinds[p]), ph)] += 1
            if challenge:
                seen[(int(kinds[p]), "challengeable")] += 1
            r.apply(a)
    return seen


@pytest.mark.slow  # about 9 s a case
@pytest.mark.parametrize(("edition", "overrides", "players"), CASES)
def test_decisions_ignore_hidden_cards(edition: str, overrides: list[str], players: int) -> None:
    gen = np.random.default_rng(players)
    seen: Counter = Counter()
    for shift in range(len(SEATS)):
        seen += _check_rounds(_config(edition, overrides, players, shift),
                              range(shift * 4, shift * 4 + 4), gen)
    for code in {L.POLICY_CODE[n] for n in POLICY_NAMES}:
        assert seen[(code, L.PH_TURN)] > 0


def _seen(edition: str, overrides: list[str], players: int, games: int, seed: int) -> Counter:
    """Decisions checked at every seating of the mixed table, by (policy, phase)."""
    gen = np.random.default_rng(seed)
    seen: Counter = Counter()
    for shift in range(len(SEATS)):
        seen += _check_rounds(_config(edition, overrides, players, shift), range(games), gen)
    return seen


@pytest.mark.slow  # 9 s
def test_every_kind_of_decision_was_checked() -> None:
    """The mixed tables above reach every phase, challenges included."""
    seen = _seen("encanto", HOUSE, 5, 12, 0)
    phases = {ph for _, ph in seen}
    assert {L.PH_TURN, L.PH_DRAWN, L.PH_COLOR, L.PH_PENDING, L.PH_TARGET, L.PH_JUMP,
            "challengeable"} <= phases
    strategic = L.POLICY_CODE["strategic"]
    assert seen[(strategic, "challengeable")] > 0


def test_rulings_decisions_were_checked() -> None:
    """The rulings' own decisions (a drop, a deflection) are among those checked."""
    phases = {ph for _, ph in _seen("classic", RULED, 4, 3, 3)}
    assert {L.PH_MULTI, L.PH_PENDING, L.PH_JUMP} <= phases


def test_the_hidden_cards_do_change() -> None:
    """The redeal is not a no-op (the check above would then prove nothing)."""
    cc = _config("classic", [], 4, 0)
    r = Round.new(cc, seed=5, game=0, trace=False)
    before = r.S.hands.copy()
    redeal_hidden(r.S, 4, int(r.S.s[L.S_CUR]), np.random.default_rng(1))
    p = int(r.S.s[L.S_CUR])
    assert (r.S.hands[p] == before[p]).all()
    assert (r.S.hands[:4, L.H_SIZE] == before[:4, L.H_SIZE]).all()
    assert not (r.S.hands == before).all()
    assert top_card(r.S) == r.S.piles[1, r.S.s[L.S_NDISC] - 1]


def test_policies_read_no_hidden_field() -> None:
    """The habit code never names the hidden scalars or the draw pile's cards."""
    from pathlib import Path

    import unosim.engine.kernel.habits as habits
    import unosim.engine.kernel.policies as policies
    import unosim.engine.kernel.reference as reference

    for mod in (habits, policies, reference):
        text = Path(mod.__file__ or "").read_text()
        code = text.split('"""', 2)[2]  # past the module docstring
        assert "S_WD4_LEGAL" not in code and "piles[0" not in code
