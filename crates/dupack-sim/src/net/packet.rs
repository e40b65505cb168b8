//! Packets: an IP-level envelope around one TCP segment.

use crate::scenario::model::SackOptionSize;
use crate::tcp::segment::TcpSegment;
use crate::time::SimTime;

/// Index of a node in the world's node table.
pub type NodeId = u32;
/// Index of a flow (one TCP connection) in the world's flow table.
pub type FlowId = u32;
/// Index of a one-way channel (one direction of a link).
pub type ChannelId = u32;

/// IP ECN codepoint (RFC 3168 §5).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum Ecn {
    #[default]
    NotEct,
    Ect0,
    Ect1,
    Ce,
}

/// IPv4 header without options.
pub const IP_HEADER_BYTES: u32 = 20;

/// What a packet carries, for error models that select by kind.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum PacketKind {
    Data,
    Ack,
}

#[derive(Copy, Clone, Debug)]
pub struct Packet {
    /// Unique per run, in creation order.
    pub id: u64,
    pub flow: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    /// IP datagram size in bytes (IP + TCP headers + payload).
    pub size: u32,
    pub ecn: Ecn,
    pub created: SimTime,
    pub seg: TcpSegment,
}

impl Packet {
    pub fn kind(&self) -> PacketKind {
        if self.seg.is_data() {
            PacketKind::Data
        } else {
            PacketKind::Ack
        }
    }
    /// IP size of a segment: 20 (IP) + TCP header with options + payload.
    pub fn ip_size(seg: &TcpSegment) -> u32 {
        Packet::ip_size_as(seg, SackOptionSize::Rfc2018)
    }

    /// [`Packet::ip_size`] with the SACK option counted as `sack` says
    /// (`receiver.sack_option_size`).
    pub fn ip_size_as(seg: &TcpSegment, sack: SackOptionSize) -> u32 {
        IP_HEADER_BYTES + seg.header_bytes_as(sack) + seg.len
    }
}

#[cfg(test)]
impl Packet {
    /// For unit tests: flow `flow`'s data segment `[seq, seq + payload)` as
    /// packet `id` from node 0 to node 1, with 40 bytes of IP and TCP headers.
    pub(crate) fn test_segment(id: u64, flow: FlowId, seq: u64, payload: u32) -> Packet {
        Packet {
            id,
            flow,
            src: 0,
            dst: 1,
            size: payload + IP_HEADER_BYTES + 20,
            ecn: Ecn::NotEct,
            created: SimTime::ZERO,
            seg: TcpSegment { seq, len: payload, ..TcpSegment::default() },
        }
    }
}

/// A packet in the world's [`PacketPool`]: what queues and channels hold and
/// pass around instead of the packet itself (a few bytes against ~180).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PacketRef(u32);

/// The packets in the network, each written once when it is created and read
/// in place at every hop; freed slots are reused last-freed first, so the
/// pool's memory stays as small and as warm as the number of packets alive.
/// Every `PacketRef` has exactly one holder (a queue, a channel, or the
/// world while it handles the packet), which frees it when the packet is
/// delivered, dropped or handed to a model that keeps packets by value.
#[derive(Debug, Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<u32>,
}

impl PacketPool {
    /// A pool with room for `n` packets alive at once before it grows.
    pub fn with_capacity(n: usize) -> Self {
        PacketPool { slots: Vec::with_capacity(n), free: Vec::with_capacity(n) }
    }

    pub fn alloc(&mut self, p: Packet) -> PacketRef {
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = p;
                PacketRef(i)
            }
            None => {
                let i = u32::try_from(self.slots.len()).expect("fewer than 2^32 packets alive");
                self.slots.push(p);
                PacketRef(i)
            }
        }
    }

    pub fn free(&mut self, r: PacketRef) {
        debug_assert!(!self.free.contains(&r.0), "packet slot {} freed twice", r.0);
        self.free.push(r.0);
    }

    /// The packet, out of the pool.
    pub fn take(&mut self, r: PacketRef) -> Packet {
        let p = self.slots[r.0 as usize];
        self.free(r);
        p
    }

    /// Packets alive (allocated and not freed).
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}

impl std::ops::Index<PacketRef> for PacketPool {
    type Output = Packet;
    fn index(&self, r: PacketRef) -> &Packet {
        &self.slots[r.0 as usize]
    }
}

impl std::ops::IndexMut<PacketRef> for PacketPool {
    fn index_mut(&mut self, r: PacketRef) -> &mut Packet {
        &mut self.slots[r.0 as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pool_reuses_the_last_freed_slot_and_counts_the_living() {
        let mut pool = PacketPool::default();
        let a = pool.alloc(Packet::test_segment(1, 0, 0, 100));
        let b = pool.alloc(Packet::test_segment(2, 0, 100, 100));
        assert_eq!((pool[a].id, pool[b].id, pool.live()), (1, 2, 2));
        pool[b].ecn = Ecn::Ce;
        assert_eq!(pool.take(b).ecn, Ecn::Ce, "taken out with its changes");
        pool.free(a);
        assert_eq!(pool.live(), 0);
        let c = pool.alloc(Packet::test_segment(3, 0, 200, 100));
        assert_eq!(c, a, "last freed, first reused: the warmest slot");
        assert_eq!((pool[c].id, pool.live()), (3, 1));
    }
}
