//! Looking inside a run (observe::series, observe::pcap): the time series
//! keep their invariants and agree with the counters, captures hold what
//! was sent, and observing changes no result bit.

use dupack_sim::observe::series::{FLOW_VARIABLES, LINK_VARIABLES};
use dupack_sim::{parse_scenario_toml, run, run_observed, Observe, PcapRequest, RunResult, Scenario};
use std::io::{self, Write};
use std::sync::{Arc, Mutex};

/// Three variants over a lossy link (5 % data loss) into a small queue:
/// fast retransmits and timeouts both happen.
fn lossy(variant: &str) -> Scenario {
    parse_scenario_toml(&format!(
        r#"
name = "observe"
[run]
duration = "60s"
seed = 3
[topology]
kind = "dumbbell"
senders = 2
[topology.access]
rate = "10Mbps"
delay = "1ms"
fwd_error = {{ model = "bernoulli", p = 0.05 }}
[topology.bottleneck]
rate = "1Mbps"
delay = "30ms"
queue = {{ kind = "droptail", limit_packets = 12 }}
[tcp]
variant = "{variant}"
mss = "1000B"
"#
    ))
    .expect("scenario")
}

/// The result without the wall-clock time (which is measured, not
/// simulated) and the number of events the engine handled: a link whose
/// queue is sampled or captured keeps an event at every end of
/// transmission, which an unobserved one replays instead (net::channel).
fn canonical(r: &RunResult) -> String {
    let mut r = r.clone();
    r.run.wall_time_s = 0.0;
    r.run.events = 0;
    serde_json::to_string(&r).expect("json")
}

#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);
impl Write for Shared {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn everything(s: &Scenario, pcap: Shared) -> Observe {
    Observe {
        trace_flows: (0..s.flows.len()).collect(),
        series_flows: (0..s.flows.len()).collect(),
        series_links: (0..s.links.len()).collect(),
        pcaps: vec![PcapRequest { link: 0, fwd: true, rev: true, out: Box::new(pcap) }],
        ..Observe::default()
    }
}

#[test]
fn observing_everything_changes_no_result_bit() {
    for v in ["reno", "newreno", "sack", "rfc6675", "newreno+ecn"] {
        let s = lossy(v);
        let plain = run(&s, 3).expect("run");
        let (seen, obs) = run_observed(&s, 3, everything(&s, Shared::default()), || false).expect("run");
        assert_eq!(canonical(&plain), canonical(&seen), "{v}");
        assert!(seen.run.events > plain.run.events, "{v}: the observed bottleneck's ends are events");
        assert!(obs.series.is_some_and(|x| !x.is_empty()));
    }
}

/// Values of `var` of `entity`, in time order.
fn values(series: &dupack_sim::Series, entity: &str, var: &str) -> Vec<(u64, f64)> {
    series.rows().filter(|r| r.1 == entity && r.2 == var).map(|r| (r.0.as_nanos(), r.3)).collect()
}

#[test]
fn flow_series_keep_their_invariants_and_events_match_the_counters() {
    for v in ["reno", "newreno", "sack", "rfc6675"] {
        let s = lossy(v);
        let obs = Observe { series_flows: vec![0, 1], series_links: vec![2], ..Observe::default() };
        let (r, o) = run_observed(&s, 3, obs, || false).expect("run");
        let series = o.series.expect("series");
        assert!(!series.truncated);
        let mut times: Vec<u64> = series.time_ns.clone();
        times.dedup();
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "records in time order");
        for (i, f) in r.flows.iter().enumerate() {
            let name = &s.flows[i].name;
            let mss = s.flows[i].tcp.mss as f64;
            let cwnd = values(&series, name, "cwnd");
            assert!(!cwnd.is_empty());
            assert!(cwnd.iter().all(|&(_, c)| c >= mss), "{v}: cwnd ≥ 1 MSS");
            assert_eq!(cwnd.last().unwrap().1, f.final_cwnd as f64, "{v}: last cwnd is the final one");
            let una = values(&series, name, "snd_una");
            assert!(una.windows(2).all(|w| w[0].1 <= w[1].1), "{v}: snd_una never decreases");
            let nxt = values(&series, name, "snd_nxt");
            assert!(nxt.iter().all(|&(_, x)| x >= 0.0));
            assert_eq!(values(&series, name, "timeout").len() as u64, f.timeouts, "{v}: timeouts");
            assert_eq!(values(&series, name, "fast_retransmit").len() as u64, f.fast_retransmits, "{v}: FR");
            assert!(f.timeouts > 0 && f.fast_retransmits > 0, "{v}: the scenario exercises both");
            // ssthresh appears with the first reduction, at ≥ 2 MSS (RFC 5681 eq. 4).
            let ssthresh = values(&series, name, "ssthresh");
            assert!(ssthresh.iter().all(|&(_, x)| x >= 2.0 * mss), "{v}: ssthresh ≥ 2 MSS");
            assert!(values(&series, name, "srtt").iter().all(|&(_, x)| x > 0.06));
            let states = values(&series, name, "state");
            assert!(states.iter().any(|&(_, x)| x == 1.0) && states.iter().any(|&(_, x)| x == 2.0));
            let pipe = values(&series, name, "pipe");
            assert_eq!(!pipe.is_empty(), v == "rfc6675", "{v}: pipe only where the policy keeps one");
        }
        // The bottleneck's queue never exceeds its limit and its drop counter
        // ends at the link's.
        let q = values(&series, "bottleneck:fwd", "queue");
        assert!(!q.is_empty() && q.iter().all(|&(_, x)| (0.0..=12.0).contains(&x)));
        let link = r.links.iter().find(|l| l.link == "bottleneck" && l.direction == "fwd").unwrap();
        let drops = values(&series, "bottleneck:fwd", "drops_queue");
        assert_eq!(drops.last().map_or(0.0, |d| d.1), link.drops_queue as f64);
        assert!(series.rows().all(|r| FLOW_VARIABLES.contains(&r.2) || LINK_VARIABLES.contains(&r.2)));
        assert!(values(&series, "access0:fwd", "queue").is_empty(), "only the links asked for");
    }
}

