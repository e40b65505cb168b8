"""RunResult.save writes the tables it has not turned into DataFrames
without pandas (Parquet through the extension, CSV through the csv module);
those files must be the ones the pandas path writes, as every reader sees
them. And `dupack run` must not import pandas or pyarrow to write them."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq
import pytest

import dupack
from dupack.result import RunResult, _pandas_flavour
from tests.conftest import QUICKSTART, ROOT, run_subprocess

DUMBBELL = ROOT / "scenarios" / "unfairness-dumbbell.toml"
WLAN = ROOT / "scenarios" / "efr_wlan.toml"  # a shared medium: the media table

pytestmark = pytest.mark.skipif(_pandas_flavour() is None, reason="the installed pandas is one save() writes through pandas")


def both_ways(raw: dict[str, Any], scenario: dupack.Scenario | None, tmp: Path) -> tuple[Path, Path, RunResult]:
    """The same result saved the fast way (fresh) and the pandas way (every
    table a DataFrame first, which save() then writes as it is)."""
    fast, slow = RunResult(copy.deepcopy(raw), scenario), RunResult(copy.deepcopy(raw), scenario)
    for t in ("flows", "links", "media"):
        getattr(slow, t)
    fast.save(tmp / "fast")
    slow.save(tmp / "slow")
    return tmp / "fast", tmp / "slow", RunResult(copy.deepcopy(raw), scenario)


def assert_same_files(fast: Path, slow: Path, res: RunResult) -> None:
    tables = ["flows", "links"] + (["media"] if res.raw.get("media") else [])
    assert sorted(p.name for p in fast.iterdir()) == sorted(p.name for p in slow.iterdir())
    for t in tables:
        a, b = pq.read_table(fast / f"{t}.parquet"), pq.read_table(slow / f"{t}.parquet")
        # The Arrow schema (types, nullability, pandas' and dupack's metadata) and every value.
        assert a.schema.equals(b.schema, check_metadata=True), t
        assert a.equals(b), t
        # The file's own key-value metadata (pyarrow's encoding of ARROW:schema differs byte for byte, not in meaning).
        ka, kb = pq.read_metadata(fast / f"{t}.parquet").metadata, pq.read_metadata(slow / f"{t}.parquet").metadata
        assert {k: v for k, v in ka.items() if k != b"ARROW:schema"} == {k: v for k, v in kb.items() if k != b"ARROW:schema"}
        assert b"ARROW:schema" in ka
        # pandas reads back the very DataFrame the result has, dtypes and nulls included.
        df = pd.read_parquet(fast / f"{t}.parquet")
        pd.testing.assert_frame_equal(df, getattr(res, t), check_exact=True)
        pd.testing.assert_frame_equal(df, pd.read_parquet(slow / f"{t}.parquet"), check_exact=True)
        assert (fast / f"{t}.csv").read_bytes() == (slow / f"{t}.csv").read_bytes(), t
        pd.testing.assert_frame_equal(pd.read_csv(fast / f"{t}.csv"), pd.read_csv(slow / f"{t}.csv"), check_exact=True)
    for name in ("result.json", "scenario.json"):
        if (slow / name).exists():
            assert (fast / name).read_bytes() == (slow / name).read_bytes()


@pytest.mark.parametrize("scenario", [QUICKSTART, DUMBBELL, WLAN], ids=lambda p: p.stem)
def test_the_fast_files_are_the_pandas_files(scenario: Path, tmp_path: Path) -> None:
    res = dupack.run(scenario, overrides=["run.duration=5s"])
    fast, slow, fresh = both_ways(res.raw, res.scenario, tmp_path)
    assert_same_files(fast, slow, fresh)
    if scenario == WLAN:
        assert len(fresh.media) > 0 and (fast / "media.parquet").exists()


def test_nulls_odd_numbers_and_odd_names(tmp_path: Path) -> None:
    """Nulls in the nullable columns (None in the JSON for a float and for a
    UInt64), floats that print in exponent form, the largest u64, and names
    the CSV must quote."""
    raw = dupack.run(DUMBBELL, overrides=["run.duration=2s", "topology.senders=4"]).raw
    f = raw["flows"]
    f[0].update(flow='a,"b"\nc', completion_time_s=None, app_bytes=None, final_ssthresh=None, goodput_kbps=1e-05)
    f[1].update(flow="é ü", srtt_s=1e16, rtt_mean_s=1 / 3, bytes_delivered=2**64 - 1, app_bytes=2**64 - 1, final_ssthresh=7)
    f[2].update(flow="", fr_to_ratio=None, rtt_max_s=5e-324)
    raw["links"][0]["mean_queue_packets"] = None
    fast, slow, fresh = both_ways(raw, None, tmp_path)
    assert_same_files(fast, slow, fresh)
    df = pd.read_parquet(fast / "flows.parquet")
    assert df["final_ssthresh"].isna().tolist()[:2] == [True, False]
    assert str(df["final_ssthresh"].dtype) == "UInt64" and str(df["app_bytes"].dtype) == "UInt64"
    assert df["completion_time_s"].isna()[0] and df["bytes_delivered"][1] == 2**64 - 1
    assert pq.read_table(fast / "flows.parquet").column("completion_time_s").null_count >= 1


def test_a_changed_dataframe_is_saved_as_it_is(tmp_path: Path) -> None:
    res = dupack.run(QUICKSTART, overrides=["run.duration=2s"])
    res.flows["goodput_kbps"] = 1.5
    res.save(tmp_path)
    assert (pd.read_parquet(tmp_path / "flows.parquet")["goodput_kbps"] == 1.5).all()
    assert (pd.read_csv(tmp_path / "flows.csv")["goodput_kbps"] == 1.5).all()


def test_a_field_unknown_here_goes_through_pandas(tmp_path: Path) -> None:
    raw = dupack.run(QUICKSTART, overrides=["run.duration=2s"]).raw
    for f in raw["flows"]:
        f["new_counter"] = 3
    RunResult(raw).save(tmp_path)
    assert pd.read_parquet(tmp_path / "flows.parquet")["new_counter"].tolist() == [3] * len(raw["flows"])


def test_the_checks_of_the_tables_hold_for_the_fast_path(tmp_path: Path) -> None:
    raw = dupack.run(QUICKSTART, overrides=["run.duration=2s"]).raw
    raw["flows"][0]["segments_sent"] = None
    with pytest.raises(ValueError, match=r"null for flows\[0\]\.segments_sent"):
        RunResult(raw).save(tmp_path)


def test_a_traced_run_writes_the_pandas_trace_and_series_files(tmp_path: Path) -> None:
    res = dupack.run(DUMBBELL, overrides=["run.duration=3s", "topology.senders=2"], trace=["f0"], series=["f0", "bottleneck"])
    fast, slow = RunResult(copy.deepcopy(res.raw), res.scenario), RunResult(copy.deepcopy(res.raw), res.scenario)
    slow.trace, slow.series  # noqa: B018 - DataFrames first: save() writes them through pandas
    fast.save(tmp_path / "fast")
    slow.save(tmp_path / "slow")
    fresh = RunResult(copy.deepcopy(res.raw), res.scenario)
    for t, frame in (("trace", fresh.trace), ("series", fresh.series)):
        a, b = pq.read_table(tmp_path / "fast" / f"{t}.parquet"), pq.read_table(tmp_path / "slow" / f"{t}.parquet")
        assert a.schema.equals(b.schema, check_metadata=True), t
        assert a.equals(b), t
        df = pd.read_parquet(tmp_path / "fast" / f"{t}.parquet")
        pd.testing.assert_frame_equal(df, frame, check_exact=True)
    assert len(fresh.trace) > 100 and set(fresh.series["entity"]) == {"f0", "bottleneck:fwd", "bottleneck:rev"}


@pytest.mark.parametrize("traced", [False, True], ids=["plain", "traced"])
def test_dupack_run_writes_its_files_without_pandas_or_pyarrow(tmp_path: Path, traced: bool) -> None:
    extra = ", '--trace', 'f0'" if traced else ""
    code = (
        "import sys\n"
        "from dupack.cli.app import main\n"
        "try:\n"
        f"    main(['run', {str(DUMBBELL)!r}, '-s', 'run.duration=5s', '-q', '-o', {str(tmp_path / 'out')!r}{extra}])\n"
        "except SystemExit as e:\n"
        "    assert e.code == 0, e.code\n"
        "heavy = sorted(m for m in ('pandas', 'pyarrow', 'numpy', 'typer', 'click', 'rich', 'pydantic') if m in sys.modules)\n"
        "print(','.join(heavy))\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == ""
    out = tmp_path / "out"
    assert sorted(x.name for x in out.iterdir()) == sorted(
        ["result.json", "scenario.json", "flows.parquet", "flows.csv", "links.parquet", "links.csv"]
        + (["trace.parquet", "series.parquet"] if traced else [])
    )
    res = RunResult(json.loads((out / "result.json").read_text()))
    pd.testing.assert_frame_equal(pd.read_parquet(out / "flows.parquet"), res.flows, check_exact=True)
    pd.testing.assert_frame_equal(pd.read_parquet(out / "links.parquet"), res.links, check_exact=True)


def test_trace_and_pcap_still_work(tmp_path: Path) -> None:
    out = tmp_path / "out"
    p = run_subprocess(
        "run", str(DUMBBELL), "-s", "run.duration=3s", "-s", "topology.senders=2", "--trace", "f0", "--pcap", "bottleneck",
        "-q", "-o", str(out),
    )
    assert p.returncode == 0, p.stderr
    names = {x.name for x in out.iterdir()}
    assert {"trace.parquet", "series.parquet", "bottleneck.pcapng", "flows.parquet", "flows.csv"} <= names, names
    trace = pd.read_parquet(out / "trace.parquet")
    assert len(trace) > 0 and set(trace["flow"]) == {"f0"}
    assert len(pd.read_parquet(out / "series.parquet")) > 0
    assert (out / "bottleneck.pcapng").stat().st_size > 0
    res = RunResult(json.loads((out / "result.json").read_text()))
    pd.testing.assert_frame_equal(pd.read_parquet(out / "flows.parquet"), res.flows, check_exact=True)
