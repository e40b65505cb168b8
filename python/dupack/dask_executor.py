"""Sweeps on a Dask cluster: :func:`dupack.sweep` with ``client=``.

The jobs of a sweep are cut into batches of consecutive jobs; each batch is
one Dask task, which runs the batch with the core's own sweep on one thread
of a worker (``_core.sweep`` with one worker) and sends back its tables as
plain bytes. The client turns them into the rows of the local executor
(the same columns, values and dtypes), writes them to the sweep's store as
they come (one part per chunk, at the local executor's chunk intervals)
and reports progress after each chunk.

Batches (guided self-scheduling): the first tasks hold one job each, to
learn how long a job takes; after that a batch holds a quarter of a worker
thread's share of the work left (:data:`TASKS_PER_THREAD`), at most
:data:`MAX_TASK_SECONDS` (so that results come back, and a lost worker
loses, no more than that) and at least :data:`TAIL_SECONDS`. While each
thread has :data:`TASK_SECONDS` or more of work left a batch is therefore
that long or longer, and Dask's few milliseconds per task stay near 1 %
of it; towards the end the batches shrink with the work left, so that
the threads finish together instead of one of them running a last long
batch alone. Two tasks per worker thread are kept in flight, so that a
worker seldom waits for the client between two tasks.

A worker that dies takes its running tasks with it; Dask runs them again
elsewhere. A batch's rows are taken once: rows of a job already taken are
dropped, so that a batch that comes back twice is not stored twice.

Dask is imported here only, and only when a sweep runs on a cluster.
"""

from __future__ import annotations

import math
import pickle
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa

    from dupack.sweeps import _Ids

__all__ = ["connect", "ExecutorError", "DaskMissing", "INSTALL_HINT"]

#: A batch is at least this much work (seconds, as estimated from the batches before it)
#: while every worker thread has TASKS_PER_THREAD times that left …
TASK_SECONDS = 1.0
#: … and at most this much.
MAX_TASK_SECONDS = 10.0
#: The smallest batch at the end of a sweep (unless a job alone is longer).
TAIL_SECONDS = 0.05
#: A batch is this fraction of a worker thread's share of the work left.
TASKS_PER_THREAD = 4
#: Tasks kept submitted per worker thread.
IN_FLIGHT_PER_THREAD = 2
#: How long :func:`connect` tries to reach the scheduler (seconds).
CONNECT_TIMEOUT = 10.0

INSTALL_HINT = "pip install 'dupack[dask]'"


class ExecutorError(RuntimeError):
    """The cluster cannot run the sweep: the scheduler is unreachable, the
    workers cannot run this dupack, or a batch kept killing its workers.
    ``user`` says whether it is a matter of setting up the cluster (rather
    than a failure while running)."""

    def __init__(self, message: str, user: bool = True) -> None:
        super().__init__(message)
        self.user = user


class DaskMissing(ExecutorError):
    """``dask[distributed]`` is not installed."""


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise DaskMissing(f"Dask is not installed; install it with: {INSTALL_HINT}") from None
    return distributed


def connect(address: str, timeout: float | None = None) -> Any:
    """A :class:`distributed.Client` of the scheduler at ``address``
    (``tcp://HOST:PORT``), or :class:`ExecutorError` after ``timeout``
    seconds (default :data:`CONNECT_TIMEOUT`) without an answer."""
    import logging

    distributed = _distributed()
    timeout = CONNECT_TIMEOUT if timeout is None else timeout
    # The client logs its failed attempts at length; the error below says it in one line.
    quiet = logging.getLogger("distributed")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)
    try:
        return distributed.Client(address, timeout=f"{timeout}s", set_as_default=False)
    except (OSError, TimeoutError) as e:
        raise ExecutorError(f"cannot reach the Dask scheduler at {address} (no answer within {timeout:g} s)") from e
    finally:
        quiet.setLevel(level)


# --- on the worker ---------------------------------------------------------------


def _portable(x: Any) -> Any:
    """The core's part (tuples, dicts, ints, strings, None and the core's
    buffers) with every buffer copied to ``bytes``, which pickle can send."""
    if x is None or isinstance(x, int | str | bytes):
        return x
    if isinstance(x, tuple):
        return tuple(_portable(v) for v in x)
    if isinstance(x, dict):
        return {k: _portable(v) for k, v in x.items()}
    return bytes(memoryview(x))


