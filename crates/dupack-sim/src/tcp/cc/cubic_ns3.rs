//! CUBIC with ns-3.44's arithmetic (`tcp.cubic_arithmetic = "ns3"`): the
//! mirror of ns-3's `TcpCubic`, which follows Linux's `tcp_cubic.c` rather
//! than RFC 9438's formulas, so that the validation can tell what these
//! departures do to the figures (docs/validation.md, "CUBIC against ns-3").
//! dupack's own CUBIC is [`super::cubic::Cubic`].
//!
//! Checked against ns-3 itself: the calls ns-3's socket made of one
//! flow's `TcpCubic` on the N = 40 dumbbell and on the lossy link,
//! recorded from ns-3's log (validation/ns3_cubic_calls.py), replayed here
//! give ns-3's window after every growth and its ssthresh at every
//! reduction (`replay`).
//!
//! What differs from RFC 9438, as ns-3.44 does it (`tcp-cubic.cc`, with
//! `HyStart` off, `FastConvergence` and `TcpFriendliness` on, `CntClamp`
//! 20, `CubicDelta` 10 ms, C = 0.4, β = 0.7):
//!
//! - Whole segments. The window is read as ⌊cwnd / SMSS⌋; W_max and the
//!   origin of the cubic function are integers, and so is the increment
//!   ⌊C·|t − K|³⌋ that gives the target (so within about 1.36 s of K the
//!   target is W_max itself).
//! - Growth by counting: cwnd grows by one segment once `cnt =
//!   ⌊w / (target − w)⌋` ACKs have arrived (`100·w` when the target is
//!   not above w), at least 2 (at most 1.5·cwnd a round trip), with t
//!   measured from the epoch's first ACK plus the least RTT seen (RFC
//!   9438 §4.4: t + RTT, with the smoothed RTT). That least RTT is the
//!   least *smoothed* RTT: `TcpSocketBase::ProcessAck` hands `PktsAcked`
//!   `m_srtt` (read in the wheel's `libns3.44-internet.so`: every call
//!   copies the `TcpSocketState` field after `m_isCwndLimited`), on every
//!   ACK that finds data outstanding, duplicates and ACKs in recovery and
//!   in `CA_LOSS` included
//!   ([`CongestionControl::on_any_ack`]).
//! - The Reno-friendly window grows by one segment per ⌊15·w⌋ >> 3 ACKs
//!   (Linux's scale, ⌊8·(1024 + 717)/3/(1024 − 717)⌋ = 15 with β in
//!   1024ths: α ≈ 0.53) whatever its place against W_max (RFC 9438 §4.3
//!   switches to α = 1 above W_max), and caps `cnt` at
//!   `w / (W_est − w)` when it is ahead.
//! - ssthresh = max(⌊0.7·w⌋, 2) segments of the window w at the event,
//!   not of FlightSize (RFC 9438 §4.6), and at every expiry of the timer:
//!   [`CongestionControl::ssthresh_of_whole_segments`].
//! - W_max is set at every expiry of the timer as at a fast retransmit
//!   (`ReTxTimeout` calls `GetSsThresh` each time), and `CubicReset` (on
//!   entering `CA_LOSS`) keeps it: after one expiry the epoch climbs back
//!   towards the window the timeout found. A backoff finds one segment,
//!   and fast convergence against a W_max of two or more gives ⌊1.7 / 2⌋ =
//!   0. While W_max is 0 `cnt` is at most 20 (a segment per 20 ACKs:
//!   Linux's clamp). Every expiry forgets the Reno-friendly window and the
//!   least RTT; RTT samples within 10 ms of an epoch's start are not taken
//!   for it.
//! - ACKs are counted by the data they newly deliver: ns-3's `ProcessAck`
//!   takes `segmentsAcked` from `currentDelivered` (read in the wheel's
//!   `libns3.44-internet.so`: the quotient by `m_segmentSize` is of that
//!   argument), RFC 6937's DeliveredData: the cumulative advance less what
//!   was SACKed before, plus what the ACK newly SACKs. The ACK that fills a
//!   hole below SACKed data counts the segment it delivers, not the whole
//!   advance, except the one that ends a recovery: on leaving `CA_RECOVERY`
//!   `ProcessAck` recomputes `segmentsAcked` as `(ackNumber −
//!   oldHeadSequence) / m_segmentSize` (also read in the library), so that
//!   ACK feeds the whole advance to the ACK counter and to the
//!   Reno-friendly window (with `tcp.rfc6675_exit_growth = "grow"`).
//! - Slow start adds every segment so counted, without RFC 3465's limit
//!   and without a cap at ssthresh (`m_cWnd += segmentsAcked ·
//!   m_segmentSize`, and return); none of that ACK goes to congestion
//!   avoidance.
//!
//! Not mirrored: `TcpCubic::IncreaseWindow` returns at once unless
//! `m_isCwndLimited` (set at each transmission: cwnd < bytes in flight +
//! one segment); on the N = 40 dumbbell that held back 106 of 23 900 calls
//! in 60 s. An ACK in `CA_DISORDER` that advances and also SACKs new data
//! grows no window in ns-3 (it stays in `CA_DISORDER`, and only `CA_OPEN`
//! calls `IncreaseWindow`); on the N = 40 dumbbell no such ACK comes
//! outside a recovery or a timeout's recovery, so it is not mirrored.
//!
//! Until the exit ACK was counted by its advance, keeping W_max through a
//! timeout moved the lossy-link rows further from ns-3 (goodput within
//! ±5 % in 8 of 18 rows instead of 14), and the mirror forgot W_max. With
//! all three points of ns-3's code (the least smoothed RTT, the exit ACK's
//! advance, W_max kept and set at every expiry), four lossy-link rows came
//! within +0.3 to +2.0 % of ns-3's goodput (docs/validation.md, "CUBIC
//! against ns-3").

