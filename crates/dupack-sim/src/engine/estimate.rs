//! What a run will cost, from the scenario alone: how many events and how
//! much wall-clock time, before running it.
//!
//! The model is deliberately simple and errs on the high side:
//!
//! 1. Every flow is routed as the simulator routes it, data one way and
//!    ACKs the other. Each link direction and each shared medium is a
//!    resource of its rate (a trace-driven direction: its mean rate).
//! 2. Greedy flows share the resources max-min fairly (progressive
//!    filling), each also held below the rate its window allows over the
//!    path's base round-trip time, `min(receiver.window, tcp.max_cwnd)`
//!    ÷ (propagation + one transmission per hop). Losses, back-off and slow
//!    start only make a flow slower, so this is an upper bound on its rate.
//! 3. A flow sends at that rate from its start to `run.duration`, and no
//!    more packets than its transfer needs when it has `bytes`.
//! 4. Each data packet costs [`EVENTS_PER_PACKET_HOP`] events per hop of its
//!    path and of the path of its ACKs (one ACK per data packet, half as many
//!    with delayed ACKs): arrivals, the ends of transmission of queued
//!    packets, timers.
//! 5. Events divided by [`EVENTS_PER_SECOND`] give the wall-clock time.
//!
//! It is an estimate for deciding whether to start a run, good to a small
//! factor for links that are kept busy; runs spent mostly in timeouts over
//! very lossy links take less.

use crate::net::medium;
use crate::net::packet::{NodeId, IP_HEADER_BYTES};
use crate::net::routing::{Routes, NO_ROUTE};
use crate::net::trace::TraceLink;
use crate::scenario::model::{AckMode, Scenario};

/// Events per data packet and hop (its own hops and its ACK's): 1.0 to 1.2
/// in the shipped scenarios (events ÷ (segments sent × hops)), 1.65 over
/// the ARQ link of irw-cellular and 2.1 on efr_wlan's shared medium, which
/// carry far fewer packets than step 3 allows; every shipped scenario runs
/// 0.28 to 0.82 of the events estimated with 1.5.
pub const EVENTS_PER_PACKET_HOP: f64 = 1.5;

/// Events per second of wall-clock time assumed by the estimate: the low
/// end of what the core does on one core of a current machine in a long
/// run (8 to 16 million; docs/performance.md), so that with the high count
/// of events the time estimated is rarely too short.
pub const EVENTS_PER_SECOND: f64 = 8.0e6;

/// Bytes of an IP and TCP header without options.
const HEADERS: f64 = (IP_HEADER_BYTES + 20) as f64;

/// The cost of running a scenario, estimated by [`estimate`].
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Data packets all flows together could send.
    pub packets: f64,
    /// Events the run would process.
    pub events: f64,
    /// Wall-clock seconds at [`EVENTS_PER_SECOND`].
    pub wall_s: f64,
}

/// One flow's path, as counts of hops per resource.
struct Path {
    /// (resource, bits it carries per data packet of the flow: the packet's
    /// own on each of its hops there, and its share of ACKs on theirs).
    uses: Vec<(usize, f64)>,
    /// Hops of a data packet plus its share of ACKs' hops.
    hops: f64,
}

