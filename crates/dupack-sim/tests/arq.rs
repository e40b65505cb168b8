//! Link-level ARQ (irw §4) through the engine: a fixed host, a wired hop to
//! a base station, a 2 Mbit/s wireless hop to the mobile with NAK-based
//! selective repeat (irw Fig. 2's shape).

mod common;

use common::WirelessPath;
use dupack_sim::engine::sim::{run, TraceRecord, World};
use dupack_sim::metrics::result::{LinkResult, RunResult};
use dupack_sim::scenario::model::Scenario;
use dupack_sim::time::SimTime;

fn scenario(wireless_extra: &str, flow: &str) -> Scenario {
    // 40-segment window: never more than the 50-frame queue holds.
    WirelessPath { wired_delay: "5ms", wireless: wireless_extra, window: "40000B", flow, ..Default::default() }.build()
}

fn wireless(r: &RunResult, dir: &str) -> LinkResult {
    r.links.iter().find(|l| l.link == "hop1" && l.direction == dir).unwrap().clone()
}

/// One segment whose frame is destroyed `k` times in a row on the wireless hop.
fn lost_k_times(k: usize, retry_limit: u32) -> RunResult {
    let packets: Vec<String> = (1..=k).map(|i| i.to_string()).collect();
    let extra = format!(
        "fwd_error = {{ model = \"droplist\", flow = \"f\", packets = [{}] }}\narq = {{ retry_limit = {retry_limit}, directions = \"fwd\" }}",
        packets.join(", ")
    );
    run(&scenario(&extra, "bytes = \"1000B\""), 1).unwrap()
}

#[test]
fn a_frame_lost_k_times_is_delivered_after_k_retransmissions_up_to_the_retry_limit() {
    for k in 1..=3 {
        let r = lost_k_times(k, 3);
        let (f, w) = (&r.flows[0], wireless(&r, "fwd"));
        assert_eq!(r.run.end_reason, "all_done", "k = {k}");
        assert_eq!(w.drops_error, k as u64, "k = {k}: the error model destroyed k frames");
        assert_eq!(w.link_retransmissions, k as u64, "k = {k}");
        assert_eq!(w.link_given_up, 0);
        assert_eq!((f.retransmitted_segments, f.timeouts), (0, 0), "k = {k}: TCP never noticed");
        assert_eq!(f.drops_error, 0, "k = {k}: nothing was lost for good");
        // Each repair costs at most one NAK round trip (NAK timer, then NAK + frame).
        assert!(f.completion_time_s.unwrap() < 0.1 + 0.05 * k as f64, "k = {k}: {:?}", f.completion_time_s);
    }
}

#[test]
fn a_frame_lost_more_often_than_the_retry_limit_is_dropped_and_tcp_repairs_it() {
    let r = lost_k_times(4, 3);
    let (f, w) = (&r.flows[0], wireless(&r, "fwd"));
    assert_eq!(r.run.end_reason, "all_done");
    assert_eq!(w.link_retransmissions, 3);
    assert_eq!(w.link_given_up, 1);
    assert_eq!(f.drops_error, 1, "lost for good once");
    assert_eq!(f.timeouts, 1, "a lone segment can only be repaired by the RTO");
    assert_eq!(f.retransmitted_segments, 1);
}

#[test]
fn nak_bytes_are_carried_by_the_reverse_direction() {
    let extra =
        "fwd_error = { model = \"bernoulli\", p = 0.05, applies_to = \"data\" }\narq = { directions = \"fwd\" }";
    let r = run(&scenario(extra, "bytes = \"500KB\""), 3).unwrap();
    let (fwd, rev) = (wireless(&r, "fwd"), wireless(&r, "rev"));
    assert!(fwd.naks > 10, "about 5 % of ~500 frames were NAKed: {}", fwd.naks);
    assert_eq!(rev.ctl_bytes, 16 * fwd.naks, "16-byte NAKs (irw §4) on the reverse direction");
    assert_eq!(rev.naks, 0, "no ARQ on the ACK direction");
    assert!(fwd.ctl_bytes > 0 && fwd.ctl_bytes % 16 == 0, "polls ride the data direction");
    assert!(fwd.link_retransmissions >= fwd.drops_error - fwd.link_given_up);
    let f = &r.flows[0];
    assert_eq!(f.fast_retransmits + f.timeouts, 0, "in-order ARQ hides every loss from TCP here");
    assert_eq!(f.spurious_retransmissions, 0);
}

#[test]
fn a_repair_under_a_long_queue_stays_hidden_from_tcp() {
    // A greedy flow keeps the wireless queue long; the NAKed frame jumps it
    // (pre-emption itself is tested frame by frame in net::channel).
    let extra = "fwd_error = { model = \"droplist\", flow = \"f\", packets = [200] }\narq = { directions = \"fwd\" }";
    let mut s = scenario(extra, "");
    s.stop_when_done = false;
    s.duration = dupack_sim::time::secs(5);
    let mut w = World::new(&s, 1).unwrap();
    w.trace_flow(0);
    w.run_until(SimTime::ZERO + s.duration, false);
    assert!(
        w.trace().iter().all(|t| !matches!(t, TraceRecord::Send { retransmit: true, .. })),
        "TCP never retransmitted"
    );
    let r = run(&s, 1).unwrap();
    let fw = wireless(&r, "fwd");
    assert!(fw.max_queue_packets >= 25, "the queue was long: {}", fw.max_queue_packets);
    assert_eq!((fw.drops_error, fw.link_retransmissions, fw.link_given_up), (1, 1, 0));
}

#[test]
fn rlc_am_preset_delivers_out_of_order_and_gives_up_after_maxdat() {
    let extra = "fwd_error = { model = \"droplist\", flow = \"f\", packets = [1, 2, 3, 4] }\narq = { preset = \"rlc-am\", directions = \"fwd\" }";
    let r = run(&scenario(extra, "bytes = \"1000B\""), 1).unwrap();
    let w = wireless(&r, "fwd");
    assert_eq!(w.link_retransmissions, 3, "MaxDAT 4 = 3 retransmissions (eplr Table II)");
    assert_eq!(w.link_given_up, 1);
}

#[test]
fn arq_runs_are_deterministic() {
    let extra = "fwd_error = { model = \"bernoulli\", p = 0.1 }\narq = {}";
    let s = scenario(extra, "bytes = \"300KB\"");
    let (a, b) = (run(&s, 9).unwrap(), run(&s, 9).unwrap());
    assert_eq!(a.flows, b.flows);
    assert_eq!(a.links, b.links);
}
