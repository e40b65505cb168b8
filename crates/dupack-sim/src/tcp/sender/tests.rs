//! Packet-by-packet tests of the sender core and its recovery policies.
//! MSS is 1000 bytes so that segment `k` starts at byte `k·1000`.

use super::{Sender, SenderEvent};
use crate::scenario::model::{
    BackoffReset, LossSsthresh, PartialAckRtoReset, RecoveryExitGrowth, Rfc6675Pipe, RtoConfig, RtoOnFastRetransmit,
    SackRecoverAfterExit, TcpConfig, TimeoutExitGrowth,
};
use crate::tcp::segment::{SackBlock, SackBlocks, TcpFlags, TcpSegment};
use crate::tcp::variant::parse_variant;
use crate::time::{ms, SimTime};

const MSS: u64 = 1000;

struct Harness {
    s: Sender,
    now: SimTime,
}

impl Harness {
    fn new(variant: &str, iw: u32) -> Self {
        Self::with(variant, tcp(iw), None)
    }
    fn with(variant: &str, cfg: TcpConfig, bytes: Option<u64>) -> Self {
        let v = parse_variant(variant).unwrap();
        let mut s = Sender::new(&cfg, &v, 1 << 30, bytes);
        s.record_events(true);
        s.start();
        Harness { s, now: SimTime::ZERO }
    }
    fn at(&mut self, t: SimTime) -> &mut Self {
        self.now = t;
        self
    }
    /// Drain everything the sender wants to send now: (segment index, retransmission?).
    #[track_caller]
    fn tx(&mut self) -> Vec<(u64, bool)> {
        std::iter::from_fn(|| self.s.poll_transmit(self.now)).map(|g| (g.seq / MSS, g.is_retransmit)).collect()
    }
    /// Deliver an ACK for `seg` segments, with SACK blocks in segment units.
    fn ack(&mut self, seg: u64, sack: &[(u64, u64)]) -> &mut Self {
        let mut blocks = SackBlocks::new();
        for &(l, r) in sack {
            blocks.push(SackBlock { left: l * MSS, right: r * MSS });
        }
        let a = TcpSegment {
            ack: seg * MSS,
            flags: TcpFlags(TcpFlags::ACK),
            wnd: 1 << 30,
            sack: blocks,
            ..TcpSegment::default()
        };
        self.s.on_segment(&a, self.now);
        self
    }
    fn cwnd_segs(&self) -> f64 {
        self.s.cwnd() as f64 / MSS as f64
    }
}

/// The tests' TCP: MSS 1000 bytes, an initial window of `iw` segments, the rest default.
fn tcp(iw: u32) -> TcpConfig {
    TcpConfig { mss: MSS as u32, initial_window: iw, ..TcpConfig::default() }
}

fn new(segs: &[u64]) -> Vec<(u64, bool)> {
    segs.iter().map(|&s| (s, false)).collect()
}
fn rexmit(seg: u64) -> (u64, bool) {
    (seg, true)
}

#[test]
fn slow_start_doubles_per_round_with_one_ack_per_segment() {
    let mut h = Harness::new("reno", 1);
    assert_eq!(h.tx(), new(&[0]));
    h.ack(1, &[]);
    assert_eq!(h.tx(), new(&[1, 2]));
    h.ack(2, &[]).ack(3, &[]);
    assert_eq!(h.tx(), new(&[3, 4, 5, 6]));
    assert_eq!(h.cwnd_segs(), 4.0);
}

#[test]
fn rfc5681_reno_fast_retransmit_on_third_dupack_then_inflate_and_deflate() {
    let mut h = Harness::new("reno", 4);
    assert_eq!(h.tx(), new(&[0, 1, 2, 3]));
    // Segment 0 is lost; 1, 2, 3 each produce a duplicate ACK.
    h.ack(0, &[]);
    h.ack(0, &[]);
    assert_eq!(h.tx(), vec![], "no fast retransmit before the third dupack");
    h.ack(0, &[]);
    // ssthresh = max(FlightSize/2, 2·SMSS) = 2000; cwnd = ssthresh + 3·SMSS.
    assert_eq!(h.s.ssthresh(), 2000);
    assert_eq!(h.s.cwnd(), 5000);
    // The retransmission, then one new segment fits in the inflated window.
    assert_eq!(h.tx(), vec![rexmit(0), (4, false)]);
    h.ack(0, &[]);
    assert_eq!(h.s.cwnd(), 6000, "each further dupack inflates by one SMSS");
    assert_eq!(h.tx(), new(&[5]));
    // The retransmission is acknowledged: deflate to ssthresh, leave recovery.
    h.ack(4, &[]);
    assert!(!h.s.in_recovery());
    assert_eq!(h.s.cwnd(), 2000);
    assert_eq!(h.tx(), vec![], "2 segments (4, 5) still outstanding fill cwnd = 2");
    assert_eq!(h.s.stats().fast_retransmits, 1);
    assert!(matches!(h.s.poll_event(), Some(SenderEvent::FastRetransmit { seq: 0, ndup: 3, .. })));
}

#[test]
fn reno_leaves_recovery_on_a_partial_ack_and_refuses_a_second_fast_retransmit() {
    let mut h = Harness::new("reno", 6);
    assert_eq!(h.tx(), new(&[0, 1, 2, 3, 4, 5]));
    // 0 and 2 lost: 1, 3, 4, 5 give four dupacks. ssthresh = 3, cwnd = 3 + 3, then 7.
    for _ in 0..4 {
        h.ack(0, &[]);
    }
    assert_eq!(h.tx(), vec![rexmit(0), (6, false)]);
    // The retransmission of 0 arrives: a partial ACK (2 < recover = 6).
    h.ack(2, &[]);
    assert!(!h.s.in_recovery(), "RFC 5681 step 6: any new ACK ends Reno's recovery");
    assert_eq!(h.s.cwnd(), 3000);
    assert_eq!(h.tx(), vec![], "5 segments outstanding > cwnd 3");
    // Even three more dupacks for 2 do not start a second fast retransmit:
    // the ACK has not passed `recover` (ns-2 bug_fix_).
    for _ in 0..3 {
        h.ack(2, &[]);
    }
    assert_eq!(h.s.stats().fast_retransmits, 1);
    assert_eq!(h.tx(), vec![]);
}

#[test]
fn rfc6582_newreno_partial_ack_retransmits_the_next_hole_and_deflates() {
    let mut h = Harness::new("newreno", 6);
    assert_eq!(h.tx(), new(&[0, 1, 2, 3, 4, 5]));
    // 0 and 2 lost: segments 1, 3, 4, 5 produce four dupacks.
    for _ in 0..3 {
        h.ack(0, &[]);
    }
    assert_eq!(h.s.recover(), Some(6000));
    assert_eq!(h.s.ssthresh(), 3000);
    assert_eq!(h.s.cwnd(), 6000);
    assert_eq!(h.tx(), vec![rexmit(0)]);
    h.ack(0, &[]);
    assert_eq!(h.s.cwnd(), 7000);
    assert_eq!(h.tx(), new(&[6]));
    // Retransmitted 0 arrives; receiver has 0, 1 → partial ACK for 2.
    h.ack(2, &[]);
    assert!(h.s.in_recovery());
    // cwnd = 7000 − 2000 acked + 1000.
    assert_eq!(h.s.cwnd(), 6000);
    assert_eq!(h.tx()[0], rexmit(2), "partial ACK retransmits the first unacknowledged segment");
    // Full ACK (covers recover = 6000): cwnd = min(ssthresh, FlightSize + SMSS).
    h.ack(7, &[]);
    assert!(!h.s.in_recovery());
    assert!(h.s.cwnd() <= 3000);
    assert_eq!(h.s.stats().fast_retransmits, 1);
    assert_eq!(h.s.stats().timeouts, 0);
}

#[test]
fn tahoe_goes_back_to_snd_una_with_one_segment() {
    let mut h = Harness::new("tahoe", 4);
    assert_eq!(h.tx(), new(&[0, 1, 2, 3]));
    for _ in 0..3 {
        h.ack(0, &[]);
    }
    assert_eq!(h.s.cwnd(), MSS);
    assert_eq!(h.s.ssthresh(), 2000);
    assert_eq!(h.tx(), vec![rexmit(0)]);
    // The retransmission fills the hole; the ACK covers 0..4 and slow start
    // resumes from snd_una: segment 4 and 5 are new.
    h.ack(4, &[]);
    assert_eq!(h.s.cwnd(), 2 * MSS);
    assert_eq!(h.tx(), new(&[4, 5]));
}

#[test]
fn ff96_sack_retransmits_every_reported_hole_while_pipe_is_below_cwnd() {
    let mut h = Harness::new("sack", 8);
    assert_eq!(h.tx(), new(&[0, 1, 2, 3, 4, 5, 6, 7]));
    // 0, 2 and 4 lost. ACKs for 1, 3, 5 carry SACK blocks.
    h.ack(0, &[(1, 2)]);
    h.ack(0, &[(3, 4), (1, 2)]);
    h.ack(0, &[(5, 6), (3, 4), (1, 2)]);
    // Enter: ssthresh = cwnd = 4 segments, pipe = 8 outstanding − 3 = 5.
    assert!(h.s.in_recovery());
    assert_eq!(h.s.cwnd(), 4000);
    assert_eq!(h.tx(), vec![rexmit(0)], "pipe 5 ≥ cwnd 4: only the fast retransmission");
    h.ack(0, &[(5, 7), (3, 4), (1, 2)]); // pipe 4
    h.ack(0, &[(5, 8), (3, 4), (1, 2)]); // pipe 3 → one transmission: the next hole
    assert_eq!(h.tx(), vec![rexmit(2)]);
    // Retransmitted 0 arrives: partial ACK to 1..2 SACKed → ack 2; pipe −2.
    h.ack(2, &[(3, 4), (5, 8)]);
    assert_eq!(h.tx(), vec![rexmit(4), (8, false)]);
    h.ack(4, &[(5, 8)]);
    h.ack(9, &[]);
    assert!(!h.s.in_recovery());
    assert_eq!(h.s.stats().timeouts, 0);
    assert_eq!(h.s.stats().retransmitted_segments, 3);
}

/// `tcp.sack_recover_after_exit`: a recovery ends on the ACK of exactly
/// `recover`; the first segment sent during it is lost, and three SACKs of
/// the segments after it follow. With the guard kept (RFC 6582 §3.2 step 2,
/// as NewReno) the cumulative ACK does not cover more than `recover`, so no
/// fast retransmit: the timer will have to repair it. Cleared, as ns-2's
/// `Sack1` does (`recover_ = 0` when fast recovery ends), it is a second
/// fast retransmit.
#[test]
fn ff96_sack_a_loss_just_after_a_recovery_is_a_fast_retransmit_only_with_the_guard_cleared() {
    for (rule, again) in [(SackRecoverAfterExit::Kept, false), (SackRecoverAfterExit::Cleared, true)] {
        let cfg = TcpConfig { sack_recover_after_exit: rule, ..tcp(8) };
        let mut h = Harness::with("sack", cfg, None);
        assert_eq!(h.tx(), new(&[0, 1, 2, 3, 4, 5, 6, 7]));
        // 0 lost: the third SACK starts a recovery with recover = 8 segments.
        h.ack(0, &[(1, 2)]).ack(0, &[(1, 3)]).ack(0, &[(1, 4)]);
        assert!(h.s.in_recovery());
        assert_eq!(h.tx(), vec![rexmit(0)]);
        // 4..7 arrive: pipe (5 at the entry) falls below cwnd (4): 8, 9, 10 go out.
        h.ack(0, &[(1, 5)]).ack(0, &[(1, 6)]).ack(0, &[(1, 7)]).ack(0, &[(1, 8)]);
        assert_eq!(h.tx(), new(&[8, 9, 10]));
        // The retransmission arrives: the ACK of exactly recover ends the recovery.
        h.ack(8, &[]);
        assert!(!h.s.in_recovery());
        assert_eq!(h.tx(), new(&[11]), "{rule:?}: cwnd 4 with 8, 9, 10 outstanding");
        // 8 lost; 9, 10 and 11 are SACKed.
        h.ack(8, &[(9, 10)]).ack(8, &[(9, 11)]).ack(8, &[(9, 12)]);
        assert_eq!(h.s.in_recovery(), again, "{rule:?}");
        // Entered again: cwnd = 2 (half of 4 outstanding), pipe = 4 − 3 = 1, so one new segment follows.
        assert_eq!(h.tx(), if again { vec![rexmit(8), (12, false)] } else { vec![] }, "{rule:?}");
        assert_eq!(h.s.stats().fast_retransmits, if again { 2 } else { 1 }, "{rule:?}");
        // A timeout sets the guard under both rules: after it, three SACKs below recover start nothing.
        let deadline = h.s.poll_timeout().unwrap();
        h.at(deadline);
        h.s.on_timer(deadline);
        assert_eq!(h.s.stats().timeouts, 1, "{rule:?}");
        assert_eq!(h.tx().first(), Some(&rexmit(8)), "{rule:?}");
        h.ack(8, &[(9, 10)]).ack(8, &[(9, 11)]).ack(8, &[(9, 12)]);
        assert!(!h.s.in_recovery(), "{rule:?}");
    }
}

