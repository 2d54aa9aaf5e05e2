"""The compiled policies: who plays what when a decision comes up.

``random`` is the reference policy of docs/rules.md §7, in
`unosim.engine.kernel.reference`. ``greedy``, ``cautious``,
``defender`` and ``strategic`` are sets of named habits, one compiled machine
in `unosim.engine.kernel.habits` (docs/policies.md). A seat's policy is
``pp[seat, P_KIND]``; adding a habit is a field of
`unosim.rules.models.HabitParams` (which gives it a ``pp`` column), the
``P_*`` name the kernel reads it by in `unosim.engine.kernel.state`, and its lines
in `unosim.engine.kernel.habits`.
"""

from __future__ import annotations

from unosim.engine.kernel.habits import habit_action
from unosim.engine.kernel.ismcts import ismcts_action
from unosim.engine.kernel.jit import jit
from unosim.engine.kernel.reference import random_action
from unosim.engine.kernel.state import P_KIND, POLICY_ISMCTS, POLICY_RANDOM, S_CUR, Config, State


@jit
def policy_action(S: State, C: Config) -> int:
    """The compiled policy of the seat that must decide now."""
    kind = C.pp[S.s[S_CUR], P_KIND]
    if kind == POLICY_RANDOM:
        return random_action(S, C)
    if kind == POLICY_ISMCTS:
        return ismcts_action(S, C)
    return habit_action(S, C)
