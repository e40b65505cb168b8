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
//!
//! `tcp.prr_arithmetic = "ns3"` computes the window as ns-3.44's
//! `TcpPrrRecovery` does (`EnterRecovery`, `DoRecovery`), for comparisons
//! with ns-3 (docs/validation.md, "CUBIC against ns-3", `ns3_prr_arithmetic`):
//!
//! - RecoverFS is the pipe when recovery starts (`m_bytesInFlight`), not
//!   the FlightSize;
//! - a duplicate ACK that SACKs new data counts one SMSS more as delivered
//!   while `prr_delivered` < RecoverFS (RFC 6937's estimate for a sender
//!   without SACK, applied there with SACK too);
//! - an ACK that delivers nothing leaves the window as it was;
//! - the proportional part is a ceiling in bytes;
//! - below ssthresh the bound is RFC 6937's conservative one,
//!   max(prr_delivered − prr_out, DeliveredData), plus one SMSS only on a
//!   partial ACK that covers retransmitted data (`m_isRetransDataAcked`);
//! - until the first segment of the recovery is sent, sndcnt is at least
//!   one SMSS.

use super::{LossRecovery, Response, View};
use crate::scenario::model::PrrArithmetic;
use crate::tcp::scoreboard::Scoreboard;

pub struct Prr {
    inner: Box<dyn LossRecovery>,
    arithmetic: PrrArithmetic,
    recover_fs: u64,
    prr_delivered: u64,
    prr_out: u64,
    ssthresh: u64,
    /// SACKed bytes after the previous ACK, for ΔSACKed.
    last_sacked: u64,
    /// ns-3's arithmetic: the starts of the segments retransmitted in this
    /// recovery and not yet cumulatively acknowledged, in sending order.
    retransmitted: Vec<u64>,
}

/// What the ACK being handled is, for ns-3's arithmetic.
#[derive(Copy, Clone, Default)]
struct AckKind {
    /// A duplicate ACK (the cumulative ACK did not move).
    dupack: bool,
    /// A partial ACK covering a segment retransmitted in this recovery.
    covers_retransmission: bool,
    /// Bytes the inner policy counts in its pipe already but ns-3 sends only
    /// after sizing the window: the fast retransmission.
    pending: u64,
}

impl Prr {
    pub fn new(inner: Box<dyn LossRecovery>) -> Self {
        Self::with_arithmetic(inner, PrrArithmetic::Rfc6937)
    }

    pub fn with_arithmetic(inner: Box<dyn LossRecovery>, arithmetic: PrrArithmetic) -> Self {
        Prr {
            inner,
            arithmetic,
            recover_fs: 0,
            prr_delivered: 0,
            prr_out: 0,
            ssthresh: 0,
            last_sacked: 0,
            retransmitted: Vec::new(),
        }
    }

    fn ns3(&self) -> bool {
        self.arithmetic == PrrArithmetic::Ns3
    }

