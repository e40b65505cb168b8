"""The tools a scenario is run through: a registry of peers (`PEERS`).

dupack (through its Python API) and ns-2 (validation/ns2/*.tcl and
bench/ns2/tcp_bench.tcl) are here, ns-3 in validation/ns3peer.py; what a
peer provides and returns is in validation/peerapi.py.
"""

from __future__ import annotations

import inspect
import shutil
import tempfile
from pathlib import Path
from typing import Any

from bench import measure, mirror
from validation import packets
from validation.common import HEADER_BYTES, NS2_DIR, ROOT, ns2_package_version, parse_kv_line, run_ns
from validation.ns3peer import Ns3
from validation.peerapi import FlowStats, Peer, QueueStats, Transfer, Unsupported


# --------------------------------------------------------------------------
# dupack, through its Python API


class Dupack:
    name = "dupack"

    def available(self) -> str | None:
        try:
            import dupack
        except ImportError as e:
            return f"the dupack package is not importable ({e}); pip install . first"
        # An older installed dupack lacks what the suite reads (packet traces,
        # the mean queue): say so rather than fail half-way.
        if "trace" not in inspect.signature(dupack.run).parameters:
            where = getattr(dupack, "__file__", "?")
            return (f"the installed dupack ({where}) predates packet traces (dupack.run(..., trace=...)); "
                    "pip install . from this checkout")
        return None

    def version(self) -> str:
        """The installed package's version and the commit it was built from
        (the build that ran, which a report rendered later from saved
        results, or from another checkout, would otherwise misname)."""
        import dupack

        built = str(dupack.provenance().get("commit", "unknown"))
        dirty = built.endswith("+dirty")
        commit = built.removesuffix("+dirty")[:7] + ("+dirty" if dirty else "")
        if commit.startswith("unknown"):
            commit = measure.sh(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"])
        return f"dupack {dupack.__version__} (commit {commit})"

    def fall_floyd(self, doc: dict[str, Any]) -> packets.Series:
        import dupack

        flow = doc["flows"][0]["name"]
        res = dupack.run(doc, trace=[flow])
        mss = mirror.size(doc["tcp"]["mss"])
        s = packets.dupack_series(res.trace, mss)
        f = res.flows.iloc[0]
        if f["completion_time_s"] == f["completion_time_s"]:  # not NaN
            s.done_at = float(f["completion_time_s"])
        return s

    def transfer(self, doc: dict[str, Any]) -> Transfer:
        """The scenario-1 style finite transfer `doc`: its completion time and counts."""
        import dupack

        f = dupack.run(doc).flows.iloc[0]
        t = float(f["completion_time_s"])
        if t != t:
            raise RuntimeError(f"{doc['name']}: the transfer did not complete in {doc['run']['duration']}")
        return Transfer(t, int(f["timeouts"]), int(f["fast_retransmits"]), int(f["retransmitted_segments"]))

    def greedy(self, doc: dict[str, Any], seed: int) -> list[FlowStats]:
        import dupack

        fl = dupack.run(doc, seed=seed).flows
        return [
            FlowStats(
                float(r.goodput_kbps), int(r.fast_retransmits), int(r.timeouts), int(r.retransmitted_segments), int(r.segments_sent),
                float(r.rtt_mean_s), float(r.timeout_episodes)
            )
            for r in fl.itertuples(index=False)
        ]

    def queue(self, doc: dict[str, Any], seed: int) -> QueueStats:
        import dupack

        links = dupack.run(doc, seed=seed).links
        b = links[(links.link == "bottleneck") & (links.direction == "fwd")].iloc[0]
        dropped = int(b.drops_queue)
        return QueueStats(
            int(b.packets_sent) + dropped,
            dropped,
            int(b.marks),
            float(b.utilisation),
            float(b.max_queue_packets),
            float(b.mean_queue_packets),
        )


# --------------------------------------------------------------------------
# ns-2.35, through the OTcl mirrors


class Ns2:
    name = "ns-2"

    def available(self) -> str | None:
        if shutil.which("ns") is None:
            return "ns-2 (`ns`) is not installed: apt-get install ns2 (Debian/Ubuntu)"
        return None

    def version(self) -> str:
        return f"ns-2 {ns2_package_version()} (Debian ns2)"

    def fall_floyd(self, doc: dict[str, Any]) -> packets.Series:
        args = fall_floyd_args(doc)
        with tempfile.TemporaryDirectory() as d:
            tr, vs = Path(d) / "ff.tr", Path(d) / "ff.vars"
            run_ns(NS2_DIR / "fall_floyd.tcl", dict(args, trace=tr, vars=vs), outputs=("trace", "vars"))
            return packets.ns2_series(tr, vs, args["packets"])

    def transfer(self, doc: dict[str, Any]) -> Transfer:
        args = fall_floyd_args(doc)
        with tempfile.NamedTemporaryFile("w", suffix=".drops") as f:
            # Long drop lists go through a file: a command line has limits.
            f.write(args.pop("drops"))
            f.flush()
            out = run_ns(NS2_DIR / "fall_floyd.tcl", dict(args, dropfile=f.name), inputs=("dropfile",))
        done = parse_kv_line(out, "DONE")
        if not done:
            raise RuntimeError(f"{doc['name']}: ns-2's transfer did not complete in {args['duration']} s")
        # Read when the transfer completed (fall_floyd.tcl's `done`); fast
        # retransmits as tcp_bench's: every window cut that was not a timeout.
        d = done[0]
        return Transfer(d["t"], int(d["nrexmit"]), int(d["ncwndcuts"]) - int(d["nrexmit"]), int(d["nrexmitpack"]))

    # The variants tcp_bench.tcl mirrors (ns-2.35 has no RFC 6675, PRR or RACK).
    GREEDY_VARIANTS = ("reno", "newreno", "newreno+ecn", "sack", "vegas")

    def greedy(self, doc: dict[str, Any], seed: int) -> list[FlowStats]:
        if doc["tcp"]["variant"] not in self.GREEDY_VARIANTS:
            raise Unsupported(f"ns-2.35 has no {doc['tcp']['variant']}")
        out = run_ns(ROOT / "bench" / "ns2" / "tcp_bench.tcl", greedy_args(doc, seed))
        mss = mirror.size(doc["tcp"]["mss"])
        dur = mirror.seconds(doc["run"]["duration"])
        return [ns2_flow(r, mss, dur) for r in parse_kv_line(out, "FLOW")]

    def queue(self, doc: dict[str, Any], seed: int) -> QueueStats:
        with tempfile.TemporaryDirectory() as d:
            qtr = Path(d) / "q.tr"
            out = run_ns(ROOT / "bench" / "ns2" / "tcp_bench.tcl", dict(greedy_args(doc, seed), qtrace=qtr),
                         outputs=("qtrace",))
            marks, maxq = queue_trace(qtr)
        q = parse_kv_line(out, "QUEUE")
        if not q:
            raise RuntimeError("tcp_bench.tcl printed no QUEUE line")
        r = q[0]
        return QueueStats(int(r["arrivals"]), int(r["drops"]), marks, r["utilisation"], maxq, r["avg_queue"])


def queue_trace(path: Path) -> tuple[int, int]:
    """CE marks and the longest queue (packets waiting) in an ns-2 queue trace.

    '+' is an arrival, '-' the start of a transmission, 'd' a drop of an
    arrival; the fourth flag character is 'E' on a packet marked CE."""
    marks = q = maxq = 0
    with path.open() as f:
        for line in f:
            ev = line[0]
            if ev == "+":
                q += 1
            elif ev in "-d":
                if ev == "-":
                    # The queue only shrinks here (a drop refuses an arrival
                    # that never waited), so its largest value is seen here.
                    maxq = max(maxq, q)
                q -= 1
                if ev == "-":
                    flags = line.split()[6]
                    marks += flags[4] == "E" if len(flags) > 4 else 0
    return marks, maxq


def sink_packets(sink_bytes: float, ack: float, mss: int) -> float:
    """Packets the sink delivered in order, from TCPSink's bytes_ (whole
    packets of mss + 40 bytes). bytes_ is a 32-bit int in ns-2 and wraps
    after 2 GiB; the sender's highest cumulative ACK (ack_, a packet
    number) says how many times."""
    size = mss + HEADER_BYTES
    wraps = round(((ack + 1) * size - sink_bytes) / 2**32)
    return (sink_bytes + wraps * 2**32) / size


def ns2_flow(r: dict[str, float], mss: int, duration: float) -> FlowStats:
    good = sink_packets(r["sink_bytes"], r["ack"], mss) * mss * 8 / duration / 1000
    # ncwndcuts_ counts every slowdown(): one per fast retransmit and one per
    # timeout of a greedy sender (never idle); ECN responses are counted apart.
    fr = int(r["ncwndcuts"] - r["nrexmit"] - r.get("necn", 0))
    return FlowStats(good, fr, int(r["nrexmit"]), int(r["nrexmitpack"]), int(r["ndatapack"]))


def fall_floyd_args(doc: dict[str, Any]) -> dict[str, Any]:
    tcp, rcv = doc["tcp"], doc["receiver"]
    access, bneck = doc["topology"]["hops"]
    mss = mirror.size(tcp["mss"])
    rto = tcp["rto"]
    flow = doc["flows"][0]
    err = bneck.get("fwd_error", {"model": "none"})
    drops = err.get("packets", []) if err["model"] == "droplist" else []
    assert access["queue"]["limit_packets"] == bneck["queue"]["limit_packets"]
    variant = flow.get("variant", tcp["variant"])
    base, lt = (variant[: -len("+lt")], 1) if variant.endswith("+lt") else (variant, 0)
    timer = rto.get("timer", "fine")
    return {
        "variant": base,
        "lt": lt,
        "drops": ",".join(str(d) for d in drops),
        "packets": mirror.size(flow["bytes"]) // mss,
        "mss": mss,
        "window": mirror.size(rcv["window"]) // mss,
        "iw": tcp["initial_window"],
        "queue": bneck["queue"]["limit_packets"],
        "access_rate": mirror.rate(access["rate"]),
        "access_delay": mirror.seconds(access["delay"]),
        "bneck_rate": mirror.rate(bneck["rate"]),
        "bneck_delay": mirror.seconds(bneck["delay"]),
        # ns-2's tcpTick_: the fine timer's granularity, or the ns2 timer's tick.
        "tick": mirror.seconds(rto["tick"] if timer == "ns2" else rto["granularity"]),
        "minrto": mirror.seconds(rto["min"]),
        "initrto": mirror.seconds(rto["initial"]),
        "maxrto": mirror.seconds(rto["max"]),
        "sackblocks": rcv["max_sack_blocks"],
        "duration": mirror.seconds(doc["run"]["duration"]),
    }


def greedy_args(doc: dict[str, Any], seed: int) -> dict[str, Any]:
    """tcp_bench.tcl's arguments for a dumbbell or a one-hop chain with
    Bernoulli loss on data (bench/mirror.py's mirror), plus RED and ECN."""
    d = mirror.apply(doc, {"run.seed": seed})
    topo = d["topology"]
    if topo["kind"] == "chain":
        # tcp_bench.tcl's `link` topology; bench/mirror.py reads BER there,
        # the validation's lossy link is Bernoulli.
        hop = topo["hops"][0]
        err = hop.get("fwd_error", {"model": "none"})
        assert err["model"] in ("none", "bernoulli") and err.get("applies_to", "data") == "data", err
        d["topology"] = {"kind": "chain", "hops": [dict(hop, fwd_error={"model": "ber", "ber": 0.0})]}
        args = dict(a.split("=", 1) for a in mirror.ns2_args(d))
        args["loss"] = err.get("p", 0.0)
    else:
        args = dict(a.split("=", 1) for a in mirror.ns2_args(d))
        q = topo["bottleneck"]["queue"]
        if q.get("kind", "droptail") == "red":
            args.update(red_args(q))
    if d["tcp"].get("max_cwnd"):
        args["maxcwnd"] = mirror.size(d["tcp"]["max_cwnd"]) // mirror.size(d["tcp"]["mss"])
    variant = d["tcp"]["variant"]
    args["variant"] = variant
    return args


def red_args(q: dict[str, Any]) -> dict[str, Any]:
    return {
        "bneck_kind": "red",
        "bneck_q": q.get("limit_packets", 50),
        "red_min": q.get("min_th", 5),
        "red_max": q.get("max_th", 15),
        "red_maxp": q.get("maxp", 0.1),
        "red_wq": q.get("wq", 0.002),
        "red_gentle": int(bool(q.get("gentle", False))),
        "red_ecn": int(bool(q.get("ecn", False))),
        "red_mean_pkt": mirror.size(q.get("mean_packet_size", "1000B")),
    }


PEERS: dict[str, Peer] = {"dupack": Dupack(), "ns2": Ns2(), "ns3": Ns3()}
