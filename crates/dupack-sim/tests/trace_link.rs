//! Trace-driven link directions end to end: a lone flow gets the trace's
//! capacity, delivery stops during the trace's gaps, and runs repeat
//! exactly.

use dupack_sim::engine::sim::World;
use dupack_sim::time::SimTime;
use dupack_sim::{parse_scenario_toml, run, RunResult, Scenario};
use std::path::PathBuf;

fn trace(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/traces").join(name);
    p.to_string_lossy().into_owned()
}

/// n0 --10 Mbps wire-- n1 --traced downlink, 10 ms-- n2, one greedy flow.
fn scenario(trace_file: &str, duration: &str, extra: &str) -> Scenario {
    let text = format!(
        r#"
[run]
duration = "{duration}"
[topology]
kind = "chain"
[[topology.hops]]
rate = "100Mbps"
delay = "1ms"
[[topology.hops]]
rate = "10Mbps"
delay = "10ms"
queue = {{ limit_packets = 1000 }}
fwd_trace = {{ file = {trace_file:?} }}
{extra}
[tcp]
variant = "sack"
"#
    );
    parse_scenario_toml(&text).unwrap_or_else(|e| panic!("{e}"))
}

fn traced_fwd(r: &RunResult) -> &dupack_sim::LinkResult {
    r.links.iter().find(|l| l.link == "hop1" && l.direction == "fwd").unwrap()
}

#[test]
fn a_lone_flow_gets_the_constant_trace_rate() {
    // One 1500-byte opportunity per ms: 12 Mbit/s of IP packets, and
    // 12 · 1460/1500 = 11.68 Mbit/s of TCP payload. The 64 KiB window
    // exceeds the path's bandwidth-delay product (about 33 KB), so the
    // trace is the bottleneck and nothing overflows the 1000-packet queue.
    let s = scenario(&trace("const-12mbps.trace"), "20s", "");
    let r = run(&s, 1).unwrap();
    let f = &r.flows[0];
    assert_eq!(f.drops_queue + f.drops_error, 0);
    let want_kbps = 12_000.0 * 1460.0 / 1500.0;
    assert!((f.goodput_kbps - want_kbps).abs() < 0.03 * want_kbps, "goodput {} kbit/s", f.goodput_kbps);
    // The link itself: bytes sent per second match the trace to within the
    // few packets of slow start.
    let l = traced_fwd(&r);
    assert_eq!(l.rate_bps, 12_000_000, "a traced direction reports the trace's mean rate");
    let per_s = l.bytes_sent as f64 / r.run.sim_time_s;
    assert!((per_s - 1_500_000.0).abs() < 0.01 * 1_500_000.0, "{per_s} B/s");
    assert!(l.utilisation > 0.99 && l.utilisation <= 1.0, "{}", l.utilisation);
    // The untraced reverse direction still runs at its rate.
    let rev = r.links.iter().find(|l| l.link == "hop1" && l.direction == "rev").unwrap();
    assert_eq!(rev.rate_bps, 10_000_000);
}

#[test]
fn delivery_stops_during_the_gaps_of_the_trace() {
    // bursty-gaps.trace: opportunities in (0, 400] and [700, 1000] ms of
    // every second, none in between. The downlink delay is 10 ms, so the
    // receiver gets nothing from 410 ms to 710 ms (and a second later).
    let s = scenario(&trace("bursty-gaps.trace"), "3s", "");
    let mut w = World::new(&s, 1).unwrap();
    let mut at = |ms: u64| {
        w.run_until(SimTime::ZERO + dupack_sim::time::ms(ms), false);
        w.receiver(0).rcv_nxt()
    };
    for period in [0, 1000, 2000] {
        let before = at(period + 405);
        let gap_start = at(period + 411);
        let gap_end = at(period + 709);
        let after = at(period + 760);
        assert!(gap_start > before, "delivering up to the gap ({period})");
        assert_eq!(gap_end, gap_start, "nothing arrives during the gap ({period})");
        assert!(after > gap_end, "delivery resumes after the gap ({period})");
    }
}

#[test]
fn trace_driven_runs_are_deterministic() {
    let extra =
        r#"fwd_error = { model = "gilbert_elliott", p_bad = 0.5, mean_good_packets = 500, mean_bad_packets = 5 }"#;
    let s = scenario(&trace("bursty-gaps.trace"), "10s", extra);
    let strip = |mut r: RunResult| {
        r.run.wall_time_s = 0.0;
        r
    };
    let a = strip(run(&s, 3).unwrap());
    let b = strip(run(&s, 3).unwrap());
    assert_eq!(a, b);
    assert!(a.flows[0].drops_error > 0, "the Gilbert–Elliott model dropped something");
    let c = strip(run(&s, 4).unwrap());
    assert_ne!(a.flows[0].drops_error, c.flows[0].drops_error, "another seed, another loss pattern");
}
