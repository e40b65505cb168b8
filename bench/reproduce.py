#!/usr/bin/env python3
"""What `dupack reproduce` costs end to end, and where its time goes.

    python bench/reproduce.py                 # eplr (README's first command) and all five papers, quick mode
    python bench/reproduce.py --write-doc     # also put the tables into docs/performance.md
    python bench/reproduce.py --full          # also each paper's --full reproduction, timed once (minutes)

Whole process: ``dupack reproduce NAME -q -o DIR`` into a new DIR each time
(nothing reused), after one warm-up run, REPS times: wall time, CPU time
(user + system: the sweeps run on two threads) and peak RSS, as bench/cli.py
times `dupack run`.

Where the time goes: one more run of the same reproduction inside a Python
process of the same interpreter, which times, by wrapping them, the import
of the libraries the reproduction tabulates and draws with (pandas and
matplotlib, imported first, as the command imports them), the simulations
(the core's sweep calls, wall time), the figures
(``dupack.reproduce.figures.draw``: matplotlib, a PNG and an SVG each; as
long as the reproduction waits for them, since they are drawn on a thread of
their own while the later experiments run, and in all) and the
rest of ``dupack.reproduce.reproduce`` (the runs read back from the store,
the statistics, the claims, the tables and the HTML report). What the whole
command takes beyond that run is the interpreter's start-up and dupack's
command-line layer.

With ``--full``, each paper's ``dupack reproduce NAME --full -q -o DIR``
(the paper's replications, what a reader who checks the published numbers
runs) is timed once as well, with the runs it simulated and their events
counted from DIR's stored runs: the CPU time per run and per event says how
much of it is the simulator.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.cli import child_env, dupack_command, interpreter, once, summary  # noqa: E402
from bench.measure import machine, write_doc_block  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "performance.md"
SECTION = "## dupack reproduce end to end"
BEGIN, END = "<!-- bench/reproduce.py: begin -->", "<!-- bench/reproduce.py: end -->"
#: The parts of one run, in the order the table lists them.
PARTS = ["libraries", "simulations", "figures", "rest"]

# Run by the interpreter of the `dupack` command: argv[1] the paper ("all" for
# every one), argv[2] the output directory. Prints the parts' seconds as JSON.
SPLIT = r"""
import json, sys, time
t0 = time.perf_counter()
import pandas, matplotlib.figure, matplotlib.backends.backend_agg, matplotlib.backends.backend_svg  # noqa
libraries = time.perf_counter() - t0
import threading
from dupack import sweeps
import dupack.reproduce as rep
from dupack.reproduce import figures, list_papers, reproduce
# simulations, figures: the reproduction's own thread, in the core's sweep
# calls and drawing figures or waiting for the figure thread; drawing: every
# figure drawn, on whichever thread.
spent = {"simulations": 0.0, "figures": 0.0, "drawing": 0.0}
main = threading.main_thread()
def timed(fn, key, also=None):
    def inner(*a, **k):
        t = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            dt = time.perf_counter() - t
            if threading.current_thread() is main:
                spent[key] += dt
            if also:
                spent[also] += dt
    return inner
sweeps._core.sweep = timed(sweeps._core.sweep, "simulations")
figures.draw = timed(figures.draw, "figures", also="drawing")
rep._EarlyFigures.finish = timed(rep._EarlyFigures.finish, "figures")
name, out = sys.argv[1], sys.argv[2]
t = time.perf_counter()
for n in (list_papers() if name == "all" else [name]):
    reproduce(n, f"{out}/{n}")
total = time.perf_counter() - t
mine = spent["simulations"] + spent["figures"]
print(json.dumps({"libraries": libraries, **spent, "rest": total - mine}))
"""


def whole(dupack: list[str], name: str, reps: int, env: dict[str, str], tmp: Path) -> dict:
    """``reps`` timed runs of the command (after a warm-up run), each into a new directory."""
    samples = []
    for i in range(reps + 1):
        out = tmp / f"whole-{name}-{i}"
        sample = once([*dupack, "reproduce", name, "-q", "-o", str(out)], env)
        shutil.rmtree(out, ignore_errors=True)
        if i:
            samples.append(sample)
    return summary(samples)


def full(dupack: list[str], name: str, env: dict[str, str], tmp: Path) -> dict:
    """One timed run of ``reproduce NAME --full``, with the runs and events it stored."""
    out = tmp / f"full-{name}"
    wall, cpu, rss = once([*dupack, "reproduce", name, "--full", "-q", "-o", str(out)], env)
    runs, events = stored_runs(out)
    shutil.rmtree(out, ignore_errors=True)
    return {"name": name, "wall": wall, "cpu": cpu, "rss_kib": rss, "runs": runs, "events": events}


def stored_runs(out: Path) -> tuple[int, int]:
    """(runs, events simulated) in the sweeps a reproduction stored under ``out/runs``: the rows of
    every sweep's ``runs`` table and the sum of their ``events``."""
    import pyarrow.parquet as pq

    runs = events = 0
    for part in sorted((out / "runs").glob("**/runs/part-*.parquet")):
        t = pq.read_table(part, columns=["events"])
        runs += t.num_rows
        events += sum(t.column("events").to_pylist())
    return runs, events


