"""Scenario 1: Fall & Floyd 1996, one to four drops from one window, and
cases of our own design on the same path (`OWN_CASES`).

Every variant and case runs once through each peer with a `fall_floyd`
method; the packet series are compared send by send.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from bench import mirror
from validation import packets
from validation.common import SCENARIOS, load_toml
from validation.peerapi import Peer, supports

VARIANTS = ("tahoe", "reno", "newreno", "sack", "fack")
DROPS = (41, 43, 45, 47)
QUICK = [("reno", 0), ("reno", 1), ("newreno", 3), ("sack", 4)]


@dataclass(frozen=True)
class Case:
    """A case of our own design: the Fall & Floyd path with other drops,
    windows, queues or options, each chosen to exercise one rule where
    dupack and ns-2 could part."""

    name: str
    what: str
    drops: tuple[int, ...] = ()
    window: int = 20
    queue: int = 100
    iw: int = 1
    lt: bool = False
    rto: dict[str, Any] | None = None  # tcp.rto, if not the mirror's


# ns-2.35's default retransmission timer (minrto_ 200 ms, tcpTick_ 10 ms,
# rtxcur_init_ 3 s) through dupack's `timer = "ns2"`. ns-2 draws its clock
# phase (boot_time_) from its default generator and does not expose it;
# scanning clock_phase in 0.5 ms steps, Reno is exact for 0–1 and 4–7.5 ms
# and NewReno for 3.5–7.5 ms, so ns-2's draw lies in 4–7.5 ms: 5 ms.
NS2_TIMER = {"timer": "ns2", "tick": "10ms", "clock_phase": "5ms", "initial": "3s", "min": "200ms", "max": "60s",
             "max_backoff_shift": 6}


OWN_CASES = (
    Case("odd-window", "receiver window 25 segments, packet 41 lost: the window halves to 12.5 segments "
         "(ns-2's unrounded `halfwin`)", drops=(41,), window=25),
    Case("back-to-back", "packets 30 and 31 lost: two consecutive segments of one window", drops=(30, 31)),
    Case("queue-drops", "no scripted loss; 8-packet queues and a 40-segment window: slow start overflows the "
         "bottleneck queue and loses every other segment of a burst", window=40, queue=8),
    Case("iw2", "ns-2's default initial window of 2 segments, packet 41 lost", drops=(41,), iw=2),
    Case("limited-transmit", "limited transmit (RFC 3042; dupack `+lt`, ns-2 `singledup_ 1`) on the "
         "queue-drops case", window=40, queue=8, lt=True),
    Case("ns2-timer", "the queue-drops case with ns-2.35's default retransmission timer (`minrto_` 200 ms, "
         "`tcpTick_` 10 ms, `rtxcur_init_` 3 s), its RTO above the minimum: dupack's `tcp.rto.timer = \"ns2\"` "
         "with `clock_phase = \"5ms\"` (RFC 6298's timer with the same bounds leaves ns-2 at the first timeout, "
         "17 ms early)", window=40, queue=8, rto=NS2_TIMER),
)
OWN_QUICK = [("reno", "odd-window"), ("newreno", "queue-drops"), ("tahoe", "iw2"), ("reno", "ns2-timer")]


def own_doc(variant: str, case: Case) -> dict[str, Any]:
    d = doc(variant + ("+lt" if case.lt else ""), 0)
    if case.drops:
        d["topology"]["hops"][1]["fwd_error"] = {
            "model": "droplist", "flow": "f0", "packets": list(case.drops), "applies_to": "data",
        }
    d["receiver"]["window"] = f"{case.window * 1000}B"
    for hop in d["topology"]["hops"]:
        hop["queue"]["limit_packets"] = case.queue
    d["tcp"]["initial_window"] = case.iw
    if case.rto is not None:
        d["tcp"]["rto"] = dict(case.rto)
    return d


def doc(variant: str, ndrops: int) -> dict[str, Any]:
    d = copy.deepcopy(load_toml(SCENARIOS / "fall_floyd.toml"))
    d["tcp"]["variant"] = variant
    if variant.split("+")[0] in ("sack", "fack"):
        # ns-2's TCPSink/Sack1 counts 8 bytes per SACK block and no option header (s1_causes, `ack_size`).
        d["receiver"].update(mirror.NS2_SACK_RECEIVER)
    bneck = d["topology"]["hops"][1]
    if ndrops == 0:
        del bneck["fwd_error"]
    else:
        bneck["fwd_error"]["packets"] = list(DROPS[:ndrops])
    return d


@dataclass
class Row:
    variant: str
    ndrops: int
    series: dict[str, packets.Series]
    verdicts: dict[str, packets.Verdict]  # peer name -> dupack against that peer
    case: str = ""  # a name of OWN_CASES, or "" for the paper's drops


def cases(quick: bool) -> list[tuple[str, int]]:
    return list(QUICK) if quick else [(v, n) for v in VARIANTS for n in range(0, 5)]


def own_cases(quick: bool) -> list[tuple[str, str]]:
    return list(OWN_QUICK) if quick else [(v, c.name) for c in OWN_CASES for v in VARIANTS]


def _row(variant: str, ndrops: int, d: dict[str, Any], peers: dict[str, Peer], case: str = "") -> Row:
    series = {name: p.fall_floyd(d) for name, p in peers.items() if supports(p, "fall_floyd")}
    ref = series["dupack"]
    verdicts = {name: packets.compare(ref, s) for name, s in series.items() if name != "dupack"}
    return Row(variant, ndrops, series, verdicts, case)


def run_case(variant: str, ndrops: int, peers: dict[str, Peer]) -> Row:
    return _row(variant, ndrops, doc(variant, ndrops), peers)


def run_own_case(variant: str, name: str, peers: dict[str, Peer]) -> Row:
    case = next(c for c in OWN_CASES if c.name == name)
    return _row(variant, len(case.drops), own_doc(variant, case), peers, name)


def run(peers: dict[str, Peer], quick: bool) -> list[Row]:
    return [run_case(v, n, peers) for v, n in cases(quick)] + [run_own_case(v, c, peers) for v, c in own_cases(quick)]
