//! Link-level ARQ: NAK-based selective repeat on one direction of a link
//! (irw §4: "NAK-based selective repeat [IS-707 RLP] as the link level
//! retransmission on the wireless link. Each link level NAK contains 16
//! bytes ... each link level NAK and each TCP data segment retransmitted by
//! the wireless link has priority to send before other segments in the
//! queue").
//!
//! The sending half numbers every IP packet it puts on the wire with a link
//! sequence number (`lseq`, in transmission order) and keeps a copy. The
//! receiving half notices a gap when a later frame arrives, or when a poll
//! tells it how far the sender got, and sends one NAK per missing frame on
//! the reverse direction. A NAK brings a retransmission of that frame ahead
//! of new frames. A NAK that is not answered within `nak_timeout` is sent
//! again; after `retry_limit` NAKs (or once the frame is older than
//! `discard`) the receiver gives the frame up and the packet is lost.
//!
//! Model choices (see docs/scenario.md, "Link-level ARQ"):
//! - A frame is one IP packet (RLC would segment it into PDUs).
//! - Control frames (NAKs, polls) are never lost: irw §4 assumes NAKs are
//!   not lost "because these are sufficiently small".
//! - Tail losses: when the transmitter runs out of frames after sending
//!   data it sends one poll carrying the next `lseq` (RLP's idle frames
//!   play this role), so a lost last frame is NAKed too.
//! - The sender forgets a frame when the receiver has delivered it or given
//!   it up; the simulator knows both halves, so no positive acknowledgements
//!   are modelled. With a finite `window`, the sender stops taking new
//!   frames while the oldest unresolved frame is `window` sequence numbers
//!   behind the next (a span, as RLC's transmission window; eplr Table II),
//!   learning of resolution at once — an optimistic
//!   approximation of RLC's status reports.

use super::packet::Packet;
use crate::scenario::model::ArqSpec;
use crate::time::{SimDuration, SimTime};
use std::collections::{BTreeMap, VecDeque};

/// A link-layer control frame, carried on the direction opposite to the
/// frames it is about (NAK) or on the same one (poll).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LinkCtl {
    /// Please retransmit frame `lseq`.
    Nak(u32),
    /// The sender has sent every frame below this `lseq`.
    Poll(u32),
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArqStats {
    /// Frames retransmitted on a NAK.
    pub retransmissions: u64,
    /// NAKs the receiving half sent.
    pub naks: u64,
    pub polls: u64,
    /// Frames the receiving half gave up on.
    pub given_up: u64,
    /// Frames delivered to IP out of order (`in_order = false`).
    pub out_of_order: u64,
}

#[derive(Debug)]
struct TxEntry {
    p: Packet,
    first_tx: SimTime,
    /// Transmissions so far (the first included).
    tries: u32,
    /// A retransmission is waiting in the priority queue.
    queued: bool,
}

#[derive(Debug)]
struct Missing {
    since: SimTime,
    naks: u32,
    deadline: SimTime,
}

/// What the receiving half asks the world to do.
#[derive(Debug, Default)]
pub struct RxOutput {
    /// Frames (`lseq`, packet) to hand to IP, in this order.
    pub deliver: Vec<(u32, Packet)>,
    /// NAKs to send on the reverse direction.
    pub naks: Vec<u32>,
    /// Frames given up: the world looks their packets up in the sending half.
    pub given_up: Vec<u32>,
}

/// Both halves of the ARQ of one channel.
#[derive(Debug)]
pub struct Arq {
    spec: ArqSpec,
    nak_timeout: SimDuration,
    // Sending half.
    next_lseq: u32,
    /// `lseq` of `buf[0]`.
    base: u32,
    buf: VecDeque<Option<TxEntry>>,
    /// The last frame put on the wire was data (a poll is due when the
    /// transmitter runs dry).
    poll_due: bool,
    // Receiving half.
    /// Lowest `lseq` neither delivered nor given up.
    rcv_next: u32,
    /// One past the highest `lseq` known to exist.
    rcv_high: u32,
    /// Frames above `rcv_next` already received: `Some` while held back for
    /// in-order delivery, `None` once delivered (out-of-order mode).
    held: BTreeMap<u32, Option<Packet>>,
    missing: BTreeMap<u32, Missing>,
    pub stats: ArqStats,
}

impl Arq {
    /// `nak_timeout` is the resolved value (the parser turns "auto" into one).
    pub fn new(spec: &ArqSpec) -> Self {
        Arq {
            spec: spec.clone(),
            nak_timeout: spec.nak_timeout,
            next_lseq: 0,
            base: 0,
            buf: VecDeque::new(),
            poll_due: false,
            rcv_next: 0,
            rcv_high: 0,
            held: BTreeMap::new(),
            missing: BTreeMap::new(),
            stats: ArqStats::default(),
        }
    }

    // ---- sending half -------------------------------------------------

    /// May a new frame go on the wire (the transmission window is open)?
    pub fn window_open(&self) -> bool {
        self.spec.window.is_none_or(|w| self.buf.len() < w as usize)
    }

    /// A new packet goes on the wire: number it and keep a copy.
    pub fn register(&mut self, p: &Packet, now: SimTime) -> u32 {
        let lseq = self.next_lseq;
        self.next_lseq += 1;
        self.buf.push_back(Some(TxEntry { p: *p, first_tx: now, tries: 1, queued: false }));
        self.poll_due = self.spec.poll;
        lseq
    }

    fn entry(&mut self, lseq: u32) -> Option<&mut TxEntry> {
        let i = lseq.checked_sub(self.base)? as usize;
        self.buf.get_mut(i)?.as_mut()
    }