#[test]
fn a_record_limit_truncates_the_series_and_says_so() {
    let s = lossy("newreno");
    let obs = Observe { series_flows: vec![0], series_max_records: 100, ..Observe::default() };
    let (_, o) = run_observed(&s, 3, obs, || false).expect("run");
    let series = o.series.unwrap();
    assert_eq!(series.len(), 100);
    assert!(series.truncated);
}

/// The enhanced packet blocks of a pcapng file: (interface, captured bytes, original length, comment).
fn packets(b: &[u8]) -> Vec<(u32, Vec<u8>, u32, String)> {
    let mut out = Vec::new();
    let mut i = 0;
    let u32le = |x: &[u8]| u32::from_le_bytes(x[..4].try_into().unwrap());
    while i < b.len() {
        let (kind, len) = (u32le(&b[i..]), u32le(&b[i + 4..]) as usize);
        if kind == 6 {
            let body = &b[i + 8..i + len - 4];
            let cap = u32le(&body[12..]) as usize;
            let mut comment = String::new();
            let mut o = 20 + cap.next_multiple_of(4);
            while o + 4 <= body.len() {
                let code = u16::from_le_bytes([body[o], body[o + 1]]);
                let l = u16::from_le_bytes([body[o + 2], body[o + 3]]) as usize;
                if code == 1 {
                    comment = String::from_utf8(body[o + 4..o + 4 + l].to_vec()).unwrap();
                }
                if code == 0 {
                    break;
                }
                o += 4 + l.next_multiple_of(4);
            }
            out.push((u32le(body), body[20..20 + cap].to_vec(), u32le(&body[16..]), comment));
        }
        i += len;
    }
    out
}

/// The option kinds of the TCP header of an IPv4 datagram.
fn tcp_options(ip: &[u8]) -> Vec<u8> {
    let tcp = &ip[20..];
    let end = (tcp[12] >> 4) as usize * 4;
    let (mut kinds, mut o) = (Vec::new(), 20);
    while o < end {
        kinds.push(tcp[o]);
        o += if tcp[o] <= 1 { 1 } else { tcp[o + 1] as usize };
    }
    kinds
}

#[test]
fn a_capture_of_the_senders_link_holds_every_segment_it_sent() {
    for v in ["reno", "sack"] {
        let s = lossy(v);
        let buf = Shared::default();
        let obs = Observe {
            pcaps: vec![PcapRequest { link: 0, fwd: true, rev: true, out: Box::new(buf.clone()) }],
            ..Observe::default()
        };
        let (r, o) = run_observed(&s, 3, obs, || false).expect("run");
        assert_eq!(o.pcap_errors, vec![None]);
        let b = buf.0.lock().unwrap().clone();
        let pk = packets(&b);
        assert_eq!(pk.len() as u64, o.pcap_packets[0]);
        let data: Vec<_> = pk
            .iter()
            .filter(|p| p.0 == 0 && p.3 != "synthesised: dupack does not simulate connection set-up")
            .collect();
        let f = &r.flows[0];
        // The access link carries only flow 0's data; every segment the sender
        // sent starts its transmission there (the access queue is never full).
        assert_eq!(data.len() as u64, f.segments_sent, "{v}");
        let rexmit = data.iter().filter(|p| p.3 == "retransmission").count() as u64;
        assert_eq!(rexmit, f.retransmitted_segments, "{v}");
        // ACKs come back on the reverse direction; SACK ones carry blocks.
        let acks: Vec<_> = pk.iter().filter(|p| p.0 == 1 && p.1[33] & 0x02 == 0).collect();
        assert!(!acks.is_empty());
        let with_sack = acks.iter().filter(|p| tcp_options(&p.1).contains(&5)).count();
        assert_eq!(with_sack > 0, v == "sack", "{v}");
        // Every datagram's IP length is its original length.
        assert!(pk.iter().all(|p| u16::from_be_bytes([p.1[2], p.1[3]]) as u32 == p.2));
    }
}
