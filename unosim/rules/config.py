"""Game configs: YAML in, a validated ``GameConfig`` out.

The key vocabulary is docs/rules.md §9. Loading resolves ``extends:``
chains, applies ``--set key.path=value`` overrides, puts the edition's
defaults under the user's settings, and validates everything up front so a
bad config fails before any game starts, with a one-line error naming the
file and key. ``unosim.engine.kernel.state.compile_config`` lowers the result into
the compiled kernel's arrays.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, PrivateAttr, ValidationError, field_validator, model_validator

from unosim.rules.editions import (
    Edition,
    card_kinds,
    deck_counts,
    is_edition_path,
    load_edition,
)
from unosim.rules.errors import (
    ConfigError,
    KeyedValueError,
    clip,
    display_path,
    error_from_validation,
    model_at,
    quoted,
)
from unosim.rules.limits import (
    FLIP_RESERVE_PER_DECK,
    MAX_DECKS,
    MAX_GAMES,
    MAX_NAME_LENGTH,
    MAX_PLAYERS,
    MAX_ROUNDS,
    MAX_SEED,
    MAX_SLUG_LENGTH,
    MAX_TARGET,
    MAX_TURNS,
    MIN_HAND_SIZE,
    MIN_PLAYERS,
    PLAYERS_PER_DECK,
)
from unosim.rules.models import (
    POLICY_NAMES,
    EditionBehaviour,
    HabitParams,
    HouseRules,
    Phrase,
    PluginName,
    PolicyName,
    Rate,
    SeatSpec,
    Stacking,
    StrictModel,
    policy_params,
)
from unosim.rules.plugins import is_plugin_name, plugin_digests
from unosim.rules.yamlio import is_bare, list_shipped, parse_yaml, read_yaml, shipped_file

__all__ = [
    "Behaviour",
    "ConfigError",
    "GameConfig",
    "HouseRules",
    "Stacking",
    "config_hash",
    "config_to_dict",
    "did_you_mean",
    "load_config",
    "name_slug",
    "resolved_rules",
    "validate_config",
]

# docs/rules.md §4 defaults, used when the edition has no such special wild.
DEFAULT_MOVIE_FAIL_RATE = 0.5
DEFAULT_SLIP_RATE = 0.1



class Behaviour(EditionBehaviour):
    """How players slip up; the special-wild rates default to the edition's."""

    movie_madness_fail_rate: Annotated[Rate, Field(title="Movie Madness fail rate")] = (
        DEFAULT_MOVIE_FAIL_RATE
    )
    dont_talk_slip_rate: Annotated[Rate, Field(title="Don't Talk slip rate")] = DEFAULT_SLIP_RATE


def _edition_defaults(edition: Edition) -> dict[str, object]:
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


# Cc: C0/C1 controls (NUL, tab, newline, DEL, ...); Zl, Zp: U+2028, U+2029.
_CONTROL_CATEGORIES = frozenset({"Cc", "Zl", "Zp"})


