"""Edition files: what is in the box, and the rules that come with it.

An edition (``configs/editions/NAME.yaml``) fixes the deck, the special wild
and the rules on which the printed sheets disagree (RULES.md sections 1, 2, 4).
Game configs pick an edition by name or path and may override its house-rule
and behaviour defaults.

This module is also the lower layer of config loading: ``ConfigError``, the
strict pydantic base model and the house-rules models live here so that
``unosim.rules.config`` can build on them without an import cycle.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

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

# Built-in configs and editions ship inside the package (package data).
CONFIGS_DIR = Path(__file__).resolve().parent / "configs"
EDITIONS_DIR = CONFIGS_DIR / "editions"

NUMBER_RANKS = RANK_TOKENS[:10]
ACTION_RANKS = RANK_TOKENS[10:]
# The rate each special kind needs, so an edition cannot silently lack one.
SPECIAL_RATE = {
    "movie_madness": "fail_rate",
    "wishing_star": "wish_icons",
    "dont_talk": "slip_rate",
}


# --- errors -----------------------------------------------------------------
def display_path(path: str | os.PathLike[str]) -> str:
    """A path as short as is unambiguous: relative to the cwd when below it."""
    p = Path(path)
    try:
        return str(p.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(p)


class ConfigError(Exception):
    """A config or edition file that cannot be used.

    ``str()`` is always one line, ``FILE: KEY.PATH: message``, so the CLI can
    print it as is and the user knows where to look.
    """

    def __init__(
        self, source: str | os.PathLike[str] | None, key: str | None, message: str
    ) -> None:
        self.source = (
            display_path(source) if isinstance(source, os.PathLike) else source
        )
        self.key = key or None
        self.message = " ".join(str(message).split())
        super().__init__(str(self))

    def __str__(self) -> str:
        return ": ".join(part for part in (self.source, self.key, self.message) if part)


class KeyedValueError(ValueError):
    """A validator's complaint about a key below the one being validated.

    Pydantic reports model-level validator errors at the model's own location;
    raising this lets the message name the key actually at fault.
    """

    def __init__(self, key: str | int | tuple[str | int, ...], message: str) -> None:
        self.key = key if isinstance(key, tuple) else (key,)
        super().__init__(message)


def format_loc(loc: Iterable[str | int]) -> str:
    """``('seats', 2)`` -> ``seats[2]``; ``('house_rules', 'jump_in')`` -> ``house_rules.jump_in``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def model_at(
    model: type[BaseModel], loc: Iterable[str | int]
) -> type[BaseModel] | None:
    """The nested model class reached by ``loc`` from ``model``, if any."""
    current: type[BaseModel] | None = model
    for part in loc:
        if (
            current is None
            or not isinstance(part, str)
            or part not in current.model_fields
        ):
            return None
        current = _submodel(current.model_fields[part].annotation)
    return current


def _submodel(annotation: Any) -> type[BaseModel] | None:
    """The BaseModel class inside ``X`` or ``X | None``."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            return arg
    return None


def _describe(
    err: Mapping[str, Any], model: type[BaseModel]
) -> tuple[tuple[str | int, ...], str]:
    """A pydantic error as (key path, plain-words message)."""
    loc = tuple(err["loc"])
    typ = err["type"]
    got = _short(err.get("input"))
    ctx = err.get("ctx") or {}
    if typ == "value_error" and isinstance(ctx.get("error"), KeyedValueError):
        exc = ctx["error"]
        return loc + exc.key, str(exc)
    if typ == "value_error":
        return loc, str(ctx.get("error", err["msg"]))
    if typ == "extra_forbidden":
        parent = model_at(model, loc[:-1])
        known = list(parent.model_fields) if parent else []
        hint = difflib.get_close_matches(str(loc[-1]), known, n=1)
        extra = (
            f" (did you mean {hint[0]!r}?)"
            if hint
            else (f" (known keys: {', '.join(known)})" if known else "")
        )
        return loc, f"unknown key{extra}"
    expected = {
        "bool_type": "a boolean (true/false)",
        "int_type": "an integer",
        "float_type": "a number",
        "string_type": "a string",
        "list_type": "a list",
        "dict_type": "a mapping",
        "model_type": "a mapping",
    }
    if typ in expected:
        return loc, f"expected {expected[typ]}, got {got}"
    if typ == "literal_error":
        return loc, f"expected {ctx.get('expected')}, got {got}"
    if typ == "missing":
        return loc, "required key is missing"
    bounds = {
        "greater_than_equal": ">=",
        "greater_than": ">",
        "less_than_equal": "<=",
        "less_than": "<",
    }
    if typ in bounds:
        bound = next(iter(ctx.values()), "?")
        return loc, f"must be {bounds[typ]} {bound}, got {got}"
    return loc, f"{err['msg']}, got {got}"


def error_from_validation(
    exc: ValidationError,
    model: type[BaseModel],
    source: str | os.PathLike[str] | None,
    source_of: Callable[[Sequence[str | int]], str | None] | None = None,
) -> ConfigError:
    """The first pydantic error as a one-line ``ConfigError``.

    ``source_of(loc)`` may name a different file for a key (the config that
    set it, through ``extends:``); by default every key is blamed on ``source``.
    """
    # An unknown key is usually a typo and the cause of any "missing" error
    # next to it, so it is reported first.
    errors = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")
    loc, message = _describe(errors[0], model)
    if len(errors) > 1:
        message += (
            f" (and {len(errors) - 1} more error{'s' if len(errors) > 2 else ''})"
        )
    where = source_of(loc) if source_of else None
    return ConfigError(where or source, format_loc(loc), message)


def read_yaml(path: Path) -> dict[str, Any]:
    """A YAML mapping from ``path``; any problem becomes a ConfigError naming the line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(
            path, None, f"cannot read file: {exc.strerror or exc}"
        ) from None
    try:
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise ConfigError(
            path, None, f"malformed YAML: {where}{exc.problem or exc.context}"
        ) from None
    except yaml.YAMLError as exc:
        raise ConfigError(path, None, f"malformed YAML: {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(
            path,
            None,
            f"expected a mapping of keys at the top level, got {type(data).__name__}",
        )
    return data


