"""Render the kernel's event rows as TRACE.md events, and as readable text.

The kernel writes compact rows (code, a, b, c, card-log offset, length);
this module turns them into the JSON Lines objects of ../shared/TRACE.md and
into the human log of ``unosim play``.
"""

from __future__ import annotations

import json
from typing import Any

from unosim.engine import kernel as K
from unosim.engine import layout as L
from unosim.rules.cards import COLORS, NK, token

SPECIAL_NAMES = {L.SPECIAL_NONE: "none", L.SPECIAL_MOVIE: "movie_madness",
                 L.SPECIAL_WISH: "wishing_star", L.SPECIAL_DONT_TALK: "dont_talk"}


def render_events(r: Any, ev: Any, cl: Any) -> list[dict]:
    """Event dicts for the rows ``ev`` of round ``r`` (a `Round`)."""
    out: list[dict] = []
    rnd = r.round_index
    n = r.players
    ci = r.C['ci']

    def cards(off: int, ln: int) -> list[str]:
        return [token(k) for k in cl[off: off + ln]]

    for row in ev:
        code, a, b, c, off, ln = (int(x) for x in row)
        e: dict[str, Any] = {"e": L.EV_NAMES[code], "round": rnd}
        if code == L.EV_DEAL:
            hands, i = [], off
            for _ in range(n):
                m = int(cl[i])
                hands.append(cards(i + 1, m))
                i += 1 + m
            e.update(dealer=a, players=n,
                     active=[q for q in range(n) if r.S['seat'][q, K.SEAT_ALIVE]],
                     hands=hands, draw=cards(i, off + ln - i),
                     edition=r.cc.edition_name, rules=r.cc.rules)
            if int(ci[L.C_SPECIAL]) == L.SPECIAL_WISH:
                e["wish_icons"] = [token(k) for k in range(NK) if r.C['icons'][k]]
        elif code == L.EV_FLIP:
            e["card"] = token(a)
        elif code == L.EV_RETURN:
            e.update(card=token(a), draw=cards(off, ln))
        elif code == L.EV_TURN:
            e.update(p=a, color=COLORS[b], top=token(c))
        elif code == L.EV_PLAY:
            e.update(p=a, card=token(b), color=COLORS[c])
        elif code == L.EV_DRAW:
            e.update(p=a, cards=cards(off, ln), cause=L.CAUSES[b])
        elif code == L.EV_RESHUFFLE:
            e["draw"] = cards(off, ln)
        elif code in (L.EV_SKIP, L.EV_SILENCE_END, L.EV_SLIP):
            e["p"] = a
        elif code in (L.EV_REVERSE, L.EV_ROTATE):
            e["direction"] = a
        elif code == L.EV_CHALLENGE:
            e.update(p=a, target=b, success=bool(c))
        elif code == L.EV_UNO:
            e.update(p=a, called=bool(b), caught=bool(c))
        elif code == L.EV_JUMP:
            e.update(p=a, card=token(b))
        elif code == L.EV_SWAP:
            e.update(a=a, b=b)
        elif code == L.EV_SPECIAL:
            sp = int(ci[L.C_SPECIAL])
            if sp == L.SPECIAL_WISH:
                outcome: Any = [int(x) for x in cl[off: off + ln]]
                target = None
            else:
                target = b
                outcome = ("failed" if c else "named") if sp == L.SPECIAL_MOVIE else "silenced"
            e.update(p=a, card="WX", special=SPECIAL_NAMES[sp], target=target, outcome=outcome)
        elif code == L.EV_END:
            e.update(winner=None if a < 0 else a, points=b, hands=r.hands, turns=c)
        elif code == L.EV_SCORE:
            vals = [int(x) for x in cl[off: off + ln]]
            e.update(scores=vals[:a], eliminated=vals[a:])
        elif code == L.EV_MATCH_END:
            ws = [int(x) for x in cl[off: off + ln]]
            e.update(winner=None if not ws else (ws[0] if len(ws) == 1 else ws),
                     scores=[int(x) for x in r.S['seat'][:n, K.SEAT_SCORE]])
        out.append(e)
    return out


