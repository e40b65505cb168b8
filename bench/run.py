#!/usr/bin/env python3
"""Run dupack, ns-2 and ns-3 on the same scenarios and write docs/performance.md.

    python bench/run.py            # everything (20-35 minutes on 2 cores: 22.6 and 31.4 in its last two runs)
    python bench/run.py --quick    # (a) with N=10 and 50 s only, short (b) and (c)
    python bench/run.py --install  # apt-get install ns2 (root) and pip install the ns3 wheel if missing

Run it with the interpreter of the environment the project is installed in
(`pip install '.[bench]'`): the sweep-throughput part calls the `dupack`
package and its CLI, and the figure needs matplotlib.

One invocation builds dupack's `bench_scenario` and `sweep_grid` examples in
release mode, runs each scenario of bench/scenarios/ through dupack, through
the OTcl mirror bench/ns2/tcp_bench.tcl (ns-2.35) and through the C++ mirror
bench/ns3/tcp_bench.cc (ns-3.44, compiled against the PyPI `ns3` wheel by
bench/ns3build.py and cached), measures the sweep throughput (bench/sweep.py),
profiles one scenario with callgrind (bench/callgrind.py) and writes the report.
The ns-2 and ns-3 parameters are derived from the very TOML dupack reads
(after the same overrides), so a change to a scenario file changes all sides.

The simulators' part needs only the standard library (Python >= 3.11 for
tomllib); --no-sweep skips the part that needs the dupack package.

This module holds the cases, the control runs and the command line; the
mirrors are in bench/mirror.py, the timing and the counters in
bench/measure.py, and the report's text in bench/report.py.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import callgrind, sweep  # noqa: E402
from bench.measure import (  # noqa: E402
    best_of,
    build,
    dupack_metrics,
    ensure_ns2,
    ensure_ns3,
    heap_floor,
    machine,
    ns2_metrics,
    ns3_metrics,
    parallel_map,
    timed,
)
from bench import mirror  # noqa: E402
from bench.mirror import ROOT, Case  # noqa: E402
from bench.report import write_report  # noqa: E402

# --------------------------------------------------------------------------
# Measuring a case


def measure(cmd: list[str], parse, timeout: float | None) -> dict:
    """Best-of wall time, peak RSS and CPU time of one tool's run, with its parsed numbers."""
    wall, rss, out, n, cpu = best_of(cmd, short=5.0, timeout=timeout)
    return dict(parse(out), wall=wall, rss_kib=rss, reps=n, cpu=cpu)


def run_case(case: Case, exe: Path, use_ns2: bool, ns2_timeout: float, log, ns3_exe: Path | None = None,
             ns3_timeout: float = 900) -> dict:
    res = {"case": case, "ns2": None, "ns3": None}
    res["dupack"] = measure(case.dupack_cmd(exe), dupack_metrics, None)
    ns2_timeout = max(ns2_timeout, case.ns2_timeout or 0)
    peers = [("ns3", ns3_exe is not None and case.ns3 and (lambda: case.ns3_cmd(ns3_exe)), ns3_metrics, ns3_timeout,
              "ns-3"),
             ("ns2", use_ns2 and case.ns2 and case.ns2_cmd, ns2_metrics, ns2_timeout, "ns-2")]
    if ns3_exe is not None and not case.ns3 and case.ns3_note:
        res["ns3_note"] = case.ns3_note
    for key, cmd, parse, timeout, name in peers:
        if not cmd:
            continue
        try:
            res[key] = measure(cmd(), lambda out, parse=parse: parse(out, case), timeout)
        except TimeoutError:
            res[f"{key}_note"] = f"{name} stopped after {timeout:.0f} s"
    if case.group == "c-flows":
        # The floor under the cost per event: the bare event queue at about the number of events these runs
        # keep pending (two per flow: a timer per endpoint, an arrival per busy channel; 1,990 on average with
        # 1000 flows), measured now, on the machine as loaded as for the run.
        res["heap_floor_ns"] = heap_floor(exe, 2 * case.flows)
        res["dupack_setup"] = min(timed(case.dupack_cmd(exe, duration="1ms"))[0] for _ in range(3))
        if res["ns2"]:
            # Set-up alone (parsing, nodes, links, routes, agents): the same
            # run with 1 ms of simulated time.
            res["ns2_setup"] = timed(case.ns2_cmd(duration=0.001), ns2_timeout)[0]
        if res["ns3"]:
            res["ns3_setup"] = timed(case.ns3_cmd(ns3_exe, duration=0.001), ns3_timeout)[0]
    d, s, t = res["dupack"], res.get("ns2"), res.get("ns3")
    msg = f"[{case.group}] {case.label:<26} dupack {d['wall']:7.3f} s {d['rss_kib'] / 1024:6.1f} MiB"
    if s:
        msg += f" | ns-2 {s['wall']:7.3f} s {s['rss_kib'] / 1024:6.1f} MiB {s['wall'] / d['wall']:5.1f}x"
    if t:
        msg += f" | ns-3 {t['wall']:7.3f} s {t['rss_kib'] / 1024:6.1f} MiB {t['wall'] / d['wall']:5.1f}x"
    print(msg, file=log, flush=True)
    return res


