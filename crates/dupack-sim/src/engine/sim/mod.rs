//! The world and its main loop.
//!
//! The world owns arenas of channels and flows indexed by `u32`; events are
//! a small `Copy` enum, so dispatch is a `match` and a queue entry is a few
//! words. TCP endpoints are sans-IO: after an endpoint handles a segment or a
//! timer, the world drains its `poll_transmit` and re-arms its timer from
//! `poll_timeout`.
//!
//! A channel's packets in propagation stay in FIFO order (equal delay), so
//! each channel keeps at most one arrival event in the queue, for its head
//! packet; the next is scheduled when that one arrives. The heap then holds
//! O(channels + endpoints) entries however many packets are in flight.
//!
//! Timers are re-armed lazily: a new event is scheduled only when the
//! endpoint's deadline moves *earlier* than the pending one. When a pending
//! timer event fires before the (since postponed) deadline, the endpoint's
//! `on_timer` is a no-op and the timer is re-armed for the new deadline.
//! This keeps one heap entry per endpoint instead of one per ACK.
//!
//! The files beside this one: `run.rs` the entry points and the control
//! loop, `observe.rs` what a run records, `collect.rs` the end-of-run
//! invariants and the result tables.

mod collect;
mod observe;
mod run;
#[cfg(test)]
mod tests;

use collect::conclude;
pub use run::{
    run, run_controlled, run_interruptible, run_observed, run_traced, Control, Progress, INTERRUPT_CHECK_EVENTS,
};

use super::queue::{Class, EventKey, EventQueue, TieBreak};
use super::rng::{fnv1a64, splitmix64, StreamRng};
use crate::metrics::result::{FlowResult, LinkResult, MediumResult, RunInfo, RunResult};
use crate::metrics::truth::{SegmentCopies, Truth};
use crate::net::arq::{Arq, LinkCtl, RxOutput};
use crate::net::channel::{Channel, Frame, Head, Offer, Wake};
use crate::net::host::HostDelay;
use crate::net::medium::{self, Medium};
use crate::net::packet::{ChannelId, Ecn, FlowId, NodeId, Packet, PacketPool, PacketRef};
use crate::net::routing::{Routes, NO_ROUTE};
use crate::net::snoop::AckVerdict;
use crate::observe::{FlowWire, Observe, Observed, PcapWriter, Recorder};
use crate::scenario::model::{FlowSpec, LocalRexmit, SackOptionSize, Scenario, TieBreakMode};
use crate::tcp::receiver::Receiver;
use crate::tcp::segment::TcpSegment;
use crate::tcp::sender::{Sender, SenderEvent};
use crate::time::{SimDuration, SimTime};
use std::fmt;

/// A run could not be carried out, or broke an invariant.
#[derive(Clone, Debug, PartialEq)]
pub struct RunError(pub String);
impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for RunError {}

#[derive(Copy, Clone, Debug)]
enum Ev {
    TxDone(ChannelId),
    Arrive(ChannelId),
    /// Timer of flow `.0`'s sender (`false`) or receiver (`true`).
    Timer(FlowId, bool),
    /// The segment at the head of flow `.0`'s host processing delay
    /// (`tcp.overhead`) leaves the host.
    Release(FlowId),
    /// NAK timer of channel `.0`'s ARQ receiving half.
    ArqTimer(ChannelId),
    /// Local retransmission timer of the Snoop agent on channel `.0`, for flow `.1`.
    SnoopTimer(ChannelId, FlowId),
    AppStart(FlowId),
    /// Medium `.0`'s tick of generation `.1` (net::medium: end of a
    /// contention or of a transmission).
    MediumTick(u32, u32),
    /// The head frame propagating on medium `.0` reaches its receiver.
    MediumArrive(u32),
}

/// Bits of the channel, flow or medium index in an event's key.
const INDEX_BITS: u32 = 27;
/// Packets the pool has room for when a run starts (about 45 KiB).
const POOL_START: usize = 256;

/// Events name channels, flows and media in [`INDEX_BITS`] bits (`EventKey`
/// for `Ev`): refuse a scenario with more of any of them.
fn check_event_indices(channels: usize, flows: usize, media: usize) -> Result<(), RunError> {
    let most = channels.max(flows).max(media);
    if most >= 1 << INDEX_BITS {
        return Err(RunError(format!(
            "{most} channels, flows or media: at most {} are supported",
            (1u64 << INDEX_BITS) - 1
        )));
    }
    Ok(())
}

