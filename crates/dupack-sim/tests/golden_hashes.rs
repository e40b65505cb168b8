//! Golden hashes: the whole result of every shipped scenario (in
//! `scenarios/`, `validation/scenarios/` and `bench/scenarios/`), run with
//! its own variant at two seeds and with each base variant at one, hashed
//! and compared with `tests/golden/hashes.txt`.
//!
//! A refactoring must leave every result bit-identical; this test is the
//! proof. A commit that changes results on purpose regenerates the file
//! with `DUPACK_BLESS=1 cargo test --release -p dupack-sim --test
//! golden_hashes` and says in its message why the numbers moved.

use dupack_sim::engine::rng::fnv1a64;
use dupack_sim::{parse_scenario, run};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn golden_file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/hashes.txt")
}

/// Trace files are named relative to the scenario's folder; the core takes
/// paths as given.
fn absolute_traces(v: &mut Value, dir: &Path) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if k == "fwd_trace" || k == "rev_trace" {
                    if let Some(Value::String(f)) = x.get_mut("file") {
                        *f = dir.join(&*f).to_string_lossy().into_owned();
                    }
                } else {
                    absolute_traces(x, dir);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| absolute_traces(x, dir)),
        _ => {}
    }
}

/// The variants each scenario is also run with (with seed 1): one of each
/// base and the papers' extensions, where the scenario's TCP section is
/// global (`[tcp] variant`). A composition the scenario's topology refuses
/// is skipped, not failed: legality is tested elsewhere.
const VARIANTS: [&str; 12] = [
    "tahoe",
    "reno",
    "newreno",
    "sack",
    "fack",
    "rfc6675",
    "rfc6675+prr",
    "rack",
    "vegas",
    "newreno+efr",
    "reno+eplr",
    "sack+rpld",
];

/// Keep the runs of the golden test short: a scenario's duration is capped.
const MAX_DURATION: &str = "60s";

fn cap_duration(doc: &mut Value) {
    let run = doc.get_mut("run").and_then(Value::as_object_mut).expect("[run]");
    run.insert("duration".into(), Value::String(MAX_DURATION.into()));
}

fn result_hash(doc: &Value, seed: u64) -> Option<u64> {
    let s = parse_scenario(doc).ok()?;
    let mut r = run(&s, seed).unwrap_or_else(|e| panic!("{}: {e}", s.name));
    r.run.wall_time_s = 0.0;
    // FNV-1a (engine::rng): stable across platforms and Rust versions.
    Some(fnv1a64(&serde_json::to_string(&r).unwrap()))
}

fn compute() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for dir in ["scenarios", "validation/scenarios", "bench/scenarios"] {
        let dir = root().join(dir);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .collect();
        files.sort();
        for path in files {
            let rel = path.strip_prefix(root()).unwrap().to_string_lossy().into_owned();
            let mut doc: Value = toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            absolute_traces(&mut doc, &dir);
            let long = doc["run"]["duration"].as_str().is_some_and(|d| {
                dupack_sim::scenario::units::parse_duration(d).is_ok_and(|x| x > dupack_sim::time::secs(60))
            });
            if long {
                cap_duration(&mut doc);
            }
            for seed in [1, 7] {
                let h = result_hash(&doc, seed).unwrap_or_else(|| panic!("{rel} does not parse"));
                out.insert(format!("{rel} seed={seed}"), format!("{h:016x}"));
            }
            if doc.get("tcp").and_then(|t| t.get("variant")).is_some() {
                for v in VARIANTS {
                    let mut d = doc.clone();
                    d["tcp"]["variant"] = Value::String(v.into());
                    if let Some(h) = result_hash(&d, 1) {
                        out.insert(format!("{rel} variant={v} seed=1"), format!("{h:016x}"));
                    }
                }
            }
        }
    }
    out
}

#[test]
fn every_shipped_scenario_gives_its_golden_result() {
    let got = compute();
    let text: String = got.iter().map(|(k, v)| format!("{k} {v}\n")).collect();
    if std::env::var_os("DUPACK_BLESS").is_some() {
        std::fs::write(golden_file(), text).unwrap();
        return;
    }
    let want = std::fs::read_to_string(golden_file()).expect("tests/golden/hashes.txt (DUPACK_BLESS=1 writes it)");
    let want: BTreeMap<&str, &str> = want.lines().filter_map(|l| l.rsplit_once(' ')).collect();
    let mut moved = Vec::new();
    for (k, v) in &got {
        match want.get(k.as_str()) {
            Some(w) if w == v => {}
            Some(w) => moved.push(format!("{k}: {w} -> {v}")),
            None => moved.push(format!("{k}: new")),
        }
    }
    for k in want.keys() {
        if !got.contains_key(*k) {
            moved.push(format!("{k}: gone"));
        }
    }
    assert!(
        moved.is_empty(),
        "{} of {} results moved (DUPACK_BLESS=1 rewrites the file; say why in the commit):\n{}",
        moved.len(),
        got.len(),
        moved.join("\n")
    );
    assert!(got.len() >= 100, "only {} golden results", got.len());
}
