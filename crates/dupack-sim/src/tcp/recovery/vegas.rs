//! TCP Vegas (Brakmo & Peterson 1995; compared with EFR in efr §3 and §7.1).
//!
//! Congestion avoidance from the difference between expected and actual
//! throughput, once per round trip:
//!
//! - `BaseRTT` is the smallest RTT seen; at the end of each epoch (when the
//!   segment sent at its start is acknowledged) `Actual = (bytes sent in the
//!   epoch) / RTT` (RTT: the mean of the epoch's samples), `Expected =
//!   (bytes outstanding) / BaseRTT`, and `Diff = (Expected − Actual)·BaseRTT`
//!   in segments.
//! - Congestion avoidance: `Diff < α` → grow by one segment over the next
//!   RTT; `Diff > β` → shrink by one segment at once; else hold.
//! - Slow start grows only every other RTT, and ends when `Diff > γ`
//!   (`cwnd` then loses 1/8, `ssthresh` = 2 segments).
//! - Retransmission with a fine-grained timer: each segment's send time is
//!   kept; on a duplicate ACK, if the oldest unacknowledged segment has been
//!   out longer than the fine-grained timeout, it is retransmitted at once
//!   (without waiting for `dupthresh` dupacks); the first two new ACKs after
//!   a retransmission check the next segment the same way.
//! - The window is reduced for a loss only if the lost segment was sent
//!   after the last reduction: to ¾ (½ for a segment already retransmitted,
//!   2 segments below 4), and temporarily inflated by the dupacks like Reno.
//!
//! Choices (docs/mechanisms.md): α = 1, β = 3, γ = 1 segments; the fine
//! timeout is `srtt + 4·rttvar` of Vegas's own per-segment samples (RFC 6298
//! form, no lower bound) backed off ×2 for a repeated retransmission and by
//! 1/8 otherwise; after an RTO the core's rule (cwnd = 1 SMSS) applies, where
//! the original restarts from 2.

use super::{may_enter, window_allows, LossRecovery, Response, View};
use crate::tcp::scoreboard::Scoreboard;
use crate::time::{SimDuration, SimTime};
use std::collections::VecDeque;

const ALPHA: f64 = 1.0;
const BETA: f64 = 3.0;
const GAMMA: f64 = 1.0;