impl EventKey for Ev {
    /// Simultaneous events of one class go by kind, then by the index of
    /// the channel, flow or medium they concern (engine::queue): 3 bits of
    /// kind, 27 of the first index, 32 of the second.
    fn encode(&self) -> u64 {
        let (kind, a, b): (u64, u32, u32) = match *self {
            Ev::TxDone(c) => (0, c, 0),
            Ev::Arrive(c) => (1, c, 0),
            Ev::Timer(f, rx) => (2, f, u32::from(rx)),
            Ev::Release(f) => (2, f, 2),
            Ev::ArqTimer(c) => (3, c, 0),
            Ev::SnoopTimer(c, f) => (4, c, f),
            Ev::AppStart(f) => (5, f, 0),
            Ev::MediumTick(m, gen) => (6, m, gen),
            Ev::MediumArrive(m) => (7, m, 0),
        };
        debug_assert!(a < 1 << INDEX_BITS, "index {a} beyond the event key's {INDEX_BITS} bits");
        kind << 59 | u64::from(a) << 32 | u64::from(b)
    }

    fn decode(key: u64) -> Self {
        let (a, b) = ((key >> 32) as u32 & ((1 << INDEX_BITS) - 1), key as u32);
        match key >> 59 {
            0 => Ev::TxDone(a),
            1 => Ev::Arrive(a),
            2 if b == 2 => Ev::Release(a),
            2 => Ev::Timer(a, b != 0),
            3 => Ev::ArqTimer(a),
            4 => Ev::SnoopTimer(a, b),
            5 => Ev::AppStart(a),
            6 => Ev::MediumTick(a, b),
            _ => Ev::MediumArrive(a),
        }
    }
}

struct Flow {
    sender: Sender,
    receiver: Receiver,
    src: NodeId,
    dst: NodeId,
    start: SimTime,
    app_bytes: Option<u64>,
    /// Pending timer events (the instant they were scheduled for).
    sender_tmr: Option<SimTime>,
    receiver_tmr: Option<SimTime>,
    completed_at: Option<SimTime>,
    /// The sender has seen every byte acknowledged (counted once in `unfinished`).
    acked_all: bool,
    drops_error: u64,
    drops_queue: u64,
    /// Ground truth (metrics::truth).
    copies: SegmentCopies,
    truth: Truth,
    /// Sender counters last looked at, to notice a new fast retransmit or timeout episode.
    seen_fast_retransmits: u64,
    seen_timeout_episodes: u64,
    /// The sender host's processing delay (`tcp.overhead`), if any.
    overhead: Option<Box<HostDelay>>,
}

impl Flow {
    /// Flow `f` of the scenario, before its start: a sender and a receiver
    /// of its variant, nothing sent.
    fn new(f: &FlowSpec, seed: u64) -> Flow {
        Flow {
            sender: Sender::new(&f.tcp, f.variant.spec(), f.receiver.window, f.bytes),
            receiver: Receiver::new(&f.receiver, f.tcp.mss),
            src: f.src as NodeId,
            dst: f.dst as NodeId,
            start: SimTime::ZERO + f.start,
            app_bytes: f.bytes,
            sender_tmr: None,
            receiver_tmr: None,
            completed_at: None,
            acked_all: false,
            drops_error: 0,
            drops_queue: 0,
            copies: SegmentCopies::new(f.tcp.mss),
            truth: Truth::default(),
            seen_fast_retransmits: 0,
            seen_timeout_episodes: 0,
            overhead: (f.tcp.overhead > SimDuration::ZERO).then(|| {
                Box::new(HostDelay::new(f.tcp.overhead, StreamRng::new(seed, &format!("flow/{}/overhead", f.name))))
            }),
        }
    }
}

/// A built simulation, ready to run.
pub struct World {
    q: EventQueue<Ev>,
    channels: Vec<Channel>,
    /// Shared media; their routing edges follow the channels' ids.
    media: Vec<Medium>,
    /// Routing edge `channels.len() + i` → (medium, sending station, receiving node).
    medium_hops: Vec<(u32, u32, NodeId)>,
    flows: Vec<Flow>,
    flow_names: Vec<String>,
    routes: Routes,
    /// Every packet in a channel or being handled (net::packet).
    pool: PacketPool,
    next_packet_id: u64,
    unfinished: usize,
    /// Flows with a finite transfer.
    finite_flows: usize,
    violation: Option<String>,
    /// Flows whose transmissions and sender events are recorded.
    traced: Vec<bool>,
    trace: Vec<TraceRecord>,
    /// Pending ARQ timer event per channel.
    arq_tmr: Vec<Option<SimTime>>,
    /// Whether any channel runs a Snoop agent (otherwise an arriving ACK
    /// is not looked at on its way: `deliver`).
    any_snoop: bool,
    /// Pending Snoop timer events per (channel, flow).
    snoop_tmr: std::collections::HashMap<(ChannelId, FlowId), SimTime>,
    /// Scratch for an ARQ receiver's output (kept to reuse its buffers).
    arq_out: RxOutput,
    /// Time series of the flows and links asked for (observe::series).
    series: Option<Box<Recorder>>,
    /// Packet captures (observe::pcap), in the order asked.
    captures: Vec<std::sync::Arc<std::sync::Mutex<PcapWriter>>>,
}

