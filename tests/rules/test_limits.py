"""Every limit of unosim.rules.limits, at its boundary: valid at the limit, one past it a
one-line ConfigError naming the key and the limit."""

from __future__ import annotations

from typing import Any

import pytest

from unosim.rules import limits as lim
from unosim.rules.config import ConfigError, GameConfig, validate_config
from unosim.rules.editions import deck_counts, list_editions, load_edition

# (key, value at the limit, value one past it, what the message must say)
BOUNDS = [
    ("players", lim.MIN_PLAYERS, lim.MIN_PLAYERS - 1, f">= {lim.MIN_PLAYERS}"),
    ("decks", 1, 0, ">= 1"),
    ("decks", lim.MAX_DECKS, lim.MAX_DECKS + 1, f"<= {lim.MAX_DECKS}"),
    ("hand_size", lim.MIN_HAND_SIZE, lim.MIN_HAND_SIZE - 1, f">= {lim.MIN_HAND_SIZE}"),
    ("max_turns", 1, 0, ">= 1"),
    ("max_turns", lim.MAX_TURNS, lim.MAX_TURNS + 1, f"<= {lim.MAX_TURNS}"),
    ("max_rounds", 1, 0, ">= 1"),
    ("max_rounds", lim.MAX_ROUNDS, lim.MAX_ROUNDS + 1, f"<= {lim.MAX_ROUNDS}"),
    ("target", 1, 0, ">= 1"),
    ("target", lim.MAX_TARGET, lim.MAX_TARGET + 1, f"<= {lim.MAX_TARGET}"),
    ("games", 1, 0, ">= 1"),
    ("games", lim.MAX_GAMES, lim.MAX_GAMES + 1, f"<= {lim.MAX_GAMES}"),
    ("seed", 0, -1, ">= 0"),
    ("seed", lim.MAX_SEED, lim.MAX_SEED + 1, f"<= {lim.MAX_SEED}"),
    ("behaviour.uno_forget_rate", 1.0, 1.5, "<= 1"),
    ("behaviour.uno_catch_rate", 0.0, -0.5, ">= 0"),
]


def nested(key: str, value: Any) -> dict[str, Any]:
    """``{"a": {"b": value}}`` for ``a.b``."""
    head, _, rest = key.partition(".")
    return {head: nested(rest, value) if rest else value}


def error(data: dict[str, Any], key: str) -> str:
    """The one-line message validating ``data`` fails with, which must name ``key``."""
    with pytest.raises(ConfigError) as exc:
        validate_config(data, source="inline")
    msg = str(exc.value)
    assert "\n" not in msg
    assert msg.startswith(f"inline: {key}: "), msg
    return msg


@pytest.mark.parametrize(("key", "ok", "bad", "words"), BOUNDS,
                         ids=[f"{b[0]}={b[2]}" for b in BOUNDS])
def test_limit_boundary(key: str, ok: Any, bad: Any, words: str) -> None:
    cfg = validate_config(nested(key, ok))
    value: Any = cfg
    for part in key.split("."):
        value = getattr(value, part)
    assert value == ok
    assert words in error(nested(key, bad), key)


@pytest.mark.parametrize("edition", list_editions())
def test_largest_table_is_valid_in_every_edition(edition: str) -> None:
    """The engine sizes its arrays for lim.MAX_PLAYERS seats and lim.MAX_DECKS decks."""
    cfg = validate_config({"edition": edition, "players": lim.MAX_PLAYERS, "decks": lim.MAX_DECKS})
    assert (cfg.players, cfg.decks) == (lim.MAX_PLAYERS, lim.MAX_DECKS)
    msg = error({"edition": edition, "players": lim.MAX_PLAYERS + 1, "decks": lim.MAX_DECKS}, "players")
    assert f"<= {lim.MAX_PLAYERS}" in msg


@pytest.mark.parametrize("decks", range(1, lim.MAX_DECKS))  # lim.MAX_DECKS: see above
def test_players_per_deck(decks: int) -> None:
    most = lim.PLAYERS_PER_DECK * decks
    assert validate_config({"players": most, "decks": decks, "hand_size": 1}).players == most
    msg = error({"players": most + 1, "decks": decks, "hand_size": 1}, "players")
    assert f"at most {lim.PLAYERS_PER_DECK} players per deck" in msg
    assert f"decks >= {decks + 1}" in msg


@pytest.mark.parametrize("decks", [1, lim.MAX_DECKS])
def test_deal_leaves_the_flip_reserve(decks: int) -> None:
    """The deal may take every card but lim.FLIP_RESERVE_PER_DECK x decks + 1."""
    cards = int(deck_counts(load_edition("classic")).sum()) * decks
    players = 2
    hand = (cards - lim.FLIP_RESERVE_PER_DECK * decks - 1) // players
    ok = validate_config({"players": players, "decks": decks, "hand_size": hand})
    assert cards - players * ok.hand_size >= lim.FLIP_RESERVE_PER_DECK * decks + 1
    msg = error({"players": players, "decks": decks, "hand_size": hand + 1}, "hand_size")
    assert "impossible deal" in msg and f"{lim.FLIP_RESERVE_PER_DECK} x decks + 1" in msg


def test_seats_must_match_players() -> None:
    seats = ["random", "strategic", "random"]
    assert validate_config({"players": 3, "seats": seats}).seat_policies == seats
    assert "lists 4 seats but players is 3" in error(
        {"players": 3, "seats": [*seats, "random"]}, "seats")


def test_partners_scoring_needs_four() -> None:
    assert validate_config({"players": 4, "scoring": "partners"}).scoring == "partners"
    error({"players": 5, "decks": 1, "scoring": "partners"}, "scoring")


def test_defaults_are_within_limits() -> None:
    assert validate_config({}) == GameConfig()
