//! CSMA/CA access to a shared half-duplex channel, after the IEEE 802.11
//! distributed coordination function (DCF: IEEE Std 802.11-2016 §10.3.2.3
//! interframe spaces, §10.3.3 random backoff time, §10.3.4.3 backoff
//! procedure), as a model of the efr testbed's 2 Mbps WaveLAN (efr §4.1,
//! Fig. 1).
//!
//! # The model
//!
//! Every station has its own queue; its head-of-line frame contends. Time
//! on an idle medium is cut into slots: the medium went idle at `since`
//! (the end of the last transmission), and slot boundary `k` is at
//! `since + DIFS + k·slot`. A contending station holds a backoff counter
//! `b`, drawn uniformly from `[0, CW]`, and transmits at boundary
//! `from + b`, where `from` is the first boundary it saw idle. Stations
//! all hear the end of the same busy period, so their boundaries line up:
//! "starting in the same slot" is exact, not a tolerance.
//!
//! One event per *round* suffices: the smallest `from + b` wins. All
//! stations with that value transmit together; if there are several, their
//! frames overlap and all are lost (a collision). The others counted the
//! idle slots up to that boundary, so their counters drop by that many
//! (at least one remains) and freeze while the medium is busy; they resume
//! from the next idle period's boundary 0 (the 802.11 freeze-and-resume rule).
//! A station that gets a frame while the medium is idle starts counting at
//! the next boundary; one that gets it while the medium is busy waits for
//! the idle period like everyone else.
//!
//! A frame is on the air for `preamble + (IP size + mac_overhead)·8/rate`.
//! A round lasts as long as its longest frame. A frame that did not collide
//! is still lost with probability `frame_loss` (background radio loss,
//! efr §4.1: 3·10⁻⁴). A delivered frame reaches its receiver `delay` after
//! its end.
//!
//! # Choices (documented in docs/scenario.md)
//!
//! * **Every frame backs off.** A station draws a counter for each new
//!   head-of-line frame, also when it finds the medium idle (802.11's
//!   immediate access after DIFS is not modelled). This is the saturated
//!   station of analytic DCF models and costs a lightly loaded station
//!   `CW_min/2` slots (310 µs at the defaults) per frame.
//! * **No MAC ACKs unless retries are on.** With `retry_limit = 0` (the
//!   default, efr's WaveLAN) the sender cannot tell a collision from a
//!   success: the frame is gone, TCP must recover it, and the window stays
//!   at `CW_min`. With `retry_limit > 0` every data frame is followed by
//!   `SIFS + ACK` on the medium (the ACK, or for a collided or corrupted
//!   frame the sender's ACK timeout, which the other stations honour as
//!   they would EIFS). An unacknowledged frame doubles the window
//!   (`CW ← min(2·CW + 1, CW_max)`) and is sent again, at most
//!   `retry_limit` times, then dropped. MAC ACKs are sent at the data rate
//!   and are never lost themselves.
//! * Not modelled: hidden and exposed stations (everyone hears everyone),
//!   capture, RTS/CTS, fragmentation, EIFS after a collision without MAC
//!   ACKs, rate adaptation.

use crate::engine::rng::StreamRng;
use crate::net::packet::{NodeId, Packet};
use crate::net::queue::{Qdisc, Verdict};
use crate::scenario::model::MediumSpec;
use crate::time::{tx_time, SimDuration, SimTime};
use std::collections::VecDeque;

/// A MAC ACK frame: frame control, duration, receiver address, FCS.
const MAC_ACK_BYTES: u64 = 14;

/// What became of one transmitted frame.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fate {
    Delivered,
    /// Overlapped another frame that started at the same boundary.
    Collided,
    /// Did not collide, but was lost to `frame_loss`.
    Lost,
}

/// One frame on the air (recorded with [`Medium::record`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FrameRecord {
    /// Index of the transmitting station.
    pub station: u32,
    pub start: SimTime,
    /// End of the frame itself (without a MAC ACK).
    pub end: SimTime,
    pub packet: u64,
    pub fate: Fate,
}

