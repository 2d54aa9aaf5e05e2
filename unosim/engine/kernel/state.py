"""The kernel's flat-array layout, its records, and the config lowered into them.

The compiled kernel takes no Python objects. A validated `GameConfig` is
lowered by `compile_config` into an int64 vector ``ci`` (indices ``C_*``), a
float64 vector ``cf`` (``F_*``), per-seat policy parameters ``pp`` (``P_*``)
and per-kind arrays; `config_tuple` packs them into one config record ``C``.
A round's state is one record ``S`` (`state_dtype`) whose scalar part ``s``
is indexed by ``S_*``. Every index lives here, so the config lowering, the
kernel, the façade and the trace renderer agree without importing each other.

Arrays are sized from `unosim.rules.limits`, so every config that validates
fits: up to ``MAX_PLAYERS`` seats and ``MAX_DECKS`` decks of the largest
shipped edition.

>>> from unosim.rules.config import load_config
>>> S = alloc_state(compile_config(load_config("classic")), trace=False)
>>> S.hands.shape == (MAX_PLAYERS, NH), int(S.s[S_TRACE])
(True, 0)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, cast

import numpy as np
from numpy.typing import NDArray

from unosim.rules.cards import COLORS, KindTable
from unosim.rules.config import Behaviour, GameConfig, resolved_rules
from unosim.rules.editions import (
    card_kinds,
    deck_counts,
    effects_by_kind,
    kind_table,
    points_by_kind,
    wish_icon_mask,
)
from unosim.rules.effects import (
    ACT_EFFECTS,
    FX_COND,
    FX_DRAW,
    FX_REVERSE,
    FX_SKIP,
    FX_SPECIAL,
    NFX,
    SPECIAL_EFFECTS,
    action_codes,
)
from unosim.rules.limits import MAX_DECKS, MAX_KINDS, MAX_PLAYERS
from unosim.rules.models import (
    HABIT_NAMES,
    MAX_ISMCTS_ITERATIONS,
    POLICY_NAMES,
    HabitParams,
    policy_params,
)
from unosim.rules.settings import house_rule_switches, switch_code

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]

# --- compiled config: int64 vector ci --------------------------------------
C_PLAYERS = 0
C_HAND_SIZE = 1
C_DECKS = 2
C_FIRST_FLIP = 3  # FLIP_* below
C_WD4_WILDS_BLOCK = 4
C_UNO_PENALTY = 5
C_SPECIAL = 6  # SPECIAL_* below
C_MAX_TURNS = 7
C_MODE = 8  # 0 round, 1 match
C_SCORING = 9  # SCORING_* below
C_TARGET = 10
C_MAX_ROUNDS = 11
C_DECK_SIZE = 12  # total cards (all decks)
C_KNOWN = 13  # 1: a seat reads what it knows of other hands (an ismcts seat; the façade)
C_HOUSE = 14  # the house-rule switches follow, in their declared order
# Dotted keys of the on/off house rules (rules.settings): adding a switch there
# gives it a ci slot here and in compile_config; the kernel names the ones it reads.
HOUSE_RULE_KEYS = tuple(house_rule_switches())
# 1: a ruling changes which cards a turn may play (wd4_unrestricted, no_action_finish),
# so the reference policy leaves its counted fast path (derived, after the switches)
C_TURN_RULED = C_HOUSE + len(HOUSE_RULE_KEYS)
# The edition's kinds (`unosim.rules.cards.KindTable`): how many (every loop over
# kinds stops there), and colored kinds per color (one color's kinds are one block).
C_NK = C_TURN_RULED + 1
C_NCOL = C_TURN_RULED + 2
C_WBASE = C_TURN_RULED + 3  # the first wild kind (NCOLORS * C_NCOL)
# deflect (docs/rules.md §12): the symbols of the colored kinds with a skip and with a
# reverse effect (-1: none), so a deflecting card of the active color is one lookup
C_SKIP_SYM = C_TURN_RULED + 4
C_REVERSE_SYM = C_TURN_RULED + 5
# docs/rules.md section 11's edition-wide settings the kernel reads
C_STACK_VALUE = C_TURN_RULED + 6  # 1: stacking by draw value (the kinds' FX_STACK)
C_MERCY = C_TURN_RULED + 7  # mercy limit (0: none)
C_FLIP = C_TURN_RULED + 8  # 1: a two-sided (UNO Flip) deck: piles hold physical cards
C_NLIGHT = C_TURN_RULED + 9  # colored kinds per color on the light side (C_NCOL one-sided)
NCI = C_NLIGHT + 1


def house_rule_index(key: str) -> int:
    """The ``ci`` index of a house-rule switch, by its dotted key.

    >>> house_rule_index("house_rules.jump_in") == C_JUMP_IN
    True
    """
    return C_HOUSE + HOUSE_RULE_KEYS.index(key)


C_STACK_D2_D2 = house_rule_index("house_rules.stacking.draw_two_on_draw_two")
C_STACK_WD4_WD4 = house_rule_index("house_rules.stacking.wd4_on_wd4")
C_STACK_WD4_D2 = house_rule_index("house_rules.stacking.wd4_on_draw_two")  # WD4 onto a pending Draw Two
C_STACK_D2_WD4 = house_rule_index("house_rules.stacking.draw_two_on_wd4")  # Draw Two onto a pending WD4
C_JUMP_IN = house_rule_index("house_rules.jump_in")
C_SEVEN_O = house_rule_index("house_rules.seven_o")
C_DRAW_UNTIL_PLAY = house_rule_index("house_rules.draw_until_play")
C_TWO_PLAYER_REVERSE = house_rule_index("house_rules.two_player_reverse")
# the rulings of docs/rules.md §12 (unosim.engine.kernel.rulings); a named value is its
# place among the declared values (`unosim.rules.settings.switch_code`)
C_DRAW_THEN_PLAY = house_rule_index("house_rules.draw_then_play")
C_FORCED_PLAY = house_rule_index("house_rules.forced_play")
C_WD4_FREE = house_rule_index("house_rules.wd4_unrestricted")
C_CHALLENGE = house_rule_index("house_rules.challenge")
C_DEFLECT = house_rule_index("house_rules.deflect")
C_NO_ACTION_FINISH = house_rule_index("house_rules.no_action_finish")
C_MULTIPLE_PLAY = house_rule_index("house_rules.multiple_play")
C_SEVEN_O_SWAP = house_rule_index("house_rules.seven_o_swap")
C_SEVEN_O_PASS = house_rule_index("house_rules.seven_o_pass")
C_LAST_CARD_DRAWS = house_rule_index("house_rules.last_card_draws")
JUMP_IDENTICAL = switch_code("house_rules.jump_in", True)
JUMP_SAME_NUMBER = switch_code("house_rules.jump_in", "same_number")
THEN_ANY = switch_code("house_rules.draw_then_play", "any")
THEN_NONE = switch_code("house_rules.draw_then_play", "none")
SWAP_NEXT = switch_code("house_rules.seven_o_swap", "next")
PASS_LEFT = switch_code("house_rules.seven_o_pass", "left")

# An edition's special wild (``Edition.special_kind``) by code: the code is the place
# here, and the trace writes the name back.
# A kind's ``FX_SPECIAL`` column holds the same code.
SPECIAL_NAMES = ("none", *SPECIAL_EFFECTS)
SPECIAL_CODE = {name: code for code, name in enumerate(SPECIAL_NAMES)}
SPECIAL_NONE, SPECIAL_MOVIE = SPECIAL_CODE["none"], SPECIAL_CODE["movie_madness"]
SPECIAL_WISH, SPECIAL_DONT_TALK = SPECIAL_CODE["wishing_star"], SPECIAL_CODE["dont_talk"]
SCORING_STANDARD, SCORING_LOWEST, SCORING_ELIMINATION, SCORING_PARTNERS = 0, 1, 2, 3
SCORING_CODE = {"standard": SCORING_STANDARD, "lowest": SCORING_LOWEST,
                "elimination": SCORING_ELIMINATION, "partners": SCORING_PARTNERS}
FLIP_APPLY, FLIP_REDRAW = 0, 1

# --- compiled config: float64 vector cf ------------------------------------
# One slot per behaviour rate, in the declared order of `unosim.rules.config.Behaviour`:
# a new rate gets a slot and is lowered; the kernel names the ones it reads.
BEHAVIOUR_KEYS = tuple(Behaviour.model_fields)
NCF = len(BEHAVIOUR_KEYS)
F_UNO_FORGET = BEHAVIOUR_KEYS.index("uno_forget_rate")
F_UNO_CATCH = BEHAVIOUR_KEYS.index("uno_catch_rate")
F_MOVIE_FAIL = BEHAVIOUR_KEYS.index("movie_madness_fail_rate")
F_SLIP = BEHAVIOUR_KEYS.index("dont_talk_slip_rate")

# --- per-seat policy parameters: float64 matrix pp[seat, P_*] --------------
# Column 0 is the policy (POLICY_*); the others are the parameters of the habit
# policies, one column per field of `unosim.rules.models.HabitParams` in its
# declared order (booleans are 0/1; docs/policies.md describes each). The field
# list is the table: a new field gets a column, and the kernel names the ones it reads.
P_KIND = 0  # POLICY_* below
PARAM_COLUMNS: dict[str, int] = {name: 1 + i for i, name in enumerate(HabitParams.model_fields)}
NPP = 1 + len(PARAM_COLUMNS)
P_BLUFF = PARAM_COLUMNS["bluff_rate"]
P_CHALLENGE = PARAM_COLUMNS["challenge_threshold"]
P_JUMP = PARAM_COLUMNS["jump_in_rate"]
P_SHED = PARAM_COLUMNS["shed_points"]
P_NUMBERS = PARAM_COLUMNS["numbers_first"]
P_KEEP_COLORS = PARAM_COLUMNS["keep_colors"]
P_NAME_MOST = PARAM_COLUMNS["name_most_held"]
P_RESERVE = PARAM_COLUMNS["keep_stack_reserve"]
P_DUMP = PARAM_COLUMNS["dump_high_value"]
P_DUMP_AT = PARAM_COLUMNS["dump_at"]
P_ATTACK = PARAM_COLUMNS["save_attack"]
P_ATTACK_AT = PARAM_COLUMNS["attack_at"]
P_HOLD_WD4 = PARAM_COLUMNS["hold_wd4"]
P_WD4_AT = PARAM_COLUMNS["wd4_at"]
P_REVERSE = PARAM_COLUMNS["reverse_away"]
P_REVERSE_AT = PARAM_COLUMNS["reverse_at"]
P_VOID = PARAM_COLUMNS["switch_to_void"]
P_TARGET = PARAM_COLUMNS["target_by_size"]
P_CALL_UNO = PARAM_COLUMNS["call_uno"]
P_ITERS = PARAM_COLUMNS["iterations"]  # ismcts: iterations per decision
P_EXPLORE = PARAM_COLUMNS["exploration"]  # ismcts: exploration constant
P_PLAYOUT = PARAM_COLUMNS["playout"]  # ismcts: the playout policy's POLICY_* code
P_PRIOR = PARAM_COLUMNS["prior"]  # ismcts: the prior policy's POLICY_* code
P_PRIOR_W = PARAM_COLUMNS["prior_weight"]  # ismcts: the prior's head start, a share of iterations
# A policy's code is its place in `unosim.rules.models.POLICY_NAMES`; the kernel
# names the codes it tests.
POLICY_CODE = {name: code for code, name in enumerate(POLICY_NAMES)}
POLICY_RANDOM = POLICY_CODE["random"]
POLICY_ISMCTS = POLICY_CODE["ismcts"]  # unosim.engine.kernel.ismcts
HABIT_POLICIES = frozenset(POLICY_CODE[name] for name in HABIT_NAMES)


def policy_row(policy: str, params: HabitParams | None) -> FloatArray:
    """One seat's ``pp`` row. The reference policy's row is its code and zeros:
    it never bluffs or challenges (docs/rules.md §7)."""
    row = np.zeros(NPP, dtype=np.float64)
    # a plug-in seat (`unosim.engine.plugins`) decides in Python; its row is random's
    row[P_KIND] = POLICY_CODE.get(policy, POLICY_CODE["random"])
    if params is not None:
        for name, value in params.model_dump().items():
            # a policy-valued param (ismcts ``playout``, ``prior``) is stored as its code
            row[PARAM_COLUMNS[name]] = POLICY_CODE[value] if isinstance(value, str) else value
    return row


# Each policy's default row, by column (the parameters a seat gets when it
# names only the policy).
POLICY_PARAMS: dict[str, dict[int, float]] = {
    name: {col: float(v) for col, v in enumerate(policy_row(name, policy_params(name)))}
    for name in POLICY_CODE
}

# --- actions (every choice is an action) -----------------------------------
# 0..MAX_KINDS-1: play that card kind (an edition uses 0..nk-1)
A_DRAW = MAX_KINDS
A_PASS = A_DRAW + 1  # keep the drawn card / decline a jump-in
A_COLOR = A_DRAW + 2  # A_COLOR + color
NCOLORS = len(COLORS)
A_ACCEPT = A_COLOR + NCOLORS  # take the pending draw
A_CHALLENGE = A_ACCEPT + 1  # challenge a WD4
A_TARGET = A_ACCEPT + 2  # A_TARGET + seat
NA = A_TARGET + MAX_PLAYERS

# --- phases: what the state is waiting for ---------------------------------
PH_DONE = 0
PH_TURN = 1  # start of a regular turn: play a legal card or draw
PH_DRAWN = 2  # the drawn card is playable: play it or pass
PH_COLOR = 3  # name a color for the wild just played (or flipped)
PH_PENDING = 4  # facing a pending Draw Two / WD4: accept, challenge, stack
PH_TARGET = 5  # choose a seat (Seven-O swap, special wild)
PH_JUMP = 6  # a player holding the top card may jump in, or pass
PH_MULTI = 7  # multiple_play: drop another card of the number just played, or pass
PH_MULTI_PASS = 8  # transient: the drop is over, its last play resolves (never a decision)

# --- draw causes (docs/trace.md §3) ---------------------------------------------
CAUSES = ("turn", "draw2", "wd4", "stack", "challenge", "uno", "special", "dont_talk")
CAUSE_TURN, CAUSE_DRAW2, CAUSE_WD4, CAUSE_STACK = 0, 1, 2, 3
CAUSE_CHALLENGE, CAUSE_UNO, CAUSE_SPECIAL, CAUSE_DONT_TALK = 4, 5, 6, 7
NCAUSES = len(CAUSES)
# A Color Roulette's draw (draw_until_color) counts with the special cards' draws;
# its trace event names its own cause and the color named (docs/trace.md).
CAUSE_DRAW_UNTIL = CAUSE_SPECIAL
DRAW_UNTIL_CAUSE = "draw_until_color"

# --- event codes (rows of the int64 event buffer: code, a, b, c, off, len) --
# off/len point into the card log (draws, piles) when the event carries cards.
EV_DEAL = 1  # a=dealer; card log: per seat its size then its cards, then the draw pile
EV_FLIP = 2  # a=card
EV_RETURN = 3  # a=card; card log: new draw pile
EV_TURN = 4  # a=p, b=color, c=top
EV_PLAY = 5  # a=p, b=card, c=color after
EV_DRAW = 6  # a=p, b=cause; card log: cards drawn
EV_RESHUFFLE = 7  # card log: new draw pile
EV_SKIP = 8  # a=p
EV_REVERSE = 9  # a=direction
EV_CHALLENGE = 10  # a=p, b=target, c=success
EV_UNO = 11  # a=p, b=called, c=caught
EV_JUMP = 12  # a=p, b=card
EV_SWAP = 13  # a, b
EV_ROTATE = 14  # a=direction
EV_SPECIAL = 15  # a=p, b=target (-1 none), c=outcome (0 named/silenced, 1 failed); wish: card log = seats showing
EV_END = 16  # a=winner (-1 stalemate), b=points, c=turns
EV_SILENCE_END = 17  # a=p
EV_SLIP = 18  # a=p
EV_SCORE = 19  # a=players; card log: one cumulative score per seat, then eliminated seats
EV_MATCH_END = 20  # card log: winning seats (empty = unfinished)
EV_DISCARD = 21  # a=p, b=color; card log: the cards discarded under the played one
EV_OUT = 22  # a=p, b=reason (OUT_MERCY); card log: the hand put under the discard pile
EV_SKIP_ALL = 23  # a=p, whose Skip Everyone skips every other player
EV_FLIP_ALL = 24  # a=p (-1: the first flip), b=side now in play, c=color after (-1 none)
EV_W = 6  # columns per event row

EV_NAMES = {
    EV_DEAL: "deal", EV_FLIP: "flip", EV_RETURN: "return", EV_TURN: "turn",
    EV_PLAY: "play", EV_DRAW: "draw", EV_RESHUFFLE: "reshuffle", EV_SKIP: "skip",
    EV_REVERSE: "reverse", EV_CHALLENGE: "challenge", EV_UNO: "uno", EV_JUMP: "jump",
    EV_SWAP: "swap", EV_ROTATE: "rotate", EV_SPECIAL: "special", EV_END: "end",
    EV_SILENCE_END: "silence_end", EV_SLIP: "slip", EV_SCORE: "score",
    EV_MATCH_END: "match_end", EV_DISCARD: "discard", EV_OUT: "out", EV_SKIP_ALL: "skip_all",
    EV_FLIP_ALL: "flip_all",
}
OUT_REASONS = ("mercy",)
OUT_MERCY = 0

# --- round statistics: int64 vector st (reset each round) ------------------
class Counter(NamedTuple):
    """One per-round counter of ``st``, declared once: `Round.stats`, the records
    columns, ``summary.json`` and the run report all read this row, so adding a counter
    is its `counter` line plus the kernel line that counts it. Their order is the
    records' columns and the report's rows; the schema orders ``summary.json``."""

    slot: int  # its index R_* in st: fixed, so old checkpoints' sums and records still read
    name: str  # its key in `Round.stats`
    column: str  # its column in the records (int32)
    summary: str  # where summary.json keeps it ("a.b": key b of the object a)
    hist: str = ""  # the aggregate histogram the summary reads ("": the per-round mean of sums)
    label: str = ""  # the run report's row ("": no row; its figure is shown elsewhere)


_COUNTERS: list[Counter] = []


def counter(slot: int, name: str, *, column: str = "", summary: str = "", hist: str = "",
            label: str = "") -> int:
    """Declare a counter (`Counter`; column and summary default to the name); its slot,
    for the kernel's ``R_*`` constant."""
    _COUNTERS.append(Counter(slot, name, column or name, summary or name, hist, label))
    return slot


