"""Flat-array layout shared by the compiled kernel and its Python façade.

The kernel takes no Python objects: a resolved configuration is compiled to
an int64 vector ``ci`` (indices ``C_*``), a float64 vector ``cf`` (``F_*``)
and a few per-kind / per-seat arrays. The round state is a handful of arrays
whose scalar part ``s`` is indexed by ``S_*``. Keeping every index here lets
the config compiler, kernel and trace renderer agree without importing each
other.
"""

from __future__ import annotations

# --- compiled config: int64 vector ci --------------------------------------
C_PLAYERS = 0
C_HAND_SIZE = 1
C_DECKS = 2
C_FIRST_FLIP = 3  # 0 apply, 1 redraw
C_WD4_WILDS_BLOCK = 4
C_UNO_PENALTY = 5
C_SPECIAL = 6  # SPECIAL_* below
C_STACK_D2_D2 = 7
C_STACK_WD4_WD4 = 8
C_STACK_WD4_D2 = 9  # WD4 played onto a pending Draw Two
C_STACK_D2_WD4 = 10  # Draw Two played onto a pending WD4
C_JUMP_IN = 11
C_SEVEN_O = 12
C_DRAW_UNTIL_PLAY = 13
C_TWO_PLAYER_REVERSE = 14
C_MAX_TURNS = 15
C_MODE = 16  # 0 round, 1 match
C_SCORING = 17  # SCORING_* below
C_TARGET = 18
C_MAX_ROUNDS = 19
C_DECK_SIZE = 20  # total cards (all decks)
NCI = 32

SPECIAL_NONE, SPECIAL_MOVIE, SPECIAL_WISH, SPECIAL_DONT_TALK = 0, 1, 2, 3
SCORING_STANDARD, SCORING_LOWEST, SCORING_ELIMINATION, SCORING_PARTNERS = 0, 1, 2, 3
FLIP_APPLY, FLIP_REDRAW = 0, 1

# --- compiled config: float64 vector cf ------------------------------------
F_UNO_FORGET = 0
F_UNO_CATCH = 1
F_MOVIE_FAIL = 2
F_SLIP = 3
NCF = 8

# --- per-seat policy parameters: float64 matrix pp[seat, P_*] --------------
P_KIND = 0  # POLICY_* below
P_BLUFF = 1  # probability of bluffing an illegal WD4 when one is held
P_CHALLENGE = 2  # probability of challenging a WD4 (strategic policy only)
NPP = 4
POLICY_RANDOM, POLICY_STRATEGIC = 0, 1

# --- actions (every choice is an action) -----------------------------------
A_PLAY = 0  # A_PLAY + kind, 0..54
A_DRAW = 55
A_PASS = 56  # keep the drawn card / decline a jump-in
A_COLOR = 57  # A_COLOR + color, 57..60
A_ACCEPT = 61  # take the pending draw
A_CHALLENGE = 62  # challenge a WD4
A_TARGET = 63  # A_TARGET + seat, 63..72
NA = 73

# --- phases: what the state is waiting for ---------------------------------
PH_DONE = 0
PH_TURN = 1  # start of a regular turn: play a legal card or draw
PH_DRAWN = 2  # the drawn card is playable: play it or pass
PH_COLOR = 3  # name a color for the wild just played (or flipped)
PH_PENDING = 4  # facing a pending Draw Two / WD4: accept, challenge, stack
PH_TARGET = 5  # choose a seat (Seven-O swap, special wild)
PH_JUMP = 6  # a player holding the top card may jump in, or pass

# --- draw causes (TRACE.md) ------------------------------------------------
CAUSES = ("turn", "draw2", "wd4", "stack", "challenge", "uno", "special", "dont_talk")
CAUSE_TURN, CAUSE_DRAW2, CAUSE_WD4, CAUSE_STACK = 0, 1, 2, 3
CAUSE_CHALLENGE, CAUSE_UNO, CAUSE_SPECIAL, CAUSE_DONT_TALK = 4, 5, 6, 7
NCAUSES = 8

# --- event codes (rows of the int64 event buffer: code, a, b, c, off, len) --
# off/len point into the card log (draws, piles) when the event carries cards.
EV_DEAL = 1  # a=dealer; card log: draw pile; hands read at that moment
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
EV_W = 6  # columns per event row

# --- round statistics: int64 vector st (reset each round) ------------------
R_TURNS = 0
R_JUMPS = 1
R_PLAYED = 2
R_DRAWN = 3
R_RESHUFFLES = 4
R_SPECIAL_PLAYS = 5
R_SPECIAL_DRAWN = 6  # cards drawn because of the special wild (Don't Talk slips included)
R_WINNER = 7  # -1 stalemate
R_POINTS = 8
R_CHALLENGES = 9
R_SWAPS = 10
R_DRAW_BY_CAUSE = 16  # 16..23, NCAUSES entries
NR = 24
EV_SCORE = 19  # card log: one cumulative score per seat, then eliminated seats
EV_MATCH_END = 20  # card log: winning seats (empty = unfinished)

EV_NAMES = {
    EV_DEAL: "deal", EV_FLIP: "flip", EV_RETURN: "return", EV_TURN: "turn",
    EV_PLAY: "play", EV_DRAW: "draw", EV_RESHUFFLE: "reshuffle", EV_SKIP: "skip",
    EV_REVERSE: "reverse", EV_CHALLENGE: "challenge", EV_UNO: "uno", EV_JUMP: "jump",
    EV_SWAP: "swap", EV_ROTATE: "rotate", EV_SPECIAL: "special", EV_END: "end",
    EV_SILENCE_END: "silence_end", EV_SLIP: "slip", EV_SCORE: "score",
    EV_MATCH_END: "match_end",
}
