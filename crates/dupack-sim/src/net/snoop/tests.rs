//! Segment-by-segment tests of the Snoop agent (Balakrishnan et al. 1995 §3).

use super::*;
use crate::net::packet::Ecn;
use crate::tcp::segment::TcpSegment;
use crate::time::ms;

const MSS: u64 = 1000;

fn spec() -> SnoopSpec {
    SnoopSpec { min_timeout: ms(40), initial_timeout: ms(100), local_rexmit: Default::default() }
}

fn data(i: u64) -> Packet {
    Packet {
        id: i,
        flow: 0,
        src: 0,
        dst: 2,
        size: 1040,
        ecn: Ecn::NotEct,
        created: SimTime::ZERO,
        seg: TcpSegment { seq: i * MSS, len: MSS as u32, ..TcpSegment::default() },
    }
}

fn ack(next: u64) -> Packet {
    Packet { src: 2, dst: 0, size: 40, seg: TcpSegment { ack: next * MSS, ..TcpSegment::default() }, ..data(0) }
}

fn at(t: u64) -> SimTime {
    SimTime::ZERO + ms(t)
}

fn seq_of(v: AckVerdict) -> Option<u64> {
    match v {
        AckVerdict::Retransmit(p) => Some(p.seg.seq / MSS),
        _ => None,
    }
}

#[test]
fn new_acks_pass_and_clean_the_cache() {
    let mut s = Snoop::new(&spec());
    for i in 0..3 {
        s.on_data(&data(i), at(0));
    }
    assert!(matches!(s.on_ack(&ack(2), at(20)), AckVerdict::Forward));
    assert_eq!(s.flows[&0].cache.len(), 1);
    assert!(matches!(s.on_ack(&ack(1), at(21)), AckVerdict::Discard), "an older ACK is discarded");
}

#[test]
fn the_first_dupack_retransmits_locally_and_dupacks_are_hidden() {
    let mut s = Snoop::new(&spec());
    for i in 0..5 {
        s.on_data(&data(i), at(0));
    }
    assert!(matches!(s.on_ack(&ack(1), at(20)), AckVerdict::Forward));
    // Segment 1 was lost on the wireless hop: segments 2, 3, 4 bring dupacks.
    assert_eq!(seq_of(s.on_ack(&ack(1), at(21))), Some(1), "local retransmission of the hole");
    assert!(matches!(s.on_ack(&ack(1), at(22)), AckVerdict::Discard));
    assert!(matches!(s.on_ack(&ack(1), at(23)), AckVerdict::Discard));
    assert_eq!(s.stats.dupacks_suppressed, 3);
    assert_eq!(s.stats.dupack_retransmissions, 1);
    assert!(matches!(s.on_ack(&ack(5), at(40)), AckVerdict::Forward), "the repair's ACK goes to the sender");
    assert!(s.flows[&0].cache.is_empty());
}

#[test]
fn dupacks_for_a_segment_the_sender_retransmitted_go_to_the_sender() {
    let mut s = Snoop::new(&spec());
    for i in 0..4 {
        s.on_data(&data(i), at(0));
    }
    s.on_ack(&ack(1), at(20));
    s.on_data(&data(1), at(30)); // the sender's own retransmission passes the agent
    assert!(matches!(s.on_ack(&ack(1), at(31)), AckVerdict::Forward));
    assert_eq!(s.stats.dupacks_suppressed, 0);
}

#[test]
fn a_dupack_for_an_uncached_segment_is_forwarded() {
    let mut s = Snoop::new(&spec());
    s.on_data(&data(0), at(0));
    s.on_data(&data(2), at(0)); // 1 never reached the agent (lost upstream)
    s.on_ack(&ack(1), at(20));
    assert!(matches!(s.on_ack(&ack(1), at(21)), AckVerdict::Forward));
}

#[test]
fn the_local_timer_retransmits_the_first_unacknowledged_segment_with_backoff() {
    let mut s = Snoop::new(&spec());
    s.on_data(&data(0), at(0));
    assert_eq!(s.deadline(0), Some(at(100)), "initial_timeout before any sample");
    assert!(s.on_timer(0, at(99)).is_none(), "not yet");
    assert_eq!(s.on_timer(0, at(100)).map(|p| p.seg.seq), Some(0));
    assert_eq!(s.deadline(0), Some(at(300)), "doubled");
    assert_eq!(s.stats.timeout_retransmissions, 1);
    s.on_ack(&ack(1), at(310));
    assert_eq!(s.deadline(0), None, "nothing cached: the timer stops");
}

#[test]
fn rtt_samples_set_the_timer_but_not_below_min_timeout() {
    let mut s = Snoop::new(&spec());
    s.on_data(&data(0), at(0));
    s.on_data(&data(1), at(0));
    s.on_ack(&ack(1), at(10)); // sample 10 ms: srtt 10, rttvar 5 -> 30 ms < 40 ms floor
    assert_eq!(s.deadline(0), Some(at(50)));
}

#[test]
fn the_ack_that_ends_a_local_repair_gives_no_rtt_sample() {
    let mut s = Snoop::new(&spec());
    for i in 0..6 {
        s.on_data(&data(i), at(0));
    }
    s.on_ack(&ack(1), at(10)); // sample 10 ms: srtt 10, rttvar 5
    let before = s.flows[&0].rto.srtt();
    // Segment 1 lost; 2..5 arrive and bring dupacks; the local repair of 1
    // is ACKed 400 ms after segment 5 was forwarded. That ACK covers a
    // retransmitted segment: timing segment 5 by it would say 400 ms.
    assert_eq!(seq_of(s.on_ack(&ack(1), at(12))), Some(1));
    s.on_ack(&ack(1), at(13));
    assert!(matches!(s.on_ack(&ack(6), at(400)), AckVerdict::Forward));
    assert_eq!(s.flows[&0].rto.srtt(), before, "no sample from the repair's ACK");
    // The next clean ACK samples again.
    s.on_data(&data(6), at(400));
    s.on_ack(&ack(7), at(420));
    assert_ne!(s.flows[&0].rto.srtt(), before);
}
