//! A channel: one direction of a point-to-point link.
//!
//! A packet handed to a channel (a handle into the world's packet pool,
//! `net::packet`, with the header fields the network reads: [`Head`]) is serialised at `rate_bps` if the transmitter is idle,
//! otherwise it waits in the channel's queue. The error model decides its
//! fate (below); a surviving packet leaves the transmitter when its
//! serialisation ends, propagates for `delay` and arrives at the far node.
//! Because every packet of a channel has the same delay, packets in
//! propagation stay in FIFO order and live in a ring buffer here rather than
//! in the event queue.
//!
//! A channel may add a random delay to each frame's propagation
//! ([`Jitter`]): uniform in [0, max], drawn from the channel's own stream,
//! and never reordering — a frame arrives no earlier than the one before it,
//! so the propagation FIFO stays a FIFO.
//!
//! A trace-driven channel (`trace`) replaces serialisation at a rate by the
//! trace's delivery opportunities (`net::trace`): the packet at the head
//! leaves when the opportunities from its arrival at the head on have
//! carried all its bytes. Everything else (queue, error model, delay) is
//! the same.
//!
//! Frames that must go first — link-level retransmissions and NAKs
//! (`net::arq`, irw §4) and a Snoop agent's local retransmissions — wait in
//! a priority FIFO served before the queue discipline. With ARQ, every IP
//! packet put on the wire gets a link sequence number and the ARQ keeps a
//! copy; a finite ARQ window may hold new frames back (the channel then
//! idles with packets queued until the world restarts it).
//!
//! The end of a transmission is an event only when something happens at its
//! instant: the error model destroyed the frame (the loss is recorded then),
//! frames wait behind it, or the channel runs ARQ (which may poll when the
//! queue runs dry). The error model decides a frame's fate when its
//! transmission starts: frames end in the order they start and each draw
//! comes from the channel's own streams, so the draws are those of a
//! decision at the end. Any other end of transmission (a surviving frame
//! with nothing behind it, the common case on an uncongested hop) is applied
//! at its own instant the next time the channel is offered a frame, or at
//! the end of the run ([`Channel::settle`]); a frame offered meanwhile that
//! must wait asks for the event then. This halves the events per hop on
//! links that do not queue.
//!
//! On a plain channel ([`Channel::backlog_ends_lazily`]: no error model, no
//! ARQ or Snoop, no jitter or delivery trace, and nothing observing its
//! queue or its departures) the ends of a busy period are not events
//! either: each queued frame starts when the one before it ends, which
//! only the channel's own state decides, so the channel replays those ends
//! and starts at their own instants ([`Channel::settle`]) whenever it is
//! next touched: a frame offered, the head of its propagation FIFO
//! arriving, the end of the run. Nothing else reads the channel in
//! between, the frame that ended reaches the far end no earlier than the
//! replay (its arrival touches the channel), and a frame started in the
//! replay arrives after it; so every result is that of an event at every
//! end, but the backlogged bottleneck of a dumbbell costs one event per
//! packet instead of two (bench/scenarios/unfairness.toml at N = 10: 18.5 %
//! fewer events).

use super::arq::{Arq, LinkCtl};
use super::error::ErrorModel;
use super::packet::{Ecn, NodeId, PacketPool, PacketRef};
use super::queue::{Qdisc, Verdict, FIFO_START};
use super::snoop::Snoop;
use super::trace::TraceLink;
use crate::engine::rng::{NameHash, StreamRng};
use crate::observe::PcapWriter;
use crate::scenario::model::{LinkSpec, TxTime, WireSpec};
use crate::time::{SimDuration, SimTime, TxClock};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// What a channel carries: an IP packet of the world's pool (with its link
/// sequence number when the channel runs ARQ, 0 otherwise) or a link-layer
/// control frame.
#[derive(Copy, Clone, Debug)]
pub enum Frame {
    Ip { h: Head, lseq: u32 },
    Ctl(LinkCtl),
}

impl Frame {
    /// An IP frame of `h` without a link sequence number.
    pub fn ip(h: Head) -> Frame {
        Frame::Ip { h, lseq: 0 }
    }
}

/// A packet's handle with the header fields the network reads on the way:
/// its size (serialisation, byte limits), its destination (routing) and its
/// ECN field (RED). Copied from the pool once, when the packet enters the
/// network, and carried by queues and wires beside the handle, so that a
/// router forwards a packet, a queue judges it and a transmitter serialises
/// it without reading the packet itself: with thousands of flows the packet
/// has left the caches by then (it waited in a long queue or propagated for
/// milliseconds), and each of those reads was a miss. The pool's copy stays
/// the packet of record; a mark (CE) is written to both.
#[derive(Copy, Clone, Debug)]
pub struct Head {
    pub p: PacketRef,
    pub size: u32,
    pub dst: NodeId,
    ecn: Ecn,
}

impl Head {
    pub fn new(p: PacketRef, pool: &PacketPool) -> Self {
        let pk = &pool[p];
        Head { p, size: pk.size, dst: pk.dst, ecn: pk.ecn }
    }
}

super::queue::queued_by_fields!(Head);

#[derive(Clone, Debug, Default)]
pub struct ChannelStats {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    /// Serialisation time (rate-driven channels only).
    pub busy: SimDuration,
    pub drops_error: u64,
    /// Queue drops: overflow, and RED's early and forced drops.
    pub drops_queue: u64,
    /// Packets the queue marked CE (ECN-RED) instead of dropping.
    pub marks: u64,
    pub max_queue_packets: u64,
    /// ∫ (packets waiting) dt in packet·ns, up to `queue_since`: the
    /// time-averaged queue of the results (ns-2's queue-monitor integrator).
    pub queue_area: u128,
    pub queue_since: SimTime,
    pub queue_len: u64,
    /// Link-layer control frames (NAKs, polls) sent, and their bytes
    /// (included in `packets_sent` and `bytes_sent`).
    pub ctl_frames: u64,
    pub ctl_bytes: u64,
}

