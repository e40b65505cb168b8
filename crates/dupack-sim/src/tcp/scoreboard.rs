//! The SACK scoreboard: what the receiver has reported above `snd_una`.
//!
//! SACKed data is kept as a sorted list of disjoint byte intervals, so
//! marking a block costs O(log h + merged intervals) with h the number of
//! holes — not O(segments in the block) — however often the receiver
//! repeats a large block. Retransmissions are per-segment flags in a ring
//! buffer: the sender never re-packetises, so segment `i` always covers
//! bytes `[i·mss, min((i+1)·mss, app_end))`. The search for the next hole to
//! retransmit advances a cursor that only moves forward during a recovery
//! episode, so a whole recovery costs O(window), not O(window) per ACK.

use crate::tcp::segment::SackBlock;
use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct Scoreboard {
    mss: u64,
    /// Segment number of `retransmitted[0]` (= snd_una / mss).
    base: u64,
    retransmitted: VecDeque<bool>,
    /// SACKed byte ranges `[left, right)` above `snd_una`, sorted, disjoint,
    /// not adjacent, each made of whole segments.
    sacked: Vec<(u64, u64)>,
    sacked_bytes: u64,
    /// Segment number from which the next hole search starts.
    cursor: u64,
    /// Byte ranges that became SACKed since [`Scoreboard::begin_ack`] (for
    /// policies that act on newly delivered data, like RACK).
    newly: Vec<(u64, u64)>,
}

impl Scoreboard {
    pub fn new(mss: u32) -> Self {
        Scoreboard {
            mss: mss as u64,
            base: 0,
            retransmitted: VecDeque::new(),
            sacked: Vec::new(),
            sacked_bytes: 0,
            cursor: 0,
            newly: Vec::new(),
        }
    }

    fn idx(&self, seg: u64) -> Option<usize> {
        seg.checked_sub(self.base).map(|i| i as usize).filter(|&i| i < self.retransmitted.len())
    }

    /// Make room for segments up to (excluding) byte `snd_max`.
    pub fn extend_to(&mut self, snd_max: u64) {
        let last = snd_max.div_ceil(self.mss);
        while self.base + (self.retransmitted.len() as u64) < last {
            self.retransmitted.push_back(false);
        }
    }

    /// Drop state below the cumulative ACK `snd_una` (always segment aligned).
    pub fn advance(&mut self, snd_una: u64) {
        let seg = snd_una / self.mss;
        while self.base < seg {
            self.retransmitted.pop_front();
            self.base += 1;
        }
        if self.retransmitted.is_empty() {
            self.base = seg;
        }
        self.cursor = self.cursor.max(self.base);
        // Intervals wholly acknowledged go; one straddling snd_una is clipped.
        let gone = self.sacked.partition_point(|&(_, r)| r <= snd_una);
        for &(l, r) in &self.sacked[..gone] {
            self.sacked_bytes -= r - l;
        }
        self.sacked.drain(..gone);
        if let Some(first) = self.sacked.first_mut() {
            if first.0 < snd_una {
                self.sacked_bytes -= snd_una - first.0;
                first.0 = snd_una;
            }
        }
    }

    /// Record the whole segments inside `b` as SACKed (RFC 2018 §5; a
    /// partial segment cannot be SACKed since segments are never split).
    /// Returns true if the block carried new information.
    pub fn mark_sacked(&mut self, b: &SackBlock, app_end: u64) -> bool {
        let floor = self.base * self.mss;
        let left = b.left.div_ceil(self.mss) * self.mss;
        let right = if b.right >= app_end { app_end } else { b.right / self.mss * self.mss };
        let (left, right) = (left.max(floor), right);
        if left >= right {
            return false;
        }
        // Intervals that overlap or touch [left, right) are merged into it.
        let lo = self.sacked.partition_point(|&(_, r)| r < left);
        let hi = self.sacked.partition_point(|&(l, _)| l <= right);
        let (mut nl, mut nr, mut before) = (left, right, 0);
        let mut cursor = left;
        for &(l, r) in &self.sacked[lo..hi] {
            if l > cursor {
                self.newly.push((cursor, l.min(right)));
            }
            cursor = cursor.max(r);
            nl = nl.min(l);
            nr = nr.max(r);
            before += r - l;
        }
        if cursor < right {
            self.newly.push((cursor, right));
        }
        let after = nr - nl;
        self.sacked.splice(lo..hi, std::iter::once((nl, nr)));
        self.sacked_bytes += after - before;
        after > before
    }

    /// A new ACK is being processed: forget the previous one's new SACKs.
    pub fn begin_ack(&mut self) {
        self.newly.clear();
    }

    /// Byte ranges newly SACKed by the ACK being processed.
    pub fn newly_sacked(&self) -> &[(u64, u64)] {
        &self.newly
    }

