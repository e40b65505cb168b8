#!/usr/bin/env python3
"""Sweeps on a Dask cluster: what the Dask executor costs against the local one.

    python bench/dask_sweep.py                 # 1 s and 10 s runs, grids of about 8 s of work, 3 pairs each
    python bench/dask_sweep.py --write-doc     # also put the tables into docs/performance.md

The grid is bench/sweep.py's (bench/scenarios/unfairness.toml with N = 10 and
p = 1 %, seeds 1..RUNS), sized so that its bare local sweep takes about
``--seconds`` on this machine. The cluster is started as README.md starts one on
several machines, here on this one: ``dask scheduler`` and ``dask worker
ADDRESS --nworkers WORKERS --nthreads 1`` (WORKERS worker processes of one
thread each), started once and warmed up (its workers have imported dupack
and run a small sweep) before the clock starts, as a cluster that serves a
session of sweeps is. Each repetition
times, in turn:

  bare         ``dupack.sweep(..., workers=WORKERS, _discard_results=True)``:
               the runs alone on WORKERS local threads (the core's sweep
               call, timed inside it), the baseline;
  local+store  ``dupack.sweep(..., workers=WORKERS, out=DIR)``;
  dask         ``dupack.sweep(..., client=Client(cluster))``, its runs and
               flows tables asked for (as bench/sweep.py's in-memory path);
  dask+store   the same with ``out=DIR``;
  cli          ``dupack sweep FILE --executor dask://ADDRESS -q -o DIR``, one
               process (interpreter start-up and imports included).

Each path's overhead is (its wall time - the bare sweep's core call) / its
wall time, the median over the repetitions; the bare sweep is run right
before the others each time, so the machine's drift between measurements
cancels out as in bench/sweep.py's pairs.

The Dask paths are split further with the scheduler's task stream
(``distributed.get_task_stream``): the workers' **scheduling overhead** is
the share of their threads' time in the sweep's wall time that they did not
spend running a task (waiting for the scheduler between tasks, idle at the
start while the first jobs are timed, idle at the end while the last
batches finish); what is left is the tasks themselves running slower than
the bare sweep's runs (the columns of the results, pickling them, and here,
where client, scheduler and workers share the same cores, the client's work
of receiving and storing them).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import math
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import sweep as bs  # noqa: E402
from bench.measure import write_doc_block  # noqa: E402

ROOT = bs.ROOT
DOC = ROOT / "docs" / "performance.md"
SECTION = "## Sweeps on a Dask cluster"
BEGIN, END = "<!-- bench/dask_sweep.py: begin -->", "<!-- bench/dask_sweep.py: end -->"
DURATIONS = ["1s", "10s"]
PATHS = ["local+store", "dask", "dask+store", "cli"]


@contextlib.contextmanager
def cluster(workers: int, tmp: Path):
    """A scheduler and WORKERS worker processes of one thread each, started as the README starts them on
    several machines (`dask scheduler`, `dask worker`), here on this one; yields the scheduler's address."""
    dask = str(Path(sys.executable).parent / "dask")
    info = tmp / "scheduler.json"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                               "--scheduler-file", str(info)], **quiet)]
    try:
        deadline = time.monotonic() + 60
        while not info.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        address = json.loads(info.read_text())["address"]
        procs.append(subprocess.Popen([dask, "worker", address, "--nworkers", str(workers), "--nthreads", "1",
                                       "--no-dashboard"], **quiet))
        yield address
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in reversed(procs):
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()


def _cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def cluster_cpu(client) -> dict[str, float]:
    """CPU seconds used so far by the scheduler's process and by the worker processes (together)."""
    return {"scheduler": client.run_on_scheduler(_cpu_seconds), "workers": sum(client.run(_cpu_seconds).values())}


