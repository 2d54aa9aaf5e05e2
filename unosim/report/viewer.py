"""The round viewer: one self-contained HTML page that replays a trace event by event.

The page knows no rules. `unosim.engine.replay.replay` rebuilds the table after
every event with the compiled engine; this module writes those tables, and each
event in words, as JSON inside ``templates/viewer.html``, whose script only
draws them (hands face up or from one seat's view, the top card, the colour,
the direction, the draw pile, scores) and steps through them with buttons and
the keyboard. No network: the style, the script and the data are inline.

`write_viewer` is what ``unosim view`` calls, and what a report calls to link
an example round.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from unosim.engine.replay import PENALTIES, Table, replay
from unosim.engine.trace import deal_is_two_sided, face
from unosim.rules.settings import house_rule_switches, setting_phrase, switches
from unosim.run.files import write_output, write_text

# a trace event (docs/trace.md): its keys depend on its kind
Event = dict[str, Any]

if TYPE_CHECKING:
    from unosim.engine.kernel.state import CompiledConfig
    from unosim.report.render import Doc
    from unosim.rules.config import GameConfig

__all__ = ["EXAMPLE_LIMIT", "EXAMPLE_TITLES", "event_words", "pick_examples", "stack_chain",
           "viewer_data", "viewer_html", "write_examples", "write_viewer"]

COLOR_WORDS = {"R": "red", "Y": "yellow", "G": "green", "B": "blue"}
# UNO Flip's dark side: its four colours' letters (docs/rules.md section 11)
DARK_COLOR_WORDS = {"P": "pink", "T": "teal", "O": "orange", "U": "purple"}
CAUSE_WORDS = {
    "turn": "", "draw2": " (Draw Two)", "wd4": " (Wild Draw Four)", "stack": " (stacked penalty)",
    "challenge": " (challenge)", "uno": " (missed UNO)", "special": " (special wild)",
    "dont_talk": " (talked while silenced)",
    "draw_until_color": " (until a card of the named colour comes)",
}
# what a colour name looks like on the page: an edition may print other colours
# (Disney Wish: pink, gold, purple, blue); a name not listed keeps its slot's colour
PALETTE = {"red": "#d7263d", "yellow": "#f4c20d", "green": "#1e9e4a", "blue": "#1f6fd6",
           "pink": "#e0457b", "gold": "#d9a520", "purple": "#7d3fb8", "orange": "#f07f1a",
           "teal": "#159a9c", "black": "#222222"}
SPECIAL_WORDS = {"movie_madness": "Movie Madness", "wishing_star": "Wishing Star",
                 "dont_talk": "Don't Talk"}


class Step(TypedDict):
    """One event on the page: the event in words and the table after it."""

    e: str
    words: str
    round: int
    hands: list[str]
    draw: int
    discard: int
    top: str | None
    color: str | None
    dir: int
    turn: int | None
    pending: int | None
    scores: list[int] | None
    active: list[int]
    winner: int | None
    actors: list[int]
    exact: bool
    side: str  # the side in play (UNO Flip; always light for one-sided cards)
    draw_top: str | None  # UNO Flip: the draw pile's top card (its back shows)


class ViewerData(TypedDict):
    """What the page shows (inlined as JSON into its template)."""

    title: str
    edition: str | None
    players: int
    mode: str
    scoring: str | None
    house: list[str]
    colors: dict[str, str]
    palette: dict[str, str]
    two_sided: bool  # UNO Flip: cards are "light/dark", the side in play shows
    seat: int | None
    complete: bool
    steps: list[Step]


def _seat(p: object) -> str:
    return "nobody" if p is None else f"seat {p}"


def event_words(e: Event, colors: dict[str, str] = COLOR_WORDS,
                side: str = "light") -> str:
    """One trace event as a sentence; a UNO Flip card is named by its face on ``side``,
    the side in play.

    >>> event_words({"e": "play", "p": 2, "card": "R7", "color": "R"})
    'seat 2 plays R7'
    >>> event_words({"e": "draw", "p": 3, "cards": ["B1", "G4"], "cause": "draw2"})
    'seat 3 draws 2 (Draw Two)'
    >>> event_words({"e": "play", "p": 0, "card": "WD4", "color": "B"})
    'seat 0 plays WD4 and names blue'
    >>> event_words({"e": "play", "p": 1, "card": "R5/WK", "color": "T"},
    ...             {"T": "teal"}, "dark")
    'seat 1 plays WK and names teal'
    >>> event_words({"e": "flip_all", "p": 1, "side": "dark", "color": "T"}, {"T": "teal"})
    'everything turns over: the dark side is in play, colour teal'
    """
    k = e.get("e")
    if isinstance(e.get("card"), str):
        e = {**e, "card": face(e["card"], side)}
    if isinstance(e.get("top"), str):
        e = {**e, "top": face(e["top"], side)}
    if k == "deal":
        size = max((len(h) for h in e["hands"]), default=0)
        return (f"round {e.get('round', 0) + 1}: seat {e['dealer']} deals {size} cards to each "
                f"of {len(e['active'] if 'active' in e else e['hands'])} seats")
    if k == "flip":
        return f"{e['card']} is turned up to start the discard pile"
    if k == "return":
        return f"{e['card']} goes back into the draw pile"
    if k == "turn":
        return f"{_seat(e['p'])}'s turn (top {e['top']}, colour {colors.get(e['color'], '?')})"
    if k == "play":
        named = f" and names {colors.get(e['color'], '?')}" if e["card"].startswith("W") else ""
        return f"{_seat(e['p'])} plays {e['card']}{named}"
    if k == "draw":
        n = len(e["cards"])
        return (f"{_seat(e['p'])} draws {n}" if n != 1 else f"{_seat(e['p'])} draws a card") + \
            CAUSE_WORDS.get(e["cause"], f" ({e['cause']})")
    if k == "reshuffle":
        return f"the discard pile is shuffled into a new draw pile of {len(e['draw'])}"
    if k == "skip":
        return f"{_seat(e['p'])} is skipped"
    if k == "reverse":
        return "play reverses: " + ("seat numbers now go up" if e["direction"] > 0
                                    else "seat numbers now go down")
    if k == "challenge":
        return (f"{_seat(e['p'])} challenges {_seat(e['target'])}'s Wild Draw Four: "
                + ("it was a bluff" if e["success"] else "it was legal"))
    if k == "uno":
        return _seat(e["p"]) + (" calls UNO!" if e["called"] else
                                " forgets to call UNO and is caught" if e["caught"] else
                                " forgets to call UNO (nobody notices)")
    if k == "jump":
        return f"{_seat(e['p'])} jumps in with {e['card']}"
    if k == "swap":
        return f"{_seat(e['a'])} swaps hands with {_seat(e['b'])}"
    if k == "rotate":
        return "every hand passes to the " + ("next higher seat" if e["direction"] > 0
                                              else "next lower seat")
    if k == "special":
        name = SPECIAL_WORDS.get(e.get("special", ""), "special wild")
        if e.get("special") == "wishing_star":
            shown = e.get("outcome") or []
            return f"{name}: " + (
                "nobody shows an icon card" if not shown else
                f"seat {shown[0]} shows an icon card" if len(shown) == 1 else
                f"seats {', '.join(map(str, shown))} show an icon card")
        return f"{name}: {_seat(e.get('target'))} {e.get('outcome')}"
    if k in ("flip_all", "skip_all", "discard", "out"):
        return _section_11_words(e, colors, side)
    if k == "silence_end":
        return f"{_seat(e['p'])} may talk again"
    if k == "slip":
        return f"{_seat(e['p'])} talked while silenced"
    if k == "end":
        if e["winner"] is None:
            return f"stalemate after {e['turns']} turns"
        return (f"{_seat(e['winner'])} goes out after {e['turns']} turns; "
                f"the round is worth {e['points']} points")
    if k == "score":
        out = f"scores: {', '.join(f'seat {p} {s}' for p, s in enumerate(e['scores']))}"
        return out + (f"; out of the match: {e['eliminated']}" if e.get("eliminated") else "")
    if k == "match_end":
        w = e["winner"]
        who = ("nobody (the match hit its round limit)" if w is None else
               " & ".join(_seat(x) for x in w) if isinstance(w, list) else _seat(w))
        return f"the match is over: {who} wins"
    return str(k)


def _section_11_words(e: Event, colors: dict[str, str], side: str) -> str:
    """The sentence of an event of docs/rules.md section 11's effects."""
    k, who, cards = e["e"], _seat(e.get("p")), e.get("cards", [])
    if k == "flip_all":
        c = e.get("color")
        return (("the first card is a Flip: " if e.get("p") == -1 else "everything turns over: ")
                + f"the {e.get('side')} side is in play"
                + (f", colour {colors.get(c, '?')}" if c else ", a wild on top"))
    return {"skip_all": f"{who} skips everyone",
            "discard": f"{who} also discards {' '.join(face(c, side) for c in cards)}",
            "out": f"{who} holds {len(cards)} cards and is out of the round"}[k]


