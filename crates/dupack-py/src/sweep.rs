//! `sweep`: the binding of `dupack_batch::sweep`.
//!
//! The Python front (`dupack.sweep`) expands a grid into scenario documents
//! and (job, scenario, seed) triples. Here the documents are parsed and the
//! names of what to observe resolved, with errors that name the grid point;
//! the sweep runs without the GIL, taking it back only to look for Ctrl-C
//! and to hand each chunk to Python (see [`PyListener`]); its tables reach
//! Python as lent buffers (see [`crate::results`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use dupack_batch::sweep::{check_jobs, check_workers, Chunk, Failure, Listener, Sweep};
use dupack_batch::Watch;
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;

use crate::buffer::{Buffer, Owned};
use crate::results::into_python;
use crate::{parse_plain, run_error, scenario_error};

/// sweep(scenarios, jobs, workers, on_chunk, chunk_seconds=0.5, fail_job=None, discard_results=False, parts=False, series=None, trace=None, series_max=None, series_variables=None, keep=True) -> (int, tables)
///
/// `scenarios`: scenario documents as JSON text; `jobs`: (job id, index
/// into `scenarios`, seed or None for the scenario's `run.seed`). Runs
/// every job on `workers` threads and calls `on_chunk(jobs, part)` on this
/// thread with the runs finished since the last call, `chunk_seconds` apart
/// at first and then less often (a tenth of the time elapsed, at most 10 s),
/// and with `parts` more often toward the end (see `chunk_due` in
/// dupack-batch's `sweep/pace.rs`): `jobs` their job ids, `part` their tables if
/// `parts` (for the store) or None. Returns the number of runs finished and
/// the tables of them all, or with `keep=False` empty tables: then each
/// run's rows live only until its chunk is handed over (a stored sweep's
/// memory is a chunk's, not the sweep's). See `_core.pyi` for the layout
/// of the tables.
/// `series` and `trace` name what every run observes, as in `run`: its
/// time series (flows and links) and its packet trace (flows), at most
/// `series_max` series records a run of the variables `series_variables`
/// names (None: all); they fill the `series` and `trace`
/// tables, and the returned tables' `series_truncated` counts the runs
/// whose series reached that limit.
/// `fail_job` makes that job panic (for testing the error path). With
/// `discard_results` every result is dropped by the worker that made it,
/// `on_chunk` is never called and the tables are empty: the same runs on
/// the same threads with nothing converted, which is what `bench/sweep.py`
/// measures the cost of the results against.
///
/// An invalid document raises ScenarioError with a `point` attribute (its
/// index in `scenarios`) before anything runs. A failed or panicking run
/// raises RunError with `job` and `seed` attributes; Ctrl-C raises
/// KeyboardInterrupt; an exception from `on_chunk` is raised as it is.
/// In the first two cases, and after Ctrl-C, `on_chunk` is first called
/// once more with every run that had finished, so nothing done is lost.
#[pyfunction]
#[pyo3(signature = (scenarios, jobs, workers, on_chunk, chunk_seconds=0.5, fail_job=None, discard_results=false, parts=false, series=None, trace=None, series_max=None, series_variables=None, keep=true))]
#[allow(clippy::too_many_arguments)] // Python keyword arguments
pub fn sweep(
    py: Python<'_>,
    scenarios: Vec<String>,
    jobs: Vec<(u64, usize, Option<u64>)>,
    workers: usize,
    on_chunk: PyObject,
    chunk_seconds: f64,
    fail_job: Option<u64>,
    discard_results: bool,
    parts: bool,
    series: Option<Vec<String>>,
    trace: Option<Vec<String>>,
    series_max: Option<usize>,
    series_variables: Option<Vec<String>>,
    keep: bool,
) -> PyResult<(usize, PyObject)> {
    check_workers(workers).map_err(PyValueError::new_err)?;
    if !chunk_seconds.is_finite() || chunk_seconds < 0.0 {
        return Err(PyValueError::new_err(format!("chunk_seconds must be >= 0, got {chunk_seconds}")));
    }
    check_jobs(&jobs, scenarios.len()).map_err(PyValueError::new_err)?;
    // The ScenarioError of a document, with its index as `point`.
    let at_point = |i: usize, e: dupack_sim::ScenarioError| {
        let err = scenario_error(py, e);
        let named = err.value_bound(py).setattr("point", i);
        named.map(|()| err)
    };
    let parsed = py.allow_threads(|| scenarios.iter().map(|s| parse_plain(s)).collect::<Vec<_>>());
    let mut models = Vec::with_capacity(parsed.len());
    for (i, p) in parsed.into_iter().enumerate() {
        match p {
            Ok(s) => models.push(s),
            Err(e) => return Err(at_point(i, e)?),
        }
    }
    let mut watches = Vec::with_capacity(models.len());
    for (i, m) in models.iter().enumerate() {
        match Watch::resolve(m, series.as_deref(), trace.as_deref(), series_max, series_variables.as_deref()) {
            Ok(w) => watches.push(w),
            Err(e) => return Err(at_point(i, e)?),
        }
    }
    let interrupt = AtomicBool::new(false);
    let mut listener = PyListener { on_chunk: &on_chunk, interrupt: &interrupt, ctrl_c: None };
    let sweep = Sweep {
        watches: &watches,
        chunk_interval: Duration::from_secs_f64(chunk_seconds),
        parts,
        keep,
        interrupt: Some(&interrupt),
        fail_job,
        discard_results,
        ..Sweep::new(&models, &jobs, workers)
    };
    match py.allow_threads(|| sweep.run(&mut listener)) {
        Ok(report) => {
            let tables = into_python(py, report.results)?;
            tables.bind(py).set_item("series_truncated", report.series_truncated)?;
            Ok((report.ran, tables))
        }
        Err(stopped) => Err(exception(py, stopped.failure, listener.ctrl_c)?),
    }
}

