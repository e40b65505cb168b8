"""From the runs of a reproduction to its tables, its comparison with the
published numbers and the verdict on each claim.

A *run value* is one number per run: a per-flow metric combined over the
flows of the run that belong to a point (``mean``, ``sum`` or Jain's index).
Every statistic is over runs, that is over seeds; two schemes are compared
run by run with the same seeds (:func:`dupack.stats.difference`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dupack.reproduce.spec import Experiment, Paper, points
from dupack.stats import Estimate, difference, estimate, jain

if TYPE_CHECKING:
    import pandas as pd

HOLDS, FAILS, UNDECIDED, NOT_RUN = "holds", "fails", "not decidable", "not run"


def _values_close(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
    return a == b


class _Columns:
    """A table's columns as a reproduction's analysis reads them, each
    converted once: an axis column as integer codes into its distinct
    values, a metric as floats. A reproduction asks for thousands of run
    values of a few tables; converting or comparing whole columns of strings
    each time was most of its analysis."""

    def __init__(self, flows: pd.DataFrame) -> None:
        import weakref

        # Weakly: the cache must not keep the table alive.
        self._table = weakref.ref(flows)
        self._codes: dict[str, tuple[Any, Any]] = {}
        self._floats: dict[str, Any] = {}
        self._raw: dict[str, Any] = {}
        self._matching: dict[tuple[str, tuple[Any, ...]], Any] = {}

    @property
    def flows(self) -> pd.DataFrame:
        table = self._table()
        assert table is not None, "a table is analysed only while it lives"
        return table

    def codes(self, name: str) -> tuple[Any, Any]:
        """(code per row, the distinct values as numpy scalars); a missing value's code is -1."""
        if name not in self._codes:
            import pandas as pd

            codes, uniques = pd.factorize(self.flows[name], use_na_sentinel=True)
            self._codes[name] = (codes, uniques.to_numpy())
        return self._codes[name]

    def raw(self, name: str) -> Any:
        if name not in self._raw:
            self._raw[name] = self.flows[name].to_numpy()
        return self._raw[name]

    def floats(self, name: str) -> Any:
        if name not in self._floats:
            import numpy as np

            self._floats[name] = self.flows[name].to_numpy(dtype=float, na_value=np.nan)
        return self._floats[name]

    def matching(self, name: str, wants: list[Any]) -> Any:
        """Which rows hold one of ``wants`` as :func:`_values_close` says.
        The comparison is made once per distinct value, with the values as
        numpy gives them row by row (so integers compare exactly, floats
        within rounding), and spread to the rows by their codes. Kept per
        column and values (every metric of a point asks for the same rows);
        the array returned is shared: not to be changed in place."""
        import numpy as np

        try:
            key = (name, tuple(wants))
            hit = self._matching.get(key)
        except TypeError:  # an unhashable value: not kept
            key, hit = None, None
        if hit is not None:
            return hit
        codes, uniques = self.codes(name)
        # One more entry, never a match, for the code -1 of a missing value.
        found = np.zeros(len(uniques) + 1, dtype=bool)
        for i, v in enumerate(uniques):
            found[i] = any(_values_close(v, w) for w in wants)
        rows = found[codes]
        if key is not None:
            self._matching[key] = rows
        return rows


#: The converted columns of the tables being analysed, by the table's id,
#: kept while the table lives (its weak reference drops the entry). A
#: reproduction's tables are complete before they are analysed and are not
#: changed after.
_CONVERTED: dict[int, tuple[Any, _Columns]] = {}


def _columns(flows: pd.DataFrame) -> _Columns:
    import weakref

    key = id(flows)
    hit = _CONVERTED.get(key)
    if hit is not None and hit[0]() is flows:
        return hit[1]
    cols = _Columns(flows)
    # The callback holds the dict itself: at the interpreter's exit the
    # module's globals may be gone before the last table is.
    _CONVERTED[key] = (weakref.ref(flows, lambda _, k=key, d=_CONVERTED: d.pop(k, None)), cols)
    return cols


def _mask(flows: pd.DataFrame, point: dict[str, Any]) -> Any:
    """Which rows of ``flows`` are at ``point`` (None: all of them)."""
    cols = _columns(flows)
    mask = None
    for name, want in point.items():
        if name not in flows.columns:
            raise KeyError(name)
        m = cols.matching(name, want if isinstance(want, list) else [want])
        mask = m if mask is None else (mask & m)
    return mask