impl ChannelStats {
    /// The queue holds `len` packets from `now` on.
    fn queue_changed(&mut self, len: u64, now: SimTime) {
        self.queue_area += u128::from(self.queue_len) * u128::from(now.saturating_since(self.queue_since).as_nanos());
        self.queue_since = now;
        self.queue_len = len;
    }

    /// Mean number of packets waiting over [0, `end`].
    pub fn mean_queue_packets(&self, end: SimTime) -> f64 {
        if end == SimTime::ZERO {
            return 0.0;
        }
        let tail = u128::from(self.queue_len) * u128::from(end.saturating_since(self.queue_since).as_nanos());
        (self.queue_area + tail) as f64 / end.as_nanos() as f64
    }
}

/// The transmitter.
#[derive(Debug, Default)]
pub struct Wire {
    /// A frame is being serialised, until `until`.
    busy: bool,
    until: SimTime,
    /// Its size, and whether it is a link-layer control frame (a surviving
    /// frame may have arrived, and left `propagating`, by the time its
    /// transmission is caught up with).
    size: u32,
    ctl: bool,
    /// Its serialisation time (rate-driven channels: the utilisation statistic).
    tx: SimDuration,
    /// The frame on the wire if the error model destroyed it (it is not in
    /// `propagating`); a surviving frame on the wire is the last of `propagating`.
    doomed: Option<Frame>,
    /// A transmission-done event is pending for the frame on the wire.
    event: bool,
}

#[derive(Debug)]
pub struct Channel {
    /// Index of the link in the scenario.
    pub link: usize,
    /// True for the a→b direction.
    pub fwd: bool,
    pub from: NodeId,
    pub to: NodeId,
    /// Serialisation rate; for a traced channel its mean capacity (reported only).
    pub rate_bps: u64,
    pub delay: SimDuration,
    /// A random extra delay per frame that never reorders (`None`: none).
    pub jitter: Option<Box<Jitter>>,
    /// Delivery opportunities that serve this direction instead of `rate_bps`.
    pub trace: Option<TraceLink>,
    pub queue: Qdisc<Head>,
    pub error: ErrorModel,
    /// Frames served before the queue discipline.
    pub prio: VecDeque<Frame>,
    /// Link-level ARQ of this direction (`None`: plain link).
    pub arq: Option<Box<Arq>>,
    /// Size of a link-layer control frame on this direction (the link's
    /// `arq.nak_bytes`; NAKs may travel a direction without ARQ of its own).
    pub ctl_frame_bytes: u32,
    /// A Snoop agent at `from` caching this direction's data (fwd only).
    pub snoop: Option<Box<Snoop>>,
    pub wire: Wire,
    /// Surviving frames propagating, with their arrival instants, in FIFO
    /// order; the last one may still be on the wire. A frame goes here when
    /// its transmission starts, so that ending it moves nothing.
    pub propagating: VecDeque<(SimTime, Frame)>,
    pub stats: ChannelStats,
    /// Make every end of transmission an event (the reference the lazy
    /// ends are checked against in the engine's tests).
    pub(crate) every_end_an_event: bool,
    /// The ends of a busy period are replayed, not events (module doc);
    /// the world decides, once it has built the channel and what observes
    /// it ([`Channel::backlog_ends_lazily`]).
    pub(crate) lazy_backlog: bool,
    /// Serialisation at `rate_bps`, exact over back-to-back frames unless
    /// `wire.tx_time = "per_frame"`.
    pub(crate) tx_clock: TxClock,
    /// Bytes each frame takes on the wire besides its IP packet (`wire.header`).
    pub(crate) header_bytes: u32,
    /// A packet capture of this link, shared with the other direction
    /// (`None`: not captured): at the link's `a` end, the fwd direction's
    /// packets as their transmission starts, the rev direction's as they arrive.
    pub capture: Option<Arc<Mutex<PcapWriter>>>,
}

/// A random extra propagation delay per frame, uniform in [0, `max`]
/// (`fwd_jitter`, `rev_jitter`; unfairness §VI.A).
#[derive(Debug)]
pub struct Jitter {
    max: SimDuration,
    rng: StreamRng,
    /// The arrival instant of the last frame that survived: no frame arrives before it.
    last_arrival: SimTime,
}

impl Jitter {
    pub fn new(max: SimDuration, rng: StreamRng) -> Self {
        Jitter { max, rng, last_arrival: SimTime::ZERO }
    }

    /// The arrival of a frame that would arrive at `at` without jitter.
    fn arrival(&mut self, at: SimTime) -> SimTime {
        self.last_arrival = self.last_arrival.max(at + self.rng.duration_up_to(self.max));
        self.last_arrival
    }
}

/// Events the world must schedule for a channel.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Wake {
    /// The end of the transmission on the wire, at this instant.
    pub tx_done: Option<SimTime>,
    /// The arrival of a frame that became the head of the propagation FIFO.
    pub arrival: Option<SimTime>,
}

/// What the end of a transmission left to do (see [`Channel::finish_tx`]).
pub struct TxEnd {
    /// Events for the next frame, started at once.
    pub wake: Wake,
    /// The error model destroyed the finished IP packet and no ARQ holds a
    /// copy: it is lost for good (the world frees it).
    pub lost: Option<PacketRef>,
}