#[test]
fn rto_fires_at_the_deadline_not_before_and_records_ndup() {
    let mut h = Harness::new("reno", 3);
    assert_eq!(h.tx(), new(&[0, 1, 2]));
    let deadline = h.s.poll_timeout().unwrap();
    assert_eq!(deadline, SimTime::ZERO + ms(1000), "RFC 6298 §2.1 initial RTO of 1 s");
    // Two dupacks: fewer than the threshold, so no fast retransmit.
    h.at(SimTime::ZERO + ms(100)).ack(0, &[]).ack(0, &[]);
    assert_eq!(h.tx(), vec![]);
    h.s.on_timer(SimTime::ZERO + ms(999));
    assert_eq!(h.s.stats().timeouts, 0, "an early timer call is a no-op");
    h.at(deadline);
    h.s.on_timer(deadline);
    assert_eq!(h.s.stats().timeouts, 1);
    assert_eq!(h.s.stats().ndup_at_timeout, [0, 0, 1, 0]);
    assert_eq!(h.s.cwnd(), MSS);
    assert_eq!(h.tx(), vec![rexmit(0)]);
    // RFC 6298 §5.5: backed off to 2 s.
    assert_eq!(h.s.poll_timeout(), Some(deadline + ms(2000)));
    // A second expiry is the same episode.
    let d2 = h.s.poll_timeout().unwrap();
    h.at(d2);
    h.s.on_timer(d2);
    assert_eq!(h.s.stats().timeouts, 2);
    assert_eq!(h.s.stats().timeout_episodes, 1);
    assert_eq!(h.s.stats().ndup_at_timeout, [1, 0, 1, 0]);
}

#[test]
fn karn_no_rtt_sample_from_a_retransmitted_segment() {
    let mut h = Harness::new("reno", 1);
    assert_eq!(h.tx(), new(&[0]));
    let d = h.s.poll_timeout().unwrap();
    h.at(d);
    h.s.on_timer(d);
    assert_eq!(h.tx(), vec![rexmit(0)]);
    h.at(d + ms(50)).ack(1, &[]);
    assert!(!h.s.rto().has_sample(), "the ACK of a retransmitted segment is ambiguous");
    assert_eq!(h.s.rto().backoff_shift(), 1, "the backed-off RTO is kept");
    assert_eq!(h.tx(), new(&[1, 2]));
    h.at(d + ms(100)).ack(2, &[]);
    assert_eq!(h.s.rto().srtt(), Some(ms(50)));
    assert_eq!(h.s.rto().backoff_shift(), 0);
}

#[test]
fn a_finite_transfer_sends_a_short_last_segment_and_completes() {
    let cfg = tcp(4);
    let mut h = Harness::with("newreno", cfg, Some(2500));
    let segs: Vec<_> = std::iter::from_fn(|| h.s.poll_transmit(h.now)).map(|g| (g.seq, g.len)).collect();
    assert_eq!(segs, vec![(0, 1000), (1000, 1000), (2000, 500)]);
    let a = TcpSegment { ack: 2500, flags: TcpFlags(TcpFlags::ACK), wnd: 1 << 30, ..TcpSegment::default() };
    h.s.on_segment(&a, h.now);
    assert!(h.s.is_done());
    assert_eq!(h.s.poll_timeout(), None, "RFC 6298 §5.2: timer off when all data is acknowledged");
}

#[test]
fn rfc7323_every_ack_of_new_data_gives_a_timestamp_sample() {
    let cfg = TcpConfig { timestamps: true, ..tcp(2) };
    let mut h = Harness::with("reno", cfg, None);
    h.at(SimTime::ZERO + ms(10));
    let segs: Vec<_> = std::iter::from_fn(|| h.s.poll_transmit(h.now)).collect();
    assert_eq!(segs.len(), 2);
    assert_eq!(segs[0].ts, Some((SimTime::ZERO + ms(10), SimTime::ZERO)));
    let ack = |a: u64, tsecr: SimTime| TcpSegment {
        ack: a,
        flags: TcpFlags(TcpFlags::ACK),
        wnd: 1 << 30,
        ts: Some((SimTime::ZERO + ms(55), tsecr)),
        ..TcpSegment::default()
    };
    h.s.on_segment(&ack(1000, SimTime::ZERO + ms(10)), SimTime::ZERO + ms(90));
    assert_eq!(h.s.rto().srtt(), Some(ms(80)));
    // An echo of 0 (no valid TS.Recent at the receiver) is not a sample.
    h.s.on_segment(&ack(2000, SimTime::ZERO), SimTime::ZERO + ms(95));
    assert_eq!(h.s.rto().srtt(), Some(ms(80)));
    // The next data segment echoes the peer's TSval.
    let next = h.s.poll_transmit(SimTime::ZERO + ms(95)).unwrap();
    assert_eq!(next.ts, Some((SimTime::ZERO + ms(95), SimTime::ZERO + ms(55))));
}

#[test]
fn bsd_coarse_timer_expires_on_a_slow_timer_tick() {
    use crate::scenario::model::{RtoConfig, RtoMode};
    let rto = RtoConfig { mode: RtoMode::Coarse { tick: ms(500) }, max: crate::time::secs(64), ..RtoConfig::default() };
    let cfg = TcpConfig { rto, ..tcp(1) };
    let mut h = Harness::with("reno", cfg, None);
    h.at(SimTime::ZERO + ms(130));
    assert_eq!(h.tx(), new(&[0]));
    let d = h.s.poll_timeout().unwrap();
    assert_eq!(d.as_nanos() % ms(500).as_nanos(), 0, "fires on a tick: {d:?}");
    assert!(d > h.now + ms(500) && d <= h.now + ms(1000), "initial 1 s = 2 ticks: {d:?}");
    h.s.on_timer(d);
    assert_eq!(h.s.stats().timeouts, 1);
    let d2 = h.s.poll_timeout().unwrap();
    assert_eq!(d2.as_nanos() % ms(500).as_nanos(), 0);
}

#[test]
fn the_dupack_threshold_is_a_policy_parameter() {
    let cfg = TcpConfig { dupthresh: 2, ..tcp(4) };
    let mut h = Harness::with("newreno", cfg, None);
    assert_eq!(h.tx(), new(&[0, 1, 2, 3]));
    h.ack(0, &[]);
    assert_eq!(h.tx(), vec![]);
    h.ack(0, &[]);
    assert_eq!(h.tx()[0], rexmit(0), "fast retransmit on the 2nd dupack");
    // cwnd = ssthresh + dupthresh·SMSS.
    assert_eq!(h.s.cwnd(), 2000 + 2000);
}

/// A sender whose window is held at `w` segments (max_cwnd), IW = w.
fn capped(variant: &str, w: u64) -> Harness {
    let cfg = TcpConfig { max_cwnd: w * MSS, ..tcp(w as u32) };
    Harness::with(variant, cfg, None)
}

#[test]
fn efr_5_4_four_segment_window_retransmits_on_the_second_dupack() {
    let mut h = capped("reno+efr", 4);
    assert_eq!(h.tx(), new(&[0, 1, 2, 3]));
    h.ack(0, &[]);
    assert_eq!(h.tx(), vec![], "snd_cur = 4 segments: tcp_rexmtthresh = 2");
    h.ack(0, &[]);
    assert_eq!(h.tx(), vec![rexmit(0)]);
    assert!(matches!(h.s.poll_event(), Some(SenderEvent::FastRetransmit { seq: 0, ndup: 2, .. })));
    // Reno with the same window waits for the third.
    let mut r = capped("reno", 4);
    assert_eq!(r.tx(), new(&[0, 1, 2, 3]));
    r.ack(0, &[]).ack(0, &[]);
    assert_eq!(r.tx(), vec![]);
    r.ack(0, &[]);
    assert_eq!(r.tx(), vec![rexmit(0)]);
}

#[test]
fn efr_avoids_the_wasted_timeout_reno_takes_with_a_three_segment_window() {
    // efr §4.3, Fig. 5: segment k lost with a window of 3, so only two
    // duplicate ACKs can ever come back.
    let mut r = capped("reno", 3);
    assert_eq!(r.tx(), new(&[0, 1, 2]));
    r.ack(0, &[]).ack(0, &[]);
    assert_eq!(r.tx(), vec![], "Reno: no third dupack will come");
    let d = r.s.poll_timeout().unwrap();
    r.at(d);
    r.s.on_timer(d);
    assert_eq!(r.s.stats().ndup_at_timeout, [0, 0, 1, 0], "a wasted timeout with N_dup = 2");

    let mut e = capped("reno+efr", 3);
    assert_eq!(e.tx(), new(&[0, 1, 2]));
    e.ack(0, &[]);
    // snd_cur = 3 segments: 3 − 2 = 1, so the first dupack retransmits.
    assert_eq!(e.tx(), vec![rexmit(0)]);
    e.ack(3, &[]);
    assert_eq!((e.s.stats().fast_retransmits, e.s.stats().timeouts), (1, 0));
}

#[test]
fn efr_composes_with_newreno_and_sack() {
    for v in ["newreno+efr", "sack+efr"] {
        let mut h = capped(v, 4);
        assert_eq!(h.tx(), new(&[0, 1, 2, 3]), "{v}");
        h.ack(0, &[(1, 2)]).ack(0, &[(1, 3)]);
        assert_eq!(h.tx().first(), Some(&rexmit(0)), "{v}: fast retransmit on the 2nd dupack");
        assert!(h.s.in_recovery(), "{v}");
    }
}

#[test]
fn rfc3042_limited_transmit_sends_one_new_segment_on_each_of_the_first_two_dupacks() {
    let mut h = capped("reno+lt", 4);
    assert_eq!(h.tx(), new(&[0, 1, 2, 3]));
    h.ack(0, &[]);
    assert_eq!(h.tx(), new(&[4]), "first dupack: one new segment");
    h.ack(0, &[]);
    assert_eq!(h.tx(), new(&[5]), "second dupack: one more");
    assert_eq!(h.s.cwnd(), 4000, "cwnd is not changed by Limited Transmit");
    h.ack(0, &[]);
    // RFC 5681 §3.2 step 2: ssthresh from FlightSize without the two LT segments.
    assert_eq!(h.s.ssthresh(), 2000);
    assert_eq!(h.tx(), vec![rexmit(0)]);
    // Without +lt nothing is sent on the first two dupacks.
    let mut r = capped("reno", 4);
    assert_eq!(r.tx(), new(&[0, 1, 2, 3]));
    r.ack(0, &[]).ack(0, &[]);
    assert_eq!(r.tx(), vec![]);
}

#[test]
fn rfc3042_limited_transmit_keeps_a_three_segment_window_out_of_a_timeout() {
    let mut h = capped("reno+lt", 3);
    assert_eq!(h.tx(), new(&[0, 1, 2]));
    h.ack(0, &[]);
    assert_eq!(h.tx(), new(&[3]));
    h.ack(0, &[]);
    assert_eq!(h.tx(), new(&[4]));
    // Segments 3 and 4 bring the third dupack Reno needs.
    h.ack(0, &[]);
    assert_eq!(h.tx(), vec![rexmit(0)]);
    assert_eq!((h.s.stats().fast_retransmits, h.s.stats().timeouts), (1, 0));
}

