"""Type stubs for the compiled extension ``dupack._core`` (crates/dupack-py)."""

from collections.abc import Callable
from typing import Any

__version__: str
__commit__: str
#: The profile-guided build's profile ("" for a build without one).
__pgo__: str

class ScenarioError(ValueError):
    """The scenario is invalid; ``str(e)`` is ``"path: message"``."""

    path: str
    message: str
    def __init__(self, path: str, message: str) -> None: ...

class RunError(RuntimeError):
    """The simulator failed while running a valid scenario."""

def run(
    scenario_json: str,
    seed: int | None = None,
    trace: list[str] | None = None,
    series: list[str] | None = None,
    series_max: int | None = None,
    pcaps: list[tuple[str, str, str]] | None = None,
    progress: Callable[[float, float, int, float], object] | None = None,
    max_wall: float | None = None,
    partial_on_interrupt: bool = False,
    estimated: Callable[[float, float, float], object] | None = None,
    series_variables: list[str] | None = None,
) -> tuple[str, dict[str, Any]]:
    """Validate and run a scenario given as JSON text; return the result as
    JSON text, and a dict of what was observed, kept in the extension (not
    text: hundreds of thousands of values): the document's ``trace`` and
    ``series`` fields as :class:`HeldTrace` and :class:`HeldSeries`.

    ``trace`` names flows whose packet-level trace is the dict's ``trace``.
    ``series`` names flows and links whose time series is its ``series``
    (at most ``series_max`` records, of the variables ``series_variables``
    names; None: all).

    ``seed=None`` uses the scenario's ``run.seed``. The GIL is released while
    the simulation runs.

    ``estimated(wall_s, events, packets)`` is called before the run with
    :func:`estimate`'s figures; ``progress(sim_time_s, duration_s, events,
    wall_s)`` every 2^18 events. After ``max_wall`` seconds (or on Ctrl-C,
    with ``partial_on_interrupt``; KeyboardInterrupt otherwise) the run stops
    at the simulated time reached and returns its result so far, with
    ``run.end_reason`` ``"wall_limit"`` (``"interrupted"``), ``"partial":
    true`` and the scenario's ``"duration_s"``.
    """

def estimate(scenario_json: str) -> tuple[float, float, float]:
    """``(wall_s, events, packets)``: the estimated cost of running the scenario."""

def validate(scenario_json: str) -> None:
    """Raise :class:`ScenarioError` if the scenario is invalid."""

def toml_document(text: str) -> str:
    """Scenario TOML text as the JSON document the core reads; :class:`ScenarioError` on bad TOML."""

def parse_override(item: str) -> tuple[str | None, str, str]:
    """``"path=value"`` → (JSON ``[segments, value]``, "", "") or (None, path, reason)."""

def apply_overrides(doc_json: str, items: list[str]) -> tuple[str | None, tuple[int, str, str] | None]:
    """Apply ``path=value`` overrides in order: (document JSON, None) or (None, (index, path, reason))."""

def assign_values(doc_json: str, values: list[tuple[str, str]]) -> tuple[str | None, tuple[int, str, str] | None]:
    """Set (path, JSON value) pairs in order, as :func:`apply_overrides`."""

def parse_unit(kind: str, text: str) -> float:
    """A unit string as the scenario parser reads it: ``duration`` (s), ``rate`` (bit/s) or ``size`` (bytes)."""

def result_columns() -> dict[str, list[tuple[str, str, str, str, str]]]:
    """The columns of the result tables ``flows``, ``links``, ``media`` and
    ``run`` in order, as ``(name, dtype, unit, meaning, field)``: the pandas
    dtype, and the JSON field the column comes from (``ndup_at_timeout``
    gives the four ``ndup_*`` columns)."""

def chunk_due(since_last_s: float, elapsed_s: float, finished: int, total: int, min_interval_s: float,
              tail: bool) -> bool:
    """Whether a sweep's next chunk is due ``since_last_s`` seconds after the last, ``elapsed_s`` seconds
    into the sweep with ``finished`` of ``total`` jobs done: every ``min_interval_s`` at first, then every
    tenth of the time elapsed, at most 10 s; with ``tail`` (a stored sweep) also once the chunk has waited
    as long as the sweep should still take (the jobs left at the rate so far), but not less than 20 ms.
    Raises ValueError for a negative or non-finite number of seconds."""
    ...

#: A stored sweep's chunk is handed over (and written) once it holds this
#: many rows of all tables, however soon after the last chunk.
MAX_CHUNK_ROWS: int

