"""Scenario 3: the unfairness paper's dumbbell (bench/scenarios/unfairness.toml).

N greedy flows, Bernoulli loss p on the access links, 200 s; per tool the
mean over seeds of aggregate goodput, Jain's index, timeouts and
retransmitted segments, with 95 % Student-t intervals.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any

from bench import mirror
from validation.common import ROOT, Estimate, estimate, jain, load_toml, parallel_map, parse_kv_line, run_ns
from validation.peerapi import Peer, Unsupported, supports
from validation import s2_lossy
from validation.s2_lossy import CUBIC_VARIANTS, greedy_runs, is_cubic, window_estimates

SCENARIO = ROOT / "bench" / "scenarios" / "unfairness.toml"
NS = (10, 40, 200)
PS = (0.0, 0.01, 0.05)
VARIANTS = ("newreno", "sack")
# Run against ns-3 only (ns-2.35 has neither): its SACK recovery, RFC 6675
# with its step (3) Limited Transmit, and its default, the same with PRR.
NS3_VARIANTS = ("rfc6675+lt", "rfc6675+prr+lt")
QUICK = [(10, 0.01, "newreno"), (10, 0.01, "sack")]
# Without random loss equal flows phase-lock (docs/scenario.md, "Phase
# effects"); the p = 0 rows again with the standard remedy in both tools, a
# random processing delay before each send (dupack's tcp.overhead, ns-2's
# overhead_), so that the two compare as samples of one random process and
# not as two single trajectories. ns-3's programs have no such delay.
OVERHEAD = 0.001
OVERHEAD_NS = (10, 40)
# At N = 200 each tool's result is also one trajectory of a synchronised
# start: all 200 first packets reach the bottleneck at one instant, 49 are
# lost, and those 49 flows retransmit at one instant again, 1 s later, and
# after every backoff. Whether they get back in depends on how full the
# queue is at those instants, which the exact order of earlier simultaneous
# events decides (ns-2: its scheduler's first-in first-out order; dupack:
# its seeded tie-break). The N = 200 rows again, with a delay before each
# send uniform in [0, 1 µs] in both tools: far below a frame time (2.8 ms at
# the bottleneck), so no rate or window changes, but no two sends of
# different flows are simultaneous any more, and the tools compare as
# samples of one random process (docs/validation.md, scenario 3).
TIEBREAK = 1e-6
TIEBREAK_NS = (200,)
# There one seed's Jain's index differs from the next by up to 0.1 in both
# tools (standard deviation about 0.03), so the 95 % interval of the
# difference of two means over n seeds each is about ±0.08/√n: ±0.025 at
# ten seeds, ±0.008 at 100, about the ±0.01 judged, so that a difference of
# 0.01 could be neither told from none nor ruled out. At 400 it is ±0.004
# (a run of 200 flows takes ns-2 about a second, dupack 50 ms). Over seeds
# 1–100 (p = 0, SACK) the two tools' means differed by 0.012, over 1–400 by
# 0.014: a difference, not the luck of the seeds.
TIEBREAK_SEEDS = 400
# At N = 10 a run's timeouts, summed over the flows, are few (6 to 25 in
# 200 s at p <= 1 %), and over ten seeds their 95 % interval is ±10 to
# 15 %, as wide as the ±10 % judged: four such rows were "unresolved". The
# runs are short (ns-2 about 0.15 s, ns-3 about 1 s), so the NewReno and
# SACK rows at N = 10 take this many seeds in --full; with them those rows
# are decided (three within, and the plain p = 0 SACK row judged through
# its remedy row).
SMALL_N = 10
SMALL_N_SEEDS = 100
# A seed whose Jain's index is below this at N = 200 is one where many
# flows barely ran (most seeds of both tools lie between 0.75 and 0.87).
LOW_JAIN = 0.7
# A flow with a goodput below this (kbit/s) over the run got next to nothing
# through (at N = 200 the fair share is 15 kbit/s): one whose first packet
# and every retransmission after it were lost.
STARVED_KBPS = 1.0
# The "overhead 1 ms" and "overhead 1 µs" rows once more with ns-2's window arithmetic in dupack
# (`loss_ssthresh = "window"`: half of min(cwnd, rwnd), as ns-2's slowdown()
# in tcp.cc, rather than RFC 5681's half of FlightSize; `ca_increase =
# "fractional"`; and ns-2's growth on the ACK that ends Reno's and
# NewReno's recovery, `recovery_exit_growth = "grow"`, with which scenario 1
# is packet-exact): which of the differences left are these departures of
# ns-2 from RFC 5681 (eq. 4, §3.2 step 6) and RFC 6582 (§3.2 step 3).
NS2_ARITH = {f"tcp.{k}": v for k, v in s2_lossy.NS2_ARITH.items()}
# ns-3's SACK rows once more with ns-3's ssthresh in dupack (`loss_ssthresh =
# "pipe"`: half of RFC 6675's pipe at the fast retransmit and at every
# timeout, as TcpSocketBase sets it, where RFC 6675 §5 (4.2) and RFC 5681
# eq. 4 halve FlightSize), against ns-3 again: what that departure of ns-3
# from the RFC accounts for of the event-count gaps (`ns3_pipe_ssthresh`);
# with `+prr`, ns-3's PRR arithmetic too (s2_lossy.NS3_ARITH).
NS3_ARITH = {f"tcp.{k}": v for k, v in s2_lossy.NS3_ARITH.items()}
NS3_ARITH_VARIANTS = s2_lossy.NS3_ARITH_VARIANTS
# CUBIC against ns-3 only (scenario 2 has the variants); with the window
# of the first flow (s2_lossy.WINDOW) besides the sums over the flows.
CUBIC_QUICK = [(10, 0.01, v) for v in CUBIC_VARIANTS]
QUICK_DURATION = 50


def doc(n: int, p: float, variant: str, duration: float, overhead: float = 0.0, arith: bool = False,
        ns3_arith: bool = False, cubic_ns3: bool = False) -> dict[str, Any]:
    over = {"tcp.overhead": f"{overhead * 1e6:g}us"} if overhead else {}
    if cubic_ns3:
        over.update({f"tcp.{k}": v for k, v in s2_lossy.CUBIC_NS3.items()})
    return load_toml(
        SCENARIO,
        {"topology.senders": n, "topology.access.fwd_error.p": p, "tcp.variant": variant, "run.duration": f"{duration:g}s",
         **over, **(NS2_ARITH if arith else {}), **(NS3_ARITH if ns3_arith else {}), **mirror.mirror_overrides(variant)},
    )


@dataclass
class Row:
    n: int
    p: float
    variant: str
    duration: float
    metrics: dict[str, dict[str, Estimate]]  # peer -> metric -> estimate
    overhead: float = 0.0  # tcp.overhead in seconds (the phase-effect remedy), 0: none
    arith: bool = False  # dupack with ns-2's window arithmetic (NS2_ARITH)
    ns3_arith: bool = False  # dupack with ns-3's ssthresh (NS3_ARITH)
    cubic_ns3: bool = False  # dupack alone with ns-3's CUBIC arithmetic (s2_lossy.CUBIC_NS3)

    @property
    def label(self) -> str:
        """How the report names the case: N, p (and the remedy), variant."""
        extra = f" overhead {overhead_text(self.overhead)}" if self.overhead else ""
        extra += ", ns-2's window arithmetic" if self.arith else ""
        extra += (", ns-3's ssthresh and PRR" if "prr" in self.variant.split("+") else ", ns-3's ssthresh") if self.ns3_arith else ""
        extra += ", ns-3's CUBIC arithmetic" if self.cubic_ns3 else ""
        return f"N={self.n} p={self.p:g}{extra} {self.variant}"


def overhead_text(seconds: float) -> str:
    """A send delay as the report writes it: "1 ms", "1 µs"."""
    return f"{seconds * 1000:g} ms" if seconds >= 1e-3 else f"{seconds * 1e6:g} µs"


def cases(quick: bool) -> list[tuple[int, float, str]]:
    if quick:
        return list(QUICK)
    return [(n, p, v) for n in NS for p in PS for v in VARIANTS] + [(n, p, v) for n in NS[:2] for p in PS for v in NS3_VARIANTS]


def cubic_cases(quick: bool) -> list[tuple[int, float, str]]:
    return list(CUBIC_QUICK) if quick else [(n, p, v) for n in NS[:2] for p in PS for v in CUBIC_VARIANTS]


def run_case(n: int, p: float, variant: str, peers: dict[str, Peer], seeds: int, duration: float,
             overhead: float = 0.0, arith: bool = False, ns3_arith: bool = False, cubic_ns3: bool = False) -> Row:
    d = doc(n, p, variant, duration, overhead, arith, ns3_arith, cubic_ns3)
    out: dict[str, dict[str, Estimate]] = {}
    for name, peer in peers.items():
        if not supports(peer, "greedy"):
            continue
        try:
            per_seed, window = greedy_runs(name, peer, d, seeds, window=is_cubic(variant))
        except Unsupported:
            continue
        g = [[f.goodput_kbps for f in flows] for flows in per_seed]
        js = [jain(x) for x in g]
        out[name] = {
            "goodput": estimate([sum(x) for x in g]),
            "jain": estimate(js),
            # How the index is spread over the seeds: its median, and the share of seeds below LOW_JAIN.
            "jain_median": Estimate(statistics.median(js), math.nan, len(js)),
            "jain_low": estimate([1.0 if j < LOW_JAIN else 0.0 for j in js]),
            # Flows that got (next to) nothing through in the whole run: at N = 200 they set Jain's index.
            "starved": estimate([float(sum(1 for x in flows if x < STARVED_KBPS)) for flows in g]),
            "timeouts": estimate([sum(f.timeouts for f in flows) for flows in per_seed]),
            "fast_retransmits": estimate([sum(f.fast_retransmits for f in flows) for flows in per_seed]),
            "retransmitted": estimate([sum(f.retransmitted for f in flows) for flows in per_seed]),
        }
        # The first flow's window (CUBIC rows): "cwnd_mean", "cwnd_p50", ...
        out[name].update({f"cwnd_{k}": e for k, e in window_estimates(window).items()})
    return Row(n, p, variant, duration, out, overhead, arith, ns3_arith, cubic_ns3)


def seeds_for(n: int, variant: str, seeds: int, quick: bool) -> int:
    """The seeds of a row: SMALL_N_SEEDS for the NewReno and SACK rows at N = SMALL_N in --full."""
    return max(seeds, SMALL_N_SEEDS) if not quick and n == SMALL_N and variant in VARIANTS else seeds


def run(peers: dict[str, Peer], quick: bool, seeds: int) -> list[Row]:
    dur = QUICK_DURATION if quick else 200
    rows = [run_case(n, p, v, peers, seeds_for(n, v, seeds, quick), dur) for n, p, v in cases(quick) + cubic_cases(quick)]
    if not quick:
        rows += [run_case(n, 0.0, v, peers, seeds_for(n, v, seeds, quick), dur, OVERHEAD) for n in OVERHEAD_NS for v in VARIANTS]
        tiebreak = [run_case(n, p, v, peers, max(seeds, TIEBREAK_SEEDS), dur, TIEBREAK)
                    for n in TIEBREAK_NS for p in PS for v in VARIANTS]
        add_startup(tiebreak, peers)
        rows += tiebreak + extra_rows(peers, seeds, dur)
    return rows + cubic_controls(peers, quick, seeds, dur)


def cubic_controls(peers: dict[str, Peer], quick: bool, seeds: int, dur: float) -> list[Row]:
    """The SACK CUBIC rows again in dupack alone with ns-3's CUBIC arithmetic (s2_lossy.CUBIC_NS3)."""
    if quick or "ns3" not in peers:
        return []
    alone = {"dupack": peers["dupack"]}
    return [run_case(n, p, v, alone, seeds, dur, cubic_ns3=True) for n, p, v in cubic_cases(quick)
            if v in s2_lossy.CUBIC_NS3_VARIANTS]


