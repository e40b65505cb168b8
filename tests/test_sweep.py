"""dupack.sweep and `dupack sweep`: the same rows as single runs, independent
of the number of workers, resumable, and strict about their directory."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import dupack
from dupack.result import TABLE_DTYPES
from dupack.sweeps import SweepError
from tests.conftest import QUICKSTART, ROOT, run_cli, sigint_default

GRID = {"tcp.variant": ["reno", "sack"], "topology.bottleneck.fwd_error.p": [0.0, 0.02]}
SEEDS = [1, 2]
BASE = ["run.duration=2s", 'topology.bottleneck.fwd_error={ model = "bernoulli", p = 0.0 }']
BASE_ARGS = [a for o in BASE for a in ("-s", o)]


def base() -> dupack.Scenario:
    return dupack.load(QUICKSTART).with_overrides(BASE)


def without_wall(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop(columns=["wall_time_s"]) if "wall_time_s" in df else df


def assert_same(a: dupack.SweepResult, b: dupack.SweepResult) -> None:
    for t in ("runs", "flows", "links", "media"):
        pd.testing.assert_frame_equal(without_wall(a.tables[t]), without_wall(b.tables[t]))


def test_rows_equal_single_runs() -> None:
    res = dupack.sweep(base(), GRID, SEEDS, workers=2)
    paths = list(GRID)
    assert len(res.runs) == 8 and res.executed == 8 and res.skipped == 0
    assert list(res.runs["job"]) == list(range(8))
    for t in ("runs", "flows", "links", "media"):
        df = res.tables[t]
        assert list(df.columns[: len(paths) + 2]) == ["job", *paths, "seed"]
        assert str(df["seed"].dtype) == "uint64"
    job = 0
    for variant in GRID["tcp.variant"]:
        for p in GRID["topology.bottleneck.fwd_error.p"]:
            for seed in SEEDS:
                one = dupack.run(base().with_values({paths[0]: variant, paths[1]: p}), seed=seed)
                for t, expected in (("flows", one.flows), ("links", one.links), ("media", one.media)):
                    got = res.tables[t][res.tables[t]["job"] == job]
                    assert (got["tcp.variant"] == variant).all() and (got["seed"] == seed).all()
                    assert (got["topology.bottleneck.fwd_error.p"] == p).all()
                    got = got.drop(columns=["job", *paths, "seed"]).reset_index(drop=True)
                    pd.testing.assert_frame_equal(got, expected)  # every column, value and dtype
                row = res.runs[res.runs["job"] == job].iloc[0]
                for k, v in one.run.items():
                    if k != "wall_time_s":
                        assert row[k] == v, (k, row[k], v)
                job += 1
    assert job == 8
    # The runs table has RunResult.run's fields with the dtypes of result.py.
    assert list(res.runs.columns[4:]) == list(TABLE_DTYPES["runs"])


def test_the_tables_can_be_written_to_like_any_dataframe(tmp_path: Path) -> None:
    # The returned tables sit on the core's memory: writing into them must work
    # (and not leak into another sweep's tables); so must the loaded ones.
    a = dupack.sweep(base(), GRID, SEEDS, workers=2, out=tmp_path / "sw")
    b = dupack.sweep(base(), GRID, SEEDS, workers=2)
    for res in (a, dupack.SweepResult.load(tmp_path / "sw")):
        f = res.flows
        before = b.flows["segments_sent"].copy()
        f.loc[0, "bytes_delivered"] = 1
        f["segments_sent"] += 1
        f.loc[1, "goodput_kbps"] = -1.0
        res.runs.loc[0, "events"] = 0
        assert f.loc[0, "bytes_delivered"] == 1 and f.loc[1, "goodput_kbps"] == -1.0
        assert (f["segments_sent"] == before + 1).all()
        assert (b.flows["segments_sent"] == before).all()
    assert b.runs.loc[0, "events"] > 0


def test_media_rows_equal_a_single_run() -> None:
    sc = dupack.load(QUICKSTART.parent / "efr_wlan.toml").with_overrides(["run.duration=1s"])
    res = dupack.sweep(sc, seeds=[3], workers=1)
    one = dupack.run(sc, seed=3)
    assert len(one.media) > 0
    for t, expected in (("flows", one.flows), ("links", one.links), ("media", one.media)):
        got = res.tables[t].drop(columns=["job", "seed"]).reset_index(drop=True)
        pd.testing.assert_frame_equal(got, expected)


def test_default_seed_is_the_scenarios() -> None:
    res = dupack.sweep(base().with_overrides(["run.seed=7"]))
    assert list(res.runs["seed"]) == [7]
    assert res.seeds == [None]


def test_results_do_not_depend_on_the_number_of_workers() -> None:
    # chunk_seconds=0: a chunk per finished run or so, so that chunk boundaries differ too.
    one = dupack.sweep(base(), GRID, range(1, 4), workers=1, chunk_seconds=0)
    two = dupack.sweep(base(), GRID, range(1, 4), workers=2, chunk_seconds=0)
    three = dupack.sweep(base(), GRID, range(1, 4), workers=3)
    assert len(one.runs) == 12
    assert_same(one, two)
    assert_same(one, three)


def short(duration: str = "20ms") -> dupack.Scenario:
    return base().with_overrides([f"run.duration={duration}"])


def test_many_short_runs_taken_in_blocks_keep_job_order() -> None:
    # Runs of well under 2 ms: each worker takes blocks of consecutive jobs,
    # and the coordinator merges the two workers' blocks in job order.
    grid = {"tcp.variant": ["reno", "sack"]}
    one = dupack.sweep(short(), grid, range(1, 151), workers=1)
    two = dupack.sweep(short(), grid, range(1, 151), workers=2, chunk_seconds=0)
    # Runs this short make blocks of several jobs (a block lasts about 2 ms): what this test is about.
    assert two.runs["wall_time_s"].median() < 0.0005
    assert list(two.runs["job"]) == list(range(300))
    assert_same(one, two)
    for job in (0, 149, 150, 299):
        seed, variant = job % 150 + 1, grid["tcp.variant"][job // 150]
        single = dupack.run(short().with_overrides([f'tcp.variant="{variant}"']), seed=seed)
        got = two.flows[two.flows["job"] == job].drop(columns=["job", "tcp.variant", "seed"]).reset_index(drop=True)
        pd.testing.assert_frame_equal(got, single.flows)


def test_the_bare_sweep_runs_every_job_and_keeps_no_result() -> None:
    # The benchmark's baseline (bench/sweep.py): the same jobs, results dropped, nothing stored.
    res = dupack.sweep(short(), GRID, SEEDS, workers=2, _discard_results=True)
    assert res.executed == 8 and res.skipped == 0
    assert all(len(res.tables[t]) == 0 for t in ("runs", "flows", "links", "media"))
    assert list(res.flows.columns) == list(dupack.sweep(short(), GRID, SEEDS).flows.columns)


def test_a_failure_inside_a_block_keeps_every_run_before_it_in_order(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    with pytest.raises(dupack.RunError):
        dupack.sweep(short(), None, range(1, 301), workers=2, out=out, chunk_seconds=0, _fail_job=200)
    jobs = list(dupack.SweepResult.load(out).runs["job"])
    # Which runs had finished when job 200 failed depends on the threads'
    # timing (the other worker may be anywhere in its block); every one of
    # them is stored, once, in job order, and resuming runs exactly the rest.
    assert jobs and 200 not in jobs and jobs == sorted(set(jobs))
    # Resuming fills exactly the gaps.
    res = dupack.sweep(short(), None, range(1, 301), workers=2, out=out)
    assert res.executed == 300 - len(jobs) and list(res.runs["job"]) == list(range(300))
    assert_same(res, dupack.sweep(short(), None, range(1, 301), workers=1))
    # With one worker which runs finished is not a matter of timing: every job
    # before the failed one, none after it (the rest of its block is not run).
    one = tmp_path / "one"
    with pytest.raises(dupack.RunError):
        dupack.sweep(short(), None, range(1, 301), workers=1, out=one, chunk_seconds=0, _fail_job=200)
    assert list(dupack.SweepResult.load(one).runs["job"]) == list(range(200))


def test_an_exception_from_the_progress_callback_stops_the_sweep_and_keeps_what_was_stored(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    calls: list[int] = []

    def progress(done: int, total: int) -> None:
        calls.append(done)
        if len(calls) == 3:  # the start, the first chunk, then this
            raise RuntimeError("stop here")

    # Runs of some ms each, and enough of them that the sweep spans many of
    # the coordinator's wake-ups however fast the machine (60 once all
    # finished before the third call on an idle machine; 95 of 300 have).
    seeds = range(1, 601)
    with pytest.raises(RuntimeError, match="stop here"):
        dupack.sweep(short("200s"), None, seeds, workers=2, out=out, chunk_seconds=0, progress=progress)
    assert len(calls) == 3  # never called again after raising
    stored = dupack.SweepResult.load(out)
    jobs = list(stored.runs["job"])
    assert 0 < len(jobs) < len(seeds) and jobs == sorted(set(jobs))
    res = dupack.sweep(short("200s"), None, seeds, workers=2, out=out)
    assert res.skipped == len(jobs) and list(res.runs["job"]) == list(range(len(seeds)))


def test_a_failing_run_names_its_grid_point_and_seed_and_keeps_the_rest(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    with pytest.raises(dupack.RunError) as e:
        dupack.sweep(base(), GRID, SEEDS, workers=2, out=out, chunk_seconds=0, _fail_job=5)
    msg = str(e.value)
    # job 5 = point 2 (sack, p=0.0), seed index 1 (seed 2)
    assert "tcp.variant=sack" in msg and "topology.bottleneck.fwd_error.p=0.0" in msg and "seed 2" in msg, msg
    assert "deliberate failure" in msg
    stored = dupack.SweepResult.load(out)
    assert 5 not in set(stored.runs["job"])
    assert len(stored.runs) >= 1
    # Resuming runs exactly the jobs that are missing, and the result is the one-shot sweep's.
    seen: list[tuple[int, int]] = []
    res = dupack.sweep(base(), GRID, SEEDS, workers=2, out=out, progress=lambda d, t: seen.append((d, t)))
    assert res.skipped == len(stored.runs)
    assert res.executed == 8 - len(stored.runs)
    assert seen[0] == (len(stored.runs), 8) and seen[-1] == (8, 8)
    assert_same(res, dupack.sweep(base(), GRID, SEEDS, workers=2))
    assert_same(dupack.SweepResult.load(out), res)


def test_resume_skips_stored_jobs_and_the_dataset_equals_a_one_shot_sweep(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    first = dupack.sweep(base(), GRID, SEEDS, workers=2, out=out)
    assert first.executed == 8
    parts = sorted(p.name for p in (out / "runs").iterdir())
    again = dupack.sweep(base(), GRID, SEEDS, workers=2, out=out)
    assert again.executed == 0 and again.skipped == 8
    assert sorted(p.name for p in (out / "runs").iterdir()) == parts  # nothing new written
    # The stored dataset reads back with plain pandas, with the dtypes of the tables.
    flows = pd.read_parquet(out / "flows").sort_values("job", kind="stable", ignore_index=True)
    pd.testing.assert_frame_equal(without_wall(flows), without_wall(first.flows))
    for t in ("runs", "links"):
        df = pd.read_parquet(out / t).sort_values("job", kind="stable", ignore_index=True)
        pd.testing.assert_frame_equal(without_wall(df), without_wall(first.tables[t]))
    meta = json.loads((out / "sweep.json").read_text())
    assert meta["grid"] == GRID and meta["seeds"] == SEEDS and meta["scenario_hash"] == base().hash()
    # Row-group statistics where readers filter (job, grid, seed), not on the results.
    import pyarrow.parquet as pq

    part = pq.ParquetFile(next((out / "flows").glob("part-*.parquet"))).metadata.row_group(0)
    stats = {part.column(i).path_in_schema: part.column(i).is_stats_set for i in range(part.num_columns)}
    assert all(stats[c] for c in ["job", *GRID, "seed"])
    assert not stats["goodput_kbps"] and not stats["flow"]
    # resume=False starts over.
    fresh = dupack.sweep(base(), GRID, SEEDS, workers=2, out=out, resume=False)
    assert fresh.executed == 8


def test_sweeps_of_one_process_with_different_grids_each_store_their_own_dtypes(tmp_path: Path) -> None:
    # The pandas metadata of a part is derived once per table and columns in
    # the process, not per sweep: sweeps over other grid columns (a string,
    # a float, both) must not be given each other's, and a repeated grid reads
    # back as the first did.
    import pyarrow.parquet as pq

    grids = [{"tcp.variant": ["reno", "sack"]}, {"topology.bottleneck.fwd_error.p": [0.0, 0.02]}, GRID,
             {"tcp.variant": ["newreno", "sack"]}]
    for i, grid in enumerate(grids):
        out = tmp_path / f"sw{i}"
        res = dupack.sweep(base(), grid, [1, 2], workers=1, out=out)
        for t in ("runs", "flows", "links"):
            df = pd.read_parquet(out / t).sort_values("job", kind="stable", ignore_index=True)
            pd.testing.assert_frame_equal(without_wall(df), without_wall(res.tables[t]))
            for part in (out / t).glob("part-*.parquet"):
                schema = pq.read_schema(part)
                described = [c["name"] for c in json.loads(schema.metadata[b"pandas"])["columns"]]
                assert described == schema.names, (grid, part)


def test_a_stored_sweep_keeps_no_rows_in_memory_and_reads_back_what_an_in_memory_sweep_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With out=DIR each chunk's rows go to the store and nowhere else (a long
    # sweep's memory is a chunk's); the tables are read back when asked for.
    from dupack import sweeps
    from dupack.sweep_store import TABLES

    seen: dict = {}
    core_sweep = sweeps._core.sweep

    def spy(*args: object, **kwargs: object) -> object:
        n, tables = core_sweep(*args, **kwargs)
        seen["keep"], seen["rows"] = kwargs["keep"], {t: tables[t][0] for t in TABLES}
        return n, tables

    monkeypatch.setattr(sweeps._core, "sweep", spy)
    observe = {"series": ["*"], "series_variables": ["cwnd"], "trace": ["f0", "f3"]}
    stored = dupack.sweep(base(), GRID, SEEDS, workers=2, out=tmp_path / "sw", chunk_seconds=0, **observe)
    assert seen["keep"] is False and not any(seen["rows"].values()), seen
    memory = dupack.sweep(base(), GRID, SEEDS, workers=2, chunk_seconds=0, **observe)
    assert seen["keep"] is True and all(seen["rows"][t] for t in ("runs", "flows", "links", "series", "trace")), seen
    for t in TABLES:
        pd.testing.assert_frame_equal(without_wall(stored.tables[t]), without_wall(memory.tables[t]), obj=t)


def test_a_stored_sweep_that_keeps_its_rows_returns_the_tables_it_stored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # dupack.reproduce's sweeps (_keep_rows) make their tables from the rows
    # kept in memory instead of reading the parts back: the same tables; a
    # resumed sweep, which did not run every job, still reads them back.
    from dupack import sweeps
    from dupack.sweep_store import TABLES

    seen: list = []
    core_sweep = sweeps._core.sweep

    def spy(*args: object, **kwargs: object) -> object:
        seen.append(kwargs["keep"])
        return core_sweep(*args, **kwargs)

    monkeypatch.setattr(sweeps._core, "sweep", spy)
    kept = dupack.sweep(base(), GRID, SEEDS, workers=2, out=tmp_path / "kept", chunk_seconds=0, _keep_rows=True)
    assert seen == [True]
    shutil.rmtree(tmp_path / "kept")  # nothing is read from it
    stored = dupack.sweep(base(), GRID, SEEDS, workers=2, out=tmp_path / "stored", chunk_seconds=0)
    assert seen == [True, False]
    for t in TABLES:
        pd.testing.assert_frame_equal(without_wall(kept.tables[t]), without_wall(stored.tables[t]), obj=t)
    with pytest.raises(dupack.RunError):
        dupack.sweep(base(), GRID, SEEDS, workers=1, out=tmp_path / "half", _fail_job=5)
    resumed = dupack.sweep(base(), GRID, SEEDS, workers=2, out=tmp_path / "half", _keep_rows=True)
    assert (resumed.executed, resumed.skipped) == (3, 5) and seen[-1] is False
    for t in TABLES:
        pd.testing.assert_frame_equal(without_wall(resumed.tables[t]), without_wall(stored.tables[t]), obj=t)


def test_a_stored_sweep_whose_directory_was_removed_names_the_missing_part(tmp_path: Path) -> None:
    gone = dupack.sweep(base(), GRID, [1], workers=2, out=tmp_path / "gone")
    shutil.rmtree(tmp_path / "gone")
    with pytest.raises(SweepError, match=r"part-00000.parquet' is gone: a stored sweep's tables are read from"):
        gone.flows


def test_an_interrupted_write_is_cleaned_up_on_resume(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    # Two parts: jobs 0-4 (one worker, so job 5 fails after them), then the rest.
    with pytest.raises(dupack.RunError):
        dupack.sweep(base(), GRID, SEEDS, workers=1, out=out, _fail_job=5)
    assert dupack.sweep(base(), GRID, SEEDS, workers=1, out=out).executed == 3
    runs = sorted((out / "runs").glob("part-*.parquet"))
    assert len(runs) == 2
    # A crash between writing a chunk's flows part and its runs part: the
    # runs part is missing, a hidden temporary file is left over.
    last = runs[-1]
    lost = set(pd.read_parquet(last)["job"])
    last.unlink()
    (out / "flows" / ".part-99999.parquet.tmp").write_bytes(b"partial")
    res = dupack.sweep(base(), GRID, SEEDS, workers=1, out=out)
    assert res.executed == len(lost)
    assert not list((out / "flows").glob(".*.tmp"))
    assert_same(res, dupack.sweep(base(), GRID, SEEDS, workers=2))


def test_another_sweep_into_the_same_directory_is_an_error(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    dupack.sweep(base(), GRID, SEEDS, workers=2, out=out)
    with pytest.raises(SweepError, match="holds another sweep.*grid differs"):
        dupack.sweep(base(), {"tcp.variant": ["reno"]}, SEEDS, out=out)
    with pytest.raises(SweepError, match="holds another sweep.*seeds differ"):
        dupack.sweep(base(), GRID, [1, 2, 3], out=out)
    with pytest.raises(SweepError, match="holds another sweep.*scenario differs"):
        dupack.sweep(base().with_overrides(["run.duration=3s"]), GRID, SEEDS, out=out)
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(SweepError, match="not empty"):
        dupack.sweep(base(), GRID, SEEDS, out=other)
    assert sorted(p.name for p in other.iterdir()) == ["notes.txt"]
    # The command line says so in one line, with exit code 2.
    r = run_cli("sweep", str(QUICKSTART), *BASE_ARGS, "--vary", "tcp.variant=reno", "--seeds", "1,2", "-o", str(out))
    assert r.exit_code == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --out: ") and "holds another sweep" in lines[0], r.stderr


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"grid": {"tcp.variant": []}}, dupack.ScenarioError, "no value"),
        ({"grid": {"tcp.variant": "reno"}}, dupack.ScenarioError, "list of values"),
        ({"grid": {"tcp.variant": ["reno", "reno"]}}, dupack.ScenarioError, "twice"),
        ({"grid": {"run.seed": [1, 2]}}, dupack.ScenarioError, "seeds="),
        ({"grid": {"tcp.variant": ["reno", "bogus"]}}, dupack.ScenarioError, "bogus.*grid point tcp.variant=bogus"),
        ({"seeds": []}, ValueError, "empty"),
        ({"seeds": [1, -1]}, ValueError, "-1"),
        ({"seeds": [1, 1]}, ValueError, "twice"),
        ({"workers": 0}, ValueError, "workers"),
    ],
)
def test_bad_arguments(kwargs: dict, error: type[Exception], match: str, tmp_path: Path) -> None:
    with pytest.raises(error, match=match):
        dupack.sweep(base(), **{"seeds": [1], **kwargs}, out=tmp_path / "sw")
    assert not (tmp_path / "sw").exists()


def test_cli_sweep_writes_the_dataset_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    args = ["sweep", str(QUICKSTART), *BASE_ARGS, "--vary", "tcp.variant=reno,sack", "--seeds", "1..3", "-j", "2"]
    r = run_cli(*args, "-o", str(out))
    assert r.exit_code == 0, r.stderr
    assert "6 runs (6 now, 0 already stored)" in r.stdout
    assert "reno" in r.stdout and "sack" in r.stdout
    flows = pd.read_parquet(out / "flows")
    assert set(flows["tcp.variant"]) == {"reno", "sack"} and set(flows["seed"]) == {1, 2, 3}
    expected = dupack.sweep(base(), {"tcp.variant": ["reno", "sack"]}, [1, 2, 3], workers=2)
    assert_same(dupack.SweepResult.load(out), expected)
    r = run_cli(*args, "-o", str(out), "-q")
    assert r.exit_code == 0 and r.stdout == "" and r.stderr == ""
    r = run_cli(*args, "-o", str(out))
    assert "6 runs (0 now, 6 already stored)" in r.stdout


def test_cli_sweep_help() -> None:
    r = run_cli("sweep", "--help")
    assert r.exit_code == 0
    for option in ("--vary", "--seeds", "--workers", "--out", "--set", "--quiet", "--no-resume"):
        assert option in r.stdout
    assert "dupack sweep" in r.stdout
    r = run_cli("--help")
    assert r.exit_code == 0 and "sweep" in r.stdout


def test_cli_import_leaves_pandas_and_pyarrow_out() -> None:
    code = (
        "import sys, dupack.cli.app\n"
        "from dupack.cli.app import main\n"
        "try:\n    main(['sweep', '--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('pandas', 'pyarrow', 'numpy') if m in sys.modules))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "[]"


def test_a_quiet_sweep_without_a_grid_stores_its_parts_without_pandas(tmp_path: Path) -> None:
    # `dupack sweep FILE --seeds … -q -o DIR` never looks at the tables: the
    # parts are written from the core's columns, their pandas metadata
    # built here, and the DataFrames made only if asked for.
    code = (
        "import sys\nimport dupack\n"
        "res = dupack.sweep(sys.argv[1], seeds=[1, 2], overrides=['run.duration=2s'], out=sys.argv[2], progress=False)\n"
        "print(sorted(m for m in ('pandas', 'pyarrow', 'numpy') if m in sys.modules))\n"
        "res.flows\n"
        "print('pandas' in sys.modules)\n"
    )
    r = subprocess.run([sys.executable, "-c", code, str(QUICKSTART), str(tmp_path / "sw")], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    # Not even numpy and pyarrow: the extension writes the parts from the core's buffers (_core.write_part).
    assert r.stdout.splitlines() == ["[]", "True"]
    # What was stored reads back as the in-memory sweep's tables.
    expected = dupack.sweep(QUICKSTART, seeds=[1, 2], overrides=["run.duration=2s"])
    assert_same(dupack.SweepResult.load(tmp_path / "sw"), expected)


@pytest.mark.parametrize("compact", [True, False], ids=["compact", "plain"])
@pytest.mark.parametrize(
    "scenario, observe",
    [
        (QUICKSTART, {"series": ["f0", "f1"], "trace": ["f0"]}),  # series and trace, the flows' nullable columns
        (QUICKSTART.parent / "efr_wlan.toml", {}),  # the media table
    ],
    ids=["quickstart-observed", "efr_wlan"],
)
def test_parts_written_by_the_extension_equal_pyarrows(scenario: Path, observe: dict, compact: bool, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The store's two writers make the same parts: the extension's from the
    core's buffers (no numpy, no pyarrow) and pyarrow's from Arrow tables
    (the path of grids and of the Dask executor); the extension's compact
    (dictionary and Snappy, for parts of COMPACT_ROWS rows or more) or plain."""
    import pyarrow.parquet as pq

    from dupack import sweep_store, sweeps

    monkeypatch.setattr(sweep_store, "COMPACT_ROWS", 0 if compact else 10**9)
    written = []
    write_part = sweeps._core.write_part
    monkeypatch.setattr(sweeps._core, "write_part", lambda path, *a: written.append(path) or write_part(path, *a))

    kw = dict(seeds=[1, 2, 3], overrides=["run.duration=1s"], progress=False, **observe)
    dupack.sweep(scenario, out=tmp_path / "ext", **kw)
    # Every part of the first sweep was written by the extension (else both would be pyarrow's, and equal).
    stored = sorted(f.name for t in sweeps.TABLES for f in (tmp_path / "ext" / t).glob("part-*.parquet"))
    assert stored and len(written) == len(stored), (written, stored)
    calls = []
    real = sweeps._Ids.table
    monkeypatch.setattr(sweeps._Ids, "part_columns", lambda self, part: None)
    monkeypatch.setattr(sweeps._Ids, "table", lambda self, t, part: calls.append(t) or real(self, t, part))
    dupack.sweep(scenario, out=tmp_path / "pa", **kw)
    assert calls, "the second sweep went through pyarrow"
    tables = [t for t in sweeps.TABLES if (tmp_path / "pa" / t).is_dir()]
    assert sorted(t for t in sweeps.TABLES if (tmp_path / "ext" / t).is_dir()) == sorted(tables)
    assert {"runs", "flows", "links"} <= set(tables) and (set(observe) <= set(tables))
    if not observe:
        assert "media" in tables
    for t in tables:
        a, b = (pq.ParquetFile(tmp_path / d / t / "part-00000.parquet") for d in ("ext", "pa"))
        ta, tb = a.read(), b.read()
        assert ta.schema.equals(tb.schema, check_metadata=False), t
        meta = lambda m: {k: v for k, v in m.items() if k != b"ARROW:schema"}  # noqa: E731
        assert meta(ta.schema.metadata) == meta(tb.schema.metadata), t
        # Value by value, NaN equal to NaN (Arrow's equals says NaN != NaN), nulls where pyarrow has them.
        same = lambda v: "nan" if isinstance(v, float) and v != v else v  # noqa: E731
        for c in ta.column_names:
            if c != "wall_time_s":
                assert [same(v) for v in ta.column(c).to_pylist()] == [same(v) for v in tb.column(c).to_pylist()], (t, c)
        # Statistics where readers filter (job, seed), nowhere else, in both.
        for f in (a, b):
            rg = f.metadata.row_group(0)
            with_stats = {rg.column(i).path_in_schema for i in range(rg.num_columns) if rg.column(i).is_stats_set}
            assert with_stats == {"job", "seed"}, (t, with_stats)
        codecs = {a.metadata.row_group(0).column(i).compression for i in range(a.metadata.num_columns)}
        if compact:
            # Compressed as pyarrow compresses: a sweep of many runs must not take many times the disk.
            assert codecs == {"SNAPPY"}
            ext, pa_ = ((tmp_path / d / t / "part-00000.parquet").stat().st_size for d in ("ext", "pa"))
            assert ext <= 1.5 * pa_, (t, ext, pa_)
        else:
            assert codecs == {"UNCOMPRESSED"}
    assert_same(dupack.SweepResult.load(tmp_path / "ext"), dupack.SweepResult.load(tmp_path / "pa"))
    for t in set(observe):
        pd.testing.assert_frame_equal(dupack.SweepResult.load(tmp_path / "ext").tables[t],
                                      dupack.SweepResult.load(tmp_path / "pa").tables[t])


