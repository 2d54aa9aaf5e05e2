"""The round viewer: the engine's table after every event, and the page in Chromium.

The snapshots come from `unosim.engine.replay.replay` (the engine follows the
trace); the page (`unosim view`) only draws them. Checked here: the table at
each round's ``end`` holds the hands the trace's ``end`` event lists, the scores
are the trace's, a tampered or truncated trace is handled, the command's bad
inputs are one line and exit 2, and in headless Chromium stepping changes the
hands shown, End shows the ``end`` event's hands, a seat's view hides the other
hands, and the console stays clean.
"""

from __future__ import annotations

import base64
import copy
import json
import re
import shlex
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from test_browser import PNG_MAGIC, Browser, browser  # noqa: F401 (browser: the fixture)

from unosim.cli.app import main
from unosim.engine.game import play_game, traced_game
from unosim.engine.kernel.state import compile_config
from unosim.engine.replay import Table, TraceReplayError, replay
from unosim.engine.trace import to_jsonl
from unosim.report.viewer import (
    COLOR_WORDS,
    STACK_CANDIDATES,
    event_words,
    pick_examples,
    stack_chain,
    viewer_data,
    write_examples,
    write_viewer,
)
from unosim.rules.config import config_to_dict, load_config, validate_config

CASES = [  # (config, overrides, seeds)
    ("classic", [], (1, 2, 3)),
    ("stacking", [], (4, 5)),
    ("stacking_full", [], (6,)),
    ("seven_o", [], (7, 8, 9)),
    ("jump_in", [], (10,)),
    ("match", ["target=150"], (11,)),
    ("match", ["target=150", "scoring=elimination", "players=3"], (12,)),
    ("match", ["target=150", "scoring=partners"], (13,)),
    *((name, [], (14,)) for name in ("classic_1992", "disney100", "disney_wish", "encanto",
                                     "draw_until_play", "two_player_reverse",
                                     "party_8p_2decks", "chaos")),
    ("flip", [], (15, 16)),
    ("flip", ["players=6", "mode=match", "target=150"], (17,)),
]


def _trace(config: str, sets: list[str], seed: int, game: int = 0) -> list[dict[str, Any]]:
    return play_game(compile_config(load_config(config, sets)), seed, game)


def _hands(tb: Table) -> list[Counter[str]]:
    return [Counter(h) for h in tb.hands]


@pytest.mark.parametrize(("config", "sets", "seed"),
                         [(c, s, seed) for c, s, seeds in CASES for seed in seeds])
def test_the_table_at_each_end_is_the_end_event(config: str, sets: list[str],
                                                 seed: int) -> None:
    events = _trace(config, sets, seed)
    tables, complete = replay(events)
    assert complete and len(tables) == len(events)
    ends = [i for i, e in enumerate(events) if e["e"] == "end"]
    assert ends
    for i in ends:
        assert _hands(tables[i]) == [Counter(h) for h in events[i]["hands"]]
        assert tables[i].winner == events[i]["winner"]
    for e, tb in zip(events, tables, strict=True):
        if e["e"] == "turn":  # what the turn event shows, the table shows
            assert (tb.turn, tb.color, tb.top) == (e["p"], e["color"], e["top"])
        if e["e"] in ("score", "match_end"):
            assert tb.scores == tuple(e["scores"])
    assert any(tb.exact for tb in tables)  # read from the engine at the end of actions
    if events[-1]["e"] == "match_end":
        assert tables[-1].scores == tuple(events[-1]["scores"])
    # every card is somewhere: hands + draw + discard is the deck at every step
    deck = sum(len(h) for h in events[0]["hands"]) + len(events[0]["draw"])
    for tb in tables:
        if tb.top is not None or tb.discard:
            assert sum(map(len, tb.hands)) + tb.draw + tb.discard == deck


@pytest.mark.parametrize(("config", "sets", "seed"),
                         [(c, s, seeds[0]) for c, s, seeds in CASES])
