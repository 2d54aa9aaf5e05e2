"""Config and edition loading: shipped files, extends/--set, and one-line errors."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from unosim.engine.kernel import state as L
from unosim.engine.kernel.state import compile_config
from unosim.rules.cards import NK, WX, kind
from unosim.rules.config import (
    ConfigError,
    GameConfig,
    config_hash,
    config_to_dict,
    load_config,
    resolved_rules,
    validate_config,
)
from unosim.rules.editions import (
    deck_counts,
    edition_path,
    list_editions,
    load_edition,
    points_by_kind,
    wish_icon_mask,
)
from unosim.rules.limits import MAX_DECKS
from unosim.rules.models import RULINGS, HouseRules, Stacking
from unosim.rules.settings import (
    describe_difference,
    describe_rules,
    house_rule_switches,
    rules_on,
    setting_label,
    setting_phrase,
    settings,
    stacking_phrase,
)
from unosim.rules.yamlio import CONFIGS_DIR

SHIPPED = sorted(CONFIGS_DIR.glob("*.yaml"))
EDITIONS = ["classic", "classic_1992", "disney100", "disney_wish", "encanto", "flip", "no_mercy"]

SHIPPED_CLASSIC = (CONFIGS_DIR / "editions" / "classic.yaml").read_text()
# The same edition in the older deck/special form, which is still read (the
# error tests below edit it; the card-kind form has its own tests).
LEGACY_DECK = """deck:
  numbers: {"0": 1, "1": 2, "2": 2, "3": 2, "4": 2, "5": 2, "6": 2, "7": 2, "8": 2, "9": 2}
  actions: {"S": 2, "R": 2, "D2": 2}
  wild: 4
  wild_draw_four: 4

special: null
"""
CLASSIC_EDITION = re.sub(r"cards:\n(  .*\n)+", LEGACY_DECK, SHIPPED_CLASSIC)
MOVIE_SPECIAL = """
special:
  kind: movie_madness
  name: Wild Mickey Movie Madness
  count: 4
  points: 50
  fail_rate: 0.5
