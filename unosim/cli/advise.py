"""``unosim advise POSITION.yaml`` (or ``--trace FILE --event N``): every legal action
with its chance of winning.

The position is what one seat knows (its hand, the top card, every hand's
size, optionally the cards played so far); the rest is dealt afresh for each
playout (`unosim.engine.kernel.ismcts.action_values`), the same deal for every action,
so the estimates compare fairly. docs/ismcts.md describes the YAML.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict, TypeGuard

import click
import numpy as np

from unosim.cli.console import CliError, Command, compile_notice
from unosim.cli.view import read_trace
from unosim.rules.limits import MAX_PLAYERS, MAX_SEED, MIN_PLAYERS
from unosim.rules.models import PLAYOUT_POLICIES

if TYPE_CHECKING:
    from unosim.engine.game import Round
    from unosim.rules.cards import KindTable


class Advice(TypedDict):
    """One legal action's wins over its playouts (a row of ``--format json``)."""

    action: str
    win: float
    low: float
    high: float
    playouts: int


class Position(TypedDict):
    """The position as the seat to act sees it (``--format json``'s ``position``)."""

    seat: int
    hand: list[str]
    top: str
    color: str
    direction: int
    hands: list[int]
    pending: int
    draw: int
    # UNO Flip (docs/rules.md section 11): ``hand`` and ``top`` are the faces in play;
    # the side in play, each other seat's cards' other faces (what the seat sees) and
    # the draw pile's top card's other face
    side: NotRequired[str]
    backs: NotRequired[dict[int, list[str]]]
    draw_back: NotRequired[str | None]


class Precision(TypedDict):
    """Whether ``--precision`` was met (``--format json``'s ``precision``)."""

    target: float | None
    met: bool | None
    half_width: float
    playouts: int
    max_playouts: int


def _finite(value: float | None) -> float | None:
    """``--precision nan`` passes click's range check (every comparison with nan is
    false) and would then never be met: refuse it."""
    if value is not None and not math.isfinite(value):
        raise click.BadParameter("must be a number above 0 and at most 0.5")
    return value


# UNO Flip's keys (docs/rules.md section 11): the side in play and what a seat sees of
# the other faces; a one-sided edition has no other faces, so they are refused there
FLIP_KEYS = ("side", "backs", "draw_back")
POSITION_KEYS = {"config", "set", "seat", "hand", "top", "color", "direction", "hands",
                 "played", "draw", "moves", "known", *FLIP_KEYS}


