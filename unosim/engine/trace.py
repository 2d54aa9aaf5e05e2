"""Render the kernel's event rows as docs/trace.md events, and as readable text.

The kernel writes compact rows (code, a, b, c, card-log offset, length);
this module turns them into the JSON Lines objects of docs/trace.md and
into the human log of ``unosim play``. It needs no `Round`: what an event
shows of the table (hands at the end, scores, seats in play) comes from any
`TraceSource`, read when the rows are rendered.

It also reads a trace file back (`read_events`) as a config file is read:
bounded in bytes, line length and nesting, every event's fields checked for
what a replay reads, every problem one `TraceError` line naming the file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from typing import Any, BinaryIO, Protocol

from numpy.typing import NDArray

from unosim.engine.kernel.state import (
    CAUSE_CHALLENGE,
    CAUSES,
    DRAW_UNTIL_CAUSE,
    EV_CHALLENGE,
    EV_DEAL,
    EV_DISCARD,
    EV_DRAW,
    EV_END,
    EV_FLIP,
    EV_FLIP_ALL,
    EV_JUMP,
    EV_MATCH_END,
    EV_NAMES,
    EV_OUT,
    EV_PLAY,
    EV_RESHUFFLE,
    EV_RETURN,
    EV_REVERSE,
    EV_ROTATE,
    EV_SCORE,
    EV_SILENCE_END,
    EV_SKIP,
    EV_SKIP_ALL,
    EV_SLIP,
    EV_SPECIAL,
    EV_SWAP,
    EV_TURN,
    EV_UNO,
    OUT_REASONS,
    SPECIAL_MOVIE,
    SPECIAL_NAMES,
    SPECIAL_WISH,
)
from unosim.rules.cards import COLORS, DARK_COLORS, KindTable, is_wild_token, token_error
from unosim.rules.limits import MAX_KINDS, MAX_PLAYERS


class TraceSource(Protocol):
    """The round being traced, as its events show it (a `Round` is one)."""

    @property
    def round_index(self) -> int: ...
    @property
    def players(self) -> int: ...
    @property
    def edition_name(self) -> str: ...
    @property
    def kinds(self) -> KindTable: ...  # the edition's card kinds (tokens by kind id)
    @property
    def card_list(self) -> list[dict[str, Any]]: ...  # the edition file's cards: entries
    @property
    def rules(self) -> dict[str, Any]: ...
    @property
    def special(self) -> int: ...  # SPECIAL_*
    @property
    def wish_icons(self) -> list[str]: ...
    @property
    def active(self) -> list[int]: ...  # seats in play
    @property
    def hands(self) -> list[list[str]]: ...
    @property
    def scores(self) -> list[int]: ...  # match scores by seat


# Colors as events write them: the light side's letters, then a two-sided deck's dark ones
SIDE_COLORS = COLORS + DARK_COLORS
SIDES = ("light", "dark")


def pair_code(light: Any, dark: Any) -> Any:
    """A UNO Flip card's code from its faces' kinds (ints or arrays of them), as the
    kernel writes it (`unosim.engine.kernel.flip.card_code`).

    >>> pair_code(1, 3) == 1 + MAX_KINDS * 4
    True
    """
    return light + MAX_KINDS * (1 + dark)


def card_token(tokens: tuple[str, ...], code: int) -> str:
    """A card of the card log or an event: a kind's token, or a two-sided deck's
    physical card as ``"light/dark"`` (`unosim.engine.kernel.flip.card_code`).

    >>> card_token(("R1", "P1", "W", "WK"), 1 + MAX_KINDS * (1 + 3))
    'P1/WK'
    """
    if code < MAX_KINDS:
        return tokens[code]
    dark, light = divmod(code, MAX_KINDS)
    return f"{tokens[light]}/{tokens[dark - 1]}"


def render_events(src: TraceSource, ev: NDArray[Any], cl: NDArray[Any]) -> list[dict]:
    """Event dicts for the rows ``ev`` (card log ``cl``) of the round ``src``."""
    out: list[dict] = []
    rnd = src.round_index
    n = src.players
    tokens = src.kinds.tokens

    def token(k: int) -> str:
        return card_token(tokens, k)

    def cards(off: int, ln: int) -> list[str]:
        return [card_token(tokens, k) for k in cl[off: off + ln]]

    for row in ev:
        code, a, b, c, off, ln = (int(x) for x in row)
        e: dict[str, Any] = {"e": EV_NAMES[code], "round": rnd}
        if code == EV_DEAL:
            hands, i = [], off
            for _ in range(n):
                m = int(cl[i])
                hands.append(cards(i + 1, m))
                i += 1 + m
            e.update(dealer=a, players=n, active=src.active, hands=hands,
                     draw=cards(i, off + ln - i), edition=src.edition_name, rules=src.rules,
                     cards=src.card_list)
            if src.special == SPECIAL_WISH:
                e["wish_icons"] = src.wish_icons
        elif code == EV_FLIP:
            e["card"] = token(a)
        elif code == EV_RETURN:
            e.update(card=token(a), draw=cards(off, ln))
        elif code == EV_TURN:
            e.update(p=a, color=SIDE_COLORS[b], top=token(c))
        elif code == EV_PLAY:
            e.update(p=a, card=token(b), color=SIDE_COLORS[c])
        elif code in (EV_DRAW, EV_DISCARD, EV_OUT, EV_SKIP_ALL, EV_FLIP_ALL):
            e.update(_card_moves(code, a, b, c, cards(off, ln)))
        elif code == EV_RESHUFFLE:
            e["draw"] = cards(off, ln)
        elif code in (EV_SKIP, EV_SILENCE_END, EV_SLIP):
            e["p"] = a
        elif code in (EV_REVERSE, EV_ROTATE):
            e["direction"] = a
        elif code == EV_CHALLENGE:
            e.update(p=a, target=b, success=bool(c))
        elif code == EV_UNO:
            e.update(p=a, called=bool(b), caught=bool(c))
        elif code == EV_JUMP:
            e.update(p=a, card=token(b))
        elif code == EV_SWAP:
            e.update(a=a, b=b)
        elif code == EV_SPECIAL:
            sp = src.special
            if sp == SPECIAL_WISH:
                outcome: Any = [int(x) for x in cl[off: off + ln]]
                target = None
            else:
                target = b
                outcome = ("failed" if c else "named") if sp == SPECIAL_MOVIE else "silenced"
            e.update(p=a, card="WX", special=SPECIAL_NAMES[sp], target=target, outcome=outcome)
        elif code == EV_END:
            e.update(winner=None if a < 0 else a, points=b, hands=src.hands, turns=c)
        elif code == EV_SCORE:
            vals = [int(x) for x in cl[off: off + ln]]
            e.update(scores=vals[:a], eliminated=vals[a:])
        elif code == EV_MATCH_END:
            ws = [int(x) for x in cl[off: off + ln]]
            e.update(winner=None if not ws else (ws[0] if len(ws) == 1 else ws),
                     scores=src.scores)
        out.append(e)
    return out


def _card_moves(code: int, a: int, b: int, c: int, cards: list[str]) -> dict[str, Any]:
    """A draw's, and section 11's events' fields (docs/trace.md)."""
    if code == EV_DRAW:
        if c > 0:  # a draw until color c - 1 (Color Roulette)
            cause = CAUSES[b] if b == CAUSE_CHALLENGE else DRAW_UNTIL_CAUSE
            return {"p": a, "cards": cards, "cause": cause, "color": SIDE_COLORS[c - 1]}
        return {"p": a, "cards": cards, "cause": CAUSES[b]}
    if code == EV_OUT:
        return {"p": a, "reason": OUT_REASONS[b], "cards": cards, "to": "discard_bottom"}
    if code == EV_DISCARD:
        return {"p": a, "cards": cards}
    if code == EV_FLIP_ALL:
        return {"p": a, "side": SIDES[b], "color": SIDE_COLORS[c] if c >= 0 else None}
    return {"p": a}  # EV_SKIP_ALL


