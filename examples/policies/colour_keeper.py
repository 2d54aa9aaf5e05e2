"""ColourKeeper: a plug-in player that keeps to the colour it holds most.

Every decision uses only the seat's public view (docs/plugins.md):

* on its turn it plays, among its legal cards, a card of the colour it holds
  most (action cards before numbers, higher numbers first, to shed points),
  a wild only when nothing else fits, and draws only with no legal card;
* a card it has just drawn is played if it is not a wild, otherwise kept;
* after a wild it names the colour it holds most (``color``);
* Seven-O swaps and special wilds target the smallest other hand (``target``);
* facing a WD4 it challenges when the player who laid it held six or more
  cards (a big hand is likely to hold the colour, so the play was probably a
  bluff) (``challenge``);
* it stacks a penalty when it can, and always jumps in when allowed.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

COLOURS = "RYGB"
WILDS = ("W", "WD4", "WX")


def _colour_counts(hand: tuple[str, ...]) -> Counter[str]:
    return Counter(c[0] for c in hand if c not in WILDS)


def _rank(card: str) -> int:
    """Higher sorts first: action cards, then numbers high to low; wilds last."""
    if card in WILDS:
        return -1
    rest = card[1:]
    return int(rest) if rest.isdigit() else 20


class ColourKeeper:
    """Play the colour held most; wilds last; name the colour held most."""

    def choose(self, view: Any, legal_actions: list[str]) -> str:
        cards = [a for a in legal_actions if a[0] in COLOURS or a in WILDS]
        if view.phase == "drawn":
            drawn = view.drawn if view.drawn in legal_actions else cards[0]
            return drawn if drawn not in WILDS or "pass" not in legal_actions else "pass"
        if not cards:
            return "accept" if "accept" in legal_actions else legal_actions[0]
        counts = _colour_counts(view.hand)
        return max(cards, key=lambda c: (c not in WILDS, counts[c[0]] if c[0] in COLOURS
                                         and c not in WILDS else 0, _rank(c)))

    def color(self, view: Any) -> str:
        counts = _colour_counts(view.hand)
        return max(COLOURS, key=lambda c: (counts[c], -COLOURS.index(c)))

    def target(self, view: Any, candidates: list[int]) -> int:
        return min(candidates, key=lambda q: (view.hand_sizes[q], q))

    def challenge(self, view: Any) -> bool:
        plays = [e for e in view.events if e["e"] == "play" and e["card"] == "WD4"]
        if not plays:
            return False
        # the hand size of the WD4's player before they laid it
        return view.hand_sizes[plays[-1]["p"]] + 1 >= 6
