"""Helpers shared by the validation scenarios: paths, scenario documents,
statistics and running ns-2.

The unit parsing, the TOML override logic and the ns-2/ns-3 mirrors are the
benchmark's (bench/mirror.py), and so is the machine description
(bench/measure.py): the benchmark and the validation suite mirror ns-2 the
same way.
"""

from __future__ import annotations

import functools
import math
import os
import shutil
import statistics
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from bench import measure, mirror
from dupack.stats import t95
from validation import runcache

ROOT = Path(__file__).resolve().parent.parent
VALIDATION = ROOT / "validation"
SCENARIOS = VALIDATION / "scenarios"
NS2_DIR = VALIDATION / "ns2"
HEADER_BYTES = mirror.HEADER_BYTES  # IPv4 20 + TCP 20 on every data packet, both tools
T = TypeVar("T")
R = TypeVar("R")


#: How many runs of one case go side by side (validation/run.py --jobs): the
#: peers' runs are processes of their own and dupack's release the GIL.
THREADS = 1


def parallel_map(fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
    """[fn(x) for x in items], up to THREADS at a time, in the items' order;
    the first exception (in that order) is raised (bench/measure.py's)."""
    return measure.parallel_map(fn, items, THREADS, "validation-run")


def load_toml(path: Path, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """A scenario document as dupack reads it, with dotted-path overrides applied (dupack's own rules)."""
    return mirror.document(path, overrides)


def override_strings(overrides: dict[str, Any]) -> list[str]:
    """The same overrides as dupack's ``"path=value"`` strings."""
    return [f"{k}={mirror.toml_literal(v)}" for k, v in overrides.items()]


# --------------------------------------------------------------------------
# Statistics

@dataclass(frozen=True)
class Estimate:
    """Mean of n replications and the half-width of its 95 % Student-t interval."""

    mean: float
    half: float
    n: int

    def fmt(self, spec: str = ".1f") -> str:
        if self.n < 2:
            return format(self.mean, spec)
        return f"{format(self.mean, spec)} ± {format(self.half, spec)}"


def estimate(xs: list[float]) -> Estimate:
    n = len(xs)
    if n == 0:
        return Estimate(math.nan, math.nan, 0)
    m = statistics.fmean(xs)
    if n < 2:
        return Estimate(m, math.nan, n)
    return Estimate(m, t95(n - 1) * statistics.stdev(xs) / math.sqrt(n), n)


def jain(xs: list[float]) -> float:
    return float(mirror.jain(xs))


def rel(a: float, b: float) -> float:
    """a relative to b, in per cent."""
    return (a - b) / b * 100 if b else math.nan


# --------------------------------------------------------------------------
# ns-2


class Ns2Error(RuntimeError):
    pass


def run_ns(script: Path, args: dict[str, Any], timeout: float = 600, *, inputs: tuple[str, ...] = (),
           outputs: tuple[str, ...] = ()) -> str:
    """Run ``ns script key=value ...`` in /tmp and return its stdout. The
    arguments named in `inputs` are files ns-2 reads, those in `outputs`
    files it writes: an earlier identical run is given again when
    validation/runcache.py keeps runs."""
    cmd = ["ns", str(script)] + [f"{k}={v}" for k, v in args.items()]

    def execute() -> str:
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd="/tmp")
        except subprocess.TimeoutExpired as e:
            raise Ns2Error(f"{' '.join(cmd)}: no answer after {timeout:.0f} s") from e
        if p.returncode != 0:
            raise Ns2Error(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()[-500:]}")
        return p.stdout

    return runcache.run([*ns2_identity(), script.name], args, execute, inputs=inputs, outputs=outputs)


@functools.cache
def ns2_identity() -> tuple[str, ...]:
    """ns-2 as validation/runcache.py keys it: the `ns` executable, its
    Debian version, and every OTcl mirror a script may source. Computed once
    (functools.cache: threads that race here compute the same value)."""
    ns = shutil.which("ns")
    version = ns2_package_version()
    # In the order of their paths in the repository, then the executable.
    scripts = sorted([*NS2_DIR.glob("*.tcl"), *(ROOT / "bench" / "ns2").glob("*.tcl")], key=lambda f: f.relative_to(ROOT))
    return tuple(runcache.identity("ns-2", version, [*scripts, os.path.realpath(ns) if ns else "/dev/null"]))


def ns2_package_version() -> str:
    """The Debian version of the installed ns2 package ("?" without dpkg)."""
    return measure.sh(["dpkg-query", "-W", "-f", "${Version}", "ns2"]) if shutil.which("dpkg-query") else "?"


def parse_kv_line(out: str, tag: str) -> list[dict[str, float]]:
    """Lines ``TAG [index] k=v k=v ...`` of an OTcl script's output."""
    rows = []
    for line in out.splitlines():
        if line.startswith(tag + " "):
            kv = dict(x.split("=", 1) for x in line.split()[1:] if "=" in x)
            rows.append({k: float(v) for k, v in kv.items()})
    return rows
