//! CUBIC (RFC 9438) in the congestion-control slot: it (and every other
//! controller) composes with every loss recovery, reduces by β = 0.7, and on a long fat path grows back to
//! the window of the last loss faster than Reno's one segment per RTT.

mod common;

use dupack_sim::observe::Observe;
use dupack_sim::scenario::model::*;
use dupack_sim::tcp::variant::{parse_variant, Base};
use dupack_sim::time::{ms, secs};
use dupack_sim::{run, run_observed};

#[test]
fn every_controller_composes_with_every_recovery_and_extension_set() {
    let mut n = 0;
    for cc in ["cubic", "vegas", "reno"] {
        for (base, b) in Base::ALL {
            if b == Base::Vegas && cc == "vegas" {
                continue; // Vegas's own controller is its default: `vegas` itself
            }
            for exts in ["", "+lt", "+efr", "+ecn", "+irw", "+prr", "+rpld", "+eplr+lt"] {
                let name = format!("{base}{exts}+cc={cc}");
                let Ok(spec) = parse_variant(&name) else { continue };
                n += 1;
                let mut s = common::lossy_path(&name, 0.03, 2_000_000, ms(20), secs(3000));
                s.flows[0].bytes = Some(200_000);
                s.links[1].rev_error =
                    ErrorSpec { model: ErrorModelSpec::Bernoulli { p: 0.02 }, applies_to: PacketSelector::Acks };
                let r = run(&s, n).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(r.flows[0].bytes_delivered, 200_000, "{name}");
                assert_eq!(spec.cc.name(), cc, "{name}");
            }
        }
    }
    assert!(n >= 60, "{n} compositions");
}

/// Time series of one run: (time, value) of `var` of flow f0.
fn series(s: &Scenario, var: &str) -> (dupack_sim::RunResult, Vec<(f64, f64)>) {
    let obs = Observe { series_flows: vec![0], ..Observe::default() };
    let (r, o) = run_observed(s, 1, obs, || false).expect("run");
    let v = o.series.unwrap().rows().filter(|x| x.2 == var).map(|x| (x.0.as_secs_f64(), x.3)).collect();
    (r, v)
}

/// A 20 Mbit/s path with 100 ms RTT (a BDP of 250 segments) and a drop-tail
/// queue of 100 packets: the losses are the queue's.
fn long_fat(variant: &str) -> Scenario {
    let mut s = common::lossy_path(variant, 0.0, 20_000_000, ms(49), secs(60));
    s.links[1].queue = QueueSpec::DropTail { limit: QueueLimit::Packets(100) };
    s
}

#[test]
fn a_loss_reduces_the_window_by_beta_cubic() {
    // RFC 9438 §4.6: ssthresh = 0.7 · FlightSize (the rule of tcp.loss_ssthresh,
    // with β for ½); Reno halves.
    let (r, ss) = series(&long_fat("newreno+cc=cubic"), "ssthresh");
    let (_, flight) = series(&long_fat("newreno+cc=cubic"), "flight");
    assert!(r.flows[0].fast_retransmits > 0);
    let (t0, first) = ss[0];
    // The FlightSize just before the first reduction.
    let before = flight.iter().rev().find(|&&(t, _)| t < t0).map(|&(_, f)| f).unwrap();
    let want = (before * 0.7).floor();
    assert!((first - want).abs() <= 1000.0, "ssthresh {first}, 0.7·flight {want}");
    let (_, ss_reno) = series(&long_fat("newreno"), "ssthresh");
    let (_, flight_reno) = series(&long_fat("newreno"), "flight");
    let before = flight_reno.iter().rev().find(|&&(t, _)| t < ss_reno[0].0).map(|&(_, f)| f).unwrap();
    assert!((ss_reno[0].1 - (before / 2.0).floor()).abs() <= 1000.0);
}

#[test]
fn cubic_fills_a_long_fat_path_better_than_reno() {
    // SACK recovery for both (NewReno's one hole per RTT turns the slow-start
    // overshoot into timeouts, whatever the controller).
    let reno = run(&long_fat("sack"), 1).unwrap();
    let cubic = run(&long_fat("sack+cc=cubic"), 1).unwrap();
    let (g_reno, g_cubic) = (reno.flows[0].goodput_kbps, cubic.flows[0].goodput_kbps);
    // Reno climbs back from half the window at one segment per RTT; CUBIC
    // from 0.7 of it, along the cubic function.
    assert!(g_cubic > 1.05 * g_reno, "cubic {g_cubic:.0} kbit/s, reno {g_reno:.0} kbit/s");
    assert!(g_cubic > 0.9 * 20_000.0, "cubic uses the path: {g_cubic:.0} kbit/s");
}

#[test]
fn between_losses_the_window_is_concave_then_convex_around_w_max() {
    // The cubic shape (RFC 9438 Fig. 1): after a reduction the growth per
    // half second falls as cwnd nears the old maximum, almost stops there,
    // then rises again past it.
    let (_, cwnd) = series(&long_fat("sack+cc=cubic"), "cwnd");
    let (_, ss) = series(&long_fat("sack+cc=cubic"), "ssthresh");
    // The longest epoch after slow start's overshoot.
    let (t0, t1) = ss
        .windows(2)
        .map(|w| (w[0].0, w[1].0))
        .filter(|&(a, _)| a > 3.0)
        .max_by(|a, b| (a.1 - a.0).total_cmp(&(b.1 - b.0)))
        .expect("several losses");
    assert!(t1 - t0 > 4.0, "an epoch of {:.1} s", t1 - t0);
    let at = |t: f64| cwnd.iter().rev().find(|&&(x, _)| x <= t).map(|&(_, c)| c).unwrap();
    let rates: Vec<f64> =
        (0..).map(|i| t0 + 0.3 + 0.5 * i as f64).take_while(|&t| t + 1.0 < t1).map(|t| at(t + 0.5) - at(t)).collect();
    let (min_i, &min) = rates.iter().enumerate().min_by(|a, b| a.1.total_cmp(b.1)).unwrap();
    assert!(min_i > 1 && min_i + 2 < rates.len(), "slowest growth inside the epoch: {rates:?}");
    assert!(min < 0.1 * rates[0] && min < 0.1 * rates[rates.len() - 1], "a plateau at W_max: {rates:?}");
    assert!(rates[..min_i].windows(2).all(|w| w[0] >= w[1]), "concave: {rates:?}");
    assert!(rates[min_i..].windows(2).all(|w| w[0] <= w[1]), "convex: {rates:?}");
}
