"""``ismcts``: single-observer information-set Monte Carlo tree search, compiled.

The seat to act searches over what it could know (docs/ismcts.md). Each
iteration restores the real position, deals every card the seat cannot place
(the deck less its own hand and the discard pile) at random into the other
hands (keeping their sizes) and the draw pile (keeping its size), walks a tree
of actions with UCB over availability, adds one node, and plays the round out
with a compiled playout policy. The move is the root's most visited action.

Everything lives in the state record's ``x_*`` arrays (`unosim.engine.kernel.state`),
so a decision allocates nothing. The search draws from its own stream,
seeded from the game's stream without advancing it, and the budget counts
iterations, not seconds: a seed gives the same moves on every backend. The
real position, the game's stream and the config's seat rows (which the
playout policy borrows) are put back before it returns.
"""

from __future__ import annotations

import math

import numpy as np

from unosim.engine.kernel.flip import flip_on, index_faces, recount
from unosim.engine.kernel.habits import habit_action
from unosim.engine.kernel.jit import jit, optional
from unosim.engine.kernel.reference import random_action
from unosim.engine.kernel.rng import rng_int, splitmix
from unosim.engine.kernel.rules import apply_legal, challengeable, legal_actions, wilds_block
from unosim.engine.kernel.state import (
    C_DECK_SIZE,
    C_MODE,
    C_NK,
    C_PLAYERS,
    C_SCORING,
    FLIP,
    H_SIZE,
    H_SUIT,
    ISMCTS,
    NA,
    NPP,
    P_EXPLORE,
    P_ITERS,
    P_KIND,
    P_PLAYOUT,
    P_PRIOR,
    P_PRIOR_W,
    PH_COLOR,
    PH_DONE,
    POLICY_CODE,
    POLICY_PARAMS,
    POLICY_RANDOM,
    R_TURNS,
    R_WINNER,
    S_CUR,
    S_KNOW,
    S_LASTK,
    S_LASTP,
    S_NDISC,
    S_NDRAW,
    S_PHASE,
    S_SIDE,
    S_TRACE,
    S_WD4_COLOR,
    S_WD4_LEGAL,
    S_WD4_PLAYER,
    SCORING_PARTNERS,
    X_DEPTH,
    X_NODES,
    Config,
    State,
)
from unosim.engine.kernel.table import add_card
from unosim.rules.effects import FX_COND

# every policy's default seat row, by code: a playout gives all seats the playout policy's row
PLAYOUT_ROWS = np.array([[POLICY_PARAMS[name][c] for c in range(NPP)]
                         for name in sorted(POLICY_CODE, key=POLICY_CODE.__getitem__)])
_SALT = np.uint64(0x1C3A5F7E9B2D4068)
# A decision packed into one word to seed its search: turn, seat, phase. Seats and
# phases are each below 64 (MAX_PLAYERS is 40), so the three never overlap in the word.
SEED_SEAT_STRIDE = 64
SEED_TURN_STRIDE = 64 * SEED_SEAT_STRIDE


# --- the real position, saved and put back (loops: the kernel runs without numba's NRT) ----
@jit
def copy1(dst: np.ndarray, src: np.ndarray, n: int) -> None:
    for i in range(n):
        dst[i] = src[i]


@jit
def copy2(dst: np.ndarray, src: np.ndarray) -> None:
    for i in range(dst.shape[0]):
        for j in range(dst.shape[1]):
            dst[i, j] = src[i, j]


@jit
def save_position(S: State, C: Config) -> None:
    """Keep the real position (and the config's seat rows) in the ``x_*`` arrays."""
    copy1(S.x_s, S.s, S.s.shape[0])
    copy2(S.x_hands, S.hands)
    copy2(S.x_piles, S.piles)
    copy2(S.x_seat, S.seat)
    copy1(S.x_st, S.st, S.st.shape[0])
    copy2(S.x_voids, S.voids)
    copy1(S.x_rng, S.rng, 4)
    copy2(S.x_pp, C.pp)
    save_faces(S)


