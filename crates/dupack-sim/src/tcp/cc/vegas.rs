//! TCP Vegas's congestion avoidance and modified slow start (Brakmo &
//! Peterson 1995 §3.2–3.3; compared with EFR in efr §3 and §7.1), as a
//! congestion controller: `+cc=vegas` composes with any loss recovery, and
//! the `vegas` variant is this controller with Vegas's own retransmission
//! (`tcp::recovery::vegas`).
//!
//! Once per round trip (an *epoch*, which ends when the segment sent at its
//! start is acknowledged):
//!
//! - `BaseRTT` is the smallest RTT seen; `Actual = (bytes sent in the
//!   epoch) / RTT` (RTT: the mean of the epoch's samples), `Expected =
//!   (bytes outstanding) / BaseRTT`, and `Diff = (Expected − Actual)·BaseRTT`
//!   in segments.
//! - Congestion avoidance: `Diff < α` → grow by one segment over the next
//!   RTT; `Diff > β` → shrink by one segment at once; else hold.
//! - Slow start grows only every other RTT, and ends when `Diff > γ`
//!   (`cwnd` then loses 1/8, `ssthresh` = 2 segments).
//!
//! RTT samples are Vegas's fine-grained ones: the send time of the newest
//! segment an ACK covers, if it was sent once (Karn), from this
//! controller's own per-segment clock.
//!
//! Choices (docs/mechanisms.md): α = 1, β = 3, γ = 1 segments. The decrease
//! at a loss is not the controller's: under `vegas` the recovery applies
//! Brakmo & Peterson's ¾ rule; under any other recovery the halving of RFC
//! 5681 (as Linux's `tcp_vegas` keeps Reno's `ssthresh`). The controller
//! sees only the ACKs its recovery lets grow the window, so it holds still
//! during a loss recovery.

use super::{AckInput, CongestionControl, Growth};
use crate::tcp::sendlog::SendLog;
use crate::time::{SimDuration, SimTime};

const ALPHA: f64 = 1.0;
const BETA: f64 = 3.0;
const GAMMA: f64 = 1.0;

#[derive(Clone, Debug)]
pub struct Vegas {
    log: SendLog,
    base_rtt: Option<SimDuration>,
    /// The epoch: snd_nxt and time at its start, RTT samples in it.
    beg_seq: u64,
    beg_time: SimTime,
    sum_rtt: f64,
    cnt_rtt: u32,
    /// Bytes of cwnd growth per ACK decided at the last epoch end.
    incr: u64,
    /// Slow start grows in every other epoch.
    inc_flag: bool,
}

impl Default for Vegas {
    fn default() -> Self {
        Vegas {
            log: SendLog::default(),
            base_rtt: None,
            beg_seq: 0,
            beg_time: SimTime::ZERO,
            sum_rtt: 0.0,
            cnt_rtt: 0,
            incr: 0,
            inc_flag: true,
        }
    }
}

impl Vegas {
    fn rtt_sample(&mut self, rtt: SimDuration) {
        self.sum_rtt += rtt.as_secs_f64();
        self.cnt_rtt += 1;
        if self.base_rtt.is_none_or(|b| rtt < b) {
            self.base_rtt = Some(rtt);
        }
    }

    /// The once-per-RTT decision (Brakmo & Peterson §3.2 / §3.3): a new
    /// window if it changes at once, and the growth per ACK until the next.
    fn epoch_end(&mut self, a: &AckInput) -> Option<u64> {
        let rtt =
            if self.cnt_rtt > 0 { self.sum_rtt / self.cnt_rtt as f64 } else { (a.now - self.beg_time).as_secs_f64() };
        self.sum_rtt = 0.0;
        self.cnt_rtt = 0;
        let in_transit = a.snd_nxt.saturating_sub(self.beg_seq) as f64 / a.mss as f64;
        let mut cwnd = None;
        if rtt > 0.0 {
            let base = self.base_rtt.map_or(rtt, |b| b.as_secs_f64()).min(rtt);
            let actual = in_transit / rtt;
            let expected = (a.snd_nxt - a.snd_una) as f64 / a.mss as f64 / base;
            let diff = ((expected - actual) * base + 0.5).floor();
            let two = 2 * a.mss;
            if a.cwnd < a.ssthresh {
                self.inc_flag = !self.inc_flag;
                if !self.inc_flag {
                    self.incr = 0;
                } else if diff > GAMMA {
                    // Leave slow start: give back an eighth.
                    cwnd = Some((a.cwnd - a.cwnd / 8).max(two));
                    self.incr = 0;
                } else {
                    self.incr = a.mss;
                }
            } else if diff > BETA {
                cwnd = Some(a.cwnd.saturating_sub(a.mss).max(two));
                self.incr = 0;
            } else if diff < ALPHA {
                self.incr = (a.mss * a.mss / a.cwnd.max(1)).max(1);
            } else {
                self.incr = 0;
            }
        }
        self.beg_seq = a.snd_nxt;
        self.beg_time = a.now;
        cwnd
    }
}

