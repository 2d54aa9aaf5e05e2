"""The strict model base and the rule models editions and configs share.

Each configurable rule is one pydantic field, and that field is its only
declaration: the key users write, the label reports and help print
(``title``), its limits (``ge``/``le`` from ``unosim.rules.limits``) and, via
``Phrase``, how a value of it reads in a sentence. ``unosim.rules.settings``
reads these declarations for every other layer.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from unosim.rules.errors import KeyedValueError, quoted
from unosim.rules.plugins import is_plugin_name

__all__ = [
    "HABIT_NAMES",
    "PLAYOUT_POLICIES",
    "POLICY_DEFAULTS",
    "POLICY_NAMES",
    "Count",
    "MAX_ISMCTS_ITERATIONS",
    "EditionBehaviour",
    "HabitName",
    "HabitParams",
    "HouseRules",
    "Phrase",
    "PlayoutName",
    "PluginName",
    "PolicyName",
    "RULINGS",
    "Rate",
    "SeatSpec",
    "Source",
    "Stacking",
    "StrictModel",
    "policy_params",
    "source_of",
]


class StrictModel(BaseModel):
    """Unknown keys and coercions are errors: a typo must not silently mean 'default'."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


@dataclass(frozen=True)
class Phrase:
    """How a setting at some value reads in a sentence ('6 players', 'single rounds').

    Field metadata, next to the title: ``template`` formats the value (``{}``;
    ``{s}`` is an ``s`` unless the value is 1), ``fixed`` gives whole phrases
    for particular values. Without it a setting reads '<label> <value>'.
    """

    template: str = ""
    fixed: Mapping[Hashable, str] = field(default_factory=dict)


Count = Annotated[int, Field(ge=0)]
Rate = Annotated[float, Field(ge=0.0, le=1.0)]


@dataclass(frozen=True)
class Source:
    """Field metadata: where a house rule or ruling comes from (``unosim rulings`` prints it).

    ``official`` is the printed rule a ruling's default keeps; a field with a
    Source whose ``section`` is 12 is a ruling of docs/rules.md §12, left out of
    dumps while it keeps that default, so configs, traces, hashes and summaries
    of games played by the printed rules read as they did before the rulings.
    """

    note: str
    section: int = 6


_SEED = "seed 004 (classic W2085 guide)"
_HOUSE = f"house rule, {_SEED}, 'Popular variants and house rules'"
_TABLE = "a table variant (docs/rules.md section 12)"


class Stacking(StrictModel):
    """Which pending-draw cards may be stacked on which (docs/rules.md §6)."""

    draw_two_on_draw_two: Annotated[bool, Field(title="Draw Two on Draw Two"),
                                    Source(_HOUSE)] = False
    wd4_on_wd4: Annotated[bool, Field(title="Wild Draw Four on Wild Draw Four"),
                          Source(f"{_HOUSE} ('many tables also allow Wild Draw Four')")] = False
    wd4_on_draw_two: Annotated[bool, Field(title="Wild Draw Four on Draw Two"),
                               Source(f"{_HOUSE} ('many tables also allow Wild Draw Four')")
                               ] = False
    draw_two_on_wd4: Annotated[bool, Field(title="Draw Two on Wild Draw Four"),
                               Source(f"{_TABLE}, beside {_SEED}'s stacking")] = False


