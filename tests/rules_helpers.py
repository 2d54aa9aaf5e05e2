"""Shared helpers of the rule scenario tests (test_rules_*.py, test_properties.py).

Scenarios are built on stacked decks (`Round.from_deck`) or chosen positions
(`Round.from_position`) and checked through the trace events, written here as
short strings so a test reads like the story it tells:

    turn 1 G G4 | play 1 GS G | skip 2 | draw 1 YS G0 (uno) | uno 1 caught | end 3 147
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import cache
from typing import Any

from unosim.engine.game import Round
from unosim.engine.kernel.state import CompiledConfig, compile_config
from unosim.rules.config import load_config

__all__ = [
    "Round", "all_cards", "card_points", "cfg", "deck_for", "fresh_cfg", "hand_pts", "log",
    "same",
]


@cache
def _cfg(config: str, overrides: tuple[str, ...]) -> CompiledConfig:
    return compile_config(load_config(config, list(overrides)))


def cfg(*overrides: str, config: str = "classic") -> CompiledConfig:
    """A compiled config (cached: never mutate its arrays)."""
    return _cfg(config, tuple(overrides))


def fresh_cfg(*overrides: str, config: str = "classic") -> CompiledConfig:
    """A compiled config of its own, whose arrays a test may change."""
    return compile_config(load_config(config, list(overrides)))


def deck_for(hands: Sequence[Sequence[str]], rest: Sequence[str] = (), dealer: int = 0) -> list[str]:
    """A deck order dealing ``hands[seat]`` to every seat (one card at a time
    from the dealer's left), followed by ``rest`` (flip first, then draws)."""
    n = len(hands)
    size = len(hands[0])
    assert all(len(h) == size for h in hands)
    order = [(dealer + 1 + i) % n for i in range(n)]
    deck = [hands[q][j] for j in range(size) for q in order]
    return deck + list(rest)


def _line(e: dict[str, Any]) -> str:  # noqa: C901, PLR0911, PLR0912  one branch per event kind
    k = e["e"]
    if k == "turn":
        return f"turn {e['p']} {e['color']} {e['top']}"
    if k == "play":
        return f"play {e['p']} {e['card']} {e['color']}"
    if k == "draw":
        color = f" {e['color']}" if "color" in e else ""
        return f"draw {e['p']} {' '.join(e['cards'])} ({e['cause']}{color})"
    if k == "discard":
        return f"discard {e['p']} {' '.join(e['cards'])}"
    if k == "out":
        return f"out {e['p']} {e['reason']} {len(e['cards'])}"
    if k in ("skip", "silence_end", "slip", "skip_all"):
        return f"{k} {e['p']}"
    if k in ("reverse", "rotate"):
        return f"{k} {e['direction']:+d}"
    if k == "challenge":
        return f"challenge {e['p']} {e['target']} {'success' if e['success'] else 'fail'}"
    if k == "uno":
        return f"uno {e['p']} " + ("called" if e["called"] else "caught" if e["caught"] else "forgot")
    if k == "jump":
        return f"jump {e['p']} {e['card']}"
    if k == "swap":
        return f"swap {e['a']} {e['b']}"
    if k == "special":
        out = e["outcome"]
        out = ",".join(map(str, out)) if isinstance(out, list) else out
        return f"special {e['p']} {e['target']} {out}"
    if k == "end":
        return f"end {e['winner']} {e['points']}"
    if k in ("flip", "return"):
        return f"{k} {e['card']}"
    if k == "flip_all":
        return f"flip_all {e['p']} {e['side']} {e['color']}"
    if k == "reshuffle":
        return "reshuffle"
    if k == "deal":
        return f"deal {e['dealer']}"
    if k == "score":
        return f"score {e['scores']}"
    if k == "match_end":
        return f"match_end {e['winner']}"
    return k


def log(r: Round | list[dict], start: int = 0, kinds: Sequence[str] | None = None) -> list[str]:
    """The events of ``r`` (a Round or an event list) from index ``start`` as short lines."""
    events = r.events() if isinstance(r, Round) else r
    return [_line(e) for e in events[start:] if kinds is None or e["e"] in kinds]


def card_points(tok: str) -> int:
    """docs/rules.md §1: face value, 20 for Skip/Reverse/Draw Two, 50 for every wild."""
    if tok in ("W", "WD4", "WX"):
        return 50
    return int(tok[1:]) if tok[1:].isdigit() else 20


def hand_pts(hand: Sequence[str]) -> int:
    return sum(card_points(c) for c in hand)


def all_cards(r: Round) -> Counter[str]:
    """Every card of the round: hands, draw pile and discard pile."""
    c: Counter[str] = Counter(r.draw_pile) + Counter(r.discard)
    for h in r.hands:
        c.update(h)
    return c


def same(a: Sequence[str], b: Sequence[str]) -> bool:
    """Equal as multisets of cards."""
    return Counter(a) == Counter(b)
