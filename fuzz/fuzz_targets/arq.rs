//! The link-level ARQ (both halves of one direction) fed arbitrary events
//! under an arbitrary `ArqSpec` (`in_order`, `poll`, `retry_limit` 0..=7,
//! `window` unlimited or 1..=16, `discard` never or 2..=512 ms,
//! `nak_timeout` 1 ns..64 ms): new frames registered while the window is
//! open, lost or put in flight; frames in flight arriving in any order,
//! once or duplicated, or lost; polls taken and delivered in any order;
//! NAKs answered (a retransmission queued, started later, lost or in
//! flight) or dropped; time passing, with the NAK timers fired at their
//! deadlines. The world acts on every `RxOutput` as the engine does
//! (`resolve` for each frame delivered or given up). Then the frames stop:
//! everything in flight arrives (or, by a header bit, is lost), every poll
//! is delivered, and NAKs are answered while the timers run out.
//!
//! Checked after every call:
//!
//! - no panic;
//! - a frame is delivered or given up at most once, never both; what is
//!   delivered was registered, has arrived, and is the packet registered
//!   under that `lseq`; what is given up had not arrived (a copy arriving
//!   later is ignored); the sending half still holds the packet of each;
//! - with `in_order`, every frame delivered lies below the oldest frame
//!   neither delivered nor given up (so `lseq`s are delivered strictly
//!   increasing); without it, a frame's first arrival delivers it at once
//!   unless it was given up;
//! - no frame is resolved that the receiving half never heard of (by the
//!   frame itself, a later one or a poll);
//! - NAKs only name frames registered, unresolved and never arrived, at
//!   most `retry_limit` per frame (none with 0);
//! - `on_nak` retransmits exactly when the frame is unresolved, not already
//!   queued, retransmitted fewer than `retry_limit` times and younger than
//!   `discard`;
//! - `take_poll` gives `Poll(next lseq)` only with `poll`, and never twice
//!   without a frame put on the wire between;
//! - `window_open` holds exactly when fewer than `window` frames lie from
//!   the oldest unresolved frame to the newest (the RLC window);
//! - no NAK deadline is due once the timers ran (`poll_timeout` after
//!   `on_timer(now)` lies after `now`), none left when every frame is
//!   resolved;
//! - the counters agree (`naks`, `retransmissions`, `polls`, `given_up`,
//!   no `out_of_order` with `in_order`).
//!
//! After the frames stop, within `(retry_limit + 1) × (frames + 1)` timer
//! rounds no NAK deadline remains and every frame the receiving half heard
//! of is resolved (with `poll`, every frame registered); a frame that
//! arrived before it was resolved is delivered, not given up.
#![no_main]
use dupack_sim::net::arq::{Arq, LinkCtl, RxOutput};
use dupack_sim::net::packet::{Ecn, Packet};
use dupack_sim::scenario::model::ArqSpec;
use dupack_sim::tcp::segment::TcpSegment;
use dupack_sim::time::{SimDuration, SimTime};
use libfuzzer_sys::fuzz_target;
use std::collections::VecDeque;

/// Frames registered at most (keeps the quadratic worst cases fast).
const MAX_FRAMES: usize = 256;

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Res {
    Open,
    Delivered,
    GivenUp,
}

struct Frame {
    id: u64,
    first_tx: SimTime,
    res: Res,
    arrived: bool,
    naks: u32,
    retransmissions: u32,
    queued: bool,
}

struct World {
    spec: ArqSpec,
    arq: Arq,
    now: SimTime,
    frames: Vec<Frame>,
    /// Oldest unresolved `lseq` (`frames.len()` when none).
    base: usize,
    /// One past the highest `lseq` the receiving half was told of.
    known: usize,
    /// Highest `lseq` delivered.
    max_delivered: Option<usize>,
    /// One past the highest `lseq` resolved.
    top: usize,
    /// Data frames in flight: `lseq`.
    wire: Vec<u32>,
    /// NAKs in flight on the reverse direction.
    naks: Vec<u32>,
    /// Polls in flight.
    polls: Vec<u32>,
    /// Retransmissions waiting in the priority queue.
    prio: VecDeque<u32>,
    out: RxOutput,
    // Expected counters.
    n_naks: u64,
    n_retx: u64,
    n_polls: u64,
    n_given_up: u64,
}

