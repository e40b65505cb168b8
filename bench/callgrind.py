#!/usr/bin/env python3
"""Where dupack's time goes: callgrind instruction counts of bench scenarios.

    python bench/callgrind.py            # prints the summary as Markdown

Runs the release `bench_scenario` example under `valgrind --tool=callgrind
--cache-sim=yes` on a small and a large dumbbell of the scaling scenario
(10 flows x 50 s and 1000 flows x 5 s: the same work per flow-second, a
100x larger event heap and working set), then sums callgrind_annotate's
exclusive counts per function (inlined code is charged to the function it
was inlined into). Instruction counts do not depend on the machine's load,
unlike wall time. bench/run.py calls summarise() and bench/report.py
markdown() for docs/performance.md.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.measure import build  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SCALING = ROOT / "bench" / "scenarios" / "scaling.toml"

CASES = [
    ("10 flows x 50 s", ["topology.senders=10", 'run.duration="50s"']),
    (
        "1000 flows x 5 s",
        [
            "topology.senders=1000",
            'topology.bottleneck.rate="300000kbps"',
            "topology.bottleneck.queue.limit_packets=15000",
            'run.duration="5s"',
        ],
    ),
]

LINE = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(?:\(\s*[\d.]+%\)\s+)?(.*)$")


def available() -> bool:
    return shutil.which("valgrind") is not None and shutil.which("callgrind_annotate") is not None


def _short(fn: str) -> str:
    fn = re.sub(r" \[[^\]]*\]$", "", fn.strip())
    # "file:function" -> function; keep Rust paths readable.
    if ":" in fn and not fn.startswith("dupack") and "::" not in fn.split(":", 1)[0]:
        fn = fn.split(":", 1)[1]
    fn = re.sub(r"^[^ ]*?\.(?:rs|S|c|h):", "", fn)
    fn = fn.replace("dupack_sim::", "")
    fn = re.sub(r"<[^<>]*>", "<…>", fn)
    return fn


def annotate(outfile: Path, event: str) -> tuple[int, dict[str, int]]:
    txt = subprocess.run(
        ["callgrind_annotate", f"--show={event}", f"--sort={event}", "--threshold=100", "--inclusive=no", "--auto=no",
         str(outfile)],
        capture_output=True, text=True, check=True,
    ).stdout
    total, per = 0, defaultdict(int)
    for line in txt.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        n = int(m.group(1).replace(",", ""))
        what = m.group(2)
        if "PROGRAM TOTALS" in what:
            total = n
            continue
        per[_short(what)] += n
    return total, dict(per)


def profile_case(exe: Path, overrides: list[str], log=sys.stderr) -> dict:
    with tempfile.TemporaryDirectory(prefix="dupack-cg-") as tmp:
        out = Path(tmp) / "callgrind.out"
        r = subprocess.run(
            ["valgrind", "--tool=callgrind", "--cache-sim=yes", f"--callgrind-out-file={out}", str(exe),
             str(SCALING), *overrides],
            capture_output=True, text=True, check=True,
        )
        events = json.loads(r.stdout)["run"]["events"]
        ir_total, ir = annotate(out, "Ir")
        d1_total, _ = annotate(out, "D1mr")
        ll_total, _ = annotate(out, "DLmr")
    return {"events": events, "ir_total": ir_total, "ir": ir, "d1mr": d1_total, "dlmr": ll_total}


def summarise(exe: Path, log=sys.stderr) -> dict:
    res = {}
    for label, ov in CASES:
        print(f"[profile] callgrind: {label} ...", file=log, flush=True)
        res[label] = profile_case(exe, ov, log)
    return res


def markdown(res: dict, top: int = 12) -> list[str]:
    L = []
    labels = list(res)
    L.append(
        "| run | events | instructions | instructions per event | L1 data read misses per event | "
        "last-level data read misses per event |"
    )
    L.append("|---|---:|---:|---:|---:|---:|")
    for k in labels:
        r = res[k]
        ev = r["events"]
        L.append(
            f"| {k} | {ev:,} | {r['ir_total'] / 1e6:,.0f} M | {r['ir_total'] / ev:.0f} | {r['d1mr'] / ev:.2f} | "
            f"{r['dlmr'] / ev:.3f} |"
        )
    L.append("")
    big = res[labels[-1]]
    small = res[labels[0]]
    L.append(f"Top functions by exclusive instruction count, {labels[-1]} (share of all instructions; "
             f"{labels[0]} alongside):\n")
    L.append(f"| function | {labels[-1]} | {labels[0]} |")
    L.append("|---|---:|---:|")
    for fn, n in sorted(big["ir"].items(), key=lambda kv: -kv[1])[:top]:
        s = small["ir"].get(fn, 0)
        L.append(f"| `{fn}` | {100 * n / big['ir_total']:.1f} % | {100 * s / small['ir_total']:.1f} % |")
    return L


def main() -> int:
    if not available():
        print("valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 2
    exe = build(sys.stderr)
    print("\n".join(markdown(summarise(exe))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
