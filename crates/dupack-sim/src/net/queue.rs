//! Queue disciplines at the sending end of a channel.
//!
//! The packet being serialised is not in the queue: a limit of N packets
//! means N packets may *wait* behind the one on the wire (ns-2's DropTail
//! and ns-3's device-queue convention).
//!
//! `enqueue` hands a refused packet back by value: no allocation per packet.
#![allow(clippy::result_large_err)]

use super::packet::Packet;
use crate::scenario::model::{QueueLimit, QueueSpec};
use std::collections::VecDeque;

/// DropTail FIFO with a limit in packets or bytes.
#[derive(Clone, Debug)]
pub struct DropTail {
    limit: QueueLimit,
    q: VecDeque<Packet>,
    bytes: u64,
}

impl DropTail {
    pub fn new(limit: QueueLimit) -> Self {
        DropTail { limit, q: VecDeque::new(), bytes: 0 }
    }
    /// Enqueue, or give the packet back if it does not fit.
    pub fn enqueue(&mut self, p: Packet) -> Result<(), Packet> {
        let fits = match self.limit {
            QueueLimit::Packets(n) => self.q.len() < n as usize,
            QueueLimit::Bytes(b) => self.bytes + p.size as u64 <= b,
        };
        if !fits {
            return Err(p);
        }
        self.bytes += p.size as u64;
        self.q.push_back(p);
        Ok(())
    }
    pub fn dequeue(&mut self) -> Option<Packet> {
        let p = self.q.pop_front()?;
        self.bytes -= p.size as u64;
        Some(p)
    }
    pub fn len_packets(&self) -> usize {
        self.q.len()
    }
    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }
}

/// The queue of a channel; an enum so the per-packet path has no virtual call.
#[derive(Clone, Debug)]
pub enum Qdisc {
    DropTail(DropTail),
}

impl Qdisc {
    pub fn from_spec(s: &QueueSpec) -> Self {
        match s {
            QueueSpec::DropTail { limit } => Qdisc::DropTail(DropTail::new(*limit)),
        }
    }
    pub fn enqueue(&mut self, p: Packet) -> Result<(), Packet> {
        match self {
            Qdisc::DropTail(q) => q.enqueue(p),
        }
    }
    pub fn dequeue(&mut self) -> Option<Packet> {
        match self {
            Qdisc::DropTail(q) => q.dequeue(),
        }
    }
    pub fn len_packets(&self) -> usize {
        match self {
            Qdisc::DropTail(q) => q.len_packets(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Ecn;
    use crate::tcp::segment::TcpSegment;
    use crate::time::SimTime;

    fn pkt(id: u64, size: u32) -> Packet {
        Packet {
            id,
            flow: 0,
            src: 0,
            dst: 1,
            size,
            ecn: Ecn::NotEct,
            created: SimTime::ZERO,
            seg: TcpSegment::default(),
        }
    }

    #[test]
    fn packet_limit_drops_the_arrival_that_does_not_fit() {
        let mut q = DropTail::new(QueueLimit::Packets(2));
        assert!(q.enqueue(pkt(1, 100)).is_ok());
        assert!(q.enqueue(pkt(2, 100)).is_ok());
        assert_eq!(q.enqueue(pkt(3, 100)).unwrap_err().id, 3);
        assert_eq!(q.dequeue().unwrap().id, 1, "FIFO");
        assert!(q.enqueue(pkt(4, 100)).is_ok());
    }

    #[test]
    fn byte_limit_counts_sizes() {
        let mut q = DropTail::new(QueueLimit::Bytes(1500));
        assert!(q.enqueue(pkt(1, 1000)).is_ok());
        assert!(q.enqueue(pkt(2, 600)).is_err());
        assert!(q.enqueue(pkt(3, 500)).is_ok());
        assert_eq!(q.len_bytes(), 1500);
        q.dequeue();
        assert_eq!(q.len_bytes(), 500);
    }
}
