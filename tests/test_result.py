"""RunResult: tables built from the core's JSON, and saving (no engine needed)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from dupack import RunResult, Scenario
from dupack.result import FLOW_COLUMNS, LINK_COLUMNS, MEDIUM_COLUMNS, NDUP_COLUMNS

U64_MAX = 2**64 - 1


def flow(name: str, **kw):
    f = {
        "flow": name, "variant": "reno", "src": "s0", "dst": "r0", "app_bytes": 1_000_000,
        "bytes_delivered": 1_000_000, "goodput_kbps": 812.5, "start_s": 0.0, "completion_time_s": 9.85,
        "segments_sent": 700, "retransmitted_segments": 12, "fast_retransmits": 9, "timeouts": 2,
        "timeout_episodes": 1, "ndup_at_timeout": [1, 0, 1, 0], "acks_received": 690,
        "dupacks_received": 40, "fr_to_ratio": 4.5, "recovery_time_s": 1.2, "backoff_time_s": 2.0,
        "spurious_retransmissions": 1, "false_fast_retransmits": 0, "lost_retransmissions": 1,
        "wasted_timeouts": 1, "ecn_reductions": 0, "window_undos": 0, "drops_error": 7, "drops_queue": 5, "final_cwnd": 14600,
        "final_ssthresh": 8760, "srtt_s": 0.091, "rtt_samples": 650, "rtt_mean_s": 0.095, "rtt_min_s": 0.08,
        "rtt_max_s": 0.2, "final_rto_s": 1.0, "dupacks_delayed": 0, "dupacks_cancelled": 0,
    }
    f.update(kw)
    return f


RAW = {
    "scenario": "synthetic",
    "seed": 42,
    "flows": [
        flow("a"),
        flow("b", variant="sack", app_bytes=None, completion_time_s=None, srtt_s=None,
             final_ssthresh=None, rtt_samples=0, rtt_mean_s=None, rtt_min_s=None, rtt_max_s=None,
             ndup_at_timeout=[0, 0, 0, 3]),
    ],
    "links": [
        {"link": "bottleneck", "direction": "fwd", "from": "r0", "to": "r1", "rate_bps": 2_000_000,
         "packets_sent": 1500, "bytes_sent": 2_100_000, "utilisation": 0.84, "drops_error": 14,
         "drops_queue": 10, "marks": 3, "max_queue_packets": 25, "mean_queue_packets": 7.5,
         "link_retransmissions": 4, "naks": 5, "link_given_up": 1, "ctl_bytes": 0, "dupacks_suppressed": 0},
        {"link": "bottleneck", "direction": "rev", "from": "r1", "to": "r0", "rate_bps": 2_000_000,
         "packets_sent": 1400, "bytes_sent": 56_000, "utilisation": 0.02, "drops_error": 0,
         "drops_queue": 0, "marks": 0, "max_queue_packets": 1, "mean_queue_packets": 0.0,
         "link_retransmissions": 0, "naks": 0, "link_given_up": 0, "ctl_bytes": 80, "dupacks_suppressed": 0},
    ],
    "run": {"sim_time_s": 12.5, "end_reason": "all_done", "events": 123456, "wall_time_s": 0.25},
}


@pytest.fixture
def result() -> RunResult:
    return RunResult.from_json(json.dumps(RAW), Scenario.from_dict({"name": "synthetic"}))


def test_flows_table(result):
    df = result.flows
    assert list(df.columns) == list(FLOW_COLUMNS)
    assert "ndup_at_timeout" not in df.columns
    assert len(df) == 2
    assert df["ndup_0"].tolist() == [1, 0]
    assert df["ndup_3plus"].tolist() == [0, 3]
    # "never reduced" is a null, not u64::MAX
    assert df["final_ssthresh"].dtype == "UInt64"
    assert df["final_ssthresh"].iloc[0] == 8760 and pd.isna(df["final_ssthresh"].iloc[1])
    assert df["rtt_samples"].tolist() == [650, 0] and pd.isna(df["rtt_mean_s"].iloc[1])
    assert df["app_bytes"].dtype == "UInt64" and pd.isna(df["app_bytes"].iloc[1])
    assert df["completion_time_s"].dtype == "float64" and pd.isna(df["completion_time_s"].iloc[1])
    assert df["variant"].tolist() == ["reno", "sack"]


def test_links_table_and_run_info(result):
    df = result.links
    assert list(df.columns) == list(LINK_COLUMNS)
    assert df["direction"].tolist() == ["fwd", "rev"]
    assert df["utilisation"].dtype == "float64"
    assert result.run == RAW["run"]
    assert (result.seed, result.scenario_name) == (42, "synthetic")
    assert result.raw == RAW


def test_empty_and_unknown_fields_keep_the_schema():
    res = RunResult({"scenario": "x", "seed": 1, "flows": [], "links": [], "run": {}})
    assert list(res.flows.columns) == list(FLOW_COLUMNS) and len(res.flows) == 0
    extra = RunResult({**RAW, "flows": [flow("a", spurious_retransmits=3)]})
    assert extra.flows["spurious_retransmits"].tolist() == [3]
    assert list(extra.flows.columns)[: len(FLOW_COLUMNS)] == list(FLOW_COLUMNS)


def test_short_ndup_lists_are_padded():
    res = RunResult({**RAW, "flows": [flow("a", ndup_at_timeout=[2])]})
    assert [res.flows[c].iloc[0] for c in NDUP_COLUMNS] == [2, 0, 0, 0]


def test_to_json_round_trips(result):
    assert json.loads(result.to_json()) == RAW
    assert json.loads(result.to_json(indent=None)) == RAW


def test_save_writes_every_file(result, tmp_path):
    out = result.save(tmp_path / "deep" / "dir")
    names = sorted(p.name for p in out.iterdir())
    assert names == ["flows.csv", "flows.parquet", "links.csv", "links.parquet", "result.json", "scenario.json"]
    import pyarrow.parquet as pq

    import dupack

    # The result document as the core gave it, stamped with the dupack that made it.
    assert json.loads((out / "result.json").read_text()) == {**RAW, "dupack": dupack.provenance()}
    assert dupack.provenance()["version"] == dupack.__version__ and dupack.provenance()["commit"]
    for table in ("flows", "links"):
        meta = pq.read_schema(out / f"{table}.parquet").metadata
        assert meta[b"dupack_version"].decode() == dupack.__version__
        assert meta[b"dupack_commit"].decode() == dupack.__commit__
        assert b"pandas" in meta
    flows = pd.read_parquet(out / "flows.parquet")
    assert flows["flow"].tolist() == ["a", "b"]
    assert flows["final_ssthresh"].iloc[0] == 8760 and pd.isna(flows["final_ssthresh"].iloc[1])
    assert pd.read_parquet(out / "links.parquet")["rate_bps"].tolist() == [2_000_000, 2_000_000]
    assert pd.read_csv(out / "flows.csv")["ndup_3plus"].tolist() == [0, 3]
    assert pd.read_csv(out / "links.csv")["rate_bps"].tolist() == [2_000_000, 2_000_000]
    sc = json.loads((out / "scenario.json").read_text())
    assert sc["scenario"] == {"name": "synthetic"}
    assert sc["hash"] == Scenario.from_dict({"name": "synthetic"}).hash()


def test_parquet_schema_does_not_depend_on_nulls(tmp_path):
    import pyarrow.parquet as pq

    all_null = RunResult({**RAW, "flows": [flow("a", app_bytes=None, srtt_s=None, completion_time_s=None)]})
    no_null = RunResult({**RAW, "flows": [flow("a")]})
    a = all_null.save(tmp_path / "a")
    b = no_null.save(tmp_path / "b")
    assert pq.read_schema(a / "flows.parquet").types == pq.read_schema(b / "flows.parquet").types


def test_import_does_not_load_heavy_modules():
    import subprocess
    import sys

    code = "import sys, dupack; bad = [m for m in ('pandas', 'matplotlib', 'dask') if m in sys.modules]; print(bad)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("column", [c for c in FLOW_COLUMNS if c not in NDUP_COLUMNS] + ["ndup_at_timeout"])
def test_a_flow_field_missing_from_the_core_raises(column):
    # A field renamed in result.rs must not turn into a column of zeros.
    f = flow("a")
    del f[column]
    res = RunResult({**RAW, "flows": [flow("ok"), f]})
    with pytest.raises(ValueError, match=rf"no field '{column}' in flows\[1\]"):
        res.flows


@pytest.mark.parametrize("column", LINK_COLUMNS)
def test_a_link_field_missing_from_the_core_raises(column):
    links = [dict(link) for link in RAW["links"]]
    del links[0][column]
    with pytest.raises(ValueError, match=rf"no field '{column}' in links\[0\]"):
        RunResult({**RAW, "links": links}).links


@pytest.mark.parametrize(("column", "table"), [("bytes_delivered", "flows"), ("variant", "flows"), ("packets_sent", "links")])
def test_null_in_a_non_nullable_column_raises(column, table):
    rows = [dict(r) for r in RAW[table]]
    rows[1][column] = None
    res = RunResult({**RAW, table: rows})
    with pytest.raises(ValueError, match=rf"null for {table}\[1\]\.{column}"):
        getattr(res, table)


def station(name: str, **kw):
    m = {
        "medium": "wlan", "station": name, "rate_bps": 2_000_000, "frames_sent": 1000, "bytes_sent": 1_500_000,
        "frames_delivered": 950, "bytes_delivered": 1_425_000, "collisions": 48, "frame_losses": 2, "retries": 0,
        "drops_error": 50, "drops_queue": 3, "marks": 0, "max_queue_packets": 50, "airtime": 0.4,
        "medium_busy": 0.9, "medium_collision_events": 30,
    }
    m.update(kw)
    return m


WLAN = {**RAW, "media": [station("ap", bytes_sent=40_000), station("m1")]}


def test_media_table_is_empty_without_a_medium_and_filled_with_one(tmp_path):
    none = RunResult(RAW)
    assert list(none.media.columns) == list(MEDIUM_COLUMNS) and len(none.media) == 0
    res = RunResult(WLAN)
    df = res.media
    assert list(df.columns) == list(MEDIUM_COLUMNS)
    assert df["station"].tolist() == ["ap", "m1"]
    assert df["collisions"].dtype == "uint64" and df["medium_busy"].dtype == "float64"
    out = res.save(tmp_path / "w")
    assert "media.parquet" in {p.name for p in out.iterdir()}
    assert pd.read_parquet(out / "media.parquet")["bytes_sent"].tolist() == [40_000, 1_500_000]
    assert pd.read_csv(out / "media.csv")["station"].tolist() == ["ap", "m1"]
    plain = RunResult(RAW).save(tmp_path / "plain")
    assert not (plain / "media.parquet").exists() and not (plain / "media.csv").exists()


@pytest.mark.parametrize("column", MEDIUM_COLUMNS)
def test_a_medium_field_missing_from_the_core_raises(column):
    rows = [dict(m) for m in WLAN["media"]]
    del rows[1][column]
    with pytest.raises(ValueError, match=rf"no field '{column}' in media\[1\]"):
        RunResult({**WLAN, "media": rows}).media


def test_too_long_ndup_lists_raise():
    with pytest.raises(ValueError, match="ndup_at_timeout has 5 entries"):
        RunResult({**RAW, "flows": [flow("a", ndup_at_timeout=[1, 2, 3, 4, 5])]}).flows


def test_the_columns_written_without_pandas_check_and_convert_the_rows_as_the_frames_do() -> None:
    from dupack.result import _fast_columns

    dtypes = {"name": "str", "n": "uint64", "x": "float64", "m": "UInt64"}
    rows = [{"name": "a", "n": 1, "x": 0.5, "m": None}, {"m": 3, "x": 2, "n": True, "name": 7}]
    assert _fast_columns(rows, dtypes, "t") == [
        ("name", "str", ["a", "7"]), ("n", "uint64", [1, 1]), ("x", "float64", [0.5, 2.0]), ("m", "UInt64", [None, 3]),
    ]
    assert [type(v) for v in _fast_columns(rows, dtypes, "t")[2][2]] == [float, float]
    assert _fast_columns([], dtypes, "t") == [(c, d, []) for c, d in dtypes.items()]
    # A field unknown here: the pandas path, which infers its type.
    assert _fast_columns([{**rows[0], "new": 1}], dtypes, "t") is None
    # Not an integer, or out of the column's range: the pandas path too, which says so.
    assert _fast_columns([{**rows[0], "n": "x"}], dtypes, "t") is None
    assert _fast_columns([{**rows[0], "n": 2**64}], dtypes, "t") is None
    assert _fast_columns([{**rows[0], "m": -1}], dtypes, "t") is None
    # A field missing, or null where the column cannot be: the core and this module disagree.
    with pytest.raises(ValueError, match=r"no field 'x' in t\[1\]"):
        _fast_columns([rows[0], {"name": "b", "n": 1, "m": None}], dtypes, "t")
    with pytest.raises(ValueError, match=r"no field 'x' in t\[0\]"):
        _fast_columns([{"name": "b", "n": 1, "m": None, "y": 1}], dtypes, "t")
    with pytest.raises(ValueError, match=r"null for t\[1\]\.n, which cannot be null"):
        _fast_columns([rows[0], {**rows[0], "n": None}], dtypes, "t")
