//! The TCP receiver fed arbitrary data segments (sequence number, length,
//! CWR, timestamps, I&RW tag, ECN CE, arrival time) under an arbitrary
//! configuration (MSS, window, every-segment or delayed ACKs, SACK, D-SACK,
//! DDA). Checked after every step against a model of the bytes it accepted:
//!
//! - no panic;
//! - `rcv_nxt` never decreases and equals the contiguous prefix of the bytes
//!   accepted so far (a byte is accepted when it arrives inside
//!   `[rcv_nxt, rcv_nxt + window)`), so nothing is delivered out of order or
//!   twice; `bytes_delivered` equals it;
//! - `holds` agrees with the model around every accepted interval;
//! - every ACK has the ACK flag and the configured window, its `ack` is at
//!   most `rcv_nxt` (no byte it lacks is acknowledged), and every SACK block
//!   (D-SACK included) is non-empty and covers only bytes it holds;
//! - no SACK blocks without `sack`, never more than `max_sack_blocks`;
//! - `poll_timeout` is never in the past after the timers ran.
#![no_main]
use dupack_sim::scenario::model::{AckMode, ReceiverConfig};
use dupack_sim::tcp::receiver::Receiver;
use dupack_sim::tcp::segment::{TcpFlags, TcpSegment};
use dupack_sim::time::{SimDuration, SimTime};
use libfuzzer_sys::fuzz_target;

/// Accepted bytes: sorted, disjoint, non-adjacent `[l, r)` intervals.
#[derive(Default)]
struct Model {
    iv: Vec<(u64, u64)>,
}

impl Model {
    fn insert(&mut self, l: u64, r: u64) {
        if l >= r {
            return;
        }
        let (mut l, mut r) = (l, r);
        self.iv.retain(|&(a, b)| {
            if b < l || a > r {
                true
            } else {
                l = l.min(a);
                r = r.max(b);
                false
            }
        });
        let i = self.iv.partition_point(|&(a, _)| a < l);
        self.iv.insert(i, (l, r));
    }
    /// Bytes received contiguously from 0.
    fn prefix(&self) -> u64 {
        match self.iv.first() {
            Some(&(0, r)) => r,
            _ => 0,
        }
    }
    fn holds(&self, b: u64) -> bool {
        self.iv.iter().any(|&(l, r)| l <= b && b < r)
    }
    fn covers(&self, l: u64, r: u64) -> bool {
        self.iv.iter().any(|&(a, b)| a <= l && r <= b)
    }
}

