#!/usr/bin/env python3
"""Time the `dupack` command end to end against ns-2 on the same scenario.

    python bench/cli.py                      # N = 10 and 40, 200 s, p = 1 %; 9 repetitions each
    python bench/cli.py --reps 5 --n 10      # quicker
    python bench/cli.py --write-doc          # also put the table into docs/performance.md

What is timed is the whole process, as a user runs it: `dupack run FILE -q
-o DIR` (interpreter start-up, imports, reading the scenario, the
simulation, writing result.json, the Parquet and CSV tables and
scenario.json), `dupack --version` and `dupack validate FILE`, and ns-2
(`ns bench/ns2/tcp_bench.tcl ...`) on the same dumbbell: the scenario is
bench/scenarios/unfairness.toml with the same overrides bench/run.py uses,
and the ns-2 arguments are derived from that very document (bench/mirror.py's
`Case.ns2_cmd`), so both sides simulate the same network for the same time.

Each command is run `--reps` times after one untimed warm-up run (which
also leaves Python's bytecode caches behind, as an installed package has
them; PYTHONDONTWRITEBYTECODE is removed from the children's environment).
Wall time is taken around the process, CPU time (user + system) from
`resource.getrusage(RUSAGE_CHILDREN)` before and after it, peak RSS from
GNU time's `%M` (the process itself, not a forked copy of this
interpreter); without /usr/bin/time the RSS column is left empty. The
table gives the minimum and the median of wall and CPU time over the
repetitions and the largest peak RSS.

`--venv` also installs the package, built from this checkout, into a fresh
virtual environment (with its dependencies, as `pip install .` into a new
venv gives a user) and times `dupack run` and the interpreter there: a
venv's `site` reads only the venv's own site-packages, so the `.pth` files
of the interpreter's global site-packages (which may import modules at every
start-up) do not weigh on it.

`--dupack` names the command to time (default: the `dupack` script
beside this interpreter or on PATH, else
`python -m dupack`); a command ending in `-m dupack` imports dupack from
this checkout's python/ (PYTHONPATH), with the extension built there.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.measure import ensure_ns3, machine, write_doc_block  # noqa: E402
from bench.mirror import SCEN, Case, toml_literal  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

GNU_TIME = "/usr/bin/time"
SECTION = "## The dupack command end to end"
DOC = ROOT / "docs" / "performance.md"


def overrides(n: int, p: float, duration: str) -> dict:
    return {"topology.senders": n, "topology.access.fwd_error.p": p, "tcp.variant": "newreno", "run.duration": duration}


def child_env(checkout: bool) -> dict[str, str]:
    """The environment of the timed commands; ``checkout``: import dupack from this checkout's python/."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if checkout:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "python"), env.get("PYTHONPATH")) if p)
    return env


def dupack_command(given: str | None) -> list[str]:
    if given:
        return given.split()
    # The console script beside this interpreter, rather than a version manager's shim on PATH.
    beside = Path(sys.executable).parent / "dupack"
    exe = str(beside) if beside.exists() else shutil.which("dupack")
    return [exe] if exe else [sys.executable, "-m", "dupack"]


def once(cmd: list[str], env: dict[str, str]) -> tuple[float, float, int | None]:
    """(wall s, CPU s, peak RSS KiB or None) of one run of ``cmd``."""
    with tempfile.NamedTemporaryFile() as rssf:
        full = [GNU_TIME, "-f", "%M", "-o", rssf.name, *cmd] if os.path.exists(GNU_TIME) else cmd
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        p = subprocess.run(full, env=env, cwd="/tmp", stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.decode(errors='replace').strip()}")
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        rss = int(Path(rssf.name).read_text().split()[-1]) if full is not cmd else None
        return wall, cpu, rss


def measure(label: str, cmd: list[str], reps: int, env: dict[str, str]) -> dict:
    """``cmd`` run ``reps`` times after one warm-up run: its row of the table."""
    return measure_interleaved({label: cmd}, reps, env)[0]


