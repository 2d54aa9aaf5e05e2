"""Two-level factorial designs, their alias structure, and paired effects from moments.

The design matrix comes from pyDOE3 (`fracfact`, `fracfact_by_res`,
`fracfact_opt`); this module reads its generators back out of the matrix,
forms the defining relation and states what every effect is aliased with.
Effects are contrasts of the design points' per-game results: every point
plays the same games, so a main effect or interaction is a per-game linear
combination whose variance follows from the streamed sums and sums of
products (`unosim.run.run_lockstep` pairs), exactly like a paired difference.

A term is a bit mask over the factors (bit ``i``: factor ``i``); multiplying
two terms is XOR, as ``x * x = 1`` for a ±1 column.

>>> d = design(3, "full")
>>> d.runs, d.resolution, d.generators
(8, None, ())
>>> d = design(4, 4)
>>> d.runs, d.resolution, [term_text(w, "ABCD") for w in d.words]
(8, 4, ['ABCD'])
>>> [term_text(t, "ABCD") for t in d.aliases(0b0011)]
['CD']
"""

from __future__ import annotations

import contextlib
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from unosim.analysis import stats
from unosim.analysis.paired import Verdict, holm, tost_p, verdict

__all__ = ["MAX_FACTORS", "MAX_RUNS", "Design", "DesignError", "Effect", "FullMoments",
           "bounded_effect", "decide", "design", "effect", "term_factors", "term_text"]

# The most design points a screen runs: every pair of them is paired game by game.
MAX_RUNS = 64
MAX_FACTORS = 20  # pyDOE3's limit for alias computations
NAN = float("nan")


class DesignError(ValueError):
    """No design of this size and resolution (a one-line reason)."""


def term_factors(term: int) -> list[int]:
    """The factor indices of a term, in order.

    >>> term_factors(0b101)
    [0, 2]
    """
    return [i for i in range(term.bit_length()) if term >> i & 1]


def term_text(term: int, names: Sequence[str], sep: str = "") -> str:
    """A term as its factors' names joined by ``sep`` ('I' for the empty term)."""
    return sep.join(names[i] for i in term_factors(term)) or "I"


@dataclass(frozen=True)
class Design:
    """A two-level design: ``matrix`` (runs x factors, ±1) and its defining relation.

    ``generators`` map each generated factor to the signed product of base
    factors it equals (empty for a foldover, whose base includes the fold);
    ``words`` are the defining relation (every product of generator words
    that involves factors only); ``resolution`` is the shortest word's
    length, None for a full factorial (no word: nothing is aliased).
    ``how`` says where the matrix came from, for the report.
    """

    matrix: NDArray[np.int8]
    generators: tuple[tuple[int, int, int], ...]  # (factor, base term, sign)
    words: tuple[int, ...]
    how: str = ""

    @property
    def runs(self) -> int:
        return int(self.matrix.shape[0])

    @property
    def k(self) -> int:
        return int(self.matrix.shape[1])

    @property
    def resolution(self) -> int | None:
        return min((bin(w).count("1") for w in self.words), default=None)

    def aliases(self, term: int, max_order: int = 2) -> list[int]:
        """The terms of at most ``max_order`` factors that ``term``'s contrast also measures."""
        out = {term ^ w for w in self.words}
        return sorted((t for t in out if 0 < bin(t).count("1") <= max_order),
                      key=lambda t: (bin(t).count("1"), term_factors(t)))

    def column(self, term: int) -> NDArray[np.int64]:
        """The ±1 contrast column of a term (the product of its factors' columns)."""
        col = np.ones(self.runs, np.int64)
        for i in term_factors(term):
            col = col * self.matrix[:, i]
        return col


