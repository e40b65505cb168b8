//! Same scenario + seed ⇒ bit-identical results; different seeds ⇒
//! different loss patterns; adding a flow does not move another flow's
//! loss draws.

mod common;

use dupack_sim::engine::sim::{TraceRecord, World};
use dupack_sim::scenario::model::*;
use dupack_sim::time::{ms, secs, SimDuration, SimTime};
use dupack_sim::{run, RunResult};

fn strip_wall(mut r: RunResult) -> RunResult {
    r.run.wall_time_s = 0.0;
    r
}

fn drops(s: &Scenario, seed: u64, flow: usize) -> Vec<u64> {
    let mut w = World::new(s, seed).unwrap();
    w.trace_flow(flow);
    w.run_until(SimTime::ZERO + s.duration, s.stop_when_done);
    w.trace().iter().filter_map(|r| if let TraceRecord::Drop { seq, .. } = r { Some(*seq) } else { None }).collect()
}

#[test]
fn same_seed_gives_identical_results() {
    for v in ["reno", "newreno", "sack", "tahoe"] {
        let s = common::lossy_path(v, 0.02, 2_000_000, ms(30), secs(60));
        let a = strip_wall(run(&s, 42).unwrap());
        let b = strip_wall(run(&s, 42).unwrap());
        assert_eq!(a, b, "{v}");
        assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
        assert!(a.flows[0].drops_error > 0);
    }
}

#[test]
fn different_seeds_give_different_loss_patterns() {
    let s = common::lossy_path("newreno", 0.02, 2_000_000, ms(30), secs(30));
    let a = drops(&s, 1, 0);
    let b = drops(&s, 2, 0);
    assert!(!a.is_empty() && !b.is_empty());
    assert_ne!(a, b);
}

/// Two senders into one fast bottleneck that loses 3 % of the data packets
/// crossing it. The bottleneck is shared, so the property rests on the
/// error model drawing from one stream per (link, flow): with one stream
/// per link, flow b's packets would consume draws and move a's losses.
fn two_senders(with_second: bool) -> Scenario {
    let tcp = TcpConfig { mss: 1000, ..TcpConfig::default() };
    let receiver = ReceiverConfig { window: 64_000, ..ReceiverConfig::default() };
    let mut flows =
        vec![FlowSpec { bytes: Some(500_000), ..common::flow("a", 0, 3, "newreno", tcp.clone(), receiver.clone()) }];
    if with_second {
        flows.push(FlowSpec { bytes: Some(500_000), ..common::flow("b", 1, 3, "newreno", tcp, receiver) });
    }
    let mut bottleneck = common::link("bottleneck", 2, 3, 1_000_000_000, ms(20), 1000);
    bottleneck.fwd_error = ErrorSpec { model: ErrorModelSpec::Bernoulli { p: 0.03 }, applies_to: PacketSelector::Data };
    Scenario {
        name: "two".into(),
        duration: secs(120),
        seed: 1,
        stop_when_done: true,
        tie_break: Default::default(),
        wire: Default::default(),
        nodes: vec![
            common::node("s0", NodeKind::Host),
            common::node("s1", NodeKind::Host),
            common::node("r", NodeKind::Router),
            common::node("sink", NodeKind::Host),
        ],
        links: vec![
            common::link("access0", 0, 2, 10_000_000, ms(5), 1000),
            common::link("access1", 1, 2, 10_000_000, ms(5), 1000),
            bottleneck,
        ],
        media: vec![],
        flows,
    }
}

#[test]
fn adding_a_flow_leaves_another_flows_losses_unchanged() {
    let alone = drops(&two_senders(false), 5, 0);
    let shared = drops(&two_senders(true), 5, 0);
    assert!(!alone.is_empty());
    assert_eq!(alone, shared, "flow a's losses moved when flow b was added");
}

#[test]
fn running_in_slices_gives_the_same_result() {
    let s = common::lossy_path("sack", 0.02, 2_000_000, ms(30), secs(60));
    let whole = strip_wall(run(&s, 3).unwrap());
    let mut w = World::new(&s, 3).unwrap();
    let mut slices = 0;
    let end = loop {
        slices += 1;
        if let Some(end) = w.run_events(SimTime::ZERO + s.duration, s.stop_when_done, 777) {
            break end;
        }
    };
    assert!(slices > 10);
    assert_eq!(end.0.as_secs_f64(), whole.run.sim_time_s);
    assert_eq!(w.sender(0).stats().segments_sent, whole.flows[0].segments_sent);
    assert_eq!(w.events(), whole.run.events);
    // An interrupted run says so instead of returning a partial result.
    let mut asked = 0;
    let e = dupack_sim::run_interruptible(&common::lossy_path("reno", 0.0, 100_000_000, ms(1), secs(600)), 1, || {
        asked += 1;
        true
    })
    .unwrap_err();
    assert_eq!(asked, 1);
    assert!(e.0.contains("interrupted"), "{e}");
}

#[test]
fn a_controlled_run_reports_progress_without_changing_the_result() {
    let s = common::lossy_path("sack", 0.0005, 100_000_000, ms(1), secs(20));
    let whole = strip_wall(run(&s, 3).unwrap());
    let mut seen: Vec<dupack_sim::Progress> = Vec::new();
    let (watched, _) = dupack_sim::run_controlled(&s, 3, Default::default(), |p| {
        seen.push(p);
        dupack_sim::Control::Continue
    })
    .unwrap();
    assert_eq!(strip_wall(watched), whole);
    assert!(seen.len() >= 2, "{} calls", seen.len());
    assert!(seen.windows(2).all(|w| w[0].now <= w[1].now && w[0].events < w[1].events), "{seen:?}");
    assert!(seen.last().unwrap().events < whole.run.events);
}

#[test]
fn a_stopped_run_gives_the_result_of_a_run_as_long_as_it_got() {
    let s = common::lossy_path("newreno", 0.0005, 100_000_000, ms(1), secs(20));
    let mut calls = 0;
    let (partial, _) = dupack_sim::run_controlled(&s, 3, Default::default(), |_| {
        calls += 1;
        if calls == 2 {
            dupack_sim::Control::Stop("wall_limit")
        } else {
            dupack_sim::Control::Continue
        }
    })
    .unwrap();
    assert_eq!(partial.run.end_reason, "wall_limit");
    assert!(partial.run.sim_time_s > 0.0 && partial.run.sim_time_s < 20.0, "{:?}", partial.run);
    // The same scenario run for exactly the simulated time reached.
    let mut short = s.clone();
    short.duration = SimDuration::from_nanos((partial.run.sim_time_s * 1e9).round() as u64);
    let mut same = strip_wall(run(&short, 3).unwrap());
    assert_eq!(same.run.sim_time_s, partial.run.sim_time_s);
    same.run.end_reason = "wall_limit".into();
    assert_eq!(strip_wall(partial), same);
}
