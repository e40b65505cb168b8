//! Frame-by-frame tests of the ARQ halves (irw §4).

use super::*;
use crate::time::ms;

fn spec() -> ArqSpec {
    ArqSpec {
        retry_limit: 2,
        nak_bytes: 16,
        in_order: true,
        nak_timeout: ms(10),
        window: None,
        discard: None,
        poll: true,
        fwd: true,
        rev: true,
    }
}

fn pkt(i: u64) -> Packet {
    Packet::test_segment(i, 0, i * 1000, 1000)
}

fn at(t: u64) -> SimTime {
    SimTime::ZERO + ms(t)
}

fn ids(out: &RxOutput) -> Vec<(u32, u64)> {
    out.deliver.iter().map(|(l, p)| (*l, p.id)).collect()
}

#[test]
fn frames_in_order_are_delivered_at_once_without_naks() {
    let mut a = Arq::new(&spec());
    let mut out = RxOutput::default();
    for i in 0..3 {
        let l = a.register(&pkt(i), at(0));
        assert_eq!(l, i as u32, "link numbers follow transmission order");
        a.on_frame(l, pkt(i), at(1), &mut out);
    }
    assert_eq!(ids(&out), vec![(0, 0), (1, 1), (2, 2)]);
    assert!(out.naks.is_empty() && out.given_up.is_empty());
    assert_eq!(a.poll_timeout(), None);
}

#[test]
fn a_gap_is_naked_once_and_later_frames_wait_for_the_repair() {
    let mut a = Arq::new(&spec());
    let mut out = RxOutput::default();
    for i in 0..4 {
        a.register(&pkt(i), at(0));
    }
    a.on_frame(0, pkt(0), at(1), &mut out);
    a.on_frame(2, pkt(2), at(2), &mut out);
    a.on_frame(3, pkt(3), at(3), &mut out);
    assert_eq!(out.naks, vec![1], "one NAK for the one missing frame, not one per later frame");
    assert_eq!(ids(&out), vec![(0, 0)], "in order: 2 and 3 are held behind the gap");
    assert_eq!(a.poll_timeout(), Some(at(12)), "NAK timer = 10 ms after the gap was seen");
    // The NAK reaches the sending half: frame 1 goes out again, once.
    let p = a.on_nak(1, at(4)).expect("retransmission");
    assert_eq!(p.id, 1);
    assert!(a.on_nak(1, at(4)).is_none(), "a second NAK while the first is queued is ignored");
    a.retransmission_started(1);
    a.on_frame(1, p, at(5), &mut out);
    assert_eq!(ids(&out), vec![(0, 0), (1, 1), (2, 2), (3, 3)]);
    assert_eq!(a.poll_timeout(), None);
    assert_eq!(a.stats.retransmissions, 1);
    assert_eq!(a.stats.naks, 1);
}

#[test]
fn out_of_order_mode_hands_frames_up_at_once() {
    let mut a = Arq::new(&ArqSpec { in_order: false, ..spec() });
    let mut out = RxOutput::default();
    for i in 0..3 {
        a.register(&pkt(i), at(0));
    }
    a.on_frame(0, pkt(0), at(1), &mut out);
    a.on_frame(2, pkt(2), at(2), &mut out);
    assert_eq!(ids(&out), vec![(0, 0), (2, 2)]);
    a.on_frame(1, pkt(1), at(3), &mut out);
    a.on_frame(2, pkt(2), at(4), &mut out);
    assert_eq!(ids(&out), vec![(0, 0), (2, 2), (1, 1)], "the repair is delivered, a duplicate is not");
    assert_eq!(a.stats.out_of_order, 1);
}