#[cfg(test)]
use super::reduce_whole_segments;
use super::{AckInput, CongestionControl, Growth};
use crate::time::{SimDuration, SimTime};

// RFC 9438 §5's C and β, as ns-3's attributes `C` and `Beta`.
use super::cubic::{w_max_after, BETA, C};
/// Linux's Reno-friendly scale with β = 717/1024: ⌊8·(1024 + 717)/3/(1024 − 717)⌋.
const FRIENDLY_SCALE: u64 = 15;
/// `CntClamp`: at most this many ACKs per segment while W_max is unknown.
const CNT_CLAMP: u64 = 20;
/// `CubicDelta`: RTT samples this soon after an epoch begins are not taken.
const CUBIC_DELTA: SimDuration = SimDuration(10_000_000);

#[derive(Clone, Debug, Default)]
pub struct Ns3Cubic {
    /// ACKs counted towards the next one-segment increase (`m_cWndCnt`).
    cwnd_cnt: u64,
    /// W_max in segments; 0 before the first event and after a backoff.
    last_max: u64,
    /// The current epoch: when it began, its origin (segments) and K (s).
    epoch: Option<(SimTime, u64, f64)>,
    /// The least smoothed RTT seen on an ACK since the last timeout (`m_delayMin`).
    delay_min: Option<SimDuration>,
    /// ACKs counted towards the Reno-friendly window's next segment.
    ack_cnt: u64,
    /// The Reno-friendly window, in segments.
    tcp_cwnd: u64,
    /// Bytes acknowledged that did not make a whole segment yet.
    partial: u64,
}

impl Ns3Cubic {
    /// W_max in segments (0: none).
    pub fn w_max(&self) -> u64 {
        self.last_max
    }

