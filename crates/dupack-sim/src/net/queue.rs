//! Queue disciplines at the sending end of a channel.
//!
//! The packet being serialised is not in the queue: a limit of N packets
//! means N packets may *wait* behind the one on the wire (ns-2's DropTail
//! and ns-3's device-queue convention).
//!
//! `enqueue` hands a refused packet back by value: no allocation per packet.
//! A queue holds any [`Queued`] item: the world's channels queue a handle
//! into the packet pool with the two fields a queue reads (size and ECN);
//! a shared medium's stations (`net::medium`) and the unit tests queue whole
//! packets.
//!
//! Every arrival is shown to the queue, also one that finds the transmitter
//! idle and goes straight to the wire ([`Qdisc::arrive_idle`]): RED must
//! update its average and may drop or mark that packet too (as in ns-2,
//! where such a packet is enqueued and dequeued at once).
#![allow(clippy::result_large_err)]

use super::packet::{Ecn, Packet};
use crate::engine::rng::StreamRng;
use crate::scenario::model::{QueueLimit, QueueSpec, RedRules, RedSpec};
use crate::time::{tx_time, SimTime};
use std::collections::VecDeque;

/// Room a queue's (and a channel's propagation) FIFO has before it grows:
/// grown from empty, one doubling at a time, the FIFOs of a short run's
/// links were reallocated tens of times (about 0.6 % of a 1 s run).
pub const FIFO_START: usize = 16;

/// What a queue holds: a packet, or a handle to one that carries the
/// fields a queue discipline reads. A mark (CE) is set on the item; the
/// holder of a handle applies it to the packet.
pub trait Queued {
    /// IP datagram size in bytes.
    fn size(&self) -> u32;
    fn ecn(&self) -> Ecn;
    fn set_ce(&mut self);
}

/// [`Queued`] for a type whose `size: u32` and `ecn: Ecn` fields are what a
/// queue reads: a packet, or a channel's handle that carries copies of them.
macro_rules! queued_by_fields {
    ($t:ty) => {
        impl $crate::net::queue::Queued for $t {
            fn size(&self) -> u32 {
                self.size
            }
            fn ecn(&self) -> $crate::net::packet::Ecn {
                self.ecn
            }
            fn set_ce(&mut self) {
                self.ecn = $crate::net::packet::Ecn::Ce;
            }
        }
    };
}
pub(crate) use queued_by_fields;

queued_by_fields!(Packet);

/// What a queue decided about an arriving packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Accept,
    /// Accepted with its ECN field set to CE.
    Mark,
    Drop,
}

/// DropTail FIFO with a limit in packets or bytes.
#[derive(Clone, Debug)]
pub struct DropTail<T = Packet> {
    limit: QueueLimit,
    q: VecDeque<T>,
    bytes: u64,
}

impl<T: Queued> DropTail<T> {
    pub fn new(limit: QueueLimit) -> Self {
        DropTail { limit, q: VecDeque::with_capacity(FIFO_START), bytes: 0 }
    }
    /// Enqueue, or give the packet back if it does not fit.
    pub fn enqueue(&mut self, p: T) -> Result<(), T> {
        let fits = match self.limit {
            QueueLimit::Packets(n) => self.q.len() < n as usize,
            QueueLimit::Bytes(b) => self.bytes + p.size() as u64 <= b,
        };
        if !fits {
            return Err(p);
        }
        self.bytes += p.size() as u64;
        self.q.push_back(p);
        Ok(())
    }
    pub fn dequeue(&mut self) -> Option<T> {
        let p = self.q.pop_front()?;
        self.bytes -= p.size() as u64;
        Some(p)
    }
    pub fn len_packets(&self) -> usize {
        self.q.len()
    }
    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }
}