def test_part_columns_leave_what_they_do_not_know_to_pyarrow() -> None:
    from dupack.result import part_columns

    u64 = lambda *v: ("u64", b"".join(x.to_bytes(8, "little") for x in v), None, 1)  # noqa: E731
    cols = {c: u64(1, 2) if d in ("uint64", "UInt64") else ("f64", bytes(16), None, 1) if d == "float64"
            else ("i64", bytes(16), None, 1) if d == "Int64" else ("str", (bytes(24), b""), None, 1)
            for c, d in TABLE_DTYPES["links"].items()}
    got = part_columns("links", 2, cols)
    assert got is not None and [c for c, *_ in got] == list(TABLE_DTYPES["links"])
    assert part_columns("links", 2, {**cols, "new_field": u64(1, 2)}) is None, "a field unknown here"
    assert part_columns("links", 2, {k: v for k, v in list(cols.items())[1:]}) is None, "a field missing"
    name, dtype = next((c, d) for c, d in TABLE_DTYPES["links"].items() if d == "uint64")
    assert part_columns("links", 2, {**cols, name: ("u64", cols[name][1], b"\x01\x00", 1)}) is None, "a null in uint64"
    assert part_columns("links", 2, {**cols, name: ("f64", bytes(16), None, 1)}) is None, "another kind"


