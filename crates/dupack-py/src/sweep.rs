//! `sweep`: many runs on worker threads, results as columns in chunks.
//!
//! The Python front (`dupack.sweep`) expands a grid into scenario documents
//! and (job, scenario, seed) triples. Here each document is parsed once,
//! the jobs run on `workers` OS threads without the GIL, and the finished
//! runs are turned into the `runs`, `flows`, `links` and `media` tables as
//! columns (see [`dupack_batch::columns`]), rows ordered by job, in chunks while
//! the workers go on (see [`chunk_interval`]). Python hears of each chunk
//! (its jobs, for progress, and a copy of its rows when it stores them) and
//! gets the whole tables at the end, in memory the core allocated and
//! lends (see [`crate::buffer`]): a result never passes through JSON text,
//! and the tables are not copied on the way to pandas.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::buffer::{Buffer, Owned};
use crate::{panic_message, parse_plain, run_error, scenario_error};
use dupack_batch::columns::{self, Column, Table, Values};

/// The tables a sweep makes, in this order (`series` and `trace` stay
/// empty unless the sweep observes flows or links).
const TABLE_NAMES: [&str; TABLES] = ["runs", "flows", "links", "media", "series", "trace"];
const TABLES: usize = 6;

/// What to observe in every run of one scenario: its time series and
/// packet trace (see `dupack_sim::Observe`).
#[derive(Clone, Default)]
pub(crate) struct Watch {
    series_flows: Vec<usize>,
    series_links: Vec<usize>,
    trace_flows: Vec<usize>,
    series_max: Option<usize>,
}

impl Watch {
    fn is_empty(&self) -> bool {
        self.series_flows.is_empty() && self.series_links.is_empty() && self.trace_flows.is_empty()
    }

    fn observe(&self) -> dupack_sim::Observe {
        let mut obs = dupack_sim::Observe {
            series_flows: self.series_flows.clone(),
            series_links: self.series_links.clone(),
            trace_flows: self.trace_flows.clone(),
            ..dupack_sim::Observe::default()
        };
        if let Some(max) = self.series_max {
            obs.series_max_records = max;
        }
        obs
    }
}

/// One row of the `series` table (the long format of a run's `series.parquet`).
#[derive(serde::Serialize)]
struct SeriesRow<'a> {
    time_s: f64,
    entity: &'a str,
    variable: &'static str,
    value: f64,
}

/// One row of the `trace` table (as a run's `trace.parquet`).
#[derive(serde::Serialize)]
struct TraceRow<'a> {
    time_s: f64,
    time_ns: u64,
    flow: &'a str,
    kind: &'static str,
    seq: Option<u64>,
    len: u64,
}

/// How often the coordinating thread looks for Ctrl-C.
const SIGNAL_CHECK: Duration = Duration::from_millis(20);

/// The longest wait between two chunks.
const MAX_CHUNK_INTERVAL: Duration = Duration::from_secs(10);

/// How long to collect finished runs before handing them to Python, `elapsed`
/// into the sweep: `min_interval` at first, then a tenth of the time elapsed,
/// at most [`MAX_CHUNK_INTERVAL`] (never below `min_interval`).
///
/// Why: with a store, Python writes each chunk's Parquet parts while the
/// workers go on, so that work shares the cores with the simulation
/// instead of following it, and only the last chunk's adds to the sweep's
/// wall time; and a chunk is what a crash cannot lose: chunks should come
/// early and often. But every chunk
/// is one file per table, and a dataset of thousands of small files is slow
/// to read: a long sweep should write few. Growing the interval with the
/// sweep does both: a 3 s sweep writes 6 or so parts, an hour-long one a
/// few hundred, and a run finished is at most 10 s from being stored.
fn chunk_interval(elapsed: Duration, min_interval: Duration) -> Duration {
    (elapsed / 10).clamp(min_interval.min(MAX_CHUNK_INTERVAL), MAX_CHUNK_INTERVAL).max(min_interval)
}

/// How long a worker's block of consecutive jobs should last.
const BLOCK_TIME: Duration = Duration::from_millis(2);

