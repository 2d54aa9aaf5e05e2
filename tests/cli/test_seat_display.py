"""Issue 25, the newcomer's human seat and ``advise``: the bluff offered with its
warning, cards in color on a terminal only, the token legend, one spelling of
"color", the trace kept in a file, and the position ``advise`` advises on.

The seat is fed through standard input (the whole script at once: the game asks
and reads it line by line); the terminal case runs the command on a pseudo-terminal
and reads its output to the end.
"""

from __future__ import annotations

import io
import json
import os
import pty
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from replay_checker import check_trace

from unosim.cli import main
from unosim.cli.cardtext import DEFAULT_LABELS, Painter, color_wanted, legend
from unosim.cli.play import HumanPolicy, _result
from unosim.rules.editions import load_edition
from unosim.rules.models import HouseRules

ESC = "\x1b["
SUSPICIOUS = "{policy: strategic, params: {challenge_threshold: 0.0}}"  # challenges any doubt


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run in a fresh directory: a game with --human and no --out writes its trace there."""
    monkeypatch.chdir(tmp_path)


def play(*args: str, input: str):
    return CliRunner().invoke(main, ["play", "classic", *args], input=input)


# --- the bluff -----------------------------------------------------------------------------
def test_a_bluffed_wd4_is_offered_last_with_a_warning_and_can_be_caught(tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    # seed 3: seat 0 holds two WD4 and red cards; answering WD4 whenever it is a choice
    # (else the first choice) bluffs it once red is the color, and seat 1 challenges
    res = play("--seed", "3", "--human", "0", "--set", f"seats=[random, {SUSPICIOUS}, "
               f"{SUSPICIOUS}, {SUSPICIOUS}]", "--trace-format", "jsonl", "--out", str(out),
               input="WD4\n1\n" * 1000)
    assert res.exit_code == 0, res.output
    offers = [line for line in res.stdout.splitlines() if "bluff: you hold" in line]
    assert offers, res.stdout
    assert offers[0].endswith("bluff: you hold R (red); if challenged you draw 4, "
                              "and the color you name stands")
    # offered last: the next line is the prompt
    lines = res.stdout.splitlines()
    i = lines.index(offers[0])
    assert lines[i + 1].startswith(f"choose 1-{offers[0].split('.')[0].strip()} ")
    events = [json.loads(line) for line in out.read_text().splitlines()]
    caught = [e for e in events if e["e"] == "challenge" and e["target"] == 0 and e["success"]]
    assert caught, "the bluff was not caught"
    t = events.index(caught[0])
    assert events[t + 1]["e"] == "draw" and events[t + 1]["p"] == 0
    assert len(events[t + 1]["cards"]) == 4 and events[t + 1]["cause"] == "challenge"
    assert "caught bluffing" in res.stdout
    assert not check_trace(events, allow_bluffs=True).violations


def test_a_legal_wd4_carries_no_warning() -> None:
    # seed 3's first decision: top Y6, no yellow in hand, so the WD4 is legal
    res = play("--seed", "3", "--human", "0", input="")
    first = res.stdout.split("choose 1-")[0]
    assert "2. WD4\n" in first and "bluff" not in first


def test_challenge_and_accept_say_what_they_cost() -> None:
    # seed 1: seat 0 plays a WD4 on seat 1, who may accept or challenge it
    res = play("--seed", "1", "--human", "1", "--out", os.devnull, "--set",
               "seats=[{policy: strategic, params: {bluff_rate: 1.0}}, random, random, random]",
               input="1\n" * 400)
    assert res.exit_code == 0, res.output
    assert "accept  -- draw 4, lose your turn" in res.stdout
    assert ("challenge  -- a bluff: its player draws 4 and you play; a legal WD4: you draw 6"
            in res.stdout)


def _view(phase: str, hand: list[str], color: str = "R", pending: int = 0) -> SimpleNamespace:
    return SimpleNamespace(phase=phase, hand=tuple(hand), color=color, pending=pending,
                           hand_sizes=(len(hand), 5, 3))


SEATS = ["P0 (you)", "P1 (random)", "P2 (random)"]


def test_a_stacked_bluff_warns_that_it_cannot_be_challenged() -> None:
    seat = HumanPolicy(SEATS, list(DEFAULT_LABELS))
    got = seat.choices(_view("pending", ["R5", "WD4"], pending=2), ["WD4", "accept"])
    assert got == [("accept", "draw 2, lose your turn"),
                   ("WD4", "bluff: you hold R (red); a stacked WD4 cannot be challenged")]


def test_where_wilds_match_the_color_a_wild_makes_the_wd4_a_bluff() -> None:
    legal = ["W", "WD4", "draw"]
    plain = HumanPolicy(SEATS, list(DEFAULT_LABELS)).choices(_view("turn", ["W", "WD4"]), legal)
    assert plain == [("W", ""), ("WD4", ""), ("draw", "")]
    wish = HumanPolicy(SEATS, list(DEFAULT_LABELS), wilds_block=True)
    assert [a for a, _ in wish.choices(_view("turn", ["W", "WD4"]), legal)] == [
        "W", "draw", "WD4"]
    assert not wish.bluffing(_view("turn", ["WD4", "WD4", "G5"]))


def test_jump_in_and_target_choices_say_what_they_do() -> None:
    seat = HumanPolicy(SEATS, list(DEFAULT_LABELS))
    assert seat.choices(_view("jump", ["R5", "G1"]), ["R5", "pass"]) == [
        ("R5", "jump in out of turn"), ("pass", "do not jump in")]
    assert seat.choices(_view("target", ["R5"]), ["target 1", "target 2"]) == [
        ("target 1", "P1 (random), 5 cards"), ("target 2", "P2 (random), 3 cards")]


def test_the_legend_lists_the_house_rules_in_play() -> None:
    house = HouseRules.model_validate({"jump_in": True, "seven_o": True,
                                       "stacking": {"wd4_on_draw_two": True}})
    text = legend(Painter(False), None, False, house)
    assert text.endswith("house rules:\n"
                         "  stacking (WD4 on D2): pass a pending draw on with one\n"
                         "  jump-in: play a twin of the top card out of turn (not a wild)\n"
                         "  Seven-O: a 7 swaps hands with a seat you pick; "
                         "a 0 passes all hands on\n")
    assert "house rules" not in legend(Painter(False), None, False, HouseRules())
    assert all(len(line) <= 88 for line in text.splitlines())


# --- color ---------------------------------------------------------------------------------
class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("env", "stream", "want"), [
    ({}, _Tty(), True),
    ({"TERM": "xterm-256color"}, _Tty(), True),
    ({"NO_COLOR": "1"}, _Tty(), False),
    ({"NO_COLOR": ""}, _Tty(), True),  # no-color.org: set and not empty
    ({"TERM": "dumb"}, _Tty(), False),
    ({}, io.StringIO(), False),  # a pipe, a file, a test's capture
    ({}, None, False),  # started without a stdout
])
def test_color_only_on_a_terminal_without_no_color(env: dict, stream: object, want: bool) -> None:
    assert color_wanted(stream, env) is want


def test_painter_colors_tokens_and_leaves_words_alone() -> None:
    p = Painter(True, ["pink", "gold", "purple", "blue"])
    text = p.text("P0 (you): R7 YD2 GS BR WD4 ? W WX, plays R7, names gold")
    assert p.card("R7") in text and p.card("YD2") in text and p.card("WX") in text
    assert "P0 (you)" in text and "names gold" in text and " ? " in text
    assert p.card("R7") != p.card("B7") and p.card("W").startswith(ESC)
    assert Painter(False).text("R7 WD4") == "R7 WD4"


def _on_a_terminal(tmp_path: Path, env: dict[str, str]) -> str:
    """``play --human 0`` with its stdout on a pseudo-terminal; everything it wrote."""
    leader, follower = pty.openpty()
    full = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM")}
    proc = subprocess.Popen([sys.executable, "-m", "unosim", "play", "classic", "--seed", "3",
                             "--human", "0"], cwd=tmp_path, stdin=subprocess.PIPE,
                            stdout=follower, stderr=subprocess.PIPE, env={**full, **env})
    os.close(follower)
    assert proc.stdin is not None
    proc.stdin.write(b"1\n" * 400)
    proc.stdin.close()
    out = b""
    while True:  # to the end of its output (EIO once the command has exited)
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    assert proc.wait() == 0, proc.stderr.read() if proc.stderr else ""
    return out.decode()


def test_cards_in_color_on_a_terminal_and_not_with_no_color(tmp_path: Path) -> None:
    colored = _on_a_terminal(tmp_path, {"TERM": "xterm"})
    red = Painter(True).card("R4")
    assert f"hand: {red} " in colored and ESC + "33mY (yellow)" in colored
    plain = _on_a_terminal(tmp_path, {"TERM": "xterm", "NO_COLOR": "1"})
    assert ESC not in plain and "hand: R4 R6 R7 G1 G7 WD4 WD4" in plain


def test_no_color_when_not_a_terminal() -> None:
    res = play("--seed", "3", "--human", "0", input="1\n" * 400)
    assert res.exit_code == 0 and ESC not in res.output


# --- the legend ----------------------------------------------------------------------------
def test_question_mark_prints_the_legend_and_asks_again() -> None:
    res = CliRunner().invoke(main, ["play", "disney_wish", "--seed", "3", "--human", "0"],
                             input="?\n")
    assert res.exit_code == 2  # the input then ends
    assert res.stdout.count("choose 1-") == 2 and "not a legal choice" not in res.stdout
    assert "or ? for the legend" in res.stdout.split("\n?")[0]
    legend_text = res.stdout.split("?\n", 1)[1]
    for line in ("(R pink, Y gold, G purple, B blue)", "  S     Skip", "  R     Reverse",
                 "  D2    Draw Two", "  W     Wild", "  WD4   Wild Draw Four",
                 "(in this edition, nor a W or WX)", "  WX    Wild Wishing Star",
                 "? shows this legend"):
        assert line in legend_text, line


def test_legend_follows_the_edition() -> None:
    classic = legend(Painter(False), load_edition("classic").special, False)
    assert "WX" not in classic and "nor a W or WX" not in classic and "R7 is red 7" in classic
    encanto = load_edition("encanto")
    text = legend(Painter(False, encanto.colors), encanto.special, encanto.wd4_wilds_block)
    assert "Wild Don't Talk" in text and "silenced" in text


# --- one spelling --------------------------------------------------------------------------
def test_the_seat_spells_color_as_the_rest_of_the_output() -> None:
    res = play("--seed", "8", "--human", "2", input="draw\npass\nG\n?\naccept\n1\n" * 300)
    assert res.exit_code == 0, res.output
    assert "colour" not in res.output.lower() and ", color " in res.stdout


# --- the trace in a file -------------------------------------------------------------------
def test_the_trace_goes_to_a_fresh_file_and_the_result_stays_last(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    first = play("--seed", "3", "--human", "0", input="1\n" * 400)
    second = play("--seed", "3", "--human", "0", input="1\n" * 400)
    assert first.exit_code == second.exit_code == 0, first.output + second.output
    for res, name in ((first, "play-classic-seed3-game0.txt"),
                      (second, "play-classic-seed3-game0-2.txt")):
        tail = res.stdout.splitlines()[-3:]
        assert tail[0].startswith("== P2 (random) goes out after"), tail
        assert tail[1] == "-- game over: P2 (random) wins"
        assert tail[2].startswith(f"   the trace is in {name} ")
        trace = (tmp_path / name).read_text()
        assert trace.startswith("== Round 1:") and "?" not in trace  # the full trace
        assert trace.splitlines()[1] not in res.stdout.split("-- game over")[1]
    assert (tmp_path / "play-classic-seed3-game0.txt").read_text() == \
        (tmp_path / "play-classic-seed3-game0-2.txt").read_text()


def test_the_result_line_names_the_winners() -> None:
    names = ["P0 (you)", "P1 (random)", "P2 (random)", "P3 (random)"]
    cases = [([{"e": "end", "winner": 0}], "you win"),
             ([{"e": "end", "winner": 2}], "P2 (random) wins"),
             ([{"e": "end", "winner": None}], "a stalemate, nobody went out"),
             ([{"e": "end", "winner": 1}, {"e": "match_end", "winner": [0, 2]}],
              "you win (with your partner)"),
             ([{"e": "match_end", "winner": [1, 3]}], "P1 (random) & P3 (random) win"),
             ([{"e": "match_end", "winner": None}], "the match is unfinished")]
    for events, want in cases:
        assert _result(events, names, 0) == want


def test_jsonl_trace_file_says_how_to_replay_it(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    res = play("--seed", "3", "--human", "0", "--trace-format", "jsonl", input="1\n" * 400)
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[-1] == ("   the trace is in play-classic-seed3-game0.jsonl; "
                                           "replay it with: unosim view "
                                           "play-classic-seed3-game0.jsonl")
    events = [json.loads(x) for x in (tmp_path / "play-classic-seed3-game0.jsonl").open()]
    assert events[-1]["e"] == "end" and not check_trace(events).violations


def test_out_is_used_and_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "mine.txt"
    res = play("--seed", "3", "--human", "0", "--out", str(out), input="1\n" * 400)
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[-1].startswith(f"   the trace is in {out} ")
    assert out.read_text().startswith("== Round 1:") and os.listdir(tmp_path) == ["mine.txt"]


def test_an_unwritable_directory_falls_back_to_the_temp_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("tempfile.tempdir", str(temp))
    real_open = os.open

    def read_only_here(path: str, *args: object) -> int:  # (root may write anywhere)
        if os.path.dirname(path) == ".":
            raise PermissionError(13, "Permission denied", path)
        return real_open(path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", read_only_here)
    res = play("--seed", "3", "--human", "0", input="1\n" * 400)
    monkeypatch.undo()
    assert res.exit_code == 0, res.output
    path = temp / "play-classic-seed3-game0.txt"
    assert res.stdout.splitlines()[-1].startswith(f"   the trace is in {path} ")
    assert path.read_text().startswith("== Round 1:") and os.listdir(tmp_path) == ["tmp"]


# --- advise --------------------------------------------------------------------------------
POSITION = "hand: [BD2, B5, R9]\ntop: B3\nhands: [3, 1, 6, 6]\ndirection: -1\ndraw: 40\n"


def _advise(tmp_path: Path, *args: str, text: str = POSITION):
    pos = tmp_path / "position.yaml"
    pos.write_text(text)
    res = CliRunner().invoke(main, ["advise", str(pos), *args])
    assert res.exit_code == 0, res.output
    return res


def test_advise_shows_the_position_before_its_table(tmp_path: Path) -> None:
    out = _advise(tmp_path, "--playouts", "50").stdout.splitlines()
    assert out[:5] == [
        "seat 0 to act (turn):",
        "  top B3, color B (blue), direction -1",
        "  hand: R9 B5 BD2",
        "  cards: P0 (to act) 3, P1 1, P2 6, P3 6; draw pile 40",
        "win chance, 95% interval:",
    ]
    assert len(out) == 5 + 3  # one row per legal action, no precision line without it


def test_advise_shows_a_pending_draw(tmp_path: Path) -> None:
    # seat 0's WD4 leaves seat 1 a pending draw of 4 to accept or challenge
    text = "hand: [WD4, G5]\ntop: B3\nhands: [2, 4, 4]\nmoves: [WD4, color R]\n"
    res = _advise(tmp_path, "--playouts", "20", "--format", "json", text=text)
    data = json.loads(res.stdout)
    assert data["phase"] == "pending" and data["position"]["pending"] == 4
    assert data["position"]["seat"] == 1 and data["position"]["hands"] == [1, 4, 4]
    text_out = _advise(tmp_path, "--playouts", "20", text=text).stdout
    assert ", pending draw 4\n" in text_out and "seat 1 to act (pending):" in text_out


def test_advise_json_says_whether_the_precision_was_met(tmp_path: Path) -> None:
    met = json.loads(_advise(tmp_path, "--format", "json", "--playouts", "100000",
                             "--precision", "0.05").stdout)
    assert met["position"] == {"seat": 0, "hand": ["R9", "B5", "BD2"], "top": "B3", "color": "B",
                               "direction": -1, "hands": [3, 1, 6, 6], "pending": 0, "draw": 40}
    p = met["precision"]
    assert p["target"] == 0.05 and p["met"] is True and p["half_width"] <= 0.05
    assert p["playouts"] < p["max_playouts"] == 100000
    assert p["half_width"] == max((r["high"] - r["low"]) / 2 for r in met["actions"])
    short = json.loads(_advise(tmp_path, "--format", "json", "--playouts", "30",
                               "--precision", "0.01").stdout)["precision"]
    assert short["met"] is False and short["half_width"] > 0.01 and short["playouts"] == 30
    free = json.loads(_advise(tmp_path, "--format", "json", "--playouts", "30").stdout)
    assert free["precision"]["target"] is None and free["precision"]["met"] is None


def test_advise_text_says_whether_the_precision_was_met(tmp_path: Path) -> None:
    last = _advise(tmp_path, "--playouts", "30", "--precision", "0.01").stdout.splitlines()[-1]
    assert last.startswith("precision 0.01 not met: the widest interval is +-")
    assert last.endswith("after 30 playouts per action (the --playouts limit)")
