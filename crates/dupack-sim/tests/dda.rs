//! Delayed Duplicate ACKs through the engine: the receiver's hold timer is
//! scheduled with the world's endpoint timers, and the held duplicate ACKs
//! reach the sender exactly `d` late. Fall & Floyd's path (tests/common),
//! Reno, one drop (data packet 41).

mod common;

use dupack_sim::engine::sim::{TraceRecord, World};
use dupack_sim::time::{ms, SimTime};

struct Outcome {
    /// Times of the retransmissions.
    retransmits: Vec<SimTime>,
    fast_retransmits: u64,
    timeouts: u64,
    delayed: u64,
    cancelled: u64,
    dupacks_sent: u64,
    completed: bool,
}

fn run(dda_ms: Option<u64>) -> Outcome {
    let mut s = common::fall_floyd("reno", &[41]);
    s.flows[0].receiver.dda = dda_ms.map(ms);
    let mut w = World::new(&s, 1).unwrap();
    w.trace_flow(0);
    let (_, completed) = w.run_until(SimTime::ZERO + s.duration, true);
    let retransmits = w
        .trace()
        .iter()
        .filter_map(|r| match *r {
            TraceRecord::Send { at, retransmit: true, .. } => Some(at),
            _ => None,
        })
        .collect();
    let (tx, rx) = (w.sender(0).stats(), w.receiver(0).stats());
    Outcome {
        retransmits,
        fast_retransmits: tx.fast_retransmits,
        timeouts: tx.timeouts,
        delayed: rx.dupacks_delayed,
        cancelled: rx.dupacks_cancelled,
        dupacks_sent: rx.dupacks_sent,
        completed,
    }
}

#[test]
fn held_dupacks_delay_fast_retransmit_by_exactly_d() {
    let off = run(None);
    let on = run(Some(100));
    for o in [&off, &on] {
        assert!(o.completed);
        assert_eq!((o.fast_retransmits, o.timeouts, o.retransmits.len()), (1, 0, 1));
        assert_eq!(o.cancelled, 0, "nothing repairs the hole before the sender does");
    }
    assert_eq!(off.delayed, 0);
    // Every duplicate after the second waited; all were sent in the end.
    assert!(on.delayed > 0);
    assert_eq!(on.dupacks_sent, off.dupacks_sent);
    assert_eq!(on.retransmits[0] - off.retransmits[0], ms(100));
}
