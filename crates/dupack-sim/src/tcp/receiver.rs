//! The TCP receiver, sans-IO: data segments in, ACK segments out.
//!
//! Implemented:
//! - Cumulative acknowledgement (RFC 9293 §3.4): `ack = rcv_nxt`.
//! - Delayed ACK (RFC 1122 §4.2.3.2, RFC 5681 §4.2): at least every `every`
//!   full-sized segments, at most `timeout` after the first unacknowledged
//!   one; an immediate ACK for out-of-order data, for a segment that fills
//!   all or part of a gap, and for a duplicate segment.
//! - SACK generation (RFC 2018 §4).
//! - Timestamp echo (RFC 7323 §4.3) and the I&RW tag echo (irw §3).
//! - Delayed Duplicate ACKs (Vaidya et al.; irw §2.2), when `cfg.dda` is set.
//!
//! Choices where the sources leave room:
//! - The application reads in-order data as soon as it arrives, so the
//!   advertised window is always `cfg.window`. The window therefore never
//!   changes while out-of-order data is held, which keeps every ACK sent for
//!   out-of-order data a duplicate ACK in the sense of RFC 5681 §2 (same ack,
//!   same window, no data).
//! - Acceptable data is `[rcv_nxt, rcv_nxt + window)` (RFC 9293 §3.10.7.4);
//!   bytes beyond the right edge are dropped (the rest of the segment is
//!   kept) and the segment is counted in `beyond_window_segments`. A segment
//!   entirely outside the window is still answered with an ACK (RFC 9293
//!   §3.10.7.4: an unacceptable segment elicits an ACK).
//! - A "full-sized" segment has `len >= mss`. Smaller in-order segments arm
//!   the delayed-ACK timer but do not count towards `every`.
//! - A *duplicate* segment is one whose every byte was already received —
//!   below `rcv_nxt` or inside data held out of order. An *out-of-order*
//!   segment starts above `rcv_nxt` and carries at least one new byte.
//! - A *duplicate ACK* here is an ACK whose ack number equals the previous
//!   one sent (initially 0, the ISN), i.e. one that does not advance.
//! - An ACK is built when it is triggered (its timestamp, SACK blocks and
//!   tag describe the state right after the triggering segment) and queued;
//!   the engine drains the queue with `poll_transmit` at the same instant.
//!   Under `AckMode::Every` two segments handled before a poll therefore
//!   still give two ACKs.
//! - The delayed-ACK timer's ACK carries the tag of the most recently
//!   received segment: that is the arrival it reports.
//! - SACK (RFC 2018 §4): the blocks are kept as the current out-of-order
//!   intervals ordered by how recently a segment landed in each. The first
//!   block is the one holding the latest segment; the others follow in
//!   recency order, which is the order they were last reported as first
//!   block. When a segment merges intervals, the merged interval takes the
//!   place of all of them; blocks at or below `rcv_nxt` are dropped.
//! - Timestamps (RFC 7323 §4.3): `TS.Recent` is replaced by a segment's
//!   `TSval` when `TSval >= TS.Recent` and `SEG.SEQ <= Last.ACK.sent`, where
//!   `Last.ACK.sent` is the ack number of the last ACK built. This records
//!   the earliest unacknowledged in-order segment during delayed ACK and
//!   never an out-of-order one, so the sender's RTT measurement covers the
//!   delay (§4.3 cases A–C). Before any `TS.Recent` exists (the first
//!   segment was lost) ACKs echo 0, which the sender must treat as "no echo"
//!   (Linux does the same).
//! - Delayed Duplicate ACKs (DDA), with delay `d = cfg.dda`:
//!   - The first [`DDA_IMMEDIATE_DUPACKS`] duplicate ACKs of an ack number go
//!     at once; the third and later are *held* while out-of-order data is
//!     held (a gap exists). A duplicate ACK with no gap (a duplicate segment
//!     after everything arrived) has nothing to wait for and goes at once,
//!     but it still counts towards the two.
//!   - One timer per gap: it is armed by the first held duplicate ACK, at
//!     `its time + d`, and later ones join the same batch. When it expires
//!     the whole batch is released at that instant, in order, each as it was
//!     built when its segment arrived (same ack number, the SACK blocks,
//!     tag, ECE and `TSecr` of that moment; only `TSval` is the release
//!     time, when the ACK really leaves). Releasing rather than discarding
//!     is Vaidya's scheme: if the hole was a real loss, the sender still
//!     gets the duplicate ACKs it needs for fast retransmit, late by `d`;
//!     and they carry the SACK information they would have carried, so a
//!     SACK sender's scoreboard sees the same sequence, only later.
//!   - After the release, further duplicate ACKs of the same ack number go
//!     at once: the gap has already waited `d`, and holding them again
//!     would stall a sender in fast recovery for `d` per batch.
//!   - Any ACK that advances the ack number (the hole filled, even in part)
//!     cancels the held batch: they would now be stale ACKs below the new
//!     cumulative ACK. The advancing ACK itself goes at once (RFC 5681 §4.2
//!     requires it for gap-filling data anyway, in both ACK modes), and the
//!     count starts afresh for the new ack number, so a later gap gets its
//!     two immediate duplicates again.
//!   - Delayed ACKs: duplicate ACKs only arise from out-of-order, duplicate
//!     or out-of-window segments, which are ACKed at once (RFC 5681 §4.2),
//!     and a duplicate ACK means no in-order data awaits acknowledgement, so
//!     the delayed-ACK timer is never armed while a batch is held. The two
//!     deadlines are still kept apart and `poll_timeout` reports the earlier.
//!   - `acks_sent`/`dupacks_sent` count ACKs that left; a held ACK counts in
//!     `dupacks_delayed` when held and in `dupacks_sent` when released, or in
//!     `dupacks_cancelled` when discarded.