def timed_dask(client, duration: str, runs: int, out: str | None) -> dict:
    """One sweep on the cluster: its wall time, from the task stream the tasks' compute time, and the CPU
    seconds of the client (this process), the scheduler and the workers over it."""
    import dupack
    from distributed import get_task_stream

    before, mine = cluster_cpu(client), _cpu_seconds()
    with get_task_stream(client=client) as ts:
        t = time.perf_counter()
        res = dupack.sweep(str(bs.SCENARIO), seeds=range(1, runs + 1), overrides=bs._over(duration), client=client,
                           out=out, progress=False)
        if out is None:  # (a stored sweep's tables are read from its directory when asked for: not timed)
            assert len(res.runs) == runs and len(res.flows) == runs * 10
        wall = time.perf_counter() - t
    if out is not None:
        assert len(res.runs) == runs and len(res.flows) == runs * 10
    mine = _cpu_seconds() - mine
    after = cluster_cpu(client)
    compute = [ss["stop"] - ss["start"] for e in ts.data for ss in e["startstops"] if ss["action"] == "compute"]
    cpu = {"client": mine, **{k: after[k] - before[k] for k in after}}
    return {"wall": wall, "compute": sum(compute), "tasks": len(compute), "cpu": cpu}


def timed_cli(address: str, duration: str, runs: int, out: str) -> float:
    cmd = [bs.dupack_command(), "sweep", str(bs.SCENARIO), "--seeds", f"1..{runs}", "--executor",
           "dask://" + address.removeprefix("tcp://"), "-q", "-o", out]
    for o in bs._over(duration):
        cmd += ["-s", o]
    t = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - t


def grid_size(duration: str, workers: int, seconds: float) -> int:
    """Runs in a grid whose bare local sweep takes about ``seconds`` here (a multiple of 1000)."""
    probe = 200 if duration.endswith("0s") else 2000
    _, core = bs.run_sweep(duration, probe, workers, "bare")
    return max(1000, round(seconds * probe / core / 1000) * 1000)


def measure(workers: int = 2, durations: list[str] | None = None, seconds: float = 8.0, repeat: int = 3,
            log=sys.stderr) -> dict:
    import dupack
    from distributed import Client

    bs._warm_sweep(workers)
    rows = []
    with tempfile.TemporaryDirectory(prefix="dupack-dask-") as tmp, cluster(workers, Path(tmp)) as address, \
            Client(address, timeout=60) as client:
        client.wait_for_workers(workers, timeout=60)
        # The workers import dupack and run a first sweep before the clock starts.
        dupack.sweep(str(bs.SCENARIO), seeds=range(1, 9), overrides=bs._over("10ms"), client=client, progress=False)
        for d in durations or DURATIONS:
            runs = grid_size(d, workers, seconds)
            reps = []
            for i in range(repeat):
                r = {"bare": bs.run_sweep(d, runs, workers, "bare")[1],
                     "local+store": bs.run_sweep(d, runs, workers, "sweep+store")[0]}
                r["dask"] = timed_dask(client, d, runs, None)
                r["dask+store"] = timed_dask(client, d, runs, f"{tmp}/d{d}-{i}")
                r["cli"] = timed_cli(address, d, runs, f"{tmp}/c{d}-{i}")
                reps.append(r)
                print(f"[dask] {runs} runs of {d}: bare {r['bare']:.3f} s, local+store {r['local+store']:.3f} s, "
                      f"dask {r['dask']['wall']:.3f} s ({r['dask']['tasks']} tasks), dask+store "
                      f"{r['dask+store']['wall']:.3f} s, cli {r['cli']:.3f} s", file=log, flush=True)
            rows.append({"duration": d, "runs": runs, "reps": reps})
    return {"workers": workers, "rows": rows, "scenario": "unfairness.toml, N = 10, p = 0.01"}


def wall(rep: dict, path: str) -> float:
    v = rep[path]
    return v["wall"] if isinstance(v, dict) else v


def overhead(rep: dict, path: str) -> float:
    """Per cent of the path's wall time beyond the bare sweep's runs."""
    return 100 * (wall(rep, path) - rep["bare"]) / wall(rep, path)


def idle(rep: dict, path: str, workers: int) -> float:
    """Per cent of the worker threads' time in the sweep not spent in a task."""
    v = rep[path]
    return 100 * (1 - v["compute"] / (workers * v["wall"]))


def slower(rep: dict, path: str, workers: int) -> float:
    """Per cent by which the tasks' compute time exceeds the bare sweep's runs (on as many threads)."""
    return 100 * (rep[path]["compute"] - workers * rep["bare"]) / (workers * rep["bare"])