    /// The number of ACKs that grow the window by one segment now
    /// (`TcpCubic::Update`), `acked` segments having just been acknowledged.
    fn cnt(&mut self, w: u64, acked: u64, now: SimTime) -> u64 {
        self.ack_cnt += acked;
        let (start, origin, k) = *self.epoch.get_or_insert_with(|| {
            self.ack_cnt = acked;
            self.tcp_cwnd = w;
            if self.last_max <= w {
                (now, w, 0.0)
            } else {
                (now, self.last_max, ((self.last_max - w) as f64 / C).cbrt())
            }
        });
        let t = (now.saturating_since(start) + self.delay_min.unwrap_or(SimDuration::ZERO)).as_secs_f64();
        let delta = (C * (t - k).abs().powi(3)) as u64;
        let target = if t < k { origin.saturating_sub(delta) } else { origin + delta };
        let mut cnt = if target > w { w / (target - w) } else { 100 * w };
        if self.last_max == 0 {
            cnt = cnt.min(CNT_CLAMP);
        }
        // The Reno-friendly window: one segment per ⌊15·w⌋ >> 3 ACKs.
        let per_segment = ((w * FRIENDLY_SCALE) >> 3).max(1);
        while self.ack_cnt > per_segment {
            self.ack_cnt -= per_segment;
            self.tcp_cwnd += 1;
        }
        if self.tcp_cwnd > w {
            cnt = cnt.min(w / (self.tcp_cwnd - w));
        }
        cnt.max(2)
    }
}

impl CongestionControl for Ns3Cubic {
    fn on_any_ack(&mut self, srtt: Option<SimDuration>, now: SimTime) {
        // `PktsAcked`, given the smoothed RTT: the least of those, but not
        // right after an epoch began.
        if let Some(rtt) = srtt {
            let fresh_epoch = self.epoch.is_some_and(|(start, _, _)| now.saturating_since(start) < CUBIC_DELTA);
            if !fresh_epoch && self.delay_min.is_none_or(|d| rtt < d) {
                self.delay_min = Some(rtt);
            }
        }
    }

    fn on_ack(&mut self, a: &AckInput) -> Growth {
        // ns-3 counts the ACK's segments from the data it newly delivered
        // (`ProcessAck`: `currentDelivered / m_segmentSize`, the rest
        // carried), but the ACK that ends a recovery by its whole advance
        // (`(ackNumber - oldHeadSequence) / m_segmentSize` on leaving
        // `CA_RECOVERY`).
        self.partial += if a.ends_recovery { a.acked } else { a.delivered };
        let acked = self.partial / a.mss;
        self.partial %= a.mss;
        if a.cwnd < a.ssthresh {
            // Every segment delivered, with no limit and no cap at ssthresh;
            // none of the ACK goes to congestion avoidance.
            return Growth::cwnd(a.cwnd.saturating_add(acked * a.mss).min(a.max_cwnd));
        }
        if acked == 0 {
            return Growth::cwnd(a.cwnd);
        }
        self.cwnd_cnt += acked;
        let cnt = self.cnt(a.cwnd / a.mss, acked, a.now);
        let mut cwnd = a.cwnd;
        if self.cwnd_cnt >= cnt {
            cwnd = (cwnd + a.mss).min(a.max_cwnd);
            self.cwnd_cnt -= cnt;
        }
        Growth::cwnd(cwnd)
    }

    fn beta(&self) -> Option<f64> {
        Some(BETA)
    }

    fn ssthresh_of_whole_segments(&self) -> bool {
        true
    }

    fn on_congestion(&mut self, cwnd: u64, mss: u64, timeout: bool, _now: SimTime) {
        // `GetSsThresh`, at a fast retransmit and at every expiry of the
        // timer: the epoch ends and W_max is set, with fast convergence
        // against the W_max in force, in whole segments (truncated, as ns-3
        // stores it in an integer: at a backoff, one segment against a W_max
        // of two or more gives ⌊1.7 / 2⌋ = 0).
        self.epoch = None;
        let last = (self.last_max > 0).then_some(self.last_max as f64);
        self.last_max = w_max_after((cwnd / mss) as f64, last) as u64;
        if timeout {
            // Then `CongestionStateSet(CA_LOSS)` → `CubicReset`, which
            // leaves `m_lastMaxCwnd` alone.
            self.delay_min = None;
            self.ack_cnt = 0;
            self.tcp_cwnd = 0;
        }
    }

