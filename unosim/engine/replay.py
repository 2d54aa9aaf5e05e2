"""Follow a JSONL trace (docs/trace.md) with the compiled engine: the table after every event.

A viewer must not guess what the rules did, so each round of the trace is
dealt again into a `Round` from its ``deal`` event and driven along the trace:
at every decision, the legal action whose events are the trace's next ones
(`Follower`, the same search ``unosim advise --trace`` uses). In a match the
engine also scores each round (`score_round`) and picks the next dealer, and
both must agree with the trace.

One action writes several events (a play, an UNO call, a skip, the next
turn). The table between them is moved along by what each event records (the
cards it names go from pile to hand, a swap exchanges two hands); at the end
of every action that table must equal the engine's, card for card, or the
replay stops with `TraceReplayError`. So every state `replay` returns is one
the engine reached or one the trace's own record leads to between two that it
reached.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from unosim.engine.game import IllegalActionError, Round, card_pairs
from unosim.engine.kernel import state as L
from unosim.engine.kernel.deal import deal as deal_cards
from unosim.engine.kernel.deal import reset_state
from unosim.engine.kernel.flip import index_faces, pick
from unosim.engine.kernel.scoring import next_dealer, score_round, start_match
from unosim.engine.kernel.state import CompiledConfig, compile_config
from unosim.engine.trace import SIDES, face, pair_code
from unosim.rules.cards import CardError, KindTable, is_wild_token
from unosim.rules.effects import FX_DRAW

__all__ = ["Follower", "Table", "TraceReplayError", "replay", "round_at_event", "trace_config"]

# rules a deal event shows that come from the edition, not from a config key
EDITION_RULES = {"first_flip", "wd4_wilds_block", "uno_penalty", "special", "special_points",
                 "stacking", "mercy_limit", "challenge", "dark_colors"}


PENALTIES = ("draw2", "wd4", "stack", "challenge")  # draw causes that pay what was pending


def card_key(kinds: KindTable, side: str = "light") -> Any:
    """The order a hand is shown in: by kind of the face in play, then of the other face
    (a UNO Flip hand is sorted anew when the deck turns over)."""
    s = SIDES.index(side)

    def key(card: str) -> tuple[int, ...]:
        faces = card.split("/")
        if len(faces) != 2:
            return (kinds.kind(card),)
        return kinds.kind(faces[s]), kinds.kind(faces[1 - s])
    return key


class TraceReplayError(ValueError):
    """The trace cannot be followed: malformed, or not a game these rules play."""


def _flat(d: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for k, v in d.items():
        out += _flat(v, f"{prefix}{k}.") if isinstance(v, dict) else [(prefix + k, v)]
    return out


def trace_config(deal: dict[str, Any]) -> CompiledConfig:
    """The compiled config a deal event describes: its edition with its resolved rules
    as overrides, checked to give back exactly those rules."""
    from unosim.rules.config import ConfigError, load_config

    rules = deal.get("rules")
    if not isinstance(rules, dict):
        raise TraceReplayError("the trace's deal event has no rules")
    sets = [f"edition={json.dumps(deal.get('edition'))}"] + [
        f"{k}={json.dumps(v)}" for k, v in _flat(rules) if k not in EDITION_RULES]
    try:
        cc = compile_config(load_config("classic", sets))
    except ConfigError as exc:
        raise TraceReplayError(f"the trace's rules: {exc}") from exc
    if cc.rules != rules:
        diff = next((k for k, v in _flat(rules) if dict(_flat(cc.rules)).get(k) != v), "?")
        raise TraceReplayError(f"the trace's rules are not those of edition "
                               f"{deal.get('edition')!r} (rule {diff})")
    if "cards" in deal and deal["cards"] != cc.card_list:  # older traces have no cards
        raise TraceReplayError(f"the trace's cards are not those of edition "
                               f"{deal.get('edition')!r}")
    return cc


def _code(r: Round, card: str) -> int:
    """A card token as the kernel's pile values compare: its kind, or a UNO Flip card's
    two faces (`unosim.engine.kernel.flip.card_code`)."""
    if not r.two_sided:
        return r.kinds.kind(card)
    (light, dark), = card_pairs(r.kinds, [card], "a reshuffled card")
    return int(pair_code(light, dark))


def _values(r: Round, codes: np.ndarray, pile: np.ndarray) -> np.ndarray:
    """Pile values showing ``codes``, taken from ``pile`` (the same cards in another
    order): the codes themselves, or a UNO Flip game's physical cards with those faces
    (two cards with the same two faces are interchangeable)."""
    if not r.two_sided:
        return codes
    fl = r.S.fl
    by_code: dict[int, list[int]] = {}
    for v in pile.tolist():
        by_code.setdefault(int(pair_code(fl[0, v], fl[1, v])), []).append(v)
    return np.array([by_code[int(c)].pop() for c in codes], dtype=np.int64)


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two events are the same (a round's number aside; an ``end`` event's hands as
    multisets: a UNO Flip hand is listed in the order of its physical cards' numbers,
    which a replay numbers otherwise)."""
    if a.get("e") == b.get("e") == "end":
        a, b = ({**x, "hands": [sorted(h) for h in x["hands"]]} for x in (a, b))
    return {k: v for k, v in a.items() if k != "round"} == {
        k: v for k, v in b.items() if k != "round"}


