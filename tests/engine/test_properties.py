"""Property tests: whole rounds on random configs, played through the façade.

For any edition, player count, deck count, house-rule subset and behaviour
rates, a seeded round played by the compiled policies must conserve every
card, count its turns as the trace writes them, score exactly the hands left,
and never let a policy choose an action the rules refuse (`Round.apply`
raises on an illegal one). The reference policy's fast card choice
(`uniform_card`) must pick exactly among the cards `can_play`/`can_stack` allow.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rules_helpers import all_cards, cfg, hand_pts

from unosim.engine.game import Round, play_game
from unosim.engine.kernel import state as L
from unosim.engine.kernel.reference import uniform_card
from unosim.engine.kernel.rules import can_play, can_stack
from unosim.engine.kernel.state import compile_config
from unosim.rules.cards import COLORS, DRAW2, NK, WD4, W, color_of, kind, suit_of, token
from unosim.rules.config import load_config

EDITIONS = ["classic", "classic_1992", "disney100", "disney_wish", "encanto"]
HOUSE = [
    "house_rules.stacking.draw_two_on_draw_two=true",
    "house_rules.stacking.wd4_on_wd4=true",
    "house_rules.stacking.wd4_on_draw_two=true",
    "house_rules.stacking.draw_two_on_wd4=true",
    "house_rules.jump_in=true",
    "house_rules.seven_o=true",
    "house_rules.draw_until_play=true",
    "house_rules.two_player_reverse=true",
]
RATES = st.sampled_from(["0", "0.3", "1"])
SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def configs(draw, match=False):
    edition = draw(st.sampled_from(EDITIONS))
    players = draw(st.integers(2, 10))
    decks = draw(st.integers(1, 2))
    hand_size = draw(st.sampled_from([3, 5, 7]))
    house = draw(st.lists(st.sampled_from(HOUSE), unique=True))
    seats = draw(st.lists(st.sampled_from(["random", "strategic"]), min_size=players,
                          max_size=players))
    over = [f"edition={edition}", f"players={players}", f"decks={decks}",
            f"hand_size={hand_size}", "max_turns=250", f"seats=[{', '.join(seats)}]", *house,
            f"behaviour.uno_forget_rate={draw(RATES)}",
            f"behaviour.uno_catch_rate={draw(st.sampled_from(['0', '1']))}",
            f"behaviour.movie_madness_fail_rate={draw(RATES)}",
            f"behaviour.dont_talk_slip_rate={draw(RATES)}"]
    if match:
        scoring = draw(st.sampled_from(["standard", "lowest", "elimination", "partners"]))
        if scoring == "partners":
            over[1] = "players=4"
            over[5] = "seats=[random, strategic, random, random]"
        over += ["mode=match", f"scoring={scoring}", "target=150", "max_rounds=30",
                 "max_turns=150"]
    cc = compile_config(load_config("classic", over))
    return cc, over


def _deck(cc) -> Counter[str]:
    return Counter({token(k): int(n) for k, n in enumerate(cc.deck_counts) if n})


@pytest.mark.slow  # up to 19 s: whole rounds on many random configs
@SETTINGS
@given(configs(), st.integers(0, 2**31 - 1))
def test_played_round_conserves_cards_counts_turns_and_scores(case, seed):
    cc, over = case
    deck = _deck(cc)
    r = Round.new(cc, seed=seed)
    assert all_cards(r) == deck
    steps = 0
    while not r.is_over:
        a = r.policy_action()
        assert a in r.legal_actions(), (over, r.phase, a)
        r.apply(a)  # raises on an illegal action
        steps += 1
        assert all_cards(r) == deck, over
        for p in range(r.players):  # the size and per-suit counts kept in step
            hand = r.hand(p)
            assert r.S.hands[p, L.H_SIZE] == len(hand)
            suits = [sum(suit_of(kind(c)) == u for c in hand) for u in range(len(COLORS) + 1)]
            assert list(r.S.hands[p, L.H_SUIT:L.H_SUIT + len(suits)]) == suits
    ev = r.events()
    end = ev[-1]
    stats = r.stats
    assert end["e"] == "end" and sum(e["e"] == "end" for e in ev) == 1
    # turns are the trace's turn events; jump-ins, plays, draws as written
    assert stats["turns"] == end["turns"] == sum(e["e"] == "turn" for e in ev)
    assert stats["jumps"] == sum(e["e"] == "jump" for e in ev)
    assert stats["played"] == sum(e["e"] == "play" for e in ev)
    assert stats["reshuffles"] == sum(e["e"] == "reshuffle" for e in ev)
    assert stats["swaps"] == sum(e["e"] in ("swap", "rotate") for e in ev)
    assert stats["challenges"] == sum(e["e"] == "challenge" for e in ev)
    drawn = Counter()
    for e in ev:
        if e["e"] == "draw":
            assert e["cards"], "an empty draw is not written"
            drawn[e["cause"]] += len(e["cards"])
    assert stats["drawn"] == sum(drawn.values())
    assert {c: n for c, n in stats["drawn_by_cause"].items() if n} == dict(drawn)
    # the end: winner out of cards and scoring the others' hands, or a stalemate
    hands = r.hands
    assert end["hands"] == hands
    w = r.winner
    if w is None:
        assert end["points"] == 0 and stats["points"] == 0
        assert stats["turns"] == 250 or stats["jumps"] == 250
    else:
        assert hands[w] == []
        assert end["points"] == stats["points"] == sum(hand_pts(h) for h in hands)
        assert r.hand_points(w) == 0
        assert ev[-2]["e"] in ("play", "draw", "special", "silence_end")


@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(configs(match=True), st.integers(0, 2**31 - 1))
def test_match_scores_add_up(case, seed):
    cc, over = case
    ev = play_game(cc, seed)
    scoring = next(o.split("=")[1] for o in over if o.startswith("scoring="))
    n = int(cc.ci[L.C_PLAYERS])
    scores = [0] * n
    ends = [e for e in ev if e["e"] == "end"]
    score_events = [e for e in ev if e["e"] == "score"]
    assert len(ends) == len(score_events) >= 1
    for end, sc in zip(ends, score_events, strict=True):
        w = end["winner"]
        pts = [hand_pts(h) for h in end["hands"]]
        if w is not None:
            if scoring == "standard":
                scores[w] += sum(pts)
            elif scoring == "partners":
                scores[w] += pts[(w + 1) % 4] + pts[(w + 3) % 4]
                scores[(w + 2) % 4] = scores[w]
            else:
                scores = [s + p for s, p in zip(scores, pts, strict=True)]
        assert sc["scores"] == scores, (over, end)
    assert ev[-1]["e"] == "match_end"
    assert len(ends) == 30 or max(scores) >= 150


# --- the reference policy's fast legality agrees with the rules -----------------------------------
@st.composite
def positions(draw):
    edition = draw(st.sampled_from(EDITIONS))
    stacking = draw(st.lists(st.sampled_from(HOUSE[:4]), unique=True))
    cc = cfg("players=2", *stacking, config=edition)
    kinds = list(range(NK)) if edition in ("disney100", "disney_wish", "encanto") else list(range(54))
    hand = draw(st.lists(st.sampled_from(kinds), min_size=0, max_size=12))
    top = draw(st.sampled_from(kinds))
    color = draw(st.sampled_from(COLORS)) if top >= W else COLORS[color_of(top)]
    if draw(st.booleans()):  # an inconsistent color is still a well-defined position
        color = draw(st.sampled_from(COLORS))
    pend = draw(st.sampled_from([DRAW2, WD4]))
    return cc, [token(k) for k in hand], token(top), color, pend


@SETTINGS
@given(positions())
def test_uniform_card_picks_exactly_the_legal_cards(pos):
    cc, hand, top, color, pend = pos
    r = Round.from_position(cc, hands=[hand, ["B1"]], draw=["B2"], discard=[top], color=color,
                            player=0)
    S, C = r.S, r.C
    held = {k for k in range(NK) if S.hands[0, k] > 0}
    legal = {k for k in held if can_play(S, C, 0, k)}
    assert legal == {a for a in r.legal_actions() if a < NK}
    picks = {int(uniform_card(S, C, 0, False)) for _ in range(300)}
    assert picks == (legal or {-1})
    # stacking: the same with a pending draw of either kind
    S.s[L.S_PEND_KIND] = pend
    stackable = {k for k in range(NK) if can_stack(S, C, 0, k)}
    assert stackable <= held
    picks = {int(uniform_card(S, C, 0, True)) for _ in range(300)}
    assert picks == (stackable or {-1})


def test_uniform_card_weights_physical_cards():
    r = Round.from_position(cfg("players=2"), hands=[["R1", "R1", "R1", "W", "G2"], ["B1"]],
                            draw=["B2"], discard=["R5"], color="R", player=0)
    counts = Counter(int(uniform_card(r.S, r.C, 0, False)) for _ in range(4000))
    assert set(counts) == {1, 52}
    assert 0.70 < counts[1] / 4000 < 0.80  # three red 1s against one Wild