def _relation(matrix: NDArray[np.int64]) -> tuple[tuple[tuple[int, int, int], ...],
                                                   tuple[int, ...]]:
    """Generators and defining relation of a regular design, read from its columns.

    Columns are taken in order into a base while they are independent (not
    a signed product of the base so far); every other column is then the
    product of some base columns: its generator, and its word with itself.
    The words are every product of generator words; words that involve a
    column past the factors (a foldover's fold) are dropped.
    """
    runs, width = matrix.shape
    products: dict[bytes, tuple[int, int]] = {np.ones(runs, np.int64).tobytes(): (0, 1)}
    gens: list[tuple[int, int, int]] = []
    for j in range(width):
        col = matrix[:, j].astype(np.int64)
        hit = products.get(col.tobytes()) or products.get((-col).tobytes())
        if hit is None:
            for key, (term, sign) in list(products.items()):
                prod = np.frombuffer(key, np.int64) * col
                products[prod.tobytes()] = (term | 1 << j, sign)
            continue
        sign = 1 if col.tobytes() in products else -1
        gens.append((j, hit[0], sign * hit[1]))
    if len(products) != runs:
        raise DesignError("the design is not a regular two-level fraction")
    basic = [base | 1 << j for j, base, _ in gens]
    words = set()
    for r in range(1, len(basic) + 1):
        for combo in itertools.combinations(basic, r):
            w = 0
            for word in combo:
                w ^= word
            words.add(w)
    return tuple(gens), tuple(sorted(words))


def _from_matrix(matrix: np.ndarray, how: str, fold: bool = False) -> Design:
    mat = np.asarray(np.rint(matrix), dtype=np.int64)
    k = mat.shape[1]
    if fold:  # the fold is a hidden base column: the design is regular with it
        half = mat.shape[0] // 2
        z = np.concatenate([np.ones(half, np.int64), -np.ones(half, np.int64)])
        gens, words = _relation(np.column_stack([mat, z]))
        gens = ()
    else:
        gens, words = _relation(mat)
    words = tuple(w for w in words if not w >> k)
    return Design(mat.astype(np.int8), gens, words, how)


def design(k: int, resolution: int | str) -> Design:
    """The smallest design of ``k`` factors pyDOE3 gives at ``resolution`` (4, 5 or "full").

    pyDOE3's ``fracfact_by_res`` proposes it; its true resolution is read
    from its defining relation, and when that falls short (pyDOE3 may pair
    two long words into a short one, or finds no design where one exists)
    ``fracfact_opt``'s minimum-aberration search (up to 8 factors) and, for
    resolution IV, the foldover (``fold``) of a resolution III design supply
    one. A resolution no fraction of ``k`` factors reaches raises
    `DesignError`, as does a design of more than `MAX_RUNS` points.
    """
    import pyDOE3

    if k < 1:
        raise DesignError("a screen needs at least one factor")
    if k > MAX_FACTORS:
        raise DesignError(f"a screen takes at most {MAX_FACTORS} factors, not {k}")
    letters = "abcdefghijklmnopqrstuvwxyz"
    if resolution == "full":
        if 1 << k > MAX_RUNS:
            raise DesignError(f"a full factorial of {k} factors has {1 << k} design points, "
                              f"more than {MAX_RUNS}: use --resolution 4 or 5")
        return _from_matrix(pyDOE3.fracfact(" ".join(letters[:k])), "pyDOE3.fracfact")
    res = int(resolution)
    found = _fractions(k, res)
    good = [d for d in found if (d.resolution or 0) >= res and d.runs < 1 << k]
    if not good and k > res:
        raise DesignError(f"pyDOE3 gives no design of {k} factors at resolution {res} within "
                          f"{MAX_RUNS} design points: use fewer factors or a lower resolution")
    if not good:
        raise DesignError(
            f"no fraction of {k} factor{'s' if k != 1 else ''} reaches resolution {res} "
            f"(a fraction of resolution {res} needs at least {res} factors): use "
            "--resolution full or a lower resolution")
    d = min(good, key=lambda x: x.runs)
    if d.runs > MAX_RUNS:
        raise DesignError(f"resolution {res} for {k} factors needs {d.runs} design points, "
                          f"more than {MAX_RUNS}: use fewer factors or a lower resolution")
    return d