/// Per-station counters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StationStats {
    /// Transmission attempts, MAC retries included.
    pub frames_sent: u64,
    /// IP bytes of those attempts.
    pub bytes_sent: u64,
    pub frames_delivered: u64,
    pub bytes_delivered: u64,
    /// Attempts that overlapped another station's frame.
    pub collisions: u64,
    /// Attempts lost to `frame_loss`.
    pub frame_losses: u64,
    /// MAC retransmissions (only with `retry_limit > 0`).
    pub retries: u64,
    /// Frames given up: collided or lost with no retry left.
    pub drops_error: u64,
    pub drops_queue: u64,
    pub marks: u64,
    pub max_queue_packets: u64,
    /// Time this station's frames were on the air (collisions included),
    /// counted when each frame starts.
    pub airtime: SimDuration,
}

/// Medium-wide counters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MediumStats {
    /// Time the medium carried frames (and MAC ACKs).
    pub busy: SimDuration,
    /// Rounds: instants at which one or more stations started a frame.
    pub rounds: u64,
    /// Rounds in which two or more frames collided.
    pub collision_events: u64,
}

struct Station {
    node: NodeId,
    queue: Qdisc,
    /// The frame contending (or on the air); not counted in the queue.
    hol: Option<Packet>,
    /// Residual backoff counter of `hol`, counted from boundary `from`.
    backoff: u32,
    from: u64,
    cw: u32,
    retries: u32,
    backoff_rng: StreamRng,
    loss_rng: StreamRng,
    stats: StationStats,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum State {
    Idle { since: SimTime },
    Busy { until: SimTime },
}

/// An event the engine must schedule for the medium: the instant and a
/// generation that tells a superseded event from the current one.
pub type Tick = (SimTime, u32);

/// What a tick asks of the engine.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TickOut {
    /// The medium's next tick.
    pub next: Option<Tick>,
    /// A frame started propagating while none was: schedule its arrival.
    pub arrival: Option<SimTime>,
}

/// One shared medium and its stations.
pub struct Medium {
    pub name: String,
    rate_bps: u64,
    slot: SimDuration,
    difs: SimDuration,
    preamble: SimDuration,
    mac_overhead: u64,
    cw_min: u32,
    cw_max: u32,
    retry_limit: u32,
    frame_loss: f64,
    /// SIFS + MAC ACK after every data frame when retries are on, else 0.
    ack_time: SimDuration,
    pub delay: SimDuration,
    stations: Vec<Station>,
    state: State,
    /// The tick the engine holds for the medium, if any.
    tick: Option<SimTime>,
    gen: u32,
    /// Stations transmitting in the round on the air, with their frames' fates.
    in_air: Vec<(usize, Fate)>,
    /// Delivered frames propagating, with arrival instant and sending station.
    propagating: VecDeque<(SimTime, Packet, usize)>,
    /// Frames given up, for the engine to account (taken with [`Medium::take_dropped`]).
    dropped: Vec<Packet>,
    pub stats: MediumStats,
    log: Option<Vec<FrameRecord>>,
}

/// Uniform in `[0, cw]` (multiply-shift; the bias, below 2⁻⁴⁷ for any
/// window that fits in 16 bits, is far below anything a run can see).
fn draw(rng: &mut StreamRng, cw: u32) -> u32 {
    ((u128::from(rng.next_u64()) * (u128::from(cw) + 1)) >> 64) as u32
}

impl Medium {
    /// `names[i]` is the name of station `spec.stations[i]`; it keys the
    /// station's random streams (`medium/{medium}/{station}/backoff` and
    /// `…/loss`), so reordering the stations does not change their draws.
    pub fn new(spec: &MediumSpec, names: &[&str], seed: u64) -> Self {
        assert_eq!(names.len(), spec.stations.len(), "one name per station");
        let stations = spec
            .stations
            .iter()
            .zip(names)
            .map(|(&node, name)| {
                let stream = |what: &str| StreamRng::new(seed, &format!("medium/{}/{name}/{what}", spec.name));
                Station {
                    node: node as NodeId,
                    queue: Qdisc::from_spec(&spec.queue, spec.rate_bps, stream("queue")),
                    hol: None,
                    backoff: 0,
                    from: 0,
                    cw: spec.cw_min,
                    retries: 0,
                    backoff_rng: stream("backoff"),
                    loss_rng: stream("loss"),
                    stats: StationStats::default(),
                }
            })
            .collect();
        let ack_time = if spec.retry_limit > 0 {
            spec.sifs + spec.preamble + tx_time(MAC_ACK_BYTES, spec.rate_bps)
        } else {
            SimDuration::ZERO
        };
        Medium {
            name: spec.name.clone(),
            rate_bps: spec.rate_bps,
            slot: spec.slot,
            difs: spec.difs,
            preamble: spec.preamble,
            mac_overhead: u64::from(spec.mac_overhead),
            cw_min: spec.cw_min,
            cw_max: spec.cw_max,
            retry_limit: spec.retry_limit,
            frame_loss: spec.frame_loss,
            ack_time,
            delay: spec.delay,
            stations,
            state: State::Idle { since: SimTime::ZERO },
            tick: None,
            gen: 0,
            in_air: Vec::new(),
            propagating: VecDeque::new(),
            dropped: Vec::new(),
            stats: MediumStats::default(),
            log: None,
        }
    }

