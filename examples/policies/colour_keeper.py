"""ColourKeeper: a plug-in player that keeps to the colour it holds most.

Every decision uses only the seat's public view (docs/plugins.md):

* on its turn it plays, among its legal cards, a card of the colour it holds
  most (action cards before numbers, higher numbers first, to shed points),
  a wild only when nothing else fits, and draws only with no legal card;
* a card it has just drawn is played if it is not a wild, otherwise kept;
* after a wild it names the colour it holds most (``color``);
* Seven-O swaps and special wilds target the smallest other hand (``target``);
* facing a WD4 (or any challengeable wild) it challenges when the player who
  laid it held six or more cards (a big hand is likely to hold the colour, so
  the play was probably a bluff) (``challenge``);
* it stacks a penalty when it can, and always jumps in when allowed.

It plays every edition: a card's colour is its token's first letter and a wild
is a kind without a colour (``view.kinds``), so UNO Flip's dark side (colours
P T O U, wilds WK and WDC) is played like the light one.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

LIGHT, DARK = "RYGB", "PTOU"  # the colours' letters (UNO Flip's dark side: DARK)


def _is_card(view: Any, token: str) -> bool:
    return token in view.kinds.tokens


def _is_wild(view: Any, token: str) -> bool:
    return bool(view.kinds.color[view.kinds.kind(token)] < 0)


def _colour_counts(view: Any) -> Counter[str]:
    return Counter(c[0] for c in view.hand if not _is_wild(view, c))


def _rank(view: Any, card: str) -> int:
    """Higher sorts first: action cards, then numbers high to low; wilds last."""
    if _is_wild(view, card):
        return -1
    rest = card[1:]
    return int(rest) if rest.isdigit() else 20


class ColourKeeper:
    """Play the colour held most; wilds last; name the colour held most."""

    def choose(self, view: Any, legal_actions: list[str]) -> str:
        cards = [a for a in legal_actions if _is_card(view, a)]
        if view.phase == "drawn":
            drawn = view.drawn if view.drawn in legal_actions else cards[0]
            return (drawn if not _is_wild(view, drawn) or "pass" not in legal_actions
                    else "pass")
        if not cards:
            return "accept" if "accept" in legal_actions else legal_actions[0]
        counts = _colour_counts(view)
        return max(cards, key=lambda c: (not _is_wild(view, c),
                                         0 if _is_wild(view, c) else counts[c[0]],
                                         _rank(view, c)))

    def color(self, view: Any) -> str:
        colours = DARK if getattr(view, "side", "light") == "dark" else LIGHT
        counts = _colour_counts(view)
        return max(colours, key=lambda c: (counts[c], -colours.index(c)))

    def target(self, view: Any, candidates: list[int]) -> int:
        return min(candidates, key=lambda q: (view.hand_sizes[q], q))

    def challenge(self, view: Any) -> bool:
        plays = [e for e in view.events if e["e"] == "play"]
        if not plays:
            return False
        # the wild being challenged is the latest card played; the hand size of its
        # player before they laid it
        return view.hand_sizes[plays[-1]["p"]] + 1 >= 6