class Follower:
    """A `Round` driven along a trace: at each decision the legal action whose events
    are the trace's next ones. The rules' only randomness is forced to the trace's
    outcome: behaviour rates are set to 0 or 1 from the events ahead, and before a
    reshuffle the discard pile under its top is reordered so the engine's shuffle
    gives the pile the trace shows.

    Each action is tried on a `Round.clone`; the clone that follows the trace becomes
    ``r``. When the game's own actions are known (``actions``, from `Round.history`
    of the game that wrote the trace, ``at`` the next one), each decision tries that
    action first instead of every legal one."""

    def __init__(self, r: Round, trace: Sequence[dict[str, Any]], t: int,
                 actions: Sequence[int] | None = None, at: int = 0) -> None:
        self.r, self.trace, self.t = r, trace, t
        self.rates = r.C.cf.copy()
        self.bluffs = r.C.pp[:, L.P_BLUFF].copy()  # put back by `done`
        r.C.pp[:, L.P_BLUFF] = 1.0  # (see `force_rates`)
        self.partial = False  # the last action wrote more events than the trace has left
        self.actions, self.at = actions, at
        # from each event on, the next UNO call and the next Movie Madness outcome
        self.uno_ahead: list[dict[str, Any] | None] = [None] * (len(trace) + 1)
        self.movie_ahead: list[dict[str, Any] | None] = [None] * (len(trace) + 1)
        for i in range(len(trace) - 1, t - 1, -1):
            e = trace[i]
            self.uno_ahead[i] = e if e["e"] == "uno" else self.uno_ahead[i + 1]
            self.movie_ahead[i] = e if (e["e"] == "special" and e.get("special")
                                        == "movie_madness") else self.movie_ahead[i + 1]

    def force_rates(self, r: Round, slip: float) -> None:
        """``r``'s behaviour rates set to what the trace ahead shows; and every seat may
        bluff a conditioned wild (a trace does not say which seats' policies bluff:
        a bluff it shows is followed; a challenge then says what it was)."""
        cf, t = r.C.cf, min(self.t, len(self.trace))
        cf[:] = self.rates
        r.C.pp[:, L.P_BLUFF] = 1.0
        uno = self.uno_ahead[t]
        if uno is not None:
            cf[L.F_UNO_FORGET] = 0.0 if uno.get("called") else 1.0
            cf[L.F_UNO_CATCH] = 1.0 if uno.get("caught") else 0.0
        movie = self.movie_ahead[t]
        if movie is not None:
            cf[L.F_MOVIE_FAIL] = 1.0 if movie.get("outcome") == "failed" else 0.0
        cf[L.F_SLIP] = slip

    def matches(self, new: Sequence[dict[str, Any]]) -> int:
        """How many of ``new`` agree with the trace from ``t`` (len(new): all)."""
        for i, e in enumerate(new):
            if self.t + i >= len(self.trace) or not _same(e, self.trace[self.t + i]):
                return i
        return len(new)

    @staticmethod
    def permutation(r: Round, scratch: Round, n: int) -> np.ndarray:
        """Where ``r``'s next shuffle of ``n`` cards takes each (out[i] = in[perm[i]]),
        worked out on ``scratch`` (a clone of ``r``)."""
        from unosim.engine.kernel.table import shuffle_row

        S = scratch.S
        S.rng[:] = r.S.rng
        S.piles[0, :n] = np.arange(n)
        shuffle_row(S, 0, n)
        return np.array(S.piles[0, :n], copy=True)

    def fix_reshuffle(self, r: Round, got: list[str], want: list[str]) -> bool:
        """Make ``r``'s next action reshuffle to ``want`` instead of ``got``: choose the
        stream (nothing else in a replay draws from it) so that the cards played in
        the action land where the trace has them, and order the rest of the discard."""
        from unosim.engine.kernel.rng import seed_game

        S, n = r.S, len(want)
        nd0 = int(S.s[L.S_NDISC])
        try:
            w = np.array([_code(r, c) for c in want], dtype=np.int64)
        except (CardError, IllegalActionError):
            return False
        scratch = r.clone()
        held = np.empty(n, np.int64)  # the discard under the top at the reshuffle
        held[self.permutation(r, scratch, n)] = [_code(r, c) for c in got]
        if sorted(held) != sorted(w):
            return False
        fixed = np.arange(max(nd0 - 1, 0), n)
        for attempt in range(5000):
            if attempt:
                seed_game(S.rng, np.uint64(attempt), np.uint64(0x5EED), 0)
            perm = self.permutation(r, scratch, n)
            inv = np.empty(n, np.int64)
            inv[perm] = np.arange(n)
            if (w[inv[fixed]] == held[fixed]).all():
                free = perm < nd0 - 1
                S.piles[1, perm[free]] = _values(r, w[free], S.piles[1, : max(nd0 - 1, 0)])
                return True
        return False

    def choose_card(self, r: Round, a: int) -> None:
        """UNO Flip: of a seat's cards showing the face ``a``, the engine plays the card
        just drawn (phase ``drawn``) or the one held longest
        (`unosim.engine.kernel.flip.pick`), and a replay numbers the physical cards
        otherwise than the game did. So when the seat holds several, the one the trace's
        next play names takes the number the engine will play (the two cards, in one
        hand and showing one face, trade numbers: nothing else changes)."""
        if not r.two_sided or not 0 <= a < r.kinds.nk:
            return
        e = next((e for e in self.trace[self.t: self.t + 3] if e["e"] in ("play", "jump")),
                 None)
        if e is None or not isinstance(e.get("card"), str):
            return
        S, n = r.S, int(r.cc.ci[L.C_DECK_SIZE])
        fl, side, p = S.fl[:, :n], int(S.s[L.S_SIDE]), int(e["p"])
        ids = np.flatnonzero((S.hp[p, :n] != 0) & (fl[side] == a))
        if len(ids) < 2:
            return
        try:
            want = _code(r, e["card"])
        except (CardError, IllegalActionError):
            return
        played = int(pick(S, r.C, p, a))  # the card the engine will play
        match = ids[pair_code(fl[0, ids], fl[1, ids]) == want]
        if len(match) and want != pair_code(fl[0, played], fl[1, played]):
            v1 = int(match[0])
            fl[:, [played, v1]] = fl[:, [v1, played]]
            index_faces(S, r.C)  # the cards' other faces traded places: the index follows

    def trial(self, a: int, slip: float) -> tuple[int, Round]:
        """``a`` applied to a clone of ``r``: -1 when its events do not follow the trace,
        else the number of events it wrote; and the clone."""
        base = self.r
        for _ in range(3):
            r = base.clone()
            self.force_rates(r, slip)
            self.choose_card(r, a)
            before = r.event_count
            r.apply(a)
            new = r.events(before)
            ok = self.matches(new)
            if ok == len(new) or 0 < ok == len(self.trace) - self.t:  # or the trace stops here
                return ok, r
            got, want = new[ok], self.trace[self.t + ok] if self.t + ok < len(self.trace) else {}
            if base is self.r:
                base = base.clone()  # the reshuffle's fix is this action's alone
            if not (got["e"] == want.get("e") == "reshuffle"
                    and isinstance(want.get("draw"), list)
                    and self.fix_reshuffle(base, list(got["draw"]), list(want["draw"]))):
                return -1, base
        return -1, base

    def candidates(self, known: bool) -> list[tuple[int, float]]:
        """The actions to try (the game's own next one, when ``known``) and the slip
        rates to try them with."""
        slip = float(self.rates[L.F_SLIP])
        slips = [0.0, 1.0] if 0.0 < slip < 1.0 else [slip]
        actions = self.r.legal_actions()
        if known and self.actions is not None and self.actions[self.at] in actions:
            actions = [self.actions[self.at]]
        return [(a, s) for a in actions for s in slips]

    def step(self, depth: int = 0) -> int:
        """Take the decision's action that follows the trace; how many events it wrote."""
        known = self.actions is not None and self.at < len(self.actions)
        while True:
            taken = self._step(depth, known)
            if taken is not None or not known:
                break
            known = False  # the game's own action does not follow: search them all
        if taken is None:
            raise TraceReplayError(
                f"cannot follow the trace at event {self.t} "
                f"({self.trace[self.t]['e'] if self.t < len(self.trace) else 'end'})")
        self.at += 1
        return taken

    def _step(self, depth: int, known: bool) -> int | None:
        empty: list[Round] = []
        best: Round | None = None
        most = 0
        ties: list[Round] = []
        for a, s in self.candidates(known):  # the longest match: a slip may follow a turn
            n, r = self.trial(a, s)
            if n > most:
                best, most, ties = r, n, [r]
            elif n == most and n > 0:
                ties.append(r)
            elif n == 0:
                empty.append(r)
            ahead = self.t + n
            if known and n > 0 and (ahead >= len(self.trace) or self.trace[ahead]["e"] != "slip"):
                break  # the game's own action, and no slip the other rate would add
        if len(ties) > 1:
            best = self.untie(ties, most, depth)
        if best is not None:
            self.partial = best.event_count - self.r.event_count > most
            self.r = best
            self.t += most
            return most
        for r in empty:  # an action without events (a wild before its color, a pass)
            if depth < 12 and not r.is_over and self.lookahead(r, depth + 1):
                self.r = r
                return 0
        return None

    def untie(self, ties: list[Round], most: int, depth: int) -> Round:
        """Several actions wrote the same events (a stacking turn's ``turn`` comes before
        the wild it plays, when several wild kinds draw): the one the trace follows on from."""
        for r in ties:
            if r.is_over or self.t + most >= len(self.trace) or depth >= 12:
                return r
            self.t += most
            try:
                if self.lookahead(r, depth + 1):
                    return r
            finally:
                self.t -= most
        return ties[0]

    def lookahead(self, r: Round, depth: int) -> bool:
        """Can the trace be followed on from ``r``?"""
        saved = self.r, self.t, self.partial, self.at
        self.r, self.at = r, self.at + 1  # ``r`` took this decision's action
        try:
            self.step(depth)
            return True
        except TraceReplayError:
            return False
        finally:
            self.r, self.t, self.partial, self.at = saved

    def done(self) -> None:
        self.r.C.cf[:] = self.rates
        self.r.C.pp[:, L.P_BLUFF] = self.bluffs


