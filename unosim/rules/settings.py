"""Every setting in words: labels, limits and rule phrases, read from the declarations.

A setting is declared once, as a field of ``GameConfig`` or of the models it
nests (``unosim.rules.models``): key, label (``title``), limits (``ge``/``le``)
and wording (``Phrase``). Run reports, compare, sweep and the CLI's ``--set``
help all take their words from here, so a rule's name cannot drift between
them.

>>> setting_label("players"), setting_label("house_rules.seven_o")
('number of players', 'Seven-O')
>>> setting_phrase("hand_size", 5), setting_phrase("house_rules.jump_in", False)
('5-card hands', 'no jump-in')
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import NoneType, UnionType
from typing import Literal, Union, get_args, get_origin

import annotated_types
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from unosim.rules.config import GameConfig, config_to_dict
from unosim.rules.editions import Edition, is_edition_path, list_editions
from unosim.rules.errors import model_at
from unosim.rules.models import HouseRules, Phrase, Stacking, source_of

__all__ = [
    "can_act",
    "Setting",
    "Switch",
    "describe_difference",
    "describe_rules",
    "house_rule_switches",
    "rules_on",
    "seat_words",
    "setting_label",
    "setting_phrase",
    "settings",
    "stacking_phrase",
    "switch_code",
    "switches",
    "two_valued",
    "two_values",
]

_STACKING = "house_rules.stacking"
_TWO_PLAYER_REVERSE = "house_rules.two_player_reverse"
# Keys that say which run this is, not which rules it plays.
_NOT_RULES = ("name", "games", "seed")


@dataclass(frozen=True)
class Setting:
    """One settable key: what it means and the values it takes, as help text."""

    key: str
    label: str
    values: str


def _fields(model: type[BaseModel], prefix: str = "") -> Iterator[tuple[str, FieldInfo]]:
    """Every leaf field below ``model`` as (dotted key, field), in declaration order."""
    for name, info in model.model_fields.items():
        key = f"{prefix}{name}"
        sub = model_at(model, (name,))
        if sub is None:
            yield key, info
        else:
            yield from _fields(sub, f"{key}.")


def _field(key: str) -> FieldInfo:
    *parents, name = key.split(".")
    model = model_at(GameConfig, parents)
    if model is None or name not in model.model_fields:
        raise KeyError(f"unknown setting {key!r}")
    return model.model_fields[name]


def setting_label(key: str) -> str:
    """The label of a setting or group of settings, by dotted key.

    >>> setting_label("behaviour.uno_catch_rate"), setting_label("house_rules.stacking")
    ('UNO catch rate', 'stacking')
    """
    info = _field(key)
    return info.title or key.rsplit(".", 1)[-1]


def house_rule_switches() -> dict[str, str]:
    """Every house-rule switch (docs/rules.md §6 and the rulings of §12),
    ``{dotted key: label}`` in declaration order.

    The engine derives its compiled index from this order (each value lowered
    by `switch_code`), reports and CLI help their wording.

    >>> house_rule_switches()["house_rules.stacking.wd4_on_wd4"]
    'Wild Draw Four on Wild Draw Four'
    """
    return {key: setting_label(key) for key, _ in _fields(HouseRules, "house_rules.")}


def _choices(annotation: object) -> list[object]:
    """The values a switch takes, in code order: false, true, then any named values."""
    if annotation is bool:
        return [False, True]
    out: list[object] = []
    for arg in get_args(annotation) or ():
        out += _choices(arg) if arg is bool or get_origin(arg) is Literal else [arg]
    return out


def switch_code(key: str, value: object) -> int:
    """The integer the kernel reads for a house-rule switch at ``value``: 0/1 for
    an on/off switch, else the value's place among the declared ones.

    >>> switch_code("house_rules.jump_in", "same_number"), switch_code("house_rules.challenge", True)
    (2, 1)
    >>> switch_code("house_rules.draw_then_play", "none")
    2
    """
    return _choices(_field(key).annotation).index(value)


@dataclass(frozen=True)
class Switch:
    """One house rule or ruling as `unosim rulings` lists it."""

    key: str
    label: str
    values: str
    default: object
    section: int
    source: str


def switches() -> list[Switch]:
    """Every switch of docs/rules.md §6 and §12, read from its one declaration.

    >>> s = next(s for s in switches() if s.key == "house_rules.deflect")
    >>> s.label, s.default, s.section
    ('deflect a draw with Reverse or Skip', False, 12)
    """
    out = []
    for key, info in _fields(HouseRules, "house_rules."):
        src = source_of(info)
        out.append(Switch(key, setting_label(key), _values(info.annotation, info.metadata),
                          info.default, src.section if src else 6, src.note if src else ""))
    return out


def setting_phrase(key: str, value: object) -> str:
    """A setting at a value, in words: '6 players', 'single rounds', 'no Seven-O'.

    >>> setting_phrase("decks", 1), setting_phrase("seats", None)
    ('1 deck', 'one policy for all seats')
    >>> setting_phrase("behaviour.uno_forget_rate", 0.1)
    'UNO forget rate 0.1'
    """
    info = _field(key)
    label = setting_label(key)
    if isinstance(value, bool):
        return label if value else f"no {label}"
    phrase = next((m for m in info.metadata if isinstance(m, Phrase)), Phrase())
    if isinstance(value, Hashable) and value in phrase.fixed:
        return phrase.fixed[value]
    if isinstance(value, list):
        text = ", ".join(seat_words(v) if key == "seats" else str(v) for v in value)
    else:
        text = str(value)
    if phrase.template:
        return phrase.template.format(text, s="" if value == 1 else "s")
    return f"{label} {text}"


def seat_words(seat: object) -> str:
    """One seat in words: a plug-in by its class, a policy with its parameters.

    >>> seat_words("examples/policies/first_legal.py:FirstLegal")
    'FirstLegal'
    >>> seat_words({"policy": "strategic", "params": {"bluff_rate": 0.2}})
    'strategic (bluff_rate 0.2)'
    """
    if isinstance(seat, Mapping):
        params = seat.get("params") or {}
        inner = ", ".join(f"{k} {v}" for k, v in params.items()) if isinstance(
            params, Mapping) else str(params)
        return f"{seat.get('policy', 'seat')}" + (f" ({inner})" if inner else "")
    text = str(seat)
    return text.rpartition(":")[2] or text if ":" in text else text


def stacking_phrase(switches: Mapping[str, object], short: bool = False) -> str:
    """'stacking (Draw Two on Draw Two)', 'full stacking (...)' or 'no stacking'.

    ``switches`` maps ``Stacking`` field names to on/off (missing means off);
    ``short`` drops the explanation of full stacking, for lists of several changes.

    >>> stacking_phrase({"wd4_on_wd4": True})
    'stacking (Wild Draw Four on Wild Draw Four)'
    """
    word = setting_label(_STACKING)
    labels = {name: setting_label(f"{_STACKING}.{name}") for name in Stacking.model_fields}
    on = [label for name, label in labels.items() if switches.get(name)]
    if not on:
        return f"no {word}"
    if len(on) == len(labels):
        return f"full {word}" + ("" if short else " (every draw card on every other)")
    return f"{word} ({', '.join(on)})"


def _flat(data: Mapping[str, object], prefix: str = "") -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in data.items():
        if isinstance(value, Mapping):
            out.update(_flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def can_act(key: str, players: int | None) -> bool:
    """Two-player Reverse is moot at a bigger table (``None``: any table, as in an edition)."""
    return key != _TWO_PLAYER_REVERSE or players in (None, 2)


def rules_on(source: GameConfig | Edition) -> list[str]:
    """The house rules a config (or an edition, by default) plays, in words.

    House rules and rulings play the printed rules unless changed, so these are
    the rules that differ from the printed ones; a switch that cannot act at the config's
    table (two-player Reverse with more than two players) is left out.

    >>> from unosim.rules.config import load_config
    >>> rules_on(load_config("chaos"))
    ['full stacking (every draw card on every other)', 'jump-in', 'Seven-O', 'draw until you can play']
    """
    players = source.players if isinstance(source, GameConfig) else None
    given = _flat(source.house_rules.model_dump(), "house_rules.")
    defaults = _flat(HouseRules().model_dump(), "house_rules.")
    stacking = {k.rsplit(".", 1)[1]: v for k, v in given.items() if k.startswith(_STACKING)}
    out = [stacking_phrase(stacking)] if any(stacking.values()) else []
    return out + [
        setting_phrase(key, value)
        for key, value in given.items()
        if value != defaults.get(key) and not key.startswith(_STACKING)
        and can_act(key, players)
    ]


def describe_rules(cfg: GameConfig) -> str:
    """One line naming the edition, its special wild and the house rules in play.

    >>> from unosim.rules.config import load_config
    >>> describe_rules(load_config("stacking"))
    'UNO (classic, Mattel W2085); house rules: stacking (Draw Two on Draw Two)'
    """
    ed = cfg.edition_spec
    special = f" (special wild: {ed.special.name})" if ed.special else ""
    return f"{ed.title}{special}; house rules: {', '.join(rules_on(cfg)) or 'none'}"


def describe_difference(base: GameConfig, cfg: GameConfig) -> list[str]:
    """Plain phrases for how ``cfg``'s rules differ from ``base``'s (name, games, seed ignored).

    A switch that cannot act (two-player Reverse with more than two players)
    is left out; so are the behaviour rates an edition change brings along.

    >>> from unosim.rules.config import load_config
    >>> describe_difference(load_config("classic"), load_config("stacking", ["players=6"]))
    ['stacking (Draw Two on Draw Two)', '6 players']
    """
    a, b = _flat(config_to_dict(base)), _flat(config_to_dict(cfg))
    changed = [k for k in b if a.get(k) != b[k] and k not in _NOT_RULES]
    stacked = [k for k in changed if k.startswith(f"{_STACKING}.")]
    items: list[str] = []
    if "edition" in changed:
        ed = cfg.edition_spec
        if is_edition_path(cfg.edition):  # a copied edition keeps the title it was copied
            items.append(cfg.name)        # from: the config's name says which it is
        else:
            items.append(ed.title + (f" ({ed.special.name})" if ed.special else " edition"))
    if stacked and cfg.edition_spec.stacking == "value":  # the switches are unused
        items.append("stacking by draw value")
    elif stacked:
        switches = cfg.house_rules.stacking.model_dump()
        items.append(stacking_phrase(switches, short=len(changed) > len(stacked)))
    # House rules first, then the table and the rest, each in declaration order.
    rest = sorted(
        (k for k in changed if k != "edition" and k not in stacked),
        key=lambda k: not k.startswith("house_rules."),
    )
    for key in rest:
        if key.startswith("behaviour.") and "edition" in changed:
            continue
        if can_act(key, cfg.players):
            items.append(setting_phrase(key, b[key]))
    return items


def two_values(key: str) -> tuple[object, object] | None:
    """The two values a setting takes, when its declaration allows exactly two.

    A switch (``bool``) is ``(False, True)``, and so is a switch with further
    choices beside on (``jump_in``: ``same_number``), screened as off against the
    official on; a ``Literal`` of two choices gives them in declared order;
    anything else (numbers, lists, three or more choices) is None. ``unosim
    screen`` takes its factors from here, so a ruling declared as a switch is a
    factor with no list to update.

    >>> two_values("house_rules.jump_in"), two_values("mode"), two_values("players")
    ((False, True), ('round', 'match'), None)
    >>> two_values("house_rules.draw_then_play") is None
    True
    """
    annotation = _field(key).annotation
    args = get_args(annotation)
    if annotation is bool or (get_origin(annotation) in (Union, UnionType) and bool in args):
        return (False, True)
    if get_origin(annotation) is Literal and len(get_args(annotation)) == 2:
        a, b = get_args(annotation)
        return (a, b)
    return None


def two_valued() -> dict[str, str]:
    """Every two-valued setting, ``{dotted key: label}`` in declaration order.

    >>> keys = two_valued()
    >>> "house_rules.draw_until_play" in keys, "players" in keys
    (True, False)
    """
    return {key: setting_label(key) for key, _ in _fields(GameConfig)
            if two_values(key) is not None}


# --- --set help -----------------------------------------------------------------
def _number(x: object) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def _values(annotation: object, metadata: Sequence[object] = ()) -> str:
    """The values a field takes, as help text: 'true|false', 'round|match', '2..40'."""
    origin, args = get_origin(annotation), get_args(annotation)
    if annotation is bool:
        return "true|false"
    if origin is Literal:
        return "|".join(map(str, args))
    if origin in (Union, UnionType) and all(a is bool or get_origin(a) is Literal for a in args):
        return "|".join(_values(a) for a in args)  # a switch with named values (jump_in)
    if origin in (Union, UnionType):
        return " or ".join(_values(a) if a is not NoneType else "null" for a in args)
    if origin is list:
        return f"[{_values(args[0])}, ...]"
    if isinstance(annotation, type) and annotation in (int, float):
        low = next((m.ge for m in metadata if isinstance(m, annotated_types.Ge)), None)
        high = next((m.le for m in metadata if isinstance(m, annotated_types.Le)), None)
        if low is not None and high is not None:
            return f"{_number(low)}..{_number(high)}"
        if low is not None:
            return f"{_number(low)}.."
        return annotation.__name__
    return "text"


def settings() -> list[Setting]:
    """Every settable key (``--set KEY=VALUE``) in declaration order, for help and completion.

    >>> next(s for s in settings() if s.key == "players")
    Setting(key='players', label='number of players (at most 10 per deck)', values='2..40')
    """
    out = []
    for key, info in _fields(GameConfig):
        values, label = _values(info.annotation, info.metadata), setting_label(key)
        if key == "edition":  # its values are the shipped files, not a type
            values, label = "NAME|PATH", f"{label} (shipped: {', '.join(list_editions())})"
        elif key == "seats":  # a union of three seat forms reads badly as types
            values = "[SEAT, ...]|null"
            label += (" (one per player; SEAT: a policy name, module:Class, file.py:Class or "
                      "{policy: NAME, params: {...}}; overrides policy)")
        elif info.description:
            label += f" ({info.description})"
        out.append(Setting(key, label, values))
    return out