#[test]
fn rfc6675_limited_transmit_is_governed_by_pipe_not_by_the_dupack_count() {
    // RFC 6675 §5 step (3): the ACK for segment 1 is lost, so the first
    // duplicate ACK SACKs segments 1 and 2 at once: pipe = 4 − 2 = 2
    // segments, and cwnd − pipe leaves room for two new segments.
    let mut h = Harness::new("rfc6675+lt", 4);
    assert_eq!(h.tx(), new(&[0, 1, 2, 3]));
    h.ack(0, &[(1, 3)]);
    assert_eq!(h.tx(), new(&[4, 5]), "two SACKed segments release two new ones");
    assert_eq!(h.s.cwnd(), 4000, "cwnd is not changed");
    assert!(!h.s.in_recovery());
    // RFC 3042's form releases one segment per duplicate ACK, whatever it SACKs.
    let mut r = Harness::new("sack+lt", 4);
    assert_eq!(r.tx(), new(&[0, 1, 2, 3]));
    r.ack(0, &[(1, 3)]);
    assert_eq!(r.tx(), new(&[4]));
    // The next SACK makes three segments SACKed above 0: IsLost(0), recovery.
    h.ack(0, &[(1, 4)]);
    assert!(h.s.in_recovery());
    assert_eq!(h.tx().first(), Some(&rexmit(0)));
    // RFC 5681 §3.2 step 2: ssthresh from FlightSize without the two new segments.
    assert_eq!(h.s.ssthresh(), 2000);
}

#[test]
fn rfc6675_limited_transmit_turns_a_three_segment_window_loss_into_a_fast_retransmit() {
    // Segment 0 of a window of three is lost: only two duplicate ACKs can
    // come back, and RFC 6675 without step (3) waits for the timer.
    let mut r = Harness::new("rfc6675", 3);
    assert_eq!(r.tx(), new(&[0, 1, 2]));
    r.ack(0, &[(1, 2)]).ack(0, &[(1, 3)]);
    assert_eq!(r.tx(), vec![]);
    let d = r.s.poll_timeout().unwrap();
    r.at(d);
    r.s.on_timer(d);
    assert_eq!(r.s.stats().timeouts, 1);
    // With step (3) each SACK frees pipe for one new segment, whose SACK
    // makes IsLost(0) true: a fast retransmit instead of a timeout.
    let mut h = Harness::new("rfc6675+lt", 3);
    assert_eq!(h.tx(), new(&[0, 1, 2]));
    h.ack(0, &[(1, 2)]);
    assert_eq!(h.tx(), new(&[3]));
    h.ack(0, &[(1, 3)]);
    assert_eq!(h.tx(), new(&[4]));
    h.ack(0, &[(1, 4)]);
    assert_eq!(h.tx().first(), Some(&rexmit(0)));
    h.ack(5, &[]);
    assert_eq!((h.s.stats().fast_retransmits, h.s.stats().timeouts), (1, 0));
}

#[test]
fn rfc5827_early_retransmit_on_oseg_minus_one_dupacks_when_nothing_new_can_go() {
    let cfg = tcp(4);
    // Three segments to send in all: a loss of the first leaves two dupacks.
    let mut h = Harness::with("newreno+er", cfg.clone(), Some(3000));
    assert_eq!(h.tx(), new(&[0, 1, 2]));
    h.ack(0, &[]);
    assert_eq!(h.tx(), vec![]);
    h.ack(0, &[]);
    assert_eq!(h.tx(), vec![rexmit(0)], "ER_thresh = oseg − 1 = 2");
    let mut n = Harness::with("newreno", cfg, Some(3000));
    assert_eq!(n.tx(), new(&[0, 1, 2]));
    n.ack(0, &[]).ack(0, &[]);
    assert_eq!(n.tx(), vec![], "NewReno waits for a third dupack that never comes");
}

#[test]
fn efr_and_er_cannot_be_combined() {
    let e = parse_variant("reno+efr+er").unwrap_err().0;
    assert!(e.contains("'+efr' and '+er'"), "{e}");
    assert!(parse_variant("reno+eplr+er").is_err());
    assert!(parse_variant("sack+lt+er").is_ok());
}

/// IW = `w` segments in congestion avoidance (ssthresh = w), so that only
/// the policy under test moves cwnd noticeably.
fn small_flight(variant: &str, w: u32, eplr: crate::scenario::model::EplrRetransmit) -> Harness {
    let cfg = TcpConfig { initial_ssthresh: w as u64 * MSS, eplr_retransmit: eplr, ..tcp(w) };
    Harness::with(variant, cfg, None)
}

#[test]
fn eplr_3c_flight_of_three_retransmits_after_two_dupacks_with_one_more_segment() {
    use crate::scenario::model::EplrRetransmit::Early;
    let mut h = small_flight("reno+eplr", 3, Early);
    assert_eq!(h.tx(), new(&[0, 1, 2]));
    h.ack(0, &[]);
    // F = 3 ≤ dupthresh: cwnd + 1 MSS lets one new segment elicit another dupack.
    assert_eq!(h.s.cwnd(), 4000);
    assert_eq!(h.tx(), new(&[3]));
    h.ack(0, &[]);
    assert_eq!(h.tx()[0], rexmit(0), "retransmitted after F − 1 = 2 dupacks");
    assert!(matches!(h.s.poll_event(), Some(SenderEvent::FastRetransmit { ndup: 2, .. })));
    // Reno with the same flight sends nothing and waits for the timer.
    let mut r = small_flight("reno", 3, Early);
    assert_eq!(r.tx(), new(&[0, 1, 2]));
    r.ack(0, &[]).ack(0, &[]);
    assert_eq!(r.tx(), vec![]);
}

#[test]
fn eplr_case_2_flight_of_two_gets_its_third_dupack_from_new_data() {
    use crate::scenario::model::EplrRetransmit::Threshold;
    // eplr Fig. 8 Case 2: "transmit a new packet for each dupack ... receive three dupacks".
    let mut h = small_flight("reno+eplr", 2, Threshold);
    assert_eq!(h.tx(), new(&[0, 1]));
    h.ack(0, &[]);
    assert_eq!(h.tx(), new(&[2]));
    h.ack(0, &[]);
    assert_eq!(h.tx(), new(&[3]));
    h.ack(0, &[]);
    assert_eq!(h.tx()[0], rexmit(0), "the third dupack confirms the loss");
}

#[test]
fn eplr_leaves_a_flight_of_four_to_the_base_algorithm() {
    use crate::scenario::model::EplrRetransmit::Early;
    let mut h = small_flight("reno+eplr", 4, Early);
    assert_eq!(h.tx(), new(&[0, 1, 2, 3]));
    h.ack(0, &[]).ack(0, &[]);
    assert_eq!(h.tx(), vec![], "F = 4 > dupthresh: no growth, no early retransmission (eplr Fig. 8 Case 1)");
    assert_eq!(h.s.cwnd(), 4000);
    h.ack(0, &[]);
    assert_eq!(h.tx()[0], rexmit(0));
}

#[test]
fn fack_enters_recovery_when_snd_fack_runs_more_than_three_segments_ahead() {
    // unfairness §IV: the reassembly queue estimated longer than three segments.
    let mut h = Harness::new("fack", 8);
    assert_eq!(h.tx(), new(&[0, 1, 2, 3, 4, 5, 6, 7]));
    // One dupack (the ACKs for 1..4 were lost) already SACKs 1..5: snd_fack − snd_una = 5 segments.
    h.ack(0, &[(1, 5)]);
    assert!(h.s.in_recovery());
    assert_eq!(h.tx()[0], rexmit(0));
    // The same dupack with only one segment SACKed would not have started it.
    let mut n = Harness::new("fack", 8);
    assert_eq!(n.tx().len(), 8);
    n.ack(0, &[(1, 2)]);
    assert!(!n.s.in_recovery());
}

#[test]
fn fack_detects_a_lost_retransmission_when_snd_fack_passes_its_snd_nxt() {
    let mut h = Harness::new("fack", 8);
    assert_eq!(h.tx(), new(&[0, 1, 2, 3, 4, 5, 6, 7]));
    h.ack(0, &[(1, 2)]).ack(0, &[(1, 3)]).ack(0, &[(1, 4)]);
    // Fast retransmission of 0 with snd_nxt = 8 stored; cwnd = ssthresh = 4.
    assert_eq!(h.tx(), vec![rexmit(0)]);
    assert_eq!(h.s.cwnd(), 4000);
    // awnd = snd_nxt − snd_fack + retran_data, in segments: 8 − 4 + 1 = 5 ≥ cwnd 4.
    assert_eq!(h.tx(), vec![]);
    h.ack(0, &[(1, 5)]); // 8 − 5 + 1 = 4: still not below cwnd
    assert_eq!(h.tx(), vec![]);
    h.ack(0, &[(1, 6)]); // 8 − 6 + 1 = 3: one new segment
    assert_eq!(h.tx(), new(&[8]));
    h.ack(0, &[(1, 7)]); // 9 − 7 + 1 = 3
    assert_eq!(h.tx(), new(&[9]));
    // Segment 8, sent after the retransmission, is SACKed while 0 is still
    // missing: snd_fack (9) has passed the stored snd_nxt (8), so the
    // retransmission was lost; it goes again, ahead of new data.
    h.ack(0, &[(1, 9)]);
    assert_eq!(h.tx()[0], rexmit(0));
    assert_eq!(h.s.stats().timeouts, 0);
    assert_eq!(h.s.stats().retransmitted_segments, 2);
}

fn ece_ack(seg: u64) -> TcpSegment {
    TcpSegment { ack: seg * MSS, flags: TcpFlags(TcpFlags::ACK | TcpFlags::ECE), wnd: 1 << 30, ..TcpSegment::default() }
}

#[test]
fn rfc3168_6_1_2_ece_halves_the_window_once_per_window_and_cwr_follows() {
    let cfg = tcp(8);
    let mut h = Harness::with("newreno+ecn", cfg.clone(), None);
    assert!(h.s.ecn_capable());
    let first: Vec<_> = std::iter::from_fn(|| h.s.poll_transmit(h.now)).collect();
    assert_eq!(first.len(), 8);
    assert!(first.iter().all(|s| !s.flags.has(TcpFlags::CWR)));
    h.s.on_segment(&ece_ack(1), h.now);
    // FlightSize 7 segments → ssthresh = cwnd = 3.5 segments, not grown by this ACK.
    assert_eq!((h.s.ssthresh(), h.s.cwnd()), (3500, 3500));
    assert_eq!(h.s.stats().ecn_reductions, 1);
    // A second ECE within the same window is ignored.
    h.s.on_segment(&ece_ack(2), h.now);
    assert_eq!(h.s.stats().ecn_reductions, 1);
    assert_eq!(h.s.cwnd(), 3500, "and does not grow the window either");
    // The window opens again after more ACKs; the first new segment carries CWR.
    for k in 3..=6 {
        h.ack(k, &[]);
    }
    let next: Vec<_> = std::iter::from_fn(|| h.s.poll_transmit(h.now)).collect();
    assert!(!next.is_empty());
    assert!(next[0].flags.has(TcpFlags::CWR));
    assert!(next[1..].iter().all(|s| !s.flags.has(TcpFlags::CWR)));
    // Once snd_una passes the data outstanding at the reduction, ECE acts again.
    h.ack(8, &[]);
    h.s.on_segment(&ece_ack(9), h.now);
    assert_eq!(h.s.stats().ecn_reductions, 2);

    // Without +ecn the echo means nothing.
    let mut plain = Harness::with("newreno", cfg, None);
    assert_eq!(plain.tx().len(), 8);
    plain.s.on_segment(&ece_ack(1), plain.now);
    assert_eq!((plain.s.stats().ecn_reductions, plain.s.cwnd()), (0, 9000));
}

#[test]
fn rfc3168_a_fast_retransmit_counts_as_the_reduction_and_sets_cwr() {
    let mut h = capped("reno+ecn", 4);
    assert_eq!(h.tx(), new(&[0, 1, 2, 3]));
    h.ack(0, &[]).ack(0, &[]).ack(0, &[]);
    assert_eq!(h.tx(), vec![rexmit(0)]);
    // ECE arriving during fast recovery: no second reduction.
    h.s.on_segment(
        &TcpSegment { flags: TcpFlags(TcpFlags::ACK | TcpFlags::ECE), wnd: 1 << 30, ..TcpSegment::default() },
        h.now,
    );
    assert_eq!(h.s.stats().ecn_reductions, 0);
    h.ack(4, &[]);
    let next = h.s.poll_transmit(h.now).unwrap();
    assert!(!next.is_retransmit && next.flags.has(TcpFlags::CWR));
}

