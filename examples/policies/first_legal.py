"""FirstLegal: the smallest possible plug-in player (docs/plugins.md).

It takes the first legal action every time. Actions come sorted with the
cards first (by kind: red, yellow, green, blue, then wilds), so it plays a
card whenever it can, plays a card it just drew, stacks when stacking is
allowed, never challenges, names red after a wild and targets the lowest
seat. It only defines ``choose``: the engine asks it every decision.

    unosim play configs/classic.yaml --set 'seats=[examples/policies/first_legal.py:FirstLegal, random, random, random]'
"""

from __future__ import annotations


class FirstLegal:
    """Take the first legal action."""

    def choose(self, view: object, legal_actions: list[str]) -> str:
        return legal_actions[0]
