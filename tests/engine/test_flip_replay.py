"""UNO Flip traces read back, followed by the engine and shown (docs/rules.md section 11).

The engine's own traces of the ``flip`` config (every built-in policy, 2/4/6
players, rounds and matches) are read with `read_events` and followed by
`unosim.engine.replay.replay` card for card: hands and piles of ``"light/dark"``
cards, the side in play, the dark colors. A tampered trace is refused, and a
malformed one is one `TraceError` line naming the problem.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from unosim.engine.game import traced_game
from unosim.engine.kernel.state import CompiledConfig, compile_config
from unosim.engine.replay import TraceReplayError, replay, round_at_event
from unosim.engine.trace import TraceError, face, read_events, to_jsonl, to_text
from unosim.report.viewer import viewer_data, viewer_html
from unosim.rules.config import config_to_dict, load_config, validate_config

POLICIES = ["random", "greedy", "cautious", "defender", "strategic"]


@cache
def flip_cc(players: int = 4, *sets: str) -> CompiledConfig:
    return compile_config(load_config("flip", [f"players={players}", *sets]))


@cache
def mixed_cc(players: int, first: int) -> CompiledConfig:
    """Every seat a different built-in policy (one bluffing its wild draws and
    challenging readily)."""
    data = config_to_dict(load_config("flip", [f"players={players}"]))
    seats: list[Any] = [*POLICIES, {"policy": "strategic",
                                    "params": {"bluff_rate": 0.4, "challenge_threshold": 0.05}}]
    data["seats"] = [seats[(first + i) % len(seats)] for i in range(players)]
    return compile_config(validate_config(data))


def _game(cc: CompiledConfig, seed: int) -> tuple[list[dict[str, Any]], list[int]]:
    r = traced_game(cc, seed)
    return r.events(), r.history


def _assert_follows(events: list[dict[str, Any]], actions: list[int] | None = None) -> None:
    """The replay follows the whole trace, and its tables agree with what the events show."""
    tables, complete = replay(events, actions)
    assert complete and len(tables) == len(events)
    side = "light"
    for e, tb in zip(events, tables, strict=True):
        if e["e"] == "deal":
            side = "light"
        elif e["e"] == "flip_all":
            side = e["side"]
        assert tb.side == side
        if e["e"] == "turn":
            assert (tb.turn, tb.color, tb.top) == (e["p"], e["color"], e["top"])
            assert tb.color in ("RYGB" if side == "light" else "PTOU")
        if e["e"] == "end":
            assert [Counter(h) for h in tb.hands] == [Counter(h) for h in e["hands"]]
        if tb.top is not None or tb.discard:  # every physical card is somewhere
            assert sum(map(len, tb.hands)) + tb.draw + tb.discard == 112
        # a hand is shown by its faces in play
        for h in tb.hands:
            shown = [face(c, side) for c in h]
            assert all("/" in c for c in h) and len(shown) == len(h)
        assert tb.draw_top is None or "/" in tb.draw_top


# --- engine traces replay clean -------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 4, 6])
def test_every_built_in_policy_s_flip_games_replay(players: int) -> None:
    flips = 0
    for seed in range(8):
        events, actions = _game(mixed_cc(players, seed), seed)
        _assert_follows(events, actions)
        flips += sum(e["e"] == "flip_all" for e in events)
    assert flips > 0


def test_a_bluffed_wild_draw_is_followed() -> None:
    """A trace does not say which seats may bluff: the replay follows a bluff it shows
    (here WD2s and WDCs played holding the active color, caught by a challenge)."""
    data = config_to_dict(load_config("flip", ["players=2"]))
    data["seats"] = [{"policy": "strategic", "params": {"bluff_rate": 1.0}},
                     {"policy": "strategic", "params": {"challenge_threshold": 0.0}}]
    cc = compile_config(validate_config(data))
    caught = 0
    for seed in range(6):
        events, _ = _game(cc, seed)
        caught += sum(e["e"] == "challenge" and e["success"] for e in events)
        _assert_follows(events)
    assert caught > 0


def test_an_ismcts_seat_s_flip_game_replays() -> None:
    """`ismcts` deals again the faces a seat cannot see (its determinizations)."""
    data = config_to_dict(load_config("flip", ["players=3"]))
    data["seats"] = [{"policy": "ismcts", "params": {"iterations": 30}}, "strategic", "random"]
    cc = compile_config(validate_config(data))
    for seed in range(2):
        events, actions = _game(cc, seed)
        _assert_follows(events, actions)


@pytest.mark.parametrize("policy", POLICIES)
def test_one_policy_tables_replay_without_the_game_s_actions(policy: str) -> None:
    """The full search (no `Round.history`), as `unosim view` of a trace file does."""
    events, _ = _game(flip_cc(3, f"policy={policy}"), 11)
    _assert_follows(events)


@pytest.mark.parametrize("scoring,players", [("standard", 3), ("elimination", 4)])
def test_flip_matches_replay(scoring: str, players: int) -> None:
    cc = flip_cc(players, "mode=match", f"scoring={scoring}", "target=150")
    for seed in range(2):
        events, actions = _game(cc, seed)
        assert sum(e["e"] == "deal" for e in events) >= 1
        _assert_follows(events, actions)


def test_house_rules_on_flip_replay() -> None:
    cc = flip_cc(4, "house_rules.seven_o=true", "house_rules.jump_in=true",
                 "house_rules.draw_until_play=true")
    for seed in range(3):
        events, actions = _game(cc, seed)
        _assert_follows(events, actions)


def test_a_trace_file_reads_back_and_replays(tmp_path: Path) -> None:
    events, _ = _game(flip_cc(4), 5)
    path = tmp_path / "flip.jsonl"
    path.write_text(to_jsonl(events))
    back = read_events(path)
    assert back == json.loads(json.dumps(events))
    _assert_follows(back)


# --- tampered traces are refused --------------------------------------------------------------
def _flip_game() -> list[dict[str, Any]]:
    for seed in range(40):
        events, _ = _game(flip_cc(2), seed)
        if any(e["e"] == "flip_all" and e["p"] >= 0 for e in events):
            return events
    raise AssertionError("no Flip card played in 40 games")


def _tampered(events: list[dict[str, Any]], what: str) -> list[dict[str, Any]]:
    out = copy.deepcopy(events)
    i = next(i for i, e in enumerate(out) if e["e"] == "flip_all" and e["p"] >= 0)
    e = out[i]
    if what == "side":  # the flip_all names the side already in play
        e["side"] = "light" if e["side"] == "dark" else "dark"
    elif what == "color":  # another color of the new side
        letters = "PTOU" if e["side"] == "dark" else "RYGB"
        e["color"] = letters[(letters.index(e["color"]) + 1) % 4] if e["color"] else letters[0]
    elif what == "missing":  # no flip_all after the Flip card
        del out[i]
    elif what == "faces":  # a card of the deal shows another dark face
        hand = out[0]["hands"][0]
        light, dark = hand[0].split("/")
        hand[0] = f"{light}/{'P1' if dark != 'P1' else 'P2'}"
    elif what == "swap":  # a card in a hand and the first card flipped trade dark faces
        hand, draw = out[0]["hands"][0], out[0]["draw"]
        j = next(j for j in range(len(hand)) if hand[j].split("/")[1] != draw[-1].split("/")[1])
        (a, b), (c, d) = hand[j].split("/"), draw[-1].split("/")
        hand[j], draw[-1] = f"{a}/{d}", f"{c}/{b}"
    return out


@pytest.mark.parametrize("what", ["side", "color", "missing", "faces", "swap"])
def test_a_tampered_flip_trace_is_refused(what: str) -> None:
    events = _flip_game()
    with pytest.raises(TraceReplayError):
        replay(_tampered(events, what))


# --- reading: one-line errors naming the problem ------------------------------------------------
def _write(tmp_path: Path, events: list[dict[str, Any]]) -> Path:
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


@pytest.mark.parametrize(("change", "words"), [
    (lambda ev: ev[0]["hands"][0].__setitem__(0, "R5/R5"), "dark face"),
    (lambda ev: ev[0]["hands"][0].__setitem__(0, "P5/T5"), "light face"),
    (lambda ev: ev[0]["hands"][0].__setitem__(0, "R5"), "has one face"),
    (lambda ev: ev[0]["draw"].__setitem__(0, "R5/PSE/W"), "unknown card token"),
    (lambda ev: ev.insert(1, {"e": "flip_all", "p": 0, "side": "upside", "color": None}),
     "side must be light or dark"),
    (lambda ev: ev.insert(1, {"e": "flip_all", "p": 0, "side": "dark", "color": "R"}),
     "not a letter of the dark side"),
    (lambda ev: ev.insert(1, {"e": "flip_all", "p": -2, "side": "dark", "color": "P"}),
     "p must be a seat number or -1"),
    (lambda ev: ev.insert(1, {"e": "flip_all", "p": 0, "side": "dark"}), "no color"),
    (lambda ev: ev.insert(1, {"e": "turn", "p": 0, "color": "X", "top": "R5/P5"}),
     "color must be one of"),
])
def test_malformed_flip_events_are_one_line(tmp_path: Path, change: Any, words: str) -> None:
    events, _ = _game(flip_cc(2), 1)
    events = copy.deepcopy(events)
    change(events)
    with pytest.raises(TraceError) as exc:
        read_events(_write(tmp_path, events))
    msg = str(exc.value)
    assert "\n" not in msg and words in msg and "line " in msg, msg


def test_a_one_sided_trace_takes_no_flip_events_nor_dark_colors(tmp_path: Path) -> None:
    events, _ = _game(compile_config(load_config("classic")), 1)
    for extra, words in [({"e": "flip_all", "p": 0, "side": "dark", "color": "P"},
                          "flip_all event in a trace whose deal's cards have one face"),
                         ({"e": "turn", "p": 0, "color": "P", "top": "R5"}, "color must be"),
                         ({"e": "play", "p": 0, "card": "R5/P5", "color": "R"},
                          "two-sided")]:
        with pytest.raises(TraceError) as exc:
            read_events(_write(tmp_path, [events[0], extra, *events[1:]]))
        assert words in str(exc.value), str(exc.value)


# --- the decision at an event (advise --trace) --------------------------------------------------
def test_round_at_event_follows_a_flip_trace_to_the_dark_side() -> None:
    events = _flip_game()
    flip_at = next(i for i, e in enumerate(events) if e["e"] == "flip_all" and e["p"] >= 0)
    turns = [i for i, e in enumerate(events) if e["e"] == "turn" and i > flip_at][:3]
    turns.insert(0, next(i for i, e in enumerate(events) if e["e"] == "turn"))
    side = {i: "light" for i in turns}
    for i in turns[1:]:
        side[i] = next(e["side"] for e in events[i::-1] if e["e"] == "flip_all")
    for i in turns:
        r = round_at_event(events, i)
        assert r.current_player == events[i]["p"]
        assert r.side == side[i] and r.color == events[i]["color"]
        assert r.top == events[i]["top"]


def test_every_play_of_a_flip_trace_is_rebuilt() -> None:
    """Each play's decision, rebuilt from the deal: its seat is to act, on the side the
    trace has in play, with the card's face in play a legal action."""
    cc = flip_cc(3, "house_rules.seven_o=true")
    for seed in range(2):
        events, _ = _game(cc, seed)
        plays = [i for i, e in enumerate(events) if e["e"] == "play"]
        for n in plays[:: max(5, len(plays) // 6)] + plays[-1:]:
            r = round_at_event(events, n)
            assert r.current_player == events[n]["p"], (seed, n)
            assert face(events[n]["card"], r.side) in r.legal_action_names(), (seed, n)


# --- what is shown: the text log and the viewer ---------------------------------------------------
def test_the_text_log_plays_faces_in_play() -> None:
    events = _flip_game()
    text = to_text(events)
    assert "everything flips: the dark side is in play" in text
    flip_at = next(i for i, e in enumerate(events) if e["e"] == "flip_all" and e["p"] >= 0)
    after = next(e for e in events[flip_at + 1:] if e["e"] == "play")
    assert f"   plays {after['card'].split('/')[1]}" in text  # the dark face


def test_the_viewer_shows_the_side_the_dark_colors_and_both_faces() -> None:
    events = _flip_game()
    data = viewer_data(events)
    assert data["two_sided"] is True
    assert {"P", "T", "O", "U"} <= set(data["colors"]) and data["colors"]["U"] == "purple"
    assert set(data["palette"]) == set(data["colors"])
    sides = {s["side"] for s in data["steps"]}
    assert sides == {"light", "dark"}
    dark = [s for s in data["steps"] if s["side"] == "dark"]
    assert all(s["color"] is None or s["color"] in "PTOU" for s in dark)
    assert all(s["draw_top"] is None or "/" in s["draw_top"] for s in data["steps"])
    words = [s["words"] for s in data["steps"]]
    assert any(w.startswith("everything turns over: the dark side is in play") for w in words)
    play = next(s for s in dark if s["e"] == "play")  # named by its dark face
    assert "/" not in play["words"]
    page = viewer_html(data)
    assert "side in play" in page and '"two_sided":true' in page
