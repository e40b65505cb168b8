"""Scenario 5: dupack's Snoop agent against ns-2.35's LL/LLSnoop.

One greedy Reno flow over irw Fig. 2's path (scenarios/irw-snoop.toml):
fixed host —10 Mbit/s, 20 ms— base station —2 Mbit/s, 10 ms, Bernoulli loss
p on data— mobile, receiver window 32 segments, with and without a Snoop
agent at the base station, in both tools (ns-2: validation/ns2/snoop.tcl).
Compared per tool: goodput with and without Snoop, the Snoop gain (their
ratio), the sender's fast retransmits and timeouts, and the agent's local
retransmissions and suppressed duplicate ACKs.

Both tools run the agent with ns-2.35's local-timer constants: a 100 ms
floor (ns-2's snoopTick_) and 1.1 s before the first RTT sample (its
initial srtt_ + 4·rttvar_ = 0.1 + 4·0.25 s).
"""

from __future__ import annotations

import copy
import math
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from bench import mirror
from validation.common import NS2_DIR, ROOT, Estimate, estimate, load_toml, parse_kv_line, rel, run_ns
from validation.peerapi import Peer
from validation.peers import ns2_flow

PS = (0.0, 0.01, 0.05, 0.10)
QUICK = (0.01, 0.05)
DURATION = 100.0  # seconds per run (the scenario's own)
# Without Snoop, at p >= 5 % the flow lives on timeouts (about one every
# 2 s) and goodput varies several times more from seed to seed than
# below; as in scenario 2 those rows get more replications in --full.
HIGH_LOSS = 0.05
HIGH_LOSS_SEEDS = 30
MODES = ("plain", "snoop")

# ns-2.35's Snoop timer constants (tcl/lib/ns-default.tcl: snoopTick_ 0.1,
# srtt_ 0.1, rttvar_ 0.25; tcp/snoop.h: timeout() = max(srtt_ + 4·rttvar_,
# snoopTick_)), given to dupack's agent as its floor and first timeout.
SNOOP_TICK = 0.1
SNOOP_INITIAL = 0.1 + 4 * 0.25

# Stated tolerances (docs/validation.md repeats them with their reasons).
PLAIN_TOL = 5.0  # per cent: goodput without Snoop, dupack against ns-2
SNOOP_TOL = 10.0  # per cent: goodput with Snoop
GAIN_TOL = 15.0  # per cent: the Snoop gain (ratio), dupack against ns-2
# With Snoop the sender's fast retransmits per delivered segment fall to at
# most this share of the plain run's. Per delivered segment, because Snoop
# multiplies the segments sent: at p = 10 % a plain Reno sender lives on
# timeouts and rarely has the four segments out that a fast retransmit
# needs, so its raw count is small.
FR_CUT = 0.25
MSS = 1000


@dataclass(frozen=True)
class SnoopRun:
    goodput_kbps: float
    fast_retransmits: int
    timeouts: int
    local_rexmits: int  # segments the agent resent (dupack- and timer-triggered)
    dupacks_suppressed: int


@dataclass
class Row:
    p: float
    duration: float
    # tool -> mode ("plain", "snoop") -> metric -> estimate over the seeds
    metrics: dict[str, dict[str, dict[str, Estimate]]]
    # tool -> per-seed gains (snoop goodput / plain goodput, same seed)
    gains: dict[str, Estimate]


def doc(p: float, snoop: bool, duration: float = DURATION) -> dict[str, Any]:
    d = load_toml(ROOT / "scenarios" / "irw-snoop.toml")
    d["name"] = f"validation-snoop-{'snoop' if snoop else 'plain'}-{p:g}"
    d["run"]["duration"] = f"{duration:g}s"
    hop = d["topology"]["hops"][1]
    if p > 0:
        hop["fwd_error"]["p"] = p
    else:
        hop.pop("fwd_error")
    if snoop:
        hop["snoop"] = {"min_timeout": f"{SNOOP_TICK * 1000:g}ms", "initial_timeout": f"{SNOOP_INITIAL * 1000:g}ms"}
    else:
        hop.pop("snoop", None)
    return d


# --------------------------------------------------------------------------
# The two tools


def dupack_run(d: dict[str, Any], seed: int) -> SnoopRun:
    import dupack

    res = dupack.run(d, seed=seed)
    f = res.flows.iloc[0]
    links = res.links
    wl = links[(links["from"] == "n1") & (links["to"] == "n2")].iloc[0]
    return SnoopRun(
        float(f.goodput_kbps), int(f.fast_retransmits), int(f.timeouts), int(wl.link_retransmissions), int(wl.dupacks_suppressed)
    )


