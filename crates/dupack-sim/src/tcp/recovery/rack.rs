//! RACK-TLP (RFC 8985), time-based loss detection with SACK (`rack`).
//!
//! **RACK** (§6): a segment is lost once a segment *sent after it* has been
//! delivered (acknowledged or SACKed) and more than `RACK.rtt + reo_wnd` has
//! passed since it was sent. `RACK.xmit_ts`/`RACK.end_seq` follow the most
//! recently sent delivered segment and `RACK.rtt` is its RTT; a segment not
//! yet old enough arms the reordering timer for the moment it will be (§6.3).
//! Retransmissions are just later transmissions, so a lost retransmission is
//! detected the same way, by time. The transmissions are kept in send order
//! (a retransmission moves to the back), so detection scans only from the
//! oldest until the first segment sent after `RACK.xmit_ts`.
//!
//! Recovery (§6.3 with RFC 6675-style sending): the first loss starts it:
//! `ssthresh = cwnd = max(FlightSize/2, 2·SMSS)`, `recover = snd_max`; lost
//! segments are retransmitted in send order while
//! `pipe = outstanding − SACKed − lost + retransmitted-in-flight < cwnd`,
//! then new data; it ends when `snd_una ≥ recover`.
//!
//! **TLP** (§7): outside recovery, with data outstanding, a probe timeout
//! `PTO = 2·SRTT` (+ 200 ms, the worst-case delayed ACK, when one segment
//! is outstanding; capped by the RTO) sends one new segment if the window
//! and the receiver allow, else retransmits the last one; one probe at a
//! time, until an ACK arrives.
//!
//! Choices (docs/mechanisms.md): `reo_wnd = min_rtt/4`, fixed (RFC 8985
//! §6.2 adapts it with DSACK, which is not modelled); RACK samples from a
//! retransmitted segment are used only if the ACK came later than `min_rtt`
//! after the retransmission (§6.2 step 2); TLP's loss detection of a
//! repaired tail (§7.4) and its window reduction are not modelled.

use super::{may_enter, window_allows, LossRecovery, Response, View};

