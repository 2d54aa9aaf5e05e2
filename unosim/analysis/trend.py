"""A weighted linear trend over a numeric setting, honest about lack of fit.

Sweep cells give one estimate per value of a numeric key (players = 2..10),
each with its own standard error. A weighted least-squares line (weights
``1/se²``) summarises them, but its textbook slope interval assumes the line
is the truth: when the points scatter about it by more than their errors
allow, that interval is too narrow. The chi-squared of the residuals per
degree of freedom measures this; when the lack of fit is significant
(p < 0.05), the slope's standard error and the line's band are inflated by
``sqrt(chi2/df)`` (the Birge ratio) and the trend is called not linear in
words, so a reader never takes a curve for a straight line.

>>> t = linear_trend([2, 3, 4, 5], [1.0, 2.1, 2.9, 4.0], [0.1, 0.1, 0.1, 0.1])
>>> round(t.slope, 2), t.linear, t.birge
(0.98, True, 1.0)
>>> bent = linear_trend([2, 3, 4, 5, 6], [0, 2, 3, 3.5, 3.7], [0.1] * 5)
>>> bent.linear, bent.birge > 5, bent.low < bent.slope < bent.high
(False, True, True)
>>> print(bent.words())
+0.89 per step (95% CI +0.24 to +1.54, widened 6.5× for the lack of fit); the trend is not \
linear (chi-squared per degree of freedom 42, p < 0.001), so the slope is only an average \
rate of change
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from unosim.analysis import stats
from unosim.analysis.stats import Floats

__all__ = ["LACK_OF_FIT_ALPHA", "Trend", "linear_trend"]

LACK_OF_FIT_ALPHA = 0.05
_Z = 1.959964


@dataclass(frozen=True)
class Trend:
    """``y ≈ intercept + slope·x`` fitted with weights ``1/se²``.

    ``chi2``/``df`` is the residual chi-squared and its degrees of freedom
    (points minus two); ``p_lack_of_fit`` its upper tail (nan with two
    points: no test). ``birge`` is the factor the slope's standard error and
    the band were inflated by (1.0 when the line fits). ``cov`` is the
    (inflated) covariance of (intercept, slope).
    """

    slope: float
    intercept: float
    se_slope: float
    low: float
    high: float
    chi2: float
    df: int
    p_lack_of_fit: float
    birge: float
    cov: tuple[tuple[float, float], tuple[float, float]]
    n: int

    @property
    def linear(self) -> bool:
        """False when the points depart from the line by more than their errors allow."""
        return not (self.p_lack_of_fit < LACK_OF_FIT_ALPHA)

    def _crit(self) -> float:
        # An inflated error is estimated from the residuals: t with df degrees of freedom.
        return stats.t_crit(0.95, self.df) if self.birge > 1.0 else _Z

    def band(self, xs: Sequence[float]) -> tuple[Floats, Floats, Floats]:
        """The fitted line at ``xs`` and its 95% band (inflated when the fit is poor).

        >>> y, lo, hi = linear_trend([0, 1, 2], [0.0, 1.0, 2.0], [1, 1, 1]).band([1.0])
        >>> round(float(y[0]), 9), bool(lo[0] < 1 < hi[0])
        (1.0, True)
        """
        x = np.asarray(xs, dtype=float)
        y = self.intercept + self.slope * x
        (a, b), (_, d) = self.cov
        se = np.sqrt(np.maximum(0.0, a + 2 * b * x + d * x * x))
        k = self._crit()
        return y, y - k * se, y + k * se

    def words(self, unit: str = "", per: str = "step", decimals: int = 2) -> str:
        """The slope with its interval and the linearity verdict, in one clause.

        >>> print(linear_trend([2, 3, 4, 5], [1.0, 2.1, 2.9, 4.0], [0.1] * 4
        ...                    ).words("%", "player"))
        +0.98% per player (95% CI +0.89% to +1.07%; the points fit a straight line, \
chi-squared per degree of freedom 0.9, p = 0.41)
        """
        def f(v: float) -> str:
            text = f"{v:+.{decimals}f}"
            return ("+" + text[1:] if float(text) == 0 else text) + unit  # no "-0.00"

        head = f"{f(self.slope)} per {per} (95% CI {f(self.low)} to {f(self.high)}"
        if not math.isfinite(self.p_lack_of_fit):
            return head + "; two points: linearity cannot be tested)"
        fit = (f"chi-squared per degree of freedom {self.chi2 / self.df:.2g}, "
               f"p {_p(self.p_lack_of_fit)}")
        if self.linear:
            return head + f"; the points fit a straight line, {fit})"
        return (head + f", widened {self.birge:.2g}× for the lack of fit); the trend is not "
                f"linear ({fit}), so the slope is only an average rate of change")


def _p(p: float) -> str:
    return "< 0.001" if p < 0.001 else f"= {p:.2g}"


def linear_trend(x: Sequence[float], y: Sequence[float], se: Sequence[float]) -> Trend | None:
    """The weighted line through ``(x, y)`` with standard errors ``se``, or None.

    Points with a non-finite value or a standard error that is not positive
    (e.g. a cell identical to its baseline) are left out; None when fewer
    than two distinct x remain.

    >>> linear_trend([1, 1], [0.0, 1.0], [1, 1]) is None
    True
    """
    vals = [(float(a), float(b), float(c)) for a, b, c in zip(x, y, se, strict=True)]
    pts = [(Fraction(a), Fraction(b), 1 / Fraction(c) ** 2) for a, b, c in vals
           if math.isfinite(a) and math.isfinite(b) and math.isfinite(c) and c > 0]
    if len({a for a, _, _ in pts}) < 2:
        return None
    # The normal equations in exact rationals (every float is one), weights 1/se²: no
    # BLAS or LAPACK call and no summation order decides a digit; each output is
    # rounded once.
    sw, swx, swxx, swy, swxy = (sum(terms, Fraction(0)) for terms in zip(
        *((w, w * a, w * a * a, w * b, w * a * b) for a, b, w in pts), strict=True))
    det = sw * swxx - swx * swx
    slope_q = (sw * swxy - swx * swy) / det
    icept_q = (swxx * swy - swx * swxy) / det
    chi2_q = sum((w * (b - icept_q - slope_q * a) ** 2 for a, b, w in pts), Fraction(0))
    chi2 = float(chi2_q)
    df = len(pts) - 2
    p = stats.chi2_sf(chi2, df) if df > 0 else math.nan
    inflate = chi2_q / df if df > 0 and p < LACK_OF_FIT_ALPHA else Fraction(1)
    birge = stats.sqrt_fraction(inflate)
    # the inverse of the information matrix, inflated by birge²
    c00, c01, c11 = (v * inflate / det for v in (swxx, -swx, sw))
    se_slope = stats.sqrt_fraction(c11)
    crit = stats.t_crit(0.95, df) if birge > 1.0 else _Z
    slope = float(slope_q)
    return Trend(slope, float(icept_q), se_slope, slope - crit * se_slope,
                 slope + crit * se_slope, chi2, df, p, birge,
                 ((float(c00), float(c01)), (float(c01), float(c11))), len(pts))