impl CongestionControl for Vegas {
    fn on_ack(&mut self, a: &AckInput) -> Growth {
        let mut g = Growth { cwnd: a.cwnd, ssthresh: None };
        // A fine-grained sample from the newest segment this ACK covers, if
        // it was sent once.
        if let Some((t, 1)) = self.log.get(a.snd_una.saturating_sub(1), a.mss) {
            self.rtt_sample(a.now.saturating_since(t));
        }
        self.log.advance(a.snd_una, a.mss);
        if a.snd_una >= self.beg_seq {
            if let Some(c) = self.epoch_end(a) {
                g.cwnd = c;
                if a.cwnd < a.ssthresh {
                    // Slow start ended: ssthresh only gates slow start in Vegas.
                    g.ssthresh = Some(2 * a.mss);
                }
            }
        }
        if self.incr == a.mss && g.cwnd >= a.ssthresh {
            self.incr = 0;
        }
        // Grow only while the window is being used.
        if self.incr > 0 && g.cwnd.saturating_sub(a.snd_nxt - a.snd_una) <= 2 * a.mss {
            g.cwnd += self.incr;
        }
        g.cwnd = g.cwnd.min(a.max_cwnd);
        g
    }

    fn on_transmit(&mut self, seq: u64, mss: u64, now: SimTime) {
        self.log.record(seq, mss, now);
    }

    fn name(&self) -> &'static str {
        "vegas"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::ms;

    const MSS: u64 = 1000;

    fn at(t: u64) -> SimTime {
        SimTime::ZERO + ms(t)
    }

    /// Segments `from..to` leave at `t` ms.
    fn send(c: &mut Vegas, from: u64, to: u64, t: u64) {
        for i in from..to {
            c.on_transmit(i * MSS, MSS, at(t));
        }
    }

    /// An ACK up to segment `una` at `t` ms, with `nxt` segments sent.
    fn ack(c: &mut Vegas, cwnd: u64, ssthresh: u64, una: u64, nxt: u64, t: u64) -> Growth {
        c.on_ack(&AckInput {
            cwnd,
            ssthresh,
            acked: MSS,
            delivered: MSS,
            mss: MSS,
            max_cwnd: u64::MAX,
            srtt: None,
            ends_recovery: false,
            now: at(t),
            snd_una: una * MSS,
            snd_nxt: nxt * MSS,
        })
    }

    #[test]
    fn below_alpha_the_window_grows_by_one_segment_per_rtt() {
        // §3.2: ten segments out over a 100 ms path with nothing queued:
        // Expected = Actual, Diff < α, so one segment more over the next RTT.
        let mut c = Vegas::default();
        send(&mut c, 0, 10, 0);
        let g = ack(&mut c, 10 * MSS, 5 * MSS, 1, 10, 100);
        assert_eq!(c.base_rtt, Some(ms(100)));
        assert_eq!(g, Growth { cwnd: 10 * MSS + MSS * MSS / (10 * MSS), ssthresh: None });
    }

    #[test]
    fn above_beta_the_window_shrinks_by_one_segment_at_once() {
        // BaseRTT 100 ms; then the RTT doubles with ten segments out: Actual
        // halves, Diff = (90 − 50)·0.1 → 4 segments queued > β = 3.
        let mut c = Vegas::default();
        send(&mut c, 0, 10, 0);
        ack(&mut c, 10 * MSS, 5 * MSS, 1, 10, 100);
        send(&mut c, 10, 20, 100);
        let g = ack(&mut c, 10 * MSS, 5 * MSS, 11, 20, 300);
        assert_eq!(g, Growth { cwnd: 9 * MSS, ssthresh: None });
    }

    #[test]
    fn between_alpha_and_beta_the_window_holds() {
        // RTT 125 ms against BaseRTT 100 ms: Diff = (90 − 80)·0.1 = 1 = α.
        let mut c = Vegas::default();
        send(&mut c, 0, 10, 0);
        ack(&mut c, 10 * MSS, 5 * MSS, 1, 10, 100);
        send(&mut c, 10, 20, 100);
        let g = ack(&mut c, 10 * MSS, 5 * MSS, 11, 20, 225);
        assert_eq!(g, Growth { cwnd: 10 * MSS, ssthresh: None });
    }

    #[test]
    fn slow_start_grows_every_other_rtt_and_ends_above_gamma() {
        // §3.3: in slow start the window doubles only every other RTT.
        let mut c = Vegas::default();
        send(&mut c, 0, 4, 0);
        // First epoch: the growth flag flips off, no growth this RTT.
        let g = ack(&mut c, 4 * MSS, u64::MAX, 1, 4, 100);
        assert_eq!(g.cwnd, 4 * MSS);
        // Second epoch at the base RTT: on, one segment per ACK.
        send(&mut c, 4, 8, 100);
        let g = ack(&mut c, 4 * MSS, u64::MAX, 5, 8, 200);
        assert_eq!(g.cwnd, 5 * MSS);
        // A queue builds (RTT 150 ms): off again, holds.
        send(&mut c, 8, 16, 200);
        let g = ack(&mut c, 8 * MSS, u64::MAX, 9, 16, 350);
        assert_eq!(g.cwnd, 8 * MSS);
        // On again with Diff > γ: slow start ends, an eighth given back and
        // ssthresh 2 segments (it only gates slow start in Vegas).
        send(&mut c, 16, 24, 350);
        let g = ack(&mut c, 8 * MSS, u64::MAX, 17, 24, 550);
        assert_eq!(g, Growth { cwnd: 7 * MSS, ssthresh: Some(2 * MSS) });
    }

    #[test]
    fn a_retransmitted_segment_gives_no_sample() {
        // Karn: the ACK of a segment sent twice says nothing about the RTT.
        let mut c = Vegas::default();
        send(&mut c, 0, 1, 0);
        send(&mut c, 0, 1, 300);
        ack(&mut c, 2 * MSS, 5 * MSS, 1, 1, 310);
        assert_eq!(c.base_rtt, None);
    }
}