def split(python: str, name: str, env: dict[str, str], tmp: Path) -> dict[str, float]:
    """The parts of one run, in seconds (:data:`SPLIT`)."""
    out = tmp / f"split-{name}"
    p = subprocess.run([python, "-c", SPLIT, name, str(out)], env=env, cwd="/tmp", capture_output=True, text=True)
    shutil.rmtree(out, ignore_errors=True)
    if p.returncode != 0:
        raise RuntimeError(f"timing the parts of 'reproduce {name}' failed: {p.stderr.strip()}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def start_up(row: dict) -> float:
    """The command's median wall time beyond the parts of the run timed inside one process: the
    interpreter's start-up, dupack's command-line layer, and the spread between separate runs (so never
    below zero)."""
    return max(0.0, row["whole"]["wall_med"] - sum(row["parts"][p] for p in PARTS))


def lines(res: dict) -> list[str]:
    m = res["machine"]
    names = [r["name"] for r in res["rows"]]
    out = [
        f"- {res['date']}; dupack commit {res['commit']}; {m['cpu']}, `nproc` = {m['nproc']}, {m['mem']}; "
        f"{m['os']}; Python {m['python']}",
        f"- command timed: `{' '.join(res['dupack'])} reproduce NAME -q -o DIR` (quick mode), into a new DIR each "
        f"time: {res['rows'][0]['whole']['reps']} timed runs after a warm-up run",
        "",
        "| command | wall s min / median | CPU s min / median | peak RSS MiB |",
        "|---|---:|---:|---:|",
    ]
    for r in res["rows"]:
        w = r["whole"]
        rss = "—" if w["rss_kib"] is None else f"{w['rss_kib'] / 1024:.0f}"
        out.append(f"| `dupack reproduce {r['name']}` | {w['wall_min']:.2f} / {w['wall_med']:.2f} | "
                   f"{w['cpu_min']:.2f} / {w['cpu_med']:.2f} | {rss} |")
    labels = {
        "start-up": "the command's median beyond the parts below: interpreter start-up, dupack's command line, "
                    "and the spread between this run and the timed ones",
        "libraries": "importing pandas and matplotlib",
        "simulations": "the simulations (the core's sweep calls, on 2 worker threads)",
        "figures": "the figures (matplotlib: a PNG and an SVG each), as long as the run waits for them",
        "rest": "the rest: runs read back, statistics, claims, tables, HTML report",
    }
    out += ["", "| part of one run (s) | " + " | ".join(f"`reproduce {n}`" for n in names) + " |",
            "|---|" + "---:|" * len(names)]
    for key in ["start-up", *PARTS]:
        vals = [start_up(r) if key == "start-up" else r["parts"][key] for r in res["rows"]]
        out.append(f"| {labels[key]} | " + " | ".join(f"{v:.2f}" for v in vals) + " |")
    out.append("| **total** (the command, median wall) | "
               + " | ".join(f"{r['whole']['wall_med']:.2f}" for r in res["rows"]) + " |")
    out.append("")
    for r in res["rows"]:
        sim = r["parts"]["simulations"]
        total = r["whole"]["wall_med"]
        out.append(f"- `reproduce {r['name']}`: the simulations are {100 * sim / total:.0f} % of the command's wall "
                   f"time, the figures {100 * r['parts']['figures'] / total:.0f} % and the libraries' import "
                   f"{100 * r['parts']['libraries'] / total:.0f} %.")
        drawing = r["parts"].get("drawing")
        if drawing is not None and drawing > r["parts"]["figures"]:
            out.append(f"  Drawing the figures took {drawing:.2f} s in all, {drawing - r['parts']['figures']:.2f} s of "
                       "it on a thread of their own while the reproduction went on (each figure is drawn as soon "
                       "as the experiments it plots have run, beside the later experiments' runs, the claims and "
                       "the tables" + ("; in this run the papers one after the other, where the command draws each "
                       "paper's on the writer thread beside the next paper's runs" if r["name"] == "all" else "")
                       + ").")
        parts = sum(r["parts"][p] for p in PARTS)
        if r["name"] == "all" and parts > total:
            out.append(
                f"- `reproduce all` takes {parts - total:.2f} s less than its parts add up to ({parts:.2f} s, timed one "
                "after the other in one process): the command writes each paper's tables, figures and report on a "
                "thread of its own while the next paper's runs simulate, the papers with the most figures first, "
                "so that what nothing overlaps, the last paper's drawing, is the shortest."
            )
    if res.get("full"):
        out += full_lines(res["full"])
    return out


def full_lines(rows: list[dict]) -> list[str]:
    """The table of the ``--full`` reproductions."""
    out = ["", "With the papers' replications (`dupack reproduce NAME --full -q -o DIR`, each timed once, the runs "
           "and their events counted from DIR's stored runs):", "",
           "| command | wall s | CPU s | peak RSS MiB | runs | events (M) | CPU ms per run | CPU ns per event |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        rss = "—" if r["rss_kib"] is None else f"{r['rss_kib'] / 1024:.0f}"
        per_run = f"{1e3 * r['cpu'] / r['runs']:.1f}" if r["runs"] else "—"
        per_event = f"{1e9 * r['cpu'] / r['events']:.0f}" if r["events"] else "—"
        out.append(f"| `dupack reproduce {r['name']} --full` | {r['wall']:.1f} | {r['cpu']:.1f} | {rss} | "
                   f"{r['runs']} | {r['events'] / 1e6:.1f} | {per_run} | {per_event} |")
    longest = max(rows, key=lambda r: r["wall"])
    out += ["", f"- The longest, `reproduce {longest['name']} --full`, takes {longest['wall'] / 60:.1f} min; its CPU "
            f"time is {longest['cpu'] / longest['wall']:.2f}× its wall time (the two cores busy throughout), and its "
            "CPU per event includes everything the command does besides simulating (start-up, tables, figures, "
            "report)."]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--papers", nargs="+", default=["eplr", "all"], help="what to reproduce (default: eplr all)")
    ap.add_argument("--reps", type=int, default=3, help="timed runs of each command (default 3)")
    ap.add_argument("--dupack", help="the dupack command to time (default: dupack beside this interpreter, or on PATH)")
    ap.add_argument("--full", action="store_true",
                    help="also time each paper's `reproduce NAME --full` once (about 8 minutes on two cores)")
    ap.add_argument("--json", type=Path, help="also write the measurements as JSON here")
    ap.add_argument("--write-doc", action="store_true", help=f"put the tables into {DOC.relative_to(ROOT)}")
    args = ap.parse_args()
    dupack = dupack_command(args.dupack)
    python = interpreter(dupack)
    env = child_env(checkout=False)
    rows = []
    with tempfile.TemporaryDirectory(prefix="dupack-bench-reproduce-") as tmp:
        for name in args.papers:
            print(f"[reproduce] {name} ...", file=sys.stderr, flush=True)
            rows.append({"name": name, "whole": whole(dupack, name, args.reps, env, Path(tmp)),
                         "parts": split(python, name, env, Path(tmp))})
        fulls = []
        if args.full:
            papers = subprocess.run([python, "-c", "from dupack.reproduce import list_papers; print(*list_papers())"],
                                    env=env, cwd="/tmp", capture_output=True, text=True, check=True).stdout.split()
            for name in papers:
                print(f"[reproduce] {name} --full ...", file=sys.stderr, flush=True)
                fulls.append(full(dupack, name, env, Path(tmp)))
    m = machine()
    res = {"machine": m, "commit": m["commit"] or "?", "date": m["date"], "dupack": dupack, "rows": rows,
           "full": fulls}
    block = lines(res)
    print("\n".join(block))
    if args.json:
        args.json.write_text(json.dumps(res, indent=1))
    if args.write_doc:
        write_doc_block(DOC, SECTION, BEGIN, END, block)
    return 0


if __name__ == "__main__":
    sys.exit(main())
