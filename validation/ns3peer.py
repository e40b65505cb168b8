"""ns-3.44 as a peer of the validation suite (validation/peers.py registers it).

Two programs, compiled against the headers and libraries of the PyPI `ns3`
wheel by bench/ns3build.py (cached by source hash, about a minute each the
first time):

- scenario 2 (one flow over one lossy link): validation/ns3/lossy_flow.cc;
- scenario 3 (the dumbbell): bench/ns3/tcp_bench.cc, with the arguments
  bench/mirror.py's `ns3_args` derives from the very TOML dupack reads, so the
  benchmark and the validation mirror ns-3 the same way.

Both configure ns-3 as docs/performance.md's mirror table says: NewReno
congestion control with classic recovery (not ns-3's default PRR), SACK on
for `sack` and off for `newreno`, no timestamps, no limited transmit, an ACK
per segment, IW 1, RTO floor 1 s with 1 ms granularity, DropTail, losses
only on data packets after their transmission time. A variant with
`+cc=cubic` runs ns-3's TcpCubic instead of TcpNewReno (`cc=cubic`: beta
0.7, C 0.4, fast convergence and the Reno-friendly region on, HyStart off,
as dupack's RFC 9438 CUBIC) over the recovery its base variant mirrors.

The peer is available when the wheel is found (`pip install --no-deps
'ns3==3.44.post0'`, or the `bench` extra) and a C++ compiler is on PATH.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import ns3build
from bench.measure import ns3_version
# Imported by name: this module's own mirror() maps dupack's variants to ns-3's.
from bench.mirror import NS3_MIRROR, apply, ns3_args, rate, seconds, size
from validation import runcache
from validation.common import ROOT
from validation.peerapi import FlowStats, Unsupported

LOSSY_FLOW = ROOT / "validation" / "ns3" / "lossy_flow.cc"
TCP_BENCH = ROOT / "bench" / "ns3" / "tcp_bench.cc"
TIMEOUT = 1800.0  # seconds of wall time for one ns-3 run

# Variants with an ns-3 counterpart: dupack's name -> (the programs' variant,
# ns-3's recovery); bench/mirror.py says why each is paired as it is.
MIRROR = NS3_MIRROR
CUBIC = "cc=cubic"  # the variant component that selects CUBIC
VARIANTS = tuple(MIRROR) + tuple(f"{v}+{CUBIC}" for v in MIRROR)


def mirror(variant: str) -> tuple[str, str, str] | None:
    """(the programs' variant, recovery, congestion control) for a dupack
    variant, or None when ns-3 has no counterpart."""
    parts = variant.split("+")
    cc = "cubic" if CUBIC in parts else "newreno"
    base = "+".join(x for x in parts if x != CUBIC)
    if base not in MIRROR:
        return None
    return (*MIRROR[base], cc)


# One build at a time in a process; a module global, not an attribute, so that the peer stays picklable
# (validation/run.py --jobs hands the peers to worker processes).
_BUILD_LOCK = threading.Lock()


class Ns3:
    name = "ns-3"

    def __init__(self) -> None:
        self._exe: dict[Path, Path] = {}
        self._ids: dict[Path, str] = {}
        self._version: str | None = None

    def available(self) -> str | None:
        try:
            ns3build.find()
        except ns3build.Ns3Missing:
            return ("the ns-3.44 wheel is not installed: pip install --no-deps 'ns3==3.44.post0' "
                    "(or pip install '.[bench]')")
        cxx = os.environ.get("CXX", "g++")
        if shutil.which(cxx) is None:
            return f"no C++ compiler ({cxx}) to build the ns-3 programs against the wheel"
        return None

    def version(self) -> str:
        return ns3_version()

    def identity(self, src: Path) -> list[str]:
        """A program as validation/runcache.py keys it: the wheel's version
        and bench/ns3build.py's `program_id` of its source, a digest of
        everything the build reads (the source, our headers, the compiler
        and its command) except the paths of the checkout and of the wheel,
        so that runs kept in the repository (validation/peer-runs) serve
        any checkout and any installation of the same wheel."""
        if self._version is None:
            self._version = self.version()
        with _BUILD_LOCK:
            if src not in self._ids:
                self._ids[src] = ns3build.program_id(src)
            return ["ns-3", self._version, self._ids[src]]

    def build(self, src: Path) -> Path:
        # Seeds run side by side on threads (common.parallel_map): one compiles, the others wait for it.
        with _BUILD_LOCK:
            if src not in self._exe:
                self._exe[src] = ns3build.build(src)
            return self._exe[src]

    def greedy(self, doc: dict[str, Any], seed: int) -> list[FlowStats]:
        return self.run(doc, seed, None)

    def greedy_window(self, doc: dict[str, Any], seed: int) -> tuple[list[FlowStats], WindowTrace]:
        """greedy() and the first flow's window trace (the socket's
        CongestionWindow and CongState trace sources)."""
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "cwnd.txt"
            flows = self.run(doc, seed, path)
            return flows, read_window_trace(path, size(doc["tcp"]["mss"]))

    def run(self, doc: dict[str, Any], seed: int, cwnd_trace: Path | None) -> list[FlowStats]:
        d = apply(doc, {"run.seed": seed})
        if seconds(d["tcp"].get("overhead", "0s")) > 0:
            raise Unsupported("ns-3's programs have no sender processing delay (ns-2's overhead_)")
        src, args = program(d)
        exe = self.build(src)
        named = dict(a.split("=", 1) for a in args)
        assert len(named) == len(args), f"an argument given twice: {args}"
        if cwnd_trace is not None:
            named["cwndtrace"] = str(cwnd_trace)
        out = runcache.run(self.identity(src), named,
                           lambda: ns3build.run(exe, [f"{k}={v}" for k, v in named.items()], timeout=TIMEOUT),
                           outputs=("cwndtrace",) if cwnd_trace is not None else ())
        flows, _ = ns3build.parse_flows(out)
        dur = seconds(d["run"]["duration"])
        return [
            FlowStats(f["rx_bytes"] * 8 / dur / 1000, f["fast_rexmits"], f["timeouts"], f["rexmit_pkts"], f["data_pkts"])
            for f in flows
        ]


def program(d: dict[str, Any]) -> tuple[Path, list[str]]:
    """The ns-3 program that mirrors scenario document `d` (seeded) and its
    key=value arguments; Unsupported where ns-3 has no mirror of it."""
    variant = d["tcp"]["variant"]
    m = mirror(variant)
    if m is None:
        raise Unsupported(f"ns-3 has no {variant} (its recovery is NewReno's or RFC 6675's)")
    if d["topology"]["kind"] == "chain":
        src, args = LOSSY_FLOW, lossy_flow_args(d)
    elif d["topology"]["kind"] == "dumbbell":
        if d["topology"]["bottleneck"]["queue"].get("kind", "droptail") != "droptail":
            raise Unsupported("the ns-3 dumbbell mirror has DropTail queues only")
        src, args = TCP_BENCH, ns3_args(d)
    else:
        raise Unsupported(f"no ns-3 mirror of a {d['topology']['kind']} topology")
    program_variant, recovery, cc = m
    args = [a for a in args if not a.startswith(("variant=", "recovery=", "cc="))]
    return src, args + [f"variant={program_variant}", f"recovery={recovery}", f"cc={cc}"]


@dataclass(frozen=True)
class WindowTrace:
    """One flow's congestion window over time, in segments: the window is
    `cwnd[i]` from `t[i]` to `t[i + 1]`; `events` are the instants of its
    fast retransmits (entries into fast recovery)."""

    t: list[float]
    cwnd: list[float]
    events: list[float]


def read_window_trace(path: Path, mss: int) -> WindowTrace:
    """The "W <t> <cwnd>" and "R <t>" (fast recovery entered) lines of the
    programs' cwndtrace file."""
    t: list[float] = []
    cwnd: list[float] = []
    events: list[float] = []
    for line in path.read_text().splitlines():
        kind, at, *value = line.split()
        if kind == "W":
            t.append(float(at))
            cwnd.append(int(value[0]) / mss)
        elif kind == "R":
            events.append(float(at))
    return WindowTrace(t, cwnd, events)