fn byte(data: &[u8], i: usize) -> u8 {
    data.get(i).copied().unwrap_or(0)
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 6 {
        return;
    }
    let (head, ops) = data.split_at(6);
    // Configuration: MSS 1..=1460, window 1..=64 MSS (sometimes not a
    // multiple of it), ACK mode, SACK blocks, D-SACK, DDA.
    let mss = u32::from(u16::from_le_bytes([head[0], head[1]])) % 1460 + 1;
    let m = u64::from(mss);
    let window = (u64::from(head[2] % 64) + 1) * m + if head[3] & 1 != 0 { u64::from(head[2]) % m } else { 0 };
    let ack = if head[3] & 2 != 0 {
        AckMode::Delayed { timeout: SimDuration(u64::from(head[4] % 8 + 1) * 50_000_000), every: u32::from(head[4] >> 5) + 1 }
    } else {
        AckMode::Every
    };
    let sack = head[3] & 4 != 0;
    let max_sack_blocks = u32::from(head[3] >> 3 & 3) + 1;
    let dsack = sack && head[3] & 32 != 0;
    let dda = (head[3] & 64 != 0).then(|| SimDuration(u64::from(head[5]) * 1_000_000 + 1));
    let cfg = ReceiverConfig { window, ack, sack, max_sack_blocks, dsack, dda };
    let mut rx = Receiver::new(&cfg, mss);
    let mut model = Model::default();
    let mut now = SimTime::ZERO;
    let mut last_nxt = 0u64;

    // Each step is 6 bytes: kind, segment index (2), offset/length, flags, time step.
    for op in ops.chunks(6) {
        let kind = byte(op, 0);
        let index = u64::from(u16::from_le_bytes([byte(op, 1), byte(op, 2)]) % 512);
        let shape = byte(op, 3);
        let flags = byte(op, 4);
        let dt = byte(op, 5);
        now += SimDuration(u64::from(dt) * u64::from(dt) * 10_000);
        // Timers that fell due meanwhile run at their deadline, first.
        for _ in 0..4 {
            match rx.poll_timeout() {
                Some(t) if t <= now => rx.on_timer(t),
                _ => break,
            }
        }
        match kind % 4 {
            0 | 1 | 2 => {
                // A data segment: usually a whole segment `index`, sometimes
                // shifted and of any length up to 4 MSS.
                let (seq, len) = if kind & 0x10 == 0 {
                    (index * m, mss)
                } else {
                    let off = u64::from(shape) * m / 256;
                    (index * m + off, (u32::from(shape) * 4 * mss / 255).max(1))
                };
                let mut f = TcpFlags(TcpFlags::ACK);
                if flags & 1 != 0 {
                    f.set(TcpFlags::CWR);
                }
                let ts = (flags & 2 != 0).then(|| (SimTime(now.0.saturating_sub(u64::from(flags >> 4) * 1_000_000)), SimTime::ZERO));
                let seg = TcpSegment {
                    seq,
                    ack: 0,
                    len,
                    flags: f,
                    wnd: 0,
                    sack: Default::default(),
                    ts,
                    tag: u32::from(kind),
                    is_retransmit: flags & 8 != 0,
                };
                let ce = flags & 4 != 0;
                // The model: the part inside [rcv_nxt, rcv_nxt + window) is accepted.
                let edge = model.prefix() + window;
                model.insert(seq.max(model.prefix()), seg.end().min(edge));
                rx.on_segment(&seg, ce, now);
            }
            _ => {
                // Let the timers run (the engine calls at the deadline).
                if let Some(t) = rx.poll_timeout() {
                    if flags & 1 != 0 || t <= now {
                        now = now.max(t);
                        rx.on_timer(now);
                    }
                }
            }
        }
        // A due timer runs now (the engine calls at the deadline); after it
        // the next deadline lies in the future.
        if rx.poll_timeout().is_some_and(|t| t <= now) {
            rx.on_timer(now);
            assert!(rx.poll_timeout().map_or(true, |t| t > now), "a timer still due after on_timer");
        }

        let nxt = rx.rcv_nxt();
        assert!(nxt >= last_nxt, "rcv_nxt went back from {last_nxt} to {nxt}");
        last_nxt = nxt;
        assert_eq!(nxt, model.prefix(), "rcv_nxt is not the contiguous bytes received; model {:?}", model.iv);
        assert_eq!(rx.stats().bytes_delivered, nxt);
        for &(l, r) in &model.iv {
            for b in [l.saturating_sub(1), l, r - 1, r] {
                assert_eq!(rx.holds(b), model.holds(b), "holds({b}) with model {:?}", model.iv);
            }
        }
        while let Some(a) = rx.poll_transmit(now) {
            assert!(a.flags.has(TcpFlags::ACK) && a.len == 0 && a.wnd == window, "malformed ACK {a:?}");
            assert!(a.ack <= nxt, "ACK {} beyond rcv_nxt {nxt}", a.ack);
            let blocks = a.sack.as_slice();
            assert!(sack || blocks.is_empty(), "SACK blocks without SACK: {a:?}");
            assert!(blocks.len() <= max_sack_blocks as usize, "{} blocks > {max_sack_blocks}", blocks.len());
            for b in blocks {
                assert!(b.left < b.right, "empty SACK block {b:?}");
                assert!(model.covers(b.left, b.right), "SACK block {b:?} covers bytes not held; model {:?}", model.iv);
            }
        }
    }
});