def _tokens(value: object, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise CliError(f"{what}: expected a list of card tokens")
    return value


def _whole(value: object) -> TypeGuard[int]:
    """An int that is no bool (YAML's ``true`` is not a seat or a size)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _known(value: object, sizes: list[int], seat: int) -> dict[int, list[str]]:
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


def _table(data: Mapping[str, object]) -> tuple[list[int], int, str, list[str], int]:
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


def _color(data: Mapping[str, object], top: str, kinds: KindTable, side: int = 0) -> str:
    """The active colour: a coloured top card's own, a wild's named by ``color``; in the
    side in play's letters (UNO Flip's dark side: P T O U, as ``--trace`` names them)."""
    from unosim.rules.cards import COLORS, DARK_COLORS

    letters = DARK_COLORS if side else COLORS
    k = kinds.kind(top)
    given = data.get("color")
    if given is not None and (not isinstance(given, str) or given.upper() not in letters
                              or len(given) != 1):
        raise CliError(f"color: expected one of {', '.join(letters)}, got {given!r:.40}")
    if kinds.color[k] >= 0:
        own = kinds.color_letter(int(kinds.color[k]), side)
        if given is not None and given.upper() != own:
            raise CliError(f"color: the top card {top} makes the colour {own}, not {given}")
        return own
    if given is None:
        raise CliError(f"color: the top card {top} is a wild; name the colour it was given "
                       f"(one of {', '.join(letters)})")
    return given.upper()


def _side(data: Mapping[str, object], kinds: KindTable, config: str) -> int:
    """The side in play (0 light, 1 dark); the Flip keys on a one-sided edition are
    refused, naming the key, rather than ignored."""
    if not kinds.two_sided:
        for key in FLIP_KEYS:
            if key in data:
                raise CliError(f"{key}: only a two-sided edition (UNO Flip) has it; "
                               f"{config} plays one-sided cards")
        return 0
    side = data.get("side", "light")
    if side not in ("light", "dark"):
        raise CliError(f"side: expected light or dark, got {side!r:.40}")
    return 0 if side == "light" else 1


def _deal(kinds: KindTable, counts: np.ndarray, sizes: list[int], seat: int, hand: list[str],
          played: list[str], known: dict[int, list[str]], data: Mapping[str, object],
          rng: np.random.Generator) -> tuple[list[list[str]], list[str]]:
    """A one-sided deck: the other hands (their known cards first) and the draw pile,
    from the deck's ``counts`` less what the seat can place (its hand, the discard
    pile, the known cards), shuffled; the counts checked as `_flip_deal` checks its own."""
    left = counts.copy()
    for t in [*hand, *played, *(t for cards in known.values() for t in cards)]:
        k = kinds.kind(t)
        left[k] -= 1
        if left[k] < 0:
            raise CliError(f"more {t} than the deck holds")
    pool = np.repeat(np.arange(kinds.nk), left)
    rng.shuffle(pool)
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
            hands.append([*mine, *(kinds.token(k) for k in pool[at:at + n - len(mine)])])
            at += n - len(mine)
    return hands, [kinds.token(k) for k in pool[at:at + draw_size]]


def _backs(value: object, sizes: list[int], seat: int) -> dict[int, list[str]]:
    """``backs: {SEAT: [tokens]}``: the other face of every card of every other seat,
    which a Flip seat sees (docs/rules.md section 11); required, so that a position
    never leaves out what the seat sees."""
    if not isinstance(value, dict):
        raise CliError("backs: expected a mapping of every other seat to the other faces "
                       "of its cards")
    for q in value:
        if not _whole(q) or not 0 <= q < len(sizes) or q == seat:
            raise CliError(f"backs: {q!r:.40} is not another seat (0..{len(sizes) - 1})")
    out: dict[int, list[str]] = {}
    for q, n in enumerate(sizes):
        if q == seat:
            continue
        if q not in value:
            raise CliError(f"backs[{q}]: missing: the other faces of seat {q}'s {n} cards")
        out[q] = _tokens(value[q], f"backs[{q}]")
        if len(out[q]) != n:
            raise CliError(f"backs[{q}]: {len(out[q])} cards but hands[{q}] is {n}")
    return out


def _flip_deal(data: Mapping[str, object], kinds: KindTable, counts: np.ndarray,
               sizes: list[int], seat: int, side: int, faces: dict[str, list[str]],
               known: dict[int, list[str]],
               rng: np.random.Generator) -> tuple[list[list[str]], list[str], list[str]]:
    """A Flip position's physical cards ("light/dark"): the hands, the draw pile and the
    discard pile, consistent with what the seat sees and the deck's faces.

    A card whose face in play is known (``faces``: the hand, the discard pile, the
    ``known`` cards) gets a random other face from those left, one whose other face is
    known (``backs``, ``draw_back``) a random face in play, the rest of the draw pile
    both; any pairing is a legal deck (the engine pairs faces by a random bijection),
    and the search deals every face the seat cannot see again for each playout."""
    from unosim.engine.trace import SIDES
    from unosim.rules.cards import CardError

    backs = _backs(data.get("backs", {}), sizes, seat)
    draw_back = data.get("draw_back")
    if draw_back is not None and not isinstance(draw_back, str):
        raise CliError("draw_back: expected a card token")
    left = counts.copy()
    seen = [*((key, cards, side) for key, cards in faces.items()),
            *((f"known[{q}]", cards, side) for q, cards in known.items()),
            *((f"backs[{q}]", cards, 1 - side) for q, cards in backs.items()),
            *([("draw_back", [draw_back], 1 - side)] if draw_back is not None else [])]
    for key, cards, s in seen:
        for t in cards:
            try:
                k = kinds.kind(t)
            except CardError as exc:
                raise CliError(f"{key}: {exc}") from None
            if kinds.side[k] != s:
                raise CliError(f"{key}: {t} is a {SIDES[int(kinds.side[k])]} face; "
                               f"{key} lists {SIDES[s]} faces (side: {SIDES[side]})")
            left[k] -= 1
            if left[k] < 0:
                raise CliError(f"{key}: more {t} than the deck holds")

    def pool(s: int) -> list[str]:
        out = [kinds.token(int(k)) for k in np.repeat(np.arange(kinds.nk),
                                                      np.where(kinds.side == s, left, 0))]
        rng.shuffle(out)
        return out

    fronts, others = pool(side), pool(1 - side)
    hand, discard = faces["hand"], [*faces["played"], *faces["top"]]
    # every card takes one face of each side: the room left on the tighter side
    placed = sum(sizes) + len(discard)
    room = min(int(counts[kinds.side == s].sum()) for s in (0, 1)) - placed
    if room < 0:
        raise CliError(f"hands: {sum(sizes)} cards in hand and {len(discard)} in the "
                       f"discard pile are more than the deck's {placed + room}")
    draw_size = data.get("draw", room)
    if not _whole(draw_size) or not 0 <= draw_size <= room:
        raise CliError(f"draw: at most {room} cards are left for the draw pile")
    if draw_back is not None and draw_size == 0:
        raise CliError("draw_back: the draw pile is empty, so it has no top card")

    def card(front: str, back: str) -> str:
        return f"{front}/{back}" if side == 0 else f"{back}/{front}"

    # the seen faces in kind order: card numbers the search's re-deal keeps (it deals
    # hidden faces over the cards in number order), so the advice follows neither the
    # deal nor the order the YAML lists them in
    hands: list[list[str]] = []
    for q in range(len(sizes)):
        if q == seat:
            hands.append([card(t, others.pop()) for t in sorted(hand, key=kinds.kind)])
        else:  # which of its cards the known faces are is not seen: any
            mine = [*known.get(q, [])]
            mine += [fronts.pop() for _ in range(sizes[q] - len(mine))]
            rng.shuffle(mine)
            hands.append([card(t, b) for t, b in zip(mine, sorted(backs[q], key=kinds.kind),
                                                     strict=True)])
    draw = [card(fronts.pop(), draw_back if i == 0 and draw_back is not None
                 else others.pop()) for i in range(draw_size)]
    return hands, draw, [card(t, others.pop()) for t in discard]


def build_round(data: object, seed: int, deal_seed: int | None = None) -> Round:
    """The position as a `Round` whose hidden cards are one random deal, drawn with
    ``deal_seed`` (default ``seed``; the advice deals them again for every playout, so
    which deal does not matter).

    Checked as strictly as a config: every key's type, the deck's counts, a
    colour for a wild on top, a direction of +-1, no round already won."""
    from unosim.engine.game import IllegalActionError, Round
    from unosim.engine.kernel.state import compile_config
    from unosim.engine.trace import SIDES
    from unosim.rules.cards import CardError
    from unosim.rules.config import ConfigError, load_config

    if not isinstance(data, dict):
        raise CliError("a position is a YAML mapping")
    unknown = set(data) - POSITION_KEYS
    if unknown:
        raise CliError(f"unknown key {sorted(map(str, unknown))[0]!r:.60} "
                       f"(known: {', '.join(sorted(POSITION_KEYS))})")
    sizes, seat, config, sets, direction = _table(data)
    rng = np.random.default_rng(seed if deal_seed is None else deal_seed)
    try:
        cfg = load_config(config, [*sets, f"players={len(sizes)}"])
        cc = compile_config(cfg)
        kinds = cc.kinds
        side = _side(data, kinds, config)
        hand = _tokens(data.get("hand"), "hand")
        if len(hand) != sizes[seat]:
            raise CliError(f"hand: {len(hand)} cards but hands[{seat}] is {sizes[seat]}")
        top = data.get("top")
        if not isinstance(top, str):
            raise CliError("top: expected a card token")
        played = [*_tokens(data.get("played", []), "played"), top]
        known = _known(data.get("known", {}), sizes, seat)
        if kinds.two_sided:
            faces = {"hand": hand, "played": played[:-1], "top": [top]}
            hands, draw, played = _flip_deal(data, kinds, cc.deck_counts, sizes, seat, side,
                                             faces, known, rng)
            color = _color(data, top, kinds, side)
        else:
            color = _color(data, top, kinds)
            hands, draw = _deal(kinds, cc.deck_counts, sizes, seat, hand, played, known,
                                data, rng)
        r = Round.from_position(cc, hands, draw, played, color, seat,
                                direction=direction, seed=seed, side=SIDES[side])
        for q, cards in known.items():
            r.set_known(seat, q, cards)
        for m in _tokens(data.get("moves", []), "moves"):
            r.apply(m)
    except (ConfigError, CardError, IllegalActionError) as exc:
        raise CliError(exc) from exc
    if r.is_over:
        raise CliError("the round is over in that position")
    return r


def advise(r: Round, playouts: int, precision: float | None, playout: str,
           batch: int = 500) -> list[Advice]:
    """Each legal action's wins over its playouts, best first; with ``precision``,
    batches until every 95% interval's half-width is at most that (or ``playouts``)."""
    from unosim.analysis.stats import wilson_interval
    from unosim.engine.kernel.ismcts import action_values
    from unosim.engine.kernel.state import POLICY_CODE

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
    rows: list[Advice] = []
    for a, w in zip(actions, wins, strict=True):
        rate, lo, hi = wilson_interval(int(w), done)
        rows.append({"action": r.action_name(int(a)), "win": rate, "low": lo, "high": hi,
                     "playouts": done})
    rows.sort(key=lambda row: -row["win"])
    return rows


