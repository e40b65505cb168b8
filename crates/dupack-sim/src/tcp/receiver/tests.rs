//! Packet-by-packet receiver tests: one event per line. Segment `k` carries
//! bytes `[k·MSS, (k+1)·MSS)` and tag `100 + k`; ACK and SACK expectations
//! are written in segment numbers.

use super::*;
use crate::time::{at_ms, ms};

const MSS: u32 = 1000;
const M: u64 = MSS as u64;

fn cfg(ack: AckMode, sack: bool, max_sack_blocks: u32) -> ReceiverConfig {
    ReceiverConfig {
        window: 64 * M,
        ack,
        sack,
        max_sack_blocks,
        dsack: false,
        dda: None,
        sack_option_size: SackOptionSize::Rfc2018,
    }
}

fn delayed() -> AckMode {
    AckMode::Delayed { timeout: ms(200), every: 2 }
}

struct H {
    rx: Receiver,
    now: SimTime,
}

impl H {
    fn new(c: ReceiverConfig) -> Self {
        H { rx: Receiver::new(&c, MSS), now: SimTime::ZERO }
    }
    fn at(&mut self, t_ms: u64) -> &mut Self {
        self.now = at_ms(t_ms);
        self
    }
    /// Segment `k` arrives.
    fn data(&mut self, k: u64) -> &mut Self {
        self.raw(TcpSegment { seq: k * M, len: MSS, tag: 100 + k as u32, ..Default::default() })
    }
    /// Segment `k` arrives with timestamp option `TSval = tsval_ms`.
    fn data_ts(&mut self, k: u64, tsval_ms: u64) -> &mut Self {
        let ts = Some((at_ms(tsval_ms), SimTime::ZERO));
        self.raw(TcpSegment { seq: k * M, len: MSS, tag: 100 + k as u32, ts, ..Default::default() })
    }
    fn raw(&mut self, seg: TcpSegment) -> &mut Self {
        self.rx.on_segment(&seg, false, self.now);
        self
    }
    fn timer(&mut self) -> &mut Self {
        self.rx.on_timer(self.now);
        self
    }
    /// Exactly one ACK is pending; it acknowledges up to segment `k` with
    /// SACK blocks `sack` (segment ranges, in order). Returns it.
    #[track_caller]
    fn ack(&mut self, k: u64, sack: &[(u64, u64)]) -> TcpSegment {
        let a = self.rx.poll_transmit(self.now).expect("expected an ACK, got none");
        assert_eq!(a.ack, k * M, "ack number");
        let want: Vec<SackBlock> = sack.iter().map(|&(l, r)| SackBlock { left: l * M, right: r * M }).collect();
        assert_eq!(a.sack.as_slice(), &want[..], "SACK blocks");
        assert_eq!((a.seq, a.len, a.flags), (0, 0, TcpFlags(TcpFlags::ACK)), "ACK header");
        assert_eq!(a.wnd, self.rx.window, "advertised window");
        self.none();
        a
    }
    #[track_caller]
    fn none(&mut self) {
        assert_eq!(self.rx.poll_transmit(self.now), None, "expected no ACK");
    }
}

#[test]
fn every_mode_acks_each_in_order_segment() {
    let mut h = H::new(cfg(AckMode::Every, false, 3));
    h.at(0).data(0).ack(1, &[]);
    h.at(1).data(1).ack(2, &[]);
    h.at(2).data(2).ack(3, &[]);
    assert_eq!(h.rx.rcv_nxt(), 3 * M);
    assert_eq!(h.rx.poll_timeout(), None);
    let s = h.rx.stats();
    assert_eq!((s.segments, s.acks_sent, s.dupacks_sent, s.bytes_delivered), (3, 3, 0, 3 * M));
}

#[test]
fn every_mode_two_segments_before_poll_give_two_acks() {
    let mut h = H::new(cfg(AckMode::Every, false, 3));
    h.at(0).data(0).data(2);
    assert_eq!(h.rx.poll_transmit(h.now).map(|a| a.ack), Some(M));
    assert_eq!(h.rx.poll_transmit(h.now).map(|a| a.ack), Some(M));
    h.none();
}

