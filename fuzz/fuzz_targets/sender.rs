//! The TCP sender of each loss-recovery variant fed arbitrary ACK streams:
//! cumulative, duplicate, old and premature ACKs, SACK blocks (aligned,
//! unaligned, below `snd_una`, beyond `snd_max`), ECN-Echo, window changes,
//! echoed tags and timestamps, with time passing and timers firing as the
//! engine would fire them.
//!
//! Cumulative ACK numbers are segment boundaries (multiples of the MSS, or
//! the end of the data), the only ones a receiver can send: segmentation is
//! fixed and the sender never sends beyond the advertised window, so the
//! receiver never trims a segment. (Fed an ACK inside a segment, FACK
//! retransmits the whole segment, starting below `snd_una`.)
//!
//! Checked after every call:
//!
//! - no panic;
//! - `snd_una ≤ snd_nxt ≤ snd_max ≤ app_end`, and `snd_una` never decreases;
//! - `cwnd ≥ 1 MSS` and `ssthresh ≥ 2 MSS` (the initial ssthresh is
//!   unlimited, so this holds after every reduction and every undo);
//! - every transmitted segment is non-empty, at most one MSS, and lies in
//!   `[snd_una, app_end)`;
//! - the timer is never stuck: a call at a due deadline moves it on within
//!   a few calls (a policy timer and the RTO due together take two).
#![no_main]
use dupack_sim::scenario::model::{CaIncrease, LossSsthresh, TcpConfig};
use dupack_sim::tcp::segment::{SackBlock, SackBlocks, TcpFlags, TcpSegment};
use dupack_sim::tcp::sender::Sender;
use dupack_sim::tcp::variant::parse_variant;
use dupack_sim::time::{SimDuration, SimTime};
use libfuzzer_sys::fuzz_target;

const VARIANTS: [&str; 10] =
    ["reno", "newreno", "sack", "fack", "rfc6675+prr", "rack", "newreno+efr", "reno+eplr", "sack+rpld", "newreno+irw"];

fn byte(data: &[u8], i: usize) -> u8 {
    data.get(i).copied().unwrap_or(0)
}

struct Run {
    s: Sender,
    now: SimTime,
    mss: u64,
    app_end: u64,
    una: u64,
    /// Recent transmissions (tag, send time), for echoes.
    sent: Vec<(u32, SimTime)>,
}

impl Run {
    #[track_caller]
    fn check(&mut self) {
        let s = &self.s;
        let (una, nxt, max) = (s.snd_una(), s.snd_nxt(), s.snd_max());
        assert!(una <= nxt && nxt <= max && max <= self.app_end, "snd_una {una}, snd_nxt {nxt}, snd_max {max}, app_end {}", self.app_end);
        assert!(una >= self.una, "snd_una went back from {} to {una}", self.una);
        self.una = una;
        assert!(s.cwnd() >= self.mss, "cwnd {} < 1 MSS ({})", s.cwnd(), self.mss);
        assert!(s.ssthresh() >= 2 * self.mss, "ssthresh {} < 2 MSS ({})", s.ssthresh(), self.mss);
    }

    /// Drain the transmissions, as the engine does after every call.
    #[track_caller]
    fn drain(&mut self) {
        for _ in 0..10_000 {
            let Some(seg) = self.s.poll_transmit(self.now) else { return };
            let una = self.s.snd_una();
            assert!(seg.len > 0 && u64::from(seg.len) <= self.mss, "segment length {} (MSS {})", seg.len, self.mss);
            assert!(seg.seq >= una && seg.end() <= self.app_end, "segment [{}, {}) outside [{una}, {})", seg.seq, seg.end(), self.app_end);
            if self.sent.len() == 64 {
                self.sent.remove(0);
            }
            self.sent.push((seg.tag, self.now));
            self.check();
        }
        panic!("10000 segments in one instant");
    }

