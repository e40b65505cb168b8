//! The retransmission-timeout estimator: RFC 6298 (fine) or the BSD slow
//! timer (coarse).
//!
//! Implemented:
//! - RFC 6298 §2.1 (initial RTO), §2.2 (first sample), §2.3 (later samples),
//!   §2.4 (lower bound), §2.5 (upper bound), §5.5 (exponential backoff) and
//!   Karn's algorithm (§3, note to §5.7): a valid sample clears the backoff.
//! - The 4.4BSD / FreeBSD 2.2 estimator (`tcp_xmit_timer` and the
//!   `TCPT_REXMT` case of `tcp_timers`) as used by the efr paper (§2.1): RTT
//!   counted in whole slow-timer ticks, `srtt` kept scaled by 32
//!   (`TCP_RTT_SHIFT` = 5), `rttvar` scaled by 16 (`TCP_RTTVAR_SHIFT` = 4),
//!   deltas computed with `TCP_DELTA_SHIFT` = 2 extra fraction bits,
//!   `TCP_REXMTVAL = ((srtt >> (5 - 2)) + rttvar) >> 2` ticks, and
//!   `TCPT_RANGESET(value, lo, hi)` = value clamped to `[lo, hi]`.
//! - ns-2.35's `Agent/TCP` estimator (`timer = "ns2"`), for packet-exact
//!   comparisons with ns-2 (see [`Ns2`]).
//!
//! Which segments may give a sample (Karn: never a retransmitted one) is the
//! sender's business; this module believes every sample it is given.
//!
//! Choices where the sources leave room:
//! - Fine mode rounds every division towards zero, in nanoseconds
//!   (`rttvar = (3·rttvar + |srtt − R|) / 4`, `srtt = (7·srtt + R) / 8`).
//!   RFC 6298 §2.3 updates RTTVAR with the *old* SRTT; so do we.
//! - The initial RTO (§2.1) is not raised to `min`: it is configured
//!   separately and RFC 6298 sets both to 1 s anyway. It is capped at `max`.
//! - Coarse mode converts `min` and `initial` to ticks rounding *up* (the RTO
//!   never undercuts the configured floor) and `max` rounding *down* (never
//!   exceeds the ceiling); all three are at least one tick. With a 500 ms
//!   tick, `min` = 1 s is `t_rttmin` = 2 ticks as in BSD (`TCPTV_MIN`).
//! - Coarse mode keeps FreeBSD 2.2's extra floor on the freshly measured RTO,
//!   `max(t_rttmin, rtt + 2)` ticks (the "minimum feasible timer" comment in
//!   `tcp_xmit_timer`), so with a 500 ms tick the un-backed-off RTO is at
//!   least 3 ticks. After a timeout, as in `tcp_timers`, the backed-off value
//!   is `TCP_REXMTVAL · 2^shift` clamped to `[t_rttmin, max]` — without the
//!   `rtt + 2` floor.
//! - Coarse mode, before any sample: `initial` ticks · 2^shift, capped at
//!   `max` (BSD derives this from its default `srtt`; we use the configured
//!   value so both modes start alike).
//! - Coarse timer expiry: BSD counts `t_timer[TCPT_REXMT]` down once per slow
//!   tick and fires when it reaches zero, so a timer of `k` ticks armed at
//!   `now` fires on the k-th tick boundary *strictly after* `now`. A timer
//!   armed exactly on a boundary therefore waits the full `k` ticks (the tick
//!   at `now` is taken to have been processed already).

use crate::scenario::model::{RtoConfig, RtoMode, RttSampling};
use crate::time::{SimDuration, SimTime};
use std::collections::VecDeque;

/// `TCP_RTT_SHIFT`: `srtt` carries 5 fraction bits (FreeBSD 2.2 tcp_var.h).
const TCP_RTT_SHIFT: u32 = 5;
/// `TCP_RTTVAR_SHIFT`: `rttvar` carries 4 fraction bits.
const TCP_RTTVAR_SHIFT: u32 = 4;
/// `TCP_DELTA_SHIFT`: the delta is computed with 2 fraction bits.
const TCP_DELTA_SHIFT: u32 = 2;

/// `base · 2^shift`, saturating instead of overflowing.
fn shifted(base: u64, shift: u32) -> u64 {
    if shift >= 64 {
        return if base == 0 { 0 } else { u64::MAX };
    }
    base.saturating_mul(1u64 << shift)
}

