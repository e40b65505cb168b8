//! RPLD at scenario level, in the paper's setting (rpld §4, Fig. 1): a
//! 64 kbit/s satellite hop with 280 ms propagation delay and a bit error
//! rate of 3·10⁻⁵ on data, large buffers (no congestion losses), 120 s.
//! Losing a retransmission costs SACK a timeout; RPLD finds it (rpld §4.2).

mod common;

use dupack_sim::run;
use dupack_sim::scenario::model::*;
use dupack_sim::time::{ms, secs};

fn satellite(variant: &str, seed: u64) -> dupack_sim::FlowResult {
    let mut s = common::lossy_path(variant, 0.0, 64_000, ms(280), secs(120));
    s.links[1].fwd_error = ErrorSpec { model: ErrorModelSpec::Ber { ber: 3e-5 }, applies_to: PacketSelector::Data };
    s.flows[0].tcp.mss = 512;
    s.flows[0].receiver.window = 16 * 512;
    run(&s, seed).unwrap().flows.remove(0)
}

#[test]
fn rpld_recovers_lost_retransmissions_without_the_timeouts_sack_takes() {
    let (mut sack_to, mut rpld_to, mut sack_b, mut rpld_b, mut lost_rexmits) = (0, 0, 0, 0, 0);
    for seed in 1..=10 {
        let s = satellite("sack", seed);
        let r = satellite("sack+rpld", seed);
        sack_to += s.timeouts;
        rpld_to += r.timeouts;
        sack_b += s.bytes_delivered;
        rpld_b += r.bytes_delivered;
        lost_rexmits += s.lost_retransmissions;
    }
    eprintln!("sack: {sack_to} timeouts, {sack_b} B; sack+rpld: {rpld_to} timeouts, {rpld_b} B; SACK lost {lost_rexmits} retransmissions");
    assert!(lost_rexmits > 10, "the setting must lose retransmissions for the test to mean anything");
    assert!(rpld_to < sack_to);
    assert!(rpld_b > sack_b);
}