def measure_interleaved(cmds: dict[str, list[str]], reps: int, env: dict[str, str]) -> list[dict]:
    """:func:`measure` for several commands at once, for those whose
    difference is a millisecond or two: after a warm-up run of each (page
    cache, bytecode caches), one run of each in turn, ``reps`` times, every
    other round in the reverse order, so that the machine's drift over the
    measurement falls on all of them alike."""
    for cmd in cmds.values():
        once(cmd, env)
    runs: dict[str, list] = {label: [] for label in cmds}
    order = list(cmds)
    for i in range(reps):
        for label in order if i % 2 == 0 else reversed(order):
            runs[label].append(once(cmds[label], env))
    rows = []
    for label, rr in runs.items():
        # The wall times in round order too: two commands timed in turn are
        # compared round by round (:func:`paired_difference`).
        row = {"label": label, "cmd": cmds[label], **summary(rr), "walls": [w for w, _, _ in rr]}
        peak = "—" if row["rss_kib"] is None else f"{row['rss_kib'] / 1024:.1f} MiB"
        print(f"{label}: wall {ms(row['wall_min'])} / {ms(row['wall_med'])} ms, "
              f"CPU {ms(row['cpu_min'])} / {ms(row['cpu_med'])} ms, peak RSS {peak}", file=sys.stderr, flush=True)
        rows.append(row)
    return rows


def summary(samples: list[tuple[float, float, int | None]]) -> dict:
    """Timed runs (:func:`once`'s results) as a table's row: their number,
    the best and the median wall and CPU times, and the highest peak RSS."""
    walls, cpus = [s[0] for s in samples], [s[1] for s in samples]
    rss = [s[2] for s in samples if s[2] is not None]
    return {"reps": len(samples), "wall_min": min(walls), "wall_med": statistics.median(walls), "cpu_min": min(cpus),
            "cpu_med": statistics.median(cpus), "rss_kib": max(rss) if rss else None}


def interpreter(dupack: list[str]) -> str:
    """The Python that runs ``dupack``: the console script's shebang, or the
    interpreter of ``python -m dupack``."""
    if dupack[-2:] == ["-m", "dupack"]:
        return dupack[0]
    try:
        with open(dupack[0], "rb") as f:
            first = f.readline().decode(errors="replace").strip()
    except OSError:
        return sys.executable
    return first[2:].split()[0] if first.startswith("#!") and "python" in first else sys.executable


def import_ms(cmd: list[str], env: dict[str, str], reps: int) -> float:
    """Median over ``reps`` runs of the milliseconds ``cmd`` spends importing
    modules after the interpreter's own start-up (its ``site`` import):
    the sum of the top-level entries Python's import-time report
    (PYTHONPROFILEIMPORTTIME) lists after ``site``. The report's own
    bookkeeping makes it a slight overestimate."""
    totals = []
    for _ in range(reps):
        p = subprocess.run(cmd, env={**env, "PYTHONPROFILEIMPORTTIME": "1"}, cwd="/tmp", stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, check=True)
        totals.append(imports_after_site(p.stderr))
    return statistics.median(totals)


def imports_after_site(report: str) -> float:
    """Milliseconds of the top-level imports an import-time report lists
    after ``site`` (each with its own imports: the cumulative column)."""
    after_site, total = False, 0
    for line in report.splitlines():
        m = re.match(r"import time:\s+\d+ \|\s+(\d+) \| (\s*)(\S+)", line)
        if not m:
            continue
        cumulative, indent, name = int(m.group(1)), m.group(2), m.group(3)
        if not indent and after_site:
            total += cumulative
        if not indent and name == "site":
            after_site = True
    return total / 1e3


PHASES = """\
import json, sys, time
from pathlib import Path
import dupack
out = Path(sys.argv[1])
result = dupack.run(sys.argv[2], overrides=sys.argv[3:])
saves = []
for i in range(5):
    t0 = time.perf_counter()
    result.save(out / str(i))
    saves.append(time.perf_counter() - t0)
print(json.dumps({"sim_s": result.run["wall_time_s"], "save_s": sorted(saves)[len(saves) // 2]}))
"""


