"""Closed-form TCP throughput models for scenario 2, in packets per second.

- Mathis, Semke, Mahdavi, Ott, "The Macroscopic Behavior of the TCP
  Congestion Avoidance Algorithm", CCR 27(3), 1997, eq. (3):
  B = (MSS/RTT)·C/sqrt(p) with C = sqrt(3/2) for an ACK per segment.
- Padhye, Firoiu, Towsley, Kurose, "Modeling TCP Throughput: A Simple Model
  and its Empirical Validation", SIGCOMM 1998, eq. (33) (the approximation
  of the full model, with timeouts), as in crates/dupack-sim/tests/pftk.rs.
  The paper (§4) reports its fit to measured traces by an average error
  per trace mostly below 0.2 (20 %) of the measured throughput, which is
  the tolerance docs/validation.md applies to it.
"""

from __future__ import annotations

import math

PFTK_ACCURACY = 0.20  # relative; see the module docstring


def mathis(p: float, rtt: float, b: float = 1.0) -> float:
    return math.sqrt(3.0 / (2.0 * b)) / (rtt * math.sqrt(p))


def pftk(p: float, rtt: float, t0: float, b: float = 1.0, wmax: float = math.inf) -> float:
    denom = rtt * math.sqrt(2 * b * p / 3) + t0 * min(1.0, 3 * math.sqrt(3 * b * p / 8)) * p * (1 + 32 * p * p)
    return min(wmax / rtt, 1.0 / denom)