#[test]
fn rfc1122_4_2_3_2_delayed_ack_after_every_second_full_segment() {
    let mut h = H::new(cfg(delayed(), false, 3));
    h.at(0).data(0).none();
    assert_eq!(h.rx.poll_timeout(), Some(at_ms(200)));
    h.at(10).data(1).ack(2, &[]);
    assert_eq!(h.rx.poll_timeout(), None);
    h.at(20).data(2).none();
    h.at(30).data(3).ack(4, &[]);
    assert_eq!(h.rx.stats().acks_sent, 2);
}

#[test]
fn rfc1122_4_2_3_2_delayed_ack_timer_fires_at_exactly_timeout() {
    let mut h = H::new(cfg(delayed(), false, 3));
    h.at(100).data(0).none();
    // A small segment does not count towards `every` and does not re-arm.
    h.at(150).raw(TcpSegment { seq: M, len: 10, tag: 7, ..Default::default() }).none();
    assert_eq!(h.rx.poll_timeout(), Some(at_ms(300)));
    h.now = SimTime(at_ms(300).as_nanos() - 1);
    h.timer().none();
    h.at(300).timer();
    let a = h.rx.poll_transmit(h.now).expect("timer ACK");
    h.none();
    assert_eq!(a.ack, M + 10);
    assert_eq!(a.tag, 7, "timer ACK carries the latest segment's tag");
    assert_eq!(h.rx.poll_timeout(), None);
    // A late call after the ACK went is a no-op.
    h.at(400).timer().none();
}

#[test]
fn rfc5681_4_2_out_of_order_segment_acked_at_once() {
    let mut h = H::new(cfg(delayed(), false, 3));
    h.at(0).data(0).none();
    h.at(1).data(2).ack(1, &[]);
    assert_eq!(h.rx.poll_timeout(), None, "the immediate ACK covered segment 0");
    h.at(2).data(3).ack(1, &[]);
    h.at(3).data(4).ack(1, &[]);
    let s = h.rx.stats();
    assert_eq!((s.out_of_order_segments, s.acks_sent, s.dupacks_sent), (3, 3, 2));
}

#[test]
fn rfc5681_4_2_segment_filling_gap_acked_at_once() {
    let mut h = H::new(cfg(delayed(), false, 3));
    h.at(0).data(0).data(1).ack(2, &[]);
    h.at(1).data(3).ack(2, &[]);
    h.at(2).data(2).ack(4, &[]); // fills the whole gap
    h.at(3).data(4).none(); // back to delaying
    h.at(4).data(6).ack(5, &[]);
    h.at(5).data(8).ack(5, &[]);
    h.at(6).data(5).ack(7, &[]); // fills part of the gap: 7 still missing
    h.at(7).data(7).ack(9, &[]);
}

#[test]
fn rfc5681_4_2_duplicate_segment_acked_at_once() {
    let mut h = H::new(cfg(delayed(), false, 3));
    h.at(0).data(0).data(1).ack(2, &[]);
    h.at(1).data(0).ack(2, &[]);
    // Partly old, partly new but in order: ordinary in-order data.
    h.at(2).raw(TcpSegment { seq: M + 500, len: MSS, ..Default::default() }).none();
    let s = h.rx.stats();
    assert_eq!((s.duplicate_segments, s.dupacks_sent), (1, 1));
    assert_eq!(h.rx.rcv_nxt(), 2 * M + 500);
}

#[test]
fn rfc2018_4_sack_blocks_most_recent_first() {
    let mut h = H::new(cfg(AckMode::Every, true, 3));
    h.data(0).ack(1, &[]);
    // 1 lost
    h.data(2).ack(1, &[(2, 3)]);
    h.data(3).ack(1, &[(2, 4)]);
    // 4 lost
    h.data(5).ack(1, &[(5, 6), (2, 4)]);
    h.data(7).ack(1, &[(7, 8), (5, 6), (2, 4)]);
    // A duplicate of held data moves its block to the front.
    h.data(3).ack(1, &[(2, 4), (7, 8), (5, 6)]);
    // Blocks at or below rcv_nxt disappear.
    h.data(1).ack(4, &[(7, 8), (5, 6)]);
    h.data(4).ack(6, &[(7, 8)]);
    h.data(6).ack(8, &[]);
    let s = h.rx.stats();
    assert_eq!((s.out_of_order_segments, s.duplicate_segments), (4, 1));
}