def sweep(
    scenarios: list[str],
    jobs: list[tuple[int, int, int | None]],
    workers: int,
    on_chunk: object,
    chunk_seconds: float = 0.5,
    fail_job: int | None = None,
    discard_results: bool = False,
    parts: bool = False,
    series: list[str] | None = None,
    trace: list[str] | None = None,
    series_max: int | None = None,
    series_variables: list[str] | None = None,
    keep: bool = True,
) -> tuple[int, dict[str, Any]]:
    """Run many jobs on ``workers`` OS threads without the GIL; return how
    many finished and the tables of them all (with ``keep=False``, tables
    of no rows: each run's rows then live only until ``on_chunk`` has been
    handed them, so that a sweep stored as it goes holds a chunk's rows in
    memory rather than the whole sweep's).

    ``scenarios`` are scenario documents (JSON text), each parsed once;
    ``jobs`` are ``(job id, index into scenarios, seed or None)``. Every
    ``chunk_seconds`` at first, then every tenth of the time elapsed (at most
    10 s), and at the end, ``on_chunk(jobs, part)`` is called on the
    calling thread with the runs finished since, in job order: ``jobs``
    holds their job ids (u64 each), ``part`` their tables if ``parts`` is
    true, else None. The tables (returned, and ``part``) are::

        {"jobs": buffer,                      # u64 job ids of the runs
         "runs" | "flows" | "links" | "media" | "series" | "trace":
             (rows, job buffer, seed buffer,  # u64 per row
              {column: (kind, data, valid, width)})}

    ``series`` and ``trace`` (names, as in :func:`run`) make every run
    record its time series and packet trace into the ``series`` and
    ``trace`` tables, at most ``series_max`` series records a run (of the
    variables ``series_variables`` names; None: all); the returned tables'
    ``series_truncated`` counts the runs that reached it.

    ``kind`` is ``"u64"``, ``"i64"``, ``"f64"`` (little-endian values),
    ``"bool"`` (a byte each), ``"str"`` (``data = (i64 offsets, UTF-8
    bytes)``, Arrow's large-string buffers) or ``"null"`` (every row null);
    ``valid`` is ``None`` or a byte per row (0 = null); ``width`` is values
    per row. Every buffer is a writable :class:`Buffer` (the buffer
    protocol: ``numpy.frombuffer``, ``pyarrow.py_buffer``) over the core's
    own memory. The columns are the fields of the result structs, as in
    ``run``'s JSON.

    Raises :class:`ScenarioError` with a ``point`` attribute (index into
    ``scenarios``) before running anything; :class:`RunError` with ``job``
    and ``seed`` attributes if a run fails or panics; ``KeyboardInterrupt``
    on Ctrl-C; whatever ``on_chunk`` raises. Except in the last case, the
    runs that had finished are handed to ``on_chunk`` first. ``fail_job``
    makes that job panic (tests of the error path). ``discard_results``
    drops every result in the worker that made it, never calls
    ``on_chunk`` and returns empty tables: the runs alone, the baseline of
    ``bench/sweep.py``.
    """

def lock_file(path: str) -> int | None:
    """Open (creating it) ``path`` and take an exclusive ``flock`` on it
    without waiting: the descriptor that holds the lock (close it to
    release it), or None where the file system has no ``flock``. Raises
    ``BlockingIOError`` if another open file holds the lock."""

class HeldColumn:
    """One column of a run's trace or series kept in the extension; the
    values of a column :func:`write_parquet` writes as they are."""

    def __len__(self) -> int: ...
    def values(self) -> tuple[Buffer, Any]:
        """Copied for numpy (``frombuffer``): ``(values, valid)`` for numbers
        (little-endian u64 or f64, a missing value 0 or NaN; ``valid`` a
        byte per value, or None with none missing), ``(codes, names)`` for
        text (u64 codes), ``(codes, None)`` for a categorical's codes (i64)."""

class HeldTrace:
    """A run's packet trace, kept in the extension."""

    def __len__(self) -> int: ...
    def document(self) -> list[dict[str, Any]]:
        """The document's ``trace`` field: a dict a row (``flow``, ``kind``,
        ``len``, ``seq``, ``time_ns``, ``time_s``)."""
    def columns(self) -> dict[str, HeldColumn]:
        """``time_s``, ``time_ns``, ``flow``, ``kind``, ``seq``, ``len``."""

class HeldSeries:
    """A run's time series, kept in the extension."""

    truncated: bool
    def __len__(self) -> int: ...
    def document(self) -> dict[str, Any]:
        """The document's ``series`` field: ``entities``, ``variables``, and per
        record ``time_ns``, ``entity``, ``variable``, ``value``; ``truncated``."""
    def columns(self) -> dict[str, Any]:
        """``time_s`` and ``value`` (:class:`HeldColumn`), ``entity`` and
        ``variable`` (``(codes, categories)``, the categories in the order they
        first occur)."""

class Buffer:
    """The bytes of one column of :func:`sweep`'s tables, handed over
    without a copy through the buffer protocol (writable: the DataFrames
    built on them are); ``len()`` is their number."""

    def __len__(self) -> int: ...