use crate::tcp::scoreboard::Scoreboard;
use crate::time::{SimDuration, SimTime};
use std::collections::VecDeque;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Sent {
    seq: u64,
    len: u64,
    at: SimTime,
    retransmitted: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Rack {
    /// Outstanding transmissions in send order (lazily pruned).
    sent: VecDeque<Sent>,
    /// Latest transmission time and "retransmitted" of each segment from
    /// `base` (= the previous `snd_una` / SMSS), for O(1) lookups.
    xmit: VecDeque<(SimTime, bool)>,
    base: u64,
    /// `snd_una` after the previous ACK: the start of the newly acknowledged range.
    una: u64,
    /// RACK.xmit_ts / RACK.end_seq / RACK.rtt (§6.2).
    xmit_ts: Option<SimTime>,
    end_seq: u64,
    rtt: SimDuration,
    min_rtt: Option<SimDuration>,
    /// Segments marked lost and not yet retransmitted, in send order.
    lost: VecDeque<(u64, u64)>,
    lost_bytes: u64,
    /// Retransmissions in flight (not yet delivered or marked lost again).
    rexmit_bytes: u64,
    in_recovery: bool,
    recover: Option<u64>,
    reo_timer: Option<SimTime>,
    tlp_timer: Option<SimTime>,
    /// A probe is out; no other until an ACK.
    probe_out: bool,
    /// §7.4 TLP.end_seq: `snd_max` when the probe left. The TLP episode
    /// lasts until a cumulative ACK covers it (or a timeout): no new probe
    /// before, so that probes elicited by their own ACKs cannot keep
    /// restarting the RTO while an earlier segment is missing.
    tlp_end: Option<u64>,
    /// Tail loss probes sent (for tests and traces).
    pub probes: u64,
}

impl Rack {
    pub fn new() -> Self {
        Self::default()
    }

    fn reo_wnd(&self) -> SimDuration {
        SimDuration(self.min_rtt.map_or(0, |m| m.0 / 4))
    }

    fn delivered(v: &View, sb: &Scoreboard, s: &Sent) -> bool {
        s.seq + s.len <= v.snd_una || sb.is_sacked(s.seq)
    }

    /// §6.2: update RACK from the segments this ACK delivered — newly
    /// acknowledged (from the previous `snd_una`) or newly SACKed — only.
    fn update(&mut self, v: &View, sb: &Scoreboard) {
        let mut ranges: Vec<(u64, u64)> = sb.newly_sacked().to_vec();
        if v.snd_una > self.una {
            ranges.push((self.una, v.snd_una));
        }
        for (left, right) in ranges {
            let mut seq = left / v.mss * v.mss;
            while seq < right {
                let len = v.mss.min(v.app_end.saturating_sub(seq)).max(1);
                if let Some(&(at, retransmitted)) =
                    (seq / v.mss).checked_sub(self.base).and_then(|i| self.xmit.get(i as usize))
                {
                    self.sample(v, seq, len, at, retransmitted);
                }
                seq += v.mss;
            }
        }
        self.una = v.snd_una;
        while self.base < v.snd_una / v.mss && !self.xmit.is_empty() {
            self.xmit.pop_front();
            self.base += 1;
        }
        self.base = self.base.max(v.snd_una / v.mss);
    }

    fn sample(&mut self, v: &View, seq: u64, len: u64, at: SimTime, retransmitted: bool) {
        let rtt = v.now.saturating_since(at);
        if retransmitted && self.min_rtt.is_some_and(|m| rtt < m) {
            return; // could be the original's ACK: ambiguous
        }
        if self.min_rtt.is_none_or(|m| rtt < m) {
            self.min_rtt = Some(rtt);
        }
        let newer = match self.xmit_ts {
            None => true,
            Some(t) => at > t || (at == t && seq + len > self.end_seq),
        };
        if newer {
            self.xmit_ts = Some(at);
            self.end_seq = seq + len;
            self.rtt = rtt;
        }
    }

    /// §6.3 detect: mark lost what was sent before RACK.xmit_ts and is old
    /// enough. Only the front of the send order — segments sent before the
    /// most recently delivered one — is looked at, and only it is edited.
    fn detect(&mut self, v: &View, sb: &Scoreboard) {
        self.reo_timer = None;
        let Some(xmit_ts) = self.xmit_ts else { return };
        let reo = self.reo_wnd();
        let mut gone: Vec<usize> = Vec::new();
        for (i, s) in self.sent.iter().enumerate() {
            if Self::delivered(v, sb, s) {
                if s.retransmitted {
                    self.rexmit_bytes = self.rexmit_bytes.saturating_sub(s.len);
                }
                gone.push(i);
                continue;
            }
            let before = s.at < xmit_ts || (s.at == xmit_ts && s.seq + s.len <= self.end_seq);
            if !before {
                break;
            }
            let deadline = s.at + self.rtt + reo;
            if deadline <= v.now {
                if s.retransmitted {
                    self.rexmit_bytes = self.rexmit_bytes.saturating_sub(s.len);
                }
                self.lost.push_back((s.seq, s.len));
                self.lost_bytes += s.len;
                gone.push(i);
            } else {
                self.reo_timer = Some(self.reo_timer.map_or(deadline, |t| t.min(deadline)));
            }
        }
        // Removing from the back keeps the earlier indices valid; they are
        // all near the front, so each removal is cheap.
        for i in gone.into_iter().rev() {
            self.sent.remove(i);
        }
    }

    fn pipe(&self, v: &View, sb: &Scoreboard) -> u64 {
        (v.snd_max - v.snd_una).saturating_sub(sb.sacked_bytes() + self.lost_bytes) + self.rexmit_bytes
    }

    /// After an ACK or a detection: enter recovery on a first loss, re-arm TLP.
    fn respond(&mut self, v: &View) -> Response {
        let mut r = Response::default();
        if !self.lost.is_empty() && !self.in_recovery && may_enter(self.recover, v.snd_una) {
            self.in_recovery = true;
            self.recover = Some(v.snd_max);
            let ssthresh = v.loss_ssthresh();
            r = Response { ssthresh: Some(ssthresh), cwnd: Some(ssthresh), fast_retransmit: true, ..r };
            // The first lost segment goes at once, like a fast retransmit.
            if let Some((seq, len)) = self.lost.pop_front() {
                self.lost_bytes -= len;
                self.mark_sent(v, seq, len, true);
                r.retransmit = Some(seq);
            }
        }
        self.arm_tlp(v);
        r
    }

    fn arm_tlp(&mut self, v: &View) {
        self.tlp_timer = None;
        if self.in_recovery || self.probe_out || self.tlp_end.is_some() || v.snd_max == v.snd_una {
            return;
        }
        let Some(srtt) = v.srtt else { return };
        let mut pto = srtt.saturating_mul(2);
        if v.snd_max - v.snd_una <= v.mss {
            pto = pto + SimDuration::from_millis(200);
        }
        self.tlp_timer = Some(v.now + pto);
    }

    fn mark_sent(&mut self, v: &View, seq: u64, len: u64, retransmitted: bool) {
        if retransmitted {
            // The earlier transmission leaves the send order (only for
            // retransmissions, which are rare: new data is not listed yet).
            self.sent.retain(|s| s.seq != seq);
            self.rexmit_bytes += len;
        }
        self.sent.push_back(Sent { seq, len, at: v.now, retransmitted });
        if let Some(i) = (seq / v.mss).checked_sub(self.base) {
            let i = i as usize;
            if i >= self.xmit.len() {
                self.xmit.resize(i + 1, (SimTime::ZERO, false));
            }
            self.xmit[i] = (v.now, retransmitted);
        }
    }

    fn clear(&mut self) {
        self.sent.clear();
        self.lost.clear();
        self.lost_bytes = 0;
        self.rexmit_bytes = 0;
        self.in_recovery = false;
        self.reo_timer = None;
        self.tlp_timer = None;
        self.probe_out = false;
        self.tlp_end = None;
    }
}

impl LossRecovery for Rack {
    fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    fn on_dupack(&mut self, v: &View, sb: &mut Scoreboard) -> Response {
        self.probe_out = false;
        self.update(v, sb);
        self.detect(v, sb);
        self.respond(v)
    }

    fn on_new_ack(&mut self, v: &View, _acked: u64, sb: &mut Scoreboard) -> Response {
        self.probe_out = false;
        if self.tlp_end.is_some_and(|e| v.snd_una >= e) {
            self.tlp_end = None; // §7.4: the episode is over
        }
        self.update(v, sb);
        self.detect(v, sb);
        self.lost.retain(|&(s, _)| s >= v.snd_una && !sb.is_sacked(s));
        self.lost_bytes = self.lost.iter().map(|&(_, l)| l).sum();
        if self.in_recovery && v.snd_una >= self.recover.unwrap_or(0) {
            self.in_recovery = false;
        }
        let was = self.in_recovery;
        let mut r = self.respond(v);
        if !was && !self.in_recovery && !r.fast_retransmit {
            r.grow = true;
        }
        r
    }

    fn may_send(&self, v: &View, sb: &Scoreboard, len: u64) -> bool {
        if self.in_recovery {
            self.pipe(v, sb) + v.mss <= v.cwnd
        } else {
            window_allows(v, len)
        }
    }

    fn next_retransmit(&mut self, _v: &View, _sb: &mut Scoreboard) -> Option<u64> {
        let (seq, len) = self.lost.pop_front()?;
        self.lost_bytes -= len;
        Some(seq)
    }

    fn on_transmit(&mut self, v: &View, _sb: &mut Scoreboard, seq: u64, len: u64) {
        self.mark_sent(v, seq, len, seq < v.snd_max);
        if !self.in_recovery && !self.probe_out {
            let w = View { snd_max: v.snd_max.max(seq + len), ..*v };
            self.arm_tlp(&w);
        }
    }

    fn on_timeout(&mut self, v: &View, _sb: &mut Scoreboard) {
        self.clear();
        self.recover = Some(v.snd_max);
    }

    fn recover(&self) -> Option<u64> {
        self.recover
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        match (self.reo_timer, self.tlp_timer) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn on_timer(&mut self, v: &View, sb: &mut Scoreboard) -> Response {
        if self.reo_timer.is_some_and(|t| v.now >= t) {
            // §6.3: the reordering window has passed; look again.
            self.detect(v, sb);
            return self.respond(v);
        }
        if self.tlp_timer.is_some_and(|t| v.now >= t) {
            // §7.3: send a probe: new data if allowed, else the last segment.
            self.tlp_timer = None;
            self.probe_out = true;
            self.probes += 1;
            let new_len = v.mss.min(v.app_end.saturating_sub(v.snd_nxt));
            let seq = if new_len > 0 && v.snd_nxt + new_len <= v.snd_una + v.rwnd && v.snd_nxt == v.snd_max {
                self.mark_sent(v, v.snd_nxt, new_len, false);
                self.tlp_end = Some(v.snd_nxt + new_len);
                v.snd_nxt
            } else {
                let last = (v.snd_max - 1) / v.mss * v.mss;
                self.mark_sent(v, last, v.snd_max - last, true);
                self.tlp_end = Some(v.snd_max);
                last
            };
            return Response { retransmit: Some(seq), ..Response::default() };
        }
        Response::default()
    }
}
