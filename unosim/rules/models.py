"""The strict model base and the rule models editions and configs share.

Each configurable rule is one pydantic field, and that field is its only
declaration: the key users write, the label reports and help print
(``title``), its limits (``ge``/``le`` from ``unosim.rules.limits``) and, via
``Phrase``, how a value of it reads in a sentence. ``unosim.rules.settings``
reads these declarations for every other layer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "Count",
    "EditionBehaviour",
    "HouseRules",
    "Phrase",
    "Rate",
    "Stacking",
    "StrictModel",
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
    fixed: Mapping[Any, str] = field(default_factory=dict)


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


class EditionBehaviour(StrictModel):
    """Player-behaviour rates an edition may set as defaults (RULES.md section 3)."""

    uno_forget_rate: Annotated[Rate, Field(title="UNO forget rate")] = 0.0
    uno_catch_rate: Annotated[Rate, Field(title="UNO catch rate")] = 1.0