/// How many consecutive jobs a worker takes at once, its last run having
/// taken `last_run`: enough for about [`BLOCK_TIME`] (one at first, at most 64).
///
/// Why blocks: the coordinator merges each worker's rows into the sweep's in
/// job order, a range of consecutive runs at a time; with one job at a time
/// two workers alternate and every range is a single run, whose rows cost a
/// copy call per column. A few ms a block keeps the workers' finishing
/// times within a few ms of each other.
fn block(last_run: Option<Duration>) -> usize {
    match last_run {
        None => 1,
        Some(t) => (BLOCK_TIME.as_nanos() / t.as_nanos().max(1)).clamp(1, 64) as usize,
    }
}

/// Take the next block of up to `n` consecutive jobs from the shared
/// counter. A block never crosses from one scenario (grid point) to the
/// next: its size was judged from the worker's last run, and runs of
/// another point may take far longer (a grid over `run.duration`).
fn take_block(next: &AtomicUsize, jobs: &[(u64, usize, Option<u64>)], n: usize) -> std::ops::Range<usize> {
    let mut first = next.load(Ordering::Relaxed);
    loop {
        let Some(&(_, point, _)) = jobs.get(first) else { return first..first };
        let end = (first + 1..(first + n).min(jobs.len()))
            .find(|&j| jobs[j].1 != point)
            .unwrap_or((first + n).min(jobs.len()));
        match next.compare_exchange_weak(first, end, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return first..end,
            Err(now) => first = now,
        }
    }
}

enum Outcome {
    /// Finished; its rows are in the worker's [`Batch`].
    Done,
    /// Finished, its result dropped unread (`discard_results`).
    Discarded,
    Failed(String),
    /// Stopped because the sweep is stopping (Ctrl-C, another job failed).
    Stopped,
}

/// What the workers hand to the coordinator: outcomes by position in the
/// job list, and how many workers have not returned yet.
struct Mailbox {
    outcomes: Vec<(usize, Outcome)>,
    live: usize,
}

/// A worker that panicked outside a run cannot have left the mailbox or a batch half-updated.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The rows of the runs one worker finished since the coordinator last took
/// them, in the order it finished them (which is job order: a worker takes
/// ever later jobs).
///
/// Why the workers make the rows: a result is turned into columns in a few
/// µs while it is still in the cache of the core that made it, and freed by
/// the thread that allocated it; on the coordinating thread the same work
/// costs several times more and is taken from the workers all the same.
#[derive(Default)]
struct Batch {
    results: Results,
    /// Per run: its position in the job list and where its rows end, per table.
    runs: Vec<(usize, [usize; TABLES])>,
}

impl Batch {
    fn add(
        &mut self,
        pos: usize,
        job: u64,
        r: &dupack_sim::RunResult,
        observed: Option<(&dupack_sim::Scenario, &dupack_sim::Observed)>,
    ) -> Result<(), columns::Error> {
        self.results.add(job, r, observed)?;
        self.runs.push((pos, self.results.rows()));
        Ok(())
    }

    fn clear(&mut self) {
        self.results.clear();
        self.runs.clear();
    }
}

/// A batch taken from a worker, merged into the sweep's rows from `next` on.
struct Pending {
    batch: Batch,
    next: usize,
}

impl Pending {
    fn next_pos(&self) -> Option<usize> {
        self.batch.runs.get(self.next).map(|r| r.0)
    }
}