/// RFC 6298 state, in nanoseconds.
#[derive(Clone, Debug)]
struct Fine {
    /// Clock granularity G (§2.2–2.3).
    g: SimDuration,
    srtt: Option<SimDuration>,
    rttvar: SimDuration,
    /// RTO from the last sample, already clamped to `[min, max]` (§2.4, §2.5).
    base: SimDuration,
}

/// BSD state: everything in slow-timer ticks, `srtt`/`rttvar` in fixed point.
#[derive(Clone, Debug)]
struct Coarse {
    tick: u64,
    /// `t_srtt`, scaled by 2^TCP_RTT_SHIFT; 0 = no sample yet (as in BSD).
    t_srtt: i64,
    /// `t_rttvar`, scaled by 2^TCP_RTTVAR_SHIFT.
    t_rttvar: i64,
    /// `t_rxtcur` as set by the last sample (includes the `rtt + 2` floor).
    t_rxtcur: u64,
    /// `t_rttmin`.
    min_ticks: u64,
    /// `TCPTV_REXMTMAX`.
    max_ticks: u64,
    initial_ticks: u64,
}

impl Coarse {
    /// `TCP_REXMTVAL(tp)` in ticks.
    fn rexmtval(&self) -> u64 {
        let v = ((self.t_srtt >> (TCP_RTT_SHIFT - TCP_DELTA_SHIFT)) + self.t_rttvar) >> TCP_DELTA_SHIFT;
        v.max(0) as u64
    }
    /// Current timer value in ticks, backoff included.
    fn rto_ticks(&self, shift: u32) -> u64 {
        if self.t_srtt == 0 {
            shifted(self.initial_ticks, shift).min(self.max_ticks)
        } else if shift == 0 {
            self.t_rxtcur
        } else {
            // tcp_timers, TCPT_REXMT: TCPT_RANGESET(t_rxtcur,
            // TCP_REXMTVAL · tcp_backoff[shift], t_rttmin, TCPTV_REXMTMAX).
            shifted(self.rexmtval(), shift).clamp(self.min_ticks, self.max_ticks)
        }
    }
}

/// `T_SRTT_BITS`: ns-2 keeps `t_srtt_` scaled by 8.
const NS2_SRTT_BITS: u32 = 3;
/// `T_RTTVAR_BITS`: ns-2 keeps `t_rttvar_` scaled by 4.
const NS2_RTTVAR_BITS: u32 = 2;
/// `rttvar_exp_`: the RTO is srtt + 2^2 · rttvar.
const NS2_RTTVAR_EXP: u32 = 2;
/// ns-2 clobbers srtt once the backoff factor exceeds 8 (`rtt_backoff`).
const NS2_CLOBBER_SHIFT: u32 = 3;

/// ns-2.35's estimator, as its `TcpAgent` computes it (tcp.cc), in ticks of
/// `tcpTick_` (all times in nanoseconds here):
/// - a sample counts the tick boundaries between the send and the ACK on a
///   clock offset by `boot_time_` (`t_rtt_ = int((tao + fmod(sendtime +
///   boot_time_, tick)) / tick)`), at least 1;
/// - the first sample sets `t_srtt_ = m << 3`, `t_rttvar_ = m << 1`; later
///   ones `delta = m − (t_srtt_ >> 3)`, `t_srtt_ += delta`, `t_rttvar_ +=
///   |delta| − (t_rttvar_ >> 2)`, each kept ≥ 1;
/// - `t_rtxcur_ = ((t_rttvar_ << 3) + t_srtt_) >> 3` ticks (srtt + 4·rttvar);
///   before any sample, the initial RTO (`rtxcur_init_`);
/// - the timer (`rtt_timeout`, with ns-2's default `rfc2988_`): `min ·
///   backoff` if `t_rtxcur_ < min`, else `t_rtxcur_ · backoff`, then at most
///   `max` and at least two ticks; it fires that long after it is armed
///   (ns-2 reschedules a timer in continuous time, not on tick boundaries);
/// - a backoff beyond 8 (`rtt_backoff`) moves srtt into rttvar and zeroes
///   srtt, so the next sample starts the averages afresh (`t_rtxcur_` keeps
///   its value until then).
///
/// Not modelled: ns-2 holds `delta` in a 16-bit `short`, which would wrap
/// for a sample more than 32767 ticks away from srtt (33 s at 1 ms ticks).
/// ns-2 draws `boot_time_` from its default generator for every agent; the
/// scenario's `clock_phase` sets it (0 by default).
#[derive(Clone, Debug)]
struct Ns2 {
    tick: u64,
    phase: u64,
    /// `t_srtt_`, scaled by 8; 0 = no sample since the start or a clobber.
    t_srtt: i64,
    /// `t_rttvar_`, scaled by 4.
    t_rttvar: i64,
    /// `t_rtxcur_` in ticks; `None` before the first sample.
    t_rtxcur: Option<u64>,
}

