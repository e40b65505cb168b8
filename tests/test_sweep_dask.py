"""Sweeps on a Dask cluster (dupack.sweep(client=...), dupack sweep --executor
dask://...): the same tables as a local sweep, a killed worker's batches run
again and stored once, resuming across executors, and the errors of a
missing Dask or an unreachable scheduler."""

from __future__ import annotations

import functools
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import dupack
from dupack._core import RunError
from tests.conftest import QUICKSTART, run_cli

distributed = pytest.importorskip("distributed")

TABLES = ("runs", "flows", "links", "media")
GRID = {"tcp.variant": ["reno", "sack"], "topology.bottleneck.fwd_error.p": [0.0, 0.02]}
SEEDS = [1, 2, 3]
BASE = ["run.duration=2s", 'topology.bottleneck.fwd_error={ model = "bernoulli", p = 0.0 }']
BASE_ARGS = [a for o in BASE for a in ("-s", o)]
#: Runs of a tenth of a second or more each, batched into tasks of a second
#: or more: a worker can be killed in the middle of one.
SLOW = ["run.duration=5s", "topology.bottleneck.rate=1Gbps", "topology.senders=200"]
SLOW_GRID = {"tcp.variant": ["reno", "sack"]}
SLOW_SEEDS = list(range(1, 21))


def base() -> dupack.Scenario:
    return dupack.load(QUICKSTART).with_overrides(BASE)


def slow() -> dupack.Scenario:
    return dupack.load(QUICKSTART).with_overrides(SLOW)


@functools.cache
def local() -> dupack.SweepResult:
    return dupack.sweep(base(), GRID, SEEDS, workers=2, progress=False)


@functools.cache
def local_slow() -> dupack.SweepResult:
    return dupack.sweep(slow(), SLOW_GRID, SLOW_SEEDS, workers=2, progress=False)