    pub fn mark_retransmitted(&mut self, seq: u64) {
        if let Some(i) = self.idx(seq / self.mss) {
            self.retransmitted[i] = true;
        }
    }

    /// The SACKed interval containing byte `seq`, if any.
    fn sacked_interval(&self, seq: u64) -> Option<(u64, u64)> {
        let i = self.sacked.partition_point(|&(_, r)| r <= seq);
        self.sacked.get(i).copied().filter(|&(l, _)| l <= seq)
    }

    pub fn is_sacked(&self, seq: u64) -> bool {
        self.sacked_interval(seq).is_some()
    }

    pub fn is_retransmitted(&self, seq: u64) -> bool {
        self.idx(seq / self.mss).is_some_and(|i| self.retransmitted[i])
    }

    /// One past the highest SACKed byte, or `None` if nothing is SACKed.
    pub fn high_sacked(&self) -> Option<u64> {
        self.sacked.last().map(|&(_, r)| r)
    }

    /// Segments SACKed above `snd_una` (a short last segment counts as one).
    pub fn sacked_segments(&self) -> u64 {
        self.sacked_bytes.div_ceil(self.mss)
    }

    /// Number of disjoint SACKed runs.
    pub fn sacked_intervals(&self) -> usize {
        self.sacked.len()
    }

    /// All SACKed bytes above `snd_una`.
    pub fn sacked_bytes(&self) -> u64 {
        self.sacked_bytes
    }

    /// The SACKed runs `[left, right)`, ascending.
    pub fn sacked_runs(&self) -> &[(u64, u64)] {
        &self.sacked
    }

    /// SACKed bytes at or above `seq` (RFC 6675 §4 `IsLost` counts these).
    pub fn sacked_above(&self, seq: u64) -> u64 {
        let i = self.sacked.partition_point(|&(_, r)| r <= seq);
        self.sacked[i..].iter().map(|&(l, r)| r - l.max(seq)).sum()
    }

    /// SACKed bytes inside `[left, right)`.
    pub fn sacked_between(&self, left: u64, right: u64) -> u64 {
        let i = self.sacked.partition_point(|&(_, r)| r <= left);
        self.sacked[i..].iter().take_while(|&&(l, _)| l < right).map(|&(l, r)| r.min(right) - l.max(left)).sum()
    }

    /// The first byte at or after `seq` that is not SACKed.
    pub fn first_unsacked_from(&self, seq: u64) -> u64 {
        match self.sacked_interval(seq) {
            Some((_, r)) => r,
            None => seq,
        }
    }

    /// Fall & Floyd 1996 / unfairness §IV: the first segment that is neither
    /// SACKed nor already retransmitted and lies below the highest SACKed
    /// byte — a hole the receiver has reported. Returns its first byte.
    pub fn next_hole(&mut self) -> Option<u64> {
        let high = self.high_sacked()?;
        loop {
            let start = self.cursor * self.mss;
            if start >= high {
                return None;
            }
            if let Some((_, r)) = self.sacked_interval(start) {
                // Jump over the whole SACKed run at once.
                self.cursor = r.div_ceil(self.mss);
                continue;
            }
            let i = self.idx(self.cursor)?;
            if !self.retransmitted[i] {
                return Some(start);
            }
            self.cursor += 1;
        }
    }

    /// Forget everything SACKed and retransmitted (after an RTO: RFC 2018 §8
    /// lets the receiver renege, and the ns-2 SACK sender clears it too).
    pub fn clear(&mut self) {
        self.retransmitted.iter_mut().for_each(|f| *f = false);
        self.sacked.clear();
        self.sacked_bytes = 0;
        self.cursor = self.base;
    }