@jit
def restore_position(S: State, C: Config) -> None:
    """Back to the saved position, all but the draw pile's cards (a determinization
    deals those) and the stream (the search's own runs on)."""
    copy1(S.s, S.x_s, S.s.shape[0])
    copy2(S.hands, S.x_hands)
    piles, saved = S.piles, S.x_piles
    for i in range(S.x_s[S_NDISC]):
        piles[1, i] = saved[1, i]
    copy2(S.seat, S.x_seat)
    copy1(S.st, S.x_st, S.st.shape[0])
    copy2(S.voids, S.x_voids)
    restore_faces(S, C)


@jit
def finish(S: State, C: Config) -> None:
    """Put everything back as it was before the search."""
    restore_position(S, C)
    copy2(S.piles, S.x_piles)
    copy1(S.rng, S.x_rng, 4)
    copy2(C.pp, S.x_pp)


@jit
def quiet(S: State) -> None:
    """Inside the search nothing is traced and nobody's knowledge is kept (the
    determinization reads the real position's, which the search does not touch)."""
    S.s[S_TRACE] = 0
    S.x_s[S_TRACE] = 0
    S.s[S_KNOW] = 0
    S.x_s[S_KNOW] = 0


@jit
def seed_search(S: State, me: int) -> None:
    """The search stream: a pure function of the game's stream and the decision
    (turn, seat, phase), so the game's own sequence is untouched."""
    rng, s = S.rng, S.s
    z = rng[0] ^ _SALT
    for i in range(1, 4):
        z, a = splitmix(z)
        z = a ^ rng[i]
    z ^= np.uint64(S.st[R_TURNS] * SEED_TURN_STRIDE + me * SEED_SEAT_STRIDE + s[S_PHASE])
    for i in range(4):
        z, a = splitmix(z)
        rng[i] = a
    if rng[0] == 0 and rng[1] == 0 and rng[2] == 0 and rng[3] == 0:
        rng[0] = np.uint64(1)


@jit
def use_playout_rows(S: State, C: Config, code: int) -> None:
    """Every seat plays the playout policy (its default row) inside the search."""
    pp = C.pp
    for q in range(C.ci[C_PLAYERS]):
        for c in range(NPP):
            pp[q, c] = PLAYOUT_ROWS[code, c]


# --- determinization ------------------------------------------------------------------------
@jit
def deal_unknown(S: State, C: Config, me: int) -> None:
    """A one-sided deck: deal the cards ``me`` cannot place (`determinize`)."""
    hands, piles, s, pool, known = S.hands, S.piles, S.s, S.x_pool, S.known
    n = C.ci[C_PLAYERS]
    m = 0
    for k in range(C.ci[C_NK]):
        c = C.dc[k] - hands[me, k]
        for i in range(s[S_NDISC]):
            if piles[1, i] == k:
                c -= 1
        for q in range(n):
            if q != me:
                c -= known[me, q, k]
        for _ in range(c):
            pool[m] = k
            m += 1
    for i in range(m - 1, 0, -1):
        j = rng_int(S.rng, i + 1)
        t = pool[i]
        pool[i] = pool[j]
        pool[j] = t
    at = 0
    for q in range(n):
        if q == me:
            continue
        size = hands[q, H_SIZE]
        for c in range(hands.shape[1]):
            hands[q, c] = 0
        for k in range(C.ci[C_NK]):
            for _ in range(known[me, q, k]):
                if hands[q, H_SIZE] < size:
                    add_card(S, C, q, k)
        while hands[q, H_SIZE] < size and at < m:
            add_card(S, C, q, pool[at])
            at += 1
    nd = min(s[S_NDRAW], m - at)
    for i in range(nd):
        piles[0, i] = pool[at + i]
    s[S_NDRAW] = nd