def to_jsonl(events: list[dict]) -> str:
    return "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in events)


def _names(seat_names: list[str] | None, p: int | None) -> str:
    if p is None:
        return "nobody"
    return seat_names[p] if seat_names else f"P{p}"


def _section_11_line(e: dict, who: str, cn: dict[str, str]) -> str:
    """The readable line of an event of docs/rules.md section 11's effects."""
    k = e["e"]
    if k == "discard":
        return f"   {who} also discards {' '.join(e['cards'])}"
    if k == "out":
        return (f"   {who} holds {len(e['cards'])} cards and is out "
                f"({e['reason']}); the hand goes under the discard pile")
    if k == "flip_all":
        return (f"   everything flips: the {e['side']} side is in play"
                + (f", color {cn[e['color']]}" if e.get("color") else ""))
    return f"   {who} skips everyone"


def face(card: str, side: str) -> str:
    """The face in play of a trace's card: a UNO Flip card ``"light/dark"`` shows one
    side's (``side``: ``light`` or ``dark``); any other card is its one face.

    >>> face("R5/PSE", "dark"), face("R5/PSE", "light"), face("G7", "dark")
    ('PSE', 'R5', 'G7')
    """
    faces = card.split("/")
    return faces[SIDES.index(side)] if len(faces) == 2 else card


