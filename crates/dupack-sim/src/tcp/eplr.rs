//! EPLR / "Modified Reno" (Jayananthan & Sirisena, eplr §III.C, Fig. 3,
//! Fig. 8 Cases 1–4; `+eplr`): the whole mechanism in one file.
//!
//! The paper changes two things at once, both decided by one test at the
//! first duplicate ACK — is the flight `F` (segments outstanding, rounded
//! up) too small to produce `dupthresh` duplicate ACKs (`F ≤ dupthresh`)?
//! - **when** to retransmit, a duplicate-ACK threshold policy ([`Eplr`],
//!   the sender's detection slot): after `F − 1` duplicate ACKs, or at the
//!   usual threshold;
//! - **how the window grows** meanwhile, a decorator over any loss-recovery
//!   policy ([`EplrGrowth`], the recovery slot): one more MSS of `cwnd` per
//!   duplicate ACK below the threshold, so that new data can elicit the
//!   further duplicate ACKs that confirm the loss.
//!
//! The two halves fill different slots of the sender (`tcp::policy`), so
//! `tcp::compose` installs both for `+eplr`; they share the small-flight
//! test `small_flight` here rather than importing each other across
//! `tcp::detect` and `tcp::recovery`.

use crate::scenario::model::EplrRetransmit;
use crate::tcp::policy::{DupThreshold, LossRecovery, Response, View};
use crate::tcp::recovery::forward_to_inner;
use crate::tcp::scoreboard::Scoreboard;

/// EPLR's test (eplr §III.C): the flight at the first duplicate ACK, in
/// segments, if it is too small to produce `dupthresh` duplicate ACKs
/// (`F ≤ dupthresh`), else `None`.
fn small_flight(v: &View, dupthresh: u32) -> Option<u64> {
    let f = v.flight_size().div_ceil(v.mss);
    (f <= dupthresh as u64).then_some(f)
}

/// EPLR / "Modified Reno" threshold (eplr §III.C, `+eplr`): a flight of
/// `F ≤ dupthresh` segments at the first duplicate ACK retransmits after
/// `F − 1` duplicate ACKs (at least 1) with [`EplrRetransmit::Early`], or at
/// the usual threshold with [`EplrRetransmit::Threshold`]; larger flights use
/// the usual threshold. The window growth that lets new data elicit the
/// further dupacks is [`EplrGrowth`].
#[derive(Copy, Clone, Debug)]
pub struct Eplr {
    dupthresh: u32,
    mode: EplrRetransmit,
    thresh: u32,
}

impl Eplr {
    pub fn new(dupthresh: u32, mode: EplrRetransmit) -> Self {
        Eplr { dupthresh, mode, thresh: dupthresh }
    }
}

impl DupThreshold for Eplr {
    fn on_dupack(&mut self, v: &View) -> u32 {
        if v.dupacks <= 1 {
            self.thresh = match (small_flight(v, self.dupthresh), self.mode) {
                (Some(f), EplrRetransmit::Early) => (f.saturating_sub(1) as u32).max(1),
                _ => self.dupthresh,
            };
        }
        self.thresh
    }
}

/// EPLR's window growth (eplr §III.C, Fig. 3), a decorator over any
/// loss-recovery policy (`+eplr`).
///
/// When the flight at the first duplicate ACK is too small to produce
/// `dupthresh` duplicate ACKs (`F ≤ dupthresh`), "we decide to allow the
/// sender to transmit a new data packet by increasing the cwnd by one MSS"
/// (eplr §III.C) for each duplicate ACK below the threshold, so that new
/// data can elicit the further duplicate ACKs that confirm the loss (eplr
/// Fig. 8, Case 2). Unlike Limited Transmit, `cwnd` itself grows. The
/// retransmission point (after `F − 1` dupacks, or at the threshold) is
/// [`Eplr`].
pub struct EplrGrowth {
    inner: Box<dyn LossRecovery>,
    dupthresh: u32,
    /// The flight at the first dupack was small (decided then, held until the ACK advances).
    small: bool,
}

impl EplrGrowth {
    pub fn new(inner: Box<dyn LossRecovery>, dupthresh: u32) -> Self {
        EplrGrowth { inner, dupthresh, small: false }
    }
}

impl LossRecovery for EplrGrowth {
    forward_to_inner!(
        recover,
        poll_timeout,
        on_timer,
        pipe_bytes,
        handles_ecn,
        next_retransmit,
        in_recovery,
        may_send,
        on_transmit
    );

    fn on_dupack(&mut self, v: &View, sb: &mut Scoreboard) -> Response {
        if v.dupacks <= 1 && !self.inner.in_recovery() {
            self.small = small_flight(v, self.dupthresh).is_some();
        }
        let r = self.inner.on_dupack(v, sb);
        if self.small && !self.inner.in_recovery() && !r.fast_retransmit && v.dupacks < v.dupthresh {
            // eplr §III.C: one more MSS of cwnd per duplicate ACK.
            return Response { cwnd: Some(r.cwnd.unwrap_or(v.cwnd) + v.mss), ..r };
        }
        r
    }

    fn on_new_ack(&mut self, v: &View, acked: u64, sb: &mut Scoreboard) -> Response {
        self.small = false;
        self.inner.on_new_ack(v, acked, sb)
    }

    fn on_timeout(&mut self, v: &View, sb: &mut Scoreboard) {
        self.small = false;
        self.inner.on_timeout(v, sb);
    }
}
