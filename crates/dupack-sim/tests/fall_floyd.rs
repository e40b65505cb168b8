//! Fall & Floyd 1996, "Simulation-based comparisons of Tahoe, Reno and SACK
//! TCP", §3–§6: one to four packets dropped from one window, per variant.
//! The window is 20 segments; the drops hit data packets 41, 43, 45, 47
//! (1-based), sent when the window is steady at 20 segments.

mod common;

use dupack_sim::engine::sim::{TraceRecord, World};
use dupack_sim::tcp::sender::SenderEvent;
use dupack_sim::time::{ms, SimTime};

const MSS: u64 = 1000;
const DROPS: [u64; 4] = [41, 43, 45, 47];

struct Outcome {
    /// (time, segment index) of every retransmission.
    retransmits: Vec<(SimTime, u64)>,
    /// Segment indices that were dropped.
    dropped: Vec<u64>,
    fast_retransmits: u64,
    timeouts: u64,
    /// Instants at which cwnd was set to one segment after a fast retransmit (Tahoe) — read from events.
    events: Vec<SenderEvent>,
    completed: bool,
}

fn run(variant: &str, n_drops: usize) -> Outcome {
    let s = common::fall_floyd(variant, &DROPS[..n_drops]);
    let mut w = World::new(&s, 1).unwrap();
    w.trace_flow(0);
    let (_, done) = w.run_until(SimTime::ZERO + s.duration, true);
    let mut o = Outcome {
        retransmits: vec![],
        dropped: vec![],
        fast_retransmits: w.sender(0).stats().fast_retransmits,
        timeouts: w.sender(0).stats().timeouts,
        events: vec![],
        completed: done,
    };
    for r in w.trace() {
        match *r {
            TraceRecord::Send { at, seq, retransmit: true, .. } => o.retransmits.push((at, seq / MSS)),
            TraceRecord::Drop { seq, .. } => o.dropped.push(seq / MSS),
            TraceRecord::Sender { event, .. } => o.events.push(event),
            _ => {}
        }
    }
    assert_eq!(o.dropped.len(), n_drops, "{variant}: only the scripted drops happen");
    o
}

/// Round-trip time of the path for a full segment: 2·(100 + 0.1) ms of
/// propagation plus serialisation of 1040 B at 0.8 Mbps and 8 Mbps, and of the ACK.
const MIN_RTT_MS: u64 = 210;

#[test]
fn every_variant_completes_without_loss_and_without_retransmitting() {
    for v in ["tahoe", "reno", "newreno", "sack", "fack", "ecn-fack", "rfc6675", "rfc6675+prr", "vegas", "rack"] {
        let o = run(v, 0);
        assert!(o.completed, "{v}");
        assert!(o.retransmits.is_empty(), "{v}: {:?}", o.retransmits);
    }
}

#[test]
fn tahoe_slow_starts_after_each_loss_event() {
    for n in 1..=4 {
        let o = run("tahoe", n);
        assert!(o.completed);
        assert_eq!(o.fast_retransmits, 1, "{n} drops: one loss event");
        assert_eq!(o.timeouts, 0, "{n} drops");
        assert_eq!(o.retransmits[0].1, o.dropped[0], "the first retransmission is the first hole");
        if n == 1 {
            // The retransmission's ACK covers the whole window: nothing else is resent.
            assert_eq!(o.retransmits.len(), 1);
        } else {
            // cwnd = 1 after the fast retransmit: the next segment waits a round trip.
            assert!(o.retransmits[1].0 - o.retransmits[0].0 >= ms(MIN_RTT_MS), "{:?}", o.retransmits);
            // Go-back-N: Tahoe resends segments the receiver already had.
            assert!(o.retransmits.len() > n, "{n} drops: {:?}", o.retransmits);
        }
    }
}

#[test]
fn reno_recovers_one_drop_by_fast_recovery_alone() {
    let o = run("reno", 1);
    assert!(o.completed);
    assert_eq!((o.fast_retransmits, o.timeouts), (1, 0));
    assert_eq!(o.retransmits.iter().map(|r| r.1).collect::<Vec<_>>(), o.dropped);
    assert!(matches!(o.events[0], SenderEvent::FastRetransmit { ndup: 3, .. }));
}