# --- a position from a trace -------------------------------------------------------------
def round_at_event(trace: list[dict[str, Any]], n: int, seed: int = 0) -> Round:
    """The `Round` at the decision of event ``n`` (`unosim.engine.replay.round_at_event`)."""
    from unosim.engine.replay import TraceReplayError
    from unosim.engine.replay import round_at_event as at_event

    try:
        return at_event(trace, n, seed)
    except TraceReplayError as exc:
        raise CliError(exc) from None


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
        find: Callable[[], Round] = functools.partial(round_at_event, read_trace(trace_file),
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
    _print_advice(r, rows, precision, playouts, fmt)


# --- the output --------------------------------------------------------------------------
def position_of(r: Round) -> Position:
    """The position advised on, as the seat to act sees it (the keys of a POSITION.yaml,
    and the pending draw)."""
    from unosim.engine.trace import face

    p = r.current_player
    pos: Position = {"seat": p, "hand": r.hand(p), "top": r.top, "color": r.color,
                     "direction": r.direction, "hands": [len(h) for h in r.hands],
                     "pending": r.pending, "draw": len(r.draw_pile)}
    if r.two_sided:  # the faces in play; of the others' cards, the faces the seat sees
        back = "light" if r.side == "dark" else "dark"
        draw = r.draw_pile
        pos["hand"] = sorted((r.face(c) for c in r.hand(p)), key=r.kinds.kind)
        pos["top"] = r.face(r.top)
        pos["side"] = r.side
        pos["backs"] = {q: sorted((face(c, back) for c in h), key=r.kinds.kind)
                        for q, h in enumerate(r.hands) if q != p}
        pos["draw_back"] = face(draw[0], back) if draw else None
    return pos


def precision_of(rows: list[Advice], precision: float | None,
                 playouts: int) -> Precision:
    """Whether ``--precision`` was met: the widest 95% interval's half-width reached,
    after how many playouts per action (of at most ``playouts``)."""
    widest = max((row["high"] - row["low"]) / 2 for row in rows)
    return {"target": precision, "met": None if precision is None else widest <= precision,
            "half_width": widest, "playouts": rows[0]["playouts"], "max_playouts": playouts}


def _color_labels(r: Round) -> tuple[list[str] | None, list[str] | None]:
    """The edition's color labels and (UNO Flip) its dark side's, when its name loads
    (a trace may name another)."""
    from unosim.rules.editions import load_edition
    from unosim.rules.errors import ConfigError

    try:
        ed = load_edition(r.edition_name)
    except (ConfigError, OSError):
        return None, None
    return list(ed.colors), None if ed.dark_colors is None else list(ed.dark_colors)


def _print_advice(r: Round, rows: list[Advice], precision: float | None,
                  playouts: int, fmt: str) -> None:
    """The position, then every action's chance, then whether ``--precision`` was met."""
    import sys

    from unosim.cli.cardtext import FlipSeen, Painter, color_wanted, table_lines

    pos, met = position_of(r), precision_of(rows, precision, playouts)
    # UNO Flip's dark tokens P1..P9 would read as seats P1..P9: there, seats are "seat N"
    word = "seat " if "side" in pos else "P"
    flip = None
    if "side" in pos:
        flip = FlipSeen(pos["side"], [(f"{word}{q}", cards)
                                      for q, cards in pos.get("backs", {}).items()],
                        pos.get("draw_back"))
    if fmt == "json":
        click.echo(json.dumps({"seat": r.current_player, "phase": r.phase, "position": pos,
                               "precision": met, "actions": rows}, indent=2))
        return
    labels, dark = _color_labels(r)
    paint = Painter(color_wanted(sys.stdout), labels, r.kinds, dark)
    seat = pos["seat"]
    sizes = [(f"{word}{q}" + (" (to act)" if q == seat else ""), n)
             for q, n in enumerate(pos["hands"])]
    lines = [f"seat {seat} to act ({r.phase}):", *(
        f"  {line}" for line in table_lines(
            paint, hand=pos["hand"], top=pos["top"], color=pos["color"],
            direction=pos["direction"], sizes=sizes, draw_size=pos["draw"],
            pending=pos["pending"], flip=flip))]
    lines.append("win chance, 95% interval:")
    for row in rows:
        name = paint.text(f"{row['action']:<10}")
        lines.append(f"  {name} {row['win']:6.1%}  [{row['low']:.1%}, "
                     f"{row['high']:.1%}]  ({row['playouts']} playouts)")
    if precision is not None:
        lines.append(f"precision {precision:g} " + ("met" if met["met"] else "not met") +
                     f": the widest interval is +-{met['half_width']:.1%} after "
                     f"{met['playouts']} playouts per action"
                     + ("" if met["met"] else " (the --playouts limit)"))
    for line in lines:
        click.echo(line, color=paint.on or None)
