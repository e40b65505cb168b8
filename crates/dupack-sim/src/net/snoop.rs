//! Snoop (Balakrishnan, Seshan, Amir and Katz, "Improving TCP/IP
//! performance over wireless networks", MobiCom 1995; compared in irw §2.1):
//! a TCP-aware agent at the base station that caches data segments on their
//! way to the mobile host, retransmits them locally when the mobile's
//! duplicate ACKs or a local timer show a wireless loss, and hides those
//! duplicate ACKs from the fixed sender — "to keep any occurrence of packet
//! loss due to link error transparent to the sender until time-out occurs"
//! (irw §2.1).
//!
//! Per flow, following the paper's data and ACK procedures (§3):
//! - data toward the mobile: a segment above everything seen is cached and
//!   forwarded; a segment below that (a sender retransmission) is cached,
//!   marked as retransmitted by the sender, and forwarded; a segment already
//!   acknowledged is forwarded only.
//! - ACKs from the mobile: a new ACK frees the cache below it, gives an RTT
//!   sample (Karn: none when it covers a retransmitted segment) and is
//!   forwarded; an ACK below the last one is discarded; a duplicate ACK for
//!   a segment not in the cache, or marked as retransmitted by the sender,
//!   is forwarded (the sender handles that loss). The first duplicate ACK
//!   for a cached segment triggers a local retransmission, ahead of queued
//!   packets, and is discarded; so are the duplicates expected from the
//!   segments already in flight behind it, and any later ones until new
//!   data is acknowledged (the local timer repairs a lost local
//!   retransmission).
//! - the local timer: while the cache holds unacknowledged segments, a
//!   timer retransmits the first unacknowledged segment. Its value comes
//!   from the same RFC 6298 estimator as the sender's RTO
//!   (`tcp::rto::RtoEstimator`: srtt + max(1 ms, 4·rttvar), at least
//!   `min_timeout`, at most 60 s; `initial_timeout` before a sample),
//!   doubled on each expiry and reset by new data acknowledged.

use super::packet::{FlowId, Packet};
use crate::scenario::model::{LocalRexmit, RtoConfig, RtoMode, SnoopSpec};
use crate::tcp::rto::RtoEstimator;
use crate::time::{SimDuration, SimTime};
use std::collections::{BTreeMap, HashMap};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SnoopStats {
    /// Local retransmissions triggered by a duplicate ACK.
    pub dupack_retransmissions: u64,
    /// Local retransmissions on a local timer expiry.
    pub timeout_retransmissions: u64,
    /// Duplicate ACKs discarded instead of forwarded.
    pub dupacks_suppressed: u64,
}

#[derive(Debug)]
struct Cached {
    p: Packet,
    /// When the agent last forwarded it.
    sent: SimTime,
    local_rexmits: u32,
    sender_rexmit: bool,
}

#[derive(Debug)]
struct FlowState {
    cache: BTreeMap<u64, Cached>,
    /// One past the highest byte seen going to the mobile.
    high: u64,
    last_ack: u64,
    /// A local retransmission for `last_ack` is under way.
    recovering: bool,
    expected_dupacks: u32,
    /// The local timer's estimator: the sender's RFC 6298 one, with the
    /// agent's own bounds.
    rto: RtoEstimator,
    /// When the local timer fires (`None`: not running).
    deadline: Option<SimTime>,
}

/// What to do with an ACK coming back from the mobile host.
pub enum AckVerdict {
    Forward,
    Discard,
    /// Discard it and retransmit this cached packet toward the mobile.
    Retransmit(Packet),
}

#[derive(Debug)]
pub struct Snoop {
    spec: SnoopSpec,
    flows: HashMap<FlowId, FlowState>,
    pub stats: SnoopStats,
}

impl Snoop {
    pub fn new(spec: &SnoopSpec) -> Self {
        Snoop { spec: spec.clone(), flows: HashMap::new(), stats: SnoopStats::default() }
    }

    /// Where this agent's local retransmissions go (the scenario's `local_rexmit`).
    pub fn local_rexmit(&self) -> LocalRexmit {
        self.spec.local_rexmit
    }

