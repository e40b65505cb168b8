//! Simulated time: integer nanoseconds, never floating point.
//!
//! Every instant is a [`SimTime`] and every span a [`SimDuration`], both `u64`
//! nanoseconds. Floating point appears only when a result is *reported*
//! (seconds, kbit/s), never in the simulation itself, so two machines compute
//! the same event order bit for bit.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// An instant of simulated time, in nanoseconds since the start of the run.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct SimTime(pub u64);

/// A span of simulated time, in nanoseconds.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct SimDuration(pub u64);

pub const NANOS_PER_SEC: u64 = 1_000_000_000;

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);
    pub fn as_nanos(self) -> u64 {
        self.0
    }
    /// Seconds, for reporting only.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SEC as f64
    }
    /// `self - earlier`, or zero if `earlier` is later.
    pub fn saturating_since(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(earlier.0))
    }
}

impl SimDuration {
    pub const ZERO: SimDuration = SimDuration(0);
    pub const MAX: SimDuration = SimDuration(u64::MAX);
    pub const fn from_nanos(n: u64) -> Self {
        SimDuration(n)
    }
    pub const fn from_micros(us: u64) -> Self {
        SimDuration(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Self {
        SimDuration(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimDuration(s * NANOS_PER_SEC)
    }
    pub fn as_nanos(self) -> u64 {
        self.0
    }
    /// Seconds, for reporting only.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SEC as f64
    }
    pub fn saturating_mul(self, k: u64) -> Self {
        SimDuration(self.0.saturating_mul(k))
    }
}

/// Shorthand constructors used throughout tests: `ms(100)`, `us(5)`, `secs(1)`.
pub const fn ms(v: u64) -> SimDuration {
    SimDuration::from_millis(v)
}
pub const fn us(v: u64) -> SimDuration {
    SimDuration::from_micros(v)
}
pub const fn secs(v: u64) -> SimDuration {
    SimDuration::from_secs(v)
}
/// The instant `v` milliseconds after the start.
pub const fn at_ms(v: u64) -> SimTime {
    SimTime(v * 1_000_000)
}

impl Add<SimDuration> for SimTime {
    type Output = SimTime;
    fn add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}
impl AddAssign<SimDuration> for SimTime {
    fn add_assign(&mut self, d: SimDuration) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub<SimTime> for SimTime {
    type Output = SimDuration;
    /// Panics in debug builds if `rhs` is later: use `saturating_since` when that can happen.
    fn sub(self, rhs: SimTime) -> SimDuration {
        debug_assert!(self.0 >= rhs.0, "time went backwards");
        SimDuration(self.0.wrapping_sub(rhs.0))
    }
}
impl Add for SimDuration {
    type Output = SimDuration;
    fn add(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_add(d.0))
    }
}
impl Sub for SimDuration {
    type Output = SimDuration;
    fn sub(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_sub(d.0))
    }
}

fn fmt_ns(ns: u64, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    if ns.is_multiple_of(1_000_000) {
        write!(f, "{}ms", ns / 1_000_000)
    } else if ns.is_multiple_of(1_000) {
        write!(f, "{}us", ns / 1_000)
    } else {
        write!(f, "{}ns", ns)
    }
}
impl fmt::Debug for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("t=")?;
        fmt_ns(self.0, f)
    }
}
impl fmt::Debug for SimDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_ns(self.0, f)
    }
}

/// Time to serialise `bytes` onto a link of `rate_bps` bits per second,
/// rounded up to the next nanosecond so a link never runs faster than its rate.
pub fn tx_time(bytes: u64, rate_bps: u64) -> SimDuration {
    let (whole, frac) = bit_ns_div(bytes, rate_bps);
    SimDuration(whole + u64::from(frac > 0))
}

/// `8·bytes·10⁹ / rate_bps` as whole nanoseconds and a remainder in units
/// of 1/`rate_bps` ns. Bit-nanoseconds of any packet fit in 64 bits (up to
/// ~2.3 GB); the 128-bit division, a library call, is only for larger
/// amounts. Both give the same result; this is one per frame size and
/// channel, hence the care.
fn bit_ns_div(bytes: u64, rate_bps: u64) -> (u64, u64) {
    debug_assert!(rate_bps > 0);
    const FITS: u64 = u64::MAX / (8 * NANOS_PER_SEC);
    if bytes <= FITS {
        let bit_ns = bytes * 8 * NANOS_PER_SEC;
        return (bit_ns / rate_bps, bit_ns % rate_bps);
    }
    let bit_ns = bytes as u128 * 8 * NANOS_PER_SEC as u128;
    ((bit_ns / rate_bps as u128) as u64, (bit_ns % rate_bps as u128) as u64)
}