impl Ns2 {
    fn sample(&mut self, sent: SimTime, now: SimTime) {
        let boundary = |t: SimTime| t.0.saturating_add(self.phase) / self.tick;
        let m = (boundary(now).saturating_sub(boundary(sent)) as i64).max(1);
        if self.t_srtt != 0 {
            let mut delta = m - (self.t_srtt >> NS2_SRTT_BITS);
            self.t_srtt += delta;
            if self.t_srtt <= 0 {
                self.t_srtt = 1;
            }
            delta = delta.abs() - (self.t_rttvar >> NS2_RTTVAR_BITS);
            self.t_rttvar += delta;
            if self.t_rttvar <= 0 {
                self.t_rttvar = 1;
            }
        } else {
            self.t_srtt = m << NS2_SRTT_BITS;
            self.t_rttvar = m << (NS2_RTTVAR_BITS - 1);
        }
        let v = ((self.t_rttvar << (NS2_RTTVAR_EXP + NS2_SRTT_BITS - NS2_RTTVAR_BITS)) + self.t_srtt) >> NS2_SRTT_BITS;
        self.t_rtxcur = Some(v.max(0) as u64);
    }

    /// `rtt_timeout()` with the backoff factor 2^shift.
    fn timeout(&self, initial: SimDuration, min: SimDuration, max: SimDuration, shift: u32) -> SimDuration {
        let rtxcur = self.t_rtxcur.map_or(initial.0, |t| t.saturating_mul(self.tick));
        let base = if rtxcur < min.0 { min.0 } else { rtxcur };
        SimDuration(shifted(base, shift)).min(max).max(SimDuration(2 * self.tick))
    }
}

#[derive(Clone, Debug)]
enum Mode {
    Fine(Fine),
    Coarse(Coarse),
    Ns2(Ns2),
}

/// Retransmission-timeout estimator; see the module docs.
#[derive(Clone, Debug)]
pub struct RtoEstimator {
    mode: Mode,
    initial: SimDuration,
    min: SimDuration,
    max: SimDuration,
    max_backoff_shift: u32,
    /// Backoff exponent (BSD `t_rxtshift`).
    shift: u32,
    /// The samples taken, as measured (reported only).
    samples: RttSamples,
    /// BSD `t_rtseq`/`t_rtt`: the end of the segment being timed and when it
    /// left (one measurement per RTT, without timestamps).
    timed: Option<(u64, SimTime)>,
    /// `tcp.rto.sampling`.
    sampling: RttSampling,
    /// `RttSampling::PerSegment`: the outstanding segments in the order they
    /// were first sent, with their send times.
    history: VecDeque<SentSegment>,
    /// The latest sample (for a congestion controller that reads it).
    last: Option<SimDuration>,
}

/// A segment as the per-segment sampler remembers it (ns-3's `RttHistory`).
#[derive(Copy, Clone, Debug)]
struct SentSegment {
    seq: u64,
    end: u64,
    sent: SimTime,
    /// Resent since: its ACK is ambiguous (Karn).
    retransmitted: bool,
}

/// Count, sum, least and greatest of the RTT samples an estimator took
/// (Karn-valid ones: those it was handed), for the results.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RttSamples {
    pub count: u64,
    pub sum: SimDuration,
    pub min: SimDuration,
    pub max: SimDuration,
}

impl RttSamples {
    fn add(&mut self, r: SimDuration) {
        self.min = if self.count == 0 { r } else { self.min.min(r) };
        self.max = self.max.max(r);
        self.sum = self.sum + r;
        self.count += 1;
    }
    /// Mean sample in seconds (`None` without one).
    pub fn mean_s(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum.as_secs_f64() / self.count as f64)
    }
}

