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
    python3 validation/run.py --prune-kept 30  # drop kept runs no validation has used in 30 days

Needs the dupack package (pip install .), ns-2 (`ns`: apt-get install ns2)
and, for the ns-3 columns of scenarios 2 and 3, the ns-3.44 wheel and a C++
compiler (pip install --no-deps 'ns3==3.44.post0'). Each scenario runs every
peer of validation/peers.py that supports it; a missing peer leaves its
columns empty and the report says why.

ns-2 and ns-3 are deterministic, so each of their runs is kept in
validation/peer-runs under its program, arguments and input files
(validation/runcache.py) and given back when a later validation asks for the
very same run: after a change to dupack alone, only dupack runs again.
The kept runs are committed with the repository (a full validation's runs of
ns-2 and ns-3 take hours on two cores; kept, about 12 MB), so this holds on
a fresh checkout too, except for the runs that write trace files (ns-2's
queue and Snoop traces, ns-3's window traces: hundreds of MB), which are
kept in target/validation/peer-runs. `--fresh` runs everything.

Only a full run of every scenario with every peer replaces the committed
docs/validation.md; a partial one (the quick subset, --only, --peers) writes
target/validation/partial.md unless --out names the file.

A scenario that fails (a peer crashed, a check of the suite's own failed)
does not stop the others. Their results are saved (in the --save file, else
target/validation/unfinished.pickle) and the run exits with status 3 without
writing a report; `--only K --merge FILE` then runs the failed scenarios
into the saved results and writes the report.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import pickle
import sys
import time
import traceback
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from collections.abc import Iterable, Iterator
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
#: Where the peers' runs are kept (validation/runcache.py): in the repository,
#: so that a full validation on a new machine reruns dupack and only the peer
#: runs a change has made new, not the hours of ns-2 and ns-3 runs behind the
#: whole report. Those that write trace files are kept in the target
#: directory instead (KEPT_WITH_FILES): hundreds of MB, against about 12 MB.
KEPT_RUNS = ROOT / "validation" / "peer-runs"
KEPT_WITH_FILES = ns3build.target_dir() / "validation" / "peer-runs"
#: Where the results of a run that did not finish every scenario are saved when --save names no file.
UNFINISHED = ROOT / "target" / "validation" / "unfinished.pickle"


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
                    "files) is kept (validation/peer-runs, target/validation/peer-runs); the new runs replace the kept ones")
    ap.add_argument("--prune-kept", type=float, metavar="DAYS",
                    help="remove the ns-2 and ns-3 runs kept in validation/peer-runs and target/validation/peer-runs that no validation has "
                    "made or been given back in the last DAYS days (those of programs and mirror scripts since "
                    "changed), say how much that freed, and run nothing else")
    ap.add_argument("--merge", type=Path, metavar="FILE",
                    help="run the --only scenarios and take the others from the full run saved in FILE (--save); "
                    "the report names both runs, their dates and commits")
    return ap.parse_args(argv)


@contextlib.contextmanager
def peer_runs_kept(fresh: bool, jobs: int) -> Iterator[None]:
    """For the length of a validation run: the peers' runs kept in and given
    back from KEPT_RUNS and KEPT_WITH_FILES (run again if `fresh`), and up to
    `jobs` seeds of one case run side by side."""
    saved = runcache.DIR, runcache.FILES_DIR, runcache.FRESH, common.THREADS
    runcache.DIR, runcache.FILES_DIR, runcache.FRESH, common.THREADS = KEPT_RUNS, KEPT_WITH_FILES, fresh, jobs
    try:
        yield
    finally:
        runcache.DIR, runcache.FILES_DIR, runcache.FRESH, common.THREADS = saved


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse(argv)
    with peer_runs_kept(args.fresh, args.jobs):
        return run(args, argv)


def run(args: argparse.Namespace, argv: list[str]) -> int:
    quick = not args.full
    seeds = args.seeds or (2 if quick else 10)
    only = set(args.only or SCENARIOS)
    log = sys.stderr
    if args.prune_kept is not None:
        if not args.prune_kept >= 0:
            print(f"validation: --prune-kept must be a number of days >= 0, got {args.prune_kept:g}", file=log)
            return 2
        removed = freed = 0
        for directory in dict.fromkeys((KEPT_RUNS, KEPT_WITH_FILES)):
            r, f = runcache.prune(directory, args.prune_kept)
            removed, freed = removed + r, freed + f
        print(f"validation: removed {removed} kept runs unused for {args.prune_kept:g} days from {KEPT_RUNS} "
              f"and {KEPT_WITH_FILES} ({freed / 2**20:.1f} MiB)", file=log)
        return 0
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
    failed: dict[str, str] = {}
    kept: Counter[tuple[str, str]] = Counter()
    keys = [k for k in SCENARIOS if k in only]

    def finished(key: str, step) -> None:
        """Take scenario `key`'s outcome (``step()`` returns it or raises):
        a failure is recorded and said, and the other scenarios go on."""
        nonlocal kept
        try:
            results[key], n = step()
            kept += n
        except Exception as e:  # noqa: BLE001 - any failure of one scenario; the others' results are kept
            failed[key] = failure_text(key, e, log)

    try:
        if args.jobs == 1 or len(keys) == 1:
            for key in keys:
                finished(key, lambda key=key: timed_step(key, peers, quick, seeds, log))
        else:
            # Each scenario in its own process, the longest first so that the
            # rest fill in around them; every run is seeded, so the results
            # are those of a sequential run.
            order = sorted(keys, key=LONGEST_FIRST.index)
            ctx = multiprocessing.get_context("fork")
            with ProcessPoolExecutor(max_workers=args.jobs, mp_context=ctx) as pool:
                futures = {k: pool.submit(timed_step, k, peers, quick, seeds, None) for k in order}
                for key in keys:
                    finished(key, futures[key].result)
    except KeyboardInterrupt:
        failed.update({k: f"scenario {k} did not run: interrupted" for k in keys if k not in results and k not in failed})
        print("validation: interrupted", file=log, flush=True)
    elapsed = time.perf_counter() - t0
    settings = {"quick": quick, "seeds": seeds, "only": only, "elapsed": elapsed, "argv": argv,
                "reused": runcache.summary(kept), "versions": [p.version() for p in peers.values()]}
    machine = measure.machine()
    if base is not None:
        # The saved run's results, its settings and provenance; these scenarios' results over them.
        results = {**base["results"], **results}
        again = {"scenarios": sorted(only), "elapsed": elapsed, "argv": argv, "machine": machine,
                 "reused": settings["reused"], "versions": settings["versions"]}
        settings = {**base["settings"], "rerun": [*report.reruns(base["settings"].get("rerun")), again],
                    "base_machine": base["machine"], "only": set(base["settings"]["only"]) | only}
        machine = base["machine"]
    unfinished = {**settings.get("failed", {}), **failed}
    for key in results:
        unfinished.pop(key, None)  # failed before, run again now
    if unfinished:
        settings["failed"] = unfinished
    else:
        settings.pop("failed", None)
    if args.save or unfinished:
        save = args.save or UNFINISHED
        save.parent.mkdir(parents=True, exist_ok=True)
        save.write_bytes(pickle.dumps({"results": results, "missing": missing, "settings": settings,
                                       "peers": list(peers), "machine": machine}))
    if unfinished:
        keys = sorted(unfinished)
        print(f"validation: scenario {', '.join(keys)} did not finish; the results of the others are saved in "
              f"{save} (no report written). Once fixed, run the rest into them: "
              f"python3 validation/run.py {resume_argv(args, keys, save)}", file=log)
        return 3
    text = report.render(results, peers, missing, **settings)
    # A merge reports what its saved run was of (every scenario, usually).
    out = report_path(args.out, not quick, settings["only"], args.peers)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    print(f"validation: wrote {out} ({elapsed / 60:.1f} min)", file=log)
    return 0


def failure_text(key: str, e: BaseException, log) -> str:
    """One line on why scenario `key` failed, said on `log`; a failure that is not
    a peer's or the simulator's (a bug in the suite) also gets its traceback there."""
    if isinstance(e, RuntimeError) and str(e).startswith(f"scenario {key} failed"):
        text = str(e)  # timed_step's line for a peer's or the simulator's failure
    else:
        traceback.print_exception(e, file=log)
        text = f"scenario {key} failed: {type(e).__name__}: {e}"
    print(f"validation: {text}", file=log, flush=True)
    return text


def resume_argv(args: argparse.Namespace, keys: list[str], save: Path) -> str:
    """The command line that runs scenarios `keys` into the results saved in `save`."""
    argv = ["--full"] if args.full else []
    if args.seeds:
        argv += ["--seeds", str(args.seeds)]
    if args.peers:
        argv += ["--peers", ",".join(args.peers)]
    if args.jobs > 1:
        argv += ["--jobs", str(args.jobs)]
    for k in keys:
        argv += ["--only", k]
    argv += ["--merge", str(save)]
    if args.out:
        argv += ["--out", str(args.out)]
    if args.save:
        argv += ["--save", str(args.save)]
    return " ".join(argv)


def merge_base(args: argparse.Namespace, quick: bool, seeds: int, peers: dict[str, Peer]) -> dict | None:
    """The saved run that --merge names, with the date and commit it ran at; None (and a
    message) if it cannot take this run's scenarios: another mode, other seeds or peers, no
    record of its commit, a run of only some scenarios (unless it is a run that did not finish
    them all), or a run that did not finish scenarios this run leaves out."""
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
    unfinished = set(s.get("failed", ()))
    if unfinished - set(args.only):
        refuse(f"scenario {', '.join(sorted(unfinished))} did not finish in it: run {'it' if len(unfinished) == 1 else 'them'} "
               f"with {' '.join('--only ' + k for k in sorted(unfinished))}")
        return None
    # A run of every scenario takes any of them; an unfinished run, those it did not finish.
    every = set(s.get("only", ())) == set(SCENARIOS)
    if s.get("quick") != quick or s.get("seeds") != seeds or not (every or unfinished):
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
    if settings.get("failed"):
        keys = sorted(settings["failed"])
        print(f"validation: --render {args.render}: scenario {', '.join(keys)} did not finish in it; run "
              f"{'it' if len(keys) == 1 else 'them'} into it with {' '.join('--only ' + k for k in keys)} "
              f"--merge {args.render}", file=sys.stderr)
        return 2
    out = report_path(args.out, not settings.get("quick", True), settings.get("only"), saved.get("peers"))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report.render(saved["results"], peers, saved["missing"], **settings))
    print(f"validation: wrote {out} from {args.render}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
