//! Proportional Rate Reduction (RFC 6937 §3), a decorator over a policy that
//! keeps an RFC 6675 `pipe` (`rfc6675+prr`).
//!
//! During recovery the amount sent on each ACK follows the data the ACK
//! reports delivered, so that the window comes down to `ssthresh` smoothly
//! instead of in one step, and climbs back to it by slow start when losses
//! drained the pipe below it:
//!
//! ```text
//! DeliveredData = Δsnd_una + ΔSACKed
//! prr_delivered += DeliveredData
//! if pipe > ssthresh:  sndcnt = ⌈prr_delivered · ssthresh / RecoverFS⌉ − prr_out
//! else:                sndcnt = min(ssthresh − pipe,
//!                                   max(prr_delivered − prr_out, DeliveredData) + SMSS)   (PRR-SSRB)
//! cwnd = pipe + max(sndcnt, 0)
//! ```
//!
//! with `RecoverFS` the FlightSize at the start of recovery and `prr_out`
//! the data sent since (the fast retransmission included). At the end of
//! recovery `cwnd = ssthresh` (RFC 6937 §3). The reduction bound is the
//! slow-start one (SSRB), which RFC 6937 recommends. Choice: the CEIL of the
//! proportional part is taken in whole segments (the RFC's pseudocode is in
//! bytes; with a whole-segment send rule a byte ceiling would send half a
//! segment's credit late).

use super::{LossRecovery, Response, View};
use crate::tcp::scoreboard::Scoreboard;

pub struct Prr {
    inner: Box<dyn LossRecovery>,
    recover_fs: u64,
    prr_delivered: u64,
    prr_out: u64,
    ssthresh: u64,
    /// SACKed bytes after the previous ACK, for ΔSACKed.
    last_sacked: u64,
}

impl Prr {
    pub fn new(inner: Box<dyn LossRecovery>) -> Self {
        Prr { inner, recover_fs: 0, prr_delivered: 0, prr_out: 0, ssthresh: 0, last_sacked: 0 }
    }

    /// DeliveredData of this ACK (RFC 6937 §3).
    fn delivered(&mut self, acked: u64, sb: &Scoreboard) -> u64 {
        let now = sb.sacked_bytes();
        // SACKed bytes that the cumulative ACK now covers were delivered before.
        let d = (acked + now).saturating_sub(self.last_sacked);
        self.last_sacked = now;
        d
    }

    /// The PRR window for this ACK.
    fn cwnd(&mut self, v: &View, sb: &Scoreboard, delivered: u64) -> Option<u64> {
        let pipe = self.inner.pipe_bytes(v, sb)?;
        self.prr_delivered += delivered;
        let sndcnt = if pipe > self.ssthresh {
            // CEIL in whole segments, as segment-counting stacks do: the send
            // rule (cwnd − pipe ≥ SMSS) can only use whole segments anyway.
            let target = (self.prr_delivered * self.ssthresh).div_ceil(self.recover_fs.max(1));
            (target.div_ceil(v.mss) * v.mss) as i64 - self.prr_out as i64
        } else {
            let limit = (self.prr_delivered as i64 - self.prr_out as i64).max(delivered as i64) + v.mss as i64;
            (self.ssthresh as i64 - pipe as i64).min(limit)
        };
        Some(pipe + sndcnt.max(0) as u64)
    }
}

impl LossRecovery for Prr {
    forward_to_inner!(recover, poll_timeout, on_timer, pipe_bytes, handles_ecn, next_retransmit, in_recovery, may_send);

    fn on_dupack(&mut self, v: &View, sb: &mut Scoreboard) -> Response {
        let was = self.inner.in_recovery();
        let delivered = self.delivered(0, sb);
        let mut r = self.inner.on_dupack(v, sb);
        if !was && self.inner.in_recovery() {
            // RFC 6937 §3, at the start of recovery.
            self.recover_fs = v.flight_size();
            self.prr_delivered = 0;
            self.prr_out = 0;
            self.ssthresh = r.ssthresh.unwrap_or(v.ssthresh);
            if let Some(seq) = r.retransmit {
                self.prr_out += v.mss.min(v.app_end - seq);
            }
        }
        if self.inner.in_recovery() {
            let after = View { ssthresh: self.ssthresh, ..*v };
            if let Some(c) = self.cwnd(&after, sb, delivered) {
                r.cwnd = Some(c);
            }
        }
        r
    }

    fn on_new_ack(&mut self, v: &View, acked: u64, sb: &mut Scoreboard) -> Response {
        let was = self.inner.in_recovery();
        let delivered = self.delivered(acked, sb);
        let mut r = self.inner.on_new_ack(v, acked, sb);
        if was && !self.inner.in_recovery() {
            // RFC 6937 §3: on leaving recovery, cwnd = ssthresh.
            r.cwnd = Some(self.ssthresh);
        } else if self.inner.in_recovery() {
            if let Some(c) = self.cwnd(v, sb, delivered) {
                r.cwnd = Some(c);
            }
        }
        r
    }

    fn on_transmit(&mut self, v: &View, sb: &mut Scoreboard, seq: u64, len: u64) {
        if self.inner.in_recovery() {
            self.prr_out += len;
        }
        self.inner.on_transmit(v, sb, seq, len);
    }

    fn on_timeout(&mut self, v: &View, sb: &mut Scoreboard) {
        self.inner.on_timeout(v, sb);
        self.last_sacked = sb.sacked_bytes();
    }
}
