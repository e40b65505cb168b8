//! The SACK scoreboard: per-segment state from `snd_una` to `snd_max`.
//!
//! The sender never re-packetises, so segment `i` always covers bytes
//! `[i·mss, min((i+1)·mss, app_end))` and the scoreboard is a ring buffer of
//! flags indexed by segment number. Marking a SACK block touches only the
//! segments it covers; finding the next hole to retransmit advances a
//! cursor that only moves forward during a recovery episode, so a whole
//! recovery costs O(window), not O(window) per ACK.

use crate::tcp::segment::SackBlock;
use std::collections::VecDeque;

const SACKED: u8 = 1;
const RETRANSMITTED: u8 = 2;

#[derive(Clone, Debug)]
pub struct Scoreboard {
    mss: u64,
    /// Segment number of `flags[0]` (= snd_una / mss).
    base: u64,
    flags: VecDeque<u8>,
    /// One past the highest SACKed byte (0 = nothing SACKed above snd_una).
    high_sacked: u64,
    /// Segment number from which the next hole search starts.
    cursor: u64,
    sacked_segs: u64,
}

impl Scoreboard {
    pub fn new(mss: u32) -> Self {
        Scoreboard {
            mss: mss as u64,
            base: 0,
            flags: VecDeque::new(),
            high_sacked: 0,
            cursor: 0,
            sacked_segs: 0,
        }
    }

    fn idx(&self, seg: u64) -> Option<usize> {
        seg.checked_sub(self.base).map(|i| i as usize).filter(|&i| i < self.flags.len())
    }

    /// Make room for segments up to (excluding) byte `snd_max`.
    pub fn extend_to(&mut self, snd_max: u64) {
        let last = snd_max.div_ceil(self.mss);
        while self.base + (self.flags.len() as u64) < last {
            self.flags.push_back(0);
        }
    }

    /// Drop state below the cumulative ACK `snd_una` (always segment aligned).
    pub fn advance(&mut self, snd_una: u64) {
        let seg = snd_una / self.mss;
        while self.base < seg {
            match self.flags.pop_front() {
                Some(f) if f & SACKED != 0 => self.sacked_segs -= 1,
                Some(_) => {}
                None => {}
            }
            self.base += 1;
        }
        if self.flags.is_empty() {
            self.base = seg;
        }
        self.cursor = self.cursor.max(self.base);
        if self.high_sacked <= snd_una {
            self.high_sacked = 0;
        }
    }

    /// Mark every whole segment inside `b` as SACKed (RFC 2018 §5). Returns
    /// true if the block carried new information.
    pub fn mark_sacked(&mut self, b: &SackBlock, app_end: u64) -> bool {
        let mut changed = false;
        let first = b.left.div_ceil(self.mss);
        let mut seg = first;
        loop {
            let start = seg * self.mss;
            let end = ((seg + 1) * self.mss).min(app_end);
            if end > b.right || start >= b.right {
                break;
            }
            if let Some(i) = self.idx(seg) {
                if self.flags[i] & SACKED == 0 {
                    self.flags[i] |= SACKED;
                    self.sacked_segs += 1;
                    changed = true;
                }
                self.high_sacked = self.high_sacked.max(end);
            }
            seg += 1;
        }
        changed
    }

    pub fn mark_retransmitted(&mut self, seq: u64) {
        if let Some(i) = self.idx(seq / self.mss) {
            self.flags[i] |= RETRANSMITTED;
        }
    }

    pub fn is_sacked(&self, seq: u64) -> bool {
        self.idx(seq / self.mss).is_some_and(|i| self.flags[i] & SACKED != 0)
    }

    pub fn is_retransmitted(&self, seq: u64) -> bool {
        self.idx(seq / self.mss).is_some_and(|i| self.flags[i] & RETRANSMITTED != 0)
    }

    /// One past the highest SACKed byte, or `None` if nothing is SACKed.
    pub fn high_sacked(&self) -> Option<u64> {
        (self.high_sacked > 0).then_some(self.high_sacked)
    }

    pub fn sacked_segments(&self) -> u64 {
        self.sacked_segs
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
            let i = self.idx(self.cursor)?;
            if self.flags[i] & (SACKED | RETRANSMITTED) == 0 {
                return Some(start);
            }
            self.cursor += 1;
        }
    }

    /// Forget everything SACKed and retransmitted (after an RTO: RFC 2018 §8
    /// lets the receiver renege, and the ns-2 SACK sender clears it too).
    pub fn clear(&mut self) {
        for f in self.flags.iter_mut() {
            *f = 0;
        }
        self.high_sacked = 0;
        self.sacked_segs = 0;
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
}
