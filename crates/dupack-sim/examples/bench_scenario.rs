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
use toml_set::set;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: bench_scenario FILE.toml [SEED] [KEY=VALUE...]");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {path}: {e}");
            return ExitCode::from(2);
        }
    };
    let mut doc: toml::Table = match text.parse() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {path}: {e}");
            return ExitCode::from(2);
        }
    };
    let mut seed = None;
    for a in &args[1..] {
        if let Some((k, v)) = a.split_once('=') {
            // A bare word that is not TOML is taken as a string, as the CLI does.
            let value = toml::from_str::<toml::Table>(&format!("v = {v}"))
                .ok()
                .and_then(|mut t| t.remove("v"))
                .unwrap_or_else(|| toml::Value::String(v.to_string()));
            if let Err(e) = set(&mut doc, k, value) {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        } else if let Ok(s) = a.parse::<u64>() {
            seed = Some(s);
        } else {
            eprintln!("error: '{a}' is neither a seed nor KEY=VALUE");
            return ExitCode::from(2);
        }
    }
    let text = toml::to_string(&doc).expect("a parsed TOML table serialises");
    let scenario = match dupack_sim::parse_scenario_toml(&text) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {path}: {e}");
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
