#!/usr/bin/env python3
"""Record the calls ns-3.44's TcpCubic receives on one flow.

    python3 validation/ns3_cubic_calls.py                  # both recordings the tests replay
    python3 validation/ns3_cubic_calls.py --case dumbbell --duration 20 --out FILE

Runs ns-3 with its own log of `TcpCubic` switched on
(`NS_LOG=TcpCubic=level_all|prefix_func|prefix_time`) and the window trace
of flow 0, variant `rfc6675+lt+cc=cubic`, in one of two cases (CASES):
`dumbbell`, bench/ns3/tcp_bench.cc on scenario 3's dumbbell (N = 40, p =
1 %: windows of a few segments), and `lossy`, validation/ns3/lossy_flow.cc
on scenario 2's link (p = 0.3 %, RTT 100 ms: windows of tens of segments,
the cubic function's own region). It writes, for flow 0's
congestion-control object, every call ns-3's socket makes of it, with what
the object decided:

    P <t ns> <srtt ns>                        PktsAcked (the smoothed RTT it is given), where it
                                              can matter: below the least ns-3 took since the last
                                              timer expiry (it takes none within CubicDelta, 10 ms,
                                              of an epoch's start)
    S <t ns> <cwnd B> <ssthresh B> <timeout>  GetSsThresh: the window it saw, what it returned,
                                              1 if CA_LOSS (a timer expiry) follows at once
    I <t ns> <segments> <cwnd B> <ssthresh B> <cwnd after B> <exit>
                                              IncreaseWindow: the window before and after;
                                              exit 1 if the call follows the end of a recovery

The test `replays_ns3s_calls_and_decides_as_ns3_does` (dupack-sim's
tcp/cc/cubic_ns3) feeds the same calls to dupack's mirror of ns-3's CUBIC
(`tcp.cubic_arithmetic = "ns3"`) and checks every window and every
ssthresh: the controller's arithmetic against ns-3's, on the very inputs
ns-3 saw, apart from everything else the two simulators do differently.

The window before each call is read from ns-3's log where the call changed
it (the new window less the increase) and from the window trace where it
did not; the smoothed RTT is logged to six significant digits.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import ns3build  # noqa: E402
from bench.mirror import apply  # noqa: E402
from validation import s2_lossy, s3_dumbbell  # noqa: E402
from validation.common import ROOT  # noqa: E402
from validation.ns3peer import program  # noqa: E402

VARIANT = "rfc6675+lt+cc=cubic"
MSS = 1000
FUNC = re.compile(r"^\+(\d+)\.(\d{9})s \S+ TcpCubic:(\w+)\((0x[0-9a-f]+[^)]*)\)$")
INFO = re.compile(r"^\+(\d+)\.(\d{9})s \S+ TcpCubic:(\w+)\(\): (.*)$")
CA_LOSS, CA_RECOVERY, CA_OPEN = 4, 3, 0
#: What TcpCubic calls of itself: their lines belong to the call that made them.
NESTED = ("Update", "CubicReset", "HystartReset")
#: TcpCubic's `CubicDelta`: no RTT sample this soon after an epoch begins.
CUBIC_DELTA_NS = 10_000_000
#: The recorded cases: (what is run, seed, seconds), and the files dupack-sim's replay test reads.
CASES = {
    "dumbbell": (dict(topology="dumbbell", n=40, p=0.01), 1, 100.0),
    "lossy": (dict(topology="lossy", p=0.003, rtt_ms=100), 1, 12.0),
}
DATA = ROOT / "crates" / "dupack-sim" / "tests" / "data"
FIXTURES = {name: DATA / f"ns3_cubic_calls_{name}.txt" for name in CASES}


def ns(sec: str, frac: str) -> int:
    return int(sec) * 1_000_000_000 + int(frac)


def run_ns3(case: dict, seed: int, duration: float, tmp: Path) -> tuple[Path, Path]:
    """The log (stderr) and the window trace of one run, through the validation's own mirror (ns3peer.program)."""
    if case["topology"] == "dumbbell":
        d = s3_dumbbell.doc(case["n"], case["p"], VARIANT, duration)
    else:
        d = s2_lossy.doc(VARIANT, case["p"], case["rtt_ms"], duration)
    src, args = program(apply(d, {"run.seed": seed}))
    trace = tmp / "cwnd.txt"
    log = tmp / "cubic.log"
    env = dict(os.environ, NS_LOG="TcpCubic=level_all|prefix_func|prefix_time")
    with open(log, "w") as err:
        cmd = [str(ns3build.build(src)), *args, f"cwndtrace={trace}"]
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=err, check=True)
    return log, trace


def windows(trace: Path) -> list[tuple[int, int]]:
    """(t ns, cwnd B) of every change of flow 0's window."""
    out = []
    for line in trace.read_text().splitlines():
        kind, at, *value = line.split()
        if kind == "W":
            sec, frac = at.split(".")
            out.append((ns(sec, frac.ljust(9, "0")[:9]), int(value[0])))
    return out


