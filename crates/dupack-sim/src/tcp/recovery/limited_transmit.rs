//! Limited Transmit (RFC 3042), a decorator over any loss-recovery policy
//! (`+lt`).
//!
//! RFC 3042 §2: on each of the first two duplicate ACKs the sender SHOULD
//! send one new segment, if the receiver's window allows it and the data
//! outstanding stays at or below `cwnd + 2·SMSS`; `cwnd` itself is not
//! changed. RFC 5681 §3.2 step 2: the segments so sent are not counted in
//! the FlightSize that sets `ssthresh` when the fast retransmit comes.
//!
//! Implemented as: below the dupack threshold and outside recovery, the
//! usable window is `cwnd + min(dupacks, 2)·SMSS`, for new data only (the
//! core still applies the receive window to new data); bytes sent that way
//! are passed to the inner policy as [`View::limited_transmit`] and forgotten
//! when the cumulative ACK advances or the timer expires.
//!
//! Over a policy that keeps RFC 6675's `pipe` (`rfc6675`, `rfc6675+prr`),
//! Limited Transmit takes RFC 6675's form instead, §5 step (3): "as per
//! Limited Transmit, except that the number of octets which may be sent is
//! governed by pipe and cwnd" — one new segment at a time while
//! `cwnd − pipe ≥ 1 SMSS` (3.3). Each SACKed segment leaves `pipe`, so an
//! ACK that SACKs two segments (the ACK between them lost) releases two new
//! segments where RFC 3042 releases one. This is what ns-3's and Linux's
//! SACK senders do before a recovery: both count SACKed data out of the
//! data in flight in every state (ns-3's `TcpSocketBase::AvailableWindow`,
//! cwnd minus `TcpTxBuffer::BytesInFlight`).

use super::{LossRecovery, Response, View};
use crate::tcp::scoreboard::Scoreboard;

pub struct LimitedTransmit {
    inner: Box<dyn LossRecovery>,
    /// Bytes sent by Limited Transmit since the cumulative ACK last advanced.
    lt_bytes: u64,
}

impl LimitedTransmit {
    pub fn new(inner: Box<dyn LossRecovery>) -> Self {
        LimitedTransmit { inner, lt_bytes: 0 }
    }

    /// Between the first duplicate ACK and the threshold, outside recovery.
    fn active(&self, v: &View) -> bool {
        !self.inner.in_recovery() && v.dupacks >= 1 && v.dupacks < v.dupthresh
    }

    fn with_lt(&self, v: &View) -> View {
        View { limited_transmit: self.lt_bytes.min(v.flight_size()), ..*v }
    }
}

impl LossRecovery for LimitedTransmit {
    forward_to_inner!(recover, poll_timeout, on_timer, pipe_bytes, handles_ecn, next_retransmit, in_recovery);

    fn on_dupack(&mut self, v: &View, sb: &mut Scoreboard) -> Response {
        let w = self.with_lt(v);
        self.inner.on_dupack(&w, sb)
    }

    fn on_new_ack(&mut self, v: &View, acked: u64, sb: &mut Scoreboard) -> Response {
        self.lt_bytes = 0;
        self.inner.on_new_ack(v, acked, sb)
    }

    fn may_send(&self, v: &View, sb: &Scoreboard, len: u64) -> bool {
        if self.inner.may_send(v, sb, len) {
            return true;
        }
        if !(self.active(v) && v.snd_nxt >= v.snd_max && v.snd_nxt < v.app_end) {
            return false;
        }
        match self.inner.pipe_bytes(v, sb) {
            // RFC 6675 §5 (3.3): new data while cwnd − pipe ≥ 1 SMSS.
            Some(pipe) => pipe + v.mss <= v.cwnd,
            // RFC 3042 §2: one new segment per dupack, at most cwnd + 2·SMSS outstanding.
            None => v.snd_nxt - v.snd_una + len <= v.cwnd + v.dupacks.min(2) as u64 * v.mss,
        }
    }

    fn on_transmit(&mut self, v: &View, sb: &mut Scoreboard, seq: u64, len: u64) {
        if self.active(v) && seq >= v.snd_max && !self.inner.may_send(v, sb, len) {
            self.lt_bytes += len;
        }
        self.inner.on_transmit(v, sb, seq, len);
    }

    fn on_timeout(&mut self, v: &View, sb: &mut Scoreboard) {
        self.lt_bytes = 0;
        self.inner.on_timeout(v, sb);
    }
}