/// Serialisation on a rate-driven transmitter, exact over a busy period.
///
/// A frame of `b` bytes takes `8·b·10⁹ / rate` ns, rarely a whole number
/// (1040 B at 3 Mbit/s: 2 773 333⅓ ns). Rounding every frame to the
/// nanosecond would bias the model twice: the link would run at a slightly
/// different rate, and — what matters more — instants that coincide in
/// exact arithmetic would not coincide here. On a dumbbell with 1 Mbit/s
/// access links and a 3 Mbit/s bottleneck, three bottleneck frames last
/// exactly one access frame; rounded up they last 2 ns more, so of two
/// arrivals at the bottleneck that are simultaneous in exact time, the one
/// whose path crossed more rounded frames comes later, the same way every
/// time. The queue's last slot then goes to the same flows at every such
/// coincidence: a phase effect made by the arithmetic, not by the network
/// (140 flows on that dumbbell: Jain's index 0.957 rounded up, 0.972 exact,
/// ns-2 0.976; docs/validation.md, scenario 3).
///
/// So each frame ends at the whole nanosecond at or before its exact end,
/// and the fraction left over is carried into the next frame when that one
/// starts back to back (at the previous end): the k-th frame of a busy
/// period ends at exactly ⌊exact k-th end⌋, whatever k. A frame that starts
/// on an idle transmitter starts at a whole nanosecond and carries nothing.
/// True simultaneity then stays exact and goes to the unbiased tie-break of
/// the event queue.
///
/// `TxClock::per_frame` (`wire.tx_time = "per_frame"`) rounds each frame's
/// duration to the nearest nanosecond on its own instead, as ns-3 does, for
/// mirroring it: with its 2-byte PPP header three 1042 B frames at 3 Mbit/s
/// last 3 × 2 778 667 ns, 1 ns more than one at 1 Mbit/s, so there the
/// packet sent back to back by one flow reaches the bottleneck 1 ns before
/// the packet another flow sent on the ACK three frames later, and always
/// takes the last place in its queue (docs/validation.md, "Traced on the
/// dumbbell").
#[derive(Clone, Debug, Default)]
pub struct TxClock {
    /// The last frame size served and its duration as whole nanoseconds
    /// plus a remainder in units of 1/rate ns: packets of a flow mostly
    /// have one of two sizes, and this saves a division per frame.
    memo: (u64, u64, u64),
    /// When the last frame ended, and the fraction of a nanosecond (in
    /// units of 1/rate ns) by which its exact end lies after that instant.
    end: SimTime,
    carry: u64,
    /// Each frame rounded to the nearest nanosecond on its own, nothing carried.
    per_frame: bool,
}

impl TxClock {
    /// A clock that rounds every frame's duration to the nearest nanosecond
    /// on its own (ns-3's arithmetic); `TxClock::default()` is the exact one.
    pub fn per_frame() -> Self {
        TxClock { per_frame: true, ..TxClock::default() }
    }

