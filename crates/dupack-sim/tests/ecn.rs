//! ECN end to end: an ECN-RED bottleneck marks instead of dropping, ECN
//! senders halve on the echo, and (unfairness §VIII) ECN-FACK keeps its
//! window through transmission errors that cost FACK half of it each time.

use dupack_sim::{parse_scenario_toml, run, RunResult};

/// The unfairness topology in small (unfairness §VI, Fig. 5): `n` senders on
/// 1 Mbit/s access links that lose `p` of their data packets, a 3 Mbit/s
/// bottleneck with an ECN-RED queue of 150 packets.
fn unfairness(variant: &str, p: f64, n: u32) -> RunResult {
    let text = format!(
        r#"
[run]
duration = "100s"
seed = 5
[topology]
kind = "dumbbell"
senders = {n}
access = {{ rate = "1Mbps", delay = "10ms", fwd_error = {{ model = "bernoulli", p = {p} }} }}
bottleneck = {{ rate = "3Mbps", delay = "20ms", queue = {{ kind = "red", min_th = 20, max_th = 60, limit_packets = 150, maxp = 0.1, ecn = true }} }}
[tcp]
variant = "{variant}"
mss = "1000B"
"#
    );
    run(&parse_scenario_toml(&text).unwrap(), 5).unwrap()
}

fn bottleneck(r: &RunResult) -> &dupack_sim::LinkResult {
    r.links.iter().find(|l| l.link == "bottleneck" && l.direction == "fwd").unwrap()
}

#[test]
fn ecn_red_marks_ecn_flows_and_they_back_off_without_drops() {
    let ecn = unfairness("newreno+ecn", 0.0, 10);
    let plain = unfairness("newreno", 0.0, 10);
    let (b_ecn, b_plain) = (bottleneck(&ecn), bottleneck(&plain));
    eprintln!(
        "ecn: marks {} queue drops {}; plain: marks {} queue drops {}",
        b_ecn.marks, b_ecn.drops_queue, b_plain.marks, b_plain.drops_queue
    );
    assert!(b_ecn.marks > 50, "ECT packets are marked");
    assert_eq!(b_plain.marks, 0, "non-ECT packets are never marked");
    // What is still dropped: retransmissions (never ECT) in the random band,
    // and everything above max_th (mark_above_max_th = false, as ns-2).
    assert!(b_ecn.drops_queue * 4 < b_plain.drops_queue, "marks replace most drops");
    let reductions: u64 = ecn.flows.iter().map(|f| f.ecn_reductions).sum();
    assert!(reductions > 20, "senders halve on the echo: {reductions}");
    let goodput = |r: &RunResult| r.flows.iter().map(|f| f.goodput_kbps).sum::<f64>();
    assert!(goodput(&ecn) > 0.9 * 3000.0 * 0.9, "the bottleneck stays busy: {}", goodput(&ecn));
}

#[test]
fn ecn_fack_keeps_its_throughput_under_transmission_errors() {
    // unfairness §VIII, Fig. 10: with every router ECN-capable, ECN-FACK
    // treats losses as errors and keeps the bottleneck full; FACK halves.
    let goodput = |r: &RunResult| r.flows.iter().map(|f| f.goodput_kbps).sum::<f64>();
    // Three senders: too few to fill the bottleneck once losses halve them.
    let fack = goodput(&unfairness("fack+ecn", 0.05, 3));
    let ecn_fack = goodput(&unfairness("ecn-fack", 0.05, 3));
    eprintln!("5 % loss: fack+ecn {fack:.0} kbit/s, ecn-fack {ecn_fack:.0} kbit/s");
    assert!(ecn_fack > 2.0 * fack, "the gain of unfairness Fig. 10");
}
