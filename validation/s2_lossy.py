"""Scenario 2: one long flow over a lossy link, goodput against PFTK and Mathis."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from validation import models
from validation.common import SCENARIOS, Estimate, bench, estimate, load_toml
from validation.peers import Peer, supports

PS = (0.001, 0.003, 0.01, 0.03, 0.1)
RTTS_MS = (20, 100, 300)
# Reno is the protocol PFTK models (triple-duplicate and timeout loss
# indications, one loss recovered per fast retransmit); NewReno is the
# suite's default variant.
VARIANTS = ("reno", "newreno")
QUICK = [("reno", 0.01, 100), ("newreno", 0.003, 300)]
MSS = 1000
RATE = 100e6
LOSSES = 2000  # expected losses per run: sets the duration


def doc(variant: str, p: float, rtt_ms: int, duration: float) -> dict[str, Any]:
    d = load_toml(SCENARIOS / "lossy_link.toml")
    d["tcp"]["variant"] = variant
    hop = d["topology"]["hops"][0]
    hop["fwd_error"]["p"] = p
    hop["delay"] = f"{rtt_ms / 2}ms"
    d["run"]["duration"] = f"{duration:.0f}s"
    return d


def path_rtt(rtt_ms: int) -> float:
    """Propagation RTT plus one data packet's and one ACK's serialisation."""
    return rtt_ms / 1000 + (MSS + 40 + 40) * 8 / RATE


def duration(p: float, rtt_ms: int, quick: bool) -> float:
    rate = models.mathis(p, path_rtt(rtt_ms))  # packets per second, roughly
    d = LOSSES / (p * rate)
    return float(min(max(math.ceil(d / 10) * 10, 200), 2000 if quick else 4000))


@dataclass
class Row:
    variant: str
    p: float
    rtt_ms: int
    duration: float
    goodput: dict[str, Estimate]  # peer -> kbit/s
    timeouts: dict[str, Estimate]
    pftk_kbps: float
    mathis_kbps: float


def cases(quick: bool) -> list[tuple[str, float, int]]:
    return list(QUICK) if quick else [(v, p, r) for v in VARIANTS for r in RTTS_MS for p in PS]


def run_case(variant: str, p: float, rtt_ms: int, peers: dict[str, Peer], seeds: int, quick: bool) -> Row:
    dur = duration(p, rtt_ms, quick)
    d = doc(variant, p, rtt_ms, dur)
    good: dict[str, Estimate] = {}
    tos: dict[str, Estimate] = {}
    for name, peer in peers.items():
        if not supports(peer, "greedy"):
            continue
        runs = [peer.greedy(d, seed)[0] for seed in range(1, seeds + 1)]
        good[name] = estimate([r.goodput_kbps for r in runs])
        tos[name] = estimate([r.timeouts for r in runs])
    rtt = path_rtt(rtt_ms)
    # T0: the RTO, which the 1 s minimum sets at every RTT of the grid (RFC 6298 §2.4).
    t0 = max(1.0, bench.seconds(d["tcp"]["rto"]["min"]))
    kbps = MSS * 8 / 1000
    return Row(variant, p, rtt_ms, dur, good, tos, models.pftk(p, rtt, t0) * kbps, models.mathis(p, rtt) * kbps)


def run(peers: dict[str, Peer], quick: bool, seeds: int) -> list[Row]:
    return [run_case(v, p, r, peers, seeds, quick) for v, p, r in cases(quick)]
