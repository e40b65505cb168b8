//! Snoop (Balakrishnan et al. 1995; irw §2.1) through the engine: fixed
//! host → 10 Mbit/s wired hop → base station → 2 Mbit/s wireless hop →
//! mobile host, the agent at the base station.

mod common;

use common::WirelessPath;
use dupack_sim::engine::sim::run;
use dupack_sim::metrics::result::{FlowResult, LinkResult, RunResult};
use dupack_sim::scenario::model::Scenario;

fn scenario(wireless_extra: &str, bytes: &str) -> Scenario {
    let flow = format!("bytes = \"{bytes}\"");
    let p = WirelessPath {
        duration: "120s",
        wireless_delay: "5ms",
        wireless: wireless_extra,
        window: "24000B",
        flow: &flow,
        ..Default::default()
    };
    p.build()
}

fn wireless(r: &RunResult) -> LinkResult {
    r.links.iter().find(|l| l.link == "hop1" && l.direction == "fwd").unwrap().clone()
}

fn flow(r: &RunResult) -> &FlowResult {
    &r.flows[0]
}

#[test]
fn a_wireless_loss_is_repaired_locally_and_the_sender_never_sees_three_dupacks() {
    let lossy = "fwd_error = { model = \"droplist\", flow = \"f\", packets = [40] }";
    let plain = run(&scenario(lossy, "200KB"), 1).unwrap();
    assert_eq!(flow(&plain).fast_retransmits, 1, "without Snoop the sender must fast-retransmit");
    assert!(flow(&plain).dupacks_received >= 3);

    let snooped = run(&scenario(&format!("{lossy}\nsnoop = {{}}"), "200KB"), 1).unwrap();
    let (f, w) = (flow(&snooped), wireless(&snooped));
    assert_eq!(snooped.run.end_reason, "all_done");
    assert_eq!(w.drops_error, 1);
    assert_eq!(w.link_retransmissions, 1, "one local retransmission");
    assert!(w.dupacks_suppressed >= 3, "the mobile's dupacks stopped at the base station: {}", w.dupacks_suppressed);
    assert_eq!((f.fast_retransmits, f.timeouts, f.retransmitted_segments), (0, 0, 0));
    assert!(f.dupacks_received < 3, "the sender saw {} dupacks", f.dupacks_received);
    assert!(f.completion_time_s < plain.flows[0].completion_time_s, "no window halving: faster");
}

#[test]
fn a_lost_local_retransmission_is_resent_by_the_local_timer() {
    // Packet 40 and its local retransmission (the next packet of the flow
    // to cross the wireless hop after the dupacks began) are both lost.
    let s = scenario("fwd_error = { model = \"droplist\", flow = \"f\", packets = [40, 41] }\nsnoop = {}", "60KB");
    let r = run(&s, 1).unwrap();
    let w = wireless(&r);
    assert_eq!(r.run.end_reason, "all_done");
    assert_eq!(w.drops_error, 2);
    assert!(w.link_retransmissions >= 2, "dupack-triggered, then timer-triggered: {}", w.link_retransmissions);
}

#[test]
fn snoop_beats_plain_reno_on_a_lossy_wireless_hop() {
    let lossy = "fwd_error = { model = \"bernoulli\", p = 0.03, applies_to = \"data\" }";
    let mut plain = 0.0;
    let mut snooped = 0.0;
    for seed in 1..=5 {
        plain += flow(&run(&scenario(lossy, "500KB"), seed).unwrap()).goodput_kbps;
        let r = run(&scenario(&format!("{lossy}\nsnoop = {{}}"), "500KB"), seed).unwrap();
        assert_eq!(r.run.end_reason, "all_done");
        snooped += flow(&r).goodput_kbps;
    }
    assert!(snooped > 1.3 * plain, "Snoop {snooped:.0} vs plain {plain:.0} kbit/s (sum over seeds)");
}

#[test]
fn a_queued_local_retransmission_waits_behind_the_base_stations_queue() {
    // local_rexmit = "queue" (ns-2's LL/LLSnoop): the repair joins the tail
    // of the wireless hop's queue instead of going next. It is still local
    // (no sender retransmission), but the mobile's cumulative ACK stalls for
    // the packets queued ahead of it, ~4.2 ms each at 2 Mbit/s.
    let lossy = "fwd_error = { model = \"droplist\", flow = \"f\", packets = [40] }";
    let ahead = run(&scenario(&format!("{lossy}\nsnoop = {{}}"), "200KB"), 1).unwrap();
    let queued = run(&scenario(&format!("{lossy}\nsnoop = {{ local_rexmit = \"queue\" }}"), "200KB"), 1).unwrap();
    for r in [&ahead, &queued] {
        let f = flow(r);
        assert_eq!(r.run.end_reason, "all_done");
        assert_eq!((f.fast_retransmits, f.timeouts, f.retransmitted_segments), (0, 0, 0), "repaired locally");
    }
    assert_eq!(wireless(&ahead).link_retransmissions, 1);
    // Queued, the repair outlasts the local timer's 20 ms floor and the timer
    // resends it too (the cost ns-2's agent pays, docs/validation.md §5).
    assert!(wireless(&queued).link_retransmissions >= 2, "{}", wireless(&queued).link_retransmissions);
    assert!(wireless(&queued).max_queue_packets >= 5, "a queue forms at the base station");
    let lag = flow(&queued).completion_time_s.unwrap() - flow(&ahead).completion_time_s.unwrap();
    // At least three more packet times (1040 B at 2 Mbit/s = 4.16 ms each).
    assert!(lag > 3.0 * 0.00416, "the queued repair waits behind the queue: the transfer ends {lag:.4} s later");
}
