"""Scenario 6: Vegas against ns-2's Agent/TCP/Vegas.

Greedy Vegas flows through a DropTail bottleneck (the scenario-4 dumbbell
with a 50-packet DropTail buffer, no random loss): Vegas should hold a few
segments queued per flow, lose nothing and share the link fairly, in both
tools.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from validation.common import SCENARIOS, Estimate, estimate, jain, load_toml
from validation.peerapi import Peer, supports

NS = (2, 5, 10)
QUICK = [2]


def doc(n: int, duration: float) -> dict[str, Any]:
    d = load_toml(SCENARIOS / "red_dumbbell.toml", {"topology.senders": n, "tcp.variant": "vegas", "run.duration": f"{duration:g}s"})
    d["topology"]["bottleneck"]["queue"] = {"limit_packets": 50}
    return d


@dataclass
class Row:
    n: int
    metrics: dict[str, dict[str, Estimate]]


def run_case(n: int, peers: dict[str, Peer], duration: float) -> Row:
    d = doc(n, duration)
    out: dict[str, dict[str, Estimate]] = {}
    for name, peer in peers.items():
        if not (supports(peer, "greedy") and supports(peer, "queue")):
            continue
        flows = peer.greedy(d, 1)
        q = peer.queue(d, 1)
        g = [f.goodput_kbps for f in flows]
        out[name] = {
            "goodput": estimate([sum(g)]),
            "jain": estimate([jain(g)]),
            "retransmitted": estimate([float(sum(f.retransmitted for f in flows))]),
            "drops": estimate([float(q.drops)]),
            "max_queue": estimate([q.max_queue]),
            "mean_queue": estimate([q.mean_queue]),
        }
    return Row(n, out)


def run(peers: dict[str, Peer], quick: bool) -> list[Row]:
    dur = 50 if quick else 200
    return [run_case(n, peers, dur) for n in (QUICK if quick else NS)]