/// What happened to a packet handed to a channel.
pub enum Offer {
    /// It is on the wire or waits in the queue.
    Accepted(Wake),
    /// The queue was full: the packet is given back, dropped (the world frees it).
    Dropped(PacketRef),
}

impl Channel {
    /// One direction of link `l` (index `index` in the scenario): a→b if
    /// `fwd`. Every random stream is named after the link and direction, so
    /// a channel's draws never depend on what else the scenario holds.
    pub fn new(l: &LinkSpec, index: usize, fwd: bool, seed: u64, wire: WireSpec) -> Channel {
        let (from, to, err, trace, jitter) = if fwd {
            (l.a, l.b, &l.fwd_error, &l.fwd_trace, l.fwd_jitter)
        } else {
            (l.b, l.a, &l.rev_error, &l.rev_trace, l.rev_jitter)
        };
        let dir = if fwd { "fwd" } else { "rev" };
        let trace = trace.as_ref().map(TraceLink::new);
        // A traced direction's mean capacity stands in for the rate in
        // RED's idle decay and in the results.
        let rate_bps = trace.as_ref().map_or(l.rate_bps, TraceLink::mean_rate_bps);
        // "link/{name}/{dir}", hashed without building the string.
        let base = NameHash::of("link/").then(&l.name).then("/").then(dir);
        let stream = |what: &str| StreamRng::named(seed, base.then("/").then(what));
        Channel {
            link: index,
            fwd,
            from: from as NodeId,
            to: to as NodeId,
            rate_bps,
            delay: l.delay,
            jitter: (jitter > SimDuration::ZERO).then(|| Box::new(Jitter::new(jitter, stream("jitter")))),
            trace,
            queue: Qdisc::from_spec(&l.queue, rate_bps, stream("queue")),
            error: ErrorModel::new(err, base, seed),
            prio: VecDeque::new(),
            arq: l.arq.as_ref().filter(|a| if fwd { a.fwd } else { a.rev }).map(|a| Box::new(Arq::new(a))),
            ctl_frame_bytes: l.arq.as_ref().map_or(0, |a| a.nak_bytes),
            snoop: if fwd { l.snoop.as_ref().map(|sp| Box::new(Snoop::new(sp))) } else { None },
            wire: Wire::default(),
            propagating: VecDeque::with_capacity(FIFO_START),
            stats: ChannelStats::default(),
            every_end_an_event: false,
            lazy_backlog: false,
            tx_clock: match wire.tx_time {
                TxTime::Exact => TxClock::default(),
                TxTime::PerFrame => TxClock::per_frame(),
            },
            header_bytes: wire.header_bytes,
            capture: None,
        }
    }

    pub fn frame_size(&self, f: &Frame) -> u32 {
        match f {
            Frame::Ip { h, .. } => h.size,
            Frame::Ctl(_) => self.ctl_frame_bytes,
        }
    }

    /// A frame of `size` bytes starts service at `now`: when does it leave the transmitter?
    fn service_end(&mut self, size: u32, now: SimTime) -> SimTime {
        // The link-layer header is serialised with the frame (`wire.header`).
        let size = size + self.header_bytes;
        match &mut self.trace {
            Some(t) => t.serve(size, now),
            None => self.tx_clock.serve(u64::from(size), self.rate_bps, now),
        }
    }

    /// Can a new (not priority) packet start now?
    fn new_frame_may_start(&self) -> bool {
        self.arq.as_ref().is_none_or(|a| a.window_open())
    }

    /// Put `f` on the wire at `now`.
    fn start(&mut self, mut f: Frame, pool: &PacketPool, now: SimTime, flow_names: &[String]) -> Wake {
        if let (Some(arq), Frame::Ip { h, lseq }) = (&mut self.arq, &mut f) {
            *lseq = arq.register(&pool[h.p], now);
        }
        self.put_on_wire(f, pool, now, flow_names)
    }

    /// `f` starts its serialisation at `now`. The error model decides its
    /// fate now (link-level control frames are never lost, irw §4); a
    /// survivor goes straight to the tail of the propagation FIFO with its
    /// arrival instant.
    fn put_on_wire(&mut self, f: Frame, pool: &PacketPool, now: SimTime, flow_names: &[String]) -> Wake {
        debug_assert!(!self.wire.busy);
        let (size, ctl) = (self.frame_size(&f), matches!(f, Frame::Ctl(_)));
        let done = self.service_end(size, now);
        let destroyed = match &f {
            Frame::Ip { h, .. } => {
                // Captured at the link's `a` end: the fwd direction as it
                // leaves (here), the rev direction as it arrives (the world).
                if let (Some(cap), true) = (&self.capture, self.fwd) {
                    cap.lock().unwrap_or_else(|e| e.into_inner()).capture(true, &pool[h.p], now);
                }
                self.error.is_lost(&pool[h.p], flow_names)
            }
            Frame::Ctl(_) => false,
        };
        let mut wake = Wake::default();
        if destroyed {
            self.wire.doomed = Some(f);
        } else {
            let arrival = match &mut self.jitter {
                None => done + self.delay,
                Some(j) => j.arrival(done + self.delay),
            };
            self.propagating.push_back((arrival, f));
            if self.propagating.len() == 1 {
                wake.arrival = Some(arrival);
            }
        }
        self.wire.busy = true;
        self.wire.until = done;
        self.wire.event = false;
        self.wire.size = size;
        self.wire.ctl = ctl;
        self.wire.tx = done.saturating_since(now);
        if destroyed
            || self.arq.is_some()
            || !self.prio.is_empty()
            || (self.queue.len_packets() > 0 && !self.lazy_backlog)
            || self.every_end_an_event
        {
            wake.tx_done = self.tx_event();
        }
        wake
    }