R_TURNS = counter(0, "turns", hist="turns_hist")
R_POINTS = counter(8, "points", hist="points_hist")
R_DRAWN = counter(3, "drawn", column="cards_drawn", summary="cards_drawn", hist="drawn_hist")
R_PLAYED = counter(2, "played", column="cards_played", summary="cards_played",
                   label="cards played")
R_RESHUFFLES = counter(4, "reshuffles", label="reshuffles of the discard pile")
R_JUMPS = counter(1, "jumps", label="jump-ins")
R_CHALLENGES = counter(9, "challenges", label="Wild Draw Four challenges")
R_SWAPS = counter(10, "swaps", label="hand swaps / rotations (Seven-O)")
R_SPECIAL_PLAYS = counter(5, "special_plays", summary="special.plays_per_round",
                          label="special wilds played")
# cards drawn because of the special wild (Don't Talk slips included)
R_SPECIAL_DRAWN = counter(6, "special_drawn", summary="special.cards_drawn_per_round",
                          label="cards drawn because of special wilds")
# Slots 11..15 are free for new counters. The winner and the draws by cause are read apart.
R_WINNER = 7  # -1 stalemate
# Players knocked out by the mercy rule (docs/rules.md section 11), and whether any
# was: summary.json's ``mercy`` object, written only for an edition with a mercy
# limit (declared counters are in every summary, and every other edition's would
# change), so not declared with `counter`.
R_OUTS = 11
R_OUT_ROUNDS = 12  # 1 in a round where the mercy rule knocked someone out
R_DRAW_BY_CAUSE = 16  # 16..23, NCAUSES entries
NR = R_DRAW_BY_CAUSE + NCAUSES
COUNTERS: tuple[Counter, ...] = tuple(_COUNTERS)