#[test]
fn ecn_fack_retransmits_losses_without_reducing_the_window() {
    // unfairness §VIII: only ECN-Echo or a timeout reduces the window.
    let cfg = TcpConfig { initial_ssthresh: 8 * MSS, ..tcp(8) };
    let mut h = Harness::with("ecn-fack", cfg, None);
    assert!(h.s.ecn_capable());
    assert_eq!(h.tx(), new(&[0, 1, 2, 3, 4, 5, 6, 7]));
    let before = h.s.cwnd();
    h.ack(0, &[(1, 2)]).ack(0, &[(1, 3)]).ack(0, &[(1, 4)]);
    assert!(h.s.in_recovery());
    assert_eq!(h.tx()[0], rexmit(0));
    assert!(h.s.cwnd() > before, "fig. 8: congestion avoidance goes on with every ACK, dupacks included");
    assert_eq!(h.s.stats().fast_retransmits, 1);
}

#[test]
fn ecn_fack_halves_on_ece_at_most_once_per_rtt_and_window() {
    let cfg = TcpConfig { initial_ssthresh: 8 * MSS, ..tcp(8) };
    let mut h = Harness::with("ecn-fack", cfg, None);
    assert_eq!(h.tx().len(), 8);
    h.at(SimTime::ZERO + ms(100)).ack(1, &[]); // an RTT sample of 100 ms
    let cwnd = h.s.cwnd();
    h.s.on_segment(&ece_ack(2), h.now);
    // ssthresh = min(cwnd, snd_wnd)/2.
    assert_eq!((h.s.ssthresh(), h.s.cwnd()), (cwnd / 2, cwnd / 2));
    // Within srtt of the reaction: ignored (the window grows instead).
    h.at(SimTime::ZERO + ms(150));
    h.s.on_segment(&ece_ack(3), h.now);
    assert!(h.s.cwnd() > cwnd / 2);
    // After ecn_backoff, but snd_una has not passed ecn_seq (snd_max then): still ignored.
    h.at(SimTime::ZERO + ms(250));
    h.s.on_segment(&ece_ack(4), h.now);
    assert!(h.s.cwnd() > cwnd / 2);
    assert_eq!(h.s.stats().ecn_reductions, 1);
    // The reduction is announced with CWR, like any ECN sender's.
    h.ack(5, &[]);
    let next = h.s.poll_transmit(h.now).unwrap();
    assert!(next.flags.has(TcpFlags::CWR));
}

#[test]
fn rpld_3_three_dupacks_sacking_later_new_data_expose_a_lost_retransmission() {
    let mut h = Harness::new("sack+rpld", 8);
    assert_eq!(h.tx(), new(&[0, 1, 2, 3, 4, 5, 6, 7]));
    h.ack(0, &[(1, 2)]).ack(0, &[(1, 3)]).ack(0, &[(1, 4)]);
    // Fast retransmission; cwnd = 4 + 3 (NewReno), cwnd_rexmit = 1 segment.
    assert_eq!(h.tx(), vec![rexmit(0)]);
    h.ack(0, &[(1, 5)]);
    assert_eq!(h.tx(), vec![]);
    h.ack(0, &[(1, 6)]);
    h.ack(0, &[(1, 7)]);
    h.ack(0, &[(1, 8)]);
    // Holes? none below snd_fack besides 0, already retransmitted: only new data.
    assert_eq!(h.tx(), new(&[8, 9, 10]));
    // The retransmission of 0 was lost; 8, 9, 10 arrive and are SACKed.
    h.ack(0, &[(1, 9)]);
    h.ack(0, &[(1, 10)]);
    assert!(!h.tx().contains(&rexmit(0)), "two dupacks covering new data are not enough");
    h.ack(0, &[(1, 11)]);
    let out = h.tx();
    assert_eq!(out.first(), Some(&rexmit(0)), "the third one is: {out:?}");
    assert_eq!(h.s.stats().timeouts, 0);

    // FF96 SACK sees nothing wrong and waits for the timer.
    let mut s = Harness::new("sack", 8);
    assert_eq!(s.tx().len(), 8);
    for k in 2..=8 {
        s.ack(0, &[(1, k)]);
    }
    let sent = s.tx();
    assert_eq!(sent.iter().filter(|&&x| x == rexmit(0)).count(), 1, "the one fast retransmission: {sent:?}");
    for k in 9..=11 {
        s.ack(0, &[(1, k)]);
    }
    assert!(!s.tx().contains(&rexmit(0)));
}

/// The rpld paper's baseline: its SACK TCP without RPLD sends exactly what
/// `sack+rpld` sends until a retransmission is lost, and then waits for the
/// timer, as the paper's SACK does (rpld §4.2).
#[test]
fn rpld_the_authors_sack_without_rpld_sends_the_same_until_a_retransmission_is_lost() {
    let run = |variant: &str| {
        let mut h = Harness::new(variant, 8);
        let mut sent = h.tx();
        h.ack(0, &[(1, 2)]).ack(0, &[(1, 3)]).ack(0, &[(1, 4)]);
        sent.extend(h.tx());
        for k in 5..=8 {
            h.ack(0, &[(1, k)]);
            sent.extend(h.tx());
        }
        // The retransmission of 0 was lost; the new segments 8-10 are SACKed.
        for k in 9..=11 {
            h.ack(0, &[(1, k)]);
            sent.extend(h.tx());
        }
        (sent, h.s.poll_timeout())
    };
    let (with, _) = run("sack+rpld");
    let (without, timer) = run("sack-cautious");
    let count = |v: &[(u64, bool)]| v.iter().filter(|&&x| x == rexmit(0)).count();
    assert_eq!(
        (count(&with), count(&without)),
        (2, 1),
        "RPLD resends it, the timer must otherwise: {with:?} {without:?}"
    );
    let second = with.iter().rposition(|&x| x == rexmit(0)).unwrap();
    assert_eq!(with[..second], without[..second], "identical up to RPLD's detection");
    assert!(timer.is_some());
    assert_eq!(parse_variant("sack-cautious+rpld").unwrap().base, parse_variant("sack-cautious").unwrap().base);
}

/// rpld §4.1: after a timeout, the authors' SACK TCP "selectively
/// retransmits only the packets lost", where Reno slow-starts through the
/// whole window again.
#[test]
fn rpld_after_a_timeout_the_authors_sack_resends_only_what_was_not_sacked() {
    for v in ["sack-cautious", "sack+rpld"] {
        // A threshold above the window: the losses are left to the timer.
        let cfg = TcpConfig { dupthresh: 20, ..tcp(10) };
        let mut h = Harness::with(v, cfg, None);
        assert_eq!(h.tx().len(), 10);
        // 0, 2, 4, 6 and 8 lost: the receiver reports 1, 3, 5, 7 and 9, its
        // ACKs carrying the three most recent blocks (RFC 2018 §4).
        h.ack(0, &[(1, 2)]).ack(0, &[(3, 4), (1, 2)]).ack(0, &[(5, 6), (3, 4), (1, 2)]);
        h.ack(0, &[(7, 8), (5, 6), (3, 4)]).ack(0, &[(9, 10), (7, 8), (5, 6)]);
        assert_eq!(h.tx(), vec![]);
        let d = h.s.poll_timeout().unwrap();
        h.at(d);
        h.s.on_timer(d);
        assert_eq!(h.tx(), vec![rexmit(0)], "{v}: cwnd = 1 after the timeout");
        // The retransmission of 0 arrives: ACK 2, and the one block the
        // receiver thinks most recent. 3 is no longer reported but was.
        h.ack(2, &[(9, 10)]);
        // Slow start (cwnd 2) resends the holes 2 and 4, not 3, which the
        // receiver holds: the SACK information outlives the timeout.
        assert_eq!(h.tx(), vec![rexmit(2), rexmit(4)], "{v}");
    }
}

#[test]
fn rpld_only_composes_with_sack() {
    assert!(parse_variant("sack+rpld").is_ok());
    assert!(parse_variant("sack-cautious+rpld").is_ok());
    let e = parse_variant("newreno+rpld").unwrap_err().0;
    assert!(e.contains("sack+rpld"), "{e}");
}

fn tagged_ack(seg: u64, tag: u32) -> TcpSegment {
    TcpSegment { ack: seg * MSS, flags: TcpFlags(TcpFlags::ACK), wnd: 1 << 30, tag, ..TcpSegment::default() }
}

#[test]
fn irw_3_revives_the_window_when_the_ack_echoes_the_original_tag() {
    for (echo, revived) in [("original", true), ("retransmission", false)] {
        let cfg = tcp(4);
        let mut h = Harness::with("reno+irw", cfg, None);
        let sent: Vec<_> = std::iter::from_fn(|| h.s.poll_transmit(h.now)).collect();
        let original_tag = sent[0].tag;
        assert_eq!(
            sent.iter().map(|s| s.tag).collect::<std::collections::BTreeSet<_>>().len(),
            4,
            "a tag per transmission"
        );
        h.ack(0, &[]).ack(0, &[]).ack(0, &[]);
        let rexmit = h.s.poll_transmit(h.now).unwrap();
        assert!(rexmit.is_retransmit && rexmit.tag != original_tag, "a fresh tag for the retransmission");
        assert_eq!(h.s.cwnd(), 2000 + 3000, "Reno's reduction first");
        let tag = if revived { original_tag } else { rexmit.tag };
        h.s.on_segment(&tagged_ack(4, tag), h.now);
        if revived {
            // The original segment was only delayed: back to the window before the retransmission.
            assert_eq!((h.s.cwnd(), h.s.ssthresh(), h.s.stats().window_undos), (4000, u64::MAX, 1), "{echo}");
        } else {
            assert_eq!((h.s.cwnd(), h.s.ssthresh(), h.s.stats().window_undos), (2000, 2000, 0), "{echo}");
        }
    }
}

/// `loss_ssthresh = "window"` mirrors ns-2's `slowdown()`: it halves
/// `cwnd_`, which in ns-2 never holds the fast-recovery inflation (`dupwnd_`,
/// zeroed by `NewRenoTcpAgent::timeout` before `slowdown()`), and it does so
/// at every expiry of the timer, backoffs included (`TcpAgent::timeout`).
#[test]
fn loss_ssthresh_window_halves_the_window_without_the_dupack_inflation_at_every_timeout() {
    for (rule, after_first, after_second) in
        [(LossSsthresh::Window, 3000, 2000), (LossSsthresh::FlightSize, 8500, 8500)]
    {
        let cfg = TcpConfig { loss_ssthresh: rule, ..tcp(14) };
        let mut h = Harness::with("newreno", cfg, None);
        assert_eq!(h.tx().len(), 14);
        // Segment 0 lost: 13 dupacks. The fast retransmit on the third sets
        // ssthresh = 7 (14 / 2 either way), cwnd = 7 + 3; each further
        // dupack inflates it: 17 after the tenth.
        for _ in 0..10 {
            h.ack(0, &[]);
        }
        h.tx();
        assert_eq!((h.s.cwnd(), h.s.ssthresh()), (17_000, 7000), "{rule:?}");
        // The retransmission is lost too: the timer fires in recovery.
        let d = h.s.poll_timeout().unwrap();
        h.at(d);
        h.s.on_timer(d);
        // "window": half of the window without the inflation, 7 / 2 = 3
        // segments (half of the inflated 17 would be 8). "flightsize":
        // FlightSize / 2 (RFC 5681 eq. 4), 17 / 2 with the three new
        // segments the inflated window let out.
        assert_eq!((h.s.cwnd(), h.s.ssthresh()), (1000, after_first), "{rule:?}");
        assert_eq!(h.tx(), vec![rexmit(0)]);
        // The timer fires again: ns-2 halves cwnd_ = 1 (ssthresh 2); RFC 5681
        // §3.1 holds ssthresh constant for a segment the timer already resent.
        let d = h.s.poll_timeout().unwrap();
        h.at(d);
        h.s.on_timer(d);
        assert_eq!(h.s.ssthresh(), after_second, "{rule:?}");
    }
}

