"""The observation and action encodings every environment shares (docs/env.md).

One action space for every decision: the kernel's own action ids
(`unosim.engine.kernel.state`), so an action an environment takes is the action the
engine applies and the trace records, with no translation in between:

========================  ===========================================
id                        decision
========================  ===========================================
``0 .. K-1``              play (or stack, or jump in with) card kind ``k``
``A_DRAW``                draw on a turn
``A_PASS``                keep the drawn card / let a jump-in go
``A_COLOR + c``           name colour ``c`` (R Y G B) after a wild
``A_ACCEPT``              take the pending draw
``A_CHALLENGE``           challenge a Wild Draw Four
``A_TARGET + q``          choose seat ``q`` (Seven-O swap, special wild)
========================  ===========================================

The observation is one float32 vector of what seat ``seat`` could see, laid
out as the sections of `Layout` (sizes from the config: players ``n`` and the
edition's kind table ``K``). It is filled by one compiled function,
`fill`, from the state's public parts and the seat's own rows; `encode_view`
fills it from a plug-in's `PublicView` through the same function. A UNO Flip
config's layout has three more sections (`FLIP_SECTIONS`: the side in play,
the backs of the other hands, the back of the draw pile's top card), written
by `fill_faces`; for every other edition they are empty and the layout is
the one it always was.

>>> from unosim.rules.config import load_config
>>> from unosim.engine.kernel.state import compile_config
>>> lay = layout(compile_config(load_config("two_player")))
>>> lay.size, lay.offset("hand"), lay.offset("top"), lay.sizes["known"]
(348, 0, 54, 108)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from unosim.engine.kernel import state as L
from unosim.engine.kernel.flip import face_of, flip_on
from unosim.engine.kernel.jit import jit, optional
from unosim.engine.kernel.rules import is_legal
from unosim.engine.kernel.state import FLIP, KernelArrays
from unosim.engine.trace import SIDE_COLORS, SIDES
from unosim.engine.view import PublicView
from unosim.rules.cards import CLASSIC, KindTable

__all__ = ["FLIP_SECTIONS", "N_ACTIONS", "N_PHASES", "SECTIONS", "Layout", "encode",
           "encode_view", "fill", "fill_faces", "layout", "layout_of", "legal_mask",
           "view_layout"]

N_ACTIONS = L.NA  # one Discrete(N_ACTIONS) for every decision (the kernel's action ids)
N_PHASES = 7  # PH_DONE .. PH_JUMP
_PHASE_CODE = {name: code for code, name in
               ((L.PH_DONE, "done"), (L.PH_TURN, "turn"), (L.PH_DRAWN, "drawn"),
                (L.PH_COLOR, "color"), (L.PH_PENDING, "pending"), (L.PH_TARGET, "target"),
                (L.PH_JUMP, "jump"))}

# The sections, in order, and what each holds (seats in absolute order 0..n-1, as the
# target actions name them). ``K`` kinds, ``n`` seats.
SECTIONS: tuple[tuple[str, str], ...] = (
    ("hand", "K: own cards of each kind"),
    ("top", "K: one-hot, the top card of the discard pile"),
    ("color", "4: one-hot, the active colour (R Y G B)"),
    ("direction", "1: 1 in seat order (+1), 0 against it"),
    ("phase", "7: one-hot, the decision the table waits for (done turn drawn color pending target jump)"),
    ("me", "n: one-hot, the observing seat"),
    ("current", "n: one-hot, the seat that must decide"),
    ("hand_sizes", "n: cards in each hand"),
    ("active", "n: 1 where the seat is in play (elimination scoring takes seats out)"),
    ("pending", "1: cards the seat facing a Draw Two / WD4 (or a stack) would draw"),
    ("drawn", "K: one-hot, the card this seat just drew, while it decides to play or keep it"),
    ("draw_size", "1: cards left in the draw pile"),
    ("discard", "K: cards of each kind in the discard pile (played since the last reshuffle)"),
    ("known", "n*K: cards of each kind this seat knows each seat holds (engine.known)"),
    ("scores", "n: match scores (zeros in round mode)"),
    # UNO Flip only (docs/rules.md section 11, what a seat sees); empty for other editions
    ("side", "1: 1 on the dark side, 0 on the light side"),
    ("backs", "n*K: the other faces of each other seat's cards, by kind (own row: zeros)"),
    ("draw_back", "K: one-hot, the other face of the draw pile's top card (zeros: empty pile)"),
)
_ORDER = tuple(name for name, _ in SECTIONS)
FLIP_SECTIONS = ("side", "backs", "draw_back")  # sized only in a two-sided edition's layout
_BY_SEAT = ("known", "backs")  # sections of n rows of K


@dataclass(frozen=True)
class Layout:
    """Where each section starts in the observation vector, for one config."""

    players: int
    kinds: int
    sizes: dict[str, int] = field(default_factory=dict)
    # the edition's card tokens by kind id (`layout_of` without a table: the classic ones)
    table: KindTable = CLASSIC

    @property
    def size(self) -> int:
        return sum(self.sizes.values())

    def offset(self, name: str) -> int:
        out = 0
        for s in _ORDER:
            if s == name:
                return out
            out += self.sizes[s]
        raise KeyError(name)

    @property
    def offsets(self) -> NDArray[np.int64]:
        """Section starts in `SECTIONS` order (what `fill` reads)."""
        return np.array([self.offset(s) for s in _ORDER], np.int64)

    def section(self, obs: NDArray[np.float32], name: str) -> NDArray[np.float32]:
        """The slice of ``obs`` that holds section ``name`` (``known``, ``backs``: n rows
        of K)."""
        o = self.offset(name)
        part = obs[..., o: o + self.sizes[name]]
        if name in _BY_SEAT and self.sizes[name]:
            return part.reshape(*obs.shape[:-1], self.players, self.kinds)
        return part


def layout(cc: KernelArrays) -> Layout:
    """The observation layout of a compiled config: ``K`` is the edition's kind table's
    length (``deck_counts``), not a constant, so editions with more kinds widen it."""
    return layout_of(int(cc.ci[L.C_PLAYERS]), len(cc.deck_counts), cc.kinds)


def view_layout(view: PublicView) -> Layout:
    """The layout a plug-in's view is encoded in: its players and its edition's kinds
    (``view.kinds``), so a seat of an edition with new kinds (``RSE``, ``WD10``) reads
    them at their own ids."""
    return layout_of(view.players, view.kinds.nk, view.kinds)


def layout_of(n: int, k: int, table: KindTable = CLASSIC) -> Layout:
    """The layout for ``n`` players and ``k`` card kinds whose tokens ``table`` gives (a
    plug-in: `view_layout`; classic's table by default, for a network trained on it).
    A two-sided table (UNO Flip) sizes `FLIP_SECTIONS` too.

    >>> from unosim.rules.cards import KindTable
    >>> flip = layout_of(2, 6, KindTable(("1",), ("W",), ("1",), ("WK",)))
    >>> flip.sizes["side"], flip.sizes["backs"], flip.sizes["draw_back"], layout_of(2, 6).sizes["backs"]
    (1, 12, 6, 0)
    """
    per = {"K": k, "n": n, "n*K": n * k}
    sizes = {}
    for name, text in SECTIONS:
        head = text.split(":")[0]
        sizes[name] = per[head] if head in per else int(head)
        if name in FLIP_SECTIONS and not table.two_sided:
            sizes[name] = 0
    return Layout(n, k, sizes, table)


# --- compiled ---------------------------------------------------------------------------------
@jit
def fill(out: NDArray[np.float32], off: NDArray[np.int64], n: int, seat: int,
         hand: NDArray[np.int64], top: int, color: int, direction: int, phase: int, cur: int,
         sizes: NDArray[np.int64], alive: NDArray[np.int64], pending: int, drawn: int,
         draw_size: int, discard: NDArray[np.int64], known: NDArray[np.int16],
         scores: NDArray[np.int64]) -> None:
    """Write one observation (the sections of `SECTIONS`, at ``off``) into ``out``.

    Every input is something ``seat`` may see: its own count row, its own
    known-cards rows, and public values. ``drawn`` < 0 and ``cur`` < 0 mean none."""
    out[:] = 0.0
    K = hand.shape[0]
    o = off[0]
    for k in range(K):
        out[o + k] = hand[k]
    out[off[1] + top] = 1.0
    out[off[2] + color] = 1.0
    out[off[3]] = 1.0 if direction > 0 else 0.0
    out[off[4] + phase] = 1.0
    out[off[5] + seat] = 1.0
    if cur >= 0:
        out[off[6] + cur] = 1.0
    for q in range(n):
        out[off[7] + q] = sizes[q]
        out[off[8] + q] = alive[q]
        out[off[14] + q] = scores[q]
        for k in range(K):
            out[off[13] + q * K + k] = known[q, k]
    out[off[9]] = pending
    if drawn >= 0:
        out[off[10] + drawn] = 1.0
    out[off[11]] = draw_size
    for i in range(discard.shape[0]):
        out[off[12] + discard[i]] += 1.0


def fill_faces(out: NDArray[np.float32], off: NDArray[np.int64], side: int,
               backs: NDArray[np.int64], draw_back: int) -> None:
    """Write UNO Flip's sections (`FLIP_SECTIONS`, at ``off[15:]``) into ``out`` from a
    view: the side in play, the ``backs`` counts (n rows of K: the other faces of each
    other seat's cards) and the draw pile's top back (< 0: none). The environments'
    compiled twin is `encode_faces`; a test holds the two equal."""
    out[off[15]] = side
    out[off[16]: off[16] + backs.size] = backs.ravel()
    if draw_back >= 0:
        out[off[17] + draw_back] = 1.0


def _no_faces(S: L.State, C: L.Config, seat: int, off: NDArray[np.int64],
              out: NDArray[np.float32]) -> None:
    return None


@optional(FLIP, _no_faces)
def encode_faces(S: L.State, C: L.Config, seat: int, off: NDArray[np.int64],
                 out: NDArray[np.float32]) -> None:
    """UNO Flip: the discard pile's faces in play (its values are physical cards), and
    what the backs show ``seat`` (`fill_faces`' sections), read from the face table at
    the other side only for the other hands' cards and the draw pile's top card.
    Written straight into ``out``: the vector env's step allocates nothing."""
    s, fl, hp, piles = S.s, S.fl, S.hp, S.piles
    n, K = C.ci[L.C_PLAYERS], C.ci[L.C_NK]
    side = s[L.S_SIDE]
    back = 1 - side
    for i in range(s[L.S_NDISC]):
        out[off[12] + fl[side, piles[1, i]]] += 1.0
    out[off[15]] = side
    for q in range(n):
        if q != seat:
            for v in range(C.ci[L.C_DECK_SIZE]):
                if hp[q, v] != 0:
                    out[off[16] + q * K + fl[back, v]] += 1.0
    nd = s[L.S_NDRAW]
    if nd > 0:
        out[off[17] + fl[back, piles[0, nd - 1]]] = 1.0


@jit
def encode(S: L.State, C: L.Config, seat: int, off: NDArray[np.int64],
           out: NDArray[np.float32]) -> None:
    """Seat ``seat``'s observation of state ``S``: `fill` from the parts it may see
    (and, for UNO Flip, `encode_faces`: then the discard pile is counted there)."""
    s = S.s
    n = C.ci[L.C_PLAYERS]
    K = C.ci[L.C_NK]
    ph = s[L.S_PHASE]
    cur = s[L.S_CUR] if ph != L.PH_DONE else -1
    drawn = s[L.S_DRAWN] if ph == L.PH_DRAWN and cur == seat else -1
    nd = s[L.S_NDISC]
    fill(out, off, n, seat, S.hands[seat, :K], face_of(S, S.piles[1, nd - 1]), s[L.S_COLOR],
         s[L.S_DIR], ph, cur, S.hands[:n, L.H_SIZE], S.seat[:n, L.SEAT_ALIVE], s[L.S_PEND],
         drawn, s[L.S_NDRAW], S.piles[1, : 0 if flip_on(S) else nd], S.known[seat, :n, :K],
         S.seat[:n, L.SEAT_SCORE])
    encode_faces(S, C, seat, off, out)


@jit
def legal_mask(S: L.State, C: L.Config, out: NDArray[np.int8]) -> int:
    """The legal actions of the seat that must decide, as a 0/1 mask; how many.

    Every action is asked of the kernel's `is_legal`, except a card the seat holds
    none of (no phase lets a seat play, stack or jump in with a kind it does not
    hold) and a seat beyond the table's (a test holds the mask to
    `Round.legal_actions`)."""
    hand = S.hands[S.s[L.S_CUR]]
    K = C.ci[L.C_NK]
    seats_end = L.A_TARGET + C.ci[L.C_PLAYERS]
    m = 0
    for a in range(out.shape[0]):
        ok = (a >= K or hand[a] > 0) and a < seats_end and is_legal(S, C, a)
        out[a] = 1 if ok else 0
        m += 1 if ok else 0
    return m


def encode_view(view: PublicView, lay: Layout | None = None,
                out: NDArray[np.float32] | None = None) -> NDArray[np.float32]:
    """The observation of a plug-in's `PublicView`, through the same `fill` as the
    environments (so a policy trained there reads a seat in ``unosim league`` alike);
    ``lay`` defaults to the view's own (`view_layout`)."""
    lay = view_layout(view) if lay is None else lay
    n, K, kind = lay.players, lay.kinds, lay.table.kind
    obs = np.zeros(lay.size, np.float32) if out is None else out
    hand = np.zeros(K, np.int64)
    for t in view.hand:
        hand[kind(t)] += 1
    known = np.zeros((n, K), np.int16)
    for q, cards in enumerate(view.known):
        for t in cards:
            known[q, kind(t)] += 1
    alive = np.zeros(n, np.int64)
    alive[list(view.active)] = 1
    drawn = kind(view.drawn) if view.drawn is not None else -1
    discard = np.array([kind(t) for t in view.discard], np.int64)
    off = lay.offsets
    fill(obs, off, n, view.seat, hand, kind(view.top), SIDE_COLORS.index(view.color) % L.NCOLORS,
         view.direction, _PHASE_CODE[view.phase], view.seat, np.array(view.hand_sizes, np.int64),
         alive, view.pending, drawn, view.draw_size, discard, known,
         np.array(view.scores, np.int64))
    if lay.sizes["side"]:
        backs = np.zeros((n, K), np.int64)
        for q, faces in enumerate(view.other_faces):
            for t in faces:
                backs[q, kind(t)] += 1
        back = kind(view.draw_top_back) if view.draw_top_back is not None else -1
        fill_faces(obs, off, SIDES.index(view.side), backs, back)
    return obs