# --- scalar state s -----------------------------------------------------------
S_PHASE = 0
S_CUR = 1  # who must decide now
S_DIR = 2
S_COLOR = 3
S_NDRAW = 4
S_NDISC = 5
S_PEND = 6  # accumulated pending draw total
S_CHAIN = 7  # cards in the pending chain
S_PEND_KIND = 8  # the kind of the last chained draw card
S_WD4_PLAYER = 9
S_WD4_LEGAL = 10
S_LASTP = 11  # player of the card being resolved / of the top card
S_LASTK = 12
S_NEXT = 13  # who takes the next regular turn once the play resolves
S_DRAWN = 14  # the drawn playable card (PH_DRAWN)
S_COLOR_CTX = 15  # COLOR_* below: a played wild, the first flip, a Color Roulette
S_TARGET_CTX = 16  # TGT_* below
S_TGT = 17
S_JUMP_I = 18  # jump-in scan position
S_NEV = 19
S_NCL = 20
S_TRACE = 21
S_DEALER = 22
S_NALIVE = 23
S_DRAW_P = 24  # open draw event: player, cause, card-log start
S_DRAW_CAUSE = 25
S_DRAW_OFF = 26
S_ROUND = 27
S_OVERFLOW = 28
S_FIRSTP = 29
S_STACK_TURN = 30  # a stacking turn has started (turn and slip written), card still to play
S_WD4_COLOR = 31  # the color active when the latest WD4 was played (public: a challenge reads it)
S_KNOW = 32  # 1: keep ``known`` (cards each seat knows another holds; unosim.engine.kernel.known)
S_DEFLECTED = 33  # 1: the pending draw was deflected (deflect): no challenge of it
S_DRAW_COLOR = 34  # open draw event: 1 + the color a draw until color waits for, else 0
S_SIDE = 35  # UNO Flip: the side in play (0 light, 1 dark)
S_PID = 36  # UNO Flip: the physical card the last play took from its hand
S_HELD = 37  # UNO Flip: the physical card a hand took last (a turn's drawn card)
S_TICK = 38  # UNO Flip: cards taken into hands so far this game (their arrival order)
S_FK_LIGHT = 39  # UNO Flip: 1 while the face index's light side is the deck's (`physical_deck`)
NS = 40