#[test]
fn rfc2018_4_merged_blocks_replace_their_parts() {
    let mut h = H::new(cfg(AckMode::Every, true, 4));
    h.data(0).ack(1, &[]);
    h.data(2).ack(1, &[(2, 3)]);
    h.data(6).ack(1, &[(6, 7), (2, 3)]);
    h.data(4).ack(1, &[(4, 5), (6, 7), (2, 3)]);
    h.data(3).ack(1, &[(2, 5), (6, 7)]);
    h.data(5).ack(1, &[(2, 7)]);
    // An out-of-order segment overlapping a block's edge extends it.
    h.raw(TcpSegment { seq: 6 * M + 500, len: MSS, ..Default::default() });
    let a = h.rx.poll_transmit(h.now).unwrap();
    assert_eq!(a.sack.as_slice(), &[SackBlock { left: 2 * M, right: 7 * M + 500 }]);
    assert_eq!(h.rx.ooo, vec![(2 * M, 7 * M + 500)]);
}

#[test]
fn rfc2018_4_at_most_max_sack_blocks() {
    let mut h = H::new(cfg(AckMode::Every, true, 2));
    h.data(0).ack(1, &[]);
    h.data(2).ack(1, &[(2, 3)]);
    h.data(4).ack(1, &[(4, 5), (2, 3)]);
    h.data(6).ack(1, &[(6, 7), (4, 5)]);
    h.data(8).ack(1, &[(8, 9), (6, 7)]);
    // Filling 7 merges the two reported blocks into one, which frees a slot
    // for the oldest block, not reported since two ACKs.
    h.data(7).ack(1, &[(6, 9), (4, 5)]);
}

#[test]
fn no_sack_blocks_when_sack_off() {
    let mut h = H::new(cfg(AckMode::Every, false, 3));
    h.data(0).ack(1, &[]);
    h.data(2).ack(1, &[]);
}

#[test]
fn window_constant_and_data_beyond_it_discarded() {
    let c = ReceiverConfig {
        window: 4 * M,
        ack: AckMode::Every,
        sack: true,
        max_sack_blocks: 3,
        dsack: false,
        dda: None,
        sack_option_size: SackOptionSize::Rfc2018,
    };
    let mut h = H::new(c);
    h.data(0).ack(1, &[]); // window now [1, 5)
    h.data(2).ack(1, &[(2, 3)]);
    h.data(4).ack(1, &[(4, 5), (2, 3)]);
    h.data(5).ack(1, &[(4, 5), (2, 3)]); // entirely beyond: dropped, still ACKed
                                         // Straddling the right edge: the part inside is kept.
    h.raw(TcpSegment { seq: 3 * M, len: 2500, ..Default::default() });
    h.ack(1, &[(2, 5)]);
    assert_eq!(h.rx.stats().beyond_window_segments, 2);
    h.data(1).ack(5, &[]);
    assert_eq!(h.rx.stats().bytes_delivered, 5 * M);
}

#[test]
fn irw_3_ack_echoes_tag_of_triggering_segment() {
    let mut h = H::new(cfg(AckMode::Every, false, 3));
    assert_eq!(h.data(0).ack(1, &[]).tag, 100);
    assert_eq!(h.data(2).ack(1, &[]).tag, 102);
    let rexmit = TcpSegment { seq: M, len: MSS, tag: 555, is_retransmit: true, ..Default::default() };
    assert_eq!(h.raw(rexmit).ack(3, &[]).tag, 555);
}

#[test]
fn rfc7323_4_3_timestamps_echo_ts_recent() {
    let mut h = H::new(cfg(AckMode::Every, false, 3));
    // Plain echo: TSval = now of the ACK, TSecr = the segment's TSval.
    assert_eq!(h.at(50).data_ts(0, 10).ack(1, &[]).ts, Some((at_ms(50), at_ms(10))));
    // Out of order (case C): keep echoing the last in-order TSval...
    assert_eq!(h.at(60).data_ts(2, 30).ack(1, &[]).ts, Some((at_ms(60), at_ms(10))));
    assert_eq!(h.at(61).data_ts(3, 31).ack(1, &[]).ts, Some((at_ms(61), at_ms(10))));
    // ...until the hole is filled: echo the filling segment's TSval.
    assert_eq!(h.at(70).data_ts(1, 40).ack(4, &[]).ts, Some((at_ms(70), at_ms(40))));
    // An older TSval never replaces TS.Recent.
    assert_eq!(h.at(71).data_ts(4, 39).ack(5, &[]).ts, Some((at_ms(71), at_ms(40))));
}

