//! A channel: one direction of a point-to-point link.
//!
//! A packet handed to a channel is serialised at `rate_bps` if the
//! transmitter is idle, otherwise it waits in the channel's queue. When its
//! serialisation ends the error model decides its fate; a surviving packet
//! propagates for `delay` and arrives at the far node. Because every packet
//! of a channel has the same delay, packets in propagation stay in FIFO
//! order and live in a ring buffer here rather than in the event queue.
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

use super::arq::{Arq, LinkCtl};
use super::error::ErrorModel;
use super::packet::{NodeId, Packet};
use super::queue::{Qdisc, Verdict};
use super::snoop::Snoop;
use super::trace::TraceLink;
use crate::time::{tx_time, SimDuration, SimTime};
use std::collections::VecDeque;

/// What a channel carries: an IP packet (with its link sequence number when
/// the channel runs ARQ, 0 otherwise) or a link-layer control frame.
#[derive(Copy, Clone, Debug)]
pub enum Frame {
    Ip { p: Packet, lseq: u32 },
    Ctl(LinkCtl),
}

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
    /// Delivery opportunities that serve this direction instead of `rate_bps`.
    pub trace: Option<TraceLink>,
    pub queue: Qdisc,
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
    /// A frame is being serialised: the last entry of `propagating`.
    pub busy: bool,
    /// Frames propagating, with their arrival instants, in FIFO order; while
    /// `busy` the last one is still being serialised. The frame on the wire
    /// already sits where it will propagate, so that ending its
    /// transmission moves no bytes (packets are copied by value; see
    /// docs/performance.md).
    pub propagating: VecDeque<(SimTime, Frame)>,
    pub stats: ChannelStats,
}

/// What the end of a transmission left to do (see [`Channel::finish_tx`]).
pub struct TxEnd {
    /// When the next frame, started at once, leaves the transmitter.
    pub next_done: Option<SimTime>,
    /// The finished frame survived and heads the propagation FIFO: its
    /// arrival must be scheduled at this instant.
    pub arrival: Option<SimTime>,
    /// The error model destroyed the finished IP packet and no ARQ holds a
    /// copy: it is lost for good.
    pub lost: Option<Packet>,
}

/// What happened to a packet handed to a channel.
pub enum Offer {
    /// The transmitter was idle: serialisation ends at this instant.
    StartedTx(SimTime),
    Queued,
    /// The queue was full: the packet is given back, dropped.
    Dropped(Packet),
}

impl Channel {
    pub fn frame_size(&self, f: &Frame) -> u32 {
        match f {
            Frame::Ip { p, .. } => p.size,
            Frame::Ctl(_) => self.ctl_frame_bytes,
        }
    }

    /// `f` starts service at `now`: when does it leave the transmitter?
    fn service_end(&mut self, f: &Frame, now: SimTime) -> SimTime {
        let size = self.frame_size(f);
        match &mut self.trace {
            Some(t) => t.serve(size, now),
            None => now + tx_time(size as u64, self.rate_bps),
        }
    }

    /// Can a new (not priority) packet start now?
    fn new_frame_may_start(&self) -> bool {
        self.arq.as_ref().is_none_or(|a| a.window_open())
    }

    /// Put `f` on the wire at `now`; returns when its serialisation ends.
    fn start(&mut self, mut f: Frame, now: SimTime) -> SimTime {
        if let (Some(arq), Frame::Ip { p, lseq }) = (&mut self.arq, &mut f) {
            *lseq = arq.register(p, now);
        }
        self.put_on_wire(f, now)
    }

    /// `f` starts its serialisation at `now`: it goes straight to the tail of
    /// the propagation FIFO with its arrival instant.
    fn put_on_wire(&mut self, f: Frame, now: SimTime) -> SimTime {
        debug_assert!(!self.busy);
        let done = self.service_end(&f, now);
        self.propagating.push_back((done + self.delay, f));
        self.busy = true;
        done
    }

    /// The frame being serialised, if any.
    pub fn on_wire(&self) -> Option<&Frame> {
        self.propagating.back().filter(|_| self.busy).map(|(_, f)| f)
    }

