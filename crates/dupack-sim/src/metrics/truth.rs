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
    mss: u32,
    /// First byte of the segment of `live[0]` (a multiple of `mss`).
    base_seq: u64,
    live: VecDeque<u16>,
}

impl SegmentCopies {
    pub fn new(mss: u32) -> Self {
        // Room for a 64-segment window from the start: grown one doubling
        // at a time from empty, a short run (a sweep of 1 s runs) spent
        // about 1 % of its instructions reallocating these.
        SegmentCopies { mss, base_seq: 0, live: VecDeque::with_capacity(64) }
    }

    /// The place in `live` of the segment holding byte `seq` (None below the base).
    /// Counted from the base rather than from 0, the dividend is at most a
    /// window: a 32-bit division, which costs this path (every packet sent,
    /// arrived or dropped, and every ACK) less than a 64-bit one.
    #[inline]
    fn index(&self, seq: u64) -> Option<u64> {
        let off = seq.checked_sub(self.base_seq)?;
        Some(match u32::try_from(off) {
            Ok(off) => u64::from(off / self.mss),
            Err(_) => off / u64::from(self.mss),
        })
    }

    fn slot(&mut self, seq: u64) -> Option<&mut u16> {
        let i = self.index(seq)? as usize;
        if i >= self.live.len() {
            // Nearly always the next new segment: one push, not resize's
            // general extension.
            if i == self.live.len() {
                self.live.push_back(0);
            } else {
                self.live.resize(i + 1, 0);
            }
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
        self.index(seq).and_then(|i| self.live.get(i as usize)).is_some_and(|&n| n > 0)
    }

    /// Forget segments below the sender's cumulative ACK.
    pub fn advance(&mut self, snd_una: u64) {
        let Some(k) = self.index(snd_una).filter(|&k| k > 0) else { return };
        self.live.drain(..(k as usize).min(self.live.len()));
        self.base_seq += k * u64::from(self.mss);
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

    #[test]
    fn segments_beyond_four_gibibytes_of_the_base_and_a_cumulative_ack_beyond_every_copy() {
        // More than 2^32 bytes above the base takes the 64-bit division.
        let mut c = SegmentCopies::new(1000);
        let far = 5_000_000_000u64 + 1234;
        c.sent(far);
        assert!(c.in_network(far - 234) && c.in_network(far + 765) && !c.in_network(far + 766));
        assert!(!c.in_network(far - 235), "the segment below holds no copy");
        // An ACK far past the last copy sent forgets everything below it, and
        // segments above it are counted from there.
        c.advance(far + 766 + 3000);
        assert!(!c.in_network(far));
        c.sent(far + 766 + 3000);
        assert!(c.in_network(far + 766 + 3999) && !c.in_network(far + 766 + 4000));
        c.gone(far + 766 + 3500);
        assert!(!c.in_network(far + 766 + 3000));
    }
}
