//! EPLR / "Modified Reno" (Jayananthan & Sirisena, eplr §III.C, Fig. 3), the
//! window half: a decorator over any loss-recovery policy (`+eplr`).
//!
//! When the flight at the first duplicate ACK is too small to produce
//! `dupthresh` duplicate ACKs (`F ≤ dupthresh`), "we decide to allow the
//! sender to transmit a new data packet by increasing the cwnd by one MSS"
//! (eplr §III.C) for each duplicate ACK below the threshold, so that new
//! data can elicit the further duplicate ACKs that confirm the loss (eplr
//! Fig. 8, Case 2). Unlike Limited Transmit, `cwnd` itself grows. The
//! retransmission point (after `F − 1` dupacks, or at the threshold) is the
//! threshold half, `detect::Eplr`.

use super::{LossRecovery, Response, View};
use crate::tcp::detect::eplr_small_flight;
use crate::tcp::scoreboard::Scoreboard;

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
            self.small = eplr_small_flight(v, self.dupthresh).is_some();
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