/// Random Early Detection (Floyd & Jacobson 1993, Fig. 2; the unfairness
/// paper's Fig. 4), optionally marking ECN-capable packets instead of
/// dropping them (RFC 3168). Thresholds and limit count waiting packets.
///
/// At each arrival, in this order:
///
/// 1. `avg` is updated from the number of packets `q` *waiting* when the
///    packet arrives (before it is added; the packet on the wire is not
///    counted): if the channel has been idle (nothing waiting, nothing on the
///    wire) since `q_time`, `avg ← (1 − wq)^m · avg` with
///    `m = (now − q_time)/s`, a real number, `s` the transmission time of
///    `mean_packet_size` bytes at the link rate; otherwise
///    `avg ← (1 − wq)·avg + wq·q` (with `q = 0` when only the wire is busy).
/// 2. The decision, with `count` (initially −1):
///    - `avg < min_th`: accept, `count ← −1`;
///    - `min_th ≤ avg < max_th` (or `< 2·max_th` when gentle): `count ← count + 1`,
///      `pb = maxp·(avg − min_th)/(max_th − min_th)` (gentle, above `max_th`:
///      `pb = maxp + (1 − maxp)·(avg − max_th)/max_th`),
///      `pa = pb/(1 − count·pb)` (1 once `count·pb ≥ 1`); with probability
///      `pa` the packet is an early-drop candidate and `count ← 0`;
///    - above that: the packet is a forced candidate and `count ← 0`.
/// 3. A candidate is marked (CE) instead of dropped if `ecn` is on and the
///    packet is ECN-capable (ECT(0), ECT(1) or already CE); a forced candidate
///    only if `mark_above_max_th` is on too. Otherwise it is dropped.
/// 4. A packet not dropped is dropped anyway if `limit_packets` packets are
///    already waiting (this does not change `count`).
///
/// `q_time` is the instant the transmitter finished a packet and found
/// nothing waiting, or the instant an arrival at an idle channel was dropped.
///
/// With `rules = RedRules::Ns2` step 2 is ns-2.35's `REDQueue::enque`: no
/// candidate at all unless `avg ≥ min_th` *and* more than one packet waits
/// (otherwise `count ← −1`), and the first arrival that finds both (with
/// `count = −1`) is accepted with `count ← 1`, so the next one has
/// `pa = pb/(1 − 2·pb)`.
#[derive(Clone, Debug)]
pub struct Red<T = Packet> {
    spec: RedSpec,
    q: VecDeque<T>,
    /// Transmission time of a typical packet, in ns (≥ 1).
    s_nanos: u64,
    avg: f64,
    count: i64,
    /// `Some(q_time)` while the channel is idle.
    idle_since: Option<SimTime>,
    rng: StreamRng,
    /// ns-2's `edv_.old` (`rules = Ns2` only): the last arrival found the
    /// average at or above `min_th` with more than one packet waiting.
    ns2_old: bool,
}

enum Candidate {
    None,
    Early,
    Forced,
}

impl<T: Queued> Red<T> {
    pub fn new(spec: &RedSpec, rate_bps: u64, rng: StreamRng) -> Self {
        let s_nanos = tx_time(u64::from(spec.mean_packet_size), rate_bps).as_nanos().max(1);
        Red {
            spec: spec.clone(),
            q: VecDeque::with_capacity(FIFO_START),
            s_nanos,
            avg: 0.0,
            count: -1,
            idle_since: Some(SimTime::ZERO),
            rng,
            ns2_old: false,
        }
    }

    /// The average queue length as of the last arrival.
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// Arrivals since the last early or forced candidate (−1 below `min_th`).
    pub fn count(&self) -> i64 {
        self.count
    }

    pub fn len_packets(&self) -> usize {
        self.q.len()
    }

    fn update_avg(&mut self, now: SimTime) {
        let wq = self.spec.wq;
        match self.idle_since.take() {
            Some(q_time) => {
                let m = now.saturating_since(q_time).as_nanos() as f64 / self.s_nanos as f64;
                self.avg *= (1.0 - wq).powf(m);
            }
            None => self.avg = (1.0 - wq) * self.avg + wq * self.q.len() as f64,
        }
    }

