"""Earlier runs of the peer programs, kept and given again.

ns-2 and the ns-3 programs are deterministic: the same program, run with
the same arguments on the same input files, prints the same output and
writes the same files (each run is seeded through its arguments). A full
validation spends most of its hours in them, while the change being
validated is nearly always dupack's. So every peer run goes through `run`:
its output and the files it wrote are kept under a key made of

- the program: its version string and the digests of its executable and of
  every script it may source (ns-2 and its OTcl mirrors), or for a program
  we compile (ns-3's), the name bench/ns3build.py gives the build, a digest
  of everything the build reads;
- its arguments in order, with the paths of files it writes replaced by
  their names only, and the paths of files it reads by their contents' digest;

and a later run with the same key gets them back without running anything.
A change to a mirror script, to an ns-3 program (a new executable), to an
argument a mirror derives from the scenario, or to the installed ns-2 or
ns-3 is a new key, so the program runs again.

Off unless `DIR` is set (validation/run.py sets it; with its `--fresh`,
`FRESH` runs everything again and keeps the new runs); `counts` says, per
program, how many runs were given back and how many were made.

A kept run's modification time is the last time it was made or given back,
so that `prune` can remove the runs no validation has asked for in a while:
those of programs and mirror scripts since changed, which no key reaches
any more (validation/run.py --prune-kept DAYS).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
import threading
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

#: Where kept runs live; None: every run is fresh and none is kept (the default outside validation/run.py).
DIR: Path | None = None
#: Where the runs that write files are kept instead, if set: their traces
#: (ns-2's queue and Snoop traces, ns-3's window) are most of the bytes, a
#: few hundred MB for a full validation, against about 12 MB for all the
#: rest, so validation/run.py keeps them out of the repository.
FILES_DIR: Path | None = None
#: Run every program again, keeping the new runs in place of the old.
FRESH = False
#: (program, "reused" | "ran") -> runs, in this process.
counts: Counter[tuple[str, str]] = Counter()

_digests: dict[tuple[str, int, int], str] = {}
_lock = threading.Lock()  # runs of one case go side by side on threads (common.parallel_map)


def _count(program: str, how: str) -> None:
    with _lock:
        counts[program, how] += 1


def file_digest(path: str | os.PathLike) -> str:
    """SHA-256 of a file's bytes, remembered per path, size and modification time."""
    st = os.stat(path)
    key = (os.fspath(path), st.st_size, st.st_mtime_ns)
    if key not in _digests:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        _digests[key] = h.hexdigest()
    return _digests[key]


def identity(program: str, version: str, files: Iterable[str | os.PathLike]) -> list[str]:
    """What a program is: its name, its version string, and the names and
    digests of the files it consists of (executable, scripts), in the order
    given. Not their directories: a checkout elsewhere is the same program."""
    return [program, version, *(f"{Path(f).name}:{file_digest(f)}" for f in files)]


def key(ident: list[str], args: Mapping[str, object], inputs: Iterable[str] = (), outputs: Iterable[str] = ()) -> str:
    inputs, outputs = set(inputs), set(outputs)
    h = hashlib.sha256()
    for part in ident:
        h.update(part.encode() + b"\0")
    h.update(b"\1")
    for name, value in args.items():
        if name in outputs:
            shown = "<output>"
        elif name in inputs:
            shown = "<input " + file_digest(value) + ">"  # type: ignore[arg-type]
        else:
            shown = str(value)
        h.update(f"{name}={shown}".encode() + b"\0")
    return h.hexdigest()


def run(ident: list[str], args: Mapping[str, object], execute: Callable[[], str], *,
        inputs: Iterable[str] = (), outputs: Iterable[str] = ()) -> str:
    """`execute()`'s output (the program's stdout), from a kept run when
    there is one with this key; the files named by the `outputs` arguments
    are then written with the contents that run wrote. A run that fails
    (raises) is not kept."""
    outputs = list(outputs)
    program = ident[0]
    if DIR is None:
        _count(program, "ran")
        return execute()
    k = key(ident, args, inputs, outputs)
    base = FILES_DIR if outputs and FILES_DIR is not None else DIR
    path = base / k[:2] / f"{k}.pkl"
    kept = None if FRESH else _load(path)
    if kept is not None and all(name in kept["files"] for name in outputs):
        for name in outputs:
            Path(str(args[name])).write_bytes(kept["files"][name])
        _used(path)
        _count(program, "reused")
        return kept["stdout"]
    out = execute()
    files = {name: Path(str(args[name])).read_bytes() for name in outputs}
    # Compressed: the traces some runs write (ns-2's queue, ns-3's window) are text, about 6 times smaller so.
    _keep(path, zlib.compress(pickle.dumps({"stdout": out, "files": files, "ident": ident}), 6))
    _count(program, "ran")
    return out


def _used(path: Path) -> None:
    """Mark a kept run as used now (its modification time), for `prune`."""
    try:
        os.utime(path)
    except OSError:
        pass  # a read-only or vanished entry is simply not marked


def prune(directory: Path, days: float, now: float | None = None) -> tuple[int, int]:
    """Remove from `directory` the kept runs neither made nor given back in
    the last `days` days, and temporary files an interrupted run left behind
    as long ago; (files removed, bytes freed)."""
    cutoff = (time.time() if now is None else now) - days * 86400
    removed = freed = 0
    if not directory.is_dir():
        return 0, 0
    for sub in directory.iterdir():
        if not sub.is_dir():
            continue
        for f in sub.iterdir():
            if not (f.suffix == ".pkl" or f.name.startswith(".tmp-")):
                continue
            try:
                st = f.stat()
                if st.st_mtime < cutoff:
                    f.unlink()
                    removed, freed = removed + 1, freed + st.st_size
            except FileNotFoundError:
                continue  # removed by another prune
        try:
            sub.rmdir()  # only if now empty
        except OSError:
            pass
    return removed, freed


def _load(path: Path) -> dict | None:
    """A kept run, or None: there is none, or it is damaged (an entry is
    renamed into place only once written, so damage is outside interference)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    try:
        data = zlib.decompress(data)
    except zlib.error:
        pass  # kept uncompressed (the first entries were)
    try:
        kept = pickle.loads(data)
    except (pickle.UnpicklingError, EOFError, AttributeError, ValueError, IndexError, TypeError):
        return None
    return kept if isinstance(kept, dict) and "stdout" in kept and "files" in kept else None


def _keep(path: Path, data: bytes) -> None:
    """Write under a unique temporary name, then rename: a concurrent run
    (validation/run.py --jobs) or an interrupted one never leaves half an entry."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def summary(c: Mapping[tuple[str, str], int]) -> dict[str, list[int]]:
    """program -> [kept runs given again, runs made], from `counts` (or a sum of them)."""
    out: dict[str, list[int]] = {}
    for (program, how), n in sorted(c.items()):
        out.setdefault(program, [0, 0])[0 if how == "reused" else 1] += n
    return out
