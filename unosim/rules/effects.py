"""The vocabulary of card effects (docs/rules.md §11), declared once.

An edition file lists its card kinds, each with the effects it has from this
vocabulary; `effect_table` lowers them into one row of integers per kind, the
table the compiled kernel reads (``fx[kind, FX_*]``) instead of testing card
names. The engine knows effects, never editions.

>>> parse_effect("draw 2")
('draw', 2)
>>> parse_effect("skip")
('skip', 0)
>>> parse_effect("draw 3")
Traceback (most recent call last):
...
ValueError: draw takes one of 1, 2, 4, 5, 6, 10 cards, not 3
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "CONDITIONS",
    "DRAW_AMOUNTS",
    "EFFECTS",
    "FX_NAMES",
    "NFX",
    "ALONE_EFFECTS",
    "SPECIAL_EFFECTS",
    "SPECIAL_RATE",
    "action_codes",
    "effect_table",
    "parse_effect",
]

# Effects with an amount (``draw N``) and without one. ``movie_madness``,
# ``wishing_star`` and ``dont_talk`` are the seed editions' special wilds
# (docs/rules.md §4): they must stay expressible, so they are effects too.
DRAW_AMOUNTS = (1, 2, 4, 5, 6, 10)
SPECIAL_EFFECTS = ("movie_madness", "wishing_star", "dont_talk")
EFFECTS = ("match", "draw", "draw_until_color", "skip", "skip_all", "reverse",
           "discard_color", "swap_hands", "rotate_hands", "flip", *SPECIAL_EFFECTS)
CONDITIONS = ("only_without_color",)
# The one rate (or list) each special effect needs, named on its card kind.
SPECIAL_RATE = {"movie_madness": "fail_rate", "wishing_star": "wish_icons",
                "dont_talk": "slip_rate"}

# --- the kernel's effect table: one int64 row per card kind --------------------------
FX_NAMES = ("wild", "draw", "draw_until_color", "skip", "skip_all", "reverse",
            "discard_color", "swap_hands", "rotate_hands", "flip", "condition",
            "challengeable", "stack_value", "special", "player_names")
FX_WILD, FX_DRAW, FX_DRAW_UNTIL, FX_SKIP, FX_SKIP_ALL, FX_REVERSE = range(6)
FX_DISCARD_COLOR, FX_SWAP, FX_ROTATE, FX_FLIP, FX_COND, FX_CHALLENGE = range(6, 12)
FX_STACK, FX_SPECIAL = 12, 13  # FX_SPECIAL: 1 + index in SPECIAL_EFFECTS, 0 none
# 1: the card's player names the color its draw_until_color waits for (UNO Flip's Wild
# Draw Color); 0: the player it hits names it (No Mercy's Color Roulette)
FX_NAMER = 14
NFX = len(FX_NAMES)
# The effects the compiled kernel runs today; the others are in the vocabulary
# (an edition naming one fails with its key, not with a wrong game).
KERNEL_EFFECTS = frozenset({"match", "draw", "draw_until_color", "skip", "skip_all", "reverse",
                            "discard_color", "swap_hands", "rotate_hands", "flip",
                            *SPECIAL_EFFECTS})
# Effects that end a play's resolution with a choice or a draw of their own: a
# kind has at most one of them and no other effect that acts on a player
# (`unosim.engine.kernel.effects` resolves the others in a fixed order around them).
ALONE_EFFECTS = ("draw_until_color", "swap_hands", "rotate_hands", "flip")

# --- one action code per kind: what a play of it does, read once per play --------------
# A number card costs the kernel one lookup (ACT_PLAIN) instead of a table read
# per effect column. The code is the first of the kernel's branches the kind's
# row meets, in this order; ACT_SPECIAL is a bit added to it.
ACT_PLAIN, ACT_WILD_DRAW, ACT_WILD, ACT_SKIP, ACT_SKIP_ALL, ACT_REVERSE, ACT_DRAW = range(7)
# ACT_EFFECTS: any other row (section 11's new effects, or several actions on one
# card, e.g. the Wild Reverse Draw Four): resolved effect by effect from the table
ACT_EFFECTS = 7
ACT_SPECIAL = 8
# the columns that make a row ACT_EFFECTS on their own
NEW_COLUMNS = (FX_DRAW_UNTIL, FX_DISCARD_COLOR, FX_SWAP, FX_ROTATE, FX_FLIP)


def parse_effect(text: str) -> tuple[str, int]:
    """``(name, amount)`` of one effect as written in an edition file."""
    parts = str(text).split()
    if not parts or parts[0] not in EFFECTS:
        raise ValueError(f"unknown effect {text!r} (expected one of {', '.join(EFFECTS)})")
    name = parts[0]
    if name == "draw":
        if len(parts) != 2 or not parts[1].isdigit():
            raise ValueError("draw needs its amount, e.g. 'draw 2'")
        n = int(parts[1])
        if n not in DRAW_AMOUNTS:
            raise ValueError(
                f"draw takes one of {', '.join(map(str, DRAW_AMOUNTS))} cards, not {n}")
        return name, n
    if len(parts) != 1:
        raise ValueError(f"effect {name!r} takes no amount")
    return name, 0


def effect_row(effects: list[tuple[str, int]], condition: str | None, challengeable: bool,
               stack_value: int, wild: bool, player_names: bool = False) -> np.ndarray:
    """One kind's row of the effect table."""
    row = np.zeros(NFX, dtype=np.int64)
    row[FX_WILD] = int(wild)
    column = {"draw_until_color": FX_DRAW_UNTIL, "skip": FX_SKIP, "skip_all": FX_SKIP_ALL,
              "reverse": FX_REVERSE, "discard_color": FX_DISCARD_COLOR,
              "swap_hands": FX_SWAP, "rotate_hands": FX_ROTATE, "flip": FX_FLIP}
    for name, n in effects:
        if name == "draw":
            row[FX_DRAW] = n
        elif name in SPECIAL_EFFECTS:
            row[FX_SPECIAL] = 1 + SPECIAL_EFFECTS.index(name)
        elif name in column:
            row[column[name]] = 1
    row[FX_COND] = int(condition == "only_without_color")
    row[FX_CHALLENGE] = int(challengeable)
    row[FX_STACK] = stack_value
    row[FX_NAMER] = int(player_names)
    return row