def select(flows: pd.DataFrame, point: dict[str, Any]) -> pd.DataFrame:
    """The rows of ``flows`` at ``point`` (axis -> value or list of values).
    A table's columns are converted when it is first analysed: change it
    after that and build a new one instead (:data:`_CONVERTED`)."""
    mask = _mask(flows, point)
    return flows if mask is None else flows[mask]


def run_values(flows: pd.DataFrame, scheme: str, metric: str, aggregate: str, point: dict[str, Any]) -> dict[int, float]:
    """seed -> the run's value of ``metric`` for ``scheme`` at ``point``
    (the table not changed since it was first analysed, as for :func:`select`)."""
    import numpy as np

    cols = _columns(flows)
    # The scheme is matched as every axis is (a string: exactly).
    at = cols.matching("scheme", [scheme])
    m = _mask(flows, point)
    if m is not None:
        at = at & m  # not in place: the masks are shared (_Columns.matching)
    # Only the two columns needed are taken, not the table's rows.
    seeds = cols.raw("seed")[at]
    values = cols.floats(metric)[at]
    keep = ~np.isnan(values)  # NaN (e.g. an unfinished download) is left out
    seeds, values = seeds[keep], values[keep]
    # Each seed's values in their order in the table (a stable sort), summed
    # left to right as before: the same floats, to the last bit.
    order = np.argsort(seeds, kind="stable")
    seeds, values = seeds[order], values[order]
    uniq, first = np.unique(seeds, return_index=True)
    out: dict[int, float] = {}
    for seed, xs in zip(uniq.tolist(), np.split(values, first[1:]) if len(first) else [], strict=True):
        xs = xs.tolist()
        if aggregate == "sum":
            out[int(seed)] = sum(xs)
        elif aggregate == "jain":
            out[int(seed)] = jain(xs)
        else:
            out[int(seed)] = sum(xs) / len(xs)
    return out


@dataclass
class Cell:
    experiment: str
    scheme: str
    point: dict[str, Any]
    metric: str
    aggregate: str
    est: Estimate


def cells(paper: Paper, exp: Experiment, flows: pd.DataFrame, metrics: list[str], full: bool) -> list[Cell]:
    """Mean and 95 % interval per scheme, grid point and metric (flows combined by their mean)."""
    names = exp.axis_names()
    grid = [dict(zip(names, combo)) for combo in _product([exp.axis_values(n, full) for n in names])]
    out = []
    for sid in exp.schemes:
        for pt in grid:
            for m in metrics:
                v = run_values(flows, sid, m, "mean", pt)
                out.append(Cell(exp.id, sid, pt, m, "mean", estimate(list(v.values()))))
    return out


def _product(lists: list[list[Any]]) -> list[tuple[Any, ...]]:
    import itertools

    return list(itertools.product(*lists)) if lists else [()]


# ---------------------------------------------------------------- claims

@dataclass
class PointVerdict:
    point: dict[str, Any]
    verdict: str
    # The compared differences (a - b, or a - ratio·b), one per pair of schemes.
    diffs: list[tuple[str, str, Estimate]]


@dataclass
class ClaimResult:
    claim: dict[str, Any]
    verdict: str
    reason: str
    points: list[PointVerdict]


def _pair_verdict(d: Estimate, cmp: str) -> str:
    if d.n < 2 or math.isnan(d.half):
        return UNDECIDED
    sign = -1 if cmp == "less" else 1
    lo, hi = (d.low, d.high) if sign > 0 else (-d.high, -d.low)
    if lo > 0:
        return HOLDS
    if hi < 0:
        return FAILS
    return UNDECIDED


def _combine(verdicts: list[str]) -> str:
    if any(v == FAILS for v in verdicts):
        return FAILS
    if verdicts and all(v == HOLDS for v in verdicts):
        return HOLDS
    return UNDECIDED


def _side(paper: Paper, default: Experiment | None, spec: Any) -> tuple[Experiment | None, str, dict[str, Any]]:
    """A claim's side: a scheme id (in the claim's experiment), or a table
    {scheme, experiment (optional), and axis values held for this side}."""
    if isinstance(spec, str):
        return default, spec, {}
    exp = paper.experiment(spec["experiment"]) if "experiment" in spec else default
    fixed = {k: v for k, v in spec.items() if k not in ("scheme", "experiment")}
    return exp, spec["scheme"], fixed


def _label(exp: Experiment | None, scheme: str, fixed: dict[str, Any]) -> str:
    parts = [scheme] + ([exp.id] if exp else []) + [f"{k}={v}" for k, v in fixed.items()]
    return " ".join(parts)


