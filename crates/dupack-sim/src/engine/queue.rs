//! The event queue: a binary heap with a total order on `(time, class, tie-break)`.
//!
//! Equal-time events are ordered first by [`Class`], an explicit priority,
//! then by a tie-break computed from their identity ([`EventKey`]: which
//! kind of event, which channel, which endpoint) and their instant, never by
//! when the event was scheduled. So the order of simultaneous events does
//! not depend on how the engine reached them: an optimisation that schedules
//! an event at another moment (the channel's lazy end of transmission,
//! `net::channel`) leaves every result bit-identical.
//!
//! The class order is a written decision, not an accident of the heap: an
//! ACK that arrives at the very nanosecond a retransmission timer expires is
//! processed *before* the timer (packets before local timers), so the timer
//! sees the ACK's effect. With a coarse 500 ms BSD tick this changes how many
//! dupacks had arrived when the timer fired (efr §6.1), hence it is
//! documented in `docs/architecture.md`.
//!
//! Within a class, the order must not favour any channel or flow
//! ([`TieBreak`]). With equal rates and packet sizes, arrivals from several
//! access links reach a router at the same nanosecond again and again; an
//! order by index hands the same flows the last slot of a full queue every
//! time, and on the unfairness dumbbell (N = 40, p = 1 %) the first flow then
//! gets four times the last one's share. The default, [`TieBreak::Shuffled`],
//! orders simultaneous events by a pseudo-random permutation of their
//! identities that is drawn anew for every instant from the run's seed: each
//! of k events tied at an instant is last with probability 1/k, whatever its
//! index, and the same seed gives the same order.
//!
//! An entry of the heap is one `u128`: the time in the high 64 bits, the
//! class in the next 2, the permuted 62-bit identity in the rest. The
//! permutation is a bijection on 62 bits, so the event is decoded from the
//! entry when it is popped; the heap moves 16 bytes per step and compares
//! entries in one integer comparison (the event queue is the largest single
//! cost of a run; see docs/performance.md).

use crate::time::SimTime;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Priority among events at the same instant (lower first).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum Class {
    /// A link finished serialising a packet; frees the transmitter.
    TxDone = 0,
    /// A packet arrives at a node.
    Arrival = 1,
    /// An endpoint timer (RTO, delayed ACK).
    Timer = 2,
    /// An application starts.
    AppStart = 3,
}

/// Bits of an event's identity.
pub const EVENT_KEY_BITS: u32 = 62;

/// An event as its identity: [`EVENT_KEY_BITS`] bits that say everything
/// about it (so that it can be rebuilt from them) and whose order is the
/// last tie-break among events of one class at one instant. Two events with
/// the same key are the same event (a timer armed twice for one instant),
/// so their order is moot.
pub trait EventKey: Copy {
    fn encode(&self) -> u64;
    fn decode(key: u64) -> Self;
}

impl EventKey for u32 {
    fn encode(&self) -> u64 {
        u64::from(*self)
    }
    fn decode(key: u64) -> Self {
        key as u32
    }
}

const KEY_MASK: u64 = (1 << EVENT_KEY_BITS) - 1;

/// How events of one class at one instant are ordered.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TieBreak {
    /// By identity: kind, then channel, flow or medium index. Deterministic
    /// but biased (the lowest index always first); kept for tests and to
    /// measure the bias (`run.tie_break = "identity"`).
    Identity,
    /// By a permutation of the identities keyed on `salt` (derived from the
    /// run's seed) and the instant: unbiased and deterministic.
    Shuffled { salt: u64 },
}

/// Odd multipliers of the 62-bit permutation and their inverses modulo 2^62.
const MIX1: u64 = 0x2545_f491_4f6c_dd1d & KEY_MASK;
const MIX2: u64 = 0x1d8e_4e27_c47d_124f & KEY_MASK;
const MIX1_INV: u64 = inverse_mod_2_62(MIX1);
const MIX2_INV: u64 = inverse_mod_2_62(MIX2);

