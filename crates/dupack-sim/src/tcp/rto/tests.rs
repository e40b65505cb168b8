use super::*;
use crate::time::{at_ms, ms, secs, us};

fn fine(g: SimDuration, min: SimDuration, max: SimDuration) -> RtoEstimator {
    RtoEstimator::new(&RtoConfig {
        mode: RtoMode::Fine { granularity: g },
        initial: secs(1),
        min,
        max,
        max_backoff_shift: 6,
        ..RtoConfig::default()
    })
}

fn coarse(min: SimDuration, max: SimDuration) -> RtoEstimator {
    RtoEstimator::new(&RtoConfig {
        mode: RtoMode::Coarse { tick: ms(500) },
        initial: secs(1),
        min,
        max,
        max_backoff_shift: 6,
        ..RtoConfig::default()
    })
}

/// Feed a sample of exactly `r`.
fn sample(e: &mut RtoEstimator, r: SimDuration) {
    let sent = at_ms(10_000);
    e.on_rtt_sample(sent, sent + r);
}

/// Feed a coarse sample that BSD counts as `ticks` ticks (500 ms tick): sent
/// 100 ms into a tick, acknowledged `ticks - 1` boundaries later.
fn sample_ticks(e: &mut RtoEstimator, ticks: u64) {
    let sent = at_ms(10_100);
    e.on_rtt_sample(sent, sent + ms(500 * (ticks - 1)));
}

// ---------------------------------------------------------------- fine mode

#[test]
fn rfc6298_2_1_initial_rto_before_any_sample() {
    let e = RtoEstimator::new(&RtoConfig { initial: secs(3), ..RtoConfig::default() });
    assert!(!e.has_sample());
    assert_eq!(e.srtt(), None);
    assert_eq!(e.rttvar(), None);
    assert_eq!(e.rto(), secs(3));
    assert_eq!(e.deadline(at_ms(250)), at_ms(3250));
}

#[test]
fn rfc6298_2_2_first_sample() {
    let mut e = fine(ms(1), ms(200), secs(60));
    sample(&mut e, ms(300));
    assert!(e.has_sample());
    assert_eq!(e.srtt(), Some(ms(300)));
    assert_eq!(e.rttvar(), Some(ms(150)));
    // 300 + max(1, 4·150) = 900 ms.
    assert_eq!(e.rto(), ms(900));
}

#[test]
fn rfc6298_2_3_update_uses_old_srtt_and_truncates() {
    let mut e = fine(ms(1), ms(200), secs(60));
    sample(&mut e, SimDuration(300_000_000));
    sample(&mut e, SimDuration(100_000_003));
    // RTTVAR = (3·150_000_000 + |300_000_000 − 100_000_003|) / 4 = 649_999_997 / 4
    assert_eq!(e.rttvar(), Some(SimDuration(162_499_999)));
    // SRTT = (7·300_000_000 + 100_000_003) / 8 = 2_200_000_003 / 8
    assert_eq!(e.srtt(), Some(SimDuration(275_000_000)));
    // RTO = 275_000_000 + 4·162_499_999
    assert_eq!(e.rto(), SimDuration(924_999_996));
}

#[test]
fn rfc6298_2_3_granularity_dominates_tiny_rttvar() {
    let mut e = fine(ms(100), SimDuration::ZERO, secs(60));
    sample(&mut e, ms(10));
    // 4·RTTVAR = 20 ms < G = 100 ms.
    assert_eq!(e.rto(), ms(110));
    sample(&mut e, ms(10));
    assert_eq!(e.rttvar(), Some(us(3750)));
    assert_eq!(e.rto(), ms(110));
}

#[test]
fn rfc6298_2_4_rto_raised_to_min() {
    let mut e = fine(ms(1), secs(1), secs(60));
    sample(&mut e, ms(100));
    assert_eq!(e.rto(), secs(1));
}

#[test]
fn rfc6298_2_5_rto_capped_at_max() {
    let mut e = fine(ms(1), secs(1), secs(2));
    sample(&mut e, secs(1));
    assert_eq!(e.rto(), secs(2));
}

#[test]
fn rfc6298_5_5_backoff_doubles_up_to_max() {
    let mut e = fine(ms(1), secs(1), secs(60));
    let mut seen = vec![e.rto()];
    for _ in 0..8 {
        e.backoff();
        seen.push(e.rto());
    }
    let s = |v: u64| secs(v);
    assert_eq!(seen, vec![s(1), s(2), s(4), s(8), s(16), s(32), s(60), s(60), s(60)]);
    assert_eq!(e.backoff_shift(), 6);
}