def ns2_args(d: dict[str, Any], seed: int) -> dict[str, Any]:
    wired, wl = d["topology"]["hops"]
    err = wl.get("fwd_error", {"model": "none"})
    assert err["model"] in ("none", "bernoulli") and err.get("applies_to", "data") == "data", err
    sn = wl.get("snoop")
    if sn is not None:
        # ns-2's timer is max(srtt_ + 4·rttvar_, snoopTick_) from srtt_ 0.1 and
        # rttvar_ 0.25: only these constants are mirrored.
        assert mirror.seconds(sn["min_timeout"]) == SNOOP_TICK and mirror.seconds(sn["initial_timeout"]) == SNOOP_INITIAL, sn
    tcp, rto = d["tcp"], d["tcp"].get("rto", {})
    mss = mirror.size(tcp["mss"])
    return {
        "ll": "LL/LLSnoop" if sn is not None else "LL",
        "loss": err.get("p", 0.0),
        "seed": seed,
        "duration": mirror.seconds(d["run"]["duration"]),
        "wired_rate": mirror.rate(wired["rate"]),
        "wired_delay": mirror.seconds(wired["delay"]),
        "wired_queue": wired.get("queue", {}).get("limit_packets", 100),
        "wl_rate": mirror.rate(wl["rate"]),
        "wl_delay": mirror.seconds(wl["delay"]),
        "wl_queue": wl.get("queue", {}).get("limit_packets", 100),
        "mss": mss,
        "window": mirror.size(d["receiver"]["window"]) // mss,
        "iw": tcp.get("initial_window", 1),
        "minrto": mirror.seconds(rto.get("min", "1s")),
        "initrto": mirror.seconds(rto.get("initial", "1s")),
        "maxrto": mirror.seconds(rto.get("max", "60s")),
        "tick": mirror.seconds(rto.get("granularity", "1ms")),
    }


def ns2_run(d: dict[str, Any], seed: int) -> SnoopRun:
    args = ns2_args(d, seed)
    with tempfile.TemporaryDirectory() as tmp:
        tr = Path(tmp) / "s5.tr"
        out = run_ns(NS2_DIR / "snoop.tcl", dict(args, trace=tr), outputs=("trace",))
        nodes = parse_kv_line(out, "NODES")[0]
        local, suppressed = lan_counts(tr, int(nodes["bs"]), int(nodes["mh"]), int(nodes["lan"]), args["duration"])
    flow = ns2_flow(parse_kv_line(out, "FLOW")[0], args["mss"], args["duration"])
    return SnoopRun(flow.goodput_kbps, flow.fast_retransmits, flow.timeouts, local, suppressed)


def lan_counts(path: Path, bs: int, mh: int, lan: int, end: float) -> tuple[int, int]:
    """The agent's local retransmissions and suppressed duplicate ACKs, from
    the LAN interfaces' records of an ns-2 trace (ns-2's Snoop keeps no
    counters). On a LAN member's interface `+` is a packet its LL hands to
    the interface queue, `h` one coming from the node and `r` one its LL
    passes up to the node; the last field is the packet's uid, which a copy
    keeps. A local retransmission is a copy of a cached packet: a data
    packet the base station queues a second time (the sender's own
    retransmissions are new packets). A suppressed ACK left the mobile and
    never came up at the base station; ACKs of the last second, possibly
    still in flight at the end, are left out."""
    queued: set[str] = set()
    local = 0
    acks: set[str] = set()
    bs_s, mh_s, lan_s = str(bs), str(mh), str(lan)
    with path.open() as f:
        for line in f:
            x = line.split()
            ev, a, b, kind, uid = x[0], x[2], x[3], x[4], x[11]
            if kind == "tcp" and ev == "+" and a == bs_s and b == lan_s:
                if uid in queued:
                    local += 1
                queued.add(uid)
            elif kind == "ack":
                if ev == "h" and a == mh_s and b == lan_s and float(x[1]) < end - 1.0:
                    acks.add(uid)
                elif ev == "r" and a == lan_s and b == bs_s:
                    acks.discard(uid)
    return local, len(acks)


RUNNERS: dict[str, Callable[[dict[str, Any], int], SnoopRun]] = {"dupack": dupack_run, "ns2": ns2_run}


# --------------------------------------------------------------------------
# The scenario