use std::collections::VecDeque;

use crate::scenario::model::{AckMode, ReceiverConfig, SackOptionSize};
use crate::tcp::segment::{SackBlock, SackBlocks, TcpFlags, TcpSegment, MAX_SACK_BLOCKS};
use crate::time::{SimDuration, SimTime};

/// DDA: duplicate ACKs of one ack number sent at once before the rest are
/// held (irw §2.2: "delays generating the third and subsequent dupacks").
pub const DDA_IMMEDIATE_DUPACKS: u32 = 2;

/// Counters kept by a [`Receiver`].
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    /// Data segments received.
    pub segments: u64,
    /// Segments whose every byte had already been received.
    pub duplicate_segments: u64,
    /// Segments starting above `rcv_nxt` that carried new data.
    pub out_of_order_segments: u64,
    /// Segments with bytes beyond the advertised window (those bytes dropped).
    pub beyond_window_segments: u64,
    /// Segments whose IP header carried ECN CE.
    pub ce_segments: u64,
    /// ACKs sent (a DDA-held ACK counts when released).
    pub acks_sent: u64,
    /// ACKs sent that did not advance the ack number.
    pub dupacks_sent: u64,
    /// DDA: duplicate ACKs held back (each counted once, when held).
    pub dupacks_delayed: u64,
    /// DDA: held duplicate ACKs discarded because the ack number advanced.
    pub dupacks_cancelled: u64,
    /// Bytes handed to the application in order (= `rcv_nxt`, ISN 0).
    pub bytes_delivered: u64,
}

