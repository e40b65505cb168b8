//! The event queue: a binary heap with a total order on `(time, class, identity)`.
//!
//! Equal-time events are ordered first by [`Class`], an explicit priority,
//! then by their identity ([`EventKey`]: which kind of event, which channel,
//! which endpoint), never by when the event was scheduled. So the order of
//! simultaneous events does not depend on how the engine reached them: an
//! optimisation that schedules an event at another moment (the channel's
//! lazy end of transmission, `net::channel`) leaves every result
//! bit-identical. The order is a written decision, not an accident of the
//! heap: an ACK that arrives at the very nanosecond a retransmission timer
//! expires is processed *before* the timer (packets before local timers), so
//! the timer sees the ACK's effect. With a coarse 500 ms BSD tick this
//! changes how many dupacks had arrived when the timer fired (efr §6.1),
//! hence it is documented in `docs/architecture.md`.
//!
//! An entry of the heap is one `u128`: the time in the high 64 bits, the
//! class in the next 2, the event's 62-bit identity in the rest. The event is
//! decoded from its identity when it is popped, so the heap moves 16 bytes
//! per step and compares entries in one integer comparison (the event queue
//! is the largest single cost of a run; see docs/performance.md).

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

/// A min-queue of events of payload type `E` (a small `Copy` enum).
///
/// A popped event leaves the heap lazily: its entry stays at the top until
/// the next `schedule`, which overwrites it and sifts the new entry down
/// once, or the next `pop`/`peek_time`, which removes it. Handling an event
/// nearly always schedules one (an arrival schedules the channel's next
/// arrival or the next hop's), so a pop and a push cost one sift instead of
/// two. The entries in the heap are the same either way, hence the order.
pub struct EventQueue<E> {
    heap: BinaryHeap<Reverse<u128>>,
    /// The top entry was popped and is only waiting to be replaced or removed.
    consumed: bool,
    now: SimTime,
    popped: u64,
    _events: std::marker::PhantomData<E>,
}

impl<E: EventKey> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: EventKey> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
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
        let low = u64::from(class as u8) << EVENT_KEY_BITS | key;
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
        Some((time, E::decode(k as u64 & KEY_MASK)))
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
        let mut q = EventQueue::new();
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
        let mut q = EventQueue::new();
        q.schedule(at_ms(500), Class::Timer, 't'); // the RTO
        q.schedule(at_ms(500), Class::Arrival, 'z'); // the ACK, whose identity sorts last
        assert_eq!(q.pop().unwrap().1, 'z');
        assert_eq!(q.pop().unwrap().1, 't');
    }

    #[test]
    fn pops_every_random_schedule_in_key_order() {
        // Against an ordered set of the same keys (unique ids, so that the
        // identity tie-break is total): the heap is only an accelerator.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let classes = [Class::TxDone, Class::Arrival, Class::Timer, Class::AppStart];
        let mut q = EventQueue::new();
        let mut reference = std::collections::BTreeSet::new();
        let mut id = 0u32;
        let mut pops = 0;
        for round in 0..300 {
            for _ in 0..(next() % 50) {
                // Some at the current instant, to exercise the class and FIFO tie-breaks.
                let dt = if next() % 4 == 0 { 0 } else { next() % 1000 };
                let t = q.now() + crate::time::SimDuration::from_nanos(dt);
                let c = classes[(next() % 4) as usize];
                q.schedule(t, c, id);
                reference.insert((t, c, id));
                id += 1;
            }
            let n = if round == 299 { usize::MAX } else { (next() % 40) as usize };
            for _ in 0..n {
                let want = reference.pop_first();
                let got = q.pop();
                assert_eq!(got, want.map(|(t, _, id)| (t, id)), "pop {pops}");
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