impl RtoEstimator {
    pub fn new(cfg: &RtoConfig) -> Self {
        let mode = match cfg.mode {
            RtoMode::Fine { granularity } => {
                Mode::Fine(Fine { g: granularity, srtt: None, rttvar: SimDuration::ZERO, base: cfg.initial })
            }
            RtoMode::Coarse { tick } => {
                let t = tick.as_nanos();
                assert!(t > 0, "coarse RTO mode needs a non-zero tick");
                let up = |d: SimDuration| d.as_nanos().div_ceil(t).max(1);
                let min_ticks = up(cfg.min);
                let max_ticks = (cfg.max.as_nanos() / t).max(min_ticks);
                Mode::Coarse(Coarse {
                    tick: t,
                    t_srtt: 0,
                    t_rttvar: 0,
                    t_rxtcur: up(cfg.initial),
                    min_ticks,
                    max_ticks,
                    initial_ticks: up(cfg.initial),
                })
            }
            RtoMode::Ns2 { tick, phase } => {
                assert!(tick.as_nanos() > 0, "ns2 RTO mode needs a non-zero tick");
                Mode::Ns2(Ns2 {
                    tick: tick.as_nanos(),
                    phase: phase.as_nanos(),
                    t_srtt: 0,
                    t_rttvar: 0,
                    t_rtxcur: None,
                })
            }
        };
        RtoEstimator {
            mode,
            initial: cfg.initial,
            min: cfg.min,
            max: cfg.max,
            max_backoff_shift: cfg.max_backoff_shift,
            shift: 0,
            samples: RttSamples::default(),
            timed: None,
            sampling: cfg.sampling,
            history: VecDeque::new(),
            last: None,
        }
    }

    /// One RTT measurement for a segment sent at `sent`, acknowledged at
    /// `now`. Also clears the backoff (Karn; BSD `t_rxtshift = 0`).
    pub fn on_rtt_sample(&mut self, sent: SimTime, now: SimTime) {
        self.samples.add(now.saturating_since(sent));
        self.last = Some(now.saturating_since(sent));
        let (min, max) = (self.min, self.max);
        match &mut self.mode {
            Mode::Fine(f) => {
                let r = now.saturating_since(sent);
                match f.srtt {
                    None => {
                        // RFC 6298 §2.2: SRTT <- R, RTTVAR <- R/2.
                        f.srtt = Some(r);
                        f.rttvar = SimDuration(r.0 / 2);
                    }
                    Some(srtt) => {
                        // RFC 6298 §2.3, beta = 1/4 then alpha = 1/8; RTTVAR
                        // uses the SRTT from before this sample.
                        let err = srtt.0.abs_diff(r.0) as u128;
                        let rttvar = (3 * f.rttvar.0 as u128 + err) / 4;
                        let srtt = (7 * srtt.0 as u128 + r.0 as u128) / 8;
                        f.rttvar = SimDuration(rttvar as u64);
                        f.srtt = Some(SimDuration(srtt as u64));
                    }
                }
                // RFC 6298 §2.2/2.3: RTO = SRTT + max(G, K·RTTVAR), K = 4;
                // then §2.4 (floor) and §2.5 (ceiling).
                let srtt = f.srtt.unwrap_or_default();
                let var_term = f.rttvar.saturating_mul(4).max(f.g);
                f.base = (srtt + var_term).max(min).min(max);
            }
            Mode::Coarse(c) => {
                // The slow timer increments t_rtt once per tick after
                // starting it at 1, so the sample is the number of tick
                // boundaries in (sent, now], plus one.
                let crossed = (now.0 / c.tick).saturating_sub(sent.0 / c.tick);
                let rtt = crossed as i64 + 1;
                if c.t_srtt != 0 {
                    // tcp_xmit_timer: alpha = 1/8 on srtt, with the sample
                    // moved to origin 0 (rtt - 1), both sides carrying
                    // TCP_DELTA_SHIFT fraction bits.
                    let mut delta = ((rtt - 1) << TCP_DELTA_SHIFT) - (c.t_srtt >> (TCP_RTT_SHIFT - TCP_DELTA_SHIFT));
                    c.t_srtt += delta;
                    if c.t_srtt <= 0 {
                        c.t_srtt = 1;
                    }
                    // rttvar gains |delta|/4 and loses rttvar/4 (beta = 1/4).
                    delta = delta.abs() - (c.t_rttvar >> (TCP_RTTVAR_SHIFT - TCP_DELTA_SHIFT));
                    c.t_rttvar += delta;
                    if c.t_rttvar <= 0 {
                        c.t_rttvar = 1;
                    }
                } else {
                    // First sample: srtt = rtt, rttvar = rtt/2, so the first
                    // RTO is about 3·rtt.
                    c.t_srtt = rtt << TCP_RTT_SHIFT;
                    c.t_rttvar = rtt << (TCP_RTTVAR_SHIFT - 1);
                }
                // TCPT_RANGESET(t_rxtcur, TCP_REXMTVAL, max(t_rttmin, rtt + 2),
                // TCPTV_REXMTMAX): the lower bound wins over the upper one if
                // they cross, as the macro tests the lower bound first.
                let lo = c.min_ticks.max(rtt as u64 + 2);
                let v = c.rexmtval();
                c.t_rxtcur = if v < lo { lo } else { v.min(c.max_ticks) };
            }
            // ns-2 clears t_backoff_ where it takes the sample (newack).
            Mode::Ns2(n) => n.sample(sent, now),
        }
        self.shift = 0;
    }

