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
    CLASSIC,
    COLORS,
    RANK_TOKENS,
    KindTable,
    default_points,
    is_wild_token,
    token_error,
)
from unosim.rules.effects import (
    ALONE_EFFECTS,
    KERNEL_EFFECTS,
    SPECIAL_EFFECTS,
    SPECIAL_RATE,
    effect_row,
    effect_table,
    parse_effect,
)
from unosim.rules.errors import ConfigError, KeyedValueError, clip, error_from_validation, quoted
from unosim.rules.limits import MAX_KINDS
from unosim.rules.models import Count, EditionBehaviour, HouseRules, Rate, StrictModel
from unosim.rules.yamlio import EDITIONS_DIR, is_bare, list_shipped, read_yaml, shipped_file

__all__ = [
    "CardKind",
    "Deck",
    "Edition",
    "Special",
    "card_kinds",
    "deck_counts",
    "effects_by_kind",
    "edition_path",
    "is_edition_path",
    "kind_table",
    "list_editions",
    "load_edition",
    "points_by_kind",
    "wish_icon_mask",
]

NUMBER_RANKS = RANK_TOKENS[:10]
ACTION_RANKS = RANK_TOKENS[10:]


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
        return _icon_tokens(value)

    @model_validator(mode="after")
    def _rates_match_kind(self) -> Special:
        _rates_match(self, self.kind, "special kind")
        return self


def _icon_tokens(value: list[str] | None) -> list[str] | None:
    """Wishing Icon tokens, each a card of the engine (normalised)."""
    if value is None:
        return None
    if not value:
        raise ValueError("must list at least one card token")
    tokens = []
    for i, tok in enumerate(value):
        # the spelling of a card (``R7``, ``RSE``, ``WD10``); whether the edition has
        # it is checked with its cards (`Edition._sane`)
        t = str(tok).strip().upper()
        body = t if is_wild_token(t) else t[1:]
        if (not is_wild_token(t) and t[:1] not in COLORS) or not body or token_error(body):
            raise KeyedValueError(i, f"unknown card token {quoted(tok)}")
        tokens.append(t)
    return tokens


def _rates_match(model: Special | CardKind, special: str | None, what: str) -> None:
    """The special effect's one rate is given, and no other special's."""
    needed = SPECIAL_RATE.get(special or "")
    for special_kind, field in SPECIAL_RATE.items():
        given = getattr(model, field) is not None
        if field == needed and not given:
            raise KeyedValueError(field, f"required for {what} {special!r}")
        if field != needed and given:
            raise KeyedValueError(
                field, f"only used by special effect {special_kind!r}"
                + (f", not {special!r}" if special else ""))


# The effects each classic token has (a legacy ``deck:``/``special:`` edition).
NUMBER_EFFECTS = ["match"]
STANDARD_EFFECTS = {"S": ["match", "skip"], "R": ["match", "reverse"],
                    "D2": ["match", "draw 2"], "W": ["match"], "WD4": ["match", "draw 4"]}
WILD_DRAW_CONDITION: Literal["only_without_color"] = "only_without_color"