    /// A frame of `bytes` starts at `now` on a transmitter of `rate_bps`
    /// (never changed between calls): when does its last bit leave?
    pub fn serve(&mut self, bytes: u64, rate_bps: u64, now: SimTime) -> SimTime {
        debug_assert!(rate_bps > 0);
        // The default memo, (0 B, 0 ns), is right for an empty frame too.
        if self.memo.0 != bytes {
            let (whole, frac) = bit_ns_div(bytes, rate_bps);
            self.memo = (bytes, whole, frac);
        }
        let (_, whole, frac) = self.memo;
        if self.per_frame {
            // Nearest, halves up: whole + frac/rate with frac/rate ≥ ½.
            let ns = if frac >= rate_bps - frac { whole + 1 } else { whole };
            self.end = now + SimDuration(ns);
            return self.end;
        }
        let carried = if now == self.end { self.carry } else { 0 };
        // carried + frac < 2·rate_bps; add them without overflowing.
        let (ns, rest) =
            if frac >= rate_bps - carried { (whole + 1, frac - (rate_bps - carried)) } else { (whole, carried + frac) };
        self.end = now + SimDuration(ns);
        self.carry = rest;
        self.end
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn tx_time_is_the_same_on_both_sides_of_the_64_bit_shortcut() {
        let wide = |bytes: u64, rate: u64| ((bytes as u128 * 8 * NANOS_PER_SEC as u128).div_ceil(rate as u128)) as u64;
        let edge = u64::MAX / (8 * NANOS_PER_SEC);
        for bytes in [0, 1, 40, 1040, 1500, 65_535, edge - 1, edge, edge + 1, edge * 2] {
            for rate in [1, 9_600, 64_000, 1_000_000, 3_000_000, 2_000_000_001, 100_000_000_000] {
                assert_eq!(tx_time(bytes, rate).as_nanos(), wide(bytes, rate), "{bytes} B at {rate} bit/s");
            }
        }
    }

    #[test]
    fn tx_time_rounds_up() {
        // 1000 B at 8 Mbps = 1 ms exactly.
        assert_eq!(tx_time(1000, 8_000_000), ms(1));
        // 1 B at 3 bps = 8/3 s -> rounded up to the nanosecond.
        assert_eq!(tx_time(1, 3), SimDuration(2_666_666_667));
    }
    #[test]
    fn back_to_back_frames_end_at_their_exact_instants_rounded_down() {
        // 1040 B at 3 Mbit/s: 8 320 000 000 000 / 3 000 000 = 2 773 333⅓ ns.
        let mut c = TxClock::default();
        let mut t = at_ms(5);
        let start = t;
        for k in 1..=9u64 {
            t = c.serve(1040, 3_000_000, t);
            assert_eq!(t.as_nanos() - start.as_nanos(), k * 8_320_000 / 3, "frame {k}");
        }
        // Three of them last exactly one 1040 B frame at 1 Mbit/s.
        let mut access = TxClock::default();
        assert_eq!(access.serve(1040, 1_000_000, start) - start, SimDuration(8_320_000));
        assert_eq!(t - start, SimDuration(3 * 8_320_000));
    }

    /// ns-3.44's `DataRate::CalculateBytesTxTime`, printed by a program
    /// built against the wheel: 1040 B at 3 Mbit/s 2 773 333 ns, 1042 B
    /// 2 778 667 ns, 40 B 106 667 ns, 578 B 1 541 333 ns; 1042 B at
    /// 1 Mbit/s 8 336 000 ns. Each frame alone, back to back or not.
    #[test]
    fn per_frame_rounds_every_frame_to_the_nearest_nanosecond_as_ns3() {
        let mut c = TxClock::per_frame();
        let mut t = SimTime(0);
        for (bytes, rate, ns) in [
            (1040, 3_000_000, 2_773_333),
            (1042, 3_000_000, 2_778_667),
            (1042, 3_000_000, 2_778_667),
            (40, 3_000_000, 106_667),
            (578, 3_000_000, 1_541_333),
            (1042, 1_000_000, 8_336_000),
            (1, 2, 4_000_000_000),
        ] {
            let end = c.serve(bytes, rate, t);
            assert_eq!(end - t, SimDuration(ns), "{bytes} B at {rate} bit/s");
            t = end;
        }
        // Three 1042 B frames at 3 Mbit/s: 1 ns longer than one at 1 Mbit/s,
        // where the exact clock makes them equal.
        let (mut pf, mut exact) = (TxClock::per_frame(), TxClock::default());
        let (mut a, mut b) = (SimTime(0), SimTime(0));
        for _ in 0..3 {
            a = pf.serve(1042, 3_000_000, a);
            b = exact.serve(1042, 3_000_000, b);
        }
        assert_eq!((a.as_nanos(), b.as_nanos()), (8_336_001, 8_336_000));
    }

    #[test]
    fn a_frame_after_an_idle_gap_carries_nothing() {
        let mut c = TxClock::default();
        let end = c.serve(1040, 3_000_000, SimTime(0));
        assert_eq!(end, SimTime(2_773_333));
        // Not back to back: starts at a whole nanosecond, ends ⌊⅓⌋ later again.
        let later = SimTime(end.as_nanos() + 1);
        assert_eq!(c.serve(1040, 3_000_000, later) - later, SimDuration(2_773_333));
        // Mixed sizes keep the exact sum: 40 B + 1040 B at 3 Mbit/s = 2 880 000 ns.
        let mut m = TxClock::default();
        let a = m.serve(40, 3_000_000, SimTime(0));
        assert_eq!(a, SimTime(106_666));
        assert_eq!(m.serve(1040, 3_000_000, a), SimTime(2_880_000));
        // A whole number of nanoseconds is exact on its own.
        assert_eq!(TxClock::default().serve(1000, 8_000_000, SimTime(7)), SimTime(1_000_007));
        assert_eq!(TxClock::default().serve(0, 8_000_000, SimTime(7)), SimTime(7));
    }

    #[test]
    fn arithmetic_saturates() {
        assert_eq!(SimTime::MAX + ms(1), SimTime::MAX);
        assert_eq!(at_ms(5).saturating_since(at_ms(7)), SimDuration::ZERO);
        assert_eq!(at_ms(7) - at_ms(5), ms(2));
    }
}
