"""The packet trace of ``dupack.run(..., trace=[...])`` (docs/results.md)."""

from __future__ import annotations

import pandas as pd
import pytest

import dupack
from dupack.result import TRACE_COLUMNS, TRACE_KINDS
from tests.conftest import ROOT

FF2 = ROOT / "scenarios" / "fall-floyd-2-drops.toml"


def test_trace_columns_are_exactly_the_documented_ones() -> None:
    t = dupack.run(FF2, trace=["f0"]).trace
    assert tuple(t.columns) == TRACE_COLUMNS
    assert str(t["seq"].dtype) == "UInt64" and str(t["len"].dtype) == "uint64"
    assert set(t["kind"]) <= set(TRACE_KINDS)
    text = (ROOT / "docs" / "results.md").read_text()
    for col in TRACE_COLUMNS:
        assert f"| `{col}` |" in text
    for kind in TRACE_KINDS:
        assert f"| `{kind}` |" in text


def test_fall_floyd_newreno_two_drops_packet_by_packet() -> None:
    # 150 segments, data packets 41 and 43 dropped: NewReno resends exactly
    # those two, one round trip apart, after one fast retransmit.
    t = dupack.run(FF2, trace=["f0"]).trace
    assert (t.kind == "send").sum() == 150
    assert list(t[t.kind == "drop_error"].seq) == [40_000, 42_000]
    assert list(t[t.kind == "retransmit"].seq) == [40_000, 42_000]
    assert (t.kind == "fast_retransmit").sum() == 1 and (t.kind == "timeout").sum() == 0
    # The first round trip, exact to the nanosecond (tests/fall_floyd.rs).
    first = t[t.kind == "send"].head(3)
    assert list(first.time_ns) == [0, 212_080_000, 212_080_000]
    assert t.time_ns.is_monotonic_increasing


def test_tracing_does_not_change_the_run() -> None:
    plain = dupack.run(FF2, overrides=["tcp.variant=reno"])
    traced = dupack.run(FF2, overrides=["tcp.variant=reno"], trace=["f0"])
    assert traced.flows.equals(plain.flows)
    assert traced.links.equals(plain.links)
    # The document keeps the core's field order; the trace comes last.
    assert list(traced.raw) == [*plain.raw, "trace"]
    assert [list(f) for f in traced.raw["flows"]] == [list(f) for f in plain.raw["flows"]]


def test_the_trace_and_series_come_as_the_documents_fields_would(tmp_path) -> None:
    # The core hands them over as objects, not JSON text (_core.run): the
    # document is as it would be parsed: fields in the core's order, the
    # trace and series after the run's and before the captures, each trace
    # row's and the series' keys sorted as the JSON had them.
    r = dupack.run(FF2, trace=["f0"], series=["f0"], pcap={"hop1": tmp_path / "b.pcapng"})
    assert list(r.raw)[-3:] == ["trace", "series", "pcap"]
    rows = r.raw["trace"]
    assert all(list(row) == ["flow", "kind", "len", "seq", "time_ns", "time_s"] for row in rows)
    assert all(type(row["time_ns"]) is int and type(row["time_s"]) is float and row["time_s"] == row["time_ns"] / 1e9
               for row in rows)
    assert {type(row["seq"]) for row in rows} <= {int, type(None)} and {row["flow"] for row in rows} == {"f0"}
    # One string object per flow name and kind, not one per row.
    assert len({id(row["flow"]) for row in rows}) == 1
    assert len({id(row["kind"]) for row in rows}) == len({row["kind"] for row in rows})
    series = r.raw["series"]
    assert list(series) == sorted(series)
    n = len(series["time_ns"])
    assert n > 0 and all(len(series[k]) == n for k in ("entity", "variable", "value"))
    assert all(type(v) is float for v in series["value"]) and type(series["truncated"]) is bool
    # And it says the same as its JSON text.
    import json

    assert json.loads(r.to_json()) == r.raw


ECN_FACK = [
    'topology.bottleneck.queue={kind="red",ecn=true,min_th=5,max_th=15}',
    'tcp.variant="ecn-fack"',
    'run.duration="30s"',
    "topology.senders=4",
]