    fn on_undo(&mut self) {
        self.epoch = None;
    }

    fn name(&self) -> &'static str {
        "cubic"
    }
}

#[cfg(test)]
mod replay;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{ms, SimDuration};

    const MSS: u64 = 1000;

    fn ack(cwnd_segs: u64, now: SimTime, rtt: u64) -> AckInput {
        AckInput {
            cwnd: cwnd_segs * MSS,
            ssthresh: 0,
            acked: MSS,
            delivered: MSS,
            mss: MSS,
            max_cwnd: u64::MAX,
            srtt: Some(ms(rtt)),
            ends_recovery: false,
            now,
            snd_una: 0,
            snd_nxt: 0,
        }
    }

    #[test]
    fn ssthresh_is_seven_tenths_of_the_window_in_whole_segments() {
        let c = Ns3Cubic::default();
        assert!(c.ssthresh_of_whole_segments());
        let beta = c.beta().unwrap();
        assert_eq!(reduce_whole_segments(20_999, beta, MSS), 14 * MSS, "⌊0.7 · 20⌋");
        assert_eq!(reduce_whole_segments(15_000, beta, MSS), 10 * MSS, "⌊10.5⌋");
        assert_eq!(reduce_whole_segments(2_000, beta, MSS), 2 * MSS, "at least two");
    }

    #[test]
    fn w_max_is_whole_segments_with_fast_convergence() {
        let mut c = Ns3Cubic::default();
        c.on_congestion(20_500, MSS, false, SimTime::ZERO);
        assert_eq!(c.w_max(), 20);
        c.on_congestion(15_000, MSS, false, SimTime::ZERO);
        assert_eq!(c.w_max(), 12, "⌊15 · 1.7 / 2⌋ = ⌊12.75⌋");
    }

    #[test]
    fn a_timeout_sets_w_max_as_a_loss_does_and_a_backoff_clears_it() {
        // ns-3's `GetSsThresh` runs at every expiry and its `CubicReset`
        // keeps `m_lastMaxCwnd`: the first expiry sets W_max from the
        // window then, the next (cwnd one segment) by fast convergence to
        // ⌊1.7 / 2⌋ = 0, and one more finds no W_max and sets it to 1.
        let mut c = Ns3Cubic { last_max: 12, delay_min: Some(ms(40)), tcp_cwnd: 9, ack_cnt: 5, ..Ns3Cubic::default() };
        c.on_congestion(30_000, MSS, true, SimTime::ZERO);
        assert_eq!(c.w_max(), 30);
        assert_eq!((c.delay_min, c.tcp_cwnd, c.ack_cnt), (None, 0, 0), "the rest of CubicReset");
        c.on_congestion(MSS, MSS, true, SimTime::ZERO);
        assert_eq!(c.w_max(), 0, "a backoff: ⌊1 · 1.7 / 2⌋");
        c.on_congestion(MSS, MSS, true, SimTime::ZERO);
        assert_eq!(c.w_max(), 1);
    }

    #[test]
    fn near_k_the_target_is_w_max_and_the_window_waits_for_the_reno_friendly_one() {
        // W_max 100, the epoch from 70: K = ∛75 ≈ 4.22 s. At t = K the cubic
        // increment is under one segment, so the target is W_max and cnt =
        // ⌊99 / 1⌋ = 99; the Reno-friendly window is still at 70 + a little.
        let mut c = Ns3Cubic { last_max: 100, ..Ns3Cubic::default() };
        c.on_ack(&ack(70, SimTime::ZERO, 0));
        let k = c.epoch.unwrap().2;
        assert!((k - 75f64.cbrt()).abs() < 1e-12);
        let at_k = SimTime::ZERO + SimDuration::from_nanos((k * 1e9) as u64);
        assert_eq!(c.cnt(99, 1, at_k), 99);
        // Far from K the increment is whole segments: 2 s before K, ⌊0.4 · 8⌋ = 3.
        let mut c = Ns3Cubic { last_max: 100, ..Ns3Cubic::default() };
        c.on_ack(&ack(70, SimTime::ZERO, 0));
        let before = SimTime::ZERO + SimDuration::from_nanos(((k - 2.0) * 1e9) as u64);
        assert_eq!(c.cnt(90, 1, before), 90 / (97 - 90));
    }

    #[test]
    fn one_segment_per_cnt_acks_and_never_faster_than_one_per_two() {
        // Far above W_max the target is far ahead: cnt falls to its floor of
        // 2, so a window of 10 grows by 5 segments over 10 ACKs.
        let mut c = Ns3Cubic { last_max: 5, ..Ns3Cubic::default() };
        let mut cwnd = 10;
        let t = SimTime::ZERO + SimDuration::from_secs(100);
        c.on_ack(&ack(cwnd, SimTime::ZERO, 0));
        for _ in 0..10 {
            cwnd = c.on_ack(&ack(cwnd, t, 0)).cwnd / MSS;
        }
        assert!((14..=16).contains(&cwnd), "{cwnd}");
        assert_eq!(cwnd, 15, "one segment on every second ACK from the first");
    }

    #[test]
    fn after_a_backoff_growth_is_at_least_a_segment_per_twenty_acks() {
        // A timeout and a backoff leave no W_max: the epoch starts at its
        // own window (K = 0) and, the cubic target barely moving at first,
        // cnt is clamped to 20.
        let mut c = Ns3Cubic::default();
        c.on_congestion(40 * MSS, MSS, true, SimTime::ZERO);
        c.on_congestion(MSS, MSS, true, SimTime::ZERO);
        assert_eq!(c.w_max(), 0);
        let mut cwnd = 30;
        for i in 0..40 {
            cwnd = c.on_ack(&ack(cwnd, SimTime::ZERO + ms(i), 100)).cwnd / MSS;
        }
        assert_eq!(cwnd, 32, "two segments for 40 ACKs");
    }

    #[test]
    fn the_reno_friendly_window_grows_a_segment_per_fifteen_eighths_of_a_window() {
        // w = 16: one segment of the Reno-friendly window per ⌊16 · 15⌋ >> 3 = 30 ACKs.
        let mut c = Ns3Cubic { last_max: 16, ..Ns3Cubic::default() };
        for _ in 0..61 {
            c.on_ack(&AckInput { cwnd: 16 * MSS, ..ack(16, SimTime::ZERO, 100) });
        }
        assert_eq!(c.tcp_cwnd, 18, "61 ACKs: two segments (and one ACK towards the third)");
    }

    #[test]
    fn rtt_samples_right_after_an_epoch_began_are_not_taken() {
        let mut c = Ns3Cubic { last_max: 20, ..Ns3Cubic::default() };
        c.on_any_ack(Some(ms(50)), SimTime::ZERO);
        assert_eq!(c.delay_min, Some(ms(50)), "before any epoch");
        c.on_ack(&ack(10, SimTime::ZERO, 50));
        c.on_any_ack(Some(ms(20)), SimTime::ZERO + ms(5));
        assert_eq!(c.delay_min, Some(ms(50)), "5 ms into the epoch");
        c.on_any_ack(Some(ms(20)), SimTime::ZERO + ms(15));
        assert_eq!(c.delay_min, Some(ms(20)));
    }

    #[test]
    fn the_least_delay_is_the_least_smoothed_rtt_not_the_least_sample() {
        // ns-3 hands `PktsAcked` the smoothed RTT, on every ACK: growing the
        // window on an ACK does not touch the least delay, and the smoothed
        // RTT seen on a duplicate ACK (no growth) lowers it.
        let mut c = Ns3Cubic { last_max: 20, ..Ns3Cubic::default() };
        c.on_any_ack(Some(ms(300)), SimTime::ZERO);
        c.on_ack(&ack(10, SimTime::ZERO, 80));
        assert_eq!(c.delay_min, Some(ms(300)));
        c.on_any_ack(Some(ms(250)), SimTime::ZERO + ms(100));
        assert_eq!(c.delay_min, Some(ms(250)));
        // It moves t, and so the target: W_max 60, the epoch from 50, K =
        // ∛25 ≈ 2.92 s; 0.5 s in, with 80 ms t = 0.58 s and the target is
        // 60 − ⌊0.4 · 2.34³⌋ = 55 (cnt ⌊50 / 5⌋ = 10), with 600 ms t = 1.1 s
        // and it is 60 − ⌊0.4 · 1.82³⌋ = 58 (cnt ⌊50 / 8⌋ = 6).
        let cnt = |least: u64| {
            let mut c = Ns3Cubic { last_max: 60, delay_min: Some(ms(least)), ..Ns3Cubic::default() };
            c.cnt(50, 0, SimTime::ZERO);
            c.cnt(50, 0, SimTime::ZERO + ms(500))
        };
        assert_eq!((cnt(80), cnt(600)), (10, 6));
    }

    #[test]
    fn slow_start_adds_every_segment_the_ack_delivers() {
        let mut c = Ns3Cubic::default();
        let a = AckInput { ssthresh: u64::MAX, ..ack(4, SimTime::ZERO, 10) };
        assert_eq!(c.on_ack(&a).cwnd, 5 * MSS);
        assert!(c.epoch.is_none());
        // A hole filled below five SACKed segments: six acknowledged, one delivered.
        let a = AckInput { ssthresh: 8 * MSS, acked: 6 * MSS, delivered: MSS, ..ack(1, SimTime::ZERO, 10) };
        assert_eq!(c.on_ack(&a).cwnd, 2 * MSS);
        // Three delivered (a delayed ACK of two, one newly SACKed): three, past ssthresh.
        let a = AckInput { ssthresh: 3 * MSS, acked: 2 * MSS, delivered: 3 * MSS, ..ack(2, SimTime::ZERO, 10) };
        assert_eq!(c.on_ack(&a).cwnd, 5 * MSS);
        assert!(c.epoch.is_none() && c.cwnd_cnt == 0);
    }

    #[test]
    fn the_ack_that_ends_a_recovery_counts_its_whole_advance() {
        // ns-3 recomputes segmentsAcked from the cumulative advance on the
        // ACK that leaves CA_RECOVERY: twenty segments acknowledged, of which
        // one newly delivered (the rest SACKed before), count twenty for the
        // ACK counter and the Reno-friendly window. W_max 14 and the epoch
        // from 14 (K = 0): for over a second the cubic target is 14, so only
        // the Reno-friendly window moves cnt, a segment per ⌊14 · 15⌋ >> 3 =
        // 26 ACKs, and then to ⌊14 / 1⌋.
        let exit = |ends_recovery: bool| {
            let mut c = Ns3Cubic { last_max: 14, ..Ns3Cubic::default() };
            let a = AckInput { acked: 20 * MSS, delivered: MSS, ends_recovery, ..ack(14, SimTime::ZERO, 0) };
            assert_eq!(c.on_ack(&a).cwnd, 14 * MSS);
            (1..=30).find(|_| c.on_ack(&ack(14, SimTime::ZERO, 0)).cwnd > 14 * MSS)
        };
        // 20 + 7 > 26 at the seventh ACK after; 1 + 26 at the twenty-sixth.
        assert_eq!((exit(true), exit(false)), (Some(7), Some(26)));
    }
}
