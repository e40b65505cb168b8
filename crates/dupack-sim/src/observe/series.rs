//! Time series of a run: the sender's state and a link's queue over time.
//!
//! Opt-in per flow and per link (see [`crate::observe::Observe`]); a run that
//! asks for none pays one branch per sender service and per queue change.
//! Values are recorded *on change*, in long format (time, entity, variable,
//! value), the shape `ns-3`'s trace sources and `tcptrace` give: a flow's
//! variables are looked at after each ACK, timer or transmission the sender
//! handled, a link direction's after each packet it accepted, sent or lost.
//! Recording only reads state, so a run's results do not depend on it.
//!
//! Units: bytes for windows and sequence numbers, seconds for times,
//! packets for queues. Events (a fast retransmit, a timeout, an ECN
//! reduction, an undone reduction) are one record each, whose value is
//! `snd_una` when it happened.

use crate::tcp::sender::Sender;
use crate::time::SimTime;

/// What a flow's series records, in the order of [`FLOW_VARIABLES`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum FlowVar {
    Cwnd,
    Ssthresh,
    /// FlightSize (RFC 5681 §2): `snd_max − snd_una`.
    Flight,
    /// The recovery policy's estimate of the bytes in the network (RFC 6675
    /// `pipe`), for the policies that keep one (SACK-based recovery).
    Pipe,
    SndUna,
    SndNxt,
    Srtt,
    Rttvar,
    Rto,
    /// 0 open, 1 fast recovery, 2 timeout episode (ns-3's and Linux's
    /// Open / Recovery / Loss).
    State,
    Dupacks,
    /// Bytes above `snd_una` the sender's scoreboard holds as SACKed (SACK variants).
    Sacked,
    FastRetransmit,
    Timeout,
    EcnReduction,
    Undo,
}

/// Variable names of a flow's series, indexed by [`FlowVar`].
pub const FLOW_VARIABLES: [&str; 16] = [
    "cwnd",
    "ssthresh",
    "flight",
    "pipe",
    "snd_una",
    "snd_nxt",
    "srtt",
    "rttvar",
    "rto",
    "state",
    "dupacks",
    "sacked",
    "fast_retransmit",
    "timeout",
    "ecn_reduction",
    "undo",
];

/// Sampled (not event) variables of a flow: `FlowVar::Cwnd ..= FlowVar::Sacked`.
const FLOW_SAMPLED: usize = FlowVar::Sacked as usize + 1;

/// What a link direction's series records, numbered after the flows'.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum LinkVar {
    /// Packets waiting in the queue (not the one on the wire).
    Queue = FLOW_VARIABLES.len() as u8,
    /// Packets the queue refused, cumulative.
    DropsQueue,
    /// Packets the error model destroyed, cumulative.
    DropsError,
    /// Packets marked Congestion Experienced, cumulative.
    Marks,
}

/// Variable names of a link direction's series, indexed by `LinkVar − FLOW_VARIABLES.len()`.
pub const LINK_VARIABLES: [&str; 4] = ["queue", "drops_queue", "drops_error", "marks"];

/// Every variable, a bit per [`FlowVar`] and [`LinkVar`] number: what a
/// series records unless told otherwise.
pub const ALL_VARIABLES: u32 = (1 << (FLOW_VARIABLES.len() + LINK_VARIABLES.len())) - 1;

/// The set of variables (a bit per number, as [`ALL_VARIABLES`]) that
/// `names` names; an unknown name is an error naming every known one.
/// Keeping fewer variables keeps fewer records: a long run's window alone
/// where every variable would pass the record limit.
pub fn variable_set(names: &[String]) -> Result<u32, String> {
    let known = || FLOW_VARIABLES.iter().chain(LINK_VARIABLES.iter());
    names.iter().try_fold(0, |set, name| match known().position(|v| v == name) {
        Some(i) => Ok(set | 1 << i),
        None => Err(format!(
            "no variable named {name:?}; a flow's are {}, a link's {}",
            FLOW_VARIABLES.join(", "),
            LINK_VARIABLES.join(", ")
        )),
    })
}

/// The name of variable number `v` (a [`FlowVar`] or [`LinkVar`]).
pub fn variable_name(v: u8) -> &'static str {
    let v = v as usize;
    if v < FLOW_VARIABLES.len() {
        FLOW_VARIABLES[v]
    } else {
        LINK_VARIABLES[v - FLOW_VARIABLES.len()]
    }
}

/// The recorded series, columnar.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    /// Entity names: the traced flows' names, then `LINK:fwd` / `LINK:rev`.
    pub entities: Vec<String>,
    pub time_ns: Vec<u64>,
    /// Index into `entities`.
    pub entity: Vec<u32>,
    /// A [`FlowVar`] or [`LinkVar`] number; see [`variable_name`].
    pub variable: Vec<u8>,
    pub value: Vec<f64>,
    /// The record limit was reached: records after it were not kept.
    pub truncated: bool,
}