SEED_CONTROL_SEEDS = 8
#: Seeds of the control runs with the 1 µs send delay: one seed's Jain's index at N = 200 differs from the
#: next by about 0.03 (standard deviation), so the gap between the two tools' means has a standard error of
#: about 0.03 × √(2 / seeds): 0.007 with 40 seeds, too coarse to judge ±0.01, and 0.0035 with 160.
TIEBREAK_SEEDS = 160
#: The control runs are not timed: they run this many at a time (the timed cases run one at a time).
CONTROL_WORKERS = max(1, min(4, os.cpu_count() or 1))


def outputs(cmds: list[list[str]], timeout: float) -> list[str]:
    """The standard output of each of `cmds` (in their order), run CONTROL_WORKERS at a time; TimeoutError
    if one of them timed out."""
    return parallel_map(lambda cmd: timed(cmd, timeout)[2], cmds, CONTROL_WORKERS)


def n200_cases(res: list[dict], tool: str, p: float) -> list[dict]:
    """The (a) cases with 200 flows and access loss `p` that `tool` ran: where the control runs go."""
    return [r for r in res if r.get(tool) and r["case"].group == "a" and r["case"].flows >= 200
            and r["case"].overrides.get("topology.access.fwd_error.p") == p]


def ns2_seed_controls(res: list[dict], exe: Path, timeout: float, log) -> list[dict]:
    """For the N = 200 cases: Jain's index over seeds 1..TIEBREAK_SEEDS from both tools with a random delay of
    at most 1 µs before each send, and from dupack so with ns-2's window arithmetic; at p = 1 % also over seeds
    1..SEED_CONTROL_SEEDS without the delay, from dupack, from dupack with ns-2's window arithmetic, from dupack
    with ns-2's retransmission timer as well, and from ns-2 (seed_spread reads them)."""
    out = []
    # All of them with the delay (the comparison of the models); at 1 % loss also without it, and dupack with
    # ns-2's arithmetic and timer (what the synchronised start's single trajectories differ by).
    for r in [r for p in (0.0, 0.01, 0.05) for r in n200_cases(res, "ns2", p)]:
        c = r["case"]
        plain = c.overrides.get("topology.access.fwd_error.p") == 0.01
        row = {"kind": "seeds", "label": c.label, "dupack": [], "dupack_ns2_arith": [], "dupack_ns2_timer": [],
               "ns2": [], "dupack_tiebreak": [], "ns2_tiebreak": [], "dupack_tiebreak_arith": []}
        # validation/s3_dumbbell.py NS2_ARITH: ns-2's window arithmetic and its growth on the ACK that ends recovery.
        arith = ['tcp.loss_ssthresh="window"', 'tcp.ca_increase="fractional"', 'tcp.recovery_exit_growth="grow"']
        # ns-2's estimator with the mirror's bounds and tick (docs/scenario.md, tcp.rto.timer = "ns2").
        rto = c.doc["tcp"]["rto"]
        timer = [f'tcp.rto={{ timer = "ns2", tick = "{rto["granularity"]}", initial = "{rto["initial"]}", '
                 f'min = "{rto["min"]}", max = "{rto["max"]}", max_backoff_shift = {rto["max_backoff_shift"]} }}']
        # (the list of `row` a run's Jain's index goes to, the run's command, whether it is ns-2's), in
        # seed order within each list.
        runs: list[tuple[str, list[str], bool]] = []
        for seed in range(1, max(SEED_CONTROL_SEEDS, TIEBREAK_SEEDS) + 1):
            base = c.dupack_cmd(exe) + [f"run.seed={seed}"]
            n2 = [a if not a.startswith("seed=") else f"seed={seed}" for a in c.ns2_cmd()]
            if plain and seed <= SEED_CONTROL_SEEDS:
                runs += [("dupack", base, False), ("dupack_ns2_arith", base + arith, False),
                         ("dupack_ns2_timer", base + arith + timer, False), ("ns2", n2, True)]
            if seed <= TIEBREAK_SEEDS:
                # Both tools with a random delay of at most 1 µs before each send (validation/s3_dumbbell.py,
                # TIEBREAK): no two flows' sends simultaneous, nothing else changed; and dupack so with
                # ns-2's window arithmetic as well, the closest mirror of ns-2.
                delay = ['tcp.overhead="1us"']
                runs += [("dupack_tiebreak", base + delay, False), ("dupack_tiebreak_arith", base + delay + arith, False),
                         ("ns2_tiebreak", n2 + ["overhead=1e-06"], True)]
        try:
            texts = outputs([cmd for _, cmd, _ in runs], timeout)
        except TimeoutError:
            continue
        for (key, _, ns2), text in zip(runs, texts, strict=True):
            row[key].append((ns2_metrics(text, c) if ns2 else dupack_metrics(text))["jain"])
        out.append(row)
        print(f"[control] {c.label}: Jain over {TIEBREAK_SEEDS} seeds with the 1 µs delay: dupack "
              f"{statistics.mean(row['dupack_tiebreak']):.3f}, ns-2 {statistics.mean(row['ns2_tiebreak']):.3f}",
              file=log, flush=True)
    return out


