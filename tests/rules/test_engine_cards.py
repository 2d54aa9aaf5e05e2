"""The card predicates (rules/cards.py) and the kind tables the kernel reads.

The plain predicates speak the classic layout; the kernel reads an edition's
kind table (`unosim.rules.cards.KindTable`: color, match symbol, face value),
so for the classic layout each table must say of all 55 kinds what the
predicates and the card's token say, and an edition's own tokens must number
its kinds as docs/editions.md says.
"""

from __future__ import annotations

import pytest

from unosim.rules import cards
from unosim.rules.cards import CLASSIC, COLORS, NK, RANK_TOKENS, STACKABLE, KindTable, token

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


def test_classic_table_is_the_classic_layout() -> None:
    """The kernel's tables for the classic layout say what the predicates say."""
    assert CLASSIC.nk == NK and CLASSIC.tokens == tuple(token(k) for k in range(NK))
    assert CLASSIC.color.tolist() == [cards.color_of(k) for k in range(NK)]
    assert CLASSIC.sym.tolist() == [cards.rank_of(k) for k in range(NK)]
    assert CLASSIC.face.tolist() == [cards.rank_of(k) if cards.is_number(k) else -1
                                     for k in range(NK)]
    assert [CLASSIC.kind(token(k)) for k in range(NK)] == list(range(NK))


def test_same_rank_and_card() -> None:
    for a in range(NK):
        for b in range(NK):
            ta, tb = token(a), token(b)
            both_colored = not cards.is_wild(a) and not cards.is_wild(b)
            assert cards.same_rank(a, b) == (both_colored and ta[1:] == tb[1:])
            # the kernel's test: a colored kind matches another by symbol
            if both_colored:
                assert (CLASSIC.sym[a] == CLASSIC.sym[b]) == cards.same_rank(a, b)
    assert [cards.card(cards.color_of(k), cards.rank_of(k)) for k in range(52)] == list(range(52))


def test_new_tokens_number_colored_kinds_first_then_wilds() -> None:
    """docs/editions.md: colored kinds color-major in list order, then the wilds."""
    t = KindTable(("0", "7", "SE", "D4"), ("WD6", "W"))
    assert t.nk == 18 and t.wild_base == 16
    assert t.tokens[:4] == ("R0", "R7", "RSE", "RD4") and t.tokens[-2:] == ("WD6", "W")
    assert t.kind("YSE") == 6 and t.slots("D4") == [3, 7, 11, 15] and t.slots("W") == [17]
    assert t.face.tolist()[:4] == [0, 7, -1, -1] and t.color.tolist()[-3:] == [3, -1, -1]
    # a symbol matches across colors only
    assert t.sym[t.kind("RSE")] == t.sym[t.kind("BSE")] != t.sym[t.kind("B7")]
    with pytest.raises(cards.CardError):
        t.kind("RS")


@pytest.mark.parametrize("tok", ["", "s", "W D", "TOOLONG", "R-2"])
def test_bad_tokens_are_named(tok: str) -> None:
    assert cards.token_error(tok) is not None


def test_stackable_kinds_are_the_draw_cards() -> None:
    assert [token(k) for k in STACKABLE] == ["RD2", "YD2", "GD2", "BD2", "WD4"]