def action_codes(fx: np.ndarray) -> np.ndarray:
    """Each kind's action code (``ACT_*``) from its effect-table row.

    >>> from unosim.rules.cards import DRAW2, NK, W, WD4
    >>> fx = effect_table(NK, {DRAW2: effect_row([("draw", 2)], None, False, 2, False),
    ...                    W: effect_row([], None, False, 0, True),
    ...                    WD4: effect_row([("draw", 4)], "only_without_color", True, 4, True)})
    >>> [int(a) for a in action_codes(fx)[[0, DRAW2, W, WD4]]]
    [0, 6, 2, 1]
    """
    act = np.full(len(fx), ACT_PLAIN, dtype=np.int64)
    for k, row in enumerate(fx):
        wild, draw = row[FX_WILD] != 0, row[FX_DRAW] > 0
        actions = int(draw) + int(row[FX_SKIP] != 0) + int(row[FX_SKIP_ALL] != 0) + int(
            row[FX_REVERSE] != 0)
        if actions > 1 or any(row[c] != 0 for c in NEW_COLUMNS):
            act[k] = ACT_EFFECTS
        elif wild:
            act[k] = ACT_WILD_DRAW if draw else ACT_WILD
        elif row[FX_SKIP] != 0:
            act[k] = ACT_SKIP
        elif row[FX_SKIP_ALL] != 0:
            act[k] = ACT_SKIP_ALL
        elif row[FX_REVERSE] != 0:
            act[k] = ACT_REVERSE
        elif draw:
            act[k] = ACT_DRAW
        if row[FX_SPECIAL] != 0:
            act[k] += ACT_SPECIAL
    return act


def effect_table(nk: int, rows: dict[int, np.ndarray]) -> np.ndarray:
    """The int64[nk, NFX] table of an edition's ``nk`` kinds from each kind's row."""
    table = np.zeros((nk, NFX), dtype=np.int64)
    for k, row in rows.items():
        table[k] = row
    return table