/// `loss_ssthresh = "pipe"` mirrors ns-3's SACK sender: ssthresh is half of
/// RFC 6675's pipe, not of FlightSize, when the recovery starts
/// (`TcpSocketBase::EnterRecovery`) and before every timer expiry
/// (`ReTxTimeout`'s `inFlightBeforeRto`), where pipe after a timeout is what
/// left since it.
#[test]
fn loss_ssthresh_pipe_halves_what_is_in_the_network_as_ns3_does() {
    for (rule, at_fr, at_rto, at_backoff) in
        [(LossSsthresh::Pipe, 2000, 2500, 2000), (LossSsthresh::FlightSize, 4000, 4000, 4000)]
    {
        let cfg = TcpConfig { loss_ssthresh: rule, ..tcp(8) };
        let mut h = Harness::with("rfc6675", cfg, None);
        assert_eq!(h.tx().len(), 8);
        // Segment 0 lost; the third SACK makes IsLost(0): FlightSize 8,
        // pipe 8 − 3 SACKed − 1 lost = 4 segments.
        h.ack(0, &[(1, 2)]).ack(0, &[(1, 3)]).ack(0, &[(1, 4)]);
        assert!(h.s.in_recovery());
        assert_eq!(h.s.ssthresh(), at_fr, "{rule:?}");
        h.tx();
        // The retransmission is lost too, and so is everything after it:
        // the timer fires with pipe = 4 not SACKed, not lost, plus the
        // retransmission, 5 segments; FlightSize is still 8.
        let d = h.s.poll_timeout().unwrap();
        h.at(d);
        h.s.on_timer(d);
        assert_eq!(h.s.ssthresh(), at_rto, "{rule:?}");
        assert_eq!(h.tx(), vec![rexmit(0)]);
        // A backoff: since the timeout one segment left, so ns-3 halves
        // one segment (at least 2·SMSS); RFC 5681 §3.1 holds ssthresh.
        let d = h.s.poll_timeout().unwrap();
        h.at(d);
        h.s.on_timer(d);
        assert_eq!(h.s.ssthresh(), at_backoff, "{rule:?}");
    }
}

/// `tcp.cubic_arithmetic = "ns3"`: the sender takes ssthresh from the
/// controller's whole-segment rule, max(⌊0.7·⌊cwnd/SMSS⌋⌋, 2) segments, at
/// the fast retransmit and at every expiry of the timer (ns-3's `TcpCubic`
/// `GetSsThresh`, which `ReTxTimeout` calls each time); RFC 9438 §4.6 takes
/// 0.7·FlightSize and RFC 5681 §3.1 holds it over a backoff.
#[test]
fn cubic_ns3_arithmetic_sets_ssthresh_in_whole_segments_of_cwnd_at_every_loss() {
    use crate::scenario::model::CubicArithmetic;
    for arith in [CubicArithmetic::Rfc9438, CubicArithmetic::Ns3] {
        let cfg = TcpConfig { cubic_arithmetic: arith, ..tcp(15) };
        let mut h = Harness::with("rfc6675+cc=cubic", cfg, None);
        assert_eq!(h.tx().len(), 15);
        h.ack(0, &[(1, 2)]).ack(0, &[(1, 3)]).ack(0, &[(1, 4)]);
        assert!(h.s.in_recovery());
        // FlightSize 15 segments: 0.7 · 15000 = 10500 bytes; ns-3: ⌊0.7 · 15⌋ = 10 segments.
        let at_fr = if arith == CubicArithmetic::Ns3 { 10_000 } else { 10_500 };
        assert_eq!(h.s.ssthresh(), at_fr, "{arith:?}");
        h.tx();
        let d = h.s.poll_timeout().unwrap();
        h.at(d);
        let cwnd = h.s.cwnd();
        h.s.on_timer(d);
        let at_rto = h.s.ssthresh();
        if arith == CubicArithmetic::Ns3 {
            assert_eq!(at_rto, ((cwnd / 1000) * 7 / 10).max(2) * 1000, "from cwnd {cwnd}");
        }
        h.tx();
        // A backoff: ns-3 recomputes from cwnd = 1 segment (2 at least);
        // RFC 5681 §3.1 holds ssthresh for a segment the timer already resent.
        let d = h.s.poll_timeout().unwrap();
        h.at(d);
        h.s.on_timer(d);
        let at_backoff = if arith == CubicArithmetic::Ns3 { 2000 } else { at_rto };
        assert_eq!(h.s.ssthresh(), at_backoff, "{arith:?}");
    }
}

/// `tcp.rto.on_fast_retransmit`: BSD, Linux and ns-2 start the timer afresh
/// with the fast retransmission; ns-3 (and RFC 6298 §5.1 read literally:
/// start the timer at a send only when it is not running) leaves it running
/// from the last ACK of new data, so a recovery that has not ended one RTO
/// after that ACK times out.
#[test]
fn rto_on_fast_retransmit_restarts_or_keeps_the_running_timer() {
    for (rule, restarted) in [(RtoOnFastRetransmit::Restart, true), (RtoOnFastRetransmit::Keep, false)] {
        let rto = RtoConfig { on_fast_retransmit: rule, ..RtoConfig::default() };
        let cfg = TcpConfig { rto, ..tcp(8) };
        let mut h = Harness::with("rfc6675", cfg, None);
        assert_eq!(h.tx().len(), 8);
        // The last ACK of new data (segment 0) at 100 ms restarts the timer.
        h.at(SimTime::ZERO + ms(100)).ack(1, &[]);
        let from_ack = h.s.poll_timeout().unwrap();
        assert_eq!(from_ack, SimTime::ZERO + ms(100) + ms(1000));
        // Segment 1 lost; three SACKs 400 ms later start the recovery.
        h.at(SimTime::ZERO + ms(500)).ack(1, &[(2, 3)]).ack(1, &[(2, 4)]).ack(1, &[(2, 5)]);
        assert!(h.s.in_recovery());
        assert_eq!(h.tx()[0], rexmit(1), "{rule:?}");
        let d = h.s.poll_timeout().unwrap();
        let want = if restarted { SimTime::ZERO + ms(500) + ms(1000) } else { from_ack };
        assert_eq!(d, want, "{rule:?}");
        // The retransmission is lost as well: the timer fires at that deadline.
        h.at(d);
        h.s.on_timer(d);
        assert_eq!(h.s.stats().timeouts, 1, "{rule:?}");
    }
}

/// `tcp.rto.backoff_reset`: after a timeout the ACK of the retransmission
/// gives no RTT sample (Karn), so under RFC 6298 §5 the backed-off RTO
/// stays until a later measurement; ns-3 (`TcpSocketBase::NewAck`)
/// recomputes the RTO from SRTT and RTTVAR at every ACK that restarts the
/// timer, which ends the backoff at once.
#[test]
fn rto_backoff_lasts_until_a_sample_or_ends_at_the_next_new_ack() {
    for (rule, backed_off) in [(BackoffReset::Sample, true), (BackoffReset::NewAck, false)] {
        let rto = RtoConfig { backoff_reset: rule, ..RtoConfig::default() };
        let cfg = TcpConfig { rto, ..tcp(4) };
        let mut h = Harness::with("newreno", cfg, None);
        assert_eq!(h.tx().len(), 4);
        // A 100 ms sample: the RTO is its 1 s floor.
        h.at(SimTime::ZERO + ms(100)).ack(1, &[]);
        h.tx();
        let d = h.s.poll_timeout().unwrap();
        assert_eq!(d, SimTime::ZERO + ms(1100));
        // Segment 1 and the rest are lost: the timer fires and doubles.
        h.at(d);
        h.s.on_timer(d);
        assert_eq!(h.tx(), vec![rexmit(1)], "{rule:?}");
        assert_eq!(h.s.poll_timeout().unwrap(), SimTime::ZERO + ms(1100) + ms(2000), "{rule:?}");
        // The retransmission's ACK: no sample (Karn), but new data acknowledged.
        h.at(SimTime::ZERO + ms(1300)).ack(2, &[]);
        let rto = if backed_off { ms(2000) } else { ms(1000) };
        assert_eq!(h.s.poll_timeout().unwrap(), SimTime::ZERO + ms(1300) + rto, "{rule:?}");
    }
}

/// `tcp.timeout_exit_growth`: after a timeout every ACK of new data grows
/// the window in slow start (RFC 5681 §3.1), the one that reaches the
/// highest sequence sent before the timeout too; ns-3 counts for that ACK
/// only the whole segments above that point, so an ACK that ends there
/// leaves cwnd at one segment for another round trip.
#[test]
fn timeout_exit_growth_counts_the_ack_that_reaches_the_old_snd_max_or_only_what_is_above() {
    // ssthresh is 2 segments after the timeout: beyond it, congestion avoidance.
    for (rule, cwnd_after, cwnd_next) in
        [(TimeoutExitGrowth::Acked, 2000, 2500), (TimeoutExitGrowth::AboveRecover, 1000, 2000)]
    {
        let cfg = TcpConfig { timeout_exit_growth: rule, ..tcp(2) };
        let mut h = Harness::with("rfc6675", cfg, None);
        assert_eq!(h.tx().len(), 2);
        // Segment 0 is lost, segment 1 arrives: one SACK, then the timer.
        h.at(SimTime::ZERO + ms(100)).ack(0, &[(1, 2)]);
        h.tx();
        let d = h.s.poll_timeout().unwrap();
        h.at(d);
        h.s.on_timer(d);
        assert_eq!(h.tx(), vec![rexmit(0)], "{rule:?}");
        assert_eq!(h.s.cwnd(), 1000);
        // The retransmission's ACK covers both segments, up to snd_max at the timeout.
        h.at(d + ms(100)).ack(2, &[]);
        assert_eq!(h.s.cwnd(), cwnd_after, "{rule:?}");
        let sent = h.tx();
        assert_eq!(sent.len() as u64, cwnd_after / 1000, "{rule:?}: {sent:?}");
        // Beyond that point every ACK grows it again, under both rules.
        h.at(d + ms(200)).ack(3, &[]);
        assert_eq!(h.s.cwnd(), cwnd_next, "{rule:?}");
    }
}

/// `tcp.rfc6675_rto_reset`: RFC 6298 §5.3 restarts the timer at every ACK
/// of new data, partial ACKs of an RFC 6675 recovery included ("every");
/// ns-3 restarts it at the first partial ACK of a recovery only ("first",
/// `NewAck(ackNumber, m_isFirstPartialAck)`), as RFC 6582's Impatient
/// variant does for NewReno. The ACK that ends the recovery restarts it in both.
#[test]
fn rfc6675_partial_acks_restart_the_timer_every_time_or_the_first_time() {
    for (rule, second) in [(PartialAckRtoReset::Every, ms(300)), (PartialAckRtoReset::First, ms(200))] {
        let cfg = TcpConfig { rfc6675_rto_reset: rule, ..tcp(8) };
        let mut h = Harness::with("rfc6675", cfg, None);
        assert_eq!(h.tx().len(), 8);
        // 0, 2 and 4 lost; three SACKs start the recovery at 100 ms.
        h.at(SimTime::ZERO + ms(100)).ack(0, &[(1, 2)]).ack(0, &[(3, 4), (1, 2)]).ack(0, &[(5, 6), (3, 4), (1, 2)]);
        assert!(h.s.in_recovery());
        h.tx();
        assert_eq!(h.s.poll_timeout().unwrap(), SimTime::ZERO + ms(1100), "{rule:?}");
        // The first partial ACK restarts the timer under both rules ...
        h.at(SimTime::ZERO + ms(200)).ack(2, &[(5, 8), (3, 4)]);
        assert!(h.s.in_recovery());
        h.tx();
        assert_eq!(h.s.poll_timeout().unwrap(), SimTime::ZERO + ms(1200), "{rule:?}");
        // ... the second only under "every".
        h.at(SimTime::ZERO + ms(300)).ack(4, &[(5, 8)]);
        assert!(h.s.in_recovery());
        h.tx();
        assert_eq!(h.s.poll_timeout().unwrap(), SimTime::ZERO + second + ms(1000), "{rule:?}");
        // The full ACK ends the recovery and restarts the timer.
        h.at(SimTime::ZERO + ms(400)).ack(8, &[]);
        assert!(!h.s.in_recovery());
        h.tx();
        assert_eq!(h.s.poll_timeout().unwrap(), SimTime::ZERO + ms(1400), "{rule:?}");
    }
}