@jit
def determinize(S: State, C: Config, me: int) -> None:
    """Deal the cards ``me`` cannot place into the other hands (their sizes kept) and
    the draw pile (its size kept): first the cards ``me`` knows each hand holds
    (`unosim.engine.kernel.known`), then the rest of the deck less ``me``'s hand and the
    discard pile, shuffled with the state's stream. The hidden WD4 legality
    follows the sampled hand."""
    if flip_on(S):
        determinize_faces(S, C, me)
    else:
        deal_unknown(S, C, me)
    s, hands = S.s, S.hands
    # the legality of the WD4 being resolved follows from its player's hand now
    # (the sampled one, or ``me``'s own): only its color (or wilds) could make it illegal
    wp = s[S_WD4_PLAYER]
    if wp >= 0 and C.fx[s[S_LASTK], FX_COND] != 0 and s[S_LASTP] == wp and (
            challengeable(S, C) or s[S_PHASE] == PH_COLOR):
        legal = hands[wp, H_SUIT + s[S_WD4_COLOR]] == 0 and not wilds_block(C, hands[wp])
        s[S_WD4_LEGAL] = 1 if legal else 0


def _no_faces(S: State, C: Config, me: int) -> None:
    return None


@optional(FLIP, _no_faces)
def determinize_faces(S: State, C: Config, me: int) -> None:
    """A two-sided deck (UNO Flip): every card stays where it is, and each face ``me``
    cannot see is dealt again at random among the cards whose face it is: the faces in
    play of the other hands and of the draw pile, and the other faces of ``me``'s own
    hand, the discard pile and the draw pile below its top (docs/rules.md section 11:
    a seat sees the other face of the other hands and of the top draw card). What it
    saw of a card before is not used (docs/DECISIONS.md)."""
    s, piles, hp, pool = S.s, S.piles, S.hp, S.x_pool
    side, n, nd = s[S_SIDE], C.ci[C_PLAYERS], s[S_NDRAW]
    m = 0
    for q in range(n):
        if q != me:
            for v in range(C.ci[C_DECK_SIZE]):
                if hp[q, v] != 0:
                    pool[m] = v
                    m += 1
    for i in range(nd):
        pool[m] = piles[0, i]
        m += 1
    shuffle_faces(S, side, m)
    m = 0
    for v in range(C.ci[C_DECK_SIZE]):
        if hp[me, v] != 0:
            pool[m] = v
            m += 1
    for i in range(s[S_NDISC]):
        pool[m] = piles[1, i]
        m += 1
    for i in range(nd - 1):  # the top card's other face is in sight
        pool[m] = piles[0, i]
        m += 1
    shuffle_faces(S, 1 - side, m)
    index_faces(S, C)
    for q in range(n):
        if q != me:
            recount(S, C, q)


@jit
def shuffle_faces(S: State, side: int, m: int) -> None:
    """Fisher-Yates over the ``side`` faces of the cards ``S.x_pool[:m]``, from the faces
    in kind order: where the hidden faces really were never shows in the sample."""
    fl, pool, count = S.fl, S.x_pool, S.scratch[1]  # a counting sort's room (NH >= kinds)
    for k in range(count.shape[0]):
        count[k] = 0
    for i in range(m):
        count[fl[side, pool[i]]] += 1
    i = 0
    for k in range(count.shape[0]):
        for _ in range(count[k]):
            fl[side, pool[i]] = k
            i += 1
    for i in range(m - 1, 0, -1):
        j = rng_int(S.rng, i + 1)
        a, b = pool[i], pool[j]
        t = fl[side, a]
        fl[side, a] = fl[side, b]
        fl[side, b] = t


def _no_save(S: State) -> None:
    return None


@optional(FLIP, _no_save)
def save_faces(S: State) -> None:
    """A two-sided deck's face table and held cards, kept with the real position."""
    copy2(S.x_fl, S.fl)
    copy2(S.x_hp, S.hp)
    copy1(S.x_fo, S.fo, S.fo.shape[0])
    copy1(S.x_ft, S.ft, S.ft.shape[0])


def _no_restore(S: State, C: Config) -> None:
    return None