def phases(python: str, scenario: Path, sets: list[str], tmp: Path, env: dict[str, str]) -> dict:
    """The simulation alone (the core's own ``run.wall_time_s``) and
    ``RunResult.save`` (the six files ``dupack run -o`` writes; median of 5),
    timed inside one process."""
    over = [a for a in sets if a != "-s"]
    p = subprocess.run([python, "-c", PHASES, str(tmp), str(scenario), *over], env=env, cwd="/tmp",
                       capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


def breakdown(rows: list[dict], parts: dict[int, dict], ns: list[int]) -> list[str]:
    """Where the milliseconds of ``dupack run`` go, per N (medians)."""
    by = {r["label"]: r for r in rows}
    start, bare = by.get("interpreter start-up"), by.get("interpreter start-up without site")
    cols = [n for n in ns if n in parts and f"dupack run, N = {n}" in by]
    if not cols or start is None:
        return []
    t = [
        "| part of `dupack run` (median ms) | " + " | ".join(f"N = {n}" for n in cols) + " |",
        "|---|" + "---:|" * len(cols),
    ]

    def row(label: str, values: list[float]) -> None:
        t.append(f"| {label} | " + " | ".join(f"{v:.1f}" for v in values) + " |")

    total = [1e3 * by[f"dupack run, N = {n}"]["wall_med"] for n in cols]
    interp = 1e3 * start["wall_med"]
    imports = [parts[n]["imports_ms"] for n in cols]
    sim = [1e3 * parts[n]["sim_s"] for n in cols]
    save = [1e3 * parts[n]["save_s"] for n in cols]
    row("interpreter start-up and exit (`python -c pass`)", [interp] * len(cols))
    if bare is not None:
        row("… of which `site` (`python -c pass` − `python -S -c pass`)", [interp - 1e3 * bare["wall_med"]] * len(cols))
    row("importing dupack's run path (import-time report)", imports)
    row("simulation (the core's `run.wall_time_s`)", sim)
    row("writing the six files (`RunResult.save`, in-process)", save)
    row("the rest: reading and checking the scenario, building the result (less the exit `dupack` skips)", [
        tot - interp - imp - s - w for tot, imp, s, w in zip(total, imports, sim, save, strict=True)])
    row("**total** (`dupack run`, wall)", total)
    ns2 = [1e3 * by[f"ns-2, N = {n}"]["wall_med"] if f"ns-2, N = {n}" in by else float("nan") for n in cols]
    if all(v == v for v in ns2):
        row("ns-2 (wall)", ns2)
        row("budget for 3× ns-2 (ns-2 ÷ 3)", [v / 3 for v in ns2])
        t += ["", *verdict(interp, by, cols, ns2, sim, parts)]
    return t


def judge(d: dict, r: dict) -> tuple[float, float, bool, bool]:
    """`dupack run` (``d``) against ns-2 (``r``), medians: (wall ratio, CPU
    ratio, peak RSS below ns-2's, the target met: ≥ 3× on both and below)."""
    wall, cpu = r["wall_med"] / d["wall_med"], r["cpu_med"] / d["cpu_med"]
    rss = d["rss_kib"] is not None and r["rss_kib"] is not None and d["rss_kib"] < r["rss_kib"]
    return wall, cpu, rss, wall >= 3 and cpu >= 3 and rss


#: `dupack sweep …` with os.fsync a no-op: the sweep's store syncs every part
#: to disk before publishing it (docs/reliability.md), `dupack run` does not.
NO_SYNC = ("import os, sys\nos.fsync = lambda fd: None\nsys.argv = ['dupack', *sys.argv[1:]]\n"
           "from dupack.cli.app import main\nsys.exit(main())")
NO_SYNC_LABEL = "dupack sweep, 1 job, its store's syncs skipped"
#: `dupack run` timed in turn with the one-job sweeps.
BESIDE_LABEL = "dupack run, timed in turn with the sweeps"


def paired_difference(a: dict, b: dict) -> tuple[float, float, float] | None:
    """How much longer ``a`` takes than ``b``, two rows of
    :func:`measure_interleaved` timed in turn: the median, the first and the
    third quartile of the round-by-round differences of their wall times
    (s). Each difference is taken between runs a fraction of a second apart,
    so a machine whose speed drifts over the measurement moves both sides
    of it alike, as it does not move two medians over all the rounds. None
    if either row lacks its times in round order."""
    wa, wb = a.get("walls"), b.get("walls")
    if not wa or not wb or len(wa) != len(wb):
        return None
    d = sorted(x - y for x, y in zip(wa, wb, strict=True))
    q = statistics.quantiles(d, n=4, method="inclusive") if len(d) > 1 else [d[0]] * 3
    return statistics.median(d), q[0], q[2]


def verdict(interp: float, by: dict[str, dict], cols: list[int], ns2: list[float], sim: list[float],
            parts: dict[int, dict]) -> list[str]:
    """The target (``dupack run`` ≥ 3× faster than ns-2, wall and CPU,
    peak RSS below ns-2's) judged per N, and what stands in the way."""
    out = []
    for n, s, sim_ms in zip(cols, ns2, sim, strict=True):
        wall, cpu, rss, met = judge(by[f"dupack run, N = {n}"], by[f"ns-2, N = {n}"])
        floor = interp + sim_ms
        why = ""
        if not met and floor > s / 3:
            why = (f"; the interpreter's start-up and the simulation alone take {floor:.1f} ms, more than the "
                   f"{s / 3:.1f} ms budget")
        out.append(f"- N = {n}: {wall:.2f}× on wall time, {cpu:.2f}× on CPU time, peak RSS "
                   f"{'below' if rss else 'not below'} ns-2's: **{'met' if met else 'not met'}**{why}.")
    n = cols[0]
    one = by.get(f"dupack sweep, 1 job, N = {n}")
    if one is not None:
        beside = by.get(f"{BESIDE_LABEL}, N = {n}")
        run = beside or by[f"dupack run, N = {n}"]
        paired = paired_difference(one, run) if beside else None
        # Timed in turn, the round-by-round difference decides; else the medians.
        ok = paired[0] <= 0 if paired else one["wall_med"] <= run["wall_med"]
        how = f" (medians of {one['reps']} runs each, the commands timed in turn)" if beside else ""
        if paired:
            how += (f"; round by round it takes {1e3 * paired[0]:+.1f} ms more (median of the {one['reps']} "
                    f"differences; the middle half from {1e3 * paired[1]:+.1f} to {1e3 * paired[2]:+.1f} ms)")
        out.append(
            f"- A sweep of one job (`dupack sweep … --seeds 1 -q -o DIR`, N = {n}) takes {1e3 * one['wall_med']:.1f} ms "
            f"against `dupack run`'s {1e3 * run['wall_med']:.1f} ms{how}: **{'met' if ok else 'not met'}** "
            "(no slower than `dupack run`)."
            + ("" if ok or "imports_ms" not in one else
               f" Its imports take {one['imports_ms']:.0f} ms (import-time report), `dupack run`'s "
               f"{parts[n]['imports_ms']:.0f}.")
        )
        bare = by.get(f"{NO_SYNC_LABEL}, N = {n}")
        if bare is not None:
            synced = paired_difference(one, bare)
            unsynced = paired_difference(bare, run) if beside else None
            # Round by round where the three were timed in turn, else from the medians.
            syncs = 1e3 * (synced[0] if synced else one["wall_med"] - bare["wall_med"])
            without = 1e3 * (unsynced[0] if unsynced else bare["wall_med"] - run["wall_med"])
            rounds = " (medians of the round-by-round differences)" if synced and unsynced else ""
            out.append(
                f"- The same sweep with its store's `fsync` calls made no-ops (for this measurement only) takes "
                f"{1e3 * bare['wall_med']:.1f} ms: the syncs cost it {syncs:.1f} ms, "
                f"and it is {without:+.1f} ms from `dupack run` without them{rounds}. "
                "The sweep's store syncs every part before publishing it, so that a crash of the machine leaves each "
                "part whole or absent (docs/reliability.md); `dupack run` writes its files without syncing them."
            )
    bare = by.get("interpreter start-up without site")
    if bare is not None:
        out.append(
            f"- Of the interpreter's {interp:.1f} ms, {interp - 1e3 * bare['wall_med']:.1f} ms are its `site` import "
            "(`python -S -c pass` takes "
            f"{1e3 * bare['wall_med']:.1f} ms), most of it what the site-packages' `.pth` files of this Python import at every "
            "start-up (`python -X importtime -c pass` lists them). A console script cannot start Python without "
            "`site`, which is also where it finds dupack."
        )
        start = by.get("interpreter start-up")
        if start is not None and start["rss_kib"] and bare["rss_kib"]:
            adds = ", ".join(f"{(by[f'dupack run, N = {n}']['rss_kib'] - start['rss_kib']) / 1024:.1f} MiB at N = {n}"
                             for n in cols if by[f"dupack run, N = {n}"]["rss_kib"])
            out.append(
                f"- Peak RSS: the interpreter alone holds {start['rss_kib'] / 1024:.1f} MiB "
                f"({bare['rss_kib'] / 1024:.1f} MiB without `site`); `dupack run` adds {adds} "
                "(dupack's modules, the extension's code as it is first run, the network and the result)."
            )
    return out


def ms(x: float) -> str:
    return f"{1e3 * x:.1f}"


def table(rows: list[dict]) -> list[str]:
    t = [
        "| command | wall ms min / median | CPU ms min / median | peak RSS MiB |",
        "|---|---:|---:|---:|",
    ]
    for r in rows:
        rss = "—" if r["rss_kib"] is None else f"{r['rss_kib'] / 1024:.1f}"
        t.append(f"| {r['label']} | {ms(r['wall_min'])} / {ms(r['wall_med'])} | {ms(r['cpu_min'])} / {ms(r['cpu_med'])} | {rss} |")
    return t


def ratios(rows: list[dict], ns: list[int], where: str = "") -> list[str]:
    """ns-2 (and ns-3, where timed) against `dupack run` per N; ``where``: the suffix of the dupack rows'
    labels (a venv's)."""
    by = {r["label"]: r for r in rows}
    with3 = any(f"ns-3, N = {n}" in by for n in ns)
    t = [
        f"| N | ns-2 / dupack{where} wall (min; median) | ns-2 / dupack CPU (min; median) | "
        + (f"ns-3 / dupack{where} wall (min; median) | ns-3 / dupack CPU (min; median) | " if with3 else "")
        + "peak RSS MiB dupack / ns-2" + (" / ns-3" if with3 else "") + " |",
        "|---:|---:|---:|" + ("---:|---:|" if with3 else "") + "---:|",
    ]

    def pair(o: dict | None, d: dict) -> str:
        if o is None:
            return "— | — | "
        return (f"{o['wall_min'] / d['wall_min']:.2f}×; {o['wall_med'] / d['wall_med']:.2f}× "
                f"| {o['cpu_min'] / d['cpu_min']:.2f}×; {o['cpu_med'] / d['cpu_med']:.2f}× | ")

    def mib(r: dict | None) -> str:
        return "—" if r is None or r["rss_kib"] is None else f"{r['rss_kib'] / 1024:.1f}"

    for n in ns:
        d, s, s3 = by.get(f"dupack run, N = {n}{where}"), ns2_row(by, n, where), by.get(f"ns-3, N = {n}")
        if not d or not (s or s3):
            continue
        rss = " / ".join([mib(d), mib(s)] + ([mib(s3)] if with3 else []))
        t.append(f"| {n} | " + pair(s, d) + (pair(s3, d) if with3 else "") + f"{rss} |")
    return t


VENV = " (fresh venv)"
#: ns-2 timed again, in turn with the fresh venv's `dupack run`.
NS2_BESIDE_VENV = ", timed in turn with the fresh venv's run"
QUICK_MS = 60  # ms: the bar for `dupack --version` and `dupack validate`


def ns2_row(by: dict[str, dict], n: int, where: str = "") -> dict | None:
    """The ns-2 row to set beside the `dupack run` rows of ``where``: for
    the fresh venv's, ns-2 timed in turn with them where it was (the
    machine's speed drifts between the start of the benchmark, where ns-2
    is first timed, and its end, where the venv is made), else ns-2's
    first row."""
    beside = by.get(f"ns-2, N = {n}{NS2_BESIDE_VENV}") if where == VENV else None
    return beside or by.get(f"ns-2, N = {n}")


def venv_dupack(tmp: Path) -> tuple[list[str], str]:
    """The `dupack` console script and the interpreter of a new virtual
    environment into which this checkout's package was installed, with its
    dependencies, as a user's `pip install .` into a fresh venv."""
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    wheels = tmp / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)], check=True)
    wheel = next(wheels.glob("dupack-*.whl"))
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel)], check=True)
    return [str(venv / "bin" / "dupack")], str(python)