def run_batch(
    docs: list[str],
    packed_jobs: bytes,
    made_by: dict[str, str],
    fail_job: int | None = None,
    observe: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One task: run the jobs of ``packed_jobs`` (the pickled list of (job
    id, index into ``docs``, seed)) on this thread; return their tables as
    bytes (``parts``), the seconds it took and the failure, if a run failed
    (the runs before it are in ``parts``)."""
    from dupack import _core
    from dupack._core import RunError, ScenarioError
    from dupack.result import provenance

    here = provenance()
    if here != made_by:
        return {"parts": [], "seconds": 0.0, "error": ("version", here)}
    jobs = pickle.loads(packed_jobs)
    parts: list[Any] = []
    error = None
    t0 = time.perf_counter()
    try:
        # One chunk, at the end (or at a failure): the interval is never reached.
        _core.sweep(
            docs, jobs, 1, lambda _jobs, part: parts.append(_portable(part)), 1e9, fail_job, False, True,
            **(observe or {}),
        )
    except RunError as e:
        error = ("run", str(e), getattr(e, "job", None), getattr(e, "seed", None))
    except ScenarioError as e:
        error = ("scenario", e.path, e.message, getattr(e, "point", None))
    return {"parts": parts, "seconds": time.perf_counter() - t0, "error": error}


# --- on the client -----------------------------------------------------------------


class _Batches:
    """Cuts the jobs left into batches (see the module's description)."""

    def __init__(self, jobs: list[tuple[int, int, int | None]]) -> None:
        self.left = deque(jobs)
        self.seconds = 0.0
        self.measured = 0

    def learn(self, jobs: int, seconds: float) -> None:
        self.seconds += seconds
        self.measured += jobs

    def take(self, threads: int) -> list[tuple[int, int, int | None]]:
        if not self.measured:
            n = 1
        else:
            per_job = max(self.seconds / self.measured, 1e-6)
            share = len(self.left) * per_job / (TASKS_PER_THREAD * threads)
            # share >= TASK_SECONDS exactly while each thread has TASKS_PER_THREAD x TASK_SECONDS left.
            n = math.ceil(min(max(share, TAIL_SECONDS), MAX_TASK_SECONDS) / per_job)
        return [self.left.popleft() for _ in range(min(n, len(self.left)))]


def run_jobs(
    client: Any,
    docs: list[str],
    jobs: list[tuple[int, int, int | None]],
    ids: _Ids,
    write: Callable[[dict[str, list[pa.Table]]], None],
    chunk_seconds: float,
    fail_job: int | None = None,
    observe: dict[str, Any] | None = None,
    stored: bool = False,
) -> int:
    """Run ``jobs`` (job id, index into ``docs``, seed) on the cluster of
    ``client``; hand the finished runs' tables, with ``ids``'s columns in
    front, to ``write`` a chunk at a time: per table the batches of the
    chunk, in job order (:func:`in_order` makes one table of them). Returns
    the number of runs.
    ``observe`` (``series``, ``trace``, ``series_max``) is what every run
    records, as in :func:`dupack.sweep`. Chunks come as a local sweep's do
    (``_core.chunk_due``); ``stored``: ``write`` stores them, so they also
    shrink toward the end, where the cluster waits for the last one.

    A failed run raises RunError (with ``job`` and ``seed``) after the runs
    finished before are written, as the local executor does; so does an
    exception of ``write`` or Ctrl-C (what had finished is written first,
    unless ``write`` itself failed).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    from dupack import _core
    from dupack._core import RunError, ScenarioError
    from dupack.result import provenance
    from dupack.sweeps import TABLES

    distributed = _distributed()
    made_by = provenance()

    def _run_batch_there(*args: Any) -> dict[str, Any]:
        # Sent by value (a nested function), not as a reference to this module: on a
        # worker without dupack the import fails inside the task, which then fails
        # (and is reported), instead of failing the worker's connection, which kills it.
        from dupack.dask_executor import run_batch

        return run_batch(*args)

    batches = _Batches(jobs)
    in_flight: dict[Any, list[tuple[int, int, int | None]]] = {}
    taken: set[int] = set()
    buffered: dict[str, list[pa.Table]] = {t: [] for t in TABLES}
    ran = 0
    started = last_write = time.monotonic()
    failure: BaseException | None = None

    def threads() -> int:
        return max(1, sum(client.nthreads().values()))

    def submit(nthreads: int) -> None:
        while batches.left and len(in_flight) < IN_FLIGHT_PER_THREAD * nthreads:
            batch = batches.take(nthreads)
            points = sorted({p for _, p, _ in batch})
            local = {p: i for i, p in enumerate(points)}
            # Pickled here: Dask would otherwise walk every tuple of the list
            # looking for futures in it, on the thread its scheduler shares
            # (in a LocalCluster) with this one.
            task = pickle.dumps([(j, local[p], s) for j, p, s in batch], protocol=pickle.HIGHEST_PROTOCOL)
            fut = client.submit(
                _run_batch_there, [docs[p] for p in points], task, made_by, fail_job, observe, pure=False,
                key=f"dupack-batch-{batch[0][0]}-{batch[-1][0]}-{time.time_ns()}",
            )
            in_flight[fut] = batch
            completed.add(fut)

    def flush() -> None:
        nonlocal last_write
        last_write = time.monotonic()
        if not buffered["runs"]:
            return
        # Batches in job order (they are disjoint runs of consecutive jobs, each in job order).
        pieces = {t: sorted(buffered[t], key=first_job) or [ids.table(t, (0, b"", b"", {}))] for t in TABLES}
        for t in TABLES:
            buffered[t].clear()
        write(pieces)

    def take(batch: list[tuple[int, int, int | None]], result: dict[str, Any]) -> None:
        """A batch's rows into the buffer (those of jobs not yet taken); raise its failure."""
        nonlocal ran
        error = result["error"]
        if error is not None and error[0] == "version":
            there = error[1]
            raise ExecutorError(
                f"a Dask worker runs dupack {there.get('version')} (commit {there.get('commit')}) and this is "
                f"dupack {made_by['version']} (commit {made_by['commit']}); install the same dupack on every worker"
            )
        for part in result["parts"]:
            fresh = [j for j in _jobs(part["jobs"]) if j not in taken]
            if not fresh:
                continue
            tables = {t: ids.table(t, part[t]) for t in TABLES}
            if len(fresh) < len(_jobs(part["jobs"])):  # some came back before: keep the others only
                keep = pa.array(fresh, type=pa.int64())
                tables = {t: tab.filter(pc.is_in(tab.column("job"), value_set=keep)) for t, tab in tables.items()}
            taken.update(fresh)
            ran += len(fresh)
            for t in TABLES:
                if tables[t].num_rows or t == "runs":
                    buffered[t].append(tables[t])
        batches.learn(len(batch), result["seconds"])
        if error is None:
            return
        if error[0] == "run":
            _, message, job, seed = error
            e = RunError(message)
            e.job, e.seed = job, seed
            raise e
        _, path, message, point = error
        e = ScenarioError(path, message)
        e.point = batch_point(batch, point)
        raise e

    def batch_point(batch: list[tuple[int, int, int | None]], local: int | None) -> int | None:
        points = sorted({p for _, p, _ in batch})
        return points[local] if local is not None and local < len(points) else None

    def failed_task(batch: list[tuple[int, int, int | None]], exc: BaseException) -> ExecutorError:
        first, last = batch[0][0], batch[-1][0]
        which = f"job {first}" if first == last else f"jobs {first}..{last}"
        if isinstance(exc, distributed.KilledWorker):
            return ExecutorError(
                f"the Dask workers running {which} died again and again (Dask gave up on the task)", user=False,
            )
        if isinstance(exc, ImportError):
            return ExecutorError(f"the Dask workers cannot run dupack ({exc}); install dupack on every worker")
        return ExecutorError(f"the Dask task of {which} failed: {type(exc).__name__}: {exc}", user=False)

    completed = distributed.as_completed(loop=client.loop)  # this client's, not the default one
    write_failed = False
    try:
        nthreads, counted = threads(), time.monotonic()
        submit(nthreads)
        for fut in completed:
            batch = in_flight.pop(fut)
            if fut.status == "error":
                raise failed_task(batch, fut.exception())
            if fut.status == "cancelled":
                raise ExecutorError(f"the Dask task of jobs {batch[0][0]}..{batch[-1][0]} was cancelled", user=False)
            result = fut.result()
            fut.release()
            take(batch, result)
            now = time.monotonic()
            rows = sum(tab.num_rows for t in TABLES for tab in buffered[t])
            due = _core.chunk_due(now - last_write, now - started, ran, len(jobs), chunk_seconds, stored)
            if due or rows >= _core.MAX_CHUNK_ROWS:
                write_failed = True
                flush()
                write_failed = False
            if now - counted >= 2.0:  # workers come and go
                nthreads, counted = threads(), now
            submit(nthreads)
        write_failed = True
        flush()
        write_failed = False
    except BaseException as e:
        failure = e
        raise
    finally:
        if failure is not None:
            # Stop the rest; what had finished is kept (as the local executor keeps it).
            for fut, batch in list(in_flight.items()):
                if fut.status == "finished":
                    try:
                        take(batch, fut.result(timeout=5))
                    except Exception:  # noqa: BLE001 - the first failure is the one raised
                        pass
            client.cancel(list(in_flight))
            in_flight.clear()
            if not write_failed:
                try:
                    flush()
                except Exception:  # noqa: BLE001
                    pass
    return ran


def first_job(table: pa.Table) -> int:
    """The job of a batch's first row (-1 for a batch without rows)."""
    return table.column("job")[0].as_py() if table.num_rows else -1


def in_order(batches: list[pa.Table]) -> pa.Table:
    """Batches of :func:`run_jobs` (from one chunk or several) as one table, rows in job order."""
    return _concat(sorted(batches, key=first_job))


def _concat(tables: list[pa.Table]) -> pa.Table:
    """Parts of one table as one (a column null throughout one part takes the others' type)."""
    import pyarrow as pa

    return pa.concat_tables(tables, promote_options="permissive")


def _jobs(buf: bytes) -> list[int]:
    import numpy as np

    return np.frombuffer(buf, dtype="<u8").tolist()