def ns3_controls(res: list[dict], ns3_exe: Path, timeout: float, log) -> list[dict]:
    """Control runs: for the largest dupack/ns-3 difference among the NewReno cases, the same ns-3 run with
    ns-3's PRR recovery instead of the classic one, everything else equal; for the N = 200, p = 0 cases, the
    same ns-3 run with ns-3's default 6 SYN retries instead of the mirror's unlimited ones."""
    nr = [r for r in res if r.get("ns3") and r["case"].overrides.get("tcp.variant", r["case"].doc["tcp"]["variant"])
          == "newreno"]
    if not nr:
        return []
    picks = []
    for g in ("a", "c-flows"):
        rows = [r for r in nr if r["case"].group == g]
        if rows:
            picks.append(max(rows, key=lambda r: r["ns3"]["rexmit"] / max(1, r["dupack"]["rexmit"])))
    out = []
    for r in picks:
        try:
            wall, rss, text, _ = timed(r["case"].ns3_cmd(ns3_exe) + ["recovery=prr"], timeout)
        except TimeoutError:
            continue
        out.append({"label": r["case"].label, "prr": ns3_metrics(text, r["case"]), "classic": r["ns3"],
                    "dupack": r["dupack"], "ns2": r["ns2"]})
        m = out[-1]["prr"]
        print(f"[control] {r['case'].label}: ns-3 with PRR recovery: goodput {m['goodput']:.0f} kbit/s, "
              f"{m['to']} timeouts, {m['rexmit']} retransmitted segments", file=log, flush=True)
    # Silent flows at N = 200 (observations_ns3): the same runs without the mirror's unlimited SYN retries.
    for r in n200_cases(res, "ns3", 0.0):
        c = r["case"]
        try:
            text = timed(c.ns3_cmd(ns3_exe) + ["synretries=6"], timeout)[2]
        except TimeoutError:
            continue
        m = ns3_metrics(text, c)
        out.append({"kind": "synretries", "label": c.label, "syn6": m, "ns3": r["ns3"]})
        print(f"[control] {c.label}: ns-3 with 6 SYN retries: {m['silent']} silent flows, Jain {m['jain']:.3f}",
              file=log, flush=True)
    return out