#[test]
fn rfc7323_4_3_delayed_ack_echoes_earliest_unacked() {
    let mut h = H::new(cfg(delayed(), false, 3));
    h.at(100).data_ts(0, 10).none();
    // Case A: the ACK for both segments echoes the first one's TSval.
    assert_eq!(h.at(110).data_ts(1, 20).ack(2, &[]).ts, Some((at_ms(110), at_ms(10))));
    h.at(120).data_ts(2, 30).none();
    assert_eq!(h.at(320).timer().ack(3, &[]).ts, Some((at_ms(320), at_ms(30))));
}

#[test]
fn no_timestamps_unless_the_peer_sends_them() {
    let mut h = H::new(cfg(AckMode::Every, false, 3));
    assert_eq!(h.data(0).ack(1, &[]).ts, None);
}

#[test]
fn ce_mark_recorded() {
    let mut h = H::new(cfg(AckMode::Every, false, 3));
    h.data(0).ack(1, &[]);
    assert!(!h.rx.ce_pending());
    h.rx.on_segment(&TcpSegment { seq: M, len: MSS, ..Default::default() }, true, h.now);
    assert!(h.rx.ce_pending());
    assert_eq!(h.rx.stats().ce_segments, 1);
}

#[test]
fn rfc3168_6_1_3_ece_on_every_ack_from_a_ce_mark_until_cwr() {
    let mut h = H::new(cfg(AckMode::Every, false, 3));
    let ece = |s: &TcpSegment| s.flags.has(TcpFlags::ECE);
    h.rx.on_segment(&TcpSegment { seq: 0, len: MSS, ..Default::default() }, false, h.now);
    assert!(!ece(&h.rx.poll_transmit(h.now).unwrap()));
    h.rx.on_segment(&TcpSegment { seq: M, len: MSS, ..Default::default() }, true, h.now);
    assert!(ece(&h.rx.poll_transmit(h.now).unwrap()), "the ACK of the marked segment");
    h.rx.on_segment(&TcpSegment { seq: 2 * M, len: MSS, ..Default::default() }, false, h.now);
    assert!(ece(&h.rx.poll_transmit(h.now).unwrap()), "and every ACK after it");
    let cwr = TcpFlags(TcpFlags::ACK | TcpFlags::CWR);
    h.rx.on_segment(&TcpSegment { seq: 3 * M, len: MSS, flags: cwr, ..Default::default() }, false, h.now);
    assert!(!ece(&h.rx.poll_transmit(h.now).unwrap()), "CWR ends the echo");
    h.rx.on_segment(&TcpSegment { seq: 4 * M, len: MSS, flags: cwr, ..Default::default() }, true, h.now);
    assert!(ece(&h.rx.poll_transmit(h.now).unwrap()), "a marked CWR segment starts a new echo");
}

/// DDA with `d = 100 ms`, ACK every segment.
fn dda(sack: bool) -> ReceiverConfig {
    ReceiverConfig { dda: Some(ms(100)), ..cfg(AckMode::Every, sack, 3) }
}

impl H {
    /// Exactly `n` ACKs are pending, all for segment `k`; returns them.
    #[track_caller]
    fn acks(&mut self, n: usize, k: u64) -> Vec<TcpSegment> {
        let mut got = Vec::new();
        while let Some(a) = self.rx.poll_transmit(self.now) {
            got.push(a);
        }
        assert_eq!(got.len(), n, "number of ACKs");
        assert!(got.iter().all(|a| a.ack == k * M), "ack numbers {:?}", got.iter().map(|a| a.ack).collect::<Vec<_>>());
        got
    }
    /// Segments 1..=5 arrive at 0..=4 ms with segment 0 missing.
    fn dda_gap(&mut self) -> &mut Self {
        for k in 1..=5 {
            self.at(k - 1).data(k);
            self.acks(usize::from(k <= 2), 0);
        }
        self
    }
}

#[test]
fn dda_first_two_dupacks_at_once_third_to_fifth_held() {
    let mut h = H::new(dda(false));
    h.dda_gap();
    // One batch, timed from the first held duplicate (segment 3 at 2 ms).
    assert_eq!(h.rx.poll_timeout(), Some(at_ms(102)));
    let s = h.rx.stats();
    assert_eq!((s.acks_sent, s.dupacks_sent, s.dupacks_delayed, s.dupacks_cancelled), (2, 2, 3, 0));
}

