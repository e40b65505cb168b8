#!/usr/bin/env python3
"""Sweep throughput: runs per second of a grid of short runs on 2 cores.

    python bench/sweep.py [--runs 40] [--sweep-runs 400] [--workers 2] [--durations 1s,10s,100s]
                          [--out docs/img/sweep_throughput.png]

The grid is one scenario (bench/scenarios/unfairness.toml with N = 10 and
p = 1 %) run for seeds 1..RUNS, at three simulated durations. Each grid is
run seven ways, each with WORKERS workers. The per-run paths (api,
api+store, cli) run RUNS seeds; the sweep paths run SWEEP_RUNS seeds, as
many as a real sweep would, so that their one-time costs (threads, imports,
the first Parquet write) are shared as they would be there; rust runs both
sizes, and each path is compared with rust at its own size:

  rust        the `sweep_grid` example: WORKERS threads calling dupack_sim::run
              in one process (no serialisation, nothing written);
  api         a process pool calling dupack.run(scenario, seed): Python, the
              PyO3 call, the JSON result and the pandas tables, nothing written;
  api+store   the same plus RunResult.save(dir) (result.json, two Parquet
              files, two CSV files, scenario.json): the result store;
  cli         WORKERS concurrent `dupack run FILE -s ... --seed N -q -o DIR`
              processes: interpreter start-up, imports, the run and the store;
  sweep       dupack.sweep(scenario, seeds=..., workers=WORKERS) in this
              (warmed-up) process: the core's worker threads, the results
              as columns and then pandas tables, nothing written;
  sweep+store the same with out=DIR: also the Parquet dataset per table;
  cli-sweep   one `dupack sweep FILE -s ... --seeds 1..N -j WORKERS -q -o DIR`
              process for the whole grid: start-up, imports, the sweep, the store.

The overhead of a path is (its wall time - rust's) / its wall time, the share
of the sweep not spent simulating; per run it is
(wall - rust wall) x WORKERS / RUNS. rust is another process measured at
another moment, and on a shared machine the same runs vary by several per
cent between two such measurements; so the sweep and sweep+store paths are
also measured against a "bare" sweep run just before each of them in this
process (``_discard_results``: the same jobs on the same threads, results
dropped unread; its core call alone is the baseline), and the median of
those pairs is their overhead. bench/run.py calls measure() and puts the
tables and the figure into docs/performance.md.
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import ns3build  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "bench" / "scenarios" / "unfairness.toml"
OVERRIDES = {"topology.senders": "10", "topology.access.fwd_error.p": "0.01"}
DURATIONS = ["1s", "10s", "100s"]
METHODS = ["rust", "api", "api+store", "cli"]
#: Paths through dupack.sweep / `dupack sweep`, timed on grids of SWEEP_RUNS runs.
SWEEP_METHODS = ["sweep", "sweep+store", "cli-sweep"]
#: The sweep paths' grids last at least this long when run directly from Rust.
SWEEP_SECONDS = 3.0


def _over(duration: str) -> list[str]:
    return [f"{k}={v}" for k, v in OVERRIDES.items()] + [f"run.duration={duration}"]


# --- workers (module level so that the process pool can pickle them) --------

def _api_one(args: tuple[str, list[str], int, str | None]) -> tuple[float, float, float]:
    """(whole call, simulation alone as the core measured it, store) in seconds."""
    import dupack

    path, over, seed, store = args
    t = time.perf_counter()
    r = dupack.run(path, seed=seed, overrides=over)
    t_store = time.perf_counter()
    if store:
        r.save(Path(store) / f"seed{seed}")
    t_end = time.perf_counter()
    return t_end - t, float(r.run["wall_time_s"]), t_end - t_store


def _warm(args: tuple[str, list[str], str]) -> None:
    """One small run and save per worker before the clock starts: imports (dupack, pandas, pyarrow) and
    first-use set-up are paid once per process, as in any long sweep."""
    path, over, tmp = args
    _api_one((path, over, 0, tmp))


def build(log=sys.stderr) -> Path:
    """The `sweep_grid` example, built as the extension the other paths call is."""
    from bench.measure import build_examples

    build_examples("sweep_grid")
    return ns3build.example("sweep_grid")


def run_rust(exe: Path, duration: str, runs: int, workers: int) -> float:
    # sweep_grid takes TOML values: quote the duration string.
    over = [f"{k}={v}" for k, v in OVERRIDES.items()] + [f'run.duration="{duration}"']
    out = subprocess.run([str(exe), str(SCENARIO), str(runs), str(workers), *over], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out)["wall_s"]


def run_api(duration: str, runs: int, workers: int, store: bool) -> tuple[float, dict]:
    """Wall time of the grid through a process pool, and the per-call split."""
    with tempfile.TemporaryDirectory(prefix="dupack-sweep-") as tmp, ProcessPoolExecutor(workers) as pool:
        for f in [pool.submit(_warm, (str(SCENARIO), _over("10ms"), tmp)) for _ in range(workers * 2)]:
            f.result()
        jobs = [(str(SCENARIO), _over(duration), s, tmp if store else None) for s in range(1, runs + 1)]
        t = time.perf_counter()
        parts = list(pool.map(_api_one, jobs))
        wall = time.perf_counter() - t
    split = {
        "call": sum(p[0] for p in parts),
        "core": sum(p[1] for p in parts),
        "store": sum(p[2] for p in parts),
    }
    return wall, split


def _warm_sweep(workers: int) -> None:
    """Imports and first-use set-up (pandas, pyarrow, the first Parquet write) before the clock starts."""
    import dupack

    with tempfile.TemporaryDirectory(prefix="dupack-sweep-") as tmp:
        dupack.sweep(str(SCENARIO), seeds=range(1, 5), workers=workers, overrides=_over("10ms"), out=f"{tmp}/w")


def run_sweep(duration: str, runs: int, workers: int, mode: str) -> tuple[float, float]:
    """One dupack.sweep over the grid in this process: mode "bare" (``_discard_results``: the same jobs on
    the same worker threads, every result dropped by the worker that made it), "sweep" (the DataFrames
    returned) or "sweep+store" (also the Parquet dataset). Returns (the call's wall time, the wall time of
    the core's own sweep call inside it). The core call of a bare sweep is the baseline: the runs alone,
    on the same threads of the same process, with no Python, no columns and no store."""
    import dupack
    from dupack import sweeps

    inner: list[float] = []
    core_sweep = sweeps._core.sweep

    def timed(*a, **k):
        t0 = time.perf_counter()
        try:
            return core_sweep(*a, **k)
        finally:
            inner.append(time.perf_counter() - t0)

    with tempfile.TemporaryDirectory(prefix="dupack-sweep-") as tmp:
        sweeps._core.sweep = timed
        try:
            t = time.perf_counter()
            res = dupack.sweep(str(SCENARIO), seeds=range(1, runs + 1), workers=workers, overrides=_over(duration),
                               out=f"{tmp}/sw" if mode == "sweep+store" else None, _discard_results=mode == "bare")
            wall = time.perf_counter() - t
        finally:
            sweeps._core.sweep = core_sweep
        if mode != "bare":  # (a stored sweep's tables are read from its directory when asked for)
            assert len(res.runs) == runs and len(res.flows) == runs * 10
    return wall, inner[0]


def paired(duration: str, runs: int, workers: int, repeat: int) -> dict:
    """Each sweep path right after a bare sweep of the same grid, REPEAT times: per path the median of
    (wall - the bare sweep's core call) / wall over the pairs, and the best wall time. Pairs taken a few
    seconds apart see the same machine, so the machine's load between measurements (which moves two
    separate measurements by several per cent here) cancels out."""
    ratios: dict[str, list[float]] = {"sweep": [], "sweep+store": []}
    best: dict[str, float] = {}
    for i in range(repeat):
        for m in ratios:
            # Every other pair the other way round, so that a machine getting
            # faster or slower during the pairs does not favour either side.
            first, second = (("bare", m) if i % 2 == 0 else (m, "bare"))
            t = {first: run_sweep(duration, runs, workers, first), second: run_sweep(duration, runs, workers, second)}
            wall, base = t[m][0], t["bare"][1]
            ratios[m].append(100 * (wall - base) / wall)
            best[m] = min(best.get(m, wall), wall)
            best["bare"] = min(best.get("bare", base), base)
    return {"overhead": {m: statistics.median(v) for m, v in ratios.items()}, "pairs": ratios, "best": best}


def dupack_command() -> str:
    """The `dupack` command of the interpreter running this script (the one whose package the in-process paths
    time), not whichever comes first on PATH."""
    beside = Path(sys.executable).parent / "dupack"
    return str(beside) if beside.exists() else (shutil.which("dupack") or "dupack")


def run_cli_sweep(duration: str, runs: int, workers: int) -> float:
    exe = dupack_command()
    with tempfile.TemporaryDirectory(prefix="dupack-sweep-") as tmp:
        cmd = [exe, "sweep", str(SCENARIO), "--seeds", f"1..{runs}", "-j", str(workers), "-q", "-o", f"{tmp}/sw"]
        for o in _over(duration):
            cmd += ["-s", o]
        t = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        return time.perf_counter() - t


def run_cli(duration: str, runs: int, workers: int) -> float:
    exe = dupack_command()
    with tempfile.TemporaryDirectory(prefix="dupack-sweep-") as tmp:
        def one(seed: int) -> None:
            cmd = [exe, "run", str(SCENARIO), "--seed", str(seed), "-q", "-o", f"{tmp}/seed{seed}"]
            for o in _over(duration):
                cmd += ["-s", o]
            subprocess.run(cmd, check=True, capture_output=True)

        t = time.perf_counter()
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(one, range(1, runs + 1)))
        return time.perf_counter() - t


def measure(runs: int = 40, workers: int = 2, png: Path | None = None, log=sys.stderr, sweep_runs: int = 400,
            durations: list[str] | None = None, repeat: int = 3) -> dict:
    """Each row: ``wall`` (path → seconds; rust, api, api+store and cli on RUNS runs), ``sweep_wall``
    (rust, sweep, sweep+store and cli-sweep on SWEEP_RUNS runs) and the per-call splits of the api paths."""
    exe = build(log)
    _warm_sweep(workers)
    rows = []
    for d in durations or DURATIONS:
        # Best of REPEAT (a shared machine's load comes and goes); the CLI grid
        # of one process per run takes a minute and runs once.
        api = min((run_api(d, runs, workers, store=False) for _ in range(repeat)), key=lambda x: x[0])
        store = min((run_api(d, runs, workers, store=True) for _ in range(repeat)), key=lambda x: x[0])
        w = {
            "rust": min(run_rust(exe, d, runs, workers) for _ in range(repeat)),
            "api": api[0],
            "api+store": store[0],
            "cli": run_cli(d, runs, workers),
        }
        # A sweep grid at least SWEEP_SECONDS long on this machine (at least
        # SWEEP_RUNS runs): a real sweep of short runs has thousands of them,
        # and its chunks of results are then stored while the workers go on.
        n = max(sweep_runs, math.ceil(SWEEP_SECONDS * runs / w["rust"] / 100) * 100)
        sw = {
            "rust": min(run_rust(exe, d, n, workers) for _ in range(repeat)),
        }
        # Nine pairs at least: on a shared machine one pair of 1 s runs can
        # be off by ten points (five pairs on 2026-12-08 ranged from 7.7 to
        # 13.1 %, three more taken right after from 3.1 to 19.6 %).
        pairs = paired(d, n, workers, max(repeat, 9))
        sw |= {
            "sweep": pairs["best"]["sweep"],
            "sweep+store": pairs["best"]["sweep+store"],
            "cli-sweep": min(run_cli_sweep(d, n, workers) for _ in range(repeat)),
        }
        rows.append({"duration": d, "wall": w, "sweep_wall": sw, "split_api": api[1], "split_store": store[1],
                     "sweep_paired": pairs, "sweep_runs": n})
        print(f"[sweep] {runs} runs of {d}: " + ", ".join(f"{m} {w[m]:.3f} s" for m in METHODS), file=log, flush=True)
        print(f"[sweep] {n} runs of {d}: " + ", ".join(f"{m} {sw[m]:.3f} s" for m in ["rust", *SWEEP_METHODS]),
              file=log, flush=True)
    res = {"runs": runs, "sweep_runs": sweep_runs, "sweep_seconds": SWEEP_SECONDS, "workers": workers, "scenario": "unfairness.toml, N = 10, p = 0.01",
           "rows": rows}
    if png:
        try:
            figure(res, png)
            res["png"] = str(png)
        except ImportError:
            print("[sweep] matplotlib is not installed: no figure", file=log)
    return res


def grid_runs(res: dict, r: dict, key: str) -> int:
    """Runs in row r's grid for the per-run paths (key "wall") or the sweep paths ("sweep_wall")."""
    return res["runs"] if key == "wall" else r.get("sweep_runs", res["sweep_runs"])


def overhead(r: dict, key: str, m: str) -> float:
    """Per cent of path m's wall time not spent simulating: against the paired bare sweep where the row
    has it, else against rust."""
    if key == "sweep_wall" and paired_overhead(r, m) is not None:
        return paired_overhead(r, m)
    return 100 * (r[key][m] - r[key]["rust"]) / r[key][m]


def figure(res: dict, png: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    labels = [r["duration"] for r in res["rows"]]
    x = range(len(labels))
    paths = [(m, "wall") for m in METHODS] + [(m, "sweep_wall") for m in ["rust", *SWEEP_METHODS]]
    have_bare = all("sweep_paired" in r for r in res["rows"])
    if have_bare:
        paths.insert(len(METHODS) + 1, ("bare", "sweep_paired"))
    width = 0.8 / len(paths)
    for i, (m, key) in enumerate(paths):
        if key == "sweep_paired":  # the bare sweep's core call (see paired)
            rps = [grid_runs(res, r, "sweep_wall") / r[key]["best"]["bare"] for r in res["rows"]]
        else:
            rps = [grid_runs(res, r, key) / r[key][m] for r in res["rows"]]
        label = {("rust", "wall"): f"rust ({res['runs']} runs)", ("rust", "sweep_wall"): "rust (sweep grid)",
                 ("bare", "sweep_paired"): "bare sweep (baseline)"}.get((m, key), m)
        color = f"C{i % 10}"  # the same colour for a path in both panels
        ax1.bar([k + (i - (len(paths) - 1) / 2) * width for k in x], rps, width, label=label, color=color)
        if m not in ("rust", "bare"):
            ov = [overhead(r, key, m) for r in res["rows"]]
            ax2.plot(labels, ov, marker="o", label=m, color=color, linestyle="-" if key == "sweep_wall" else "--")
    ax1.set_yscale("log")
    ax1.set_xticks(list(x), labels)
    ax1.set_xlabel("simulated time per run (10 flows)")
    ax1.set_ylabel(f"runs per second ({res['workers']} workers)")
    ax1.set_title(f"Sweep throughput ({res['runs']} runs per grid; sweeps ≥ {res['sweep_runs']})")
    ax1.legend(fontsize=8)
    ax2.axhline(5, color="grey", linestyle="--", linewidth=1, label="5 % target")
    ax2.set_ylim(-10, 100)
    ax2.set_xlabel("simulated time per run (10 flows)")
    ax2.set_ylabel("overhead, % of the sweep's wall time")
    ax2.set_title("Share not spent in the simulator")
    ax2.legend()
    fig.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, dpi=110)
    plt.close(fig)


def table(res: dict) -> list[str]:
    n, w = res["runs"], res["workers"]
    t = [
        "| simulated time per run | rust runs/s | api runs/s | api+store runs/s | cli runs/s | overhead api | "
        "overhead api+store | overhead cli | per-run overhead ms api / api+store / cli |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in res["rows"]:
        wl = r["wall"]
        ov = {m: 100 * (wl[m] - wl["rust"]) / wl[m] for m in METHODS[1:]}
        per = {m: (wl[m] - wl["rust"]) * w / n * 1000 for m in METHODS[1:]}
        t.append(
            f"| {r['duration']} | {n / wl['rust']:.0f} | {n / wl['api']:.0f} | {n / wl['api+store']:.1f} | "
            f"{n / wl['cli']:.2f} | {ov['api']:.0f} % | {ov['api+store']:.0f} % | {ov['cli']:.0f} % | "
            f"{per['api']:.1f} / {per['api+store']:.1f} / {per['cli']:.0f} |"
        )
    return t


def sweep_table(res: dict) -> list[str]:
    """The sweep paths against rust on the same grids (the row's sweep_runs)."""
    w = res["workers"]
    t = [
        "| simulated time per run | runs per grid | rust runs/s | sweep runs/s | sweep+store runs/s | cli-sweep runs/s | "
        "overhead sweep | overhead sweep+store | overhead cli-sweep | per-run overhead µs sweep / sweep+store / cli-sweep |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in res["rows"]:
        wl, n = r["sweep_wall"], grid_runs(res, r, "sweep_wall")
        ov = {m: 100 * (wl[m] - wl["rust"]) / wl[m] for m in SWEEP_METHODS}
        per = {m: (wl[m] - wl["rust"]) * w / n * 1e6 for m in SWEEP_METHODS}
        t.append(
            f"| {r['duration']} | {n} | {n / wl['rust']:.0f} | {n / wl['sweep']:.0f} | {n / wl['sweep+store']:.0f} | "
            f"{n / wl['cli-sweep']:.0f} | {ov['sweep']:.1f} % | {ov['sweep+store']:.1f} % | {ov['cli-sweep']:.1f} % | "
            f"{per['sweep']:.0f} / {per['sweep+store']:.0f} / {per['cli-sweep']:.0f} |"
        )
    return t


def paired_overhead(r: dict, m: str) -> float | None:
    """Per cent of a sweep path's wall time beyond the runs themselves, against a bare sweep run just before
    it (see paired); None for rows measured before bench/sweep.py paired them."""
    return r.get("sweep_paired", {}).get("overhead", {}).get(m)


def paired_table(res: dict) -> list[str]:
    """The sweep paths against the bare sweep run just before each of them."""
    w = res["workers"]
    t = [
        "| simulated time per run | runs per grid | bare: core call s (best) | sweep: wall s (best) / overhead "
        "(median of pairs) | sweep+store: wall s / overhead | overhead of each pair, sweep; sweep+store | "
        "per-run overhead µs sweep / sweep+store |",
        "|---|---:|---:|---:|---:|---|---:|",
    ]
    for r in res["rows"]:
        p = r.get("sweep_paired")
        if not p:
            continue
        n, b = grid_runs(res, r, "sweep_wall"), p["best"]
        per = {m: paired_overhead(r, m) / 100 * b[m] * w / n * 1e6 for m in ("sweep", "sweep+store")}
        each = "; ".join(", ".join(f"{v:.1f}" for v in p["pairs"][m]) for m in ("sweep", "sweep+store"))
        t.append(
            f"| {r['duration']} | {n} | {b['bare']:.3f} | {b['sweep']:.3f} / {paired_overhead(r, 'sweep'):.1f} % | "
            f"{b['sweep+store']:.3f} / {paired_overhead(r, 'sweep+store'):.1f} % | {each} | "
            f"{per['sweep']:.0f} / {per['sweep+store']:.0f} |"
        )
    return t


def split_table(res: dict) -> list[str]:
    """Inside each API call: the simulation as the core timed it, the rest (Python, the PyO3 call, the
    JSON result and its tables) and the store. Independent of pool scheduling and of the machine's load
    between calls."""
    n = res["runs"]
    t = [
        "| simulated time per run | per call ms: simulation / Python+PyO3+result / store | "
        "Python+PyO3+result, % of a call without store | Python+PyO3+result+store, % of a call with store |",
        "|---|---:|---:|---:|",
    ]
    for r in res["rows"]:
        a, s = r["split_api"], r["split_store"]
        sim, rest = a["core"] / n * 1000, (a["call"] - a["core"]) / n * 1000
        st = s["store"] / n * 1000
        t.append(
            f"| {r['duration']} | {sim:.2f} / {rest:.2f} / {st:.1f} | {100 * (a['call'] - a['core']) / a['call']:.1f} % | "
            f"{100 * (s['call'] - s['core']) / s['call']:.1f} % |"
        )
    return t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=40, help="grid size of the per-run paths (api, api+store, cli)")
    ap.add_argument("--sweep-runs", type=int, default=400, help="grid size of the sweep paths")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--durations", default=",".join(DURATIONS), help="comma-separated simulated durations")
    ap.add_argument("--repeat", type=int, default=3, help="best of this many for each grid")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "img" / "sweep_throughput.png")
    args = ap.parse_args()
    res = measure(args.runs, args.workers, args.out, sweep_runs=args.sweep_runs,
                  durations=args.durations.split(","), repeat=args.repeat)
    print("\n".join(table(res)))
    print("\n".join(sweep_table(res)))
    print("\n".join(paired_table(res)))
    print("\n".join(split_table(res)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