@optional(FLIP, _no_restore)
def restore_faces(S: State, C: Config) -> None:
    """A two-sided deck's cards stay where they are (`determinize_faces` deals faces, not
    cards), so the draw pile is put back too: the last playout moved its cards."""
    piles, saved = S.piles, S.x_piles
    for i in range(S.x_s[S_NDRAW]):
        piles[0, i] = saved[0, i]
    copy2(S.fl, S.x_fl)
    copy2(S.hp, S.x_hp)
    copy1(S.fo, S.x_fo, S.fo.shape[0])
    copy1(S.ft, S.x_ft, S.ft.shape[0])
    index_faces(S, C)


@jit
def playout_action(S: State, C: Config) -> int:
    if C.pp[S.s[S_CUR], P_KIND] == POLICY_RANDOM:
        return random_action(S, C)
    return habit_action(S, C)


@jit
def play_out(S: State, C: Config) -> int:
    """Play the round to its end with the playout policy; the winner (-1: stalemate)."""
    while S.s[S_PHASE] != PH_DONE:
        apply_legal(S, C, playout_action(S, C))
    return S.st[R_WINNER]


@jit
def wins_for(C: Config, p: int, w: int) -> bool:
    """Does ``w`` going out count as a win for ``p``? Its own, or in a partners
    match its partner's (seats 0 & 2, 1 & 3)."""
    if w < 0:
        return False
    if p == w:
        return True
    return C.ci[C_MODE] == 1 and C.ci[C_SCORING] == SCORING_PARTNERS and (p - w) % 2 == 0


# --- the tree ---------------------------------------------------------------------------------
@jit
def find_child(S: State, node: int, key: int) -> int:
    c = S.x_child[node]
    while c >= 0:
        if S.x_key[c] == key:
            return c
        c = S.x_sib[c]
    return -1


@jit
def new_node(S: State, parent: int, key: int, at: int) -> None:
    S.x_key[at] = key
    S.x_child[at] = -1
    S.x_n[at] = 0
    S.x_av[at] = 1
    S.x_w[at] = 0.0
    S.x_sib[at] = S.x_child[parent]
    S.x_child[parent] = at


