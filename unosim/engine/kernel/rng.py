"""Random numbers: xoshiro256** streams, one per game, keyed by the seed.

No global RNG anywhere: the stream lives in the state record (``S.rng``), so
a game plays the same way whichever chunk, worker or thread runs it. The
order in which the rules consume this stream is part of every result
(tests/golden): change it and every figure changes.

>>> import numpy as np
>>> rng = np.zeros(4, np.uint64)
>>> seed_game(rng, np.uint64(1), np.uint64(2), 0)
>>> a = rng_int(rng, 6); seed_game(rng, np.uint64(1), np.uint64(2), 0)
>>> rng_int(rng, 6) == a
True
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from unosim.engine.kernel.jit import jit

Stream = NDArray[np.uint64]

_U11 = np.uint64(11)
_INV53 = 1.0 / 9007199254740992.0


@jit
def _rotl(x: np.uint64, k: int) -> np.uint64:
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@jit
def xoshiro(s0: np.uint64, s1: np.uint64, s2: np.uint64, s3: np.uint64
            ) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64, np.uint64]:
    """One xoshiro256** step on a state held in registers: (output, new state)."""
    r = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    return r, s0, s1, s2, s3


@jit
def rng_next(rng: Stream) -> np.uint64:
    """Next 64-bit output of the stream (state updated in place)."""
    r, rng[0], rng[1], rng[2], rng[3] = xoshiro(rng[0], rng[1], rng[2], rng[3])
    return r


@jit
def below(r: np.uint64, n: int) -> int:
    """Output ``r`` as a uniform integer in [0, n), from its top 53 bits."""
    # (r * 2**-53) * n rounds exactly like r * (n * 2**-53): the scale is a power of two
    v = np.int64(np.float64(r >> _U11) * (n * _INV53))
    return int(v) if v < n else n - 1


@jit
def rng_float(rng: Stream) -> float:
    """Uniform in [0, 1) from the top 53 bits."""
    return np.float64(rng_next(rng) >> _U11) * _INV53


@jit
def rng_int(rng: Stream, n: int) -> int:
    """Uniform integer in [0, n)."""
    return below(rng_next(rng), n)


@jit
def chance(rng: Stream, rate: float) -> bool:
    """A behaviour-rate event; rates of exactly 0 or 1 consume no randomness."""
    if rate <= 0.0:
        return False
    if rate >= 1.0:
        return True
    return rng_float(rng) < rate


@jit
def splitmix(z: np.uint64) -> tuple[np.uint64, np.uint64]:
    """One step of SplitMix64: the next state and its output (seeding, mixing)."""
    z = z + np.uint64(0x9E3779B97F4A7C15)
    x = z
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z, x ^ (x >> np.uint64(31))


@jit
def seed_game(rng: Stream, key0: np.uint64, key1: np.uint64, game: int) -> None:
    """Seed the stream of game ``game``: a pure function of (key, game index),
    so results never depend on how games are split into chunks or workers."""
    z = np.uint64(key0) ^ (np.uint64(game) * np.uint64(0xD1B54A32D192ED03))
    z, a = splitmix(z)
    z = z ^ np.uint64(key1)
    for i in range(4):
        z, a = splitmix(z)
        rng[i] = a
    if rng[0] == 0 and rng[1] == 0 and rng[2] == 0 and rng[3] == 0:
        rng[0] = np.uint64(1)


def seed_keys(seed: int) -> tuple[int, int]:
    """Two 64-bit keys for the per-game streams, from `numpy.random.SeedSequence`."""
    k = np.random.SeedSequence(int(seed)).generate_state(2, dtype=np.uint64)
    return int(k[0]), int(k[1])