/// ns-2's `slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF)` leaves `cwnd_` at
/// half the window unrounded and ssthresh at it rounded down; Reno's
/// deflation zeroes only the inflation, so an odd window of 25 at the loss
/// leaves recovery at 12.5 segments with `"window"`, and at ssthresh = 12
/// (RFC 5681 §3.2 step 6) otherwise.
#[test]
fn loss_ssthresh_window_leaves_reno_recovery_at_the_unrounded_half_window() {
    for (rule, ssthresh, exit) in [(LossSsthresh::Window, 12_000, 12_500), (LossSsthresh::FlightSize, 12_500, 12_500)] {
        let cfg = TcpConfig { loss_ssthresh: rule, ..tcp(25) };
        let mut h = Harness::with("reno", cfg, None);
        assert_eq!(h.tx().len(), 25);
        for _ in 0..3 {
            h.ack(0, &[]);
        }
        assert_eq!(h.tx(), vec![rexmit(0)]);
        assert_eq!((h.s.cwnd(), h.s.ssthresh()), (ssthresh + 3000, ssthresh), "{rule:?}");
        h.ack(25, &[]);
        assert_eq!((h.s.cwnd(), h.s.ssthresh()), (exit, ssthresh), "{rule:?}");
    }
    // An even window: both give 12 segments.
    let cfg = TcpConfig { loss_ssthresh: LossSsthresh::Window, ..tcp(24) };
    let mut h = Harness::with("reno", cfg, None);
    h.tx();
    for _ in 0..3 {
        h.ack(0, &[]);
    }
    h.ack(24, &[]);
    assert_eq!((h.s.cwnd(), h.s.ssthresh()), (12_000, 12_000));
}

/// The same for Fall & Floyd's SACK (ns-2's `Sack1`): with `"window"` the
/// recovery sends while pipe is below ssthresh = 12 whole segments (ns-2's
/// `pipe_ < window()`, which truncates `cwnd_` = 12.5), and it ends at the
/// unrounded 12.5 segments; with `"flightsize"` ssthresh is 12,500 bytes
/// throughout, so pipe = 12 segments already lets one out.
#[test]
fn loss_ssthresh_window_leaves_sack_recovery_at_the_unrounded_half_window() {
    for (rule, ssthresh, exit, at_twelve) in
        [(LossSsthresh::Window, 12_000, 12_500, vec![]), (LossSsthresh::FlightSize, 12_500, 12_500, vec![(25, false)])]
    {
        let cfg = TcpConfig { loss_ssthresh: rule, ..tcp(25) };
        let mut h = Harness::with("sack", cfg, None);
        assert_eq!(h.tx().len(), 25);
        h.ack(0, &[(1, 2)]).ack(0, &[(1, 3)]).ack(0, &[(1, 4)]);
        assert_eq!(h.tx(), vec![rexmit(0)]);
        assert_eq!((h.s.cwnd(), h.s.ssthresh()), (ssthresh, ssthresh), "{rule:?}");
        // pipe = 25 - 3 = 22 outstanding: nothing more until it falls below cwnd.
        for k in 5..=14 {
            h.ack(0, &[(1, k)]);
        }
        assert_eq!(h.tx(), at_twelve, "{rule:?}: pipe = 12 segments");
        h.ack(0, &[(1, 15)]);
        let next = if at_twelve.is_empty() { 25 } else { 26 };
        assert_eq!(h.tx(), vec![(next, false)], "{rule:?}: pipe = 11 segments");
        h.ack(next + 1, &[]);
        assert!(!h.s.in_recovery());
        assert_eq!((h.s.cwnd(), h.s.ssthresh()), (exit, ssthresh), "{rule:?}");
    }
}

/// `tcp.recovery_exit_growth = "grow"` (ns-2's Reno and NewReno agents):
/// the ACK that ends recovery sets the window as the RFCs say and then
/// grows it as any other ACK of new data. Reno: deflated to ssthresh = 10
/// segments, then congestion avoidance adds MSS²/cwnd. NewReno's full ACK
/// with nothing left outstanding: ns-2's min(ssthresh, FlightSize + 1) = 1
/// segment, then slow start to 2, where RFC 6582's floor gives 2 at once.
#[test]
fn recovery_exit_growth_grows_the_window_on_the_ack_that_ends_recovery() {
    for (growth, reno_exit, newreno_exit) in
        [(RecoveryExitGrowth::None, 10_000, 2_000), (RecoveryExitGrowth::Grow, 10_100, 2_000)]
    {
        for (variant, exit) in [("reno", reno_exit), ("newreno", newreno_exit)] {
            let cfg = TcpConfig { recovery_exit_growth: growth, ..tcp(20) };
            let mut h = Harness::with(variant, cfg, None);
            assert_eq!(h.tx().len(), 20);
            for _ in 0..3 {
                h.ack(0, &[]);
            }
            assert_eq!(h.tx(), vec![rexmit(0)]);
            h.ack(20, &[]);
            assert!(!h.s.in_recovery());
            assert_eq!(h.s.cwnd(), exit, "{variant} {growth:?}");
        }
    }
    // With data left outstanding the full ACK's min(ssthresh, FlightSize + SMSS)
    // is the same under both rules, and the growth adds one segment in slow start.
    for (growth, exit) in [(RecoveryExitGrowth::None, 7_000), (RecoveryExitGrowth::Grow, 8_000)] {
        let cfg = TcpConfig { recovery_exit_growth: growth, ..tcp(20) };
        let mut h = Harness::with("newreno", cfg, None);
        h.tx();
        for _ in 0..3 {
            h.ack(0, &[]);
        }
        h.tx();
        // Dupacks inflate cwnd to ssthresh + 16 = 26 segments: 6 new ones go out.
        for _ in 0..13 {
            h.ack(0, &[]);
        }
        assert_eq!(h.tx().len(), 6, "{growth:?}");
        h.ack(20, &[]);
        assert!(!h.s.in_recovery());
        assert_eq!(h.s.cwnd(), exit, "{growth:?}: FlightSize 6 + 1 segments, below ssthresh 10");
    }
}

/// `rfc6675` with `rfc6675_exit_growth = "grow"` (ns-3's `ProcessAck`):
/// the ACK that ends the recovery also grows the window, here by
/// congestion avoidance's MSS²/cwnd from cwnd = ssthresh = 10 segments;
/// RFC 6675 §5 leaves it at 10.
#[test]
fn rfc6675_exit_growth_grows_the_window_on_the_ack_that_ends_recovery() {
    for (growth, exit) in [(RecoveryExitGrowth::None, 10_000), (RecoveryExitGrowth::Grow, 10_100)] {
        let cfg = TcpConfig { rfc6675_exit_growth: growth, ..tcp(20) };
        let mut h = Harness::with("rfc6675", cfg, None);
        assert_eq!(h.tx().len(), 20);
        for k in 1..=3 {
            h.ack(0, &[(1, k + 1)]);
        }
        assert!(h.s.in_recovery());
        assert_eq!(h.tx().first(), Some(&rexmit(0)));
        h.ack(20, &[]);
        assert!(!h.s.in_recovery());
        assert_eq!(h.s.cwnd(), exit, "{growth:?}");
    }
}

/// The sender hands the controller each ACK's DeliveredData (RFC 6937 §3):
/// the ACK that fills a hole below SACKed data delivers one segment though
/// it acknowledges three. ns-3's CUBIC slow start counts that one (ns-3
/// takes `segmentsAcked` from `currentDelivered`); with the cumulative
/// advance the window would open by three.
#[test]
fn the_controller_sees_the_data_an_ack_newly_delivers() {
    use crate::scenario::model::CubicArithmetic;
    let cfg = TcpConfig { cubic_arithmetic: CubicArithmetic::Ns3, ..tcp(4) };
    let mut h = Harness::with("rfc6675+cc=cubic", cfg, None);
    assert_eq!(h.tx().len(), 4);
    // 0 is late; 1 and 2 arrive and are SACKed by one duplicate ACK.
    h.ack(0, &[(1, 3)]);
    assert!(!h.s.in_recovery());
    assert_eq!(h.s.cwnd(), 4 * MSS);
    // 0 arrives: ACK 3 acknowledges three segments and delivers one.
    h.ack(3, &[]);
    assert_eq!(h.s.cwnd(), 5 * MSS, "one segment delivered, not three");
    // An ACK that acknowledges one and newly SACKs another: two delivered.
    h.tx();
    h.ack(4, &[(5, 6)]);
    assert_eq!(h.s.cwnd(), 7 * MSS);
}

/// ns-3 counts the ACK that ends a recovery by its cumulative advance, not
/// by the data it newly delivers (`ProcessAck` recomputes `segmentsAcked`
/// from `ackNumber - oldHeadSequence` on leaving `CA_RECOVERY`): with ns-3's
/// CUBIC that ACK, acknowledging 21 segments of which 20 were SACKed, feeds
/// 21 to the ACK counter. W_max 21, the epoch from 14, t = 0.1 s (the
/// least smoothed RTT): the target is 21 − ⌊0.4 · (2.60 − 0.1)³⌋ = 15, cnt
/// = 14, so the window grows on that ACK; counting the one segment it
/// delivers, it would not.
#[test]
fn cubic_ns3_counts_the_ack_that_ends_a_recovery_by_its_whole_advance() {
    use crate::scenario::model::CubicArithmetic;
    let cfg =
        TcpConfig { cubic_arithmetic: CubicArithmetic::Ns3, rfc6675_exit_growth: RecoveryExitGrowth::Grow, ..tcp(20) };
    let mut h = Harness::with("rfc6675+cc=cubic", cfg, None);
    assert_eq!(h.tx().len(), 20);
    h.at(SimTime::ZERO + ms(100));
    h.ack(1, &[]);
    assert_eq!(h.tx().len(), 2, "slow start: 21 segments");
    for k in 2..=21 {
        h.ack(1, &[(2, k + 1)]);
        h.tx();
    }
    assert!(h.s.in_recovery());
    assert_eq!(h.s.cwnd(), 14 * MSS, "⌊0.7 · 21⌋");
    h.ack(22, &[]);
    assert!(!h.s.in_recovery());
    assert_eq!(h.s.cwnd(), 15 * MSS);
}

/// ns-3's CUBIC at a timeout (`ReTxTimeout`): `GetSsThresh` sets W_max at
/// every expiry, backoffs included, and `CubicReset` keeps it. One expiry at
/// cwnd 21: W_max 21, ssthresh 14, and once slow start is back at 14 the
/// epoch aims at 21 − ⌊0.4 · (2.60 − 0.1)³⌋ = 15 (cnt 14): the fourteenth
/// ACK of congestion avoidance grows the window. A backoff (cwnd one
/// segment) sets W_max to ⌊1.7 / 2⌋ = 0 and ssthresh to 2: from 2, cnt is
/// clamped to 20 and the Reno-friendly window takes it to 2 at the fourth
/// ACK; with W_max still 21 the target would be far ahead (cnt 2 at once).
#[test]
fn cubic_ns3_keeps_w_max_through_a_timeout_and_sets_it_at_every_expiry() {
    use crate::scenario::model::CubicArithmetic;
    for (expiries, ssthresh, growth_at) in [(1, 14, 14), (2, 2, 4)] {
        let cfg = TcpConfig { cubic_arithmetic: CubicArithmetic::Ns3, ..tcp(20) };
        let mut h = Harness::with("rfc6675+cc=cubic", cfg, None);
        assert_eq!(h.tx().len(), 20);
        h.at(SimTime::ZERO + ms(100));
        h.ack(1, &[]);
        assert_eq!(h.tx().len(), 2, "slow start: 21 segments");
        for _ in 0..expiries {
            let d = h.s.poll_timeout().unwrap();
            h.at(d);
            h.s.on_timer(d);
            assert_eq!(h.tx(), vec![rexmit(1)]);
        }
        assert_eq!(h.s.stats().timeouts, expiries);
        let t = h.now + ms(100);
        h.at(t);
        let mut una = 1;
        while h.s.cwnd() < ssthresh * MSS {
            una += 1;
            h.ack(una, &[]);
            h.tx();
        }
        assert_eq!(h.s.cwnd(), ssthresh * MSS, "{expiries} expiries");
        let n = (1..=30).find(|_| {
            una += 1;
            h.ack(una, &[]);
            h.tx();
            h.s.cwnd() > ssthresh * MSS
        });
        assert_eq!(n, Some(growth_at), "{expiries} expiries");
    }
}