/// Estimate the cost of running `s` (see the module's documentation).
pub fn estimate(s: &Scenario) -> Estimate {
    // Resources: each link direction, then each medium.
    let mut capacity: Vec<f64> = Vec::new();
    let mut delay_s: Vec<f64> = Vec::new();
    let mut ends: Vec<(NodeId, NodeId)> = Vec::new();
    let mut resource: Vec<usize> = Vec::new(); // routing edge → resource
    for l in &s.links {
        for (from, to, trace) in [(l.a, l.b, &l.fwd_trace), (l.b, l.a, &l.rev_trace)] {
            let rate = trace.as_ref().map_or(l.rate_bps, |t| TraceLink::new(t).mean_rate_bps());
            resource.push(capacity.len());
            capacity.push(rate.max(1) as f64);
            delay_s.push(l.delay.as_secs_f64());
            ends.push((from as NodeId, to as NodeId));
        }
    }
    for m in &s.media {
        let r = capacity.len();
        capacity.push(m.rate_bps.max(1) as f64);
        delay_s.push(m.delay.as_secs_f64());
        let stations: Vec<NodeId> = m.stations.iter().map(|&n| n as NodeId).collect();
        for hop in medium::hops(&stations, m.access_point.map(|a| a as NodeId)) {
            resource.push(r);
            ends.push(hop);
        }
    }
    let dests: Vec<NodeId> = s.flows.iter().flat_map(|f| [f.dst as NodeId, f.src as NodeId]).collect();
    let routes = Routes::compute(s.nodes.len(), &ends, &dests);
    // The routing edges from `a` to `b`, or None without a route.
    let walk = |a: usize, b: usize| -> Option<Vec<usize>> {
        let (mut at, mut edges) = (a as NodeId, Vec::new());
        while at != b as NodeId {
            let e = routes.next_hop(at, b as NodeId);
            if e == NO_ROUTE || edges.len() > ends.len() {
                return None;
            }
            edges.push(e as usize);
            at = ends[e as usize].1;
        }
        Some(edges)
    };

    let duration = s.duration.as_secs_f64();
    let mut paths: Vec<Option<Path>> = Vec::with_capacity(s.flows.len());
    let mut cap: Vec<f64> = Vec::with_capacity(s.flows.len()); // packets/s each flow's window allows
    for f in &s.flows {
        let (Some(data), Some(acks)) = (walk(f.src, f.dst), walk(f.dst, f.src)) else {
            paths.push(None); // the run itself will say there is no route
            cap.push(0.0);
            continue;
        };
        let mss = f.tcp.mss.max(1) as f64;
        let acks_per_packet = match f.receiver.ack {
            AckMode::Every => 1.0,
            AckMode::Delayed { every, .. } => 1.0 / every.max(1) as f64,
        };
        let (data_bits, ack_bits) = (8.0 * (mss + HEADERS), 8.0 * HEADERS * acks_per_packet);
        let mut uses: Vec<(usize, f64)> = Vec::new();
        let mut base_rtt_s = 0.0;
        for (edges, bits) in [(&data, data_bits), (&acks, ack_bits)] {
            for &e in edges {
                let r = resource[e];
                base_rtt_s += delay_s[r] + bits / capacity[r];
                match uses.iter_mut().find(|(x, _)| *x == r) {
                    Some(u) => u.1 += bits,
                    None => uses.push((r, bits)),
                }
            }
        }
        let window = (f.receiver.window.min(f.tcp.max_cwnd)) as f64;
        cap.push(if base_rtt_s > 0.0 { window / mss / base_rtt_s } else { f64::INFINITY });
        let hops = data.len() as f64 + acks.len() as f64 * acks_per_packet;
        paths.push(Some(Path { uses, hops }));
    }

    let rate = max_min_rates(&capacity, &paths, &cap);
    let mut packets = 0.0;
    let mut events = 0.0;
    for ((f, path), x) in s.flows.iter().zip(&paths).zip(rate) {
        let Some(path) = path else { continue };
        let active = (duration - f.start.as_secs_f64()).max(0.0);
        let mut n = x * active;
        if let Some(bytes) = f.bytes {
            n = n.min((bytes as f64 / f.tcp.mss.max(1) as f64).ceil());
        }
        packets += n;
        events += n * path.hops * EVENTS_PER_PACKET_HOP;
    }
    Estimate { packets, events, wall_s: events / EVENTS_PER_SECOND }
}