def to_jsonl(events: list[dict]) -> str:
    return "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in events)


def _names(seat_names: list[str] | None, p: int | None) -> str:
    if p is None:
        return "nobody"
    return seat_names[p] if seat_names else f"P{p}"


def to_text(events: list[dict], seat_names: list[str] | None = None,
            color_labels: list[str] | None = None) -> str:
    """A readable turn-by-turn log of the same events."""
    cn = dict(zip(COLORS, color_labels or ["red", "yellow", "green", "blue"], strict=True))

    def nm(p: int | None) -> str:
        return _names(seat_names, p)

    lines: list[str] = []
    for e in events:
        k = e["e"]
        if k == "deal":
            lines.append(f"== Round {e['round'] + 1}: {nm(e['dealer'])} deals "
                         f"({e['edition']}, {e['players']} players)")
            for p, h in enumerate(e["hands"]):
                if p in e.get("active", range(e["players"])):
                    lines.append(f"   {nm(p)}: {' '.join(h)}")
        elif k == "flip":
            lines.append(f"   flip: {e['card']}")
        elif k == "return":
            lines.append(f"   {e['card']} goes back into the pile")
        elif k == "turn":
            lines.append(f"{nm(e['p'])}'s turn (top {e['top']}, color {cn[e['color']]})")
        elif k == "play":
            lines.append(f"   plays {e['card']}" + (f", names {cn[e['color']]}"
                                                    if e['card'].startswith("W") else ""))
        elif k == "draw":
            why = {"turn": "", "uno": " (missed UNO)", "challenge": " (challenge)",
                   "special": " (special wild)", "dont_talk": " (talked while silenced)"}
            lines.append(f"   {nm(e['p'])} draws {len(e['cards'])}: {' '.join(e['cards'])}"
                         + why.get(e["cause"], f" ({e['cause']})"))
        elif k == "reshuffle":
            lines.append(f"   discard reshuffled into a new draw pile of {len(e['draw'])}")
        elif k == "skip":
            lines.append(f"   {nm(e['p'])} is skipped")
        elif k == "reverse":
            lines.append(f"   direction is now {'+1' if e['direction'] > 0 else '-1'}")
        elif k == "challenge":
            lines.append(f"   {nm(e['p'])} challenges {nm(e['target'])}: "
                         + ("caught bluffing" if e["success"] else "the play was legal"))
        elif k == "uno":
            lines.append(f"   {nm(e['p'])} " + ("calls UNO!" if e["called"] else
                         ("forgets UNO and is caught" if e["caught"] else "forgets UNO")))
        elif k == "jump":
            lines.append(f"{nm(e['p'])} jumps in with {e['card']}")
        elif k == "swap":
            lines.append(f"   {nm(e['a'])} swaps hands with {nm(e['b'])}")
        elif k == "rotate":
            lines.append(f"   every hand passes {'left' if e['direction'] > 0 else 'right'}")
        elif k == "special":
            lines.append(f"   special wild: target {nm(e['target'])}, outcome {e['outcome']}")
        elif k == "silence_end":
            lines.append(f"   {nm(e['p'])} may talk again")
        elif k == "slip":
            lines.append(f"   {nm(e['p'])} talked while silenced")
        elif k == "end":
            if e["winner"] is None:
                lines.append(f"== Stalemate after {e['turns']} turns")
            else:
                lines.append(f"== {nm(e['winner'])} goes out after {e['turns']} turns "
                             f"and the round is worth {e['points']} points")
        elif k == "score":
            lines.append("   scores: " + ", ".join(f"{nm(p)} {s}" for p, s in enumerate(e["scores"]))
                         + (f"; eliminated {e['eliminated']}" if e.get("eliminated") else ""))
        elif k == "match_end":
            w = e["winner"]
            who = "nobody (unfinished)" if w is None else (
                " & ".join(nm(x) for x in w) if isinstance(w, list) else nm(w))
            lines.append(f"== Match won by {who}")
    return "\n".join(lines) + "\n"