# --- the table after each event ------------------------------------------------------
@dataclass(frozen=True)
class Table:
    """The table after one event, as a viewer shows it."""

    round: int
    hands: tuple[tuple[str, ...], ...]  # every seat's cards, sorted as the engine holds them
    draw: int  # cards in the draw pile
    discard: int  # cards in the discard pile
    top: str | None  # top discard (None before the first flip)
    color: str | None  # active colour (None while a flipped wild waits for one)
    direction: int  # +1 or -1
    turn: int | None  # whose turn it is (the last turn event's seat)
    pending: int | None  # cards the seat to act faces drawing (None: not known here)
    scores: tuple[int, ...] | None  # match scores (None in a single round)
    active: tuple[int, ...]  # seats in play
    winner: int | None = None  # after the round's end
    exact: bool = False  # read from the engine (the end of an action), not moved by events
    side: str = "light"  # the side in play (UNO Flip; always light for one-sided cards)
    # UNO Flip: the draw pile's top card (every seat sees its back, the other face); None
    # for one-sided cards or an empty pile
    draw_top: str | None = None


def _sort(cards: Counter[str] | list[str], cc: CompiledConfig,
          side: str = "light") -> tuple[str, ...]:
    items = cards.elements() if isinstance(cards, Counter) else cards
    return tuple(sorted(items, key=card_key(cc.kinds, side)))


