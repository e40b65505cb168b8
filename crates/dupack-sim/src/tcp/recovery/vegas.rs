//! TCP Vegas's retransmission (Brakmo & Peterson 1995 §3.1; compared with
//! EFR in efr §3 and §7.1). Its congestion avoidance is a congestion
//! controller, `tcp::cc::vegas`; the `vegas` variant is the two together,
//! and `vegas+cc=NAME` puts another controller beside this recovery.
//!
//! - Retransmission with a fine-grained timer: each segment's send time is
//!   kept; on a duplicate ACK, if the oldest unacknowledged segment has been
//!   out longer than the fine-grained timeout, it is retransmitted at once
//!   (without waiting for `dupthresh` dupacks); the first two new ACKs after
//!   a retransmission check the next segment the same way.
//! - The window is reduced for a loss only if the lost segment was sent
//!   after the last reduction: to ¾ (½ for a segment already retransmitted,
//!   2 segments below 4), and temporarily inflated by the dupacks like Reno.
//!   This is Vegas's own decrease, whatever the controller.
//!
//! Choices (docs/mechanisms.md): the fine timeout is `srtt + 4·rttvar` of
//! Vegas's own per-segment samples (RFC 6298 form, no lower bound) backed
//! off ×2 for a repeated retransmission and by 1/8 otherwise; after an RTO
//! the core's rule (cwnd = 1 SMSS) applies, where the original restarts
//! from 2.

use super::{may_enter, window_allows, LossRecovery, Response, View};
use crate::tcp::scoreboard::Scoreboard;
use crate::tcp::sendlog::SendLog;
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug, Default)]
pub struct Vegas {
    log: SendLog,
    srtt: Option<f64>,
    rttvar: f64,
    timeout: Option<f64>,
    /// When the window was last reduced for a loss.
    cwnd_changed: Option<SimTime>,
    /// The reduced window while dupacks inflate cwnd.
    newcwnd: Option<u64>,
    /// New ACKs still to check for another expired segment.
    worried: u32,
    recover: Option<u64>,
}

impl Vegas {
    pub fn new() -> Self {
        Self::default()
    }

    fn record_send(&mut self, v: &View, seq: u64) {
        self.log.record(seq, v.mss, v.now);
    }

    /// Has the oldest unacknowledged segment outlived the fine-grained timeout?
    fn expired(&self, v: &View) -> bool {
        match (self.log.get(v.snd_una, v.mss), self.timeout) {
            (Some((t, n)), Some(to)) if n > 0 => v.now.saturating_since(t).as_secs_f64() >= to,
            _ => false,
        }
    }

    /// The fine-grained timeout from a per-segment sample (RFC 6298's form).
    fn rtt_sample(&mut self, rtt: SimDuration) {
        let r = rtt.as_secs_f64();
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2.0;
            }
            Some(s) => {
                self.rttvar = 0.75 * self.rttvar + 0.25 * (s - r).abs();
                self.srtt = Some(0.875 * s + 0.125 * r);
            }
        }
        self.timeout = Some(self.srtt.unwrap_or(r) + 4.0 * self.rttvar);
    }
}

impl LossRecovery for Vegas {
    fn in_recovery(&self) -> bool {
        self.newcwnd.is_some()
    }

    fn on_dupack(&mut self, v: &View, _sb: &mut Scoreboard) -> Response {
        let expired = self.expired(v);
        if (expired || v.dupacks == v.dupthresh) && may_enter(self.recover, v.snd_una) && self.newcwnd.is_none() {
            let (sent, transmits) = self.log.get(v.snd_una, v.mss).unwrap_or((v.now, 1));
            self.recover = Some(v.snd_max);
            self.worried = ((v.snd_nxt - v.snd_una) / v.mss).min(2) as u32;
            if let Some(t) = self.timeout.as_mut() {
                *t *= if transmits > 1 { 2.0 } else { 1.125 };
            }
            let mut r = Response { retransmit: Some(v.snd_una), fast_retransmit: true, ..Response::default() };
            // Reduce only for a segment sent after the last reduction.
            if self.cwnd_changed.is_none_or(|c| c < sent) {
                let win = v.cwnd.min(v.rwnd) / v.mss;
                let win = if win <= 3 {
                    2
                } else if transmits > 1 {
                    win / 2
                } else {
                    win - win / 4
                };
                let newcwnd = win * v.mss;
                self.newcwnd = Some(newcwnd);
                self.cwnd_changed = Some(v.now);
                r.cwnd = Some(newcwnd + v.dupacks as u64 * v.mss);
                r.ssthresh = Some(v.ssthresh.min(newcwnd).max(2 * v.mss));
            }
            self.record_send(v, v.snd_una);
            return r;
        }
        if self.newcwnd.is_some() && v.dupacks > v.dupthresh {
            return Response { cwnd: Some(v.cwnd + v.mss), ..Response::default() };
        }
        Response::default()
    }

    fn on_new_ack(&mut self, v: &View, _acked: u64, _sb: &mut Scoreboard) -> Response {
        // The controller grows the window from here (after the deflation).
        let mut r = Response { grow: true, ..Response::default() };
        if let Some(n) = self.newcwnd.take() {
            // Deflate after the dupack inflation; Vegas's ssthresh only gates slow start.
            if v.cwnd > n {
                r.cwnd = Some(n);
                r.ssthresh = Some(2 * v.mss);
            }
        }
        // A fine-grained RTT sample from the newest segment this ACK covers,
        // if it was sent once.
        if let Some((t, 1)) = self.log.get(v.snd_una.saturating_sub(1), v.mss) {
            self.rtt_sample(v.now.saturating_since(t));
        }
        self.log.advance(v.snd_una, v.mss);
        // The first two new ACKs after a retransmission look for another
        // expired segment (Brakmo & Peterson §3.1).
        if self.worried > 0 {
            self.worried -= 1;
            if v.snd_una < v.snd_max && self.expired(v) {
                r.retransmit = Some(v.snd_una);
                self.record_send(v, v.snd_una);
            } else {
                self.worried = 0;
            }
        }
        r
    }

    fn may_send(&self, v: &View, _sb: &Scoreboard, len: u64) -> bool {
        window_allows(v, len)
    }

    fn on_transmit(&mut self, v: &View, _sb: &mut Scoreboard, seq: u64, _len: u64) {
        self.record_send(v, seq);
    }

    fn on_timeout(&mut self, v: &View, _sb: &mut Scoreboard) {
        self.newcwnd = None;
        self.worried = 0;
        self.recover = Some(v.snd_max);
        self.cwnd_changed = Some(v.now);
    }

    fn recover(&self) -> Option<u64> {
        self.recover
    }
}