/// The exception a sweep that stopped raises; `ctrl_c` is the KeyboardInterrupt that interrupted it.
fn exception(py: Python<'_>, failure: Failure<PyErr>, ctrl_c: Option<PyErr>) -> PyResult<PyErr> {
    Ok(match failure {
        Failure::Interrupted => ctrl_c.unwrap_or_else(|| PyKeyboardInterrupt::new_err(())),
        Failure::Listener(e) => e,
        Failure::Run { job, seed, message } => {
            let err = run_error(py, dupack_sim::RunError(format!("job {job} (seed {seed}): {message}")));
            let v = err.value_bound(py);
            v.setattr("job", job)?;
            v.setattr("seed", seed)?;
            err
        }
        f @ (Failure::Merge(_) | Failure::Invalid(_)) => PyValueError::new_err(f.to_string()),
    })
}

/// The Python side of a sweep: `on_chunk`, and Ctrl-C.
///
/// Ctrl-C (a KeyboardInterrupt, whether the signal check or `on_chunk`
/// raises it) interrupts the sweep, which still hands `on_chunk` every run
/// finished before raising it; any other exception stops the sweep at once
/// and is raised as it is.
struct PyListener<'a> {
    on_chunk: &'a PyObject,
    interrupt: &'a AtomicBool,
    /// The first KeyboardInterrupt, raised when the sweep has stopped.
    ctrl_c: Option<PyErr>,
}

impl PyListener<'_> {
    fn interrupt_on_ctrl_c(&mut self, py: Python<'_>, r: PyResult<()>) -> PyResult<()> {
        match r {
            Err(e) if e.is_instance_of::<PyKeyboardInterrupt>(py) => {
                self.ctrl_c.get_or_insert(e);
                self.interrupt.store(true, Ordering::Relaxed);
                Ok(())
            }
            r => r,
        }
    }
}

impl Listener for PyListener<'_> {
    type Error = PyErr;

    fn poll(&mut self) -> PyResult<()> {
        Python::with_gil(|py| {
            let r = py.check_signals();
            self.interrupt_on_ctrl_c(py, r)
        })
    }

    fn chunk(&mut self, Chunk { jobs, part }: Chunk) -> PyResult<()> {
        Python::with_gil(|py| {
            let call = || {
                let jobs = Buffer::lend(py, Owned::U64(jobs))?;
                let part = match part {
                    Some(p) => into_python(py, p)?,
                    None => py.None(),
                };
                self.on_chunk.call1(py, (jobs, part)).map(drop)
            };
            let r = call();
            self.interrupt_on_ctrl_c(py, r)
        })
    }
}

/// chunk_due(since_last_s, elapsed_s, finished, total, min_interval_s, tail) -> bool
///
/// Whether the runs finished since the last chunk, `since_last_s` seconds
/// ago, are handed over now, `elapsed_s` into a sweep that has finished
/// `finished` of its `total` jobs: `dupack_batch`'s rule (`sweep/pace.rs`,
/// `tail` for a stored sweep), which the Dask executor follows too so that
/// both stores fill alike.
#[pyfunction]
pub fn chunk_due(
    since_last_s: f64,
    elapsed_s: f64,
    finished: usize,
    total: usize,
    min_interval_s: f64,
    tail: bool,
) -> PyResult<bool> {
    let d = |x: f64, what: &str| {
        Duration::try_from_secs_f64(x)
            .map_err(|_| PyValueError::new_err(format!("{what} must be a number of seconds >= 0, got {x}")))
    };
    Ok(dupack_batch::sweep::chunk_due(
        d(since_last_s, "since_last_s")?,
        d(elapsed_s, "elapsed_s")?,
        finished,
        total,
        d(min_interval_s, "min_interval_s")?,
        tail,
    ))
}