def run_case(p: float, peers: dict[str, Peer], seeds: int, duration: float = DURATION) -> Row:
    metrics: dict[str, dict[str, dict[str, Estimate]]] = {}
    gains: dict[str, Estimate] = {}
    for name in peers:
        runner = RUNNERS.get(name)
        if runner is None:
            continue
        runs = {m: [runner(doc(p, m == "snoop", duration), s) for s in range(1, seeds + 1)] for m in MODES}
        metrics[name] = {
            m: {
                "goodput": estimate([r.goodput_kbps for r in rs]),
                "fast_retransmits": estimate([float(r.fast_retransmits) for r in rs]),
                "timeouts": estimate([float(r.timeouts) for r in rs]),
                "local_rexmits": estimate([float(r.local_rexmits) for r in rs]),
                "dupacks_suppressed": estimate([float(r.dupacks_suppressed) for r in rs]),
            }
            for m, rs in runs.items()
        }
        gains[name] = estimate([s.goodput_kbps / q.goodput_kbps for s, q in zip(runs["snoop"], runs["plain"], strict=True)])
    return Row(p, duration, metrics, gains)


def run(peers: dict[str, Peer], quick: bool, seeds: int) -> list[Row]:
    if quick:
        return [run_case(p, peers, seeds) for p in QUICK]
    return [run_case(p, peers, max(seeds, HIGH_LOSS_SEEDS) if p >= HIGH_LOSS else seeds) for p in PS]


# --------------------------------------------------------------------------
# Checks and the report section


def checks(r: Row, peer: str = "ns2") -> dict[str, bool | None]:
    """The agreement criteria of docs/validation.md for one row."""
    d, n = r.metrics.get("dupack"), r.metrics.get(peer)
    if not d or not n:
        return {}
    out: dict[str, bool | None] = {}
    out["plain goodput"] = close(d["plain"]["goodput"], n["plain"]["goodput"], PLAIN_TOL)
    out["Snoop goodput"] = close(d["snoop"]["goodput"], n["snoop"]["goodput"], SNOOP_TOL)
    if r.p > 0:
        out["gain"] = close(r.gains["dupack"], r.gains[peer], GAIN_TOL)
        out["Snoop helps (both)"] = all(r.gains[t].mean > 1 for t in ("dupack", peer))
        out["fast retransmits cut (both)"] = all(
            fr_rate(r, m["snoop"]) <= FR_CUT * fr_rate(r, m["plain"]) for m in (d, n)
        )
    return out


def close(a: Estimate, b: Estimate, tol: float) -> bool:
    """Within `tol` per cent, or not distinguishable from it: the gap is
    inside the two 95 % intervals combined (sqrt(ha² + hb²))."""
    gap = abs(a.mean - b.mean)
    if gap <= tol / 100 * abs(b.mean):
        return True
    ha = 0.0 if math.isnan(a.half) else a.half
    hb = 0.0 if math.isnan(b.half) else b.half
    return gap <= math.hypot(ha, hb)


def fr_rate(r: Row, m: dict[str, Estimate]) -> float:
    """The sender's fast retransmits per 1000 segments delivered."""
    delivered = m["goodput"].mean * 1000 * r.duration / 8 / MSS
    return m["fast_retransmits"].mean / delivered * 1000 if delivered else math.inf


def _f(e: Estimate | None, spec: str) -> str:
    return "—" if e is None or math.isnan(e.mean) else e.fmt(spec)


