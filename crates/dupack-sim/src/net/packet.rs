//! Packets: an IP-level envelope around one TCP segment.

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
        IP_HEADER_BYTES + seg.header_bytes() + seg.len
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