# --------------------------------------------------------------------------- #
# Effects from the design points' per-game moments
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class FullMoments:
    """One per-game feature of every design point: sums ``s[r]``, products ``m[r, q]``.

    Exact integers (Python ints), so no summation order moves a digit.
    """

    n: int
    s: tuple[int, ...]
    m: tuple[tuple[int, ...], ...]

    @classmethod
    def from_features(cls, f: NDArray[np.int64]) -> FullMoments:
        """From a (games x points) array of one feature (tests use this).

        >>> fm = FullMoments.from_features(np.array([[1, 2], [3, 5]]))
        >>> fm.s, fm.m
        ((4, 7), ((10, 17), (17, 29)))
        """
        x = np.asarray(f, dtype=np.int64)
        mm = x.T @ x
        return cls(len(x), tuple(int(v) for v in x.sum(axis=0)),
                   tuple(tuple(int(v) for v in row) for row in mm))


@dataclass(frozen=True)
class Effect:
    """A contrast's estimate: ``value`` = mean at + minus mean at − (per game).

    ``low``/``high`` its paired 95% t interval, ``se`` its standard error,
    ``p`` the t test's two-sided p-value; ``minus``/``plus`` the means of the
    two halves of the design; ``identical`` when every game gives the same
    value in both halves (the contrast is exactly zero).
    """

    value: float
    low: float
    high: float
    se: float
    p: float
    n: int
    minus: float
    plus: float
    identical: bool = False

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2


def _fractions(k: int, res: int) -> list[Design]:
    """Candidate fractions of ``k`` factors for resolution ``res``, from pyDOE3's
    ``fracfact_by_res``, ``fracfact_opt`` (up to 8 factors) and, for IV, ``fold``."""
    import pyDOE3

    found: list[Design] = []
    try:
        found.append(_from_matrix(pyDOE3.fracfact_by_res(k, res), "pyDOE3.fracfact_by_res"))
    except ValueError:  # pyDOE3 misses some that exist (2^(4-1) of resolution IV)
        pass
    if k <= 8 and not (found and (found[0].resolution or 0) >= res):
        top = min(k, int(math.log2(MAX_RUNS)) + 1)
        for m in range(max(1, math.ceil(math.log2(k + 1))), top):
            try:
                gen, _, _ = pyDOE3.fracfact_opt(k, k - m, max_attempts=300)
            except ValueError:
                continue
            if gen:
                found.append(_from_matrix(pyDOE3.fracfact(gen), "pyDOE3.fracfact_opt"))
                if (found[-1].resolution or 0) >= res:
                    break
    if res == 4:
        with contextlib.suppress(ValueError):
            found.append(_from_matrix(pyDOE3.fold(pyDOE3.fracfact_by_res(k, 3)),
                                      "pyDOE3.fold of pyDOE3.fracfact_by_res", fold=True))
    return found