# How the flows that lost their first packet at the synchronised start of the
# N = 200 rows come back: such a flow retransmits 1 s after sending it and
# then after every backoff (1, 2, 4, ... s), all of them within the 1 µs
# delay of each other, so they get back in as rounds, as many per round as
# the queue has free places at that instant. Counted over STARTUP_SEEDS
# seeds of the p = 0 rows: the flows whose first packet got through in each
# round (dupack: the first ACK; ns-2: the first departure from the
# bottleneck queue, from its packet trace), and the mean queue.
STARTUP_SEEDS = 20
ROUND_STARTS = (0.0, 1.0, 3.0, 7.0, 15.0, 31.0, 63.0, 123.0, 183.0)


def round_counts(times: list[float], flows: int) -> list[float]:
    """Flows whose first packet got through in each round of ROUND_STARTS, then those that never did."""
    counts = [0.0] * (len(ROUND_STARTS) + 1)
    for t in times:
        counts[sum(1 for start in ROUND_STARTS[1:] if t >= start)] += 1
    counts[-1] = flows - len(times)
    return counts


def dupack_startup(doc: dict[str, Any], seed: int) -> tuple[list[float], float]:
    """The time of each flow's first ACK, and the bottleneck's mean queue (packets waiting)."""
    import dupack

    r = dupack.run(doc, seed=seed, series=["*"], series_variables=["snd_una"])
    s = r.series
    first = s[(s.variable == "snd_una") & (s.value > 0)].groupby("entity", observed=True).time_s.min()
    links = r.links
    q = links[(links.link == "bottleneck") & (links.direction == "fwd")].iloc[0].mean_queue_packets
    return [float(t) for t in first], float(q)


