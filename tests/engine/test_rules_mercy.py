"""Section 11's new card effects and settings, on stacked positions (docs/rules.md §11).

The test edition (tests/engine/editions/mercy_slots.yaml) puts UNO Show 'Em No
Mercy's new cards on the classic card slots: S is Discard All, W the Wild Color
Roulette, WD4 the Wild Reverse Draw Four and WX a Wild Draw Ten, with stacking by
draw value, a mercy limit of 25, no challenges, forced Seven-O and
draw-until-play. Each test is named after the rule it checks and reads the
trace's events (tests/rules_helpers.py).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from replay_checker import check_trace

from tests.rules_helpers import Round, log
from unosim.cli import main
from unosim.engine.game import play_game
from unosim.engine.kernel.state import CompiledConfig, compile_config
from unosim.engine.replay import TraceReplayError, replay
from unosim.rules.config import load_config, validate_config
from unosim.rules.editions import deck_counts, load_edition
from unosim.rules.errors import ConfigError

EDITIONS = Path(__file__).resolve().parent / "editions"
SLOTS = EDITIONS / "mercy_slots.yaml"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "editions"


@cache
def mercy_cfg(players: int, *sets: str) -> CompiledConfig:
    return compile_config(load_config("classic", [f"edition={SLOTS}", f"players={players}",
                                                  *sets]))


def fill(n: int, color: str = "Y") -> list[str]:
    """``n`` number cards of one color (no 7 or 0, no Seven-O; no 3, the top card R3's number)."""
    ranks = "1245689"
    return [f"{color}{ranks[i % len(ranks)]}" for i in range(n)]


def drawn(n: int) -> str:
    """The first ``n`` cards of `position`'s default draw pile."""
    return " ".join(fill(30, "G")[:n])


def position(players: int, hands: list[list[str]], draw: list[str] | None = None,
             discard: tuple[str, ...] = ("R3",)) -> Round:
    """Seat 0's turn on a red R3 (direction +1)."""
    r = Round.from_position(mercy_cfg(players), hands=hands, draw=draw or fill(30, "G"),
                            discard=list(discard), color="R", player=0)
    r.events()  # the position's own turn event is read by `after`
    return r


def after(r: Round, *actions: str) -> list[str]:
    """The events the actions write, as short lines."""
    start = len(r.events())
    for a in actions:
        r.apply(a)
    return log(r, start)


# --- Skip Everyone (the user edition of docs/editions.md) ---------------------------------
@pytest.mark.parametrize("players", [2, 5])
def test_skip_everyone_at_2_and_5_players(players: int) -> None:
    cc = compile_config(load_config("classic", [f"edition={EXAMPLES / 'skip_everyone.yaml'}",
                                                f"players={players}"]))
    hands = [["RS", "R5", "R6"]] + [["B1", "B2"]] * (players - 1)
    r = Round.from_position(cc, hands=hands, draw=["G1"] * 5, discard=["R3"], color="R",
                            player=0)
    lines = after(r, "RS")
    assert lines[:2] == ["play 0 RS R", "skip_all 0"]
    assert lines[2:players + 1] == [f"skip {q}" for q in range(1, players)]
    assert lines[players + 1] == "turn 0 R RS"  # its player plays again


# --- Discard All ---------------------------------------------------------------------------
def test_discard_all_as_the_last_card_wins() -> None:
    r = position(3, [["RS", "R5", "R6"], fill(4), fill(4)])
    lines = after(r, "RS")
    assert lines[:2] == ["play 0 RS R", "discard 0 R5 R6"]
    assert lines[2].startswith("end 0 ")
    assert r.discard[-4:] == ["R3", "R5", "R6", "RS"]  # under the played card, which stays on top


def test_discard_all_leaving_one_card_calls_uno() -> None:
    r = position(3, [["RS", "R5", "R8", "B2"], fill(4), fill(4)])
    lines = after(r, "RS")
    assert lines[:3] == ["play 0 RS R", "discard 0 R5 R8", "uno 0 called"]
    assert r.hand(0) == ["B2"] and r.top == "RS" and r.current_player == 1


# --- value stacking ------------------------------------------------------------------------
def test_value_stacking_draw_ten_on_draw_two_accepted() -> None:
    r = position(3, [["RD2", "R5"], ["WX", "B1", "B2"], fill(3)])
    after(r, "RD2")
    assert r.phase == "pending" and "WX" in r.legal_action_names()
    lines = after(r, "WX", "color B")
    assert lines[-3:] == ["draw 2 " + " ".join(fill(30, "G")[:12]) + " (stack)", "skip 2",
                          "turn 0 B WX"]


def test_value_stacking_draw_two_on_draw_ten_refused() -> None:
    r = position(3, [["WX", "R5", "R6"], ["RD2", "BD2", "B1"], fill(3)])
    lines = after(r, "WX", "color R")
    # a Draw Two (2) is under the Draw Ten (10): no choice, the draw is taken at once
    assert lines[1:3] == ["draw 1 " + " ".join(fill(30, "G")[:10]) + " (wd4)", "skip 1"]
    assert {"RD2", "BD2"} <= set(r.hand(1)) and r.current_player == 2


def test_value_stacking_ignores_colours() -> None:
    r = position(3, [["RD2", "R5", "R6"], ["BD2", "GD2", "B1"], fill(3)])
    after(r, "RD2")
    assert set(r.legal_action_names()) == {"BD2", "GD2", "accept"}
    lines = after(r, "GD2")
    assert lines[:3] == ["turn 1 R RD2", "play 1 GD2 G", f"draw 2 {drawn(4)} (stack)"]
    assert r.color == "G"


def test_value_stacking_last_wild_s_player_names_the_colour() -> None:
    r = position(4, [["RD2", "R5", "R6"], ["WX", "B1", "B2"], ["WX", "B2", "B4"], fill(2)])
    after(r, "RD2", "WX", "color B", "WX", "color G")
    assert r.is_over is False and sorted(r.hand(3)) == sorted(fill(2) + fill(30, "G")[:22])
    assert r.color == "G" and r.current_player == 0


# --- Wild Reverse Draw Four ------------------------------------------------------------------
def test_wild_reverse_draw_four_at_4_players() -> None:
    r = position(4, [["WD4", "R5", "R6"], fill(3), fill(3), fill(3)])
    lines = after(r, "WD4", "color B")
    assert lines[:4] == ["play 0 WD4 B", "reverse -1", f"draw 3 {drawn(4)} (wd4)", "skip 3"]
    assert r.direction == -1 and r.current_player == 2


def test_wild_reverse_draw_four_at_2_players() -> None:
    """At two players both directions lead to the opponent: they draw four, and the
    card's player plays next (docs/DECISIONS.md)."""
    r = position(2, [["WD4", "R5", "R6"], fill(3)])
    lines = after(r, "WD4", "color B")
    assert lines[:4] == ["play 0 WD4 B", "reverse -1", f"draw 1 {drawn(4)} (wd4)", "skip 1"]
    assert r.current_player == 0


def test_wild_reverse_draw_four_sends_a_stack_back() -> None:
    r = position(4, [["RD2", "R5", "R6"], ["WD4", "B1", "B2"], fill(3), fill(3)])
    lines = after(r, "RD2", "WD4", "color Y")
    assert "reverse -1" in lines
    assert lines[-3:] == [f"draw 0 {drawn(6)} (stack)", "skip 0", "turn 3 Y WD4"]


# --- Wild Color Roulette ---------------------------------------------------------------------
def test_color_roulette_draws_until_the_named_colour() -> None:
    r = position(3, [["W", "R5", "R6"], fill(3), fill(3)], draw=["R1", "G2", "B7", "R4"])
    after(r, "W")
    assert r.phase == "color" and r.current_player == 1  # the next player names it
    lines = after(r, "color B")
    assert lines[:3] == ["draw 1 R1 G2 B7 (draw_until_color B)", "skip 1", "turn 2 B W"]
    assert r.color == "B"


def test_color_roulette_with_an_exhausted_draw_pile() -> None:
    """Nothing of the colour left anywhere: the draw stops when both piles are dry."""
    r = position(3, [["W", "R5", "R6"], fill(3), fill(3)], draw=["R1", "G2"], discard=("Y4", "R3"))
    lines = after(r, "W", "color B")
    assert lines[1:4] == ["draw 1 R1 G2 (draw_until_color B)", "reshuffle",
                          "draw 1 Y4 R3 (draw_until_color B)"]
    assert lines[4:6] == ["skip 1", "turn 2 B W"]
    assert r.draw_pile == [] and r.discard == ["W"]


# --- the mercy rule ---------------------------------------------------------------------------
def test_mercy_from_a_stacked_penalty() -> None:
    big = fill(15, "B")
    r = position(3, [["RD2", "R5", "R6"], ["WX", "Y1", "Y2"], big])
    lines = after(r, "RD2", "WX", "color Y")
    drawn = fill(30, "G")[:12]
    assert lines[-3:] == ["draw 2 " + " ".join(drawn) + " (stack)", "out 2 mercy 27", "turn 0 Y WX"]
    assert r.active == [0, 1] and r.hand(2) == []


def test_eliminated_hand_goes_under_the_discard_pile() -> None:
    big = fill(15, "B")
    r = position(3, [["RD2", "R5", "R6"], ["WX", "Y1", "Y2"], big])
    after(r, "RD2", "WX", "color Y")
    out = next(e for e in r.events() if e["e"] == "out")
    assert out["to"] == "discard_bottom" and sorted(out["cards"]) == sorted(big + fill(30, "G")[:12])
    assert r.discard[:27] == out["cards"] and r.discard[27:] == ["R3", "RD2", "WX"]


def test_mercy_from_draw_until_play() -> None:
    """Drawing until a playable card comes can reach the limit: out before playing it."""
    r = position(3, [fill(22, "B"), fill(3), fill(3)], draw=fill(3, "Y") + ["R4"])
    lines = after(r, "draw")
    assert lines[:2] == ["draw 0 Y1 Y2 Y4 R4 (turn)", "out 0 mercy 26"]
    assert lines[2] == "turn 1 R R3"


def test_mercy_after_a_forced_seven_swap() -> None:
    """A swap moves hands whole, so in play it cannot reach the limit by itself; the
    rule is checked after it all the same: the swapper who takes a hand at the
    limit is out (a position built with one)."""
    r = position(3, [["R7", "R5", "R6"], fill(25, "B"), fill(3)])
    lines = after(r, "R7", "target 1")
    assert lines[:3] == ["play 0 R7 R", "swap 0 1", "out 0 mercy 25"]
    assert r.hand(1) == ["R5", "R6"] and r.current_player == 1


def test_last_player_standing_wins_the_round() -> None:
    r = position(2, [["WX", "R5", "R6"], fill(20, "B")])
    lines = after(r, "WX", "color Y")
    assert lines[-3:-1] == ["draw 1 " + " ".join(fill(30, "G")[:10]) + " (wd4)", "out 1 mercy 30"]
    assert lines[-1] == "end 0 0"  # the cards went under the pile: nothing to score
    assert r.winner == 0 and r.active == [0, 1]  # both seats are back for the next round


def _mercy_match(seed: int) -> list[dict[str, Any]]:
    cc = mercy_cfg(2, "mode=match", "target=300", "max_rounds=6")
    return play_game(cc, seed)


def test_last_player_standing_wins_the_match_round() -> None:
    """In a match a round ended by the mercy rule scores for the last player standing,
    and the knocked-out seat is dealt in the next round."""
    for seed in range(40):
        events = _mercy_match(seed)
        outs = [i for i, e in enumerate(events) if e["e"] == "out"]
        if not outs:
            continue
        end = next(e for e in events[outs[0]:] if e["e"] == "end")
        assert end["winner"] == 1 - events[outs[0]]["p"]
        deals = [e for e in events[outs[0]:] if e["e"] == "deal"]
        assert all(d["active"] == [0, 1] for d in deals)
        _replays(events)
        return
    pytest.fail("no mercy knock-out in 40 two-player matches")


# --- the replay follows every new event, with every policy ------------------------------------
def _replays(events: list[dict[str, Any]], policies: Any = None) -> None:
    """The independent checker, then the engine's own replay."""
    res = check_trace(events, policies=policies)
    assert res.ok, res.violations[:3]
    for e in events:  # the trace names a user edition; the replay finds its file
        if e["e"] == "deal":
            e["edition"] = str(SLOTS)
    tables, complete = replay(events)
    assert complete and len(tables) == len(events)
    ends = [i for i, e in enumerate(events) if e["e"] == "end"]
    for i in ends:
        assert [sorted(h) for h in tables[i].hands] == [sorted(h) for h in events[i]["hands"]]


POLICIES: list[Any] = ["random", "greedy", "cautious", "defender", "strategic",
                       {"policy": "ismcts", "params": {"iterations": 20}}]


@pytest.mark.parametrize("players", [2, 4, 6])
def test_every_policy_plays_and_replays(players: int) -> None:
    seen: set[str] = set()
    for seed in range(4):
        seats = [POLICIES[(seed + i) % len(POLICIES)] for i in range(players)]
        cfg = load_config("classic", [f"edition={SLOTS}", f"players={players}"])
        data = cfg.model_dump(mode="json")
        data["seats"] = seats
        events = play_game(compile_config(validate_config(data)), seed)
        seen |= {e["e"] for e in events} | {e.get("cause", "") for e in events}
        try:
            _replays(events, ["random" if s == "random" else "other" for s in seats])
        except TraceReplayError as exc:
            raise AssertionError((seed, seats, str(exc))) from exc
    assert {"discard", "reverse", "swap"} <= seen


@pytest.mark.parametrize("players", [2, 4, 6])
def test_no_mercy_every_policy_plays_and_replays(players: int) -> None:
    """The shipped no_mercy edition: mixed tables of every policy, followed by the replay."""
    base = load_config("no_mercy", [f"players={players}"])
    outs = 0
    for seed in range(3):
        data = base.model_dump(mode="json")
        data["seats"] = [POLICIES[(seed + i) % len(POLICIES)] for i in range(players)]
        events = play_game(compile_config(validate_config(data)), seed)
        outs += sum(e["e"] == "out" for e in events)
        res = check_trace(events, policies=["random" if s == "random" else "other"
                                            for s in data["seats"]])
        assert res.ok, (seed, data["seats"], res.violations[:3])
        tables, complete = replay(events)
        assert complete and len(tables) == len(events), (seed, data["seats"])
    assert outs > 0


@pytest.mark.parametrize("edition", ["skip_everyone.yaml", "skip_everyone_added.yaml"])
@pytest.mark.parametrize("players", [2, 4])
def test_user_editions_pass_the_independent_checker(edition: str, players: int) -> None:
    """The example user editions (docs/editions.md), random seats held to rules.md §7."""
    cc = compile_config(load_config("classic", [f"edition={EXAMPLES / edition}",
                                                f"players={players}"]))
    for seed in range(4):
        res = check_trace(play_game(cc, seed), policies="random")
        assert res.ok, (seed, res.violations[:3])


def test_no_mercy_composition() -> None:
    """docs/rules.md section 11's composition (an assumption the edition file states)."""
    ed = load_edition("no_mercy")
    counts = {c.token: c.count for c in ed.cards or []}
    assert sum(deck_counts(ed)) == 168
    assert [counts[t] for t in ("DA", "SE", "D4", "WRD4", "WD6", "WD10", "WCR")] == [
        3, 2, 2, 8, 4, 4, 8]
    stack = {c.token: c.stacking for c in ed.cards or [] if c.stacking}
    assert stack == {"D2": 2, "D4": 4, "WRD4": 4, "WD6": 6, "WD10": 10}
    assert (ed.mercy_limit, ed.stacking, ed.challenge, ed.first_flip) == (25, "value", False,
                                                                          "redraw")
    assert ed.house_rules.seven_o and ed.house_rules.draw_until_play


# --- edition files -----------------------------------------------------------------------------
BAD = [
    # (what to replace in the test edition, with what, the key the error names)
    ("effects: [match, discard_color]}", "effects: [match, flip]}", "cards"),
    ("effects: [match, draw_until_color]}", "effects: [match, draw_until_color, draw 2]}",
     "cards[13].effects"),
    ("mercy_limit: 25", "mercy_limit: 25\nhouse_rules: {stacking: {wd4_on_wd4: true}}",
     "house_rules.stacking"),
    ("effects: [match, draw 10],\n     stacking: 10}",
     "effects: [match, draw 10], condition: only_without_color,\n     stacking: 10,"
     " challengeable: true}", "cards[15].challengeable"),
    ("stacking: value", "stacking: colour", "stacking"),
    ("mercy_limit: 25", "mercy_limit: 7", "hand_size"),
]


@pytest.mark.parametrize(("old", "new", "key"), BAD, ids=[b[2] for b in BAD])
def test_a_bad_setting_is_a_one_line_error(tmp_path: Path, old: str, new: str, key: str) -> None:
    text = SLOTS.read_text()
    assert old in text
    ed = tmp_path / "bad.yaml"
    ed.write_text(text.replace(old, new, 1))
    with pytest.raises(ConfigError) as exc:
        load_config("classic", [f"edition={ed}"])
    assert "\n" not in str(exc.value) and f"{key}:" in str(exc.value), str(exc.value)
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("edition: bad.yaml\n")
    r = CliRunner().invoke(main, ["run", str(cfg), "--games", "10", "--no-report"])
    err = r.stderr.strip().splitlines()
    assert r.exit_code == 2 and len(err) == 1 and err[0].startswith("unosim: error:"), err


def test_a_comparison_names_value_stacking() -> None:
    """Against classic with every stacking switch, No Mercy's switches are off but its
    edition stacks by value: the label says so, not 'no stacking'."""
    from unosim.rules.settings import describe_difference

    words = describe_difference(load_config("no_mercy_house_rules"), load_config("no_mercy"))
    assert words == ["UNO Show 'Em No Mercy edition", "stacking by draw value"]