/// sweep(scenarios, jobs, workers, on_chunk, chunk_seconds=0.5, fail_job=None, discard_results=False, parts=False, series=None, trace=None, series_max=None) -> (int, tables)
///
/// `scenarios`: scenario documents as JSON text; `jobs`: (job id, index
/// into `scenarios`, seed or None for the scenario's `run.seed`). Runs
/// every job on `workers` threads and calls `on_chunk(jobs, part)` on this
/// thread with the runs finished since the last call, `chunk_seconds` apart
/// at first and then less often (a tenth of the time elapsed, at most 10 s;
/// see `chunk_interval`): `jobs` their job ids, `part` their tables if
/// `parts` (for the store) or None. Returns the number of runs finished and
/// the tables of them all. See `_core.pyi` for the layout of the tables.
/// `series` and `trace` name what every run observes, as in `run`: its
/// time series (flows and links) and its packet trace (flows), at most
/// `series_max` series records a run; they fill the `series` and `trace`
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
#[pyo3(signature = (scenarios, jobs, workers, on_chunk, chunk_seconds=0.5, fail_job=None, discard_results=false, parts=false, series=None, trace=None, series_max=None))]
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
) -> PyResult<(usize, PyObject)> {
    if workers < 1 {
        return Err(PyValueError::new_err(format!("workers must be at least 1, got {workers}")));
    }
    if !chunk_seconds.is_finite() || chunk_seconds < 0.0 {
        return Err(PyValueError::new_err(format!("chunk_seconds must be >= 0, got {chunk_seconds}")));
    }
    if let Some(&(job, sc, _)) = jobs.iter().find(|j| j.1 >= scenarios.len()) {
        return Err(PyValueError::new_err(format!(
            "job {job} names scenario {sc}, but there are {} scenarios",
            scenarios.len()
        )));
    }
    let parsed = py.allow_threads(|| scenarios.iter().map(|s| parse_plain(s)).collect::<Vec<_>>());
    let mut models = Vec::with_capacity(parsed.len());
    for (i, p) in parsed.into_iter().enumerate() {
        match p {
            Ok(s) => models.push(s),
            Err(e) => {
                let err = scenario_error(py, e);
                err.value_bound(py).setattr("point", i)?;
                return Err(err);
            }
        }
    }
    let mut watches = Vec::with_capacity(models.len());
    for (i, m) in models.iter().enumerate() {
        let mut w = Watch { series_max, ..Watch::default() };
        let found = series
            .as_deref()
            .map(|names| crate::series_entities(m, names).map_err(|msg| ("series", msg)))
            .transpose()
            .and_then(|sl| {
                let t = trace.as_deref().map(|names| crate::flow_indices(m, names).map_err(|msg| ("trace", msg)));
                Ok((sl, t.transpose()?))
            });
        match found {
            Ok((sl, t)) => {
                (w.series_flows, w.series_links) = sl.unwrap_or_default();
                w.trace_flows = t.unwrap_or_default();
            }
            Err((path, message)) => {
                let err = scenario_error(py, dupack_sim::ScenarioError { path: path.into(), message });
                err.value_bound(py).setattr("point", i)?;
                return Err(err);
            }
        }
        watches.push(w);
    }
    let interval = Duration::from_secs_f64(chunk_seconds);
    let mut coord = Coordinator {
        jobs: &jobs,
        on_chunk: &on_chunk,
        parts,
        pending: Vec::new(),
        spare: Vec::new(),
        no_rows: BTreeSet::new(),
        emitted: 0,
        ran: 0,
        results: Results::default(),
        notified: (0, [0; TABLES]),
        watches: &watches,
        truncated: 0,
    };
    let failure = py.allow_threads(|| coord.run(&models, workers, interval, fail_job, discard_results));
    match failure {
        None => {
            let tables = coord.results.into_python(py)?;
            tables.bind(py).set_item("series_truncated", coord.truncated)?;
            Ok((coord.ran, tables))
        }
        Some(Failure::Python(e)) => Err(e),
        Some(Failure::Run { job, seed, message }) => Python::with_gil(|py| {
            let err = run_error(py, dupack_sim::RunError(format!("job {job} (seed {seed}): {message}")));
            let v = err.value_bound(py);
            v.setattr("job", job)?;
            v.setattr("seed", seed)?;
            Err(err)
        }),
    }
}

enum Failure {
    /// Ctrl-C, or an exception from the callback or while building a chunk.
    Python(PyErr),
    Run {
        job: u64,
        seed: u64,
        message: String,
    },
}

struct Coordinator<'a> {
    jobs: &'a [(u64, usize, Option<u64>)],
    on_chunk: &'a PyObject,
    /// Whether `on_chunk` gets a copy of each chunk's rows.
    parts: bool,
    /// Batches taken from the workers and not yet wholly merged.
    pending: Vec<Pending>,
    /// Merged batches, cleared, to hand back to the workers (their columns keep their memory).
    spare: Vec<Batch>,
    /// Positions that ended without rows (failed, stopped, discarded) and are not yet passed.
    no_rows: BTreeSet<usize>,
    /// Positions below this have been turned into rows (or failed, or stopped).
    emitted: usize,
    ran: usize,
    /// The rows of every run emitted so far, in job order.
    results: Results,
    /// Runs and rows per table in `results` when `on_chunk` was last called.
    notified: (usize, [usize; TABLES]),
    /// What to observe, per scenario (empty: nothing).
    watches: &'a [Watch],
    /// Runs whose time series reached its record limit.
    truncated: usize,
}