/// The receiving half of a simulated connection; see the module docs.
#[derive(Clone, Debug)]
pub struct Receiver {
    window: u64,
    ack_mode: AckMode,
    sack: bool,
    max_sack_blocks: usize,
    /// What the SACK option adds to an ACK's size on the wire.
    sack_option_size: SackOptionSize,
    /// RFC 2883: report a duplicate segment in a D-SACK first block.
    dsack: bool,
    /// The duplicate range the next ACK reports as its D-SACK block.
    dsack_block: Option<(u64, u64)>,
    mss: u32,
    /// Next byte expected in order.
    rcv_nxt: u64,
    /// Out-of-order data: disjoint, non-adjacent `[left, right)` intervals
    /// above `rcv_nxt`, sorted by `left`.
    ooo: Vec<(u64, u64)>,
    /// The same intervals, most recently received into first (RFC 2018 §4).
    recency: Vec<(u64, u64)>,
    /// Full-sized in-order segments not yet acknowledged (delayed ACK).
    unacked_full: u32,
    /// Delayed-ACK deadline, when in-order data awaits acknowledgement.
    delack_at: Option<SimTime>,
    /// Ack number of the last ACK built (RFC 7323 `Last.ACK.sent`).
    last_ack_sent: u64,
    /// Whether the peer sends timestamps (then every ACK carries them).
    ts_on: bool,
    /// RFC 7323 `TS.Recent`.
    ts_recent: Option<SimTime>,
    /// Tag of the most recently received segment (irw §3).
    last_tag: u32,
    /// A CE mark has arrived and not yet been echoed (RFC 3168 §6.1.3). Kept
    /// for the ECN echo, which is not implemented yet.
    ce_pending: bool,
    queue: VecDeque<TcpSegment>,
    /// DDA delay; `None` = off.
    dda: Option<SimDuration>,
    /// Duplicate ACKs built (sent or held) for the ack number `last_ack_sent`.
    dup_count: u32,
    /// DDA: duplicate ACKs held, oldest first.
    held: Vec<TcpSegment>,
    /// DDA: when the held batch is released.
    dda_at: Option<SimTime>,
    /// DDA: a batch for this ack number was already released, so further
    /// duplicates go at once.
    dda_spent: bool,
    stats: ReceiverStats,
}

/// What a data segment turned out to be.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Arrival {
    /// Extended `rcv_nxt` with no out-of-order data held before it arrived.
    InOrder {
        full: bool,
    },
    /// Extended `rcv_nxt` into or across a gap below held data.
    FillsGap,
    OutOfOrder,
    Duplicate,
    /// Entirely at or beyond the right window edge.
    BeyondWindow,
}

impl Receiver {
    /// What the SACK option adds to this receiver's ACKs on the wire (`receiver.sack_option_size`).
    pub fn sack_option_size(&self) -> SackOptionSize {
        self.sack_option_size
    }

    pub fn new(cfg: &ReceiverConfig, mss: u32) -> Self {
        Receiver {
            window: cfg.window,
            ack_mode: cfg.ack,
            sack: cfg.sack,
            max_sack_blocks: (cfg.max_sack_blocks as usize).min(MAX_SACK_BLOCKS),
            sack_option_size: cfg.sack_option_size,
            dsack: cfg.dsack && cfg.sack,
            dsack_block: None,
            mss,
            rcv_nxt: 0,
            ooo: Vec::new(),
            recency: Vec::new(),
            unacked_full: 0,
            delack_at: None,
            last_ack_sent: 0,
            ts_on: false,
            ts_recent: None,
            last_tag: 0,
            ce_pending: false,
            queue: VecDeque::new(),
            dda: cfg.dda,
            dup_count: 0,
            held: Vec::new(),
            dda_at: None,
            dda_spent: false,
            stats: ReceiverStats::default(),
        }
    }

    /// A data segment arrived (`seg.len > 0`). `ce`: the IP header carried
    /// ECN CE. Pure ACKs (`len == 0`) are ignored.
    pub fn on_segment(&mut self, seg: &TcpSegment, ce: bool, now: SimTime) {
        if seg.len == 0 {
            return;
        }
        self.stats.segments += 1;
        // RFC 3168 §6.1.3: echo ECE on every ACK from a CE mark until a
        // segment with CWR arrives; a CWR segment that is itself marked
        // starts a new echo.
        if seg.flags.has(TcpFlags::CWR) {
            self.ce_pending = false;
        }
        if ce {
            self.stats.ce_segments += 1;
            self.ce_pending = true;
        }
        self.last_tag = seg.tag;
        if let Some((tsval, _)) = seg.ts {
            self.ts_on = true;
            // RFC 7323 §4.3 (2).
            let newer = !matches!(self.ts_recent, Some(r) if tsval < r);
            if newer && seg.seq <= self.last_ack_sent {
                self.ts_recent = Some(tsval);
            }
        }

        let arrival = self.accept(seg);
        let immediate = match (self.ack_mode, arrival) {
            (AckMode::Every, _) => true,
            (AckMode::Delayed { timeout, every }, Arrival::InOrder { full }) => {
                // RFC 1122 §4.2.3.2 / RFC 5681 §4.2: ACK at least every
                // `every` full-sized segments, and within `timeout`.
                if full {
                    self.unacked_full += 1;
                }
                if self.unacked_full >= every.max(1) {
                    true
                } else {
                    if self.delack_at.is_none() {
                        self.delack_at = Some(now + timeout);
                    }
                    false
                }
            }
            // RFC 5681 §4.2: out-of-order data and gap-filling data are
            // ACKed at once; so is a duplicate (it tells the sender where we
            // are) and anything outside the window (RFC 9293 §3.10.7.4).
            (AckMode::Delayed { .. }, _) => true,
        };
        if immediate {
            self.send_ack(now);
        }
    }

