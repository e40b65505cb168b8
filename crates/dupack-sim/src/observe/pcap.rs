//! Packet captures in pcapng that Wireshark and tshark read.
//!
//! One capture covers one link, seen from its `a` end (the first node the
//! scenario names for it; for a dumbbell's links, the sender's or the
//! router's side), as `tcpdump` on that node's interface would: an
//! interface per direction (`LINK:fwd`, `LINK:rev`), nanosecond timestamps
//! from the start of the run. A packet going `fwd` is captured when its
//! transmission starts: a packet the queue refused never appears, one the
//! link's error model destroys does (it was sent). A packet coming back
//! (`rev`) is captured when it arrives at `a`: one destroyed on the way
//! never appears. So a capture of a sender's access link holds what the
//! sender sent and the ACKs it received, at the instants it did. Link-layer
//! frames (ARQ NAKs and polls) are not captured.
//!
//! Each packet is written as real IPv4 and TCP headers (link type RAW, 101),
//! truncated after the TCP header: the payload is not modelled, so the
//! captured length is the headers' and the original length is the
//! datagram's (`ip.len` carries it, which is what Wireshark's TCP analysis
//! reads). What the headers hold:
//!
//! - addresses: node `i` is `10.0.0.0 + i + 1`; ports: the sender
//!   `10000 + flow index mod 50000`, the receiver 5001;
//! - sequence numbers: dupack's byte offsets plus a per-flow random initial
//!   sequence number (`flow/NAME/isn/snd` and `/rcv` streams of the seed),
//!   wrapped to 32 bits (RFC 9293 §3.4.1);
//! - SACK blocks (RFC 2018), timestamps (RFC 7323; the clock in ms), ECN:
//!   the IP ECN field and the ECE / CWR flags (RFC 3168), as modelled;
//! - the advertised window, scaled by the smallest window-scale shift that
//!   fits the flow's receive window in 16 bits (RFC 7323 §2).
//!
//! dupack does not simulate connection set-up. So that Wireshark knows the
//! options in use (SACK permitted, window scale, timestamps, ECN), the
//! capture writes a SYN and a SYN-ACK for a flow just before its first
//! captured packet, at the same instant, each with a comment saying it is
//! synthesised. The data then starts at ISN + 1, as after a real handshake.

use crate::net::packet::{Ecn, Packet};
use crate::tcp::segment::{TcpFlags, TcpSegment};
use crate::time::SimTime;
use std::io::{self, Write};

/// What the capture must know of each flow to write its headers.
#[derive(Clone, Debug)]
pub struct FlowWire {
    pub src: u32,
    pub dst: u32,
    /// Initial sequence numbers of the sender and of the receiver.
    pub isn_snd: u32,
    pub isn_rcv: u32,
    pub mss: u32,
    pub sack: bool,
    pub timestamps: bool,
    pub ecn: bool,
    /// The receive window the receiver advertises at most, in bytes.
    pub rwnd: u64,
}

impl FlowWire {
    /// RFC 7323 §2.3: the smallest shift (≤ 14) that fits `rwnd` in 16 bits.
    pub fn wscale(&self) -> u8 {
        let mut s = 0u8;
        while s < 14 && (self.rwnd >> s) > 0xffff {
            s += 1;
        }
        s
    }
}

/// IPv4 address of node `n`.
pub fn node_addr(n: u32) -> [u8; 4] {
    (0x0a00_0001u32.wrapping_add(n)).to_be_bytes()
}

const SENDER_PORT_BASE: u32 = 10_000;
pub const RECEIVER_PORT: u16 = 5001;

pub fn sender_port(flow: u32) -> u16 {
    (SENDER_PORT_BASE + flow % 50_000) as u16
}

/// Largest TCP header: the data offset counts 32-bit words in 4 bits.
const MAX_TCP_HEADER: usize = 60;

/// A pcapng writer for one link.
pub struct PcapWriter {
    out: Box<dyn Write + Send>,
    flows: Vec<FlowWire>,
    /// A SYN and SYN-ACK were written for the flow.
    opened: Vec<bool>,
    /// The first write error; later writes are skipped.
    error: Option<io::Error>,
    packets: u64,
    buf: Vec<u8>,
}