    fn new_flow(spec: &SnoopSpec) -> FlowState {
        let cfg = RtoConfig {
            mode: RtoMode::Fine { granularity: SimDuration::from_millis(1) },
            initial: spec.initial_timeout,
            min: spec.min_timeout,
            max: SimDuration::from_secs(60),
            max_backoff_shift: 16,
            ..RtoConfig::default()
        };
        FlowState {
            cache: BTreeMap::new(),
            high: 0,
            last_ack: 0,
            recovering: false,
            expected_dupacks: 0,
            rto: RtoEstimator::new(&cfg),
            deadline: None,
        }
    }

    /// A data segment of `p.flow` is about to be sent toward the mobile.
    pub fn on_data(&mut self, p: &Packet, now: SimTime) {
        let (seq, end) = (p.seg.seq, p.seg.end());
        let spec = &self.spec;
        let st = self.flows.entry(p.flow).or_insert_with(|| Self::new_flow(spec));
        if end <= st.last_ack {
            return; // already acknowledged by the mobile
        }
        let sender_rexmit = seq < st.high;
        st.high = st.high.max(end);
        st.cache.insert(seq, Cached { p: *p, sent: now, local_rexmits: 0, sender_rexmit });
        if st.deadline.is_none() {
            st.deadline = Some(now + st.rto.rto());
        }
    }

    /// An ACK of `p.flow` arrived from the mobile.
    pub fn on_ack(&mut self, p: &Packet, now: SimTime) -> AckVerdict {
        let ack = p.seg.ack;
        let Some(st) = self.flows.get_mut(&p.flow) else { return AckVerdict::Forward };
        if ack > st.last_ack {
            // Karn: sample the newest segment this ACK covers, and only when
            // no segment it covers was retransmitted. After a repair the
            // cumulative ACK is caused by the retransmission, while the
            // segments behind the hole reached the mobile long before: timing
            // them would add the whole recovery to the RTT (hundreds of ms on
            // a 2 Mbit/s hop), and a timer slower than the sender's own RTO
            // leaves a lost local retransmission to the sender.
            let covered = || st.cache.range(..ack).filter(|(_, c)| c.p.seg.end() <= ack);
            let clean = covered().all(|(_, c)| c.local_rexmits == 0 && !c.sender_rexmit);
            let sent = covered().next_back().filter(|_| clean).map(|(_, c)| c.sent);
            match sent {
                Some(sent) => st.rto.on_rtt_sample(sent, now),
                None => st.rto.reset_backoff(),
            }
            st.last_ack = ack;
            st.cache.retain(|_, c| c.p.seg.end() > ack);
            st.recovering = false;
            st.expected_dupacks = 0;
            st.deadline = (!st.cache.is_empty()).then(|| now + st.rto.rto());
            return AckVerdict::Forward;
        }
        if ack < st.last_ack {
            return AckVerdict::Discard;
        }
        // A duplicate ACK.
        let lost = match st.cache.get_mut(&ack) {
            Some(c) if !c.sender_rexmit => c,
            _ => return AckVerdict::Forward,
        };
        self.stats.dupacks_suppressed += 1;
        if st.recovering {
            st.expected_dupacks = st.expected_dupacks.saturating_sub(1);
            return AckVerdict::Discard;
        }
        lost.local_rexmits += 1;
        lost.sent = now;
        let pkt = lost.p;
        st.recovering = true;
        // Segments already in flight behind the lost one will each bring a duplicate.
        st.expected_dupacks = st.cache.range(ack + 1..).count() as u32;
        self.stats.dupack_retransmissions += 1;
        AckVerdict::Retransmit(pkt)
    }

    /// When does flow `f`'s local timer fire?
    pub fn deadline(&self, f: FlowId) -> Option<SimTime> {
        self.flows.get(&f).and_then(|st| st.deadline)
    }

    /// Flow `f`'s local timer fired at `now`: the segment to retransmit.
    pub fn on_timer(&mut self, f: FlowId, now: SimTime) -> Option<Packet> {
        let st = self.flows.get_mut(&f)?;
        if st.deadline.is_none_or(|d| d > now) {
            return None;
        }
        let ack = st.last_ack;
        let Some(c) = st.cache.range_mut(ack..).next().map(|(_, c)| c).filter(|c| c.p.seg.seq <= ack) else {
            st.deadline = None; // nothing cached at the hole: the sender must repair it
            return None;
        };
        c.local_rexmits += 1;
        c.sent = now;
        let p = c.p;
        st.rto.backoff();
        st.deadline = Some(now + st.rto.rto());
        self.stats.timeout_retransmissions += 1;
        Some(p)
    }
}

#[cfg(test)]
mod tests;
