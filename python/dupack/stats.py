"""Statistics over replications: means with Student-t intervals, paired
differences, Jain's fairness index.

Replications of a dupack experiment differ only in their seed, so two
schemes run with the same seeds share every random stream that does not
depend on the scheme (each link's and each flow's losses are drawn from
streams named after them, docs/architecture.md). Comparisons therefore pair
the runs by seed: the interval of the mean difference is narrower than the
two means' intervals suggest.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Estimate", "estimate", "difference", "t95", "jain"]

# Two-sided 95 % quantiles of Student's t for 1..30 degrees of freedom.
_T95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)
# Beyond 30: the quantile at 40, 60 and 120 degrees of freedom, then the normal's.
_T95_TAIL = ((40, 2.021), (60, 2.000), (120, 1.980))


def t95(df: int) -> float:
    """The two-sided 95 % quantile of Student's t with ``df`` degrees of freedom
    (conservative between tabulated points)."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, got {df}")
    if df <= len(_T95):
        return _T95[df - 1]
    for limit, q in _T95_TAIL:
        if df <= limit:
            return q
    return 1.960


@dataclass(frozen=True)
class Estimate:
    """The mean of ``n`` values, their standard deviation and the half-width of
    the mean's 95 % Student-t interval (NaN with fewer than two values)."""

    mean: float
    sd: float
    half: float
    n: int

    @property
    def low(self) -> float:
        return self.mean - self.half

    @property
    def high(self) -> float:
        return self.mean + self.half

    def excludes_zero(self) -> bool:
        """The interval lies entirely above or below zero."""
        return self.n >= 2 and (self.low > 0 or self.high < 0)

    def fmt(self, spec: str = ".2f") -> str:
        if self.n < 2 or math.isnan(self.half):
            return format(self.mean, spec)
        return f"{format(self.mean, spec)} ± {format(self.half, spec)}"


def estimate(values: Sequence[float]) -> Estimate:
    """Mean, standard deviation and 95 % interval of ``values``."""
    xs = [float(v) for v in values]
    n = len(xs)
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    m = statistics.fmean(xs)
    if n < 2:
        return Estimate(m, math.nan, math.nan, 1)
    sd = statistics.stdev(xs)
    return Estimate(m, sd, t95(n - 1) * sd / math.sqrt(n), n)


def difference(a: Sequence[float], b: Sequence[float]) -> Estimate:
    """The mean of ``a[i] - b[i]`` over replications paired by position (seed)."""
    if len(a) != len(b):
        raise ValueError(f"paired samples differ in length: {len(a)} and {len(b)}")
    return estimate([x - y for x, y in zip(a, b)])


def jain(values: Sequence[float]) -> float:
    """Jain's fairness index: (Σx)² / (n·Σx²); 1 when every share is equal."""
    xs = [float(v) for v in values]
    sq = sum(x * x for x in xs)
    if not xs or sq == 0:
        return math.nan
    return sum(xs) ** 2 / (len(xs) * sq)