impl std::fmt::Debug for PcapWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PcapWriter").field("packets", &self.packets).finish()
    }
}

fn block(out: &mut Vec<u8>, kind: u32, body: &[u8]) {
    let len = (12 + body.len()) as u32;
    debug_assert_eq!(body.len() % 4, 0);
    out.extend_from_slice(&kind.to_le_bytes());
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(body);
    out.extend_from_slice(&len.to_le_bytes());
}

/// A pcapng option: code, length, value padded to 32 bits.
fn option(out: &mut Vec<u8>, code: u16, value: &[u8]) {
    out.extend_from_slice(&code.to_le_bytes());
    out.extend_from_slice(&(value.len() as u16).to_le_bytes());
    out.extend_from_slice(value);
    out.resize(out.len().next_multiple_of(4), 0);
}

fn end_of_options(out: &mut Vec<u8>) {
    out.extend_from_slice(&[0, 0, 0, 0]);
}

impl PcapWriter {
    /// Start a capture of `link`'s two directions into `out`: writes the
    /// section header and the two interface descriptions.
    pub fn new(mut out: Box<dyn Write + Send>, link: &str, flows: Vec<FlowWire>) -> io::Result<Self> {
        let mut head = Vec::new();
        // Section header block (pcapng §4.1): byte-order magic, version 1.0,
        // section length unknown.
        let mut shb = Vec::new();
        shb.extend_from_slice(&0x1a2b_3c4du32.to_le_bytes());
        shb.extend_from_slice(&1u16.to_le_bytes());
        shb.extend_from_slice(&0u16.to_le_bytes());
        shb.extend_from_slice(&(-1i64).to_le_bytes());
        option(&mut shb, 4, format!("dupack {}", env!("CARGO_PKG_VERSION")).as_bytes()); // shb_userappl
        end_of_options(&mut shb);
        block(&mut head, 0x0a0d_0d0a, &shb);
        for dir in ["fwd", "rev"] {
            // Interface description block (§4.2): LINKTYPE_RAW, ns timestamps.
            let mut idb = Vec::new();
            idb.extend_from_slice(&101u16.to_le_bytes());
            idb.extend_from_slice(&0u16.to_le_bytes());
            idb.extend_from_slice(&(MAX_TCP_HEADER as u32 + 20).to_le_bytes()); // snaplen
            option(&mut idb, 2, format!("{link}:{dir}").as_bytes()); // if_name
            option(&mut idb, 9, &[9]); // if_tsresol: 10^-9 s
            end_of_options(&mut idb);
            block(&mut head, 1, &idb);
        }
        out.write_all(&head)?;
        let n = flows.len();
        Ok(PcapWriter { out, flows, opened: vec![false; n], error: None, packets: 0, buf: Vec::new() })
    }

    /// Packets written so far (synthesised handshakes included).
    pub fn packets(&self) -> u64 {
        self.packets
    }

    /// Capture `p` starting its transmission at `now` on the `fwd` (true)
    /// or `rev` direction.
    pub fn capture(&mut self, fwd: bool, p: &Packet, now: SimTime) {
        if self.error.is_some() {
            return;
        }
        let f = p.flow as usize;
        let iface = u32::from(!fwd);
        if !self.opened[f] {
            self.opened[f] = true;
            for syn_ack in [false, true] {
                let mut hdr = [0u8; 20 + MAX_TCP_HEADER];
                let len = self.handshake(f, syn_ack, &mut hdr);
                self.packet(
                    iface,
                    now,
                    &hdr[..len],
                    len as u32,
                    "synthesised: dupack does not simulate connection set-up",
                );
            }
        }
        let mut hdr = [0u8; 20 + MAX_TCP_HEADER];
        let (len, orig) = self.headers(p, &mut hdr);
        let comment = if p.seg.is_retransmit { "retransmission" } else { "" };
        self.packet(iface, now, &hdr[..len], orig, comment);
    }

    /// Flush what is buffered; the first error of the capture, if any.
    pub fn finish(&mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()
    }