def without_wall(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop(columns=["wall_time_s"]) if "wall_time_s" in df else df


def assert_same(a: dupack.SweepResult, b: dupack.SweepResult) -> None:
    for t in TABLES:
        pd.testing.assert_frame_equal(without_wall(a.tables[t]), without_wall(b.tables[t]))


def assert_once(out: Path, total: int) -> None:
    stored = dupack.SweepResult.load(out)  # raises if a job is stored twice
    assert sorted(stored.runs["job"]) == list(range(total))


@pytest.fixture(scope="module")
def client() -> Any:
    with distributed.LocalCluster(
        processes=True, n_workers=2, threads_per_worker=1, dashboard_address=":0", silence_logs=40
    ) as cluster, distributed.Client(cluster, set_as_default=False) as c:
        yield c


def test_the_tables_equal_a_local_sweeps(client: Any, tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []
    res = dupack.sweep(base(), GRID, SEEDS, client=client, progress=lambda d, t: seen.append((d, t)))
    assert_same(res, local())
    assert res.executed == 12 and res.skipped == 0
    assert seen[0] == (0, 12) and seen[-1] == (12, 12)
    # Into a store: the same parts format, read back the same.
    out = tmp_path / "sw"
    stored = dupack.sweep(base(), GRID, SEEDS, client=client, out=out, progress=False)
    assert_same(stored, local())
    assert_same(dupack.SweepResult.load(out), local())
    assert_once(out, 12)
    again = dupack.sweep(base(), GRID, SEEDS, client=client, out=out, progress=False)
    assert again.executed == 0 and again.skipped == 12


def test_a_worker_killed_mid_sweep_loses_and_doubles_nothing(client: Any, tmp_path: Path) -> None:
    pids = client.run(os.getpid)
    killed: list[int] = []

    def kill_a_busy_worker(done: int, total: int) -> None:
        # Once the first tasks (a job each, to time them) are back, the workers run batches.
        if killed or done < 4:
            return
        busy = [w for w, tasks in client.processing().items() if tasks]
        if busy:
            killed.append(pids[busy[0]])
            os.kill(pids[busy[0]], signal.SIGKILL)

    out = tmp_path / "sw"
    res = dupack.sweep(
        slow(), SLOW_GRID, SLOW_SEEDS, client=client, out=out, progress=kill_a_busy_worker, chunk_seconds=0
    )
    assert killed, "no worker was busy when a chunk came"
    assert killed[0] not in client.run(os.getpid).values()  # it did die (and its nanny started another)
    total = len(SLOW_SEEDS) * 2
    assert res.executed == total
    assert_once(out, total)
    assert_same(res, local_slow())
    assert_same(dupack.SweepResult.load(out), local_slow())


def test_a_dask_sweep_cut_short_is_finished_locally(client: Any, tmp_path: Path) -> None:
    out = tmp_path / "sw"
    with pytest.raises(RunError, match="grid point tcp.variant=reno"):
        dupack.sweep(base(), GRID, SEEDS, client=client, out=out, progress=False, _fail_job=4)
    part = dupack.SweepResult.load(out)
    assert 0 < len(part.runs) < 12 and 4 not in set(part.runs["job"])
    res = dupack.sweep(base(), GRID, SEEDS, workers=2, out=out, progress=False)
    assert res.skipped == len(part.runs) and res.executed == 12 - len(part.runs)
    assert_same(res, local())
    assert_once(out, 12)


def test_a_local_sweep_cut_short_is_finished_on_dask(client: Any, tmp_path: Path) -> None:
    out = tmp_path / "sw"
    with pytest.raises(RunError):
        dupack.sweep(base(), GRID, SEEDS, workers=1, out=out, progress=False, _fail_job=7)
    part = dupack.SweepResult.load(out)
    assert 0 < len(part.runs) < 12
    res = dupack.sweep(base(), GRID, SEEDS, client=client, out=out, progress=False)
    assert res.skipped == len(part.runs) and res.executed == 12 - len(part.runs)
    assert_same(res, local())
    assert_once(out, 12)


def test_cli_executor_runs_the_sweep_on_the_cluster(client: Any, tmp_path: Path) -> None:
    out = tmp_path / "sw"
    address = client.scheduler.address.replace("tcp://", "dask://")
    args = ["sweep", str(QUICKSTART), *BASE_ARGS, "-q", "-o", str(out), "--seeds", "1..3", "--executor", address]
    for path, values in GRID.items():
        args += ["--vary", f"{path}={','.join(str(v) for v in values)}"]
    r = run_cli(*args)
    assert r.exit_code == 0, r.stderr
    assert_same(dupack.SweepResult.load(out), local())


def one_error_line(r: Any, code: int, *fragments: str) -> str:
    assert r.exit_code == code, (r.exit_code, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    for f in fragments:
        assert f in lines[0], (f, lines[0])
    return lines[0]


def test_an_unreachable_scheduler_is_one_line_within_the_timeout(tmp_path: Path, monkeypatch) -> None:
    import dupack.dask_executor

    monkeypatch.setattr(dupack.dask_executor, "CONNECT_TIMEOUT", 2.0)
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.monotonic()
    r = run_cli("sweep", str(QUICKSTART), *BASE_ARGS, "-q", "-o", str(tmp_path / "sw"), "--executor", f"dask://127.0.0.1:{port}")
    assert time.monotonic() - t0 < 8
    one_error_line(r, 2, f"error: --executor: cannot reach the Dask scheduler at tcp://127.0.0.1:{port}")
    assert not (tmp_path / "sw").exists()


def test_without_dask_the_executor_says_how_to_install_it(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed raises ImportError
    r = run_cli("sweep", str(QUICKSTART), *BASE_ARGS, "-q", "-o", str(tmp_path / "sw"), "--executor", "dask://localhost:8786")
    one_error_line(r, 2, "--executor dask://localhost:8786", "pip install 'dupack[dask]'")


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--executor", "dask:/x"], "--executor must be 'local' or dask://HOST:PORT"),
        (["--executor", "dask://host:99999"], "--executor must be 'local' or dask://HOST:PORT"),
        (["--executor", "ray://host:1"], "--executor must be 'local' or dask://HOST:PORT"),
        (["--executor", "dask://host:1", "-j", "2"], "--workers sets the threads of a local sweep"),
    ],
)
def test_bad_executor_options(args: list[str], fragment: str, tmp_path: Path) -> None:
    r = run_cli("sweep", str(QUICKSTART), *BASE_ARGS, "-q", "-o", str(tmp_path / "sw"), *args)
    one_error_line(r, 2, fragment)


def test_workers_and_client_do_not_go_together(client: Any) -> None:
    with pytest.raises(ValueError, match="workers is the number of local threads"):
        dupack.sweep(base(), GRID, SEEDS, client=client, workers=2)


def test_import_dupack_does_not_import_dask() -> None:
    code = (
        "import sys, dupack, dupack.sweeps, dupack.dask_executor, dupack.cli.sweep\n"
        "dupack.sweep(dupack.load(sys.argv[1]).with_overrides(['run.duration=1s']), progress=False)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed'))\n"
        "assert not bad, bad\n"
    )
    r = subprocess.run([sys.executable, "-c", code, str(QUICKSTART)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


def test_batches_are_a_second_or_more_and_shrink_at_the_end() -> None:
    from dupack.dask_executor import MAX_TASK_SECONDS, TAIL_SECONDS, TASK_SECONDS, TASKS_PER_THREAD, _Batches

    jobs = [(j, 0, j) for j in range(10_000)]
    b = _Batches(jobs)
    assert [len(b.take(4)) for _ in range(3)] == [1, 1, 1]  # before anything is known of a job's time
    b.learn(3, 3 * 0.01)  # 10 ms a job
    cuts = []
    while b.left:
        left = len(b.left)
        cuts.append((left, len(b.take(4))))
    sizes = [n for _, n in cuts]
    assert sum(sizes) == len(jobs) - 3
    assert all(n * 0.01 <= MAX_TASK_SECONDS for n in sizes)
    # A second or more of work while each of the 4 threads has TASKS_PER_THREAD seconds or more left.
    assert all(n * 0.01 >= TASK_SECONDS for left, n in cuts if left * 0.01 >= 4 * TASKS_PER_THREAD * TASK_SECONDS)
    assert sizes == sorted(sizes, reverse=True)  # smaller towards the end, to finish together
    # The last batches are the tail's, not a thread's share: no thread runs a long last batch alone.
    assert all(n * 0.01 <= max(TAIL_SECONDS, left * 0.01 / (4 * TASKS_PER_THREAD)) + 0.01 for left, n in cuts)
    assert sizes[-1] * 0.01 <= TAIL_SECONDS + 0.01
    # Few batches all the same: their number grows with the log of the work per tail batch.
    assert len(sizes) <= 4 * TASKS_PER_THREAD * 6
    # A short sweep is spread over every thread rather than given to one.
    short = _Batches([(j, 0, j) for j in range(12)])
    short.learn(4, 4 * 0.1)
    assert [len(short.take(2)) for _ in range(3)] == [2, 2, 1]
    # A job longer than the longest batch is a batch of its own.
    slow = _Batches([(j, 0, j) for j in range(5)])
    slow.learn(1, 2 * MAX_TASK_SECONDS)
    assert len(slow.take(2)) == 1


@pytest.mark.parametrize("stored", [True, False])
def test_a_dask_sweep_paces_its_chunks_as_a_local_one(client: Any, tmp_path: Path, monkeypatch, stored: bool) -> None:
    # The core's rule (pace::chunk_due), told how far the sweep is, and to
    # shrink the chunks toward the end only when they are stored.
    from dupack import _core

    asked: list[tuple[Any, ...]] = []
    due = _core.chunk_due

    def spy(*args: Any) -> bool:
        asked.append(args)
        return due(*args)

    monkeypatch.setattr(_core, "chunk_due", spy)
    dupack.sweep(base(), GRID, SEEDS, client=client, out=tmp_path / "d" if stored else None, progress=False)
    total = len(SEEDS) * 4
    assert asked, "no chunk was judged"
    assert all(a[3] == total and a[5] is stored for a in asked), asked
    finished = [a[2] for a in asked]
    assert finished == sorted(finished) and 0 < finished[-1] <= total, finished


def test_workers_running_another_dupack_are_refused(client: Any, monkeypatch) -> None:
    import dupack.result
    from dupack.dask_executor import ExecutorError

    monkeypatch.setattr(dupack.result, "provenance", lambda: {"version": "0.0.1", "commit": "feedfacecafe"})
    with pytest.raises(ExecutorError, match=r"a Dask worker runs dupack .* and this is dupack 0\.0\.1 \(commit feedfacecafe\)"):
        dupack.sweep(base(), GRID, SEEDS, client=client, progress=False)


def test_a_dask_sweep_records_the_same_series_and_trace(client: Any, tmp_path: Path) -> None:
    watch = {"series": ["f3", "bottleneck"], "trace": ["f3"]}
    here = dupack.sweep(base(), GRID, SEEDS, workers=2, progress=False, **watch)
    there = dupack.sweep(base(), GRID, SEEDS, client=client, out=tmp_path / "sw", progress=False, **watch)
    assert len(here.series) and len(here.trace)
    for t in ("series", "trace"):
        pd.testing.assert_frame_equal(here.tables[t], there.tables[t])
        pd.testing.assert_frame_equal(here.tables[t], dupack.SweepResult.load(tmp_path / "sw").tables[t])
