//! Run one scenario TOML file and print the result as JSON on stdout: the
//! same files the `dupack` CLI reads, without Python in the way, so that
//! `bench/run.py` times the core alone.
//!
//! `cargo run --release --example bench_scenario -- FILE.toml [SEED] [KEY=VALUE…]`
//!
//! `KEY=VALUE` replaces a top-level table key before parsing, written as a
//! dotted path into the TOML document (`run.duration="50s"`,
//! `topology.senders=40`); the value is TOML. This is a small subset of the
//! CLI's `-s` (no list indices), enough for parameter sweeps.
use std::process::ExitCode;

#[path = "common/toml_set.rs"]
mod toml_set;
use toml_set::load_scenario;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: bench_scenario FILE.toml [SEED] [KEY=VALUE...]");
        return ExitCode::from(2);
    };
    // The seed is the one argument that is not KEY=VALUE.
    let mut seed = None;
    let mut overrides = Vec::new();
    for a in &args[1..] {
        if a.contains('=') {
            overrides.push(a.as_str());
        } else if let Ok(s) = a.parse::<u64>() {
            seed = Some(s);
        } else {
            eprintln!("error: '{a}' is neither a seed nor KEY=VALUE");
            return ExitCode::from(2);
        }
    }
    let scenario = match load_scenario(path, &overrides) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let seed = seed.unwrap_or(scenario.seed);
    match dupack_sim::run(&scenario, seed) {
        Ok(r) => {
            println!("{}", serde_json::to_string(&r).expect("results serialise"));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(3)
        }
    }
}