class GameConfig(StrictModel):
    """A resolved, validated game config (docs/rules.md §9).

    Each field is the one declaration of its setting: key, label (``title``),
    limits and wording (``Phrase``); see ``unosim.rules.settings``.
    """

    name: Annotated[str, Field(title="config name", max_length=MAX_NAME_LENGTH)] = "unosim"
    edition: Annotated[str, Field(title="edition")] = "classic"
    players: Annotated[
        int,
        Field(
            title="number of players",
            description=f"at most {PLAYERS_PER_DECK} per deck",
            ge=MIN_PLAYERS,
            le=MAX_PLAYERS,
        ),
        Phrase("{} players"),
    ] = 4
    mode: Annotated[
        Literal["round", "match"],
        Field(title="game mode"),
        Phrase(fixed={"round": "single rounds", "match": "matches to a target"}),
    ] = "round"
    scoring: Annotated[
        Literal["standard", "lowest", "elimination", "partners"],
        Field(title="match scoring", description="partners needs 4 players"),
        Phrase("{} scoring"),
    ] = "standard"
    target: Annotated[
        int, Field(title="match target score", ge=1, le=MAX_TARGET), Phrase("matches to {} points")
    ] = 500
    hand_size: Annotated[
        int,
        Field(
            title="hand size",
            description=f"the deal must leave {FLIP_RESERVE_PER_DECK} x decks + 1 cards",
            ge=MIN_HAND_SIZE,
        ),
        Phrase("{}-card hands"),
    ] = 7
    decks: Annotated[
        int, Field(title="number of decks", ge=1, le=MAX_DECKS), Phrase("{} deck{s}")
    ] = 1
    max_turns: Annotated[
        int,
        Field(title="turn limit per round", ge=1, le=MAX_TURNS),
        Phrase("at most {} turns per round"),
    ] = 1000
    max_rounds: Annotated[
        int,
        Field(title="round limit per match", ge=1, le=MAX_ROUNDS),
        Phrase("at most {} rounds per match"),
    ] = 1000
    house_rules: Annotated[HouseRules, Field(title="house rules")] = HouseRules()
    policy: Annotated[PolicyName, Field(title="policy of every seat"), Phrase("{} policy")] = (
        "random"
    )
    seats: Annotated[
        list[PolicyName | PluginName | SeatSpec] | None,
        Field(
            title="policy of each seat",
            description="one per player, NAME or {policy: NAME, params: {...}}; overrides policy",
        ),
        Phrase("seats {}", fixed={None: "one policy for all seats"}),
    ] = None
    behaviour: Annotated[Behaviour, Field(title="player behaviour")] = Behaviour()
    games: Annotated[int, Field(title="games per run", ge=1, le=MAX_GAMES)] = 10000
    seed: Annotated[int, Field(title="seed", ge=0, le=MAX_SEED)] = 1

    _edition: Edition | None = PrivateAttr(default=None)

    @field_validator("name")
    @classmethod
    def _printable_name(cls, value: str) -> str:
        # A name titles reports and terminal lines: one line, no control characters.
        for i, char in enumerate(value):
            if unicodedata.category(char) in _CONTROL_CATEGORIES:
                raise ValueError(
                    f"must not contain control characters, got {char!r} at position {i}"
                )
        return value

    @field_validator("seats", mode="before")
    @classmethod
    def _seat_specs(cls, value: object) -> object:
        # Each seat is checked here, so an error names the seat and the key
        # (seats[0].params.bluff_rate), not the branches of a union.
        if not isinstance(value, list):
            return value
        out: list[str | SeatSpec] = []
        for i, item in enumerate(value):
            if (isinstance(item, str) and (item in POLICY_NAMES or is_plugin_name(item))
                    or isinstance(item, SeatSpec)):
                out.append(item)
            elif isinstance(item, Mapping):
                try:
                    out.append(SeatSpec.model_validate(item))
                except ValidationError as exc:
                    err = error_from_validation(exc, SeatSpec, None)
                    keys = tuple(err.key.split(".")) if err.key else ()
                    raise KeyedValueError((i, *keys), err.message) from None
            else:
                names = ", ".join(POLICY_NAMES)
                raise KeyedValueError(
                    i, f"expected a policy ({names}), a plug-in module:Class or "
                    f"{{policy: NAME, params: {{...}}}}, got {quoted(item)}"
                    + did_you_mean(item, POLICY_NAMES))
        return out

    @model_validator(mode="before")
    @classmethod
    def _apply_edition_defaults(cls, data: object) -> object:
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
        need = FLIP_RESERVE_PER_DECK * self.decks + 1
        if left < need:
            raise KeyedValueError(
                "hand_size",
                f"impossible deal: hand_size {self.hand_size} x players {self.players} = "
                f"{self.hand_size * self.players} cards from decks {self.decks} x {per_deck} "
                f"leaves {left}, but at least {FLIP_RESERVE_PER_DECK} x decks + 1 = {need} "
                "must remain for the first flip",
            )
        if self.scoring == "partners" and self.players != 4:
            raise KeyedValueError(
                "scoring", f"partners scoring needs players 4, got players {self.players}"
            )
        if self.seats is not None and len(self.seats) != self.players:
            raise KeyedValueError(
                "seats", f"lists {len(self.seats)} seats but players is {self.players}"
            )
        _mercy_checks(self, edition)
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
        if self.seats is None:
            return [self.policy] * self.players
        return [s if isinstance(s, str) else s.policy for s in self.seats]

    @property
    def seat_params(self) -> list[HabitParams | None]:
        """Each seat's policy parameters (None for ``random``, which takes none)."""
        if self.seats is None:
            return [policy_params(self.policy)] * self.players
        return [policy_params(s) if isinstance(s, str) else s.params for s in self.seats]


_NOT_SLUG = re.compile(r"[^A-Za-z0-9_+-]+")  # "+" joins a variant's overrides


def name_slug(name: str) -> str:
    """A name as a safe directory name: ASCII letters, digits, '-', '_' and '+'.

    Accents are dropped, anything else becomes one '-', and the result is never
    empty, '.' or '..', so a name such as ``../../x`` or ``/abs`` cannot lead a
    default out path out of its folder. A slug longer than the limit keeps its
    head and a hash of the whole name, so distinct long names stay distinct.

    >>> name_slug("Party: 8 players, 2 decks"), name_slug("../../x"), name_slug("Ça va")
    ('Party-8-players-2-decks', 'x', 'Ca-va')
    >>> name_slug("/"), name_slug(".."), len(name_slug("x" * 500))
    ('run', 'run', 64)
    """
    ascii_only = "".join(
        c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c)
    )
    slug = _NOT_SLUG.sub("-", ascii_only).strip("-") or "run"
    if len(slug) > MAX_SLUG_LENGTH:
        digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        slug = slug[:MAX_SLUG_LENGTH - 9].rstrip("-") + "-" + digest
    return slug


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
    origin: Origin, data: Mapping[str, object], source: str, prefix: tuple[str, ...] = ()
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