impl Series {
    pub fn len(&self) -> usize {
        self.time_ns.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time_ns.is_empty()
    }
    /// Iterate `(time, entity name, variable name, value)`.
    pub fn rows(&self) -> impl Iterator<Item = (SimTime, &str, &'static str, f64)> + '_ {
        (0..self.len()).map(|i| {
            (
                SimTime(self.time_ns[i]),
                self.entities[self.entity[i] as usize].as_str(),
                variable_name(self.variable[i]),
                self.value[i],
            )
        })
    }
}

/// The last values seen of one flow, and its event counters.
#[derive(Clone, Debug)]
struct FlowProbe {
    entity: u32,
    last: [f64; FLOW_SAMPLED],
    /// fast retransmits, timeouts, ECN reductions, undos.
    counts: [u64; 4],
}

#[derive(Clone, Debug)]
struct LinkProbe {
    entity: u32,
    /// queue, drops_queue, drops_error, marks.
    last: [u64; 4],
}

/// Records the series of the flows and channels asked for.
#[derive(Debug)]
pub struct Recorder {
    series: Series,
    flows: Vec<Option<FlowProbe>>,
    channels: Vec<Option<LinkProbe>>,
    max_records: usize,
    /// The variables recorded, a bit per number ([`ALL_VARIABLES`]: all).
    variables: u32,
}

/// The default bound on the records of one run (about 200 MB of columns).
pub const DEFAULT_MAX_RECORDS: usize = 10_000_000;

impl Recorder {
    /// A recorder for `flows` (index, name) and `channels` (index, name),
    /// of `n_flows` and `n_channels` in all, keeping at most `max_records`
    /// of the `variables` (a bit per number, see [`variable_set`]).
    pub fn new(
        n_flows: usize,
        n_channels: usize,
        flows: &[(usize, String)],
        channels: &[(usize, String)],
        max_records: usize,
        variables: u32,
    ) -> Self {
        let mut r = Recorder {
            series: Series::default(),
            flows: vec![None; n_flows],
            channels: vec![None; n_channels],
            max_records,
            variables,
        };
        for (i, name) in flows {
            let entity = r.entity(name);
            r.flows[*i] = Some(FlowProbe { entity, last: [f64::NAN; FLOW_SAMPLED], counts: [0; 4] });
        }
        for (c, name) in channels {
            let entity = r.entity(name);
            // The first look records every value, zeros included.
            r.channels[*c] = Some(LinkProbe { entity, last: [u64::MAX; 4] });
        }
        r
    }

    fn entity(&mut self, name: &str) -> u32 {
        self.series.entities.push(name.to_string());
        (self.series.entities.len() - 1) as u32
    }

    pub fn traces_flow(&self, f: usize) -> bool {
        self.flows[f].is_some()
    }

    fn push(&mut self, now: SimTime, entity: u32, variable: u8, value: f64) {
        if self.variables & 1 << variable == 0 {
            return; // not asked for: neither kept nor counted against the limit
        }
        if self.series.time_ns.len() >= self.max_records {
            self.series.truncated = true;
            return;
        }
        self.series.time_ns.push(now.as_nanos());
        self.series.entity.push(entity);
        self.series.variable.push(variable);
        self.series.value.push(value);
    }

    /// Look at flow `f`'s sender after it handled something at `now`.
    pub fn sample_flow(&mut self, f: usize, s: &Sender, now: SimTime) {
        let Some(p) = &self.flows[f] else { return };
        let (entity, mut last, mut counts) = (p.entity, p.last, p.counts);
        let secs = |d: Option<crate::time::SimDuration>| d.map_or(f64::NAN, |d| d.as_secs_f64());
        let state = if s.in_timeout_episode() {
            2.0
        } else if s.in_recovery() {
            1.0
        } else {
            0.0
        };
        // ssthresh starts "arbitrarily high" (RFC 5681 §3.1): absent until set.
        let ssthresh = if s.ssthresh() >= u64::MAX / 2 { f64::NAN } else { s.ssthresh() as f64 };
        let flight = s.snd_max() - s.snd_una();
        let now_values: [f64; FLOW_SAMPLED] = [
            s.cwnd() as f64,
            ssthresh,
            flight as f64,
            s.pipe().map_or(f64::NAN, |p| p as f64),
            s.snd_una() as f64,
            s.snd_nxt() as f64,
            secs(s.rto().srtt()),
            secs(s.rto().rttvar()),
            s.rto().rto().as_secs_f64(),
            state,
            s.dupacks() as f64,
            s.sacked_bytes().map_or(f64::NAN, |b| b as f64),
        ];
        for (v, (&new, old)) in now_values.iter().zip(last.iter_mut()).enumerate() {
            // NaN (absent) is recorded as nothing; a value is recorded when it changes.
            if !new.is_nan() && new.to_bits() != old.to_bits() {
                self.push(now, entity, v as u8, new);
            }
            *old = new;
        }
        let st = s.stats();
        let now_counts = [st.fast_retransmits, st.timeouts, st.ecn_reductions, st.window_undos];
        let una = s.snd_una() as f64;
        for (k, (&new, old)) in now_counts.iter().zip(counts.iter_mut()).enumerate() {
            for _ in *old..new {
                self.push(now, entity, FlowVar::FastRetransmit as u8 + k as u8, una);
            }
            *old = new;
        }
        let p = self.flows[f].as_mut().expect("probed above");
        p.last = last;
        p.counts = counts;
    }