def test_the_game_s_own_actions_give_the_same_tables(config: str, sets: list[str],
                                                     seed: int) -> None:
    """A game just played is followed by trying its own actions (`Round.history`) first:
    the tables are those of the full search, and wrong actions fall back to it."""
    r = traced_game(compile_config(load_config(config, sets)), seed, 0)
    events = r.events()
    assert len(r.history) > 0
    full = replay(events)
    assert replay(events, r.history) == full
    assert replay(events, r.history[::-1]) == full


def test_a_bluffing_seat_s_game_replays() -> None:
    """A trace does not say which seats' policies bluff (a ``play --human`` seat may): the
    replay follows a WD4 played holding the active colour, and the challenge that caught it."""
    data = config_to_dict(load_config("classic", ["players=2"]))
    data["seats"] = [{"policy": "strategic", "params": {"bluff_rate": 1.0}},
                     {"policy": "strategic", "params": {"challenge_threshold": 0.0}}]
    cc = compile_config(validate_config(data))
    caught = 0
    for seed in range(8):
        events = play_game(cc, seed)
        caught += sum(e["e"] == "challenge" and e["success"] for e in events)
        tables, complete = replay(events)
        assert complete and len(tables) == len(events)
    assert caught > 0


def test_seven_o_swaps_are_shown_as_they_happen() -> None:
    for seed in range(20, 60):
        events = _trace("seven_o", [], seed)
        swaps = [i for i, e in enumerate(events) if e["e"] in ("swap", "rotate")]
        if swaps:
            break
    assert swaps, "no swap in seeds 20-59"
    tables, _ = replay(events)
    i = swaps[0]
    assert tables[i].hands != tables[i - 1].hands


@pytest.mark.slow  # up to a minute on a loaded machine
@pytest.mark.parametrize(("config", "sets"), [("classic", []), ("match", ["target=150"])])
def test_a_truncated_trace_shows_what_there_is(config: str, sets: list[str]) -> None:
    events = _trace(config, sets, 1)
    whole, _ = replay(events)
    for n in range(1, min(len(events), 80)):  # cut anywhere, inside an action too
        tables, complete = replay(events[:n])
        assert not complete and len(tables) == n
        assert [tb.hands for tb in tables] == [tb.hands for tb in whole[:n]]


def test_a_tampered_trace_is_refused() -> None:
    events = _trace("classic", [], 2)
    i = next(i for i, e in enumerate(events) if e["e"] == "play" and i > 5)
    bad = copy.deepcopy(events)
    bad[i]["card"] = "WD4" if bad[i]["card"] != "WD4" else "R1"
    with pytest.raises(TraceReplayError):
        replay(bad)
    worse = copy.deepcopy(events)
    worse[0]["hands"][0] = ["R1"] * 7
    with pytest.raises(TraceReplayError):
        replay(worse)


def test_an_edition_s_colours_are_its_own() -> None:
    data = viewer_data(_trace("disney_wish", [], 4))
    assert data["colors"] == {"R": "pink", "Y": "gold", "G": "purple", "B": "blue"}
    assert data["palette"]["G"] != viewer_data(_trace("classic", [], 4))["palette"]["G"]


def test_event_words() -> None:
    assert event_words({"e": "draw", "p": 3, "cards": ["B1", "G4"], "cause": "draw2"}) == \
        "seat 3 draws 2 (Draw Two)"
    assert event_words({"e": "swap", "a": 0, "b": 2}) == "seat 0 swaps hands with seat 2"
    data = viewer_data(_trace("stacking", [], 4), seat=1)
    assert data["seat"] == 1 and all(s["words"] for s in data["steps"])
    events = _trace("stacking", [], 5)  # a Wild turned up: the first seat names a colour
    assert events[1]["card"] == "W" and events[2]["e"] == "turn"
    assert viewer_data(events)["steps"][2]["words"].startswith(
        f"seat {events[2]['p']} names {COLOR_WORDS[events[2]['color']]} for the W; ")


# --- example games of a run ----------------------------------------------------------------
@pytest.mark.parametrize(("config", "extra"), [("jump_in", "most_jumps"),
                                               ("stacking_full", "longest_stack")])