/// One entry of a packet-level trace (enabled per flow with [`World::trace_flow`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TraceRecord {
    /// The sender handed a data segment to its first link.
    Send { at: SimTime, flow: FlowId, seq: u64, len: u32, retransmit: bool },
    /// A sender event (fast retransmit, timeout, recovery exit).
    Sender { flow: FlowId, event: SenderEvent },
    /// A data segment of the flow was lost on a link (error model or queue).
    Drop { at: SimTime, flow: FlowId, seq: u64, queue: bool },
    /// An ACK reached the sender: its cumulative ACK and SACK blocks, as a
    /// time-sequence graph draws them (tcptrace's ACK line and SACK ticks).
    Ack { at: SimTime, flow: FlowId, ack: u64, sack: crate::tcp::segment::SackBlocks },
}

impl World {
    pub fn new(s: &Scenario, seed: u64) -> Result<World, RunError> {
        check_event_indices(2 * s.links.len(), s.flows.len(), s.media.len())?;
        let mut channels = Vec::with_capacity(2 * s.links.len());
        for (li, l) in s.links.iter().enumerate() {
            channels.push(Channel::new(l, li, true, seed, s.wire));
            channels.push(Channel::new(l, li, false, seed, s.wire));
        }
        let mut ends: Vec<(NodeId, NodeId)> = channels.iter().map(|c| (c.from, c.to)).collect();
        let mut media = Vec::with_capacity(s.media.len());
        let mut medium_hops = Vec::new();
        for (mi, m) in s.media.iter().enumerate() {
            let names: Vec<&str> = m.stations.iter().map(|&n| s.nodes[n].name.as_str()).collect();
            media.push(Medium::new(m, &names, seed));
            let stations: Vec<NodeId> = m.stations.iter().map(|&n| n as NodeId).collect();
            for (from, to) in medium::hops(&stations, m.access_point.map(|a| a as NodeId)) {
                let station = stations.iter().position(|&n| n == from).expect("a hop leaves a station");
                medium_hops.push((mi as u32, station as u32, to));
                ends.push((from, to));
            }
        }
        let mut dests: Vec<NodeId> = Vec::new();
        for f in &s.flows {
            dests.push(f.dst as NodeId);
            dests.push(f.src as NodeId);
        }
        let routes = Routes::compute(s.nodes.len(), &ends, &dests);
        let mut flows = Vec::with_capacity(s.flows.len());
        let mut q = EventQueue::new(match s.tie_break {
            TieBreakMode::Shuffled => TieBreak::Shuffled { salt: splitmix64(seed ^ fnv1a64("engine/tie-break")) },
            TieBreakMode::Identity => TieBreak::Identity,
        });
        for (i, f) in s.flows.iter().enumerate() {
            // The parser refuses a flow between disconnected nodes; a
            // scenario built in code is checked here.
            for (a, b) in [(f.src, f.dst), (f.dst, f.src)] {
                if routes.next_hop(a as NodeId, b as NodeId) == NO_ROUTE {
                    return Err(RunError(format!(
                        "flow '{}': no route from '{}' to '{}'",
                        f.name, s.nodes[a].name, s.nodes[b].name
                    )));
                }
            }
            let flow = Flow::new(f, seed);
            q.schedule(flow.start, Class::AppStart, Ev::AppStart(i as FlowId));
            flows.push(flow);
        }
        let unfinished = flows.iter().filter(|f| f.app_bytes.is_some()).count();
        let n_channels = channels.len();
        let any_snoop = channels.iter().any(|c| c.snoop.is_some());
        let mut w = World {
            q,
            channels,
            media,
            medium_hops,
            flows,
            flow_names: s.flows.iter().map(|f| f.name.clone()).collect(),
            routes,
            // The packets alive at once in most runs (a full 150-packet
            // buffer and a window in flight); grown from empty, the pool
            // was copied at every doubling, about 1 % of a short run.
            pool: PacketPool::with_capacity(POOL_START),
            next_packet_id: 0,
            unfinished,
            finite_flows: unfinished,
            violation: None,
            traced: vec![false; s.flows.len()],
            trace: Vec::new(),
            arq_tmr: vec![None; n_channels],
            any_snoop,
            snoop_tmr: Default::default(),
            arq_out: RxOutput::default(),
            series: None,
            captures: Vec::new(),
        };
        // What observes a channel is added later (`observe`), and turns this off.
        for c in &mut w.channels {
            c.lazy_backlog = c.backlog_ends_lazily();
        }
        Ok(w)
    }

