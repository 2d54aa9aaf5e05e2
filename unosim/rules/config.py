"""Game configs: YAML in, a validated ``GameConfig`` and its compiled arrays out.

The key vocabulary is RULES.md section 9. Loading resolves ``extends:``
chains, applies ``--set key.path=value`` overrides, puts the edition's
defaults under the user's settings, and validates everything up front so a
bad config fails before any game starts, with a one-line error naming the
file and key. ``compile_config`` turns the result into the flat arrays of
``unosim.engine.layout`` so the compiled kernel never sees Python objects.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
import yaml
from pydantic import Field, PrivateAttr, ValidationError, model_validator

from unosim.engine import layout as L
from unosim.rules.editions import (
    CONFIGS_DIR,
    ConfigError,
    Edition,
    HouseRules,
    KeyedValueError,
    Rate,
    Stacking,
    StrictModel,
    deck_counts,
    display_path,
    error_from_validation,
    is_edition_path,
    load_edition,
    model_at,
    points_by_kind,
    read_yaml,
    wish_icon_mask,
)

__all__ = [
    "Behaviour",
    "CompiledConfig",
    "ConfigError",
    "GameConfig",
    "HouseRules",
    "Stacking",
    "compile_config",
    "config_hash",
    "config_to_dict",
    "load_config",
    "resolved_rules",
    "validate_config",
]

PolicyName = Literal["random", "strategic"]
# Per-policy parameters compiled into pp[seat]. The reference policy never
# bluffs or challenges (RULES.md section 7); strategic challenges sometimes.
POLICY_PARAMS: dict[str, dict[str, float]] = {
    "random": {"kind": L.POLICY_RANDOM, "bluff": 0.0, "challenge": 0.0},
    "strategic": {"kind": L.POLICY_STRATEGIC, "bluff": 0.0, "challenge": 0.25},
}
# RULES.md section 4 defaults, used when the edition has no such special wild.
DEFAULT_MOVIE_FAIL_RATE = 0.5
DEFAULT_SLIP_RATE = 0.1
PLAYERS_PER_DECK = 10
MAX_DECKS = 4

_SPECIAL_CODE = {
    "none": L.SPECIAL_NONE,
    "movie_madness": L.SPECIAL_MOVIE,
    "wishing_star": L.SPECIAL_WISH,
    "dont_talk": L.SPECIAL_DONT_TALK,
}
_SCORING_CODE = {
    "standard": L.SCORING_STANDARD,
    "lowest": L.SCORING_LOWEST,
    "elimination": L.SCORING_ELIMINATION,
    "partners": L.SCORING_PARTNERS,
}


class Behaviour(StrictModel):
    """How players slip up; the special-wild rates default to the edition's."""

    uno_forget_rate: Rate = 0.0
    uno_catch_rate: Rate = 1.0
    movie_madness_fail_rate: Rate = DEFAULT_MOVIE_FAIL_RATE
    dont_talk_slip_rate: Rate = DEFAULT_SLIP_RATE


def _edition_defaults(edition: Edition) -> dict[str, Any]:
    """The settings an edition supplies when the config does not give them."""
    special = edition.special
    return {
        "house_rules": edition.house_rules.model_dump(),
        "behaviour": {
            **edition.behaviour.model_dump(),
            "movie_madness_fail_rate": (
                special.fail_rate
                if special and special.fail_rate is not None
                else DEFAULT_MOVIE_FAIL_RATE
            ),
            "dont_talk_slip_rate": (
                special.slip_rate
                if special and special.slip_rate is not None
                else DEFAULT_SLIP_RATE
            ),
        },
    }


