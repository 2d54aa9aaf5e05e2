"""An edition's own card kinds at the terminal and for plug-ins (issue 22): the legend
and the painter know every kind of the edition (``RSE``, ``WD10``), and ``play
--human`` and ``advise`` show them in their colors (tests/env/test_view_layout.py: a
plug-in seat's layout)."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import unosim.cli.cardtext as cardtext
import unosim.cli.play as play_module
from unosim.cli.app import main
from unosim.cli.cardtext import EFFECT_WORDS, Painter, card_line, legend, token_pattern
from unosim.rules.cards import CLASSIC, RANK_TOKENS, WILD_TOKENS, KindTable
from unosim.rules.editions import CardKind, card_kinds, list_editions, load_edition
from unosim.rules.effects import EFFECTS, SPECIAL_EFFECTS
from unosim.rules.models import HouseRules

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "editions"
ADDED = EXAMPLES / "skip_everyone_added.yaml"
ADDED_GAME = EXAMPLES / "skip_everyone_added_game.yaml"
SE_LINE = "  SE    Skip Everyone (RSE): every other player loses their turn: you play again\n"


CLASSIC_CARDS = [n for n in list_editions()
                 if {c.token for c in card_kinds(load_edition(n))} <= {*RANK_TOKENS, *WILD_TOKENS.values()}]


@pytest.mark.parametrize("name", CLASSIC_CARDS)
def test_a_shipped_editions_legend_is_the_classic_wording(name: str) -> None:
    """The legend of an edition of classic's cards, read from its cards, is the one
    without them, word for word."""
    ed = load_edition(name)
    paint = Painter(False, ed.colors)
    assert legend(paint, ed.special, ed.wd4_wilds_block, None, card_kinds(ed)) == \
        legend(paint, ed.special, ed.wd4_wilds_block)


def test_no_mercy_legend_names_each_of_its_kinds() -> None:
    """An edition of new kinds (No Mercy) gets one line per kind that is not a number."""
    ed = load_edition("no_mercy")
    text = legend(Painter(False, ed.colors), ed.special, ed.wd4_wilds_block, None,
                  card_kinds(ed))
    for tok in ("DA", "SE", "D4", "WRD4", "WD6", "WD10", "WCR"):
        assert f"\n  {tok} " in text, tok
    assert "challenge (" not in text  # No Mercy has no challenges


def test_a_new_kind_gets_a_line_from_its_effects() -> None:
    ed = load_edition(str(ADDED))
    text = legend(Painter(False, ed.colors), ed.special, ed.wd4_wilds_block, None,
                  card_kinds(ed))
    assert SE_LINE in text
    assert "  S     Skip (GS): the next player loses their turn\n" in text
    assert "  WD4   Wild Draw Four: name the color" in text
    # an edition that gives the token S another effect is not described as a Skip
    other = load_edition(str(EXAMPLES / "skip_everyone.yaml"))
    text = legend(Painter(False), other.special, False, None, card_kinds(other))
    assert "  S     Skip Everyone (RS): every other player loses their turn" in text
    assert "(GS): the next player loses their turn" not in text


def test_a_new_wild_says_its_draw_and_its_condition() -> None:
    wd10 = CardKind(token="WD10", name="Wild Draw Ten", count=4, points=50,
                    effects=["match", "draw 10"], condition="only_without_color",
                    challengeable=True)
    line = card_line(wd10, wilds_block=True)
    flat = " ".join(line.split())
    assert line.startswith("  WD10  Wild Draw Ten: a wild; ") and flat.startswith(
        "WD10 Wild Draw Ten: a wild; you name the color; the next player draws 10 and "
        "loses their turn.")
    assert "Legal only without a card of the active color (in this edition, nor a W or WX)" \
        in flat and "a challenge catches it and you draw 10 instead" in flat
    assert all(len(x) <= 88 for x in line.splitlines())
    numbers = [CardKind(token=t, count=2, effects=["match"]) for t in "13579"]
    text = legend(Painter(False), None, False, None, [*numbers, wd10])
    assert "  1,3,5,7,9 a number card: R7 is red 7" in text and "  WD10  Wild Draw Ten" in text


def test_the_color_roulette_is_named_by_its_victim() -> None:
    wcr = CardKind.model_construct(token="WCR", name="Wild Color Roulette", count=8, points=50,
                                   effects=["match", "draw_until_color"], condition=None,
                                   challengeable=False)
    flat = " ".join(card_line(wcr).split())
    assert flat == ("WCR Wild Color Roulette: a wild; the next player names a color, draws "
                    "until a card of it comes, keeps them all and loses their turn")


def test_the_answers_name_a_challenge_only_where_one_can_be_made() -> None:
    plain = [CardKind(token="7", count=2, effects=["match"]),
             CardKind(token="W", name="Wild", count=4, points=50, effects=["match"])]
    assert "challenge (" not in legend(Painter(False), None, False, None, plain)
    classic = card_kinds(load_edition("classic"))
    assert "challenge (the WD4" in legend(Painter(False), None, False, None, classic)
    off = HouseRules.model_validate({"challenge": False})
    text = legend(Painter(False), None, False, off, classic)
    assert "challenge (" not in text and text.count("? shows this legend") == 1


def test_every_effect_of_the_vocabulary_has_words() -> None:
    assert set(EFFECT_WORDS) == set(EFFECTS) - {"match", *SPECIAL_EFFECTS}
    assert set(cardtext.SPECIAL_EFFECT) == set(SPECIAL_EFFECTS)


def test_the_painter_colors_the_editions_own_tokens() -> None:
    kinds = KindTable(("7", "SE"), ("W", "WD10"))
    p = Painter(True, kinds=kinds)
    text = p.text("P1 plays RSE, then WD10 and G7; W")
    assert p.card("RSE") in text and p.card("WD10") in text and p.card("G7") in text
    assert p.card("RSE") != p.card("BSE") and "P1 plays" in text
    assert Painter(True).text("RSE") == "RSE"  # classic's painter knows no RSE
    assert token_pattern().pattern == token_pattern(CLASSIC).pattern


def _colored(monkeypatch: pytest.MonkeyPatch) -> None:
    """Colors as on a terminal, under CliRunner's captured output."""
    monkeypatch.setattr(cardtext, "color_wanted", lambda *_a, **_k: True)
    monkeypatch.setattr(play_module, "color_wanted", lambda *_a, **_k: True)


def test_play_human_shows_and_explains_the_editions_cards(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _colored(monkeypatch)
    res = CliRunner().invoke(main, ["play", str(ADDED_GAME), "--seed", "1", "--human", "0"],
                             input="?\n" + "1\n" * 600)
    assert res.exit_code == 0, res.output
    assert SE_LINE in click.unstyle(res.stdout)
    painted = [t for t in ("RSE", "YSE", "GSE", "BSE") if Painter(True).card(t) in res.stdout]
    plain = [t for t in ("RSE", "YSE", "GSE", "BSE") if t in click.unstyle(res.stdout)]
    assert plain, "seed 1 shows no Skip Everyone card: pick another seed"
    assert painted == plain


def test_advise_shows_the_editions_cards(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    _colored(monkeypatch)
    pos = tmp_path / "position.yaml"
    pos.write_text(f"config: {ADDED_GAME}\nhand: [RSE, B5]\ntop: R3\nhands: [2, 4, 4, 4]\n")
    res = CliRunner().invoke(main, ["advise", str(pos), "--playouts", "40"])
    assert res.exit_code == 0, res.output
    assert f"hand: {Painter(True).card('RSE')} " in res.output
    assert Painter(True).card("RSE") + " " in res.output.split("win chance")[1]
