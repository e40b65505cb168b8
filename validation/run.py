#!/usr/bin/env python3
"""Cross-validate dupack against ns-2.35 and ns-3.44 and write the report.

    python3 validation/run.py                 # the quick subset (a few minutes at most)
    python3 validation/run.py --full          # every case of every scenario: docs/validation.md
    python3 validation/run.py --only 1        # one scenario (1, 2, 3, 4, 5, 6)
    python3 validation/run.py --full --seeds 20
    python3 validation/run.py --peers ns3 --only 2 --only 3   # dupack and ns-3 only
    python3 validation/run.py --full --jobs 2  # scenarios side by side in 2 processes, 2 seeds at a time in each
    python3 validation/run.py --full --only 3 --merge FILE   # rerun scenario 3 into a saved full run
    python3 validation/run.py --full --fresh   # run ns-2 and ns-3 again even where an identical run is kept

Needs the dupack package (pip install .), ns-2 (`ns`: apt-get install ns2)
and, for the ns-3 columns of scenarios 2 and 3, the ns-3.44 wheel and a C++
compiler (pip install --no-deps 'ns3==3.44.post0'). Each scenario runs every
peer of validation/peers.py that supports it; a missing peer leaves its
columns empty and the report says why.

ns-2 and ns-3 are deterministic, so each of their runs is kept in
target/validation/peer-runs under its program, arguments and input files
(validation/runcache.py) and given back when a later validation asks for the
very same run: after a change to dupack alone, only dupack runs again.
`--fresh` runs everything.

Only a full run of every scenario with every peer replaces the committed
docs/validation.md; a partial one (the quick subset, --only, --peers) writes
target/validation/partial.md unless --out names the file.
"""

from __future__ import annotations

import argparse
import multiprocessing
import pickle
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from collections.abc import Iterable
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import measure, ns3build  # noqa: E402
from validation import common, report, runcache, s1_fall_floyd, s2_lossy, s3_dumbbell, s4_red, s5_snoop, s6_vegas  # noqa: E402
from validation.common import ROOT, Ns2Error  # noqa: E402
from validation.peerapi import Peer  # noqa: E402
from validation.peers import PEERS  # noqa: E402

SCENARIOS = ("1", "2", "3", "4", "5", "6")
#: The committed report: only a full run of everything writes it by default.
FULL_REPORT = ROOT / "docs" / "validation.md"
#: Where a partial run's report goes by default.
PARTIAL_REPORT = ROOT / "target" / "validation" / "partial.md"
#: Where the peers' runs are kept (validation/runcache.py).
KEPT_RUNS = ns3build.target_dir() / "validation" / "peer-runs"


def report_path(out: Path | None, full: bool, only: Iterable[str] | None, peers: Iterable[str] | None = None) -> Path:
    """The file to write: ``out`` if given; else docs/validation.md for a
    full run of every scenario against every peer, and
    target/validation/partial.md for anything less, so that a quick check
    never replaces the committed report."""
    if out is not None:
        return out
    every_scenario = only is None or set(only) >= set(SCENARIOS)
    every_peer = peers is None or set(peers) >= {n for n in PEERS if n != "dupack"}
    return FULL_REPORT if full and every_scenario and every_peer else PARTIAL_REPORT


def usable_peers(log, wanted: list[str] | None = None) -> tuple[dict[str, Peer], dict[str, str]]:
    ok: dict[str, Peer] = {}
    missing: dict[str, str] = {}
    for name, p in PEERS.items():
        if wanted is not None and name != "dupack" and name not in wanted:
            continue
        why = p.available()
        if why is None:
            ok[name] = p
        else:
            missing[name] = why
            print(f"validation: {name} skipped: {why}", file=log)
    return ok, missing