    fn candidate(&mut self) -> Candidate {
        let (min_th, max_th) = (f64::from(self.spec.min_th), f64::from(self.spec.max_th));
        let maxp = self.spec.maxp;
        let avg = self.avg;
        if self.spec.rules == RedRules::Ns2 {
            if avg < min_th || self.q.len() <= 1 {
                // ns-2: "qavg >= th_min && qlen > 1" guards every drop; else old = 0.
                self.ns2_old = false;
                self.count = -1;
                return Candidate::None;
            }
            let forced = if self.spec.gentle { avg >= 2.0 * max_th } else { avg >= max_th };
            if !self.ns2_old && !forced {
                // ns-2's edv_.old == 0: the average has just crossed min_th
                // (or the queue has just refilled); this arrival passes.
                self.ns2_old = true;
                self.count = 1;
                return Candidate::None;
            }
        }
        let pb = if avg < min_th {
            self.count = -1;
            return Candidate::None;
        } else if avg < max_th {
            maxp * (avg - min_th) / (max_th - min_th)
        } else if self.spec.gentle && avg < 2.0 * max_th {
            maxp + (1.0 - maxp) * (avg - max_th) / max_th
        } else {
            self.count = 0;
            return Candidate::Forced;
        };
        self.count += 1;
        let cpb = self.count as f64 * pb;
        let pa = if cpb < 1.0 { pb / (1.0 - cpb) } else { 1.0 };
        if self.rng.chance(pa) {
            self.count = 0;
            Candidate::Early
        } else {
            Candidate::None
        }
    }

    fn decide(&mut self, p: &mut T, now: SimTime) -> Verdict {
        self.update_avg(now);
        let may_mark = match self.candidate() {
            Candidate::None => return Verdict::Accept,
            Candidate::Early => self.spec.ecn,
            Candidate::Forced => self.spec.ecn && self.spec.mark_above_max_th,
        };
        if may_mark && p.ecn() != Ecn::NotEct {
            p.set_ce();
            Verdict::Mark
        } else {
            Verdict::Drop
        }
    }

    /// A packet arrives at an idle channel (nothing waiting or on the wire)
    /// and will be sent at once unless dropped. It may be marked.
    pub fn arrive_idle(&mut self, p: &mut T, now: SimTime) -> Verdict {
        debug_assert!(self.q.is_empty());
        let v = self.decide(p, now);
        if v == Verdict::Drop {
            self.idle_since = Some(now);
        }
        v
    }

    /// A packet arrives while the transmitter is busy: `Ok(marked)` if it now
    /// waits, or the packet back if it was dropped.
    pub fn enqueue(&mut self, mut p: T, now: SimTime) -> Result<bool, T> {
        let v = self.decide(&mut p, now);
        if v == Verdict::Drop || self.q.len() >= self.spec.limit_packets as usize {
            if v != Verdict::Drop && self.spec.rules == RedRules::Ns2 {
                // ns-2 makes a full buffer a forced drop, which restarts count.
                self.count = 0;
            }
            return Err(p);
        }
        self.q.push_back(p);
        Ok(v == Verdict::Mark)
    }

    pub fn dequeue(&mut self) -> Option<T> {
        self.q.pop_front()
    }

    /// The transmitter finished at `now` and nothing waits: the idle period starts.
    pub fn on_idle(&mut self, now: SimTime) {
        debug_assert!(self.q.is_empty());
        self.idle_since = Some(now);
    }
}

/// The queue of a channel; an enum so the per-packet path has no virtual call.
#[derive(Clone, Debug)]
pub enum Qdisc<T = Packet> {
    DropTail(DropTail<T>),
    Red(Red<T>),
}

