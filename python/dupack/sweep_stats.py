"""Statistics over the seeds of a sweep: the values of each run
(:data:`RUN_METRICS`, its flows combined), their summary per grid point,
the comparison of two sides, and the summary as printed text.

The methods of :class:`dupack.sweeps.SweepResult` (``run_values``,
``summary``, ``compare``, its display) call these, importing this module
when first asked: a sweep that only runs and stores (``dupack sweep -q``)
does not load it (docs/performance.md, "The dupack command end to end").
"""

from __future__ import annotations

from _collections_abc import Mapping

from dupack.sweeps import _show

# typing for type checkers only (why: dupack/__init__.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    import pandas as pd

    from dupack.sweeps import SweepResult

#: Metric → (how a run's flows combine into the run's value, what that value is).
#: Every statistic of :meth:`SweepResult.summary` is then over runs (seeds).
RUN_METRICS: dict[str, tuple[str, str]] = {
    "goodput_kbps": ("mean", "goodput in kbit/s, the mean over the flows"),
    "retransmitted_segments": ("sum", "retransmitted segments, summed over the flows"),
    "fast_retransmits": ("sum", "fast retransmits, summed over the flows"),
    "timeouts": ("sum", "retransmission timeouts, summed over the flows"),
    "ndup_0": ("sum", "timeouts with no duplicate ACK before them, summed over the flows"),
    "ndup_1": ("sum", "timeouts after one duplicate ACK, summed over the flows"),
    "ndup_2": ("sum", "timeouts after two duplicate ACKs, summed over the flows"),
    "ndup_3plus": ("sum", "timeouts after three or more duplicate ACKs, summed over the flows"),
    "jain": ("jain", "Jain's fairness index of the flows' goodputs (1: all equal)"),
}
#: Grid points shown by the summary displays; the rest are counted.
SUMMARY_ROWS = 24


def run_values(runs: pd.DataFrame, flows: pd.DataFrame, paths: list[str], by_variant: bool) -> pd.DataFrame:
    import numpy as np
    import pandas as pd

    keys = ["job", "variant"] if by_variant else ["job"]
    f = flows[[*keys, *(m for m in RUN_METRICS if m in flows.columns)]].copy()
    for m in RUN_METRICS:
        if m in f.columns:
            f[m] = f[m].astype("float64")
    g = f.groupby(keys, sort=True, dropna=False)
    out = pd.DataFrame({"flows": g.size()})
    for m, (how, _) in RUN_METRICS.items():
        if how != "jain":
            out[m] = g[m].mean() if how == "mean" else g[m].sum(min_count=1)
    # Jain's index over the goodputs a run's flows got (NaN ones left out).
    x = f["goodput_kbps"]
    f = f.assign(_sq=x * x, _ok=x.notna())
    s, sq, n = g["goodput_kbps"].sum(), f.groupby(keys, sort=True, dropna=False)["_sq"].sum(), f.groupby(keys, sort=True, dropna=False)["_ok"].sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        out["jain"] = np.where((sq > 0) & (n > 0), s * s / (n * sq), np.nan)
    out = out.reset_index()
    ids = runs[["job", *paths, "seed"]]
    out = ids.merge(out, on="job", how="inner", sort=False)
    front = ["job", *paths, "seed", *(["variant"] if by_variant else []), "flows"]
    return out[[*front, *RUN_METRICS]].reset_index(drop=True)


def summary(values: pd.DataFrame, paths: list[str]) -> pd.DataFrame:
    import pandas as pd

    from dupack.stats import estimate

    keys = [*paths, *(["variant"] if "variant" in values.columns else [])]
    groups = values.groupby(keys, sort=False, dropna=False) if keys else [((), values)]
    rows = []
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        row: dict[str, Any] = dict(zip(keys, key, strict=True))
        row["n"] = len(g)
        for m in RUN_METRICS:
            e = estimate(g[m].dropna().tolist())
            row[f"{m}_mean"], row[f"{m}_sd"], row[f"{m}_ci95"] = e.mean, e.sd, e.half
        rows.append(row)
    columns = [*keys, "n", *(f"{m}_{s}" for m in RUN_METRICS for s in ("mean", "sd", "ci95"))]
    return pd.DataFrame(rows, columns=columns)


#: The summary's printed columns: header, metric(s), number format.
_DISPLAY = (
    ("goodput kbit/s\n(flows' mean)", "goodput_kbps", "{:.1f}"),
    ("retx segs\n(flows' sum)", "retransmitted_segments", "{:.1f}"),
    ("fast retx\n(flows' sum)", "fast_retransmits", "{:.1f}"),
    ("RTOs\n(flows' sum)", "timeouts", "{:.1f}"),
    ("N_dup 0/1/2/3+\n(flows' sum, mean)", ("ndup_0", "ndup_1", "ndup_2", "ndup_3plus"), "{:.1f}"),
    ("Jain\n(over flows)", "jain", "{:.3f}"),
)
SUMMARY_NOTE = (
    "Each cell: mean ± half-width of the 95 % Student-t interval (sd) over the row's n runs, one per seed; "
    "a run's value combines its flows as the column's header says (N_dup: means only)."
)


