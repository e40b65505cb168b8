//! Reno fast retransmit / fast recovery (RFC 5681 §3.2) and its NewReno
//! modification (RFC 6582 §3.2), as one policy with a partial-ACK rule.
//!
//! Entry (RFC 5681 §3.2 steps 2–3): on the `dupthresh`-th duplicate ACK,
//! `ssthresh = max(FlightSize/2, 2·SMSS)`, retransmit `snd_una`,
//! `cwnd = ssthresh + dupthresh·SMSS`; each further dupack inflates `cwnd` by
//! one SMSS (step 4). `cwnd` holds the *inflated* value, exactly as in the
//! RFC text and in ns-2's traces.
//!
//! Leaving recovery differs:
//! - **Reno** (RFC 5681 step 6): the first ACK of new data deflates `cwnd`
//!   to `ssthresh` and ends recovery, whether or not it covers everything
//!   outstanding; further losses of the window need new dupacks or an RTO.
//! - **NewReno** (RFC 6582 §3.2 steps 3–5): an ACK below `recover` is a
//!   partial ACK — retransmit the next unacknowledged segment, deflate
//!   `cwnd` by the bytes acked and add back one SMSS if at least one SMSS was
//!   acked, and reset the timer on the first partial ACK only ("Impatient",
//!   configurable); a full ACK ends recovery with
//!   `cwnd = min(ssthresh, FlightSize + SMSS)` (option 1, also unfairness
//!   §III) or `cwnd = ssthresh` (option 2).
//!
//! With `tcp.loss_ssthresh = "window"` Reno leaves recovery with ns-2's
//! window rather than RFC 5681's: ns-2's `slowdown()` sets `cwnd_` to half
//! the window unrounded and ssthresh to it rounded down, keeps the
//! inflation apart (`dupwnd_`) and zeroes only that on the ACK that ends
//! recovery, so `cwnd_` is 12.5 segments where RFC 5681 step 6 gives
//! ssthresh = 12 (an odd window of 25 at the loss).
//!
//! With `tcp.recovery_exit_growth = "grow"` the ACK that ends recovery also
//! grows the window from the value just set, as on any other ACK of new
//! data: ns-2's Reno and NewReno agents call `opencwnd()` for it (Reno's
//! `cwnd_` goes 10 → 10.1 there, NewReno's 3 → 4); the RFCs do not. The
//! full ACK's min(ssthresh, FlightSize + SMSS) then leaves out RFC 6582's
//! floor of one segment under FlightSize, as ns-2's `exit_recovery_fix_`
//! does.
//!
//! Choices (config fields): Reno applies the `recover` guard against a
//! second fast retransmit in one window (`reno_avoid_multiple_fr`, default
//! on as in ns-2); NewReno always applies it (RFC 6582 §3.2 step 2).

use super::{may_enter, LossRecovery, Response, View};
use crate::scenario::model::{FullAckRule, PartialAckRtoReset};
use crate::tcp::scoreboard::Scoreboard;

/// What a partial ACK does.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PartialAck {
    /// Reno: any ACK of new data ends recovery.
    EndRecovery { guard: bool },
    /// NewReno: stay in recovery and retransmit the next hole.
    Retransmit { full_ack: FullAckRule, rto_reset: PartialAckRtoReset },
}

#[derive(Clone, Debug)]
pub struct FastRecovery {
    rule: PartialAck,
    in_recovery: bool,
    recover: Option<u64>,
    partial_acks: u32,
    /// Reno with `loss_ssthresh = "window"`: the unrounded half window the
    /// fast retransmit left, which the deflation restores (see the module docs).
    exit_cwnd: Option<u64>,
    /// `recovery_exit_growth = "grow"` (see the module docs).
    exit_growth: bool,
}