def _faces_in_play(e: dict, side: str) -> tuple[dict, str]:
    """``e`` with the card it plays, turns up or shows on top by its face in play (UNO
    Flip), and the side in play after it."""
    k = e["e"]
    if k == "deal":
        side = SIDES[0]
    elif k == "flip_all":
        side = e["side"]
    if k in ("flip", "return", "play", "jump"):
        e = {**e, "card": face(e["card"], side)}
    elif k == "turn":
        e = {**e, "top": face(e["top"], side)}
    return e, side


def side_after(events: Sequence[dict], side: str = SIDES[0]) -> str:
    """The side in play after ``events`` (UNO Flip), ``side`` before them: a deal starts
    on the light side, a ``flip_all`` turns to its side.

    >>> side_after([{"e": "deal"}, {"e": "flip_all", "side": "dark"}, {"e": "turn"}])
    'dark'
    """
    for e in events:
        side = SIDES[0] if e["e"] == "deal" else e["side"] if e["e"] == "flip_all" else side
    return side


def to_text(events: list[dict], seat_names: list[str] | None = None,
            color_labels: list[str] | None = None,
            dark_labels: list[str] | None = None, side: str = SIDES[0]) -> str:
    """A readable turn-by-turn log of the same events. UNO Flip's cards are dealt and
    drawn as ``light/dark`` (the physical card) and played, turned up and on top by
    their face in play (``side``: the side in play before the first event, when the
    events go on from earlier ones)."""
    cn = dict(zip(COLORS, color_labels or ["red", "yellow", "green", "blue"], strict=True))
    cn.update(zip(DARK_COLORS, dark_labels or ["pink", "teal", "orange", "purple"], strict=True))

    def nm(p: int | None) -> str:
        return _names(seat_names, p)

    lines: list[str] = []
    for event in events:
        e, side = _faces_in_play(event, side)
        k = e["e"]
        if k == "deal":
            lines.append(f"== Round {e['round'] + 1}: {nm(e['dealer'])} deals "
                         f"({e['edition']}, {e['players']} players)")
            for p, h in enumerate(e["hands"]):
                if p in e.get("active", range(e["players"])):
                    lines.append(f"   {nm(p)}: {' '.join(h)}")
        elif k == "flip":
            lines.append(f"   flip: {e['card']}")
        elif k == "return":
            lines.append(f"   {e['card']} goes back into the pile")
        elif k == "turn":
            lines.append(f"{nm(e['p'])}'s turn (top {e['top']}, color {cn[e['color']]})")
        elif k == "play":
            lines.append(f"   plays {e['card']}" + (f", names {cn[e['color']]}"
                                                    if e['card'].startswith("W") else ""))
        elif k == "draw":
            why = {"turn": "", "uno": " (missed UNO)", "challenge": " (challenge)",
                   "special": " (special wild)", "dont_talk": " (talked while silenced)"}
            lines.append(f"   {nm(e['p'])} draws {len(e['cards'])}: {' '.join(e['cards'])}"
                         + why.get(e["cause"], f" ({e['cause']})"))
        elif k in ("discard", "out", "flip_all", "skip_all"):
            lines.append(_section_11_line(e, nm(e["p"]), cn))
        elif k == "reshuffle":
            lines.append(f"   discard reshuffled into a new draw pile of {len(e['draw'])}")
        elif k == "skip":
            lines.append(f"   {nm(e['p'])} is skipped")
        elif k == "reverse":
            lines.append(f"   direction is now {'+1' if e['direction'] > 0 else '-1'}")
        elif k == "challenge":
            lines.append(f"   {nm(e['p'])} challenges {nm(e['target'])}: "
                         + ("caught bluffing" if e["success"] else "the play was legal"))
        elif k == "uno":
            lines.append(f"   {nm(e['p'])} " + ("calls UNO!" if e["called"] else
                         ("forgets UNO and is caught" if e["caught"] else "forgets UNO")))
        elif k == "jump":
            lines.append(f"{nm(e['p'])} jumps in with {e['card']}")
        elif k == "swap":
            lines.append(f"   {nm(e['a'])} swaps hands with {nm(e['b'])}")
        elif k == "rotate":
            lines.append(f"   every hand passes {'left' if e['direction'] > 0 else 'right'}")
        elif k == "special":
            lines.append(f"   special wild: target {nm(e['target'])}, outcome {e['outcome']}")
        elif k == "silence_end":
            lines.append(f"   {nm(e['p'])} may talk again")
        elif k == "slip":
            lines.append(f"   {nm(e['p'])} talked while silenced")
        elif k == "end":
            if e["winner"] is None:
                lines.append(f"== Stalemate after {e['turns']} turns")
            else:
                lines.append(f"== {nm(e['winner'])} goes out after {e['turns']} turns "
                             f"and the round is worth {e['points']} points")
        elif k == "score":
            lines.append("   scores: " + ", ".join(f"{nm(p)} {s}" for p, s in enumerate(e["scores"]))
                         + (f"; eliminated {e['eliminated']}" if e.get("eliminated") else ""))
        elif k == "match_end":
            w = e["winner"]
            who = "nobody (unfinished)" if w is None else (
                " & ".join(nm(x) for x in w) if isinstance(w, list) else nm(w))
            lines.append(f"== Match won by {who}")
    return "\n".join(lines) + "\n"


