//! A sender host's processing delay (`tcp.overhead`).
//!
//! ns-2's `overhead_`: each data segment the sender emits waits a random
//! time, uniform in [0, `max`], before it leaves the host, counted from when
//! it was emitted or from when the segment before it left, whichever is
//! later (ns-2 holds further sends while its `delsnd_timer_` runs, then
//! draws anew). Segments leave in order. The sender itself is not told: its
//! timers and RTT samples start when it emits the segment.

use crate::engine::rng::StreamRng;
use crate::net::packet::PacketRef;
use crate::time::{SimDuration, SimTime};
use std::collections::VecDeque;

pub struct HostDelay {
    max: SimDuration,
    rng: StreamRng,
    /// Segments waiting, with the instant each leaves.
    held: VecDeque<(SimTime, PacketRef)>,
    last_release: SimTime,
}

impl HostDelay {
    pub fn new(max: SimDuration, rng: StreamRng) -> Self {
        HostDelay { max, rng, held: VecDeque::new(), last_release: SimTime::ZERO }
    }

    /// Hold `r`, emitted at `now`. Returns its release instant if it is the
    /// only segment waiting (the caller schedules one release at a time).
    pub fn hold(&mut self, r: PacketRef, now: SimTime) -> Option<SimTime> {
        let at = self.last_release.max(now) + self.rng.duration_up_to(self.max);
        self.last_release = at;
        self.held.push_back((at, r));
        (self.held.len() == 1).then_some(at)
    }

    /// The segment whose release is due, and when the next one leaves.
    pub fn release(&mut self) -> (PacketRef, Option<SimTime>) {
        let (_, r) = self.held.pop_front().expect("a release with a held segment");
        (r, self.held.front().map(|&(t, _)| t))
    }

    /// Segments waiting (the packet accounting invariant counts them).
    pub fn held(&self) -> usize {
        self.held.len()
    }
}