def test_examples_are_the_games_they_claim(tmp_path: Path, config: str, extra: str) -> None:
    cc = compile_config(load_config(config))
    games = range(100, 220)
    picks = pick_examples(cc, 4, games)
    assert set(picks) == {"typical", "longest", extra}
    traced = {g: play_game(cc, 4, g) for g in games}  # the same games, traced
    turns = {g: sum(e["turns"] for e in ev if e["e"] == "end") for g, ev in traced.items()}
    assert turns[picks["typical"]] == sorted(turns.values())[(len(games) - 1) // 2]
    assert turns[picks["longest"]] == max(turns.values())
    if extra == "most_jumps":
        jumps = {g: sum(e["e"] == "jump" for e in ev) for g, ev in traced.items()}
        assert jumps[picks[extra]] == max(jumps.values()) > 0
    else:  # the longest chain among the games with the most stacked cards drawn
        stacked = {g: sum(len(e["cards"]) for e in ev if e["e"] == "draw"
                          and e["cause"] == "stack") for g, ev in traced.items()}
        top = sorted(games, key=lambda g: -stacked[g])[:STACK_CANDIDATES]
        chains = {g: stack_chain(traced[g]) for g in top}
        assert stack_chain(traced[picks[extra]]) == max(chains.values()) > 1
    pages = write_examples(cc, 4, games, tmp_path, name=config)
    for what, (g, path) in pages.items():
        assert g == picks[what] and path == tmp_path / f"{config}-{g}.html" and path.is_file()


# --- the command --------------------------------------------------------------------------
def _run(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


def test_view_writes_one_offline_page(tmp_path: Path) -> None:
    trace = tmp_path / "round.jsonl"
    trace.write_text(to_jsonl(_trace("classic", [], 3)))
    res = _run("view", str(trace), "--quiet")
    assert res.exit_code == 0, res.output
    page = (tmp_path / "round.html").read_text()
    assert '<script id="data"' in page
    for ref in ("src=\"http", "href=\"http", "@import", "url(http"):
        assert ref not in page  # nothing fetched: style, script and data are inline


@pytest.mark.parametrize(("content", "message"), [
    (None, "No such file"),
    ("", "no events"),
    ("not json\n", "line 1: not JSON"),
    ('{"e": "turn", "p": 0}\n', "starts with a deal"),
    ("[1, 2]\n", "not a trace event"),
    ("[" * 100_000 + "\n", "nests"),
])
def test_view_bad_input_is_one_line(tmp_path: Path, content: str | None, message: str) -> None:
    trace = tmp_path / "t.jsonl"
    if content is not None:
        trace.write_text(content)
    res = _run("view", str(trace))
    assert res.exit_code == 2
    assert message in res.output and res.output.count("\n") == 1, res.output


@pytest.mark.parametrize("tamper", ["rules", "card"])
def test_view_refuses_a_trace_the_engine_cannot_follow(tmp_path: Path, tamper: str) -> None:
    events = _trace("classic", [], 2)
    if tamper == "rules":
        events[0]["rules"]["players"] = 99
    else:
        i = next(i for i, e in enumerate(events) if e["e"] == "play" and i > 5)
        events[i]["card"] = "WD4" if events[i]["card"] != "WD4" else "R1"
    trace = tmp_path / "t.jsonl"
    trace.write_text(to_jsonl(events))
    res = _run("view", str(trace), "--seat", "1", "--quiet")
    assert res.exit_code == 2 and res.output.count("\n") == 1, res.output
    assert res.output.startswith("unosim: error: ") and not (tmp_path / "t.html").exists()


def test_view_reads_a_long_line_with_a_bound(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    trace.write_bytes(b"x" * (2 << 20))
    res = _run("view", str(trace))
    assert res.exit_code == 2 and "longer than" in res.output


# --- in Chromium ---------------------------------------------------------------------------
class Page:
    """One tab on a viewer page; ``js`` evaluates an expression there."""

    def __init__(self, b: Browser, url: str) -> None:
        self.b = b
        self.target = b.send("Target.createTarget", url="about:blank")["targetId"]
        self.session = b.send("Target.attachToTarget", targetId=self.target,
                              flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            b.send(f"{domain}.enable", self.session)
        b.send("Page.navigate", self.session, url=url)
        b.wait_for("Page.loadEventFired", self.session)

    def js(self, expr: str) -> Any:
        r = self.b.send("Runtime.evaluate", self.session, expression=expr, returnByValue=True)
        assert "exceptionDetails" not in r, r["exceptionDetails"]
        return r["result"].get("value")

    def key(self, key: str) -> None:
        for kind in ("keyDown", "keyUp"):
            self.b.send("Input.dispatchKeyEvent", self.session, type=kind, key=key, code=key,
                        windowsVirtualKeyCode={"ArrowRight": 39, "ArrowLeft": 37, "Home": 36,
                                               "End": 35}[key])

    def hands(self) -> list[list[str | None]]:
        """The cards each seat shows (None for a card face down)."""
        return self.js("""Array.from(document.querySelectorAll('.seat'), s =>
            Array.from(s.querySelectorAll('.card'), c =>
              c.classList.contains('back') ? null : c.title))""")

    def errors(self) -> list[dict[str, Any]]:
        self.js("1")  # a round trip: messages logged before it have arrived
        return [e for e in self.b.events if e.get("sessionId") == self.session and (
            e.get("method") == "Runtime.exceptionThrown"
            or (e.get("method") == "Runtime.consoleAPICalled"
                and e["params"].get("type") in ("error", "assert"))
            or (e.get("method") == "Log.entryAdded"
                and e["params"]["entry"].get("level") == "error"))]

    def close(self) -> None:
        self.b.send("Target.closeTarget", targetId=self.target)


@pytest.mark.parametrize(("config", "sets", "seed"), [
    ("seven_o", [], 8), ("stacking", [], 5), ("match", ["target=150"], 11)])
def test_viewer_steps_in_chromium(browser: Browser, tmp_path: Path, config: str,  # noqa: F811
                                  sets: list[str], seed: int) -> None:
    events = _trace(config, sets, seed)
    page_file = write_viewer(events, tmp_path / "viewer.html")
    page = Page(browser, page_file.as_uri())
    try:
        assert page.js("window.viewer.steps") == len(events)
        assert page.js("window.viewer.at") == 0
        dealt = page.hands()
        assert [Counter(h) for h in dealt] == [Counter(h) for h in events[0]["hands"]]
        seen = [dealt]
        for _ in range(12):  # the arrow key steps one event; the hands change on the way
            page.key("ArrowRight")
            seen.append(page.hands())
        assert page.js("window.viewer.at") == 12
        assert any(h != dealt for h in seen)
        page.key("ArrowLeft")
        assert page.js("window.viewer.at") == 11 and page.hands() == seen[11]
        page.js("document.getElementById('next').click()")
        assert page.js("window.viewer.at") == 12 and page.hands() == seen[12]
        page.key("End")
        assert page.js("window.viewer.at") == len(events) - 1
        end = max(i for i, e in enumerate(events) if e["e"] == "end")
        assert [Counter(h) for h in page.hands()] == [Counter(h) for h in events[end]["hands"]]
        words = page.js("document.getElementById('words').textContent")
        assert words.lower() == event_words(events[-1]).lower()
        if events[-1]["e"] == "match_end":
            shown = page.js("Array.from(document.querySelectorAll('.seat .n'), n => n.textContent)")
            assert [int(s.split("\u00b7")[1].split()[0]) for s in shown] == events[-1]["scores"]
        page.js("window.viewer.setView(1)")  # seat 1's view: only its own cards face up
        for q, h in enumerate(page.hands()):
            assert all((c is None) == (q != 1) for c in h)
        page.key("Home")
        assert page.js("window.viewer.at") == 0
        assert page.js("location.hash") == "#event=1&seat=1"  # the address links this view
        size = browser.send("Page.getLayoutMetrics", page.session)["cssContentSize"]
        shot = browser.send("Page.captureScreenshot", page.session, format="png",
                            captureBeyondViewport=True,
                            clip={"x": 0, "y": 0, "width": size["width"],
                                  "height": min(size["height"], 4000), "scale": 1})
        png = base64.b64decode(shot["data"])
        assert png[:8] == PNG_MAGIC
        (tmp_path / f"{config}.png").write_bytes(png)
        errors = page.errors()
    finally:
        page.close()
    assert not errors, f"console errors: {json.dumps(errors)[:2000]}"


def test_a_link_opens_at_an_event_and_a_seat(browser: Browser, tmp_path: Path) -> None:  # noqa: F811
    events = _trace("classic", [], 3)
    uri = write_viewer(events, tmp_path / "v.html").as_uri()
    page = Page(browser, uri + "#event=20&seat=2")
    try:
        assert page.js("window.viewer.at") == 19
        play = "document.getElementById('play')"
        assert page.js(f"{play}.click(), {play}.textContent") == "pause"
        assert page.js(f"{play}.click(), {play}.textContent") == "play"
        assert page.js("document.getElementById('view').value") == "2"
        for q, h in enumerate(page.hands()):
            assert all((c is None) == (q != 2) for c in h)
        errors = page.errors()
    finally:
        page.close()
    assert not errors, f"console errors: {json.dumps(errors)[:2000]}"


def test_a_flip_game_in_chromium(browser: Browser, tmp_path: Path) -> None:  # noqa: F811
    """UNO Flip: cards show their face in play with the other face small; the side in play
    is shown; a seat's view shows the backs (other faces) of the others' cards and of the
    draw pile's top card, as a seat at the table sees them (docs/rules.md section 11)."""
    events = next(ev for seed in range(20) for ev in [_trace("flip", ["players=3"], seed)]
                  if any(e["e"] == "flip_all" and e["p"] >= 0 for e in ev))
    flip_at = next(i for i, e in enumerate(events) if e["e"] == "flip_all" and e["p"] >= 0)
    page = Page(browser, write_viewer(events, tmp_path / "flip.html").as_uri())
    faces = """Array.from(document.querySelectorAll('.seat'), s =>
        Array.from(s.querySelectorAll('.card'), c =>
          [c.querySelector('span').textContent, c.querySelector('.other') ?
           c.querySelector('.other').textContent : null, c.className]))"""
    info = "document.getElementById('info').textContent"
    try:
        assert [Counter(h) for h in page.hands()] == [Counter(h) for h in events[0]["hands"]]
        assert "side in playlight" in page.js(info)
        dealt = page.js(faces)  # light faces up front, the dark face in the corner
        hand0 = sorted(events[0]["hands"][0], key=lambda c: c.split("/")[0])
        assert sorted(o for _, o, _ in dealt[0]) == sorted(c.split("/")[1] for c in hand0)
        page.js(f"window.viewer.go({flip_at})")
        assert "side in playdark" in page.js(info)
        top = page.js("document.querySelector('#topcard .card').title")
        assert top == events[flip_at - 1 if events[flip_at - 1]["e"] == "play" else
                             flip_at - 2]["card"]
        shown = page.js(faces)
        assert all(cls.split()[1] in "PTOUW" for h in shown for _, _, cls in h)
        page.js("window.viewer.setView(0)")  # seat 0: the others' backs, its own faces
        seen = page.js(faces)
        for q, h in enumerate(seen):
            assert all(("seen" in cls) == (q != 0) for _, _, cls in h)
            assert all(other is None for _, other, cls in h if "seen" in cls)
        draw = page.js("document.querySelector('#drawcard .card').className")
        assert "seen" in draw or "back" in draw
        size = browser.send("Page.getLayoutMetrics", page.session)["cssContentSize"]
        shot = browser.send("Page.captureScreenshot", page.session, format="png",
                            captureBeyondViewport=True,
                            clip={"x": 0, "y": 0, "width": size["width"],
                                  "height": min(size["height"], 4000), "scale": 1})
        (tmp_path / "flip.png").write_bytes(base64.b64decode(shot["data"]))
        errors = page.errors()
    finally:
        page.close()
    assert not errors, f"console errors: {json.dumps(errors)[:2000]}"


# --- the reports link viewers --------------------------------------------------------------
def _page_data(path: Path) -> dict[str, Any]:
    """The data a viewer page draws (the JSON inline in it)."""
    text = path.read_text()
    blob = text.split('<script id="data" type="application/json">', 1)[1].split("</script>")[0]
    return json.loads(blob.replace("<\\/", "</"))


def _replays_as_played(page: Path, command: str, tmp_path: Path) -> None:
    """``command`` (``unosim play ... --trace-format jsonl``) writes the trace whose viewer
    shows what ``page`` shows, event by event."""
    trace = tmp_path / f"{page.stem}.jsonl"
    res = _run(*shlex.split(command)[1:], "--out", str(trace))
    assert res.exit_code == 0, res.output
    events = [json.loads(x) for x in trace.read_text().splitlines()]
    assert _page_data(page)["steps"] == viewer_data(events)["steps"]


def test_a_run_report_links_replayable_example_games(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "run"
    res = _run("run", "stacking", "--games", "300", "--seed", "3", "--out", str(out), "--quiet",
               "--jobs", "1")
    assert res.exit_code == 0, res.output
    md, page = (out / "report.md").read_text(), (out / "report.html").read_text()
    rows = re.findall(r"\| (.+?) \| \[game (\d+)\]\(([^)]+)\) \| `([^`]+)` \|", md)
    assert {r[0] for r in rows} == {"A typical game (median length)", "The longest game",
                                    "The game with the longest stacking chain"}
    outputs = json.loads((out / "run.json").read_text())["outputs"]
    for _, game, link, command in rows:
        assert f'href="{link}"' in page and (out / link).is_file() and link in outputs
        assert command == f"unosim play stacking --seed 3 --game {game} --trace-format jsonl"
        _replays_as_played(out / link, command, tmp_path)
    # a run of fewer games picks again; the earlier run's pages go
    res = _run("run", "stacking", "--games", "40", "--seed", "3", "--out", str(out), "--quiet",
               "--jobs", "1", "--force")
    assert res.exit_code == 0, res.output
    linked = set(re.findall(r"\]\((example-[^)]+\.html)\)", (out / "report.md").read_text()))
    assert {p.name for p in out.glob("example-*.html")} == linked


def test_a_flip_run_report_links_replayable_example_games(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """``unosim run flip``: its report, SVG charts and example games (UNO Flip pages)."""
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "run"
    res = _run("run", "flip", "--games", "300", "--seed", "3", "--out", str(out), "--quiet",
               "--jobs", "1")
    assert res.exit_code == 0, res.output
    md = (out / "report.md").read_text()
    assert {p.name for p in out.glob("*.svg")} >= {"turns.svg", "draws.svg"}
    rows = re.findall(r"\| (.+?) \| \[game (\d+)\]\(([^)]+)\) \| `([^`]+)` \|", md)
    assert {r[0] for r in rows} >= {"A typical game (median length)", "The longest game"}
    for _, game, link, command in rows:
        assert command == f"unosim play flip --seed 3 --game {game} --trace-format jsonl"
        data = _page_data(out / link)
        assert data["two_sided"] and data["complete"]
        _replays_as_played(out / link, command, tmp_path)


@pytest.mark.slow  # a compare and a sweep run
@pytest.mark.parametrize("kind", ["compare", "sweep"])
def test_compare_and_sweep_show_a_flip_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            kind: str) -> None:
    monkeypatch.chdir(tmp_path)
    args = (["compare", "classic", "flip"] if kind == "compare" else
            ["sweep", "flip", "--vary", "players=2,4"])
    res = _run(*args, "--games", "150", "--out", "s", "--quiet", "--jobs", "1")
    assert res.exit_code == 0, res.output
    md = Path(f"s/{kind}.md").read_text()
    rows = re.findall(r"\| (.+?) \| \[game (\d+)\]\(([^)]+)\) \| `([^`]+)` \|", md)
    assert len(rows) == 2 and "not shown" not in md
    flips = [_page_data(Path("s", link))["two_sided"] for _, _, link, _ in rows]
    assert flips == ([False, True] if kind == "compare" else [True, True])
    for _, _, link, command in rows:
        _replays_as_played(Path("s", link), command, tmp_path)


def test_jump_in_examples_and_a_variant_s_command(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    res = _run("run", "classic", "--set", "house_rules.jump_in=true", "--games", "200",
               "--seed", "2", "--out", "r", "--quiet", "--jobs", "1")
    assert res.exit_code == 0, res.output
    md = Path("r/report.md").read_text()
    rows = re.findall(r"\| (.+?) \| \[game (\d+)\]\(([^)]+)\) \| `([^`]+)` \|", md)
    assert "The game with the most jump-ins" in {r[0] for r in rows}
    for _, _, link, command in rows:  # a variant plays from its resolved config's copy
        assert command.startswith("unosim play r/example-")
        _replays_as_played(Path("r") / link, command, tmp_path)


def test_a_plug_in_run_s_report_says_why_it_has_no_examples(tmp_path: Path) -> None:
    plugin = Path(__file__).resolve().parents[2] / "examples/policies/first_legal.py"
    out = tmp_path / "run"
    res = _run("run", "classic", "--set", f"seats=[{plugin}:FirstLegal, random]",
               "--set", "players=2", "--games", "10", "--out", str(out), "--quiet",
               "--jobs", "1")
    assert res.exit_code == 0, res.output
    md = (out / "report.md").read_text()
    assert "No example games are shown: seat 0 plays a plug-in policy" in md
    assert not list(out.glob("example-*"))


@pytest.mark.slow  # a compare and a sweep run
@pytest.mark.parametrize("kind", ["compare", "sweep"])
def test_compare_and_sweep_link_the_same_game_under_each_rule_set(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    monkeypatch.chdir(tmp_path)
    args = (["compare", "classic", "stacking"] if kind == "compare" else
            ["sweep", "classic", "--vary", "players=2,3"])
    res = _run(*args, "--games", "150", "--out", "s", "--quiet", "--jobs", "1")
    assert res.exit_code == 0, res.output
    md, page = Path(f"s/{kind}.md").read_text(), Path(f"s/{kind}.html").read_text()
    assert "## The same game under each rule set" in md
    rows = re.findall(r"\| (.+?) \| \[game (\d+)\]\(([^)]+)\) \| `([^`]+)` \|", md)
    assert len(rows) == 2 and len({r[1] for r in rows}) == 1  # one game, each rule set
    shown = []
    for _, _, link, command in rows:
        assert f'href="{link}"' in page and Path("s", link).is_file()
        _replays_as_played(Path("s", link), command, tmp_path)
        shown.append(_page_data(Path("s", link)))
    rules = [(d["players"], d["house"]) for d in shown]
    assert rules[0] != rules[1]  # the game under two rule sets


def test_a_report_s_example_link_opens_its_viewer_in_chromium(
        browser: Browser, tmp_path: Path) -> None:  # noqa: F811
    out = tmp_path / "run"
    res = _run("run", "jump_in", "--games", "100", "--seed", "5", "--out", str(out), "--quiet",
               "--jobs", "1")
    assert res.exit_code == 0, res.output
    page = Page(browser, (out / "report.html").as_uri())
    try:
        links = page.js("Array.from(document.querySelectorAll('a[href^=\"example-\"]'), "
                        "a => a.getAttribute('href'))")
        assert len(links) == 3
        seen = len(page.b.events)  # the report's own load event is already there
        page.js(f"document.querySelector('a[href=\"{links[-1]}\"]').click()")
        page.b.wait_for("Page.loadEventFired", page.session, since=seen)
        assert page.js("location.pathname").endswith(links[-1])
        assert page.js("window.viewer.steps") == len(_page_data(out / links[-1])["steps"])
        page.key("End")
        assert "jumps in" in page.js(
            "Array.from(document.querySelectorAll('#log li'), li => li.textContent)"
            ".join(' ')")
        errors = page.errors()
    finally:
        page.close()
    assert not errors, f"console errors: {json.dumps(errors)[:2000]}"