# --- reading a trace back ---------------------------------------------------------------
# A long match's trace is a few hundred kilobytes and its biggest line (a deal of four
# decks) a few kilobytes; parsed, a trace takes about ten times its size in memory.
MAX_TRACE_BYTES = 64 * 2**20
MAX_EVENT_BYTES = 2**20
MAX_EVENT_DEPTH = 8  # a deal's rules nest three levels
MAX_VIEW_EVENTS = 100_000  # a viewer page holds a table per event: a bound for `read_events`


class TraceError(ValueError):
    """A trace file this reader will not take; the message names the file."""


def _lines(f: BinaryIO, where: str) -> Iterator[tuple[int, str]]:
    """(line number, text) of the non-blank lines, within the byte bounds."""
    total = 0
    number = 0
    while line := f.readline(MAX_EVENT_BYTES + 1):
        number += 1
        total += len(line)
        if len(line) > MAX_EVENT_BYTES:
            raise TraceError(f"{where}: line {number} is longer than the {MAX_EVENT_BYTES:,} "
                             "bytes an event may have")
        if total > MAX_TRACE_BYTES:
            raise TraceError(f"{where}: larger than the {MAX_TRACE_BYTES:,} bytes a trace "
                             "may have")
        if b"\0" in line:
            raise TraceError(f"{where}: line {number} holds NUL bytes: not a JSON Lines trace")
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise TraceError(f"{where}: line {number} is not UTF-8 text "
                             f"(byte 0x{line[exc.start]:02x})") from None
        if text.strip():
            yield number, text


def _depth(value: Any, limit: int) -> bool:
    """Whether ``value`` nests more than ``limit`` levels of lists and mappings."""
    level = [value]
    for _ in range(limit + 1):
        level = [v for x in level if isinstance(x, (list, dict))
                 for v in (x.values() if isinstance(x, dict) else x)]
        if not level:
            return False
    return True


