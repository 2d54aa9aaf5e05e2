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
from collections.abc import Iterator
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


def to_text(events: list[dict], seat_names: list[str] | None = None,
            color_labels: list[str] | None = None) -> str:
    """A readable turn-by-turn log of the same events."""
    cn = dict(zip(COLORS, color_labels or ["red", "yellow", "green", "blue"], strict=True))
    cn.update(zip(DARK_COLORS, ["pink", "teal", "orange", "purple"], strict=True))

    def nm(p: int | None) -> str:
        return _names(seat_names, p)

    lines: list[str] = []
    for e in events:
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
    event). OSError (a missing file) propagates for the caller to name.
    """
    where = os.fspath(path)
    events: list[dict[str, Any]] = []
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
                check_event(e)
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


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _cards(value: Any, what: str) -> list[str]:
    if not isinstance(value, list):
        raise TraceError(f"{what}: expected a list of card tokens")
    for t in value:
        _card(t, what)
    return value


def _card(value: Any, what: str) -> str:
    """A card token as a trace writes it: a wild's token, or a color letter and a
    colored kind's token (which kinds exist is the deal's ``cards``: the replay's check)."""
    if not isinstance(value, str):
        raise TraceError(f"{what}: expected a card token, got {type(value).__name__}")
    own = value if is_wild_token(value) else value[1:]
    if ((not is_wild_token(value) and (value[:1] not in COLORS or is_wild_token(own)))
            or token_error(own) is not None):
        raise TraceError(f"{what}: unknown card token {value!r}")
    return value


def check_event(e: Any) -> None:
    """Raise `TraceError` unless ``e`` is a trace event whose fields a replay reads
    have their docs/trace.md §2 types (seats whole numbers, cards tokens, a deal's table)."""
    if not isinstance(e, dict) or not isinstance(e.get("e"), str) or e["e"] not in _EVENT_NAMES:
        raise TraceError("not a trace event (an object with a known \"e\")")
    name = e["e"]
    for key in _SEAT_FIELDS:
        if key in e and e[key] is not None and not (_whole(e[key]) and
                                                    0 <= e[key] < MAX_PLAYERS):
            raise TraceError(f"{name} event: {key} must be a seat number, got {e[key]!r:.40}")
    if "round" in e and not (_whole(e["round"]) and e["round"] >= 0):
        raise TraceError(f"{name} event: round must be a whole number >= 0")
    if name in ("play", "jump", "flip", "return"):
        _card(e.get("card"), f"{name} event: card")
    if name in ("reshuffle", "return"):
        _cards(e.get("draw"), f"{name} event: draw")
    if name == "draw":
        _cards(e.get("cards"), "draw event: cards")
    if name == "deal":
        _check_deal(e)


def _check_deal(e: dict[str, Any]) -> None:
    players = e.get("players")
    if not (isinstance(players, int) and _whole(players) and 2 <= players <= MAX_PLAYERS):
        raise TraceError(f"deal event: players must be 2..{MAX_PLAYERS}")
    if not (_whole(e.get("dealer")) and e["dealer"] < players):
        raise TraceError(f"deal event: dealer must be a seat 0..{players - 1}")
    hands = e.get("hands")
    if not isinstance(hands, list) or len(hands) != players:
        raise TraceError(f"deal event: hands must list {players} hands")
    for q, hand in enumerate(hands):
        _cards(hand, f"deal event: hands[{q}]")
    _cards(e.get("draw"), "deal event: draw")
    active = e.get("active", list(range(players)))
    if not (isinstance(active, list) and all(_whole(q) and 0 <= q < players for q in active)):
        raise TraceError("deal event: active must list seats")
    if not isinstance(e.get("edition"), str):
        raise TraceError("deal event: edition must be an edition's name")
    if not isinstance(e.get("rules"), dict):
        raise TraceError("deal event: rules must be a mapping")
