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
//! - **D-SACK** (RFC 2883 §5, RFC 3708; `+undo` with
//!   `tcp.undo_evidence = "dsack"`): when the receiver has reported every
//!   retransmission of the episode as a duplicate, none was needed.
//!
//! In every case the sender first reacts as its base variant, after saving
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
    /// D-SACK: every retransmission of the episode came back as a duplicate.
    Dsack,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Pending {
    seq: u64,
    original_tag: u32,
    /// TSval of the first retransmission of `seq` (Eifel's RetransmitTS).
    retransmit_ts: Option<SimTime>,
    cwnd: u64,
    ssthresh: u64,
    /// `snd_max` at the loss: the episode's end.
    recover: u64,
    /// D-SACK evidence: retransmissions of the episode not yet reported as
    /// duplicates, and how many there were.
    undsacked: Vec<u64>,
    retransmissions: u32,
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
    pub fn on_transmit(&mut self, seq: u64, tag: u32, ts_val: Option<SimTime>, retransmission: bool) {
        if let Some(p) = self.pending.as_mut() {
            if p.seq == seq && p.retransmit_ts.is_none() {
                p.retransmit_ts = ts_val;
            }
            if retransmission && seq < p.recover {
                p.retransmissions += 1;
                p.undsacked.push(seq);
            }
        }
        if let Some(t) = self.slot(seq) {
            *t = tag;
        }
    }

    /// The sender is about to reduce its window for a loss of `snd_una`
    /// (`snd_max` the highest byte sent).
    pub fn on_loss(&mut self, snd_una: u64, snd_max: u64, cwnd: u64, ssthresh: u64) {
        // A loss within the episode being tracked keeps the first snapshot.
        if self.pending.as_ref().is_some_and(|p| snd_una <= p.recover) {
            return;
        }
        let original_tag = self.slot(snd_una).map_or(0, |t| *t);
        self.pending = Some(Pending {
            seq: snd_una,
            original_tag,
            retransmit_ts: None,
            cwnd,
            ssthresh,
            recover: snd_max,
            undsacked: Vec::new(),
            retransmissions: 0,
        });
    }

    /// Any ACK: with D-SACK evidence, count the duplicates it reports
    /// (RFC 2883 §4: a first block below the cumulative ACK, or inside the
    /// second block). Returns the window to restore once every retransmission
    /// of the episode has been reported (RFC 3708 §3).
    pub fn on_ack_sack(&mut self, ack: u64, sack: &[crate::tcp::segment::SackBlock]) -> Option<(u64, u64)> {
        if self.evidence != Evidence::Dsack {
            return None;
        }
        let p = self.pending.as_mut()?;
        let first = sack.first()?;
        let is_dsack =
            first.right <= ack || sack.get(1).is_some_and(|b| b.left <= first.left && first.right <= b.right);
        if !is_dsack {
            return None;
        }
        p.undsacked.retain(|&s| !(first.left <= s && s < first.right));
        if p.retransmissions > 0 && p.undsacked.is_empty() {
            let p = self.pending.take()?;
            return Some((p.cwnd, p.ssthresh));
        }
        None
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
        if self.evidence == Evidence::Dsack {
            return None; // decided by the D-SACKs, which come after this ACK
        }
        let p = self.pending.clone()?;
        if ack <= p.seq {
            return None;
        }
        self.pending = None;
        let original = match self.evidence {
            Evidence::OriginalTag => p.original_tag != 0 && tag == p.original_tag,
            // RFC 3522 §2: TSecr < RetransmitTS. A zero echo is no evidence.
            Evidence::Timestamp => {
                matches!((ts_ecr, p.retransmit_ts), (Some(e), Some(r)) if e > SimTime::ZERO && e < r)
            }
            Evidence::Dsack => false,
        };
        original.then_some((p.cwnd, p.ssthresh))
    }
}
