"""Running and timing the simulators: dupack's `bench_scenario`, ns-2 and ns-3.

Building dupack's example and finding ns-2 and ns-3 (`build`, `ensure_ns2`, `ensure_ns3`), the wall time,
CPU time and peak RSS of one process (`timed`, `best_of`), the counters each tool prints read into the same
summary (`dupack_metrics`, `ns2_metrics`, `ns3_metrics`), and the description of the machine and the
versions (`machine`). Standard library only.
"""
from __future__ import annotations

import datetime as dt
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

from bench import ns3build

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "packaging"))
import pgo  # noqa: E402 - packaging/pgo.py: whether builds use the profile-guided build's profile
from bench.mirror import HEADER_BYTES, NS3_SOURCE, ROOT, Case, jain

T = TypeVar("T")
R = TypeVar("R")

# --------------------------------------------------------------------------
# Timing a process


GNU_TIME = "/usr/bin/time"


def parallel_map(fn: Callable[[T], R], items: Iterable[T], threads: int, name: str = "bench-run") -> list[R]:
    """[fn(x) for x in items], up to `threads` at a time on threads named `name`, in the items' order; the
    first exception (in that order) is raised. For runs that are not timed: each is a process of its own
    (or a dupack call, which releases the GIL)."""
    items = list(items)
    if threads <= 1 or len(items) <= 1:
        return [fn(x) for x in items]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(threads, len(items)), thread_name_prefix=name) as pool:
        return list(pool.map(fn, items))


def timed(cmd: list[str], timeout: float | None = None) -> tuple[float, int, str, float]:
    """Wall seconds, peak RSS in KiB, stdout and CPU seconds (user + system) of one run.

    CPU time is reported beside wall time because on a shared, oversubscribed
    machine a short run waits for a core: its wall time then measures the
    machine's load as much as the simulator.

    Peak RSS comes from GNU time (`%M`) when it is installed: on Linux the
    `ru_maxrss` that wait4 reports for a child forked from this Python
    process includes the forked copy of the interpreter (about 16 MiB)
    from before exec, which would hide a small simulator's footprint.
    Without /usr/bin/time we fall back to wait4 and the report says so."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, tempfile.NamedTemporaryFile() as rssf:
        full = [GNU_TIME, "-f", "%M", "-o", rssf.name, *cmd] if os.path.exists(GNU_TIME) else cmd
        t0 = time.perf_counter()
        # A session of its own, so that a timeout kills the simulator with GNU time, its parent: killing
        # only the wrapper left an ns-2 run of 10,000 flows computing (and 9 GB resident) for the rest of
        # the benchmark, slowing every later measurement.
        p = subprocess.Popen(full, stdout=out, stderr=err, cwd="/tmp", start_new_session=True)
        killer = threading.Timer(timeout, kill_group, (p,)) if timeout else None
        if killer:
            killer.start()
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        if killer:
            killer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
        if timeout and wall >= timeout:
            raise TimeoutError
        out.seek(0)
        err.seek(0)
        if p.returncode != 0:
            msg = err.read().decode(errors="replace").strip()
            raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {msg}")
        rss = ru.ru_maxrss
        if full is not cmd:
            lines = Path(rssf.name).read_text().split()
            rss = int(lines[-1])
        return wall, rss, out.read().decode(), ru.ru_utime + ru.ru_stime


def kill_group(p: subprocess.Popen) -> None:
    """Kill ``p`` and everything it started (its process group, made by start_new_session)."""
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def best_of(cmd: list[str], short: float, timeout: float | None) -> tuple[float, int, str, int, float]:
    """Best of 3 for runs under `short` seconds, best of 7 under 0.5 s, else one run.

    On a shared machine a run of tens of milliseconds can lose half its speed to one
    burst of other work; more repetitions of the shortest runs make the minimum stable.
    Wall and CPU time are each the minimum over the repetitions."""
    wall, rss, out, cpu = timed(cmd, timeout)
    n = 1
    reps = 7 if wall < 0.5 else 3 if wall < short else 1
    while n < reps:
        w, r, o, c = timed(cmd, timeout)
        n += 1
        rss = max(rss, r)
        cpu = min(cpu, c)
        if w < wall:
            wall, out = w, o
    return wall, rss, out, n, cpu


# --------------------------------------------------------------------------
# What each tool counted


def summarise(rows: list, goodput, counts: dict, **extra) -> dict:
    """One tool's run as the report compares it: aggregate goodput and Jain's index over the flows'
    goodputs (`goodput(row)`, kbit/s), and per-flow counters summed (`counts`: report key → `f(row)`).
    Also the flows that delivered nothing (`silent`) and Jain's index over the others (`jain_alive`):
    a flow that never gets going pulls Jain's index down by a share of its own, whatever the others do."""
    g = [goodput(r) for r in rows]
    alive = [x for x in g if x > 0]
    return {"goodput": sum(g), "jain": jain(g), "silent": len(g) - len(alive), "jain_alive": jain(alive),
            **{k: sum(f(r) for r in rows) for k, f in counts.items()}, **extra}


