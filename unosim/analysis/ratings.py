"""Ratings of policies from multi-player results: a Luce (Bradley-Terry) fit with robust intervals.

A league reports, for each seating it played, the wins of each seat. The
model is Luce's choice model, the multi-player form of Bradley-Terry: policy
``p`` has a strength ``s_p`` and, in a round, the seat held by policy ``p``
wins with probability ``s_p / sum(s over the seats at the table)``. With two
players it is Bradley-Terry exactly; with more it counts each round's winner
as beating every other seat at once, without the double counting of
splitting a round into pairwise wins. Rounds with no winner (stalemates)
carry no information and are left out. The seat a policy holds is not in the
model: a league's balanced seating cancels seat advantage instead.

The likelihood depends on a table only through which policies sit there
(how many seats each holds), so tables of the same make-up are pooled. The
fit maximises it by Newton steps (it is concave) with a weak prior: each
policy plays ``2 * prior`` virtual two-seat rounds against a reference of
strength 1 and wins half, so a policy that never or always wins keeps a
finite rating. Ratings are on the Elo scale (400 log10 of strength: +100
means winning about 64% head to head), centred on the policies' mean.

Intervals are normal (Wald) intervals from the robust "sandwich" covariance
``A^-1 B A^-1``: ``A`` the information of the fit, ``B`` the observed
spread of each round's score. Rounds are treated as independent within and
across tables; that ignores the pairing of duplicate deals, so the
intervals err wide.

Every number here is computed in plain Python floats with ``math`` (no
BLAS, no ``np.linalg``, no vectorised reductions), in a fixed order, so a
rating is the same to the last digit on every machine.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from unosim.analysis.stats import wilson_interval

__all__ = [
    "ELO",
    "Ratings",
    "Table",
    "edge_over_fair",
    "fit_luce",
    "pairwise_wins",
    "rate_policies",
    "rating_spread",
    "solve",
]

ELO = 400 / math.log(10)  # natural-log strength to Elo points
PRIOR = 0.5
MAX_ITER = 200
TOL = 1e-12
Z = 1.959963984540054  # the normal 97.5% point

Vector = list[float]
Matrix = list[list[float]]


@dataclass(frozen=True)
class Table:
    """One seating's results: the policy index of each seat, wins by seat, games played."""

    seats: tuple[int, ...]
    wins: tuple[float, ...]
    games: int

    @property
    def decided(self) -> float:
        return math.fsum(self.wins)


@dataclass(frozen=True)
class _Group:
    """Tables of one make-up pooled: seats per policy, decided rounds, wins per policy."""

    held: tuple[int, ...]
    decided: float
    wins: tuple[float, ...]


def _groups(tables: Sequence[Table], k: int) -> list[_Group]:
    """The tables pooled by make-up, in a fixed order (whatever order the tables came in)."""
    pooled: dict[tuple[int, ...], list[list[float]]] = {}
    for tab in tables:
        held = [0] * k
        for p in tab.seats:
            held[p] += 1
        parts = pooled.setdefault(tuple(held), [[] for _ in range(k)])
        for seat, p in enumerate(tab.seats):
            parts[p].append(float(tab.wins[seat]))
    out = []
    for held_t in sorted(pooled):
        wins = tuple(math.fsum(sorted(w)) for w in pooled[held_t])
        out.append(_Group(held_t, math.fsum(sorted(wins)), wins))
    return out