    /// A NAK for `lseq` arrived: the packet to retransmit with priority, if
    /// the frame may still be retransmitted.
    pub fn on_nak(&mut self, lseq: u32, now: SimTime) -> Option<Packet> {
        let (retry_limit, discard) = (self.spec.retry_limit, self.spec.discard);
        let e = self.entry(lseq)?;
        if e.queued || e.tries > retry_limit || discard.is_some_and(|d| now.saturating_since(e.first_tx) >= d) {
            return None;
        }
        e.tries += 1;
        e.queued = true;
        let p = e.p;
        self.stats.retransmissions += 1;
        Some(p)
    }

    /// A retransmission of `lseq` left the priority queue for the wire.
    pub fn retransmission_started(&mut self, lseq: u32) {
        if let Some(e) = self.entry(lseq) {
            e.queued = false;
        }
        self.poll_due = self.spec.poll;
    }

    /// The transmitter has nothing more to send: the poll to send, if due.
    pub fn take_poll(&mut self) -> Option<LinkCtl> {
        if !std::mem::take(&mut self.poll_due) {
            return None;
        }
        self.stats.polls += 1;
        Some(LinkCtl::Poll(self.next_lseq))
    }

    /// The receiving half delivered or gave up `lseq`: forget it. Returns
    /// the packet (the world needs it for a frame given up).
    pub fn resolve(&mut self, lseq: u32) -> Option<Packet> {
        let i = lseq.checked_sub(self.base)? as usize;
        let p = self.buf.get_mut(i)?.take().map(|e| e.p);
        while let Some(None) = self.buf.front() {
            self.buf.pop_front();
            self.base += 1;
        }
        p
    }

    // ---- receiving half -----------------------------------------------

    /// A data frame arrived intact.
    pub fn on_frame(&mut self, lseq: u32, p: Packet, now: SimTime, out: &mut RxOutput) {
        if lseq < self.rcv_next || self.held.contains_key(&lseq) {
            return; // a duplicate: a late answer to a NAK sent twice
        }
        self.learn_high(lseq + 1, Some(lseq), now, out);
        self.missing.remove(&lseq);
        if lseq == self.rcv_next {
            out.deliver.push((lseq, p));
            self.rcv_next += 1;
            self.advance(out);
        } else if self.spec.in_order {
            self.held.insert(lseq, Some(p));
        } else {
            self.stats.out_of_order += 1;
            out.deliver.push((lseq, p));
            self.held.insert(lseq, None);
        }
        self.expire_window(out);
    }

    pub fn on_poll(&mut self, next: u32, now: SimTime, out: &mut RxOutput) {
        self.learn_high(next, None, now, out);
        self.expire_window(out);
    }

    /// Frames below `high` exist: NAK the ones newly found missing
    /// (`own` is the frame that just arrived, if a frame told us).
    fn learn_high(&mut self, high: u32, own: Option<u32>, now: SimTime, out: &mut RxOutput) {
        for m in self.rcv_high.max(self.rcv_next)..high {
            if Some(m) != own && !self.held.contains_key(&m) && !self.missing.contains_key(&m) {
                self.open_gap(m, now, out);
            }
        }
        self.rcv_high = self.rcv_high.max(high);
    }

    fn open_gap(&mut self, m: u32, now: SimTime, out: &mut RxOutput) {
        if self.spec.retry_limit == 0 {
            self.give_up(m, out);
            return;
        }
        self.stats.naks += 1;
        out.naks.push(m);
        self.missing.insert(m, Missing { since: now, naks: 1, deadline: now + self.nak_timeout });
    }

    fn give_up(&mut self, m: u32, out: &mut RxOutput) {
        self.stats.given_up += 1;
        out.given_up.push(m);
        self.missing.remove(&m);
        if m >= self.rcv_next {
            self.held.insert(m, None);
        }
        self.advance(out);
    }

    /// Move `rcv_next` over everything delivered or given up, delivering
    /// held frames in order.
    fn advance(&mut self, out: &mut RxOutput) {
        while let Some(e) = self.held.first_entry() {
            if *e.key() != self.rcv_next {
                break;
            }
            if let Some(p) = e.remove() {
                out.deliver.push((self.rcv_next, p));
            }
            self.rcv_next += 1;
        }
    }

    /// With a finite window, a frame more than `window` behind the newest
    /// cannot be waited for any longer.
    fn expire_window(&mut self, out: &mut RxOutput) {
        let Some(w) = self.spec.window else { return };
        while self.rcv_high.saturating_sub(self.rcv_next) > w {
            let m = self.rcv_next;
            if self.missing.contains_key(&m) {
                self.give_up(m, out);
            } else {
                // Held or not yet known missing: move on regardless.
                if let Some(Some(p)) = self.held.remove(&m) {
                    out.deliver.push((m, p));
                }
                self.rcv_next += 1;
                self.advance(out);
            }
        }
    }

    /// Earliest NAK deadline.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.missing.values().map(|m| m.deadline).min()
    }

    /// NAK deadlines due at `now`: NAK again, or give up.
    pub fn on_timer(&mut self, now: SimTime, out: &mut RxOutput) {
        let due: Vec<u32> = self.missing.iter().filter(|(_, m)| m.deadline <= now).map(|(&k, _)| k).collect();
        for m in due {
            let (limit, discard, t) = (self.spec.retry_limit, self.spec.discard, self.nak_timeout);
            let st = self.missing.get_mut(&m).expect("due");
            let too_old = discard.is_some_and(|d| now.saturating_since(st.since) >= d);
            if st.naks >= limit || too_old {
                self.give_up(m, out);
            } else {
                st.naks += 1;
                st.deadline = now + t;
                self.stats.naks += 1;
                out.naks.push(m);
            }
        }
    }
}

#[cfg(test)]
mod tests;