# --- shared strict models -----------------------------------------------------
class StrictModel(BaseModel):
    """Unknown keys and coercions are errors: a typo must not silently mean 'default'."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


Count = Annotated[int, Field(ge=0)]
Rate = Annotated[float, Field(ge=0.0, le=1.0)]


class Stacking(StrictModel):
    """Which pending-draw cards may be stacked on which (RULES.md section 6)."""

    draw_two_on_draw_two: bool = Field(False, title="Draw Two on Draw Two")
    wd4_on_wd4: bool = Field(False, title="Wild Draw Four on Wild Draw Four")
    wd4_on_draw_two: bool = Field(False, title="Wild Draw Four on Draw Two")
    draw_two_on_wd4: bool = Field(False, title="Draw Two on Wild Draw Four")


class HouseRules(StrictModel):
    """RULES.md section 6; all off unless the edition or the config turns them on."""

    stacking: Stacking = Field(Stacking(), title="stacking")
    jump_in: bool = Field(False, title="jump-in")
    seven_o: bool = Field(False, title="Seven-O")
    draw_until_play: bool = Field(False, title="draw until you can play")
    two_player_reverse: bool = Field(False, title="two-player Reverse as Skip")


def house_rule_switches(model: type[BaseModel] = HouseRules, prefix: str = "house_rules"
                        ) -> dict[str, str]:
    """Every on/off house rule, ``{dotted key: label}`` in declaration order.

    The one place a switch's key and label come from: the engine derives its
    compiled index from this order, reports and CLI help their wording.

    >>> house_rule_switches()["house_rules.stacking.wd4_on_wd4"]
    'Wild Draw Four on Wild Draw Four'
    """
    out: dict[str, str] = {}
    for name, info in model.model_fields.items():
        key = f"{prefix}.{name}"
        sub = info.annotation
        if isinstance(sub, type) and issubclass(sub, BaseModel):
            out.update(house_rule_switches(sub, key))
        else:
            out[key] = info.title or name
    return out


class EditionBehaviour(StrictModel):
    """Player-behaviour rates an edition may set as defaults."""

    uno_forget_rate: Rate = 0.0
    uno_catch_rate: Rate = 1.0


# --- edition models -----------------------------------------------------------
def _str_keys(value: Any) -> Any:
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
    def _keys_as_str(cls, value: Any) -> Any:
        return _str_keys(value)

    @field_validator("numbers")
    @classmethod
    def _known_numbers(cls, value: dict[str, int]) -> dict[str, int]:
        for rank in value:
            if rank not in NUMBER_RANKS:
                raise KeyedValueError(
                    rank, f"unknown number rank {rank!r} (expected 0-9)"
                )
        return value

    @field_validator("actions")
    @classmethod
    def _known_actions(cls, value: dict[str, int]) -> dict[str, int]:
        for rank in value:
            if rank not in ACTION_RANKS:
                raise KeyedValueError(
                    rank,
                    f"unknown action rank {rank!r} (expected one of {', '.join(ACTION_RANKS)})",
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
                raise KeyedValueError(i, f"unknown card token {tok!r}") from None
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
                "colors", f"the four color labels must differ, got {self.colors}"
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
    return sorted(p.stem for p in EDITIONS_DIR.glob("*.yaml"))


def is_edition_path(text: str) -> bool:
    """Whether an ``edition:`` value is a file path rather than a shipped name."""
    return "/" in text or os.sep in text or text.endswith((".yaml", ".yml"))


def edition_path(
    name_or_path: str | os.PathLike[str], base_dir: Path | None = None
) -> Path:
    """Where an edition lives: a shipped name, or a file path (relative to ``base_dir``)."""
    text = os.fspath(name_or_path)
    if not is_edition_path(text):
        path = EDITIONS_DIR / f"{text}.yaml"
        if path.is_file():
            return path
        raise ConfigError(
            None,
            "edition",
            f"unknown edition {text!r} (shipped: {', '.join(list_editions())}; or give a path)",
        )
    path = Path(text).expanduser()
    if not path.is_absolute() and base_dir is not None and (base_dir / path).is_file():
        path = base_dir / path
    if not path.is_file():
        raise ConfigError(None, "edition", f"edition file not found: {text}")
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