#[test]
fn rfc6298_5_5_backoff_shift_capped_at_max_backoff_shift() {
    let mut e = RtoEstimator::new(&RtoConfig { max: secs(1000), max_backoff_shift: 3, ..RtoConfig::default() });
    for _ in 0..10 {
        e.backoff();
    }
    assert_eq!(e.backoff_shift(), 3);
    assert_eq!(e.rto(), secs(8));
    assert_eq!(e.deadline(at_ms(500)), at_ms(8500));
}

#[test]
fn rfc6298_5_7_karn_sample_clears_backoff() {
    let mut e = fine(ms(1), secs(1), secs(60));
    sample(&mut e, ms(500));
    assert_eq!(e.rto(), ms(1500));
    e.backoff();
    e.backoff();
    assert_eq!(e.rto(), secs(6));
    // Backed-off value is kept until a sample arrives...
    assert_eq!(e.deadline(at_ms(1000)), at_ms(7000));
    sample(&mut e, ms(500));
    // ...then the shift is gone: SRTT 500, RTTVAR 3/4·250 = 187.5 ms.
    assert_eq!(e.backoff_shift(), 0);
    assert_eq!(e.rto(), ms(1250));
}

// -------------------------------------------------------------- coarse mode

#[test]
fn bsd_sample_counts_tick_boundaries_plus_one() {
    let cases = [
        // (sent ms, acked ms, ticks)
        (499, 501, 2),
        (0, 499, 1),
        (501, 999, 1),
        (500, 1000, 2),
        (999, 1000, 2),
        (100, 1600, 4),
    ];
    for (s, a, ticks) in cases {
        let mut e = coarse(secs(1), secs(64));
        e.on_rtt_sample(at_ms(s), at_ms(a));
        // First sample: srtt = ticks (t_srtt = ticks << 5).
        assert_eq!(e.srtt(), Some(ms(500 * ticks)), "sent {s} ms, acked {a} ms");
        assert_eq!(e.rttvar(), Some(ms(250 * ticks)), "sent {s} ms, acked {a} ms");
    }
}

#[test]
fn bsd_tcp_xmit_timer_fixed_point_series() {
    let mut e = coarse(secs(1), secs(64));
    // rtt 2: t_srtt = 64, t_rttvar = 16, REXMTVAL = (8 + 16) >> 2 = 6,
    // floor max(2, 4) -> 6 ticks.
    sample_ticks(&mut e, 2);
    assert_eq!((e.srtt(), e.rttvar()), (Some(secs(1)), Some(ms(500))));
    assert_eq!(e.rto(), ms(3000));
    // rtt 1: delta = 0 - 8 = -8 -> t_srtt 56; 8 - 4 = 4 -> t_rttvar 20;
    // REXMTVAL = (7 + 20) >> 2 = 6.
    sample_ticks(&mut e, 1);
    assert_eq!(e.srtt(), Some(ms(875)));
    assert_eq!(e.rttvar(), Some(ms(625)));
    assert_eq!(e.rto(), ms(3000));
    // rtt 3: delta = 8 - 7 = 1 -> 57; 1 - 5 = -4 -> 16; (7 + 16) >> 2 = 5.
    sample_ticks(&mut e, 3);
    assert_eq!(e.srtt(), Some(SimDuration(890_625_000)));
    assert_eq!(e.rttvar(), Some(ms(500)));
    assert_eq!(e.rto(), ms(2500));
    // rtt 9: delta = 32 - 7 = 25 -> 82; 25 - 4 = 21 -> 37; (10 + 37) >> 2 = 11,
    // floor max(2, 11) = 11.
    sample_ticks(&mut e, 9);
    assert_eq!(e.srtt(), Some(SimDuration(1_281_250_000)));
    assert_eq!(e.rttvar(), Some(SimDuration(1_156_250_000)));
    assert_eq!(e.rto(), ms(5500));
}

#[test]
fn bsd_min_one_second_is_two_ticks() {
    let e = coarse(secs(1), secs(64));
    match &e.mode {
        Mode::Coarse(c) => {
            assert_eq!(c.min_ticks, 2);
            assert_eq!(c.max_ticks, 128);
        }
        Mode::Fine(_) | Mode::Ns2(_) => unreachable!(),
    }
    // Initial 1 s = 2 ticks too.
    assert_eq!(e.rto(), secs(1));
    assert_eq!(e.deadline(at_ms(0)), at_ms(1000));
    // A floor that is not a whole number of ticks rounds up.
    let e = coarse(ms(1200), secs(64));
    match &e.mode {
        Mode::Coarse(c) => assert_eq!(c.min_ticks, 3),
        Mode::Fine(_) | Mode::Ns2(_) => unreachable!(),
    }
}

