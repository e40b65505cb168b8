//! Run one scenario for seeds 1..=RUNS on THREADS threads, in one process,
//! and print the timings as JSON: the "directly from Rust" side of the
//! sweep-throughput measurement in `bench/sweep.py`, against which the
//! Python API, its result store and the CLI are compared.
//!
//! `cargo run --release --example sweep_grid -- FILE.toml RUNS THREADS [KEY=VALUE…]`
//!
//! `KEY=VALUE` overrides work as in `bench_scenario`. Each thread takes the
//! next seed from a shared counter, so the two threads stay busy until the
//! grid is done, as a process pool would.
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

#[path = "common/toml_set.rs"]
mod toml_set;
use toml_set::load_scenario;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: sweep_grid FILE.toml RUNS THREADS [KEY=VALUE...]");
        return ExitCode::from(2);
    }
    let (Ok(runs), Ok(threads)) = (args[1].parse::<u64>(), args[2].parse::<usize>()) else {
        eprintln!("error: RUNS and THREADS must be numbers");
        return ExitCode::from(2);
    };
    let overrides: Vec<&str> = args[3..].iter().map(String::as_str).collect();
    let scenario = match load_scenario(&args[0], &overrides) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };

    let next = AtomicU64::new(1);
    let per_run = Mutex::new(Vec::with_capacity(runs as usize));
    let t0 = Instant::now();
    let failed = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads.max(1))
            .map(|_| {
                s.spawn(|| loop {
                    let seed = next.fetch_add(1, Ordering::Relaxed);
                    if seed > runs {
                        return false;
                    }
                    let t = Instant::now();
                    match dupack_sim::run(&scenario, seed) {
                        Ok(r) => {
                            std::hint::black_box(&r);
                            per_run.lock().unwrap().push(t.elapsed().as_secs_f64());
                        }
                        Err(e) => {
                            eprintln!("error: seed {seed}: {e}");
                            return true;
                        }
                    }
                })
            })
            .collect();
        workers.into_iter().any(|w| w.join().unwrap_or(true))
    });
    let wall = t0.elapsed().as_secs_f64();
    if failed {
        return ExitCode::from(3);
    }
    let per_run = per_run.into_inner().unwrap();
    println!("{}", serde_json::json!({"runs": runs, "threads": threads, "wall_s": wall, "run_wall_s": per_run}));
    ExitCode::SUCCESS
}
