//! The parser must never panic: arbitrary JSON trees built from the
//! scenario vocabulary (so they get deep into the walker), and arbitrary
//! TOML-ish text.

use dupack_sim::scenario::{parse_scenario, parse_scenario_toml};
use proptest::prelude::*;
use serde_json::{Map, Value};

/// The parser's own vocabulary (every key of every table), plus a
/// misspelling and the empty key.
fn keys() -> Vec<&'static str> {
    let mut k = dupack_sim::scenario::parse::vocabulary();
    k.extend(["Rate", ""]);
    k
}

const STRINGS: &[&str] = &[
    "dumbbell",
    "chain",
    "custom",
    "host",
    "router",
    "droptail",
    "none",
    "bernoulli",
    "ber",
    "droplist",
    "gilbert_elliott",
    "data",
    "acks",
    "all",
    "newreno",
    "sack",
    "reno",
    "tahoe",
    "fine",
    "coarse",
    "every",
    "delayed",
    "auto",
    "s0",
    "s1",
    "sink",
    "n0",
    "n1",
    "f0",
    "f1",
    "10Mbps",
    "0Mbps",
    "-1Mbps",
    "1ms",
    "0s",
    "0.5ns",
    "1460B",
    "64KiB",
    "1s",
    "99999999999999999999999999999999s",
    "18446744073.709551616s",
    "",
    "µs",
    "1.5",
    "x+y",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..100_001).prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        prop_oneof![Just(0.0f64), Just(0.5), Just(1.0), Just(1.5), Just(-0.0), Just(1e300)].prop_map(Value::from),
        proptest::sample::select(STRINGS).prop_map(|s| Value::String(s.to_string())),
    ]
}

fn tree() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec((proptest::sample::select(keys()), inner), 0..6).prop_map(|kv| {
                Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect::<Map<String, Value>>())
            }),
        ]
    })
}

/// A plausible skeleton with random subtrees, so deeper checks are reached.
fn scenario() -> impl Strategy<Value = Value> {
    (tree(), tree(), tree(), tree(), tree(), proptest::sample::select(&["dumbbell", "chain", "custom"][..])).prop_map(
        |(topo_extra, link, tcp, rx, flows, kind)| {
            let mut topo = Map::new();
            topo.insert("kind".into(), Value::from(kind));
            topo.insert("senders".into(), Value::from(2));
            topo.insert("access".into(), link.clone());
            topo.insert("bottleneck".into(), link.clone());
            topo.insert("hops".into(), Value::Array(vec![link.clone()]));
            if let Value::Object(m) = topo_extra {
                topo.extend(m);
            }
            let mut top = Map::new();
            top.insert("topology".into(), Value::Object(topo));
            top.insert("tcp".into(), tcp);
            top.insert("receiver".into(), rx);
            top.insert("flows".into(), flows);
            Value::Object(top)
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_json_never_panics(v in tree()) {
        let _ = parse_scenario(&v);
    }

    #[test]
    fn arbitrary_scenarios_never_panic(v in scenario()) {
        if let Err(e) = parse_scenario(&v) {
            prop_assert!(!e.message.is_empty());
        }
    }

    #[test]
    fn arbitrary_text_never_panics(s in "[\\[\\]a-z_=\" .0-9\n{},#-]{0,200}") {
        let _ = parse_scenario_toml(&s);
    }
}

#[test]
fn large_dumbbell_parses_quickly() {
    // 100 000 senders, default flows, a droplist on every access link: no
    // quadratic step may hide in the builder or the name resolution.
    let text = r#"
[topology]
kind = "dumbbell"
senders = 100000
access = { rate = "10Mbps", delay = "1ms", fwd_error = { model = "droplist", flow = "f99999", packets = [1] } }
bottleneck = { rate = "1Gbps", delay = "10ms" }
"#;
    let t = std::time::Instant::now();
    let s = parse_scenario_toml(text).expect("valid");
    assert_eq!((s.nodes.len(), s.links.len(), s.flows.len()), (100_002, 100_001, 100_000));
    assert!(t.elapsed().as_secs() < 20, "took {:?}", t.elapsed());
}

#[test]
fn the_vocabulary_is_every_table_s_keys() {
    let k = keys();
    for key in [
        "name",
        "tie_break",
        "tx_time",
        "header",
        "senders",
        "leaf_override",
        "mss",
        "overhead",
        "rto",
        "tick",
        "ack",
        "dda",
        "rules",
        "retry_limit",
        "local_rexmit",
        "p_gb",
        "mtu",
    ] {
        assert!(k.contains(&key), "{key} missing from the vocabulary");
    }
}
