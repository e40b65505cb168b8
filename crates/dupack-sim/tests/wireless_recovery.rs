//! The wireless-recovery schemes of irw §4 over a link with NAK ARQ
//! (irw Fig. 2: fixed host → wired → base station → wireless → mobile):
//! I&RW revives the window when the link repairs a loss TCP also repaired,
//! DDA holds the third duplicate ACK while the link repairs, Eifel (RFC
//! 3522) undoes a timeout caused by a link-level delay spike.

mod common;

use common::WirelessPath;
use dupack_sim::engine::sim::run;
use dupack_sim::metrics::result::{FlowResult, RunResult};
use dupack_sim::scenario::model::Scenario;

/// 1000-byte segments and 40-byte ACKs as in irw §4; the wireless hop has
/// a 50-packet queue and loses data frames only.
fn scenario(variant: &str, wireless_extra: &str, receiver_extra: &str, tcp_extra: &str) -> Scenario {
    let p = WirelessPath {
        wireless: wireless_extra,
        variant,
        tcp: tcp_extra,
        window: "30000B",
        receiver: receiver_extra,
        flow: "bytes = \"1MB\"",
        ..Default::default()
    };
    p.build()
}

fn sum(rs: &[RunResult], f: impl Fn(&FlowResult) -> f64) -> f64 {
    rs.iter().map(|r| f(&r.flows[0])).sum()
}

fn seeds(s: &Scenario) -> Vec<RunResult> {
    (1..=8).map(|seed| run(s, seed).unwrap()).collect()
}

const LOSSY_ARQ_OOO: &str = "fwd_error = { model = \"bernoulli\", p = 0.05, applies_to = \"data\" }\n\
                             arq = { directions = \"fwd\", in_order = false }";

fn totals(variant: &str, receiver_extra: &str) -> (f64, f64, f64, f64) {
    let rs = seeds(&scenario(variant, LOSSY_ARQ_OOO, receiver_extra, ""));
    (
        sum(&rs, |f| f.goodput_kbps),
        sum(&rs, |f| f.fast_retransmits as f64),
        sum(&rs, |f| f.timeouts as f64),
        sum(&rs, |f| f.window_undos as f64),
    )
}

#[test]
fn irw_revives_the_window_when_the_link_repaired_the_loss_first() {
    // Out-of-order delivery lets duplicate ACKs reach the sender while the
    // link repairs the frame: Reno halves its window for nothing, I&RW
    // sees the original's tag in the ACK and revives it (irw §3, Fig. 4).
    let (reno_gp, reno_fr, _, reno_undos) = totals("reno", "");
    let (irw_gp, irw_fr, _, irw_undos) = totals("reno+irw", "");
    assert!(reno_fr > 50.0, "the setting makes Reno fast-retransmit: {reno_fr}");
    assert_eq!(reno_undos, 0.0);
    assert!(irw_undos >= 0.8 * irw_fr, "most reductions revived: {irw_undos} of {irw_fr}");
    assert!(irw_gp > 1.5 * reno_gp, "I&RW {irw_gp:.0} vs Reno {reno_gp:.0} kbit/s (sum of 8 seeds)");
}

#[test]
fn dda_holds_the_third_dupack_until_the_link_has_repaired_the_gap() {
    // d = "auto" = one round trip of the wireless hop (irw §4): long enough
    // for a NAK and the retransmitted frame.
    let (reno_gp, reno_fr, _, _) = totals("reno", "");
    let (dda_gp, dda_fr, dda_to, _) = totals("reno", "dda = \"auto\"");
    assert!(dda_fr < 0.25 * reno_fr, "DDA {dda_fr} vs {reno_fr} fast retransmits");
    assert_eq!(dda_to, 0.0);
    assert!(dda_gp > 1.5 * reno_gp, "DDA {dda_gp:.0} vs Reno {reno_gp:.0} kbit/s (sum of 8 seeds)");
}

#[test]
fn in_order_arq_hides_every_wireless_loss_from_reno() {
    let lossy =
        "fwd_error = { model = \"bernoulli\", p = 0.05, applies_to = \"data\" }\narq = { directions = \"fwd\" }";
    for r in seeds(&scenario("reno", lossy, "", "")) {
        let f = &r.flows[0];
        assert_eq!((f.fast_retransmits, f.timeouts, f.drops_error), (0, 0, 0), "seed {}", r.seed);
        assert!(r.links.iter().any(|l| l.link_retransmissions > 10));
    }
}

#[test]
fn eifel_undoes_the_timeout_a_delay_spike_causes() {
    let trace = outage_trace();
    let spike = format!("fwd_trace = {{ file = \"{}\" }}", trace.display());
    let tcp = "timestamps = true\nrto = { min = \"200ms\" }";
    let plain = run(&scenario("reno", &spike, "", tcp), 1).unwrap();
    let undo = run(&scenario("reno+undo", &spike, "", tcp), 1).unwrap();
    let _ = std::fs::remove_file(&trace);
    let (p, u) = (&plain.flows[0], &undo.flows[0]);
    for f in [p, u] {
        assert!(f.timeouts >= 1, "the 1.5 s outage outlasts the RTO");
        assert_eq!(f.drops_error + f.drops_queue, 0, "nothing was lost");
        assert!(f.spurious_retransmissions >= 1, "every retransmission was spurious");
    }
    assert_eq!(p.window_undos, 0);
    assert_eq!(u.window_undos, 1, "the ACK for the retransmitted data echoed the original's timestamp");
    // None: still "arbitrarily high", above any reduced value.
    let high = |t: Option<u64>| t.unwrap_or(u64::MAX);
    assert!(
        high(u.final_ssthresh) > high(p.final_ssthresh),
        "the halving was undone: ssthresh {:?} vs {:?}",
        u.final_ssthresh,
        p.final_ssthresh
    );
}

/// A wireless downlink that carries 2 Mbit/s (a 1500-byte opportunity
/// every 6 ms) but stops for 1.5 s at t = 2 s — a handoff, say — while its
/// queue keeps every packet: a pure delay spike, no loss.
fn outage_trace() -> std::path::PathBuf {
    let mut lines = Vec::new();
    let mut t = 6;
    while t <= 60_000 {
        if !(2000..3500).contains(&t) {
            lines.push(t.to_string());
        }
        t += 6;
    }
    let path = std::env::temp_dir().join(format!("dupack-outage-{}.trace", std::process::id()));
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}