    /// Run until `limit` or, if `stop_when_done`, until every finite transfer completed.
    /// Returns the end instant and whether everything finished.
    pub fn run_until(&mut self, limit: SimTime, stop_when_done: bool) -> (SimTime, bool) {
        loop {
            if let Some(end) = self.run_events(limit, stop_when_done, u64::MAX) {
                return end;
            }
        }
    }

    /// Process at most `budget` events toward the same end as [`World::run_until`]:
    /// `Some((end, all_done))` once the run is over, `None` if the budget ran out
    /// first. Stopping and resuming does not change the result.
    pub fn run_events(&mut self, limit: SimTime, stop_when_done: bool, budget: u64) -> Option<(SimTime, bool)> {
        let any_finite = self.finite_flows > 0;
        for _ in 0..budget {
            let Some((now, ev)) = self.q.pop_until(limit) else { break };
            match ev {
                Ev::TxDone(c) => self.on_tx_done(c, now),
                Ev::Arrive(c) => self.on_arrive(c, now),
                Ev::Timer(f, rx) => self.on_timer(f, rx, now),
                Ev::Release(f) => self.on_release(f, now),
                Ev::ArqTimer(c) => self.on_arq_timer(c, now),
                Ev::SnoopTimer(c, f) => self.on_snoop_timer(c, f, now),
                Ev::AppStart(f) => {
                    self.flows[f as usize].sender.start();
                    self.service(f, false, now);
                }
                Ev::MediumTick(m, gen) => self.on_medium_tick(m, gen, now),
                Ev::MediumArrive(m) => self.on_medium_arrive(m, now),
            }
            if self.violation.is_some() {
                return Some((now, false));
            }
            if stop_when_done && any_finite && self.unfinished == 0 {
                return Some((now, true));
            }
        }
        match self.q.peek_time() {
            Some(t) if t <= limit => None,
            _ => Some((limit, any_finite && self.unfinished == 0)),
        }
    }

    /// Forward the packet of `h` from `from` toward its destination, read
    /// from the handle (net::channel::Head), not from the packet.
    fn send(&mut self, h: Head, from: NodeId, now: SimTime) {
        let c = self.routes.next_hop(from, h.dst);
        debug_assert_ne!(c, NO_ROUTE, "routes were checked when the world was built");
        if c as usize >= self.channels.len() {
            // Media keep their frames by value.
            let p = self.pool.take(h.p);
            return self.send_medium(c as usize - self.channels.len(), p, now);
        }
        if let Some(snoop) = &mut self.channels[c as usize].snoop {
            let p = &self.pool[h.p];
            if p.seg.is_data() {
                snoop.on_data(p, now);
                let flow = p.flow;
                self.arm_snoop(c, flow, now);
            }
        }
        self.offer(c, h, now);
    }

    /// Hand the packet of `h` to channel `c`'s queue discipline.
    fn offer(&mut self, c: ChannelId, h: Head, now: SimTime) {
        match self.channels[c as usize].offer(h, &mut self.pool, now, &self.flow_names) {
            Offer::Accepted(wake) => self.wake(c, wake),
            Offer::Dropped(r) => self.lose(r, now, true),
        }
        self.probe_channel(c, now);
    }

    /// Record channel `c`'s queue and counters if its series is kept.
    fn probe_channel(&mut self, c: ChannelId, now: SimTime) {
        if let Some(rec) = &mut self.series {
            let ch = &self.channels[c as usize];
            let st = &ch.stats;
            let values = [ch.queue.len_packets() as u64, st.drops_queue, st.drops_error, st.marks];
            rec.sample_channel(c as usize, values, now);
        }
    }

    /// Packet `r` was lost on the way (`queue`: refused by a queue; otherwise
    /// destroyed by an error model): count and record it, and free it.
    fn lose(&mut self, r: PacketRef, now: SimTime, queue: bool) {
        let p = self.pool.take(r);
        self.count_loss(&p, now, queue);
    }

    /// [`World::lose`] for a packet held by value (by a medium or an ARQ).
    fn count_loss(&mut self, p: &Packet, now: SimTime, queue: bool) {
        let f = &mut self.flows[p.flow as usize];
        if queue {
            f.drops_queue += 1;
        } else {
            f.drops_error += 1;
        }
        self.record_drop(p, now, queue);
    }