@pytest.mark.parametrize("table", ["runs", "flows", "links", "media"])
def test_the_parts_pandas_metadata_built_here_is_pandas_own(table: str, tmp_path: Path) -> None:
    import pyarrow as pa

    from dupack.result import empty_table, to_frame
    from dupack.sweep_store import Store

    store = Store(tmp_path, set(), 0)
    store.index = ["job", "seed"]
    schema = empty_table(table, {"job": pa.array([], pa.int64()), "seed": pa.array([], pa.uint64())}).schema
    ours = store._known_metadata(table, schema)
    assert ours is not None
    theirs = pa.Schema.from_pandas(to_frame(schema.empty_table(), table), preserve_index=False).metadata
    assert ours == {b"pandas": theirs[b"pandas"]}
    assert ours == theirs  # nothing else in pandas' own either
    # A grid column, or a column unknown here, goes to pandas.
    store.index = ["job", "tcp.variant", "seed"]
    assert store._known_metadata(table, schema) is None


def test_arrow_numbers_are_what_pa_array_makes_nulls_included() -> None:
    import numpy as np
    import pyarrow as pa

    from dupack.result import arrow_numbers

    values = np.arange(11, dtype="<u8") * 7
    mask = np.array([i % 3 == 1 for i in range(11)])
    for m in (None, np.zeros(11, dtype=bool), mask):
        got = arrow_numbers(values, pa.uint64(), m)
        assert got.equals(pa.array(values, mask=m, type=pa.uint64())), m
    assert arrow_numbers(values, pa.uint64(), mask).null_count == 4
    # Values are read as the type's own width, never reinterpreted.
    with pytest.raises(TypeError, match="uint32"):
        arrow_numbers(values.astype("<u4"), pa.uint64())


