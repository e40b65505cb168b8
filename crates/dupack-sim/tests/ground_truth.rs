//! Ground-truth metrics: the simulator knows which retransmissions were
//! needed, which were lost, and which timeouts were wasted (metrics::truth).

mod common;

use dupack_sim::run;
use dupack_sim::scenario::model::*;
use dupack_sim::time::{ms, secs};
use dupack_sim::FlowResult;

/// Three segments over one link with a window of three: the fall-through
/// case of efr §4.3, where a loss can bring at most two dupacks.
fn three_segments(variant: &str, data_drops: &[u64], ack_drops: &[u64]) -> FlowResult {
    let mut s = common::lossy_path(variant, 0.0, 1_000_000, ms(20), secs(60));
    s.flows[0].bytes = Some(3000);
    s.flows[0].tcp.initial_window = 3;
    s.flows[0].receiver.window = 3000;
    let list = |packets: &[u64], applies_to| ErrorSpec {
        model: if packets.is_empty() {
            ErrorModelSpec::None
        } else {
            ErrorModelSpec::DropList { flow: 0, packets: packets.to_vec() }
        },
        applies_to,
    };
    s.links[1].fwd_error = list(data_drops, PacketSelector::Data);
    s.links[1].rev_error = list(ack_drops, PacketSelector::Acks);
    run(&s, 1).unwrap().flows.remove(0)
}

#[test]
fn a_timeout_with_too_small_a_flight_is_wasted() {
    let reno = three_segments("reno", &[1], &[]);
    assert_eq!((reno.timeouts, reno.wasted_timeouts), (1, 1));
    assert_eq!(reno.ndup_at_timeout, [0, 0, 1, 0]);
    assert_eq!(reno.spurious_retransmissions, 0);
    // From the expiry to the ACK of the retransmission: one round trip (~42 ms).
    assert!(reno.backoff_time_s > 0.04 && reno.backoff_time_s < 0.1, "{}", reno.backoff_time_s);
    // EFR retransmits on the first dupack instead: no timeout, nothing wasted.
    let efr = three_segments("reno+efr", &[1], &[]);
    assert_eq!((efr.timeouts, efr.wasted_timeouts, efr.fast_retransmits), (0, 0, 1));
    assert_eq!((efr.false_fast_retransmits, efr.spurious_retransmissions), (0, 0));
    assert!(efr.recovery_time_s > 0.0);
    assert_eq!(efr.fr_to_ratio, None);
}

#[test]
fn losing_the_retransmission_too_is_counted() {
    // Data packets 1 (segment 0) and 4 (its retransmission) are dropped.
    let f = three_segments("reno", &[1, 4], &[]);
    assert_eq!(f.lost_retransmissions, 1);
    assert_eq!(f.timeouts, 2);
    assert_eq!(f.timeout_episodes, 1);
    assert_eq!(f.wasted_timeouts, 1, "only the first expiry of an episode is judged");
    assert_eq!(f.bytes_delivered, 3000);
}

#[test]
fn a_timeout_caused_by_lost_acks_retransmits_spuriously_and_is_not_wasted() {
    // All three ACKs are lost: the data arrived, the sender times out anyway.
    let f = three_segments("reno", &[], &[1, 2, 3]);
    assert_eq!(f.timeouts, 1);
    assert_eq!(f.wasted_timeouts, 0, "the segment was not lost");
    assert_eq!(f.spurious_retransmissions, 1);
    assert_eq!(f.lost_retransmissions, 0);
}

#[test]
fn a_needed_fast_retransmit_is_neither_false_nor_spurious() {
    let s = common::fall_floyd("newreno", &[41]);
    let f = run(&s, 1).unwrap().flows.remove(0);
    assert_eq!((f.fast_retransmits, f.false_fast_retransmits, f.spurious_retransmissions), (1, 0, 0));
    assert!(f.recovery_time_s > 0.2 && f.recovery_time_s < 0.5, "about one RTT: {}", f.recovery_time_s);
}

#[test]
fn eifel_cannot_undo_a_timeout_whose_acks_were_all_lost() {
    // Every ACK of the flight is lost: the only ACK after the timeout is the
    // one for the retransmitted duplicate, and RFC 7323 §4.3 makes it echo
    // the retransmission's timestamp, so Eifel (RFC 3522) sees a genuine
    // retransmission. Ground truth knows better: the retransmission was
    // spurious. (Eifel needs the original ACKs to arrive late, not be lost.)
    let mut s = common::lossy_path("reno+undo", 0.0, 1_000_000, ms(20), secs(60));
    s.flows[0].bytes = Some(3000);
    s.flows[0].tcp.initial_window = 3;
    s.flows[0].tcp.timestamps = true;
    s.flows[0].receiver.window = 3000;
    s.links[1].rev_error = ErrorSpec {
        model: ErrorModelSpec::DropList { flow: 0, packets: vec![1, 2, 3] },
        applies_to: PacketSelector::Acks,
    };
    let f = run(&s, 1).unwrap().flows.remove(0);
    assert_eq!((f.timeouts, f.spurious_retransmissions), (1, 1));
    assert_eq!(f.window_undos, 0);
}

#[test]
fn dsack_undoes_the_spurious_timeout_that_eifel_cannot() {
    // The same lost-ACK case: the retransmission arrives as a duplicate and
    // the receiver reports it in a D-SACK block (RFC 2883); every
    // retransmission of the episode is reported, so the reduction is undone
    // (RFC 3708).
    let mut s = common::lossy_path("sack+undo", 0.0, 1_000_000, ms(20), secs(60));
    s.flows[0].bytes = Some(3000);
    s.flows[0].tcp.initial_window = 3;
    s.flows[0].tcp.undo_evidence = UndoEvidence::Dsack;
    s.flows[0].receiver.window = 3000;
    s.flows[0].receiver.dsack = true;
    s.links[1].rev_error = ErrorSpec {
        model: ErrorModelSpec::DropList { flow: 0, packets: vec![1, 2, 3] },
        applies_to: PacketSelector::Acks,
    };
    let f = run(&s, 1).unwrap().flows.remove(0);
    assert_eq!((f.timeouts, f.spurious_retransmissions), (1, 1));
    assert_eq!(f.window_undos, 1);
    // Without D-SACK from the receiver nothing is undone.
    s.flows[0].receiver.dsack = false;
    assert_eq!(run(&s, 1).unwrap().flows[0].window_undos, 0);
}