#[test]
fn reno_needs_a_timeout_for_three_or_four_drops() {
    for n in [3, 4] {
        let o = run("reno", n);
        assert!(o.completed);
        assert!(o.timeouts >= 1, "{n} drops: Reno should time out; {:?}", o.events);
    }
}

#[test]
fn newreno_recovers_every_drop_without_a_timeout_one_per_rtt() {
    for n in 1..=4 {
        let o = run("newreno", n);
        assert!(o.completed);
        assert_eq!((o.fast_retransmits, o.timeouts), (1, 0), "{n} drops: {:?}", o.events);
        // Exactly the dropped segments are retransmitted, in order.
        assert_eq!(o.retransmits.iter().map(|r| r.1).collect::<Vec<_>>(), o.dropped, "{n} drops");
        // One retransmission per round trip: each waits for the partial ACK
        // of the previous one.
        for w in o.retransmits.windows(2) {
            assert!(w[1].0 - w[0].0 >= ms(MIN_RTT_MS), "{n} drops: {:?}", o.retransmits);
        }
    }
}

#[test]
fn sack_and_fack_recover_every_drop_without_a_timeout_within_one_rtt() {
    for (v, n) in ["sack", "fack"].into_iter().flat_map(|v| (1..=4).map(move |n| (v, n))) {
        let o = run(v, n);
        assert!(o.completed);
        assert_eq!((o.fast_retransmits, o.timeouts), (1, 0), "{v}, {n} drops: {:?}", o.events);
        assert_eq!(o.retransmits.iter().map(|r| r.1).collect::<Vec<_>>(), o.dropped, "{v}, {n} drops");
        let first = o.retransmits[0].0;
        let last = o.retransmits.last().unwrap().0;
        assert!(last - first < ms(MIN_RTT_MS), "{v}, {n} drops: all holes resent within one RTT: {:?}", o.retransmits);
    }
}

#[test]
fn first_round_trip_is_exact_to_the_nanosecond() {
    // Data: 1040 B at 8 Mbps (1.04 ms) + 0.1 ms, then at 0.8 Mbps (10.4 ms) + 100 ms.
    // ACK: 40 B at 0.8 Mbps (0.4 ms) + 100 ms, then at 8 Mbps (0.04 ms) + 0.1 ms.
    // The first ACK reaches the sender at 111.54 + 100.54 = 212.08 ms, and
    // slow start sends segments 1 and 2 at that instant.
    let s = common::fall_floyd("reno", &[]);
    let mut w = World::new(&s, 1).unwrap();
    w.trace_flow(0);
    w.run_until(SimTime::ZERO + ms(300), false);
    let sends: Vec<(u64, u64)> = w
        .trace()
        .iter()
        .filter_map(|r| if let TraceRecord::Send { at, seq, .. } = r { Some((at.as_nanos(), seq / MSS)) } else { None })
        .collect();
    assert_eq!(sends, vec![(0, 0), (212_080_000, 1), (212_080_000, 2)]);
}

#[test]
fn rfc6675_recovers_every_drop_without_a_timeout_and_retransmits_only_below_the_highest_sack() {
    for n in 1..=4 {
        let o = run("rfc6675", n);
        assert!(o.completed);
        assert_eq!((o.fast_retransmits, o.timeouts), (1, 0), "{n} drops: {:?}", o.events);
        let resent: Vec<u64> = o.retransmits.iter().map(|r| r.1).collect();
        assert!(o.dropped.iter().all(|d| resent.contains(d)), "{n} drops: {resent:?}");
        // The receive window (20 segments) blocks new data. NextSeg rule (3)
        // may then resend an unSACKed segment, but only one below the
        // highest SACKed octet (RFC 6675 §4, (1.b)); the segments above the
        // last SACK block were delivered and their ACKs are on the way, so
        // none of them goes twice. Rule (4) adds at most one rescue
        // retransmission per recovery.
        let spurious = resent.iter().filter(|s| !o.dropped.contains(s)).count();
        assert!(spurious <= 1, "{n} drops: {resent:?}, dropped {:?}", o.dropped);
        for d in &o.dropped {
            assert_eq!(resent.iter().filter(|s| *s == d).count(), 1, "{n} drops: {resent:?}");
        }
    }
}
