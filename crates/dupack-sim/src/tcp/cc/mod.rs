//! Congestion control: window growth on new ACKs and the multiplicative
//! decrease applied when a loss is detected (RFC 5681 §3.1).
//!
//! Growth is per ACK, not per byte: slow start adds `min(acked, SMSS)` and
//! congestion avoidance `SMSS·SMSS/cwnd` (RFC 5681 eq. 2 and 3), which with
//! one ACK per segment is the per-packet `cwnd += 1` / `cwnd += 1/cwnd` of
//! the BSD stacks and of ns-2 that the papers used.
//!
//! The congestion controller is the sender's third slot, beside the
//! duplicate-ACK threshold and the loss recovery (`tcp::recovery`): the
//! recovery policy decides *when* the window is reduced and what is resent,
//! the controller *by how much* (its β) and how the window grows between
//! losses. [`Reno`] is RFC 5681's AIMD; [`cubic::Cubic`] is RFC 9438;
//! [`vegas::Vegas`] is Brakmo & Peterson's delay-based avoidance. A variant
//! names the controller with `+cc=NAME` (`tcp::variant`).

pub mod cubic;
pub mod cubic_ns3;
pub mod vegas;

use crate::scenario::model::CaIncrease;
use crate::time::{SimDuration, SimTime};

/// What a controller sees of the sender on an ACK.
#[derive(Copy, Clone, Debug)]
pub struct AckInput {
    pub cwnd: u64,
    pub ssthresh: u64,
    /// New bytes this ACK acknowledged.
    pub acked: u64,
    /// The data this ACK newly reports delivered: the cumulative advance
    /// less what was SACKed before, plus what it newly SACKs (RFC 6937's
    /// DeliveredData; equal to `acked` without SACK). ns-3's
    /// `TcpSocketBase::ProcessAck` counts `segmentsAcked` from it.
    pub delivered: u64,
    pub mss: u64,
    pub max_cwnd: u64,
    pub srtt: Option<SimDuration>,
    /// This ACK ends a fast recovery (the growth a recovery's exit rule
    /// allows, `tcp.rfc6675_exit_growth = "grow"`).
    pub ends_recovery: bool,
    pub now: SimTime,
    /// The cumulative ACK (after this one) and the next byte to send, for a
    /// controller that compares the data outstanding with the rate (Vegas).
    pub snd_una: u64,
    pub snd_nxt: u64,
}

/// A controller's answer to an ACK: the new window, and a new `ssthresh`
/// if it moves the slow-start boundary (Vegas leaving slow start).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Growth {
    pub cwnd: u64,
    pub ssthresh: Option<u64>,
}

impl Growth {
    pub fn cwnd(cwnd: u64) -> Growth {
        Growth { cwnd, ssthresh: None }
    }
}

/// A congestion controller: growth between losses and the size of the
/// reduction at a loss. The recovery policy calls the reduction
/// (`View::loss_ssthresh`, which applies [`CongestionControl::beta`]); the
/// sender tells the controller when one happened.
pub trait CongestionControl: std::fmt::Debug + Send {
    /// The window after an ACK outside loss recovery (slow start or
    /// congestion avoidance), at most `max_cwnd`.
    fn on_ack(&mut self, a: &AckInput) -> Growth;
    /// A data segment holding byte `seq` left at `now` (first transmission
    /// or not), for a controller that keeps its own per-segment clock.
    fn on_transmit(&mut self, _seq: u64, _mss: u64, _now: SimTime) {}
    /// The multiplicative decrease factor: `None` is RFC 5681's halving
    /// (eq. 4, or the BSD rule `tcp.loss_ssthresh` chooses).
    fn beta(&self) -> Option<f64> {
        None
    }
    /// β is applied to the window in whole segments, `cwnd` at the event
    /// (also at every expiry of the timer), rather than as
    /// `tcp.loss_ssthresh` says ([`reduce_whole_segments`]; ns-3's CUBIC).
    /// Such a controller is also told of every expiry ([`Self::on_congestion`]
    /// with `timeout`), backoffs included, as ns-3's `ReTxTimeout` calls
    /// `GetSsThresh` at each; others hear of a timeout's first expiry only.
    fn ssthresh_of_whole_segments(&self) -> bool {
        false
    }
    /// A congestion event (fast retransmit or ECN reduction; a retransmission
    /// timeout when `timeout`) at `now`, with the window `cwnd` it found.
    fn on_congestion(&mut self, _cwnd: u64, _mss: u64, _timeout: bool, _now: SimTime) {}
    /// A window reduction was undone (`+undo`, `+irw`): the controller
    /// forgets the epoch the reduction started.
    fn on_undo(&mut self) {}
    /// Any ACK that finds data outstanding, new or duplicate, in loss
    /// recovery or not, after the sender took its RTT sample and, for a
    /// duplicate ACK, after the recovery saw it: `srtt` is the smoothed RTT
    /// then. ns-3 calls its controller's `PktsAcked` on every such ACK with
    /// the smoothed RTT (`TcpSocketBase::ProcessAck`), which its CUBIC's
    /// least delay follows ([`cubic_ns3::Ns3Cubic`]).
    fn on_any_ack(&mut self, _srtt: Option<SimDuration>, _now: SimTime) {}
    fn name(&self) -> &'static str;
}