    /// Current RTO including backoff: base × 2^shift, capped at `max`
    /// (RFC 6298 §5.5, §2.5). Before any sample: `initial` (§2.1).
    ///
    /// Coarse mode with a sample follows BSD `tcp_timers`: the backed-off
    /// value is `TCP_REXMTVAL · 2^shift` clamped to `[min, max]`, without the
    /// `rtt + 2` floor of the un-backed-off RTO, so the first backoff can
    /// yield a *smaller* RTO than none when that floor was binding.
    pub fn rto(&self) -> SimDuration {
        match &self.mode {
            Mode::Fine(f) => {
                let base = if f.srtt.is_some() { f.base } else { self.initial };
                SimDuration(shifted(base.0, self.shift)).min(self.max)
            }
            Mode::Coarse(c) => SimDuration(c.rto_ticks(self.shift).saturating_mul(c.tick)),
            Mode::Ns2(n) => n.timeout(self.initial, self.min, self.max, self.shift),
        }
    }

    /// Expiry instant of a timer armed at `now`. Fine: `now + rto()`.
    /// Coarse: the k-th tick boundary strictly after `now`, k = rto()/tick.
    pub fn deadline(&self, now: SimTime) -> SimTime {
        match &self.mode {
            Mode::Fine(_) | Mode::Ns2(_) => now + self.rto(),
            Mode::Coarse(c) => {
                let k = c.rto_ticks(self.shift).max(1);
                let first = (now.0 / c.tick).saturating_add(1).saturating_mul(c.tick);
                SimTime(first.saturating_add((k - 1).saturating_mul(c.tick)))
            }
        }
    }

    /// Timer expired: shift += 1, capped at `max_backoff_shift` (RFC 6298 §5.5).
    pub fn backoff(&mut self) {
        self.shift = (self.shift + 1).min(self.max_backoff_shift);
        if let Mode::Ns2(n) = &mut self.mode {
            if self.shift > NS2_CLOBBER_SHIFT {
                // rtt_backoff: "if backed off this far, clobber the srtt
                // value, storing it in the mean deviation instead".
                n.t_rttvar += n.t_srtt >> NS2_SRTT_BITS;
                n.t_srtt = 0;
            }
        }
    }

    /// Forget the backoff without a new sample (progress made, but Karn's
    /// rule gave no measurement).
    pub fn reset_backoff(&mut self) {
        self.shift = 0;
    }

    pub fn backoff_shift(&self) -> u32 {
        self.shift
    }

    /// Smoothed RTT. Coarse mode: BSD's `t_srtt / 32` ticks, as a duration
    /// (after the first sample BSD keeps it in origin-0 ticks, i.e. about one
    /// tick below the counted samples).
    pub fn srtt(&self) -> Option<SimDuration> {
        match &self.mode {
            Mode::Fine(f) => f.srtt,
            Mode::Coarse(c) => (c.t_srtt != 0).then(|| fixed_to_duration(c.t_srtt, TCP_RTT_SHIFT, c.tick)),
            Mode::Ns2(n) => (n.t_srtt != 0).then(|| fixed_to_duration(n.t_srtt, NS2_SRTT_BITS, n.tick)),
        }
    }