impl Coordinator<'_> {
    /// Runs without the GIL; takes it to check for signals and to call back.
    fn run(
        &mut self,
        models: &[dupack_sim::Scenario],
        workers: usize,
        interval: Duration,
        fail_job: Option<u64>,
        discard_results: bool,
    ) -> Option<Failure> {
        let (jobs, watches) = (self.jobs, self.watches);
        let truncated = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        let next = AtomicUsize::new(0);
        // Workers leave their outcomes here and wake the coordinator only
        // when they return or a run fails: waking it for every run (a
        // channel) costs a context switch per run, which on a machine with
        // as many workers as cores is taken from the workers.
        let mailbox = Mutex::new(Mailbox { outcomes: Vec::new(), live: workers.min(jobs.len()) });
        let wake = Condvar::new();
        let batches: Vec<Mutex<Batch>> = (0..workers.min(jobs.len())).map(|_| Mutex::default()).collect();
        let mut failure: Option<Failure> = None;
        std::thread::scope(|s| {
            for batch in &batches {
                let (stop, next, mailbox, wake, truncated) = (&stop, &next, &mailbox, &wake, &truncated);
                s.spawn(move || {
                    let (mut mine, mut last_run) = (0..0, None);
                    loop {
                        if stop.load(Ordering::Relaxed) {
                            break;
                        }
                        let i = match mine.next() {
                            Some(i) => i,
                            None => {
                                mine = take_block(next, jobs, block(last_run));
                                match mine.next() {
                                    Some(i) => i,
                                    None => break,
                                }
                            }
                        };
                        let (job, sc, seed) = jobs[i];
                        let started = Instant::now();
                        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            if fail_job == Some(job) {
                                panic!("deliberate failure of job {job} (fail_job)");
                            }
                            let seed = seed.unwrap_or(models[sc].seed);
                            let interrupted = || stop.load(Ordering::Relaxed);
                            match watches.get(sc).filter(|w| !w.is_empty()) {
                                None => {
                                    dupack_sim::run_interruptible(&models[sc], seed, interrupted).map(|r| (r, None))
                                }
                                Some(w) => dupack_sim::run_observed(&models[sc], seed, w.observe(), interrupted)
                                    .map(|(r, o)| (r, Some(o))),
                            }
                        }));
                        let outcome = match outcome {
                            Ok(Ok(_)) if discard_results => Outcome::Discarded,
                            Ok(Ok((r, observed))) => {
                                if observed.as_ref().and_then(|o| o.series.as_ref()).is_some_and(|s| s.truncated) {
                                    truncated.fetch_add(1, Ordering::Relaxed);
                                }
                                let observed = observed.as_ref().map(|o| (&models[sc], o));
                                match lock(batch).add(i, job, &r, observed) {
                                    Ok(()) => Outcome::Done,
                                    Err(e) => Outcome::Failed(format!(
                                        "cannot turn the result into columns (a bug in dupack): {e}"
                                    )),
                                }
                            }
                            Ok(Err(_)) if stop.load(Ordering::Relaxed) => Outcome::Stopped,
                            Ok(Err(e)) => Outcome::Failed(e.to_string()),
                            Err(panic) => Outcome::Failed(format!(
                                "internal error in the simulator (a bug in dupack): {}",
                                panic_message(&*panic)
                            )),
                        };
                        last_run = Some(started.elapsed());
                        let failed = matches!(outcome, Outcome::Failed(_));
                        if failed {
                            // No job starts after a failure, whichever thread notices it first.
                            stop.store(true, Ordering::Relaxed);
                        }
                        lock(mailbox).outcomes.push((i, outcome));
                        if failed {
                            wake.notify_one();
                        }
                    }
                    lock(mailbox).live -= 1;
                    wake.notify_one();
                });
            }
            let started = Instant::now();
            let mut last_emit = started;
            let mut last_check = Instant::now();
            loop {
                let (outcomes, all_returned) = {
                    let mut m = lock(&mailbox);
                    if m.live > 0 {
                        m = wake.wait_timeout(m, SIGNAL_CHECK).unwrap_or_else(|e| e.into_inner()).0;
                    }
                    (std::mem::take(&mut m.outcomes), m.live == 0)
                };
                for (i, outcome) in outcomes {
                    if !matches!(outcome, Outcome::Done) {
                        self.no_rows.insert(i);
                    }
                    match outcome {
                        Outcome::Done | Outcome::Discarded => self.ran += 1,
                        Outcome::Failed(message) => {
                            if failure.is_none() {
                                let (job, sc, seed) = jobs[i];
                                let seed = seed.unwrap_or(models[sc].seed);
                                failure = Some(Failure::Run { job, seed, message });
                            }
                            stop.store(true, Ordering::Relaxed);
                        }
                        Outcome::Stopped => {}
                    }
                }
                if all_returned {
                    break;
                }
                if last_check.elapsed() >= SIGNAL_CHECK {
                    last_check = Instant::now();
                    if let Err(e) = Python::with_gil(|py| py.check_signals()) {
                        failure.get_or_insert(Failure::Python(e));
                        stop.store(true, Ordering::Relaxed);
                    }
                }
                if failure.is_none() {
                    // Rows are made as soon as the runs before them are done,
                    // not a chunk at a time: what is left when the workers
                    // finish is then a few runs' worth, not half a chunk's.
                    let mut step = self.absorb(&batches, false);
                    if step.is_ok() && last_emit.elapsed() >= chunk_interval(started.elapsed(), interval) {
                        last_emit = Instant::now();
                        step = self.notify();
                    }
                    if let Err(e) = step {
                        failure = Some(Failure::Python(e));
                        stop.store(true, Ordering::Relaxed);
                    }
                }
            }
        });
        // Everything finished goes to Python, also when stopping early
        // (but not to a callback that has just failed).
        let last = self.absorb(&batches, true);
        if self.callback_ok(&failure) {
            if let Err(e) = last.and_then(|()| self.notify()) {
                failure.get_or_insert(Failure::Python(e));
            }
        }
        self.truncated += truncated.into_inner();
        failure
    }

    /// After Ctrl-C the callback still works; after its own exception it is not called again.
    fn callback_ok(&self, failure: &Option<Failure>) -> bool {
        match failure {
            Some(Failure::Python(e)) => {
                Python::with_gil(|py| e.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py))
            }
            _ => true,
        }
    }

    /// Take the workers' batches and merge their rows into the sweep's, in
    /// job order: with `all`, every run (also past gaps left by runs that
    /// failed or stopped); otherwise those before the first job still running.
    fn absorb(&mut self, batches: &[Mutex<Batch>], all: bool) -> PyResult<()> {
        for b in batches {
            let mut b = lock(b);
            if !b.runs.is_empty() {
                let fresh = self.spare.pop().unwrap_or_default();
                self.pending.push(Pending { batch: std::mem::replace(&mut *b, fresh), next: 0 });
            }
        }
        loop {
            let at = self.pending.iter().position(|p| p.next_pos() == Some(self.emitted));
            if let Some(k) = at {
                // The longest range of consecutive jobs this batch holds from here.
                let p = &mut self.pending[k];
                let first = p.next;
                let mut last = first;
                while p.batch.runs.get(last + 1).is_some_and(|r| r.0 == p.batch.runs[last].0 + 1) {
                    last += 1;
                }
                let start = if first == 0 { [0; TABLES] } else { p.batch.runs[first - 1].1 };
                let end = p.batch.runs[last].1;
                self.results.append_runs(&p.batch.results, first..last + 1, start, end).map_err(|e| {
                    PyValueError::new_err(format!("cannot merge the results' columns (a bug in dupack): {e}"))
                })?;
                p.next = last + 1;
                if p.next == p.batch.runs.len() {
                    let mut done = self.pending.swap_remove(k).batch;
                    done.clear();
                    self.spare.push(done);
                }
                self.emitted += last + 1 - first;
            } else if self.no_rows.remove(&self.emitted) {
                self.emitted += 1;
            } else if all {
                // Past a job that never ran (the sweep stopped): the next that did.
                match self.pending.iter().filter_map(Pending::next_pos).min() {
                    Some(pos) => self.emitted = pos,
                    None => return Ok(()),
                }
            } else {
                return Ok(());
            }
        }
    }

    /// Call `on_chunk` with the runs made into rows since the last call (if any).
    fn notify(&mut self) -> PyResult<()> {
        let (jobs_before, rows_before) = self.notified;
        if self.results.jobs.len() == jobs_before {
            return Ok(());
        }
        self.notified = (self.results.jobs.len(), self.results.rows());
        let part = self.parts.then(|| self.results.copy_since(jobs_before, rows_before));
        let jobs = self.results.jobs[jobs_before..].to_vec();
        Python::with_gil(|py| {
            let jobs = Buffer::lend(py, Owned::U64(jobs))?;
            let part = match part {
                Some(p) => p.into_python(py)?,
                None => py.None(),
            };
            self.on_chunk.call1(py, (jobs, part))?;
            Ok(())
        })
    }
}