def flow0_lines(log: Path, first_open_ns: int) -> list[str]:
    """The log lines of flow 0's object: the one whose first CongestionStateSet comes at flow 0's first ACK."""
    lines = log.read_text().splitlines()
    obj = None
    for line in lines:
        m = FUNC.match(line)
        if m and m.group(3) == "CongestionStateSet" and ns(m.group(1), m.group(2)) == first_open_ns:
            obj = m.group(4).split(",")[0]
            break
    if obj is None:
        raise SystemExit("flow 0's TcpCubic object not found in the log")
    mine, current = [], None
    for line in lines:
        m = FUNC.match(line)
        if m:
            current = m.group(4).split(",")[0]
        if current == obj:
            mine.append(line)
    return mine


def calls(lines: list[str], w: list[tuple[int, int]]) -> list[str]:
    out: list[str] = []
    ssthresh = 2**32 - 1
    state = CA_OPEN
    exit_pending = False
    least: int | None = None
    epoch: int | None = None
    wi = 0
    cwnd_now = MSS

    def cwnd_at(t: int) -> int:
        nonlocal wi, cwnd_now
        while wi < len(w) and w[wi][0] <= t:
            cwnd_now = w[wi][1]
            wi += 1
        return cwnd_now

    i = 0
    while i < len(lines):
        m = FUNC.match(lines[i])
        if not m:
            i += 1
            continue
        t, name, args = ns(m.group(1), m.group(2)), m.group(3), [a.strip() for a in m.group(4).split(",")]
        # The INFO/DEBUG lines this call printed, those of the calls it makes itself (Update) included.
        j = i + 1
        said = []
        while j < len(lines) and not ((f := FUNC.match(lines[j])) and f.group(3) not in NESTED):
            im = INFO.match(lines[j])
            if im:
                said.append(im.group(4))
            j += 1
        if name == "PktsAcked":
            # ns-3 takes a sample below its least unless an epoch began under
            # CUBIC_DELTA ago; every sample below the least taken is kept, so
            # that the mirror meets each one ns-3 may have taken or skipped.
            srtt = round(float(args[3].removesuffix("ns")))
            if least is None or srtt < least:
                out.append(f"P {t} {srtt}")
                if epoch is None or t - epoch >= CUBIC_DELTA_NS:
                    least = srtt
        elif name == "CongestionStateSet":
            new = int(args[2])
            exit_pending = state == CA_RECOVERY and new == CA_OPEN
            state = new
        elif name == "GetSsThresh":
            seen = next(int(s.split("cWnd=")[1].split()[0]) for s in said if s.startswith("Loss at"))
            ssthresh = next(int(s.split("= ")[1]) for s in said if s.startswith("SsThresh"))
            nxt = FUNC.match(lines[j]) if j < len(lines) else None
            expiry = bool(nxt) and nxt.group(3) == "CongestionStateSet" and int(nxt.group(4).split(",")[2]) == CA_LOSS
            timeout = int(expiry)
            epoch = None  # GetSsThresh ends the epoch
            if expiry:
                least = None  # CubicReset forgets the least RTT
            out.append(f"S {t} {seen * MSS} {ssthresh} {timeout}")
        elif name == "IncreaseWindow" and len(args) == 3:
            segs = int(args[2])
            before = after = None
            for s in said:
                if s.startswith("In SlowStart, updated to cwnd"):
                    after = int(s.split("cwnd ")[1].split()[0])
                    before = after - segs * MSS
                elif s.startswith("In CongAvoid, updated to cwnd"):
                    after = int(s.split("cwnd ")[1])
                    before = after - MSS
            if before is None:
                before = after = cwnd_at(t)
            if any(x.startswith("lastMaxCwnd") for x in said):
                epoch = t  # Update began an epoch
            out.append(f"I {t} {segs} {before} {ssthresh} {after} {int(exit_pending)}")
            exit_pending = False
        i = j
        if name == "IncreaseWindow":
            cwnd_at(t)  # the trace's changes at this instant are this call's
    return out


def record(name: str, seed: int, duration: float, out: Path) -> int:
    """Record case `name` into `out`; the number of calls."""
    case = CASES[name][0]
    with tempfile.TemporaryDirectory() as tmp:
        log, trace = run_ns3(case, seed, duration, Path(tmp))
        w = windows(trace)
        recs = calls(flow0_lines(log, w[0][0]), w)
    what = " ".join(f"{k}={v}" for k, v in case.items())
    head = f"# ns-3.44 TcpCubic, flow 0: {what} seed={seed} {duration:g} s, {VARIANT} (validation/ns3_cubic_calls.py)\n"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(head + "\n".join(recs) + "\n")
    return len(recs)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--case", choices=sorted(CASES), help="one case (default: every case, into FIXTURES)")
    ap.add_argument("--seed", type=int, help="the seed (default: the case's)")
    ap.add_argument("--duration", type=float, help="simulated seconds (default: the case's)")
    ap.add_argument("--out", type=Path, help="where to write (default: the case's file in FIXTURES)")
    a = ap.parse_args(argv)
    if a.out is not None and a.case is None:
        ap.error("--out needs --case")
    for name in [a.case] if a.case else list(CASES):
        _, seed, duration = CASES[name]
        out = a.out or FIXTURES[name]
        n = record(name, a.seed or seed, a.duration or duration, out)
        print(f"{name}: {n} calls -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