    /// Ask for the transmission-done event of the frame on the wire, if
    /// there is one and it was not asked for yet.
    fn tx_event(&mut self) -> Option<SimTime> {
        if !self.wire.busy || self.wire.event {
            return None;
        }
        self.wire.event = true;
        Some(self.wire.until)
    }

    /// The frame being serialised, if any (before the end of its
    /// transmission has been reached).
    pub fn on_wire(&self) -> Option<&Frame> {
        if !self.wire.busy {
            return None;
        }
        self.wire.doomed.as_ref().or(self.propagating.back().map(|(_, f)| f))
    }

    /// Whether this channel's ends of a busy period can be replayed rather
    /// than be events (module doc): nothing but its own state decides when
    /// its queued frames start and what becomes of them. The world also
    /// needs nothing to observe the queue or the departures as they happen
    /// (a time series of the link, a capture), and checks that itself.
    pub(crate) fn backlog_ends_lazily(&self) -> bool {
        self.error.is_none()
            && self.arq.is_none()
            && self.snoop.is_none()
            && self.jitter.is_none()
            && self.trace.is_none()
            && self.capture.is_none()
            && !self.every_end_an_event
    }

    /// Apply the ends of transmission that have no event (see the module
    /// doc) that came by `now`, each at its own instant: with frames queued
    /// behind it (`lazy_backlog`), the next one starts then; otherwise the
    /// transmitter has been idle since. The channel does so before it takes
    /// a frame or delivers one; the world, at the end of the run, so that
    /// the statistics count every transmission that ended.
    pub fn settle(&mut self, pool: &PacketPool, now: SimTime, flow_names: &[String]) {
        while self.wire.busy && !self.wire.event && self.wire.until <= now {
            let at = self.wire.until;
            debug_assert!(self.wire.doomed.is_none() && self.prio.is_empty());
            self.end_tx();
            if self.queue.len_packets() == 0 {
                // Nothing waits: the channel goes idle at `at` (RED's idle period starts).
                self.queue.on_idle(at);
                return;
            }
            debug_assert!(self.lazy_backlog, "frames waited behind an end of transmission with no event");
            let wake = self.next_frame(pool, at, flow_names);
            // The frame that ended is still in the propagation FIFO (its
            // arrival, no earlier than `now`, touches the channel), so the
            // new one needs no arrival event; and it cannot be lost here.
            debug_assert!(wake.arrival.is_none() && wake.tx_done.is_none());
        }
    }

    /// IP packets this channel holds (waiting, on the wire, propagating).
    pub fn packets_held(&self) -> usize {
        let ip = |f: &Frame| matches!(f, Frame::Ip { .. });
        self.queue.len_packets()
            + self.prio.iter().filter(|f| ip(f)).count()
            + self.propagating.iter().filter(|(_, f)| ip(f)).count()
            + self.wire.doomed.iter().filter(|f| ip(f)).count()
    }

    /// The frame on the wire leaves the transmitter: count it; returns it
    /// if the error model destroyed it.
    fn end_tx(&mut self) -> Option<Frame> {
        debug_assert!(self.wire.busy, "end of a transmission without a frame on the wire");
        let size = self.wire.size;
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += size as u64;
        if self.wire.ctl {
            self.stats.ctl_frames += 1;
            self.stats.ctl_bytes += size as u64;
        }
        if self.trace.is_none() {
            self.stats.busy = self.stats.busy + self.wire.tx;
        }
        self.wire.busy = false;
        self.wire.event = false;
        self.wire.doomed.take()
    }

    /// The head of the propagation FIFO reached the far end at `now`: take
    /// it, and say when the next one arrives.
    pub fn arrive(&mut self, now: SimTime) -> (Frame, Option<SimTime>) {
        let (at, f) = self.propagating.pop_front().expect("arrival without a frame");
        debug_assert_eq!(at, now);
        (f, self.propagating.front().map(|&(t, _)| t))
    }

    /// Hand a packet to the channel at `now`. The queue sees every arrival,
    /// also one that finds the transmitter idle (nothing waits then).
    pub fn offer(&mut self, mut w: Head, pool: &mut PacketPool, now: SimTime, flow_names: &[String]) -> Offer {
        self.settle(pool, now, flow_names);
        let p = w.p;
        if !self.wire.busy && self.new_frame_may_start() {
            match self.queue.arrive_idle(&mut w, now) {
                Verdict::Drop => {
                    self.stats.drops_queue += 1;
                    return Offer::Dropped(p);
                }
                Verdict::Mark => {
                    pool[p].ecn = Ecn::Ce;
                    self.stats.marks += 1;
                }
                Verdict::Accept => {}
            }
            return Offer::Accepted(self.start(Frame::ip(w), pool, now, flow_names));
        }
        match self.queue.enqueue(w, now) {
            Ok(marked) => {
                if marked {
                    pool[p].ecn = Ecn::Ce;
                }
                self.stats.marks += u64::from(marked);
                let len = self.queue.len_packets() as u64;
                if len > self.stats.max_queue_packets {
                    self.stats.max_queue_packets = len;
                }
                self.stats.queue_changed(len, now);
                // The packet waits: the end of the transmission now has work
                // to do, unless it is replayed (module doc).
                let tx_done = if self.lazy_backlog { None } else { self.tx_event() };
                Offer::Accepted(Wake { tx_done, arrival: None })
            }
            Err(w) => {
                self.stats.drops_queue += 1;
                Offer::Dropped(w.p)
            }
        }
    }

    /// Queue a frame ahead of the queue discipline (never dropped), or
    /// start it if the transmitter is idle.
    pub fn offer_priority(&mut self, f: Frame, pool: &PacketPool, now: SimTime, flow_names: &[String]) -> Wake {
        self.settle(pool, now, flow_names);
        if !self.wire.busy {
            return self.start_priority(f, pool, now, flow_names);
        }
        self.prio.push_back(f);
        Wake { tx_done: self.tx_event(), arrival: None }
    }