/// RFC 5681 AIMD. With `ca_increase = "fractional"` the part of a byte
/// congestion avoidance would drop is kept for the next ACK (and forgotten
/// whenever anything else sets cwnd), as ns-2's double-valued window does.
#[derive(Clone, Debug)]
pub struct Reno {
    increase: CaIncrease,
    /// (the cwnd the fraction belongs to, the fraction of a byte accumulated).
    frac: (u64, f64),
}

impl Reno {
    pub fn new(increase: CaIncrease) -> Self {
        Reno { increase, frac: (0, 0.0) }
    }
}

impl CongestionControl for Reno {
    fn on_ack(&mut self, a: &AckInput) -> Growth {
        Growth::cwnd(self.grow(a))
    }
    fn name(&self) -> &'static str {
        "reno"
    }
}

impl Reno {
    fn grow(&mut self, a: &AckInput) -> u64 {
        if self.increase == CaIncrease::Fractional && a.cwnd >= a.ssthresh {
            if self.frac.0 != a.cwnd {
                self.frac = (a.cwnd, 0.0);
            }
            let mss = a.mss as f64;
            let exact = self.frac.1 + mss * mss / (a.cwnd as f64 + self.frac.1);
            let whole = exact.floor();
            let cwnd = a.cwnd.saturating_add(whole as u64).min(a.max_cwnd);
            self.frac = (cwnd, exact - whole);
            cwnd
        } else {
            let cwnd = grow(a.cwnd, a.ssthresh, a.acked, a.mss, a.max_cwnd);
            // Slow start adds whole segments: a fraction carried so far stays.
            if self.frac.0 == a.cwnd {
                self.frac.0 = cwnd;
            }
            cwnd
        }
    }
}

/// RFC 5681 §3.1: slow start while `cwnd < ssthresh`, congestion avoidance
/// otherwise; `cwnd` never exceeds `max_cwnd`.
pub fn grow(cwnd: u64, ssthresh: u64, acked: u64, mss: u64, max_cwnd: u64) -> u64 {
    let inc = if cwnd < ssthresh {
        acked.min(mss)
    } else {
        // At least one byte, so that a huge cwnd still grows (RFC 5681 eq. 3 note).
        (mss * mss / cwnd.max(1)).max(1)
    };
    cwnd.saturating_add(inc).min(max_cwnd)
}

/// RFC 5681 eq. 4: `ssthresh = max(FlightSize / 2, 2·SMSS)`.
pub fn halve(flight_size: u64, mss: u64) -> u64 {
    (flight_size / 2).max(2 * mss)
}

/// `ssthresh = max(window · β, 2·SMSS)` (RFC 9438 §4.6 with β_cubic).
pub fn reduce(window: u64, beta: f64, mss: u64) -> u64 {
    ((window as f64 * beta) as u64).max(2 * mss)
}

/// Linux's and ns-3's CUBIC: `ssthresh = max(⌊⌊cwnd / SMSS⌋ · β⌋, 2)` segments.
pub fn reduce_whole_segments(cwnd: u64, beta: f64, mss: u64) -> u64 {
    (((cwnd / mss) as f64 * beta) as u64).max(2) * mss
}

/// BSD's and ns-2's rule (RFC 2001 §3): half the window
/// `min(cwnd, rwnd)`, in whole segments, at least two.
pub fn halve_window(window: u64, mss: u64) -> u64 {
    (window / mss / 2).max(2) * mss
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn rfc5681_slow_start_adds_at_most_one_mss() {
        assert_eq!(grow(1000, u64::MAX, 1000, 1000, u64::MAX), 2000);
        assert_eq!(grow(1000, u64::MAX, 3000, 1000, u64::MAX), 2000);
        assert_eq!(grow(1000, u64::MAX, 500, 1000, u64::MAX), 1500);
    }
    #[test]
    fn rfc5681_congestion_avoidance_adds_mss_squared_over_cwnd() {
        assert_eq!(grow(10_000, 5_000, 1000, 1000, u64::MAX), 10_100);
        assert_eq!(grow(10_000, 5_000, 1000, 1000, 10_050), 10_050);
    }
    #[test]
    fn rfc5681_eq4_halves_flight_with_a_floor_of_two_segments() {
        assert_eq!(halve(20_000, 1000), 10_000);
        assert_eq!(halve(3_000, 1000), 2_000);
    }
    #[test]
    fn bsd_halves_the_window_in_whole_segments() {
        assert_eq!(halve_window(10_500, 1000), 5_000);
        assert_eq!(halve_window(11_999, 1000), 5_000);
        assert_eq!(halve_window(3_000, 1000), 2_000);
    }
}
