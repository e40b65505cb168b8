"""Time series and packet traces in sweeps (dupack.sweep(series=, trace=),
dupack sweep --trace): the rows of each run are exactly those of
dupack.run with the same arguments, whatever the number of workers; they
are stored and read back, a stored sweep remembers what it recorded, and
recording changes no other result."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import dupack
from tests.conftest import QUICKSTART, run_cli

GRID = {"tcp.variant": ["reno", "sack"]}
SEEDS = [1, 2]
BASE = ["run.duration=4s"]
WATCH = {"series": ["f3", "bottleneck"], "trace": ["f3"]}


def base() -> dupack.Scenario:
    return dupack.load(QUICKSTART).with_overrides(BASE)


def without_wall(df: pd.DataFrame) -> pd.DataFrame:
    """The table without what is measured rather than simulated: the wall
    time, and the events the engine handled (a link whose queue is sampled
    keeps an event at every end of transmission, which an unobserved one
    replays instead)."""
    return df.drop(columns=[c for c in ("wall_time_s", "events") if c in df])


@pytest.fixture(scope="module")
def watched() -> dupack.SweepResult:
    return dupack.sweep(base(), GRID, SEEDS, workers=2, progress=False, **WATCH)


def test_each_runs_series_and_trace_are_those_of_dupack_run(watched: dupack.SweepResult) -> None:
    assert list(watched.series.columns) == ["job", "tcp.variant", "seed", "time_s", "entity", "variable", "value"]
    assert list(watched.trace.columns) == ["job", "tcp.variant", "seed", "time_s", "time_ns", "flow", "kind", "seq", "len"]
    for job, (variant, seed) in enumerate((v, s) for v in GRID["tcp.variant"] for s in SEEDS):
        one = dupack.run(base(), seed=seed, overrides=[f"tcp.variant={variant}"], **WATCH)
        series = watched.series[watched.series["job"] == job]
        assert len(series) == len(one.series) > 0
        assert (series["tcp.variant"] == variant).all() and (series["seed"] == seed).all()
        assert list(series["time_s"]) == list(one.series["time_s"])
        assert list(series["entity"]) == [str(x) for x in one.series["entity"]]
        assert list(series["variable"]) == [str(x) for x in one.series["variable"]]
        assert list(series["value"]) == list(one.series["value"])
        trace = watched.trace[watched.trace["job"] == job].drop(columns=["job", "tcp.variant", "seed"])
        pd.testing.assert_frame_equal(trace.reset_index(drop=True), one.trace.reset_index(drop=True))
    # Both links' directions and the flow are there; a SACK run's ACKs carry blocks.
    assert set(watched.series["entity"]) == {"f3", "bottleneck:fwd", "bottleneck:rev"}
    sack = watched.trace[watched.trace["tcp.variant"] == "sack"]
    assert (sack["kind"] == "sack").any() and (sack["kind"] == "ack").any()


def test_recording_changes_no_other_result_and_not_with_the_workers(watched: dupack.SweepResult) -> None:
    plain = dupack.sweep(base(), GRID, SEEDS, workers=2, progress=False)
    for t in ("runs", "flows", "links", "media"):
        pd.testing.assert_frame_equal(without_wall(plain.tables[t]), without_wall(watched.tables[t]))
    # The sampled bottleneck queues in every run: its ends of transmission
    # are events there, and replayed when nothing samples it.
    assert (watched.runs["events"] > plain.runs["events"]).all()
    assert plain.series.empty and plain.trace.empty
    one = dupack.sweep(base(), GRID, SEEDS, workers=1, progress=False, **WATCH)
    for t in ("series", "trace"):
        pd.testing.assert_frame_equal(one.tables[t], watched.tables[t])
    # The events too are the same whatever the number of workers.
    pd.testing.assert_frame_equal(one.runs.drop(columns=["wall_time_s"]), watched.runs.drop(columns=["wall_time_s"]))


def test_stored_read_back_and_remembered(watched: dupack.SweepResult, tmp_path: Path) -> None:
    out = tmp_path / "sw"
    dupack.sweep(base(), GRID, SEEDS, out=out, workers=2, progress=False, **WATCH)
    assert any((out / "series").glob("part-*.parquet")) and any((out / "trace").glob("part-*.parquet"))
    assert json.loads((out / "sweep.json").read_text())["observe"] == {"series": WATCH["series"], "trace": ["f3"]}
    back = dupack.SweepResult.load(out)
    for t in ("series", "trace"):
        pd.testing.assert_frame_equal(back.tables[t], watched.tables[t])
    # pandas reads the dataset directly, as for the other tables.
    assert len(pd.read_parquet(out / "series")) == len(watched.series)
    again = dupack.sweep(base(), GRID, SEEDS, out=out, progress=False, **WATCH)
    assert again.executed == 0 and again.skipped == 4
    with pytest.raises(dupack.SweepError, match=r"recording \(series and trace\) differs"):
        dupack.sweep(base(), GRID, SEEDS, out=out, progress=False)
    # A sweep that records nothing writes neither table.
    plain = tmp_path / "plain"
    dupack.sweep(base(), GRID, SEEDS, out=plain, progress=False)
    assert not (plain / "series").exists() and not (plain / "trace").exists()
    assert "observe" not in json.loads((plain / "sweep.json").read_text())


def test_a_series_cut_at_its_limit_is_said(tmp_path: Path) -> None:
    with pytest.warns(UserWarning, match=r"time series of 4 run\(s\) reached the limit of 50 records"):
        res = dupack.sweep(base(), GRID, SEEDS, progress=False, series=["*"], series_max=50)
    assert res.series.groupby("job").size().max() <= 50


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"series": []}, "series must be a list of flow or link names"),
        ({"trace": [""]}, "trace must be a list of flow or link names"),
        ({"series": ["*"], "series_max": 0}, "series_max must be an integer >= 1"),
        ({"series_variables": ["cwnd"]}, "name the flows and links whose series to keep with series="),
        ({"series": ["*"], "series_variables": []}, "series_variables must be a list of variable names"),
    ],
)
def test_bad_arguments(kwargs: dict, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        dupack.sweep(base(), GRID, SEEDS, progress=False, **kwargs)


def test_an_unknown_name_is_a_scenario_error() -> None:
    with pytest.raises(dupack.ScenarioError, match="no flow or link named \"nope\""):
        dupack.sweep(base(), GRID, SEEDS, progress=False, series=["nope"])
    with pytest.raises(dupack.ScenarioError, match="no flow named \"bottleneck\""):
        dupack.sweep(base(), GRID, SEEDS, progress=False, trace=["bottleneck"])
    with pytest.raises(dupack.ScenarioError, match="no variable named \"wnd\""):
        dupack.sweep(base(), GRID, SEEDS, progress=False, series=["*"], series_variables=["wnd"])


def test_series_variables_keep_those_rows_and_are_remembered(watched: dupack.SweepResult, tmp_path: Path) -> None:
    out = tmp_path / "few"
    few = dupack.sweep(base(), GRID, SEEDS, progress=False, out=out, **WATCH, series_variables=["cwnd", "queue"])
    whole = watched.series
    want = whole[whole.variable.isin(["cwnd", "queue"])].reset_index(drop=True)
    got = few.series
    assert set(got.variable.astype(str)) == {"cwnd", "queue"} and len(got) == len(want)
    pd.testing.assert_frame_equal(got[["job", "time_s", "value"]], want[["job", "time_s", "value"]])
    back = dupack.SweepResult.load(out)
    assert len(back.series) == len(got)
    # Resuming with other variables would mix two recordings in one dataset.
    with pytest.raises(dupack.SweepError, match="recording"):
        dupack.sweep(base(), GRID, SEEDS, progress=False, out=out, **WATCH)


def test_cli_sweep_trace(tmp_path: Path) -> None:
    out = tmp_path / "cli"
    args = ["sweep", str(QUICKSTART), "--vary", "tcp.variant=reno,sack", "--seeds", "1..2", "-s", "run.duration=4s"]
    r = run_cli(*args, "--trace", "f3,bottleneck", "-o", str(out), "-q")
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr
    back = dupack.SweepResult.load(out)
    assert set(back.series["entity"]) == {"f3", "bottleneck:fwd", "bottleneck:rev"}
    assert set(back.trace["flow"]) == {"f3"}
    r = run_cli(*args, "--trace", "nope", "-o", str(tmp_path / "bad"))
    assert r.exit_code == 2
    assert r.stderr.startswith("error: --trace: no flow or link named 'nope'")
    assert r.stderr.count("\n") == 1
    r = run_cli(*args, "-o", str(out))
    assert r.exit_code == 2 and "recording (series and trace) differs" in r.stderr
    few = tmp_path / "few"
    r = run_cli(*args, "--trace", "f3,bottleneck", "--series-vars", "cwnd,queue", "-o", str(few), "-q")
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr
    kept = dupack.SweepResult.load(few).series
    assert set(kept["variable"].astype(str)) == {"cwnd", "queue"}
    assert len(kept) == back.series["variable"].isin(["cwnd", "queue"]).sum()
    r = run_cli(*args, "--trace", "f3", "--series-vars", "cwnd,wnd", "-o", str(tmp_path / "bad2"))
    assert r.exit_code == 2 and r.stderr.startswith('error: --series-vars: no variable named "wnd"'), r.stderr
