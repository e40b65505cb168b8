//! Queue disciplines at the sending end of a channel.
//!
//! The packet being serialised is not in the queue: a limit of N packets
//! means N packets may *wait* behind the one on the wire (ns-2's DropTail
//! and ns-3's device-queue convention).
//!
//! `enqueue` hands a refused packet back by value: no allocation per packet.
//!
//! Every arrival is shown to the queue, also one that finds the transmitter
//! idle and goes straight to the wire ([`Qdisc::arrive_idle`]): RED must
//! update its average and may drop or mark that packet too (as in ns-2,
//! where such a packet is enqueued and dequeued at once).
#![allow(clippy::result_large_err)]

use super::packet::{Ecn, Packet};
use crate::engine::rng::StreamRng;
use crate::scenario::model::{QueueLimit, QueueSpec, RedSpec};
use crate::time::{tx_time, SimTime};
use std::collections::VecDeque;

/// What a queue decided about an arriving packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Accept,
    /// Accepted with its ECN field set to CE.
    Mark,
    Drop,
}

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

/// Random Early Detection (Floyd & Jacobson 1993, Fig. 2; the unfairness
/// paper's Fig. 4), optionally marking ECN-capable packets instead of
/// dropping them (RFC 3168). Thresholds and limit count waiting packets.
///
/// At each arrival, in this order:
///
/// 1. `avg` is updated from the number of packets `q` *waiting* when the
///    packet arrives (before it is added; the packet on the wire is not
///    counted): if the channel has been idle (nothing waiting, nothing on the
///    wire) since `q_time`, `avg ← (1 − wq)^m · avg` with
///    `m = (now − q_time)/s`, a real number, `s` the transmission time of
///    `mean_packet_size` bytes at the link rate; otherwise
///    `avg ← (1 − wq)·avg + wq·q` (with `q = 0` when only the wire is busy).
/// 2. The decision, with `count` (initially −1):
///    - `avg < min_th`: accept, `count ← −1`;
///    - `min_th ≤ avg < max_th` (or `< 2·max_th` when gentle): `count ← count + 1`,
///      `pb = maxp·(avg − min_th)/(max_th − min_th)` (gentle, above `max_th`:
///      `pb = maxp + (1 − maxp)·(avg − max_th)/max_th`),
///      `pa = pb/(1 − count·pb)` (1 once `count·pb ≥ 1`); with probability
///      `pa` the packet is an early-drop candidate and `count ← 0`;
///    - above that: the packet is a forced candidate and `count ← 0`.
/// 3. A candidate is marked (CE) instead of dropped if `ecn` is on and the
///    packet is ECN-capable (ECT(0), ECT(1) or already CE); a forced candidate
///    only if `mark_above_max_th` is on too. Otherwise it is dropped.
/// 4. A packet not dropped is dropped anyway if `limit_packets` packets are
///    already waiting (this does not change `count`).
///
/// `q_time` is the instant the transmitter finished a packet and found
/// nothing waiting, or the instant an arrival at an idle channel was dropped.
#[derive(Clone, Debug)]
pub struct Red {
    spec: RedSpec,
    q: VecDeque<Packet>,
    /// Transmission time of a typical packet, in ns (≥ 1).
    s_nanos: u64,
    avg: f64,
    count: i64,
    /// `Some(q_time)` while the channel is idle.
    idle_since: Option<SimTime>,
    rng: StreamRng,
}

enum Candidate {
    None,
    Early,
    Forced,
}

impl Red {
    pub fn new(spec: &RedSpec, rate_bps: u64, rng: StreamRng) -> Self {
        let s_nanos = tx_time(u64::from(spec.mean_packet_size), rate_bps).as_nanos().max(1);
        Red {
            spec: spec.clone(),
            q: VecDeque::new(),
            s_nanos,
            avg: 0.0,
            count: -1,
            idle_since: Some(SimTime::ZERO),
            rng,
        }
    }

    /// The average queue length as of the last arrival.
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// Arrivals since the last early or forced candidate (−1 below `min_th`).
    pub fn count(&self) -> i64 {
        self.count
    }

    pub fn len_packets(&self) -> usize {
        self.q.len()
    }

    fn update_avg(&mut self, now: SimTime) {
        let wq = self.spec.wq;
        match self.idle_since.take() {
            Some(q_time) => {
                let m = now.saturating_since(q_time).as_nanos() as f64 / self.s_nanos as f64;
                self.avg *= (1.0 - wq).powf(m);
            }
            None => self.avg = (1.0 - wq) * self.avg + wq * self.q.len() as f64,
        }
    }