    fn start_priority(&mut self, f: Frame, pool: &PacketPool, now: SimTime, flow_names: &[String]) -> Wake {
        match (&mut self.arq, &f) {
            // An ARQ retransmission keeps its number.
            (Some(arq), Frame::Ip { lseq, .. }) => arq.retransmission_started(*lseq),
            (None, Frame::Ip { .. }) => {}
            (_, Frame::Ctl(_)) => {}
        }
        self.put_on_wire(f, pool, now, flow_names)
    }

    /// If idle with work waiting (an ARQ window just opened), start the
    /// next frame.
    pub fn restart(&mut self, pool: &PacketPool, now: SimTime, flow_names: &[String]) -> Wake {
        self.settle(pool, now, flow_names);
        if self.wire.busy {
            return Wake::default();
        }
        self.next_frame(pool, now, flow_names)
    }

    /// Start the next frame, if any: priority frames first, then the queue
    /// (if the ARQ window allows), then a due ARQ poll.
    fn next_frame(&mut self, pool: &PacketPool, now: SimTime, flow_names: &[String]) -> Wake {
        if let Some(f) = self.prio.pop_front() {
            return self.start_priority(f, pool, now, flow_names);
        }
        if self.new_frame_may_start() {
            if let Some(w) = self.queue.dequeue() {
                self.stats.queue_changed(self.queue.len_packets() as u64, now);
                return self.start(Frame::ip(w), pool, now, flow_names);
            }
        }
        if self.queue.len_packets() == 0 {
            self.queue.on_idle(now);
        }
        match self.arq.as_mut().and_then(|a| a.take_poll()) {
            Some(poll) => self.start_priority(Frame::Ctl(poll), pool, now, flow_names),
            None => Wake::default(),
        }
    }