#[test]
fn bsd_tcpt_rangeset_min_binds() {
    let mut e = coarse(secs(5), secs(64));
    sample_ticks(&mut e, 2); // REXMTVAL 6 < t_rttmin 10
    assert_eq!(e.rto(), secs(5));
}

#[test]
fn bsd_tcpt_rangeset_max_binds() {
    let mut e = coarse(secs(1), ms(2500));
    sample_ticks(&mut e, 2); // REXMTVAL 6 > 5
    assert_eq!(e.rto(), ms(2500));
    e.backoff();
    assert_eq!(e.rto(), ms(2500));
}

#[test]
fn bsd_rtt_plus_two_floor_then_backoff_from_rexmtval() {
    let mut e = coarse(secs(1), secs(64));
    // Steady 2-tick samples settle at t_srtt 39, t_rttvar 3: REXMTVAL = 1.
    for _ in 0..30 {
        sample_ticks(&mut e, 2);
    }
    // tcp_xmit_timer floor max(t_rttmin = 2, rtt + 2 = 4) ticks.
    assert_eq!(e.rto(), secs(2));
    // tcp_timers: REXMTVAL · 2^shift clamped to [t_rttmin, max] = 2, 4, 8 ticks.
    e.backoff();
    assert_eq!(e.rto(), secs(1));
    e.backoff();
    assert_eq!(e.rto(), secs(2));
    e.backoff();
    assert_eq!(e.rto(), secs(4));
}

#[test]
fn bsd_backoff_doubles_capped_at_max_and_cleared_by_sample() {
    let mut e = coarse(secs(1), secs(64));
    sample_ticks(&mut e, 2); // 6 ticks
    let mut seen = vec![e.rto()];
    for _ in 0..7 {
        e.backoff();
        seen.push(e.rto());
    }
    let m = |t: u64| ms(500 * t);
    assert_eq!(seen, vec![m(6), m(12), m(24), m(48), m(96), m(128), m(128), m(128)]);
    assert_eq!(e.backoff_shift(), 6);
    sample_ticks(&mut e, 2);
    assert_eq!(e.backoff_shift(), 0);
}

#[test]
fn bsd_deadline_lands_on_kth_tick_boundary_strictly_after_now() {
    let e = coarse(secs(1), secs(64)); // 2 ticks
    assert_eq!(e.deadline(at_ms(1000)), at_ms(2000));
    assert_eq!(e.deadline(at_ms(1001)), at_ms(2000));
    assert_eq!(e.deadline(at_ms(1499)), at_ms(2000));
    assert_eq!(e.deadline(at_ms(1500)), at_ms(2500));
    let mut e = e;
    sample_ticks(&mut e, 2); // 6 ticks
    let d = e.deadline(at_ms(10_123));
    assert_eq!(d, at_ms(13_000));
    assert_eq!(d.as_nanos() % ms(500).as_nanos(), 0);
}

#[test]
fn karn_one_segment_timed_at_a_time_and_none_across_a_retransmission() {
    let mut e = fine(ms(1), ms(200), secs(60));
    // Segment [0, 1000) leaves at 0; a second one at 10 ms is not timed.
    e.time_segment(0, 1000, at_ms(0));
    e.time_segment(1000, 2000, at_ms(10));
    e.on_cumulative_ack(500, at_ms(50)); // does not cover the timed segment
    assert!(!e.has_sample());
    e.on_cumulative_ack(1000, at_ms(100));
    assert_eq!(e.srtt(), Some(ms(100)), "the first segment, sent at 0");
    assert_eq!(e.samples().count, 1);
    // A retransmission drops the running measurement (Karn & Partridge).
    e.time_segment(2000, 3000, at_ms(200));
    e.forget_timed_segment();
    e.on_cumulative_ack(3000, at_ms(900));
    assert_eq!(e.samples().count, 1, "no sample from an ambiguous ACK");
    // Timing starts again with the next new segment.
    e.time_segment(3000, 4000, at_ms(1000));
    e.on_cumulative_ack(4000, at_ms(1100));
    assert_eq!((e.samples().count, e.samples().min, e.samples().max), (2, ms(100), ms(100)));
}

