"""Names for rule-set variants: a run's name from its ``--set`` overrides, and column labels.

A run made with ``--set`` plays other rules than its config file, so it gets
another name (and so another default out dir): `variant_name` adds each
override to the config's name. A comparison labels each rule set by what
differs from the first (`difference_labels`), in the rules layer's words, so
two runs of files with the same name still get distinct, meaningful labels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from unosim.rules.config import GameConfig, name_slug
from unosim.rules.settings import describe_difference, seat_words, settings
from unosim.rules.yamlio import parse_yaml

__all__ = ["difference_labels", "variant_name"]

# Keys that say which run this is, not which rules it plays: not part of a variant's name.
_NOT_RULES = ("games", "seed")


def _flat(key: str, value: object) -> list[tuple[str, object]]:
    """``house_rules.stacking={a: true}`` as ``[("house_rules.stacking.a", True)]``."""
    if isinstance(value, Mapping):
        return [kv for k, v in value.items() for kv in _flat(f"{key}.{k}", v)]
    return [(key, value)]


def _token(key: str, value: object) -> str:
    """One override in a name: ``jump_in``, ``no_seven_o``, ``players=6``."""
    leaf = key.rsplit(".", 1)[-1]  # leaf names are unique among the settings
    if value is True:
        return leaf
    if value is False:
        return f"no_{leaf}"
    if isinstance(value, list):
        text = ",".join(seat_words(v) for v in value)
    elif isinstance(value, float):
        text = f"{value:g}"
    else:
        text = "null" if value is None else str(value)
    return f"{leaf}={text}"


def variant_name(cfg_name: str, overrides: Sequence[str] | Mapping[str, object]) -> str:
    """The name of ``cfg_name`` played with ``overrides`` (``KEY=VALUE`` texts or a mapping).

    The overrides are written ``NAME+jump_in+players=6`` (a switch by its own
    name, ``no_`` for off, other settings as ``key=value``), in the settings'
    declared order whatever order they were given in, a later value of a key
    replacing an earlier one; then made a slug by
    `unosim.rules.config.name_slug`. That keeps ASCII letters, digits, ``-``,
    ``_`` and ``+`` (safe in file names everywhere), so ``=`` becomes ``-``:
    the name is then also the default out dir, as safe as any other. It is at most 64 characters; a longer one keeps
    its head and a hash of the whole, so distinct variants stay distinct.
    ``games`` and ``seed`` change the run, not the rules, and are left out; a
    ``name`` override is the name.

    >>> variant_name("classic", ["house_rules.jump_in=true"])
    'classic+jump_in'
    >>> variant_name("classic", ["players=6", "house_rules.seven_o=false", "seed=3"])
    'classic+players-6+no_seven_o'
    >>> variant_name("classic", {"behaviour.uno_forget_rate": 0.25,
    ...                          "seats": ["random", "strategic"]})
    'classic+seats-random-strategic+uno_forget_rate-0-25'
    >>> variant_name("classic", ["house_rules.stacking={wd4_on_wd4: true}", "name=mine"])
    'mine'
    >>> variant_name("classic", []), len(variant_name("classic", {"seats": ["strategic"] * 40}))
    ('classic', 64)
    """
    items = overrides.items() if isinstance(overrides, Mapping) else [
        _parse(o) for o in overrides]
    values: dict[str, object] = {}
    for key, value in items:
        for k, v in _flat(key.strip(), value):
            values.pop(k, None)  # the last value of a key counts, at its declared place
            values[k] = v
    if "name" in values:
        return str(values["name"])
    order = {s.key: i for i, s in enumerate(settings())}
    keys = sorted((k for k in values if k not in _NOT_RULES),
                  key=lambda k: (order.get(k, len(order)), k))
    if not keys:
        return cfg_name
    return name_slug("+".join([cfg_name, *(_token(k, values[k]) for k in keys)]))


def _parse(item: str) -> tuple[str, object]:
    """``KEY=VALUE`` as (key, parsed YAML value), as ``--set`` reads it."""
    key, _, text = item.partition("=")
    return key.strip(), parse_yaml(text, f"--set {item}", key.strip())


def difference_labels(cfgs: Sequence[GameConfig]) -> list[str]:
    """A label per config: the first its name, each other what differs from the first.

    The differences are the rules layer's phrases
    (`unosim.rules.settings.describe_difference`); a config whose rules do
    not differ is labelled by its name. Labels that would repeat get the
    config's name added, then their position (the first keeps its name), so
    every label is distinct.

    >>> from unosim.rules.config import load_config
    >>> base = load_config("classic")
    >>> difference_labels([base, load_config("classic", ["house_rules.jump_in=true"]),
    ...                    load_config("stacking", ["players=6"]), base])
    ['classic', 'jump-in', 'stacking (Draw Two on Draw Two), 6 players', 'classic #4']
    """
    if not cfgs:
        return []
    labels = [cfgs[0].name] + [", ".join(describe_difference(cfgs[0], c)) or c.name
                               for c in cfgs[1:]]
    for i, c in enumerate(cfgs):
        if i and labels.count(labels[i]) > 1 and labels[i] != c.name:
            labels[i] = f"{labels[i]} ({c.name})"
    return [label if i == 0 or labels.count(label) == 1 else f"{label} #{i + 1}"
            for i, label in enumerate(labels)]
