//! Small windows over a lossy link, at scenario level: Reno loses time to
//! wasted timeouts (fewer than three dupacks could ever arrive, efr §4.3).
//! EFR (Tamura et al. 1998) turns those into fast retransmits (efr §6.1,
//! Fig. 16–17); Limited Transmit (RFC 3042) gets the missing dupacks by
//! sending new data.

mod common;

use dupack_sim::run;
use dupack_sim::time::{ms, secs};

struct Totals {
    timeouts: u64,
    fast_retransmits: u64,
    ndup: [u64; 4],
    delivered: u64,
}

fn totals(variant: &str) -> Totals {
    let mut t = Totals { timeouts: 0, fast_retransmits: 0, ndup: [0; 4], delivered: 0 };
    for seed in 1..=5 {
        let mut s = common::lossy_path(variant, 0.03, 2_000_000, ms(10), secs(120));
        // A tiny window, as on the paper's shared WaveLAN (efr §4.3, Fig. 7).
        s.flows[0].receiver.window = 4 * 1000;
        let f = run(&s, seed).unwrap().flows.remove(0);
        t.timeouts += f.timeouts;
        t.fast_retransmits += f.fast_retransmits;
        t.delivered += f.bytes_delivered;
        for i in 0..4 {
            t.ndup[i] += f.ndup_at_timeout[i];
        }
    }
    t
}

#[test]
fn efr_turns_wasted_timeouts_into_fast_retransmits() {
    let reno = totals("reno");
    let efr = totals("reno+efr");
    eprintln!(
        "reno: TO {} FR {} N_dup {:?} bytes {}; efr: TO {} FR {} N_dup {:?} bytes {}",
        reno.timeouts,
        reno.fast_retransmits,
        reno.ndup,
        reno.delivered,
        efr.timeouts,
        efr.fast_retransmits,
        efr.ndup,
        efr.delivered
    );
    // Reno's timeouts with one or two dupacks are the wasted ones.
    assert!(reno.ndup[1] + reno.ndup[2] > 20, "{:?}", reno.ndup);
    // As efr Fig. 17: N_dup(2) nearly vanishes, N_dup(1) shrinks (what is
    // left are windows that lost two segments, or the dupack itself).
    assert!(efr.ndup[2] * 4 < reno.ndup[2], "{:?} vs {:?}", efr.ndup, reno.ndup);
    assert!(efr.ndup[1] < reno.ndup[1], "{:?} vs {:?}", efr.ndup, reno.ndup);
    assert!(efr.ndup[1] + efr.ndup[2] < (reno.ndup[1] + reno.ndup[2]) / 2, "{:?} vs {:?}", efr.ndup, reno.ndup);
    assert!(efr.timeouts < reno.timeouts);
    assert!(efr.fast_retransmits > reno.fast_retransmits);
    assert!(efr.delivered > reno.delivered, "fewer timeouts, more data");
}

#[test]
fn limited_transmit_also_cuts_the_wasted_timeouts() {
    let reno = totals("reno");
    let lt = totals("reno+lt");
    eprintln!("reno+lt: TO {} FR {} N_dup {:?} bytes {}", lt.timeouts, lt.fast_retransmits, lt.ndup, lt.delivered);
    assert!(lt.ndup[1] + lt.ndup[2] < (reno.ndup[1] + reno.ndup[2]) / 2, "{:?} vs {:?}", lt.ndup, reno.ndup);
    assert!(lt.timeouts < reno.timeouts);
    assert!(lt.delivered > reno.delivered);
}

/// The eplr §IV setting in miniature: 1 MB downloads with delayed ACKs, an
/// 8760-byte receive window (6 segments of 1460 B) and uniform IP drops.
fn eplr_setting(variant: &str, p: f64, seed: u64) -> dupack_sim::FlowResult {
    use dupack_sim::scenario::model::AckMode;
    let mut s = common::lossy_path(variant, p, 384_000, ms(100), secs(3600));
    s.flows[0].tcp.mss = 1460;
    s.flows[0].bytes = Some(1_000_000);
    s.flows[0].receiver.window = 8760;
    s.flows[0].receiver.ack = AckMode::Delayed { timeout: ms(200), every: 2 };
    run(&s, seed).unwrap().flows.remove(0)
}

#[test]
fn eplr_modified_reno_times_out_less_than_reno_at_4_to_10_percent_drops() {
    for p in [0.04, 0.06, 0.08, 0.10] {
        let (mut reno_to, mut eplr_to, mut reno_t, mut eplr_t) = (0, 0, 0.0, 0.0);
        for seed in 1..=10 {
            let r = eplr_setting("reno", p, seed);
            let e = eplr_setting("reno+eplr", p, seed);
            reno_to += r.timeouts;
            eplr_to += e.timeouts;
            reno_t += r.completion_time_s.unwrap();
            eplr_t += e.completion_time_s.unwrap();
        }
        eprintln!("p={p}: timeouts reno {reno_to} eplr {eplr_to}; download time reno {reno_t:.1} s eplr {eplr_t:.1} s");
        assert!(eplr_to < reno_to, "p = {p}");
        assert!(eplr_t < reno_t, "p = {p}: Modified Reno downloads faster (eplr Table IV)");
    }
}