def _actors(e: Event) -> list[int]:
    """The seats an event is about (highlighted on the page)."""
    if e.get("e") == "swap":
        return [e["a"], e["b"]]
    if e.get("e") == "end" and e.get("winner") is not None:
        return [e["winner"]]
    return [e["p"]] if isinstance(e.get("p"), int) else []


def _step(e: Event, tb: Table, colors: dict[str, str],
          before: Event | None) -> Step:
    words = event_words(e, colors, tb.side)
    if e["e"] == "turn" and before is not None and (
            (before["e"] == "flip" and face(before["card"], "light").startswith("W"))
            or (before["e"] == "flip_all" and before.get("color") is None)):
        # the colour named for a turned-up wild: no event of its own
        top = face(e["top"], tb.side)
        words = f"{_seat(e['p'])} names {colors.get(e['color'], '?')} for the {top}; " + words
    return {"e": e["e"], "words": words, "round": tb.round,
            "hands": [" ".join(h) for h in tb.hands], "draw": tb.draw, "discard": tb.discard,
            "top": tb.top, "color": tb.color, "dir": tb.direction, "turn": tb.turn,
            "pending": tb.pending, "scores": None if tb.scores is None else list(tb.scores),
            "active": list(tb.active), "winner": tb.winner, "actors": _actors(e),
            "exact": tb.exact, "side": tb.side, "draw_top": tb.draw_top}


