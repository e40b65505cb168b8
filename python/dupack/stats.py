"""Statistics over replications: means with Student-t intervals, paired
differences, Jain's fairness index.

Replications of a dupack experiment differ only in their seed, so two
schemes run with the same seeds share every random stream that does not
depend on the scheme (each link's and each flow's losses are drawn from
streams named after them, docs/architecture.md). Comparisons therefore pair
the runs by seed: the interval of the mean difference is narrower than the
two means' intervals suggest. Samples that do not share their seeds are
compared with Welch's unequal-variance interval instead (:func:`compare`).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["Estimate", "Comparison", "estimate", "difference", "compare", "t95", "jain"]

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


@dataclass(frozen=True)
class Comparison:
    """A compared with B: their estimates, the difference of the means
    (``diff`` ± ``diff_half``) and the relative improvement of A over B,
    ``rel = mean(A) / mean(B) - 1`` (``rel_low`` .. ``rel_high``, a 95 %
    interval), with the method that gave the intervals: ``"paired"`` (by
    seed) or ``"welch"``. The intervals are NaN when a side has fewer than
    two values (or, for ``rel``, when mean(B) is 0)."""

    a: Estimate
    b: Estimate
    diff: float
    diff_half: float
    rel: float
    rel_half: float
    df: float
    method: str

    @property
    def rel_low(self) -> float:
        return self.rel - self.rel_half

    @property
    def rel_high(self) -> float:
        return self.rel + self.rel_half

    def excludes_zero(self) -> bool:
        """The difference's interval lies entirely above or below zero."""
        return not math.isnan(self.diff_half) and abs(self.diff) > self.diff_half


def _t95_real(df: float) -> float:
    # Welch's degrees of freedom are not whole: round down (the wider interval).
    return t95(max(1, int(math.floor(df))))


def compare(
    a: Mapping[int, float] | Sequence[float],
    b: Mapping[int, float] | Sequence[float],
    paired: bool | None = None,
) -> Comparison:
    """A against B: the difference of their means and the relative
    improvement of A over B, each with a 95 % interval.

    ``a`` and ``b`` are the values of replications, as sequences or as
    mappings seed → value. ``paired=None`` pairs them by seed when both are
    mappings over the same seeds, and otherwise treats them as independent;
    ``paired=True`` pairs sequences by position (raising
    :class:`ValueError` if the lengths or the seeds differ).

    Paired: the difference's interval is the Student-t interval of the
    per-seed differences (:func:`difference`), and the ratio R = mean(A) /
    mean(B) gets the delta-method interval from the per-seed residuals
    a_i - R·b_i, with n - 1 degrees of freedom. Independent (Welch): the
    standard errors of the two means add, with the Welch-Satterthwaite
    degrees of freedom; for R the B term is scaled by R².
    """
    if paired is None:
        paired = isinstance(a, Mapping) and isinstance(b, Mapping) and set(a) == set(b)
    if paired and isinstance(a, Mapping) and isinstance(b, Mapping):
        if set(a) != set(b):
            raise ValueError(f"cannot pair by seed: seeds {sorted(set(a) ^ set(b))[:5]} are on one side only")
        keys = sorted(a)
        xs, ys = [float(a[k]) for k in keys], [float(b[k]) for k in keys]
    else:
        xs = [float(v) for v in (a.values() if isinstance(a, Mapping) else a)]
        ys = [float(v) for v in (b.values() if isinstance(b, Mapping) else b)]
    ea, eb = estimate(xs), estimate(ys)
    diff = ea.mean - eb.mean
    rel = ea.mean / eb.mean - 1 if eb.mean != 0 else math.nan
    nan = math.nan
    if paired:
        d = difference(xs, ys)
        n = len(xs)
        if n < 2:
            return Comparison(ea, eb, diff, nan, rel, nan, nan, "paired")
        r = rel + 1
        rel_half = nan
        if eb.mean != 0:
            resid = statistics.stdev([x - r * y for x, y in zip(xs, ys)])
            rel_half = t95(n - 1) * resid / (math.sqrt(n) * abs(eb.mean))
        return Comparison(ea, eb, diff, d.half, rel, rel_half, float(n - 1), "paired")
    if ea.n < 2 or eb.n < 2:
        return Comparison(ea, eb, diff, nan, rel, nan, nan, "welch")
    va, vb = ea.sd**2 / ea.n, eb.sd**2 / eb.n
    diff_half, df = _welch(va, vb, ea.n, eb.n)
    rel_half = nan
    if eb.mean != 0:
        r = rel + 1
        half, _ = _welch(va, r * r * vb, ea.n, eb.n)
        rel_half = half / abs(eb.mean)
    return Comparison(ea, eb, diff, diff_half, rel, rel_half, df, "welch")


def _welch(va: float, vb: float, na: int, nb: int) -> tuple[float, float]:
    """Half-width and degrees of freedom of Welch's interval for variances of the means ``va``, ``vb``."""
    se2 = va + vb
    if se2 == 0:
        return 0.0, float(na + nb - 2)
    df = se2**2 / (va**2 / (na - 1) + vb**2 / (nb - 1))
    return _t95_real(df) * math.sqrt(se2), df