def section(rows: list[Row], peers: dict[str, Peer]) -> list[str]:
    others = [n for n in peers if n != "dupack" and n in RUNNERS]
    peer = others[0] if others else None
    L = [
        "## 5. Snoop against ns-2's LL/LLSnoop\n",
        "`scenarios/irw-snoop.toml`: one Reno flow, fixed host —10 Mbit/s, 20 ms— base station —2 Mbit/s, 10 ms, "
        "50-packet DropTail, Bernoulli loss p on data— mobile; MSS 1000 B, receiver window 32 segments, "
        f"{DURATION:g} s per run; mean ± 95 % CI over the seeds. Each tool runs the path without an agent "
        "(\"plain\") and with Snoop at the base station; the gain is the ratio of the two goodputs, seed by seed. "
        "ns-2 (`validation/ns2/snoop.tcl`): the wireless hop is a two-member LAN (`make-lan`, base `Mac`, `LL` at "
        "the mobile, `LL/LLSnoop` or `LL` at the base station), the loss an `ErrorModel` between the mobile's MAC "
        "and LL. Both agents use ns-2's timer constants (100 ms floor, 1.1 s before the first sample). "
        "ns-2's local retransmissions and suppressed ACKs are counted from its LAN trace (its Snoop has no counters).\n",
        f"Targets: the same qualitative behaviour — at every p ≥ 1 % Snoop raises goodput and cuts the sender's "
        f"fast retransmits per segment delivered to at most {FR_CUT * 100:.0f} % of the plain run's, in both "
        "tools — and goodput within "
        f"±{PLAIN_TOL:g} % without Snoop, ±{SNOOP_TOL:g} % with it, the gain within ±{GAIN_TOL:g} % (a gap "
        "inside the two 95 % intervals combined, √(h₁² + h₂²), also counts as met: without Snoop at p ≥ 5 % the "
        "flow lives on timeouts and 30 seeds still leave intervals of about ±10 %). The wider tolerances with "
        "Snoop are for the smaller differences of the two agents listed below; where a row misses them, the "
        "`met` column names the differences that were shown by experiment to cause the gap.\n",
    ]
    if not rows:
        return L
    cols = ["dupack"] + ([peer] if peer else [])
    L.append("Goodput (kbit/s) and the Snoop gain:\n")
    head = ["p", "seeds"] + [f"{m} {c}" for m in MODES for c in cols] + [f"gain {c}" for c in cols] + ["met"]
    L.append("| " + " | ".join(head) + " |")
    L.append("|" + "---:|" * (len(head) - 1) + "---|")
    for r in rows:
        n = r.metrics["dupack"]["plain"]["goodput"].n
        cells = [f"{r.p:g}", str(n)]
        cells += [_f(r.metrics.get(c, {}).get(m, {}).get("goodput"), ".0f") for m in MODES for c in cols]
        cells += [_f(r.gains.get(c), ".2f") for c in cols]
        ch = checks(r, peer) if peer else {}
        misses = [k for k, v in ch.items() if v is False]
        verdict = "—" if not ch else ("yes" if not misses else "**no**: " + ", ".join(misses))
        if set(misses) <= {"Snoop goodput", "gain"} and misses and r.gains["dupack"].mean > r.gains[peer].mean:
            # Ahead of ns-2 with Snoop only: the two causes isolated below.
            verdict += " (`rexmit_priority`, `rtt_sampling`)"
        cells.append(verdict)
        L.append("| " + " | ".join(cells) + " |")
    L.append("")
    L.append("The sender's fast retransmits (FR; also per 1000 segments delivered) and timeouts (TO), and the "
             "agent's work in the Snoop runs: local retransmissions and duplicate ACKs kept from the sender:\n")
    head = ["p"]
    for m in MODES:
        head += [f"{m} FR {c}" for c in cols] + [f"{m} FR/1000 {c}" for c in cols] + [f"{m} TO {c}" for c in cols]
    head += [f"local rexmits {c}" for c in cols] + [f"dupacks suppressed {c}" for c in cols]
    L.append("| " + " | ".join(head) + " |")
    L.append("|" + "---:|" * len(head))
    for r in rows:
        cells = [f"{r.p:g}"]
        for m in MODES:
            cells += [_f(r.metrics.get(c, {}).get(m, {}).get("fast_retransmits"), ".1f") for c in cols]
            cells += [f"{fr_rate(r, r.metrics[c][m]):.2f}" if c in r.metrics else "—" for c in cols]
            cells += [_f(r.metrics.get(c, {}).get(m, {}).get("timeouts"), ".1f") for c in cols]
        for k in ("local_rexmits", "dupacks_suppressed"):
            cells += [_f(r.metrics.get(c, {}).get("snoop", {}).get(k), ".0f") for c in cols]
        L.append("| " + " | ".join(cells) + " |")
    L.append("")
    L += DIFFERENCES
    return L