    /// Timers due by `self.now` fire at their deadlines, in order.
    fn timers(&mut self) {
        let mut same = 0;
        let mut last = None;
        while let Some(t) = self.s.poll_timeout() {
            if t > self.now {
                break;
            }
            same = if last == Some(t) { same + 1 } else { 0 };
            assert!(same < 4, "the timer at {t:?} does not move on");
            last = Some(t);
            let now = self.now;
            self.now = t;
            self.s.on_timer(t);
            self.check();
            self.drain();
            self.now = now;
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 8 {
        return;
    }
    let (head, ops) = data.split_at(8);
    let variant = VARIANTS[usize::from(head[0]) % VARIANTS.len()];
    let mss = u64::from(u16::from_le_bytes([head[1], head[2]]) % 1460 + 1);
    let cfg = TcpConfig {
        mss: mss as u32,
        initial_window: u32::from(head[3] % 8) + 1,
        dupthresh: [3, 3, 1, 2, 4, 5, 3, 3][usize::from(head[3] >> 3 & 7)],
        timestamps: head[3] & 0x40 != 0,
        loss_ssthresh: if head[3] & 0x80 != 0 { LossSsthresh::Window } else { LossSsthresh::FlightSize },
        ca_increase: if head[4] & 1 != 0 { CaIncrease::Fractional } else { CaIncrease::Integer },
        ..TcpConfig::default()
    };
    // A finite transfer of up to 400 segments (its last one possibly short), or an unlimited one.
    let app_bytes = (head[4] & 2 == 0).then(|| (u64::from(head[5]) + u64::from(head[4] >> 2) * 4) * mss + u64::from(head[6]) % mss + 1);
    let rwnd = (u64::from(head[7] % 64) + 1) * mss + if head[7] & 64 != 0 { u64::from(head[7]) % mss } else { 0 };
    let spec = parse_variant(variant).expect("a listed variant");
    let mut s = Sender::new(&cfg, &spec, rwnd, app_bytes);
    s.start();
    let mut r = Run { s, now: SimTime::ZERO, mss, app_end: app_bytes.unwrap_or(u64::MAX), una: 0, sent: Vec::new() };
    let mut wnd = rwnd;
    r.check();
    r.drain();

    // Each step is 8 bytes: kind, then its operands.
    for op in ops.chunks(8) {
        let b = |i| byte(op, i);
        match b(0) % 8 {
            0..=4 => {
                // An ACK.
                let (una, max) = (r.s.snd_una(), r.s.snd_max());
                let out_segs = (max - una).div_ceil(mss);
                let ack = match b(1) % 8 {
                    // New data acknowledged, whole segments (the last may be short).
                    0 | 1 => (una + (u64::from(b(2)) % (out_segs + 1)) * mss).min(max),
                    // Any segment boundary from below snd_una to beyond snd_max
                    // (old ACKs, and ACKs for data never sent, are ignored).
                    2 => (una + u64::from(b(2)) * mss).saturating_sub(u64::from(b(3)) * mss),
                    // A duplicate.
                    _ => una,
                };
                let mut sack = SackBlocks::new();
                for k in 0..usize::from(b(4) % 5) {
                    let x = b(5 + k % 3).rotate_left(k as u32 * 3);
                    let (left, right) = if x & 0x80 == 0 {
                        // Whole segments inside [snd_una, snd_max).
                        let l = una + u64::from(x & 0x1f) * mss;
                        (l, (l + u64::from(x >> 5 & 3) * mss + mss).min(max))
                    } else {
                        // Unaligned, possibly below snd_una (D-SACK) or beyond snd_max.
                        let l = una.saturating_sub(u64::from(x & 7) * mss) + u64::from(x & 0x38) * mss / 7;
                        (l, l + u64::from(x & 0x7f) * mss / 5 + 1)
                    };
                    sack.push(SackBlock { left, right });
                }
                let mut flags = TcpFlags(TcpFlags::ACK);
                if b(1) & 0x40 != 0 {
                    flags.set(TcpFlags::ECE);
                }
                if b(1) & 0x80 != 0 && b(2) & 0x80 != 0 {
                    // A window update (the next ACK is then no duplicate).
                    wnd = (u64::from(b(3) % 64) + 1) * mss;
                }
                let echo = (!r.sent.is_empty()).then(|| r.sent[usize::from(b(7)) % r.sent.len()]);
                let seg = TcpSegment {
                    seq: 0,
                    ack,
                    len: 0,
                    flags,
                    wnd,
                    sack,
                    ts: cfg.timestamps.then(|| (r.now, echo.map_or(SimTime::ZERO, |e| e.1))),
                    tag: echo.map_or(0, |e| e.0),
                    is_retransmit: false,
                };
                r.s.on_segment(&seg, r.now);
                r.check();
                r.drain();
            }
            5 => {
                // Time passes, from a microsecond to about 70 s.
                let dt = u64::from(u16::from_le_bytes([b(1), b(2)]));
                r.now += SimDuration(dt * dt * 16);
                r.timers();
            }
            6 => {
                // The next deadline comes.
                if let Some(t) = r.s.poll_timeout() {
                    r.now = r.now.max(t);
                    r.timers();
                }
            }
            _ => {
                // A little time passes (ACKs in one round arrive close together).
                r.now += SimDuration(u64::from(b(1)) * 100_000);
                r.timers();
            }
        }
    }
});