/// Max-min fair rates (data packets per second) of flows over shared
/// resources, by progressive filling: every flow not yet held back grows at
/// the same pace until a resource it uses is full or it reaches its own
/// `cap`; those flows keep that rate, the others go on. A flow without a
/// path gets 0.
fn max_min_rates(capacity: &[f64], paths: &[Option<Path>], cap: &[f64]) -> Vec<f64> {
    let n = paths.len();
    let mut rate = vec![0.0; n];
    let mut fixed: Vec<bool> = paths.iter().map(Option::is_none).collect();
    let mut used = vec![0.0; capacity.len()]; // bits/s taken by the fixed flows
    let mut level = 0.0;
    while fixed.iter().any(|x| !x) {
        // Bits per unit of level each resource gets from the growing flows.
        let mut weight = vec![0.0; capacity.len()];
        for (p, _) in paths.iter().zip(&fixed).filter(|(_, f)| !**f) {
            for &(r, bits) in &p.as_ref().expect("flows without a path are fixed").uses {
                weight[r] += bits;
            }
        }
        let mut next = f64::INFINITY;
        for r in 0..capacity.len() {
            if weight[r] > 0.0 {
                next = next.min(((capacity[r] - used[r]) / weight[r]).max(level));
            }
        }
        for i in (0..n).filter(|&i| !fixed[i]) {
            next = next.min(cap[i].max(level));
        }
        if !next.is_finite() {
            // No resource and no window bounds these flows (zero delays and
            // unbounded windows cannot happen with rates > 0): stop here.
            break;
        }
        level = next;
        let full: Vec<bool> = (0..capacity.len())
            .map(|r| weight[r] > 0.0 && used[r] + weight[r] * level >= capacity[r] * (1.0 - 1e-12))
            .collect();
        for i in 0..n {
            if fixed[i] {
                continue;
            }
            let uses = &paths[i].as_ref().expect("flows without a path are fixed").uses;
            if cap[i] <= level || uses.iter().any(|&(r, _)| full[r]) {
                fixed[i] = true;
                rate[i] = level;
                for &(r, bits) in uses {
                    used[r] += bits * level;
                }
            }
        }
    }
    rate
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::parse::parse_scenario_toml;

    fn two_hosts(rate: &str, duration: &str, bytes: Option<&str>) -> Scenario {
        let bytes = bytes.map_or(String::new(), |b| format!("bytes = \"{b}\""));
        let text = format!(
            r#"
            [run]
            duration = "{duration}"
            [topology]
            kind = "custom"
            nodes = [{{ name = "a" }}, {{ name = "b" }}]
            links = [{{ name = "l", a = "a", b = "b", rate = "{rate}", delay = "10ms" }}]
            [receiver]
            window = "64MiB"
            [[flows]]
            from = "a"
            to = "b"
            {bytes}
            "#
        );
        parse_scenario_toml(&text).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_long_fast_run_is_estimated_at_days_and_a_short_slow_one_at_milliseconds() {
        let long = estimate(&two_hosts("1Gbps", "10000000s", None));
        assert!(long.wall_s > 3600.0 && long.wall_s < 30.0 * 86400.0, "{long:?}");
        let short = estimate(&two_hosts("1Mbps", "10s", None));
        assert!(short.wall_s < 0.1, "{short:?}");
        // 1 Mbps of 1500-byte packets for 10 s: about 830 packets.
        assert!((short.packets - 1e6 / (8.0 * 1500.0) * 10.0).abs() < 50.0, "{short:?}");
    }

    #[test]
    fn a_finite_transfer_bounds_the_estimate() {
        let done = estimate(&two_hosts("1Gbps", "10000000s", Some("1MB")));
        assert!(done.packets <= (1e6 / 1460.0f64).ceil(), "{done:?}");
        assert!(done.wall_s < 0.1, "{done:?}");
    }

    #[test]
    fn flows_share_a_bottleneck_max_min_fairly() {
        let caps = [10.0, 1.0]; // resource 0 carries both flows; resource 1 only the second
        let paths = vec![
            Some(Path { uses: vec![(0, 1.0)], hops: 1.0 }),
            Some(Path { uses: vec![(0, 1.0), (1, 1.0)], hops: 2.0 }),
            None,
        ];
        let rates = max_min_rates(&caps, &paths, &[f64::INFINITY, f64::INFINITY, 0.0]);
        assert_eq!(rates, vec![9.0, 1.0, 0.0]);
        let capped = max_min_rates(&caps, &paths[..2], &[2.0, f64::INFINITY]);
        assert_eq!(capped, vec![2.0, 1.0]);
    }
}
