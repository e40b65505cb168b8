//! What every policy of the sender shares: the read-only [`View`] of the
//! sender it decides from, the [`Response`] it answers with, and the two
//! policy traits, [`DupThreshold`] (how many duplicate ACKs mean a loss:
//! `tcp::detect`) and [`LossRecovery`] (what to do about it: `tcp::recovery`).
//! The third slot, congestion control, has its trait in `tcp::cc`. Keeping
//! these here lets detection and recovery depend on this file only, not
//! on each other; `tcp::compose` builds a variant's policies from them.

use crate::scenario::model::LossSsthresh;
use crate::tcp::scoreboard::Scoreboard;
use crate::time::{SimDuration, SimTime};

/// A duplicate-ACK threshold policy (`tcp::detect`).
pub trait DupThreshold {
    /// The threshold in force for the segment the duplicate ACKs are for.
    fn on_dupack(&mut self, v: &View) -> u32;
}

/// What a policy may read of the sender.
#[derive(Copy, Clone, Debug)]
pub struct View {
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub snd_max: u64,
    pub cwnd: u64,
    pub ssthresh: u64,
    pub mss: u64,
    /// Peer's advertised window.
    pub rwnd: u64,
    /// Duplicate ACKs received for `snd_una` so far (RFC 5681 §2 definition).
    pub dupacks: u32,
    /// The duplicate-ACK threshold in force for this loss.
    pub dupthresh: u32,
    /// One past the last byte the application wrote (`u64::MAX` if unlimited).
    pub app_end: u64,
    /// Bytes sent by Limited Transmit since the cumulative ACK last advanced
    /// (RFC 3042); set by the `+lt` decorator, zero otherwise.
    pub limited_transmit: u64,
    /// The ACK being handled carries ECN-Echo (and the sender does ECN).
    pub ece: bool,
    /// The current instant.
    pub now: SimTime,
    /// Smoothed RTT, once measured.
    pub srtt: Option<SimDuration>,
    /// What a loss halves (`tcp.loss_ssthresh`).
    pub loss_ssthresh: LossSsthresh,
    /// The recovery policy is in fast recovery.
    pub in_recovery: bool,
    /// The congestion controller's multiplicative decrease (`None`: halve;
    /// `tcp::cc::CongestionControl::beta`).
    pub beta: Option<f64>,
    /// The controller applies β to whole segments of cwnd (ns-3's CUBIC,
    /// `tcp::cc::CongestionControl::ssthresh_of_whole_segments`).
    pub ssthresh_whole_segments: bool,
    /// The data in the network for `loss_ssthresh = "pipe"` (ns-3's
    /// ssthresh); `None` otherwise.
    pub pipe: Option<u64>,
}

impl View {
    /// RFC 5681 §2 FlightSize: sent but not cumulatively acknowledged.
    pub fn flight_size(&self) -> u64 {
        self.snd_max - self.snd_una
    }
    /// The FlightSize of RFC 5681 eq. 4 when loss is detected: segments sent
    /// by Limited Transmit are not included (RFC 5681 §3.2 step 2).
    pub fn ssthresh_flight(&self) -> u64 {
        self.flight_size() - self.limited_transmit
    }
    /// `ssthresh` after a loss: RFC 5681 eq. 4, or half the window in whole
    /// segments (`tcp.loss_ssthresh = "window"`).
    ///
    /// The window that `"window"` halves is the one ns-2's `slowdown()`
    /// halves, `min(cwnd_, window_)`, and ns-2 keeps the fast-recovery
    /// inflation apart from `cwnd_` (`dupwnd_`, zeroed by
    /// `RenoTcpAgent::timeout` and `NewRenoTcpAgent::timeout` before
    /// `slowdown()`). During a recovery, that `cwnd_` is the value the fast
    /// retransmit set, ssthresh; here `cwnd` carries the inflation (RFC 5681
    /// §3.2 step 4), so the window without it is min(cwnd, ssthresh). A
    /// timeout that ends a NewReno recovery inflated to 17 segments with
    /// ssthresh 7 thus gives 3, as in ns-2, not 8.
    pub fn loss_ssthresh(&self) -> u64 {
        use crate::tcp::cc::{halve, halve_window, reduce, reduce_whole_segments};
        if let (true, Some(b)) = (self.ssthresh_whole_segments, self.beta) {
            return reduce_whole_segments(self.cwnd, b, self.mss);
        }
        match (self.loss_ssthresh, self.beta) {
            (LossSsthresh::FlightSize, None) => halve(self.ssthresh_flight(), self.mss),
            (LossSsthresh::FlightSize, Some(b)) => reduce(self.ssthresh_flight(), b, self.mss),
            (LossSsthresh::Pipe, None) => halve(self.pipe.unwrap_or(self.ssthresh_flight()), self.mss),
            (LossSsthresh::Pipe, Some(b)) => reduce(self.pipe.unwrap_or(self.ssthresh_flight()), b, self.mss),
            (LossSsthresh::Window, beta) => {
                let cwnd = if self.in_recovery { self.cwnd.min(self.ssthresh) } else { self.cwnd };
                match beta {
                    None => halve_window(cwnd.min(self.rwnd), self.mss),
                    Some(b) => reduce(cwnd.min(self.rwnd), b, self.mss),
                }
            }
        }
    }
    /// ns-2's `halfwin`: half of `min(cwnd_, window_)` *unrounded*, in bytes,
    /// the `cwnd_` that `slowdown(CLOSE_CWND_HALF)` leaves while ssthresh
    /// gets it rounded down (`"window"` only; `None` for `"flightsize"` and
    /// for a congestion controller with its own decrease).
    pub fn half_window(&self) -> Option<u64> {
        if self.loss_ssthresh != LossSsthresh::Window || self.beta.is_some() {
            return None;
        }
        let cwnd = if self.in_recovery { self.cwnd.min(self.ssthresh) } else { self.cwnd };
        Some(cwnd.min(self.rwnd) / 2)
    }
    /// The window a recovery ends with: ssthresh (RFC 5681 §3.2 step 6, RFC
    /// 6675), or ns-2's unrounded half window `half` that [`View::half_window`]
    /// gave at the fast retransmit (`"window"` only).
    pub fn exit_window(&self, half: Option<u64>) -> u64 {
        half.map_or(self.ssthresh, |h| h.max(self.ssthresh))
    }
    /// Could the sender put a new full segment on the wire now? (RFC 5827 §3: "new data cannot be sent")
    pub fn can_send_new_data(&self) -> bool {
        let len = self.mss.min(self.app_end.saturating_sub(self.snd_nxt));
        len > 0 && window_allows(self, len)
    }
}