#[test]
fn rfc6675_nextseg_retransmits_lost_segments_while_cwnd_minus_pipe_allows() {
    let mut h = Harness::new("rfc6675", 8);
    assert_eq!(h.tx(), new(&[0, 1, 2, 3, 4, 5, 6, 7]));
    // 0, 2 and 4 lost.
    h.ack(0, &[(1, 2)]).ack(0, &[(3, 4), (1, 2)]).ack(0, &[(5, 6), (3, 4), (1, 2)]);
    // ssthresh = cwnd = 4; pipe = 4 unSACKed not lost (2, 4, 6, 7) + 1 retransmitted = 5.
    assert_eq!(h.s.cwnd(), 4000);
    assert_eq!(h.tx(), vec![rexmit(0)]);
    // 6 SACKed: IsLost(2) holds now; pipe = 2 (4, 7) + 1 = 3: one segment, the lost 2.
    h.ack(0, &[(5, 7), (3, 4), (1, 2)]);
    assert_eq!(h.tx(), vec![rexmit(2)]);
    // 7 SACKed: 4 is lost too; pipe = 0 + 2 retransmissions: rule (1) then rule (2).
    h.ack(0, &[(5, 8), (3, 4), (1, 2)]);
    assert_eq!(h.tx(), vec![rexmit(4), (8, false)]);
    h.ack(9, &[]);
    assert!(!h.s.in_recovery());
    assert_eq!((h.s.stats().fast_retransmits, h.s.stats().timeouts), (1, 0));
}

/// An RFC 6675 recovery of segments 0, 2 and 4 of 8 in which the
/// retransmission of 0 is lost again and that of 2 arrives (the receiver
/// SACKs it): what the sender sends on that SACK, and its pipe before and
/// after, under `tcp.rfc6675_pipe = rule`; then the pipe once a second
/// retransmission of 0 has arrived and the ACK covers 0 to 4.
fn rfc6675_after_a_sacked_retransmission(rule: Rfc6675Pipe) -> (Vec<(u64, bool)>, u64, u64, u64) {
    let cfg = TcpConfig { rfc6675_pipe: rule, ..tcp(8) };
    let mut h = Harness::with("rfc6675", cfg, None);
    assert_eq!(h.tx(), new(&[0, 1, 2, 3, 4, 5, 6, 7]));
    h.ack(0, &[(1, 2)]).ack(0, &[(3, 4), (1, 2)]).ack(0, &[(5, 6), (3, 4), (1, 2)]);
    assert_eq!(h.tx(), vec![rexmit(0)]);
    h.ack(0, &[(5, 7), (3, 4), (1, 2)]);
    assert_eq!(h.tx(), vec![rexmit(2)]);
    h.ack(0, &[(5, 8), (3, 4), (1, 2)]);
    assert_eq!(h.tx(), vec![rexmit(4), (8, false)]);
    let before = h.s.pipe().expect("an RFC 6675 pipe");
    // The retransmission of 2 arrives; that of 0 was lost.
    h.ack(0, &[(1, 4), (5, 8)]);
    let after = h.s.pipe().expect("an RFC 6675 pipe");
    let sent = h.tx();
    h.ack(5, &[(5, 9)]);
    let acked = h.s.pipe().expect("an RFC 6675 pipe");
    (sent, before, after, acked)
}

#[test]
fn rfc6675_pipe_drops_a_retransmission_once_it_is_sacked() {
    // RFC 6675 §4 SetPipe counts only octets not SACKed: 2's retransmission
    // leaves pipe, and the window it held sends new data (rule 2).
    let (sent, before, after, _) = rfc6675_after_a_sacked_retransmission(Rfc6675Pipe::Rfc6675);
    assert_eq!(after + MSS, before);
    assert_eq!(sent, new(&[9]));
}

#[test]
fn ns3_pipe_keeps_a_sacked_retransmission_until_it_is_acknowledged() {
    // ns-3's TcpTxBuffer keeps the retransmitted mark of a SACKed segment
    // (BytesInFlight = sent − SACKed − lost + retransmitted): pipe does not
    // move, nothing is sent, and while 0's lost retransmission holds the
    // cumulative ACK every later retransmission holds a segment of the
    // window this way until the timer expires.
    let (sent, before, after, acked) = rfc6675_after_a_sacked_retransmission(Rfc6675Pipe::Ns3);
    assert_eq!(after, before);
    assert_eq!(sent, vec![]);
    // Once the cumulative ACK passes them, the retransmissions leave ns-3's
    // pipe too: with 5-8 SACKed nothing is left in it, where RFC 6675's holds
    // only the new segment 9 its earlier pipe let out.
    let (.., rfc_acked) = rfc6675_after_a_sacked_retransmission(Rfc6675Pipe::Rfc6675);
    assert_eq!((acked, rfc_acked), (0, MSS), "pipe {after} before the ACK");
}

/// RFC 6675 §4 NextSeg with segment 0 lost out of 8 and no new data
/// beyond segment 8 (`data` false) or unlimited new data (`data` true):
/// every send from the fast retransmit on, as dupacks SACK 1-3, then 5,
/// then 6.
fn rfc6675_sends_with_a_hole_at_4(data: bool) -> Vec<(u64, bool)> {
    let cfg = tcp(8);
    let mut h = Harness::with("rfc6675", cfg, if data { None } else { Some(8 * MSS) });
    assert_eq!(h.tx(), new(&[0, 1, 2, 3, 4, 5, 6, 7]));
    h.ack(0, &[(1, 2)]).ack(0, &[(1, 3)]).ack(0, &[(1, 4)]);
    let mut sent = h.tx();
    // ssthresh = cwnd = 4; pipe = 4 (segments 4-7) + 1 retransmission = 5.
    assert_eq!(h.s.cwnd(), 4000);
    h.ack(0, &[(5, 6), (1, 4)]);
    // pipe = 3 (4, 6, 7) + 1 = 4: nothing.
    sent.extend(h.tx());
    h.ack(0, &[(5, 7), (1, 4)]);
    // pipe = 2 (4, 7) + 1 = 3: one segment. 4 is not lost (two segments
    // SACKed above it, not more than DupThresh - 1).
    sent.extend(h.tx());
    sent
}

#[test]
fn rfc6675_nextseg_rule_2_new_data_comes_before_a_segment_not_known_lost() {
    assert_eq!(rfc6675_sends_with_a_hole_at_4(true), vec![rexmit(0), (8, false)]);
}

#[test]
fn rfc6675_nextseg_rule_3_retransmits_a_hole_below_the_highest_sack_when_there_is_no_new_data() {
    // (1.a) 4 is above HighRxt, (1.b) below the highest SACKed octet (7000),
    // not (1.c): rule (3) SHOULD send it.
    assert_eq!(rfc6675_sends_with_a_hole_at_4(false), vec![rexmit(0), rexmit(4)]);
}

#[test]
fn rfc6675_nextseg_rule_3_never_sends_above_the_highest_sack_and_rule_4_rescues_once() {
    // 10 segments, all the data there is; 0 lost, 1-9 SACKed one by one.
    let cfg = tcp(10);
    let mut h = Harness::with("rfc6675", cfg, Some(10 * MSS));
    assert_eq!(h.tx().len(), 10);
    let mut sent = Vec::new();
    for k in 1..=9 {
        h.ack(0, &[(1, k + 1)]);
        sent.push((k, h.tx()));
    }
    let all: Vec<(u64, bool)> = sent.iter().flat_map(|(_, t)| t.clone()).collect();
    // The fast retransmit on the third dupack; cwnd = 5. When pipe falls
    // below it (segments 1-6 SACKed: 7, 8, 9 in flight + the retransmission),
    // the segments above the highest SACK are in flight as far as the
    // sender knows: rule (3) does not apply (1.b), and rule (4) sends one
    // rescue retransmission of the highest unSACKed segment, 9. Nothing
    // else: without (1.b), segments 7 and 8 would go again, spuriously.
    assert_eq!(all, vec![rexmit(0), rexmit(9)], "{sent:?}");
    assert_eq!(sent[2].1, vec![rexmit(0)]);
    assert_eq!(sent[5].1, vec![rexmit(9)], "the rescue when pipe = 3 + 1 < cwnd = 5");
    h.ack(10, &[]);
    assert!(!h.s.in_recovery());
    assert_eq!((h.s.stats().fast_retransmits, h.s.stats().timeouts, h.s.stats().retransmitted_segments), (1, 0, 2));
}

#[test]
fn rfc6675_a_new_recovery_may_start_once_highack_reaches_the_old_recovery_point() {
    // RFC 6675 ends a recovery on the ACK of RecoveryPoint and allows a new
    // one from there (§5.1: HighACK ≥ RecoveryPoint). The case: the first
    // new segment sent during a recovery is lost, and the ACK that ends the
    // recovery is exactly the old RecoveryPoint.
    let mut h = Harness::new("rfc6675", 8);
    assert_eq!(h.tx(), new(&[0, 1, 2, 3, 4, 5, 6, 7]));
    // 0 lost: 1 to 7 SACKed one by one; the fast retransmit on the third.
    h.ack(0, &[(1, 2)]).ack(0, &[(1, 3)]).ack(0, &[(1, 4)]);
    assert_eq!(h.s.recover(), Some(8000));
    assert_eq!(h.tx(), vec![rexmit(0)]);
    let mut sent = Vec::new();
    for k in 5..=8 {
        h.ack(0, &[(1, k)]);
        sent.extend(h.tx());
    }
    assert_eq!(sent.first(), Some(&(8, false)), "{sent:?}");
    // The retransmission of 0 arrives: ACK 8 = RecoveryPoint ends the recovery.
    h.ack(8, &[]);
    assert!(!h.s.in_recovery());
    sent.extend(h.tx());
    // 8 was lost; everything sent after it is SACKed, one dupack each.
    let after: Vec<u64> = sent.iter().map(|&(s, _)| s).filter(|&s| s > 8).collect();
    assert!(after.len() >= 3, "{sent:?}");
    for (i, &s) in after.iter().enumerate().take(3) {
        h.ack(8, &[(after[0], s + 1)]);
        if i < 2 {
            assert!(!h.s.in_recovery());
        }
    }
    assert!(h.s.in_recovery(), "the third dupack at HighACK = old RecoveryPoint starts a recovery");
    assert_eq!(h.tx().first(), Some(&rexmit(8)));
    assert_eq!((h.s.stats().fast_retransmits, h.s.stats().timeouts), (2, 0));
}

#[test]
fn rfc6675_5_1_after_a_timeout_sacked_segments_are_not_sent_again() {
    let mut h = Harness::new("rfc6675", 6);
    assert_eq!(h.tx(), new(&[0, 1, 2, 3, 4, 5]));
    h.ack(0, &[(2, 4)]);
    let d = h.s.poll_timeout().unwrap();
    h.at(d);
    h.s.on_timer(d);
    assert_eq!(h.tx(), vec![rexmit(0)], "cwnd = 1 after the timeout");
    h.ack(1, &[(2, 4)]);
    // Slow start goes on from 1 but skips 2 and 3, which the receiver holds.
    assert_eq!(h.tx(), vec![rexmit(1), rexmit(4)]);
}

#[test]
fn rfc6937_prr_spreads_the_reduction_over_the_recovery() {
    // 20 segments out, segment 0 lost, the other 19 each SACKed by a dupack.
    let sent_by = |variant: &str, last_dupack: u64| -> Vec<(u64, bool)> {
        let mut h = Harness::new(variant, 20);
        assert_eq!(h.tx().len(), 20);
        let mut out = Vec::new();
        for k in 1..=last_dupack {
            h.ack(0, &[(1, k + 1)]);
            out.extend(h.tx());
        }
        out
    };
    // RFC 6675 alone: cwnd drops to ssthresh = 10 at once, so nothing new
    // goes until pipe has fallen below 10 (after the 10th dupack).
    assert_eq!(sent_by("rfc6675", 10), vec![rexmit(0)]);
    // PRR: after the fast retransmission, one new segment per two delivered
    // (ssthresh / RecoverFS = 10/20): at the 5th and 7th dupacks.
    assert_eq!(sent_by("rfc6675+prr", 4), vec![rexmit(0)]);
    assert_eq!(sent_by("rfc6675+prr", 7), vec![rexmit(0), (20, false), (21, false)]);
    // Over the whole train the two send the same amount: the window ends at ssthresh.
    let prr = sent_by("rfc6675+prr", 19);
    let plain = sent_by("rfc6675", 19);
    assert_eq!(prr.len(), plain.len(), "{prr:?} vs {plain:?}");
}