/// The inverse of odd `m` modulo 2^62 (Newton's iteration doubles the
/// number of correct low bits each step: 1, 2, 4, …, 64).
const fn inverse_mod_2_62(m: u64) -> u64 {
    let mut inv = m; // correct to 3 bits for any odd m
    let mut i = 0;
    while i < 5 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(m.wrapping_mul(inv)));
        i += 1;
    }
    inv & KEY_MASK
}

impl TieBreak {
    /// The key of `instant`: which permutation orders its events. One
    /// multiplication (Fibonacci hashing) spreads the instant over the high
    /// bits; the two mixing rounds of [`TieBreak::order`] do the rest.
    #[inline]
    fn instant_key(salt: u64, instant: u64) -> u64 {
        (instant.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ salt) & KEY_MASK
    }

    /// The position of identity `key` among the events of `instant`.
    #[inline]
    fn order(self, instant: u64, key: u64) -> u64 {
        match self {
            TieBreak::Identity => key,
            TieBreak::Shuffled { salt } => {
                // A xor with the instant's key, then two rounds of
                // multiply and xor-shift: each step is a bijection on 62 bits.
                let mut y = key ^ Self::instant_key(salt, instant);
                y = y.wrapping_mul(MIX1) & KEY_MASK;
                y ^= y >> 31;
                y = y.wrapping_mul(MIX2) & KEY_MASK;
                y ^ (y >> 31)
            }
        }
    }

    /// The identity at position `order` of `instant` (inverse of [`TieBreak::order`]).
    #[inline]
    fn identity(self, instant: u64, order: u64) -> u64 {
        match self {
            TieBreak::Identity => order,
            TieBreak::Shuffled { salt } => {
                // y ^ (y >> 31) is its own inverse on 62 bits (2 · 31 = 62).
                let mut y = order ^ (order >> 31);
                y = y.wrapping_mul(MIX2_INV) & KEY_MASK;
                y ^= y >> 31;
                y = y.wrapping_mul(MIX1_INV) & KEY_MASK;
                y ^ Self::instant_key(salt, instant)
            }
        }
    }
}

/// A min-queue of events of payload type `E` (a small `Copy` enum).
///
/// A popped event leaves the heap lazily: its entry stays at the top until
/// the next `schedule`, which overwrites it and sifts the new entry down
/// once, or the next `pop`/`peek_time`, which removes it. Handling an event
/// nearly always schedules one (an arrival schedules the channel's next
/// arrival or the next hop's), so a pop and a push cost one sift instead of
/// two. The entries in the heap are the same either way, hence the order.
pub struct EventQueue<E> {
    tie_break: TieBreak,
    heap: BinaryHeap<Reverse<u128>>,
    /// The top entry was popped and is only waiting to be replaced or removed.
    consumed: bool,
    now: SimTime,
    popped: u64,
    _events: std::marker::PhantomData<E>,
}

impl<E: EventKey> EventQueue<E> {
    pub fn new(tie_break: TieBreak) -> Self {
        EventQueue {
            tie_break,
            heap: BinaryHeap::with_capacity(1024),
            consumed: false,
            now: SimTime::ZERO,
            popped: 0,
            _events: std::marker::PhantomData,
        }
    }

    /// Schedule `ev` at `at`. Scheduling in the past is a bug in the caller.
    pub fn schedule(&mut self, at: SimTime, class: Class, ev: E) {
        debug_assert!(at >= self.now, "event scheduled in the past: {at:?} < {:?}", self.now);
        let key = ev.encode();
        debug_assert!(key <= KEY_MASK, "event key {key:#x} wider than {EVENT_KEY_BITS} bits");
        let low = u64::from(class as u8) << EVENT_KEY_BITS | self.tie_break.order(at.as_nanos(), key);
        let entry = Reverse(u128::from(at.as_nanos()) << 64 | u128::from(low));
        if self.consumed {
            self.consumed = false;
            // Dropping the PeekMut sifts the new entry down from the top.
            *self.heap.peek_mut().expect("the consumed entry is at the top") = entry;
        } else {
            self.heap.push(entry);
        }
    }

    /// Remove the entry of the last popped event if nothing replaced it.
    fn settle(&mut self) {
        if self.consumed {
            self.consumed = false;
            self.heap.pop();
        }
    }

