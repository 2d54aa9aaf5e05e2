"""Independent replay checker for unosim JSON Lines traces (docs/trace.md).

Written from docs/rules.md and docs/trace.md alone and importing nothing from
``unosim``: if the engine and this checker shared code, a shared misreading of
the rules would pass unnoticed. It replays every round card by card (both
piles, every hand as a multiset, active color, direction, current player,
pending draws) and reports every departure from the rules or from the event
order the engine promises.

A violation that leaves the replayed state unknown (a card that is not where
the trace says, an event out of order) stops the check of that round; the
checker then resumes at the next ``deal``. Other violations are recorded and
the replay goes on.

Usage::

    res = check_trace(load_jsonl(path))
    res.rounds, res.violations
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

COLORS = "RYGB"
# UNO Flip's dark side: pink, teal, orange, purple, by place (its faces' color letters).
DARK_COLORS = "PTOU"
SIDES = ("light", "dark")
SPECIALS = ("none", "movie_madness", "wishing_star", "dont_talk")
SCORINGS = ("standard", "lowest", "elimination", "partners")
STACK_KEYS = (
    "draw_two_on_draw_two",
    "wd4_on_wd4",
    "wd4_on_draw_two",
    "draw_two_on_wd4",
)
HOUSE_KEYS = ("jump_in", "seven_o", "draw_until_play", "two_player_reverse")
# The rulings of docs/rules.md §12 and their printed defaults: a trace leaves a
# ruling out while it plays the printed rule.
RULINGS: dict[str, Any] = {
    "draw_then_play": "drawn",
    "forced_play": False,
    "wd4_unrestricted": False,
    "challenge": True,
    "deflect": False,
    "no_action_finish": False,
    "multiple_play": False,
    "seven_o_swap": "chosen",
    "seven_o_pass": "direction",
    "last_card_draws": True,
}

# Keys docs/trace.md §2 requires of each event kind ("e" and "round" on every one).
REQUIRED: dict[str, tuple[str, ...]] = {
    "deal": ("dealer", "players", "hands", "draw", "edition", "rules"),
    "flip": ("card",),
    "return": ("card", "draw"),
    "turn": ("p", "color", "top"),
    "play": ("p", "card", "color"),
    "draw": ("p", "cards", "cause"),
    "reshuffle": ("draw",),
    "skip": ("p",),
    "reverse": ("direction",),
    "challenge": ("p", "target", "success"),
    "uno": ("p", "called", "caught"),
    "jump": ("p", "card"),
    "swap": ("a", "b"),
    "rotate": ("direction",),
    "special": ("p", "card", "target", "outcome"),
    "end": ("winner", "points", "hands", "turns"),
    "silence_end": ("p",),
    "slip": ("p",),
    "score": ("scores",),
    "match_end": ("winner", "scores"),
    "skip_all": ("p",),
    "discard": ("p", "cards"),
    "out": ("p", "reason", "cards", "to"),
    "flip_all": ("p", "side", "color"),
}


# --- cards -------------------------------------------------------------------


def is_wild(tok: str) -> bool:
    """A wild's token starts with ``W``; a colored kind's is its color letter and token
    (docs/trace.md §4), whose own token never starts with ``W``."""
    return tok.startswith("W")


def color_of(tok: str) -> str | None:
    return None if is_wild(tok) else tok[0]


def rank_of(tok: str) -> str:
    """Symbol of a colored token (``"7"``, ``"S"``, ``"D2"``, ``"SE"``); wilds are their own."""
    return tok if is_wild(tok) else tok[1:]


def is_number(tok: str) -> bool:
    """A number card: a colored kind whose token is one digit (its face value)."""
    return not is_wild(tok) and len(tok) == 2 and tok[1].isdigit()


@dataclass(frozen=True)
class Kind:
    """What one card kind does (docs/rules.md §11's vocabulary), read from ``deal.cards``."""

    draw: int = 0  # ``draw N``
    until: bool = False  # ``draw_until_color``
    skip: bool = False
    skip_all: bool = False
    reverse: bool = False
    discard: bool = False  # ``discard_color``
    swap: bool = False  # ``swap_hands``
    rotate: bool = False  # ``rotate_hands``
    special: str | None = None  # a seed edition's special wild
    cond: bool = False  # ``condition: only_without_color``
    chal: bool = False  # ``challengeable``
    stack: int = 0  # the draw value of value stacking
    points: int | None = None  # None: the rules' special_points (a special wild)
    flip: bool = False  # UNO Flip's ``flip``: everything turns over
    side: int = 0  # UNO Flip: 0 a light face, 1 a dark one (``side: dark``)
    player_names: bool = False  # ``names_color: player`` (Wild Draw Color)


EFFECT_FLAGS = {"skip": "skip", "skip_all": "skip_all", "reverse": "reverse",
                "discard_color": "discard", "swap_hands": "swap", "rotate_hands": "rotate",
                "draw_until_color": "until", "flip": "flip"}


def parse_kind(c: dict[str, Any], wild: bool) -> Kind | str:
    """One ``cards`` entry as a Kind, or why this checker cannot replay it."""
    tok, effects = c["token"], c.get("effects", ["match"])
    if not isinstance(effects, list) or "match" not in effects:
        return f"card kind {tok} has effects {effects!r} without match"
    kw: dict[str, Any] = {}
    for fx in effects:
        if fx == "match":
            continue
        if fx in EFFECT_FLAGS:
            kw[EFFECT_FLAGS[fx]] = True
        elif fx in SPECIALS[1:]:
            kw["special"] = fx
        elif isinstance(fx, str) and fx.startswith("draw ") and fx[5:].isdigit():
            kw["draw"] = int(fx[5:])
        else:
            return f"card kind {tok} has the effect {fx!r}, outside what this checker replays"
    if c.get("condition") not in (None, "only_without_color"):
        return f"card kind {tok} has the condition {c['condition']!r}"
    kw["cond"] = c.get("condition") == "only_without_color"
    if c.get("side", "light") not in SIDES:
        return f"card kind {tok} has side {c['side']!r}"
    kw["side"] = SIDES.index(c.get("side", "light"))
    if c.get("names_color") not in (None, "player"):
        return f"card kind {tok} has names_color {c['names_color']!r}"
    kw["player_names"] = c.get("names_color") == "player"
    kw["chal"] = bool(c.get("challengeable", False))
    kw["stack"] = int(c.get("stacking") or 0)
    pts = c.get("points")
    if pts is None and not kw.get("special"):
        pts = int(tok) if (not wild and tok.isdigit()) else None
        if pts is None:
            return f"card kind {tok} has no points"
    kw["points"] = None if kw.get("special") or pts is None else int(pts)
    return Kind(**kw)


# The classic cards as an edition's card list writes them (docs/editions.md): the deck
# of a trace written before ``deal.cards`` existed.
CLASSIC_CARDS: list[dict[str, Any]] = [
    *({"token": str(i), "count": 1 if i == 0 else 2} for i in range(10)),
    {"token": "S", "count": 2, "points": 20, "effects": ["match", "skip"]},
    {"token": "R", "count": 2, "points": 20, "effects": ["match", "reverse"]},
    {"token": "D2", "count": 2, "points": 20, "effects": ["match", "draw 2"], "stacking": 2},
    {"token": "W", "count": 4, "points": 50},
    {"token": "WD4", "count": 4, "points": 50, "effects": ["match", "draw 4"],
     "condition": "only_without_color", "challengeable": True, "stacking": 4},
]


def edition_deck(decks: int, special: str) -> list[dict[str, Any]]:
    """The card list of a trace without ``cards``: classic, plus 4 WX if the edition has one."""
    out = list(CLASSIC_CARDS)
    if special != "none":
        out.append({"token": "WX", "count": 4, "effects": ["match", special]})
    return out


def listed_deck(cards: Any, decks: int) -> tuple[Counter[str] | None, dict[str, Kind], str]:
    """The deck and card kinds a deal's ``cards`` list describes (docs/trace.md §4): each
    colored token in the four colors, each wild once, ``count`` per deck. None and why,
    for a list this checker cannot replay (an effect outside docs/rules.md §11's
    vocabulary). A Flip edition's deck counts faces: its light and its dark faces, each
    colored dark kind in the dark colors (``DARK_COLORS``)."""
    if not isinstance(cards, list):
        return None, {}, "deal.cards is not a list"
    deck: Counter[str] = Counter()
    kinds: dict[str, Kind] = {}
    for c in cards:
        if not isinstance(c, dict) or not isinstance(c.get("token"), str) \
                or not isinstance(c.get("count"), int):
            return None, {}, f"deal.cards has a malformed entry {c!r:.60}"
        tok = c["token"]
        wild = is_wild(tok)
        k = parse_kind(c, wild)
        if isinstance(k, str):
            return None, {}, k
        if k.discard and wild:
            return None, {}, f"card kind {tok}: discard_color on a wild"
        if k.flip and (k.draw or k.until or k.special or k.discard or k.swap or k.rotate
                       or k.skip or k.skip_all or k.reverse or wild):
            return None, {}, f"card kind {tok}: flip with another effect or on a wild"
        for t in ([tok] if wild else [col + tok for col in (COLORS, DARK_COLORS)[k.side]]):
            if t in kinds:
                return None, {}, f"deal.cards lists {t} twice"
            kinds[t] = k
            deck[t] += c["count"] * decks
    return deck, kinds, ""


# --- results -----------------------------------------------------------------


@dataclass
class CheckResult:
    """Outcome of a replay: rounds seen and one message per violation."""

    rounds: int = 0
    violations: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations


def load_jsonl(path_or_text: str | Path) -> list[dict[str, Any]]:
    """Events of a JSON Lines trace, given a file path or the text itself."""
    if isinstance(path_or_text, Path):
        text = path_or_text.read_text()
    elif "\n" not in path_or_text and not path_or_text.lstrip().startswith("{"):
        text = Path(path_or_text).read_text()
    else:
        text = path_or_text
    return [json.loads(line) for line in text.splitlines() if line.strip()]


Policies = str | list[str] | None


def check_trace(
    events: Iterable[dict[str, Any]],
    *,
    allow_bluffs: bool = False,
    policies: Policies = None,
    agents: bool = False,
) -> CheckResult:
    """Replay ``events`` and report every rule or format violation.

    ``allow_bluffs``: accept an illegal WD4 that nobody challenged (a bluffing
    policy may play one); by default it is a violation unless a challenge
    exposes it.
    ``policies``: the seats' policy names (one name for every seat, or a list).
    Seats named ``"random"`` are also held to docs/rules.md §7, which fixes that
    policy's choices: never draw or accept while a legal play or stack exists,
    play a legal drawn card, always jump in, never challenge or bluff.
    Behaviour rates of 0 or 1 in ``rules.behaviour`` (when the trace has them)
    are enforced as "never" / "always".
    ``agents``: the seats were played by outside agents (the learning
    environments), which may decline a jump-in the behaviour rates would take:
    a later seat in turn order may then jump in.
    """
    return _Replay(list(events), allow_bluffs, policies, agents).run()


def assert_valid_trace(
    events: Iterable[dict[str, Any]] | str | Path,
    *,
    allow_bluffs: bool = False,
    policies: Policies = None,
    agents: bool = False,
) -> CheckResult:
    """Raise AssertionError listing the first violations, if any."""
    if isinstance(events, str | Path):
        events = load_jsonl(events)
    res = check_trace(events, allow_bluffs=allow_bluffs, policies=policies, agents=agents)
    if res.violations:
        head = "\n  ".join(res.violations[:10])
        more = len(res.violations) - 10
        tail = f"\n  ... and {more} more" if more > 0 else ""
        raise AssertionError(f"{len(res.violations)} trace violation(s):\n  {head}{tail}")
    return res


# --- replay ------------------------------------------------------------------


class _Abort(Exception):
    """The replayed state is no longer known: stop checking this round."""


@dataclass(frozen=True)
class _Rules:
    players: int
    hand_size: int
    decks: int
    first_flip: str
    wd4_wilds_block: bool
    uno_penalty: int
    special: str
    special_points: int
    d2_on_d2: bool
    wd4_on_wd4: bool
    wd4_on_d2: bool
    d2_on_wd4: bool
    jump_in: bool
    seven_o: bool
    draw_until_play: bool
    two_player_reverse: bool
    max_turns: int
    same_number: bool  # jump_in: same_number
    ruling: dict[str, Any]  # docs/rules.md §12, defaults filled in
    mode: str
    scoring: str
    target: int
    max_rounds: int
    value_stacking: bool = False  # docs/rules.md §11 ``stacking: value``
    mercy_limit: int = 0  # 0: no mercy rule
    challenge_on: bool = True  # the edition's ``challenge`` setting

    @classmethod
    def parse(cls, d: Any) -> _Rules:
        """Read the deal's resolved rules; ValueError names what is missing or wrong."""
        if not isinstance(d, dict):
            raise TypeError("rules is not an object")
        need = (
            "players",
            "hand_size",
            "decks",
            "first_flip",
            "wd4_wilds_block",
            "uno_penalty",
            "special",
            "special_points",
            "house_rules",
            "max_turns",
            "mode",
            "scoring",
            "target",
        )
        missing = [k for k in need if k not in d]
        hr = d.get("house_rules") or {}
        st = hr.get("stacking") if isinstance(hr, dict) else None
        if not isinstance(st, dict):
            missing.append("house_rules.stacking")
            st = {}
        missing += [f"house_rules.{k}" for k in HOUSE_KEYS if k not in hr]
        missing += [f"house_rules.stacking.{k}" for k in STACK_KEYS if k not in st]
        if missing:
            raise ValueError(f"rules lack {', '.join(missing)}")
        bad = []
        if d["first_flip"] not in ("apply", "redraw"):
            bad.append(f"first_flip={d['first_flip']!r}")
        if d["special"] not in SPECIALS:
            bad.append(f"special={d['special']!r}")
        if d["mode"] not in ("round", "match"):
            bad.append(f"mode={d['mode']!r}")
        if d["scoring"] not in SCORINGS:
            bad.append(f"scoring={d['scoring']!r}")
        named = {"draw_then_play": ("drawn", "any", "none"), "seven_o_swap": ("chosen", "next"),
                 "seven_o_pass": ("direction", "left")}
        for k, values in named.items():
            if hr.get(k, RULINGS[k]) not in values:
                bad.append(f"house_rules.{k}={hr[k]!r}")
        if hr["jump_in"] not in (False, True, "same_number"):
            bad.append(f"house_rules.jump_in={hr['jump_in']!r}")
        if d.get("stacking", "value") != "value":
            bad.append(f"stacking={d['stacking']!r}")
        if not isinstance(d.get("mercy_limit", 0), int):
            bad.append(f"mercy_limit={d['mercy_limit']!r}")
        if bad:
            raise ValueError(f"rules have unknown values: {', '.join(bad)}")
        return cls(
            players=int(d["players"]),
            hand_size=int(d["hand_size"]),
            decks=int(d["decks"]),
            first_flip=d["first_flip"],
            wd4_wilds_block=bool(d["wd4_wilds_block"]),
            uno_penalty=int(d["uno_penalty"]),
            special=d["special"],
            special_points=int(d["special_points"]),
            d2_on_d2=bool(st["draw_two_on_draw_two"]),
            wd4_on_wd4=bool(st["wd4_on_wd4"]),
            wd4_on_d2=bool(st["wd4_on_draw_two"]),
            d2_on_wd4=bool(st["draw_two_on_wd4"]),
            jump_in=bool(hr["jump_in"]),
            same_number=hr["jump_in"] == "same_number",
            ruling={k: hr.get(k, v) for k, v in RULINGS.items()},
            seven_o=bool(hr["seven_o"]),
            draw_until_play=bool(hr["draw_until_play"]),
            two_player_reverse=bool(hr["two_player_reverse"]),
            max_turns=int(d["max_turns"]),
            mode=d["mode"],
            scoring=d["scoring"],
            target=int(d["target"]),
            max_rounds=int(d.get("max_rounds", 1000)),
            value_stacking=d.get("stacking") == "value",
            mercy_limit=int(d.get("mercy_limit") or 0),
            challenge_on=d.get("challenge", True) is not False,
        )


@dataclass
class _Game:
    """What carries over between the rounds of one match."""

    mode: str
    scoring: str
    target: int
    players: int
    max_rounds: int
    scores: list[int]
    eliminated: set[int] = field(default_factory=set)
    dealer: int | None = None  # dealer of the latest round
    last_round: int = -1
    rounds: int = 0
    done: bool = False  # the match should end now
    winner: set[int] | None = None  # expected match winner(s) once done
    ended: bool = False  # match_end seen
    pairs: Counter[str] | None = None  # UNO Flip: the match's physical cards (light/dark)


def _seats(x: Any) -> set[int] | None:
    """A winner field (seat, list of seats or null) as a set."""
    if x is None:
        return None
    if isinstance(x, list):
        return set(x)
    return {x}


def _desc(e: Any) -> str:
    if not isinstance(e, dict):
        return repr(e)
    keys = ("p", "card", "cards", "cause", "color", "target", "a", "b", "winner")
    parts = [f"{k}={e[k]}" for k in keys if k in e]
    return f"{e.get('e')!r}" + (f" ({', '.join(parts)})" if parts else "")


def _inserted(new: list[str], old: list[str], card: str) -> bool:
    """Is ``new`` equal to ``old`` with ``card`` inserted at one position?"""
    if len(new) != len(old) + 1:
        return False
    return any(new[k] == card and new[:k] + new[k + 1 :] == old for k in range(len(new)))


class _Replay:
    def __init__(
        self, events: list[dict[str, Any]], allow_bluffs: bool, policies: Policies,
        agents: bool = False,
    ) -> None:
        self.policies = policies
        self.ev = events
        self.i = 0  # next event to read
        self.slipped = False  # the turn just started began with a Don't Talk slip
        self.cur = 0  # index of the event being judged
        self.allow_bluffs = allow_bluffs
        self.agents = agents
        self.res = CheckResult()
        self.rnd: Any = "?"
        self.game: _Game | None = None
        self.in_round = False

    # --- reporting -------------------------------------------------------

    def bad(self, msg: str, idx: int | None = None) -> None:
        idx = self.cur if idx is None else idx
        self.res.violations.append(f"round {self.rnd}, event {idx}: {msg}")

    def abort(self, msg: str, idx: int | None = None) -> None:
        self.bad(msg, idx)
        raise _Abort

    # --- reading events --------------------------------------------------

    def peek(self) -> dict[str, Any] | None:
        """Next event; reshuffles inside a round are applied on the way (they may come any
        time the draw pile is empty)."""
        while self.i < len(self.ev):
            e = self.ev[self.i]
            if not isinstance(e, dict) or "e" not in e:
                if self.in_round:
                    self.abort(f"not an event object: {e!r}", self.i)
                return e
            if self.in_round and e["e"] not in REQUIRED:
                self.abort(f"unknown event kind {e['e']!r}", self.i)
            if e["e"] != "reshuffle" or not self.in_round:
                return e
            self.reshuffle(self.take())
            self.reshuffled = True
        return None

    def take(self) -> dict[str, Any]:
        e = self.ev[self.i]
        self.cur = self.i
        self.i += 1
        kind = e.get("e")
        if kind not in REQUIRED:
            self.abort(f"unknown event kind {kind!r}")
        missing = [k for k in ("round", *REQUIRED[kind]) if k not in e]
        if missing:
            self.abort(f"{kind} event lacks {', '.join(missing)}")
        if kind != "match_end" and e["round"] != self.rnd:
            self.bad(f"{kind} event has round {e['round']!r}, expected {self.rnd}")
        return e

    @staticmethod
    def is_(e: Any, kind: str, **want: Any) -> bool:
        return (
            isinstance(e, dict)
            and e.get("e") == kind
            and all(e.get(k) == v for k, v in want.items())
        )

    def expect(self, kind: str, why: str = "", **want: Any) -> dict[str, Any]:
        """Take the next event, which must be ``kind`` with the given fields."""
        e = self.peek()
        what = kind + (f" ({', '.join(f'{k}={v}' for k, v in want.items())})" if want else "")
        what += f" {why}" if why else ""
        if e is None:
            self.abort(f"trace ends; expected {what}", self.i)
        if not self.is_(e, kind):
            self.abort(f"expected {what}, found {_desc(e)}", self.i)
        e = self.take()
        for k, v in want.items():
            if e[k] != v:
                self.abort(f"expected {what}, found {_desc(e)}")
        return e

    # --- top level -------------------------------------------------------

    def run(self) -> CheckResult:
        while True:
            e = self.peek()
            if e is None:
                break
            kind = e.get("e") if isinstance(e, dict) else None
            if kind == "deal":
                self.res.rounds += 1
                try:
                    self.play_round()
                except _Abort:
                    self.resync()
                self.in_round = False
            elif kind == "match_end":
                try:
                    self.match_end()
                except _Abort:
                    pass
            else:
                self.bad(f"{_desc(e)} outside a round", self.i)
                self.i += 1
        g = self.game
        if g is not None and g.mode == "match" and not g.ended:
            self.bad("match-mode trace ends without match_end", len(self.ev))
        return self.res

    def resync(self) -> None:
        """Skip to the next deal or match_end, adopting the (unchecked) totals on the way."""
        self.in_round = False
        g = self.game
        while self.i < len(self.ev):
            e = self.ev[self.i]
            if self.is_(e, "deal") or self.is_(e, "match_end"):
                break
            if self.is_(e, "score") and g is not None and isinstance(e.get("scores"), list):
                g.scores = list(e["scores"])
                g.eliminated = set(e.get("eliminated") or [])
                self.decide_match(g)
            self.i += 1
        if g is not None and g.mode == "round":
            g.done = True
            g.winner = None

    # --- a round ---------------------------------------------------------

    def play_round(self) -> None:
        e = self.ev[self.i]
        self.rnd = e.get("round", "?")
        self.setup(self.take())
        self.in_round = True
        seat: int | None = self.first_flip()
        while seat is not None:
            seat = self.jump_window(seat)
            if seat is None:
                break
            if self.turns >= self.R.max_turns:
                self.expect_end(None, "(stalemate: max_turns turns taken)")
                break
            seat = self.regular_turn(seat)
        self.in_round = False
        self.after_round()

    def setup(self, e: dict[str, Any]) -> None:
        """Check the deal and start the replayed state from it."""
        rnd = e["round"]
        g = self.game
        if rnd == 0 or g is None:
            if g is not None and g.mode == "match" and not g.ended:
                self.bad("a new match starts before the previous one ended")
            if rnd != 0:
                self.bad(f"first deal has round {rnd}, expected 0")
            g = None
        else:
            if g.done:
                self.bad("a new round is dealt after the match was decided")
            if rnd != g.last_round + 1:
                self.bad(f"deal for round {rnd} follows round {g.last_round}")
        try:
            self.R = R = _Rules.parse(e["rules"])
        except (ValueError, TypeError, KeyError) as exc:
            if g is not None:
                g.dealer = e["dealer"] if isinstance(e["dealer"], int) else None
                g.last_round = rnd
            self.abort(f"deal: {exc}")
        if g is None:
            g = _Game(
                mode=R.mode,
                scoring=R.scoring,
                target=R.target,
                players=R.players,
                max_rounds=R.max_rounds,
                scores=[0] * R.players,
            )
            self.game = g
        prev_dealer = g.dealer
        g.last_round = rnd
        g.rounds += 1
        g.dealer = e["dealer"]
        n = e["players"]
        if n != R.players:
            self.abort(f"deal.players is {n}, rules.players is {R.players}")
        if R.scoring == "partners" and n != 4:
            self.bad(f"partners scoring with {n} players")
        self.players = n
        want_active = [s for s in range(n) if s not in g.eliminated]
        active = e.get("active", want_active)
        if (
            not isinstance(active, list)
            or sorted(set(active)) != active
            or not all(isinstance(s, int) and 0 <= s < n for s in active)
        ):
            self.abort(f"deal.active {active!r} is not a sorted list of seats")
        if active != want_active:
            self.bad(
                f"deal.active is {active}, expected {want_active} (eliminated "
                f"{sorted(g.eliminated)})"
            )
        if len(active) < 2:
            self.abort(f"a round with {len(active)} seat(s) in it")
        self.active = active
        self.active_set = set(active)
        self.dir = 1
        dealer = e["dealer"]
        if dealer not in self.active_set:
            self.abort(f"dealer {dealer} is not a seat in the round")
        if prev_dealer is None:
            if dealer != 0:
                self.bad(f"dealer of round 0 is {dealer}, expected seat 0")
        elif dealer != self.nxt(prev_dealer):
            want = self.nxt(prev_dealer)
            self.bad(f"dealer is {dealer}, expected {want} (left of {prev_dealer})")
        self.dealer = dealer
        hands = e["hands"]
        if not isinstance(hands, list) or len(hands) != n:
            self.abort(
                f"deal.hands has {len(hands) if isinstance(hands, list) else '?'} "
                f"entries for {n} seats"
            )
        listed = e["cards"] if "cards" in e else edition_deck(R.decks, R.special)
        deck, self.kinds, why = listed_deck(listed, R.decks)
        if deck is None:  # the deck as the trace lists it (docs/trace.md §4)
            self.abort(why)
            return
        self.flip_ed = any(k.flip for k in self.kinds.values())
        self.side = 0  # a Flip round starts on the light side
        self.colors = tuple(COLORS)
        cards = [c for h in hands for c in h] + list(e["draw"])
        if self.flip_ed:
            # every card is a light/dark pair; the deck counts faces (docs/trace.md §6)
            self.tokens = frozenset(c for c in cards if self.pair_ok(c))
        elif any(k.side for k in self.kinds.values()):
            self.abort("deal.cards has a dark-side kind, but no kind has the flip effect")
        else:
            self.tokens = frozenset(self.kinds)
        unknown = sorted({c for c in cards if c not in self.tokens}, key=str)
        if unknown:
            self.abort(f"deal has unknown card tokens {unknown}"
                       + (" (a Flip card is 'light/dark')" if self.flip_ed else ""))
        for s in range(n):
            want = R.hand_size if s in self.active_set else 0
            if len(hands[s]) != want:
                self.bad(f"seat {s} is dealt {len(hands[s])} cards, expected {want}")
        self.deck_size = deck.total() // (2 if self.flip_ed else 1)
        self.dealt = Counter(cards)
        got = Counter(f for c in cards for f in c.split("/")) if self.flip_ed else Counter(cards)
        if self.flip_ed:
            if g.pairs is not None and g.pairs != self.dealt:
                self.bad("the light and dark faces are paired differently from the match's "
                         "first round (the pairing is drawn once per game)")
            g.pairs = self.dealt
        if got != deck:
            extra = dict(got - deck)
            lack = dict(deck - got)
            self.bad(
                f"deal holds {len(cards)} cards, deck has {self.deck_size}; extra {extra}, "
                f"missing {lack}"
            )
        if len(e["draw"]) < 4 * R.decks + 1:
            self.bad(
                f"the deal leaves {len(e['draw'])} cards; docs/rules.md §10 needs at least "
                f"4 x decks + 1 = {4 * R.decks + 1}"
            )
        self.hands = [Counter(h) for h in hands]
        self.draw: list[str] = list(e["draw"])
        self.discard: list[str] = []
        self.color: str | None = None
        self.icons: frozenset[str] = frozenset()
        if R.special == "wishing_star":
            icons = e.get("wish_icons")
            if not isinstance(icons, list) or not icons:
                self.bad("Wishing Star deal has no wish_icons")
            else:
                self.icons = frozenset(icons)
                if not self.icons <= self.tokens:
                    self.bad(f"wish_icons has unknown tokens {sorted(self.icons - self.tokens)}")
        self.silenced: set[int] = set()
        beh = e["rules"].get("behaviour")
        self.beh: dict[str, Any] = beh if isinstance(beh, dict) else {}
        pol = self.policies
        self.random_seats = (
            set(range(n))
            if pol == "random"
            else {s for s, x in enumerate(pol) if x == "random"}
            if isinstance(pol, list)
            else set()
        )
        self.turns = 0
        self.jumps = 0
        self.top_player: int | None = None
        self.window = False  # a jump-in may come (a play has just resolved)
        self.wd4_illegal = False  # the latest WD4 broke the color condition
        self.wd4_idx = 0
        self.pend_value = 0  # value stacking: the draw value of the last card stacked
        self.reshuffled = False
        self.round_end: tuple[int | None, int] = (None, 0)

    # --- helpers on the state ---------------------------------------------

    def pair_ok(self, c: Any) -> bool:
        """A Flip card token: ``"<light face>/<dark face>"`` of the listed kinds."""
        if not isinstance(c, str) or c.count("/") != 1:
            return False
        lt, dk = c.split("/")
        return (lt in self.kinds and self.kinds[lt].side == 0
                and dk in self.kinds and self.kinds[dk].side == 1)

    def shown(self, c: str) -> str:
        """The face in play of card ``c`` (a Flip card's light or dark face, by the side)."""
        return c.split("/")[self.side] if self.flip_ed else c

    def kind(self, c: str) -> Kind:
        return self.kinds[self.shown(c)]

    def wild(self, c: str) -> bool:
        return is_wild(self.shown(c))

    def col(self, c: str) -> str | None:
        return color_of(self.shown(c))

    def rank(self, c: str) -> str:
        return rank_of(self.shown(c))

    def num(self, c: str) -> bool:
        return is_number(self.shown(c))

    def nxt(self, s: int, d: int | None = None) -> int:
        """The next seat still in the round after ``s`` in direction ``d``."""
        d = self.dir if d is None else d
        t = s
        for _ in range(self.players):
            t = (t + d) % self.players
            if t in self.active_set:
                return t
        return s

    def others(self, p: int) -> list[int]:
        """The other seats in the round, in turn order from the one after ``p``."""
        out, s = [], p
        for _ in range(len(self.active) - 1):
            s = self.nxt(s)
            out.append(s)
        return out

    def available(self) -> int:
        """Cards that a draw could reach: the draw pile plus the discard less its top."""
        return len(self.draw) + max(len(self.discard) - 1, 0)

    def wd4_ok(self, others: Counter[str]) -> bool:
        """docs/rules.md §3: no other card of the active color (nor W/WX where wilds block);
        always, under wd4_unrestricted (§12)."""
        if self.R.ruling["wd4_unrestricted"]:
            return True
        if any(n > 0 and self.col(c) == self.color for c, n in others.items()):
            return False
        return not (self.R.wd4_wilds_block and any(
            n > 0 and self.wild(c) and not self.kind(c).cond for c, n in others.items()))

    def legal(self, card: str, others: Counter[str]) -> bool:
        """Is ``card`` a legal (non-bluff) play on the top card, ``others`` the rest of the hand?"""
        if not self.finish_ok(card, others):
            return False
        if self.kind(card).cond and not self.wd4_ok(others):
            return False
        if self.wild(card) or self.col(card) == self.color:
            return True
        top = self.discard[-1]
        return not self.wild(top) and self.rank(top) == self.rank(card)

    def finish_ok(self, card: str, others: Counter[str]) -> bool:
        """no_action_finish (§12): a last card must be a number."""
        return not self.R.ruling["no_action_finish"] or others.total() > 0 or self.num(card)

    def rate(self, key: str) -> float | None:
        """A behaviour rate from rules.behaviour, when the trace carries it."""
        v = self.beh.get(key)
        return float(v) if isinstance(v, int | float) else None

    def has_legal(self, p: int) -> str | None:
        """A legal (non-bluff) card in seat ``p``'s hand, if any."""
        for c in self.hands[p]:
            if self.hands[p][c] > 0 and self.legal(c, self.without(p, c)):
                return c
        return None

    def without(self, p: int, card: str) -> Counter[str]:
        h = Counter(self.hands[p])
        h[card] -= 1
        return +h

    def take_card(self, p: int, card: str) -> None:
        h = self.hands[p]
        h[card] -= 1
        if h[card] <= 0:
            del h[card]

    # --- piles ------------------------------------------------------------

    def reshuffle(self, e: dict[str, Any]) -> None:
        if self.draw:
            self.abort(f"reshuffle while the draw pile still holds {len(self.draw)} card(s)")
        new, rest = list(e["draw"]), self.discard[:-1]
        if Counter(new) != Counter(rest):
            self.abort(
                f"reshuffled pile is not the discard pile less its top: extra "
                f"{dict(Counter(new) - Counter(rest))}, missing "
                f"{dict(Counter(rest) - Counter(new))}"
            )
        if not new:
            self.bad("reshuffle with nothing to shuffle (the discard pile is only its top)")
        self.draw = new
        self.discard = self.discard[-1:]

    def read_draw(
        self,
        p: int,
        cause: str,
        n: int | None = None,
        stop: Callable[[str, Counter[str]], bool] | None = None,
    ) -> list[str]:
        """Read one logical draw of seat ``p``: one ``draw`` event, or several joined across
        reshuffles. ``n``: a fixed count (fewer only if both piles run dry); ``stop``: draw
        until a card for which stop(card, hand before it) holds, or both piles are dry."""
        avail = self.available()
        start = Counter(self.hands[p])
        e = self.peek()
        if not self.is_(e, "draw", p=p, cause=cause):
            if avail == 0:
                return []  # nothing to draw: the draw event may be left out
            self.abort(f"expected draw by seat {p} (cause {cause}), found {_desc(e)}", self.i)
        first = self.i
        cards: list[str] = []
        while True:
            e = self.take()
            got = e["cards"]
            if not isinstance(got, list):
                self.abort("draw.cards is not a list")
            for c in got:
                if not self.draw:
                    self.abort(f"seat {p} draws {c} from an empty draw pile")
                if c != self.draw[-1]:
                    self.abort(
                        f"seat {p} draws {c} but the top of the draw pile is "
                        f"{self.draw[-1]} (draw pile top last: {self.draw[-4:]})"
                    )
                self.draw.pop()
                self.hands[p][c] += 1
                cards.append(c)
            self.reshuffled = False
            nx = self.peek()
            if not (self.reshuffled and self.is_(nx, "draw", p=p, cause=cause)):
                break
        if n is not None and len(cards) != min(n, avail):
            self.bad(
                f"seat {p} draws {len(cards)} card(s) (cause {cause}), expected {min(n, avail)}",
                first,
            )
        if stop is not None:
            h = Counter(start)
            stopped = False
            for k, c in enumerate(cards):
                stopped = stop(c, h)
                if stopped and k < len(cards) - 1:
                    self.bad(
                        f"seat {p} keeps drawing (cause {cause}) after {c}, which ends the draw",
                        first,
                    )
                    break
                h[c] += 1
            if not stopped and len(cards) < avail:
                self.bad(
                    f"seat {p} stops drawing (cause {cause}) after {len(cards)} card(s) "
                    f"with {avail} still reachable",
                    first,
                )
        return cards

    # --- start of a round -------------------------------------------------

    def first_flip(self) -> int:
        """Flip until play can start; return the seat of the first turn."""
        R = self.R
        fp = self.nxt(self.dealer, 1)
        while True:
            e = self.expect("flip")
            c = e["card"]
            if not self.draw:
                self.abort("flip from an empty draw pile")
            if c != self.draw[-1]:
                self.abort(f"flip shows {c} but the top of the draw pile is {self.draw[-1]}")
            self.draw.pop()
            self.discard.append(c)
            self.color = self.col(c)
            if self.num(c):
                return fp
            if R.first_flip == "redraw":
                continue
            k = self.kind(c)
            if self.wild(c) and k.draw:
                e = self.expect("return", f"(a flipped {c} goes back)", card=c)
                if not _inserted(list(e["draw"]), self.draw, c):
                    self.abort(f"return.draw is not the old draw pile with the {c} inserted")
                self.discard.pop()
                self.draw = list(e["draw"])
                continue
            if k.flip:  # the dark face's own effect is not applied (docs/trace.md §6)
                self.flip_all(-1)
                return fp
            if k.skip_all and not (k.discard or k.reverse or k.draw):
                # the dealer is the card's player: every other seat is skipped and the
                # dealer takes the first turn (the engine's reading; docs/trace.md §3)
                self.expect("skip_all", "(first flip Skip Everyone)", p=self.dealer)
                for s in self.others(self.dealer):
                    self.expect("skip", "(first flip Skip Everyone)", p=s)
                return self.dealer
            if k.discard or k.swap or k.rotate or k.until or (k.draw and k.reverse):
                self.abort(f"first flip {c} under first_flip apply: outside what this checker "
                           "replays (docs/rules.md §11 leaves it open)")
            if k.draw:
                self.read_draw(fp, "draw2", n=k.draw)
                self.expect("skip", "(first flip Draw Two)", p=fp)
                return self.nxt(fp)
            if k.skip:
                self.expect("skip", "(first flip Skip)", p=fp)
                return self.nxt(fp)
            if k.reverse:
                self.dir = -1
                e = self.expect("reverse", "(first flip Reverse)")
                if e["direction"] != -1:
                    self.bad(f"reverse.direction is {e['direction']}, expected -1")
                return self.dealer
            return fp  # W (or WX): the first player names the color in their turn event

    # --- turns -------------------------------------------------------------

    def turn_start(self, e: dict[str, Any]) -> None:
        """Check a turn event (color, top), count it, and read a Don't Talk slip."""
        p = e["p"]
        if self.color is None:
            if e["color"] not in self.colors:
                self.abort(f"turn.color {e['color']!r} is not a color (naming the flipped wild)")
            self.color = e["color"]
        elif e["color"] != self.color:
            self.bad(f"turn.color is {e['color']}, active color is {self.color}")
        if e["top"] != self.discard[-1]:
            self.bad(f"turn.top is {e['top']}, top discard is {self.discard[-1]}")
        self.turns += 1
        nx = self.peek()
        self.slipped = self.is_(nx, "slip")
        if self.slipped:
            s = self.take()
            if s["p"] != p or p not in self.silenced:
                self.abort(
                    f"slip for seat {s['p']}, which is not a silenced seat starting its "
                    f"turn (silenced: {sorted(self.silenced)}, turn of {p})"
                )
            if self.rate("dont_talk_slip_rate") == 0:
                self.bad(f"seat {p} slips with dont_talk_slip_rate 0")
            self.read_draw(p, "dont_talk", n=3)
        elif p in self.silenced and self.rate("dont_talk_slip_rate") == 1:
            self.bad(f"silenced seat {p} does not slip with dont_talk_slip_rate 1")

    def regular_turn(self, p: int) -> int | None:
        e = self.expect("turn", p=p)
        self.turn_start(e)
        self.window = False
        nx = self.peek()
        if self.is_(nx, "play", p=p):
            e = self.take()
            self.judge_play(p, e["card"])
            self.apply_play(e, p)
            return self.after_play(p, self.drop(p, e["card"]), None)
        if self.is_(nx, "draw", p=p, cause="turn"):
            c = self.has_legal(p) if p in self.random_seats else None
            if c is not None:
                self.bad(f"random policy: seat {p} draws while holding the legal {c}", self.i)
            c = self.has_legal(p) if self.R.ruling["forced_play"] else None
            if c is not None:
                self.bad(f"forced_play: seat {p} draws while holding the legal {c}", self.i)
            return self.turn_draw(p)
        if self.available() == 0 and not self.is_(nx, "play"):
            c = self.has_legal(p) if p in self.random_seats else None
            if c is not None:
                self.bad(f"random policy: seat {p} passes while holding the legal {c}")
            return self.nxt(p)  # nothing to draw and no play: the turn passes
        self.abort(f"seat {p} neither plays nor draws on its turn; found {_desc(nx)}", self.i)
        return None

    def turn_draw(self, p: int) -> int | None:
        if self.R.draw_until_play:
            cards = self.read_draw(p, "turn", stop=self.legal)
        else:
            cards = self.read_draw(p, "turn", n=1)
        if not cards:
            return self.nxt(p)
        if self.mercy([p]):
            return None
        if p not in self.active_set:  # out before playing the card it drew
            return self.nxt(p)
        last = cards[-1]
        nx = self.peek()
        then = self.R.ruling["draw_then_play"]
        if self.R.draw_until_play and then == "none":  # draw_until_play plays the card it finds
            then = "drawn"
        if self.is_(nx, "play", p=p):
            e = self.take()
            if then == "none":
                self.bad(f"draw_then_play none: seat {p} plays {e['card']} after drawing")
            elif e["card"] != last and then == "drawn":
                self.abort(
                    f"seat {p} plays {e['card']} after drawing; only the drawn card "
                    f"{last} may be played"
                )
            self.judge_play(p, e["card"])
            self.apply_play(e, p)
            return self.after_play(p, self.drop(p, e["card"]), None)
        kept = self.has_legal(p) if then == "any" else None
        if kept is not None and (self.R.ruling["forced_play"] or self.R.draw_until_play):
            self.bad(f"seat {p} keeps the legal {kept} after drawing (it must play)")
        if then == "drawn" and self.legal(last, self.without(p, last)):
            if self.R.ruling["forced_play"]:
                self.bad(f"forced_play: seat {p} keeps the playable drawn {last}")
            if self.R.draw_until_play:
                self.bad(f"draw_until_play: seat {p} drew the playable {last} but did not play it")
            elif p in self.random_seats:
                self.bad(f"random policy: seat {p} keeps the playable drawn {last}")
        return self.nxt(p)

    def judge_play(self, p: int, card: str) -> None:
        """Check a turn play's legality; a WD4's legality is remembered for a challenge."""
        if card not in self.tokens:
            self.abort(f"unknown card {card!r}")
        if self.hands[p][card] <= 0:
            self.abort(
                f"seat {p} plays {card}, which it does not hold "
                f"(hand {sorted(self.hands[p].elements())})"
            )
        others = self.without(p, card)
        if not self.finish_ok(card, others):
            self.bad(f"no_action_finish: seat {p} plays {card} as its last card")
        if self.kind(card).cond:
            self.wd4_illegal = not self.wd4_ok(others)
            self.wd4_idx = self.cur
        elif not self.legal(card, others):
            self.bad(
                f"illegal play: seat {p} plays {card} on {self.discard[-1]} with active "
                f"color {self.color}"
            )

    def apply_play(self, e: dict[str, Any], p: int) -> None:
        card, color = e["card"], e["color"]
        if card not in self.tokens:
            self.abort(f"unknown card {card!r}")
        if self.hands[p][card] <= 0:
            self.abort(f"seat {p} plays {card}, which it does not hold")
        if color not in self.colors:
            self.bad(f"play.color {color!r} is not a color")
            color = self.col(card) or self.color
        elif not self.wild(card) and color != self.col(card):
            self.bad(f"play.color is {color} for the colored card {card}")
            color = self.col(card)
        self.take_card(p, card)
        self.discard.append(card)
        self.color = color
        self.top_player = p

    def drop(self, p: int, card: str) -> str:
        """multiple_play (§12): the turn's number card may be followed by the other
        cards of its number; returns the last one played (the top card)."""
        if not (self.R.ruling["multiple_play"] and self.num(card)):
            return card
        while self.is_(self.peek(), "play", p=p):
            e = self.take()
            c = e["card"]
            if not self.num(c) or self.rank(c) != self.rank(card):
                self.abort(f"seat {p} drops {c} with {card}: only the same number may follow")
            self.apply_play(e, p)
            card = c
        more = [c for c in self.hands[p] if self.num(c) and self.rank(c) == self.rank(card)]
        if more and p in self.random_seats:
            self.bad(f"random policy: seat {p} keeps {more[0]} of the number it dropped")
        return card

    def done(self, seat: int) -> int:
        """A play has fully resolved: a jump-in may come before ``seat``'s turn."""
        self.window = True
        return seat

    def after_play(self, p: int, card: str, chain: tuple[int, int] | None) -> int | None:
        """Everything a play sets off, in the engine's order (docs/trace.md §3, docs/rules.md §10,
        §11: ``discard_color`` first, then ``reverse``, then one of the acting effects).
        ``chain``: (total, length) of the stack this card was added to. Returns the seat of
        the next regular turn, or None when the round ended."""
        k = self.kind(card)
        if k.special:
            self.special(p, card)
        if k.discard:
            self.discard_color(p, card)
        left = self.hands[p].total()
        nx = self.peek()
        if left == 1:
            self.uno(p)
        elif self.is_(nx, "uno"):
            self.abort(f"uno event but seat {nx.get('p')} holds {left} card(s)", self.i)
        if k.flip:  # a last Flip card still flips: the round is scored on the new side
            self.flip_all(p, last=left == 0)
            if left == 0:
                self.expect_end(p, f"(seat {p} played its last card)")
                return None
            return self.done(self.nxt(p))
        r = self.rank(card)
        if left == 0:
            if k.until and k.player_names and self.R.ruling["last_card_draws"]:
                # a last Wild Draw Color: its draw still happens (docs/trace.md §6)
                v = self.nxt(p)
                self.until_color(v, "draw_until_color", self.color)
                self.mercy([v], end=False)
            if k.draw and self.R.ruling["last_card_draws"]:
                # a last Wild Reverse Draw Four: no reverse event, its draw goes to the
                # next player in the new direction (docs/trace.md §3)
                total = (chain[0] if chain else 0) + k.draw
                length = (chain[1] if chain else 0) + 1
                v = self.nxt(p, -self.dir if k.reverse else self.dir)
                self.read_draw(v, self.cause(card, length), n=total)
                self.mercy([v], end=False)
            self.expect_end(p, f"(seat {p} played its last card)")
            return None
        if k.reverse and (k.draw or not (len(self.active) == 2 and self.R.two_player_reverse)):
            self.turn_back()
            if not k.draw:
                return self.done(self.nxt(p))
        if (self.R.seven_o and r == "7" and self.num(card)) or k.swap:
            e = self.expect("swap", "(Seven-O)", a=p)
            b = e["b"]
            if b == p or b not in self.active_set:
                self.abort(f"swap with seat {b}, not another seat in the round")
            if self.R.ruling["seven_o_swap"] == "next" and b != self.nxt(p):
                self.bad(f"seven_o_swap next: seat {p} swaps with {b}, not {self.nxt(p)}")
            self.hands[p], self.hands[b] = self.hands[b], self.hands[p]
            if self.mercy([p, *self.others(p)]):
                return None
        elif (self.R.seven_o and r == "0" and self.num(card)) or k.rotate:
            e = self.expect("rotate", "(Seven-O)")
            d = 1 if self.R.ruling["seven_o_pass"] == "left" else self.dir
            if e["direction"] != d:
                self.bad(f"rotate.direction is {e['direction']}, expected {d}")
            old = {s: self.hands[s] for s in self.active}
            for s in self.active:
                self.hands[self.nxt(s, d)] = old[s]
            if self.mercy([p, *self.others(p)]):
                return None
        elif k.until:
            return self.draw_color(p, card) if k.player_names else self.roulette(p)
        elif k.draw:
            return self.penalty(p, card, chain)
        elif k.skip_all:
            self.expect("skip_all", "(Skip Everyone)", p=p)
            for s in self.others(p):
                self.expect("skip", "(Skip Everyone)", p=s)
            return self.done(p)
        elif k.skip:
            v = self.nxt(p)
            self.expect("skip", "(Skip)", p=v)
            return self.done(self.nxt(v))
        elif k.reverse:  # two_player_reverse: a Reverse acts as a Skip
            self.expect("skip", "(two-player Reverse)", p=self.nxt(p))
            return self.done(p)
        return self.done(self.nxt(p))

    def turn_back(self) -> None:
        """A ``reverse`` effect: the direction flips and a ``reverse`` event says so."""
        self.dir = -self.dir
        e = self.expect("reverse")
        if e["direction"] != self.dir:
            self.abort(f"reverse.direction is {e['direction']}, expected {self.dir}")

    def cause(self, card: str, length: int) -> str:
        """docs/trace.md §3: a single colored draw card's penalty is ``draw2``, a wild's
        ``wd4`` (whatever their amounts), a stack of two or more ``stack``."""
        return ("wd4" if self.wild(card) else "draw2") if length == 1 else "stack"

    def discard_color(self, p: int, card: str) -> None:
        """Discard All (``discard_color``): every card of the played card's color in the
        hand goes under the played card, which stays on top (docs/rules.md §11)."""
        col = self.col(card)
        held = Counter({c: n for c, n in self.hands[p].items() if n > 0 and self.col(c) == col})
        if not self.is_(self.peek(), "discard", p=p):
            if held:
                self.abort(f"seat {p} plays {card} holding {sorted(held.elements())} of its "
                           f"color; expected a discard event")
            return
        e = self.take()
        got = e["cards"]
        if not isinstance(got, list) or Counter(got) != held:
            self.abort(f"discard.cards is {got}; seat {p} holds {sorted(held.elements())} of "
                       f"color {col}")
        for c in got:
            self.take_card(p, c)
        self.discard[-1:-1] = got

    def roulette(self, p: int) -> int | None:
        """Wild Color Roulette (``draw_until_color``): the next player names a color, draws
        until a card of it comes, keeps them and loses the turn (docs/rules.md §11)."""
        v = self.nxt(p)
        e = self.peek()
        named = e["color"] if e and self.is_(e, "draw", p=v, cause="draw_until_color") else None
        if named is not None:
            if named not in self.colors:
                self.abort(f"draw_until_color names {named!r}, not a color")
            self.color = named
        self.read_draw(v, "draw_until_color", stop=lambda c, _h: self.col(c) == named)
        if self.mercy([v]):
            return None
        if v not in self.active_set:
            return self.done(self.nxt(v))
        self.expect("skip", "(after a draw_until_color)", p=v)
        return self.done(self.nxt(v))

    def until_color(self, v: int, cause: str, named: str | None, more: int = 0) -> None:
        """Seat ``v`` draws until a card whose face in play has the ``named`` color, and
        ``more`` cards after it (or until both piles are dry). A ``color`` key on the draw,
        if written, is that color."""
        nx = self.peek() or {}
        if self.is_(nx, "draw", p=v, cause=cause) and nx.get("color", named) != named:
            self.bad(f"draw.color is {nx['color']!r}; the color named is {named!r}", self.i)
        after: list[int] = []  # cards drawn after the first of the named color

        def stop(c: str, _h: Counter[str]) -> bool:
            if after:
                after[0] += 1
            elif self.col(c) == named:
                after.append(0)
            return bool(after) and after[0] == more

        self.read_draw(v, cause, stop=stop)

    def draw_color(self, p: int, card: str) -> int | None:
        """Wild Draw Color (``draw_until_color`` with ``names_color: player``): the next
        seat accepts (draws until the color ``p`` named, loses the turn) or challenges:
        a guilty ``p`` draws until that color and the challenger plays; a wrong challenger
        draws until it and two more and loses the turn. No stacking, no deflection."""
        v, named = self.nxt(p), self.color
        illegal = self.kind(card).cond and self.wd4_illegal
        self.wd4_illegal = False
        if self.is_(self.peek(), "challenge"):
            self.judge_challenge(v, p, card, illegal, self.kind(card).chal)
            if illegal:
                self.until_color(p, "challenge", named)
                return None if self.mercy([p]) else v  # the challenger plays normally
            self.until_color(v, "challenge", named, more=2)
        else:
            if illegal and not self.allow_bluffs:
                self.bad(f"illegal {card}: seat {p} held the active color and nobody "
                         "challenged", self.wd4_idx)
            self.until_color(v, "draw_until_color", named)
        if self.mercy([v]):
            return None
        if v in self.active_set:
            self.expect("skip", f"(after {card}'s draw)", p=v)
        return self.done(self.nxt(v))

    def flip_all(self, p: int, last: bool = False) -> None:
        """UNO Flip's ``flip`` (docs/trace.md §6): the discard pile, every hand and the
        draw pile turn over, orders unchanged, so only the face in play changes. The new
        top's face gives the active color; a wild face has its color named by the flip's
        player (none on the first flip, ``p`` -1, nor after a last card)."""
        e = self.expect("flip_all", "(a Flip card turns everything over)", p=p)
        self.side = 1 - self.side
        self.colors = tuple((COLORS, DARK_COLORS)[self.side])
        if e["side"] != SIDES[self.side]:
            self.bad(f"flip_all.side is {e['side']!r}, expected {SIDES[self.side]!r}")
        top = self.discard[-1]
        got = e["color"]
        if not self.wild(top):
            if got != self.col(top):
                self.bad(f"flip_all.color is {got!r}; the new top face {self.shown(top)} "
                         f"({top}) is {self.col(top)}")
            self.color = self.col(top)
        elif p < 0 or last:
            if got is not None:
                self.bad(f"flip_all.color is {got!r}; the new top face {self.shown(top)} is a "
                         "wild and nobody names a color (expected null)")
            self.color = None
        elif got not in self.colors:
            self.abort(f"flip_all.color {got!r} is not a {SIDES[self.side]} color; seat {p} "
                       f"names one for the wild face {self.shown(top)}")
        else:
            self.color = got

    def mercy(self, seats: list[int], end: bool = True) -> bool:
        """The mercy rule (docs/rules.md §11): each of ``seats`` (in that order) holding
        ``mercy_limit`` cards or more is out, its hand under the discard pile. True when
        one player is left and the round ended (unless ``end`` is False: the caller ends
        it)."""
        lim = self.R.mercy_limit
        for s in seats:
            nx = self.peek()
            held = self.hands[s].total()
            if not lim or held < lim or s not in self.active_set:
                if self.is_(nx, "out", p=s):
                    self.abort(f"out: seat {s} holds {held} card(s), the mercy limit is "
                               f"{lim or 'off'}", self.i)
                continue
            e = self.expect("out", f"(seat {s} holds {held} cards, mercy limit {lim})", p=s)
            if e["reason"] != "mercy" or e["to"] != "discard_bottom":
                self.bad(f"out.reason {e['reason']!r} / out.to {e['to']!r}, expected 'mercy' / "
                         "'discard_bottom'")
            got = e["cards"]
            if not isinstance(got, list) or Counter(got) != self.hands[s]:
                self.abort(f"out.cards is {got}; seat {s} holds "
                           f"{sorted(self.hands[s].elements())}")
            self.discard[:0] = got
            self.hands[s] = Counter()
            self.active = [a for a in self.active if a != s]
            self.active_set.discard(s)
        nx = self.peek()
        if nx is not None and self.is_(nx, "out"):
            self.abort(f"out event for seat {nx.get('p')} where none is due", self.i)
        if end and len(self.active) == 1:
            self.expect_end(self.active[0], "(the last player standing, mercy rule)")
            return True
        return False

    def penalty(self, p: int, card: str, chain: tuple[int, int] | None) -> int | None:
        """The next player's answer to a draw card: accept, challenge or stack."""
        k = self.kind(card)
        total = (chain[0] if chain else 0) + k.draw
        length = (chain[1] if chain else 0) + 1
        illegal = k.cond and self.wd4_illegal
        self.wd4_illegal = False
        self.pend_value = k.stack
        return self.face(self.nxt(p), p, card, total, length, illegal, False)

    def judge_challenge(self, v: int, p: int, card: str, illegal: bool, can: bool) -> None:
        """Take seat ``v``'s challenge of ``p``'s ``card`` (``can``: the card may be
        challenged here) and check its outcome against the card's legality."""
        R = self.R
        e = self.take()
        if not can:
            self.abort(
                "challenge of a card that cannot be challenged (only a challengeable card "
                "that starts a chain can be, never a deflected one)"
            )
        if not R.ruling["challenge"] or R.ruling["wd4_unrestricted"]:
            self.abort("challenge, but the rulings remove the challenge")
        if not R.challenge_on:
            self.abort("challenge, but the edition has challenge: false")
        if e["p"] != v or e["target"] != p:
            self.abort(f"challenge by {e['p']} of {e['target']}; expected {v} of {p}")
        if v in self.random_seats:
            self.bad(f"random policy: seat {v} challenges")
        if e["success"] != illegal:
            self.bad(
                f"challenge.success is {e['success']} but the {card} was "
                f"{'illegal' if illegal else 'legal'}"
            )

    def face(self, v: int, p: int, card: str, total: int, length: int, illegal: bool,
             deflected: bool) -> int | None:
        """Seat ``v`` faces the pending draw (of ``p``'s ``card``): accept, challenge, stack
        or deflect."""
        R = self.R
        d2 = not self.wild(card)
        k = self.kind(card)
        if R.value_stacking:
            can_stack = True
        else:
            can_stack = (R.d2_on_d2 or R.wd4_on_d2) if d2 else (R.wd4_on_wd4 or R.d2_on_wd4)
        can_stack = can_stack or R.ruling["deflect"]
        nx = self.peek()
        if self.is_(nx, "challenge"):
            self.judge_challenge(v, p, card, illegal, k.chal and length == 1 and not deflected)
            if illegal:
                self.read_draw(p, "challenge", n=k.draw)
                if self.mercy([p]):
                    return None
                return v  # the challenger takes a normal turn
            self.read_draw(v, "challenge", n=k.draw + 2)
            if self.mercy([v]):
                return None
            if v in self.active_set:
                self.expect("skip", "(failed challenge)", p=v)
            return self.done(self.nxt(v))
        if illegal and not self.allow_bluffs:
            held = "the active color" + (" or a wild" if R.wd4_wilds_block else "")
            self.bad(f"illegal {card}: seat {p} held {held} and nobody challenged", self.wd4_idx)
        if can_stack and self.is_(nx, "turn", p=v):
            if self.turns >= R.max_turns:
                self.abort("a stacking turn starts after max_turns turns")
            self.turn_start(self.take())
            self.window = False
            if not self.is_(self.peek(), "play", p=v):
                # A slip's draw (Don't Talk) can leave nothing legal to stack: the
                # stacking turn then ends by taking the penalty (docs/rules.md §10).
                if not self.slipped:
                    self.abort(f"stacking turn of seat {v} without a play and without a slip")
                if self.stackable(v, d2) is not None:
                    self.bad(f"seat {v} accepts after its slip while it can still stack")
                return self.accept(v, card, total, length)
            e = self.expect("play", "(stacking)", p=v)
            s_card = e["card"]
            if s_card not in self.tokens or self.hands[v][s_card] <= 0:
                self.abort(f"seat {v} stacks {s_card}, which it does not hold")
            top = self.discard[-1]
            ks = self.kind(s_card)
            s_wild = self.wild(s_card)
            if R.value_stacking and ks.draw:
                if ks.stack < self.pend_value:
                    self.bad(f"{s_card} (draw value {ks.stack}) stacked on {top} (draw value "
                             f"{self.pend_value}): value stacking needs an equal or higher one")
                if ks.cond and not self.wd4_ok(self.without(v, s_card)) \
                        and not self.allow_bluffs:
                    self.bad(f"illegal stacked {s_card}: seat {v} holds the active color")
            elif ks.draw and not s_wild and not R.value_stacking:
                if d2 and not R.d2_on_d2:
                    self.bad("Draw Two stacked on Draw Two, draw_two_on_draw_two is off")
                if not d2:
                    if not R.d2_on_wd4:
                        self.bad("Draw Two stacked on WD4, draw_two_on_wd4 is off")
                    if self.col(s_card) != self.color:
                        self.bad(f"stacked {s_card} does not match the named color {self.color}")
            elif ks.draw and s_wild and not R.value_stacking:
                if d2 and not R.wd4_on_d2:
                    self.bad("WD4 stacked on Draw Two, wd4_on_draw_two is off")
                if not d2 and not R.wd4_on_wd4:
                    self.bad("WD4 stacked on WD4, wd4_on_wd4 is off")
                if ks.cond and not self.wd4_ok(self.without(v, s_card)) \
                        and not self.allow_bluffs:
                    self.bad(
                        f"illegal stacked {s_card}: seat {v} holds the active color {self.color}"
                        f"{' or a wild' if R.wd4_wilds_block else ''}"
                    )
            elif not s_wild and (ks.skip or ks.reverse) and R.ruling["deflect"]:
                if self.col(s_card) != self.color:
                    self.bad(f"seat {v} deflects with {s_card}; active color is {self.color}")
                if not self.finish_ok(s_card, self.without(v, s_card)):
                    self.bad(f"no_action_finish: seat {v} deflects with its last card")
                self.apply_play(e, v)
                return self.deflected(v, s_card, card, total, length)
            else:
                self.abort(f"seat {v} stacks {s_card} on {top}; only a draw card stacks")
            if not self.finish_ok(s_card, self.without(v, s_card)):
                self.bad(f"no_action_finish: seat {v} stacks {s_card} as its last card")
            self.apply_play(e, v)
            self.wd4_illegal = False
            return self.after_play(v, s_card, (total, length))
        if (
            can_stack
            and self.turns >= R.max_turns
            and self.is_(nx, "end")
            and nx.get("winner") is None
        ):
            # Stacking is a regular turn: one that would start after max_turns
            # ends the round instead (docs/rules.md §10), penalty undrawn.
            if self.stackable(v, d2) is None:
                self.bad(
                    f"stalemate instead of the penalty, but seat {v} has nothing to "
                    "stack: it must accept (not a turn)",
                    self.i,
                )
            self.expect_end(None, "(stalemate: a stacking turn after max_turns)")
            return None
        if can_stack and v in self.random_seats:
            c = self.stackable(v, d2)
            if c is not None:
                self.bad(
                    f"random policy: seat {v} accepts the penalty holding the stackable {c}", self.i
                )
        return self.accept(v, card, total, length)

    def accept(self, v: int, card: str, total: int, length: int) -> int | None:
        """Seat ``v`` draws the pending total and loses the turn; the mercy rule may put
        it out instead (no ``skip`` then)."""
        self.read_draw(v, self.cause(card, length), n=total)
        if self.mercy([v]):
            return None
        if v in self.active_set:
            self.expect("skip", f"(after drawing the {self.cause(card, length)} penalty)", p=v)
        return self.done(self.nxt(v))

    def deflected(self, v: int, card: str, pending: str, total: int, length: int) -> int | None:
        """deflect (§12): a Reverse sends the draw back in the new direction, a Skip on
        to the player after ``v``; the total moves on unchanged."""
        R = self.R
        left = self.hands[v].total()
        if left == 1:
            self.uno(v)
        back = self.kind(card).reverse
        if left == 0:
            if R.ruling["last_card_draws"]:
                self.read_draw(self.nxt(v, -self.dir if back else self.dir),
                               self.cause(pending, length), n=total)
            self.expect_end(v, f"(seat {v} deflected with its last card)")
            return None
        if back:
            self.turn_back()
        return self.face(self.nxt(v), v, pending, total, length, False, True)

    def stackable(self, v: int, on_d2: bool) -> str | None:
        """A card seat ``v`` could legally stack on (or deflect) the pending draw."""
        R = self.R
        for c in self.hands[v]:
            if not self.finish_ok(c, self.without(v, c)):
                continue
            k = self.kind(c)
            if R.ruling["deflect"] and not self.wild(c) and (k.skip or k.reverse) \
                    and self.col(c) == self.color:
                return c
            if not k.draw or (k.cond and not self.wd4_ok(self.without(v, c))):
                continue
            if R.value_stacking:
                if k.stack >= self.pend_value:
                    return c
            elif not self.wild(c) and (
                R.d2_on_d2 if on_d2 else R.d2_on_wd4 and self.col(c) == self.color
            ):
                return c
            elif self.wild(c) and (R.wd4_on_d2 if on_d2 else R.wd4_on_wd4):
                return c
        return None

    def special(self, p: int, card: str) -> None:
        """The edition special wild's effect and the draws it causes (docs/rules.md §4)."""
        e = self.expect("special", p=p)
        if e["card"] != card:
            self.bad(f"special.card is {e['card']}, expected {card}")
        sp = self.kind(card).special
        others = self.others(p)
        t, out = e["target"], e["outcome"]
        if sp == "movie_madness":
            if t not in others:
                self.abort(f"Movie Madness target {t!r} is not another seat in the round")
            fail = self.rate("movie_madness_fail_rate")
            if (out == "failed" and fail == 0) or (out == "named" and fail == 1):
                self.bad(f"Movie Madness outcome {out!r} with fail rate {fail}")
            if out == "failed":
                self.read_draw(t, "special", n=4)
            elif out != "named":
                self.bad(f"Movie Madness outcome {out!r}, expected 'named' or 'failed'")
        elif sp == "wishing_star":
            if t is not None:
                self.bad(f"Wishing Star target is {t}, expected null")
            showing = [s for s in others if any(self.hands[s][c] > 0 for c in self.icons)]
            if not isinstance(out, list) or len(set(out)) != len(out) or set(out) != set(showing):
                self.bad(f"Wishing Star outcome {out!r}, seats holding an icon card: {showing}")
            icons = self.icons
            for s in others:
                if s not in showing:
                    self.read_draw(s, "special", stop=lambda c, _h: c in icons)
        elif sp == "dont_talk":
            if t not in others:
                self.abort(f"Don't Talk target {t!r} is not another seat in the round")
            if out != "silenced":
                self.bad(f"Don't Talk outcome {out!r}, expected 'silenced'")
            self.silenced.add(t)
        else:
            self.abort("special event, but the edition has no special wild")

    def uno(self, p: int) -> None:
        e = self.expect("uno", f"(seat {p} is down to one card)", p=p)
        called, caught = e["called"], e["caught"]
        if not isinstance(called, bool) or not isinstance(caught, bool):
            self.bad("uno.called and uno.caught must be booleans")
        if called and caught:
            self.bad("uno is both called and caught")
        forget, catch = self.rate("uno_forget_rate"), self.rate("uno_catch_rate")
        if (not called and forget == 0) or (called and forget == 1):
            self.bad(f"uno.called is {called} with uno_forget_rate {forget}")
        if not called and ((caught and catch == 0) or (not caught and catch == 1)):
            self.bad(f"uno.caught is {caught} with uno_catch_rate {catch}")
        if not called and caught:
            self.read_draw(p, "uno", n=self.R.uno_penalty)
        if called and self.silenced:
            want = set(self.silenced)
            while want:
                s = self.expect("silence_end", f"(seats {sorted(want)} are silenced)")
                if s["p"] not in want:
                    self.abort(f"silence_end for seat {s['p']}; silenced: {sorted(want)}")
                want.discard(s["p"])
            self.silenced.clear()

    def may_jump(self, s: int, card: str, top: str) -> bool:
        """May seat ``s`` jump in with ``card`` on ``top`` (held or not)? Identical (the faces
        in play, in a Flip edition), or
        any color of the top's number under ``jump_in: same_number``; never a last
        action card under no_action_finish."""
        ok = self.shown(card) == self.shown(top) or (
            self.R.same_number and self.num(top) and self.num(card)
            and self.rank(card) == self.rank(top))
        return ok and self.finish_ok(card, self.without(s, card))

    def jump_card(self, s: int, top: str) -> str | None:
        """A card seat ``s`` holds that may jump in on ``top``."""
        return next((c for c in self.hands[s] if self.may_jump(s, c, top)), None)

    def jump_window(self, seat: int) -> int | None:
        """Jump-ins after a resolved play (docs/rules.md §6, §10)."""
        while self.window and self.R.jump_in and not self.wild(self.discard[-1]):
            nx = self.peek()
            top = self.discard[-1]
            tp = self.top_player
            first = (
                next((s for s in self.others(tp) if self.jump_card(s, top)), None)
                if (tp is not None)
                else None
            )
            if self.is_(nx, "jump"):
                e = self.take()
                p, card = e["p"], e["card"]
                if not self.may_jump(p, card, top):
                    self.abort(f"seat {p} jumps in with {card} on {top}; it must be identical"
                               + (" or the same number" if self.R.same_number else ""))
                if p == tp or p not in self.active_set:
                    self.abort(f"seat {p} jumps in on its own card or is not in the round")
                if self.hands[p][card] <= 0:
                    self.abort(f"seat {p} jumps in with {card}, which it does not hold")
                if p != first and not self.agents:
                    self.bad(
                        f"seat {p} jumps in, but seat {first} comes first in turn order "
                        f"holding {top}"
                    )
                if self.jumps >= self.R.max_turns:
                    self.bad("a jump-in starts after max_turns jump-ins")
                self.jumps += 1
                e = self.expect("play", "(jump-in)", p=p, card=card)
                self.apply_play(e, p)
                self.window = False
                nseat = self.after_play(p, card, None)
                if nseat is None:
                    return None
                seat = nseat
                continue
            if (
                first in self.random_seats
                and self.jumps < self.R.max_turns
                and not self.is_(nx, "end")
            ):
                self.bad(
                    f"random policy: seat {first} holds {top} and does not jump in",
                    self.i,
                )
            if (
                self.is_(nx, "end")
                and nx.get("winner") is None
                and first is not None
                and self.jumps >= self.R.max_turns
            ):
                self.expect_end(None, "(stalemate: max_turns jump-ins)")
                return None
            break
        nx = self.peek()
        if self.is_(nx, "jump"):
            self.abort(
                "jump-in where none may come (house rule off, wild on top, or no play "
                "has just resolved)",
                self.i,
            )
        self.window = False
        return seat

    # --- end of a round ----------------------------------------------------

    def expect_end(self, winner: int | None, why: str) -> None:
        e = self.expect("end", why)
        if e["winner"] != winner:
            self.bad(f"end.winner is {e['winner']}, expected {winner}")
        hands = e["hands"]
        if not isinstance(hands, list) or len(hands) != self.players:
            self.bad("end.hands does not list every seat")
        else:
            for s in range(self.players):
                if not isinstance(hands[s], list) or Counter(hands[s]) != self.hands[s]:
                    self.bad(
                        f"end.hands[{s}] is {hands[s]}, replayed hand is "
                        f"{sorted(self.hands[s].elements())}"
                    )
        if e["turns"] != self.turns:
            self.bad(f"end.turns is {e['turns']}, the round has {self.turns} turn events")
        pts = self.round_points(winner)
        if e["points"] != pts:
            self.bad(f"end.points is {e['points']}, expected {pts} ({self.R.scoring} scoring)")
        total = sum(h.total() for h in self.hands) + len(self.draw) + len(self.discard)
        if total != self.deck_size:
            self.bad(
                f"card conservation: {total} cards in hands and piles, deck has {self.deck_size}"
            )
        if self.flip_ed:
            held = sum(self.hands, Counter()) + Counter(self.draw) + Counter(self.discard)
            if held != self.dealt:
                self.bad(f"card conservation: the physical cards changed; extra "
                         f"{dict(held - self.dealt)}, missing {dict(self.dealt - held)}")
        self.round_end = (winner, pts)

    def hand_points(self, hand: Counter[str], special_points: int) -> int:
        """docs/rules.md §1, §11: each kind's listed points (a special wild's from the rules)."""
        return sum(n * (special_points if (pt := self.kind(c).points) is None else pt)
                   for c, n in hand.items())

    def round_points(self, w: int | None) -> int:
        """docs/rules.md §5: what the round scores; a stalemate scores nothing."""
        if w is None:
            return 0
        sp = self.R.special_points
        pts = [self.hand_points(h, sp) for h in self.hands]
        if self.R.scoring == "partners" and self.players == 4:
            return pts[(w + 1) % 4] + pts[(w + 3) % 4]
        if self.R.scoring in ("lowest", "elimination"):
            return sum(pts)
        return sum(pts) - pts[w]

    def after_round(self) -> None:
        """The score event (match mode) and whether the match is decided."""
        g = self.game
        assert g is not None
        w, pts = self.round_end
        sp = self.R.special_points
        if w is not None:
            if g.scoring == "partners":
                g.scores[w] += pts
                g.scores[(w + 2) % 4] += pts
            elif g.scoring in ("lowest", "elimination"):
                for s in range(self.players):
                    g.scores[s] += self.hand_points(self.hands[s], sp)
            else:
                g.scores[w] += pts
        nx = self.peek()
        if g.mode == "match" and not self.is_(nx, "score"):
            self.abort(f"expected score after the round's end, found {_desc(nx)}", self.i)
        if self.is_(nx, "score"):
            e = self.take()
            if e["scores"] != g.scores:
                self.bad(f"score.scores is {e['scores']}, expected {g.scores}")
            elim = e.get("eliminated", [])
            if g.scoring == "elimination":
                want = sorted(s for s in range(g.players) if g.scores[s] >= g.target)
                if "eliminated" not in e or sorted(elim or []) != want:
                    self.bad(f"score.eliminated is {elim}, expected {want}")
            elif elim:
                self.bad(f"score.eliminated is {elim} without elimination scoring")
        if g.mode == "round":
            g.done = True
            g.winner = None if w is None else {w}
            return
        prev = set(g.eliminated)
        if g.scoring == "elimination":
            g.eliminated = {s for s in range(g.players) if g.scores[s] >= g.target}
        self.decide_match(g, prev)

    def decide_match(self, g: _Game, prev_elim: set[int] | None = None) -> None:
        """Is the match over after this round's totals, and who won it?"""
        sc = g.scores
        if g.scoring == "elimination":
            left = [s for s in range(g.players) if s not in g.eliminated]
            if len(left) <= 1:
                g.done = True
                if left:
                    g.winner = set(left)
                else:  # everyone left crossed at once: the lowest of them (assumption)
                    last = [s for s in range(g.players) if s not in (prev_elim or set())]
                    last = last or list(range(g.players))
                    m = min(sc[s] for s in last)
                    g.winner = {s for s in last if sc[s] == m}
            return
        if any(x >= g.target for x in sc):
            g.done = True
            if g.scoring == "lowest":
                m = min(sc)
                g.winner = {s for s in range(g.players) if sc[s] == m}
            else:
                g.winner = {s for s in range(g.players) if sc[s] >= g.target}

    def match_end(self) -> None:
        e = self.take()
        g = self.game
        if g is None:
            self.abort("match_end without a match")
            return
        if g.ended:
            self.abort("a second match_end")
        g.ended = True
        if e["scores"] != g.scores:
            self.bad(f"match_end.scores is {e['scores']}, expected {g.scores}")
        got = _seats(e["winner"])
        if g.done:
            if got != g.winner:
                want = sorted(g.winner) if g.winner is not None else None
                self.bad(f"match_end.winner is {e['winner']}, expected {want}")
        elif got is not None or g.rounds < g.max_rounds:
            self.bad(
                f"match_end after {g.rounds} round(s) with no decision (scores {g.scores}, "
                f"target {g.target})"
            )
