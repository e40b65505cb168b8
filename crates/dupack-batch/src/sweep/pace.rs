//! The sweep's two rhythms: how long a worker's block of jobs lasts, and
//! how often finished runs go to the listener as a chunk.

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use super::Job;

/// The longest wait between two chunks.
const MAX_CHUNK_INTERVAL: Duration = Duration::from_secs(10);

/// How long to collect finished runs before handing them to the listener,
/// `elapsed` into the sweep: `min_interval` at first, then a tenth of the
/// time elapsed, at most [`MAX_CHUNK_INTERVAL`] (never below `min_interval`).
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

/// The shortest chunk toward a stored sweep's end (see [`chunk_due`]).
const END_CHUNK: Duration = Duration::from_millis(20);

/// Whether the runs finished since the last chunk, `since_last` ago, go to
/// the listener now, `elapsed` into a sweep that has finished `finished`
/// of its `total` jobs. Due every [`chunk_interval`]; and with `tail`
/// (a stored sweep, whose listener writes each chunk's parts) also once
/// the chunk has waited as long as the sweep should still take (the jobs
/// left at the rate so far), but not less than [`END_CHUNK`].
///
/// Why the second rule: the parts of a chunk are written while the
/// workers run the next one, all but the last chunk's, which is written
/// after the last run, when nothing overlaps it. With chunks a tenth of
/// the sweep apart, or half a second in the first five seconds, the last
/// one could hold a tenth of a long sweep's runs and all of a short
/// one's: 8,000 one-second runs of the unfairness dumbbell (a 0.95 s sweep
/// on two workers) ended with 30 ms of writing 3,400 runs' parts. Toward
/// the end the chunks now halve instead (0.24 s, 0.12 s, …, 20 ms of
/// runs: six parts a table there instead of two), and the last holds a
/// few ms of runs. What it saves is the time the other cores wait: with a
/// core the workers do not use (one worker on this two-core machine, 4,000
/// runs, four rounds of seven sweeps alternated with the code before) the
/// stored sweep took 0.85 s instead of 0.87 s, its overhead over the same
/// sweep unstored 2.6–4.2 % instead of 5.3–6.1 %; with every core a
/// worker's, the parts cost the same CPU wherever they are written
/// (11.6–13.0 % before, 12.2–13.7 % after, four rounds of five: within
/// this host's noise).
pub fn chunk_due(
    since_last: Duration,
    elapsed: Duration,
    finished: usize,
    total: usize,
    min_interval: Duration,
    tail: bool,
) -> bool {
    if since_last >= chunk_interval(elapsed, min_interval) {
        return true;
    }
    if !tail || finished == 0 || finished >= total {
        return false;
    }
    let left = elapsed.mul_f64((total - finished) as f64 / finished as f64);
    since_last >= left.max(END_CHUNK)
}

/// A chunk that carries rows (see [`Sweep::parts`](super::Sweep::parts)) is
/// handed over once it holds this many rows of all tables, however soon
/// after the last: a stored sweep of many short runs then never holds more
/// than about this many rows in memory (about 60 MB of the unfairness
/// dumbbell's rows, some 8,000 of its runs), where ten seconds of them
/// could be ten times more.
pub const MAX_CHUNK_ROWS: usize = 1 << 18;

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
pub(super) fn block(last_run: Option<Duration>) -> usize {
    match last_run {
        None => 1,
        Some(t) => (BLOCK_TIME.as_nanos() / t.as_nanos().max(1)).clamp(1, 64) as usize,
    }
}

/// Take the next block of up to `n` consecutive jobs from the shared
/// counter. A block never crosses from one scenario (grid point) to the
/// next: its size was judged from the worker's last run, and runs of
/// another point may take far longer (a grid over `run.duration`).
pub(super) fn take_block(next: &AtomicUsize, jobs: &[Job], n: usize) -> Range<usize> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_of_jobs_stops_at_the_next_grid_point() {
        let jobs: Vec<Job> =
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
    fn chunks_come_at_the_minimum_interval_then_every_tenth_of_the_sweep() {
        let (ms, s) = (Duration::from_millis, Duration::from_secs);
        assert_eq!(chunk_interval(ms(0), ms(500)), ms(500));
        assert_eq!(chunk_interval(s(20), ms(500)), s(2));
        assert_eq!(chunk_interval(s(3600), ms(500)), MAX_CHUNK_INTERVAL);
        assert_eq!(chunk_interval(s(3600), s(60)), s(60), "never below the minimum asked for");
        assert_eq!(chunk_interval(s(5), Duration::ZERO), ms(500));
    }

    #[test]
    fn toward_a_stored_sweeps_end_a_chunk_is_due_once_it_has_waited_as_long_as_the_sweep_has_left() {
        let (ms, s) = (Duration::from_millis, Duration::from_secs);
        // 1 s into a sweep of 1000 jobs with 800 done: about 0.25 s left.
        assert!(!chunk_due(ms(200), s(1), 800, 1000, ms(500), true));
        assert!(chunk_due(ms(250), s(1), 800, 1000, ms(500), true));
        // Not without the store, whose last chunk costs nothing to hand over.
        assert!(!chunk_due(ms(250), s(1), 800, 1000, ms(500), false));
        // Never shorter than END_CHUNK, even with a few jobs left.
        assert!(!chunk_due(ms(19), s(1), 999, 1000, ms(500), true));
        assert!(chunk_due(END_CHUNK, s(1), 999, 1000, ms(500), true));
        // Nothing finished yet (no rate) or everything (the last chunk is
        // handed over when the workers are done): only the interval counts.
        assert!(!chunk_due(ms(400), ms(400), 0, 1000, ms(500), true));
        assert!(!chunk_due(ms(400), s(1), 1000, 1000, ms(500), true));
        // The regular rhythm still holds early on.
        assert!(chunk_due(ms(500), ms(500), 10, 1000, ms(500), true));
        assert!(!chunk_due(ms(499), ms(500), 10, 1000, ms(500), true));
    }

    #[test]
    fn toward_the_end_the_chunks_halve_down_to_the_shortest() {
        // Jobs finished at a steady rate, a chunk handed over whenever due:
        // the chunks of the sweep's end, in ms of runs each.
        let (total, per_job) = (100_000usize, Duration::from_micros(100)); // a 10 s sweep
        let (mut last, mut sizes) = (Duration::ZERO, Vec::new());
        for finished in 1..=total {
            let now = per_job * finished as u32;
            if chunk_due(now - last, now, finished, total, Duration::from_millis(500), true) {
                sizes.push((now - last).as_millis());
                last = now;
            }
        }
        let end = (per_job * total as u32 - last).as_millis();
        let tail: Vec<_> = sizes.iter().rev().take(6).rev().collect();
        assert!(end <= 20, "the last chunk holds {end} ms of runs; chunks {sizes:?}");
        assert!(tail.windows(2).all(|w| w[1] <= w[0]), "{tail:?}");
        assert!(sizes.len() <= 30, "{} chunks for a 10 s sweep: {sizes:?}", sizes.len());
    }

    #[test]
    fn blocks_last_about_two_milliseconds() {
        assert_eq!(block(None), 1);
        assert_eq!(block(Some(Duration::from_micros(500))), 4);
        assert_eq!(block(Some(Duration::from_millis(50))), 1);
        assert_eq!(block(Some(Duration::from_nanos(10))), 64);
    }
}