@jit
def iterate(S: State, C: Config, expl: float, nodes: int) -> int:
    """One iteration from the restored position; returns the tree's new size."""
    legal, ch, path = S.x_legal, S.x_ch, S.x_path
    node = 0
    depth = 0
    grown = False
    while S.s[S_PHASE] != PH_DONE:
        nl = legal_actions(S, C, legal)
        if nl == 1:  # forced: no choice, no node
            apply_legal(S, C, legal[0])
            continue
        if grown or depth >= X_DEPTH or nodes >= X_NODES:
            break
        p = S.s[S_CUR]
        untried = 0
        for i in range(nl):
            c = find_child(S, node, p * NA + legal[i])
            ch[i] = c
            if c < 0:
                untried += 1
            else:
                S.x_av[c] += 1
        if untried > 0:
            r = rng_int(S.rng, untried)
            for i in range(nl):
                if ch[i] < 0:
                    if r == 0:
                        new_node(S, node, p * NA + legal[i], nodes)
                        node = nodes
                        nodes += 1
                        apply_legal(S, C, legal[i])
                        break
                    r -= 1
            grown = True
        else:
            best, best_v, best_a = -1, -1.0, -1
            for i in range(nl):
                c = ch[i]
                v = S.x_w[c] / S.x_n[c] + expl * math.sqrt(math.log(S.x_av[c]) / S.x_n[c])
                if v > best_v:
                    best, best_v, best_a = c, v, legal[i]
            node = best
            apply_legal(S, C, best_a)
        path[depth] = node
        depth += 1
    w = play_out(S, C)
    S.x_n[0] += 1
    for i in range(depth):
        n = path[i]
        S.x_n[n] += 1
        if wins_for(C, S.x_key[n] // NA, w):
            S.x_w[n] += 1.0
    return nodes


@jit
def search(S: State, C: Config, me: int, iters: int, expl: float, code: int) -> int:
    """Build the tree for ``me``'s decision (the position is left as the search
    left it: call `finish`); returns the tree's size."""
    save_position(S, C)
    quiet(S)
    seed_search(S, me)
    use_playout_rows(S, C, code)
    S.x_child[0] = -1
    S.x_n[0] = 0
    nodes = 1
    for _ in range(min(iters, X_NODES - 1)):
        restore_position(S, C)
        determinize(S, C, me)
        nodes = iterate(S, C, expl, nodes)
    return nodes


@jit
def prior_action(S: State, C: Config, me: int, code: int) -> int:
    """The move the prior policy would make here (its stream draws are undone)."""
    pp, keep = C.pp, S.x_pp
    copy1(S.x_rs, S.rng, 4)
    for c in range(NPP):
        keep[me, c] = pp[me, c]
        pp[me, c] = PLAYOUT_ROWS[code, c]
    a = habit_action(S, C)
    for c in range(NPP):
        pp[me, c] = keep[me, c]
    copy1(S.rng, S.x_rs, 4)
    return a


def _no_search(S: State, C: Config) -> int:
    return -1  # unreachable: a config without search seats compiles this instead


@optional(ISMCTS, _no_search)
def ismcts_action(S: State, C: Config) -> int:
    """The ``ismcts`` seat's move: the most visited root action (ties: lowest code),
    the prior's move counted ``prior_weight * iterations`` visits ahead."""
    me = S.s[S_CUR]
    trace, know = S.s[S_TRACE], S.s[S_KNOW]
    nl = legal_actions(S, C, S.x_legal)
    if nl == 1:
        return S.x_legal[0]
    iters = int(C.pp[me, P_ITERS])
    ahead = C.pp[me, P_PRIOR_W] * iters
    prior = prior_action(S, C, me, int(C.pp[me, P_PRIOR])) if ahead > 0.0 else -1
    search(S, C, me, iters, C.pp[me, P_EXPLORE], int(C.pp[me, P_PLAYOUT]))
    finish(S, C)
    S.s[S_TRACE], S.s[S_KNOW] = trace, know
    nl = legal_actions(S, C, S.x_legal)
    best, most = S.x_legal[0], -1.0
    for i in range(nl):
        a = S.x_legal[i]
        c = find_child(S, 0, me * NA + a)
        n = float(S.x_n[c]) if c >= 0 else 0.0
        if a == prior:
            n += ahead
        if n > most:
            best, most = a, n
    return best


@jit
def root_stats(S: State, C: Config, me: int, actions: np.ndarray, wins: np.ndarray,
               visits: np.ndarray) -> None:
    """After `search`: each root action's wins and visits."""
    for i in range(actions.shape[0]):
        c = find_child(S, 0, me * NA + actions[i])
        visits[i] = S.x_n[c] if c >= 0 else 0
        wins[i] = S.x_w[c] if c >= 0 else 0.0


@jit
def action_values(S: State, C: Config, actions: np.ndarray, playouts: int, code: int,
                  wins: np.ndarray) -> None:
    """Flat Monte Carlo for `unosim advise`: ``playouts`` determinizations, each
    played out after every action in ``actions`` (the same deal and stream for
    every action, so their differences are paired); adds the seat's wins to ``wins``.
    The search stream starts from the game's stream; everything is put back."""
    me = S.s[S_CUR]
    trace, know = S.s[S_TRACE], S.s[S_KNOW]
    save_position(S, C)
    quiet(S)
    seed_search(S, me)
    use_playout_rows(S, C, code)
    for _ in range(playouts):
        copy1(S.x_rs, S.rng, 4)
        for i in range(actions.shape[0]):
            copy1(S.rng, S.x_rs, 4)
            restore_position(S, C)
            determinize(S, C, me)
            apply_legal(S, C, actions[i])
            if wins_for(C, me, play_out(S, C)):
                wins[i] += 1
    finish(S, C)
    S.s[S_TRACE], S.s[S_KNOW] = trace, know