// ---------------------------------------------------------------- ns-2 mode

fn ns2(tick: SimDuration, phase: SimDuration, initial: SimDuration, min: SimDuration) -> RtoEstimator {
    RtoEstimator::new(&RtoConfig {
        mode: RtoMode::Ns2 { tick, phase },
        initial,
        min,
        max: secs(60),
        max_backoff_shift: 6,
        ..RtoConfig::default()
    })
}

#[test]
fn ns2_sample_counts_tick_boundaries_on_the_phased_clock() {
    // tao = 10.5 ms, sent 0.6 ms into the run: 11 boundaries of a 1 ms clock
    // in phase with the run, 10 on a clock 0.5 ms ahead (tickoff 0.1 ms).
    for (phase, ticks) in [(us(0), 11), (us(500), 10)] {
        let mut e = ns2(ms(1), phase, secs(1), ms(1));
        e.on_rtt_sample(SimTime(us(600).0), SimTime(us(11_100).0));
        // First sample: srtt = m, rttvar = m/2, RTO = srtt + 4·rttvar = 3m.
        assert_eq!(e.srtt(), Some(ms(ticks)));
        assert_eq!(e.rttvar(), Some(us(ticks * 500)));
        assert_eq!(e.rto(), ms(3 * ticks));
    }
    // Less than a tick counts as one.
    let mut e = ns2(ms(10), us(0), secs(1), ms(1));
    e.on_rtt_sample(SimTime(us(200).0), SimTime(us(900).0));
    assert_eq!(e.srtt(), Some(ms(10)));
}

#[test]
fn ns2_jacobson_fixed_point_series() {
    let mut e = ns2(ms(1), us(0), secs(1), ms(200));
    sample(&mut e, ms(210)); // t_srtt 1680, t_rttvar 420, t_rtxcur (3360 + 1680) >> 3 = 630
    assert_eq!(e.rto(), ms(630));
    sample(&mut e, ms(100)); // delta -110: t_srtt 1570; |delta| - 105 = 5: t_rttvar 425
                             // (425 << 3) + 1570 = 4970, >> 3 = 621 ticks (the fraction dropped).
    assert_eq!(e.rto(), ms(621));
    assert_eq!(e.srtt(), Some(us(196_250)));
    assert_eq!(e.rttvar(), Some(us(106_250)));
}

#[test]
fn ns2_rtt_timeout_min_before_backoff_cap_and_two_tick_floor() {
    let mut e = ns2(ms(1), us(0), secs(1), secs(1));
    sample(&mut e, ms(100)); // t_rtxcur 300 ms < min: min · backoff
    assert_eq!(e.rto(), secs(1));
    e.backoff();
    assert_eq!(e.rto(), secs(2));
    for _ in 0..5 {
        e.backoff();
    }
    assert_eq!(e.rto(), secs(60), "64 s capped at maxrto_");
    // Above min the estimate itself is backed off: 630 ms, 1.26 s.
    let mut e = ns2(ms(1), us(0), secs(1), ms(200));
    sample(&mut e, ms(210));
    e.backoff();
    assert_eq!(e.rto(), ms(1260));
    // Before any sample: the initial value; never under two ticks.
    assert_eq!(ns2(ms(10), us(0), ms(1), ms(1)).rto(), ms(20));
    // The timer fires rto() after it is armed, off the tick grid.
    let e = ns2(ms(10), us(0), secs(3), ms(200));
    assert_eq!(e.deadline(SimTime(us(12_345).0)), SimTime(us(3_012_345).0));
}

#[test]
fn ns2_backoff_beyond_8_clobbers_srtt_into_rttvar() {
    let mut e = ns2(ms(1), us(0), secs(1), ms(200));
    sample(&mut e, ms(210));
    sample(&mut e, ms(100)); // t_srtt 1570, t_rttvar 425, t_rtxcur 621
    for _ in 0..3 {
        e.backoff(); // factor 8: nothing clobbered yet
    }
    assert_eq!(e.srtt(), Some(us(196_250)));
    e.backoff(); // factor 16: t_rttvar += 1570 >> 3 = 196; t_srtt = 0
    assert_eq!(e.srtt(), None);
    assert_eq!(e.rto(), ms(621 * 16), "t_rtxcur_ keeps its value until the next sample");
    assert!(e.has_sample());
    // The next sample starts the averages afresh and clears the backoff.
    sample(&mut e, ms(50));
    assert_eq!(e.srtt(), Some(ms(50)));
    assert_eq!(e.rto(), ms(200), "150 ms raised to min");
}

