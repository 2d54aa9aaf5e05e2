"""The card predicates (rules/cards.py) against the tokens, in Python and compiled.

The kernel reads every card through these predicates, so each must say of all
55 kinds exactly what the card's token says, and the compiled copies the
engine uses (`unosim.engine.kinds`) must agree with the plain functions.
"""

from __future__ import annotations

import pytest

from unosim.engine import kinds
from unosim.rules import cards
from unosim.rules.cards import COLORS, NK, RANK_TOKENS, STACKABLE, token

PREDICATES = ["is_wild", "is_number", "is_action", "is_skip", "is_reverse", "is_draw_two",
              "color_of", "suit_of", "rank_of"]


def _from_token(name: str, tok: str) -> object:
    wild = tok in ("W", "WD4", "WX")
    rank = None if wild else tok[1:]
    return {
        "is_wild": wild,
        "is_number": not wild and rank is not None and rank.isdigit(),
        "is_action": not wild and rank in ("S", "R", "D2"),
        "is_skip": rank == "S",
        "is_reverse": rank == "R",
        "is_draw_two": rank == "D2",
        "color_of": -1 if wild else COLORS.index(tok[0]),
        "suit_of": len(COLORS) if wild else COLORS.index(tok[0]),
        "rank_of": {"W": 13, "WD4": 14, "WX": 15}[tok] if wild else RANK_TOKENS.index(rank),
    }[name]


@pytest.mark.parametrize("name", PREDICATES)
def test_predicate_matches_every_token(name: str) -> None:
    fn = getattr(cards, name)
    assert [fn(k) for k in range(NK)] == [_from_token(name, token(k)) for k in range(NK)]


@pytest.mark.parametrize("name", PREDICATES)
def test_compiled_predicate_is_the_same_function(name: str) -> None:
    py, compiled = getattr(cards, name), getattr(kinds, name)
    assert compiled.py_func is py
    assert [compiled(k) for k in range(NK)] == [py(k) for k in range(NK)]


def test_same_rank_and_card() -> None:
    for a in range(NK):
        for b in range(NK):
            ta, tb = token(a), token(b)
            both_colored = not cards.is_wild(a) and not cards.is_wild(b)
            assert cards.same_rank(a, b) == (both_colored and ta[1:] == tb[1:])
            assert kinds.same_rank(a, b) == cards.same_rank(a, b)
    assert [cards.card(cards.color_of(k), cards.rank_of(k)) for k in range(52)] == list(range(52))


def test_stackable_kinds_are_the_draw_cards() -> None:
    assert [token(k) for k in STACKABLE] == ["RD2", "YD2", "GD2", "BD2", "WD4"]