    /// Restart the hole search from `snd_una` (a new recovery episode).
    pub fn rewind(&mut self) {
        self.cursor = self.base;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    fn blk(l: u64, r: u64) -> SackBlock {
        SackBlock { left: l, right: r }
    }

    #[test]
    fn holes_are_reported_in_order_and_only_below_the_highest_sack() {
        let mut sb = Scoreboard::new(100);
        sb.extend_to(1000);
        assert!(sb.mark_sacked(&blk(200, 400), u64::MAX));
        assert!(!sb.mark_sacked(&blk(200, 400), u64::MAX), "no new information");
        assert!(sb.mark_sacked(&blk(600, 700), u64::MAX));
        assert_eq!(sb.high_sacked(), Some(700));
        assert_eq!(sb.next_hole(), Some(0));
        sb.mark_retransmitted(0);
        assert_eq!(sb.next_hole(), Some(100));
        sb.mark_retransmitted(100);
        assert_eq!(sb.next_hole(), Some(400));
        sb.mark_retransmitted(400);
        assert_eq!(sb.next_hole(), Some(500));
        sb.mark_retransmitted(500);
        assert_eq!(sb.next_hole(), None, "700.. is above the highest SACK");
    }

    #[test]
    fn advancing_drops_state_and_counts() {
        let mut sb = Scoreboard::new(100);
        sb.extend_to(1000);
        sb.mark_sacked(&blk(100, 300), u64::MAX);
        assert_eq!(sb.sacked_segments(), 2);
        sb.advance(300);
        assert_eq!(sb.sacked_segments(), 0);
        assert_eq!(sb.high_sacked(), None);
        assert!(!sb.is_sacked(300));
    }

    #[test]
    fn a_short_last_segment_is_marked_by_a_block_ending_at_app_end() {
        let mut sb = Scoreboard::new(100);
        sb.extend_to(250);
        assert!(sb.mark_sacked(&blk(200, 250), 250));
        assert!(sb.is_sacked(200));
    }

    #[test]
    fn clear_forgets_sacks_and_retransmissions() {
        let mut sb = Scoreboard::new(100);
        sb.extend_to(500);
        sb.mark_sacked(&blk(100, 200), u64::MAX);
        sb.mark_retransmitted(0);
        sb.clear();
        assert!(!sb.is_sacked(100) && !sb.is_retransmitted(0));
        assert_eq!(sb.next_hole(), None);
    }

    #[test]
    fn a_repeated_large_block_is_merged_not_rescanned() {
        let mut sb = Scoreboard::new(100);
        sb.extend_to(1_000_000);
        // Holes at segments 0 and 5; the receiver keeps growing one big block.
        assert!(sb.mark_sacked(&blk(100, 500), u64::MAX));
        for right in (700..1_000_000).step_by(100) {
            assert!(sb.mark_sacked(&blk(600, right), u64::MAX));
            assert!(!sb.mark_sacked(&blk(600, right), u64::MAX), "a repeat carries nothing new");
        }
        assert_eq!(sb.sacked_intervals(), 2);
        assert_eq!(sb.sacked_segments(), 4 + (999_900 - 600) / 100);
        // Filling hole 5 joins the two runs.
        assert!(sb.mark_sacked(&blk(500, 600), u64::MAX));
        assert_eq!(sb.sacked_intervals(), 1);
        assert_eq!(sb.next_hole(), Some(0));
        sb.mark_retransmitted(0);
        assert_eq!(sb.next_hole(), None);
    }

    #[test]
    fn blocks_are_trimmed_to_whole_segments_and_advance_clips() {
        let mut sb = Scoreboard::new(100);
        sb.extend_to(1000);
        assert!(!sb.mark_sacked(&blk(150, 240), u64::MAX), "no whole segment inside");
        assert!(sb.mark_sacked(&blk(150, 420), u64::MAX));
        assert!(!sb.is_sacked(100) && sb.is_sacked(200) && sb.is_sacked(300) && !sb.is_sacked(400));
        sb.advance(300);
        assert_eq!(sb.sacked_segments(), 1);
        assert!(sb.is_sacked(300));
        assert!(!sb.mark_sacked(&blk(0, 300), u64::MAX), "below snd_una is no information");
    }

    #[test]
    fn byte_counts_above_and_between() {
        let mut sb = Scoreboard::new(100);
        sb.extend_to(2000);
        sb.mark_sacked(&blk(200, 400), u64::MAX);
        sb.mark_sacked(&blk(600, 900), u64::MAX);
        assert_eq!(sb.sacked_above(0), 500);
        assert_eq!(sb.sacked_above(300), 400);
        assert_eq!(sb.sacked_above(900), 0);
        assert_eq!(sb.sacked_between(300, 700), 200);
        assert_eq!(sb.first_unsacked_from(250), 400);
        assert_eq!(sb.first_unsacked_from(500), 500);
    }

    #[test]
    fn newly_sacked_ranges_are_exactly_the_new_bytes() {
        let mut sb = Scoreboard::new(100);
        sb.extend_to(2000);
        sb.begin_ack();
        sb.mark_sacked(&blk(200, 400), u64::MAX);
        sb.mark_sacked(&blk(600, 700), u64::MAX);
        assert_eq!(sb.newly_sacked(), &[(200, 400), (600, 700)]);
        sb.begin_ack();
        // One block spanning both runs and the gap between them, and more.
        sb.mark_sacked(&blk(100, 900), u64::MAX);
        assert_eq!(sb.newly_sacked(), &[(100, 200), (400, 600), (700, 900)]);
        sb.begin_ack();
        sb.mark_sacked(&blk(100, 900), u64::MAX);
        assert!(sb.newly_sacked().is_empty(), "a repeated block carries nothing new");
    }
}