impl FastRecovery {
    pub fn reno(guard: bool) -> Self {
        Self::new(PartialAck::EndRecovery { guard })
    }
    pub fn newreno(full_ack: FullAckRule, rto_reset: PartialAckRtoReset) -> Self {
        Self::new(PartialAck::Retransmit { full_ack, rto_reset })
    }
    fn new(rule: PartialAck) -> Self {
        FastRecovery { rule, in_recovery: false, recover: None, partial_acks: 0, exit_cwnd: None, exit_growth: false }
    }
    /// Grow the window on the ACK that ends recovery too (ns-2's agents).
    pub fn with_exit_growth(mut self, grow: bool) -> Self {
        self.exit_growth = grow;
        self
    }
    fn guarded(&self) -> bool {
        match self.rule {
            PartialAck::EndRecovery { guard } => guard,
            PartialAck::Retransmit { .. } => true,
        }
    }
}

impl LossRecovery for FastRecovery {
    fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    fn on_dupack(&mut self, v: &View, _sb: &mut Scoreboard) -> Response {
        if self.in_recovery {
            // RFC 5681 §3.2 step 4: each further dupack means a segment left the network.
            return Response { cwnd: Some(v.cwnd + v.mss), ..Response::default() };
        }
        if v.dupacks != v.dupthresh || (self.guarded() && !may_enter(self.recover, v.snd_una)) {
            return Response::default();
        }
        // RFC 5681 §3.2 steps 2–3; RFC 6582 §3.2 step 2 records `recover`.
        self.in_recovery = true;
        self.recover = Some(v.snd_max);
        self.partial_acks = 0;
        self.exit_cwnd = v.half_window();
        Response::fast_retransmit(v, v.dupthresh as u64 * v.mss)
    }

    fn on_new_ack(&mut self, v: &View, acked: u64, _sb: &mut Scoreboard) -> Response {
        if !self.in_recovery {
            return Response { grow: true, ..Response::default() };
        }
        let recover = self.recover.unwrap_or(0);
        match self.rule {
            PartialAck::EndRecovery { .. } => {
                // RFC 5681 §3.2 step 6: deflate (to ns-2's unrounded half
                // window with loss_ssthresh = "window").
                self.in_recovery = false;
                let cwnd = v.exit_window(self.exit_cwnd.take());
                Response { cwnd: Some(cwnd), grow: self.exit_growth, ..Response::default() }
            }
            PartialAck::Retransmit { full_ack, .. } if v.snd_una >= recover => {
                // RFC 6582 §3.2 step 3: full acknowledgment.
                self.in_recovery = false;
                // With exit growth, ns-2's `exit_recovery_fix_` bound:
                // `maxseq_ - seqno + 1` packets, FlightSize + SMSS without
                // RFC 6582's floor of one segment under FlightSize (an ACK
                // that leaves nothing outstanding restarts at one segment
                // and grows to two, RFC 6582's value without growth).
                let flight = if self.exit_growth { v.flight_size() } else { v.flight_size().max(v.mss) };
                let cwnd = match full_ack {
                    FullAckRule::FlightSize => v.ssthresh.min(flight + v.mss),
                    FullAckRule::Ssthresh => v.ssthresh,
                };
                Response { cwnd: Some(cwnd), grow: self.exit_growth, ..Response::default() }
            }
            PartialAck::Retransmit { rto_reset, .. } => {
                // RFC 6582 §3.2 step 5: partial acknowledgment.
                self.partial_acks += 1;
                let mut cwnd = v.cwnd.saturating_sub(acked);
                if acked >= v.mss {
                    cwnd += v.mss;
                }
                Response {
                    cwnd: Some(cwnd.max(v.mss)),
                    retransmit: Some(v.snd_una),
                    restart_rto: Some(rto_reset.restarts(self.partial_acks)),
                    ..Response::default()
                }
            }
        }
    }

    fn on_timeout(&mut self, v: &View, _sb: &mut Scoreboard) {
        // RFC 6582 §4 (duplicate ACKs after a timeout): record the highest
        // sequence sent, so that dupacks for the old window do not start a
        // fast retransmit.
        self.in_recovery = false;
        self.recover = Some(v.snd_max);
    }

    fn recover(&self) -> Option<u64> {
        self.recover
    }
}