#[test]
fn dda_gap_filled_before_d_cancels_held_dupacks() {
    let mut h = H::new(dda(true));
    h.dda_gap();
    // The hole is filled at 50 ms < 2 + 100 ms: only the cumulative ACK, at once.
    h.at(50).data(0).ack(6, &[]);
    assert_eq!(h.rx.poll_timeout(), None, "no batch left to release");
    h.at(102).timer().none();
    let s = h.rx.stats();
    assert_eq!((s.acks_sent, s.dupacks_sent, s.dupacks_delayed, s.dupacks_cancelled), (3, 2, 3, 3));
}

#[test]
fn dda_unfilled_gap_releases_the_batch_at_first_hold_plus_d() {
    let mut h = H::new(dda(true));
    for k in 1..=5 {
        h.at(k - 1).data_ts(k, 10 * k);
        let sack = [(1, k + 1)];
        if k <= 2 {
            h.ack(0, &sack);
        } else {
            h.none();
        }
    }
    h.now = SimTime(at_ms(102).as_nanos() - 1);
    h.timer().none();
    h.at(102).timer();
    let batch = h.acks(3, 0);
    // Each as it was built on arrival: its SACK block, its tag; TSval is the
    // release time.
    for (a, k) in batch.iter().zip(3u64..) {
        assert_eq!(a.sack.as_slice(), &[SackBlock { left: M, right: (k + 1) * M }]);
        assert_eq!(a.tag, 100 + k as u32);
        assert_eq!(a.ts, Some((at_ms(102), SimTime::ZERO)), "no in-order segment yet: TSecr 0");
    }
    assert_eq!(h.rx.poll_timeout(), None);
    // The gap has had its delay: further duplicates go at once.
    h.at(110).data(6).ack(0, &[(1, 7)]);
    h.at(111).data(7).ack(0, &[(1, 8)]);
    h.at(120).data(0).ack(8, &[]);
    let s = h.rx.stats();
    assert_eq!((s.acks_sent, s.dupacks_sent, s.dupacks_delayed, s.dupacks_cancelled), (8, 7, 3, 0));
}

#[test]
fn dda_second_gap_starts_a_fresh_count() {
    let mut h = H::new(dda(false));
    h.dda_gap();
    h.at(50).data(0).ack(6, &[]);
    // 6 lost; 7..9 arrive: two at once again, then held from 9 at 62 ms.
    h.at(60).data(7).ack(6, &[]);
    h.at(61).data(8).ack(6, &[]);
    h.at(62).data(9).none();
    assert_eq!(h.rx.poll_timeout(), Some(at_ms(162)));
    h.at(162).timer();
    h.acks(1, 6);
    h.at(170).data(6).ack(10, &[]);
    // A partial fill also restarts the count: 10 and 12 lost, 11, 13..15
    // arrive; filling 10 advances to 12 and cancels the held 14 and 15.
    h.at(200).data(11).ack(10, &[]);
    h.at(201).data(13).ack(10, &[]);
    h.at(202).data(14).none();
    h.at(203).data(15).none();
    h.at(210).data(10).ack(12, &[]);
    assert_eq!(h.rx.poll_timeout(), None);
    h.at(211).data(16).ack(12, &[]);
    h.at(212).data(17).ack(12, &[]);
    h.at(213).data(18).none();
    assert_eq!(h.rx.poll_timeout(), Some(at_ms(313)));
    let s = h.rx.stats();
    assert_eq!((s.dupacks_delayed, s.dupacks_cancelled), (3 + 1 + 2 + 1, 3 + 2));
}

#[test]
fn dda_off_sends_every_dupack_at_once() {
    let mut h = H::new(cfg(AckMode::Every, false, 3));
    for k in 1..=5 {
        h.at(k - 1).data(k).ack(0, &[]);
    }
    assert_eq!(h.rx.poll_timeout(), None);
    h.at(200).timer().none();
    let s = h.rx.stats();
    assert_eq!((s.acks_sent, s.dupacks_sent, s.dupacks_delayed, s.dupacks_cancelled), (5, 5, 0, 0));
}

#[test]
fn dda_holds_nothing_without_a_gap() {
    // Duplicate segments after everything arrived: no hole to wait for.
    let mut h = H::new(dda(false));
    h.data(0).ack(1, &[]);
    for _ in 0..4 {
        h.data(0).ack(1, &[]);
    }
    assert_eq!(h.rx.stats().dupacks_delayed, 0);
}