impl<T: Queued> Qdisc<T> {
    /// `rng` is the queue's own stream (`link/{link}/{fwd|rev}/queue`);
    /// `rate_bps` is the link's rate.
    pub fn from_spec(s: &QueueSpec, rate_bps: u64, rng: StreamRng) -> Self {
        match s {
            QueueSpec::DropTail { limit } => Qdisc::DropTail(DropTail::new(*limit)),
            QueueSpec::Red(spec) => Qdisc::Red(Red::new(spec, rate_bps, rng)),
        }
    }
    /// See [`Red::arrive_idle`]; DropTail accepts every such packet.
    pub fn arrive_idle(&mut self, p: &mut T, now: SimTime) -> Verdict {
        match self {
            Qdisc::DropTail(_) => Verdict::Accept,
            Qdisc::Red(q) => q.arrive_idle(p, now),
        }
    }
    /// `Ok(marked)`, or the dropped packet.
    pub fn enqueue(&mut self, p: T, now: SimTime) -> Result<bool, T> {
        match self {
            Qdisc::DropTail(q) => q.enqueue(p).map(|()| false),
            Qdisc::Red(q) => q.enqueue(p, now),
        }
    }
    pub fn dequeue(&mut self) -> Option<T> {
        match self {
            Qdisc::DropTail(q) => q.dequeue(),
            Qdisc::Red(q) => q.dequeue(),
        }
    }
    /// The transmitter went idle at `now` with nothing waiting.
    pub fn on_idle(&mut self, now: SimTime) {
        match self {
            Qdisc::DropTail(_) => {}
            Qdisc::Red(q) => q.on_idle(now),
        }
    }
    pub fn len_packets(&self) -> usize {
        match self {
            Qdisc::DropTail(q) => q.len_packets(),
            Qdisc::Red(q) => q.len_packets(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Ecn;
    use crate::time::SimTime;

    fn pkt(id: u64, size: u32) -> Packet {
        Packet::test_segment(id, 0, 0, size - 40)
    }

    fn red_spec(min_th: u32, max_th: u32, limit: u32, maxp: f64, wq: f64) -> RedSpec {
        RedSpec { min_th, max_th, limit_packets: limit, maxp, wq, ..RedSpec::default() }
    }

    fn red(spec: &RedSpec) -> Red {
        Red::new(spec, 1_000_000, StreamRng::new(1, "test/red"))
    }

    fn ect(id: u64) -> Packet {
        Packet { ecn: Ecn::Ect0, ..pkt(id, 1000) }
    }

    /// Arrival outcomes while the queue holds exactly `q0` waiting packets:
    /// after each accepted arrival one packet leaves, so every arrival sees
    /// `q0` (with `wq = 1`, `avg = q0` exactly). For each arrival in the
    /// random band the count it was decided with (checked against the
    /// rules: +1 per arrival, 0 after a drop or mark) and whether it was hit.
    struct Held {
        /// (count used, hit) per arrival.
        decisions: Vec<(i64, bool)>,
        drops: usize,
        marks: usize,
    }

    fn hold(q: &mut Red, q0: usize, n: usize, mk: impl Fn(u64) -> Packet) -> Held {
        // Fill without decisions (RED would refuse to grow past max_th), the
        // wire busy from now on.
        let mut id = 0;
        while q.len_packets() < q0 {
            id += 1;
            q.q.push_back(mk(id));
        }
        q.idle_since = None;
        let mut held = Held { decisions: Vec::new(), drops: 0, marks: 0 };
        for _ in 0..n {
            id += 1;
            let before = q.count();
            let r = q.enqueue(mk(id), SimTime(id));
            assert_eq!(q.len_packets(), q0 + usize::from(r.is_ok()));
            let hit = match r {
                Err(_) => {
                    held.drops += 1;
                    true
                }
                Ok(true) => {
                    held.marks += 1;
                    true
                }
                Ok(false) => false,
            };
            if hit {
                assert_eq!(q.count(), 0, "count restarts at 0 after a drop or mark");
                held.decisions.push((before + 1, hit));
            } else if q.count() != -1 {
                assert_eq!(q.count(), before + 1, "count grows by one per unmarked arrival");
                held.decisions.push((before + 1, hit));
            } else {
                assert!(q.avg() < f64::from(q.spec.min_th), "count is -1 only below min_th");
            }
            if let Ok(marked) = r {
                let sent = mk(id).ecn;
                let stored = q.q.back().unwrap().ecn;
                assert_eq!(stored, if marked { Ecn::Ce } else { sent }, "a marked packet carries CE");
                q.dequeue().unwrap();
            }
        }
        held
    }

    /// `pa` of the arrival decided with `count`, from the formula.
    fn pa(pb: f64, count: i64) -> f64 {
        let c = count as f64 * pb;
        if c < 1.0 {
            pb / (1.0 - c)
        } else {
            1.0
        }
    }

    /// Hit frequency per count value and overall, against `pa`: for each
    /// count seen at least 400 times, |freq − pa| < 5σ; overall, the hit
    /// rate is 1/E[X] with E[X] = Σ_k Π_{c=1..k} (1 − pa(c)) (counts run
    /// 1, 2, … after a hit), within 5σ of a Bernoulli rate of the same mean
    /// (conservative: uniformised gaps vary less than geometric ones).
    fn check_follows_pa(h: &Held, pb: f64) {
        let mut per: std::collections::BTreeMap<i64, (u64, u64)> = Default::default();
        for &(c, hit) in &h.decisions {
            let e = per.entry(c).or_default();
            e.0 += 1;
            e.1 += u64::from(hit);
        }
        let mut checked = 0;
        for (&c, &(n, k)) in &per {
            let p = pa(pb, c);
            if n < 400 || p >= 1.0 {
                continue;
            }
            let sigma = (p * (1.0 - p) / n as f64).sqrt();
            let f = k as f64 / n as f64;
            assert!((f - p).abs() < 5.0 * sigma + 1e-12, "pb {pb}, count {c}: {k}/{n} = {f} vs pa {p}");
            checked += 1;
        }
        assert!(checked >= 2, "too few count values to check: {per:?}");
        let (mut ex, mut surv, mut c) = (0.0, 1.0, 1);
        while surv > 1e-15 {
            ex += surv;
            surv *= 1.0 - pa(pb, c);
            c += 1;
        }
        let rate = 1.0 / ex;
        let n = h.decisions.len() as f64;
        let hits = h.decisions.iter().filter(|d| d.1).count() as f64;
        let sigma = (rate * (1.0 - rate) / n).sqrt();
        assert!((hits / n - rate).abs() < 5.0 * sigma, "pb {pb}: rate {} vs {rate}", hits / n);
        // Not the plain Bernoulli rate pb: the uniformisation is visible.
        assert!((hits / n - pb).abs() > 5.0 * sigma, "pb {pb}: rate {} looks like pb", hits / n);
    }

    #[test]
    fn red_drop_probability_follows_pa_at_several_average_levels() {
        let spec = red_spec(5, 15, 50, 0.1, 1.0);
        for q0 in [6usize, 10, 14] {
            let mut q = red(&spec);
            let h = hold(&mut q, q0, 100_000, |id| pkt(id, 1000));
            assert_eq!(q.avg(), q0 as f64, "wq = 1: avg is the queue the arrival sees");
            assert_eq!(h.marks, 0, "without ecn nothing is marked");
            check_follows_pa(&h, 0.1 * (q0 as f64 - 5.0) / 10.0);
        }
    }

    #[test]
    fn red_below_min_th_accepts_all_and_above_max_th_drops_all() {
        let spec = red_spec(5, 15, 50, 0.1, 1.0);
        let mut q = red(&spec);
        let h = hold(&mut q, 4, 10_000, |id| pkt(id, 1000));
        assert_eq!(h.drops, 0);
        assert_eq!(q.count(), -1, "count is -1 below min_th");
        for q0 in [15usize, 16, 40] {
            let mut q = red(&spec);
            let h = hold(&mut q, q0, 2_000, |id| pkt(id, 1000));
            assert_eq!(h.drops, 2_000, "avg {q0} >= max_th drops every arrival");
        }
        // The first arrival at min_th is decided with count 0 (pa = pb).
        let mut q = red(&spec);
        let h = hold(&mut q, 5, 1, |id| pkt(id, 1000));
        assert_eq!(h.decisions[0].0, 0);
    }

    #[test]
    fn gentle_ramps_from_maxp_to_one_between_max_th_and_twice_max_th() {
        let spec = RedSpec { gentle: true, ..red_spec(5, 15, 50, 0.1, 1.0) };
        // Below max_th gentle changes nothing.
        let mut q = red(&spec);
        check_follows_pa(&hold(&mut q, 10, 50_000, |id| pkt(id, 1000)), 0.05);
        let mut last = 0.0;
        for q0 in [16usize, 17, 18] {
            let pb = 0.1 + 0.9 * (q0 as f64 - 15.0) / 15.0;
            let mut q = red(&spec);
            let h = hold(&mut q, q0, 50_000, |id| pkt(id, 1000));
            check_follows_pa(&h, pb);
            let rate = h.drops as f64 / 50_000.0;
            assert!(rate > last, "the drop rate grows with avg");
            last = rate;
        }
        let mut q = red(&spec);
        assert_eq!(hold(&mut q, 30, 1_000, |id| pkt(id, 1000)).drops, 1_000, "2·max_th drops all");
    }

    #[test]
    fn idle_time_decays_the_average_by_one_minus_wq_to_the_m() {
        let spec = red_spec(45, 49, 50, 0.1, 0.002);
        let mut q = red(&spec);
        // Build an average: 40 arrivals while the wire is busy.
        for i in 0..40 {
            q.enqueue(pkt(i, 1000), SimTime(i)).unwrap();
        }
        let mut a = 0.0f64;
        for k in 0..40 {
            a = (1.0 - 0.002) * a + 0.002 * k as f64;
        }
        assert!((q.avg() - a).abs() < 1e-12, "EWMA from the queue each arrival sees: {} vs {a}", q.avg());
        // Only the wire busy: an arrival sees q = 0 and the EWMA still runs.
        while q.dequeue().is_some() {}
        q.enqueue(pkt(100, 1000), SimTime(1_000)).unwrap();
        let a = (1.0 - 0.002) * a;
        assert!((q.avg() - a).abs() < 1e-12);
        // The link goes idle at t0; an arrival at t1 sees m = (t1 − t0)/s idle
        // packet times, s = 1000 B at 1 Mbit/s = 8 ms.
        q.dequeue().unwrap();
        let t0 = SimTime(50_000_000);
        q.on_idle(t0);
        let t1 = SimTime(t0.0 + 100_000_003);
        assert_eq!(q.arrive_idle(&mut pkt(101, 1000), t1), Verdict::Accept);
        let m = 100_000_003.0 / 8_000_000.0;
        let want = a * (1.0f64 - 0.002).powf(m);
        assert!((q.avg() - want).abs() <= 1e-12 * want, "{} vs {want}", q.avg());
        // Not ns-2's rounded m, nor its extra factor.
        let ns2 = a * (1.0f64 - 0.002).powf(m.floor() + 1.0);
        assert!((q.avg() - ns2).abs() > 1e-6 * want);
    }

    #[test]
    fn an_arrival_dropped_at_an_idle_link_restarts_the_idle_period() {
        let spec = red_spec(1, 2, 10, 0.1, 0.5);
        let mut q = red(&spec);
        q.avg = 8.0;
        q.on_idle(SimTime(0));
        // One idle packet time (8 ms) later avg = 4 ≥ max_th: dropped.
        let s = 8_000_000;
        assert_eq!(q.arrive_idle(&mut pkt(10, 1000), SimTime(s)), Verdict::Drop);
        assert_eq!(q.avg(), 4.0);
        // The next arrival decays 4 over the 2 packet times since that drop:
        // 1. Not 4·0.5^3 = 0.5 (decay again from the first idle instant),
        // nor 4·(1 − wq) = 2 (an EWMA step as if the link had been busy).
        assert_eq!(q.arrive_idle(&mut pkt(11, 1000), SimTime(3 * s)), Verdict::Accept);
        assert_eq!(q.avg(), 1.0);
        assert_eq!(q.count(), 1, "avg = min_th is in the random band, pb = 0");
    }

    #[test]
    fn ecn_red_marks_ect_packets_and_drops_the_others() {
        let spec = RedSpec { ecn: true, ..red_spec(5, 15, 50, 0.1, 1.0) };
        let mut q = red(&spec);
        let h = hold(&mut q, 10, 50_000, ect);
        assert_eq!(h.drops, 0, "ECT packets are marked, never dropped early");
        assert!(h.marks > 1_000);
        check_follows_pa(&h, 0.05);
        let ect1 = |id| Packet { ecn: Ecn::Ect1, ..pkt(id, 1000) };
        assert_eq!(hold(&mut red(&spec), 10, 5_000, ect1).drops, 0);
        let ce = |id| Packet { ecn: Ecn::Ce, ..pkt(id, 1000) };
        assert_eq!(hold(&mut red(&spec), 10, 5_000, ce).drops, 0, "CE packets are ECN-capable");
        let mut q = red(&spec);
        let h = hold(&mut q, 10, 50_000, |id| pkt(id, 1000));
        assert_eq!(h.marks, 0, "not-ECT packets are dropped");
        check_follows_pa(&h, 0.05);
    }

    #[test]
    fn ecn_red_above_max_th_drops_unless_told_to_mark() {
        let spec = RedSpec { ecn: true, ..red_spec(5, 15, 50, 0.1, 1.0) };
        let h = hold(&mut red(&spec), 20, 1_000, ect);
        assert_eq!((h.drops, h.marks), (1_000, 0));
        let spec = RedSpec { mark_above_max_th: true, ..spec };
        let h = hold(&mut red(&spec), 20, 1_000, ect);
        assert_eq!((h.drops, h.marks), (0, 1_000));
        let h = hold(&mut red(&spec), 20, 1_000, |id| pkt(id, 1000));
        assert_eq!((h.drops, h.marks), (1_000, 0), "not-ECT packets are still dropped");
    }

    #[test]
    fn ecn_red_drops_when_the_buffer_is_full() {
        // Marks everything it may (avg above max_th, mark_above_max_th), yet
        // a full buffer drops: 20 wait, the limit is 20.
        let spec = RedSpec { ecn: true, mark_above_max_th: true, ..red_spec(5, 15, 20, 0.1, 1.0) };
        let mut q = red(&spec);
        for i in 0..20 {
            q.enqueue(ect(i), SimTime(i)).unwrap();
        }
        for i in 20..120 {
            let before = q.count();
            assert!(q.enqueue(ect(i), SimTime(i)).is_err(), "full buffer");
            assert_eq!(before, 0, "{i}");
        }
        // With a slow average the buffer still bounds the queue.
        let spec = RedSpec { ecn: true, ..red_spec(5, 15, 20, 0.1, 0.002) };
        let mut q = red(&spec);
        let ok = (0..100).filter(|&i| q.enqueue(ect(i), SimTime(i)).is_ok()).count();
        assert_eq!(ok, 20);
        assert!(q.avg() < 5.0);
    }

    #[test]
    fn droptail_via_qdisc_never_marks_and_accepts_at_an_idle_link() {
        let mut q = Qdisc::from_spec(&QueueSpec::DropTail { limit: QueueLimit::Bytes(100) }, 1, StreamRng::new(1, "x"));
        let mut big = ect(1);
        assert_eq!(q.arrive_idle(&mut big, SimTime(0)), Verdict::Accept, "an idle link takes any packet");
        assert_eq!(big.ecn, Ecn::Ect0);
        assert_eq!(q.enqueue(ect(2), SimTime(0)).unwrap_err().id, 2);
        assert!(matches!(q.enqueue(pkt(3, 100), SimTime(0)), Ok(false)));
    }

    #[test]
    fn packet_limit_drops_the_arrival_that_does_not_fit() {
        let mut q = DropTail::new(QueueLimit::Packets(2));
        assert!(q.enqueue(pkt(1, 100)).is_ok());
        assert!(q.enqueue(pkt(2, 100)).is_ok());
        assert_eq!(q.enqueue(pkt(3, 100)).unwrap_err().id, 3);
        assert_eq!(q.dequeue().unwrap().id, 1, "FIFO");
        assert!(q.enqueue(pkt(4, 100)).is_ok());
    }

    #[test]
    fn byte_limit_counts_sizes() {
        let mut q = DropTail::new(QueueLimit::Bytes(1500));
        assert!(q.enqueue(pkt(1, 1000)).is_ok());
        assert!(q.enqueue(pkt(2, 600)).is_err());
        assert!(q.enqueue(pkt(3, 500)).is_ok());
        assert_eq!(q.len_bytes(), 1500);
        q.dequeue();
        assert_eq!(q.len_bytes(), 500);
    }

    /// `rules = "ns2"`, ns-2.35's `REDQueue::enque`: nothing is dropped
    /// while at most one packet waits, whatever the average.
    #[test]
    fn ns2_rules_never_drop_with_one_packet_waiting() {
        for (rules, dropped) in [(RedRules::Paper, true), (RedRules::Ns2, false)] {
            // min_th 0 and wq 1: every arrival finding one packet has avg 1, pb 0.2.
            let spec = RedSpec { rules, ..red_spec(0, 5, 10, 1.0, 1.0) };
            let mut q = red(&spec);
            q.q.push_back(pkt(0, 1000));
            q.idle_since = None;
            let mut drops = 0;
            for id in 1..=200 {
                match q.enqueue(pkt(id, 1000), SimTime(id)) {
                    Ok(_) => {
                        q.dequeue();
                    }
                    Err(_) => drops += 1,
                }
                assert_eq!(q.len_packets(), 1);
            }
            assert_eq!(drops > 0, dropped, "{rules:?}: {drops} drops");
        }
    }

    /// `rules = "ns2"`: the first arrival that finds avg ≥ min_th with more
    /// than one packet waiting passes with count = 1; the next is decided
    /// with count = 2 (here pb = 0.5, so pa = pb/(1 − 2·pb) is 1: dropped).
    #[test]
    fn ns2_rules_let_the_first_arrival_above_min_th_through_with_count_one() {
        let spec = RedSpec { rules: RedRules::Ns2, ..red_spec(1, 5, 10, 1.0, 1.0) };
        let mut q = red(&spec);
        q.idle_since = None; // the wire is busy throughout
        for id in 1..=3 {
            // Arrivals find 0, 1, 2 waiting: accepted (the third with count 1).
            assert_eq!(q.enqueue(pkt(id, 1000), SimTime(id)).map_err(|_| ()), Ok(false), "arrival {id}");
        }
        assert_eq!(q.count(), 1);
        // avg = 3: pb = (3 - 1)/(5 - 1) = 0.5, count 2: pa = 1.
        assert!(q.enqueue(pkt(4, 1000), SimTime(4)).is_err());
        assert_eq!(q.count(), 0);
        // Once the queue holds one packet, ns-2 forgets the episode: the next
        // crossing passes one arrival again.
        while q.len_packets() > 1 {
            q.dequeue();
        }
        assert!(q.enqueue(pkt(5, 1000), SimTime(5)).is_ok());
        assert_eq!(q.count(), -1);
        assert!(q.enqueue(pkt(6, 1000), SimTime(6)).is_ok());
        assert_eq!(q.count(), 1, "the arrival after the refill passes with count 1");
    }
}