def evaluate_claim(paper: Paper, claim: dict[str, Any], results: dict[str, pd.DataFrame]) -> ClaimResult:
    """The verdict on one claim: it holds where the 95 % interval of every
    paired difference it needs excludes zero on its side, fails where one
    excludes zero on the other side, and is not decidable otherwise.

    Each side is a scheme in the claim's experiment (the one whose `setting`
    the claim names, or the only one), or a table naming the scheme, the
    experiment and axis values of its own: lossy against loss-free sources
    of one run, one router against another."""
    default = paper.experiment(claim.get("setting", "")) or (paper.experiments[0] if len(paper.experiments) == 1 else None)
    cmp = claim["compare"]
    order = claim.get("order") or [claim.get("a"), claim.get("b")]
    sides = [_side(paper, default, s) for s in order]
    for exp, scheme, _ in sides:
        if exp is None or exp.id not in results:
            return ClaimResult(claim, NOT_RUN, f"no experiment of this reproduction covers '{claim.get('setting', '')}'", [])
        if scheme not in exp.schemes:
            return ClaimResult(claim, NOT_RUN, f"scheme {scheme} is not run in experiment '{exp.id}'", [])
    pairs = list(zip(sides, sides[1:]))
    ratio = float(claim.get("ratio", 1.0)) if cmp == "ratio_at_least" else 1.0
    agg = claim.get("aggregate", "mean")
    pvs = []
    for pt in points(claim.get("over", {})):
        try:
            diffs = []
            for (ea, sa, fa), (eb, sb, fb) in pairs:
                va = run_values(results[ea.id], sa, claim["metric"], agg, {**pt, **fa})
                vb = run_values(results[eb.id], sb, claim["metric"], agg, {**pt, **fb})
                seeds = sorted(set(va) & set(vb))
                diffs.append((_label(ea, sa, fa), _label(eb, sb, fb),
                              difference([va[s] for s in seeds], [ratio * vb[s] for s in seeds])))
        except KeyError as e:
            return ClaimResult(claim, NOT_RUN, f"an experiment of this claim has no axis {e}", [])
        side = "less" if cmp == "less" else "greater"
        pvs.append(PointVerdict(pt, _combine([_pair_verdict(d, side) for _, _, d in diffs]), diffs))
    verdict = _combine([p.verdict for p in pvs])
    reason = "; ".join(f"{_fmt_point(p.point)}: {p.verdict}" for p in pvs if p.verdict != HOLDS) or "at every point"
    return ClaimResult(claim, verdict, reason, pvs)


def _fmt_point(pt: dict[str, Any]) -> str:
    return ", ".join(f"{k} = {v}" for k, v in pt.items()) or "overall"


# ---------------------------------------------------------------- published values

@dataclass
class Comparison:
    value: dict[str, Any]
    scheme: str | None
    metric: str | None
    dupack: Estimate | None
    reason: str  # why there is no dupack figure, if there is none

    @property
    def difference_pct(self) -> float:
        if self.dupack is None or not self.value.get("value"):
            return math.nan
        return (self.dupack.mean / float(self.value["value"]) - 1) * 100


def compare_published(paper: Paper, results: dict[str, pd.DataFrame]) -> list[Comparison]:
    """Each published result beside dupack's figure for the same scheme,
    quantity and conditions (where ``[[compare]]`` says how to read it)."""
    out = []
    by_quantity = {c.quantity: c for c in paper.compares}
    for v in paper.published:
        if v.get("kind") != "result":
            continue
        c = by_quantity.get(v.get("quantity", ""))
        scheme = paper.scheme(v.get("scheme", ""))
        if c is None:
            out.append(Comparison(v, scheme.id if scheme else None, None, None, "no dupack counterpart defined"))
            continue
        if scheme is None:
            out.append(Comparison(v, None, c.metric, None, f"scheme '{v.get('scheme')}' is not run"))
            continue
        cond = dict(v.get("conditions", {}))
        if "experiment" in v:
            exp = paper.experiment(v["experiment"])
            exp = exp if exp is not None and exp.id in results and set(cond) <= set(exp.axis_names()) else None
        else:
            exp = next((e for e in paper.experiments if e.id in results and set(cond) <= set(e.axis_names())
                        and scheme.id in e.schemes), None)
        if exp is None:
            out.append(Comparison(v, scheme.id, c.metric, None, "no experiment covers these conditions"))
            continue
        vals = run_values(results[exp.id], scheme.id, c.metric, c.aggregate, cond)
        out.append(Comparison(v, scheme.id, c.metric, estimate(list(vals.values())), ""))
    return out