impl World {
    fn packet(&self, id: u64) -> Packet {
        Packet {
            id,
            flow: 0,
            src: 0,
            dst: 1,
            size: 1040,
            ecn: Ecn::NotEct,
            created: self.now,
            seg: TcpSegment { seq: id * 1000, len: 1000, ..TcpSegment::default() },
        }
    }

    fn window_ok(&self) -> bool {
        self.spec.window.is_none_or(|w| self.frames.len() - self.base < w as usize)
    }

    fn register(&mut self, lost: bool) {
        if !self.arq.window_open() || self.frames.len() >= MAX_FRAMES {
            return;
        }
        let id = 1000 + self.frames.len() as u64;
        let p = self.packet(id);
        let l = self.arq.register(&p, self.now);
        assert_eq!(l as usize, self.frames.len(), "link numbers follow transmission order");
        self.frames.push(Frame {
            id,
            first_tx: self.now,
            res: Res::Open,
            arrived: false,
            naks: 0,
            retransmissions: 0,
            queued: false,
        });
        if !lost {
            self.wire.push(l);
        }
    }

    /// A data frame arrives at the receiving half.
    #[track_caller]
    fn arrive(&mut self, l: u32) {
        let i = l as usize;
        let was_open = self.frames[i].res == Res::Open;
        let first = was_open && !self.frames[i].arrived;
        // A frame arriving after its resolution (a late copy) does not count.
        self.frames[i].arrived |= was_open;
        self.known = self.known.max(i + 1);
        let p = self.packet(self.frames[i].id);
        let mut out = std::mem::take(&mut self.out);
        self.arq.on_frame(l, p, self.now, &mut out);
        self.after(&mut out);
        self.out = out;
        if first && !self.spec.in_order {
            assert_eq!(self.frames[i].res, Res::Delivered, "first arrival of {l} not delivered at once (out of order)");
        }
    }

    fn poll(&mut self, next: u32) {
        self.known = self.known.max(next as usize);
        let mut out = std::mem::take(&mut self.out);
        self.arq.on_poll(next, self.now, &mut out);
        self.after(&mut out);
        self.out = out;
    }

    fn take_poll(&mut self) {
        match self.arq.take_poll() {
            None => {}
            Some(LinkCtl::Poll(n)) => {
                assert!(self.spec.poll, "a poll with poll = false");
                assert_eq!(n as usize, self.frames.len(), "the poll carries the next lseq");
                self.n_polls += 1;
                assert_eq!(self.arq.take_poll(), None, "two polls without a frame between");
                self.polls.push(n);
            }
            Some(c) => panic!("take_poll gave {c:?}"),
        }
    }

    /// A NAK reaches the sending half.
    fn nak(&mut self, l: u32) {
        let i = l as usize;
        let (now, limit) = (self.now, self.spec.retry_limit);
        let young = self.spec.discard.is_none_or(|d| now.saturating_since(self.frames[i].first_tx) < d);
        let got = self.arq.on_nak(l, now);
        let f = &mut self.frames[i];
        let expect = f.res == Res::Open && !f.queued && f.retransmissions < limit && young;
        assert_eq!(
            got.is_some(),
            expect,
            "on_nak({l}) at {now:?}: frame {:?} queued {} retransmitted {}",
            f.res,
            f.queued,
            f.retransmissions
        );
        if let Some(p) = got {
            assert_eq!(p.id, f.id, "retransmission of {l} carries another packet");
            f.retransmissions += 1;
            f.queued = true;
            self.n_retx += 1;
            self.prio.push_back(l);
        }
    }

    /// The retransmission at the head of the priority queue goes on the wire.
    fn start_retransmission(&mut self, lost: bool) {
        let Some(l) = self.prio.pop_front() else { return };
        self.arq.retransmission_started(l);
        self.frames[l as usize].queued = false;
        if !lost {
            self.wire.push(l);
        }
    }

    /// Timers due by `to` fire at their deadlines; then the clock reads `to`.
    #[track_caller]
    fn advance(&mut self, to: SimTime) {
        let mut rounds = 0usize;
        while let Some(t) = self.arq.poll_timeout().filter(|&t| t <= to) {
            rounds += 1;
            assert!(rounds <= 4 * (MAX_FRAMES + 1) * (self.spec.retry_limit as usize + 1), "timers stuck");
            self.timer(t);
        }
        self.now = self.now.max(to);
    }