    /// The head of the propagation FIFO reached the far end at `now`: take
    /// it, and say when the next one arrives (if one has left the wire).
    pub fn arrive(&mut self, now: SimTime) -> (Frame, Option<SimTime>) {
        let (at, f) = self.propagating.pop_front().expect("arrival without a frame");
        debug_assert_eq!(at, now);
        let next = match self.propagating.front() {
            Some(&(t, _)) if !(self.busy && self.propagating.len() == 1) => Some(t),
            _ => None,
        };
        (f, next)
    }

    /// Hand a packet to the channel at `now`. The queue sees every arrival,
    /// also one that finds the transmitter idle (nothing waits then).
    pub fn offer(&mut self, mut p: Packet, now: SimTime) -> Offer {
        if !self.busy && self.new_frame_may_start() {
            match self.queue.arrive_idle(&mut p, now) {
                Verdict::Drop => {
                    self.stats.drops_queue += 1;
                    return Offer::Dropped(p);
                }
                Verdict::Mark => self.stats.marks += 1,
                Verdict::Accept => {}
            }
            return Offer::StartedTx(self.start(Frame::Ip { p, lseq: 0 }, now));
        }
        match self.queue.enqueue(p, now) {
            Ok(marked) => {
                self.stats.marks += u64::from(marked);
                let len = self.queue.len_packets() as u64;
                if len > self.stats.max_queue_packets {
                    self.stats.max_queue_packets = len;
                }
                self.stats.queue_changed(len, now);
                Offer::Queued
            }
            Err(p) => {
                self.stats.drops_queue += 1;
                Offer::Dropped(p)
            }
        }
    }

    /// Queue a frame ahead of the queue discipline (never dropped). Returns
    /// when its serialisation ends if the transmitter was idle.
    pub fn offer_priority(&mut self, f: Frame, now: SimTime) -> Option<SimTime> {
        if !self.busy {
            return Some(self.start_priority(f, now));
        }
        self.prio.push_back(f);
        None
    }

    fn start_priority(&mut self, f: Frame, now: SimTime) -> SimTime {
        match (&mut self.arq, &f) {
            // An ARQ retransmission keeps its number.
            (Some(arq), Frame::Ip { lseq, .. }) => arq.retransmission_started(*lseq),
            (None, Frame::Ip { .. }) => {}
            (_, Frame::Ctl(_)) => {}
        }
        self.put_on_wire(f, now)
    }

    /// If idle with work waiting (an ARQ window just opened), start the
    /// next frame; returns when it finishes.
    pub fn restart(&mut self, now: SimTime) -> Option<SimTime> {
        if self.busy {
            return None;
        }
        self.next_frame(now)
    }

    /// The next frame to serialise: priority frames first, then the queue
    /// (if the ARQ window allows), then a due ARQ poll.
    fn next_frame(&mut self, now: SimTime) -> Option<SimTime> {
        if let Some(f) = self.prio.pop_front() {
            return Some(self.start_priority(f, now));
        }
        if self.new_frame_may_start() {
            if let Some(q) = self.queue.dequeue() {
                self.stats.queue_changed(self.queue.len_packets() as u64, now);
                return Some(self.start(Frame::Ip { p: q, lseq: 0 }, now));
            }
        }
        if self.queue.len_packets() == 0 {
            self.queue.on_idle(now);
        }
        let poll = self.arq.as_mut().and_then(|a| a.take_poll())?;
        Some(self.start_priority(Frame::Ctl(poll), now))
    }

