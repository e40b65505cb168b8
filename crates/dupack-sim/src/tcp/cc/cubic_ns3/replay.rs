//! ns-3.44's own calls of its `TcpCubic`, replayed through the mirror.
//!
//! `tests/data/ns3_cubic_calls_*.txt` hold every call ns-3's socket made of
//! flow 0's `TcpCubic` (`rfc6675+lt+cc=cubic`, seed 1), and what ns-3
//! decided: the window after each `IncreaseWindow`, the ssthresh of each
//! `GetSsThresh`, as ns-3's log and window trace say
//! (validation/ns3_cubic_calls.py writes them). Two cases: the N = 40
//! dumbbell at p = 1 % (100 s; windows of a few segments) and the lossy
//! link at p = 0.3 %, RTT 100 ms (12 s; windows of 27 to 200 segments, well
//! into the cubic function's own region). Fed the same calls, the mirror
//! must decide the same, call by call: this checks its arithmetic against
//! ns-3's on the inputs ns-3 saw, apart from everything else the two
//! simulators do differently. Which segments an ACK hands the controller
//! (its delivered data, or at the end of a recovery its whole advance) is
//! the sender's choice, tested in `tcp/sender/tests.rs`
//! (`cubic_ns3_counts_the_ack_that_ends_a_recovery_by_its_whole_advance`):
//! here both counts are the recorded `segmentsAcked`.

use super::*;
use crate::tcp::cc::reduce_whole_segments;

const DUMBBELL: &str = include_str!("../../../../tests/data/ns3_cubic_calls_dumbbell.txt");
const LOSSY: &str = include_str!("../../../../tests/data/ns3_cubic_calls_lossy.txt");
const MSS: u64 = 1000;

fn num(f: &str) -> u64 {
    f.parse().expect("a number in the recorded calls")
}

#[test]
fn replays_ns3s_calls_and_decides_as_ns3_does() {
    let (windows, cuts) = replay(DUMBBELL);
    assert!(windows > 400 && cuts > 40, "the dumbbell's recording holds {windows} growths and {cuts} reductions");
    let (windows, cuts) = replay(LOSSY);
    assert!(windows > 4000 && cuts > 10, "the lossy link's recording holds {windows} growths and {cuts} reductions");
}

/// Replay `calls`; the number of growths and reductions, after checking each against ns-3's.
fn replay(calls: &str) -> (usize, usize) {
    let mut c = Ns3Cubic::default();
    // The sender takes ssthresh from `reduce_whole_segments` for this
    // controller (`View::loss_ssthresh`); the "S" records check that rule.
    assert!(c.ssthresh_of_whole_segments());
    let (mut windows, mut cuts, mut wrong) = (0, 0, Vec::new());
    for (line, text) in calls.lines().enumerate().filter(|(_, l)| !l.starts_with('#')) {
        let f: Vec<&str> = text.split_whitespace().collect();
        let now = SimTime(num(f[1]));
        match f[0] {
            // PktsAcked, with the smoothed RTT ns-3 hands it.
            "P" => c.on_any_ack(Some(SimDuration(num(f[2]))), now),
            // GetSsThresh (and CubicReset when the timer expired).
            "S" => {
                let (cwnd, ssthresh, timeout) = (num(f[2]), num(f[3]), f[4] == "1");
                let ours = reduce_whole_segments(cwnd, c.beta().expect("β"), MSS);
                c.on_congestion(cwnd, MSS, timeout, now);
                cuts += 1;
                if ours != ssthresh {
                    wrong.push(format!("line {}: ssthresh {ours}, ns-3 {ssthresh}", line + 1));
                }
            }
            // IncreaseWindow(segmentsAcked) on the window ns-3 had.
            "I" => {
                let (segs, cwnd, ssthresh, after, exit) = (num(f[2]), num(f[3]), num(f[4]), num(f[5]), f[6] == "1");
                let a = AckInput {
                    cwnd,
                    ssthresh,
                    acked: segs * MSS,
                    delivered: segs * MSS,
                    mss: MSS,
                    max_cwnd: u64::MAX,
                    srtt: None,
                    ends_recovery: exit,
                    now,
                    snd_una: 0,
                    snd_nxt: 0,
                };
                let ours = c.on_ack(&a).cwnd;
                windows += 1;
                if ours != after {
                    wrong.push(format!("line {}: window {cwnd} → {ours}, ns-3 → {after}", line + 1));
                }
            }
            other => panic!("line {}: unknown record {other:?}", line + 1),
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {windows} growths and {cuts} reductions differ from ns-3's:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    (windows, cuts)
}