    /// Look at channel `c` after it accepted, sent or lost a packet at `now`.
    /// `values`: queue length, queue drops, error drops, marks.
    pub fn sample_channel(&mut self, c: usize, values: [u64; 4], now: SimTime) {
        let Some(p) = &self.channels[c] else { return };
        let (entity, mut last) = (p.entity, p.last);
        for (k, (&new, old)) in values.iter().zip(last.iter_mut()).enumerate() {
            if new != *old {
                self.push(now, entity, LinkVar::Queue as u8 + k as u8, new as f64);
                *old = new;
            }
        }
        self.channels[c].as_mut().expect("probed above").last = last;
    }

    pub fn traces_channel(&self, c: usize) -> bool {
        self.channels[c].is_some()
    }

    pub fn finish(self) -> Series {
        self.series
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variable_numbers_name_flow_then_link_variables() {
        assert_eq!(variable_name(FlowVar::Cwnd as u8), "cwnd");
        assert_eq!(variable_name(FlowVar::Undo as u8), "undo");
        assert_eq!(variable_name(LinkVar::Queue as u8), "queue");
        assert_eq!(variable_name(LinkVar::Marks as u8), "marks");
    }

    #[test]
    fn a_channel_records_only_changes_and_stops_at_the_limit() {
        let mut r = Recorder::new(0, 2, &[], &[(1, "l:rev".into())], 5, ALL_VARIABLES);
        r.sample_channel(0, [9, 9, 9, 9], SimTime(1)); // not traced
        r.sample_channel(1, [0, 0, 0, 0], SimTime(2)); // first look: all four
        r.sample_channel(1, [0, 0, 0, 0], SimTime(3)); // nothing changed
        r.sample_channel(1, [1, 0, 0, 0], SimTime(4)); // the queue
        r.sample_channel(1, [2, 1, 0, 0], SimTime(5)); // over the limit
        let s = r.finish();
        assert_eq!(s.time_ns, vec![2, 2, 2, 2, 4]);
        assert_eq!(s.value, vec![0.0, 0.0, 0.0, 0.0, 1.0]);
        assert!(s.truncated);
        assert_eq!(s.rows().last().map(|r| (r.1, r.2)), Some(("l:rev", "queue")));
    }

    #[test]
    fn only_the_variables_asked_for_are_recorded_and_count_against_the_limit() {
        let vars = variable_set(&["queue".into(), "marks".into()]).unwrap();
        assert_eq!(vars, 1 << LinkVar::Queue as u8 | 1 << LinkVar::Marks as u8);
        let mut r = Recorder::new(0, 1, &[], &[(0, "l:fwd".into())], 3, vars);
        r.sample_channel(0, [0, 0, 0, 0], SimTime(1)); // queue and marks, not the drops
        r.sample_channel(0, [0, 5, 5, 0], SimTime(2)); // drops only: nothing
        r.sample_channel(0, [1, 6, 6, 1], SimTime(3)); // queue, then marks past the limit
        let s = r.finish();
        let names: Vec<_> = s.rows().map(|r| (r.0 .0, r.2, r.3)).collect();
        assert_eq!(names, vec![(1, "queue", 0.0), (1, "marks", 0.0), (3, "queue", 1.0)]);
        assert!(s.truncated);
    }

    #[test]
    fn variable_names_are_checked() {
        assert_eq!(variable_set(&[]), Ok(0));
        assert_eq!(variable_set(&["cwnd".into(), "undo".into()]), Ok(1 | 1 << FlowVar::Undo as u8));
        let all: Vec<String> = FLOW_VARIABLES.iter().chain(LINK_VARIABLES.iter()).map(|v| v.to_string()).collect();
        assert_eq!(variable_set(&all), Ok(ALL_VARIABLES));
        let err = variable_set(&["cwnd".into(), "window".into()]).unwrap_err();
        assert!(err.starts_with("no variable named \"window\"; a flow's are cwnd, ssthresh,"), "{err}");
        assert!(err.ends_with("a link's queue, drops_queue, drops_error, marks"), "{err}");
    }
}