# --- per seat: int64 matrix seat[q, SEAT_*] ---------------------------------------
SEAT_ALIVE, SEAT_SILENCED, SEAT_SCORE = 0, 1, 2
SEAT_MERCY = 3  # 1: knocked out of this round by the mercy rule (back in the next round)
NSEAT = 4
TGT_SWAP, TGT_SPECIAL = 0, 1  # what a PH_TARGET choice is for
COLOR_PLAYED, COLOR_FLIP, COLOR_ROULETTE = 0, 1, 2  # what a PH_COLOR choice is for
COLOR_TURNED = 3  # a Flip card turned a wild face up: its player names the color

# --- a hand: int64 row hands[q, ...] -------------------------------------------------
# Columns 0..nk-1 count the cards of each kind (room for MAX_KINDS); then the hand's
# size and its cards per suit (``C.suit``: the four colors, then the wilds). The table keeps
# them in step, so a color's count is one read on every turn (the policy's
# hot path, the WD4 test) instead of thirteen.
H_SIZE = MAX_KINDS
H_SUIT = MAX_KINDS + 1  # H_SUIT + suit, 5 columns
NH = H_SUIT + NCOLORS + 1

# --- variants: the optional parts of the engine (`unosim.engine.kernel.jit.optional`) ---
# A config compiles only the parts it can reach: each is compiled into the kernel
# only when the config record's type (the trace writer: the state record's) has its
# marker field. The façade compiles them all.
HABITS = "habits"  # the habit policies (greedy, cautious, defender, strategic)
ISMCTS = "ismcts"  # the search player
KNOWN = "known"  # the known-cards record (read by the search player and the façade)
SPECIALS = "specials"  # the editions' special wilds (a deck with WX cards)
TRACE = "trace"  # the trace writer (a state built to be traced)
RULINGS = "rulings"  # docs/rules.md §12 away from the printed rules (unosim.engine.kernel.rulings)
EFFECTS = "effects"  # docs/rules.md section 11: its kinds' effects, the mercy rule
# UNO Flip's two-faced cards (unosim.engine.kernel.flip): a state's feature, like the
# trace writer, since only a two-sided deck's state has the face table and the held cards
FLIP = "flip"
FEATURES = (HABITS, ISMCTS, KNOWN, SPECIALS, TRACE, RULINGS, EFFECTS, FLIP)


