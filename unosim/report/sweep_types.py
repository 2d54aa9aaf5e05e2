"""What a sweep's answer reads of the sweep: its groups, axes and baseline.

`unosim.report.sweep` builds the `Sweep` and words its answer with
`unosim.report.sweep_answers`; the answers name the sweep only through
`SweepGrid`, so neither module imports the other in a circle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from unosim.report.comparison import Comparison
    from unosim.report.grid import Axis

__all__ = ["Group", "SweepGrid"]


@dataclass
class Group:
    """A baseline cell and the cells compared with it (``cells[0]`` is the baseline).

    ``cmp`` compares their runs in that order; its decisions are the sweep's
    (Holm across every group), not the group's alone.
    """

    cells: list[int]
    cmp: Comparison


class SweepGrid(Protocol):
    """The part of a sweep its answer sentences and effect charts read."""

    @property
    def axes(self) -> list[Axis]: ...

    @property
    def baseline(self) -> tuple[int, int]:
        """(axis index, value index) of the baseline key and value."""
        ...

    @property
    def groups(self) -> list[Group]: ...

    @property
    def x_axis(self) -> int:
        """The axis effects are drawn and described along."""
        ...

    def place(self, cell: int) -> tuple[Group, int]:
        """The group holding ``cell`` and its position there (0: a baseline cell)."""
        ...
