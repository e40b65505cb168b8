#!/usr/bin/env python3
"""Check dupack's Bernoulli loss model against losses drawn in Python.

    python3 validation/bernoulli_check.py [--seeds 600] [--p 0.1] [--rtt 20 300]

Scenario 2's path (validation/scenarios/lossy_link.toml, Reno) is run once
with the link's own `bernoulli` model (dupack's random stream) and once with
a `droplist` of data-packet indices drawn here with Python's `random` at the
same p. Both are independent Bernoulli(p) processes over the data packets
that cross the link, so the mean goodputs over many seeds must agree within
their standard errors; a gap would mean the stream or the model is biased
(for example, a draw that depends on something other than the packet).
Prints one line per RTT: both means ± standard errors, the gap in standard
errors, and the realised loss rates. docs/validation.md quotes its output.
"""
from __future__ import annotations

import argparse
import copy
import math
import random
import statistics as st
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import dupack  # noqa: E402

from validation import models  # noqa: E402
from validation.s2_lossy import doc, duration, path_rtt  # noqa: E402


def mean_se(xs: list[float]) -> tuple[float, float]:
    return st.mean(xs), st.stdev(xs) / math.sqrt(len(xs))


def check(p: float, rtt_ms: int, seeds: int) -> str:
    base = doc("reno", p, rtt_ms, duration(p, rtt_ms, quick=False))
    flow = dupack.run(copy.deepcopy(base), seed=1).flows["flow"].iloc[0]
    good = {"bernoulli": [], "python": []}
    lost = {"bernoulli": [0, 0], "python": [0, 0]}  # lost, sent (data packets on the link)
    n = int(10 * models.mathis(p, path_rtt(rtt_ms)) * float(base["run"]["duration"].rstrip("s"))) + 1000
    for seed in range(1, seeds + 1):
        for how in good:
            d = copy.deepcopy(base)
            if how == "python":
                rng = random.Random(f"bernoulli-check/{p}/{rtt_ms}/{seed}")
                # Indices of data packets of the flow on this link, from 1,
                # up to ten times what the Mathis model says a run sends.
                drops = [i for i in range(1, n) if rng.random() < p]
                d["topology"]["hops"][0]["fwd_error"] = {"model": "droplist", "flow": flow, "packets": drops}
            r = dupack.run(d, seed=seed)
            f = r.flows.iloc[0]
            if how == "python" and int(f["segments_sent"]) >= n:
                raise SystemExit(f"seed {seed}: the run sent {f['segments_sent']} data packets, beyond the {n} drawn")
            good[how].append(float(f["goodput_kbps"]))
            lost[how][0] += int(f["drops_error"])
            lost[how][1] += int(f["segments_sent"])
    (mb, sb), (mp, sp) = mean_se(good["bernoulli"]), mean_se(good["python"])
    gap = (mb - mp) / math.hypot(sb, sp)
    rb, rp = (lost[h][0] / lost[h][1] for h in ("bernoulli", "python"))
    return (f"p = {p:g}, RTT {rtt_ms} ms, {seeds} seeds: dupack's Bernoulli {mb:.1f} ± {sb:.1f} kbit/s, "
            f"Python-drawn losses {mp:.1f} ± {sp:.1f} kbit/s, gap {gap:+.1f} standard errors; "
            f"realised loss rates {rb:.4f} and {rp:.4f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=600)
    ap.add_argument("--p", type=float, default=0.1)
    ap.add_argument("--rtt", type=int, nargs="+", default=[20, 300], metavar="MS")
    args = ap.parse_args()
    for rtt in args.rtt:
        print(check(args.p, rtt, args.seeds), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