class GameConfig(StrictModel):
    """A resolved, validated game config (RULES.md section 9)."""

    name: str = "unosim"
    edition: str = "classic"
    players: Annotated[int, Field(ge=2)] = 4
    mode: Literal["round", "match"] = "round"
    scoring: Literal["standard", "lowest", "elimination", "partners"] = "standard"
    target: int = 500
    hand_size: Annotated[int, Field(ge=1)] = 7
    decks: Annotated[int, Field(ge=1, le=MAX_DECKS)] = 1
    max_turns: Annotated[int, Field(ge=1)] = 1000
    max_rounds: Annotated[int, Field(ge=1)] = 1000
    house_rules: HouseRules = HouseRules()
    policy: PolicyName = "random"
    seats: list[PolicyName] | None = None
    behaviour: Behaviour = Behaviour()
    games: Annotated[int, Field(ge=1)] = 10000
    seed: Annotated[int, Field(ge=0)] = 1

    _edition: Edition | None = PrivateAttr(default=None)

    @model_validator(mode="before")
    @classmethod
    def _apply_edition_defaults(cls, data: Any) -> Any:
        # Edition defaults sit under the user's settings, so merge before
        # field validation; a non-string edition is left for the field check.
        if isinstance(data, Mapping) and isinstance(
            data.get("edition", "classic"), str
        ):
            edition = load_edition(data.get("edition", "classic"))
            return deep_merge(_edition_defaults(edition), data)
        return data

    @model_validator(mode="after")
    def _cross_checks(self) -> GameConfig:
        edition = load_edition(self.edition)
        self._edition = edition
        if self.players > PLAYERS_PER_DECK * self.decks:
            raise KeyedValueError(
                "players",
                f"{self.players} players need decks >= {-(-self.players // PLAYERS_PER_DECK)} "
                f"(at most {PLAYERS_PER_DECK} players per deck), got decks {self.decks}",
            )
        per_deck = int(deck_counts(edition).sum())
        left = per_deck * self.decks - self.players * self.hand_size
        need = 4 * self.decks + 1
        if left < need:
            raise KeyedValueError(
                "hand_size",
                f"impossible deal: hand_size {self.hand_size} x players {self.players} = "
                f"{self.hand_size * self.players} cards from decks {self.decks} x {per_deck} leaves {left}, "
                f"but at least 4 x decks + 1 = {need} must remain for the first flip",
            )
        if self.scoring == "partners" and self.players != 4:
            raise KeyedValueError(
                "scoring",
                f"partners scoring needs players 4, got players {self.players}",
            )
        if self.mode == "match" and self.target < 1:
            raise KeyedValueError(
                "target", f"match mode needs target >= 1, got {self.target}"
            )
        if self.seats is not None and len(self.seats) != self.players:
            raise KeyedValueError(
                "seats", f"lists {len(self.seats)} seats but players is {self.players}"
            )
        return self

    @property
    def edition_spec(self) -> Edition:
        """The loaded edition this config plays."""
        if self._edition is None:  # built with model_construct: load lazily
            self._edition = load_edition(self.edition)
        return self._edition

    @property
    def seat_policies(self) -> list[str]:
        """The policy name of each seat: ``seats`` if given, else ``policy`` everywhere."""
        return (
            list(self.seats) if self.seats is not None else [self.policy] * self.players
        )


# --- loading ------------------------------------------------------------------
def deep_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``over`` on top of ``base``: mappings merge key by key, anything else replaces."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


Origin = dict[tuple[str, ...], str]


def _record(
    origin: Origin, data: Mapping[str, Any], source: str, prefix: tuple[str, ...] = ()
) -> None:
    """Remember which file set each key, so errors can blame the right one."""
    for key, value in data.items():
        origin[prefix + (str(key),)] = source
        if isinstance(value, Mapping):
            _record(origin, value, source, prefix + (str(key),))


def _blame(origin: Origin, loc: Sequence[str | int]) -> str | None:
    keys = tuple(str(part) for part in loc if not isinstance(part, int))
    for n in range(len(keys), 0, -1):
        if keys[:n] in origin:
            return origin[keys[:n]]
    return None


def _is_bare(name: str) -> bool:
    return "/" not in name and os.sep not in name


def resolve_config_path(path: str | os.PathLike[str]) -> Path:
    """A config file path; a bare name (``classic`` or ``classic.yaml``) may also name a shipped config."""
    p = Path(path).expanduser()
    if p.is_file():
        return p
    text = os.fspath(path)
    if _is_bare(text):
        for candidate in (CONFIGS_DIR / text, CONFIGS_DIR / f"{text}.yaml"):
            if candidate.is_file():
                return candidate
    raise ConfigError(text, None, "config file not found")


def _resolve_extends(name: Any, child: Path) -> Path:
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(
            child, "extends", f"expected a config file name, got {name!r}"
        )
    candidates = [child.parent / name]
    if _is_bare(name):
        candidates += [CONFIGS_DIR / name, CONFIGS_DIR / f"{name}.yaml"]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise ConfigError(
        child,
        "extends",
        f"cannot find {name!r} next to this file or in {display_path(CONFIGS_DIR)}",
    )


def _anchor_edition(data: dict[str, Any], base_dir: Path) -> None:
    """Make a relative edition path absolute, relative to the file that names it."""
    value = data.get("edition")
    if isinstance(value, str) and is_edition_path(value):
        p = Path(value).expanduser()
        if not p.is_absolute() and (base_dir / p).is_file():
            p = base_dir / p
        data["edition"] = str(p.resolve()) if p.is_file() else value