def viewer_data(events: Sequence[Event], title: str | None = None,
                seat: int | None = None, actions: Sequence[int] | None = None
                ) -> ViewerData:
    """What the page shows: one step per event (the table after it, the event in words).

    Raises `unosim.engine.replay.TraceReplayError` when the engine cannot follow
    the trace."""
    tables, complete = replay(events, actions)
    deal = events[0]
    rules = deal.get("rules", {})
    colors = _color_words(str(deal.get("edition", "")))
    labels = house_rule_switches()
    printed = {s.key: s.default for s in switches()}  # the rulings' printed values too
    house = [labels.get(key, k) if v is True
             else setting_phrase(key, v) if key in labels else f"{k} {v}"
             for k, v in _flat(rules.get("house_rules", {}))
             for key in [f"house_rules.{k}"] if v != printed.get(key, False)]
    players = int(deal["players"])
    if seat is not None and not 0 <= seat < players:
        raise ValueError(f"seat {seat}: the game has seats 0-{players - 1}")
    return {
        "title": title or f"{deal.get('edition', 'UNO')} — {players} players",
        "edition": deal.get("edition"),
        "players": players,
        "mode": rules.get("mode", "round"),
        "scoring": rules.get("scoring"),
        "house": house,
        "colors": colors,
        "palette": {c: PALETTE.get(name, PALETTE[{**COLOR_WORDS, **DARK_COLOR_WORDS}[c]])
                    for c, name in colors.items()},
        "two_sided": deal_is_two_sided(deal),
        "seat": seat,
        "complete": complete,
        "steps": [_step(e, tb, colors, events[i - 1] if i else None)
                  for i, (e, tb) in enumerate(zip(events, tables, strict=True))],
    }


def _flat(d: Mapping[str, object], prefix: str = "") -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for k, v in d.items():
        out += _flat(v, f"{prefix}{k}.") if isinstance(v, dict) else [(prefix + k, v)]
    return out


def _color_words(edition: str) -> dict[str, str]:
    """The edition's own colour names (an edition may relabel the four colours; UNO
    Flip's dark side has four more)."""
    from unosim.rules.editions import load_edition

    try:
        ed = load_edition(edition)
    except Exception:  # an unknown edition already failed the replay; keep the defaults
        return dict(COLOR_WORDS)
    out = {c: str(label).lower() for c, label in zip("RYGB", ed.colors, strict=True)}
    if ed.dark_colors:
        out.update((c, str(label).lower())
                   for c, label in zip(DARK_COLOR_WORDS, ed.dark_colors, strict=True))
    return out


def viewer_html(data: ViewerData) -> str:
    """The page: the template with the data inline (``</`` escaped inside the script)."""
    template = resources.files("unosim.report").joinpath("templates/viewer.html").read_text(
        encoding="utf-8")
    blob = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    return (template.replace("{{TITLE}}", html.escape(data["title"]))
            .replace("{{DATA}}", blob))


def write_viewer(events: Sequence[Event], path: str | Path, *,
                 title: str | None = None, seat: int | None = None,
                 actions: Sequence[int] | None = None) -> Path:
    """Write the viewer of the trace ``events`` (a round or a match) to ``path``.

    ``seat`` opens the page from that seat's view (the others' cards face down);
    the page can switch views. ``actions``: the game's own actions, when it was
    just played (`unosim.engine.replay.replay` then follows it much faster).
    Raises `TraceReplayError` (a `ValueError`) when the trace cannot be followed."""
    out = Path(path)  # a FIFO or a device is written as a stream, never replaced
    write_output(out, viewer_html(viewer_data(events, title=title, seat=seat,
                                              actions=actions)))
    return out