    fn candidate(&mut self) -> Candidate {
        let (min_th, max_th) = (f64::from(self.spec.min_th), f64::from(self.spec.max_th));
        let maxp = self.spec.maxp;
        let avg = self.avg;
        let pb = if avg < min_th {
            self.count = -1;
            return Candidate::None;
        } else if avg < max_th {
            maxp * (avg - min_th) / (max_th - min_th)
        } else if self.spec.gentle && avg < 2.0 * max_th {
            maxp + (1.0 - maxp) * (avg - max_th) / max_th
        } else {
            self.count = 0;
            return Candidate::Forced;
        };
        self.count += 1;
        let cpb = self.count as f64 * pb;
        let pa = if cpb < 1.0 { pb / (1.0 - cpb) } else { 1.0 };
        if self.rng.chance(pa) {
            self.count = 0;
            Candidate::Early
        } else {
            Candidate::None
        }
    }

    fn decide(&mut self, p: &mut Packet, now: SimTime) -> Verdict {
        self.update_avg(now);
        let may_mark = match self.candidate() {
            Candidate::None => return Verdict::Accept,
            Candidate::Early => self.spec.ecn,
            Candidate::Forced => self.spec.ecn && self.spec.mark_above_max_th,
        };
        if may_mark && p.ecn != Ecn::NotEct {
            p.ecn = Ecn::Ce;
            Verdict::Mark
        } else {
            Verdict::Drop
        }
    }

    /// A packet arrives at an idle channel (nothing waiting or on the wire)
    /// and will be sent at once unless dropped. It may be marked.
    pub fn arrive_idle(&mut self, p: &mut Packet, now: SimTime) -> Verdict {
        debug_assert!(self.q.is_empty());
        let v = self.decide(p, now);
        if v == Verdict::Drop {
            self.idle_since = Some(now);
        }
        v
    }

    /// A packet arrives while the transmitter is busy: `Ok(marked)` if it now
    /// waits, or the packet back if it was dropped.
    pub fn enqueue(&mut self, mut p: Packet, now: SimTime) -> Result<bool, Packet> {
        let v = self.decide(&mut p, now);
        if v == Verdict::Drop || self.q.len() >= self.spec.limit_packets as usize {
            return Err(p);
        }
        self.q.push_back(p);
        Ok(v == Verdict::Mark)
    }

    pub fn dequeue(&mut self) -> Option<Packet> {
        self.q.pop_front()
    }

    /// The transmitter finished at `now` and nothing waits: the idle period starts.
    pub fn on_idle(&mut self, now: SimTime) {
        debug_assert!(self.q.is_empty());
        self.idle_since = Some(now);
    }
}

/// The queue of a channel; an enum so the per-packet path has no virtual call.
#[derive(Clone, Debug)]
pub enum Qdisc {
    DropTail(DropTail),
    Red(Red),
}

impl Qdisc {
    /// `rng` is the queue's own stream (`link/{link}/{fwd|rev}/queue`);
    /// `rate_bps` is the link's rate.
    pub fn from_spec(s: &QueueSpec, rate_bps: u64, rng: StreamRng) -> Self {
        match s {
            QueueSpec::DropTail { limit } => Qdisc::DropTail(DropTail::new(*limit)),
            QueueSpec::Red(spec) => Qdisc::Red(Red::new(spec, rate_bps, rng)),
        }
    }
    /// See [`Red::arrive_idle`]; DropTail accepts every such packet.
    pub fn arrive_idle(&mut self, p: &mut Packet, now: SimTime) -> Verdict {
        match self {
            Qdisc::DropTail(_) => Verdict::Accept,
            Qdisc::Red(q) => q.arrive_idle(p, now),
        }
    }
    /// `Ok(marked)`, or the dropped packet.
    pub fn enqueue(&mut self, p: Packet, now: SimTime) -> Result<bool, Packet> {
        match self {
            Qdisc::DropTail(q) => q.enqueue(p).map(|()| false),
            Qdisc::Red(q) => q.enqueue(p, now),
        }
    }
    pub fn dequeue(&mut self) -> Option<Packet> {
        match self {
            Qdisc::DropTail(q) => q.dequeue(),
            Qdisc::Red(q) => q.dequeue(),
        }
    }
    /// The transmitter went idle at `now` with nothing waiting.
    pub fn on_idle(&mut self, now: SimTime) {
        match self {
            Qdisc::DropTail(_) => {}
            Qdisc::Red(q) => q.on_idle(now),
        }
    }
    pub fn len_packets(&self) -> usize {
        match self {
            Qdisc::DropTail(q) => q.len_packets(),
            Qdisc::Red(q) => q.len_packets(),
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