    /// Schedule the events channel `c` asked for. One arrival event per
    /// channel at a time: the frames propagate in FIFO order, so only the
    /// head needs to be in the event queue.
    fn wake(&mut self, c: ChannelId, w: Wake) {
        if let Some(t) = w.tx_done {
            self.q.schedule(t, Class::TxDone, Ev::TxDone(c));
        }
        if let Some(at) = w.arrival {
            self.q.schedule(at, Class::Arrival, Ev::Arrive(c));
        }
    }

    /// Queue `f` ahead of everything else on channel `c`.
    fn send_priority(&mut self, c: ChannelId, f: Frame, now: SimTime) {
        let wake = self.channels[c as usize].offer_priority(f, &self.pool, now, &self.flow_names);
        self.wake(c, wake);
        self.probe_channel(c, now);
    }

    fn on_tx_done(&mut self, c: ChannelId, now: SimTime) {
        let end = self.channels[c as usize].finish_tx(&mut self.pool, now, &self.flow_names);
        self.wake(c, end.wake);
        if let Some(r) = end.lost {
            self.lose(r, now, false);
        }
        self.probe_channel(c, now);
    }

    fn on_arrive(&mut self, c: ChannelId, now: SimTime) {
        let ch = &mut self.channels[c as usize];
        // Frames started by a replayed end of transmission join the FIFO
        // behind this one (net::channel).
        ch.settle(&self.pool, now, &self.flow_names);
        let (f, next) = ch.arrive(now);
        if let Some(next) = next {
            self.q.schedule(next, Class::Arrival, Ev::Arrive(c));
        }
        if let (Some(cap), false, Frame::Ip { h, .. }) = (&ch.capture, ch.fwd, &f) {
            cap.lock().unwrap_or_else(|e| e.into_inner()).capture(false, &self.pool[h.p], now);
        }
        match f {
            Frame::Ip { h, lseq } => {
                if ch.arq.is_some() {
                    // The ARQ receiving half keeps frames by value.
                    let p = self.pool.take(h.p);
                    self.arq_rx(c, now, |arq, out| arq.on_frame(lseq, p, now, out));
                } else {
                    self.deliver(c, h, now);
                }
            }
            // A NAK travels opposite to the frames it names.
            Frame::Ctl(LinkCtl::Nak(m)) => {
                let data = c ^ 1;
                if let Some(p) = self.channels[data as usize].arq.as_mut().and_then(|a| a.on_nak(m, now)) {
                    let r = self.pool.alloc(p);
                    self.send_priority(data, Frame::Ip { h: Head::new(r, &self.pool), lseq: m }, now);
                }
            }
            Frame::Ctl(LinkCtl::Poll(next)) => self.arq_rx(c, now, |arq, out| arq.on_poll(next, now, out)),
        }
    }

    /// Let channel `c`'s ARQ receiving half act (`act`, if the channel runs
    /// ARQ), then carry out what it asked for. The output buffers are the
    /// world's, lent out and put back, so that no event allocates.
    fn arq_rx(&mut self, c: ChannelId, now: SimTime, act: impl FnOnce(&mut Arq, &mut RxOutput)) {
        let mut out = std::mem::take(&mut self.arq_out);
        if let Some(arq) = self.channels[c as usize].arq.as_mut() {
            act(arq, &mut out);
        }
        self.after_arq_rx(c, &mut out, now);
        self.arq_out = out;
    }

    /// Carry out what channel `c`'s ARQ receiving half asked for.
    fn after_arq_rx(&mut self, c: ChannelId, out: &mut RxOutput, now: SimTime) {
        let resolved = !out.deliver.is_empty() || !out.given_up.is_empty();
        for m in out.naks.drain(..) {
            self.send_priority(c ^ 1, Frame::Ctl(LinkCtl::Nak(m)), now);
        }
        for m in out.given_up.drain(..) {
            if let Some(p) = self.channels[c as usize].arq.as_mut().and_then(|a| a.resolve(m)) {
                self.count_loss(&p, now, false);
            }
        }
        for (m, p) in out.deliver.drain(..) {
            if let Some(a) = self.channels[c as usize].arq.as_mut() {
                a.resolve(m);
            }
            let r = self.pool.alloc(p);
            self.deliver(c, Head::new(r, &self.pool), now);
            if self.violation.is_some() {
                return;
            }
        }
        // A finite window may have been holding new frames back.
        if resolved {
            let wake = self.channels[c as usize].restart(&self.pool, now, &self.flow_names);
            self.wake(c, wake);
            self.probe_channel(c, now);
        }
        self.arm_arq(c, now);
    }