DIFFERENCES = [
    "Model differences between the two agents (read from ns-2.35's `tcp/snoop.cc`, `tcp/snoop.h`, `mac/ll.cc` "
    "and `tcl/lan/vlan.tcl`; dupack's is `crates/dupack-sim/src/net/snoop.rs`), and what each does to the figures. "
    "The two that matter were isolated by experiment: dupack with one of them switched to ns-2's way "
    "(the first is the scenario key `snoop.local_rexmit = \"queue\"`; the second was a throw-away change, not "
    "part of dupack), p = 1 %, 5 %, 10 %, seeds 1–10, Snoop goodput in kbit/s:\n",
    "| dupack's agent | p = 1 % | 5 % | 10 % |",
    "|---|---:|---:|---:|",
    "| as shipped | 1898 | 1705 | 1173 |",
    "| local retransmission queued like any packet (`rexmit_priority` as ns-2: `local_rexmit = \"queue\"`) | 1800 | 1398 | 874 |",
    "| that, and RTT samples as ns-2 takes them (`rtt_sampling` as ns-2) | 1800 | 1266 | 581 |",
    "| ns-2 `LL/LLSnoop` | 1809 | 1279 | 595 |",
    "",
    "With both switched, dupack's agent gives ns-2's goodput within 2.5 % (−0.5 %, −1.0 %, −2.4 %), and its "
    "local retransmissions and suppressed duplicate ACKs move to ns-2's magnitude; so the rest of the two "
    "agents (the duplicate-ACK rules, the timer's constants and backoff, the LAN mirror) accounts for little "
    "goodput.\n",
    "- `rexmit_priority` — *where the local retransmission goes.* ns-2 hands it to the link layer like any "
    "packet, so it waits behind the base station's whole interface queue (`Snoop::snoop_rxmit` remarks that it "
    "should rather go at a higher priority); dupack sends it ahead of the queue, as Balakrishnan et al. §3 do "
    "(`snoop.local_rexmit = \"queue\"` does as ns-2). "
    "With a 32-segment window about 16 packets wait at the base station (the path holds about 16), so in ns-2 "
    "every wireless loss stalls the mobile's cumulative ACK about 16 packet times (67 ms) longer, during which "
    "the sender's window is spent, and ns-2's agent suppresses about three times as many duplicate ACKs at "
    "p = 1 %.",
    "- `rtt_sampling` — *the local timer's RTT samples.* ns-2 times the newest segment a new ACK frees "
    "(`snoop_cleanbufs_`) even when that ACK ends a local repair; the segments behind the hole reached the "
    "mobile long before, so the sample carries the whole recovery, and ns-2's estimator gives the newest "
    "sample a weight of 7/8 (g = 0.125 on the old value). The local timer then runs far above the hop's round "
    "trip and a lost local retransmission waits long. dupack applies Karn's rule to every segment the ACK "
    "covers. dupack had ns-2's behaviour until this comparison showed it (srtt near 350 ms on a hop whose "
    "round trip is 15–80 ms, a local timer slower than the sender's 1 s RTO, 12.6 sender timeouts per 100 s "
    "at p = 10 %); the fixed agent's timeouts are 0.7.",
    "- *Duplicate ACKs the sender sees.* ns-2 lets the first duplicate ACK of a loss through and retransmits on "
    "the second (`RTX_THRESH` 1, a counter shared by every agent of the simulation), then suppresses only as "
    "many as it expects from the segments cached behind the lost one (`expDupacks_`) and forwards the rest; "
    "dupack retransmits on the first, suppresses every duplicate until new data is acknowledged and leaves a "
    "lost local retransmission to its local timer (irw §2.1). So with Snoop ns-2's sender still "
    "fast-retransmits now and then (about 1 and 2 per 1000 segments delivered at 5 % and 10 %), dupack's "
    "never. In the experiment above this difference is kept and costs at most 2.5 %.",
    "- *Local timer constants.* ns-2: max(srtt + 4·rttvar, 100 ms), no backoff, at most 10 local "
    "retransmissions of a segment; dupack: RFC 6298's gains (1/8, 1/4), doubled on each expiry, no limit. "
    "Both start from 1.1 s and floor at 100 ms here. Without the backoff dupack's goodput changed by under "
    "2.5 % (measured before the sampling fix).",
    "- *Caching.* ns-2 caches a segment only while the interface queue holds fewer than limit − 1 packets and "
    "at most 100 segments; dupack caches every segment. With a 32-segment window and a 50-packet queue neither "
    "limit is reached here.",
    "- *The LAN.* ns-2's base `Mac` adds a 64-byte header to each frame's air time and delivers a frame when its "
    "transmission starts; `snoop.tcl` raises the LAN's rate by 64/1040 and sets each LL's delay to a quarter "
    "of dupack's round trip over the hop (two propagation delays and one data and one ACK serialisation), so "
    "a data packet occupies the hop as long as in dupack and the round trip is the same: without loss the two "
    "tools give the same goodput to the last digit. An ns-2 LL delays a packet before the interface queue, "
    "dupack's link after it; with no queue overflow this only moves where the packet waits.",
    "",
]