def effect(fm: FullMoments, column: Sequence[int] | NDArray[np.int64],
           scale: float = 1.0) -> Effect:
    """The effect of the ±1 ``column`` over the design points, times ``scale``.

    The per-game contrast is ``(2/N) Σ_r column[r] f_r``: the mean of the
    points at + minus the mean of those at −. Its variance over games is
    ``u'Mu/n - (u's/n)²`` scaled, from the exact moments.

    >>> f = np.array([[10, 12], [20, 23], [30, 31]])        # 3 games, 2 points
    >>> e = effect(FullMoments.from_features(f), [-1, 1])
    >>> round(e.value, 3), e.identical
    (2.0, False)
    """
    n, runs = fm.n, len(fm.s)
    u = [int(c) for c in column]
    plus = [r for r in range(runs) if u[r] > 0]
    minus = [r for r in range(runs) if u[r] < 0]
    mean_plus = float(Fraction(sum(fm.s[r] for r in plus), n * len(plus))) * scale
    mean_minus = float(Fraction(sum(fm.s[r] for r in minus), n * len(minus))) * scale
    b = sum(u[r] * fm.s[r] for r in range(runs))
    a = sum(u[r] * u[q] * fm.m[r][q] for r in range(runs) for q in range(runs))
    value = float(Fraction(2 * b, runs * n)) * scale
    var_num = n * a - b * b  # n²(n-1)/... : n(n-1) times the per-game variance of u·f
    if var_num == 0 and b == 0:  # every game's contrast is exactly zero
        return Effect(0.0, 0.0, 0.0, 0.0, NAN, n, mean_minus, mean_plus, identical=True)
    if n < 2:
        return Effect(value, NAN, NAN, NAN, NAN, n, mean_minus, mean_plus)
    se = 2 / runs * abs(scale) * stats.sqrt_fraction(Fraction(max(var_num, 0), n * n * (n - 1)))
    t = stats.t_crit(0.95, n - 1)
    if se > 0:
        p = 2 * stats.t_sf(abs(value) / se, n - 1)
    else:
        p = 1.0 if value == 0 else 0.0
    return Effect(value, value - t * se, value + t * se, se, p, n, mean_minus, mean_plus)


def bounded_effect(wins: Sequence[int], n: int, column: Sequence[int] | NDArray[np.int64]
                   ) -> Effect:
    """The effect of ``column`` on a per-point win rate ``wins[r] / n``, unpaired.

    For a rate with no per-game moments across points: the standard error
    is bounded by the sum of the points' own, ``(2/N) Σ sqrt(p(1-p)/n)``
    (Cauchy-Schwarz: no correlation between points can make it wider), so
    the interval and the z test are conservative, never too narrow.

    >>> e = bounded_effect([300, 340], 1000, [-1, 1])
    >>> round(e.value, 3), round(e.high - e.low, 3) > 0.05
    (0.04, True)
    """
    runs = len(wins)
    u = [int(c) for c in column]
    ps = [k / n for k in wins]
    value = 2 / runs * sum(c * p for c, p in zip(u, ps, strict=True))
    plus = [p for c, p in zip(u, ps, strict=True) if c > 0]
    minus = [p for c, p in zip(u, ps, strict=True) if c < 0]
    se = 2 / runs * sum(math.sqrt(p * (1 - p) / n) for p in ps)
    z = 1.959963984540054
    p_value = math.erfc(abs(value) / se / math.sqrt(2)) if se > 0 else (
        1.0 if value == 0 else 0.0)
    return Effect(value, value - z * se, value + z * se, se, p_value, n,
                  sum(minus) / len(minus), sum(plus) / len(plus))


def decide(effects: Sequence[Effect], margins: Sequence[float]) -> list[Verdict]:
    """Holm-adjusted decisions for every effect together: change, practically zero, or not.

    Each effect carries two tests (a change; within its absolute margin, by
    two one-sided tests), all adjusted at once as compare's are.

    >>> e = Effect(0.01, -0.02, 0.04, 0.015, 0.5, 10_000, 1.0, 1.01)
    >>> decide([e], [0.1])[0].word
    'same'
    """
    raw: list[float] = []
    for e, m in zip(effects, margins, strict=True):
        df = max(e.n - 1, 1)
        raw += [NAN, NAN] if e.identical else [e.p, tost_p(e.value, e.se, m, df)]
    adj = holm(raw)
    out = []
    for j, (e, m) in enumerate(zip(effects, margins, strict=True)):
        p_diff, p_same = (p if math.isfinite(p) else 1.0 for p in adj[2 * j:2 * j + 2])
        out.append(verdict(e.value, p_diff, p_same, m, identical=e.identical))
    return out
