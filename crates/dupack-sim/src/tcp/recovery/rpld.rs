//! RPLD — Retransmission Packet Loss Detection, with the authors' SACK TCP
//! (Samaraweera & Fairhurst, rpld §2.3–3; variant `sack+rpld`), and that SACK
//! TCP alone (variant `sack-cautious`), the paper's baseline.
//!
//! The authors' SACK TCP (rpld §2.3–2.4):
//! - a Fast Retransmission Phase starts on `dupthresh` duplicate ACKs
//!   (guarded by `recover`) and lasts until the data outstanding then is
//!   acknowledged; partial ACKs do not start a new phase (Hoe / NewReno);
//! - `cwnd` and `ssthresh` follow the NewReno fast retransmit and recovery
//!   rules (RFC 6582: halve, inflate per dupack, deflate per partial ACK)
//!   and govern **new** data;
//! - retransmissions are governed by a separate `cwnd_rexmit`: one segment
//!   at the start of the phase, one more on each partial ACK ("updated using
//!   the slow start algorithm", §2.4); a retransmission may leave while the
//!   retransmissions not yet acknowledged or SACKed are fewer than
//!   `cwnd_rexmit`;
//! - retransmissions are selective: only holes the receiver has not SACKed.
//!
//! RPLD (rpld §3): during the phase the sender records every segment it
//! sends, in send order, marked retransmission or new data. When three
//! duplicate ACKs have SACKed a new-data record, every retransmission sent
//! before it that is still neither acknowledged nor SACKed is deduced lost
//! and retransmitted again with the NewReno fast-retransmit rules (the window
//! is halved again, §3 "on detection of each packet loss"); its record moves
//! to the end of the order so a further loss can be detected. Records below
//! the cumulative ACK are dropped; a timeout clears them all.
//!
//! Choices (docs/mechanisms.md): "three duplicate selective ACKs which cover
//! a record" counts the duplicate ACKs that arrive while the record is
//! SACKed; the halving for a lost retransmission uses the RFC 5681 eq. 4
//! FlightSize rule; `cwnd_rexmit` grows by one segment per partial ACK.

use super::{may_enter, window_allows, LossRecovery, Response, View};

use crate::tcp::scoreboard::Scoreboard;
use std::collections::VecDeque;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Record {
    seq: u64,
    retransmission: bool,
    /// Duplicate ACKs seen while this (new-data) record was SACKed.
    sack_dups: u32,
}

#[derive(Clone, Debug, Default)]
pub struct Rpld {
    in_recovery: bool,
    recover: Option<u64>,
    /// Segments' worth of retransmissions allowed in the network (bytes).
    cwnd_rexmit: u64,
    /// Retransmissions sent in the phase and not yet acknowledged or SACKed.
    rexmit_out: VecDeque<u64>,
    /// Transmissions of the phase in send order (rpld §3).
    records: VecDeque<Record>,
    /// Retransmissions deduced lost, to go again first.
    lost: VecDeque<u64>,
    partial_acks: u32,
    /// RPLD is on (`sack+rpld`); off, this is the authors' SACK TCP alone
    /// (`sack-cautious`), which finds a lost retransmission only by timeout.
    detect_lost_retransmissions: bool,
    /// Retransmissions found lost by RPLD (for tests and traces).
    pub detected: u64,
}

impl Rpld {
    /// The authors' SACK TCP with RPLD (rpld §3).
    pub fn with_rpld() -> Self {
        Rpld { detect_lost_retransmissions: true, ..Self::default() }
    }

    /// The authors' SACK TCP without RPLD (rpld §2.3–2.4): the baseline of
    /// the paper's comparisons.
    pub fn authors_sack() -> Self {
        Self::default()
    }

    fn clear(&mut self) {
        self.in_recovery = false;
        self.rexmit_out.clear();
        self.records.clear();
        self.lost.clear();
    }

    /// Forget what left the network: acknowledged or SACKed.
    fn prune(&mut self, v: &View, sb: &Scoreboard) {
        self.rexmit_out.retain(|&s| s >= v.snd_una && !sb.is_sacked(s));
        self.records.retain(|r| r.seq >= v.snd_una);
        self.lost.retain(|&s| s >= v.snd_una && !sb.is_sacked(s));
    }

    /// rpld §3: a new-data record SACKed by three duplicate ACKs exposes the
    /// retransmissions sent before it that have not arrived.
    fn detect(&mut self, v: &View, sb: &Scoreboard) -> bool {
        let mut found = false;
        let mut i = 0;
        while i < self.records.len() {
            let r = self.records[i];
            if !r.retransmission && sb.is_sacked(r.seq) {
                self.records[i].sack_dups += 1;
                if self.records[i].sack_dups == v.dupthresh {
                    // Every retransmission recorded before it, still missing.
                    let before: Vec<u64> = self
                        .records
                        .iter()
                        .take(i)
                        .filter(|x| x.retransmission && x.seq >= v.snd_una && !sb.is_sacked(x.seq))
                        .map(|x| x.seq)
                        .collect();
                    for seq in before {
                        if !self.lost.contains(&seq) {
                            self.lost.push_back(seq);
                            self.rexmit_out.retain(|&s| s != seq);
                            self.detected += 1;
                            found = true;
                        }
                    }
                }
            }
            i += 1;
        }
        found
    }
}

