"""Editions as data (docs/rules.md §11, docs/editions.md): card kinds with effects.

The shipped editions list their card kinds; the same editions in the older
deck/special form lower to the same kernel tables (so every result is
unchanged), a user's own edition runs with no code change, and a file outside
the vocabulary is a one-line error naming its key.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from tests.rules_helpers import Round, log
from unosim.cli import main
from unosim.engine.kernel.batch import COUNT_ROUNDS, simulate
from unosim.engine.kernel.state import compile_config
from unosim.rules.cards import CLASSIC as CLASSIC_KINDS
from unosim.rules.config import validate_config
from unosim.rules.editions import (
    Edition,
    deck_counts,
    effects_by_kind,
    kind_table,
    list_editions,
    load_edition,
    points_by_kind,
)
from unosim.rules.errors import ConfigError
from unosim.rules.yamlio import EDITIONS_DIR

CLASSIC = (Path(EDITIONS_DIR) / "classic.yaml").read_text()
# docs/editions.md's example: classic whose Skips skip everyone (30 points),
# with eight Wild Draw Fours
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "editions"
USER_EDITION = (EXAMPLES / "skip_everyone.yaml").read_text()
# docs/editions.md's new card kind: classic plus eight Skip Everyone (token SE)
NEW_KIND_EDITION = (EXAMPLES / "skip_everyone_added.yaml").read_text()


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


# the seed editions (no_mercy has new kinds: no older form, its own kind ids)
SEED_EDITIONS = [e for e in list_editions() if e not in ("no_mercy", "flip")]


@pytest.mark.parametrize("name", SEED_EDITIONS)
def test_shipped_edition_lowers_as_its_older_form(name: str) -> None:
    ed = load_edition(name)
    assert ed.cards is not None
    older = Edition.model_validate(ed.identity())  # the deck/special form
    assert older.cards is None and older.special == ed.special
    for table in (deck_counts, points_by_kind, effects_by_kind):
        assert np.array_equal(table(ed), table(older)), table.__name__


def test_user_edition_changes_the_tables(tmp_path: Path) -> None:
    ed = load_edition(write(tmp_path / "mine.yaml", USER_EDITION))
    assert ed.deck is None  # not expressible in the older form
    assert deck_counts(ed).sum() == 112
    cc = compile_config(validate_config({"edition": str(tmp_path / "mine.yaml")}))
    assert cc.points[10] == 30  # RS


def _user_round(tmp_path: Path, players: int, text: str = USER_EDITION,
                card: str = "RS") -> Round:
    ed = write(tmp_path / "mine.yaml", text)
    cc = compile_config(validate_config({"edition": str(ed), "players": players}))
    hands = [[card, "R5", "R6"]] + [["B1", "B2"]] * (players - 1)
    return Round.from_position(cc, hands=hands, draw=["G1"] * 5, discard=["R3"], color="R",
                               player=0)


@pytest.mark.parametrize("players", [2, 5])
@pytest.mark.parametrize("card", ["RS", "RSE"])  # a slot given skip_all; a new kind (SE)
def test_skip_everyone_at_2_and_5_players(tmp_path: Path, players: int, card: str) -> None:
    text = USER_EDITION if card == "RS" else NEW_KIND_EDITION
    r = _user_round(tmp_path, players, text, card)
    start = len(r.events())
    r.apply(card)
    lines = log(r, start)
    assert lines[0] == f"play 0 {card} R"
    assert lines[1] == "skip_all 0"
    assert lines[2:players + 1] == [f"skip {q}" for q in range(1, players)]
    assert lines[players + 1] == f"turn 0 R {card}"  # its player takes another turn


def test_user_edition_runs_from_the_cli(tmp_path: Path) -> None:
    cfg = EXAMPLES / "skip_everyone_game.yaml"
    r = CliRunner().invoke(main, ["run", str(cfg), "--games", "200", "--seed", "1", "--jobs",
                                  "1", "--no-report", "--quiet", "--out", str(tmp_path / "o")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "o" / "summary.json").is_file()


BAD = [
    # (what to replace in classic, with what, the key the error names, words in it)
    ("effects: [match, skip]}", "effects: [match, skip_twice]}", "cards[10].effects[1]",
     "unknown effect"),
    ("effects: [match, draw 2], stacking: 2}", "effects: [match, draw 3], stacking: 2}",
     "cards[12].effects[1]", "draw takes one of"),
    ("effects: [match, reverse]}", "effects: [match, flip]}", "cards", "two-sided deck"),
    ('{token: "9", count: 2,', '{token: "9-", count: 2,', "cards[9].token", "card tokens are"),
    ('{token: "9", count: 2,', '{token: "11", count: 2,', "cards[9].points", "required"),
    ('{token: "9", count: 2,', '{token: "8", count: 2,', "cards[9].token", "listed twice"),
    ('{token: "9", count: 2,', '{token: "9", count: -2,', "cards[9].count", "-2"),
    ("effects: [match, skip]}", "effects: [skip]}", "cards[10].effects", "'match'"),
    ("effects: [match, skip]}", "effects: [match, skip], condition: only_without_color}",
     "cards[10].condition", "wild"),
    ("condition: only_without_color, challengeable: true",
     "challengeable: true", "cards[14].challengeable", "condition"),
    ("effects: [match, reverse]}", "effects: [match, reverse], stacking: 2}",
     "cards[11].stacking", "draw effect"),
    ("{token: W, name: Wild, count: 4, points: 50, effects: [match]}",
     "{token: W, name: Wild, count: 4, effects: [match]}", "cards[13].points", "required"),
    ("{token: W, name: Wild, count: 4, points: 50, effects: [match]}",
     "{token: W, name: Wild, count: 4, points: 50, effects: [match, dont_talk],"
     " slip_rate: 0.1}", "cards[13].effects", "WX"),
    ("first_flip: apply", "first_flip: apply\nspecial: null\ndeck: {numbers: {}, actions: {},"
     " wild: 4, wild_draw_four: 4}", "deck", "not both"),
]


@pytest.mark.parametrize(("old", "new", "key", "words"), BAD, ids=[b[2] for b in BAD])
def test_bad_card_kind_is_a_one_line_error(tmp_path: Path, old: str, new: str, key: str,
                                           words: str) -> None:
    assert old in CLASSIC
    ed = write(tmp_path / "bad.yaml", CLASSIC.replace(old, new, 1))
    with pytest.raises(ConfigError) as exc:
        load_edition(ed)
    msg = str(exc.value)
    assert "\n" not in msg and f"{key}:" in msg and words in msg, msg
    # the CLI: one line on stderr, exit 2
    cfg = write(tmp_path / "cfg.yaml", "edition: bad.yaml\n")
    r = CliRunner().invoke(main, ["run", str(cfg), "--games", "10", "--no-report"])
    assert r.exit_code == 2
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("unosim: error:") and key in err[0], err



POLICIES = ["random", "greedy", "cautious", "defender", "strategic",
            {"policy": "ismcts", "params": {"iterations": 20}}]


@pytest.mark.parametrize("edition", [*list_editions(), "user", "new_kind"])
def test_every_policy_plays_every_edition(tmp_path: Path, edition: str) -> None:
    """Habits are read from the effect table, so every seat plays any edition:
    here one seat of each built-in policy, with every stacking switch on."""
    if edition in ("user", "new_kind"):
        text = USER_EDITION if edition == "user" else NEW_KIND_EDITION
        edition = str(write(tmp_path / "mine.yaml", text))
    data = {"edition": edition, "players": len(POLICIES), "seats": POLICIES,
            "house_rules": {"stacking": {"draw_two_on_draw_two": True, "wd4_on_wd4": True,
                                         "wd4_on_draw_two": True, "draw_two_on_wd4": True}}}
    cc = compile_config(validate_config(data))
    agg, _ = simulate(cc, 5, 0, 6)
    assert int(agg["counts"][COUNT_ROUNDS]) == 6


# --- a new card kind (docs/editions.md): ids from the edition's list ------------------------
@pytest.mark.parametrize("name", SEED_EDITIONS)
def test_shipped_editions_keep_the_classic_kind_ids(name: str) -> None:
    """Kind ids come from each edition's list; the shipped ones give the classic layout."""
    kinds = kind_table(load_edition(name))
    assert kinds.tokens == CLASSIC_KINDS.tokens[:kinds.nk]
    assert kinds.nk == (55 if load_edition(name).special else 54)


