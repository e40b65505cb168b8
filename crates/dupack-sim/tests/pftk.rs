//! Steady-state throughput of one long Reno flow over a link with
//! Bernoulli loss, against the PFTK model: J. Padhye, V. Firoiu, D. Towsley,
//! J. Kurose, "Modeling TCP Throughput: A Simple Model and its Empirical
//! Validation", SIGCOMM 1998, eq. (33), the "full model" approximation:
//!
//!   B(p) = min( Wmax/RTT,
//!               1 / ( RTT·sqrt(2bp/3) + T0·min(1, 3·sqrt(3bp/8))·p·(1 + 32p²) ) )
//!
//! in packets per second, with b the packets acknowledged per ACK.

mod common;

use dupack_sim::run;
use dupack_sim::time::{ms, secs};

fn pftk_pkts_per_s(p: f64, rtt: f64, t0: f64, b: f64, wmax: f64) -> f64 {
    let denom =
        rtt * (2.0 * b * p / 3.0).sqrt() + t0 * (3.0 * (3.0 * b * p / 8.0).sqrt()).min(1.0) * p * (1.0 + 32.0 * p * p);
    (wmax / rtt).min(1.0 / denom)
}

#[test]
fn reno_throughput_matches_pftk_within_25_percent() {
    for p in [0.005, 0.01, 0.02, 0.05] {
        // 10 Mbps, 50 ms one way: RTT ≈ 104 ms with negligible queueing.
        let s = common::lossy_path("reno", p, 10_000_000, ms(50), secs(600));
        let r = run(&s, 7).unwrap();
        let f = &r.flows[0];
        let rtt = f.srtt_s.expect("an RTT sample");
        // RTO = max(1 s minimum, SRTT + 4·RTTVAR) = 1 s here (RFC 6298 §2.4).
        let t0 = 1.0;
        let model = pftk_pkts_per_s(p, rtt, t0, 1.0, 1e9);
        let measured = f.bytes_delivered as f64 / 1000.0 / r.run.sim_time_s;
        let ratio = measured / model;
        eprintln!("p={p}: measured {measured:.1} pkt/s, PFTK {model:.1} pkt/s, ratio {ratio:.3}, rtt {rtt:.4}, timeouts {}, FR {}", f.timeouts, f.fast_retransmits);
        assert!((0.75..=1.25).contains(&ratio), "p = {p}: measured {measured:.1} vs PFTK {model:.1} pkt/s");
    }
}