def _load_chain(path: Path, stack: tuple[Path, ...]) -> tuple[dict[str, Any], Origin]:
    """The merged data of ``path`` and everything it extends, with per-key origins."""
    here = path.resolve()
    if here in stack:
        chain = " -> ".join(display_path(p) for p in (*stack, here))
        raise ConfigError(path, "extends", f"cycle: {chain}")
    raw = read_yaml(path)
    parent_name = raw.pop("extends", None)
    _anchor_edition(raw, path.parent)
    if parent_name is None:
        base: dict[str, Any] = {}
        origin: Origin = {}
    else:
        base, origin = _load_chain(_resolve_extends(parent_name, path), (*stack, here))
    _record(origin, raw, display_path(path))
    return deep_merge(base, raw), origin


def _override(data: dict[str, Any], origin: Origin, item: str, top: Path) -> None:
    """Apply one ``key.path=value`` override; the value is YAML (``true``, ``6``, ``[a, b]``)."""
    source = f"{display_path(top)} --set {item}"
    key, sep, text = item.partition("=")
    parts = tuple(p.strip() for p in key.split("."))
    if not sep or not all(parts):
        raise ConfigError(source, None, "expected --set KEY.PATH=VALUE")
    parent = model_at(GameConfig, parts[:-1])
    if parent is None or parts[-1] not in parent.model_fields:
        known = list(parent.model_fields) if parent else list(GameConfig.model_fields)
        hint = difflib.get_close_matches(parts[-1], known, n=1)
        extra = (
            f" (did you mean {hint[0]!r}?)"
            if hint
            else f" (known keys here: {', '.join(known)})"
        )
        raise ConfigError(source, ".".join(parts), f"unknown key{extra}")
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(
            source,
            ".".join(parts),
            f"value is not valid YAML: {' '.join(str(exc).split())}",
        ) from None
    node = data
    for part in parts[:-1]:
        if not isinstance(node.get(part), dict):
            node[part] = {}
        node = node[part]
    last = parts[-1]
    if isinstance(value, dict) and isinstance(node.get(last), dict):
        node[last] = deep_merge(node[last], value)
    else:
        node[last] = value
    if last == "edition" and isinstance(value, str):
        _anchor_edition(node, Path.cwd())
    origin[parts] = source
    if isinstance(value, dict):
        _record(origin, value, source, parts)


def validate_config(
    data: Mapping[str, Any],
    source: str | os.PathLike[str] | None = None,
    blame: Callable[[Sequence[str | int]], str | None] | None = None,
) -> GameConfig:
    """Validate a config mapping; any problem becomes a one-line ``ConfigError``."""
    try:
        return GameConfig.model_validate(dict(data))
    except ValidationError as exc:
        raise error_from_validation(exc, GameConfig, source, blame) from None
    except ConfigError as exc:  # from the edition: unknown name or a bad edition file
        if exc.source is None:
            where = (blame(("edition",)) if blame else None) or source
            raise ConfigError(where, exc.key, exc.message) from None
        raise


def load_config(
    path: str | os.PathLike[str], overrides: Sequence[str] = ()
) -> GameConfig:
    """Read a config file, resolve ``extends:`` and ``--set`` overrides, and validate."""
    top = resolve_config_path(path)
    data, origin = _load_chain(top, ())
    if origin.get(("name",)) != display_path(top):
        # A name identifies this file's runs: it is not inherited.
        data["name"] = top.stem
    for item in overrides:
        _override(data, origin, item, top)
    return validate_config(data, top, lambda loc: _blame(origin, loc))


# --- outputs ------------------------------------------------------------------
def resolved_rules(cfg: GameConfig) -> dict[str, Any]:
    """The rules a round is played under, as written into trace ``deal`` events."""
    ed = cfg.edition_spec
    return {
        "players": cfg.players,
        "hand_size": cfg.hand_size,
        "decks": cfg.decks,
        "first_flip": ed.first_flip,
        "wd4_wilds_block": ed.wd4_wilds_block,
        "uno_penalty": ed.uno_penalty,
        "special": ed.special_kind,
        "special_points": ed.special.points if ed.special else 0,
        "house_rules": cfg.house_rules.model_dump(),
        "max_turns": cfg.max_turns,
        "mode": cfg.mode,
        "scoring": cfg.scoring,
        "target": cfg.target,
        "max_rounds": cfg.max_rounds,
        "behaviour": cfg.behaviour.model_dump(),
    }