    pub fn rate_bps(&self) -> u64 {
        self.rate_bps
    }
    pub fn stations(&self) -> usize {
        self.stations.len()
    }
    pub fn station_node(&self, s: usize) -> NodeId {
        self.stations[s].node
    }
    pub fn station_stats(&self, s: usize) -> &StationStats {
        &self.stations[s].stats
    }
    /// Frames waiting at station `s` behind its head-of-line frame.
    pub fn queue_len(&self, s: usize) -> usize {
        self.stations[s].queue.len_packets()
    }
    /// Does station `s` hold a frame (contending or on the air)?
    pub fn is_backlogged(&self, s: usize) -> bool {
        self.stations[s].hol.is_some()
    }

    /// Time on the air of a frame carrying `p`.
    pub fn airtime(&self, p: &Packet) -> SimDuration {
        self.preamble + tx_time(u64::from(p.size) + self.mac_overhead, self.rate_bps)
    }

    /// Busy time up to `end` (a round in progress at `end` counts up to it).
    pub fn busy_until(&self, end: SimTime) -> SimDuration {
        match self.state {
            State::Busy { until } if until > end => self.stats.busy - until.saturating_since(end),
            _ => self.stats.busy,
        }
    }

    /// Keep a [`FrameRecord`] of every frame from now on.
    pub fn record(&mut self) {
        self.log.get_or_insert_with(Vec::new);
    }
    pub fn log(&self) -> &[FrameRecord] {
        self.log.as_deref().unwrap_or(&[])
    }

    /// Slot boundary `k` of the idle period that began at `since`.
    fn boundary(&self, since: SimTime, k: u64) -> SimTime {
        since + self.difs + self.slot.saturating_mul(k)
    }

    /// The smallest `from + backoff` among contending stations.
    fn next_round(&self) -> Option<u64> {
        self.stations.iter().filter(|s| s.hol.is_some()).map(|s| s.from + u64::from(s.backoff)).min()
    }

    /// A new tick for the engine if the medium's next instant changed.
    fn retick(&mut self) -> Option<Tick> {
        let at = match self.state {
            State::Busy { until } => until,
            State::Idle { since } => match self.next_round() {
                Some(k) => self.boundary(since, k),
                None => {
                    self.tick = None;
                    return None;
                }
            },
        };
        if self.tick == Some(at) {
            return None;
        }
        self.gen = self.gen.wrapping_add(1);
        self.tick = Some(at);
        Some((at, self.gen))
    }

    /// Station `s` takes a new head-of-line frame at `now`.
    fn contend(&mut self, s: usize, p: Packet, now: SimTime) {
        let from = match self.state {
            // The first boundary at or after `now`: the station has heard
            // the medium idle since `since`, so it counts from there on.
            State::Idle { since } => {
                let first = since + self.difs;
                if now <= first {
                    0
                } else {
                    (now - first).as_nanos().div_ceil(self.slot.as_nanos())
                }
            }
            // Boundaries of the idle period after this busy one.
            State::Busy { .. } => 0,
        };
        let st = &mut self.stations[s];
        st.backoff = draw(&mut st.backoff_rng, st.cw);
        st.from = from;
        st.hol = Some(p);
    }

