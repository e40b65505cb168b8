"""dupack.reproduce.analysis: the run values a reproduction's tables,
comparisons, claims and figures are made of, computed over whole columns,
against their definition row by row (the per-value comparison of
``_values_close`` and a per-seed sum in table order)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest

from dupack.reproduce.analysis import _values_close, run_values, select
from dupack.stats import jain


def _by_definition(flows: pd.DataFrame, scheme: str, metric: str, aggregate: str, point: dict[str, Any]) -> dict:
    """run_values as its docstring defines it, one row at a time."""
    groups: dict[int, list[float]] = {}
    for _, row in flows.iterrows():
        if row["scheme"] != scheme:
            continue
        if not all(any(_values_close(row[k], w) for w in (v if isinstance(v, list) else [v])) for k, v in point.items()):
            continue
        x = row[metric]
        if x is pd.NA or x != x:
            continue
        groups.setdefault(int(row["seed"]), []).append(float(x))
    agg = {"sum": sum, "jain": jain}.get(aggregate, lambda xs: sum(xs) / len(xs))
    return {seed: agg(xs) for seed, xs in sorted(groups.items())}


def _table() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    n = 400
    return pd.DataFrame({
        "scheme": rng.choice(["reno", "newreno", "sack"], n),
        "seed": rng.integers(1, 9, n).astype("uint64"),
        # A float axis whose values are off by rounding, as a sweep's arithmetic leaves them.
        "loss_p": rng.choice([0.01, 0.1 + 0.2 - 0.3 + 0.01, 0.05, 1e-13, float("inf")], n),
        "hosts": rng.integers(1, 5, n),
        "group": pd.array(rng.choice(["lossy", "clean"], n), dtype="str"),
        "goodput_kbps": np.where(rng.random(n) < 0.1, np.nan, rng.random(n) * 1000),
        "timeouts": rng.integers(0, 30, n).astype("uint64"),
        "final_ssthresh": pd.array([None if i % 7 == 0 else i for i in range(n)], dtype="UInt64"),
    })


POINTS = [
    {},
    {"loss_p": 0.01},
    {"loss_p": [0.05, 0.01]},
    {"loss_p": 0.0},  # within 1e-12 of 1e-13
    {"loss_p": float("inf")},
    {"hosts": 2},
    {"hosts": 2.0},
    {"hosts": [1, 3], "group": "lossy"},
    {"group": ["clean"], "loss_p": 0.05},
    {"hosts": 2.5},
    {"group": 1},  # a number looked for among strings: no row
]


@pytest.mark.parametrize("aggregate", ["mean", "sum", "jain"])
@pytest.mark.parametrize("metric", ["goodput_kbps", "timeouts", "final_ssthresh"])
def test_run_values_over_whole_columns_equal_their_row_by_row_definition(metric: str, aggregate: str) -> None:
    flows = _table()
    for scheme in ("reno", "sack", "none"):
        for point in POINTS:
            got = run_values(flows, scheme, metric, aggregate, point)
            want = _by_definition(flows, scheme, metric, aggregate, point)
            assert list(got) == list(want), (scheme, point)
            # The same floats, to the last bit (NaN where Jain's index has none).
            assert all(g == w or (math.isnan(g) and math.isnan(w)) for g, w in zip(got.values(), want.values()))


def test_select_matches_floats_within_rounding_and_everything_else_exactly() -> None:
    flows = _table()
    assert (select(flows, {"loss_p": 0.01})["loss_p"].round(12) == 0.01).all()
    assert len(select(flows, {"loss_p": 0.01})) > len(flows[flows["loss_p"] == 0.01])  # the rounded ones too
    assert len(select(flows, {"hosts": 2.5})) == 0 and len(select(flows, {"group": 1})) == 0
    with pytest.raises(KeyError):
        select(flows, {"nonesuch": 1})


def test_run_values_on_a_real_reproduction_equal_their_definition(tmp_path) -> None:
    from dupack.reproduce import load_paper, reproduce

    r = reproduce("eplr", tmp_path, seeds=3)
    paper = load_paper("eplr")
    exp = paper.experiments[0]
    flows = r.results[exp.id]
    names = exp.axis_names()
    for sid in exp.schemes:
        for value in exp.axis_values(names[0], False):
            for metric in ("goodput_kbps", "timeouts"):
                point = {names[0]: value}
                assert run_values(flows, sid, metric, "mean", point) == _by_definition(flows, sid, metric, "mean", point)


def test_the_converted_columns_live_as_long_as_their_table() -> None:
    import gc

    from dupack.reproduce import analysis

    flows = _table()
    before = len(analysis._CONVERTED)
    run_values(flows, "reno", "timeouts", "sum", {"hosts": 2})
    assert len(analysis._CONVERTED) == before + 1
    # Once the table is gone its entry is too, so a table made later (which may get its id) is converted afresh.
    del flows
    gc.collect()
    assert len(analysis._CONVERTED) == before
    other = _table()
    other["timeouts"] = other["timeouts"] * 0
    assert set(run_values(other, "reno", "timeouts", "sum", {}).values()) == {0.0}