class CardKind(StrictModel):
    """One kind of card in an edition's deck (docs/rules.md §11, docs/editions.md).

    A colored token (0-9, S, R, D2, or any short new one such as SE) stands for
    ``count`` copies in each of the four colors; a wild token (W, WD4, WX, or
    any starting with W such as WD10) for ``count`` black cards."""

    token: str
    name: str | None = None
    count: Count
    points: Count | None = None
    effects: list[str] = Field(default_factory=lambda: ["match"])
    condition: Literal["only_without_color"] | None = None
    challengeable: bool = False
    stacking: Count | None = None
    fail_rate: Rate | None = None
    slip_rate: Rate | None = None
    wish_icons: list[str] | None = None
    # UNO Flip (docs/rules.md section 11): the face's side, and who names the color a
    # draw_until_color waits for (absent: light; the player it hits)
    side: Literal["light", "dark"] | None = None
    names_color: Literal["player", "next"] | None = None

    @field_validator("token", mode="before")
    @classmethod
    def _token_text(cls, value: object) -> object:
        # YAML reads ``token: 7`` as an int; card tokens are strings
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @field_validator("token")
    @classmethod
    def _known_token(cls, value: str) -> str:
        error = token_error(value)
        if error is not None:
            raise ValueError(error)
        return value

    @field_validator("effects")
    @classmethod
    def _known_effects(cls, value: list[str]) -> list[str]:
        seen: set[str] = set()
        for i, text in enumerate(value):
            try:
                name, _ = parse_effect(text)
            except ValueError as exc:
                raise KeyedValueError(i, str(exc)) from None
            if name in seen:
                raise KeyedValueError(i, f"effect {name!r} is listed twice")
            if name not in KERNEL_EFFECTS:
                raise KeyedValueError(
                    i, f"effect {name!r} is in the vocabulary but this engine does not run it yet")
            seen.add(name)
        if "match" not in seen:
            raise ValueError("every card kind matches: list 'match' among its effects")
        return value

    @field_validator("wish_icons")
    @classmethod
    def _known_tokens(cls, value: list[str] | None) -> list[str] | None:
        return _icon_tokens(value)

    @model_validator(mode="after")
    def _consistent(self) -> CardKind:
        wild = self.wild
        specials = [n for n, _ in self.parsed if n in SPECIAL_EFFECTS]
        if len(specials) > 1:
            raise KeyedValueError("effects", "a card kind has at most one special effect")
        if specials and self.token != "WX":
            raise KeyedValueError(
                "effects", f"special effect {specials[0]!r} goes on the WX kind only")
        _rates_match(self, specials[0] if specials else None, "special effect")
        if self.condition is not None and not wild:
            raise KeyedValueError("condition", "only a wild kind can have a legality condition")
        if self.challengeable and self.condition is None:
            raise KeyedValueError("challengeable", "needs a legality condition to challenge")
        if self.stacking is not None and self.draw == 0:
            raise KeyedValueError("stacking", "only a card with a draw effect has a stacking value")
        names = [n for n, _ in self.parsed]
        alone = [n for n in names if n in ALONE_EFFECTS]
        acting = [n for n in names if n not in ("match", "discard_color", *SPECIAL_EFFECTS)]
        if alone and len(acting) > 1:
            raise KeyedValueError("effects", f"{alone[0]!r} combines with no other effect "
                                  f"acting on a player (here {', '.join(acting)})")
        if "discard_color" in names and wild:
            raise KeyedValueError("effects", "discard_color needs a colored kind (a wild has "
                                  "no color to discard)")
        if self.names_color is not None and "draw_until_color" not in names:
            raise KeyedValueError("names_color", "only for a card with draw_until_color")
        if self.points is None and self.token not in NUMBER_RANKS:
            raise KeyedValueError("points", f"required for {self.token!r} (numbers default to face value)")
        return self

    @property
    def wild(self) -> bool:
        """A black card: it matches anything and its player names a color."""
        return is_wild_token(self.token)

    @property
    def dark(self) -> bool:
        """A face of a two-sided (Flip) deck's dark side."""
        return self.side == "dark"

    @property
    def parsed(self) -> list[tuple[str, int]]:
        """The effects as ``(name, amount)``."""
        return [parse_effect(e) for e in self.effects]

    @property
    def draw(self) -> int:
        """Cards its ``draw N`` effect makes the next player take (0: none)."""
        return next((n for name, n in self.parsed if name == "draw"), 0)

    @property
    def special(self) -> str | None:
        """Its special effect (a seed edition's special wild), if any."""
        return next((n for n, _ in self.parsed if n in SPECIAL_EFFECTS), None)

    @property
    def card_points(self) -> int:
        """Points left in hand: as written, numbers at face value by default."""
        return self.points if self.points is not None else NUMBER_RANKS.index(self.token)

    def effect_row(self) -> np.ndarray:
        """This kind's row of the kernel's effect table."""
        stack = self.stacking if self.stacking is not None else self.draw
        return effect_row(self.parsed, self.condition, self.challengeable, stack, self.wild,
                          self.names_color == "player")