MARKER_PREFIX = "uses_"  # a variant's marker fields: its type, not its state


def marker(feature: str) -> str:
    """The record field whose presence compiles ``feature`` in.

    >>> marker(HABITS)
    'uses_habits'
    """
    return f"{MARKER_PREFIX}{feature}"


# --- sizes --------------------------------------------------------------------------
LARGEST_DECK = 112  # cards in one deck of the largest shipped edition
PILE_MIN = MAX_DECKS * LARGEST_DECK + 1
X_NODES = MAX_ISMCTS_ITERATIONS + 1  # an ismcts tree: the root and one node per iteration
X_DEPTH = 256  # deepest path an ismcts iteration walks in its tree
EV_ROWS = 8192  # trace buffers, drained by the façade after every action
CL_SIZE = 1 << 18


class State(Protocol):
    """The state record `alloc_state` returns, field by field (numba reads the same fields)."""

    s: IntArray  # S_* scalars
    hands: IntArray  # [MAX_PLAYERS, NH]: counts per kind, hand size (H_SIZE), per suit (H_SUIT)
    piles: IntArray  # [2, pile]: row 0 draw pile, row 1 discard, bottom first
    seat: IntArray  # [MAX_PLAYERS, NSEAT]: SEAT_* per seat
    rng: NDArray[np.uint64]  # xoshiro256** state (no global RNG anywhere)
    ev: IntArray  # [EV_ROWS, EV_W] event rows, written only when tracing
    cl: IntArray  # [CL_SIZE] card log of the events
    st: IntArray  # [NR] the round's counters, R_*
    winners: IntArray  # [MAX_PLAYERS] a finished match's winning seats
    flags: IntArray  # [MAX_PLAYERS] work space: one flag per seat
    scratch: IntArray  # [2, NH] work space: hand rows being swapped
    voids: IntArray  # [MAX_PLAYERS, NCOLORS] 1: the seat drew on its turn on that color, and
    #                 has taken no card since (public memory the policies read)
    fl: IntArray  # UNO Flip states only: [2, pile] each physical card's light and dark face
    hp: NDArray[np.int8]  # UNO Flip states only: [MAX_PLAYERS, pile] 1 where q holds the card
    fk: NDArray[np.int16]  # UNO Flip states only: [2, MAX_KINDS, copies] the cards showing each
    #                 kind on each side, in card order (fkn of them): `flip.index_faces`
    fkn: IntArray  # [2, MAX_KINDS]
    fo: IntArray  # UNO Flip states only: [pile] the seat holding each card, -1 in a pile
    ft: IntArray  # UNO Flip states only: [pile] when each card came into its hand (S_TICK)
    x_fl: IntArray  # UNO Flip states only: the search's saved face table and held cards
    x_hp: NDArray[np.int8]
    x_fo: IntArray
    x_ft: IntArray
    known: NDArray[np.int16]  # [MAX_PLAYERS, MAX_PLAYERS, MAX_KINDS] cards of each kind seat o knows seat q
    #                 holds, kept while S_KNOW is on (unosim.engine.kernel.known)
    # work space of unosim.engine.kernel.ismcts: the real position saved while it searches, the
    # unknown cards, and its tree (allocated once with the state: no allocation per decision)
    x_s: IntArray  # [NS]
    x_hands: IntArray  # [MAX_PLAYERS, NH]
    x_piles: IntArray  # [2, pile]
    x_seat: IntArray  # [MAX_PLAYERS, NSEAT]
    x_st: IntArray  # [NR]
    x_voids: IntArray  # [MAX_PLAYERS, NCOLORS]
    x_rng: NDArray[np.uint64]  # [4] the game's stream
    x_rs: NDArray[np.uint64]  # [4] a saved search stream
    x_pp: FloatArray  # [MAX_PLAYERS, NPP] the config's seat rows
    x_pool: IntArray  # [pile] the cards the searching seat cannot place
    x_legal: IntArray  # [NA]
    x_ch: IntArray  # [NA]
    x_key: IntArray  # [X_NODES] tree: seat * NA + action into the node
    x_child: IntArray  # [X_NODES] first child (-1 none)
    x_sib: IntArray  # [X_NODES] next sibling (-1 none)
    x_n: IntArray  # [X_NODES] visits
    x_av: IntArray  # [X_NODES] availability (times its action was legal at a visit)
    x_w: FloatArray  # [X_NODES] wins of the seat that moved into the node
    x_path: IntArray  # [X_DEPTH]


class Config(Protocol):
    """The config record `config_tuple` returns."""

    ci: IntArray  # C_*
    cf: FloatArray  # F_*
    pp: FloatArray  # [MAX_PLAYERS, NPP]
    # per kind, MAX_KINDS entries (the edition's nk used, C_NK): the card attributes
    points: IntArray  # points of a card left in hand
    icons: IntArray  # 1 where the kind bears the Wishing Icon
    dc: IntArray  # copies of each kind in the deck (all decks)
    deck: IntArray  # [pile] the deck in kind order, where every round's shuffle starts
    #                 (UNO Flip: the light faces; ``deck2`` the dark faces)
    deck2: IntArray  # [pile]
    fx: IntArray  # [MAX_KINDS, NFX] what each kind does (unosim.rules.effects, FX_* columns)
    act: IntArray  # what a play of each kind does, one code (ACT_*, from fx)
    kc: IntArray  # color 0..3, -1 for a wild
    suit: IntArray  # the hand's count column (H_SUIT +): the color, NCOLORS for a wild
    sym: IntArray  # match symbol: colored kinds of one symbol match across colors
    face: IntArray  # number face value, -1 for every other kind
    stk: IntArray  # [MAX_KINDS + 1] the kinds with a draw effect in kind order, then -1
    wo: IntArray  # every wild kind, in the order a turn offers them (C_NK - C_WBASE of them)
    wfree: int  # how many of them come first without a legality condition