# --- example games of a run ---------------------------------------------------------------
# Games scanned for examples: the compiled engine plays them again untraced (about a second
# on a loaded machine), so a report of a million rounds writes as fast as one of ten thousand.
EXAMPLE_LIMIT = 10_000
STACK_CANDIDATES = 10  # games traced to find the longest stacking chain
EXAMPLE_TITLES = {"typical": "a typical game (median length)", "longest": "the longest game",
                  "longest_stack": "the game with the longest stacking chain",
                  "most_jumps": "the game with the most jump-ins"}


def stack_chain(events: Sequence[Event]) -> int:
    """The most Draw Two / Wild Draw Four cards played into one stack that a seat then
    drew (0: no stacked penalty was drawn).

    >>> stack_chain([{"e": "play", "card": "RD2"}, {"e": "play", "card": "BD2"},
    ...              {"e": "play", "card": "WD4"}, {"e": "draw", "cause": "stack"}])
    3
    """
    best = chain = 0
    for e in events:
        if e["e"] == "deal":
            chain = 0
        elif e["e"] == "play" and (e["card"].endswith("D2") or e["card"] == "WD4"):
            chain += 1
        elif e["e"] == "draw" and e["cause"] in PENALTIES:
            if e["cause"] == "stack":
                best = max(best, chain)
            chain = 0
    return best