def resolve_config_path(path: str | os.PathLike[str]) -> Path:
    """A config file; a bare name (``classic`` or ``classic.yaml``) may also name a built-in one."""
    # os.path, not Path: it answers False, not an error, for names too long or
    # with NUL bytes, and leaves an unknown ~user as it is.
    p = Path(os.path.expanduser(path))
    if os.path.isfile(p):
        return p
    text = os.fspath(path)
    shipped = shipped_file(text)
    if shipped is not None:
        return shipped
    if os.path.exists(p):  # a directory or a device: reading it says which
        return p
    hint = did_you_mean(Path(text).stem, list_shipped()) if is_bare(text) else ""
    raise ConfigError(text, None, f"config file not found{hint}"
                      + ("" if hint else " (unosim configs lists the built-in ones)"))


def did_you_mean(text: object, known: Sequence[str]) -> str:
    """`` (did you mean 'x'?)`` when ``text`` is a near miss of one of ``known``, else ''.

    >>> did_you_mean("clasic", ["classic", "stacking"]), did_you_mean("zzz", ["classic"])
    (" (did you mean 'classic'?)", '')
    """
    if not isinstance(text, str):
        return ""
    hint = difflib.get_close_matches(text, known, n=1)
    return f" (did you mean {hint[0]!r}?)" if hint else ""


def _resolve_extends(name: object, child: Path) -> Path:
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(child, "extends", f"expected a config file name, got {quoted(name)}")
    if os.path.isfile(child.parent / name):
        return child.parent / name
    shipped = shipped_file(name)
    if shipped is None:
        raise ConfigError(
            child,
            "extends",
            f"cannot find {quoted(name)} next to this file or among the built-in configs",
        )
    return shipped


def _anchor_edition(data: dict[str, object], base_dir: Path) -> None:
    """Make a relative edition path absolute, relative to the file that names it."""
    value = data.get("edition")
    if isinstance(value, str) and is_edition_path(value):
        p = Path(os.path.expanduser(value))
        if not p.is_absolute() and os.path.isfile(base_dir / p):
            p = base_dir / p
        data["edition"] = str(p.resolve()) if os.path.isfile(p) else value


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
    source = f"{display_path(top)} --set {clip(item)}"
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
    value = parse_yaml(text, source, ".".join(parts))
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
    data: Mapping[str, object],
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
        data["name"] = top.stem[:MAX_NAME_LENGTH]
    for item in overrides:
        _override(data, origin, item, top)
    return validate_config(data, top, lambda loc: _blame(origin, loc))


# --- outputs ------------------------------------------------------------------
def _mercy_checks(cfg: GameConfig, edition: Edition) -> None:
    """A mercy limit (docs/rules.md section 11) the deal or a missed UNO call would
    reach, or one under a scoring that would reward being knocked out, is refused."""
    limit = edition.mercy_limit
    if limit is None:
        return
    if limit <= max(cfg.hand_size, 1 + edition.uno_penalty):
        raise KeyedValueError("hand_size", f"the edition's mercy_limit {limit} must exceed "
                              f"hand_size {cfg.hand_size} and 1 + its uno_penalty")
    flip = max((c.draw for c in card_kinds(edition)), default=0)
    if edition.first_flip == "apply" and limit <= cfg.hand_size + flip:
        raise KeyedValueError("hand_size", f"the edition's mercy_limit {limit} must exceed "
                              f"hand_size {cfg.hand_size} plus a flipped first card's draw "
                              f"({flip})")
    if cfg.scoring in ("lowest", "elimination"):
        raise KeyedValueError("scoring", f"{cfg.scoring} scoring counts the cards a player "
                              "keeps, and the edition's mercy rule puts a knocked-out hand "
                              "under the discard pile: use standard or partners scoring")


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
        # docs/rules.md section 11's settings, written only when an edition sets them
        # (traces of the other editions read as before)
        **{key: getattr(ed, key) for key in ("stacking", "mercy_limit", "challenge")
           if getattr(ed, key) != type(ed).model_fields[key].default},
        **({"dark_colors": list(ed.dark_colors)} if ed.dark_colors else {}),
    }


def config_to_dict(cfg: GameConfig) -> dict[str, Any]:
    """The resolved config as plain data; ``validate_config`` reads it back unchanged."""
    return cfg.model_dump(mode="json")


def config_hash(cfg: GameConfig) -> str:
    """sha256 of the canonical resolved config and the edition's content.

    The edition is hashed by content, not by name or path, so an edited edition
    file counts as a changed config while a moved checkout does not. So is each
    plug-in seat's source (`unosim.rules.plugins.source_digest`): its code
    decides games, so an edited plug-in is a different run.
    """
    payload = config_to_dict(cfg)
    payload.pop("edition")
    canonical: dict[str, object] = {"config": payload,
                                 "edition": cfg.edition_spec.identity()}
    plugins = plugin_digests(cfg.seat_policies)
    if plugins:  # a config without plug-ins hashes as it always did
        canonical["plugins"] = plugins
    text = json.dumps(
        canonical, sort_keys=True, separators=(",", ":"), ensure_ascii=True
    )
    return hashlib.sha256(text.encode()).hexdigest()
