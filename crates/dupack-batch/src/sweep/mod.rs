//! Many runs on worker threads, their results as tables in chunks.
//!
//! A [`Sweep`] is parsed scenarios and (job, scenario, seed) triples. The
//! jobs run on `workers` OS threads, each taking blocks of consecutive
//! jobs (see `pace`) and turning every result into rows of the `runs`,
//! `flows`, `links`, `media`, `series` and `trace` tables itself (see
//! [`crate::Results`]). The calling thread coordinates: it merges the
//! workers' rows in job order and hands them to a [`Listener`] in chunks
//! while the workers go on, at first every `chunk_interval` and then less
//! often, so that a long sweep is stored in a few hundred parts rather
//! than thousands; a stored sweep's chunks halve toward its end, so that
//! the last, written when nothing else runs, is small (`pace::chunk_due`).
//! It returns every finished run's rows at the end.
//!
//! A failed run, an error of the listener or an interrupt stops the sweep:
//! no job starts after it and the runs in progress stop. Except after the
//! listener's own error, the listener is first handed every run that had
//! finished, so nothing done is lost.

mod coordinate;
mod merge;
mod pace;
pub use pace::{chunk_due, MAX_CHUNK_ROWS};
mod worker;

use std::fmt;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use dupack_sim::Scenario;

use crate::columns;
use crate::results::Results;
use crate::watch::Watch;

/// One job: its id, the index of its scenario, and its seed (None: the
/// scenario's `run.seed`).
pub type Job = (u64, usize, Option<u64>);

/// What a sweep runs, and how.
#[derive(Clone, Copy)]
pub struct Sweep<'a> {
    pub scenarios: &'a [Scenario],
    /// What each scenario's runs observe, by scenario index (a scenario
    /// beyond the end observes nothing).
    pub watches: &'a [Watch],
    /// Run in this order; their rows come out in it.
    pub jobs: &'a [Job],
    /// Worker threads (at most one per job is started).
    pub workers: usize,
    /// The shortest time between two chunks (see `pace::chunk_interval`),
    /// but toward the end of a sweep with `parts` (see `pace::chunk_due`).
    pub chunk_interval: Duration,
    /// Whether each chunk carries its rows, or only its jobs.
    pub parts: bool,
    /// With `parts`, a chunk is also handed over as soon as it holds this
    /// many rows (default [`MAX_CHUNK_ROWS`]).
    pub max_chunk_rows: usize,
    /// Whether the sweep keeps every run's rows to return them at the end
    /// (in [`Report::results`]). Without it the rows live only until their
    /// chunk is handed over: a sweep stored as it goes (`parts`) then
    /// holds a chunk's rows in memory, not the whole sweep's, and hands
    /// each chunk its rows without copying them.
    pub keep: bool,
    /// Once set (by any thread, or by the listener), the sweep stops as
    /// after a failure and ends in [`Failure::Interrupted`], unless
    /// something failed first. It is read until the sweep returns, so it
    /// may also be set while the last chunk is being handed over.
    pub interrupt: Option<&'a AtomicBool>,
    /// Makes this job panic, to exercise the error path.
    pub fail_job: Option<u64>,
    /// Drop every result on the worker that made it: the same runs with
    /// nothing converted (no chunk, empty tables), the baseline against
    /// which the cost of the results is measured.
    pub discard_results: bool,
}

impl<'a> Sweep<'a> {
    /// `jobs` of `scenarios` on `workers` threads, observing nothing, a
    /// chunk every half second at first, chunks without rows, every row
    /// kept for the report.
    pub fn new(scenarios: &'a [Scenario], jobs: &'a [Job], workers: usize) -> Sweep<'a> {
        Sweep {
            scenarios,
            watches: &[],
            jobs,
            workers,
            chunk_interval: Duration::from_millis(500),
            parts: false,
            max_chunk_rows: MAX_CHUNK_ROWS,
            keep: true,
            interrupt: None,
            fail_job: None,
            discard_results: false,
        }
    }

    /// Run every job, handing finished runs to `listener` as it goes (on
    /// this thread). Blocks until every worker has returned.
    pub fn run<L: Listener>(&self, listener: &mut L) -> Result<Report, Stopped<L::Error>> {
        if let Err(message) = check_workers(self.workers).and_then(|()| check_jobs(self.jobs, self.scenarios.len())) {
            return Err(Stopped { failure: Failure::Invalid(message), report: Box::default() });
        }
        coordinate::run(self, listener)
    }
}

/// At least one worker.
pub fn check_workers(workers: usize) -> Result<(), String> {
    if workers < 1 {
        return Err(format!("workers must be at least 1, got {workers}"));
    }
    Ok(())
}

/// Every job names one of `scenarios` scenarios.
pub fn check_jobs(jobs: &[Job], scenarios: usize) -> Result<(), String> {
    match jobs.iter().find(|j| j.1 >= scenarios) {
        Some(&(job, sc, _)) => Err(format!("job {job} names scenario {sc}, but there are {scenarios} scenarios")),
        None => Ok(()),
    }
}

/// Runs finished since the last chunk, in job order.
pub struct Chunk {
    pub jobs: Vec<u64>,
    /// Their rows, if the sweep was asked for `parts`.
    pub part: Option<Results>,
}

/// What hears of a sweep while it runs, on the thread that runs it.
pub trait Listener {
    type Error;

    /// Called about every 20 ms while jobs run: the place to notice a
    /// signal and set the sweep's interrupt flag. An error stops the sweep,
    /// and no chunk follows.
    fn poll(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }

    /// A chunk of finished runs. An error stops the sweep, and no chunk follows.
    fn chunk(&mut self, chunk: Chunk) -> Result<(), Self::Error>;
}

/// A closure as a listener that only takes chunks.
impl<E, F: FnMut(Chunk) -> Result<(), E>> Listener for F {
    type Error = E;

    fn chunk(&mut self, chunk: Chunk) -> Result<(), E> {
        self(chunk)
    }
}

/// What a sweep did.
#[derive(Debug, Default)]
pub struct Report {
    /// Runs finished (with `discard_results` too).
    pub ran: usize,
    /// The rows of every run finished, in job order (none if the sweep
    /// was not asked to [`keep`](Sweep::keep) them).
    pub results: Results,
    /// Runs whose time series reached its record limit.
    pub series_truncated: usize,
}

/// Why a sweep stopped early, and what it did until then (the rows of
/// every run that finished if the sweep keeps them, which the listener was
/// also handed unless the failure is its own). The report is boxed: a `Result` as large as a
/// [`Report`] on both sides would be copied about for nothing.
#[derive(Debug)]
pub struct Stopped<E> {
    pub failure: Failure<E>,
    pub report: Box<Report>,
}

#[derive(Debug)]
pub enum Failure<E> {
    /// The interrupt flag was set.
    Interrupted,
    /// The listener's error, from `poll` or `chunk`.
    Listener(E),
    /// A run failed or panicked, or its result could not become rows; the
    /// first such run.
    Run { job: u64, seed: u64, message: String },
    /// The workers' rows could not be merged (a bug in dupack).
    Merge(columns::Error),
    /// No worker, or a job naming a scenario that is not there (nothing ran).
    Invalid(String),
}

impl<E: fmt::Display> fmt::Display for Failure<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Interrupted => f.write_str("interrupted"),
            Failure::Listener(e) => e.fmt(f),
            Failure::Run { job, seed, message } => write!(f, "job {job} (seed {seed}): {message}"),
            Failure::Merge(e) => write!(f, "cannot merge the results' columns (a bug in dupack): {e}"),
            Failure::Invalid(message) => f.write_str(message),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for Failure<E> {}