"""


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def one_line_error(exc: pytest.ExceptionInfo[ConfigError], file: str, key: str) -> str:
    msg = str(exc.value)
    assert "\n" not in msg
    assert file in msg, msg
    assert f"{key}:" in msg, msg
    return msg


# --- shipped files ------------------------------------------------------------
def test_shipped_editions_listed() -> None:
    assert list_editions() == EDITIONS


def test_shipped_configs_present() -> None:
    names = {p.stem for p in SHIPPED}
    assert {
        "classic",
        "stacking",
        "stacking_full",
        "jump_in",
        "seven_o",
        "draw_until_play",
        "two_player",
        "two_player_reverse",
        "party_8p_2decks",
        "chaos",
        "match",
        *EDITIONS,
    } <= names


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_every_shipped_config_loads_and_compiles(path: Path) -> None:
    cfg = load_config(path)
    assert cfg.name == path.stem
    cc = compile_config(cfg)
    assert cc.ci.shape == (L.NCI,) and cc.ci.dtype == np.int64
    assert cc.cf.shape == (L.NCF,) and cc.cf.dtype == np.float64
    assert cc.pp.shape == (cfg.players, L.NPP)
    for arr in (cc.deck_counts, cc.points, cc.wish_icons):
        assert arr.shape == (cc.kinds.nk,) and arr.dtype == np.int64
    # physical cards: a two-sided deck's faces are two per card
    assert cc.ci[L.C_DECK_SIZE] == cc.deck_counts[cc.kinds.side == 0].sum()
    assert cc.rules == resolved_rules(cfg)
    assert validate_config(config_to_dict(cfg)) == cfg


@pytest.mark.parametrize(
    ("name", "cards", "points", "special", "flip", "block"),
    [
        ("classic", 108, 1240, "none", "apply", False),
        ("classic_1992", 108, 1240, "none", "apply", False),
        ("disney100", 112, 1440, "movie_madness", "redraw", True),
        ("disney_wish", 112, 1440, "wishing_star", "redraw", True),
        ("encanto", 112, 1440, "dont_talk", "redraw", True),
    ],
)
def test_edition_deck_and_points(
    name: str, cards: int, points: int, special: str, flip: str, block: bool
) -> None:
    ed = load_edition(name)
    assert ed.name == name
    counts = deck_counts(ed)
    # the classic kinds, and the special wild WX (kind 54) where the edition has one
    assert counts.dtype == np.int64 and counts.shape == (NK if special != "none" else NK - 1,)
    assert counts.sum() == cards
    # 4 x (0 + 2 x 45) numbers + 24 actions x 20 + 8 or 12 wilds x 50
    assert int((counts * points_by_kind(ed)).sum()) == points
    assert counts[kind("R0")] == 1 and counts[kind("B9")] == 2
    assert counts[kind("GD2")] == 2 and counts[kind("WD4")] == 4
    assert special == "none" or counts[WX] == 4
    assert ed.special_kind == special
    assert ed.first_flip == flip and ed.wd4_wilds_block is block
    assert ed.uno_penalty == (4 if name == "classic_1992" else 2)


def test_wish_icons_default_is_the_eight_ones() -> None:
    ed = load_edition("disney_wish")
    mask = wish_icon_mask(ed)
    icons = [kind(t) for t in ("R1", "Y1", "G1", "B1")]
    assert mask.nonzero()[0].tolist() == icons
    assert int((mask * deck_counts(ed)).sum()) == 8
    assert wish_icon_mask(load_edition("classic")).sum() == 0


def test_disney_wish_color_labels() -> None:
    assert load_edition("disney_wish").colors == ["pink", "gold", "purple", "blue"]


def test_load_edition_accepts_path(tmp_path: Path) -> None:
    path = write(
        tmp_path / "mine.yaml", CLASSIC_EDITION.replace("name: classic", "name: mine")
    )
    assert load_edition(path).name == "mine"
    assert load_edition(str(path)).source == str(path)


# --- edition defaults and compilation -----------------------------------------
def test_edition_defaults_sit_under_user_settings(tmp_path: Path) -> None:
    cfg = load_config(CONFIGS_DIR / "classic_1992.yaml")
    assert cfg.house_rules.two_player_reverse is True
    assert resolved_rules(cfg)["uno_penalty"] == 4
    off = load_config(
        CONFIGS_DIR / "classic_1992.yaml", ["house_rules.two_player_reverse=false"]
    )
    assert off.house_rules.two_player_reverse is False


def test_special_rates_default_to_edition(tmp_path: Path) -> None:
    ed_path = write(
        tmp_path / "ed.yaml",
        CLASSIC_EDITION.replace("special: null", MOVIE_SPECIAL.replace("0.5", "0.8")),
    )
    cfg = validate_config({"edition": str(ed_path)})
    assert cfg.behaviour.movie_madness_fail_rate == 0.8
    assert compile_config(cfg).cf[L.F_MOVIE_FAIL] == 0.8
    mine = validate_config(
        {"edition": str(ed_path), "behaviour": {"movie_madness_fail_rate": 0.1}}
    )
    assert mine.behaviour.movie_madness_fail_rate == 0.1
    encanto = load_config(CONFIGS_DIR / "encanto.yaml")
    assert encanto.behaviour.dont_talk_slip_rate == 0.1
    assert encanto.behaviour.movie_madness_fail_rate == 0.5  # RULES default, unused


def test_compile_classic() -> None:
    cc = compile_config(load_config(CONFIGS_DIR / "classic.yaml"))
    ci = cc.ci
    assert ci[L.C_PLAYERS] == 4 and ci[L.C_HAND_SIZE] == 7 and ci[L.C_DECKS] == 1
    assert ci[L.C_FIRST_FLIP] == L.FLIP_APPLY and ci[L.C_WD4_WILDS_BLOCK] == 0
    assert ci[L.C_UNO_PENALTY] == 2 and ci[L.C_SPECIAL] == L.SPECIAL_NONE
    assert ci[L.C_MODE] == 0 and ci[L.C_SCORING] == L.SCORING_STANDARD
    assert ci[L.C_MAX_TURNS] == 1000 and ci[L.C_MAX_ROUNDS] == 1000
    assert ci[L.C_DECK_SIZE] == 108
    assert cc.cf[L.F_UNO_FORGET] == 0.0 and cc.cf[L.F_UNO_CATCH] == 1.0
    assert (cc.pp[:, L.P_KIND] == L.POLICY_RANDOM).all()
    assert (cc.pp[:, L.P_CHALLENGE] == 0).all() and (cc.pp[:, L.P_BLUFF] == 0).all()
    assert cc.seat_policies == ["random"] * 4 and cc.edition_name == "classic"


def test_compile_editions_and_house_rules() -> None:
    chaos = compile_config(load_config(CONFIGS_DIR / "chaos.yaml")).ci
    for c in (
        L.C_STACK_D2_D2,
        L.C_STACK_WD4_WD4,
        L.C_STACK_WD4_D2,
        L.C_STACK_D2_WD4,
        L.C_JUMP_IN,
        L.C_SEVEN_O,
        L.C_DRAW_UNTIL_PLAY,
        L.C_TWO_PLAYER_REVERSE,
    ):
        assert chaos[c] == 1
    stacking = compile_config(load_config(CONFIGS_DIR / "stacking.yaml")).ci
    assert stacking[L.C_STACK_D2_D2] == 1 and stacking[L.C_STACK_WD4_WD4] == 0
    wish = compile_config(load_config(CONFIGS_DIR / "disney_wish.yaml"))
    assert (
        wish.ci[L.C_SPECIAL] == L.SPECIAL_WISH
        and wish.ci[L.C_FIRST_FLIP] == L.FLIP_REDRAW
    )
    assert wish.ci[L.C_WD4_WILDS_BLOCK] == 1 and wish.ci[L.C_DECK_SIZE] == 112
    assert wish.wish_icons.sum() == 4 and wish.points[WX] == 50
    party = compile_config(load_config(CONFIGS_DIR / "party_8p_2decks.yaml"))
    assert party.ci[L.C_DECK_SIZE] == 216 and party.deck_counts[kind("R0")] == 2
    match = compile_config(load_config(CONFIGS_DIR / "match.yaml")).ci
    assert match[L.C_MODE] == 1 and match[L.C_TARGET] == 500
    codes = {"disney100": L.SPECIAL_MOVIE, "encanto": L.SPECIAL_DONT_TALK}
    for name, code in codes.items():
        assert (
            compile_config(load_config(CONFIGS_DIR / f"{name}.yaml")).ci[L.C_SPECIAL]
            == code
        )


def test_resolved_rules_keys() -> None:
    rules = resolved_rules(load_config(CONFIGS_DIR / "encanto.yaml"))
    assert set(rules) == {
        "players", "hand_size", "decks", "first_flip", "wd4_wilds_block", "uno_penalty",
        "special", "special_points", "house_rules", "max_turns", "mode", "scoring",
        "target", "max_rounds", "behaviour",
    }  # fmt: skip
    assert rules["special"] == "dont_talk" and rules["special_points"] == 50
    assert rules["first_flip"] == "redraw" and rules["house_rules"]["stacking"] == {
        "draw_two_on_draw_two": False,
        "wd4_on_wd4": False,
        "wd4_on_draw_two": False,
        "draw_two_on_wd4": False,
    }


def test_strategic_seats() -> None:
    cfg = load_config(CONFIGS_DIR / "classic.yaml", ["policy=strategic"])
    cc = compile_config(cfg)
    assert (cc.pp[:, L.P_KIND] == L.POLICY_CODE["strategic"]).all()
    assert (cc.pp[:, L.P_CHALLENGE] == 0.25).all()


def test_config_hash_stable_and_sensitive(tmp_path: Path) -> None:
    a = load_config(CONFIGS_DIR / "classic.yaml")
    b = load_config(CONFIGS_DIR / "classic.yaml")
    assert config_hash(a) == config_hash(b)
    assert len(config_hash(a)) == 64
    assert config_hash(
        load_config(CONFIGS_DIR / "classic.yaml", ["seed=2"])
    ) != config_hash(a)
    # An edition file with the same content hashes the same, wherever it lives;
    # an edited one does not.
    same = write(tmp_path / "classic.yaml", CLASSIC_EDITION)
    assert config_hash(
        validate_config({"name": "classic", "edition": str(same)})
    ) == config_hash(a)
    edited = write(
        tmp_path / "e2.yaml",
        CLASSIC_EDITION.replace("uno_penalty: 2", "uno_penalty: 3"),
    )
    assert config_hash(
        validate_config({"name": "classic", "edition": str(edited)})
    ) != config_hash(a)


# --- extends and --set --------------------------------------------------------
def test_extends_chain_and_name(tmp_path: Path) -> None:
    cfg = load_config(CONFIGS_DIR / "two_player_reverse.yaml")
    assert cfg.players == 2 and cfg.house_rules.two_player_reverse is True
    assert cfg.name == "two_player_reverse" and cfg.games == 10000
    # A bare name resolves next to the file, then in the package configs/.
    child = write(tmp_path / "child.yaml", "extends: stacking.yaml\nplayers: 5\n")
    cfg = load_config(child)
    assert cfg.players == 5 and cfg.name == "child"
    assert cfg.house_rules.stacking.draw_two_on_draw_two is True
    assert cfg.house_rules.jump_in is False
    write(
        tmp_path / "stacking.yaml",
        "extends: classic.yaml\nhouse_rules: {jump_in: true}\n",
    )
    cfg = load_config(child)
    assert cfg.house_rules.jump_in is True
    assert cfg.house_rules.stacking.draw_two_on_draw_two is False


def test_deep_merge_keeps_sibling_keys(tmp_path: Path) -> None:
    base = write(
        tmp_path / "base.yaml",
        "house_rules:\n  stacking: {wd4_on_wd4: true}\n  seven_o: true\n",
    )
    child = write(
        tmp_path / "child.yaml",
        f"extends: {base.name}\nhouse_rules:\n  stacking: {{draw_two_on_draw_two: true}}\n",
    )
    hr = load_config(child).house_rules
    assert hr.seven_o and hr.stacking.wd4_on_wd4 and hr.stacking.draw_two_on_draw_two


def test_set_overrides() -> None:
    cfg = load_config(
        CONFIGS_DIR / "classic.yaml",
        [
            "players=6",
            "house_rules.jump_in=true",
            "seats=[strategic,random,random,random,random,random]",
        ],
    )
    assert cfg.players == 6 and cfg.house_rules.jump_in is True
    assert cfg.seat_policies == ["strategic"] + ["random"] * 5
    cfg = load_config(
        CONFIGS_DIR / "classic.yaml", ["seats=[strategic,random,random,random]"]
    )
    assert cfg.seat_policies == ["strategic", "random", "random", "random"]
    cfg = load_config(
        CONFIGS_DIR / "classic.yaml", ["house_rules.stacking={wd4_on_wd4: true}"]
    )
    assert (
        cfg.house_rules.stacking.wd4_on_wd4
        and not cfg.house_rules.stacking.draw_two_on_draw_two
    )
    cfg = load_config(CONFIGS_DIR / "classic.yaml", ["edition=disney100", "name=x"])
    assert cfg.edition == "disney100" and cfg.name == "x"


def test_load_config_bare_name() -> None:
    assert load_config("stacking").name == "stacking"
    assert load_config("stacking.yaml").house_rules.stacking.draw_two_on_draw_two


# --- errors -------------------------------------------------------------------
def test_unknown_key(tmp_path: Path) -> None:
    path = write(tmp_path / "x.yaml", "house_rules:\n  jump_inn: true\n")
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    msg = one_line_error(exc, "x.yaml", "house_rules.jump_inn")
    assert "unknown key" in msg and "jump_in" in msg


def test_unknown_top_level_key(tmp_path: Path) -> None:
    path = write(tmp_path / "x.yaml", "playerz: 4\n")
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    assert "players" in one_line_error(exc, "x.yaml", "playerz")


def test_wrong_type(tmp_path: Path) -> None:
    path = write(tmp_path / "x.yaml", "house_rules:\n  seven_o: yes please\n")
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    msg = one_line_error(exc, "x.yaml", "house_rules.seven_o")
    assert msg.endswith(
        "house_rules.seven_o: expected a boolean (true/false), got 'yes please'"
    )
    path = write(tmp_path / "x.yaml", "house_rules:\n  jump_in: yes please\n")
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    msg = one_line_error(exc, "x.yaml", "house_rules.jump_in")
    assert msg.endswith(  # true, false or the same_number ruling (docs/rules.md §12)
        "house_rules.jump_in: expected true, false or same_number, got 'yes please'"
    )


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("players: '4'\n", "players"),
        ("players: 4.0\n", "players"),
        ("players: true\n", "players"),
        ("mode: tournament\n", "mode"),
        ("seats: [random, smart, random, random]\n", "seats[1]"),
        ("behaviour: {uno_catch_rate: 1.5}\n", "behaviour.uno_catch_rate"),
        ("behaviour: {uno_forget_rate: high}\n", "behaviour.uno_forget_rate"),
        ("decks: 5\nplayers: 4\n", "decks"),
        ("players: 1\n", "players"),
        ("hand_size: 0\n", "hand_size"),
        ("max_turns: 0\n", "max_turns"),
        ("seats: [random, random]\n", "seats"),
        ("scoring: partners\nplayers: 5\nmode: match\n", "scoring"),
        ("mode: match\ntarget: 0\n", "target"),
        ("edition: nope\n", "edition"),
        ("edition: 3\n", "edition"),
        ("extends: missing.yaml\n", "extends"),
    ],
)
def test_invalid_values(tmp_path: Path, text: str, key: str) -> None:
    path = write(tmp_path / "x.yaml", text)
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    one_line_error(exc, "x.yaml", key)


def test_too_many_players_for_one_deck(tmp_path: Path) -> None:
    path = write(tmp_path / "x.yaml", "players: 11\ndecks: 1\n")
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    assert "decks" in one_line_error(exc, "x.yaml", "players")
    path = write(tmp_path / "ok.yaml", "players: 11\ndecks: 2\n")
    assert load_config(path).players == 11


def test_impossible_deal(tmp_path: Path) -> None:
    path = write(tmp_path / "x.yaml", "players: 10\nhand_size: 20\n")
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    msg = one_line_error(exc, "x.yaml", "hand_size")
    assert "impossible deal" in msg and "players" in msg and "decks" in msg
    # The fine print: exactly 4 x decks + 1 cards must remain (108 - 103 = 5).
    edge = write(tmp_path / "edge.yaml", "players: 2\nhand_size: 51\n")  # 108 - 102 = 6
    assert load_config(edge).hand_size == 51
    edge.write_text("players: 2\nhand_size: 52\n")  # 108 - 104 = 4 < 5
    with pytest.raises(ConfigError):
        load_config(edge)


def test_bad_override() -> None:
    path = CONFIGS_DIR / "classic.yaml"
    with pytest.raises(ConfigError) as exc:
        load_config(path, ["house_rules.jump=true"])
    msg = one_line_error(exc, "classic.yaml", "house_rules.jump")
    assert "--set house_rules.jump=true" in msg and "unknown key" in msg
    with pytest.raises(ConfigError) as exc:
        load_config(path, ["players=11"])
    assert "--set players=11" in one_line_error(exc, "classic.yaml", "players")
    with pytest.raises(ConfigError) as exc:
        load_config(path, ["house_rules.jump_in=yes please"])
    one_line_error(exc, "classic.yaml", "house_rules.jump_in")
    with pytest.raises(ConfigError, match="KEY.PATH=VALUE"):
        load_config(path, ["players"])
    with pytest.raises(ConfigError, match="unknown key"):
        load_config(path, ["extends=stacking.yaml"])


def test_error_blames_the_file_that_set_the_key(tmp_path: Path) -> None:
    write(tmp_path / "base.yaml", "seven_o: true\n")  # misplaced key, in the parent
    child = write(tmp_path / "child.yaml", "extends: base.yaml\nplayers: 3\n")
    with pytest.raises(ConfigError) as exc:
        load_config(child)
    one_line_error(exc, "base.yaml", "seven_o")


def test_malformed_yaml(tmp_path: Path) -> None:
    path = write(tmp_path / "x.yaml", "players: 4\nhouse_rules:\n  jump_in: [true\n")
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    msg = str(exc.value)
    assert "\n" not in msg and "x.yaml" in msg and "malformed YAML" in msg
    assert "line 4" in msg or "line 3" in msg


def test_top_level_must_be_mapping(tmp_path: Path) -> None:
    path = write(tmp_path / "x.yaml", "- players\n")
    with pytest.raises(ConfigError, match="x.yaml"):
        load_config(path)


def test_extends_cycle(tmp_path: Path) -> None:
    write(tmp_path / "a.yaml", "extends: b.yaml\n")
    write(tmp_path / "b.yaml", "extends: a.yaml\n")
    with pytest.raises(ConfigError) as exc:
        load_config(tmp_path / "a.yaml")
    assert "cycle" in one_line_error(exc, "a.yaml", "extends")
    write(tmp_path / "self.yaml", "extends: self.yaml\n")
    with pytest.raises(ConfigError, match="cycle"):
        load_config(tmp_path / "self.yaml")


def test_missing_config_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "nope.yaml")


# --- bad edition files ----------------------------------------------------------
def _edition_error(tmp_path: Path, text: str, key: str) -> str:
    ed = write(tmp_path / "bad_edition.yaml", text)
    with pytest.raises(ConfigError) as exc:
        load_edition(ed)
    msg = one_line_error(exc, "bad_edition.yaml", key)
    # The same error surfaces when a config names the edition by path.
    cfg = write(tmp_path / "cfg.yaml", "edition: bad_edition.yaml\n")
    with pytest.raises(ConfigError) as exc2:
        load_config(cfg)
    assert str(exc2.value) == msg
    return msg


def test_edition_unknown_rank(tmp_path: Path) -> None:
    text = CLASSIC_EDITION.replace('"9": 2}', '"9": 2, "10": 2}')
    assert "unknown number rank" in _edition_error(tmp_path, text, "deck.numbers.10")
    text = CLASSIC_EDITION.replace('"D2": 2}', '"D4": 2}')
    _edition_error(tmp_path, text, "deck.actions.D4")


def test_edition_negative_count(tmp_path: Path) -> None:
    text = CLASSIC_EDITION.replace('"3": 2', '"3": -1')
    assert "-1" in _edition_error(tmp_path, text, "deck.numbers.3")
    text = CLASSIC_EDITION.replace("wild: 4", "wild: 2.5")
    _edition_error(tmp_path, text, "deck.wild")


def test_edition_missing_special_rate(tmp_path: Path) -> None:
    special = MOVIE_SPECIAL.replace("  fail_rate: 0.5\n", "")
    text = CLASSIC_EDITION.replace("special: null", special)
    assert "movie_madness" in _edition_error(tmp_path, text, "special.fail_rate")
    wish = special.replace("movie_madness", "wishing_star")
    _edition_error(
        tmp_path, CLASSIC_EDITION.replace("special: null", wish), "special.wish_icons"
    )
    wrong = MOVIE_SPECIAL + "  slip_rate: 0.1\n"
    _edition_error(
        tmp_path, CLASSIC_EDITION.replace("special: null", wrong), "special.slip_rate"
    )


def test_edition_other_errors(tmp_path: Path) -> None:
    bad_icon = MOVIE_SPECIAL.replace("movie_madness", "wishing_star").replace(
        "fail_rate: 0.5", "wish_icons: [R0, Z9]"
    )
    _edition_error(
        tmp_path,
        CLASSIC_EDITION.replace("special: null", bad_icon),
        "special.wish_icons[1]",
    )
    _edition_error(tmp_path, CLASSIC_EDITION + "extra: 1\n", "extra")
    _edition_error(
        tmp_path,
        CLASSIC_EDITION.replace("first_flip: apply", "first_flip: maybe"),
        "first_flip",
    )
    no_bool = CLASSIC_EDITION.replace("wd4_wilds_block: false", "wd4_wilds_block: 0")
    _edition_error(tmp_path, no_bool, "wd4_wilds_block")
    _edition_error(
        tmp_path,
        CLASSIC_EDITION.replace("[red, yellow, green, blue]", "[red, yellow, green]"),
        "colors",
    )


def test_game_config_direct_validation_raises_config_error() -> None:
    with pytest.raises(ConfigError) as exc:
        validate_config({"players": 11}, source="inline")
    assert str(exc.value).startswith("inline: players: ")
    assert GameConfig().players == 4


# --- settings in words (unosim.rules.settings) ------------------------------------
def json_keys(data: dict[str, object], prefix: str = "") -> list[str]:
    out: list[str] = []
    for key, value in data.items():
        out += json_keys(value, f"{prefix}{key}.") if isinstance(value, dict) else [prefix + key]
    return out


def test_every_setting_is_declared_with_a_label() -> None:
    keys = [s.key for s in settings()]
    changed = {"draw_then_play": "any", "forced_play": True, "wd4_unrestricted": True,
               "challenge": False, "deflect": True, "no_action_finish": True,
               "multiple_play": True, "seven_o_swap": "next", "seven_o_pass": "left",
               "last_card_draws": False}
    assert set(changed) == set(RULINGS)
    ruled = GameConfig(house_rules=HouseRules.model_validate(changed))
    assert keys == json_keys(config_to_dict(ruled))  # every key a config holds
    # a ruling at its printed default is left out of the dump (and the hash)
    printed = [k for k in keys if k.rsplit(".", 1)[-1] not in RULINGS]
    assert printed == json_keys(config_to_dict(GameConfig()))
    assert config_hash(GameConfig()) == config_hash(
        GameConfig(house_rules=HouseRules(challenge=True, draw_then_play="drawn")))
    for key in keys:
        assert "_" not in setting_label(key), key  # a title, not the field name
    for key in ("house_rules", "house_rules.stacking", "behaviour"):
        assert setting_label(key)
    with pytest.raises(KeyError, match="unknown setting"):
        setting_label("house_rules.jump")
    assert list(house_rule_switches()) == [k for k in keys if k.startswith("house_rules.")]


def test_every_listed_setting_can_be_set() -> None:
    """The help's keys are the ones ``--set`` accepts; its limits are the validated ones."""
    for s in settings():
        with pytest.raises(ConfigError) as exc:
            load_config("classic", [f"{s.key}={{bad: value}}"])
        assert f"{s.key}: " in str(exc.value) and "unknown key" not in str(exc.value)
    assert {s.key: s.values for s in settings()}["decks"] == f"1..{MAX_DECKS}"