def solve(a: Matrix, b: Vector) -> Vector:
    """``x`` with ``a x = b``: Gaussian elimination with partial pivoting, in plain floats.

    >>> solve([[2.0, 1.0], [1.0, 3.0]], [3.0, 5.0])
    [0.8, 1.4]
    """
    n = len(b)
    m = [list(row) + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        piv = max(range(c, n), key=lambda r: abs(m[r][c]))
        if m[piv][c] == 0.0:
            raise ZeroDivisionError("singular matrix")
        m[c], m[piv] = m[piv], m[c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            if f != 0.0:
                for j in range(c, n + 1):
                    m[r][j] -= f * m[c][j]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - math.fsum(m[r][j] * x[j] for j in range(r + 1, n))) / m[r][r]
    return x


def _shares(g: _Group, s: Vector) -> Vector:
    """Each policy's chance to win a decided round of make-up ``g`` at strengths ``s``."""
    tot = math.fsum(h * si for h, si in zip(g.held, s, strict=True))
    return [h * si / tot for h, si in zip(g.held, s, strict=True)]


def _loglik(theta: Vector, groups: list[_Group], wins: Vector, prior: float) -> float:
    s = [math.exp(t) for t in theta]
    terms = [(w + prior) * t for w, t in zip(wins, theta, strict=True)]
    terms += [-g.decided * math.log(math.fsum(h * si for h, si in zip(g.held, s, strict=True)))
              for g in groups if g.decided]
    terms += [-2 * prior * (max(t, 0.0) + math.log1p(math.exp(-abs(t)))) for t in theta]
    return math.fsum(terms)


def _info(theta: Vector, groups: list[_Group], prior: float) -> tuple[Vector, Matrix]:
    """(expected wins per policy, the information matrix ``A`` = minus the Hessian)."""
    k = len(theta)
    s = [math.exp(t) for t in theta]
    ref = [si / (si + 1) for si in s]
    qs = [(g.decided, _shares(g, s)) for g in groups]
    expected = [math.fsum([d * q[p] for d, q in qs] + [2 * prior * ref[p]]) for p in range(k)]
    a = [[math.fsum([-d * q[p] * q[r] for d, q in qs]
                    + ([math.fsum(d * q[p] for d, q in qs) + 2 * prior * ref[p] * (1 - ref[p])]
                       if p == r else []))
          for r in range(k)] for p in range(k)]
    return expected, a


def _fit(groups: list[_Group], k: int, prior: float) -> Vector:
    """Log strengths: Newton steps on the concave log-likelihood, halved if they overshoot."""
    wins = [math.fsum(g.wins[p] for g in groups) for p in range(k)]
    theta = [0.0] * k
    ll = _loglik(theta, groups, wins, prior)
    for _ in range(MAX_ITER):
        expected, a = _info(theta, groups, prior)
        grad = [w + prior - e for w, e in zip(wins, expected, strict=True)]
        step = solve(a, grad)
        t = 1.0
        while True:
            cand = [x + t * d for x, d in zip(theta, step, strict=True)]
            new = _loglik(cand, groups, wins, prior)
            if new >= ll - 1e-12 or t < 1e-6:
                break
            t /= 2
        theta, ll = cand, new
        if max(abs(t * d) for d in step) < TOL:
            break
    return theta


def _centre(theta: Vector) -> Vector:
    mean = math.fsum(theta) / len(theta)
    return [ELO * (t - mean) for t in theta]


def fit_luce(tables: Sequence[Table], k: int, prior: float = PRIOR) -> list[float]:
    """Elo-scale ratings (mean 0) of policies ``0..k-1`` from ``tables``.

    A policy twice as strong wins a two-seat table two times in three: 120 Elo.

    >>> tabs = [Table((0, 1), (2000.0, 1000.0), 3000), Table((1, 0), (1000.0, 2000.0), 3000)]
    >>> [round(r) for r in fit_luce(tabs, 2)]
    [60, -60]
    """
    groups = _groups(tables, k)
    if any(all(g.held[p] == 0 for g in groups) for p in range(k)):
        raise ValueError("every policy must sit at some table")
    return _centre(_fit(groups, k, prior))


def _covariance(theta: Vector, groups: list[_Group], prior: float) -> Matrix:
    """The sandwich covariance ``A^-1 B A^-1`` of the log strengths (prior included in A)."""
    k = len(theta)
    s = [math.exp(t) for t in theta]
    _, a = _info(theta, groups, prior)
    terms: list[list[list[float]]] = [[[] for _ in range(k)] for _ in range(k)]
    for g in groups:
        q = _shares(g, s)
        for w_p, p in ((w, p) for p, w in enumerate(g.wins) if w):
            u = [(1.0 if j == p else 0.0) - q[j] for j in range(k)]
            for i in range(k):
                for j in range(k):
                    terms[i][j].append(w_p * u[i] * u[j])
    b = [[math.fsum(terms[i][j]) for j in range(k)] for i in range(k)]
    # A^-1 B A^-1, column by column: X = A^-1 B, then (A^-1 X^T)^T (A, B symmetric)
    cols = [solve(a, [b[i][j] for i in range(k)]) for j in range(k)]  # cols[j] = A^-1 b_j
    x = [[cols[j][i] for j in range(k)] for i in range(k)]  # X = A^-1 B
    rows = [solve(a, x[i]) for i in range(k)]  # (A^-1 X^T) column i = A^-1 (row i of X)
    v = [[rows[j][i] for j in range(k)] for i in range(k)]
    return [[0.5 * (v[i][j] + v[j][i]) for j in range(k)] for i in range(k)]


@dataclass
class Ratings:
    """Each policy's rating (Elo, mean 0), its 95% interval, and their covariance.

    ``cov[a][b]`` is the covariance of the log strengths of ``a`` and ``b`` on
    the Elo scale; differences between policies (`diff`) come from it.
    """

    names: list[str]
    rating: list[float]
    low: list[float]
    high: list[float]
    cov: list[list[float]]

    def order(self) -> list[int]:
        """Policies from the highest rating to the lowest (ties by name)."""
        return sorted(range(len(self.names)), key=lambda i: (-self.rating[i], self.names[i]))

    def se(self, a: int, b: int) -> float:
        """The standard error of ``rating[a] - rating[b]``."""
        return math.sqrt(max(self.cov[a][a] + self.cov[b][b] - 2 * self.cov[a][b], 0.0))

    def diff(self, a: int, b: int) -> tuple[float, float, float, float]:
        """(rating[a] - rating[b], 95% low, high, two-sided p of no difference)."""
        d, se = self.rating[a] - self.rating[b], self.se(a, b)
        p = math.erfc(abs(d) / se / math.sqrt(2)) if se > 0 else (1.0 if d == 0 else 0.0)
        return d, d - Z * se, d + Z * se, p


def rate_policies(names: Sequence[str], tables: Sequence[Table], prior: float = PRIOR,
                  tied: Sequence[Sequence[int]] = ()) -> Ratings:
    """Ratings of ``names`` (table seats index them) with 95% sandwich intervals.

    ``tied``: groups of policies that played identically; each group's
    ratings (and their variances) are made exactly equal, their mean.

    >>> tabs = [Table((0, 1, 2), (500.0, 300.0, 200.0), 1000),
    ...         Table((1, 2, 0), (300.0, 200.0, 500.0), 1000),
    ...         Table((2, 0, 1), (200.0, 500.0, 300.0), 1000)]
    >>> r = rate_policies(["a", "b", "c"], tabs)
    >>> [r.names[i] for i in r.order()], bool(r.low[0] < r.rating[0] < r.high[0])
    (['a', 'b', 'c'], True)
    """
    k = len(names)
    groups = _groups(tables, k)
    if any(all(g.held[p] == 0 for g in groups) for p in range(k)):
        raise ValueError("every policy must sit at some table")
    theta = _fit(groups, k, prior)
    v = _covariance(theta, groups, prior)
    # centre: r = ELO (I - J/k) theta, so cov(r) = ELO^2 C V C
    rowm = [math.fsum(v[i]) / k for i in range(k)]
    colm = [math.fsum(v[i][j] for i in range(k)) / k for j in range(k)]
    allm = math.fsum(rowm) / k
    cov = [[ELO * ELO * (v[i][j] - rowm[i] - colm[j] + allm) for j in range(k)]
           for i in range(k)]
    rating = _centre(theta)
    for group in tied:
        members = sorted(group)
        r = math.fsum(rating[i] for i in members) / len(members)
        var = math.fsum(cov[i][i] for i in members) / len(members)
        for c in range(k):
            if c not in members:
                x = math.fsum(cov[i][c] for i in members) / len(members)
                for i in members:
                    cov[i][c] = cov[c][i] = x
        for i in members:
            rating[i] = r
            for j in members:
                cov[i][j] = var  # one rating: a tie has no spread of its own
    half = [Z * math.sqrt(max(cov[i][i], 0.0)) for i in range(k)]
    return Ratings(list(names), rating, [r - h for r, h in zip(rating, half, strict=True)],
                   [r + h for r, h in zip(rating, half, strict=True)], cov)


def rating_spread(r: Ratings) -> tuple[float, float, float]:
    """(spread, low, high): the strongest policy's rating minus the weakest's, 95% interval.

    The strongest and weakest are fixed by the point ratings; the interval is
    that of their difference.
    """
    order = r.order()
    d, lo, hi, _ = r.diff(order[0], order[-1])
    return d, lo, hi


def pairwise_wins(tables: Sequence[Table], k: int) -> list[list[float]]:
    """``W[a][b]``: rounds won by a seat of ``a`` with ``b`` at the table (once per b seat).

    Each round's winner beats each other seat's policy; a policy's own other
    seats are not counted. This is the pairwise view of multi-player results.

    >>> pairwise_wins([Table((0, 1, 1), (5.0, 2.0, 3.0), 10)], 2)
    [[0.0, 10.0], [5.0, 0.0]]
    """
    w = [[0.0] * k for _ in range(k)]
    for tab in tables:
        for seat, p in enumerate(tab.seats):
            for other, q in enumerate(tab.seats):
                if other != seat and q != p:
                    w[p][q] += tab.wins[seat]
    return w


def edge_over_fair(wins: float, trials: int, fair: float) -> tuple[float, float, float]:
    """(rate - fair, low, high): a win rate above the fair share, with its 95% Wilson interval.

    The skill a rule set leaves: the strongest policy's win rate per seat
    against ``players - 1`` random players, minus ``1 / players``.

    >>> [round(x, 3) for x in edge_over_fair(330, 1000, 0.25)]
    [0.08, 0.052, 0.11]
    """
    r, lo, hi = wilson_interval(int(round(wins)), int(trials))
    return r - fair, lo - fair, hi - fair