/// Finished runs as tables: `runs` (one row per run), `flows`, `links` and
/// `media`, each row with its job and seed; rows in the order the runs were added.
struct Results {
    /// The runs' jobs, in order.
    jobs: Vec<u64>,
    tables: [Rows; TABLES],
}

struct Rows {
    name: &'static str,
    job: Vec<u64>,
    seed: Vec<u64>,
    table: Table,
}

impl Rows {
    fn new(name: &'static str) -> Rows {
        Rows { name, job: Vec::new(), seed: Vec::new(), table: Table::default() }
    }

    fn append_rows(&mut self, other: &Rows, rows: std::ops::Range<usize>) -> Result<(), columns::Error> {
        self.job.extend_from_slice(&other.job[rows.clone()]);
        self.seed.extend_from_slice(&other.seed[rows.clone()]);
        self.table.append_rows(&other.table, rows)
    }

    fn add<T: serde::Serialize>(&mut self, job: u64, seed: u64, rows: &[T]) -> Result<(), columns::Error> {
        for row in rows {
            self.job.push(job);
            self.seed.push(seed);
            self.table.push(row)?;
        }
        Ok(())
    }

    fn copy_from_row(&self, from: usize) -> Rows {
        Rows {
            name: self.name,
            job: self.job[from..].to_vec(),
            seed: self.seed[from..].to_vec(),
            table: self.table.copy_from_row(from),
        }
    }
}