def test_rules_on_and_describe_rules() -> None:
    assert rules_on(load_edition("classic_1992")) == ["two-player Reverse as Skip"]
    assert rules_on(load_config("classic_1992")) == []  # four players: the switch cannot act
    assert rules_on(load_config("two_player_reverse")) == ["two-player Reverse as Skip"]
    assert describe_rules(load_config("classic")).endswith("; house rules: none")
    assert describe_rules(load_config("encanto")).startswith(
        "UNO: Encanto (special wild: Wild Don't Talk); ")
    assert stacking_phrase({}) == "no stacking"
    assert stacking_phrase(dict.fromkeys(Stacking.model_fields, True), short=True) == \
        "full stacking"


def test_describe_difference() -> None:
    base = load_config("classic")
    assert describe_difference(base, load_config("classic", ["seed=9", "name=x"])) == []
    assert describe_difference(base, load_config("party_8p_2decks")) == ["8 players", "2 decks"]
    assert describe_difference(load_config("party_8p_2decks"), base) == ["4 players", "1 deck"]
    assert describe_difference(base, load_config("match")) == ["matches to a target"]
    assert describe_difference(base, load_config("chaos"))[:2] == ["full stacking", "jump-in"]
    assert describe_difference(base, load_config("classic_1992")) == \
        ["UNO (older Mattel sheet 42885) edition"]  # its two-player rule cannot act at 4
    changed = load_config("jump_in", ["behaviour.uno_forget_rate=0.2", "max_turns=50",
                                      "seats=[strategic, random, random, random]"])
    assert describe_difference(base, changed) == [
        "jump-in", "at most 50 turns per round", "seats strategic, random, random, random",
        "UNO forget rate 0.2"]
    assert setting_phrase("seats", None) == "one policy for all seats"
    assert setting_phrase("mode", "round") == "single rounds"


def test_wish_icons_may_name_an_editions_new_kind(tmp_path: Path) -> None:
    """A Wishing Star edition can put the icon on a card kind of its own (a colored
    ``SE``): icon tokens are spelled like cards and checked against the edition's own
    kinds, not the classic layout's."""
    text = edition_path("disney_wish").read_text()
    text = text.replace(
        "  - {token: WX,",
        "  - {token: SE, name: Skip Everyone, count: 1, points: 20, effects: [match, skip_all]}\n"
        "  - {token: WX,", 1).replace("wish_icons: [R1, Y1, G1, B1]", "wish_icons: [RSE, b1]")
    ed = load_edition(write(tmp_path / "wish_se.yaml", text))
    assert ed.special is not None and ed.special.wish_icons == ["RSE", "B1"]
    cc = compile_config(load_config(write(tmp_path / "cfg.yaml", "edition: wish_se.yaml\n")))
    assert int(cc.wish_icons.sum()) == 2
    _edition_error(tmp_path, text.replace("[RSE, b1]", "[GSE, R-1]"), "cards[16].wish_icons[1]")
    _edition_error(tmp_path, text.replace("[RSE, b1]", "[RD9]"), "special.wish_icons[0]")
