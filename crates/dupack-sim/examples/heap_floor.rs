//! The floor under dupack's cost per event: the engine's own event queue
//! (`engine::queue::EventQueue`) doing nothing but its job, at a given
//! number of pending events, and nothing else of a simulation.
//!
//! `cargo run --release --example heap_floor -- PENDING…`
//!
//! For each PENDING it runs the classic "hold" model of event-queue
//! benchmarks: the queue holds PENDING events, and each step pops the
//! earliest and schedules one in its place a random 0–20 ms later, the span
//! of a dumbbell's RTTs and transmission times, so the queue keeps its size
//! and its times spread as in a run. It prints, as JSON, the nanoseconds per
//! step (a pop and a schedule: what the engine pays for one event) for each
//! size, best of three rounds of at least 0.2 s. `bench/run.py` measures it
//! in the same run as the simulations, so that the cost per event of a run
//! can be read against the floor at the run's heap size.
use dupack_sim::engine::queue::{Class, EventQueue, TieBreak};
use dupack_sim::engine::rng::StreamRng;
use dupack_sim::time::{SimDuration, SimTime};
use std::process::ExitCode;
use std::time::Instant;

/// Nanoseconds per pop-and-schedule with `pending` events queued.
fn floor(pending: u32) -> f64 {
    let mut rng = StreamRng::new(1, "heap-floor");
    let span = SimDuration::from_millis(20);
    let mut q: EventQueue<u32> = EventQueue::new(TieBreak::Shuffled { salt: 0x5eed });
    for e in 0..pending {
        q.schedule(SimTime::ZERO + rng.duration_up_to(span), Class::Arrival, e);
    }
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let (mut steps, mut elapsed) = (0u64, 0.0);
        #[allow(clippy::disallowed_methods)] // a benchmark: wall-clock time is what it measures
        let start = Instant::now();
        while elapsed < 0.2 {
            for _ in 0..100_000 {
                let (now, e) = q.pop().expect("the queue never empties");
                q.schedule(now + rng.duration_up_to(span), Class::Arrival, e);
            }
            steps += 100_000;
            elapsed = start.elapsed().as_secs_f64();
        }
        best = best.min(elapsed * 1e9 / steps as f64);
    }
    best
}

fn main() -> ExitCode {
    let sizes: Result<Vec<u32>, _> = std::env::args().skip(1).map(|a| a.parse::<u32>()).collect();
    let sizes = match sizes {
        Ok(s) if !s.is_empty() && s.iter().all(|&n| n > 0) => s,
        _ => {
            eprintln!("usage: heap_floor PENDING… (positive whole numbers of pending events)");
            return ExitCode::from(2);
        }
    };
    let pairs: Vec<String> = sizes.iter().map(|&n| format!("\"{n}\": {:.2}", floor(n))).collect();
    println!("{{{}}}", pairs.join(", "));
    ExitCode::SUCCESS
}