#[test]
fn prr_with_ns3_arithmetic_counts_a_segment_more_per_sacking_dupack_and_sizes_recoverfs_by_pipe() {
    use crate::scenario::model::PrrArithmetic;
    // The train of the test above: 20 segments out, segment 0 lost, the
    // other 19 each SACKed by a dupack. ns-3.44's `TcpPrrRecovery`:
    // RecoverFS = pipe at the third dupack = 20 − 3 SACKed − the lost head
    // = 16; each SACKing dupack delivers its segment plus one SMSS while
    // prr_delivered < RecoverFS; the proportional part is
    // ⌈prr_delivered · 10 / 16⌉ − prr_out, at least one segment before the
    // first is sent, a ceiling in bytes: fractions of a segment carry over.
    let sent_by = |arith: PrrArithmetic, last_dupack: u64| -> Vec<Vec<(u64, bool)>> {
        let cfg = TcpConfig { prr_arithmetic: arith, ..tcp(20) };
        let mut h = Harness::with("rfc6675+prr", cfg, None);
        assert_eq!(h.tx().len(), 20);
        (1..=last_dupack)
            .map(|k| {
                h.ack(0, &[(1, k + 1)]);
                h.tx()
            })
            .collect()
    };
    let ns3 = sent_by(PrrArithmetic::Ns3, 10);
    // Third dupack: prr_delivered = 2, 2·10/16 = 1.25 segments: the fast
    // retransmission alone (with RecoverFS = FlightSize = 20 and no extra
    // segment it would be 0.5, raised to the one segment).
    assert_eq!(ns3[2], vec![rexmit(0)]);
    // Dupacks 4 to 10 bring prr_delivered to 16 = RecoverFS and the
    // allowance to 16·10/16 = 10 segments: 2.5, 3.75, 5, 6.25, 7.5, 8.75, 10.
    let per_ack: Vec<usize> = ns3[3..].iter().map(Vec::len).collect();
    assert_eq!(per_ack, vec![1, 1, 2, 1, 1, 1, 2]);
    assert_eq!(ns3.iter().map(Vec::len).sum::<usize>(), 10);
    // RFC 6937 by then: ⌈8·10/20⌉ = 4 (the retransmission and three new).
    let rfc = sent_by(PrrArithmetic::Rfc6937, 10);
    assert_eq!(rfc.iter().map(Vec::len).sum::<usize>(), 4);
    // From there on each dupack counts its own segment only: 10/16 of one per ACK.
    let ns3 = sent_by(PrrArithmetic::Ns3, 18);
    assert_eq!(ns3[10..].iter().map(Vec::len).sum::<usize>(), 15 - 10, "⌈24·10/16⌉ = 15 by the 18th dupack");
}

#[test]
fn prr_needs_the_rfc6675_base() {
    assert!(parse_variant("rfc6675+prr").is_ok());
    assert!(parse_variant("sack+prr").unwrap_err().0.contains("rfc6675+prr"));
}

#[test]
fn rfc3522_eifel_undoes_a_reduction_when_the_ack_echoes_the_original_timestamp() {
    for (echo_original, undone) in [(true, true), (false, false)] {
        let cfg = TcpConfig { timestamps: true, ..tcp(4) };
        let mut h = Harness::with("reno+undo", cfg, None);
        h.at(SimTime::ZERO + ms(10));
        assert_eq!(h.tx().len(), 4);
        h.at(SimTime::ZERO + ms(100));
        let dup = TcpSegment {
            ack: 0,
            flags: TcpFlags(TcpFlags::ACK),
            wnd: 1 << 30,
            ts: Some((SimTime::ZERO + ms(60), SimTime::ZERO + ms(10))),
            ..TcpSegment::default()
        };
        for _ in 0..3 {
            h.s.on_segment(&dup, h.now);
        }
        let r = h.s.poll_transmit(h.now).unwrap();
        assert_eq!(r.ts.unwrap().0, SimTime::ZERO + ms(100), "RetransmitTS");
        assert_eq!(h.s.cwnd(), 5000);
        // The ACK for the whole flight: TSecr from the original (10 ms) or the retransmission (100 ms).
        let ecr = if echo_original { ms(10) } else { ms(100) };
        let ack = TcpSegment { ack: 4 * MSS, ts: Some((SimTime::ZERO + ms(150), SimTime::ZERO + ecr)), ..dup };
        h.at(SimTime::ZERO + ms(160));
        h.s.on_segment(&ack, h.now);
        if undone {
            assert_eq!((h.s.cwnd(), h.s.ssthresh(), h.s.stats().window_undos), (4000, u64::MAX, 1));
        } else {
            assert_eq!((h.s.cwnd(), h.s.ssthresh(), h.s.stats().window_undos), (2000, 2000, 0));
        }
    }
}

#[test]
fn vegas_retransmits_on_the_first_dupack_once_the_fine_grained_timeout_has_passed() {
    for (dupack_at, retransmits) in [(200, false), (500, true)] {
        let mut h = Harness::new("vegas", 2);
        assert_eq!(h.tx(), new(&[0, 1]));
        // One RTT sample of 100 ms: fine timeout = srtt + 4·rttvar = 300 ms.
        // (Vegas's slow start holds the window during its first epoch.)
        h.at(SimTime::ZERO + ms(100)).ack(1, &[]);
        assert_eq!(h.tx(), new(&[2]));
        // Segment 1, sent at 0, is lost; the dupack from segment 2 comes at `dupack_at`.
        h.at(SimTime::ZERO + ms(dupack_at)).ack(1, &[]);
        let sent = h.tx();
        assert_eq!(sent.contains(&rexmit(1)), retransmits, "dupack at {dupack_at} ms: {sent:?}");
        assert_eq!(h.s.stats().fast_retransmits, retransmits as u64);
    }
}

#[test]
fn eplr_case_1_a_flight_of_four_with_two_dupacks_still_times_out() {
    use crate::scenario::model::EplrRetransmit::Early;
    // eplr Fig. 8 Case 1: F = 4 is not "too small", so Modified Reno waits
    // for the third dupack like Reno; when only two come, the timer fires.
    let mut h = small_flight("reno+eplr", 4, Early);
    assert_eq!(h.tx(), new(&[0, 1, 2, 3]));
    h.ack(0, &[]).ack(0, &[]);
    assert_eq!(h.tx(), vec![]);
    let d = h.s.poll_timeout().unwrap();
    h.at(d);
    h.s.on_timer(d);
    assert_eq!((h.s.stats().timeouts, h.s.stats().fast_retransmits), (1, 0));
}

#[test]
fn rfc8985_rack_marks_losses_by_time_and_detects_a_lost_retransmission() {
    let mut h = Harness::new("rack", 8);
    assert_eq!(h.tx(), new(&[0, 1, 2, 3, 4, 5, 6, 7]));
    // Segment 0 lost. At 100 ms the ACK of 1 SACKs it: RACK.rtt = 100 ms,
    // reo_wnd = min_rtt/4 = 25 ms: 0 is not lost before 125 ms.
    h.at(SimTime::ZERO + ms(100)).ack(0, &[(1, 2)]);
    assert_eq!(h.tx(), vec![]);
    assert_eq!(h.s.poll_timeout(), Some(SimTime::ZERO + ms(125)), "the reordering timer");
    h.at(SimTime::ZERO + ms(125));
    h.s.on_timer(h.now);
    assert!(h.s.in_recovery());
    assert_eq!(h.tx().first(), Some(&rexmit(0)), "lost by time, with a single dupack");
    // The window goes on with new data; the retransmission of 0 is lost as well.
    h.at(SimTime::ZERO + ms(130)).ack(0, &[(1, 8)]);
    let sent_after = h.tx();
    assert!(sent_after.iter().any(|&(_, r)| !r), "new data after the retransmission: {sent_after:?}");
    // A segment sent after the retransmission is SACKed 100 ms later, and
    // the retransmission, older, is then lost by time too: sent again.
    let newest = sent_after.iter().filter(|&&(_, r)| !r).map(|&(s, _)| s).max().unwrap();
    h.at(SimTime::ZERO + ms(240)).ack(0, &[(newest, newest + 1), (1, 8)]);
    let mut again = h.tx();
    if !again.contains(&rexmit(0)) {
        let d = h.s.poll_timeout().unwrap();
        assert!(d < SimTime::ZERO + ms(1125), "the reordering timer, not the RTO: {d:?}");
        h.at(d);
        h.s.on_timer(d);
        again = h.tx();
    }
    assert!(again.contains(&rexmit(0)), "{again:?}");
    assert_eq!(h.s.stats().timeouts, 0);
}

#[test]
fn rfc8985_tail_loss_probe_sends_the_last_segment_before_the_rto() {
    // Two segments, both tail: no dupack can come. PTO = 2·SRTT.
    let cfg = tcp(1);
    let mut h = Harness::with("rack", cfg, Some(3000));
    assert_eq!(h.tx(), new(&[0]));
    h.at(SimTime::ZERO + ms(100)).ack(1, &[]);
    assert_eq!(h.tx(), new(&[1, 2]));
    // Segments 1 and 2 are lost: after PTO = 2·100 ms the last one is probed.
    let pto = h.s.poll_timeout().unwrap();
    assert_eq!(pto, SimTime::ZERO + ms(300));
    h.at(pto);
    h.s.on_timer(pto);
    assert_eq!(h.tx(), vec![rexmit(2)], "the probe retransmits the last segment");
    assert_eq!(h.s.stats().timeouts, 0);
    // Its SACK then exposes 1 as lost by time, without an RTO.
    h.at(SimTime::ZERO + ms(400)).ack(1, &[(2, 3)]);
    let mut out = h.tx();
    if out.is_empty() {
        let d = h.s.poll_timeout().unwrap();
        h.at(d);
        h.s.on_timer(d);
        out = h.tx();
    }
    assert_eq!(out, vec![rexmit(1)]);
    assert_eq!(h.s.stats().timeouts, 0);
}

/// A SACK block reaching beyond snd_max reports data never sent. It must be
/// ignored: marked, it let RFC 6675's NextSeg (and every SACK policy's hole
/// search) offer "holes" above snd_max, and with dupthresh 1 the sender
/// retransmitted the same byte without end (found by the `sender` fuzz
/// target, `fuzz/known/sender-rfc6675-prr-runaway.bin`).
#[test]
fn a_sack_block_beyond_snd_max_is_ignored() {
    for variant in ["sack", "fack", "rfc6675", "rfc6675+prr", "rack", "sack+rpld"] {
        let cfg = TcpConfig { dupthresh: 1, ..tcp(4) };
        let mut h = Harness::with(variant, cfg, Some(20 * MSS));
        assert_eq!(h.tx(), new(&[0, 1, 2, 3]), "{variant}");
        // Segments 0..4 are out; the receiver claims 2..10 (6 never sent).
        h.ack(0, &[(2, 10)]);
        assert_eq!(h.s.sacked_bytes(), Some(0), "{variant}: the invalid block was marked");
        let sent = h.tx();
        assert!(sent.len() <= 4, "{variant}: {sent:?}");
        for &(seg, rtx) in &sent {
            assert!(!rtx || seg < 4, "{variant}: retransmission of never-sent segment {seg}");
        }
        // A valid block is still taken.
        h.ack(0, &[(2, 4)]);
        assert_eq!(h.s.sacked_bytes(), Some(2 * MSS), "{variant}");
    }
}

/// Vegas's ¾ decrease belongs to its retransmission, not to its avoidance:
/// `vegas` reduces a window of 8 to 6 at a fast retransmit, while Vegas's
/// controller beside SACK's recovery (`sack+cc=vegas`) halves it (RFC 5681
/// eq. 4), as Linux's tcp_vegas keeps Reno's ssthresh.
#[test]
fn vegas_decreases_by_a_quarter_only_with_its_own_retransmission() {
    for (variant, ssthresh) in [("vegas", 6), ("sack+cc=vegas", 4)] {
        let mut h = Harness::new(variant, 8);
        assert_eq!(h.tx().len(), 8, "{variant}");
        h.at(SimTime::ZERO + ms(100));
        // Segment 0 lost: three duplicate ACKs SACKing 1, 1–2, 1–3.
        for k in 2..5 {
            h.ack(0, &[(1, k)]);
        }
        let sent = h.tx();
        assert!(sent.contains(&rexmit(0)), "{variant}: {sent:?}");
        assert_eq!(h.s.ssthresh(), ssthresh * MSS, "{variant}");
    }
}
