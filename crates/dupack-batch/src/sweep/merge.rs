//! The sweep's rows: the workers' batches merged in job order, and what
//! of them has gone to the listener.

use std::collections::BTreeSet;
use std::sync::Mutex;

use super::worker::{lock, Batch};
use super::Chunk;
use crate::columns;
use crate::results::{Results, TABLES};

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

#[derive(Default)]
pub(super) struct Merged {
    /// Batches taken from the workers and not yet wholly merged.
    pending: Vec<Pending>,
    /// Merged batches, cleared, to hand back to the workers (their columns keep their memory).
    spare: Vec<Batch>,
    /// Positions that ended without rows (failed, stopped, discarded) and are not yet passed.
    no_rows: BTreeSet<usize>,
    /// Positions below this have been turned into rows (or failed, or stopped).
    emitted: usize,
    /// The rows of the runs emitted so far, in job order: of every run,
    /// or (when the sweep does not keep them) of those since the last chunk.
    pub(super) results: Results,
    /// Runs and rows per table in `results` when the last chunk was taken.
    chunked: (usize, [usize; TABLES]),
}

impl Merged {
    /// The run at position `pos` ended without rows.
    pub(super) fn no_rows(&mut self, pos: usize) {
        self.no_rows.insert(pos);
    }

    /// Take the workers' batches and merge their rows into the sweep's, in
    /// job order: with `all`, every run (also past gaps left by runs that
    /// failed or stopped); otherwise those before the first job still running.
    pub(super) fn absorb(&mut self, batches: &[Mutex<Batch>], all: bool) -> Result<(), columns::Error> {
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
                self.results.append_runs(&p.batch.results, first..last + 1, start, end)?;
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

    /// Rows (of all tables) merged since the last chunk.
    pub(super) fn rows_pending(&self) -> usize {
        self.results.rows().iter().sum::<usize>() - self.chunked.1.iter().sum::<usize>()
    }

    /// The runs merged since the last chunk, if any: their jobs, and with
    /// `parts` their rows: a copy if the sweep `keep`s every row, otherwise
    /// the rows themselves, which `self` then no longer holds.
    pub(super) fn take_chunk(&mut self, parts: bool, keep: bool) -> Option<Chunk> {
        let (jobs_before, rows_before) = self.chunked;
        if self.results.jobs.len() == jobs_before {
            return None;
        }
        let jobs = self.results.jobs[jobs_before..].to_vec();
        if !keep {
            // Nothing was kept before this chunk (chunked is all zeros).
            let rows = std::mem::take(&mut self.results);
            return Some(Chunk { jobs, part: parts.then_some(rows) });
        }
        self.chunked = (self.results.jobs.len(), self.results.rows());
        let part = parts.then(|| self.results.copy_since(jobs_before, rows_before));
        Some(Chunk { jobs, part })
    }
}