impl Default for Results {
    fn default() -> Results {
        Results { jobs: Vec::new(), tables: TABLE_NAMES.map(Rows::new) }
    }
}

impl Results {
    /// Rows so far, per table.
    fn rows(&self) -> [usize; TABLES] {
        self.tables.each_ref().map(|t| t.table.rows)
    }

    /// Append one run's rows.
    fn add(
        &mut self,
        job: u64,
        r: &dupack_sim::RunResult,
        observed: Option<(&dupack_sim::Scenario, &dupack_sim::Observed)>,
    ) -> Result<(), columns::Error> {
        let [run, flows, links, media, series, trace] = &mut self.tables;
        run.add(job, r.seed, std::slice::from_ref(&r.run))?;
        flows.add(job, r.seed, &r.flows)?;
        links.add(job, r.seed, &r.links)?;
        media.add(job, r.seed, &r.media)?;
        if let Some((scenario, o)) = observed {
            if let Some(s) = &o.series {
                for (at, entity, variable, value) in s.rows() {
                    series.add(job, r.seed, &[SeriesRow { time_s: at.as_secs_f64(), entity, variable, value }])?;
                }
            }
            for rec in &o.trace {
                for (at, flow, kind, seq, len) in crate::trace_rows(rec) {
                    let flow = scenario.flows[flow as usize].name.as_str();
                    let row = TraceRow { time_s: at.as_secs_f64(), time_ns: at.as_nanos(), flow, kind, seq, len };
                    trace.add(job, r.seed, &[row])?;
                }
            }
        }
        self.jobs.push(job);
        Ok(())
    }

    /// Append runs `runs` of `other`, whose rows are `start[t]..end[t]` in table `t`.
    fn append_runs(
        &mut self,
        other: &Results,
        runs: std::ops::Range<usize>,
        start: [usize; TABLES],
        end: [usize; TABLES],
    ) -> Result<(), columns::Error> {
        for (i, (t, o)) in self.tables.iter_mut().zip(&other.tables).enumerate() {
            t.append_rows(o, start[i]..end[i])?;
        }
        self.jobs.extend_from_slice(&other.jobs[runs]);
        Ok(())
    }

