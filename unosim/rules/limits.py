"""Every size limit of the game, declared once.

The config validates against these numbers and the engine sizes its arrays
from them, so a config that passes validation always fits the kernel's
arrays (and one that does not fit is a one-line error, never a traceback).

>>> MAX_PLAYERS == PLAYERS_PER_DECK * MAX_DECKS
True
"""

from __future__ import annotations

MIN_PLAYERS = 2
PLAYERS_PER_DECK = 10  # docs/rules.md §1: one deck seats at most ten
MAX_DECKS = 4
MAX_PLAYERS = PLAYERS_PER_DECK * MAX_DECKS
MIN_HAND_SIZE = 1
# Card kinds an edition may have (colored kinds times four, plus wilds): it sizes the
# kernel's per-kind arrays and its play actions; the edition's own count bounds its loops.
MAX_KINDS = 128
# A round or match longer than these is a runaway config, not a game: the
# turn histogram has max_turns + 1 bins, the rounds-per-match one max_rounds + 1.
MAX_TURNS = 1_000_000
MAX_ROUNDS = 100_000
MAX_TARGET = 1_000_000
# The first flip needs cards left after the deal: at least this many per deck, plus one.
FLIP_RESERVE_PER_DECK = 4
# A run's game indices and seed are 64-bit integers in the kernel's random streams.
MAX_GAMES = 10**12
MAX_SEED = 2**63 - 1
# A config or edition file is a few hundred bytes and under a hundred YAML nodes.
# These bounds refuse hostile files (alias bombs, huge or deeply nested documents)
# before they cost time or memory; a node reached through an alias counts at each use.
MAX_CONFIG_BYTES = 1_000_000
MAX_YAML_NODES = 10_000
MAX_YAML_DEPTH = 32
# A config's name titles its reports; its slug names the default run directory.
MAX_NAME_LENGTH = 100
MAX_SLUG_LENGTH = 64
DEFAULT_MAX_GAMES = 10_000_000  # the cap of a run that stops on --precision without --max-games
