//! The TCP segment as the simulator carries it.
//!
//! Sequence numbers are `u64` byte offsets from the start of the connection
//! (ISN 0, no wrap-around); the pcap writer maps them to 32-bit wire values.
//! The segment is plain data with a fixed-size SACK array so that moving a
//! packet never allocates.

use crate::scenario::model::SackOptionSize;
use crate::time::SimTime;

/// TCP header flags that matter to the simulator.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct TcpFlags(pub u8);

impl TcpFlags {
    pub const ACK: u8 = 0x10;
    /// ECN-Echo (RFC 3168 §6.1).
    pub const ECE: u8 = 0x40;
    /// Congestion Window Reduced (RFC 3168 §6.1).
    pub const CWR: u8 = 0x80;
    pub fn has(self, f: u8) -> bool {
        self.0 & f != 0
    }
    pub fn set(&mut self, f: u8) {
        self.0 |= f;
    }
}

/// One SACK block `[left, right)` in byte sequence space (RFC 2018 §3).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct SackBlock {
    pub left: u64,
    pub right: u64,
}

/// At most four SACK blocks fit in the 40 bytes of TCP options (RFC 2018 §3);
/// three when timestamps are also present.
pub const MAX_SACK_BLOCKS: usize = 4;

/// The SACK blocks of one segment, most recently changed first (RFC 2018 §4).
#[derive(Copy, Clone, PartialEq, Eq, Default)]
pub struct SackBlocks {
    len: u8,
    blocks: [SackBlock; MAX_SACK_BLOCKS],
}

impl SackBlocks {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn push(&mut self, b: SackBlock) {
        if (self.len as usize) < MAX_SACK_BLOCKS {
            self.blocks[self.len as usize] = b;
            self.len += 1;
        }
    }
    pub fn as_slice(&self) -> &[SackBlock] {
        &self.blocks[..self.len as usize]
    }
    pub fn len(&self) -> usize {
        self.len as usize
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Bytes the blocks take in the TCP header: kind + length + 8 per block
    /// (RFC 2018 §3), padded to a multiple of 4 with two NOPs.
    pub fn option_bytes(&self) -> u32 {
        SackOptionSize::Rfc2018.bytes(self.len as u32)
    }
}

impl std::fmt::Debug for SackBlocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice().iter().map(|b| b.left..b.right)).finish()
    }
}

/// A TCP segment: data (`len > 0`) or a pure ACK (`len == 0`).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct TcpSegment {
    /// First byte carried (data), or `snd_nxt` of the sender of a pure ACK.
    pub seq: u64,
    /// Cumulative acknowledgement: next byte expected.
    pub ack: u64,
    /// Payload bytes.
    pub len: u32,
    pub flags: TcpFlags,
    /// Advertised receive window in bytes (unscaled; the simulator does not
    /// model window-scale truncation).
    pub wnd: u64,
    pub sack: SackBlocks,
    /// Timestamp option (RFC 7323): `TSval` and `TSecr`, as the sender's clock
    /// reading. `None` when timestamps are off.
    pub ts: Option<(SimTime, SimTime)>,
    /// Free identification tag (TCP I&RW, irw §3): the sender stamps each
    /// transmission, the receiver echoes the tag of the segment that triggered
    /// the ACK. Zero when unused.
    pub tag: u32,
    /// True when this data segment is a retransmission (ground truth for
    /// metrics; not a header field).
    pub is_retransmit: bool,
}

impl TcpSegment {
    pub fn end(&self) -> u64 {
        self.seq + self.len as u64
    }
    pub fn is_data(&self) -> bool {
        self.len > 0
    }
    /// TCP header bytes including options: 20 + SACK + timestamps (10, padded to 12).
    pub fn header_bytes(&self) -> u32 {
        self.header_bytes_as(SackOptionSize::Rfc2018)
    }

    /// [`TcpSegment::header_bytes`] with the SACK option counted as `sack` says.
    pub fn header_bytes_as(&self, sack: SackOptionSize) -> u32 {
        20 + sack.bytes(self.sack.len() as u32) + if self.ts.is_some() { 12 } else { 0 }
    }
}