def positive(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--seeds must be a whole number from 1 to 200, got {text!r}") from None
    if not 1 <= v <= 200:
        raise argparse.ArgumentTypeError(f"--seeds must be a whole number from 1 to 200, got {v}")
    return v


def peer_list(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    bad = [n for n in names if n not in PEERS]
    if bad or not names:
        raise argparse.ArgumentTypeError(f"--peers: unknown {', '.join(bad) or 'empty list'}; choose from {', '.join(PEERS)}")
    return names


def parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="the quick subset (the default)")
    mode.add_argument("--full", action="store_true", help="every case of every scenario")
    ap.add_argument("--only", choices=SCENARIOS, action="append", metavar="SCENARIO",
                    help="run only this scenario (1-6; repeatable)")
    ap.add_argument("--seeds", type=positive, help="replications for scenarios 2-4 (default: 2 quick, 10 full)")
    ap.add_argument("--peers", type=peer_list, metavar="NAME[,NAME]",
                    help=f"the tools to compare dupack with (default: all of {', '.join(n for n in PEERS if n != 'dupack')})")
    ap.add_argument("--out", type=Path,
                    help="the report to write (default: docs/validation.md after a full run of everything, "
                    "else target/validation/partial.md)")
    ap.add_argument("--jobs", type=positive, default=1,
                    help="run up to this many scenarios at once, each in its own process, and up to this many "
                    "seeds of one case at once (default 1); the results do not depend on it")
    ap.add_argument("--save", type=Path, metavar="FILE", help="also keep the raw results (pickle) in FILE")
    ap.add_argument("--render", type=Path, metavar="FILE",
                    help="write the report from results saved with --save, without running anything")
    ap.add_argument("--fresh", action="store_true",
                    help="run ns-2 and ns-3 again even where an identical run (same program, arguments and input "
                    "files) is kept in target/validation/peer-runs; the new runs replace the kept ones")
    ap.add_argument("--merge", type=Path, metavar="FILE",
                    help="run the --only scenarios and take the others from the full run saved in FILE (--save); "
                    "the report names both runs, their dates and commits")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse(argv)
    # Peer runs are kept and given back, and seeds run side by side, for the length of this run only.
    saved = runcache.DIR, runcache.FRESH, common.THREADS
    runcache.DIR, runcache.FRESH, common.THREADS = KEPT_RUNS, args.fresh, args.jobs
    try:
        return run(args, argv)
    finally:
        runcache.DIR, runcache.FRESH, common.THREADS = saved


def run(args: argparse.Namespace, argv: list[str]) -> int:
    quick = not args.full
    seeds = args.seeds or (2 if quick else 10)
    only = set(args.only or SCENARIOS)
    log = sys.stderr
    peers, missing = usable_peers(log, args.peers)
    if args.render:
        return render_saved(args)
    if "dupack" not in peers:
        return 2
    base = None
    if args.merge:
        base = merge_base(args, quick, seeds, peers)
        if base is None:
            return 2
    t0 = time.perf_counter()
    results: dict[str, object] = {}
    kept: Counter[tuple[str, str]] = Counter()
    keys = [k for k in SCENARIOS if k in only]
    try:
        if args.jobs == 1 or len(keys) == 1:
            for key in keys:
                results[key], n = timed_step(key, peers, quick, seeds, log)
                kept += n
        else:
            # Each scenario in its own process, the longest first so that the
            # rest fill in around them; every run is seeded, so the results
            # are those of a sequential run.
            order = sorted(keys, key=LONGEST_FIRST.index)
            ctx = multiprocessing.get_context("fork")
            with ProcessPoolExecutor(max_workers=args.jobs, mp_context=ctx) as pool:
                futures = {k: pool.submit(timed_step, k, peers, quick, seeds, None) for k in order}
                for key in keys:
                    results[key], n = futures[key].result()
                    kept += n
    except (Ns2Error, RuntimeError, OSError) as e:
        # A peer failed (ns-2 crashed or timed out, the simulator refused a
        # scenario): one line, not a traceback.
        print(f"validation: {e}", file=log)
        return 3
    elapsed = time.perf_counter() - t0
    settings = {"quick": quick, "seeds": seeds, "only": only, "elapsed": elapsed, "argv": argv,
                "reused": runcache.summary(kept)}
    machine = measure.machine()
    if base is not None:
        # The saved run's results, its settings and provenance; these scenarios' results over them.
        results = {**base["results"], **results}
        again = {"scenarios": sorted(only), "elapsed": elapsed, "argv": argv, "machine": machine,
                 "reused": settings["reused"]}
        settings = {**base["settings"], "rerun": [*report.reruns(base["settings"].get("rerun")), again],
                    "base_machine": base["machine"]}
        machine = base["machine"]
    if args.save:
        args.save.write_bytes(pickle.dumps({"results": results, "missing": missing, "settings": settings,
                                            "peers": list(peers), "machine": machine}))
    text = report.render(results, peers, missing, **settings)
    merged_only = None if base is not None else args.only
    out = report_path(args.out, not quick, merged_only, args.peers)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    print(f"validation: wrote {out} ({elapsed / 60:.1f} min)", file=log)
    return 0


def merge_base(args: argparse.Namespace, quick: bool, seeds: int, peers: dict[str, Peer]) -> dict | None:
    """The saved full run that --merge names, with the date and commit it ran at; None (and a
    message) if it cannot take this run's scenarios: another mode, other seeds or peers, or no
    record of its commit."""
    def refuse(why: str) -> None:
        print(f"validation: --merge {args.merge}: {why}", file=sys.stderr)

    if not args.only:
        refuse("name the scenarios to run again with --only")
        return None
    try:
        saved = pickle.loads(args.merge.read_bytes())
    except (OSError, pickle.UnpicklingError, EOFError) as e:
        refuse(f"cannot read saved results ({e})")
        return None
    s = saved.get("settings", {})
    if s.get("quick") != quick or s.get("seeds") != seeds or set(s.get("only", ())) != set(SCENARIOS):
        refuse(f"it holds {'the quick subset' if s.get('quick') else 'a full run'} of scenarios "
               f"{', '.join(sorted(s.get('only', ())))} with {s.get('seeds')} seeds; this run is "
               f"{'the quick subset' if quick else 'a full run'} with {seeds} seeds, and only a run of every scenario "
               "can take others")
        return None
    if set(saved.get("peers", ())) != set(peers):
        refuse(f"it ran {', '.join(saved.get('peers', ()))} and this run has {', '.join(peers)}")
        return None
    machine = saved.get("machine") or report_machine(FULL_REPORT, s.get("elapsed"))
    if machine is None:
        refuse("it does not say which commit it ran at (saved before --save recorded it), and docs/validation.md "
               "is not its report")
        return None
    return {"results": saved["results"], "settings": s, "machine": machine}


def report_machine(path: Path, elapsed: float | None) -> dict | None:
    """The date and commit in the header of the report at `path`, if that report is the rendering of a
    run that took `elapsed` seconds (its header says so, to a tenth of a minute)."""
    import re

    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None
    took = re.search(r"the run took ([0-9.]+) minutes", text)
    where = re.search(r"^- date: (.+?); dupack commit (\S+)$", text, re.M)
    if elapsed is None or not took or not where or took.group(1) != f"{elapsed / 60:.1f}":
        return None
    return {**measure.machine(), "date": where.group(1), "commit": where.group(2)}


# Scenarios by their share of a full run, longest first (for --jobs).
LONGEST_FIRST = ("3", "2", "4", "5", "1", "6")


def timed_step(key: str, peers: dict[str, Peer], quick: bool, seeds: int, log) -> tuple[object, Counter]:
    """Run scenario `key` and say how long it took (to stderr when `log` is None:
    a worker process has no handle of its parent's); its results, and the
    peer runs it made and was given back (runcache.counts, which a worker
    process cannot share)."""
    before = Counter(runcache.counts)
    log = log or sys.stderr
    runs = {
        "1": lambda: s1_fall_floyd.run(peers, quick),
        "2": lambda: s2_lossy.run(peers, quick, seeds),
        "3": lambda: s3_dumbbell.run(peers, quick, seeds),
        "4": lambda: s4_red.run(peers, quick, seeds),
        "5": lambda: s5_snoop.run(peers, quick, seeds),
        "6": lambda: s6_vegas.run(peers, quick),
    }
    t = time.perf_counter()
    try:
        out = runs[key]()
    except (Ns2Error, RuntimeError, OSError) as e:
        raise RuntimeError(f"scenario {key} failed: {e}") from None
    n = runcache.counts - before
    kept = ", ".join(f"{p} {r} of {r + m}" for p, (r, m) in runcache.summary(n).items())
    print(f"validation: scenario {key} done in {time.perf_counter() - t:.1f} s"
          + (f" (peer runs given back: {kept})" if kept else ""), file=log, flush=True)
    return out, n


def render_saved(args: argparse.Namespace) -> int:
    try:
        saved = pickle.loads(args.render.read_bytes())
    except (OSError, pickle.UnpicklingError, EOFError) as e:
        print(f"validation: --render {args.render}: cannot read saved results ({e})", file=sys.stderr)
        return 2
    ran = saved.get("peers") or [n for n in PEERS if n not in saved["missing"]]
    peers = {n: p for n, p in PEERS.items() if n in ran}
    settings = saved["settings"]
    out = report_path(args.out, not settings.get("quick", True), settings.get("only"), saved.get("peers"))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report.render(saved["results"], peers, saved["missing"], **settings))
    print(f"validation: wrote {out} from {args.render}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
