//! RPLD at scenario level, in the paper's setting (rpld §4, Fig. 1): a
//! 64 kbit/s satellite hop with 280 ms propagation delay and a bit error
//! rate of 3·10⁻⁵ on data, large buffers (no congestion losses), 120 s.
//! Losing a retransmission costs SACK a timeout; RPLD finds it (rpld §4.2).
//! `sack+rpld` is the authors' SACK TCP with RPLD; `sack-cautious` is that
//! SACK TCP without it, the paper's baseline.

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

/// The paper's comparison is RPLD against the authors' own SACK TCP
/// (`sack-cautious`), which shares everything with `sack+rpld` but the
/// detection. Most of `sack+rpld`'s lead over Fall & Floyd's SACK above is
/// that SACK TCP's: its separate, slow-starting `cwnd_rexmit` alone gives
/// the fewer timeouts and the extra bytes; here RPLD adds under 1 % to it
/// (docs/reproductions.md, rpld).
#[test]
fn the_authors_sack_alone_recovers_what_ff96_sack_loses_to_timeouts() {
    let (mut sack_to, mut base_to, mut rpld_to, mut sack_b, mut base_b, mut rpld_b) = (0, 0, 0, 0, 0, 0);
    for seed in 1..=10 {
        let f = satellite("sack", seed);
        let b = satellite("sack-cautious", seed);
        let r = satellite("sack+rpld", seed);
        (sack_to, base_to, rpld_to) = (sack_to + f.timeouts, base_to + b.timeouts, rpld_to + r.timeouts);
        (sack_b, base_b, rpld_b) = (sack_b + f.bytes_delivered, base_b + b.bytes_delivered, rpld_b + r.bytes_delivered);
    }
    eprintln!(
        "sack {sack_to} timeouts {sack_b} B; sack-cautious {base_to} / {base_b} B; sack+rpld {rpld_to} / {rpld_b} B"
    );
    assert!(base_to < sack_to && base_b > sack_b);
    // The detection is the only difference: within 2 % of each other here.
    assert!((rpld_b as f64 / base_b as f64 - 1.0).abs() < 0.02);
}