SSTHRESH_CONTROL_SEEDS = 10


def ns3_ssthresh_controls(res: list[dict], exe: Path, ns3_exe: Path, timeout: float, log) -> list[dict]:
    """For (b)'s `rfc6675+lt` case (one seed in the tables): over seeds 1..SSTHRESH_CONTROL_SEEDS, dupack with the
    mirror as it is, dupack with ns-3's ssthresh as well (`tcp.loss_ssthresh = "pipe"`: half of RFC 6675's pipe,
    as ns-3's TcpSocketBase sets it, `ns3_pipe_ssthresh` in docs/validation.md), and ns-3 (its own seeds)."""
    out = []
    for r in res:
        c = r["case"]
        if not (r.get("ns3") and c.group == "b" and c.overrides.get("tcp.variant") == "rfc6675+lt"):
            continue
        row = {"kind": "ssthresh", "label": c.label, "dupack": [], "dupack_pipe": [], "ns3": []}
        try:
            for seed in range(1, SSTHRESH_CONTROL_SEEDS + 1):
                base = c.dupack_cmd(exe) + [f"run.seed={seed}"]
                row["dupack"].append(dupack_metrics(timed(base, timeout)[2]))
                row["dupack_pipe"].append(dupack_metrics(timed(base + ['tcp.loss_ssthresh="pipe"'], timeout)[2]))
                n3 = [a if not a.startswith("seed=") else f"seed={seed}" for a in c.ns3_cmd(ns3_exe)]
                row["ns3"].append(ns3_metrics(timed(n3, timeout)[2], c))
        except TimeoutError:
            continue
        out.append(row)
        mean = {k: statistics.mean(m["fr"] for m in row[k]) for k in ("dupack", "dupack_pipe", "ns3")}
        print(f"[control] {c.label}: fast retransmits over {SSTHRESH_CONTROL_SEEDS} seeds: dupack {mean['dupack']:.0f}, "
              f"with ns-3's ssthresh {mean['dupack_pipe']:.0f}, ns-3 {mean['ns3']:.0f}", file=log, flush=True)
    return out


# --------------------------------------------------------------------------
# The cases


# The variants of (a) and (b), and which peer each is compared with: NewReno with both; SACK as Fall & Floyd
# describe it (`sack`, ns-2's Sack1) with ns-2; SACK as RFC 6675 specifies it with its step (3) Limited
# Transmit (`rfc6675+lt`, ns-3's SACK: its scoreboard, IsLost, NextSeg and pipe, and new data whenever cwnd
# exceeds pipe) with ns-3. Each peer is thus timed and compared against its closest
# dupack mirror (validation/ns3peer.py says the same of the validation suite).
VARIANTS = ("newreno", "sack", "rfc6675+lt")
NS2_VARIANTS = {"newreno", "sack"}
NS3_VARIANTS = {"newreno", "rfc6675+lt"}