class KernelArrays(Protocol):
    """What the engine reads from a compiled config (a `CompiledConfig` or any
    object with these arrays, e.g. the runner's picklable copy)."""

    @property
    def ci(self) -> IntArray: ...
    @property
    def cf(self) -> FloatArray: ...
    @property
    def pp(self) -> FloatArray: ...
    @property
    def deck_counts(self) -> IntArray: ...
    @property
    def points(self) -> IntArray: ...
    @property
    def wish_icons(self) -> IntArray: ...
    @property
    def effects(self) -> IntArray: ...
    @property
    def kinds(self) -> KindTable: ...


def _markers(features: set[str] | frozenset[str]) -> list[tuple[str, type]]:
    """The marker fields of a record, first and 8 bytes each: so no variant's layout
    is a prefix of another's (numba would accept one for the other, a "record
    subtype") and every array after them stays aligned."""
    return [(marker(f), np.int64) for f in FEATURES if f in features]


def state_dtype(pile: int, trace: bool = False, flip: bool = False, copies: int = 0) -> np.dtype:
    """One fixed layout for every config that fits the standard pile size, so
    the kernel compiles once per variant (a bigger custom deck widens the piles).

    Only a state built for tracing has the trace buffers, and the trace writer
    compiles only for it (`unosim.engine.kernel.jit.optional`); only a two-sided
    deck's state has the face table and the held cards (the ``FLIP`` feature), its face
    index sized by ``copies``, the most cards of one kind in the deck."""
    buffers = [("ev", np.int64, (EV_ROWS, EV_W)), ("cl", np.int64, (CL_SIZE,))] if trace else []
    faces = [("fl", np.int64, (2, pile)), ("hp", np.int8, (MAX_PLAYERS, pile)),
             ("fk", np.int16, (2, MAX_KINDS, max(copies, 1))), ("fkn", np.int64, (2, MAX_KINDS)),
             ("fo", np.int64, (pile,)), ("ft", np.int64, (pile,)),
             ("x_fl", np.int64, (2, pile)), ("x_hp", np.int8, (MAX_PLAYERS, pile)),
             ("x_fo", np.int64, (pile,)), ("x_ft", np.int64, (pile,))] if flip else []
    feats = ({TRACE} if trace else set()) | ({FLIP} if flip else set())
    return np.dtype([*_markers(feats), ("s", np.int64, (NS,)), ("hands", np.int64, (MAX_PLAYERS, NH)),
                     ("piles", np.int64, (2, pile)), ("seat", np.int64, (MAX_PLAYERS, NSEAT)),
                     ("rng", np.uint64, (4,)), *buffers, *faces, ("st", np.int64, (NR,)),
                     ("winners", np.int64, (MAX_PLAYERS,)), ("flags", np.int64, (MAX_PLAYERS,)),
                     ("scratch", np.int64, (2, NH)),
                     ("voids", np.int64, (MAX_PLAYERS, NCOLORS)),
                     ("known", np.int16, (MAX_PLAYERS, MAX_PLAYERS, MAX_KINDS)),
                     ("x_s", np.int64, (NS,)), ("x_hands", np.int64, (MAX_PLAYERS, NH)),
                     ("x_piles", np.int64, (2, pile)), ("x_seat", np.int64, (MAX_PLAYERS, NSEAT)),
                     ("x_st", np.int64, (NR,)), ("x_voids", np.int64, (MAX_PLAYERS, NCOLORS)),
                     ("x_rng", np.uint64, (4,)), ("x_rs", np.uint64, (4,)),
                     ("x_pp", np.float64, (MAX_PLAYERS, NPP)), ("x_pool", np.int64, (pile,)),
                     ("x_legal", np.int64, (NA,)), ("x_ch", np.int64, (NA,)),
                     ("x_key", np.int64, (X_NODES,)), ("x_child", np.int64, (X_NODES,)),
                     ("x_sib", np.int64, (X_NODES,)), ("x_n", np.int64, (X_NODES,)),
                     ("x_av", np.int64, (X_NODES,)), ("x_w", np.float64, (X_NODES,)),
                     ("x_path", np.int64, (X_DEPTH,))])


def config_dtype(pile: int, features: frozenset[str] = frozenset()) -> np.dtype:
    """The config record's layout (its deck is as wide as the state's piles), with
    one marker field per optional part of the engine the config uses."""
    return np.dtype([*_markers(features), ("ci", np.int64, (NCI,)), ("cf", np.float64, (NCF,)),
                     ("pp", np.float64, (MAX_PLAYERS, NPP)), ("points", np.int64, (MAX_KINDS,)),
                     ("icons", np.int64, (MAX_KINDS,)), ("dc", np.int64, (MAX_KINDS,)),
                     ("deck", np.int64, (pile,)), ("deck2", np.int64, (pile,)),
                     ("fx", np.int64, (MAX_KINDS, NFX)),
                     ("act", np.int64, (MAX_KINDS,)), ("kc", np.int64, (MAX_KINDS,)),
                     ("suit", np.int64, (MAX_KINDS,)), ("sym", np.int64, (MAX_KINDS,)),
                     ("face", np.int64, (MAX_KINDS,)), ("stk", np.int64, (MAX_KINDS + 1,)),
                     ("wo", np.int64, (MAX_KINDS,)), ("wfree", np.int64)])


# Everything but the trace writer, which belongs to the state: what the façade compiles.
ALL_CONFIG_FEATURES = frozenset({HABITS, ISMCTS, KNOWN, SPECIALS, RULINGS, EFFECTS})