class Edition(StrictModel):
    """One box of UNO: deck, special wild, and the rules its sheet prints."""

    name: str
    title: str
    description: str = ""
    colors: Annotated[list[str], Field(min_length=4, max_length=4)]
    # a two-sided (Flip) deck's dark side's four colors (docs/rules.md section 11)
    dark_colors: Annotated[list[str], Field(min_length=4, max_length=4)] | None = None
    # The deck: ``cards`` (card kinds with their effects, docs/editions.md), or the
    # older ``deck`` + ``special`` form, which reads as the same card kinds.
    cards: list[CardKind] | None = None
    deck: Deck | None = None
    special: Special | None = None
    first_flip: Literal["apply", "redraw"]
    wd4_wilds_block: bool
    uno_penalty: Count
    # docs/rules.md section 11's edition-wide settings (absent: the classic rules)
    stacking: Literal["value"] | None = None
    mercy_limit: Annotated[int, Field(ge=2)] | None = None
    challenge: bool = True
    seven_o: Literal["forced"] | None = None
    draw_until_play: bool = False
    behaviour: EditionBehaviour = EditionBehaviour()
    house_rules: HouseRules = HouseRules()

    _source: str | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _one_deck(self) -> Edition:
        if self.cards is None:
            if self.deck is None:
                raise KeyedValueError("cards", "an edition lists its card kinds")
            return self
        if self.deck is not None or self.special is not None:
            key = "deck" if self.deck is not None else "special"
            raise KeyedValueError(key, "give the deck either as cards or as deck/special, not both")
        seen: dict[tuple[str, bool], int] = {}
        wilds: dict[str, int] = {}
        for i, c in enumerate(self.cards):
            if (c.token, c.dark) in seen:
                raise KeyedValueError(("cards", i, "token"), f"{c.token!r} is listed twice "
                                      f"(also cards[{seen[c.token, c.dark]}])")
            if c.wild and c.token in wilds:  # a wild's token names it on either side
                raise KeyedValueError(("cards", i, "token"), f"{c.token!r} is listed twice "
                                      f"(also cards[{wilds[c.token]}]): wild tokens differ "
                                      "between the sides")
            seen[c.token, c.dark] = i
            if c.wild:
                wilds[c.token] = i
        self._two_sided()
        nk = kind_table(self).nk
        if nk > MAX_KINDS:
            raise KeyedValueError("cards", f"{nk} card kinds (a colored token counts once per "
                                           f"color); the engine holds at most {MAX_KINDS}")
        # the same edition in the older form, when it has one: what it is
        # hashed by (so runs made before cards existed are still found) and
        # what the rest of the package reads as its special wild
        legacy = _legacy_form(self.cards)
        if legacy is not None:
            object.__setattr__(self, "deck", legacy[0])
        object.__setattr__(self, "special", _special_of(self.cards))
        return self

    @model_validator(mode="after")
    def _sane(self) -> Edition:
        if len({c.strip().lower() for c in self.colors}) != 4:
            raise KeyedValueError(
                "colors", f"the four color labels must differ, got {quoted(self.colors)}"
            )
        if self.special and self.special.wish_icons:
            counts, kinds = deck_counts(self), kind_table(self)
            for i, t in enumerate(self.special.wish_icons):
                if t not in kinds.tokens:
                    raise KeyedValueError(("special", "wish_icons", i),
                                          f"no card {t!r} in this edition")
            if not any(counts[kinds.kind(t)] for t in self.special.wish_icons):
                raise KeyedValueError(
                    ("special", "wish_icons"), "no card in the deck bears the icon"
                )
        if deck_counts(self).sum() == 0:
            raise KeyedValueError("deck", "the deck has no cards")
        self._section_11_settings()
        return self

    def _two_sided(self) -> None:
        """A Flip deck: both sides listed with the same number of cards, the dark
        colors named, and none of what the engine does not run with two faces."""
        cards = self.cards or []
        dark = [c for c in cards if c.dark]
        flips = any(n == "flip" for c in cards for n, _ in c.parsed)
        if not dark and not flips:
            if self.dark_colors is not None:
                raise KeyedValueError("dark_colors", "only for a two-sided deck (cards with side: dark)")
            return
        if not dark:
            raise KeyedValueError("cards", "a card with the flip effect needs a two-sided deck "
                                  "(list the dark side's cards with side: dark)")
        if self.dark_colors is None:
            raise KeyedValueError("dark_colors", "a two-sided deck names its dark side's four colors")
        light_n = sum(c.count * (1 if c.wild else 4) for c in cards if not c.dark)
        dark_n = sum(c.count * (1 if c.wild else 4) for c in dark)
        if light_n != dark_n:
            raise KeyedValueError("cards", f"each card has two faces: the light side has "
                                  f"{light_n} cards, the dark side {dark_n}")
        for i, c in enumerate(cards):
            names = [n for n, _ in c.parsed]
            for bad in ("discard_color", *SPECIAL_EFFECTS):
                if bad in names:
                    raise KeyedValueError(("cards", i, "effects"), f"{bad!r} is not supported "
                                          "on a two-sided deck (docs/DECISIONS.md)")
        if self.mercy_limit is not None:
            raise KeyedValueError("mercy_limit", "not supported on a two-sided deck "
                                  "(docs/DECISIONS.md)")

    def _section_11_settings(self) -> None:
        """Contradictions among the edition-wide settings; forced Seven-O and
        draw-until-play become the edition's house-rule defaults (the kernel's
        one implementation of each)."""
        hr = self.house_rules
        if self.mercy_limit is not None and self.special is not None:
            raise KeyedValueError("mercy_limit", f"not supported with the special wild "
                                  f"{self.special.kind!r} (its draws come mid-turn)")
        if not self.challenge:
            for i, c in enumerate(card_kinds(self)):
                if c.challengeable:
                    raise KeyedValueError(("cards", i, "challengeable"),
                                          "the edition sets challenge: false")
        if self.stacking == "value" and any(hr.stacking.model_dump().values()):
            raise KeyedValueError(("house_rules", "stacking"),
                                  "the edition stacks by draw value (stacking: value)")
        if self.seven_o == "forced" and not hr.seven_o:
            if "seven_o" in hr.model_fields_set:
                raise KeyedValueError(("house_rules", "seven_o"),
                                      "the edition sets seven_o: forced")
            object.__setattr__(self, "house_rules", hr.model_copy(update={"seven_o": True}))
        hr = self.house_rules
        if self.draw_until_play and not hr.draw_until_play:
            if "draw_until_play" in hr.model_fields_set:
                raise KeyedValueError(("house_rules", "draw_until_play"),
                                      "the edition sets draw_until_play: true")
            object.__setattr__(self, "house_rules",
                               hr.model_copy(update={"draw_until_play": True}))

    def identity(self) -> dict[str, object]:
        """What a config hash reads of this edition: its content, in the older
        deck/special form when it has one (the same hash as before cards)."""
        dump = self.model_dump(mode="json")
        if self.deck is not None:
            dump.pop("cards")
        for key in (*SECTION_11_SETTINGS, "dark_colors"):  # at their defaults: the hash they always had
            if dump[key] == type(self).model_fields[key].default:
                dump.pop(key)
        for card in dump.get("cards") or ():
            for key in FLIP_CARD_KEYS:
                if card.get(key) is None:
                    card.pop(key, None)
        return dump

    @property
    def source(self) -> str | None:
        """The file this edition was read from (None when built in code)."""
        return self._source

    @property
    def special_kind(self) -> str:
        """``none`` or the special wild's kind, as written in resolved rules."""
        return self.special.kind if self.special else "none"