def dupack_metrics(out: str) -> dict:
    r = json.loads(out)
    return summarise(
        r["flows"],
        lambda f: f["goodput_kbps"],
        {
            "fr": lambda f: f["fast_retransmits"],
            "to": lambda f: f["timeouts"],
            "rexmit": lambda f: f["retransmitted_segments"],
            "data": lambda f: f["segments_sent"],
            "acks": lambda f: f["acks_received"],
        },
        events=r["run"]["events"],
        core_wall=r["run"]["wall_time_s"],
    )


def ns2_metrics(out: str, case: Case) -> dict:
    rows = []
    for line in out.splitlines():
        if line.startswith("FLOW "):
            kv = dict(x.split("=") for x in line.split()[2:])
            rows.append({k: int(v) for k, v in kv.items()})
    assert len(rows) == case.flows, out[-500:]
    return summarise(
        rows,
        # TCPSink's bytes_ counts whole delivered packets, headers included.
        lambda r: r["sink_bytes"] / (case.mss + HEADER_BYTES) * case.mss * 8 / case.duration / 1000,
        {
            # ncwndcuts_ counts every slowdown(): fast retransmits plus timeouts
            # (a greedy sender always has data outstanding, and there is no ECN).
            "fr": lambda r: r["ncwndcuts"] - r["nrexmit"],
            "to": lambda r: r["nrexmit"],
            "rexmit": lambda r: r["nrexmitpack"],
            "data": lambda r: r["ndatapack"],
            "acks": lambda r: r["nackpack"],
        },
        events=None,
        core_wall=None,
    )


def ns3_metrics(out: str, case: Case) -> dict:
    rows, end = ns3build.parse_flows(out)
    assert len(rows) == case.flows, out[-500:]
    return summarise(
        rows,
        # PacketSink's total: payload bytes delivered in order to the application.
        lambda r: r["rx_bytes"] * 8 / case.duration / 1000,
        {
            "fr": lambda r: r["fast_rexmits"],
            "to": lambda r: r["timeouts"],
            "rexmit": lambda r: r["rexmit_pkts"],
            "data": lambda r: r["data_pkts"],
            "acks": lambda r: r["acks_rx"],
            # BulkSend sends as soon as the connection is open: no data segment, no handshake.
            "unopened": lambda r: int(r["data_pkts"] == 0),
        },
        events=int(end["events"]),
        core_wall=None,
        # Silent flows that did open: when their first data segment left, and how many copies they sent.
        silent_opened=[(r["first_data_ms"], r["data_pkts"]) for r in rows
                       if r["rx_bytes"] == 0 and r["data_pkts"] > 0 and "first_data_ms" in r],
    )


# --------------------------------------------------------------------------
# The machine and the versions


