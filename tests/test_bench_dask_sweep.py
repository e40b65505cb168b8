"""bench/dask_sweep.py's arithmetic: the overheads it reports against the
bare local sweep, the workers' idle share from the task stream, and its
verdict on the scheduling-overhead target. No cluster is started."""

from __future__ import annotations

import pytest

from bench import dask_sweep as ds


def _rep(bare: float, wall: float, compute: float, tasks: int = 40) -> dict:
    path = {"wall": wall, "compute": compute, "tasks": tasks, "cpu": {"client": 1.0, "workers": 2.0, "scheduler": 0.5}}
    return {"bare": bare, "local+store": wall, "dask": path, "dask+store": dict(path), "cli": wall}


def test_overhead_is_the_share_of_the_paths_wall_time_beyond_the_bare_runs() -> None:
    rep = _rep(bare=8.0, wall=10.0, compute=19.0)
    assert ds.overhead(rep, "dask") == pytest.approx(20.0)
    assert ds.overhead(rep, "cli") == pytest.approx(20.0)


def test_idle_and_slower_split_the_overhead_by_the_task_stream() -> None:
    # Two threads for 10 s: 20 thread-seconds, 19 of them in tasks, which the
    # bare sweep ran in 2 x 8 = 16.
    rep = _rep(bare=8.0, wall=10.0, compute=19.0)
    assert ds.idle(rep, "dask", 2) == pytest.approx(5.0)
    assert ds.slower(rep, "dask", 2) == pytest.approx(100 * 3 / 16)


@pytest.mark.parametrize(("compute", "verdict"), [(19.9, "**met**"), (18.0, "**not met**")])
def test_the_verdict_judges_the_worse_dask_path_at_one_second(compute: float, verdict: str) -> None:
    # The in-memory path stays busy (0.5 % idle); the stored path's idle
    # share decides: a verdict from the better path would read met for both.
    rep = _rep(8.0, 10.0, 19.9)
    rep["dask+store"] = {**rep["dask"], "compute": compute}
    # A 10 s row whose paths are idle far beyond 5 % is not judged.
    slow = _rep(80.0, 100.0, 150.0)
    res = {
        "workers": 2,
        "scenario": "unfairness.toml",
        "rows": [{"duration": "1s", "runs": 1000, "reps": [rep] * 3},
                 {"duration": "10s", "runs": 100, "reps": [slow] * 3}],
    }
    text = "\n".join(ds.lines(res, "a machine"))
    last = text.splitlines()[-1]
    assert last.startswith("- Scheduling overhead for 1 s jobs") and last.endswith(verdict + ".")