def rulings_used(ci: IntArray) -> bool:
    """Does a compiled config play any ruling of docs/rules.md §12 away from its
    printed default (``jump_in: same_number`` included)?"""
    printed = {C_DRAW_THEN_PLAY: 0, C_FORCED_PLAY: 0, C_WD4_FREE: 0, C_CHALLENGE: 1,
               C_DEFLECT: 0, C_NO_ACTION_FINISH: 0, C_MULTIPLE_PLAY: 0, C_SEVEN_O_SWAP: 0,
               C_SEVEN_O_PASS: 0, C_LAST_CARD_DRAWS: 1}
    return ci[C_JUMP_IN] == JUMP_SAME_NUMBER or any(ci[i] != v for i, v in printed.items())


def config_features(cc: KernelArrays) -> frozenset[str]:
    """The optional parts of the engine a batch run of ``cc`` can reach.

    A search seat brings the habit policies too (its playouts and prior may
    use them) and the known-cards record it reads; the special wilds come
    with a deck that holds WX cards; the rulings' hooks with a ruling played.

    >>> from unosim.rules.config import load_config
    >>> sorted(config_features(compile_config(load_config("classic"))))
    []
    """
    kinds = {int(k) for k in cc.pp[:, P_KIND]}
    ismcts = POLICY_ISMCTS in kinds
    out = set()
    if ismcts or kinds & HABIT_POLICIES:
        out.add(HABITS)
    if ismcts:
        out.add(ISMCTS)
    if ismcts or cc.ci[C_KNOWN] != 0:
        out.add(KNOWN)
    if (cc.deck_counts * cc.effects[:, FX_SPECIAL]).any():
        out.add(SPECIALS)
    if rulings_used(cc.ci):
        out.add(RULINGS)
    if effects_used(cc):
        out.add(EFFECTS)
    return frozenset(out)


def effects_used(cc: KernelArrays) -> bool:
    """Can a run of ``cc`` reach section 11's code (`unosim.engine.kernel.effects`, the mercy
    rule, value stacking, a kind resolved effect by effect)? Classic cannot: it compiles none of it
    (the first run's compile CPU, issue 19).

    >>> from unosim.rules.config import load_config
    >>> effects_used(compile_config(load_config("classic")))
    False
    >>> effects_used(compile_config(load_config("no_mercy")))
    True
    """
    return bool(cc.ci[C_MERCY] != 0 or cc.ci[C_STACK_VALUE] != 0
                or (action_codes(cc.effects) == ACT_EFFECTS).any())


def wild_order(fx: IntArray, wild_base: int) -> list[int]:
    """The wild kinds (``wild_base`` on) in the order a turn offers them: those
    without a legality condition first, then the conditioned ones (W, WX, WD4 in
    the classic layout: the order the random draws have always used).

    >>> from unosim.rules.config import load_config
    >>> wild_order(compile_config(load_config("disney100")).effects, 52)
    [52, 54, 53]
    """
    wilds = range(wild_base, len(fx))
    return [k for k in wilds if fx[k, FX_COND] == 0] + [k for k in wilds if fx[k, FX_COND] != 0]


def face_copies(cc: KernelArrays) -> int:
    """A two-sided deck's most cards showing one kind (its face index's room), else 0."""
    return int(cc.deck_counts.max()) if cc.ci[C_FLIP] else 0


def pile_size(cc: KernelArrays) -> int:
    """Room for every card of the config's deck (standard decks share one size)."""
    return max(PILE_MIN, int(cc.ci[C_DECK_SIZE]) + 1)


def _record(dtype: np.dtype) -> Any:
    """A zeroed record scalar with attribute access (``rec.s``), as numba sees it."""
    return np.zeros(1, dtype).view(np.recarray)[0]


@functools.lru_cache(maxsize=64)
def _spans(dtype: np.dtype, scratch: tuple[str, ...]) -> tuple[tuple[int, int], ...]:
    """The byte ranges of ``dtype``'s fields but those starting with ``scratch``,
    neighbours merged."""
    spans: list[list[int]] = []
    for name, (ft, off, *_) in (dtype.fields or {}).items():
        if scratch and name.startswith(scratch):
            continue
        if spans and spans[-1][1] == off:
            spans[-1][1] = off + ft.itemsize
        else:
            spans.append([off, off + ft.itemsize])
    return tuple((a, b) for a, b in spans)


def copy_record(rec: Any, scratch: tuple[str, ...] = ()) -> Any:
    """A copy of record ``rec`` (its own memory), leaving zero the fields whose names
    start with one of ``scratch`` (buffers that hold nothing between two calls).

    >>> a = _record(np.dtype([("s", np.int64, (2,)), ("x_t", np.int64, (2,))]))
    >>> a.s[1], a.x_t[0] = 5, 7
    >>> b = copy_record(a, ("x_",))
    >>> int(b.s[1]), int(b.x_t[0]), b.base is not a.base
    (5, 0, True)
    """
    out = _record(rec.dtype)
    src, dst = rec.base.view(np.uint8), out.base.view(np.uint8)
    for a, b in _spans(rec.dtype, scratch):
        dst[a:b] = src[a:b]
    return out


def alloc_state(cc: KernelArrays, trace: bool) -> State:
    """A fresh state record; ``trace`` makes the kernel write events (and compiles
    the trace writer into the code that runs on it)."""
    flip = bool(cc.ci[C_FLIP])
    rec = _record(state_dtype(pile_size(cc), trace, flip, face_copies(cc)))
    rec.s[S_TRACE] = 1 if trace else 0
    rec.seat[:, SEAT_ALIVE] = 1
    if flip:
        rec.fo[:] = -1  # nobody holds a card
    return cast(State, rec)


