"""Scenario 1: Fall & Floyd 1996, one to four drops from one window.

Every variant and drop count runs once through each peer with a
`fall_floyd` method; the packet series are compared send by send.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from validation import packets
from validation.common import SCENARIOS, load_toml
from validation.peers import Peer, supports

VARIANTS = ("tahoe", "reno", "newreno", "sack", "fack")
DROPS = (41, 43, 45, 47)
QUICK = [("reno", 0), ("reno", 1), ("newreno", 3), ("sack", 4)]


def doc(variant: str, ndrops: int) -> dict[str, Any]:
    d = copy.deepcopy(load_toml(SCENARIOS / "fall_floyd.toml"))
    d["tcp"]["variant"] = variant
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


def cases(quick: bool) -> list[tuple[str, int]]:
    return list(QUICK) if quick else [(v, n) for v in VARIANTS for n in range(0, 5)]


def run_case(variant: str, ndrops: int, peers: dict[str, Peer]) -> Row:
    d = doc(variant, ndrops)
    series = {name: p.fall_floyd(d) for name, p in peers.items() if supports(p, "fall_floyd")}
    ref = series["dupack"]
    verdicts = {name: packets.compare(ref, s) for name, s in series.items() if name != "dupack"}
    return Row(variant, ndrops, series, verdicts)


def run(peers: dict[str, Peer], quick: bool) -> list[Row]:
    return [run_case(v, n, peers) for v, n in cases(quick)]