def lossy_flow_args(d: dict[str, Any]) -> list[str]:
    """lossy_flow.cc's arguments for scenario 2's one-hop chain."""
    tcp, rcv = d["tcp"], d["receiver"]
    (hop,) = d["topology"]["hops"]
    err = hop.get("fwd_error", {"model": "none"})
    assert err["model"] in ("none", "bernoulli") and err.get("applies_to", "data") == "data", err
    rto = tcp["rto"]
    # lossy_flow.cc fixes what ns-3 fixes or defaults to: initial RTO 1 s
    # (RttEstimator::InitialEstimation), 1 ms granularity, 60 s ceiling.
    assert (seconds(rto["initial"]), seconds(rto["granularity"]), seconds(rto["max"])) == (1.0, 0.001, 60.0), rto
    assert tcp["dupthresh"] == 3 and rcv.get("ack", "every") == "every", (tcp, rcv)
    a = {
        "p": err.get("p", 0.0),
        "rtt": 2 * seconds(hop["delay"]),
        "duration": seconds(d["run"]["duration"]),
        "variant": tcp["variant"],
        "rate": rate(hop["rate"]),
        "mss": size(tcp["mss"]),
        "window": size(rcv["window"]),
        "queue": hop["queue"]["limit_packets"],
        "iw": tcp["initial_window"],
        "minrto": seconds(rto["min"]),
        "seed": d["run"].get("seed", 1),
    }
    return [f"{k}={v}" for k, v in a.items()]
