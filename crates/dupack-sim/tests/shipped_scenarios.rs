//! Every scenario shipped in `scenarios/` parses and runs, and the Fall &
//! Floyd files reproduce the behaviour the model-built tests assert.

use dupack_sim::tcp::variant::Variant;
use dupack_sim::{parse_scenario_toml, run};
use std::path::PathBuf;

fn common_uses_sack(v: &str) -> bool {
    dupack_sim::tcp::variant::parse_variant(v).unwrap().uses_sack()
}

fn scenarios_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

/// Read a shipped scenario. Trace files are named relative to the
/// scenario's folder; the core takes paths as given, so (as the Python
/// loader does) make them absolute first.
fn load(name: &str) -> dupack_sim::Scenario {
    let text = std::fs::read_to_string(scenarios_dir().join(name)).unwrap();
    if !text.contains("_trace") {
        return parse_scenario_toml(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let mut doc: serde_json::Value = toml::from_str(&text).unwrap();
    absolute_traces(&mut doc);
    dupack_sim::parse_scenario(&doc).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn absolute_traces(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if k == "fwd_trace" || k == "rev_trace" {
                    if let Some(serde_json::Value::String(f)) = x.get_mut("file") {
                        *f = scenarios_dir().join(&*f).to_string_lossy().into_owned();
                    }
                } else {
                    absolute_traces(x);
                }
            }
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(absolute_traces),
        _ => {}
    }
}

#[test]
fn every_shipped_scenario_parses_and_runs() {
    let mut n = 0;
    for entry in std::fs::read_dir(scenarios_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let s = load(path.file_name().unwrap().to_str().unwrap());
            let r = run(&s, s.seed).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(r.flows.iter().all(|f| f.bytes_delivered > 0), "{}", path.display());
            n += 1;
        }
    }
    assert!(n >= 6, "only {n} scenarios found");
}

#[test]
fn quickstart_lossy_sender_gets_less_than_the_others() {
    let s = load("quickstart.toml");
    let r = run(&s, 1).unwrap();
    assert_eq!(r.flows.len(), 4);
    let total: f64 = r.flows.iter().map(|f| f.goodput_kbps).sum();
    assert!(total > 1200.0 && total <= 1500.0, "bottleneck 1.5 Mbps: {total}");
    assert!(r.flows[3].drops_error > 0);
    let others = r.flows[..3].iter().map(|f| f.goodput_kbps).fold(f64::MAX, f64::min);
    assert!(r.flows[3].goodput_kbps < others, "{:?}", r.flows.iter().map(|f| f.goodput_kbps).collect::<Vec<_>>());
}

#[test]
fn fall_floyd_files_time_out_only_where_the_paper_says() {
    for (file, drops) in [
        ("fall-floyd-1-drop.toml", 1),
        ("fall-floyd-2-drops.toml", 2),
        ("fall-floyd-3-drops.toml", 3),
        ("fall-floyd-4-drops.toml", 4),
    ] {
        let base = load(file);
        for variant in ["reno", "newreno", "sack"] {
            let mut s = base.clone();
            s.flows[0].variant = Variant::parse(variant).unwrap();
            s.flows[0].receiver.sack = common_uses_sack(variant);
            let r = run(&s, 1).unwrap();
            let f = &r.flows[0];
            assert_eq!(f.drops_error, drops, "{file} {variant}");
            assert_eq!(f.bytes_delivered, 150_000);
            match variant {
                "reno" if drops >= 3 => assert!(f.timeouts >= 1, "{file} reno"),
                "reno" if drops == 1 => assert_eq!(f.timeouts, 0, "{file} reno"),
                "newreno" | "sack" => assert_eq!((f.timeouts, f.fast_retransmits), (0, 1), "{file} {variant}"),
                _ => {}
            }
        }
    }
}