    /// Write one enhanced packet block (§4.3).
    fn packet(&mut self, iface: u32, now: SimTime, data: &[u8], orig_len: u32, comment: &str) {
        let ns = now.as_nanos();
        let mut epb = std::mem::take(&mut self.buf);
        epb.clear();
        epb.extend_from_slice(&iface.to_le_bytes());
        epb.extend_from_slice(&((ns >> 32) as u32).to_le_bytes());
        epb.extend_from_slice(&(ns as u32).to_le_bytes());
        epb.extend_from_slice(&(data.len() as u32).to_le_bytes());
        epb.extend_from_slice(&orig_len.to_le_bytes());
        epb.extend_from_slice(data);
        epb.resize(epb.len().next_multiple_of(4), 0);
        if !comment.is_empty() {
            option(&mut epb, 1, comment.as_bytes()); // opt_comment
            end_of_options(&mut epb);
        }
        let mut out = Vec::with_capacity(epb.len() + 12);
        block(&mut out, 6, &epb);
        if let Err(e) = self.out.write_all(&out) {
            self.error = Some(e);
        }
        self.packets += 1;
        self.buf = epb;
    }

    /// The SYN (sender → receiver) or SYN-ACK of flow `f`; returns the length.
    fn handshake(&self, f: usize, syn_ack: bool, out: &mut [u8]) -> usize {
        let w = &self.flows[f];
        let mut opts: Vec<u8> = Vec::with_capacity(40);
        opts.extend_from_slice(&[2, 4]);
        opts.extend_from_slice(&(w.mss.min(0xffff) as u16).to_be_bytes());
        if w.sack {
            opts.extend_from_slice(&[1, 1, 4, 2]); // NOP NOP SACK-permitted
        }
        if w.timestamps {
            opts.extend_from_slice(&[1, 1, 8, 10, 0, 0, 0, 0, 0, 0, 0, 0]);
        }
        opts.extend_from_slice(&[1, 3, 3, w.wscale()]); // NOP, window scale
        let (src, dst, sport, dport, seq, ack) = if syn_ack {
            (w.dst, w.src, RECEIVER_PORT, sender_port(f as u32), w.isn_rcv, w.isn_snd.wrapping_add(1))
        } else {
            (w.src, w.dst, sender_port(f as u32), RECEIVER_PORT, w.isn_snd, 0)
        };
        // RFC 3168 §6.1.1: an ECN-setup SYN has ECE and CWR, the SYN-ACK ECE.
        let mut flags = 0x02 | if syn_ack { 0x10 } else { 0 };
        if w.ecn {
            flags |= if syn_ack { TcpFlags::ECE } else { TcpFlags::ECE | TcpFlags::CWR };
        }
        let tcp_len = 20 + opts.len();
        write_ipv4(out, src, dst, tcp_len as u16, 0, 0);
        write_tcp(&mut out[20..], sport, dport, seq, ack, flags, 0xffff, &opts);
        20 + tcp_len
    }

    /// Headers of `p`; returns (captured length, datagram length).
    fn headers(&self, p: &Packet, out: &mut [u8]) -> (usize, u32) {
        let f = p.flow as usize;
        let w = &self.flows[f];
        let seg: &TcpSegment = &p.seg;
        let from_sender = p.src == w.src;
        let snd = |b: u64| w.isn_snd.wrapping_add(1).wrapping_add(b as u32);
        let rcv = |b: u64| w.isn_rcv.wrapping_add(1).wrapping_add(b as u32);
        let mut opts: Vec<u8> = Vec::with_capacity(40);
        if let Some((val, ecr)) = seg.ts {
            let ms = |t: SimTime| (t.as_nanos() / 1_000_000) as u32;
            opts.extend_from_slice(&[1, 1, 8, 10]);
            opts.extend_from_slice(&ms(val).to_be_bytes());
            opts.extend_from_slice(&ms(ecr).to_be_bytes());
        }
        let mut dropped_blocks = 0u32;
        if !seg.sack.is_empty() {
            // 40 option bytes hold 4 blocks, 3 beside timestamps (RFC 2018 §3).
            let room = (40 - opts.len() - 4) / 8;
            let blocks = &seg.sack.as_slice()[..seg.sack.len().min(room)];
            dropped_blocks = (seg.sack.len() - blocks.len()) as u32;
            opts.extend_from_slice(&[1, 1, 5, 2 + 8 * blocks.len() as u8]);
            for b in blocks {
                // SACK blocks acknowledge the sender's data.
                opts.extend_from_slice(&snd(b.left).to_be_bytes());
                opts.extend_from_slice(&snd(b.right).to_be_bytes());
            }
        }
        let (sport, dport, seq, ack, wnd) = if from_sender {
            // The sender receives no data: it acknowledges the receiver's
            // SYN only, and advertises a full window.
            (sender_port(f as u32), RECEIVER_PORT, snd(seg.seq), w.isn_rcv.wrapping_add(1), 0xffff)
        } else {
            let wnd = (seg.wnd >> w.wscale()).min(0xffff) as u16;
            (RECEIVER_PORT, sender_port(f as u32), rcv(0), snd(seg.ack), wnd)
        };
        let mut flags = TcpFlags::ACK | (seg.flags.0 & (TcpFlags::ECE | TcpFlags::CWR));
        if seg.is_data() {
            flags |= 0x08; // PSH, as a sender writing whole segments sets it
        }
        let ecn = match p.ecn {
            Ecn::NotEct => 0,
            Ecn::Ect1 => 1,
            Ecn::Ect0 => 2,
            Ecn::Ce => 3,
        };
        let tcp_len = 20 + opts.len();
        // A datagram with SACK blocks that did not fit is shorter on the wire.
        let ip_len = p.size.saturating_sub(8 * dropped_blocks).max(20 + tcp_len as u32);
        write_ipv4(out, w_addr(p.src), w_addr(p.dst), (ip_len - 20) as u16, ecn, p.id as u16);
        write_tcp(&mut out[20..], sport, dport, seq, ack, flags, wnd, &opts);
        (20 + tcp_len, ip_len)
    }
}

