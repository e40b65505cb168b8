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


def pftk_expected_window(p: float, b: float = 1.0) -> float:
    """E[W], the mean window at a loss indication in PFTK's model (Padhye et
    al. 1998, §2.1): (2 + b)/(3b) + sqrt(8(1 − p)/(3bp) + ((2 + b)/(3b))²)."""
    c = (2 + b) / (3 * b)
    return c + math.sqrt(8 * (1 - p) / (3 * b * p) + c * c)


def pftk_timeout_share(p: float, w: float) -> float:
    """Q̂(w), PFTK's probability that a loss indication in a window of w
    packets is a timeout rather than a triple duplicate ACK (Padhye et al.
    1998, §2.2), which assumes that once a packet of a round is lost the rest
    of that round is lost too: min(1, (1 − (1 − p)³)(1 + (1 − p)³(1 − (1 − p)^(w − 3))) / (1 − (1 − p)^w))."""
    q = 1 - p
    if w <= 3:
        return 1.0
    return min(1.0, (1 - q**3) * (1 + q**3 * (1 - q ** (w - 3))) / (1 - q**w))