    /// Place the segment's bytes and classify it.
    fn accept(&mut self, seg: &TcpSegment) -> Arrival {
        let right_edge = self.rcv_nxt.saturating_add(self.window);
        if seg.end() > right_edge {
            self.stats.beyond_window_segments += 1;
        }
        if seg.seq >= right_edge {
            return Arrival::BeyondWindow;
        }
        let start = seg.seq.max(self.rcv_nxt);
        let end = seg.end().min(right_edge);
        if end <= start {
            self.stats.duplicate_segments += 1;
            // RFC 2883 §4 (1): a duplicate below the cumulative ACK.
            self.dsack_block = Some((seg.seq, seg.end().min(self.rcv_nxt)));
            return Arrival::Duplicate;
        }
        if start == self.rcv_nxt {
            let had_gap = !self.ooo.is_empty();
            self.rcv_nxt = end;
            // Pull in any held data that is now contiguous.
            let n = self.ooo.iter().take_while(|&&(l, _)| l <= self.rcv_nxt).count();
            if n > 0 {
                self.rcv_nxt = self.rcv_nxt.max(self.ooo[n - 1].1);
                self.ooo.drain(..n);
            }
            let rcv_nxt = self.rcv_nxt;
            self.recency.retain(|&(_, r)| r > rcv_nxt);
            self.stats.bytes_delivered = self.rcv_nxt;
            return if had_gap { Arrival::FillsGap } else { Arrival::InOrder { full: seg.len >= self.mss } };
        }
        // Out of order: insert [start, end) and merge.
        match self.insert(start, end) {
            Ok(block) => {
                self.stats.out_of_order_segments += 1;
                self.touch(block);
                Arrival::OutOfOrder
            }
            Err(block) => {
                // Already held: a duplicate, but its block is still the one
                // holding the latest segment (RFC 2018 §4).
                self.stats.duplicate_segments += 1;
                self.touch(block);
                // RFC 2883 §4 (2): a duplicate above it, inside a SACKed block.
                self.dsack_block = Some((start, end));
                Arrival::Duplicate
            }
        }
    }

    /// Insert `[start, end)` into the interval set, merging overlapping and
    /// adjacent intervals. Returns the interval now holding it, or
    /// `Err(interval)` if that interval already held every byte. O(log n)
    /// search plus the intervals merged.
    fn insert(&mut self, start: u64, end: u64) -> Result<(u64, u64), (u64, u64)> {
        // First interval that ends at or after `start` (may touch it).
        let i = self.ooo.partition_point(|&(_, r)| r < start);
        if let Some(&(l, r)) = self.ooo.get(i) {
            if l <= start && end <= r {
                return Err((l, r));
            }
        }
        // Intervals i..j overlap or touch [start, end).
        let j = i + self.ooo[i..].iter().take_while(|&&(l, _)| l <= end).count();
        let mut merged = (start, end);
        if j > i {
            merged.0 = merged.0.min(self.ooo[i].0);
            merged.1 = merged.1.max(self.ooo[j - 1].1);
        }
        self.ooo.splice(i..j, std::iter::once(merged));
        Ok(merged)
    }

    /// Make `block` the most recent SACK block, replacing every interval it
    /// now covers (they were merged into it).
    fn touch(&mut self, block: (u64, u64)) {
        self.recency.retain(|&(l, r)| !(block.0 <= l && r <= block.1));
        self.recency.insert(0, block);
    }