def test_new_kind_numbers_after_the_classic_colored_kinds(tmp_path: Path) -> None:
    ed = load_edition(write(tmp_path / "mine.yaml", NEW_KIND_EDITION))
    kinds = kind_table(ed)
    assert ed.deck is None  # not expressible in the older form
    # colored kinds color-major in list order (14 per color), then the wilds
    assert kinds.nk == 58 and kinds.tokens[12:15] == ("RD2", "RSE", "Y0")
    assert kinds.tokens[-2:] == ("W", "WD4")
    counts = deck_counts(ed)
    assert counts.sum() == 116 and counts[kinds.kind("GSE")] == 2
    assert points_by_kind(ed)[kinds.kind("BSE")] == 30


def test_new_kind_matches_its_token_in_every_color(tmp_path: Path) -> None:
    ed = write(tmp_path / "mine.yaml", NEW_KIND_EDITION)
    cc = compile_config(validate_config({"edition": str(ed), "players": 2}))
    r = Round.from_position(cc, hands=[["BSE", "B5"], ["B1", "B2"]], draw=["G1"] * 5,
                            discard=["RSE"], color="R", player=0)
    assert r.legal_action_names() == ["BSE", "draw"]


def test_new_kind_runs_from_the_cli_and_its_trace_lists_the_cards(tmp_path: Path) -> None:
    cfg = EXAMPLES / "skip_everyone_added_game.yaml"
    r = CliRunner().invoke(main, ["run", str(cfg), "--games", "300", "--seed", "1", "--jobs",
                                  "1", "--no-report", "--quiet", "--out", str(tmp_path / "o")])
    assert r.exit_code == 0, r.output
    ed = write(tmp_path / "mine.yaml", NEW_KIND_EDITION)
    cc = compile_config(validate_config({"edition": str(ed), "players": 4}))
    rnd = Round.new(cc, seed=3, game=0, trace=True)
    rnd.play_out()
    deal = rnd.events()[0]
    assert [c["token"] for c in deal["cards"]][-3:] == ["SE", "W", "WD4"]
    assert deal["cards"][13]["effects"] == ["match", "skip_all"]


def test_too_many_kinds_is_a_one_line_error(tmp_path: Path) -> None:
    extra = "".join(f'  - {{token: "X{i}", count: 1, points: 20, effects: [match]}}\n'
                    for i in range(20))
    text = CLASSIC.replace("  - {token: W,", extra + "  - {token: W,", 1)
    with pytest.raises(ConfigError) as exc:
        load_edition(write(tmp_path / "big.yaml", text))
    msg = str(exc.value)
    assert "\n" not in msg and "cards:" in msg and "at most 128" in msg, msg
