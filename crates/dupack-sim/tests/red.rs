//! RED at a dumbbell bottleneck, end to end: it keeps the queue shorter than
//! DropTail with the same buffer, and every transfer still completes with
//! the delivery invariant intact (`run` checks it and fails otherwise).

use dupack_sim::{parse_scenario_toml, run, RunResult};

fn dumbbell(queue: &str) -> String {
    format!(
        r#"
name = "red-vs-droptail"
[run]
duration = "600s"
seed = 3
[topology]
kind = "dumbbell"
senders = 4
access = {{ rate = "10Mbps", delay = "2ms" }}
bottleneck = {{ rate = "1.5Mbps", delay = "20ms", queue = {queue} }}
[tcp]
variant = "newreno"
[[flows]]
from = "s0"
bytes = "400KB"
[[flows]]
from = "s1"
bytes = "400KB"
[[flows]]
from = "s2"
bytes = "400KB"
start = "1s"
[[flows]]
from = "s3"
bytes = "400KB"
start = "2s"
"#
    )
}

fn bottleneck_fwd(r: &RunResult) -> &dupack_sim::LinkResult {
    r.links.iter().find(|l| l.link == "bottleneck" && l.direction == "fwd").unwrap()
}

fn run_toml(text: &str) -> RunResult {
    let s = parse_scenario_toml(text).unwrap_or_else(|e| panic!("{e}"));
    let r = run(&s, s.seed).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.run.end_reason, "all_done", "every transfer completes");
    for f in &r.flows {
        assert_eq!(Some(f.bytes_delivered), f.app_bytes, "{}", f.flow);
    }
    r
}

#[test]
fn red_keeps_the_bottleneck_queue_shorter_than_droptail_and_delivers_everything() {
    let dt = run_toml(&dumbbell("{ limit_packets = 100 }"));
    let red =
        run_toml(&dumbbell(r#"{ kind = "red", min_th = 5, max_th = 15, limit_packets = 100, maxp = 0.1, wq = 0.02 }"#));
    let (d, r) = (bottleneck_fwd(&dt), bottleneck_fwd(&red));
    assert!(d.max_queue_packets >= 40, "DropTail lets the queue grow: {}", d.max_queue_packets);
    assert!(
        r.max_queue_packets * 2 <= d.max_queue_packets,
        "RED max queue {} vs DropTail {}",
        r.max_queue_packets,
        d.max_queue_packets
    );
    assert!(r.drops_queue > 0, "RED dropped early");
    assert_eq!(r.marks, 0, "no ECN without ECT senders");
    assert_eq!(d.marks, 0);
}

#[test]
fn ecn_red_without_ect_senders_behaves_as_red_and_is_deterministic() {
    // The senders do not set ECT yet: ECN-RED must drop as RED does, with
    // the same draws from the queue's stream.
    let q = |ecn: bool| {
        format!(r#"{{ kind = "red", min_th = 5, max_th = 15, limit_packets = 100, wq = 0.02, ecn = {ecn} }}"#)
    };
    let a = run_toml(&dumbbell(&q(false)));
    let b = run_toml(&dumbbell(&q(true)));
    assert_eq!(bottleneck_fwd(&a).drops_queue, bottleneck_fwd(&b).drops_queue);
    assert_eq!(a.run.sim_time_s, b.run.sim_time_s);
    assert_eq!(bottleneck_fwd(&b).marks, 0);
}
