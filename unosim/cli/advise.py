"""``unosim advise POSITION.yaml`` (or ``--trace FILE --event N``): every legal action
with its chance of winning.

The position is what one seat knows (its hand, the top card, every hand's
size, optionally the cards played so far); the rest is dealt afresh for each
playout (`unosim.engine.ismcts.action_values`), the same deal for every action,
so the estimates compare fairly. docs/ismcts.md describes the YAML.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import numpy as np

from unosim.cli.console import CliError, Command, compile_notice
from unosim.rules.limits import MAX_PLAYERS, MAX_SEED, MIN_PLAYERS
from unosim.rules.models import PLAYOUT_POLICIES


def _finite(value: float | None) -> float | None:
    """``--precision nan`` passes click's range check (every comparison with nan is
    false) and would then never be met: refuse it."""
    if value is not None and not math.isfinite(value):
        raise click.BadParameter("must be a number above 0 and at most 0.5")
    return value


POSITION_KEYS = {"config", "set", "seat", "hand", "top", "color", "direction", "hands",
                 "played", "draw", "moves", "known"}


def _tokens(value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise CliError(f"{what}: expected a list of card tokens")
    return value


def _whole(value: Any) -> bool:
    """An int that is no bool (YAML's ``true`` is not a seat or a size)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _known(value: Any, sizes: list[int], seat: int) -> dict[int, list[str]]:
    """``known: {SEAT: [cards]}``: cards the seat to act knows another seat holds
    (the hand it gave away in a Seven-O swap, a hand it saw by challenging)."""
    if not isinstance(value, dict):
        raise CliError("known: expected a mapping of seat to the cards it is known to hold")
    out: dict[int, list[str]] = {}
    for q, cards in value.items():
        if not _whole(q) or not 0 <= q < len(sizes) or q == seat:
            raise CliError(f"known: {q!r:.40} is not another seat (0..{len(sizes) - 1})")
        out[q] = _tokens(cards, f"known[{q}]")
        if len(out[q]) > sizes[q]:
            raise CliError(f"known[{q}]: {len(out[q])} cards but hands[{q}] is {sizes[q]}")
    return out


def _table(data: dict[str, Any]) -> tuple[list[int], int, str, list[str], int]:
    """The position's hand sizes, seat, config name, ``set`` overrides and direction,
    each checked for its type before anything is built from it."""
    sizes = data.get("hands")
    if not (isinstance(sizes, list) and all(_whole(n) and n >= 0 for n in sizes)
            and MIN_PLAYERS <= len(sizes) <= MAX_PLAYERS):
        raise CliError(f"hands: expected every hand's size, in seat order "
                       f"({MIN_PLAYERS} to {MAX_PLAYERS} seats)")
    if 0 in sizes:
        raise CliError(f"hands: seat {sizes.index(0)} holds no card, so the round is "
                       "already over")
    seat = data.get("seat", 0)
    if not _whole(seat) or not 0 <= seat < len(sizes):
        raise CliError(f"seat: expected 0..{len(sizes) - 1}")
    config = data.get("config", "classic")
    if not isinstance(config, str) or not config:
        raise CliError("config: expected a config's name or file")
    sets = data.get("set", [])
    if not isinstance(sets, list) or not all(isinstance(x, str) for x in sets):
        raise CliError("set: expected a list of KEY=VALUE overrides")
    direction = data.get("direction", 1)
    if not _whole(direction) or direction not in (1, -1):
        raise CliError(f"direction: expected 1 (play moves left) or -1, got {direction!r:.40}")
    return sizes, seat, config, sets, direction


def _color(data: dict[str, Any], top: str) -> str:
    """The active colour: a coloured top card's own, a wild's named by ``color``."""
    from unosim.rules.cards import COLORS, color_of, is_wild, kind

    k = kind(top)
    given = data.get("color")
    if given is not None and (not isinstance(given, str) or given.upper() not in COLORS
                              or len(given) != 1):
        raise CliError(f"color: expected one of {', '.join(COLORS)}, got {given!r:.40}")
    if not is_wild(k):
        own = COLORS[color_of(k)]
        if given is not None and given.upper() != own:
            raise CliError(f"color: the top card {top} makes the colour {own}, not {given}")
        return own
    if given is None:
        raise CliError(f"color: the top card {top} is a wild; name the colour it was given "
                       f"(one of {', '.join(COLORS)})")
    return given.upper()


def build_round(data: Any, seed: int) -> Any:
    """The position as a `Round` whose hidden cards are one random deal (the
    advice deals them again for every playout, so which deal does not matter).

    Checked as strictly as a config: every key's type, the deck's counts, a
    colour for a wild on top, a direction of +-1, no round already won."""
    from unosim.engine.game import IllegalActionError, Round
    from unosim.engine.state import compile_config
    from unosim.rules.cards import NK, CardError, kind, token
    from unosim.rules.config import ConfigError, load_config

    if not isinstance(data, dict):
        raise CliError("a position is a YAML mapping")
    unknown = set(data) - POSITION_KEYS
    if unknown:
        raise CliError(f"unknown key {sorted(map(str, unknown))[0]!r:.60} "
                       f"(known: {', '.join(sorted(POSITION_KEYS))})")
    sizes, seat, config, sets, direction = _table(data)
    try:
        cfg = load_config(config, [*sets, f"players={len(sizes)}"])
        cc = compile_config(cfg)
        hand = _tokens(data.get("hand"), "hand")
        if len(hand) != sizes[seat]:
            raise CliError(f"hand: {len(hand)} cards but hands[{seat}] is {sizes[seat]}")
        top = data.get("top")
        if not isinstance(top, str):
            raise CliError("top: expected a card token")
        played = [*_tokens(data.get("played", []), "played"), top]
        known = _known(data.get("known", {}), sizes, seat)
        color = _color(data, top)
        left = cc.deck_counts.copy()
        for t in [*hand, *played, *(t for cards in known.values() for t in cards)]:
            k = kind(t)
            left[k] -= 1
            if left[k] < 0:
                raise CliError(f"more {t} than the deck holds")
        pool = np.repeat(np.arange(NK), left)
        np.random.default_rng(seed).shuffle(pool)
        need = sum(n - len(known.get(q, [])) for q, n in enumerate(sizes) if q != seat)
        if need > len(pool):
            raise CliError(f"hands: the other seats hold {need} unknown cards but only "
                           f"{len(pool)} are left outside the hand and the discard pile")
        draw_size = data.get("draw", len(pool) - need)
        if not _whole(draw_size) or not 0 <= draw_size <= len(pool) - need:
            raise CliError(f"draw: at most {len(pool) - need} cards are left for the draw pile")
        hands: list[list[str]] = []
        at = 0
        for q, n in enumerate(sizes):
            if q == seat:
                hands.append(hand)
            else:
                mine = known.get(q, [])
                hands.append([*mine, *(token(int(k)) for k in pool[at:at + n - len(mine)])])
                at += n - len(mine)
        draw = [token(int(k)) for k in pool[at:at + draw_size]]
        r = Round.from_position(cc, hands, draw, played, color, seat,
                                direction=direction, seed=seed)
        for q, cards in known.items():
            r.set_known(seat, q, cards)
        for m in _tokens(data.get("moves", []), "moves"):
            r.apply(m)
    except (ConfigError, CardError, IllegalActionError) as exc:
        raise CliError(exc) from exc
    if r.is_over:
        raise CliError("the round is over in that position")
    return r


def advise(r: Any, playouts: int, precision: float | None, playout: str,
           batch: int = 500) -> list[dict[str, Any]]:
    """Each legal action's wins over its playouts, best first; with ``precision``,
    batches until every 95% interval's half-width is at most that (or ``playouts``)."""
    from unosim.analysis.stats import wilson_interval
    from unosim.engine.ismcts import action_values
    from unosim.engine.state import POLICY_CODE

    actions = np.array(r.legal_actions(), dtype=np.int64)
    wins = np.zeros(len(actions), dtype=np.int64)
    done = 0
    step = min(batch, playouts) if precision is not None else playouts
    while done < playouts:
        n = min(step, playouts - done)
        action_values(r.S, r.C, actions, n, POLICY_CODE[playout], wins)
        done += n
        if precision is not None and all(
                (hi - lo) / 2 <= precision
                for _, lo, hi in (wilson_interval(int(w), done) for w in wins)):
            break
    rows: list[dict[str, Any]] = []
    for a, w in zip(actions, wins, strict=True):
        rate, lo, hi = wilson_interval(int(w), done)
        rows.append({"action": _name(int(a)), "win": rate, "low": lo, "high": hi,
                     "playouts": done})
    rows.sort(key=lambda row: -row["win"])
    return rows


# --- a position from a trace -------------------------------------------------------------
EDITION_RULES = {"first_flip", "wd4_wilds_block", "uno_penalty", "special", "special_points"}


def read_trace(path: Path) -> list[dict[str, Any]]:
    """The events of a JSONL trace (docs/trace.md), read within the bounds of
    `unosim.engine.trace.read_events`; any problem is one line."""
    from unosim.engine.trace import TraceError, read_events

    try:
        return read_events(path)
    except TraceError as exc:
        raise CliError(exc) from None
    except OSError as exc:
        raise CliError(f"{path}: {exc.strerror or exc}") from None


def _flat(d: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for k, v in d.items():
        out += _flat(v, f"{prefix}{k}.") if isinstance(v, dict) else [(prefix + k, v)]
    return out


def trace_config(deal: dict[str, Any]) -> Any:
    """The compiled config a deal event describes: its edition with its resolved rules
    as overrides, checked to give back exactly those rules."""
    from unosim.engine.state import compile_config
    from unosim.rules.config import ConfigError, load_config

    rules = deal.get("rules")
    if not isinstance(rules, dict):
        raise CliError("the trace's deal event has no rules")
    sets = [f"edition={json.dumps(deal.get('edition'))}"] + [
        f"{k}={json.dumps(v)}" for k, v in _flat(rules) if k not in EDITION_RULES]
    try:
        cc = compile_config(load_config("classic", sets))
    except ConfigError as exc:
        raise CliError(f"the trace's rules: {exc}") from exc
    if cc.rules != rules:
        diff = next(k for k, v in _flat(rules) if dict(_flat(cc.rules)).get(k) != v)
        raise CliError(f"the trace's rules are not those of edition {deal.get('edition')!r} "
                       f"(rule {diff})")
    return cc


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return {k: v for k, v in a.items() if k != "round"} == {
        k: v for k, v in b.items() if k != "round"}


class _Replay:
    """A `Round` driven along a trace: at each decision the legal action whose events
    are the trace's next ones. The rules' only randomness is forced to the trace's
    outcome: behaviour rates are set to 0 or 1 from the events ahead, and before a
    reshuffle the discard pile under its top is reordered so the engine's shuffle
    gives the pile the trace shows."""

    SKIP = ("ev", "cl")

    def __init__(self, r: Any, trace: list[dict[str, Any]], t: int) -> None:
        self.r, self.trace, self.t = r, trace, t
        self.rates = r.C.cf.copy()

    def _field(self, name: str) -> np.ndarray:
        """A state field as a snapshot needs it: what each seat knows only for the
        seats at this table (the array is sized for the largest table)."""
        v = self.r.S[name]
        return v[: self.r.players, : self.r.players] if name == "known" else v

    def snapshot(self) -> tuple[dict[str, np.ndarray], int]:
        S = self.r.S
        return ({n: np.array(self._field(n), copy=True) for n in S.dtype.names
                 if n not in self.SKIP and not n.startswith("x_")}, len(self.r._events))

    def restore(self, snap: tuple[dict[str, np.ndarray], int]) -> None:
        fields, n = snap
        for name, v in fields.items():
            self._field(name)[...] = v
        del self.r._events[n:]

    def force_rates(self, slip: float) -> None:
        from unosim.engine import state as L

        cf, ahead = self.r.C.cf, self.trace[self.t:]
        cf[:] = self.rates
        uno = next((e for e in ahead if e["e"] == "uno"), None)
        if uno is not None:
            cf[L.F_UNO_FORGET] = 0.0 if uno.get("called") else 1.0
            cf[L.F_UNO_CATCH] = 1.0 if uno.get("caught") else 0.0
        movie = next((e for e in ahead if e["e"] == "special"
                      and e.get("special") == "movie_madness"), None)
        if movie is not None:
            cf[L.F_MOVIE_FAIL] = 1.0 if movie.get("outcome") == "failed" else 0.0
        cf[L.F_SLIP] = slip

    def matches(self, new: list[dict[str, Any]]) -> int:
        """How many of ``new`` agree with the trace from ``t`` (len(new): all)."""
        for i, e in enumerate(new):
            if self.t + i >= len(self.trace) or not _same(e, self.trace[self.t + i]):
                return i
        return len(new)

    def permutation(self, n: int) -> np.ndarray:
        """Where the engine's next shuffle of ``n`` cards takes each (out[i] = in[perm[i]])."""
        from unosim.engine.table import shuffle_row

        S = self.r.S
        snap = self.snapshot()
        S.piles[0, :n] = np.arange(n)
        shuffle_row(S, 0, n)
        perm = S.piles[0, :n].copy()
        self.restore(snap)
        return perm

    def fix_reshuffle(self, got: list[str], want: list[str]) -> bool:
        """Make the action's reshuffle give ``want`` instead of ``got``: choose the
        stream (nothing else in a replay draws from it) so that the cards played in
        the action land where the trace has them, and order the rest of the discard."""
        from unosim.engine import state as L
        from unosim.engine.rng import seed_game
        from unosim.rules.cards import kind

        S, n = self.r.S, len(want)
        nd0 = int(S.s[L.S_NDISC])
        w = np.array([kind(c) for c in want])
        held = np.empty(n, np.int64)  # the discard under the top at the reshuffle
        held[self.permutation(n)] = [kind(c) for c in got]
        if sorted(held) != sorted(w):
            return False
        fixed = np.arange(max(nd0 - 1, 0), n)
        for attempt in range(5000):
            if attempt:
                seed_game(S.rng, np.uint64(attempt), np.uint64(0x5EED), 0)
            perm = self.permutation(n)
            inv = np.empty(n, np.int64)
            inv[perm] = np.arange(n)
            if (w[inv[fixed]] == held[fixed]).all():
                free = perm < nd0 - 1
                S.piles[1, perm[free]] = w[free]
                return True
        return False

    def trial(self, a: int, slip: float) -> int:
        """Apply ``a`` (kept if all its events match the trace); -1 when they do not,
        else the number of events it wrote."""
        for _ in range(3):
            snap = self.snapshot()
            self.force_rates(slip)
            self.r.apply(a)
            new = self.r._events[snap[1]:]
            ok = self.matches(new)
            if ok == len(new):
                return ok
            self.restore(snap)
            got, want = new[ok], self.trace[self.t + ok] if self.t + ok < len(self.trace) else {}
            if not (got["e"] == want.get("e") == "reshuffle"
                    and self.fix_reshuffle(list(got["draw"]), list(want["draw"]))):
                return -1
        return -1

    def candidates(self) -> list[tuple[int, float]]:
        from unosim.engine import state as L

        slip = float(self.rates[L.F_SLIP])
        slips = [0.0, 1.0] if 0.0 < slip < 1.0 else [slip]
        return [(a, s) for a in self.r.legal_actions() for s in slips]

    def step(self, depth: int = 0) -> int:
        """Take the decision's action that follows the trace; how many events it wrote."""
        empty: list[tuple[int, float]] = []
        best, most = (0, 0.0), 0
        for a, s in self.candidates():  # the longest match: a slip may follow a turn
            snap = self.snapshot()
            n = self.trial(a, s)
            self.restore(snap)
            if n > most:
                best, most = (a, s), n
            elif n == 0:
                empty.append((a, s))
        if most > 0:
            self.trial(*best)
            self.t += most
            return most
        for a, s in empty:  # an action without events (a wild before its color, a pass)
            snap = self.snapshot()
            self.trial(a, s)
            if depth < 12 and not self.r.is_over and self.lookahead(depth + 1):
                self.restore(snap)
                self.trial(a, s)
                return 0
            self.restore(snap)
        raise CliError(f"cannot follow the trace at event {self.t} "
                       f"({self.trace[self.t]['e'] if self.t < len(self.trace) else 'end'})")

    def lookahead(self, depth: int) -> bool:
        t = self.t
        try:
            self.step(depth)
            return True
        except CliError:
            return False
        finally:
            self.t = t

    def done(self) -> None:
        self.r.C.cf[:] = self.rates


def _check_deck(cc: Any, deck: list[str]) -> None:
    """The deal's cards must be exactly the config's deck (a replay from any other
    deck would advise on a game that cannot happen)."""
    from unosim.rules.cards import NK, kind, token

    counts = np.bincount([kind(t) for t in deck], minlength=NK)
    diff = counts - cc.deck_counts
    if diff.any():
        k = int(np.argmax(diff) if diff.max() > 0 else np.argmin(diff))  # extra cards first
        raise CliError(f"the trace's deal holds {counts[k]} {token(k)} but the deck of its "
                       f"rules has {cc.deck_counts[k]}")


def round_at_event(trace: list[dict[str, Any]], n: int, seed: int = 0) -> Any:
    """The `Round` at the decision that wrote event ``n`` (or that follows the
    ``turn`` event ``n``), rebuilt from its round's deal along the trace."""
    from unosim.engine.game import IllegalActionError, Round

    if not 0 <= n < len(trace):
        raise CliError(f"--event {n}: the trace has events 0..{len(trace) - 1}")
    d = max(i for i in range(n + 1) if trace[i]["e"] == "deal") if any(
        trace[i]["e"] == "deal" for i in range(n + 1)) else 0
    deal = trace[d]
    cc = trace_config(deal)
    players, dealer = int(deal["players"]), int(deal["dealer"])
    if players != cc.rules.get("players"):
        raise CliError(f"the trace's deal seats {players} players but its rules "
                       f"{cc.rules.get('players')!r:.20}")
    if len(deal.get("active", range(players))) != players:
        raise CliError("rounds with eliminated seats are not supported")
    hands = deal["hands"]
    t = d + 1
    last_return = max((i for i in range(t, n + 1) if trace[i]["e"] == "return"), default=-1)
    if last_return >= 0 and any(trace[i]["e"] not in ("flip", "return")
                                for i in range(t, last_return)):
        raise CliError("a return after the first turn is not supported")
    rest = trace[last_return]["draw"] if last_return >= 0 else deal["draw"]
    order = [(dealer + 1 + i) % players for i in range(players)]
    size = max(len(h) for h in hands)
    if any(len(h) != size for h in hands):
        raise CliError("the deal's hands differ in size")
    deck = [hands[q][j] for j in range(size) for q in order] + list(rest)[::-1]
    _check_deck(cc, deck)
    try:
        r = Round.from_deck(cc, deck, dealer=dealer, seed=seed)
        r.round_index = int(deal.get("round", 0))
        rep = _Replay(r, trace, last_return + 1 if last_return >= 0 else t)
        first = r.events()[1:]
        if rep.matches(first) != len(first):
            raise CliError("the trace's first flip does not replay")
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
        while not r.is_over and rep.t <= max(targets):
            if rep.t in targets and (actor is None or r.current_player == actor):
                rep.done()
                return r
            rep.step()
        rep.done()
    except IllegalActionError as exc:
        raise CliError(f"cannot follow the trace: {exc}") from exc
    raise CliError(f"--event {n} ({trace[n]['e']}) is not a decision of a player")


def _name(a: int) -> str:
    from unosim.engine.game import action_name

    return action_name(a)


@click.command("advise", cls=Command)
@click.argument("position", type=click.Path(dir_okay=False, path_type=Path), required=False)
@click.option("--trace", "trace_file", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="A JSONL trace (unosim play --trace-format jsonl).")
@click.option("--event", type=int, default=None,
              help="With --trace: the event (0-based line) whose decision to advise.")
@click.option("--playouts", type=click.IntRange(1, 10_000_000), default=2000, show_default=True,
              help="Playouts per legal action.")
@click.option("--precision", type=click.FloatRange(0.0, 0.5, min_open=True), default=None,
              callback=lambda _ctx, _param, v: _finite(v),
              help="Stop once every 95% interval's half-width is at most this.")
@click.option("--playout", type=click.Choice(PLAYOUT_POLICIES),
              default="random", show_default=True, help="Policy of every seat in the playouts.")
@click.option("--seed", type=click.IntRange(0, MAX_SEED), default=0, show_default=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
def advise_cmd(position: Path | None, trace_file: Path | None, event: int | None, playouts: int,
               precision: float | None, playout: str, seed: int, fmt: str) -> None:
    """What should I play here? Every legal action's chance of winning the round.

    The position is a YAML file, or the decision at event N of a trace (--trace
    FILE --event N), seen from the player to act there."""
    from unosim.rules.errors import ConfigError
    from unosim.rules.yamlio import read_yaml
    from unosim.run.backends import foreground

    if (position is None) == (trace_file is None) or (trace_file is None) != (event is None):
        raise CliError("give a POSITION.yaml, or --trace FILE with --event N")
    if trace_file is not None and event is not None:
        find: Callable[[], Any] = functools.partial(round_at_event, read_trace(trace_file),
                                                    event, seed)
    else:
        assert position is not None
        try:
            data = read_yaml(position)
        except ConfigError as exc:
            raise CliError(exc) from exc
        find = functools.partial(build_round, data, seed)
    compile_notice()
    with foreground() as fg:  # compiled work off the main thread: Ctrl-C lands at once
        r = fg.call(find)
        rows = fg.call(advise, r, playouts, precision, playout)
    if fmt == "json":
        click.echo(json.dumps({"seat": r.current_player, "phase": r.phase, "actions": rows},
                              indent=2))
        return
    click.echo(f"seat {r.current_player} to act ({r.phase}); win chance, 95% interval:")
    for row in rows:
        click.echo(f"  {row['action']:<10} {row['win']:6.1%}  [{row['low']:.1%}, "
                   f"{row['high']:.1%}]  ({row['playouts']} playouts)")