/// A policy's decision; `None`/`false` fields leave the sender unchanged.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Response {
    pub ssthresh: Option<u64>,
    pub cwnd: Option<u64>,
    /// Retransmit the segment starting here now, regardless of the window
    /// (RFC 5681 §3.2 step 2; RFC 6582 §3.2 step 5).
    pub retransmit: Option<u64>,
    /// This response is a fast retransmit (counted; N_dup recorded).
    pub fast_retransmit: bool,
    /// Tahoe: send again from `snd_una` (`snd_nxt = snd_una`).
    pub go_back_n: bool,
    /// Grow `cwnd` by slow start / congestion avoidance for this ACK.
    pub grow: bool,
    /// Restart the retransmission timer (RFC 6298 §5.3). `None` = the
    /// default: restart on every ACK of new data.
    pub restart_rto: Option<bool>,
    /// This response is a window reduction for ECN-Echo (counted; CWR follows).
    pub ecn_reduction: bool,
}

impl Response {
    /// The fast retransmit every window-halving policy starts recovery with:
    /// `ssthresh = max(FlightSize/2, 2·SMSS)` (RFC 5681 eq. 4, Limited
    /// Transmit's segments excluded), `cwnd = ssthresh + inflation`, and
    /// `snd_una` retransmitted at once (RFC 5681 §3.2 steps 2–3).
    pub fn fast_retransmit(v: &View, inflation: u64) -> Response {
        let ssthresh = v.loss_ssthresh();
        Response {
            ssthresh: Some(ssthresh),
            cwnd: Some(ssthresh + inflation),
            retransmit: Some(v.snd_una),
            fast_retransmit: true,
            ..Response::default()
        }
    }
}

/// Guard against a second fast retransmit for losses in the same window:
/// RFC 6582 §3.2 step 2 — enter recovery only when the cumulative ACK
/// covers more than `recover`, which is unset (`None`) until the first
/// recovery or timeout.
pub fn may_enter(recover: Option<u64>, snd_una: u64) -> bool {
    recover.is_none_or(|r| snd_una > r)
}

/// The conventional send rule outside recovery: the next segment must fit
/// in `min(cwnd, rwnd)` counted from `snd_una` (RFC 5681 §2, "usable window").
pub fn window_allows(v: &View, len: u64) -> bool {
    v.snd_nxt - v.snd_una + len <= v.cwnd.min(v.rwnd)
}

pub trait LossRecovery {
    /// True between entering and leaving fast recovery.
    fn in_recovery(&self) -> bool;
    /// A duplicate ACK arrived; `v.dupacks` already counts it.
    fn on_dupack(&mut self, v: &View, sb: &mut Scoreboard) -> Response;
    /// The cumulative ACK advanced by `acked` bytes; `v.snd_una` is the new value.
    fn on_new_ack(&mut self, v: &View, acked: u64, sb: &mut Scoreboard) -> Response;
    /// May a segment of `len` bytes at `snd_nxt` (or a retransmission from
    /// [`Self::next_retransmit`]) be sent now?
    fn may_send(&self, v: &View, _sb: &Scoreboard, len: u64) -> bool {
        window_allows(v, len)
    }
    /// During recovery: a segment to retransmit before new data.
    fn next_retransmit(&mut self, _v: &View, _sb: &mut Scoreboard) -> Option<u64> {
        None
    }
    /// A segment left through the window (not a forced retransmission).
    fn on_transmit(&mut self, _v: &View, _sb: &mut Scoreboard, _seq: u64, _len: u64) {}
    /// The retransmission timer expired.
    fn on_timeout(&mut self, v: &View, sb: &mut Scoreboard);
    /// The `recover` point, for traces and tests.
    fn recover(&self) -> Option<u64>;
    /// The policy reacts to ECN-Echo itself (ECN-FACK); the core's RFC 3168
    /// response is then skipped.
    fn handles_ecn(&self) -> bool {
        false
    }
    /// When the policy's own timer (RACK reordering window, tail loss probe)
    /// next needs [`LossRecovery::on_timer`]; `None` if it keeps none.
    fn poll_timeout(&self) -> Option<SimTime> {
        None
    }
    /// The policy's timer fired.
    fn on_timer(&mut self, _v: &View, _sb: &mut Scoreboard) -> Response {
        Response::default()
    }
    /// The policy's estimate of the bytes in the network during recovery
    /// (RFC 6675 `pipe`), if it keeps one that PRR can use.
    fn pipe_bytes(&self, _v: &View, _sb: &Scoreboard) -> Option<u64> {
        None
    }
}