    fn arm_arq(&mut self, c: ChannelId, now: SimTime) {
        let Some(want) = self.channels[c as usize].arq.as_ref().and_then(|a| a.poll_timeout()) else { return };
        let pending = &mut self.arq_tmr[c as usize];
        if pending.is_none_or(|p| want < p) {
            let d = want.max(now);
            *pending = Some(d);
            self.q.schedule(d, Class::Timer, Ev::ArqTimer(c));
        }
    }

    fn on_arq_timer(&mut self, c: ChannelId, now: SimTime) {
        if self.arq_tmr[c as usize] != Some(now) {
            return;
        }
        self.arq_tmr[c as usize] = None;
        debug_assert!(self.channels[c as usize].arq.is_some(), "ARQ timer on a channel without ARQ");
        self.arq_rx(c, now, |arq, out| arq.on_timer(now, out));
    }

    fn arm_snoop(&mut self, c: ChannelId, f: FlowId, now: SimTime) {
        let Some(want) = self.channels[c as usize].snoop.as_ref().and_then(|s| s.deadline(f)) else { return };
        let pending = self.snoop_tmr.get(&(c, f)).copied();
        if pending.is_none_or(|p| want < p) {
            let d = want.max(now);
            self.snoop_tmr.insert((c, f), d);
            self.q.schedule(d, Class::Timer, Ev::SnoopTimer(c, f));
        }
    }

    fn on_snoop_timer(&mut self, c: ChannelId, f: FlowId, now: SimTime) {
        if self.snoop_tmr.get(&(c, f)) != Some(&now) {
            return;
        }
        self.snoop_tmr.remove(&(c, f));
        if let Some(p) = self.channels[c as usize].snoop.as_mut().and_then(|s| s.on_timer(f, now)) {
            self.local_retransmit(c, p, now);
        }
        self.arm_snoop(c, f, now);
    }

    /// A Snoop agent resends a cached segment: a new copy in the network.
    fn local_retransmit(&mut self, c: ChannelId, mut p: Packet, now: SimTime) {
        p.id = self.next_packet_id;
        self.next_packet_id += 1;
        self.flows[p.flow as usize].copies.sent(p.seg.seq);
        let ahead = self.channels[c as usize].snoop.as_ref().is_none_or(|s| s.local_rexmit() == LocalRexmit::Priority);
        let h = Head::new(self.pool.alloc(p), &self.pool);
        if ahead {
            self.send_priority(c, Frame::ip(h), now);
        } else {
            // Straight to the queue, not through `send`: the agent must not
            // take its own retransmission for the sender's.
            self.offer(c, h, now);
        }
    }

    /// Packet `r` came off channel `c` at its far node: forward it, or hand
    /// it to its endpoint.
    fn deliver(&mut self, c: ChannelId, h: Head, now: SimTime) {
        let node = self.channels[c as usize].to;
        // An ACK coming back over a snooped link passes the agent. (The
        // packet itself is read only then: see `Head`.)
        if self.any_snoop
            && h.dst != node
            && c & 1 == 1
            && self.channels[(c ^ 1) as usize].snoop.is_some()
            && !self.pool[h.p].seg.is_data()
        {
            let (r, p) = (h.p, &self.pool[h.p]);
            let data = c ^ 1;
            let flow = p.flow;
            let verdict = self.channels[data as usize].snoop.as_mut().expect("snoop").on_ack(p, now);
            self.arm_snoop(data, flow, now);
            match verdict {
                AckVerdict::Forward => {}
                AckVerdict::Discard => return self.pool.free(r),
                AckVerdict::Retransmit(q) => {
                    self.pool.free(r);
                    self.local_retransmit(data, q, now);
                    return;
                }
            }
        }
        self.arrive_at(h, node, now);
    }

    /// The packet of `h` reached `node`: forward it, or hand it to its
    /// endpoint (which is its last holder).
    fn arrive_at(&mut self, h: Head, node: NodeId, now: SimTime) {
        if h.dst != node {
            self.send(h, node, now);
            return;
        }
        let r = h.p;
        let p = &self.pool[r];
        let fi = p.flow;
        let f = &mut self.flows[fi as usize];
        if p.seg.is_data() {
            if let Some(n) = f.app_bytes {
                if p.seg.end() > n {
                    self.violation = Some(format!(
                        "flow '{}': received bytes {}..{} beyond the {} the application wrote",
                        self.flow_names[fi as usize],
                        p.seg.seq,
                        p.seg.end(),
                        n
                    ));
                    self.pool.free(r);
                    return;
                }
            }
            f.copies.gone(p.seg.seq);
            f.receiver.on_segment(&p.seg, p.ecn == Ecn::Ce, now);
            if f.completed_at.is_none() && f.app_bytes == Some(f.receiver.rcv_nxt()) {
                f.completed_at = Some(now);
            }
            self.pool.free(r);
            self.service(fi, true, now);
        } else {
            if self.traced[fi as usize] {
                let (ack, sack) = (p.seg.ack, p.seg.sack);
                self.trace.push(TraceRecord::Ack { at: now, flow: fi, ack, sack });
            }
            f.sender.on_segment(&p.seg, now);
            self.pool.free(r);
            self.service(fi, false, now);
        }
    }