    /// RTT variation. Coarse mode: `t_rttvar / 16` ticks, as a duration.
    pub fn rttvar(&self) -> Option<SimDuration> {
        match &self.mode {
            Mode::Fine(f) => f.srtt.map(|_| f.rttvar),
            Mode::Coarse(c) => (c.t_srtt != 0).then(|| fixed_to_duration(c.t_rttvar, TCP_RTTVAR_SHIFT, c.tick)),
            Mode::Ns2(n) => (n.t_srtt != 0).then(|| fixed_to_duration(n.t_rttvar, NS2_RTTVAR_BITS, n.tick)),
        }
    }

    /// A new segment `[seq, end)` left at `now`. `Timed`: time it if none
    /// is being timed (BSD `tcp_output`, one measurement at a time).
    /// `PerSegment`: remember it.
    pub fn time_segment(&mut self, seq: u64, end: u64, now: SimTime) {
        match self.sampling {
            RttSampling::Timed => {
                if self.timed.is_none() {
                    self.timed = Some((end, now));
                }
            }
            RttSampling::PerSegment => {
                self.history.push_back(SentSegment { seq, end, sent: now, retransmitted: false })
            }
        }
    }

    /// Karn's rule (Karn & Partridge 1987; RFC 6298 §3) at a loss event (a
    /// fast retransmit, a timeout, a go-back-N): `Timed` drops the running
    /// measurement; `PerSegment` marks segments only as they are resent
    /// ([`RtoEstimator::on_retransmission`]).
    pub fn forget_timed_segment(&mut self) {
        self.timed = None;
    }

    /// The timer expired: `Timed` drops the running measurement; `PerSegment`
    /// forgets every remembered segment, as ns-3's `ReTxTimeout` empties
    /// `m_history`, so that no segment sent before the timeout, and ACKed
    /// after it, gives a sample that includes the wait for the timer.
    pub fn on_timeout(&mut self) {
        self.timed = None;
        self.history.clear();
    }

    /// `[seq, end)` was sent again. `Timed`: the running measurement is
    /// dropped (its ACK may be the resent segment's, or held back by it).
    /// `PerSegment`: the remembered segment holding `seq` is marked and now
    /// ends at `end`, as ns-3's `UpdateRttHistory` updates its count.
    pub fn on_retransmission(&mut self, seq: u64, end: u64) {
        match self.sampling {
            RttSampling::Timed => self.timed = None,
            RttSampling::PerSegment => {
                if let Some(s) = self.history.iter_mut().find(|s| s.seq <= seq && seq < s.end) {
                    s.retransmitted = true;
                    s.end = end;
                }
            }
        }
    }

    /// An ACK of everything below `ack` at `now`. `Timed`: the timed
    /// segment's sample, if this ACK covers it. `PerSegment`: a sample from
    /// the oldest remembered segment if the ACK covers it and it was sent
    /// once, then everything the ACK covers is forgotten (ns-3's
    /// `TcpSocketBase::EstimateRtt`).
    pub fn on_cumulative_ack(&mut self, ack: u64, now: SimTime) {
        match self.sampling {
            RttSampling::Timed => {
                if let Some((end, sent)) = self.timed {
                    if ack >= end {
                        self.on_rtt_sample(sent, now);
                        self.timed = None;
                    }
                }
            }
            RttSampling::PerSegment => {
                if let Some(&front) = self.history.front() {
                    if !front.retransmitted && ack >= front.end {
                        self.on_rtt_sample(front.sent, now);
                    }
                }
                while self.history.front().is_some_and(|s| s.end <= ack) {
                    self.history.pop_front();
                }
            }
        }
    }

    /// The latest sample taken, if any.
    pub fn last_sample(&self) -> Option<SimDuration> {
        self.last
    }

    /// The samples taken so far.
    pub fn samples(&self) -> &RttSamples {
        &self.samples
    }

    pub fn has_sample(&self) -> bool {
        match &self.mode {
            Mode::Fine(f) => f.srtt.is_some(),
            Mode::Coarse(c) => c.t_srtt != 0,
            Mode::Ns2(n) => n.t_rtxcur.is_some(),
        }
    }
}

/// A BSD fixed-point tick count as nanoseconds (rounded down).
fn fixed_to_duration(v: i64, frac_bits: u32, tick: u64) -> SimDuration {
    let ns = (v.max(0) as u128 * tick as u128) >> frac_bits;
    SimDuration(ns.min(u64::MAX as u128) as u64)
}

#[cfg(test)]
mod tests;