    /// The transmission-done event of the frame on the wire, at `now`. A
    /// destroyed frame is lost (under ARQ it is not gone yet: the sending
    /// half still holds it, and it counts as lost only if it is given up).
    /// Then the next frame, if any, starts.
    pub fn finish_tx(&mut self, pool: &mut PacketPool, now: SimTime, flow_names: &[String]) -> TxEnd {
        debug_assert!(self.wire.busy && self.wire.event && self.wire.until == now, "TxDone without its frame");
        let mut lost = None;
        if let Some(f) = self.end_tx() {
            self.stats.drops_error += 1;
            if let Frame::Ip { h, .. } = f {
                match self.arq {
                    None => lost = Some(h.p),
                    // The ARQ keeps its own copy to resend.
                    Some(_) => pool.free(h.p),
                }
            }
        }
        let wake = self.next_frame(pool, now, flow_names);
        TxEnd { wake, lost }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::StreamRng;
    use crate::net::packet::Packet;
    use crate::scenario::model::{ArqSpec, ErrorModelSpec, ErrorSpec, PacketSelector, QueueLimit, QueueSpec};
    use crate::time::ms;

    fn channel(arq: Option<ArqSpec>) -> Channel {
        let spec = QueueSpec::DropTail { limit: QueueLimit::Packets(10) };
        Channel {
            link: 0,
            fwd: true,
            from: 0,
            to: 1,
            rate_bps: 8_000_000, // 1 µs per byte
            delay: ms(1),
            jitter: None,
            trace: None,
            queue: Qdisc::from_spec(&spec, 8_000_000, StreamRng::new(1, "q")),
            error: ErrorModel::new(&ErrorSpec::none(), NameHash::of("e"), 1),
            prio: VecDeque::new(),
            arq: arq.as_ref().map(|a| Box::new(Arq::new(a))),
            ctl_frame_bytes: 16,
            snoop: None,
            wire: Wire::default(),
            propagating: VecDeque::with_capacity(FIFO_START),
            stats: ChannelStats::default(),
            every_end_an_event: false,
            lazy_backlog: false,
            tx_clock: TxClock::default(),
            header_bytes: 0,
            capture: None,
        }
    }

    fn arq_spec(window: Option<u32>, poll: bool) -> ArqSpec {
        ArqSpec {
            retry_limit: 3,
            nak_bytes: 16,
            in_order: true,
            nak_timeout: ms(5),
            window,
            discard: None,
            poll,
            fwd: true,
            rev: true,
        }
    }

    /// A channel and the pool its packets live in; packets are named by id.
    struct Rig {
        c: Channel,
        pool: PacketPool,
    }

    fn rig(arq: Option<ArqSpec>) -> Rig {
        Rig { c: channel(arq), pool: PacketPool::default() }
    }

    fn pkt(id: u64) -> Packet {
        Packet::test_segment(id, 0, id * 960, 960)
    }

    impl Rig {
        fn ip_id(&self, f: &Frame) -> Option<u64> {
            match f {
                Frame::Ip { h, .. } => Some(self.pool[h.p].id),
                Frame::Ctl(_) => None,
            }
        }

        fn on_wire_id(&self) -> Option<u64> {
            self.c.on_wire().and_then(|f| self.ip_id(f))
        }

        fn offer_with(&mut self, id: u64, now: SimTime, names: &[String]) -> Wake {
            let r = self.pool.alloc(pkt(id));
            match self.c.offer(Head::new(r, &self.pool), &mut self.pool, now, names) {
                Offer::Accepted(w) => w,
                Offer::Dropped(_) => panic!("packet {id} dropped"),
            }
        }

        fn offer(&mut self, id: u64, now: SimTime) -> Wake {
            self.offer_with(id, now, &[])
        }

        fn offer_priority(&mut self, id: u64, now: SimTime) -> Wake {
            let r = self.pool.alloc(pkt(id));
            self.c.offer_priority(Frame::ip(Head::new(r, &self.pool)), &self.pool, now, &[])
        }

        /// End the transmission on the wire at `now` (its event): (the frame that ended, when the next one ends).
        fn finish(&mut self, now: SimTime) -> (Frame, Option<SimTime>) {
            let f = *self.c.on_wire().expect("a frame on the wire");
            let end = self.c.finish_tx(&mut self.pool, now, &[]);
            (f, end.wake.tx_done)
        }

        fn finish_tx(&mut self, now: SimTime) -> TxEnd {
            self.c.finish_tx(&mut self.pool, now, &[])
        }

        fn restart(&mut self, now: SimTime) -> Wake {
            self.c.restart(&self.pool, now, &[])
        }

        /// The frame arriving at `now`, by id, and when the next one arrives.
        fn arrive(&mut self, now: SimTime) -> (Option<u64>, Option<SimTime>) {
            let (f, next) = self.c.arrive(now);
            (self.ip_id(&f), next)
        }
    }

    /// A packet's head (net::channel::Head) is what the next hop's queue
    /// and router read: a CE mark set by this channel's RED must travel on
    /// the wire in the head as well as in the packet of record, and the
    /// head must name the packet's own size and destination.
    #[test]
    fn the_head_on_the_wire_carries_the_mark_size_and_destination_of_its_packet() {
        use crate::net::packet::Ecn;
        use crate::scenario::model::RedSpec;
        let red = RedSpec {
            min_th: 1,
            max_th: 2,
            limit_packets: 50,
            maxp: 1.0,
            wq: 1.0,
            ecn: true,
            mark_above_max_th: true,
            ..RedSpec::default()
        };
        let mut r = rig(None);
        r.c.queue = Qdisc::from_spec(&QueueSpec::Red(red), 8_000_000, StreamRng::new(1, "q"));
        let t0 = SimTime::ZERO;
        for id in 0..6 {
            let mut p = pkt(id);
            p.ecn = Ecn::Ect0;
            p.dst = 7 + id as u32;
            p.size += id as u32;
            let h = Head::new(r.pool.alloc(p), &r.pool);
            assert!(matches!(r.c.offer(h, &mut r.pool, t0, &[]), Offer::Accepted(_)), "packet {id} accepted");
        }
        let (mut seen, mut marked) = (0, 0);
        while let Some(&Frame::Ip { h, .. }) = r.c.on_wire() {
            let p = &r.pool[h.p];
            assert_eq!((h.size, h.dst), (p.size, p.dst), "packet {}: the head's size and destination", p.id);
            assert_eq!(crate::net::queue::Queued::ecn(&h), p.ecn, "packet {}: the head's ECN field", p.id);
            marked += usize::from(p.ecn == Ecn::Ce);
            seen += 1;
            if r.c.queue.len_packets() == 0 {
                break;
            }
            let until = r.c.wire.until;
            r.finish(until);
        }
        assert_eq!(seen, 6, "every packet went on the wire");
        assert!(marked >= 3, "the arrivals that found two or more waiting were marked, not {marked}");
    }

    #[test]
    fn priority_frames_preempt_queued_packets_but_not_the_one_on_the_wire() {
        let mut r = rig(None);
        let t0 = SimTime::ZERO;
        assert_eq!(r.offer(0, t0).tx_done, None, "alone, frame 0's end has nothing to do");
        assert_eq!(r.offer(1, t0).tx_done, Some(t0 + ms(1)), "frame 1 waits: the end of frame 0 is an event");
        for i in 2..5 {
            assert_eq!(r.offer(i, t0).tx_done, None, "asked for once");
        }
        let w = r.offer_priority(99, t0);
        assert_eq!(w, Wake::default(), "the wire is busy and its end already an event");
        let mut order = vec![];
        let mut now = t0 + ms(1);
        loop {
            let (f, next) = r.finish(now);
            order.push(r.ip_id(&f).unwrap());
            match next {
                Some(t) => now = t,
                None => break,
            }
        }
        assert_eq!(order, vec![0, 99, 1, 2, 3], "the last frame's end asks for no event");
        assert_eq!(r.on_wire_id(), Some(4));
    }

    #[test]
    fn an_arq_channel_numbers_frames_and_polls_when_it_runs_dry() {
        let mut r = rig(Some(arq_spec(None, true)));
        let t0 = SimTime::ZERO;
        assert_eq!(r.offer(0, t0).tx_done, Some(t0 + ms(1)), "under ARQ every end is an event");
        r.offer(1, t0);
        let (f0, next) = r.finish(t0 + ms(1));
        assert!(matches!(f0, Frame::Ip { lseq: 0, .. }));
        let (f1, next) = r.finish(next.unwrap());
        assert!(matches!(f1, Frame::Ip { lseq: 1, .. }));
        let t = next.expect("a poll follows the last data frame");
        let (poll, next) = r.finish(t);
        assert!(matches!(poll, Frame::Ctl(LinkCtl::Poll(2))));
        assert!(next.is_none());
        assert_eq!((r.c.stats.ctl_frames, r.c.stats.ctl_bytes), (1, 16));
        assert_eq!(r.c.stats.bytes_sent, 2016);
    }

    #[test]
    fn a_closed_arq_window_holds_new_frames_until_restart() {
        let mut r = rig(Some(arq_spec(Some(1), false)));
        let t0 = SimTime::ZERO;
        assert_eq!(r.offer(0, t0).tx_done, Some(t0 + ms(1)));
        r.offer(1, t0);
        let (_, next) = r.finish(t0 + ms(1));
        assert!(next.is_none(), "frame 0 unresolved: the window of 1 is closed");
        assert_eq!(r.offer(2, t0 + ms(2)), Wake::default(), "idle but closed: queue");
        assert_eq!(r.c.queue.len_packets(), 2);
        assert_eq!(r.restart(t0 + ms(3)), Wake::default());
        r.c.arq.as_mut().unwrap().resolve(0);
        assert!(r.restart(t0 + ms(4)).tx_done.is_some(), "resolution reopens the window");
        assert_eq!(r.on_wire_id(), Some(1));
    }

    #[test]
    fn a_surviving_frame_is_announced_when_its_transmission_starts() {
        // Propagation (0.5 ms) shorter than serialisation (1 ms): frame 0
        // arrives while frame 1 is still being sent.
        let mut r = rig(None);
        r.c.delay = SimDuration::from_nanos(500_000);
        let t0 = SimTime::ZERO;
        let w = r.offer(0, t0);
        assert_eq!(w, Wake { tx_done: None, arrival: Some(t0 + ms(1) + r.c.delay) });
        assert_eq!(r.offer(1, t0), Wake { tx_done: Some(t0 + ms(1)), arrival: None });
        let end = r.finish_tx(t0 + ms(1));
        assert_eq!(end.wake, Wake { tx_done: None, arrival: None }, "frame 0 heads the FIFO, nothing waits");
        assert_eq!(r.on_wire_id(), Some(1));
        let (f, next) = r.arrive(t0 + ms(1) + r.c.delay);
        assert_eq!(f, Some(0));
        assert_eq!(next, Some(t0 + ms(2) + r.c.delay), "frame 1, still on the wire, is known to survive");
        let (f, next) = r.arrive(t0 + ms(2) + r.c.delay);
        assert_eq!((f, next), (Some(1), None));
        assert!(r.c.propagating.is_empty());
        assert_eq!(r.c.stats.packets_sent, 1, "frame 1's end is not applied yet");
        r.c.settle(&r.pool, t0 + ms(3), &[]);
        assert_eq!((r.c.stats.packets_sent, r.c.stats.busy), (2, ms(2)));
    }

    #[test]
    fn jitter_delays_each_frame_by_at_most_its_maximum_and_never_reorders() {
        // A frame every 1 ms, 1 ms on the wire, 1 ms propagation, up to 3 ms
        // of jitter: without the no-reordering rule, frames would overtake
        // each other.
        let mut r = rig(None);
        r.c.jitter = Some(Box::new(Jitter::new(ms(3), StreamRng::new(7, "j"))));
        let t0 = SimTime::ZERO;
        for k in 0..200 {
            r.offer(k, t0 + ms(k));
        }
        let arrivals: Vec<SimTime> = r.c.propagating.iter().map(|&(t, _)| t).collect();
        assert_eq!(arrivals.len(), 200);
        let mut previous = t0;
        let mut extra = Vec::new();
        for (k, &at) in arrivals.iter().enumerate() {
            // Frame k leaves the wire at (k + 1) ms and would arrive 1 ms
            // later; the jitter adds up to 3 ms, unless the frame before it
            // arrives later still.
            let base = t0 + ms(k as u64 + 2);
            assert!(at >= base && at >= previous, "frame {k} at {at:?}, base {base:?}, previous {previous:?}");
            assert!(at <= (base + ms(3)).max(previous), "frame {k}");
            extra.push(at.saturating_since(base).as_nanos());
            previous = at;
        }
        // The draws spread over the range: some small, some near the maximum.
        assert!(extra.iter().any(|&e| e < 500_000) && extra.iter().any(|&e| e > 2_500_000), "{extra:?}");
        // The FIFO hands the frames over in order.
        let order: Vec<u64> = arrivals.iter().map(|&at| r.arrive(at).0.unwrap()).collect();
        assert_eq!(order, (0..200).collect::<Vec<u64>>());
    }

    #[test]
    fn frames_that_left_the_wire_are_announced_one_after_the_other() {
        // Propagation (1 ms) as long as serialisation.
        let mut r = rig(None);
        let t0 = SimTime::ZERO;
        let arrivals: Vec<Wake> = (0..3).map(|i| r.offer(i, t0)).collect();
        assert_eq!(arrivals[0].arrival, Some(t0 + ms(2)));
        assert!(arrivals[1..].iter().all(|w| w.arrival.is_none()), "one arrival event per channel");
        assert_eq!(r.finish_tx(t0 + ms(1)).wake.arrival, None);
        let (f, next) = r.arrive(t0 + ms(2));
        assert_eq!((f, next), (Some(0), Some(t0 + ms(3))));
        assert_eq!(r.finish_tx(t0 + ms(2)).wake, Wake::default(), "frame 2 is last: no event for its end");
        let (f, next) = r.arrive(t0 + ms(3));
        assert_eq!((f, next), (Some(1), Some(t0 + ms(4))));
    }

    #[test]
    fn an_end_without_event_is_applied_at_its_own_instant_by_the_next_offer() {
        let mut r = rig(None);
        let t0 = SimTime::ZERO;
        assert_eq!(r.offer(0, t0).tx_done, None);
        // Offered after frame 0 left the transmitter (and even after it
        // arrived): the wire is free, frame 1 starts at once.
        let w = r.offer(1, t0 + ms(5));
        assert_eq!(w.tx_done, None);
        assert_eq!(r.on_wire_id(), Some(1));
        assert_eq!(r.c.stats.packets_sent, 1, "frame 0 counted at its end");
        assert_eq!(r.c.stats.queue_len, 0, "nothing ever waited");
        // Offered while frame 1 is on the wire: it waits, and frame 1's end
        // becomes an event at its own instant.
        assert_eq!(r.offer(2, t0 + ms(5) + SimDuration::from_nanos(500_000)).tx_done, Some(t0 + ms(6)));
    }

    #[test]
    fn a_destroyed_frame_ends_in_an_event_that_reports_it_lost() {
        let mut r = rig(None);
        r.c.error = ErrorModel::new(
            &ErrorSpec { model: ErrorModelSpec::Bernoulli { p: 1.0 }, applies_to: PacketSelector::All },
            NameHash::of("e"),
            1,
        );
        let t0 = SimTime::ZERO;
        let names = ["f".to_string()];
        let w = r.offer_with(7, t0, &names);
        assert_eq!(w, Wake { tx_done: Some(t0 + ms(1)), arrival: None }, "no arrival for a destroyed frame");
        assert!(r.c.propagating.is_empty());
        assert_eq!(r.on_wire_id(), Some(7));
        let end = r.c.finish_tx(&mut r.pool, t0 + ms(1), &names);
        assert_eq!(end.lost.map(|p| r.pool[p].id), Some(7));
        assert_eq!((r.c.stats.drops_error, r.c.stats.packets_sent), (1, 1));
        assert!(r.c.on_wire().is_none());
    }

    #[test]
    fn a_plain_channel_replays_the_ends_of_a_busy_period_at_their_own_instants() {
        // Frames 0-3 offered at once and frame 4 at 2.5 ms, 1 ms each on the
        // wire, 1 ms propagation. With an event at every end (the queue
        // non-empty) and with the ends replayed whenever the channel is next
        // touched (as the world touches it: before each arrival), the frames
        // arrive at the same instants and the statistics are the same; the
        // replaying channel asks for no end-of-transmission event.
        let t0 = SimTime::ZERO;
        let at = |us: u64| t0 + SimDuration::from_nanos(us * 1000);
        let mut eager = rig(None);
        let mut lazy = rig(None);
        assert!(!eager.c.lazy_backlog, "the world, not the channel, turns replays on");
        lazy.c.lazy_backlog = lazy.c.backlog_ends_lazily();
        assert!(lazy.c.lazy_backlog);

        // Eager: each end is an event (ends before arrivals at one instant).
        let offered: Vec<Wake> = (0..4).map(|i| eager.offer(i, t0)).collect();
        assert_eq!(offered[0].arrival, Some(at(2000)));
        assert_eq!(offered[1].tx_done, Some(at(1000)));
        assert_eq!(eager.finish_tx(at(1000)).wake.tx_done, Some(at(2000)));
        assert_eq!(eager.finish_tx(at(2000)).wake.tx_done, Some(at(3000)));
        let mut got_eager = vec![(at(2000), eager.arrive(at(2000)))];
        assert_eq!(eager.offer(4, at(2500)), Wake::default(), "the end at 3 ms is already an event");
        assert_eq!(eager.finish_tx(at(3000)).wake.tx_done, Some(at(4000)));
        got_eager.push((at(3000), eager.arrive(at(3000))));
        assert_eq!(eager.finish_tx(at(4000)).wake.tx_done, None, "frame 4 is last");
        for t in [4000, 5000, 6000] {
            got_eager.push((at(t), eager.arrive(at(t))));
        }
        eager.c.settle(&eager.pool, at(9000), &[]);

        // Replayed: no end is an event.
        let offered: Vec<Wake> = (0..4).map(|i| lazy.offer(i, t0)).collect();
        assert_eq!(offered[0], Wake { tx_done: None, arrival: Some(at(2000)) });
        assert!(offered[1..].iter().all(|w| *w == Wake::default()), "{offered:?}");
        let mut got_lazy = Vec::new();
        let mut next = Some(at(2000));
        while let Some(t) = next {
            lazy.c.settle(&lazy.pool, t, &[]);
            let (f, n) = lazy.arrive(t);
            got_lazy.push((t, (f, n)));
            if t == at(2000) {
                // Frame 4 comes between the first and the second arrival.
                assert_eq!(lazy.offer(4, at(2500)), Wake::default());
            }
            next = n;
        }
        lazy.c.settle(&lazy.pool, at(9000), &[]);

        assert_eq!(got_lazy, got_eager);
        let ids: Vec<Option<u64>> = got_lazy.iter().map(|(_, (f, _))| *f).collect();
        assert_eq!(ids, [Some(0), Some(1), Some(2), Some(3), Some(4)]);
        assert_eq!(got_lazy.last().unwrap().0, at(6000), "frame 4 waited for frame 3 (ended at 4 ms)");
        let stats = |c: &Channel| {
            let s = &c.stats;
            (s.packets_sent, s.bytes_sent, s.busy, s.max_queue_packets, s.queue_area, s.mean_queue_packets(at(9000)))
        };
        assert_eq!(stats(&lazy.c), stats(&eager.c));
        assert_eq!(stats(&lazy.c).0, 5);
    }

    #[test]
    fn settling_counts_the_transmissions_ended_by_the_end_of_the_run_only() {
        let mut r = rig(None);
        let t0 = SimTime::ZERO;
        r.offer(0, t0);
        r.c.settle(&r.pool, t0 + SimDuration::from_nanos(500_000), &[]);
        assert_eq!(r.c.stats.packets_sent, 0, "still on the wire at the end");
        r.c.settle(&r.pool, t0 + ms(1), &[]);
        assert_eq!((r.c.stats.packets_sent, r.c.stats.bytes_sent), (1, 1000));
        r.c.settle(&r.pool, t0 + ms(9), &[]);
        assert_eq!(r.c.stats.packets_sent, 1, "applied once");
    }
}