    fn send_medium(&mut self, hop: usize, p: Packet, now: SimTime) {
        let (m, station, _) = self.medium_hops[hop];
        let (accepted, tick) = self.media[m as usize].offer(station as usize, p, now);
        if let Some((at, gen)) = tick {
            self.q.schedule(at, Class::TxDone, Ev::MediumTick(m, gen));
        }
        if let Err(p) = accepted {
            self.count_loss(&p, now, true);
        }
    }

    fn on_medium_tick(&mut self, m: u32, gen: u32, now: SimTime) {
        let medium = &mut self.media[m as usize];
        let out = medium.on_tick(gen, now);
        if let Some((at, gen)) = out.next {
            self.q.schedule(at, Class::TxDone, Ev::MediumTick(m, gen));
        }
        if let Some(at) = out.arrival {
            self.q.schedule(at, Class::Arrival, Ev::MediumArrive(m));
        }
        // Collided or corrupted frames the MAC gave up: losses on the way,
        // like an error model's.
        for p in medium.take_dropped() {
            self.count_loss(&p, now, false);
        }
    }

    fn on_medium_arrive(&mut self, m: u32, now: SimTime) {
        let (p, from, next) = self.media[m as usize].pop_arrival(now);
        if let Some(at) = next {
            self.q.schedule(at, Class::Arrival, Ev::MediumArrive(m));
        }
        // The receiving station is the next hop the sender routed the frame to.
        let edge = self.routes.next_hop(from, p.dst) as usize;
        let (_, _, to) = self.medium_hops[edge - self.channels.len()];
        let r = self.pool.alloc(p);
        self.arrive_at(Head::new(r, &self.pool), to, now);
    }

    /// The segment at the head of flow `fi`'s host delay leaves the host.
    fn on_release(&mut self, fi: FlowId, now: SimTime) {
        let f = &mut self.flows[fi as usize];
        let h = f.overhead.as_mut().expect("a release event of a flow with a host delay");
        let (r, next) = h.release();
        if let Some(next) = next {
            self.q.schedule(next, Class::Arrival, Ev::Release(fi));
        }
        let src = f.src;
        self.send(Head::new(r, &self.pool), src, now);
    }

    fn on_timer(&mut self, fi: FlowId, rx: bool, now: SimTime) {
        let f = &mut self.flows[fi as usize];
        let pending = if rx { &mut f.receiver_tmr } else { &mut f.sender_tmr };
        if *pending != Some(now) {
            return; // a later copy of a timer re-armed earlier; that one already ran
        }
        *pending = None;
        if rx {
            f.receiver.on_timer(now);
        } else {
            f.sender.on_timer(now);
        }
        self.service(fi, rx, now);
    }

    fn record_drop(&mut self, p: &Packet, now: SimTime, queue: bool) {
        if p.seg.is_data() {
            let f = &mut self.flows[p.flow as usize];
            f.copies.gone(p.seg.seq);
            if p.seg.is_retransmit {
                f.truth.lost_retransmissions += 1;
            }
        }
        if self.traced[p.flow as usize] && p.seg.is_data() {
            self.trace.push(TraceRecord::Drop { at: now, flow: p.flow, seq: p.seg.seq, queue });
        }
    }

    /// After the sender handled an ACK or its timer: judge a new fast
    /// retransmit or timeout episode against what really happened
    /// (definitions in metrics::truth).
    fn judge_sender(&mut self, fi: FlowId) {
        let f = &mut self.flows[fi as usize];
        let st = f.sender.stats();
        let (fr, episodes) = (st.fast_retransmits, st.timeout_episodes);
        let una = f.sender.snd_una();
        let lost = !f.copies.in_network(una) && !f.receiver.holds(una);
        if fr > f.seen_fast_retransmits {
            // Every fast retransmit resends snd_una, before it leaves the sender.
            if !lost {
                f.truth.false_fast_retransmits += 1;
            }
            f.seen_fast_retransmits = fr;
        }
        if episodes > f.seen_timeout_episodes {
            let after = (f.sender.snd_max() - una).div_ceil(f.sender.mss()).saturating_sub(1);
            if lost && after < f.sender.dupthresh() as u64 {
                f.truth.wasted_timeouts += 1;
            }
            f.seen_timeout_episodes = episodes;
        }
        f.copies.advance(una);
    }

