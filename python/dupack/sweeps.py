"""Sweeps: one scenario over a grid of values and seeds, run on worker threads.

:func:`sweep` expands the grid (a cartesian product of override paths and
their values) into jobs, one per grid point and seed, and hands them to the
core (``_core.sweep``), which runs them on OS threads without the GIL and
turns the finished runs into columns. With ``out=DIR`` each chunk of them
becomes four Arrow tables, appended to a Parquet dataset per table
(docs/results.md, "Sweeps"); at the end the whole tables become
DataFrames over the core's memory. Every table has the columns of
:class:`~dupack.RunResult`'s tables, with the dtypes of
:data:`dupack.result.TABLE_DTYPES`, preceded by ``job``, one column per
grid path and ``seed``.

pandas and pyarrow are imported on first use.
"""

from __future__ import annotations

import itertools
import os
import time

# From the module that defines them (why: dupack.scenario).
from _collections_abc import Iterable, Mapping, MutableMapping
from os import PathLike

from dupack import _core
from dupack._core import RunError, ScenarioError
from dupack._paths import path_join, path_text
from dupack.api import as_scenario, check_seed, check_series_variables
from dupack.result import (
    TABLE_DTYPES,
    arrow_numbers,
    columns_frame,
    columns_table,
    empty_table,
    part_columns,
    to_frame,
)
from dupack.scenario import OverrideError, Scenario
from dupack.sweep_store import SWEEP_FILE, TABLES, SweepError, Store, check_no_duplicates, damaged, parts, read_meta

# typing for type checkers only (why: dupack/__init__.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

    import pandas as pd
    from pathlib import Path

    import pyarrow as pa

    from dupack.plot import SweepPlots

__all__ = ["sweep", "SweepResult", "SweepError", "TABLES", "SWEEP_FILE", "RUN_METRICS"]