def sh(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def machine() -> dict:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "unknown"
    try:
        kb = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text()).group(1))
        mem = f"{kb / 1024 / 1024:.1f} GiB"
    except (OSError, AttributeError):
        pass
    return {
        "nproc": sh(["nproc"]),
        "cpu": cpu,
        "mem": mem,
        "os": f"{platform.system()} {platform.release()}",
        "rustc": sh(["rustc", "--version"]),
        "profile": cargo_profile(ns3build.PROFILE) + "; " + guided(),
        "ns2": "ns-2 " + (sh(["dpkg-query", "-W", "-f", "${Version}", "ns2"]) if shutil.which("dpkg-query") else "?"),
        "ns3": ns3_version(),
        "cxx": sh([os.environ.get("CXX", "g++"), "--version"]).splitlines()[0] if shutil.which(os.environ.get("CXX", "g++")) else "?",
        "python": platform.python_version(),
        "commit": sh(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"]),
        "load": Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?",
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def cargo_profile(name: str) -> str:
    """'the workspace's NAME profile: fat LTO, 1 codegen unit', read from Cargo.toml (a profile
    without a setting of its own takes it from the one it inherits from, then from cargo's defaults)."""
    import tomllib

    profiles = tomllib.loads((ROOT / "Cargo.toml").read_text(encoding="utf-8")).get("profile", {})
    defaults = {"lto": False, "codegen-units": 16}

    def setting(profile: str, key: str) -> object:
        p = profiles.get(profile, {})
        if key in p:
            return p[key]
        parent = p.get("inherits")
        return setting(parent, key) if parent else defaults[key]

    lto = setting(name, "lto")
    names = {True: "fat LTO", "fat": "fat LTO", "thin": "thin LTO", False: "LTO within each crate", "off": "no LTO"}
    lto_text = names.get(lto, f"lto = {lto!r}")
    units = setting(name, "codegen-units")
    return f"the workspace's {name} profile: {lto_text}, {units} codegen unit{'s' if units != 1 else ''}"


def guided() -> str:
    """Whether `build` uses the profile-guided build's profile, for the report's header."""
    profile, why = pgo.decide(ROOT)
    if profile is None:
        return f"not profile-guided ({why})"
    return "profile-guided by pgo/dupack.profdata (docs/performance.md, \"Profile-guided build\")"


def ns3_version() -> str:
    try:
        d = ns3build.find()
    except ns3build.Ns3Missing:
        return "ns-3 not installed"
    wheel = "?"
    for meta in d.parent.glob("ns3-*.dist-info/METADATA"):
        for line in meta.read_text().splitlines():
            if line.startswith("Version:"):
                wheel = line.split(":", 1)[1].strip()
    return f"ns-{ns3build.version(d)} (PyPI wheel `ns3` {wheel}, {d})"


# --------------------------------------------------------------------------
# The programs


def build_examples(*names: str) -> None:
    """Build dupack-sim's examples ``names`` as `pip install .` builds the extension: the `dist` profile,
    guided by the profile scripts/pgo recorded when there is one for these sources (packaging/pgo.py)."""
    env, _ = pgo.build_env(ROOT)
    subprocess.run(
        ["cargo", "build", "--profile", ns3build.PROFILE, "--quiet", "-p", "dupack-sim",
         *(arg for name in names for arg in ("--example", name))],
        cwd=ROOT,
        env=env,
        check=True,
    )


def build(log) -> Path:
    """The `bench_scenario` and `heap_floor` examples (:func:`build_examples`)."""
    print(f"building dupack (cargo build --profile {ns3build.PROFILE} --example bench_scenario --example heap_floor; "
          f"{pgo.decide(ROOT)[1]})...", file=log, flush=True)
    build_examples("bench_scenario", "heap_floor")
    exe = ns3build.example("bench_scenario")
    if not exe.exists():
        sys.exit(f"bench/run.py: built, but {exe} is missing")
    return exe


def heap_floor(exe: Path, pending: int) -> float:
    """Nanoseconds per event of the engine's bare event queue holding `pending` events (the `heap_floor`
    example built beside `exe`, the `bench_scenario` binary)."""
    out = subprocess.run([str(exe.with_name("heap_floor")), str(pending)], capture_output=True, text=True,
                         check=True).stdout
    return float(json.loads(out)[str(pending)])


def ensure_ns3(install: bool, log) -> Path | None:
    """The compiled ns-3 program, or None (with a message) if the wheel is missing."""
    try:
        ns3build.find()
    except ns3build.Ns3Missing as e:
        if not install:
            print(f"bench/run.py: {e}\n(or pass --install, or --no-ns3)", file=log)
            return None
        ns3build.install()
    return ns3build.build(NS3_SOURCE, log)


def ensure_ns2(install: bool) -> bool:
    if shutil.which("ns"):
        return True
    if install:
        if os.geteuid() != 0:
            sys.exit("bench/run.py: --install needs root (apt-get install -y ns2)")
        subprocess.run(["apt-get", "update"], check=True)
        subprocess.run(["apt-get", "install", "-y", "ns2"], check=True)
        return shutil.which("ns") is not None
    return False


def write_doc_block(doc, section: str, begin: str, end: str, lines: list[str]) -> None:
    """Put ``lines`` between the marker comments ``begin`` and ``end`` of the
    document ``doc`` (a Path), replacing what a benchmark measured there
    before; without the markers, append them under the heading ``section``."""
    text = doc.read_text()
    block = "\n".join([begin, *lines, end])
    if begin in text and end in text:
        text = re.sub(re.escape(begin) + r".*?" + re.escape(end), lambda _: block, text, flags=re.S)
    else:
        text = text.rstrip("\n") + f"\n\n{section}\n\n{block}\n"
    doc.write_text(text)