def read_events(path: str | os.PathLike[str],
                max_events: int | None = None) -> list[dict[str, Any]]:
    """The events of a JSON Lines trace (docs/trace.md), each checked by `check_event`.

    A FIFO or ``/dev/stdin`` is read as a stream, so ``unosim play ... | unosim
    advise --trace /dev/stdin`` works; any source is read only up to the bounds
    above, and to ``max_events`` events when given (a viewer draws one table per
    event). OSError (a missing file) propagates for the caller to name. Whether the
    cards are two-sided (UNO Flip, ``"light/dark"``) is the first deal's to say.
    """
    where = os.fspath(path)
    events: list[dict[str, Any]] = []
    two_sided: bool | None = None
    with open(path, "rb") as f:
        for number, text in _lines(f, where):
            if max_events is not None and len(events) == max_events:
                raise TraceError(f"{where}: more than {max_events:,} events")
            try:
                e = json.loads(text)
            except RecursionError:
                raise TraceError(f"{where}: line {number} nests more than "
                                 f"{MAX_EVENT_DEPTH} levels") from None
            except ValueError as exc:  # JSONDecodeError, or an int of 5,000 digits
                why = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
                raise TraceError(f"{where}: line {number}: not JSON "
                                 f"({why.partition(';')[0][:120]})") from None
            if _depth(e, MAX_EVENT_DEPTH):
                raise TraceError(f"{where}: line {number} nests more than "
                                 f"{MAX_EVENT_DEPTH} levels")
            try:
                check_event(e, two_sided)
                if two_sided is None and e["e"] == "deal":
                    two_sided = deal_is_two_sided(e)
            except TraceError as exc:
                raise TraceError(f"{where}: line {number}: {exc}") from None
            events.append(e)
    if not events:
        raise TraceError(f"{where}: no events (`unosim play CONFIG --trace-format jsonl` "
                         "writes a trace)")
    if events[0]["e"] != "deal":
        raise TraceError(f"{where}: a trace starts with a deal event, not {events[0]['e']!r}")
    return events


_EVENT_NAMES = frozenset(EV_NAMES.values())
_SEAT_FIELDS = ("p", "a", "b", "target", "dealer")
# events that name cards, and their fields (a list of cards, or one)
_CARD_FIELDS = {"play": ("card",), "jump": ("card",), "flip": ("card",), "turn": ("top",),
                "return": ("card", "draw"), "reshuffle": ("draw",), "draw": ("cards",),
                "discard": ("cards",), "out": ("cards",)}
_COLOR_EVENTS = ("turn", "play", "draw", "flip_all")  # events with a color letter


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _cards(value: Any, what: str, two_sided: bool | None = None) -> list[str]:
    if not isinstance(value, list):
        raise TraceError(f"{what}: expected a list of card tokens")
    for t in value:
        _card(t, what, two_sided)
    return value


def _face(tok: str, letters: str) -> bool:
    """``tok`` is a card face whose color letter is one of ``letters`` (or a wild)."""
    if is_wild_token(tok):
        return token_error(tok) is None
    return tok[:1] in letters and not is_wild_token(tok[1:]) and token_error(tok[1:]) is None


def _card(value: Any, what: str, two_sided: bool | None = None) -> str:
    """A card token as a trace writes it: a wild's token, or a color letter and a
    colored kind's token; a two-sided (UNO Flip) card ``"light/dark"``, its dark
    face's color letter one of `DARK_COLORS` (which kinds exist is the deal's
    ``cards``: the replay's check). ``two_sided``: whether the trace's deal has
    two-sided cards (None: either)."""
    if not isinstance(value, str):
        raise TraceError(f"{what}: expected a card token, got {type(value).__name__}")
    faces = value.split("/")
    if len(faces) == 2:
        if two_sided is False:
            raise TraceError(f"{what}: {value!r:.40} is a two-sided (light/dark) card, but the "
                             "deal's cards have one face")
        if not _face(faces[0], COLORS):
            raise TraceError(f"{what}: {value!r:.40}: the light face is a wild or a color "
                             f"letter ({COLORS}) and a card")
        if not _face(faces[1], DARK_COLORS):
            raise TraceError(f"{what}: {value!r:.40}: the dark face is a wild or a dark color "
                             f"letter ({DARK_COLORS}) and a card")
        return value
    if len(faces) > 2 or not _face(value, COLORS):
        raise TraceError(f"{what}: unknown card token {value!r:.40}")
    if two_sided:
        raise TraceError(f"{what}: {value!r:.40} has one face, but the deal's cards are "
                         "two-sided (light/dark)")
    return value


def deal_is_two_sided(deal: dict[str, Any]) -> bool:
    """Whether a deal event's cards are UNO Flip's ``"light/dark"`` pairs (any of them:
    `check_event` then holds every card to that)."""
    hands, draw = deal.get("hands"), deal.get("draw")
    cards = [*(draw if isinstance(draw, list) else ()),
             *(c for h in (hands if isinstance(hands, list) else ()) if isinstance(h, list)
               for c in h)]
    return any(isinstance(c, str) and "/" in c for c in cards)


