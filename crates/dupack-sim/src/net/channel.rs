//! A channel: one direction of a point-to-point link.
//!
//! A packet handed to a channel is serialised at `rate_bps` if the
//! transmitter is idle, otherwise it waits in the channel's queue. When its
//! serialisation ends the error model decides its fate; a surviving packet
//! propagates for `delay` and arrives at the far node. Because every packet
//! of a channel has the same delay, packets in propagation stay in FIFO
//! order and live in a ring buffer here rather than in the event queue.

use super::error::ErrorModel;
use super::packet::{NodeId, Packet};
use super::queue::{Qdisc, Verdict};
use crate::time::{tx_time, SimDuration, SimTime};
use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub struct ChannelStats {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub busy: SimDuration,
    pub drops_error: u64,
    /// Queue drops: overflow, and RED's early and forced drops.
    pub drops_queue: u64,
    /// Packets the queue marked CE (ECN-RED) instead of dropping.
    pub marks: u64,
    pub max_queue_packets: u64,
}

#[derive(Debug)]
pub struct Channel {
    /// Index of the link in the scenario.
    pub link: usize,
    /// True for the a→b direction.
    pub fwd: bool,
    pub from: NodeId,
    pub to: NodeId,
    pub rate_bps: u64,
    pub delay: SimDuration,
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
            let done = now + self.tx_time(&p);
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
        self.stats.busy = self.stats.busy + self.tx_time(&p);
        let next = self.queue.dequeue().map(|q| {
            let done = now + self.tx_time(&q);
            self.on_wire = Some(q);
            done
        });
        if next.is_none() {
            self.queue.on_idle(now);
        }
        (p, next)
    }
}