def _apply(tb: Table, hands: list[Counter[str]], e: dict[str, Any], cc: CompiledConfig,
           pile: list[str]) -> Table:
    """The table after event ``e`` (``hands`` and the draw ``pile``, bottom first, are
    updated in place), from what it records."""
    k = e["e"]
    ch: dict[str, Any] = {"exact": False}
    _move_pile(pile, e)
    if k == "flip":
        c = e["card"]
        f = face(c, tb.side)
        ch.update(draw=tb.draw - 1, discard=tb.discard + 1, top=c,
                  color=None if is_wild_token(f) else f[0])
    elif k == "return":
        ch.update(draw=len(e["draw"]), discard=tb.discard - 1, top=None, color=None)
    elif k == "turn":
        ch.update(turn=e["p"], color=e["color"], top=e["top"])
    elif k == "play":
        hands[e["p"]][e["card"]] -= 1
        ch.update(discard=tb.discard + 1, top=e["card"], color=e["color"])
        if cc.effects[cc.kinds.kind(face(e["card"], tb.side)), FX_DRAW] > 0:
            ch["pending"] = None  # what it adds is the engine's to say (`_pending`)
    elif k == "draw":
        hands[e["p"]].update(e["cards"])
        ch.update(draw=tb.draw - len(e["cards"]))
        if e["cause"] in PENALTIES:
            ch["pending"] = 0
        if "color" in e:  # a draw until the color its player named
            ch["color"] = e["color"]
    elif k in ("discard", "out"):  # cards from a hand into the discard pile, under its top
        hands[e["p"]].subtract(e["cards"])
        ch.update(discard=tb.discard + len(e["cards"]))
        if k == "out":
            ch.update(active=tuple(q for q in tb.active if q != e["p"]))
    elif k == "reshuffle":
        ch.update(draw=len(e["draw"]), discard=1)
    elif k == "reverse":
        ch.update(direction=e["direction"])
    elif k == "flip_all":  # everything turns over: the top's other face, the named color
        if e["side"] not in SIDES or e["side"] == tb.side:
            raise TraceReplayError(f"a flip_all event to the {e['side']!r:.20} side, but the "
                                   f"{tb.side} side is in play")
        ch.update(side=e["side"], color=e["color"])
    elif k == "swap":
        hands[e["a"]], hands[e["b"]] = hands[e["b"]], hands[e["a"]]
    elif k == "rotate":
        act = list(tb.active)
        old = [hands[q] for q in act]
        for i, h in enumerate(old):
            hands[act[(i + e["direction"]) % len(act)]] = h
    elif k == "end":
        ch.update(winner=e["winner"])
    elif k in ("score", "match_end"):
        ch.update(scores=tuple(e["scores"]))
    ch["hands"] = tuple(_sort(h, cc, ch.get("side", tb.side)) for h in hands)
    if cc.kinds.two_sided:
        ch["draw_top"] = pile[-1] if pile else None
    return replace(tb, **ch)


