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