    /// Build an ACK for the current state and queue it.
    fn send_ack(&mut self, now: SimTime) {
        let mut sack = SackBlocks::new();
        if self.sack {
            // RFC 2883 §4: the D-SACK block comes first, once, then the usual blocks.
            let dsack = self.dsack_block.take().filter(|_| self.dsack);
            if let Some((left, right)) = dsack {
                sack.push(SackBlock { left, right });
            }
            let room = self.max_sack_blocks - dsack.is_some() as usize;
            for &(left, right) in self.recency.iter().take(room) {
                sack.push(SackBlock { left, right });
            }
        }
        let ack = self.rcv_nxt;
        let ts = self.ts_on.then(|| (now, self.ts_recent.unwrap_or(SimTime::ZERO)));
        let mut flags = TcpFlags(TcpFlags::ACK);
        if self.ce_pending {
            flags.set(TcpFlags::ECE);
        }
        let dup = ack == self.last_ack_sent;
        if dup {
            self.dup_count += 1;
        } else {
            // A new cumulative ACK: held duplicates of the old one are stale.
            self.stats.dupacks_cancelled += self.held.len() as u64;
            self.held.clear();
            self.dda_at = None;
            self.dda_spent = false;
            self.dup_count = 0;
        }
        let seg = TcpSegment {
            seq: 0,
            ack,
            len: 0,
            flags,
            wnd: self.window,
            sack,
            ts,
            tag: self.last_tag,
            is_retransmit: false,
        };
        let hold = dup && !self.ooo.is_empty() && self.dup_count > DDA_IMMEDIATE_DUPACKS && !self.dda_spent;
        match self.dda {
            Some(d) if hold => {
                self.held.push(seg);
                self.stats.dupacks_delayed += 1;
                self.dda_at.get_or_insert(now + d);
            }
            _ => self.transmit(seg),
        }
        self.last_ack_sent = ack;
        // This ACK covers everything received so far.
        self.unacked_full = 0;
        self.delack_at = None;
    }

    /// Queue an ACK for sending now and count it.
    fn transmit(&mut self, seg: TcpSegment) {
        self.stats.acks_sent += 1;
        if seg.ack == self.last_ack_sent {
            self.stats.dupacks_sent += 1;
        }
        self.queue.push_back(seg);
    }

    /// Delayed-ACK and DDA timers; a call before both deadlines is a no-op.
    /// A DDA batch due at the same instant goes before a delayed ACK (it was
    /// built earlier).
    pub fn on_timer(&mut self, now: SimTime) {
        if self.dda_at.is_some_and(|d| now >= d) {
            self.dda_at = None;
            self.dda_spent = true;
            for mut seg in std::mem::take(&mut self.held) {
                if let Some((tsval, _)) = seg.ts.as_mut() {
                    *tsval = now;
                }
                self.transmit(seg);
            }
        }
        if self.delack_at.is_some_and(|d| now >= d) {
            self.send_ack(now);
        }
    }

    /// The next ACK to send now, if any (call repeatedly until `None`).
    pub fn poll_transmit(&mut self, _now: SimTime) -> Option<TcpSegment> {
        self.queue.pop_front()
    }

    /// When `on_timer` next needs to be called.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        match (self.delack_at, self.dda_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Bytes delivered in order to the application (ISN 0).
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    pub fn stats(&self) -> ReceiverStats {
        self.stats
    }

    /// Does the receiver hold byte `seq` (delivered, or queued out of order)?
    /// Ground truth for the metrics; a real sender cannot know this.
    pub fn holds(&self, seq: u64) -> bool {
        if seq < self.rcv_nxt {
            return true;
        }
        let i = self.ooo.partition_point(|&(_, r)| r <= seq);
        self.ooo.get(i).is_some_and(|&(l, _)| l <= seq)
    }

    /// ACKs carry ECE: a CE mark arrived and no CWR since (RFC 3168 §6.1.3).
    /// echo, RFC 3168 §6.1.3).
    pub fn ce_pending(&self) -> bool {
        self.ce_pending
    }
}

#[cfg(test)]
mod tests;
