"""Edition files: what is in the box, and the rules that come with it.

An edition (``configs/editions/NAME.yaml``, shipped as package data) fixes the
deck, the special wild and the rules on which the printed sheets disagree
(docs/rules.md §1, §2, §4). Game configs pick an edition by name or path and
may override its house-rule and behaviour defaults.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Literal

import numpy as np
from pydantic import Field, PrivateAttr, ValidationError, field_validator, model_validator

from unosim.rules.cards import (
    NK,
    NRANKS,
    RANK_TOKENS,
    WD4,
    WX,
    CardError,
    W,
    default_points,
    kind,
    token,
)
from unosim.rules.errors import ConfigError, KeyedValueError, clip, error_from_validation, quoted
from unosim.rules.models import Count, EditionBehaviour, HouseRules, Rate, StrictModel
from unosim.rules.yamlio import EDITIONS_DIR, is_bare, list_shipped, read_yaml, shipped_file

__all__ = [
    "Deck",
    "Edition",
    "Special",
    "deck_counts",
    "edition_path",
    "is_edition_path",
    "list_editions",
    "load_edition",
    "points_by_kind",
    "wish_icon_mask",
]

NUMBER_RANKS = RANK_TOKENS[:10]
ACTION_RANKS = RANK_TOKENS[10:]
# The rate each special kind needs, so an edition cannot silently lack one.
SPECIAL_RATE = {
    "movie_madness": "fail_rate",
    "wishing_star": "wish_icons",
    "dont_talk": "slip_rate",
}


# --- edition models -----------------------------------------------------------
def _str_keys(value: object) -> object:
    """YAML reads ``0: 1`` with an int key; rank names are strings."""
    if isinstance(value, dict):
        return {
            str(k) if isinstance(k, int) and not isinstance(k, bool) else k: v
            for k, v in value.items()
        }
    return value


class Deck(StrictModel):
    """Copies per color of each colored rank, and copies of each plain wild, in one deck."""

    numbers: dict[str, Count]
    actions: dict[str, Count]
    wild: Count
    wild_draw_four: Count

    @field_validator("numbers", "actions", mode="before")
    @classmethod
    def _keys_as_str(cls, value: object) -> object:
        return _str_keys(value)

    @field_validator("numbers")
    @classmethod
    def _known_numbers(cls, value: dict[str, int]) -> dict[str, int]:
        for rank in value:
            if rank not in NUMBER_RANKS:
                raise KeyedValueError(
                    rank, f"unknown number rank {quoted(rank)} (expected 0-9)"
                )
        return value

    @field_validator("actions")
    @classmethod
    def _known_actions(cls, value: dict[str, int]) -> dict[str, int]:
        for rank in value:
            if rank not in ACTION_RANKS:
                raise KeyedValueError(
                    rank,
                    f"unknown action rank {quoted(rank)} (expected one of {', '.join(ACTION_RANKS)})",
                )
        return value


class Special(StrictModel):
    """The edition's special wild (token ``WX``) and the one rate its effect needs."""

    kind: Literal["movie_madness", "wishing_star", "dont_talk"]
    name: str
    count: Count
    points: Count = 50
    fail_rate: Rate | None = None
    slip_rate: Rate | None = None
    wish_icons: list[str] | None = None

    @field_validator("wish_icons")
    @classmethod
    def _known_tokens(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        if not value:
            raise ValueError("must list at least one card token")
        tokens = []
        for i, tok in enumerate(value):
            try:
                tokens.append(token(kind(tok)))
            except CardError:
                raise KeyedValueError(i, f"unknown card token {quoted(tok)}") from None
        return tokens

    @model_validator(mode="after")
    def _rates_match_kind(self) -> Special:
        needed = SPECIAL_RATE[self.kind]
        for special_kind, field in SPECIAL_RATE.items():
            given = getattr(self, field) is not None
            if field == needed and not given:
                raise KeyedValueError(field, f"required for special kind {self.kind!r}")
            if field != needed and given:
                raise KeyedValueError(
                    field,
                    f"only used by special kind {special_kind!r}, not {self.kind!r}",
                )
        return self


class Edition(StrictModel):
    """One box of UNO: deck, special wild, and the rules its sheet prints."""

    name: str
    title: str
    description: str = ""
    colors: Annotated[list[str], Field(min_length=4, max_length=4)]
    deck: Deck
    special: Special | None = None
    first_flip: Literal["apply", "redraw"]
    wd4_wilds_block: bool
    uno_penalty: Count
    behaviour: EditionBehaviour = EditionBehaviour()
    house_rules: HouseRules = HouseRules()

    _source: str | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _sane(self) -> Edition:
        if len({c.strip().lower() for c in self.colors}) != 4:
            raise KeyedValueError(
                "colors", f"the four color labels must differ, got {quoted(self.colors)}"
            )
        if self.special and self.special.wish_icons:
            counts = deck_counts(self)
            if not any(counts[kind(t)] for t in self.special.wish_icons):
                raise KeyedValueError(
                    ("special", "wish_icons"), "no card in the deck bears the icon"
                )
        if deck_counts(self).sum() == 0:
            raise KeyedValueError("deck", "the deck has no cards")
        return self

    @property
    def source(self) -> str | None:
        """The file this edition was read from (None when built in code)."""
        return self._source

    @property
    def special_kind(self) -> str:
        """``none`` or the special wild's kind, as written in resolved rules."""
        return self.special.kind if self.special else "none"


# --- loading ------------------------------------------------------------------
def list_editions() -> list[str]:
    """Names of the shipped editions (``configs/editions/*.yaml``)."""
    return list_shipped(EDITIONS_DIR)


def is_edition_path(text: str) -> bool:
    """Whether an ``edition:`` value is a file path rather than a shipped name.

    >>> is_edition_path("classic"), is_edition_path("mine.yaml")
    (False, True)
    """
    return not is_bare(text) or text.endswith((".yaml", ".yml"))


def edition_path(name_or_path: str | os.PathLike[str], base_dir: Path | None = None) -> Path:
    """Where an edition lives: a shipped name, or a file path (relative to ``base_dir``)."""
    text = os.fspath(name_or_path)
    if not is_edition_path(text):
        path = shipped_file(text, EDITIONS_DIR)
        if path is not None:
            return path
        raise ConfigError(
            None,
            "edition",
            f"unknown edition {quoted(text)} (shipped: {', '.join(list_editions())}; or give a path)",
        )
    path = Path(os.path.expanduser(text))  # see config.resolve_config_path
    if not path.is_absolute() and base_dir is not None and os.path.isfile(base_dir / path):
        path = base_dir / path
    if not os.path.isfile(path):
        raise ConfigError(None, "edition", f"edition file not found: {clip(text)}")
    return path


def load_edition(
    name_or_path: str | os.PathLike[str], base_dir: Path | None = None
) -> Edition:
    """Read and validate an edition; errors name the edition file and key."""
    path = edition_path(name_or_path, base_dir)
    data = read_yaml(path)
    try:
        edition = Edition.model_validate(data)
    except ValidationError as exc:
        raise error_from_validation(exc, Edition, path) from None
    edition._source = str(path)
    return edition


def deck_counts(edition: Edition) -> np.ndarray:
    """Copies of each card kind in one deck (int64[NK])."""
    counts = np.zeros(NK, dtype=np.int64)
    for color in range(4):
        for rank, n in edition.deck.numbers.items():
            counts[color * NRANKS + NUMBER_RANKS.index(rank)] = n
        for rank, n in edition.deck.actions.items():
            counts[color * NRANKS + 10 + ACTION_RANKS.index(rank)] = n
    counts[W] = edition.deck.wild
    counts[WD4] = edition.deck.wild_draw_four
    counts[WX] = edition.special.count if edition.special else 0
    return counts


def points_by_kind(edition: Edition) -> np.ndarray:
    """Points of each card kind left in hand (int64[NK]); 0 for ``WX`` without a special."""
    special_points = edition.special.points if edition.special else 0
    return np.array(
        [default_points(k, special_points) for k in range(NK)], dtype=np.int64
    )


def wish_icon_mask(edition: Edition) -> np.ndarray:
    """1 for each kind bearing the Wishing Icon (int64[NK]); all 0 for other editions."""
    mask = np.zeros(NK, dtype=np.int64)
    if edition.special and edition.special.wish_icons:
        for tok in edition.special.wish_icons:
            mask[kind(tok)] = 1
    return mask