def _move_pile(pile: list[str], e: dict[str, Any]) -> None:
    """The draw pile (bottom first) after event ``e``: a flip or a draw takes from the
    top, a return or a reshuffle gives the whole new pile."""
    k = e["e"]
    if k == "flip" and pile:
        pile.pop()
    elif k == "draw":
        del pile[max(len(pile) - len(e["cards"]), 0):]
    elif k in ("return", "reshuffle"):
        pile[:] = e["draw"]


def _pending(out: list[Table], trace: Sequence[dict[str, Any]], t0: int, t1: int) -> None:
    """Within one action's events ``t0 .. t1-1``, a penalty drawn later in the action
    says what was pending after the card that made it (the engine decided it at once)."""
    for i in range(t0, t1):
        if out[i].pending is None:
            nxt = next((trace[j] for j in range(i + 1, t1) if trace[j]["e"] in ("draw", "play")),
                       None)
            if nxt is not None and nxt["e"] == "draw" and nxt["cause"] in PENALTIES[:3]:
                out[i] = replace(out[i], pending=len(nxt["cards"]))


def _engine_table(r: Round, tb: Table) -> Table:
    """``tb`` with what the engine holds now (hands, piles, colour, direction, pending)."""
    hands = tuple(_sort(h, r.cc, r.side) for h in r.hands) if r.two_sided else tuple(
        tuple(h) for h in r.hands)  # a Flip hand's cards in card order: sorted by face
    draw = r.draw_pile
    return replace(tb, hands=hands, draw=len(draw),
                   discard=len(r.discard), top=r.discard[-1] if r.discard else None,
                   direction=r.direction, pending=r.pending, side=r.side, exact=True,
                   draw_top=draw[0] if draw and r.two_sided else None)


def _check(tb: Table, r: Round, t: int) -> Table:
    """The engine's table after the action that ended at event ``t``; it must be the one
    the trace's events led to."""
    got = _engine_table(r, tb)
    for name in ("hands", "draw", "discard", "top", "direction", "side", "draw_top"):
        if getattr(got, name) != getattr(tb, name):
            raise TraceReplayError(f"after event {t}, the engine's {name} differ from the "
                                   "trace's (the trace is not a game these rules play)")
    if tb.color is not None and r.color != tb.color and r.phase != "color":
        raise TraceReplayError(f"after event {t}, the engine's colour differs from the trace's")
    return got