def test_the_lazy_tables_behave_as_a_dict() -> None:
    from dupack.sweeps import _Tables

    made = []
    t = _Tables({"a": lambda: made.append("a") or 1, "b": lambda: made.append("b") or 2})
    assert list(t) == ["a", "b"] and len(t) == 2 and made == []
    assert t["b"] == 2 and t["b"] == 2 and made == ["b"]
    t["a"] = 5
    assert dict(t) == {"a": 5, "b": 2} and made == ["b"]
    del t["b"]
    assert list(t) == ["a"]


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
def test_ctrl_c_keeps_what_was_stored(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    cmd = [sys.executable, "-m", "dupack", "sweep", str(ROOT / "bench" / "scenarios" / "unfairness.toml"),
           "-s", "run.duration=200s", "--seeds", "1..400", "-j", "2", "-q", "-o", str(out)]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=sigint_default)
    try:
        deadline = time.monotonic() + 60
        while not list((out / "runs").glob("part-*.parquet")) and time.monotonic() < deadline:
            time.sleep(0.05)
        p.send_signal(signal.SIGINT)
        stdout, stderr = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, stderr
    assert stderr.strip().startswith("error: aborted") and len(stderr.strip().splitlines()) == 1, stderr
    stored = dupack.SweepResult.load(out)
    assert 0 < len(stored.runs) < 400
    jobs = list(stored.runs["job"])
    assert len(set(jobs)) == len(jobs) and set(jobs) <= set(range(400))
