"""Ratings of policies from multi-player results: a Luce (Bradley-Terry) fit with bootstrap intervals.

A league reports, for each seating it played, the wins of each seat. The
model is Luce's choice model, the multi-player form of Bradley-Terry: policy
``p`` has a strength ``s_p`` and, in a round, the seat held by policy ``p``
wins with probability ``s_p / sum(s over the seats at the table)``. With two
players it is Bradley-Terry exactly; with more it counts each round's winner
as beating every other seat at once, without the double counting of
splitting a round into pairwise wins. Rounds with no winner (stalemates)
carry no information and are left out. The seat a policy holds is not in the
model: a league's balanced seating cancels seat advantage instead.

The fit maximises the likelihood by Newton steps (it is concave) with a weak
prior: each policy plays ``2 * prior`` virtual two-seat rounds against a
reference of strength 1 and wins half, so a policy that never or always wins
keeps a finite rating. Ratings are on the
Elo scale (400 log10 of strength: +100 means winning about 64% head to head),
centred on the policies' mean. Intervals are percentile bootstraps that
resample the rounds of each seating (multinomially) with a fixed seed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

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
]

ELO = 400 / math.log(10)  # natural-log strength to Elo points
BOOT = 1000
PRIOR = 0.5
MAX_ITER = 100
TOL = 1e-9


@dataclass(frozen=True)
class Table:
    """One seating's results: the policy index of each seat, wins by seat, games played."""

    seats: tuple[int, ...]
    wins: tuple[float, ...]
    games: int

    @property
    def decided(self) -> float:
        return float(sum(self.wins))