# The edition-wide settings of docs/rules.md section 11 beyond first_flip.
SECTION_11_SETTINGS = ("stacking", "mercy_limit", "challenge", "seven_o", "draw_until_play")
# A card kind's UNO Flip keys: hashed only when given (every other edition keeps its hash)
FLIP_CARD_KEYS = ("side", "names_color")


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


def _standard_kind(token_: str, count: int, special: Special | None = None) -> CardKind:
    """A classic token's card kind, as the older deck/special form meant it."""
    if special is not None:
        return CardKind(token="WX", name=special.name, count=count, points=special.points,
                        effects=["match", special.kind], fail_rate=special.fail_rate,
                        slip_rate=special.slip_rate, wish_icons=special.wish_icons)
    if token_ in NUMBER_RANKS:
        return CardKind(token=token_, count=count, effects=list(NUMBER_EFFECTS))
    wd4 = token_ == "WD4"
    points = default_points(CLASSIC.slots(token_)[0])
    return CardKind(token=token_, count=count, points=points,
                    effects=list(STANDARD_EFFECTS[token_]),
                    condition=WILD_DRAW_CONDITION if wd4 else None, challengeable=wd4)


def _legacy_cards(deck: Deck, special: Special | None) -> list[CardKind]:
    # in the classic order whatever the file's: the kinds keep their classic ids' order
    ranks = {**deck.numbers, **deck.actions}
    cards = [_standard_kind(rank, ranks[rank]) for rank in RANK_TOKENS if rank in ranks]
    cards += [_standard_kind("W", deck.wild), _standard_kind("WD4", deck.wild_draw_four)]
    if special is not None:
        cards.append(_standard_kind("WX", special.count, special))
    return cards