def med(values) -> float:
    return statistics.median(list(values))


def lines(res: dict, machine: str) -> list[str]:
    w = res["workers"]
    out = [
        f"- {machine}",
        f"- The grid: {res['scenario']}, seeds 1…RUNS. The cluster: `dask scheduler` and `dask worker ADDRESS "
        f"--nworkers {w} --nthreads 1` ({w} worker processes of one thread each), on this machine's cores beside "
        f"the client (this benchmark, or the `dupack sweep` process); medians of "
        f"{len(res['rows'][0]['reps'])} repetitions, each against the bare local sweep run just before it.",
        "",
        "| simulated time per run | runs per grid | bare: core call s | local+store s / overhead | dask s / overhead "
        "| dask+store s / overhead | `dupack sweep --executor dask://` s / overhead | Dask tasks per sweep |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in res["rows"]:
        reps = r["reps"]
        cell = {p: f"{med(wall(x, p) for x in reps):.3f} / {med(overhead(x, p) for x in reps):.1f} %" for p in PATHS}
        out.append(
            f"| {r['duration']} | {r['runs']} | {med(x['bare'] for x in reps):.3f} | {cell['local+store']} | "
            f"{cell['dask']} | {cell['dask+store']} | {cell['cli']} | "
            f"{med(x['dask']['tasks'] for x in reps):.0f} |"
        )
    out += [
        "",
        "| simulated time per run | path | scheduling overhead (worker threads idle) | tasks slower than the bare "
        "runs | CPU s: bare sweep / workers / client / scheduler |",
        "|---|---|---:|---:|---:|",
    ]
    for r in res["rows"]:
        reps = r["reps"]
        for p in ("dask", "dask+store"):
            cpu = {k: med(x[p]["cpu"][k] for x in reps) for k in ("workers", "client", "scheduler")} \
                if all("cpu" in x[p] for x in reps) else None
            used = (f"{med(w * x['bare'] for x in reps):.2f} / {cpu['workers']:.2f} / {cpu['client']:.2f} / "
                    f"{cpu['scheduler']:.2f}") if cpu else "—"
            out.append(
                f"| {r['duration']} | {p} | {med(idle(x, p, w) for x in reps):.1f} % | "
                f"{med(slower(x, p, w) for x in reps):.1f} % | {used} |"
            )
    one = next((r for r in res["rows"] if r["duration"] == "1s"), None)
    if one is not None:
        worst = max(med(idle(x, p, w) for x in one["reps"]) for p in ("dask", "dask+store"))
        out += ["", f"- Scheduling overhead for 1 s jobs (target under 5 %): {worst:.1f} % at most: "
                    + ("**met**." if worst < 5 else "**not met**.")]
    return out


def write_doc(block_lines: list[str]) -> None:
    write_doc_block(DOC, SECTION, BEGIN, END, block_lines)

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=2, help="worker processes of the LocalCluster (one thread each)")
    ap.add_argument("--durations", default=",".join(DURATIONS), help="comma-separated simulated durations")
    ap.add_argument("--seconds", type=float, default=8.0, help="a grid's bare local sweep takes about this long")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--write-doc", action="store_true", help=f"put the tables into {DOC.relative_to(ROOT)}")
    args = ap.parse_args()
    if args.workers < 1 or args.repeat < 1 or not math.isfinite(args.seconds) or args.seconds <= 0:
        ap.error("--workers and --repeat must be at least 1 and --seconds positive")
    try:
        import distributed  # noqa: F401
    except ImportError:
        ap.error("this benchmark needs Dask: pip install '.[dask]'")
    from bench.measure import machine

    m = machine()
    res = measure(args.workers, args.durations.split(","), args.seconds, args.repeat)
    import dask

    text = lines(res, f"{m['date']}; dupack commit {m['commit']}; {m['cpu']}, `nproc` = {m['nproc']}, {m['mem']}; "
                      f"Python {m['python']}; Dask {dask.__version__}; 1-minute load average at the start {m['load']}")
    print("\n".join(text))
    if args.write_doc:
        write_doc(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