fn w_addr(n: u32) -> u32 {
    u32::from_be_bytes(node_addr(n))
}

/// An IPv4 header without options, carrying `payload` bytes of TCP.
fn write_ipv4(out: &mut [u8], src: u32, dst: u32, payload: u16, ecn: u8, id: u16) {
    let total = 20u16.saturating_add(payload);
    out[0] = 0x45;
    out[1] = ecn;
    out[2..4].copy_from_slice(&total.to_be_bytes());
    out[4..6].copy_from_slice(&id.to_be_bytes());
    out[6..8].copy_from_slice(&0x4000u16.to_be_bytes()); // don't fragment
    out[8] = 64;
    out[9] = 6;
    out[10..12].copy_from_slice(&[0, 0]);
    out[12..16].copy_from_slice(&src.to_be_bytes());
    out[16..20].copy_from_slice(&dst.to_be_bytes());
    let sum = ones_complement_sum(&out[..20]);
    out[10..12].copy_from_slice(&(!sum).to_be_bytes());
}

/// A TCP header with `opts` (a multiple of 4 bytes). The checksum is left
/// zero: the payload is not captured, so it could not be checked anyway.
#[allow(clippy::too_many_arguments)]
fn write_tcp(out: &mut [u8], sport: u16, dport: u16, seq: u32, ack: u32, flags: u8, wnd: u16, opts: &[u8]) {
    debug_assert_eq!(opts.len() % 4, 0);
    let len = 20 + opts.len();
    out[0..2].copy_from_slice(&sport.to_be_bytes());
    out[2..4].copy_from_slice(&dport.to_be_bytes());
    out[4..8].copy_from_slice(&seq.to_be_bytes());
    out[8..12].copy_from_slice(&ack.to_be_bytes());
    out[12] = ((len / 4) as u8) << 4;
    out[13] = flags;
    out[14..16].copy_from_slice(&wnd.to_be_bytes());
    out[16..20].copy_from_slice(&[0, 0, 0, 0]);
    out[20..len].copy_from_slice(opts);
}

