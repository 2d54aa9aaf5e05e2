"""The card predicates of `unosim.rules.cards`, compiled for the kernel.

The very functions the rules layer uses, not copies: numba inlines these
one-liners, so the kernel reads ``is_draw_two(k)`` at no cost over writing
the kind arithmetic out (which appears nowhere outside ``rules/cards.py``).
"""

from __future__ import annotations

from unosim.engine.jit import jit
from unosim.rules import cards

card = jit(cards.card)
color_of = jit(cards.color_of)
rank_of = jit(cards.rank_of)
is_wild = jit(cards.is_wild)
suit_of = jit(cards.suit_of)
is_number = jit(cards.is_number)
is_action = jit(cards.is_action)
is_skip = jit(cards.is_skip)
is_reverse = jit(cards.is_reverse)
is_draw_two = jit(cards.is_draw_two)
same_rank = jit(cards.same_rank)
