"""Scenario 4: RED and ECN-RED against ns-2's Queue/RED.

The same greedy NewReno flows (ECN-capable for ECN-RED) through the same
RED bottleneck in both tools; compared: the share of arrivals dropped and
marked, link utilisation, aggregate goodput, and the time-averaged and
longest queue. The
arrivals are the same process (same flows, same links), not the same
packets: RED's random draws and the TCP feedback differ run by run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from validation.common import SCENARIOS, Estimate, estimate, load_toml
from validation.peerapi import Peer, supports

# (label, queue overrides, variant)
QUEUES = {
    "RED": ({"ecn": False}, "newreno"),
    "ECN-RED": ({"ecn": True}, "newreno+ecn"),
}
NS = (10, 30)
QUICK = [("RED", 10), ("ECN-RED", 10)]


def doc(label: str, n: int, duration: float) -> dict[str, Any]:
    q, variant = QUEUES[label]
    d = load_toml(SCENARIOS / "red_dumbbell.toml", {"topology.senders": n, "tcp.variant": variant, "run.duration": f"{duration:g}s"})
    d["topology"]["bottleneck"]["queue"].update(q)
    return d


@dataclass
class Row:
    label: str
    n: int
    metrics: dict[str, dict[str, Estimate]]


def cases(quick: bool) -> list[tuple[str, int]]:
    return list(QUICK) if quick else [(q, n) for q in QUEUES for n in NS]


# The control: dupack again with ns-2's RED decision rules (queue.rules =
# "ns2", docs/scenario.md), to isolate what the two implementations' rules
# account for; reported under this name beside the peers.
NS2_RULES = "dupack_ns2_rules"


def run_case(label: str, n: int, peers: dict[str, Peer], seeds: int, duration: float) -> Row:
    d = doc(label, n, duration)
    out: dict[str, dict[str, Estimate]] = {}
    runs = [(name, peer, d) for name, peer in peers.items()]
    if "dupack" in peers:
        ns2_rules = doc(label, n, duration)
        ns2_rules["topology"]["bottleneck"]["queue"]["rules"] = "ns2"
        runs.append((NS2_RULES, peers["dupack"], ns2_rules))
    for name, peer, d in runs:
        if not (supports(peer, "queue") and supports(peer, "greedy")):
            continue
        qs = [peer.queue(d, s) for s in range(1, seeds + 1)]
        gs = [sum(f.goodput_kbps for f in peer.greedy(d, s)) for s in range(1, seeds + 1)]
        out[name] = {
            "drop_rate": estimate([q.drops / q.arrivals * 100 for q in qs]),
            "mark_rate": estimate([q.marks / q.arrivals * 100 for q in qs]),
            "utilisation": estimate([q.utilisation * 100 for q in qs]),
            "goodput": estimate(gs),
            "max_queue": estimate([q.max_queue for q in qs]),
            "mean_queue": estimate([q.mean_queue for q in qs]),
        }
    return Row(label, n, out)


def run(peers: dict[str, Peer], quick: bool, seeds: int) -> list[Row]:
    dur = 50 if quick else 200
    return [run_case(q, n, peers, seeds, dur) for q, n in cases(quick)]