def config_to_dict(cfg: GameConfig) -> dict[str, Any]:
    """The resolved config as plain data; ``validate_config`` reads it back unchanged."""
    return cfg.model_dump(mode="json")


def config_hash(cfg: GameConfig) -> str:
    """sha256 of the canonical resolved config and the edition's content.

    The edition is hashed by content, not by name or path, so an edited edition
    file counts as a changed config while a moved checkout does not.
    """
    payload = config_to_dict(cfg)
    payload.pop("edition")
    canonical = {"config": payload, "edition": cfg.edition_spec.model_dump(mode="json")}
    text = json.dumps(
        canonical, sort_keys=True, separators=(",", ":"), ensure_ascii=True
    )
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True, eq=False)
class CompiledConfig:
    """Everything the compiled kernel needs, as flat numpy arrays (see ``engine.layout``).

    The arrays are left writeable so numba sees one array type; treat them as read-only.
    """

    ci: np.ndarray  # int64[NCI], C_* indices
    cf: np.ndarray  # float64[NCF], F_* indices
    pp: np.ndarray  # float64[players, NPP], P_* per seat
    deck_counts: np.ndarray  # int64[NK], all decks
    points: np.ndarray  # int64[NK]
    wish_icons: np.ndarray  # int64[NK], 1 where the kind bears the Wishing Icon
    edition_name: str
    seat_policies: list[str]
    rules: dict[str, Any] = field(default_factory=dict)


def compile_config(cfg: GameConfig) -> CompiledConfig:
    """Lower a validated config to the kernel's arrays."""
    ed = cfg.edition_spec
    hr = cfg.house_rules
    counts = deck_counts(ed) * cfg.decks

    ci = np.zeros(L.NCI, dtype=np.int64)
    ci[L.C_PLAYERS] = cfg.players
    ci[L.C_HAND_SIZE] = cfg.hand_size
    ci[L.C_DECKS] = cfg.decks
    ci[L.C_FIRST_FLIP] = L.FLIP_REDRAW if ed.first_flip == "redraw" else L.FLIP_APPLY
    ci[L.C_WD4_WILDS_BLOCK] = ed.wd4_wilds_block
    ci[L.C_UNO_PENALTY] = ed.uno_penalty
    ci[L.C_SPECIAL] = _SPECIAL_CODE[ed.special_kind]
    ci[L.C_STACK_D2_D2] = hr.stacking.draw_two_on_draw_two
    ci[L.C_STACK_WD4_WD4] = hr.stacking.wd4_on_wd4
    ci[L.C_STACK_WD4_D2] = hr.stacking.wd4_on_draw_two
    ci[L.C_STACK_D2_WD4] = hr.stacking.draw_two_on_wd4
    ci[L.C_JUMP_IN] = hr.jump_in
    ci[L.C_SEVEN_O] = hr.seven_o
    ci[L.C_DRAW_UNTIL_PLAY] = hr.draw_until_play
    ci[L.C_TWO_PLAYER_REVERSE] = (
        hr.two_player_reverse
    )  # the kernel applies it only with 2 seats in play
    ci[L.C_MAX_TURNS] = cfg.max_turns
    ci[L.C_MODE] = 1 if cfg.mode == "match" else 0
    ci[L.C_SCORING] = _SCORING_CODE[cfg.scoring]
    ci[L.C_TARGET] = cfg.target
    ci[L.C_MAX_ROUNDS] = cfg.max_rounds
    ci[L.C_DECK_SIZE] = counts.sum()

    cf = np.zeros(L.NCF, dtype=np.float64)
    cf[L.F_UNO_FORGET] = cfg.behaviour.uno_forget_rate
    cf[L.F_UNO_CATCH] = cfg.behaviour.uno_catch_rate
    cf[L.F_MOVIE_FAIL] = cfg.behaviour.movie_madness_fail_rate
    cf[L.F_SLIP] = cfg.behaviour.dont_talk_slip_rate

    seats = cfg.seat_policies
    pp = np.zeros((cfg.players, L.NPP), dtype=np.float64)
    for seat, policy in enumerate(seats):
        params = POLICY_PARAMS[policy]
        pp[seat, L.P_KIND] = params["kind"]
        pp[seat, L.P_BLUFF] = params["bluff"]
        pp[seat, L.P_CHALLENGE] = params["challenge"]

    return CompiledConfig(
        ci=ci,
        cf=cf,
        pp=pp,
        deck_counts=counts,
        points=points_by_kind(ed),
        wish_icons=wish_icon_mask(ed),
        edition_name=ed.name,
        seat_policies=seats,
        rules=resolved_rules(cfg),
    )