def pick_examples(cc: CompiledConfig, seed: int, games: range) -> dict[str, int]:
    """Example games of ``games`` (of seed ``seed``), by what a reader asks to see:
    ``typical`` (the lower median of turns), ``longest`` (the most turns), and, when
    the rules allow them, ``longest_stack`` (the most penalty cards stacked into one
    chain, `stack_chain`) and ``most_jumps`` (jump-ins). Each is replayable with
    ``play --game G``.

    Played again with the compiled engine, untraced, from the range's first
    `EXAMPLE_LIMIT` games (a bounded cost, whatever the run's size); the stacking
    example traces the `STACK_CANDIDATES` games with the most stacked cards drawn.
    Ties go to the first game."""
    import numpy as np

    from unosim.engine.game import play_game
    from unosim.engine.kernel import state as L
    from unosim.engine.kernel.batch import GF_TURNS, NGF, REC_GAME, REC_STATS, simulate

    if len(games) == 0:
        raise ValueError("no games to pick examples from")
    games = games[:EXAMPLE_LIMIT]
    gf = np.zeros((len(games), NGF), np.int64)
    _, rec = simulate(cc, seed, games.start, len(games), records=True, features=gf)
    assert rec is not None
    turns = gf[:, GF_TURNS]
    median = np.sort(turns)[(len(turns) - 1) // 2]
    out = {"typical": games[int(np.argmax(turns == median))],
           "longest": games[int(np.argmax(turns))]}
    per_game = np.zeros((len(games), 2), np.int64)  # jumps, stacked cards drawn
    np.add.at(per_game, rec[:, REC_GAME] - games.start,
              rec[:, [REC_STATS + L.R_JUMPS, REC_STATS + L.R_DRAW_BY_CAUSE + L.CAUSE_STACK]])
    if per_game[:, 1].any():
        best, most = -1, 0
        for i in np.argsort(-per_game[:, 1], kind="stable")[:STACK_CANDIDATES]:
            if per_game[i, 1] == 0:
                break
            g = games[int(i)]
            chain = stack_chain(play_game(cc, seed, g))
            if chain > most or (chain == most and g < best):
                best, most = g, chain
        if most:
            out["longest_stack"] = best
    if per_game[:, 0].any():
        out["most_jumps"] = games[int(np.argmax(per_game[:, 0]))]
    return out


def write_examples(cc: CompiledConfig, seed: int, games: range, out_dir: str | Path,
                   name: str = "game", prefix: str = "") -> dict[str, tuple[int, Path]]:
    """Pick `pick_examples` of ``games`` and write a viewer for each into ``out_dir``
    (``PREFIXNAME-G.html``); what each is: its game number and page, for a report to
    link. One page serves a game that is two examples."""
    from unosim.engine.game import traced_game

    picks = pick_examples(cc, seed, games)
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    out: dict[str, tuple[int, Path]] = {}
    for what, g in picks.items():
        path = Path(out_dir) / f"{prefix}{name}-{g}.html"
        if all(p != path for _, p in out.values()):
            r = traced_game(cc, seed, g)
            write_viewer(r.events(), path, actions=r.history,
                         title=f"{name}, seed {seed}, game {g}: {EXAMPLE_TITLES[what]}")
        out[what] = (g, path)
    return out


def play_command(cfg: GameConfig, path: Path) -> tuple[str, Path | None]:
    """How to play one game of ``cfg`` again: ``unosim play NAME`` when the config of that
    name is ``cfg`` (seed aside), else the resolved config written to ``path`` (then the
    second item)."""
    from unosim.report.format import config_yaml
    from unosim.rules.config import ConfigError, load_config

    try:
        same = config_yaml(load_config(cfg.name), 0, 0) == config_yaml(cfg, 0, 0)
    except (ConfigError, OSError, ValueError):
        same = False
    if same:
        return f"unosim play {cfg.name}", None
    write_text(path, config_yaml(cfg))
    return f"unosim play {path.as_posix()}", path


# --- the same game under each rule set (compare and sweep pages) ---------------------------
MAX_SIDE_BY_SIDE = 12  # rule sets shown: each is a replay of one game in Python


def same_game_section(doc: Doc, entries: Sequence[tuple[str, GameConfig, int]], games: int,
                      out: Path, stem: str) -> list[Path]:
    """Add to ``doc`` a table linking one game, the first rule set's typical game of
    ``games``, as played under each rule set of ``entries`` (label, config, seed), each a
    viewer page in
    ``out/STEM-game/``; the written files. Plug-in seats and traces the viewer cannot
    follow are a note in the table, never an error."""
    from unosim.engine.game import traced_game
    from unosim.engine.kernel.state import compile_config
    from unosim.engine.plugins import plugin_seats
    from unosim.engine.replay import TraceReplayError
    from unosim.rules.config import name_slug

    doc.h2("The same game under each rule set")
    shown = [i for i, e in enumerate(entries)
             if not plugin_seats(e[1].seat_policies)][:MAX_SIDE_BY_SIDE]
    if not shown or games == 0:
        doc.p("No game is shown: every rule set has a plug-in seat, which the compiled "
              "engine cannot play (`unosim play` can, with `--game G`).")
        return []
    label0, cfg0, seed0 = entries[shown[0]]
    folder = out / f"{stem}-game"
    try:
        game = pick_examples(compile_config(cfg0), seed0, range(games))["typical"]
    except ValueError as exc:
        doc.p(f"No game is shown: {exc}.")
        return []
    folder.mkdir(parents=True, exist_ok=True)
    for stale in [*folder.glob("[0-9][0-9]-*-game*.html"), *folder.glob("[0-9][0-9]-*.yaml")]:
        stale.unlink()  # an earlier study's pages (--force, --resume): only these are linked
    written: list[Path] = []
    rows: list[list[str]] = []
    for i, (label, cfg, seed) in enumerate(entries):
        if i not in shown:
            why = ("a plug-in seat: the compiled engine cannot play it"
                   if plugin_seats(cfg.seat_policies) else
                   f"only the first {MAX_SIDE_BY_SIDE} rule sets are shown")
            rows.append([label, why, ""])
            continue
        stem_i = f"{i:02d}-{name_slug(label)}"  # a sweep's cells share their config's name
        page = folder / f"{stem_i}-game{game}.html"
        try:
            command, config = play_command(cfg, folder / f"{stem_i}.yaml")
            r = traced_game(compile_config(cfg), seed, game)
            write_viewer(r.events(), page, actions=r.history,
                         title=f"{label}, seed {seed}, game {game}")
        except (TraceReplayError, ValueError) as exc:
            rows.append([label, f"not shown: {exc}", ""])
            continue
        written += [page] + ([] if config is None else [config])
        rows.append([label, f"[game {game}]({folder.name}/{page.name})",
                     f"`{command} --seed {seed} --game {game} --trace-format jsonl`"])
    doc.table(["Rule set", "Replay viewer", "Play it again"], rows)
    seeds = {entries[i][2] for i in shown}
    doc.p(f"Game {game} is {label0}'s typical game (median length among its first "
          f"{min(games, EXAMPLE_LIMIT):,} games). "
          + ("With one seed, each rule set plays game " + str(game) + " from the same "
             "random stream, so the pages show how the rules change one game. "
             if len(seeds) == 1 else "The rule sets ran different seeds, so these games "
             "share only their number. ")
          + "Each page is one offline HTML file; open two next to each other and step them "
          "together, or share a link that opens at one event (`#event=N&seat=S`).")
    return written