def test_the_trace_and_series_files_are_written_from_the_cores_columns_as_from_the_rows(tmp_path) -> None:
    # save() writes the columns the core made beside the rows, never reading
    # a value in Python; a copy of the result (pickled: the columns stay in
    # the process that ran it) writes the same files from the rows. Every
    # kind of trace row occurs, an ECN reduction's seq is null, and both
    # series categoricals have their categories in first-appearance order.
    import filecmp
    import pickle

    r = dupack.run(dupack.load(ROOT / "scenarios" / "unfairness-dumbbell.toml").with_overrides(ECN_FACK),
                   trace=["f0", "f1"], series=["*"])
    assert {row["kind"] for row in r.raw["trace"]} == set(TRACE_KINDS)
    copy = pickle.loads(pickle.dumps(r))
    assert copy._kept("trace") is None and r._kept("trace") is not None
    r.save(tmp_path / "held")
    copy.save(tmp_path / "rows")
    for f in ("trace.parquet", "series.parquet"):
        assert filecmp.cmp(tmp_path / "held" / f, tmp_path / "rows" / f, shallow=False), f
    # The trace's DataFrame, too, is made from the core's columns, and equals the one made from the rows.
    pd.testing.assert_frame_equal(r.trace, copy.trace)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "held" / "trace.parquet"), r.trace)
    pd.testing.assert_frame_equal(r.series, copy.series)
    assert r.series.attrs == copy.series.attrs == {"truncated": False}
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "held" / "series.parquet"), r.series)
    assert r.trace.seq.isna().sum() == (r.trace.kind == "ecn_reduction").sum() > 0


def test_the_documents_trace_and_series_are_made_only_when_raw_is_read(tmp_path) -> None:
    # dupack run writes a traced run's files and prints its summary without
    # the hundreds of thousands of rows the document's fields hold; they are
    # made when raw is first read, where the document has them.
    r = dupack.run(FF2, trace=["f0"], series=["f0"], series_max=50, pcap={"hop1": tmp_path / "b.pcapng"})
    r.save(tmp_path / "r")
    _ = (r.trace, r.series, r.flows, r.run, r.seed, repr(r), r.has_series)
    assert r._made == {} and "trace" not in r._raw
    assert r.series.attrs == {"truncated": True} and len(r.series) == 50
    assert pd.read_parquet(tmp_path / "r" / "series.parquet").attrs == {"truncated": True}
    assert list(r.raw)[-3:] == ["trace", "series", "pcap"] and set(r._made) == {"trace", "series"}
    assert r.raw["series"]["truncated"] is True and len(r.raw["trace"]) == len(r.trace)
    # Read again, the same objects.
    assert r.raw["trace"] is r._made["trace"]


def test_a_result_pickled_before_the_fields_were_made_lazily_still_loads() -> None:
    import pickle

    r = dupack.run(FF2, trace=["f0"])
    old = dupack.RunResult.__new__(dupack.RunResult)
    state = {k: v for k, v in pickle.loads(pickle.dumps(r)).__dict__.items() if k not in ("_observed", "_made", "_columns")}
    state["raw"] = state.pop("_raw")
    old.__setstate__(state)
    pd.testing.assert_frame_equal(old.trace, r.trace)
    assert old.raw == r.raw


def test_a_trace_replaced_in_the_document_is_saved_as_it_now_is(tmp_path) -> None:
    # The core's columns are written only while the document holds the
    # field they were made with.
    r = dupack.run(FF2, trace=["f0"], series=["f0"])
    r.raw["trace"] = r.raw["trace"][:10]
    series = dict(r.raw["series"])
    keep = 7
    for k in ("time_ns", "entity", "variable", "value"):
        series[k] = series[k][:keep]
    r.raw["series"] = series
    r.save(tmp_path / "r")
    assert len(pd.read_parquet(tmp_path / "r" / "trace.parquet")) == 10
    assert len(pd.read_parquet(tmp_path / "r" / "series.parquet")) == keep


def test_an_untraced_run_has_no_trace_table() -> None:
    with pytest.raises(ValueError, match="pass trace="):
        _ = dupack.run(FF2).trace


def test_an_unknown_flow_name_is_a_scenario_error_naming_the_flows() -> None:
    with pytest.raises(dupack.ScenarioError, match=r"trace: no flow named \"nope\"; the flows are \[\"f0\"\]"):
        dupack.run(FF2, trace=["nope"])


@pytest.mark.parametrize("bad", ["f0", [1], {"f0": 1}])
def test_trace_must_be_a_list_of_names(bad: object) -> None:
    with pytest.raises(TypeError, match="trace must be a list of flow names"):
        dupack.run(FF2, trace=bad)  # type: ignore[arg-type]