    /// Drain an endpoint's transmissions and re-arm its timer.
    fn service(&mut self, fi: FlowId, rx: bool, now: SimTime) {
        if !rx {
            self.judge_sender(fi);
        }
        let traced = !rx && self.traced[fi as usize];
        if traced {
            // Events come from on_segment/on_timer, before any transmission they cause.
            while let Some(event) = self.flows[fi as usize].sender.poll_event() {
                self.trace.push(TraceRecord::Sender { flow: fi, event });
            }
        }
        loop {
            let f = &mut self.flows[fi as usize];
            let seg = if rx { f.receiver.poll_transmit(now) } else { f.sender.poll_transmit(now) };
            let Some(seg) = seg else { break };
            let (from, to) = if rx { (f.dst, f.src) } else { (f.src, f.dst) };
            if !rx {
                // Ground truth: was this retransmission needed?
                if seg.is_retransmit && (f.copies.in_network(seg.seq) || f.receiver.holds(seg.seq)) {
                    f.truth.spurious_retransmissions += 1;
                }
                f.copies.sent(seg.seq);
            }
            if traced {
                let (seq, len, retransmit) = (seg.seq, seg.len, seg.is_retransmit);
                self.trace.push(TraceRecord::Send { at: now, flow: fi, seq, len, retransmit });
            }
            let r = self.packet(fi, from, to, seg, now);
            match &mut self.flows[fi as usize].overhead {
                Some(h) if !rx => {
                    if let Some(at) = h.hold(r, now) {
                        self.q.schedule(at, Class::Arrival, Ev::Release(fi));
                    }
                }
                _ => self.send(Head::new(r, &self.pool), from, now),
            }
        }
        if !rx {
            if let Some(rec) = &mut self.series {
                rec.sample_flow(fi as usize, &self.flows[fi as usize].sender, now);
            }
        }
        let f = &mut self.flows[fi as usize];
        if !rx && !f.acked_all && f.sender.is_done() {
            f.acked_all = true;
            self.unfinished -= 1;
        }
        let (want, pending) = if rx {
            (f.receiver.poll_timeout(), &mut f.receiver_tmr)
        } else {
            (f.sender.poll_timeout(), &mut f.sender_tmr)
        };
        if let Some(d) = want {
            if pending.is_none_or(|p| d < p) {
                let d = d.max(now);
                *pending = Some(d);
                self.q.schedule(d, Class::Timer, Ev::Timer(fi, rx));
            }
        }
    }

    fn packet(&mut self, flow: FlowId, src: NodeId, dst: NodeId, seg: TcpSegment, now: SimTime) -> PacketRef {
        let id = self.next_packet_id;
        self.next_packet_id += 1;
        // RFC 3168 §6.1.5: ECT on new data of an ECN flow only, never on
        // retransmissions or pure ACKs.
        let f = &self.flows[flow as usize];
        let ect = seg.is_data() && !seg.is_retransmit && f.sender.ecn_capable();
        let ecn = if ect { Ecn::Ect0 } else { Ecn::NotEct };
        // Only ACKs carry SACK blocks, so only the receiver's option size
        // matters, and only then is the receiver (a cold structure for data
        // packets) read.
        let sack = if seg.sack.is_empty() { SackOptionSize::Rfc2018 } else { f.receiver.sack_option_size() };
        let size = Packet::ip_size_as(&seg, sack);
        self.pool.alloc(Packet { id, flow, src, dst, size, ecn, created: now, seg })
    }

    /// Record flow `f`'s transmissions, drops and sender events.
    pub fn trace_flow(&mut self, f: usize) {
        self.traced[f] = true;
        self.flows[f].sender.record_events(true);
    }

    pub fn trace(&self) -> &[TraceRecord] {
        &self.trace
    }

    pub fn sender(&self, f: usize) -> &Sender {
        &self.flows[f].sender
    }

    pub fn receiver(&self, f: usize) -> &Receiver {
        &self.flows[f].receiver
    }

    /// Shared medium `i` (in scenario order), e.g. to read its frame log.
    pub fn medium(&self, i: usize) -> &Medium {
        &self.media[i]
    }

    pub fn medium_mut(&mut self, i: usize) -> &mut Medium {
        &mut self.media[i]
    }

    pub fn events(&self) -> u64 {
        self.q.popped()
    }
}