impl LossRecovery for Rpld {
    fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    fn on_dupack(&mut self, v: &View, sb: &mut Scoreboard) -> Response {
        if self.in_recovery {
            self.prune(v, sb);
            // RFC 5681 §3.2 step 4 / RFC 6582: inflate for the segment that left.
            let mut r = Response { cwnd: Some(v.cwnd + v.mss), ..Response::default() };
            if self.detect_lost_retransmissions && self.detect(v, sb) {
                // rpld §3: a lost retransmission is a new loss: halve again.
                let ssthresh = v.loss_ssthresh();
                r.ssthresh = Some(ssthresh);
                r.cwnd = Some(ssthresh + v.dupthresh as u64 * v.mss);
            }
            return r;
        }
        if v.dupacks != v.dupthresh || !may_enter(self.recover, v.snd_una) {
            return Response::default();
        }
        self.clear();
        self.in_recovery = true;
        self.recover = Some(v.snd_max);
        self.partial_acks = 0;
        // rpld §2.3: one segment of retransmission at the start of the phase.
        self.cwnd_rexmit = v.mss;
        sb.rewind();
        sb.mark_retransmitted(v.snd_una);
        self.rexmit_out.push_back(v.snd_una);
        self.records.push_back(Record { seq: v.snd_una, retransmission: true, sack_dups: 0 });
        Response::fast_retransmit(v, v.dupthresh as u64 * v.mss)
    }

    fn on_new_ack(&mut self, v: &View, acked: u64, sb: &mut Scoreboard) -> Response {
        if !self.in_recovery {
            return Response { grow: true, ..Response::default() };
        }
        if v.snd_una >= self.recover.unwrap_or(0) {
            // RFC 6582 §3.2 step 3 (option 1).
            self.clear();
            let cwnd = v.ssthresh.min(v.flight_size().max(v.mss) + v.mss);
            return Response { cwnd: Some(cwnd), ..Response::default() };
        }
        // Partial ACK: the phase goes on; cwnd_rexmit grows by one segment.
        self.partial_acks += 1;
        self.cwnd_rexmit += v.mss;
        self.prune(v, sb);
        let mut cwnd = v.cwnd.saturating_sub(acked);
        if acked >= v.mss {
            cwnd += v.mss;
        }
        Response { cwnd: Some(cwnd.max(v.mss)), restart_rto: Some(self.partial_acks == 1), ..Response::default() }
    }

    fn may_send(&self, v: &View, sb: &Scoreboard, len: u64) -> bool {
        if !self.in_recovery {
            return window_allows(v, len);
        }
        // Either a retransmission fits in cwnd_rexmit or new data fits in cwnd.
        let rexmit_ok = (self.rexmit_out.len() as u64) * v.mss < self.cwnd_rexmit
            && (!self.lost.is_empty() || sb.high_sacked().is_some());
        rexmit_ok || window_allows(v, len)
    }

    fn next_retransmit(&mut self, v: &View, sb: &mut Scoreboard) -> Option<u64> {
        if !self.in_recovery || (self.rexmit_out.len() as u64) * v.mss >= self.cwnd_rexmit {
            return None;
        }
        if let Some(seq) = self.lost.pop_front() {
            return Some(seq);
        }
        sb.next_hole()
    }

    fn on_transmit(&mut self, v: &View, sb: &mut Scoreboard, seq: u64, _len: u64) {
        if !self.in_recovery {
            return;
        }
        let retransmission = seq < v.snd_max;
        if retransmission {
            sb.mark_retransmitted(seq);
            self.rexmit_out.push_back(seq);
            // The record moves to the end of the send order (rpld §3).
            self.records.retain(|r| r.seq != seq);
        }
        self.records.push_back(Record { seq, retransmission, sack_dups: 0 });
    }

    fn on_timeout(&mut self, v: &View, sb: &mut Scoreboard) {
        // rpld §3: a timeout clears every record. The SACK information is
        // kept: after the timeout the authors' SACK TCP "selectively
        // retransmits only the packets lost during the transmission (i.e.,
        // only those which are not selectively acknowledged)" (rpld §4.1),
        // so the slow-start retransmissions skip what the receiver holds.
        self.clear();
        self.recover = Some(v.snd_max);
        sb.rewind();
    }

    fn recover(&self) -> Option<u64> {
        self.recover
    }
}
