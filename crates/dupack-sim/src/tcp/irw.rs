//! TCP I&RW — Identification & Revivable Window (Utsumi, Zabir & Shiratori,
//! irw §3, Fig. 1), the sender half (`+irw`).
//!
//! Every transmission, retransmissions included, carries a fresh
//! identification tag; the receiver echoes in each ACK the tag of the
//! segment that triggered it (`tcp::receiver`). On a loss the sender acts
//! as its base variant (Reno in the paper) but first remembers the window
//! before the reduction. When the ACK that covers the retransmitted data
//! echoes the *original* transmission's tag, the original was only delayed
//! (by link-level ARQ, say) and the loss was no congestion: the window is
//! revived to its value before the retransmission. If it echoes the
//! retransmission's tag, the reduction stands.
//!
//! Choices (docs/mechanisms.md): one loss is tracked at a time (the first of
//! a recovery or timeout episode; later reductions in the same episode keep
//! the first snapshot); "revive" restores both `cwnd` and `ssthresh`.

use std::collections::VecDeque;

/// The window before a loss response, and the tags that tell delay from loss.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Pending {
    seq: u64,
    original_tag: u32,
    cwnd: u64,
    ssthresh: u64,
}

#[derive(Clone, Debug)]
pub struct Irw {
    mss: u64,
    /// Segment number of `tags[0]` (= snd_una / mss).
    base: u64,
    /// Tag of the latest transmission of each segment from `snd_una` up.
    tags: VecDeque<u32>,
    pending: Option<Pending>,
    /// Windows revived so far.
    pub revivals: u64,
}

impl Irw {
    pub fn new(mss: u64) -> Self {
        Irw { mss, base: 0, tags: VecDeque::new(), pending: None, revivals: 0 }
    }

    fn slot(&mut self, seq: u64) -> Option<&mut u32> {
        let i = (seq / self.mss).checked_sub(self.base)? as usize;
        if i >= self.tags.len() {
            self.tags.resize(i + 1, 0);
        }
        self.tags.get_mut(i)
    }

    /// A transmission of the segment at `seq` left with `tag`.
    pub fn on_transmit(&mut self, seq: u64, tag: u32) {
        if let Some(t) = self.slot(seq) {
            *t = tag;
        }
    }

    /// The sender is about to reduce its window for a loss of `snd_una`
    /// (fast retransmit or timeout): remember the window and the tag of the
    /// transmission the retransmission replaces.
    pub fn on_loss(&mut self, snd_una: u64, cwnd: u64, ssthresh: u64) {
        if self.pending.is_some() {
            return;
        }
        let original_tag = self.slot(snd_una).map_or(0, |t| *t);
        self.pending = Some(Pending { seq: snd_una, original_tag, cwnd, ssthresh });
    }

    /// An ACK of new data up to `ack` echoing `tag`. Returns the window to
    /// revive to, if the ACK shows the original transmission arrived.
    pub fn on_new_ack(&mut self, ack: u64, tag: u32) -> Option<(u64, u64)> {
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
        (p.original_tag != 0 && tag == p.original_tag).then(|| {
            self.revivals += 1;
            (p.cwnd, p.ssthresh)
        })
    }
}