#[test]
fn dda_with_delayed_acks_the_earlier_deadline_is_polled() {
    let c = ReceiverConfig { dda: Some(ms(100)), ..cfg(delayed(), false, 3) };
    let mut h = H::new(c);
    h.at(0).data(0).none();
    h.at(1).data(1).ack(2, &[]);
    // 2 lost: out-of-order data is ACKed at once, held from the third.
    h.at(2).data(3).ack(2, &[]);
    h.at(3).data(4).ack(2, &[]);
    h.at(4).data(5).none();
    assert_eq!(h.rx.poll_timeout(), Some(at_ms(104)));
    h.at(50).data(2).ack(6, &[]);
    // Back to delaying in-order data: the delayed-ACK deadline alone.
    h.at(60).data(6).none();
    assert_eq!(h.rx.poll_timeout(), Some(at_ms(260)));
    h.at(104).timer().none();
    h.at(260).timer().ack(7, &[]);
    assert_eq!(h.rx.stats().dupacks_cancelled, 1);
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Against a byte map: rcv_nxt is the first missing byte, the held
        /// intervals are exactly the received bytes above it (sorted,
        /// disjoint, not touching), and SACK blocks are held intervals.
        #[test]
        fn intervals_match_byte_map(segs in proptest::collection::vec((0u64..60, 1u32..25), 1..40)) {
            let c = ReceiverConfig { window: 1 << 20, ack: AckMode::Every, sack: true, max_sack_blocks: 4, dsack: false, dda: None, sack_option_size: SackOptionSize::Rfc2018 };
            let mut rx = Receiver::new(&c, 10);
            let mut got = [false; 100];
            for (seq, len) in segs {
                rx.on_segment(&TcpSegment { seq, len, ..Default::default() }, false, SimTime::ZERO);
                for b in seq..seq + len as u64 { got[b as usize] = true; }
                while let Some(a) = rx.poll_transmit(SimTime::ZERO) {
                    for b in a.sack.as_slice() {
                        prop_assert!(rx.ooo.contains(&(b.left, b.right)));
                    }
                }
                let first_missing = got.iter().position(|&g| !g).unwrap() as u64;
                prop_assert_eq!(rx.rcv_nxt(), first_missing);
                let mut want = Vec::new();
                let mut b = first_missing as usize;
                while b < got.len() {
                    if got[b] {
                        let l = b;
                        while b < got.len() && got[b] { b += 1; }
                        want.push((l as u64, b as u64));
                    } else { b += 1; }
                }
                prop_assert_eq!(&rx.ooo, &want);
                let mut rec = rx.recency.clone();
                rec.sort();
                prop_assert_eq!(&rec, &want);
            }
        }
    }
}

#[test]
fn rfc2883_a_duplicate_is_reported_first_in_a_dsack_block_once() {
    let c = ReceiverConfig {
        window: 64 * M,
        ack: AckMode::Every,
        sack: true,
        max_sack_blocks: 3,
        dsack: true,
        dda: None,
        sack_option_size: SackOptionSize::Rfc2018,
    };
    let mut rx = Receiver::new(&c, MSS);
    let now = SimTime::ZERO;
    let seg = |k: u64| TcpSegment { seq: k * M, len: MSS, ..Default::default() };
    let blocks = |a: &TcpSegment| a.sack.as_slice().iter().map(|b| (b.left / M, b.right / M)).collect::<Vec<_>>();
    rx.on_segment(&seg(0), false, now);
    rx.on_segment(&seg(2), false, now);
    while rx.poll_transmit(now).is_some() {}
    // Below the cumulative ACK (§4 case 1).
    rx.on_segment(&seg(0), false, now);
    assert_eq!(blocks(&rx.poll_transmit(now).unwrap()), vec![(0, 1), (2, 3)]);
    // Inside a SACKed block (§4 case 2): the D-SACK block first, then that block.
    rx.on_segment(&seg(2), false, now);
    assert_eq!(blocks(&rx.poll_transmit(now).unwrap()), vec![(2, 3), (2, 3)]);
    // Reported once only.
    rx.on_segment(&seg(3), false, now);
    assert_eq!(blocks(&rx.poll_transmit(now).unwrap()), vec![(2, 4)]);
}