class HouseRules(StrictModel):
    """docs/rules.md §6 and the rulings of §12; all play the printed rules unless
    the edition or the config changes them."""

    stacking: Stacking = Field(Stacking(), title="stacking")
    jump_in: Annotated[
        bool | Literal["same_number"], Field(title="jump-in"),
        Phrase(fixed={"same_number": "jump-in on the same number"}),
        Source(f"{_HOUSE} (the exact card); same_number (any color, same number): {_TABLE}"),
    ] = False
    seven_o: Annotated[bool, Field(title="Seven-O"), Source(_HOUSE)] = False
    draw_until_play: Annotated[bool, Field(title="draw until you can play"), Source(
        f"house rule, {_SEED}, 'Arguments UNO tables have, settled'")] = False
    two_player_reverse: Annotated[bool, Field(title="two-player Reverse as Skip"), Source(
        f"Mattel's 30th Anniversary sheet 42885, quoted by {_SEED}; W2085 has no "
        "two-player rules")] = False
    # --- rulings people argue about (docs/rules.md §12) ---
    draw_then_play: Annotated[
        Literal["drawn", "any", "none"], Field(title="play after drawing"),
        Phrase(fixed={"drawn": "only the drawn card after drawing",
                      "any": "any card after drawing", "none": "drawing ends the turn"}),
        Source(f"official 'drawn': {_SEED} ('nothing else from your hand'); 'any' and "
               f"'none': {_TABLE}", 12),
    ] = "drawn"
    forced_play: Annotated[bool, Field(title="must play when able"), Source(
        f"official: you may draw instead, {_SEED}; forcing play: {_TABLE}", 12)] = False
    wd4_unrestricted: Annotated[bool, Field(title="Wild Draw Four without restriction"), Source(
        f"official: only without the current color, {_SEED}; without restriction: {_TABLE}",
        12)] = False
    challenge: Annotated[bool, Field(title="Wild Draw Four challenge"), Source(
        f"official: a WD4 may be challenged, {_SEED}; no challenge: {_TABLE}", 12)] = True
    deflect: Annotated[bool, Field(title="deflect a draw with Reverse or Skip"), Source(
        f"the 'UNO reverse card': Mattel's answer is no; {_TABLE}", 12)] = False
    no_action_finish: Annotated[bool, Field(title="no action card or wild as the last card"),
                                Source(f"official: any legal card may be the last, {_SEED}; "
                                       f"numbers only: {_TABLE}", 12)] = False
    multiple_play: Annotated[bool, Field(title="play every card of the same number at once"),
                             Source(f"official: one card per turn (all seeds); {_TABLE}",
                                    12)] = False
    seven_o_swap: Annotated[
        Literal["chosen", "next"], Field(title="Seven-O swap partner"),
        Phrase(fixed={"chosen": "a 7 swaps with a chosen player",
                      "next": "a 7 swaps with the next player"}),
        Source(f"{_SEED}'s Seven-O: any player ('chosen'); 'next': {_TABLE}", 12),
    ] = "chosen"
    seven_o_pass: Annotated[
        Literal["direction", "left"], Field(title="Seven-O pass direction"),
        Phrase(fixed={"direction": "a 0 passes hands in the direction of play",
                      "left": "a 0 passes hands to the left"}),
        Source(f"{_SEED}'s Seven-O: the direction of play; 'left': {_TABLE}", 12),
    ] = "direction"
    last_card_draws: Annotated[bool, Field(title="a last Draw Two or WD4 still draws"), Source(
        f"official: the next player draws and it scores, {_SEED}; no draw: {_TABLE}",
        12)] = True

    @field_validator("jump_in", mode="before")
    @classmethod
    def _jump_in_value(cls, v: object) -> object:
        # one plain error for the union (pydantic would report each member)
        if v is True or v is False or v == "same_number":
            return v
        raise ValueError(f"expected true, false or same_number, got {quoted(v)}")

    @model_serializer(mode="wrap")
    def _printed_rulings_left_out(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out: dict[str, Any] = handler(self)
        for name in RULINGS:
            if name in out and out[name] == type(self).model_fields[name].default:
                del out[name]
        return out


def source_of(info: Any) -> Source | None:
    """A field's `Source` metadata, if it has one."""
    return next((m for m in getattr(info, "metadata", ()) if isinstance(m, Source)), None)


# The §12 rulings among the house rules, in declaration order (jump_in's
# same_number is a value of a §6 switch).
RULINGS: tuple[str, ...] = tuple(
    name for name, info in HouseRules.model_fields.items()
    if (src := source_of(info)) is not None and src.section == 12
)


class EditionBehaviour(StrictModel):
    """Player-behaviour rates an edition may set as defaults (docs/rules.md §3)."""

    uno_forget_rate: Annotated[Rate, Field(title="UNO forget rate")] = 0.0
    uno_catch_rate: Annotated[Rate, Field(title="UNO catch rate")] = 1.0


# --- seats and their policies (docs/policies.md) ------------------------------
# Every policy name is declared here, once; the tuples and the engine's codes
# (`unosim.engine.kernel.state.POLICY_CODE`, in this order) are derived from these types.
# the habit policies, one compiled machine (`unosim.engine.kernel.habits`)
HabitName = Literal["greedy", "cautious", "defender", "strategic"]
# the compiled policies an ``ismcts`` seat (or ``unosim advise``) may play out with
PlayoutName = Literal["random", HabitName]
PolicyName = Literal[PlayoutName, "ismcts"]
HABIT_NAMES: tuple[str, ...] = get_args(HabitName)
PLAYOUT_POLICIES: tuple[str, ...] = get_args(PlayoutName)
POLICY_NAMES: tuple[str, ...] = get_args(PolicyName)


def _plugin(name: str) -> str:
    if not is_plugin_name(name):
        raise ValueError(f"expected a policy ({', '.join(POLICY_NAMES)}) or a plug-in "
                         f"module:Class or file.py:Class, got {name[:80]!r}")
    return name


# a seat played by a Python class (`unosim.engine.plugins`), e.g. ``mypkg.mod:MyPolicy``
PluginName = Annotated[str, AfterValidator(_plugin)]
# The most iterations an ``ismcts`` seat may spend on one decision (its tree is preallocated).
MAX_ISMCTS_ITERATIONS = 10_000
# The hand-size thresholds of the habits ("an opponent on at most N cards").
MAX_HABIT_HAND = 20
HandSize = Annotated[int, Field(ge=1, le=MAX_HABIT_HAND)]


class HabitParams(StrictModel):
    """The parameters of the habit policies (every policy but ``random``).

    Each field is declared once here, with its limits; the defaults are those
    of a policy with every habit off, and `POLICY_DEFAULTS` turns on each
    policy's own habits. The engine maps each field to a ``P_*`` column.
    """

    bluff_rate: Annotated[Rate, Field(title="WD4 bluff rate", description=(
        "with nothing legal to play, play an illegal WD4 at this rate"))] = 0.0
    challenge_threshold: Annotated[Rate, Field(title="challenge threshold", description=(
        "challenge a WD4 when the chance it was illegal, judged from public "
        "cards, is above this (1: never)"))] = 1.0
    jump_in_rate: Annotated[Rate, Field(title="jump-in rate")] = 1.0
    shed_points: bool = Field(False, title="shed the most points first")
    numbers_first: bool = Field(False, title="numbers first, wilds last")
    keep_colors: bool = Field(False, title="keep more than one color")
    name_most_held: bool = Field(False, title="name the color held most")
    keep_stack_reserve: bool = Field(False, title="keep a stackable card in reserve")
    dump_high_value: bool = Field(False, title="dump high-value cards near the end")
    dump_at: Annotated[HandSize, Field(title="an opponent's cards that start the dump")] = 3
    save_attack: bool = Field(False, title="save Draw Two and Skip for a short next hand")
    attack_at: Annotated[HandSize, Field(title="the next hand's cards that draw an attack")] = 1
    hold_wd4: bool = Field(False, title="hold the WD4 until legal and useful")
    wd4_at: Annotated[HandSize, Field(title="the next hand's cards that make a WD4 useful")] = 2
    reverse_away: bool = Field(False, title="Reverse away from a player about to go out")
    reverse_at: Annotated[HandSize, Field(title="the next hand's cards that call a Reverse")] = 1
    switch_to_void: bool = Field(False, title="switch to a color the next player drew on")
    target_by_size: bool = Field(False, title="target the smallest hand")
    call_uno: bool = Field(False, title="always call UNO")
    # ismcts only (docs/ismcts.md): a budget in iterations, not seconds, so a
    # seed gives the same decisions on every backend
    iterations: Annotated[int, Field(ge=1, le=MAX_ISMCTS_ITERATIONS, title=(
        "ISMCTS iterations per decision"))] = 1000
    exploration: Annotated[float, Field(ge=0.0, le=10.0, title="ISMCTS exploration constant")] = 0.7
    playout: PlayoutName = Field("random", title="ISMCTS playout policy")
    prior: HabitName = Field("cautious", title="ISMCTS prior policy", description=(
        "the habit policy whose move the search keeps unless another earns more visits"))
    prior_weight: Annotated[Rate, Field(title="ISMCTS prior weight", description=(
        "the prior's move starts ahead by this share of the iterations (0: no prior)"))] = 0.0


_CAUTIOUS = {"numbers_first": True, "keep_colors": True, "name_most_held": True}
# Each habit policy is `HabitParams` with these set; ``random`` takes no parameters.
POLICY_DEFAULTS: dict[str, Mapping[str, bool | float]] = {
    "greedy": {"shed_points": True, "name_most_held": True},
    "cautious": _CAUTIOUS,
    "defender": {**_CAUTIOUS, "keep_stack_reserve": True},
    "strategic": {
        **_CAUTIOUS, "dump_high_value": True, "save_attack": True, "hold_wd4": True,
        "reverse_away": True, "switch_to_void": True, "target_by_size": True,
        "call_uno": True, "challenge_threshold": 0.25,
    },
    "ismcts": {"call_uno": True},
}


def policy_params(policy: str, given: Mapping[str, object] | None = None) -> HabitParams | None:
    """A policy's parameters: its defaults under ``given``; None for ``random``.

    >>> policy_params("strategic", {"bluff_rate": 0.2}).bluff_rate
    0.2
    """
    if policy == "random" or is_plugin_name(policy):
        if given:
            raise KeyedValueError("params", f"{policy} takes no params here (random: docs/rules.md "
                                  "section 7 fixes its choices; a plug-in reads its own)")
        return None
    return HabitParams.model_validate({**POLICY_DEFAULTS[policy], **(given or {})})


class SeatSpec(StrictModel):
    """A seat written ``{policy: NAME, params: {...}}``; a bare name is also a seat.

    It dumps only the params that differ from the policy's defaults, so a
    config reads back unchanged and hashes the same however it was written.
    """

    policy: PolicyName
    params: HabitParams | None = None

    @model_validator(mode="before")
    @classmethod
    def _fill_defaults(cls, data: object) -> object:
        if not isinstance(data, Mapping):
            return data
        # The policy's defaults go under the given params; pydantic then
        # validates them as HabitParams, naming any bad key.
        policy, given = data.get("policy"), data.get("params")
        if policy == "random":
            if given:
                raise KeyedValueError("params", "random takes no params (docs/rules.md section 7 "
                                      "fixes its choices)")
            return {**data, "params": None}
        if policy in POLICY_DEFAULTS and (given is None or isinstance(given, Mapping)):
            return {**data, "params": {**POLICY_DEFAULTS[policy], **(given or {})}}
        return data

    @model_serializer(mode="wrap")
    def _compact(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out = handler(self)
        params = out.pop("params", None) or {}
        defaults = policy_params(self.policy)
        base = defaults.model_dump() if defaults is not None else {}
        changed = {k: v for k, v in params.items() if base.get(k) != v}
        return {**out, "params": changed} if changed else out

    def __str__(self) -> str:
        params = self.model_dump().get("params", {})
        inner = ", ".join(f"{k}={v}" for k, v in params.items())
        return f"{self.policy}({inner})" if inner else self.policy