def _deal_round(r: Round, deal: dict[str, Any], rest: list[str]) -> None:
    """Deal ``deal``'s hands with the engine, ``rest`` (bottom first) left as the draw
    pile, and flip: the round waits for its first decision."""
    hands, dealer, n = deal["hands"], int(deal["dealer"]), r.players
    alive = [q for q in range(n) if r.S.seat[q, L.SEAT_ALIVE]]
    order = [q for q in ((dealer + 1 + i) % n for i in range(n)) if q in alive]
    size = int(r.cc.ci[L.C_HAND_SIZE])
    if any(len(hands[q]) != size for q in alive) or any(hands[q] for q in range(n)
                                                         if q not in alive):
        raise TraceReplayError(f"the deal's hands are not {size} cards for each seat in play")
    dealt = [hands[q][j] for j in range(size) for q in order]
    cards = [*rest, *dealt[::-1]]  # bottom first; dealt[0] on top
    if len(cards) > r.S.piles.shape[1] - 1:
        raise TraceReplayError(f"the deal holds {len(cards)} cards, more than the deck")
    if r.two_sided:  # physical cards, numbered bottom first: their faces, nobody's yet
        deck = int(r.cc.ci[L.C_DECK_SIZE])
        if len(cards) != deck:
            raise TraceReplayError(f"the deal holds {len(cards)} cards, not the deck's {deck}")
        pairs = card_pairs(r.kinds, cards, "the deal")
        r.S.fl[0, :deck] = [a for a, _ in pairs]
        r.S.fl[1, :deck] = [b for _, b in pairs]
        r.S.hp[:] = 0
        r.S.fo[:] = -1
        r.S.s[L.S_SIDE] = 0
        index_faces(r.S, r.C)
        pile = list(range(deck))
    else:
        pile = [r.kinds.kind(c) for c in cards]
    reset_state(r.S, r.C, dealer)
    r.S.piles[0, : len(pile)] = pile
    r.S.s[L.S_NDRAW] = len(pile)
    deal_cards(r.S, r.C, dealer)
    r.drain()


def _expect(trace: Sequence[dict[str, Any]], t: int, what: str) -> dict[str, Any]:
    if t >= len(trace) or trace[t].get("e") != what:
        raise TraceReplayError(f"event {t}: expected a {what} event")
    return trace[t]


def _deck_fits(cc: CompiledConfig, deal: dict[str, Any]) -> None:
    """The deal's cards are the edition's deck, no more of a card than it holds (of a
    UNO Flip card, no more of either face)."""
    have = Counter(f for h in deal["hands"] for c in h for f in _faces(cc, c)) + Counter(
        f for c in deal["draw"] for f in _faces(cc, c))
    for c, n in have.items():
        if n > int(cc.deck_counts[cc.kinds.kind(c)]):
            raise TraceReplayError(f"the deal has {n} x {c}, more than the deck holds")


def _faces(cc: CompiledConfig, card: str) -> list[str]:
    """A card's faces: a UNO Flip card's two, in an edition of two-sided cards; else one."""
    faces = card.split("/")
    if (len(faces) == 2) != bool(cc.kinds.two_sided):
        raise TraceReplayError(f"{card!r:.40}: the cards of edition {cc.edition_name!r} are "
                               + ("written light/dark" if cc.kinds.two_sided else "one-sided"))
    return faces


def replay(trace: Sequence[dict[str, Any]], actions: Sequence[int] | None = None
           ) -> tuple[list[Table], bool]:
    """The table after every event of ``trace`` (a round, or a whole match), and whether
    the trace was complete (False when it stops in the middle of a round).

    ``actions``, when the trace's game was just played (`Round.history` of the game
    `unosim.engine.game.drive_game` played), lets each decision try the action the
    game took instead of every legal one: the same tables, for a fraction of the work.

    Raises `TraceReplayError` when the trace is malformed or the engine cannot
    follow it."""
    try:
        return _replay(trace, actions)
    except (KeyError, TypeError, IndexError, AttributeError, CardError,
            IllegalActionError) as exc:
        raise TraceReplayError(f"malformed trace ({type(exc).__name__}: {exc})") from exc


