//! Provisional receiver (ACK every segment, SACK blocks), superseded by the
//! full receiver with delayed ACKs and RFC 7323 timestamps.
use super::segment::{SackBlock, SackBlocks, TcpFlags, TcpSegment};
use crate::scenario::model::ReceiverConfig;
use crate::time::SimTime;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    pub segments_received: u64,
    pub duplicate_segments: u64,
    pub out_of_order_segments: u64,
    pub acks_sent: u64,
    pub dupacks_sent: u64,
    pub bytes_delivered: u64,
}

pub struct Receiver {
    cfg: ReceiverConfig,
    rcv_nxt: u64,
    ooo: Vec<(u64, u64)>,
    recent: Vec<(u64, u64)>,
    pending: Option<TcpSegment>,
    stats: ReceiverStats,
}

impl Receiver {
    pub fn new(cfg: &ReceiverConfig, _mss: u32) -> Self {
        Receiver { cfg: cfg.clone(), rcv_nxt: 0, ooo: Vec::new(), recent: Vec::new(), pending: None, stats: ReceiverStats::default() }
    }
    pub fn on_segment(&mut self, seg: &TcpSegment, _ce: bool, _now: SimTime) {
        self.stats.segments_received += 1;
        let (l, r) = (seg.seq, seg.end());
        let before = self.rcv_nxt;
        if r <= self.rcv_nxt {
            self.stats.duplicate_segments += 1;
        } else if l <= self.rcv_nxt {
            self.rcv_nxt = r;
        } else {
            self.stats.out_of_order_segments += 1;
            self.ooo.push((l, r));
            self.ooo.sort();
            let mut m: Vec<(u64, u64)> = Vec::new();
            for (a, b) in self.ooo.drain(..) {
                match m.last_mut() {
                    Some(last) if a <= last.1 => last.1 = last.1.max(b),
                    _ => m.push((a, b)),
                }
            }
            self.ooo = m;
            let blk = *self.ooo.iter().find(|(a, b)| *a <= l && r <= *b).unwrap();
            self.recent.retain(|x| !(x.0 >= blk.0 && x.1 <= blk.1));
            self.recent.insert(0, blk);
        }
        while let Some(&(a, b)) = self.ooo.first() {
            if a <= self.rcv_nxt {
                self.rcv_nxt = self.rcv_nxt.max(b);
                self.ooo.remove(0);
            } else {
                break;
            }
        }
        let nxt = self.rcv_nxt;
        self.recent.retain(|x| x.0 > nxt);
        let ooo = self.ooo.clone();
        self.recent.retain(|x| ooo.iter().any(|o| o.0 <= x.0 && x.1 <= o.1));
        self.stats.bytes_delivered = self.rcv_nxt;
        if self.rcv_nxt == before {
            self.stats.dupacks_sent += 1;
        }
        let mut sack = SackBlocks::new();
        if self.cfg.sack {
            for &(a, b) in self.recent.iter().take(self.cfg.max_sack_blocks as usize) {
                sack.push(SackBlock { left: a, right: b });
            }
        }
        self.pending = Some(TcpSegment {
            ack: self.rcv_nxt,
            flags: TcpFlags(TcpFlags::ACK),
            wnd: self.cfg.window,
            sack,
            tag: seg.tag,
            ts: seg.ts.map(|(v, _)| (SimTime::ZERO, v)),
            ..TcpSegment::default()
        });
    }
    pub fn on_timer(&mut self, _now: SimTime) {}
    pub fn poll_transmit(&mut self, _now: SimTime) -> Option<TcpSegment> {
        let p = self.pending.take();
        if p.is_some() {
            self.stats.acks_sent += 1;
        }
        p
    }
    pub fn poll_timeout(&self) -> Option<SimTime> {
        None
    }
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }
    pub fn stats(&self) -> ReceiverStats {
        self.stats.clone()
    }
}