def cases(quick: bool) -> list[Case]:
    out = []
    ns_ = [10] if quick else [10, 40, 200]
    dur = "50s" if quick else "200s"
    for n in ns_:
        for p in (0.0, 0.01, 0.05):
            for v in VARIANTS:
                ov = {"topology.senders": n, "topology.access.fwd_error.p": p, "tcp.variant": v, "run.duration": dur,
                      **mirror.mirror_overrides(v)}
                out.append(Case("a", f"N={n} p={p:g} {v}", "unfairness.toml", ov, ns2=v in NS2_VARIANTS,
                                ns3=v in NS3_VARIANTS))
    for v in VARIANTS:
        ov = {"tcp.variant": v, **mirror.mirror_overrides(v)}
        if quick:
            ov["run.duration"] = "500s"
        out.append(Case("b", f"64 kbps BER 3e-5 {v}", "rpld.toml", ov, ns2=v in NS2_VARIANTS,
                        ns3=v in NS3_VARIANTS))
    base = 5 if quick else 20
    for n in (1, 10, 100, 1000) if quick else (1, 10, 100, 1000, 10000):
        ov = {
            "topology.senders": n,
            "topology.bottleneck.rate": f"{300 * n}kbps",
            "topology.bottleneck.queue.limit_packets": 15 * n,
            "run.duration": f"{base}s",
        }
        big = n >= 10000
        # ns-2's default routing computes all pairs of nodes' routes before the run: at 10,000 senders over
        # 9 GB, unfinished after five minutes. The same routes given explicitly (tcp_bench.tcl routing=manual)
        # took 139 s and 1.62 GiB for the whole run on 2 December 2026 (dupack: 24 s, 104 MiB, same machine).
        out.append(Case("c-flows", f"{n} flows x {base} s", "scaling.toml", ov, ns3=not big,
                        ns2_timeout=900 if big else None, ns2_routing="manual" if big else "static",
                        ns3_note=("ns-3 not run: 1000 flows take it minutes and its time grows faster than the "
                                  "number of flows") if big else None))
    for k in (10, 100):
        ov = {"run.duration": f"{base * k}s"}
        out.append(Case("c-time", f"10 flows x {base * k} s", "scaling.toml", ov))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="N=10 and 50 s for (a), shorter (b) and (c)")
    ap.add_argument("--install", action="store_true",
                    help="apt-get install ns2 (root) and pip install the ns3 wheel (--no-deps) if missing")
    ap.add_argument("--no-ns2", action="store_true", help="skip ns-2")
    ap.add_argument("--no-ns3", action="store_true", help="skip ns-3")
    ap.add_argument("--no-sweep", action="store_true", help="skip the sweep-throughput measurement")
    ap.add_argument("--no-profile", action="store_true", help="skip callgrind")
    ap.add_argument("--sweep-runs", type=int, default=40, help="runs per grid of the per-run sweep paths")
    ap.add_argument("--sweep-grid-runs", type=int, default=400, help="runs per grid of dupack.sweep / dupack sweep")
    ap.add_argument("--ns2-timeout", type=float, default=300, help="give up on one ns-2 run after this many seconds")
    ap.add_argument("--ns3-timeout", type=float, default=900, help="give up on one ns-3 run after this many seconds")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "performance.md")
    ap.add_argument("--json", type=Path, help="also save the raw numbers here")
    ap.add_argument("--dump", type=Path, help=argparse.SUPPRESS)  # pickle of the measurements (report debugging)
    ap.add_argument("--report-from", type=Path, help=argparse.SUPPRESS)  # rewrite the report from such a pickle
    ap.add_argument("--cases-from", type=Path, metavar="DUMP",
                    help="take (a), (b), (c) and the ns-3 control runs from a --dump of an earlier run and measure "
                         "only the sweep and the profile again (unless --no-sweep / --no-profile: then those come "
                         "from the dump too)")
    ap.add_argument("--seed-controls-again", action="store_true",
                    help="with --cases-from: run the ns-2 seed control runs of N = 200 again (Jain's index over "
                         "seeds) rather than take them from the dump")
    args = ap.parse_args()
    log = sys.stderr
    if args.seed_controls_again and not args.cases_from:
        ap.error("--seed-controls-again needs --cases-from DUMP")

    if args.report_from:
        import pickle

        saved = pickle.loads(args.report_from.read_bytes())
        res, m, sweep_res, prof, elapsed = saved[:5]
        controls = saved[5] if len(saved) > 5 else None
        write_report(res, m, args, args.out, elapsed, sweep_res, prof, controls)
        print(f"wrote {args.out} from {args.report_from}", file=log)
        return 0

    use_ns2 = not args.no_ns2
    if use_ns2 and not ensure_ns2(args.install):
        print(
            "bench/run.py: ns-2 (`ns`) is not installed. Install it with\n"
            "    apt-get install ns2\n"
            "(or run bench/run.py --install as root), or pass --no-ns2 to leave it out.",
            file=log,
        )
        return 2
    t0 = time.perf_counter()
    exe = build(log)
    ns3_exe = None
    if not args.no_ns3 and not args.cases_from:
        ns3_exe = ensure_ns3(args.install, log)
        if ns3_exe is None:
            return 2
    dumped = None
    if args.cases_from:
        import pickle

        # The cases keep the machine description (date, commit, load) of the run that measured them;
        # the sweep and the profile measured now say their own commit and date (m["later"]).
        dumped = pickle.loads(args.cases_from.read_bytes())
        res, m = dumped[0], dumped[1]
        controls = dumped[5] if len(dumped) > 5 else []
        if args.seed_controls_again:
            controls = [c for c in controls if c.get("kind") != "seeds"] + ns2_seed_controls(
                res, exe, args.ns2_timeout, log)
        again = [w for w, fresh in (("the ns-2 seed control runs", args.seed_controls_again),
                                    ("the sweep throughput", not args.no_sweep),
                                    ("the profile", not args.no_profile)) if fresh]
        if again:
            # Something is measured now; with nothing, the report is a re-render.
            now = machine()
            m["later"] = {k: now[k] for k in ("commit", "date", "load")}
            m["later"]["what"] = " and ".join(again)
    else:
        m = machine()
        res = [run_case(c, exe, use_ns2, args.ns2_timeout, log, ns3_exe, args.ns3_timeout) for c in cases(args.quick)]
        controls = ns3_controls(res, ns3_exe, args.ns3_timeout, log) if ns3_exe else []
        if ns3_exe:
            controls += ns3_ssthresh_controls(res, exe, ns3_exe, args.ns3_timeout, log)
        if use_ns2:
            controls += ns2_seed_controls(res, exe, args.ns2_timeout, log)
    sweep_res = dumped[2] if dumped and args.no_sweep else None
    if not args.no_sweep:
        try:
            import dupack  # noqa: F401
        except ImportError:
            print("bench/run.py: the dupack package is not importable here: no sweep (pip install '.[bench]')",
                  file=log)
        else:
            sweep_res = sweep.measure(args.sweep_runs, 2, ROOT / "docs" / "img" / "sweep_throughput.png", log,
                                      sweep_runs=args.sweep_grid_runs)
    prof = dumped[3] if dumped and args.no_profile else None
    if not args.no_profile:
        if callgrind.available():
            prof = callgrind.summarise(exe, log)
        else:
            print("bench/run.py: valgrind is not installed: no profile (apt-get install valgrind)", file=log)
    elapsed = time.perf_counter() - t0 + (dumped[4] if dumped else 0.0)
    if args.dump:
        import pickle

        args.dump.write_bytes(pickle.dumps((res, m, sweep_res, prof, elapsed, controls)))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_report(res, m, args, args.out, elapsed, sweep_res, prof, controls)
    if args.json:
        raw = [
            {"group": r["case"].group, "label": r["case"].label, "dupack": r["dupack"], "ns2": r["ns2"],
             "ns3": r.get("ns3")}
            for r in res
        ]
        args.json.write_text(json.dumps({"machine": m, "runs": raw, "sweep": sweep_res, "callgrind": prof}, indent=1))
    print(f"wrote {args.out} ({elapsed / 60:.1f} min)", file=log)
    return 0


if __name__ == "__main__":
    sys.exit(main())