def _replay(trace: Sequence[dict[str, Any]], actions: Sequence[int] | None
            ) -> tuple[list[Table], bool]:
    first = _expect(trace, 0, "deal")
    cc = trace_config(first)
    r = Round.blank(cc)
    r.reseed(0, 0, 0)
    at = 0  # the next of ``actions``
    n = r.players
    match = int(cc.ci[L.C_MODE]) != 0
    if match:
        start_match(r.S, r.C)
    out: list[Table] = []
    t = 0
    deck: Counter[str] | None = None  # a UNO Flip game's physical cards (paired once a game)
    while True:  # one round
        d = _expect(trace, t, "deal")
        if d.get("rules") != first["rules"] or int(d["players"]) != n:
            raise TraceReplayError(f"event {t}: a deal with other rules than the first")
        active = tuple(q for q in range(n) if r.S.seat[q, L.SEAT_ALIVE])
        if list(d.get("active", range(n))) != list(active):
            raise TraceReplayError(f"event {t}: the seats in play are not the engine's {active}")
        if not 0 <= int(d["dealer"]) < n:
            raise TraceReplayError(f"event {t}: dealer {d['dealer']} is not a seat")
        _deck_fits(cc, d)
        if r.two_sided:
            cards = Counter(c for h in d["hands"] for c in h) + Counter(d["draw"])
            if deck is not None and cards != deck:
                raise TraceReplayError(f"event {t}: the deal's cards pair their faces otherwise "
                                       "than the game's first deal")
            deck = cards
        r.round_index = int(d.get("round", 0))
        hands = [Counter(h) for h in d["hands"]]
        pile = list(d["draw"])
        tb = Table(round=r.round_index, hands=tuple(_sort(h, cc) for h in hands),
                   draw=len(d["draw"]), discard=0, top=None, color=None, direction=1,
                   turn=None, pending=0, scores=tuple(r.scores) if match else None,
                   active=active, draw_top=pile[-1] if pile and r.two_sided else None)
        out.append(tb)
        # a flipped WD4 returned into the pile went to a random gap: deal the pile the
        # trace shows after the last return (every event before it is a flip or return)
        start = t + 1
        while start < len(trace) and trace[start]["e"] in ("flip", "return"):
            start += 1
        rets = [i for i in range(t + 1, start) if trace[i]["e"] == "return"]
        follow_from = rets[-1] + 1 if rets else t + 1
        rest = trace[rets[-1]]["draw"] if rets else d["draw"]
        for i in range(t + 1, follow_from):
            tb = _apply(tb, hands, trace[i], cc, pile)
            out.append(tb)
        before = r.event_count
        _deal_round(r, d, list(rest))
        dealt = r.events(before)
        if [_sort(h, cc) for h in dealt[0]["hands"]] != [_sort(h, cc) for h in d["hands"]]:
            raise TraceReplayError(f"event {t}: the engine dealt other hands")
        fl = Follower(r, trace, follow_from, actions, at)
        flips = dealt[1:]
        m = fl.matches(flips)
        if m != len(flips) and fl.t + m != len(trace):
            raise TraceReplayError(f"event {t}: the round's first flip does not replay")
        for e in flips[:m]:
            tb = _apply(tb, hands, e, cc, pile)
            out.append(tb)
        if m != len(flips):  # the trace stops among them
            return out, False
        fl.t += len(flips)
        tb = out[-1] = _check(tb, r, fl.t - 1)
        while not fl.r.is_over:
            if fl.t >= len(trace):
                fl.done()
                return out, False
            t0 = fl.t
            fl.step()
            r = fl.r
            for i in range(t0, fl.t):
                tb = _apply(tb, hands, trace[i], cc, pile)
                out.append(tb)
            if fl.partial:  # the trace stops inside this action
                _pending(out, trace, t0, fl.t)
                fl.done()
                return out, False
            if fl.t > t0 and r.phase != "color":
                tb = out[-1] = _check(tb, r, fl.t - 1)
            _pending(out, trace, t0, fl.t)
        fl.done()
        r, t, at = fl.r, fl.t, fl.at
        if not match:
            break
        before = r.event_count
        over, _ = score_round(r.S, r.C)
        r.drain()
        fl.t = t
        new = r.events(before)
        m = fl.matches(new)
        if m != len(new) and t + m != len(trace):
            raise TraceReplayError(f"event {t}: the engine scores the round otherwise")
        for e in new[:m]:
            tb = _apply(tb, hands, e, cc, pile)
            out.append(tb)
        if m != len(new):
            return out, False
        t += len(new)
        if over:
            break
        if t >= len(trace):
            return out, False
        nd = int(next_dealer(r.S, r.C))
        if int(_expect(trace, t, "deal")["dealer"]) != nd:
            raise TraceReplayError(f"event {t}: the next dealer is seat {nd}")
    if t != len(trace):
        raise TraceReplayError(f"event {t}: events after the end of the game")
    return out, True