def _fmt(v: float, spec: str) -> str:
    return "-" if v is None or v != v else spec.format(v)


def _cell(row: Any, metric: str, spec: str) -> str:
    mean, sd, half = row[f"{metric}_mean"], row[f"{metric}_sd"], row[f"{metric}_ci95"]
    if half != half:  # one run: no interval
        return _fmt(mean, spec)
    return f"{_fmt(mean, spec)} ± {_fmt(half, spec)} ({_fmt(sd, spec)})"


def summary_display(summary: pd.DataFrame, paths: list[str]) -> tuple[pd.DataFrame, str]:
    import pandas as pd

    keys = [*paths, *(["variant"] if "variant" in summary.columns else [])]
    data: dict[str, list[str]] = {k: [_show(v) for v in summary[k]] for k in keys}
    data["n"] = [str(int(n)) for n in summary["n"]]
    for header, metric, spec in _DISPLAY:
        if isinstance(metric, tuple):
            data[header] = ["/".join(_fmt(r[f"{m}_mean"], spec) for m in metric) for _, r in summary.iterrows()]
        else:
            data[header] = [_cell(r, metric, spec) for _, r in summary.iterrows()]
    return pd.DataFrame(data, columns=list(data)), SUMMARY_NOTE


def _side(value: Any, columns: list[str], values: pd.DataFrame, name: str) -> dict[str, Any]:
    """``a``/``b`` of :meth:`SweepResult.compare` as column → value."""
    if isinstance(value, Mapping):
        for c in value:
            if c not in columns:
                raise KeyError(f"{name}: {c!r} is not a grid path of this sweep nor 'variant' (have {columns})")
        return dict(value)
    holding = [c for c in columns if _matches(values[c], value).any()]
    if len(holding) != 1:
        which = "no" if not holding else f"several ({holding})"
        raise ValueError(f"{name}={value!r}: {which} grid column holds this value; give {name} as {{column: value}}")
    return {holding[0]: value}


def _matches(col: pd.Series, value: Any) -> pd.Series:
    return (col == value) | (col.astype("str") == _show(value))


def compare_runs(res: SweepResult, metric: str, a: Any, b: Any, by: str | list[str] | None) -> pd.DataFrame:
    import pandas as pd

    from dupack.stats import compare

    if metric not in RUN_METRICS:
        raise KeyError(f"unknown metric {metric!r}; choose from {', '.join(RUN_METRICS)}")
    by_list = [by] if isinstance(by, str) else list(by or [])
    paths = list(res.grid)
    def names_variant(x: Any) -> bool:
        if isinstance(x, Mapping):
            return "variant" in x
        # A bare value names the variant when no grid column holds it.
        return not any(_matches(res.runs[p], x).any() for p in paths) and bool(_matches(res.flows["variant"], x).any())

    by_variant = "variant" in by_list or names_variant(a) or names_variant(b)
    values = res.run_values(by_variant)
    columns = [*paths, *(["variant"] if by_variant else [])]
    for c in by_list:
        if c not in columns:
            raise KeyError(f"by: {c!r} is not a grid path of this sweep nor 'variant' (have {columns})")
    sa, sb = _side(a, columns, values, "a"), _side(b, columns, values, "b")
    groups = values.groupby(by_list, sort=False, dropna=False) if by_list else [((), values)]
    rows = []
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        sides = []
        for name, sel in (("a", sa), ("b", sb)):
            mask = pd.Series(True, index=g.index)
            for c, v in sel.items():
                mask &= _matches(g[c], v)
            rows_ = g[mask & g[metric].notna()]
            if rows_["seed"].duplicated().any():
                free = [c for c in columns if c not in sel and c not in by_list]
                raise ValueError(
                    f"{name} holds several runs per seed; say which with {name}= or by= ({', '.join(free)})"
                )
            sides.append({int(s): float(v) for s, v in zip(rows_["seed"], rows_[metric], strict=True)})
        c = compare(sides[0], sides[1])
        rows.append(
            {
                **dict(zip(by_list, key, strict=True)),
                "a_mean": c.a.mean,
                "a_n": c.a.n,
                "b_mean": c.b.mean,
                "b_n": c.b.n,
                "diff": c.diff,
                "diff_ci95": c.diff_half,
                "rel": c.rel,
                "rel_low": c.rel_low,
                "rel_high": c.rel_high,
                "method": c.method,
            }
        )
    return pd.DataFrame(rows)