def _legacy_form(cards: list[CardKind]) -> tuple[Deck, Special | None] | None:
    """The deck/special form of these card kinds, if every kind is a classic
    one (or the WX special wild) with its classic effects and points."""
    special = _special_of(cards)
    by_token = {c.token: c for c in cards}
    if not set(by_token) <= set(CLASSIC.colored) | set(CLASSIC.wild):
        return None
    for c in cards:
        # what the kind does and scores (its display name is no part of it)
        std = _standard_kind(c.token, c.count, special if c.token == "WX" else None)
        if c.card_points != std.card_points or not np.array_equal(c.effect_row(),
                                                                   std.effect_row()):
            return None
    if "WX" in by_token and special is None:
        return None
    deck = Deck(numbers={t: c.count for t, c in by_token.items() if t in NUMBER_RANKS},
                actions={t: c.count for t, c in by_token.items() if t in ACTION_RANKS},
                wild=by_token["W"].count if "W" in by_token else 0,
                wild_draw_four=by_token["WD4"].count if "WD4" in by_token else 0)
    return deck, special


def _special_of(cards: list[CardKind]) -> Special | None:
    """The special wild among the card kinds, read as the older ``special:``."""
    for c in cards:
        if c.special is not None:
            return Special(kind=c.special, name=c.name or c.special, count=c.count,  # type: ignore[arg-type]
                           points=c.card_points, fail_rate=c.fail_rate, slip_rate=c.slip_rate,
                           wish_icons=c.wish_icons)
    return None


def card_kinds(edition: Edition) -> list[CardKind]:
    """The edition's card kinds, whichever form its file uses."""
    if edition.cards is not None:
        return edition.cards
    assert edition.deck is not None  # one of the two forms is validated present
    return _legacy_cards(edition.deck, edition.special)


def kind_table(edition: Edition) -> KindTable:
    """The edition's kinds, numbered from its card list (`unosim.rules.cards.KindTable`):
    colored tokens then wild tokens, each in list order.

    >>> kind_table(load_edition("classic")).tokens[50:]
    ('BR', 'BD2', 'W', 'WD4')
    """
    cards = card_kinds(edition)
    return KindTable(tuple(c.token for c in cards if not c.wild and not c.dark),
                     tuple(c.token for c in cards if c.wild and not c.dark),
                     tuple(c.token for c in cards if not c.wild and c.dark),
                     tuple(c.token for c in cards if c.wild and c.dark))


def deck_counts(edition: Edition) -> np.ndarray:
    """Copies of each card kind in one deck (int64[nk])."""
    kinds = kind_table(edition)
    counts = np.zeros(kinds.nk, dtype=np.int64)
    for c in card_kinds(edition):
        counts[kinds.slots(c.token, c.dark)] = c.count
    return counts


def points_by_kind(edition: Edition) -> np.ndarray:
    """Points of each card kind left in hand (int64[nk]), as the card kinds say."""
    kinds = kind_table(edition)
    points = np.zeros(kinds.nk, dtype=np.int64)
    for c in card_kinds(edition):
        points[kinds.slots(c.token, c.dark)] = c.card_points
    return points


def effects_by_kind(edition: Edition) -> np.ndarray:
    """The kernel's effect table (int64[nk, NFX], `unosim.rules.effects`)."""
    kinds = kind_table(edition)
    return effect_table(kinds.nk, {k: c.effect_row() for c in card_kinds(edition)
                                   for k in kinds.slots(c.token, c.dark)})


def wish_icon_mask(edition: Edition) -> np.ndarray:
    """1 for each kind bearing the Wishing Icon (int64[nk]); all 0 for other editions."""
    kinds = kind_table(edition)
    mask = np.zeros(kinds.nk, dtype=np.int64)
    if edition.special and edition.special.wish_icons:
        for tok in edition.special.wish_icons:
            mask[kinds.kind(tok)] = 1
    return mask