fn ones_complement_sum(b: &[u8]) -> u16 {
    let mut s: u32 = 0;
    for c in b.chunks(2) {
        s += u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]));
    }
    while s > 0xffff {
        s = (s & 0xffff) + (s >> 16);
    }
    s as u16
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::segment::{SackBlock, SackBlocks};
    use std::sync::{Arc, Mutex};

    /// A `Write` whose bytes the test can read afterwards.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn wire(isn_snd: u32) -> FlowWire {
        FlowWire {
            src: 0,
            dst: 1,
            isn_snd,
            isn_rcv: 7,
            mss: 1000,
            sack: true,
            timestamps: false,
            ecn: false,
            rwnd: 1 << 20,
        }
    }

    /// The blocks of a pcapng file: (type, body).
    fn blocks(b: &[u8]) -> Vec<(u32, Vec<u8>)> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < b.len() {
            let kind = u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
            let len = u32::from_le_bytes(b[i + 4..i + 8].try_into().unwrap()) as usize;
            assert_eq!(&b[i + 4..i + 8], &b[i + len - 4..i + len], "trailing length");
            out.push((kind, b[i + 8..i + len - 4].to_vec()));
            i += len;
        }
        out
    }

    fn be32(b: &[u8]) -> u32 {
        u32::from_be_bytes(b[..4].try_into().unwrap())
    }

    #[test]
    fn the_window_scale_is_the_smallest_that_fits() {
        let mut w = wire(0);
        w.rwnd = 65_535;
        assert_eq!(w.wscale(), 0);
        w.rwnd = 65_536;
        assert_eq!(w.wscale(), 1);
        w.rwnd = 1 << 20;
        assert_eq!(w.wscale(), 5);
    }

    #[test]
    fn sequence_numbers_wrap_past_two_to_the_32_and_sack_blocks_follow() {
        let buf = Shared::default();
        let isn = u32::MAX - 1500; // data byte 1500 is wire 0
        let mut w = PcapWriter::new(Box::new(buf.clone()), "l", vec![wire(isn)]).unwrap();
        let mut p = Packet::test_segment(3, 0, 2000, 1000);
        w.capture(true, &p, SimTime(5));
        // An ACK from the receiver with one SACK block [3000, 4000).
        let mut sack = SackBlocks::new();
        sack.push(SackBlock { left: 3000, right: 4000 });
        p.src = 1;
        p.dst = 0;
        p.seg = TcpSegment {
            seq: 0,
            ack: 2000,
            len: 0,
            flags: TcpFlags(TcpFlags::ACK),
            wnd: 1 << 20,
            sack,
            ..Default::default()
        };
        p.size = Packet::ip_size(&p.seg);
        w.capture(false, &p, SimTime(6));
        w.finish().unwrap();
        let b = buf.0.lock().unwrap().clone();
        let bl = blocks(&b);
        let kinds: Vec<u32> = bl.iter().map(|(k, _)| *k).collect();
        assert_eq!(kinds, vec![0x0a0d0d0a, 1, 1, 6, 6, 6, 6]);
        let pkt = |i: usize| {
            let body = &bl[i].1;
            let cap = u32::from_le_bytes(body[12..16].try_into().unwrap()) as usize;
            (
                u32::from_le_bytes(body[0..4].try_into().unwrap()),
                body[20..20 + cap].to_vec(),
                u32::from_le_bytes(body[16..20].try_into().unwrap()),
            )
        };
        // SYN, SYN-ACK, then the data segment: seq = ISN + 1 + 2000 mod 2^32 = 500.
        let (_, syn, _) = pkt(3);
        assert_eq!(syn[33] & 0x12, 0x02);
        assert_eq!(be32(&syn[24..]), isn);
        let (iface, data, orig) = pkt(5);
        assert_eq!(iface, 0);
        assert_eq!(be32(&data[24..]), 500);
        assert_eq!(orig, 1040);
        assert_eq!(u16::from_be_bytes([data[2], data[3]]), 1040, "ip.len is the datagram's");
        assert_eq!(ones_complement_sum(&data[..20]), 0xffff, "IP header checksum");
        let (iface, ack, _) = pkt(6);
        assert_eq!(iface, 1);
        assert_eq!(be32(&ack[28..]), 500, "ack of byte 2000");
        assert_eq!(ack[32] >> 4, 8, "20 + NOP NOP SACK(10) = 32 bytes");
        assert_eq!(&ack[40..44], &[1, 1, 5, 10]);
        assert_eq!(be32(&ack[44..]), 1500);
        assert_eq!(be32(&ack[48..]), 2500);
        assert_eq!(u16::from_be_bytes([ack[34], ack[35]]), 32768, "1 MiB >> 5");
    }

    #[test]
    fn a_write_error_is_kept_and_reported_once() {
        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::other("disk full"))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        assert!(PcapWriter::new(Box::new(Full), "l", vec![]).is_err());
    }
}