def _design(tables: Sequence[Table], k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(seats held by each policy per table [T, k], decided rounds [T], wins per policy [k])."""
    m = np.zeros((len(tables), k))
    wins = np.zeros(k)
    for t, tab in enumerate(tables):
        for seat, p in enumerate(tab.seats):
            m[t, p] += 1
            wins[p] += tab.wins[seat]
    return m, np.array([t.decided for t in tables]), wins


def _loglik(theta: np.ndarray, m: np.ndarray, decided: np.ndarray, wins: np.ndarray,
            prior: float) -> float:
    s = np.exp(theta)
    return float((wins + prior) @ theta - decided @ np.log(m @ s)
                 - 2 * prior * np.logaddexp(theta, 0).sum())


def _fit(m: np.ndarray, decided: np.ndarray, wins: np.ndarray, prior: float) -> np.ndarray:
    """Log strengths, centred: Newton steps on the concave log-likelihood, halved if they overshoot."""
    theta = np.zeros(m.shape[1])
    ll = _loglik(theta, m, decided, wins, prior)
    for _ in range(MAX_ITER):
        s = np.exp(theta)
        q = m * s / (m @ s)[:, None]  # each policy's chance to win at each table
        ref = s / (s + 1)
        grad = wins + prior - decided @ q - 2 * prior * ref
        hess = q.T @ (decided[:, None] * q) - np.diag(decided @ q + 2 * prior * ref * (1 - ref))
        step = np.linalg.solve(hess, -grad)
        t = 1.0
        while True:
            cand = theta + t * step
            new = _loglik(cand, m, decided, wins, prior)
            if new >= ll - 1e-12 or t < 1e-6:
                break
            t /= 2
        theta, ll = cand, new
        if np.max(np.abs(t * step)) < TOL:
            break
    return theta - theta.mean()


def fit_luce(tables: Sequence[Table], k: int, prior: float = PRIOR) -> np.ndarray:
    """Elo-scale ratings (mean 0) of policies ``0..k-1`` from ``tables``.

    A policy twice as strong wins a two-seat table two times in three: 120 Elo.

    >>> tabs = [Table((0, 1), (2000.0, 1000.0), 3000), Table((1, 0), (1000.0, 2000.0), 3000)]
    >>> [round(float(r)) for r in fit_luce(tabs, 2)]
    [60, -60]
    """
    m, decided, wins = _design(tables, k)
    if (m.sum(axis=0) == 0).any():
        raise ValueError("every policy must sit at some table")
    return ELO * _fit(m, decided, wins, prior)


@dataclass
class Ratings:
    """Each policy's rating with its 95% bootstrap interval, and the bootstrap draws."""

    names: list[str]
    rating: np.ndarray
    low: np.ndarray
    high: np.ndarray
    draws: np.ndarray = field(repr=False)  # [boot, k]

    def order(self) -> list[int]:
        """Policies from the highest rating to the lowest."""
        return sorted(range(len(self.names)), key=lambda i: -self.rating[i])


def rate_policies(names: Sequence[str], tables: Sequence[Table], boot: int = BOOT,
                  seed: int = 0, prior: float = PRIOR) -> Ratings:
    """Ratings of ``names`` (table seats index them) with percentile bootstrap intervals.

    Each replicate redraws every table's rounds (winner seat, or no winner)
    multinomially from its observed shares: rounds are resampled within each
    seating, independently across seatings. That ignores the pairing of
    duplicate deals, which makes the intervals a little wide (conservative).

    >>> tabs = [Table((0, 1, 2), (500.0, 300.0, 200.0), 1000),
    ...         Table((1, 2, 0), (300.0, 200.0, 500.0), 1000),
    ...         Table((2, 0, 1), (200.0, 500.0, 300.0), 1000)]
    >>> r = rate_policies(["a", "b", "c"], tabs, boot=200)
    >>> [n for n in (r.names[i] for i in r.order())], bool(r.low[0] < r.rating[0] < r.high[0])
    (['a', 'b', 'c'], True)
    """
    k = len(names)
    point = fit_luce(tables, k, prior)
    m, _, _ = _design(tables, k)
    rng = np.random.default_rng(seed)
    samples = []
    for tab in tables:
        n = int(tab.games)
        w = np.round(np.asarray(tab.wins, dtype=float)).astype(np.int64)
        p = np.append(w, max(n - int(w.sum()), 0)) / max(n, 1)
        samples.append(rng.multinomial(n, p / p.sum(), size=boot)[:, :-1])
    draws = np.empty((boot, k))
    idx = [np.asarray(t.seats) for t in tables]
    for b in range(boot):
        wins = np.zeros(k)
        decided = np.empty(len(tables))
        for t, s in enumerate(samples):
            np.add.at(wins, idx[t], s[b])
            decided[t] = s[b].sum()
        draws[b] = ELO * _fit(m, decided, wins, prior)
    low, high = np.percentile(draws, [2.5, 97.5], axis=0)
    return Ratings(list(names), point, low, high, draws)


def rating_spread(r: Ratings) -> tuple[float, float, float]:
    """(spread, low, high): the strongest policy's rating minus the weakest's, 95% interval.

    The strongest and weakest are fixed by the point ratings, so the
    bootstrap measures the same difference each time (a max minus a min
    recomputed per replicate would be biased upwards).
    """
    order = r.order()
    hi_i, lo_i = order[0], order[-1]
    d = r.draws[:, hi_i] - r.draws[:, lo_i]
    low, high = np.percentile(d, [2.5, 97.5])
    return float(r.rating[hi_i] - r.rating[lo_i]), float(low), float(high)


def pairwise_wins(tables: Sequence[Table], k: int) -> np.ndarray:
    """``W[a, b]``: rounds won by a seat of ``a`` with ``b`` at the table (once per b seat).

    Each round's winner beats each other seat's policy; a policy's own other
    seats are not counted. This is the pairwise view of multi-player results.

    >>> pairwise_wins([Table((0, 1, 1), (5.0, 2.0, 3.0), 10)], 2).tolist()
    [[0.0, 10.0], [5.0, 0.0]]
    """
    w = np.zeros((k, k))
    for tab in tables:
        for seat, p in enumerate(tab.seats):
            for other, q in enumerate(tab.seats):
                if other != seat and q != p:
                    w[p, q] += tab.wins[seat]
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