def __getattr__(name: str) -> Any:
    """``RUN_METRICS`` lives in :mod:`dupack.sweep_stats` with the statistics
    that use it, loaded when first asked for (not by a sweep that only runs
    and stores); it is still reachable here, where it was first published."""
    if name == "RUN_METRICS":
        from dupack.sweep_stats import RUN_METRICS

        return RUN_METRICS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _sweep(
    scenario: str | PathLike[str] | Mapping[str, Any] | Scenario,
    grid: Mapping[str, Iterable[Any]] | None = None,
    seeds: Iterable[int] | None = None,
    workers: int | None = None,
    out: str | PathLike[str] | None = None,
    resume: bool = True,
    *,
    overrides: list[str] | None = None,
    progress: Callable[[int, int], None] | bool | None = None,
    chunk_seconds: float = 0.5,
    mixed_versions: bool = False,
    client: Any = None,
    series: Iterable[str] | None = None,
    trace: Iterable[str] | None = None,
    series_max: int | None = None,
    series_variables: Iterable[str] | None = None,
    _fail_job: int | None = None,
    _discard_results: bool = False,
    _keep_rows: bool = False,
) -> SweepResult:
    """Run ``scenario`` for every grid point and seed; return the tables.

    ``grid`` maps override paths (as in :meth:`Scenario.with_overrides`,
    e.g. ``"tcp.variant"``) to lists of values (Python values: ``"sack"``,
    ``0.01``, ``"10s"``); the sweep runs their cartesian product, each point
    with every seed of ``seeds`` (``None``: only the scenario's
    ``run.seed``). ``overrides`` are applied to the scenario first.
    ``workers`` OS threads run the jobs (default: one per CPU); the result
    does not depend on their number.

    With ``out=DIR`` the results are also written to a Parquet dataset per
    table (``DIR/flows/part-00000.parquet``, …; one part per chunk) with
    ``DIR/sweep.json`` describing the sweep. Chunks come ``chunk_seconds``
    apart at first, then less often: a tenth of the time elapsed, at most
    10 s (so an hour-long sweep writes a few hundred parts per table, not
    thousands, and its tables are built while the workers run); toward the
    end they halve, down to 20 ms of runs, so that the last chunk, written
    after the last run, is small. The
    returned tables are then read back from ``DIR`` (the parts this call
    wrote) when first asked for: the sweep holds one chunk's rows in
    memory, not all of them, however many runs it makes; keep ``DIR`` until
    you have looked at them.
    Running the same sweep into the same ``DIR`` again skips the jobs
    already stored (``resume=False`` deletes them and starts over); a DIR
    that holds another sweep or other files raises :class:`SweepError`.
    Parts written stay valid if the sweep is interrupted or fails.
    ``DIR/sweep.json`` and every part name the dupack version and commit
    that wrote them; resuming a sweep that another build wrote raises
    :class:`SweepError` unless ``mixed_versions=True``.

    With ``client`` (a :class:`distributed.Client`; ``pip install
    'dupack[dask]'``) the jobs run on that Dask cluster instead of local
    threads (``workers`` must then be None): in batches of consecutive
    jobs, each a Dask task of a second or more, whose rows come back to
    this process and are stored as they come, as chunks are locally. The
    result is the same as the local executor's, row for row; a task lost
    with its worker is run again, and its rows are taken once. The workers
    need the same dupack (version and commit) as this process; if they
    cannot run it, or a task keeps killing its workers,
    :class:`dupack.dask_executor.ExecutorError` is raised (after the runs
    that finished are stored).

    ``series`` and ``trace`` make every run record what :func:`dupack.run`
    records with the same arguments: the time series of these flows and
    links (``"*"``: all) and the packet trace of these flows, at most
    ``series_max`` series records a run, of the variables
    ``series_variables`` names (default all). They fill the ``series`` and
    ``trace`` tables (long format, as a run's ``series.parquet`` and
    ``trace.parquet``, with the job, grid and seed columns in front);
    without them those tables are empty and cost nothing. A stored sweep
    remembers them: resuming with others is refused.

    ``progress(done, total)`` is called at the start and after every chunk.
    By default (``progress=None``) a progress bar shows the runs done: on
    stderr in a terminal, below the cell in Jupyter, nowhere else;
    ``progress=False`` turns it off.

    ``_keep_rows`` (for dupack.reproduce, whose sweeps are small and whose
    tables are read at once): a stored sweep that runs every job in this
    call keeps its rows in memory too, and its tables are made from them,
    not read back from ``DIR``: the same tables.

    Raises :class:`ScenarioError` (naming the grid point) before anything
    runs if a grid point is invalid, :class:`RunError` naming the grid point
    and seed if a run fails, and ``KeyboardInterrupt`` on Ctrl-C; in the
    last two cases every run that had finished is stored first.
    """
    base = as_scenario(scenario).with_overrides(overrides)
    paths, values = _check_grid(grid)
    seed_list = _check_seeds(seeds)
    if client is not None and workers is not None:
        raise ValueError("workers is the number of local threads; with client= the Dask workers' threads run the jobs")
    if client is not None and _discard_results:
        raise ValueError("_discard_results is for the local executor only")
    nworkers = _check_workers(workers)
    observe = _check_observe(series, trace, series_max, series_variables)
    if not (isinstance(chunk_seconds, int | float) and 0 <= chunk_seconds < float("inf")):
        raise ValueError(f"chunk_seconds must be a number >= 0, got {chunk_seconds!r}")
    points = list(itertools.product(*values))
    docs = []
    for point in points:
        try:
            doc = base.with_values(dict(zip(paths, point, strict=True))).canonical_json()
            # Every point is checked before the output directory is touched.
            _core.validate(doc)
        except ScenarioError as e:
            raise _at_point(e, paths, point) if paths else e from None
        docs.append(doc)
    grid_doc = {p: list(v) for p, v in zip(paths, values, strict=True)}
    ids = _Ids(paths, values, seed_list)
    total = len(points) * len(seed_list)

    store = (
        Store.open(out, base, grid_doc, seed_list, total, resume, mixed_versions, observe)
        if out is not None
        else None
    )
    done = store.done if store is not None else set()
    jobs = [
        (j, j // len(seed_list), seed_list[j % len(seed_list)]) for j in range(total) if j not in done
    ]
    skipped = total - len(jobs)
    finished = skipped

    def on_chunk(chunk_jobs: Any, part: dict[str, Any] | None) -> None:
        nonlocal finished
        if store is not None and part is not None:
            fast = ids.part_columns(part)
            if fast is None or not store.write_columns(*fast):
                store.write({t: ids.table(t, part[t]) for t in TABLES})
        finished += len(chunk_jobs) // 8
        if progress is not None:
            progress(finished, total)

    executed, everything = 0, None
    arrow: dict[str, list[pa.Table]] = {t: [] for t in TABLES}

    def on_tables(batches: dict[str, list[pa.Table]]) -> None:
        # The Dask executor's chunks: stored, or kept for the result (as the core keeps them locally).
        nonlocal finished
        from dupack.dask_executor import in_order

        if store is not None:
            store.write({t: in_order(batches[t]) for t in TABLES})
        else:
            for t in TABLES:
                arrow[t].extend(b for b in batches[t] if b.num_rows)
        finished += sum(b.num_rows for b in batches["runs"])
        if progress is not None:
            progress(finished, total)

    try:
        if progress is not None:
            progress(finished, total)
        if jobs:
            try:
                if client is None:
                    # A stored sweep's rows go to the store chunk by chunk and
                    # are read back from it when asked for: its memory is a
                    # chunk's, however long the sweep.
                    executed, everything = _core.sweep(
                        docs, jobs, nworkers, on_chunk, float(chunk_seconds), _fail_job, _discard_results,
                        store is not None, **observe, keep=store is None or (_keep_rows and not skipped),
                    )
                    cut = everything.get("series_truncated", 0) if everything else 0
                    if cut:
                        import warnings

                        warnings.warn(
                            f"the time series of {cut} run(s) reached the limit of "
                            f"{observe.get('series_max') or 'the default number of'} records a run; later records "
                            "were not kept (raise series_max, or trace fewer flows and links)",
                            stacklevel=3,
                        )
                else:
                    from dupack.dask_executor import run_jobs

                    executed = run_jobs(
                        client, docs, jobs, ids, on_tables, float(chunk_seconds), _fail_job, observe,
                        stored=store is not None,
                    )
            except ScenarioError as e:
                point = getattr(e, "point", None)
                if point is None or not paths:
                    raise
                raise _at_point(e, paths, points[point]) from None
            except RunError as e:
                job = getattr(e, "job", None)
                if job is None or not paths:
                    raise
                where = ", ".join(f"{p}={_show(v)}" for p, v in zip(paths, points[job // len(seed_list)], strict=True))
                raise RunError(f"grid point {where}: {e}") from None
    finally:
        if store is not None:
            # A new directory's description is published while the runs simulate
            # (Store.settle): on disk before the sweep returns, also when it stops early.
            store.settle()

    if store is not None and skipped:
        res = SweepResult.load(store.root)
        res.executed, res.skipped = executed, skipped
        return res
    if store is not None and not (_keep_rows and everything):
        # Made on first use from the parts this call wrote (`dupack sweep -q`
        # never looks at them).
        root, written = store.root, store.written
        tables = _Tables({t: lambda t=t: _read_parts(root, written[t], t, ids) for t in TABLES})
    elif client is not None:
        # Made on first use, as the local executor's are.
        tables = _Tables({t: lambda t=t: ids.frame_of(t, arrow[t]) for t in TABLES})
    else:
        # Made on first use: `dupack sweep -q` stores the parts and never looks at them
        # (nor does a stored sweep keep its rows, but with _keep_rows).
        tables = _Tables({
            t: (lambda t=t: ids.frame(t, everything[t])) if everything else (lambda t=t: ids.empty(t)) for t in TABLES
        })
    return SweepResult(tables, base, grid_doc, seed_list, store.root if store else None, executed, skipped)


class _Tables(MutableMapping):
    """A sweep's tables, each made into a DataFrame by its function the
    first time it is asked for (pandas is imported then, not before)."""

    def __init__(self, make: dict[str, Callable[[], Any]]) -> None:
        #: Table → its DataFrame, or the function that makes it (not yet called).
        self._items: dict[str, Any] = dict(make)
        self._pending = set(make)

    def __getitem__(self, table: str) -> Any:
        item = self._items[table]
        if table in self._pending:
            item = self._items[table] = item()
            self._pending.discard(table)
        return item

    def __setitem__(self, table: str, df: Any) -> None:
        self._pending.discard(table)
        self._items[table] = df

    def __delitem__(self, table: str) -> None:
        del self._items[table]
        self._pending.discard(table)

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return repr(dict(self))


def sweep(*args: Any, **kwargs: Any) -> SweepResult:
    progress = kwargs.get("progress")
    bar = None
    if progress is None or isinstance(progress, bool):  # a callable is the caller's own
        bar = _ProgressBar.auto() if progress is not False else None
        kwargs["progress"] = None
    if bar is None:
        return _sweep(*args, **kwargs)
    kwargs["progress"] = bar.update
    try:
        return _sweep(*args, **kwargs)
    finally:
        bar.close()


# What functools.wraps would copy: the documentation and the signature
# (inspect follows __wrapped__) are _sweep's. functools itself would bring
# the collections package along, 1.5 ms of every `dupack sweep`.
sweep.__doc__ = _sweep.__doc__
sweep.__annotations__ = _sweep.__annotations__
sweep.__wrapped__ = _sweep  # type: ignore[attr-defined]


class _ProgressBar:
    """The default progress of :func:`sweep`: rich's bar on a terminal's
    stderr, or an HTML ``<progress>`` updated in place in Jupyter (which
    needs no widget library)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.handle: Any = None
        self.bar: Any = None
        self.task: Any = None
        self.done = self.total = 0
        self.t0 = time.perf_counter()

    @classmethod
    def auto(cls) -> _ProgressBar | None:
        import sys

        shell = sys.modules.get("IPython")
        ip = shell.get_ipython() if shell is not None and hasattr(shell, "get_ipython") else None
        if ip is not None and getattr(ip, "kernel", None) is not None:
            return cls("jupyter")
        if sys.stderr is not None and sys.stderr.isatty():
            return cls("terminal")
        return None

    def update(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        if self.kind == "terminal":
            if self.bar is None:
                from rich.console import Console
                from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

                self.bar = Progress(
                    TextColumn("sweep"), BarColumn(), MofNCompleteColumn(), TextColumn("runs"),
                    TimeRemainingColumn(), console=Console(stderr=True), transient=True,
                )
                self.bar.start()
                self.task = self.bar.add_task("runs", total=total, completed=done)
            else:
                self.bar.update(self.task, completed=done)
            return
        from IPython.display import HTML, display

        page = HTML(self._html())
        if self.handle is None:
            self.handle = display(page, display_id=True)
        else:
            self.handle.update(page)

    def _html(self, final: bool = False) -> str:
        elapsed = time.perf_counter() - self.t0
        text = f"sweep: {self.done:,} of {self.total:,} runs" + (f" in {elapsed:.1f} s" if final else "")
        return f'<progress value="{self.done}" max="{max(self.total, 1)}" style="width: 20em"></progress> {text}'

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
        elif self.handle is not None:
            from IPython.display import HTML

            self.handle.update(HTML(self._html(final=True)))


class SweepResult:
    """The tables of a sweep: ``runs`` (one row per run: ``RunResult.run``'s
    fields), ``flows``, ``links`` and ``media`` (as in :class:`RunResult`),
    each row preceded by ``job``, one column per grid path and ``seed``,
    rows in job order. Also ``scenario`` (the base scenario), ``grid``,
    ``seeds``, ``out`` (the directory, if stored), ``executed`` (runs this
    call made) and ``skipped`` (runs it found already stored)."""

    def __init__(
        self,
        tables: Mapping[str, pd.DataFrame],
        scenario: Scenario | None,
        grid: dict[str, list[Any]],
        seeds: list[int | None],
        out: str | PathLike[str] | None = None,
        executed: int = 0,
        skipped: int = 0,
    ) -> None:
        self.tables = tables
        self.scenario = scenario
        self.grid = grid
        self.seeds = seeds
        self._out = None if out is None else path_text(out)
        self.executed = executed
        self.skipped = skipped

    @property
    def out(self) -> Path | None:
        """The directory the sweep is stored in (None if it was not)."""
        if self._out is None:
            return None
        from pathlib import Path  # here, not on the way to the first run (dupack.sweep_store)

        return Path(self._out)

    @out.setter
    def out(self, value: str | PathLike[str] | None) -> None:
        self._out = None if value is None else path_text(value)

    @property
    def runs(self) -> pd.DataFrame:
        return self.tables["runs"]

    @property
    def flows(self) -> pd.DataFrame:
        return self.tables["flows"]

    @property
    def links(self) -> pd.DataFrame:
        return self.tables["links"]

    @property
    def media(self) -> pd.DataFrame:
        return self.tables["media"]

    @property
    def series(self) -> pd.DataFrame:
        """The time series of the runs (``dupack.sweep(..., series=[...])``):
        ``time_s``, ``entity``, ``variable``, ``value`` per record, after the
        job, grid and seed columns; empty if the sweep recorded none."""
        return self.tables["series"]

    @property
    def trace(self) -> pd.DataFrame:
        """The packet traces of the runs (``dupack.sweep(..., trace=[...])``),
        with the columns of :attr:`RunResult.trace` after the job, grid and
        seed columns; empty if the sweep recorded none."""
        return self.tables["trace"]

    @classmethod
    def load(cls, directory: str | PathLike[str]) -> SweepResult:
        """Read a sweep stored by ``dupack.sweep(..., out=directory)`` (also a partial one)."""
        root = path_text(directory)
        meta = read_meta(root)
        grid = dict(meta["grid"])
        seeds = list(meta["seeds"])
        ids = _Ids(list(grid), list(grid.values()), seeds)
        for t in TABLES:
            for _, f in sorted(parts(path_join(root, t))):
                if damaged(f):
                    raise SweepError(
                        f"'{f}' is damaged (not a whole Parquet file); rerun the same sweep into '{root}' "
                        "to set it aside and run its jobs again"
                    )
        check_no_duplicates(root)
        tables = {t: _read_parts(root, [f for _, f in sorted(parts(path_join(root, t)))], t, ids) for t in TABLES}
        return cls(tables, Scenario.from_dict(meta["scenario"]), grid, seeds, root, 0, len(tables["runs"]))

    # --- statistics over seeds ---------------------------------------------------

    def _split_by_variant(self, by_variant: bool | None) -> bool:
        if by_variant is not None:
            return bool(by_variant)
        # Split when a run mixes variants (in one run, or across a grid of them).
        return bool(len(self.flows)) and bool((self.flows.groupby("job")["variant"].nunique() > 1).any())

    def run_values(self, by_variant: bool = False) -> pd.DataFrame:
        """One row per run (and per variant, with ``by_variant``): ``job``,
        the grid columns, ``seed`` (and ``variant``), ``flows`` (how many
        flows the row covers) and the value of each metric of
        :data:`dupack.sweep_stats.RUN_METRICS` for the run, combined over the row's flows as
        that table says: goodput averaged, counters summed, Jain's index over
        the flows' goodputs. :meth:`summary` and :meth:`compare` work on
        these values, so that every statistic is over runs (seeds)."""
        from dupack.sweep_stats import run_values

        return run_values(self.runs, self.flows, list(self.grid), by_variant)

    def summary(self, by_variant: bool | None = None) -> pd.DataFrame:
        """Statistics over seeds, one row per grid point (and variant).

        Columns: the grid paths (and ``variant``), ``n`` (the runs, that is
        the seeds, of the row), then for each metric of :data:`dupack.sweep_stats.RUN_METRICS`
        ``<metric>_mean``, ``<metric>_sd`` (the standard deviation over the
        runs) and ``<metric>_ci95`` (the half-width of the 95 % Student-t
        interval of the mean: the interval is mean ± ci95; NaN for n < 2).
        One rule for every column: a run's value combines its flows as
        :data:`dupack.sweep_stats.RUN_METRICS` says, then the statistics are over runs.
        ``by_variant=None`` splits the rows by variant when a run's flows
        differ in variant.
        """
        from dupack.sweep_stats import summary

        return summary(self.run_values(self._split_by_variant(by_variant)), list(self.grid))

    def compare(
        self,
        metric: str,
        a: Any,
        b: Any,
        by: str | list[str] | None = None,
    ) -> pd.DataFrame:
        """A against B on ``metric`` (a column of :meth:`run_values`), per
        value of ``by``: the means, the difference with its 95 % interval,
        and the relative improvement of A over B, ``rel = mean(A)/mean(B) -
        1``, with its 95 % interval (``rel_low``, ``rel_high``).

        ``a`` and ``b`` select runs: mappings of column (a grid path or
        ``variant``) to value, e.g. ``a={"tcp.variant": "sack"}``, or bare
        values, looked up in the one grid column (or ``variant``) holding
        both. ``by`` names the columns to compare within (the other grid
        paths, typically); every seed must occur once per side within a
        group. When both sides ran the same seeds the runs are paired by seed
        (``method`` = ``"paired"``); otherwise they are taken as independent
        samples and compared with Welch's interval (``"welch"``). See
        :func:`dupack.stats.compare`.
        """
        from dupack.sweep_stats import compare_runs

        return compare_runs(self, metric, a, b, by)

    def _display(self) -> tuple[pd.DataFrame, str]:
        """The summary as text cells for printing, and the note that explains them."""
        from dupack.sweep_stats import summary_display

        return summary_display(self.summary(), list(self.grid))

    def __repr__(self) -> str:
        where = f" in {self._out!r}" if self._out else ""
        return f"<SweepResult {len(self.runs)} runs, grid {list(self.grid)}, {len(self.seeds)} seeds{where}>"

    def _repr_html_(self) -> str:
        import html

        head = html.escape(repr(self))
        if not len(self.runs):
            return f"<p><code>{head}</code></p>"
        table, note = self._display()
        from dupack.sweep_stats import SUMMARY_ROWS

        shown = table.head(SUMMARY_ROWS)
        more = len(table) - len(shown)
        tail = f"<p>… and {more} more grid points (see <code>.summary()</code>)</p>" if more else ""
        return (
            f"<p><code>{head}</code></p>{shown.to_html(index=False, escape=True)}{tail}"
            f"<p><small>{html.escape(note)}</small></p>"
        )

    @property
    def plot(self) -> SweepPlots:
        """This sweep's plots (docs/plots.md), each a matplotlib Figure:
        ``.sweep()``, ``.bars()``, ``.ndup()``."""
        from dupack.plot import SweepPlots

        return SweepPlots(self)


# --- checks --------------------------------------------------------------------


def _check_grid(grid: Mapping[str, Iterable[Any]] | None) -> tuple[list[str], list[list[Any]]]:
    if grid is None:
        return [], []
    if not isinstance(grid, Mapping):
        raise TypeError(f"grid must be a mapping of path to a list of values, not {type(grid).__name__}")
    paths, values = [], []
    reserved = {"job", "seed", *(c for d in TABLE_DTYPES.values() for c in d)}
    for path, vals in grid.items():
        if not isinstance(path, str) or not path.strip():
            raise ScenarioError("", f"grid paths must be non-empty strings, got {path!r}")
        if path in reserved:
            raise ScenarioError(path, "a grid path cannot be a column name of the result tables")
        if path.strip() in ("run.seed", "run[seed]"):
            raise ScenarioError(path, "vary the seed with seeds=..., not in the grid")
        if isinstance(vals, str | bytes) or not isinstance(vals, Iterable):
            raise ScenarioError(path, f"the grid needs a list of values here, got {vals!r}")
        vals = list(vals)
        if not vals:
            raise ScenarioError(path, "the grid lists no value here")
        import json  # only for a grid; a sweep of seeds alone starts without it

        seen = []
        for v in vals:
            key = json.dumps(v, sort_keys=True, default=str)
            if key in seen:
                raise ScenarioError(path, f"the grid lists {_show(v)} twice")
            seen.append(key)
        paths.append(path)
        values.append(vals)
    return paths, values


def _check_seeds(seeds: Iterable[int] | None) -> list[int | None]:
    if seeds is None:
        return [None]
    if isinstance(seeds, int | str):
        raise TypeError(f"seeds must be a list or range of integers, not {type(seeds).__name__}")
    out = [check_seed(s) for s in seeds]
    if not out:
        raise ValueError("seeds is empty: give at least one seed")
    if len(set(out)) != len(out):
        dup = next(s for s in out if out.count(s) > 1)
        raise ValueError(f"seeds lists {dup} twice")
    return out


def _names(what: str, names: Iterable[str] | None) -> list[str] | None:
    if names is None:
        return None
    if isinstance(names, str):
        names = [names]
    out = list(names)
    if not out or not all(isinstance(n, str) and n for n in out):
        raise ValueError(f"{what} must be a list of flow or link names, got {out!r}")
    return out


def _check_observe(
    series: Iterable[str] | None,
    trace: Iterable[str] | None,
    series_max: int | None,
    series_variables: Iterable[str] | None = None,
) -> dict[str, Any]:
    """The sweep's ``series``, ``trace``, ``series_max`` and ``series_variables`` as keyword arguments
    of the core's sweep (the core checks the names)."""
    out: dict[str, Any] = {}
    if (s := _names("series", series)) is not None:
        out["series"] = s
    if series_variables is not None:
        # As dupack.run checks them (a single name or any iterable of names is taken, as for series).
        names = [series_variables] if isinstance(series_variables, str) else list(series_variables)
        out["series_variables"] = check_series_variables(s, names)
    if (t := _names("trace", trace)) is not None:
        out["trace"] = t
    if series_max is not None:
        if isinstance(series_max, bool) or not isinstance(series_max, int) or series_max < 1:
            raise ValueError(f"series_max must be an integer >= 1, got {series_max!r}")
        out["series_max"] = series_max
    return out


def _check_workers(workers: object) -> int:
    if workers is None:
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except (AttributeError, OSError):
            return os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, int):
        raise TypeError(f"workers must be an integer >= 1, not {type(workers).__name__}")
    if workers < 1:
        raise ValueError(f"workers must be an integer >= 1, got {workers}")
    return workers


def _show(v: Any) -> str:
    if isinstance(v, str):
        return v
    import json

    return json.dumps(v)


def _at_point(e: ScenarioError, paths: list[str], point: tuple[Any, ...]) -> ScenarioError:
    if isinstance(e, OverrideError):  # names the path and the value already
        return e
    where = ", ".join(f"{p}={_show(v)}" for p, v in zip(paths, point, strict=True))
    return ScenarioError(e.path, f"{e.message} (grid point {where})")


# --- rows: job, grid columns, seed ----------------------------------------------


class _Ids:
    """Puts the job, grid and seed columns in front of a table's columns."""

    def __init__(self, paths: list[str], values: list[list[Any]], seeds: list[int | None]) -> None:
        self.paths = paths
        self.nseeds = len(seeds)
        self.points = list(itertools.product(*values))
        self._by_point: dict[str, Any] | None = None
        self._empty: dict[str, pd.DataFrame] = {}

    def by_point(self) -> dict[str, Any]:
        """Grid path → one value per point (a pandas array), with one dtype
        for the whole sweep (so every Parquet part has the same schema):
        numbers, booleans and strings as such, anything else (mixed types,
        lists, tables) as JSON text."""
        if self._by_point is None and not self.paths:
            self._by_point = {}  # no grid: nothing to build, and no pandas to import for it
        if self._by_point is None:
            import pandas as pd

            out = {}
            for i, p in enumerate(self.paths):
                col = [pt[i] for pt in self.points]
                s = pd.Series(col)
                if s.dtype == object:
                    s = pd.Series([_show(v) for v in col], dtype="str")
                out[p] = s.array
            self._by_point = out
        return self._by_point

    def _front(self, job_buf: Any, seed_buf: Any) -> tuple[Any, dict[str, Any], Any]:
        """(job, {grid path: values}, seed) for the rows of a part."""
        import numpy as np

        job = np.frombuffer(job_buf, dtype="<i8")  # job ids are far below 2**63: the core's u64 as they are
        point = job // self.nseeds
        grid = {p: arr.take(point) for p, arr in self.by_point().items()}
        return job, grid, np.frombuffer(seed_buf, dtype="<u8")

    def part_columns(
        self, part: dict[str, tuple[int, Any, Any, dict[str, Any]]]
    ) -> tuple[dict[str, tuple[int, list[tuple[str, str, Any, Any]]]], list[int]] | None:
        """A chunk of every table as the columns ``_core.write_part`` writes
        (job and seed in front), and the chunk's jobs; None where only the
        pyarrow path can store it (grid columns, fields unknown here: see
        :func:`part_columns`)."""
        if self.paths or not part["runs"][0]:
            return None
        out = {}
        for t in TABLES:
            rows, job_buf, seed_buf, columns = part[t]
            cols = part_columns(t, rows, columns) if rows else []
            if cols is None:
                return None
            front = [("job", "int64", job_buf, None), ("seed", "uint64", seed_buf, None)]
            out[t] = (rows, front + cols if rows else [])
        # job ids are far below 2**63: the core's u64 read as they are (as _front does).
        jobs = memoryview(part["runs"][1]).cast("B").cast("q").tolist()
        return out, jobs

    def table(self, table: str, part: tuple[int, Any, Any, dict[str, Any]]) -> pa.Table:
        """A part of a table as Arrow (for the store)."""
        import pyarrow as pa

        rows, job_buf, seed_buf, columns = part
        job, grid, seed = self._front(job_buf, seed_buf)
        front = {
            "job": arrow_numbers(job, pa.int64()),
            **{p: pa.Array.from_pandas(a) for p, a in grid.items()},
            "seed": arrow_numbers(seed, pa.uint64()),
        }
        return columns_table(table, rows, columns, front)

    def frame(self, table: str, part: tuple[int, Any, Any, dict[str, Any]]) -> pd.DataFrame:
        """A table as the sweep's DataFrame, over the core's memory."""
        rows, job_buf, seed_buf, columns = part
        if rows == 0:
            return self.empty(table)
        job, grid, seed = self._front(job_buf, seed_buf)
        return _in_job_order(columns_frame(table, rows, columns, {"job": job, **grid, "seed": seed}))

    def frame_of(self, table: str, parts: list[pa.Table]) -> pd.DataFrame:
        """A table as the sweep's DataFrame from the batches of the Dask
        executor (parts made by :meth:`table`), rows in job order."""
        if not parts or not sum(p.num_rows for p in parts):
            return self.empty(table)
        import numpy as np

        from dupack.dask_executor import in_order

        t = in_order(parts)
        job = t.column("job").to_numpy().astype("<i8", copy=False)
        front = {"job": job, **{p: arr.take(job // self.nseeds) for p, arr in self.by_point().items()}}
        front["seed"] = np.asarray(t.column("seed").to_numpy(), dtype="<u8")
        rest = t.drop_columns(["job", *self.paths, "seed"])
        return _in_job_order(to_frame(rest, table, front))

    def empty(self, table: str) -> pd.DataFrame:
        """The table with no rows (built once per table)."""
        if table not in self._empty:
            import numpy as np

            none = np.zeros(0, dtype="int64")
            front = {"job": none, **{p: arr.take(none) for p, arr in self.by_point().items()}}
            front["seed"] = np.zeros(0, dtype="uint64")
            self._empty[table] = to_frame(empty_table(table), table, front)
        return self._empty[table]


def _read_parts(root: str, files: list[str], table: str, ids: _Ids) -> pd.DataFrame:
    """Table ``table`` of the sweep stored in ``root``: its parts ``files``, rows in job order."""
    if not files:
        return ids.empty(table)
    gone = next((f for f in files if not os.path.exists(f)), None)
    if gone is not None:
        raise SweepError(
            f"'{gone}' is gone: a stored sweep's tables are read from its directory when first asked for, "
            f"and '{root}' no longer holds them; load what it holds with SweepResult.load, or run the sweep again"
        )
    import pyarrow.parquet as pq

    return _in_job_order(to_frame(pq.read_table(files), table))


def _in_job_order(df: pd.DataFrame) -> pd.DataFrame:
    # After a failure or Ctrl-C the last rows can hold later jobs first; a stored dataset reads back in file order.
    if not df["job"].is_monotonic_increasing:
        df = df.sort_values("job", kind="stable", ignore_index=True)
    return df