    /// The earliest event; time never decreases between pops.
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        self.settle();
        let &Reverse(k) = self.heap.peek()?;
        self.consumed = true;
        let time = SimTime((k >> 64) as u64);
        debug_assert!(time >= self.now);
        self.now = time;
        self.popped += 1;
        Some((time, E::decode(self.tie_break.identity(time.as_nanos(), k as u64 & KEY_MASK))))
    }

    /// [`EventQueue::pop`] if the earliest event is at or before `limit`;
    /// otherwise it stays queued.
    pub fn pop_until(&mut self, limit: SimTime) -> Option<(SimTime, E)> {
        self.settle();
        let &Reverse(k) = self.heap.peek()?;
        if SimTime((k >> 64) as u64) > limit {
            return None;
        }
        self.pop()
    }

    pub fn peek_time(&mut self) -> Option<SimTime> {
        self.settle();
        self.heap.peek().map(|Reverse(k)| SimTime((k >> 64) as u64))
    }
    pub fn now(&self) -> SimTime {
        self.now
    }
    pub fn len(&self) -> usize {
        self.heap.len() - usize::from(self.consumed)
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Events popped so far.
    pub fn popped(&self) -> u64 {
        self.popped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::at_ms;

    impl EventKey for char {
        fn encode(&self) -> u64 {
            u64::from(*self)
        }
        fn decode(key: u64) -> Self {
            char::from_u32(key as u32).expect("a char's key")
        }
    }

    #[test]
    fn pops_in_time_then_class_then_identity_order() {
        let mut q = EventQueue::new(TieBreak::Identity);
        q.schedule(at_ms(5), Class::Timer, 'a');
        q.schedule(at_ms(5), Class::Arrival, 'b');
        q.schedule(at_ms(1), Class::AppStart, 'c');
        q.schedule(at_ms(5), Class::Arrival, 'd');
        q.schedule(at_ms(5), Class::TxDone, 'e');
        // Scheduled after 'd', but its identity comes first: the order of
        // simultaneous events does not depend on when they were scheduled.
        q.schedule(at_ms(5), Class::Arrival, 'a');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['c', 'e', 'a', 'b', 'd', 'a']);
        assert_eq!(q.popped(), 6);
    }

    #[test]
    fn an_ack_at_the_timer_instant_is_seen_before_the_timer() {
        for tie_break in [TieBreak::Identity, TieBreak::Shuffled { salt: 3 }] {
            for t in 1..200 {
                let mut q = EventQueue::new(tie_break);
                q.schedule(at_ms(t), Class::Timer, 't'); // the RTO
                q.schedule(at_ms(t), Class::Arrival, 'z'); // the ACK, whose identity sorts last
                assert_eq!(q.pop().unwrap().1, 'z');
                assert_eq!(q.pop().unwrap().1, 't');
            }
        }
    }

    #[test]
    fn the_shuffle_is_a_bijection_on_62_bits() {
        assert_eq!(MIX1.wrapping_mul(MIX1_INV) & KEY_MASK, 1);
        assert_eq!(MIX2.wrapping_mul(MIX2_INV) & KEY_MASK, 1);
        let tb = TieBreak::Shuffled { salt: 0xdead_beef };
        let mut x: u64 = 1;
        for i in 0..100_000u64 {
            x = crate::engine::rng::splitmix64(x);
            let (key, t) = (x & KEY_MASK, x >> 7);
            let o = tb.order(t, key);
            assert!(o <= KEY_MASK);
            assert_eq!(tb.identity(t, o), key, "round {i}");
        }
        for key in [0, 1, KEY_MASK, KEY_MASK - 1] {
            assert_eq!(tb.identity(42, tb.order(42, key)), key);
        }
    }

    /// The regression test of the tie-break's bias: 40 arrivals (one per
    /// access channel) at each of many instants, as on a dumbbell with equal
    /// rates and packet sizes. By identity, channel 39 is always last; the
    /// shuffle makes every channel last about 1/40 of the time, and every
    /// channel precedes its neighbour about half of the time.
    #[test]
    fn no_channel_is_systematically_last_among_simultaneous_arrivals() {
        const N: u32 = 40;
        const INSTANTS: u64 = 40_000;
        let last_counts = |tie_break: TieBreak| {
            let mut last = vec![0u64; N as usize];
            let mut before_next = vec![0u64; N as usize];
            let mut q = EventQueue::new(tie_break);
            for i in 0..INSTANTS {
                // Instants 1.2 ms apart plus some nanoseconds, as packets of equal size arrive.
                let t = crate::time::SimTime(1_200_000 * (i + 1) + (i * 7919) % 1000);
                for c in 0..N {
                    q.schedule(t, Class::Arrival, c);
                }
                let order: Vec<u32> = (0..N).map(|_| q.pop().unwrap().1).collect();
                last[*order.last().unwrap() as usize] += 1;
                let pos: Vec<usize> = (0..N).map(|c| order.iter().position(|&x| x == c).unwrap()).collect();
                for c in 0..N as usize - 1 {
                    before_next[c] += u64::from(pos[c] < pos[c + 1]);
                }
            }
            (last, before_next)
        };
        let (last, _) = last_counts(TieBreak::Identity);
        assert_eq!(last[N as usize - 1], INSTANTS, "by identity the highest index is always last");

        let (last, before_next) = last_counts(TieBreak::Shuffled { salt: 99 });
        let mean = INSTANTS as f64 / f64::from(N);
        let sd = (mean * (1.0 - 1.0 / f64::from(N))).sqrt();
        for (c, &n) in last.iter().enumerate() {
            assert!((n as f64 - mean).abs() < 5.0 * sd, "channel {c} last {n} times, expected {mean:.0} ± {sd:.0}");
        }
        let half = INSTANTS as f64 / 2.0;
        let sd = (INSTANTS as f64 / 4.0).sqrt();
        for (c, &n) in before_next.iter().take(N as usize - 1).enumerate() {
            assert!((n as f64 - half).abs() < 5.0 * sd, "channel {c} before {} {n} times of {INSTANTS}", c + 1);
        }
    }

    #[test]
    fn the_same_salt_gives_the_same_order_and_another_salt_another() {
        let order = |salt: u64| {
            let mut q = EventQueue::new(TieBreak::Shuffled { salt });
            for c in 0..20u32 {
                q.schedule(at_ms(7), Class::Arrival, c);
            }
            std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect::<Vec<u32>>()
        };
        assert_eq!(order(5), order(5));
        assert_ne!(order(5), order(6));
        let mut sorted = order(5);
        sorted.sort_unstable();
        assert_eq!(sorted, (0..20).collect::<Vec<u32>>());
    }

    #[test]
    fn pops_every_random_schedule_in_key_order() {
        // Against an ordered set of the same keys (unique ids, so that the
        // tie-break is total): the heap is only an accelerator.
        for tie_break in [TieBreak::Identity, TieBreak::Shuffled { salt: 11 }] {
            let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
            let mut next = move || {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            };
            let classes = [Class::TxDone, Class::Arrival, Class::Timer, Class::AppStart];
            let mut q = EventQueue::new(tie_break);
            let mut reference = std::collections::BTreeSet::new();
            let mut id = 0u32;
            let mut pops = 0;
            for round in 0..300 {
                for _ in 0..(next() % 50) {
                    // Some at the current instant, to exercise the class and identity tie-breaks.
                    let dt = if next() % 4 == 0 { 0 } else { next() % 1000 };
                    let t = q.now() + crate::time::SimDuration::from_nanos(dt);
                    let c = classes[(next() % 4) as usize];
                    q.schedule(t, c, id);
                    reference.insert((t, c, tie_break.order(t.as_nanos(), u64::from(id)), id));
                    id += 1;
                }
                let n = if round == 299 { usize::MAX } else { (next() % 40) as usize };
                for _ in 0..n {
                    let want = reference.pop_first();
                    let got = q.pop();
                    assert_eq!(got, want.map(|(t, _, _, id)| (t, id)), "pop {pops}");
                    assert_eq!(q.len(), reference.len(), "a popped entry is gone, replaced or not");
                    if got.is_none() {
                        break;
                    }
                    pops += 1;
                }
            }
            assert!(q.is_empty() && pops > 1000);
        }
    }
}