def venv_verdict(rows: list[dict], ns: list[int], parts: dict[int, dict] | None = None) -> list[str]:
    """The target judged on the fresh venv's `dupack run`; ``parts``: the
    breakdown's measurements (import times, here and in the venv)."""
    by = {r["label"]: r for r in rows}
    out = []
    for n in ns:
        d, r = by.get(f"dupack run, N = {n}{VENV}"), ns2_row(by, n, VENV)
        if not d or not r:
            continue
        wall, cpu, rss, met = judge(d, r)
        turn = " (ns-2 timed in turn with it)" if r["label"].endswith(NS2_BESIDE_VENV) else ""
        out.append(f"- In a fresh venv, N = {n}: {wall:.2f}× on wall time, {cpu:.2f}× on CPU time{turn}, peak RSS "
                   f"{'below' if rss else 'not below'} ns-2's: **{'met' if met else 'not met'}**.")
    quick = [(c, by.get(f"dupack {c}{VENV}")) for c in ("--version", "validate")]
    if all(r for _, r in quick):
        # The bar for the commands that simulate nothing: 60 ms.
        out.append("- In a fresh venv, " + " and ".join(f"`dupack {c}` takes {ms(r['wall_med'])} ms (median wall)"
                                                       for c, r in quick)
                   + f": **{'met' if all(r['wall_med'] < QUICK_MS / 1000 for _, r in quick) else 'not met'}** "
                   f"(under {QUICK_MS} ms).")
    start, here = by.get(f"interpreter start-up{VENV}"), by.get("interpreter start-up")
    if start and here:
        out.append(f"- The venv's interpreter starts in {ms(start['wall_med'])} ms against {ms(here['wall_med'])} ms for "
                   "the same Python outside it: the difference is what the global site-packages' `.pth` files import.")
    n = ns[0]
    if parts and "venv_imports_ms" in parts.get(n, {}):
        venv_ms, here_ms = parts[n]["venv_imports_ms"], parts[n]["imports_ms"]
        # Outside the venv the `.pth` files may have imported some of the same standard modules already.
        why = (", where the `.pth` files have imported part of the standard library already; the standard "
               "library's modules count in the venv's figure" if venv_ms > here_ms + 0.2 else "")
        out.append(
            f"- In the fresh venv, importing dupack's run path takes {venv_ms:.1f} ms (import-time "
            f"report, N = {n}) against {here_ms:.1f} ms outside it{why}. The run path imports neither `json` nor `re`, "
            "`collections` nor `functools`: the extension reads and writes JSON (`_core.json_loads`, "
            "`_core.json_dumps`), a mapping is recognised with `_collections_abc` (loaded with the interpreter), and "
            "the `dupack` script is the package's own, not pip's generated launcher, which imports `re`."
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, nargs="+", default=[10, 40], help="numbers of flows (default 10 40)")
    ap.add_argument("--p", type=float, default=0.01, help="loss probability of the access links (default 0.01)")
    ap.add_argument("--duration", default="200s", help="simulated time (default 200s)")
    ap.add_argument("--reps", type=int, default=9, help="timed repetitions of each command (default 9)")
    ap.add_argument("--dupack", help="the dupack command to time, e.g. 'python -m dupack' (default: dupack on PATH)")
    ap.add_argument("--no-ns2", action="store_true", help="leave ns-2 out")
    ap.add_argument("--no-ns3", action="store_true", help="leave ns-3 out")
    ap.add_argument("--venv", action="store_true",
                    help="also time dupack run installed in a fresh virtual environment (builds a wheel; a minute or two)")
    ap.add_argument("--json", type=Path, help="also write the measurements as JSON here")
    ap.add_argument("--write-doc", action="store_true", help=f"put the tables into {DOC.relative_to(ROOT)} ('{SECTION[3:]}')")
    args = ap.parse_args()

    dupack = dupack_command(args.dupack)
    # `python -m dupack` means this checkout (with its extension built into python/dupack/).
    env = child_env(checkout=dupack[-2:] == ["-m", "dupack"])
    scenario = SCEN / "unfairness.toml"
    use_ns2 = not args.no_ns2 and shutil.which("ns") is not None
    # ns-3's program as bench/run.py builds it (cached), if the ns3 wheel is installed.
    ns3_exe = None if args.no_ns3 else ensure_ns3(False, sys.stderr)
    rows = []
    with tempfile.TemporaryDirectory(prefix="dupack-bench-cli-") as tmp:
        for n in args.n:
            ov = overrides(n, args.p, args.duration)
            sets = [a for k, v in ov.items() for a in ("-s", f"{k}={toml_literal(v)}")]
            cmd = [*dupack, "run", str(scenario), *sets, "-q", "-o", str(Path(tmp) / f"n{n}")]
            rows.append(measure(f"dupack run, N = {n}", cmd, args.reps, env))
            case = Case("cli", f"N={n}", "unfairness.toml", ov)
            if use_ns2:
                rows.append(measure(f"ns-2, N = {n}", case.ns2_cmd(), args.reps, env))
            if ns3_exe is not None:
                # A second or two a run: a third as many repetitions.
                rows.append(measure(f"ns-3, N = {n}", case.ns3_cmd(ns3_exe), max(3, args.reps // 3), env))
        python = interpreter(dupack)
        rows.append(measure("interpreter start-up", [python, "-c", "pass"], args.reps, env))
        rows.append(measure("interpreter start-up without site", [python, "-S", "-c", "pass"], args.reps, env))
        parts = {}
        for n in args.n:
            ov = overrides(n, args.p, args.duration)
            sets = [a for k, v in ov.items() for a in ("-s", f"{k}={toml_literal(v)}")]
            cmd = [*dupack, "run", str(scenario), *sets, "-q", "-o", str(Path(tmp) / f"imp{n}")]
            parts[n] = {"imports_ms": import_ms(cmd, env, args.reps),
                        **phases(python, scenario, sets, Path(tmp) / f"phases{n}", env)}
        rows.append(measure("dupack --version", [*dupack, "--version"], args.reps, env))
        rows.append(measure("dupack validate", [*dupack, "validate", str(scenario)], args.reps, env))
        # The same run as a sweep of one job (--no-resume: every repetition
        # runs it, rather than finding it stored).
        n = args.n[0]
        ov = overrides(n, args.p, args.duration)
        sets = [a for k, v in ov.items() for a in ("-s", f"{k}={toml_literal(v)}")]
        cmd = [*dupack, "sweep", str(scenario), *sets, "--seeds", "1", "-j", "1", "--no-resume", "-q", "-o", str(Path(tmp) / "sweep1")]
        # The same command with the store's syncs made no-ops (for this
        # measurement only): what the crash-safe store costs it. The three
        # differ by a millisecond or two: timed in turn, three times as often.
        no_sync = [python, "-c", NO_SYNC, *cmd[len(dupack):-1], str(Path(tmp) / "sweep1-nosync")]
        run = [*dupack, "run", str(scenario), *sets, "-q", "-o", str(Path(tmp) / "run-beside")]
        rows += measure_interleaved({f"dupack sweep, 1 job, N = {n}": cmd, f"{NO_SYNC_LABEL}, N = {n}": no_sync,
                                     f"{BESIDE_LABEL}, N = {n}": run}, 3 * args.reps, env)
        next(r for r in rows if r["label"] == f"dupack sweep, 1 job, N = {n}")["imports_ms"] = import_ms(cmd, env, args.reps)
        written = sorted(p.name for p in (Path(tmp) / f"n{args.n[0]}").iterdir())
        if args.venv:
            venv_cmd, venv_python = venv_dupack(Path(tmp))
            venv_env = child_env(checkout=False)
            for n in args.n:
                ov = overrides(n, args.p, args.duration)
                sets = [a for k, v in ov.items() for a in ("-s", f"{k}={toml_literal(v)}")]
                cmd = [*venv_cmd, "run", str(scenario), *sets, "-q", "-o", str(Path(tmp) / f"venv{n}")]
                if use_ns2:
                    # Timed in turn with ns-2, which judges it (ns2_row).
                    beside = {f"ns-2, N = {n}{NS2_BESIDE_VENV}": Case("cli", f"N={n}", "unfairness.toml", ov).ns2_cmd()}
                    rows += measure_interleaved({f"dupack run, N = {n}{VENV}": cmd, **beside}, args.reps, venv_env)
                else:
                    rows.append(measure(f"dupack run, N = {n}{VENV}", cmd, args.reps, venv_env))
                imports = [*cmd[:-1], str(Path(tmp) / f"venv-imp{n}")]
                parts[n]["venv_imports_ms"] = import_ms(imports, venv_env, args.reps)
            rows.append(measure(f"interpreter start-up{VENV}", [venv_python, "-c", "pass"], args.reps, venv_env))
            rows.append(measure(f"dupack --version{VENV}", [*venv_cmd, "--version"], args.reps, venv_env))
            rows.append(measure(f"dupack validate{VENV}", [*venv_cmd, "validate", str(scenario)], args.reps, venv_env))

    m = machine()
    lines = [
        f"- {m['date']}; dupack commit {m['commit']}; {m['cpu']}, `nproc` = {m['nproc']}, {m['mem']}; {m['os']}; "
        f"Python {m['python']}; {m['ns2']}"
        + (f"; {m['ns3']} (bench/ns3/tcp_bench.cc, fewer repetitions: a run takes a second or more)"
           if any(r["label"].startswith("ns-3") for r in rows) else "")
        + f"; 1-minute load average at the start {m['load']}",
        f"- dupack command timed: `{' '.join(Path(dupack[0]).name if i == 0 else a for i, a in enumerate(dupack))}`; "
        f"the scenario: bench/scenarios/unfairness.toml with "
        + ", ".join(f"`{k}={v}`" for k, v in overrides("N", args.p, args.duration).items())
        + f"; `-q -o DIR` (files written: {', '.join(written)}); {args.reps} timed runs of each command after one warm-up run",
        "",
        *table(rows),
        "",
        *ratios(rows, args.n),
        "",
        *breakdown(rows, parts, args.n),
    ]
    if args.venv:
        lines += ["", *ratios(rows, args.n, VENV), "", *venv_verdict(rows, args.n, parts)]
    print("\n".join(lines))
    if args.json:
        args.json.write_text(json.dumps({"machine": m, "rows": rows, "parts": parts}, indent=1))
    if args.write_doc:
        write_doc(lines)


def write_doc(lines: list[str]) -> None:
    """Replace the measured part of the section (between its marker comments) in docs/performance.md."""
    write_doc_block(DOC, SECTION, "<!-- bench/cli.py: begin -->", "<!-- bench/cli.py: end -->", lines)


if __name__ == "__main__":
    main()