#[derive(Clone, Debug, Default)]
pub struct Vegas {
    /// Per segment from `base`: (send time of the latest transmission, transmissions).
    sent: VecDeque<(SimTime, u32)>,
    base: u64,
    base_rtt: Option<SimDuration>,
    srtt: Option<f64>,
    rttvar: f64,
    timeout: Option<f64>,
    /// The epoch: snd_nxt and time at its start, RTT samples in it.
    beg_seq: u64,
    beg_time: SimTime,
    sum_rtt: f64,
    cnt_rtt: u32,
    /// Bytes of cwnd growth per ACK decided at the last epoch end.
    incr: u64,
    inc_flag: bool,
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
        Vegas { inc_flag: true, ..Self::default() }
    }

    fn seg_index(&self, v: &View, seq: u64) -> Option<usize> {
        (seq / v.mss).checked_sub(self.base).map(|i| i as usize)
    }

    fn sent_at(&self, v: &View, seq: u64) -> Option<(SimTime, u32)> {
        self.seg_index(v, seq).and_then(|i| self.sent.get(i).copied())
    }

    fn record_send(&mut self, v: &View, seq: u64) {
        if let Some(i) = self.seg_index(v, seq) {
            if i >= self.sent.len() {
                self.sent.resize(i + 1, (SimTime::ZERO, 0));
            }
            let e = &mut self.sent[i];
            *e = (v.now, e.1 + 1);
        }
    }

    /// Has the oldest unacknowledged segment outlived the fine-grained timeout?
    fn expired(&self, v: &View) -> bool {
        match (self.sent_at(v, v.snd_una), self.timeout) {
            (Some((t, n)), Some(to)) if n > 0 => v.now.saturating_since(t).as_secs_f64() >= to,
            _ => false,
        }
    }

    fn rtt_sample(&mut self, rtt: SimDuration) {
        let r = rtt.as_secs_f64();
        self.sum_rtt += r;
        self.cnt_rtt += 1;
        if self.base_rtt.is_none_or(|b| rtt < b) {
            self.base_rtt = Some(rtt);
        }
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

    /// The once-per-RTT decision (Brakmo & Peterson §3.2 / §3.3).
    fn epoch_end(&mut self, v: &View) -> Option<u64> {
        let rtt =
            if self.cnt_rtt > 0 { self.sum_rtt / self.cnt_rtt as f64 } else { (v.now - self.beg_time).as_secs_f64() };
        self.sum_rtt = 0.0;
        self.cnt_rtt = 0;
        let in_transit = v.snd_nxt.saturating_sub(self.beg_seq) as f64 / v.mss as f64;
        let mut cwnd = None;
        if rtt > 0.0 {
            let base = self.base_rtt.map_or(rtt, |b| b.as_secs_f64()).min(rtt);
            let actual = in_transit / rtt;
            let expected = (v.snd_nxt - v.snd_una) as f64 / v.mss as f64 / base;
            let diff = ((expected - actual) * base + 0.5).floor();
            let two = 2 * v.mss;
            if v.cwnd < v.ssthresh {
                self.inc_flag = !self.inc_flag;
                if !self.inc_flag {
                    self.incr = 0;
                } else if diff > GAMMA {
                    // Leave slow start: give back an eighth.
                    cwnd = Some((v.cwnd - v.cwnd / 8).max(two));
                    self.incr = 0;
                } else {
                    self.incr = v.mss;
                }
            } else if diff > BETA {
                cwnd = Some(v.cwnd.saturating_sub(v.mss).max(two));
                self.incr = 0;
            } else if diff < ALPHA {
                self.incr = (v.mss * v.mss / v.cwnd.max(1)).max(1);
            } else {
                self.incr = 0;
            }
        }
        self.beg_seq = v.snd_nxt;
        self.beg_time = v.now;
        cwnd
    }
}

impl LossRecovery for Vegas {
    fn in_recovery(&self) -> bool {
        self.newcwnd.is_some()
    }

    fn on_dupack(&mut self, v: &View, _sb: &mut Scoreboard) -> Response {
        let expired = self.expired(v);
        if (expired || v.dupacks == v.dupthresh) && may_enter(self.recover, v.snd_una) && self.newcwnd.is_none() {
            let (sent, transmits) = self.sent_at(v, v.snd_una).unwrap_or((v.now, 1));
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
        let mut r = Response::default();
        let mut cwnd = v.cwnd;
        if let Some(n) = self.newcwnd.take() {
            // Deflate after the dupack inflation; Vegas's ssthresh only gates slow start.
            if cwnd > n {
                cwnd = n;
                r.ssthresh = Some(2 * v.mss);
            }
        }
        // A fine-grained RTT sample from the newest segment this ACK covers,
        // if it was sent once.
        if let Some((t, 1)) = self.sent_at(v, v.snd_una.saturating_sub(1)) {
            self.rtt_sample(v.now.saturating_since(t));
        }
        while self.base < v.snd_una / v.mss {
            self.sent.pop_front();
            self.base += 1;
        }
        let ssthresh = r.ssthresh.unwrap_or(v.ssthresh);
        if v.snd_una >= self.beg_seq {
            let w = View { cwnd, ssthresh, ..*v };
            if let Some(c) = self.epoch_end(&w) {
                cwnd = c;
                if v.cwnd < v.ssthresh {
                    r.ssthresh = Some(2 * v.mss);
                }
            }
        }
        if self.incr == v.mss && cwnd >= ssthresh {
            self.incr = 0;
        }
        // Grow only while the window is being used.
        if self.incr > 0 && cwnd.saturating_sub(v.snd_nxt - v.snd_una) <= 2 * v.mss {
            cwnd += self.incr;
        }
        r.cwnd = Some(cwnd);
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