    /// No runs; the columns keep their memory.
    fn clear(&mut self) {
        self.jobs.clear();
        for t in &mut self.tables {
            t.job.clear();
            t.seed.clear();
            t.table.clear();
        }
    }

    /// A copy of what was added after `self` had `jobs` runs and `rows` rows.
    fn copy_since(&self, jobs: usize, rows: [usize; TABLES]) -> Results {
        Results {
            jobs: self.jobs[jobs..].to_vec(),
            tables: std::array::from_fn(|i| self.tables[i].copy_from_row(rows[i])),
        }
    }

    /// `{"jobs": buffer, "runs": (rows, job buffer, seed buffer, {column: (kind, data, valid, width)}), …}`
    fn into_python(self, py: Python<'_>) -> PyResult<PyObject> {
        let out = PyDict::new_bound(py);
        out.set_item("jobs", Buffer::lend(py, Owned::U64(self.jobs))?)?;
        for Rows { name, job, seed, table } in self.tables {
            let cols = PyDict::new_bound(py);
            let rows = table.rows;
            for c in table.columns {
                cols.set_item(c.name, column(py, c)?)?;
            }
            let job = Buffer::lend(py, Owned::U64(job))?;
            let seed = Buffer::lend(py, Owned::U64(seed))?;
            out.set_item(name, PyTuple::new_bound(py, [rows.into_py(py), job, seed, cols.into_any().unbind()]))?;
        }
        Ok(out.into_any().unbind())
    }
}

/// `(kind, data, valid, width)`: kind "u64", "i64", "f64" (little-endian
/// values), "bool" (one byte each), "str" (data = (i64 offsets, UTF-8 bytes):
/// Arrow's large-string buffers) or "null" (data None); valid is None or
/// one byte per row (0 = null). Every buffer is a [`Buffer`]: the column's
/// own memory, not a copy.
fn column(py: Python<'_>, c: Column) -> PyResult<PyObject> {
    let width = c.width.max(1);
    let valid = if c.has_nulls() { Buffer::lend(py, Owned::bools(c.valid))? } else { py.None() };
    let (kind, data): (&str, PyObject) = match c.values {
        Values::Null => ("null", py.None()),
        Values::U64(v) => ("u64", Buffer::lend(py, Owned::U64(v))?),
        Values::I64(v) => ("i64", Buffer::lend(py, Owned::I64(v))?),
        Values::F64(v) => ("f64", Buffer::lend(py, Owned::F64(v))?),
        Values::Bool(v) => ("bool", Buffer::lend(py, Owned::bools(v))?),
        Values::Str(v) => {
            let offsets = Buffer::lend(py, Owned::I64(v.offsets))?;
            let data = Buffer::lend(py, Owned::U8(v.data))?;
            ("str", PyTuple::new_bound(py, [offsets, data]).into_any().unbind())
        }
    };
    Ok(PyTuple::new_bound(py, [kind.into_py(py), data, valid, width.into_py(py)]).into_any().unbind())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_of_jobs_stops_at_the_next_grid_point() {
        let jobs: Vec<(u64, usize, Option<u64>)> =
            [0, 0, 0, 1, 1, 2, 2, 2, 2, 2].iter().enumerate().map(|(j, &p)| (j as u64, p, None)).collect();
        let next = AtomicUsize::new(0);
        let blocks: Vec<_> =
            std::iter::from_fn(|| Some(take_block(&next, &jobs, 4)).filter(|b| !b.is_empty())).collect();
        assert_eq!(blocks, [0..3, 3..5, 5..9, 9..10]);
        assert_eq!(take_block(&next, &jobs, 4), 10..10);
        let next = AtomicUsize::new(0);
        assert_eq!(take_block(&next, &jobs, 1), 0..1);
        assert_eq!(take_block(&next, &jobs, 1), 1..2);
    }

    #[test]
    fn blocks_last_about_two_milliseconds() {
        assert_eq!(block(None), 1);
        assert_eq!(block(Some(Duration::from_micros(500))), 4);
        assert_eq!(block(Some(Duration::from_millis(50))), 1);
        assert_eq!(block(Some(Duration::from_nanos(10))), 64);
    }
}
