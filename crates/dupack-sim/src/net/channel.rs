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

use super::error::ErrorModel;
use super::packet::{NodeId, Packet};
use super::queue::{Qdisc, Verdict};
use super::trace::TraceLink;
use crate::time::{tx_time, SimDuration, SimTime};
use std::collections::VecDeque;

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
    /// The packet being serialised.
    pub on_wire: Option<Packet>,
    /// Packets propagating, with their arrival instants.
    pub propagating: VecDeque<(SimTime, Packet)>,
    pub stats: ChannelStats,
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
    pub fn tx_time(&self, p: &Packet) -> SimDuration {
        tx_time(p.size as u64, self.rate_bps)
    }

    /// `p` starts service at `now`: when does it leave the transmitter?
    fn service_end(&mut self, p: &Packet, now: SimTime) -> SimTime {
        match &mut self.trace {
            Some(t) => t.serve(p.size, now),
            None => now + self.tx_time(p),
        }
    }

    /// Hand a packet to the channel at `now`. The queue sees every arrival,
    /// also one that finds the transmitter idle (nothing waits then).
    pub fn offer(&mut self, mut p: Packet, now: SimTime) -> Offer {
        if self.on_wire.is_none() {
            match self.queue.arrive_idle(&mut p, now) {
                Verdict::Drop => {
                    self.stats.drops_queue += 1;
                    return Offer::Dropped(p);
                }
                Verdict::Mark => self.stats.marks += 1,
                Verdict::Accept => {}
            }
            let done = self.service_end(&p, now);
            self.on_wire = Some(p);
            return Offer::StartedTx(done);
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

    /// Serialisation of the packet on the wire ended at `now`. Returns the
    /// finished packet, and when the next one (if any) will finish.
    pub fn finish_tx(&mut self, now: SimTime) -> (Packet, Option<SimTime>) {
        let p = self.on_wire.take().expect("TxDone without a packet on the wire");
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += p.size as u64;
        if self.trace.is_none() {
            self.stats.busy = self.stats.busy + self.tx_time(&p);
        }
        let next = self.queue.dequeue().map(|q| {
            let done = self.service_end(&q, now);
            self.on_wire = Some(q);
            done
        });
        if next.is_some() {
            self.stats.queue_changed(self.queue.len_packets() as u64, now);
        }
        if next.is_none() {
            self.queue.on_idle(now);
        }
        (p, next)
    }
}
