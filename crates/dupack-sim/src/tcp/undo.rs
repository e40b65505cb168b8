//! Undoing a window reduction that was not needed: the original
//! transmission was only delayed, not lost.
//!
//! Two ways to tell, one mechanism:
//! - **TCP I&RW** (Utsumi, Zabir & Shiratori, irw §3, Fig. 1; `+irw`): every
//!   transmission carries a fresh identification tag and the receiver echoes
//!   the tag of the segment that triggered each ACK; if the ACK that covers
//!   the retransmitted data echoes the *original* transmission's tag, the
//!   original arrived (after link-level ARQ, say) and the window is revived.
//! - **Eifel detection** (RFC 3522 §2; `+undo`): with timestamps, if that ACK's
//!   `TSecr` is older than the retransmission's `TSval`, it acknowledges the
//!   original; the response restores the window (RFC 4015 §2 in its simple
//!   form: `cwnd` and `ssthresh` as before the reduction).
//!
//! In both cases the sender first reacts as its base variant, after saving
//! the window; one loss is tracked at a time (the first of a recovery or
//! timeout episode; later reductions in the same episode keep the first
//! snapshot), and both `cwnd` and `ssthresh` are restored.

use crate::time::SimTime;
use std::collections::VecDeque;

/// What shows that the original transmission, not the retransmission, arrived.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Evidence {
    /// I&RW: the ACK echoes the original's identification tag.
    OriginalTag,
    /// Eifel: the ACK's TSecr predates the retransmission's TSval.
    Timestamp,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Pending {
    seq: u64,
    original_tag: u32,
    /// TSval of the first retransmission of `seq` (Eifel's RetransmitTS).
    retransmit_ts: Option<SimTime>,
    cwnd: u64,
    ssthresh: u64,
}

#[derive(Clone, Debug)]
pub struct Undo {
    evidence: Evidence,
    mss: u64,
    /// Segment number of `tags[0]` (= snd_una / mss).
    base: u64,
    /// Tag of the latest transmission of each segment from `snd_una` up.
    tags: VecDeque<u32>,
    pending: Option<Pending>,
}

impl Undo {
    pub fn new(evidence: Evidence, mss: u64) -> Self {
        Undo { evidence, mss, base: 0, tags: VecDeque::new(), pending: None }
    }

    fn slot(&mut self, seq: u64) -> Option<&mut u32> {
        let i = (seq / self.mss).checked_sub(self.base)? as usize;
        if i >= self.tags.len() {
            self.tags.resize(i + 1, 0);
        }
        self.tags.get_mut(i)
    }

    /// A transmission of the segment at `seq` left with `tag` and timestamp `ts_val`.
    pub fn on_transmit(&mut self, seq: u64, tag: u32, ts_val: Option<SimTime>) {
        if let Some(p) = self.pending.as_mut() {
            if p.seq == seq && p.retransmit_ts.is_none() {
                p.retransmit_ts = ts_val;
            }
        }
        if let Some(t) = self.slot(seq) {
            *t = tag;
        }
    }

    /// The sender is about to reduce its window for a loss of `snd_una`.
    pub fn on_loss(&mut self, snd_una: u64, cwnd: u64, ssthresh: u64) {
        if self.pending.is_some() {
            return;
        }
        let original_tag = self.slot(snd_una).map_or(0, |t| *t);
        self.pending = Some(Pending { seq: snd_una, original_tag, retransmit_ts: None, cwnd, ssthresh });
    }

    /// An ACK of new data up to `ack`, echoing `tag` and `ts_ecr`. Returns the
    /// window to restore if it shows the original transmission arrived.
    pub fn on_new_ack(&mut self, ack: u64, tag: u32, ts_ecr: Option<SimTime>) -> Option<(u64, u64)> {
        let seg = ack / self.mss;
        while self.base < seg && !self.tags.is_empty() {
            self.tags.pop_front();
            self.base += 1;
        }
        self.base = self.base.max(seg);
        let p = self.pending?;
        if ack <= p.seq {
            return None;
        }
        self.pending = None;
        let original = match self.evidence {
            Evidence::OriginalTag => p.original_tag != 0 && tag == p.original_tag,
            // RFC 3522 §2: TSecr < RetransmitTS. A zero echo is no evidence.
            Evidence::Timestamp => matches!((ts_ecr, p.retransmit_ts), (Some(e), Some(r)) if e > SimTime::ZERO && e < r),
        };
        original.then_some((p.cwnd, p.ssthresh))
    }
}