# --- the decision at one event (unosim advise --trace) ---------------------------------------
def _check_deck(cc: CompiledConfig, deck: list[str]) -> None:
    """The deal's cards must be exactly the config's deck (a replay from any other
    deck would advise on a game that cannot happen); a UNO Flip deck's faces, each
    side's."""
    kinds = cc.kinds
    counts = np.bincount([kinds.kind(f) for t in deck for f in _faces(cc, t)],
                         minlength=kinds.nk)
    diff = counts - cc.deck_counts
    if diff.any():
        k = int(np.argmax(diff) if diff.max() > 0 else np.argmin(diff))  # extra cards first
        raise TraceReplayError(f"the trace's deal holds {counts[k]} {kinds.token(k)} but the deck "
                               f"of its rules has {cc.deck_counts[k]}")


def _deck_of(trace: Sequence[dict[str, Any]], d: int, n: int) -> tuple[list[str], int]:
    """The deck order of the round dealt at event ``d`` (dealt cards first, as
    `Round.from_deck` takes it), and the event the play follows from."""
    deal = trace[d]
    players, dealer = int(deal["players"]), int(deal["dealer"])
    hands = deal["hands"]
    t = d + 1
    last_return = max((i for i in range(t, n + 1) if trace[i]["e"] == "return"), default=-1)
    if last_return >= 0 and any(trace[i]["e"] not in ("flip", "return")
                                for i in range(t, last_return)):
        raise TraceReplayError("a return after the first turn is not supported")
    rest = trace[last_return]["draw"] if last_return >= 0 else deal["draw"]
    order = [(dealer + 1 + i) % players for i in range(players)]
    size = max(len(h) for h in hands)
    if any(len(h) != size for h in hands):
        raise TraceReplayError("the deal's hands differ in size")
    deck = [hands[q][j] for j in range(size) for q in order] + list(rest)[::-1]
    return deck, last_return + 1 if last_return >= 0 else t


def round_at_event(trace: Sequence[dict[str, Any]], n: int, seed: int = 0) -> Round:
    """The `Round` at the decision that wrote event ``n`` (or that follows the
    ``turn`` event ``n``), rebuilt from its round's deal along the trace
    (`Follower`); `TraceReplayError` when there is none or the trace cannot be
    followed."""
    if not 0 <= n < len(trace):
        raise TraceReplayError(f"--event {n}: the trace has events 0..{len(trace) - 1}")
    deals = [i for i in range(n + 1) if trace[i]["e"] == "deal"]
    d = deals[-1] if deals else 0
    deal = trace[d]
    cc = trace_config(deal)
    players = int(deal["players"])
    if players != cc.rules.get("players"):
        raise TraceReplayError(f"the trace's deal seats {players} players but its rules "
                               f"{cc.rules.get('players')!r:.20}")
    if len(deal.get("active", range(players))) != players:
        raise TraceReplayError("rounds with eliminated seats are not supported")
    deck, start = _deck_of(trace, d, n)
    _check_deck(cc, deck)
    try:
        r = Round.from_deck(cc, deck, dealer=int(deal["dealer"]), seed=seed)
        r.round_index = int(deal.get("round", 0))
        rep = Follower(r, trace, start)
        first = r.events()[1:]
        if rep.matches(first) != len(first):
            raise TraceReplayError("the trace's first flip does not replay")
        rep.t += len(first)
        # a turn event is written by the move before it, or (facing a penalty) by the
        # decision it opens: either way that decision is the turn player's; a jump's
        # play is written by the jump
        actor = trace[n].get("p", trace[n].get("a"))
        if trace[n]["e"] == "turn":
            targets = {n, n + 1}
        elif n > 0 and trace[n - 1]["e"] in ("turn", "jump") and trace[n - 1]["p"] == actor:
            targets = {n - 1, n}
        else:
            targets = {n}
        while not rep.r.is_over and rep.t <= max(targets):
            if rep.t in targets and (actor is None or rep.r.current_player == actor):
                rep.done()
                return rep.r
            rep.step()
        rep.done()
    except IllegalActionError as exc:
        raise TraceReplayError(f"cannot follow the trace: {exc}") from exc
    raise TraceReplayError(f"--event {n} ({trace[n]['e']}) is not a decision of a player")