    #[track_caller]
    fn timer(&mut self, t: SimTime) {
        self.now = self.now.max(t);
        let mut out = std::mem::take(&mut self.out);
        self.arq.on_timer(self.now, &mut out);
        self.after(&mut out);
        self.out = out;
        if let Some(d) = self.arq.poll_timeout() {
            assert!(d > self.now, "deadline {d:?} still due after on_timer({:?})", self.now);
        }
    }

    /// Act on the receiving half's output as the engine does, checking it.
    #[track_caller]
    fn after(&mut self, out: &mut RxOutput) {
        for m in out.naks.drain(..) {
            let i = m as usize;
            assert!(i < self.frames.len(), "NAK for {m}, never registered");
            let f = &mut self.frames[i];
            assert!(f.res == Res::Open, "NAK for {m}, already {:?}", f.res);
            assert!(!f.arrived, "NAK for {m}, which arrived");
            f.naks += 1;
            assert!(f.naks <= self.spec.retry_limit, "NAK {} for {m} > retry_limit {}", f.naks, self.spec.retry_limit);
            self.n_naks += 1;
            self.naks.push(m);
        }
        for m in out.given_up.drain(..) {
            let i = m as usize;
            assert!(i < self.frames.len(), "{m} given up, never registered");
            let f = &mut self.frames[i];
            assert!(f.res == Res::Open, "{m} given up, already {:?}", f.res);
            assert!(!f.arrived, "{m} given up, but it arrived");
            f.res = Res::GivenUp;
            self.top = self.top.max(i + 1);
            self.n_given_up += 1;
            let p = self.arq.resolve(m).expect("the sending half holds a frame given up");
            assert_eq!(p.id, self.frames[i].id, "{m} given up: another packet");
        }
        for (m, p) in out.deliver.drain(..) {
            let i = m as usize;
            assert!(i < self.frames.len(), "{m} delivered, never registered");
            let f = &mut self.frames[i];
            assert!(f.res == Res::Open, "{m} delivered, already {:?}", f.res);
            assert!(f.arrived, "{m} delivered, never arrived");
            assert_eq!(p.id, f.id, "{m} delivered with another packet");
            f.res = Res::Delivered;
            self.top = self.top.max(i + 1);
            self.max_delivered = self.max_delivered.max(Some(i));
            let q = self.arq.resolve(m).expect("the sending half holds a frame delivered");
            assert_eq!(q.id, p.id);
        }
        while self.base < self.frames.len() && self.frames[self.base].res != Res::Open {
            self.base += 1;
        }
        if self.spec.in_order {
            if let Some(d) = self.max_delivered {
                assert!(d < self.base, "in order: {d} delivered while {} is unresolved", self.base);
            }
        }
    }

    /// Checks after every step.
    #[track_caller]
    fn check(&mut self) {
        assert_eq!(
            self.arq.window_open(),
            self.window_ok(),
            "window_open: oldest unresolved {}, next {}",
            self.base,
            self.frames.len()
        );
        if let Some(d) = self.arq.poll_timeout() {
            assert!(d > self.now, "deadline {d:?} due at {:?}, timers not run", self.now);
        }
        if self.base == self.frames.len() {
            assert_eq!(self.arq.poll_timeout(), None, "a NAK deadline with every frame resolved");
        }
        assert!(self.top <= self.known, "frame {} resolved, the receiver heard only of {}", self.top - 1, self.known);
        let s = &self.arq.stats;
        assert_eq!(
            (s.naks, s.retransmissions, s.polls, s.given_up),
            (self.n_naks, self.n_retx, self.n_polls, self.n_given_up),
            "stats (naks, retransmissions, polls, given_up)"
        );
        assert!(!self.spec.in_order || s.out_of_order == 0, "out_of_order with in_order");
    }
}