def ns2_startup(doc: dict[str, Any], seed: int) -> tuple[list[float], float]:
    """The time each flow's first packet left ns-2's bottleneck queue (its packet trace), and the mean queue."""
    import tempfile
    from pathlib import Path

    from validation.peers import greedy_args

    first: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as d:
        qtr = Path(d) / "q.tr"
        out = run_ns(ROOT / "bench" / "ns2" / "tcp_bench.tcl", dict(greedy_args(doc, seed), qtrace=qtr),
                     outputs=("qtrace",))
        with qtr.open() as f:
            for line in f:
                if line.startswith("-"):  # a departure: "- time from to type size flags fid ..."
                    parts = line.split()
                    first.setdefault(int(parts[7]), float(parts[1]))
    return list(first.values()), float(parse_kv_line(out, "QUEUE")[0]["avg_queue"])


def add_startup(rows: list[Row], peers: dict[str, Peer]) -> None:
    """ROUND_STARTS counts and the mean queue, as metrics ("round_K", "never", "mean_queue") of the
    p = 0 rows, for dupack and ns-2."""
    how = {"dupack": dupack_startup, "ns2": ns2_startup}
    for r in rows:
        if r.p != 0.0:
            continue
        d = doc(r.n, r.p, r.variant, r.duration, r.overhead)
        for name, fn in how.items():
            if name not in peers or name not in r.metrics:
                continue
            per_seed = parallel_map(lambda seed, fn=fn: fn(d, seed), range(1, STARTUP_SEEDS + 1))
            counts = [round_counts(times, r.n) for times, _ in per_seed]
            r.metrics[name].update({f"round_{k}": estimate([c[k] for c in counts]) for k in range(len(ROUND_STARTS))})
            r.metrics[name]["never"] = estimate([c[-1] for c in counts])
            r.metrics[name]["mean_queue"] = estimate([q for _, q in per_seed])


def extra_rows(peers: dict[str, Peer], seeds: int, dur: float) -> list[Row]:
    """The "overhead 1 ms" and "overhead 1 µs" rows with ns-2's window arithmetic in dupack (NS2_ARITH), and ns-3's SACK rows
    with ns-3's ssthresh in dupack (NS3_ARITH)."""
    return ([run_case(n, 0.0, v, peers, seeds_for(n, v, seeds, False), dur, OVERHEAD, arith=True) for n in OVERHEAD_NS for v in VARIANTS]
            + [run_case(n, p, v, peers, max(seeds, TIEBREAK_SEEDS), dur, TIEBREAK, arith=True)
               for n in TIEBREAK_NS for p in PS for v in VARIANTS]
            + [run_case(n, p, v, peers, seeds, dur, ns3_arith=True) for n in NS[:2] for p in PS for v in NS3_ARITH_VARIANTS])


def run_cubic(peers: dict[str, Peer], quick: bool, seeds: int) -> list[Row]:
    """The CUBIC rows alone (validation/report.py --cubic)."""
    dur = QUICK_DURATION if quick else 200
    return [run_case(n, p, v, peers, seeds, dur) for n, p, v in cubic_cases(quick)] + cubic_controls(peers, quick, seeds, dur)