def config_tuple(cc: KernelArrays, features: frozenset[str] | None = None) -> Config:
    """The kernel's config record from a compiled config, typed with the optional
    parts of the engine it uses (default: those `config_features` finds).

    Records travel into compiled calls as one pointer; a tuple of arrays
    would be copied field by field into every call of the inner loop."""
    feats = config_features(cc) if features is None else features
    rec = _record(config_dtype(pile_size(cc), feats))
    for f in feats:
        rec[marker(f)] = 1
    rec.ci[:] = cc.ci
    rec.cf[:] = cc.cf
    rec.pp[: len(cc.pp)] = cc.pp
    kinds = cc.kinds
    nk, wbase = kinds.nk, kinds.wild_base
    rec.points[:nk] = cc.points
    rec.icons[:nk] = cc.wish_icons
    rec.dc[:nk] = cc.deck_counts
    if cc.ci[C_FLIP]:  # the light faces, then (deck2) the dark ones, each in kind order
        light = np.repeat(np.arange(nk), np.where(kinds.side == 0, cc.deck_counts, 0))
        dark = np.repeat(np.arange(nk), np.where(kinds.side == 1, cc.deck_counts, 0))
        rec.deck[: len(light)] = light
        rec.deck2[: len(dark)] = dark
    else:
        deck = np.repeat(np.arange(nk), cc.deck_counts)
        rec.deck[: len(deck)] = deck
    rec.fx[:nk] = cc.effects
    rec.act[:nk] = action_codes(cc.effects)
    rec.kc[:nk] = kinds.color
    rec.suit[:nk] = np.where(kinds.color < 0, NCOLORS, kinds.color)
    rec.sym[:nk] = kinds.sym
    rec.face[:nk] = kinds.face
    rec.stk[:] = -1
    draws = np.flatnonzero(cc.effects[:, FX_DRAW])
    rec.stk[: len(draws)] = draws
    wo = wild_order(cc.effects, wbase)
    rec.wo[: len(wo)] = wo
    rec.wfree = int((cc.effects[wbase:, FX_COND] == 0).sum())
    return cast(Config, rec)


# --- lowering a validated config ------------------------------------------------
@dataclass(frozen=True, eq=False)
class CompiledConfig:
    """Everything the compiled kernel needs, as flat numpy arrays (layout above).

    The arrays are left writeable so numba sees one array type; treat them as read-only.
    """

    ci: IntArray  # int64[NCI], C_* indices
    cf: FloatArray  # float64[NCF], F_* indices
    pp: FloatArray  # float64[players, NPP], P_* per seat
    deck_counts: IntArray  # int64[nk], all decks
    points: IntArray  # int64[nk]
    wish_icons: IntArray  # int64[nk], 1 where the kind bears the Wishing Icon
    effects: IntArray  # int64[nk, NFX], what each kind does (FX_* columns)
    kinds: KindTable  # the edition's kinds: tokens, colors, symbols, face values
    edition_name: str
    seat_policies: list[str]
    rules: dict[str, Any] = field(default_factory=dict)
    # the edition file's card kinds, as the trace's deal event writes them (docs/trace.md)
    card_list: list[dict[str, Any]] = field(default_factory=list)


def _setting(cfg: GameConfig, key: str) -> Any:
    """The value of a dotted config key (``house_rules.stacking.wd4_on_wd4``)."""
    value: Any = cfg
    for part in key.split("."):
        value = getattr(value, part)
    return value


def compile_config(cfg: GameConfig) -> CompiledConfig:
    """Lower a validated config to the kernel's arrays."""
    ed = cfg.edition_spec
    counts = deck_counts(ed) * cfg.decks

    ci = np.zeros(NCI, dtype=np.int64)
    ci[C_PLAYERS] = cfg.players
    ci[C_HAND_SIZE] = cfg.hand_size
    ci[C_DECKS] = cfg.decks
    ci[C_FIRST_FLIP] = FLIP_REDRAW if ed.first_flip == "redraw" else FLIP_APPLY
    ci[C_WD4_WILDS_BLOCK] = ed.wd4_wilds_block
    ci[C_UNO_PENALTY] = ed.uno_penalty
    ci[C_SPECIAL] = SPECIAL_CODE[ed.special_kind]
    ci[C_MAX_TURNS] = cfg.max_turns
    ci[C_MODE] = 1 if cfg.mode == "match" else 0
    ci[C_SCORING] = SCORING_CODE[cfg.scoring]
    ci[C_TARGET] = cfg.target
    ci[C_MAX_ROUNDS] = cfg.max_rounds
    kinds = kind_table(ed)
    ci[C_FLIP] = int(kinds.two_sided)
    # physical cards: a two-sided deck's faces are two per card
    ci[C_DECK_SIZE] = counts[kinds.side == 0].sum()
    ci[C_KNOWN] = int(any(p == "ismcts" for p in cfg.seat_policies))
    for i, key in enumerate(HOUSE_RULE_KEYS):
        ci[C_HOUSE + i] = switch_code(key, _setting(cfg, key))
    ci[C_TURN_RULED] = int(cfg.house_rules.wd4_unrestricted or cfg.house_rules.no_action_finish)
    ci[C_STACK_VALUE] = int(ed.stacking == "value")
    ci[C_MERCY] = ed.mercy_limit or 0
    ci[C_NK] = kinds.nk
    ci[C_NCOL] = kinds.ncolored
    ci[C_NLIGHT] = len(kinds.colored)
    ci[C_WBASE] = kinds.wild_base
    fx = effects_by_kind(ed)
    for slot, column in ((C_SKIP_SYM, FX_SKIP), (C_REVERSE_SYM, FX_REVERSE)):
        found = np.flatnonzero(fx[: kinds.ncolored, column])
        ci[slot] = found[0] if len(found) else -1

    cf = np.array([getattr(cfg.behaviour, key) for key in BEHAVIOUR_KEYS], dtype=np.float64)

    seats = cfg.seat_policies
    pp = np.zeros((cfg.players, NPP), dtype=np.float64)
    for seat, (policy, params) in enumerate(zip(seats, cfg.seat_params, strict=True)):
        pp[seat] = policy_row(policy, params)

    return CompiledConfig(
        ci=ci,
        cf=cf,
        pp=pp,
        deck_counts=counts,
        points=points_by_kind(ed),
        wish_icons=wish_icon_mask(ed),
        effects=fx,
        kinds=kinds,
        edition_name=ed.name,
        seat_policies=seats,
        rules=resolved_rules(cfg),
        card_list=[c.model_dump(mode="json", exclude_none=True) for c in card_kinds(ed)],
    )