#[test]
fn a_frame_is_naked_retry_limit_times_then_given_up() {
    let mut a = Arq::new(&spec()); // retry_limit 2
    let mut out = RxOutput::default();
    for i in 0..3 {
        a.register(&pkt(i), at(0));
    }
    a.on_frame(0, pkt(0), at(1), &mut out);
    a.on_frame(2, pkt(2), at(2), &mut out);
    assert_eq!(out.naks, vec![1]);
    assert!(a.on_nak(1, at(3)).is_some());
    a.retransmission_started(1); // ... and this copy is lost too
    a.on_timer(at(12), &mut out);
    assert_eq!(out.naks, vec![1, 1], "second NAK after nak_timeout");
    assert!(a.on_nak(1, at(13)).is_some(), "second (last) retransmission");
    a.retransmission_started(1);
    assert!(a.on_nak(1, at(14)).is_none(), "a third retransmission would exceed retry_limit");
    a.on_timer(at(22), &mut out);
    assert_eq!(out.naks, vec![1, 1], "no third NAK");
    assert_eq!(out.given_up, vec![1]);
    assert_eq!(ids(&out), vec![(0, 0), (2, 2)], "the held frame goes up once the gap is given up");
    assert_eq!(a.resolve(1).map(|p| p.id), Some(1), "the sending half still had the packet");
    assert_eq!(a.stats.given_up, 1);
}

#[test]
fn retry_limit_zero_gives_up_a_gap_at_once() {
    let mut a = Arq::new(&ArqSpec { retry_limit: 0, ..spec() });
    let mut out = RxOutput::default();
    a.on_frame(1, pkt(1), at(1), &mut out);
    assert!(out.naks.is_empty());
    assert_eq!(out.given_up, vec![0]);
    assert_eq!(ids(&out), vec![(1, 1)]);
}

#[test]
fn a_poll_reveals_a_lost_last_frame() {
    let mut a = Arq::new(&spec());
    let mut out = RxOutput::default();
    a.register(&pkt(0), at(0));
    a.register(&pkt(1), at(0));
    assert_eq!(a.take_poll(), Some(LinkCtl::Poll(2)));
    assert_eq!(a.take_poll(), None, "one poll per busy period");
    a.on_frame(0, pkt(0), at(1), &mut out);
    a.on_poll(2, at(2), &mut out);
    assert_eq!(out.naks, vec![1]);
    a.on_poll(2, at(3), &mut out);
    assert_eq!(out.naks, vec![1], "a repeated poll does not NAK again");
}

#[test]
fn no_poll_when_disabled() {
    let mut a = Arq::new(&ArqSpec { poll: false, ..spec() });
    a.register(&pkt(0), at(0));
    assert_eq!(a.take_poll(), None);
}

#[test]
fn the_window_closes_on_unresolved_frames_and_reopens_on_resolution() {
    let mut a = Arq::new(&ArqSpec { window: Some(2), ..spec() });
    a.register(&pkt(0), at(0));
    assert!(a.window_open());
    a.register(&pkt(1), at(0));
    assert!(!a.window_open());
    a.resolve(1);
    assert!(!a.window_open(), "frame 0 is still unresolved");
    a.resolve(0);
    assert!(a.window_open());
}

#[test]
fn the_discard_timer_stops_retransmissions_of_old_frames() {
    let mut a = Arq::new(&ArqSpec { discard: Some(ms(100)), retry_limit: 10, ..spec() });
    a.register(&pkt(0), at(0));
    assert!(a.on_nak(0, at(50)).is_some());
    a.retransmission_started(0);
    assert!(a.on_nak(0, at(100)).is_none(), "older than the discard timer");
}

#[test]
fn the_receive_window_gives_up_frames_too_far_behind() {
    let mut a = Arq::new(&ArqSpec { window: Some(2), retry_limit: 5, ..spec() });
    let mut out = RxOutput::default();
    a.on_frame(1, pkt(1), at(1), &mut out);
    assert_eq!(out.naks, vec![0]);
    assert!(out.given_up.is_empty() && out.deliver.is_empty(), "1 is inside the window [0, 2)");
    a.on_frame(2, pkt(2), at(2), &mut out);
    assert_eq!(out.given_up, vec![0], "frame 2 moves the window past frame 0");
    assert_eq!(ids(&out), vec![(1, 1), (2, 2)]);
}
