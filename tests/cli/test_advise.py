"""``unosim advise`` on hand-built positions whose right move is known."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from unosim.cli.app import main


def _advise(tmp_path: Path, text: str, *args: str) -> list[dict]:
    pos = tmp_path / "position.yaml"
    pos.write_text(text)
    res = CliRunner().invoke(main, ["advise", str(pos), "--format", "json", *args])
    assert res.exit_code == 0, res.output
    return json.loads(res.output)["actions"]


def test_goes_out_when_possible(tmp_path: Path) -> None:
    rows = _advise(tmp_path, "hand: [B7]\ntop: B3\nhands: [1, 4, 5]\n", "--playouts", "200")
    assert rows[0]["action"] == "B7" and rows[0]["win"] == 1.0
    assert [r["action"] for r in rows] == ["B7", "draw"]


def test_draw_two_on_a_next_player_with_one_card(tmp_path: Path) -> None:
    rows = _advise(tmp_path, "hand: [BD2, B5, R9]\ntop: B3\nhands: [3, 1, 6, 6]\n",
                   "--playouts", "1500")
    assert rows[0]["action"] == "BD2"
    assert rows[0]["low"] > next(r for r in rows if r["action"] == "B5")["high"]


def test_names_the_only_color_held(tmp_path: Path) -> None:
    rows = _advise(tmp_path, "hand: [W, R5, R7]\ntop: B3\nhands: [3, 5, 5]\nmoves: [W]\n",
                   "--playouts", "1000", "--playout", "greedy")
    assert rows[0]["action"] == "color R"
    assert len(rows) == 4 and all(r["playouts"] == 1000 for r in rows)


def test_precision_stops_early_and_text_output(tmp_path: Path) -> None:
    rows = _advise(tmp_path, "hand: [B7, R2]\ntop: B3\nhands: [2, 3]\n",
                   "--playouts", "100000", "--precision", "0.05")
    assert all(r["high"] - r["low"] <= 0.1 + 1e-9 for r in rows)
    assert rows[0]["playouts"] < 100000
    pos = tmp_path / "position.yaml"
    res = CliRunner().invoke(main, ["advise", str(pos), "--playouts", "50"])
    assert res.exit_code == 0 and "seat 0 to act" in res.output


def test_uses_the_cards_it_knows_another_seat_holds(tmp_path: Path) -> None:
    """Seat 1's last card is the G9 seat 0 gave it in a Seven-O swap: a green card
    lets it go out, a red one does not."""
    text = "hand: [G5, R5]\ntop: Y5\nhands: [2, 1]\nset: [house_rules.seven_o=true]\n"
    rows = _advise(tmp_path, text + "known: {1: [G9]}\n", "--playouts", "400")
    win = {r["action"]: r for r in rows}
    assert rows[0]["action"] == "R5" and win["G5"]["win"] == 0.0
    blind = {r["action"]: r for r in _advise(tmp_path, text, "--playouts", "400")}
    assert blind["G5"]["win"] > 0.5  # without the knowledge a green card looks fine


@pytest.mark.parametrize(("text", "message"), [
    ("hand: [B7]\ntop: B3\nhands: [1, 4]\nknown: {0: [R1]}\n", "not another seat"),
    ("hand: [B7]\ntop: B3\nhands: [1, 1]\nknown: {1: [R1, R2]}\n", "known[1]: 2 cards"),
    ("hand: [B7]\ntop: B3\nhands: [2, 4]\n", "hand: 1 cards"),
    ("hand: [ZZ]\ntop: B3\nhands: [1, 4]\n", "unknown card token"),
    ("hand: [B7]\ntop: B3\nhands: [1, 4]\nbogus: 1\n", "unknown key"),
    ("hand: [B7]\ntop: B3\nhands: [1, 4]\ndraw: 999\n", "draw:"),
])
def test_bad_positions_are_one_line_errors(tmp_path: Path, text: str, message: str) -> None:
    pos = tmp_path / "position.yaml"
    pos.write_text(text)
    res = CliRunner().invoke(main, ["advise", str(pos)])
    assert res.exit_code == 2 and message in res.output, res.output
    assert res.output.strip().count("\n") == 0


# --- a position from a trace (--trace FILE --event N) ------------------------------------
def _trace(tmp_path: Path, *args: str) -> tuple[Path, list[dict]]:
    res = CliRunner().invoke(main, ["play", *args, "--trace-format", "jsonl"])
    assert res.exit_code == 0, res.output
    path = tmp_path / "round.jsonl"
    path.write_text(res.output)
    return path, [json.loads(line) for line in res.output.splitlines()]


def _advise_trace(path: Path, n: int, *args: str) -> dict:
    res = CliRunner().invoke(main, ["advise", "--trace", str(path), "--event", str(n),
                                    "--format", "json", *args])
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


def test_trace_event_where_the_player_can_go_out(tmp_path: Path) -> None:
    path, events = _trace(tmp_path, "classic", "--seed", "7")
    end = next(e for e in events if e["e"] == "end")
    n = max(i for i, e in enumerate(events) if e["e"] == "play" and e["p"] == end["winner"])
    out = _advise_trace(path, n, "--playouts", "200")
    assert out["seat"] == end["winner"]
    assert out["actions"][0]["action"] == events[n]["card"]
    assert out["actions"][0]["win"] == 1.0
    turn = max(i for i in range(n) if events[i]["e"] == "turn")  # the turn event opening it
    assert _advise_trace(path, turn, "--playouts", "50")["actions"][0]["action"] == \
        events[n]["card"]


def test_trace_and_yaml_give_the_same_candidates(tmp_path: Path) -> None:
    from unosim.cli.advise import read_trace, round_at_event

    path, events = _trace(tmp_path, "classic", "--seed", "7")
    n = next(i for i, e in enumerate(events) if e["e"] == "turn" and i > 40)
    r = round_at_event(read_trace(path), n)
    p = r.current_player
    assert p == events[n]["p"] and r.color == events[n]["color"] and r.top == events[n]["top"]
    yaml = (f"seat: {p}\nhand: {json.dumps(r.hand(p))}\ntop: {r.top}\ncolor: {r.color}\n"
            f"direction: {r.direction}\nhands: {[len(h) for h in r.hands]}\n"
            f"played: {json.dumps(r.discard[:-1])}\n")
    from_yaml = _advise(tmp_path, yaml, "--playouts", "100")
    from_trace = _advise_trace(path, n, "--playouts", "100")["actions"]
    assert sorted(x["action"] for x in from_yaml) == sorted(x["action"] for x in from_trace)


@pytest.mark.slow  # 10-23 s a case: every play of a trace rebuilt
@pytest.mark.parametrize(("config", "overrides"), [
    ("classic", ["house_rules.stacking.draw_two_on_draw_two=true", "house_rules.jump_in=true",
                 "house_rules.seven_o=true"]),
    ("disney_wish", []), ("encanto", ["behaviour.uno_forget_rate=0.5"]),
    ("classic", ["house_rules.draw_until_play=true"])])
def test_every_play_of_a_trace_is_rebuilt(config: str, overrides: list[str]) -> None:
    """Through reshuffles, stacks, jump-ins, swaps, slips and UNO catches (every event up
    to it replayed exactly): the actor of each play is to act, with that play legal."""
    from unosim.cli.advise import round_at_event
    from unosim.engine.game import play_game
    from unosim.engine.kernel.state import compile_config
    from unosim.rules.config import load_config

    cc = compile_config(load_config(config, overrides))
    for seed in range(3):
        events = play_game(cc, seed)
        plays = [i for i, e in enumerate(events) if e["e"] in ("play", "jump")]
        for n in plays[:: max(5, len(plays) // 8)] + plays[-1:]:  # each rebuild replays from the deal
            r = round_at_event(events, n)
            assert r.current_player == events[n]["p"], (config, seed, n)
            assert events[n]["card"] in r.legal_action_names(), (config, seed, n)


@pytest.mark.parametrize(("event", "message"), [
    ("9999", "--event 9999: the trace has events 0.."),
    ("0", "--event 0 (deal) is not a decision"),
    ("2", "--event 2 (draw) is not a decision"),
])
def test_bad_trace_events_are_one_line_errors(tmp_path: Path, event: str, message: str) -> None:
    path, _ = _trace(tmp_path, "classic", "--seed", "7")
    res = CliRunner().invoke(main, ["advise", "--trace", str(path), "--event", event])
    assert res.exit_code == 2 and message in res.output, res.output
    assert res.output.strip().count("\n") == 0
    res = CliRunner().invoke(main, ["advise", "--trace", str(path)])
    assert res.exit_code == 2 and "--event N" in res.output


def test_a_trace_position_carries_what_the_seat_was_shown() -> None:
    """After a Seven-O swap in a trace, the rebuilt position knows what the seat
    to act gave away, as the live round did."""
    from unosim.cli.advise import round_at_event
    from unosim.engine.game import Round
    from unosim.engine.kernel.state import compile_config
    from unosim.rules.config import load_config

    cc = compile_config(load_config("classic", ["house_rules.seven_o=true"]))
    for seed in range(40):
        live = Round.new(cc, seed=seed)
        while not live.is_over:
            live.step()
            if (live.events()[-1]["e"] == "turn" and any(e["e"] == "swap" for e in live.events())
                    and any(live.known(live.current_player))):
                events = live.events()
                r = round_at_event(events, len(events) - 1)
                p = live.current_player
                assert r.current_player == p and r.known(p) == live.known(p)
                return
    raise AssertionError("no swap in 40 rounds")


def test_the_documented_example() -> None:
    """docs/ismcts.md: seat 1 passed its Y7 on with a 0's rotation and knows it."""
    out = _advise_trace(Path(__file__).resolve().parents[2] / "examples/traces/seven_o_seed12.jsonl",
                        148, "--playouts", "500")
    win = {r["action"]: r["win"] for r in out["actions"]}
    assert out["seat"] == 1 and out["actions"][0]["action"] == "R6" and win["Y2"] == 0.0