    /// ns-3: whether the cumulative ACK, now at `snd_una`, covered a
    /// retransmission of this recovery; forgets those it covered.
    fn acked_retransmission(&mut self, snd_una: u64) -> bool {
        // Retransmissions are not always sent in sequence order, so the
        // whole list is searched (it holds one recovery's retransmissions).
        let before = self.retransmitted.len();
        self.retransmitted.retain(|&s| s >= snd_una);
        self.retransmitted.len() != before
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
    fn cwnd(&mut self, v: &View, sb: &Scoreboard, delivered: u64, ack: AckKind) -> Option<u64> {
        if self.ns3() {
            return self.cwnd_ns3(v, sb, delivered, ack);
        }
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

    /// The window ns-3.44's `TcpPrrRecovery::DoRecovery` sets for this ACK.
    fn cwnd_ns3(&mut self, v: &View, sb: &Scoreboard, mut delivered: u64, ack: AckKind) -> Option<u64> {
        // The pipe as ns-3's `m_bytesInFlight` has it: without the fast
        // retransmission, which ns-3 sends after this computation.
        let pipe = self.inner.pipe_bytes(v, sb)? - ack.pending;
        // A duplicate ACK there is one that SACKed new data.
        if ack.dupack && delivered > 0 && self.prr_delivered < self.recover_fs {
            delivered += v.mss;
        }
        if delivered == 0 {
            return None;
        }
        self.prr_delivered += delivered;
        let (pipe_i, ssthresh_i, mss_i) = (pipe as i64, self.ssthresh as i64, v.mss as i64);
        let mut sndcnt = if pipe > self.ssthresh {
            (self.prr_delivered * self.ssthresh).div_ceil(self.recover_fs.max(1)) as i64 - self.prr_out as i64
        } else {
            let mut limit = (self.prr_delivered as i64 - self.prr_out as i64).max(delivered as i64);
            if ack.covers_retransmission {
                limit += mss_i;
            }
            limit.min(ssthresh_i - pipe_i)
        };
        if self.prr_out == 0 {
            sndcnt = sndcnt.max(mss_i);
        }
        Some((pipe_i + sndcnt.max(0)) as u64)
    }
}

impl LossRecovery for Prr {
    forward_to_inner!(recover, poll_timeout, on_timer, pipe_bytes, handles_ecn, next_retransmit, in_recovery, may_send);

    fn on_dupack(&mut self, v: &View, sb: &mut Scoreboard) -> Response {
        let was = self.inner.in_recovery();
        let delivered = self.delivered(0, sb);
        // ns-3's RecoverFS: the pipe before the fast retransmission.
        let pipe_before = if was { None } else { self.inner.pipe_bytes(v, sb) };
        let mut r = self.inner.on_dupack(v, sb);
        let mut first_out = None;
        if !was && self.inner.in_recovery() {
            // RFC 6937 §3, at the start of recovery.
            self.ssthresh = r.ssthresh.unwrap_or(v.ssthresh);
            self.recover_fs = match self.arithmetic {
                PrrArithmetic::Rfc6937 => v.flight_size(),
                // ns-3: `m_bytesInFlight`, the pipe as the recovery starts.
                PrrArithmetic::Ns3 => pipe_before.unwrap_or(v.flight_size()),
            };
            self.prr_delivered = 0;
            self.prr_out = 0;
            self.retransmitted.clear();
            if let Some(seq) = r.retransmit {
                first_out = Some(v.mss.min(v.app_end - seq));
                self.retransmitted.push(seq);
                if !self.ns3() {
                    self.prr_out += v.mss.min(v.app_end - seq);
                }
            }
        }
        if self.inner.in_recovery() {
            let after = View { ssthresh: self.ssthresh, ..*v };
            let pending = if self.ns3() { first_out.unwrap_or(0) } else { 0 };
            let ack = AckKind { dupack: true, covers_retransmission: false, pending };
            if let Some(c) = self.cwnd(&after, sb, delivered, ack) {
                r.cwnd = Some(c);
            }
        }
        // ns-3 counts the fast retransmission in prr_out when it is sent,
        // after `EnterRecovery` set the window.
        if let (true, Some(len)) = (self.ns3(), first_out) {
            self.prr_out += len;
        }
        r
    }

    fn on_new_ack(&mut self, v: &View, acked: u64, sb: &mut Scoreboard) -> Response {
        let was = self.inner.in_recovery();
        let delivered = self.delivered(acked, sb);
        let covers_retransmission = self.acked_retransmission(v.snd_una);
        let mut r = self.inner.on_new_ack(v, acked, sb);
        if was && !self.inner.in_recovery() {
            // RFC 6937 §3: on leaving recovery, cwnd = ssthresh.
            r.cwnd = Some(self.ssthresh);
            self.retransmitted.clear();
        } else if self.inner.in_recovery() {
            let ack = AckKind { dupack: false, covers_retransmission, pending: 0 };
            if let Some(c) = self.cwnd(v, sb, delivered, ack) {
                r.cwnd = Some(c);
            }
        }
        r
    }

    fn on_transmit(&mut self, v: &View, sb: &mut Scoreboard, seq: u64, len: u64) {
        if self.inner.in_recovery() {
            self.prr_out += len;
            if self.ns3() && seq < v.snd_max {
                self.retransmitted.push(seq);
            }
        }
        self.inner.on_transmit(v, sb, seq, len);
    }

    fn on_timeout(&mut self, v: &View, sb: &mut Scoreboard) {
        self.inner.on_timeout(v, sb);
        self.last_sacked = sb.sacked_bytes();
        self.retransmitted.clear();
    }
}