    /// Serialisation of the frame on the wire ended at `now`. The error
    /// model decides its fate (link-level control frames are never lost,
    /// irw §4; under ARQ a lost frame is not gone yet: the sending half
    /// still holds it, and it counts as lost only if it is given up). Then
    /// the next frame, if any, starts.
    pub fn finish_tx(&mut self, now: SimTime, flow_names: &[String]) -> TxEnd {
        debug_assert!(self.busy, "TxDone without a frame on the wire");
        self.busy = false;
        let (at, f) = self.propagating.back_mut().expect("TxDone without a frame on the wire");
        let at = *at;
        let size = match f {
            Frame::Ip { p, .. } => p.size,
            Frame::Ctl(_) => self.ctl_frame_bytes,
        };
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += size as u64;
        let destroyed = match f {
            Frame::Ctl(_) => {
                self.stats.ctl_frames += 1;
                self.stats.ctl_bytes += size as u64;
                false
            }
            Frame::Ip { p, .. } => self.error.is_lost(p, flow_names),
        };
        if self.trace.is_none() {
            self.stats.busy = self.stats.busy + tx_time(size as u64, self.rate_bps);
        }
        let mut lost = None;
        let mut arrival = None;
        if destroyed {
            self.stats.drops_error += 1;
            if let Some((_, Frame::Ip { p, .. })) = self.propagating.pop_back() {
                if self.arq.is_none() {
                    lost = Some(p);
                }
            }
        } else if self.propagating.len() == 1 {
            arrival = Some(at);
        }
        let next_done = self.next_frame(now);
        TxEnd { next_done, arrival, lost }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::StreamRng;
    use crate::scenario::model::{ArqSpec, ErrorSpec, QueueLimit, QueueSpec};
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
            trace: None,
            queue: Qdisc::from_spec(&spec, 8_000_000, StreamRng::new(1, "q")),
            error: ErrorModel::new(&ErrorSpec::none(), "e".into(), 1),
            prio: VecDeque::new(),
            arq: arq.as_ref().map(|a| Box::new(Arq::new(a))),
            ctl_frame_bytes: 16,
            snoop: None,
            busy: false,
            propagating: VecDeque::new(),
            stats: ChannelStats::default(),
        }
    }

    fn pkt(id: u64) -> Packet {
        Packet::test_segment(id, 0, id * 960, 960)
    }

    fn ip_id(f: &Frame) -> Option<u64> {
        match f {
            Frame::Ip { p, .. } => Some(p.id),
            Frame::Ctl(_) => None,
        }
    }

    /// End the transmission on the wire at `now`: (the frame that ended, when the next one ends).
    fn finish(c: &mut Channel, now: SimTime) -> (Frame, Option<SimTime>) {
        let f = *c.on_wire().expect("a frame on the wire");
        let end = c.finish_tx(now, &[]);
        (f, end.next_done)
    }

    #[test]
    fn priority_frames_preempt_queued_packets_but_not_the_one_on_the_wire() {
        let mut c = channel(None);
        let t0 = SimTime::ZERO;
        assert!(matches!(c.offer(pkt(0), t0), Offer::StartedTx(_)));
        for i in 1..5 {
            assert!(matches!(c.offer(pkt(i), t0), Offer::Queued));
        }
        assert_eq!(c.offer_priority(Frame::Ip { p: pkt(99), lseq: 0 }, t0), None, "the wire is busy");
        let mut order = vec![];
        let mut now = t0 + ms(1);
        loop {
            let (f, next) = finish(&mut c, now);
            order.push(ip_id(&f).unwrap());
            match next {
                Some(t) => now = t,
                None => break,
            }
        }
        assert_eq!(order, vec![0, 99, 1, 2, 3, 4]);
    }

    #[test]
    fn an_arq_channel_numbers_frames_and_polls_when_it_runs_dry() {
        let spec = ArqSpec {
            retry_limit: 3,
            nak_bytes: 16,
            in_order: true,
            nak_timeout: ms(5),
            window: None,
            discard: None,
            poll: true,
            fwd: true,
            rev: true,
        };
        let mut c = channel(Some(spec));
        let t0 = SimTime::ZERO;
        c.offer(pkt(0), t0);
        c.offer(pkt(1), t0);
        let (f0, next) = finish(&mut c, t0 + ms(1));
        assert!(matches!(f0, Frame::Ip { lseq: 0, .. }));
        let (f1, next) = finish(&mut c, next.unwrap());
        assert!(matches!(f1, Frame::Ip { lseq: 1, .. }));
        let t = next.expect("a poll follows the last data frame");
        let (poll, next) = finish(&mut c, t);
        assert!(matches!(poll, Frame::Ctl(LinkCtl::Poll(2))));
        assert!(next.is_none());
        assert_eq!((c.stats.ctl_frames, c.stats.ctl_bytes), (1, 16));
        assert_eq!(c.stats.bytes_sent, 2016);
    }

    #[test]
    fn a_closed_arq_window_holds_new_frames_until_restart() {
        let spec = ArqSpec {
            retry_limit: 3,
            nak_bytes: 16,
            in_order: true,
            nak_timeout: ms(5),
            window: Some(1),
            discard: None,
            poll: false,
            fwd: true,
            rev: true,
        };
        let mut c = channel(Some(spec));
        let t0 = SimTime::ZERO;
        assert!(matches!(c.offer(pkt(0), t0), Offer::StartedTx(_)));
        assert!(matches!(c.offer(pkt(1), t0), Offer::Queued));
        let (_, next) = finish(&mut c, t0 + ms(1));
        assert!(next.is_none(), "frame 0 unresolved: the window of 1 is closed");
        assert!(matches!(c.offer(pkt(2), t0 + ms(2)), Offer::Queued), "idle but closed: queue");
        assert!(c.restart(t0 + ms(3)).is_none());
        c.arq.as_mut().unwrap().resolve(0);
        assert!(c.restart(t0 + ms(4)).is_some(), "resolution reopens the window");
        assert_eq!(c.on_wire().and_then(ip_id), Some(1));
    }

    #[test]
    fn the_frame_still_on_the_wire_is_never_announced_as_arriving() {
        // Propagation (0.5 ms) shorter than serialisation (1 ms): frame 0
        // arrives while frame 1 is still being sent.
        let mut c = channel(None);
        c.delay = SimDuration::from_nanos(500_000);
        let t0 = SimTime::ZERO;
        assert!(matches!(c.offer(pkt(0), t0), Offer::StartedTx(t) if t == t0 + ms(1)));
        assert!(matches!(c.offer(pkt(1), t0), Offer::Queued));
        let end = c.finish_tx(t0 + ms(1), &[]);
        assert_eq!(end.arrival, Some(t0 + ms(1) + c.delay), "frame 0 heads the FIFO");
        assert_eq!(end.next_done, Some(t0 + ms(2)));
        assert_eq!(c.on_wire().and_then(ip_id), Some(1));
        let (f, next) = c.arrive(t0 + ms(1) + c.delay);
        assert_eq!(ip_id(&f), Some(0));
        assert_eq!(next, None, "frame 1 has not left the transmitter");
        let end = c.finish_tx(t0 + ms(2), &[]);
        assert_eq!((end.arrival, end.next_done), (Some(t0 + ms(2) + c.delay), None));
        assert!(c.on_wire().is_none());
        let (f, next) = c.arrive(t0 + ms(2) + c.delay);
        assert_eq!((ip_id(&f), next), (Some(1), None));
        assert!(c.propagating.is_empty());
    }

    #[test]
    fn frames_that_left_the_wire_are_announced_one_after_the_other() {
        // Propagation (1 ms) as long as serialisation: when frame 0 arrives,
        // frame 1 has just left the wire and frame 2 is on it.
        let mut c = channel(None);
        let t0 = SimTime::ZERO;
        for i in 0..3 {
            c.offer(pkt(i), t0);
        }
        assert_eq!(c.finish_tx(t0 + ms(1), &[]).arrival, Some(t0 + ms(2)));
        assert_eq!(c.finish_tx(t0 + ms(2), &[]).arrival, None, "frame 0 still propagates: its arrival comes first");
        let (f, next) = c.arrive(t0 + ms(2));
        assert_eq!((ip_id(&f), next), (Some(0), Some(t0 + ms(3))));
        let (f, next) = c.arrive(t0 + ms(3));
        assert_eq!((ip_id(&f), next), (Some(1), None), "frame 2 is on the wire");
    }
}
