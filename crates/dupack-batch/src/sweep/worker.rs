//! A worker thread: it takes blocks of consecutive jobs, runs them, and
//! turns each result into rows itself.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::pace::{block, take_block};
use super::Sweep;
use crate::results::{Results, TABLES};
use crate::{columns, panic_message};

pub(super) enum Outcome {
    /// Finished; its rows are in the worker's [`Batch`].
    Done,
    /// Finished, its result dropped unread (`discard_results`).
    Discarded,
    Failed(String),
    /// Stopped because the sweep is stopping (an interrupt, another job failed).
    Stopped,
}

/// What the workers hand to the coordinator: outcomes by position in the
/// job list, and how many workers have not returned yet.
pub(super) struct Mailbox {
    pub(super) outcomes: Vec<(usize, Outcome)>,
    pub(super) live: usize,
}

/// A worker that panicked outside a run cannot have left the mailbox or a batch half-updated.
pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
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
pub(super) struct Batch {
    pub(super) results: Results,
    /// Per run: its position in the job list and where its rows end, per table.
    pub(super) runs: Vec<(usize, [usize; TABLES])>,
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

    pub(super) fn clear(&mut self) {
        self.results.clear();
        self.runs.clear();
    }
}

/// What the workers and the coordinator share.
pub(super) struct Shared<'a> {
    pub(super) sweep: &'a Sweep<'a>,
    /// Set when no job may start any more (and a run in progress stops).
    pub(super) stop: AtomicBool,
    /// The position of the next job no worker has taken.
    pub(super) next: AtomicUsize,
    /// Runs whose time series reached its record limit.
    pub(super) truncated: AtomicUsize,
    /// Workers leave their outcomes here and wake the coordinator only
    /// when they return or a run fails: waking it for every run (a
    /// channel) costs a context switch per run, which on a machine with
    /// as many workers as cores is taken from the workers.
    pub(super) mailbox: Mutex<Mailbox>,
    pub(super) wake: Condvar,
}

/// One worker's life: jobs until there are none left or the sweep stops.
pub(super) fn work(shared: &Shared<'_>, batch: &Mutex<Batch>) {
    let (mut mine, mut last_run): (Range<usize>, Option<Duration>) = (0..0, None);
    loop {
        if shared.stop.load(Ordering::Relaxed) {
            break;
        }
        let i = match mine.next() {
            Some(i) => i,
            None => {
                mine = take_block(&shared.next, shared.sweep.jobs, block(last_run));
                match mine.next() {
                    Some(i) => i,
                    None => break,
                }
            }
        };
        let started = Instant::now();
        let outcome = run_one(shared, batch, i);
        last_run = Some(started.elapsed());
        let failed = matches!(outcome, Outcome::Failed(_));
        if failed {
            // No job starts after a failure, whichever thread notices it first.
            shared.stop.store(true, Ordering::Relaxed);
        }
        lock(&shared.mailbox).outcomes.push((i, outcome));
        if failed {
            shared.wake.notify_one();
        }
    }
    lock(&shared.mailbox).live -= 1;
    shared.wake.notify_one();
}

/// Run the job at position `i` and add its rows to `batch`.
fn run_one(shared: &Shared<'_>, batch: &Mutex<Batch>, i: usize) -> Outcome {
    let Sweep { scenarios, watches, jobs, fail_job, discard_results, .. } = *shared.sweep;
    let (job, sc, seed) = jobs[i];
    let stop = &shared.stop;
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if fail_job == Some(job) {
            panic!("deliberate failure of job {job} (fail_job)");
        }
        let seed = seed.unwrap_or(scenarios[sc].seed);
        let interrupted = || stop.load(Ordering::Relaxed);
        match watches.get(sc).filter(|w| !w.is_empty()) {
            None => dupack_sim::run_interruptible(&scenarios[sc], seed, interrupted).map(|r| (r, None)),
            Some(w) => {
                dupack_sim::run_observed(&scenarios[sc], seed, w.observe(), interrupted).map(|(r, o)| (r, Some(o)))
            }
        }
    }));
    match outcome {
        Ok(Ok(_)) if discard_results => Outcome::Discarded,
        Ok(Ok((r, observed))) => {
            if observed.as_ref().and_then(|o| o.series.as_ref()).is_some_and(|s| s.truncated) {
                shared.truncated.fetch_add(1, Ordering::Relaxed);
            }
            let observed = observed.as_ref().map(|o| (&scenarios[sc], o));
            match lock(batch).add(i, job, &r, observed) {
                Ok(()) => Outcome::Done,
                Err(e) => Outcome::Failed(format!("cannot turn the result into columns (a bug in dupack): {e}")),
            }
        }
        Ok(Err(_)) if stop.load(Ordering::Relaxed) => Outcome::Stopped,
        Ok(Err(e)) => Outcome::Failed(e.to_string()),
        Err(panic) => {
            Outcome::Failed(format!("internal error in the simulator (a bug in dupack): {}", panic_message(&*panic)))
        }
    }
}
