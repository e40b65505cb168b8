"""Packet-level series (scenario 1): what each tool sent, and when.

A series is the ordered list of data segments the sender handed to its
first link (time, segment number, new or retransmission) plus the instants
of its fast retransmits and timeouts. Both tools' series are built from
their own traces; `compare` reports exact agreement or the first divergence.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Send:
    t: float
    seg: int  # 0-based segment number
    rexmit: bool

    def show(self) -> str:
        return f"{'retransmit' if self.rexmit else 'send'} {self.seg} at {self.t:.5f} s"


@dataclass
class Series:
    sends: list[Send] = field(default_factory=list)
    fast_retransmits: list[float] = field(default_factory=list)
    timeouts: list[float] = field(default_factory=list)
    drops: list[int] = field(default_factory=list)
    done_at: float | None = None

    @property
    def retransmits(self) -> list[Send]:
        return [s for s in self.sends if s.rexmit]


def time_tolerance(t: float) -> float:
    """Half a unit of ns-2's trace times, plus slack for float rounding:
    ns-2 rounds a trace time to the microsecond and prints it with `%g`
    (six significant digits), so the last printed digit is worth 1 µs
    below 1 s and 10^(e−5) s at and above 10^e s; dupack's times are exact
    nanoseconds."""
    if t <= 0:
        return 1e-9
    return max(0.5e-6, 0.5 * 10 ** (math.floor(math.log10(t)) - 5)) + 1e-9


def same_time(a: float, b: float) -> bool:
    return abs(a - b) <= time_tolerance(max(a, b))


@dataclass(frozen=True)
class Verdict:
    exact: bool
    compared: int  # sends compared before the first divergence (or all)
    first: str  # "" when exact


def compare(d: Series, n: Series) -> Verdict:
    """dupack `d` against ns-2 `n`: every send, retransmission, fast retransmit and timeout."""
    for i, (a, b) in enumerate(zip(d.sends, n.sends)):
        if a.seg != b.seg or a.rexmit != b.rexmit or not same_time(a.t, b.t):
            return Verdict(False, i, f"packet #{i + 1}: dupack {a.show()}, ns-2 {b.show()}")
    if len(d.sends) != len(n.sends):
        longer, name = (d, "dupack") if len(d.sends) > len(n.sends) else (n, "ns-2")
        extra = longer.sends[min(len(d.sends), len(n.sends))]
        return Verdict(False, min(len(d.sends), len(n.sends)), f"only {name} goes on: {extra.show()}")
    for what, xs, ys in (("fast retransmit", d.fast_retransmits, n.fast_retransmits), ("timeout", d.timeouts, n.timeouts)):
        if len(xs) != len(ys) or not all(same_time(x, y) for x, y in zip(xs, ys)):
            return Verdict(False, len(d.sends), f"{what}s: dupack at {fmt_times(xs)}, ns-2 at {fmt_times(ys)}")
    return Verdict(True, len(d.sends), "")


def same_order(d: Series, n: Series) -> tuple[bool, float]:
    """Whether both tools sent the same segments in the same order with the
    same fast retransmits and timeouts, and the largest time difference."""
    same = [(s.seg, s.rexmit) for s in d.sends] == [(s.seg, s.rexmit) for s in n.sends]
    same = same and len(d.fast_retransmits) == len(n.fast_retransmits) and len(d.timeouts) == len(n.timeouts)
    if not same:
        return False, math.nan
    dts = [abs(a.t - b.t) for a, b in zip(d.sends, n.sends)]
    dts += [abs(a - b) for a, b in zip(d.fast_retransmits + d.timeouts, n.fast_retransmits + n.timeouts)]
    return True, max(dts, default=0.0)


def fmt_times(ts: list[float]) -> str:
    return "[" + ", ".join(f"{t:.5f}" for t in ts) + "]"


# --------------------------------------------------------------------------
# ns-2: trace-all file and agent variable trace of validation/ns2/fall_floyd.tcl

SENDER, ROUTER = "0", "1"  # node ids in the script's creation order


def ns2_series(trace: Path, vars_: Path, packets: int) -> Series:
    s = Series()
    top = -1
    for line in trace.read_text().splitlines():
        f = line.split()
        if len(f) < 12:
            continue
        ev, t, src, dst, kind, seq = f[0], float(f[1]), f[2], f[3], f[4], int(f[10])
        if ev == "+" and src == SENDER and dst == ROUTER and kind == "tcp":
            s.sends.append(Send(t, seq, seq <= top))
            top = max(top, seq)
        elif ev == "d" and kind == "tcp":
            s.drops.append(seq)
        elif ev == "r" and dst == SENDER and kind == "ack" and seq == packets - 1 and s.done_at is None:
            s.done_at = t
    last: dict[str, int] = {}
    cuts, tos = [], []
    for line in vars_.read_text().splitlines():
        f = line.split()
        if len(f) != 7:
            continue
        t, name, v = float(f[0]), f[5], int(float(f[6]))
        if name not in ("nrexmit_", "ncwndcuts_"):
            continue  # cwnd_ and ssthresh_ are traced for diagnosis only
        if name in last and v > last[name]:
            (tos if name == "nrexmit_" else cuts).append(t)
        last[name] = v
    end = s.done_at if s.done_at is not None else math.inf
    # Every timeout also cuts the window (slowdown()); after the transfer
    # ns-2 keeps cutting on idle timer expiries with nothing outstanding,
    # which are neither fast retransmits nor timeouts with data outstanding.
    s.timeouts = [t for t in tos if t < end]
    s.fast_retransmits = [t for t in cuts if t < end and not any(same_time(t, x) for x in tos)]
    return s


# --------------------------------------------------------------------------
# dupack: RunResult.trace


def dupack_series(trace, mss: int) -> Series:  # trace: pandas DataFrame (docs/results.md)
    s = Series()
    for r in trace.itertuples(index=False):
        seg = None if r.seq is None or r.seq != r.seq else int(r.seq) // mss
        if r.kind in ("send", "retransmit"):
            s.sends.append(Send(r.time_s, seg, r.kind == "retransmit"))
        elif r.kind in ("drop_error", "drop_queue"):
            s.drops.append(seg)
        elif r.kind == "fast_retransmit":
            s.fast_retransmits.append(r.time_s)
        elif r.kind == "timeout":
            s.timeouts.append(r.time_s)
    return s