fn per_segment() -> RtoEstimator {
    RtoEstimator::new(&RtoConfig {
        mode: RtoMode::Fine { granularity: ms(1) },
        min: ms(200),
        sampling: crate::scenario::model::RttSampling::PerSegment,
        ..RtoConfig::default()
    })
}

#[test]
fn per_segment_sampling_takes_the_oldest_segment_of_every_covering_ack() {
    let mut e = per_segment();
    e.time_segment(0, 1000, at_ms(0));
    e.time_segment(1000, 2000, at_ms(10));
    e.time_segment(2000, 3000, at_ms(20));
    e.on_cumulative_ack(500, at_ms(50)); // covers no whole segment
    assert!(!e.has_sample());
    e.on_cumulative_ack(1000, at_ms(100));
    assert_eq!(e.samples().count, 1);
    assert_eq!(e.samples().max, ms(100), "the segment sent at 0");
    // One ACK for the other two: one sample, from the older (sent at 10 ms),
    // where one-at-a-time timing would have had none (it timed only the first).
    e.on_cumulative_ack(3000, at_ms(130));
    assert_eq!((e.samples().count, e.samples().min), (2, ms(100)));
    assert_eq!(e.samples().sum, ms(220));
}

#[test]
fn per_segment_sampling_skips_the_resent_segment_and_samples_the_next() {
    // After a loss (here a fast retransmit of a backed-off flow: the timer's
    // own expiry empties the per-segment history, see the next test) the
    // timed sampler waits for a new segment timed after the retransmission;
    // the per-segment one samples the first segment beyond the resent one as
    // soon as an ACK covers it (ns-3's RttHistory), which ends the backoff a
    // round trip or more sooner.
    for (sampling, samples_after) in
        [(crate::scenario::model::RttSampling::Timed, 0), (crate::scenario::model::RttSampling::PerSegment, 1)]
    {
        let mut e = RtoEstimator::new(&RtoConfig { sampling, min: ms(200), ..RtoConfig::default() });
        e.time_segment(0, 1000, at_ms(0)); // lost
        e.time_segment(1000, 2000, at_ms(10));
        e.time_segment(2000, 3000, at_ms(20));
        e.backoff(); // the RTO fires
        e.forget_timed_segment();
        assert_eq!(e.backoff_shift(), 1);
        e.on_retransmission(0, 1000); // and resends the first segment
        e.on_cumulative_ack(2000, at_ms(1500)); // the hole is filled: ambiguous, no sample
        assert_eq!(e.samples().count, 0, "{sampling:?}");
        assert_eq!(e.backoff_shift(), 1, "{sampling:?}");
        e.on_cumulative_ack(3000, at_ms(1510)); // covers a segment sent once
        assert_eq!(e.samples().count, samples_after, "{sampling:?}");
        assert_eq!(e.backoff_shift(), 1 - samples_after as u32, "{sampling:?}: a sample ends the backoff");
    }
}

#[test]
fn per_segment_sampling_forgets_every_segment_when_the_timer_expires() {
    // ns-3's ReTxTimeout empties m_history: a segment sent before the
    // timeout and acknowledged after it gives no sample (it would include
    // the wait for the timer); one sent after it does.
    let mut e = per_segment();
    e.time_segment(0, 1000, at_ms(0));
    e.time_segment(1000, 2000, at_ms(10));
    e.backoff();
    e.on_timeout();
    e.on_cumulative_ack(2000, at_ms(1500));
    assert_eq!(e.samples().count, 0, "sent before the timeout");
    assert_eq!(e.backoff_shift(), 1);
    e.time_segment(2000, 3000, at_ms(1500));
    e.on_cumulative_ack(3000, at_ms(1600));
    assert_eq!((e.samples().count, e.samples().max), (1, ms(100)), "sent after it");
    assert_eq!(e.backoff_shift(), 0);
}

#[test]
fn per_segment_sampling_marks_the_segment_a_retransmission_overlaps() {
    let mut e = per_segment();
    e.time_segment(0, 1000, at_ms(0));
    e.time_segment(1000, 2000, at_ms(10));
    // A retransmission from inside the second segment marks it (not the first).
    e.on_retransmission(1500, 2000);
    e.on_cumulative_ack(1000, at_ms(100));
    assert_eq!(e.samples().count, 1, "the first, sent once");
    e.on_cumulative_ack(2000, at_ms(200));
    assert_eq!(e.samples().count, 1, "the second was resent: ambiguous");
}