fn pick(v: &mut Vec<u32>, a: u8) -> Option<u32> {
    (!v.is_empty()).then(|| v.remove(a as usize % v.len()))
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 5 {
        return;
    }
    let (h, ops) = data.split_at(5);
    let spec = ArqSpec {
        retry_limit: u32::from(h[0] % 8),
        nak_bytes: 16,
        in_order: h[1] & 1 != 0,
        nak_timeout: SimDuration(u64::from(h[3]) * 250_000 + 1),
        window: (h[1] & 2 != 0).then_some(u32::from(h[2] % 16) + 1),
        discard: (h[1] & 4 != 0).then(|| SimDuration((u64::from(h[4]) + 1) * 2_000_000)),
        poll: h[1] & 8 != 0,
        fwd: true,
        rev: true,
    };
    let lossy_end = h[1] & 16 != 0;
    let mut w = World {
        arq: Arq::new(&spec),
        spec,
        now: SimTime::ZERO,
        frames: Vec::new(),
        base: 0,
        known: 0,
        max_delivered: None,
        top: 0,
        wire: Vec::new(),
        naks: Vec::new(),
        polls: Vec::new(),
        prio: VecDeque::new(),
        out: RxOutput::default(),
        n_naks: 0,
        n_retx: 0,
        n_polls: 0,
        n_given_up: 0,
    };

    // Each step is 2 bytes: kind, argument.
    for op in ops.chunks(2) {
        let (kind, a) = (op[0], op.get(1).copied().unwrap_or(0));
        match kind % 10 {
            // A new frame, lost on the wire if a & 1.
            0 | 1 => w.register(a & 1 != 0),
            // A frame in flight arrives (any of them: reordering); it stays
            // in flight (a duplicate to come) if a & 0x80.
            2 | 3 => {
                if let Some(l) = pick(&mut w.wire, a) {
                    if a & 0x80 != 0 {
                        w.wire.push(l);
                    }
                    w.arrive(l);
                }
            }
            // A frame in flight is lost.
            4 => {
                pick(&mut w.wire, a);
            }
            // The transmitter runs dry: a poll, if due.
            5 => w.take_poll(),
            // A poll arrives.
            6 => {
                if let Some(n) = pick(&mut w.polls, a) {
                    w.poll(n);
                }
            }
            // A NAK reaches the sender, or (a & 0x80) is never answered.
            7 => {
                if let Some(m) = pick(&mut w.naks, a) {
                    if a & 0x80 == 0 {
                        w.nak(m);
                    }
                }
            }
            // A queued retransmission goes on the wire, lost if a & 1.
            8 => w.start_retransmission(a & 1 != 0),
            // Time passes (up to 650 ms), or (a & 1) up to the next deadline.
            _ => {
                let to = match w.arq.poll_timeout() {
                    Some(t) if a & 1 != 0 => t,
                    _ => w.now + SimDuration(u64::from(a) * u64::from(a) * 10_000),
                };
                w.advance(to);
            }
        }
        w.check();
    }

    // The frames stop. What is in flight arrives (or is lost), every poll
    // is delivered, the transmitter runs dry.
    for l in std::mem::take(&mut w.wire) {
        if !lossy_end {
            w.arrive(l);
        }
    }
    w.take_poll();
    for n in std::mem::take(&mut w.polls) {
        w.poll(n);
    }
    w.check();
    if w.spec.poll {
        assert_eq!(w.known, w.frames.len(), "every poll delivered, yet the receiver does not know every frame");
    }
    // NAKs are answered (the retransmissions lost with `lossy_end`) while
    // the timers run out.
    let bound = (w.spec.retry_limit as usize + 1) * (w.frames.len() + 1);
    let mut rounds = 0;
    loop {
        while !w.naks.is_empty() || !w.prio.is_empty() || !w.wire.is_empty() || !w.polls.is_empty() {
            for m in std::mem::take(&mut w.naks) {
                w.nak(m);
            }
            while !w.prio.is_empty() {
                w.start_retransmission(lossy_end);
            }
            for l in std::mem::take(&mut w.wire) {
                w.arrive(l);
            }
            w.take_poll();
            for n in std::mem::take(&mut w.polls) {
                w.poll(n);
            }
            w.check();
        }
        let Some(t) = w.arq.poll_timeout() else { break };
        rounds += 1;
        assert!(rounds <= bound, "{rounds} timer rounds after the frames stopped ({} frames)", w.frames.len());
        w.timer(t);
        w.check();
    }
    for (l, f) in w.frames.iter().enumerate() {
        if l < w.known {
            assert!(f.res != Res::Open, "frame {l} never resolved (receiver knows {} frames)", w.known);
        }
        if f.arrived {
            assert_eq!(f.res, Res::Delivered, "frame {l} arrived before its resolution but was not delivered");
        }
    }
    if w.known == w.frames.len() {
        assert!(w.arq.window_open(), "window closed with every frame resolved");
    }
});