def _color(e: dict[str, Any], two_sided: bool | None) -> None:
    """An event's color: a letter of the light side, or (two-sided cards) the dark side's."""
    name, c = e["e"], e.get("color")
    if c is None and (name == "flip_all" or "color" not in e):
        return
    allowed = COLORS if two_sided is False else SIDE_COLORS
    if not (isinstance(c, str) and len(c) == 1 and c in allowed):
        raise TraceError(f"{name} event: color must be one of {', '.join(allowed)}"
                         + (" or null" if name == "flip_all" else "") + f", got {c!r:.40}")


def _check_flip_all(e: dict[str, Any], two_sided: bool | None) -> None:
    if two_sided is False:
        raise TraceError("flip_all event in a trace whose deal's cards have one face")
    p = e.get("p")
    if not (isinstance(p, int) and _whole(p) and -1 <= p < MAX_PLAYERS):
        raise TraceError(f"flip_all event: p must be a seat number or -1, got {p!r:.40}")
    if e.get("side") not in SIDES:
        raise TraceError(f"flip_all event: side must be light or dark, got {e.get('side')!r:.40}")
    if "color" not in e:
        raise TraceError("flip_all event: no color (a letter, or null)")
    c = e["color"]
    if c is not None and c not in (DARK_COLORS if e["side"] == "dark" else COLORS):
        raise TraceError(f"flip_all event: color {c!r:.40} is not a letter of the "
                         f"{e['side']} side")


def check_event(e: Any, two_sided: bool | None = None) -> None:
    """Raise `TraceError` unless ``e`` is a trace event whose fields a replay reads
    have their docs/trace.md §2 types (seats whole numbers, cards tokens, colors
    letters, a deal's table). ``two_sided``: whether the trace's deal has UNO Flip's
    two-sided cards (None: not known yet)."""
    if not isinstance(e, dict) or not isinstance(e.get("e"), str) or e["e"] not in _EVENT_NAMES:
        raise TraceError("not a trace event (an object with a known \"e\")")
    name = e["e"]
    if name == "flip_all":
        _check_flip_all(e, two_sided)
    for key in _SEAT_FIELDS:
        if name == "flip_all" and key == "p":
            continue
        if key in e and e[key] is not None and not (_whole(e[key]) and
                                                    0 <= e[key] < MAX_PLAYERS):
            raise TraceError(f"{name} event: {key} must be a seat number, got {e[key]!r:.40}")
    if "round" in e and not (_whole(e["round"]) and e["round"] >= 0):
        raise TraceError(f"{name} event: round must be a whole number >= 0")
    for key in _CARD_FIELDS.get(name, ()):
        if key in e or key != "top":  # a hand-written turn may leave its top out
            what = f"{name} event: {key}"
            if isinstance(e.get(key), list) or key in ("draw", "cards"):
                _cards(e.get(key), what, two_sided)
            else:
                _card(e.get(key), what, two_sided)
    if name in _COLOR_EVENTS:
        _color(e, two_sided)
    if name == "deal":
        _check_deal(e, two_sided)


def _check_deal(e: dict[str, Any], two_sided: bool | None) -> None:
    players = e.get("players")
    if not (isinstance(players, int) and _whole(players) and 2 <= players <= MAX_PLAYERS):
        raise TraceError(f"deal event: players must be 2..{MAX_PLAYERS}")
    if not (_whole(e.get("dealer")) and e["dealer"] < players):
        raise TraceError(f"deal event: dealer must be a seat 0..{players - 1}")
    hands = e.get("hands")
    if not isinstance(hands, list) or len(hands) != players:
        raise TraceError(f"deal event: hands must list {players} hands")
    if two_sided is None:  # the first deal: its cards say
        two_sided = deal_is_two_sided(e)
    for q, hand in enumerate(hands):
        _cards(hand, f"deal event: hands[{q}]", two_sided)
    _cards(e.get("draw"), "deal event: draw", two_sided)
    active = e.get("active", list(range(players)))
    if not (isinstance(active, list) and all(_whole(q) and 0 <= q < players for q in active)):
        raise TraceError("deal event: active must list seats")
    if not isinstance(e.get("edition"), str):
        raise TraceError("deal event: edition must be an edition's name")
    if not isinstance(e.get("rules"), dict):
        raise TraceError("deal event: rules must be a mapping")
