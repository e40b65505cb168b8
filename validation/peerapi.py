"""What a peer is: the interface between a validation scenario and the tools it runs.

A peer is an object with a `name`, `available()` (None, or why it cannot
run here), `version()`, and one method per kind of run it supports:

- `fall_floyd(doc) -> packets.Series` (scenario 1, packet level);
- `transfer(doc) -> Transfer` (scenario 2's same-loss transfers: a finite
  transfer with a given list of lost packets);
- `greedy(doc, seed) -> list[FlowStats]` (scenarios 2, 3, 4 and 6: greedy
  flows over a dumbbell or a one-hop chain, per-flow counters at the end);
- `queue(doc, seed) -> QueueStats` (scenario 4: the bottleneck queue).

A scenario asks every registered peer (validation/peers.py) for what it
needs and leaves a peer's column empty when the peer lacks the method
(`supports`), or when the method raises `Unsupported` for that one case
(ns-3 has no Reno, for instance): the reason goes to the report.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class FlowStats:
    goodput_kbps: float  # payload bytes delivered in order × 8 / duration
    fast_retransmits: int
    timeouts: int  # retransmission-timer expiries with data outstanding (each backoff counts)
    retransmitted: int  # retransmitted segments
    sent: int  # data segments sent, retransmissions included
    # dupack only (NaN elsewhere): the mean of the RTT samples the sender
    # took, and the timeouts that started a loss episode (backoffs not counted).
    rtt_mean_s: float = float("nan")
    timeout_episodes: float = float("nan")


@dataclass(frozen=True)
class Transfer:
    """A finite transfer's completion time and the sender's counts when it completed."""

    time_s: float
    timeouts: int  # as FlowStats
    fast_retransmits: int
    retransmitted: int

    def events(self) -> tuple[int, int, int]:
        """(timeouts, fast retransmits, retransmitted segments)."""
        return self.timeouts, self.fast_retransmits, self.retransmitted


@dataclass(frozen=True)
class QueueStats:
    arrivals: int  # packets offered to the bottleneck queue
    drops: int  # early and forced drops
    marks: int  # ECN CE marks
    utilisation: float
    max_queue: float  # packets waiting
    mean_queue: float  # time-averaged packets waiting


class Peer(Protocol):
    name: str

    def available(self) -> str | None: ...

    def version(self) -> str: ...


def supports(peer: Peer, kind: str) -> bool:
    return callable(getattr(peer, kind, None))


class Unsupported(Exception):
    """A peer cannot run this case (the message says why); its column stays empty."""