    /// Station `s` hands the medium a packet at `now`. A refused packet
    /// (full queue) is given back. The tick, if any, must be scheduled.
    #[allow(clippy::result_large_err)]
    pub fn offer(&mut self, s: usize, mut p: Packet, now: SimTime) -> (Result<(), Packet>, Option<Tick>) {
        let st = &mut self.stations[s];
        if st.hol.is_none() {
            match st.queue.arrive_idle(&mut p, now) {
                Verdict::Drop => {
                    st.stats.drops_queue += 1;
                    return (Err(p), None);
                }
                Verdict::Mark => st.stats.marks += 1,
                Verdict::Accept => {}
            }
            self.contend(s, p, now);
            return (Ok(()), self.retick());
        }
        match st.queue.enqueue(p, now) {
            Ok(marked) => {
                st.stats.marks += u64::from(marked);
                st.stats.max_queue_packets = st.stats.max_queue_packets.max(st.queue.len_packets() as u64);
                (Ok(()), None)
            }
            Err(p) => {
                st.stats.drops_queue += 1;
                (Err(p), None)
            }
        }
    }

    /// The tick `(now, gen)` fired. A superseded tick does nothing.
    pub fn on_tick(&mut self, gen: u32, now: SimTime) -> TickOut {
        if gen != self.gen || self.tick != Some(now) {
            return TickOut::default();
        }
        self.tick = None;
        let mut out = TickOut::default();
        match self.state {
            State::Busy { until } => {
                debug_assert_eq!(until, now);
                self.end_round(now);
                self.state = State::Idle { since: now };
            }
            State::Idle { since } => out.arrival = self.start_round(since, now),
        }
        out.next = self.retick();
        out
    }

    /// The boundary `now` is the smallest `from + backoff`: those stations
    /// transmit, the others freeze.
    fn start_round(&mut self, since: SimTime, now: SimTime) -> Option<SimTime> {
        let k = self.next_round().expect("a round without a contender");
        debug_assert_eq!(self.boundary(since, k), now);
        self.in_air.clear();
        let mut longest = SimDuration::ZERO;
        for i in 0..self.stations.len() {
            let air = match &self.stations[i].hol {
                Some(p) => self.airtime(p),
                None => continue,
            };
            let st = &mut self.stations[i];
            if st.from + u64::from(st.backoff) == k {
                self.in_air.push((i, Fate::Delivered));
                longest = longest.max(air);
            } else {
                // Idle slots counted up to this boundary; at least one remains.
                debug_assert!(st.from <= k);
                st.backoff -= (k - st.from) as u32;
                st.from = 0;
            }
        }
        let collision = self.in_air.len() > 1;
        let mut arrival = None;
        for j in 0..self.in_air.len() {
            let i = self.in_air[j].0;
            let p = self.stations[i].hol.expect("a transmitter has a frame");
            let air = self.airtime(&p);
            let st = &mut self.stations[i];
            st.stats.frames_sent += 1;
            st.stats.bytes_sent += u64::from(p.size);
            st.stats.airtime = st.stats.airtime + air;
            let fate = if collision {
                st.stats.collisions += 1;
                Fate::Collided
            } else if st.loss_rng.chance(self.frame_loss) {
                st.stats.frame_losses += 1;
                Fate::Lost
            } else {
                st.stats.frames_delivered += 1;
                st.stats.bytes_delivered += u64::from(p.size);
                let at = now + air + self.delay;
                if self.propagating.is_empty() {
                    arrival = Some(at);
                }
                self.propagating.push_back((at, p, i));
                Fate::Delivered
            };
            self.in_air[j].1 = fate;
            if let Some(log) = &mut self.log {
                log.push(FrameRecord { station: i as u32, start: now, end: now + air, packet: p.id, fate });
            }
        }
        let until = now + longest + self.ack_time;
        self.stats.rounds += 1;
        self.stats.collision_events += u64::from(collision);
        self.stats.busy = self.stats.busy + (until - now);
        self.state = State::Busy { until };
        arrival
    }

    /// The round on the air ended: transmitters move on to their next frame,
    /// or retry.
    fn end_round(&mut self, now: SimTime) {
        for j in 0..self.in_air.len() {
            let (i, fate) = self.in_air[j];
            let st = &mut self.stations[i];
            if fate != Fate::Delivered {
                if st.retries < self.retry_limit {
                    st.retries += 1;
                    st.stats.retries += 1;
                    st.cw = st.cw.saturating_mul(2).saturating_add(1).min(self.cw_max);
                    st.backoff = draw(&mut st.backoff_rng, st.cw);
                    st.from = 0;
                    continue;
                }
                st.stats.drops_error += 1;
                self.dropped.push(st.hol.take().expect("a transmitter has a frame"));
            }
            st.cw = self.cw_min;
            st.retries = 0;
            st.hol = None;
            match st.queue.dequeue() {
                Some(p) => self.contend(i, p, now),
                None => st.queue.on_idle(now),
            }
        }
        self.in_air.clear();
    }

