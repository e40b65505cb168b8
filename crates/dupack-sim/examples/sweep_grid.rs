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
use toml_set::set;

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
    let text = match std::fs::read_to_string(&args[0]) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {}: {e}", args[0]);
            return ExitCode::from(2);
        }
    };
    let mut doc: toml::Table = match text.parse() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {}: {e}", args[0]);
            return ExitCode::from(2);
        }
    };
    for a in &args[3..] {
        let Some((k, v)) = a.split_once('=') else {
            eprintln!("error: '{a}' is not KEY=VALUE");
            return ExitCode::from(2);
        };
        let value = toml::from_str::<toml::Table>(&format!("v = {v}"))
            .ok()
            .and_then(|mut t| t.remove("v"))
            .unwrap_or_else(|| toml::Value::String(v.to_string()));
        if let Err(e) = set(&mut doc, k, value) {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    }
    let text = toml::to_string(&doc).expect("a parsed TOML table serialises");
    let scenario = match dupack_sim::parse_scenario_toml(&text) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {}: {e}", args[0]);
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
