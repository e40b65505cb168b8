//! Ground truth: what really happened to a flow's segments, which only a
//! simulator knows. The sender's own counters say what it *did*; these say
//! whether it was *right*.
//!
//! Definitions (also in docs/results.md):
//! - **spurious retransmission**: a retransmitted segment whose earlier copy
//!   had already reached the receiver, or was still in the network (neither
//!   delivered nor dropped), when the retransmission left the sender.
//! - **false fast retransmit**: a fast retransmit of such a segment.
//! - **lost retransmission**: a retransmitted copy dropped on the way (error
//!   model or queue).
//! - **wasted timeout** (after efr §4.3): the first expiry of a timeout
//!   episode for a segment that was really lost, when fewer than `dupthresh`
//!   segments had been sent after it — so even had all of them arrived, their
//!   duplicate ACKs could not have reached the threshold. The threshold is
//!   the one in force at the sender (EFR, ER and EPLR lower it).

use std::collections::VecDeque;

/// Copies of each segment in the network, from the sender's `snd_una` up.
#[derive(Clone, Debug, Default)]
pub struct SegmentCopies {
    mss: u64,
    /// Segment number of `live[0]`.
    base: u64,
    live: VecDeque<u16>,
}

impl SegmentCopies {
    pub fn new(mss: u32) -> Self {
        SegmentCopies { mss: mss as u64, base: 0, live: VecDeque::new() }
    }

    fn slot(&mut self, seq: u64) -> Option<&mut u16> {
        let seg = seq / self.mss;
        let i = seg.checked_sub(self.base)? as usize;
        if i >= self.live.len() {
            self.live.resize(i + 1, 0);
        }
        self.live.get_mut(i)
    }

    /// A copy of the segment at `seq` entered the network.
    pub fn sent(&mut self, seq: u64) {
        if let Some(n) = self.slot(seq) {
            *n = n.saturating_add(1);
        }
    }

    /// A copy left the network (arrived or dropped).
    pub fn gone(&mut self, seq: u64) {
        if let Some(n) = self.slot(seq) {
            *n = n.saturating_sub(1);
        }
    }

    /// Is a copy of the segment at `seq` still in the network?
    pub fn in_network(&self, seq: u64) -> bool {
        let seg = seq / self.mss;
        seg.checked_sub(self.base).and_then(|i| self.live.get(i as usize)).is_some_and(|&n| n > 0)
    }

    /// Forget segments below the sender's cumulative ACK.
    pub fn advance(&mut self, snd_una: u64) {
        let seg = snd_una / self.mss;
        while self.base < seg {
            self.live.pop_front();
            self.base += 1;
        }
    }
}

/// Ground-truth counters of one flow.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Truth {
    pub spurious_retransmissions: u64,
    pub false_fast_retransmits: u64,
    pub lost_retransmissions: u64,
    pub wasted_timeouts: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_are_counted_per_segment_and_forgotten_below_snd_una() {
        let mut c = SegmentCopies::new(100);
        c.sent(0);
        c.sent(250);
        c.sent(250);
        assert!(c.in_network(0) && c.in_network(299) && !c.in_network(100));
        c.gone(250);
        assert!(c.in_network(200));
        c.gone(200);
        assert!(!c.in_network(200));
        c.advance(100);
        assert!(!c.in_network(0), "below snd_una: forgotten");
        c.gone(0); // a late copy below the base is ignored
        c.sent(300);
        assert!(c.in_network(300));
    }
}