    /// Frames given up since the last call, for the engine's accounting.
    pub fn take_dropped(&mut self) -> Vec<Packet> {
        std::mem::take(&mut self.dropped)
    }

    /// The frame due at `now` reaches its receiver: the packet, the node
    /// that sent it, and when the next one arrives.
    pub fn pop_arrival(&mut self, now: SimTime) -> (Packet, NodeId, Option<SimTime>) {
        let (at, p, s) = self.propagating.pop_front().expect("an arrival without a frame");
        debug_assert_eq!(at, now);
        (p, self.stations[s].node, self.propagating.front().map(|&(t, _, _)| t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::us;

    fn spec(n: usize) -> MediumSpec {
        MediumSpec { frame_loss: 0.0, ..MediumSpec::wavelan("w", (0..n).collect()) }
    }

    fn medium(spec: &MediumSpec) -> Medium {
        let names: Vec<String> = (0..spec.stations.len()).map(|i| format!("s{i}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut m = Medium::new(spec, &names, 1);
        m.record();
        m
    }

    fn packet(id: u64, size: u32) -> Packet {
        Packet::test_segment(id, 0, 0, size - 40)
    }

    /// Give station `s` the backoff `b` (a test's stand-in for the draw).
    fn force(m: &mut Medium, s: usize, b: u32) -> Option<Tick> {
        m.stations[s].backoff = b;
        m.tick = None;
        m.retick()
    }

    #[test]
    fn airtime_is_preamble_plus_frame_bits_at_the_rate() {
        let m = medium(&spec(2));
        // 192 µs + (1500 + 36)·8 bits at 2 Mbit/s = 192 + 6144 µs.
        assert_eq!(m.airtime(&packet(0, 1500)), us(6336));
    }

    #[test]
    fn the_loser_freezes_and_resumes_with_what_is_left() {
        let s = spec(2);
        let mut m = medium(&s);
        let t0 = SimTime::ZERO;
        assert!(m.offer(0, packet(0, 1500), t0).0.is_ok());
        assert!(m.offer(1, packet(1, 1500), t0).0.is_ok());
        force(&mut m, 0, 3);
        let (at, gen) = force(&mut m, 1, 5).expect("a tick");
        // Station 0 wins at DIFS + 3 slots; station 1 counted 3 of its 5.
        assert_eq!(at, t0 + us(50) + us(3 * 20));
        let out = m.on_tick(gen, at);
        assert_eq!(out.arrival, Some(at + us(6336) + us(1)));
        assert_eq!(m.stations[1].backoff, 2);
        let (end, gen) = out.next.expect("end of the frame");
        assert_eq!(end, at + us(6336));
        let out = m.on_tick(gen, end);
        // Idle again: station 1 needs DIFS + its remaining 2 slots.
        assert_eq!(out.next.map(|(t, _)| t), Some(end + us(50) + us(2 * 20)));
        let (t, gen) = out.next.unwrap();
        m.on_tick(gen, t);
        let log = m.log();
        assert_eq!(log.len(), 2);
        assert_eq!((log[0].station, log[1].station), (0, 1));
        assert!(log.iter().all(|f| f.fate == Fate::Delivered));
    }

    #[test]
    fn equal_counters_collide_and_without_retries_both_frames_are_dropped() {
        let mut m = medium(&spec(3));
        assert!(m.offer(0, packet(0, 1500), SimTime::ZERO).0.is_ok());
        assert!(m.offer(1, packet(1, 40), SimTime::ZERO).0.is_ok());
        assert!(m.offer(2, packet(2, 1500), SimTime::ZERO).0.is_ok());
        force(&mut m, 0, 4);
        force(&mut m, 1, 4);
        let (at, gen) = force(&mut m, 2, 9).unwrap();
        let out = m.on_tick(gen, at);
        assert_eq!(out.arrival, None, "nothing was delivered");
        // The round lasts as long as the longer frame.
        let (end, gen) = out.next.unwrap();
        assert_eq!(end, at + us(6336));
        m.on_tick(gen, end);
        let dropped: Vec<u64> = m.take_dropped().iter().map(|p| p.id).collect();
        assert_eq!(dropped, vec![0, 1]);
        assert_eq!((m.stats.collision_events, m.stats.rounds), (1, 1));
        assert_eq!((m.station_stats(0).collisions, m.station_stats(1).drops_error), (1, 1));
        assert_eq!(m.stations[2].backoff, 5, "the third station counted 4 of its 9 slots");
    }

    #[test]
    fn a_collision_with_retries_doubles_the_window_and_keeps_the_frame() {
        let s = MediumSpec { retry_limit: 2, cw_min: 7, cw_max: 20, ..spec(2) };
        let mut m = medium(&s);
        assert!(m.offer(0, packet(0, 1500), SimTime::ZERO).0.is_ok());
        assert!(m.offer(1, packet(1, 1500), SimTime::ZERO).0.is_ok());
        force(&mut m, 0, 0);
        let (at, gen) = force(&mut m, 1, 0).unwrap();
        assert_eq!(at, SimTime::ZERO + us(50), "a zero counter transmits right after DIFS");
        let (end, gen) = m.on_tick(gen, at).next.unwrap();
        // Frame, then SIFS + the ACK (preamble + 14 bytes) the senders wait for.
        assert_eq!(end, at + us(6336) + us(10) + us(192) + us(56));
        m.on_tick(gen, end);
        assert!(m.take_dropped().is_empty());
        for i in 0..2 {
            assert_eq!(
                (m.stations[i].cw, m.stations[i].retries, m.stations[i].hol.map(|p| p.id)),
                (15, 1, Some(i as u64))
            );
        }
        // A second collision caps the window at cw_max; a third exhausts the retries.
        for (cw, retries) in [(20, 2), (7, 0)] {
            force(&mut m, 0, 1);
            let (at, gen) = force(&mut m, 1, 1).unwrap();
            let (end, gen) = m.on_tick(gen, at).next.unwrap();
            m.on_tick(gen, end);
            assert_eq!((m.stations[0].cw, m.stations[0].retries), (cw, retries));
        }
        assert_eq!(m.take_dropped().len(), 2);
        assert_eq!(m.station_stats(0).retries, 2);
    }

    #[test]
    fn a_later_station_with_a_shorter_wait_supersedes_the_pending_tick() {
        let mut m = medium(&spec(2));
        assert!(m.offer(0, packet(0, 1500), SimTime::ZERO).0.is_ok());
        let (t_old, g_old) = force(&mut m, 0, 30).unwrap();
        assert_eq!(t_old, SimTime::ZERO + us(50 + 30 * 20));
        // Station 1 gets a frame at 105 µs, between boundaries 2 (90 µs) and
        // 3 (110 µs): it counts from boundary 3.
        let now = SimTime::ZERO + us(105);
        assert!(m.offer(1, packet(1, 1500), now).0.is_ok());
        let (t_new, g_new) = force(&mut m, 1, 0).unwrap();
        assert_eq!(t_new, SimTime::ZERO + us(110));
        assert_eq!(m.on_tick(g_old, t_old), TickOut::default(), "superseded");
        let out = m.on_tick(g_new, t_new);
        assert!(out.arrival.is_some());
        assert_eq!(m.log()[0].station, 1);
        assert_eq!(m.stations[0].backoff, 27, "station 0 counted boundaries 0..3");
    }

    #[test]
    fn a_full_station_queue_refuses_and_counts() {
        let s = MediumSpec {
            queue: crate::scenario::model::QueueSpec::DropTail {
                limit: crate::scenario::model::QueueLimit::Packets(1),
            },
            ..spec(2)
        };
        let mut m = medium(&s);
        assert!(m.offer(0, packet(0, 1500), SimTime::ZERO).0.is_ok(), "head of line");
        assert!(m.offer(0, packet(1, 1500), SimTime::ZERO).0.is_ok(), "waits");
        assert_eq!(m.offer(0, packet(2, 1500), SimTime::ZERO).0.map_err(|p| p.id), Err(2));
        assert_eq!((m.station_stats(0).drops_queue, m.station_stats(0).max_queue_packets), (1, 1));
    }
}
