"""``unosim advise POSITION.yaml``: every legal action with its chance of winning.

The position is what one seat knows (its hand, the top card, every hand's
size, optionally the cards played so far); the rest is dealt afresh for each
playout (`unosim.engine.ismcts.action_values`), the same deal for every action,
so the estimates compare fairly. docs/ismcts.md describes the YAML.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
import numpy as np

from unosim.cli.console import CliError, Command

POSITION_KEYS = {"config", "set", "seat", "hand", "top", "color", "direction", "hands",
                 "played", "draw", "moves"}


def _tokens(value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise CliError(f"{what}: expected a list of card tokens")
    return value


def build_round(data: Any, seed: int) -> Any:
    """The position as a `Round` whose hidden cards are one random deal (the
    advice deals them again for every playout, so which deal does not matter)."""
    from unosim.engine.game import IllegalActionError, Round
    from unosim.engine.state import compile_config
    from unosim.rules.cards import NK, CardError, kind, token
    from unosim.rules.config import ConfigError, load_config

    if not isinstance(data, dict):
        raise CliError("a position is a YAML mapping")
    unknown = set(data) - POSITION_KEYS
    if unknown:
        raise CliError(f"unknown key {sorted(unknown)[0]!r} "
                       f"(known: {', '.join(sorted(POSITION_KEYS))})")
    sizes = data.get("hands")
    if not isinstance(sizes, list) or not all(isinstance(n, int) and n >= 0 for n in sizes):
        raise CliError("hands: expected every hand's size, in seat order")
    seat = data.get("seat", 0)
    if not isinstance(seat, int) or not 0 <= seat < len(sizes):
        raise CliError(f"seat: expected 0..{len(sizes) - 1}")
    try:
        cfg = load_config(str(data.get("config", "classic")),
                          [*list(data.get("set", [])), f"players={len(sizes)}"])
        cc = compile_config(cfg)
        hand = _tokens(data.get("hand"), "hand")
        if len(hand) != sizes[seat]:
            raise CliError(f"hand: {len(hand)} cards but hands[{seat}] is {sizes[seat]}")
        top = data.get("top")
        if not isinstance(top, str):
            raise CliError("top: expected a card token")
        played = [*_tokens(data.get("played", []), "played"), top]
        left = cc.deck_counts.copy()
        for t in [*hand, *played]:
            k = kind(t)
            left[k] -= 1
            if left[k] < 0:
                raise CliError(f"more {t} than the deck holds")
        pool = np.repeat(np.arange(NK), left)
        np.random.default_rng(seed).shuffle(pool)
        need = sum(n for q, n in enumerate(sizes) if q != seat)
        draw_size = data.get("draw", len(pool) - need)
        if not isinstance(draw_size, int) or not 0 <= draw_size <= len(pool) - need:
            raise CliError(f"draw: at most {len(pool) - need} cards are left for the draw pile")
        hands: list[list[str]] = []
        at = 0
        for q, n in enumerate(sizes):
            if q == seat:
                hands.append(hand)
            else:
                hands.append([token(int(k)) for k in pool[at:at + n]])
                at += n
        draw = [token(int(k)) for k in pool[at:at + draw_size]]
        color = str(data.get("color", top[0] if top[0] in "RYGB" else ""))
        r = Round.from_position(cc, hands, draw, played, color, seat,
                                direction=int(data.get("direction", 1)), seed=seed)
        for m in _tokens(data.get("moves", []), "moves"):
            r.apply(m)
    except (ConfigError, CardError, IllegalActionError, ValueError, KeyError) as exc:
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


def _name(a: int) -> str:
    from unosim.engine.game import action_name

    return action_name(a)


@click.command("advise", cls=Command)
@click.argument("position", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--playouts", type=click.IntRange(1, 10_000_000), default=2000, show_default=True,
              help="Playouts per legal action.")
@click.option("--precision", type=click.FloatRange(0.0, 0.5, min_open=True), default=None,
              help="Stop once every 95% interval's half-width is at most this.")
@click.option("--playout", type=click.Choice(["random", "greedy", "strategic"]),
              default="random", show_default=True, help="Policy of every seat in the playouts.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
def advise_cmd(position: Path, playouts: int, precision: float | None, playout: str, seed: int,
               fmt: str) -> None:
    """What should I play here? Every legal action's chance of winning the round."""
    from unosim.rules.errors import ConfigError
    from unosim.rules.yamlio import read_yaml

    try:
        data = read_yaml(position)
    except ConfigError as exc:
        raise CliError(exc) from exc
    r = build_round(data, seed)
    rows = advise(r, playouts, precision, playout)
    if fmt == "json":
        click.echo(json.dumps({"seat": r.current_player, "phase": r.phase, "actions": rows},
                              indent=2))
        return
    click.echo(f"seat {r.current_player} to act ({r.phase}); win chance, 95% interval:")
    for row in rows:
        click.echo(f"  {row['action']:<10} {row['win']:6.1%}  [{row['low']:.1%}, "
                   f"{row['high']:.1%}]  ({row['playouts']} playouts)")
