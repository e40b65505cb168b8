//! The coordinating thread: it starts the workers, collects their
//! outcomes, merges their rows in job order, hands chunks to the listener
//! and stops everything on a failure or an interrupt.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use super::merge::Merged;
use super::pace::chunk_due;
use super::worker::{lock, work, Batch, Mailbox, Outcome, Shared};
use super::{Failure, Listener, Report, Stopped, Sweep};

/// How often the coordinating thread polls the listener (for a signal).
const POLL: Duration = Duration::from_millis(20);

pub(super) fn run<L: Listener>(sweep: &Sweep<'_>, listener: &mut L) -> Result<Report, Stopped<L::Error>> {
    let workers = sweep.workers.min(sweep.jobs.len());
    let shared = Shared {
        sweep,
        stop: AtomicBool::new(false),
        next: AtomicUsize::new(0),
        truncated: AtomicUsize::new(0),
        mailbox: Mutex::new(Mailbox { outcomes: Vec::new(), live: workers }),
        wake: Condvar::new(),
    };
    let batches: Vec<Mutex<Batch>> = (0..workers).map(|_| Mutex::default()).collect();
    let mut merged = Merged::default();
    let mut ran = 0;
    // Outcomes received, whatever they were: the sweep's progress (pace::chunk_due).
    let mut finished = 0;
    let mut reserved = false;
    let mut failure: Option<Failure<L::Error>> = None;
    // An interrupt is the first failure only if nothing failed before it.
    let interrupted = |failure: &mut Option<Failure<L::Error>>| {
        if sweep.interrupt.is_some_and(|i| i.load(Ordering::Relaxed)) {
            failure.get_or_insert(Failure::Interrupted);
            shared.stop.store(true, Ordering::Relaxed);
        }
    };
    std::thread::scope(|s| {
        for batch in &batches {
            let shared = &shared;
            s.spawn(move || work(shared, batch));
        }
        let started = Instant::now();
        let mut last_emit = started;
        let mut last_poll = Instant::now();
        loop {
            let (outcomes, all_returned) = {
                let mut m = lock(&shared.mailbox);
                if m.live > 0 {
                    m = shared.wake.wait_timeout(m, POLL).unwrap_or_else(|e| e.into_inner()).0;
                }
                (std::mem::take(&mut m.outcomes), m.live == 0)
            };
            for (i, outcome) in outcomes {
                finished += 1;
                if !matches!(outcome, Outcome::Done) {
                    merged.no_rows(i);
                }
                match outcome {
                    Outcome::Done | Outcome::Discarded => ran += 1,
                    Outcome::Failed(message) => {
                        if failure.is_none() {
                            let (job, sc, seed) = sweep.jobs[i];
                            let seed = seed.unwrap_or(sweep.scenarios[sc].seed);
                            failure = Some(Failure::Run { job, seed, message });
                        }
                        shared.stop.store(true, Ordering::Relaxed);
                    }
                    Outcome::Stopped => {}
                }
            }
            if all_returned {
                break;
            }
            if last_poll.elapsed() >= POLL {
                last_poll = Instant::now();
                if let Err(e) = listener.poll() {
                    failure.get_or_insert(Failure::Listener(e));
                    shared.stop.store(true, Ordering::Relaxed);
                }
            }
            interrupted(&mut failure);
            if failure.is_none() {
                // Rows are made as soon as the runs before them are done,
                // not a chunk at a time: what is left when the workers
                // finish is then a few runs' worth, not half a chunk's.
                let mut step = merged.absorb(&batches, false).map_err(Failure::Merge);
                if sweep.keep && !reserved && !merged.results.jobs.is_empty() {
                    // The first runs merged tell how many rows a run makes.
                    merged.results.reserve_runs(sweep.jobs.len() - merged.results.jobs.len());
                    reserved = true;
                }
                let due = chunk_due(
                    last_emit.elapsed(),
                    started.elapsed(),
                    finished,
                    sweep.jobs.len(),
                    sweep.chunk_interval,
                    sweep.parts,
                ) || (sweep.parts && merged.rows_pending() >= sweep.max_chunk_rows);
                if step.is_ok() && due {
                    last_emit = Instant::now();
                    step = deliver(&mut merged, listener, sweep);
                }
                if let Err(e) = step {
                    failure = Some(e);
                    shared.stop.store(true, Ordering::Relaxed);
                }
                interrupted(&mut failure);
            }
        }
    });
    // Everything finished goes to the listener, also when stopping early
    // (but not to a listener that has just failed, nor past a merge that did).
    let last = merged.absorb(&batches, true).map_err(Failure::Merge);
    if !matches!(failure, Some(Failure::Listener(_) | Failure::Merge(_))) {
        if let Err(e) = last.and_then(|()| deliver(&mut merged, listener, sweep)) {
            failure.get_or_insert(e);
        }
        interrupted(&mut failure);
    }
    let report = Report { ran, results: merged.results, series_truncated: shared.truncated.into_inner() };
    match failure {
        None => Ok(report),
        Some(failure) => Err(Stopped { failure, report: Box::new(report) }),
    }
}

/// Hand the listener the runs merged since the last chunk (if any).
fn deliver<L: Listener>(merged: &mut Merged, listener: &mut L, sweep: &Sweep<'_>) -> Result<(), Failure<L::Error>> {
    match merged.take_chunk(sweep.parts, sweep.keep) {
        Some(chunk) => listener.chunk(chunk).map_err(Failure::Listener),
        None => Ok(()),
    }
}
