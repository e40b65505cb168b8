//! Per-segment send times, for the policies that keep their own clock on
//! every segment: Vegas's fine-grained retransmission check and its
//! congestion avoidance (Brakmo & Peterson 1995 §3.1–3.2) both read "when
//! was this segment last sent, and how many times". The sender never
//! re-packetises, so segment `i` is bytes `[i·mss, (i+1)·mss)`.

use crate::time::SimTime;
use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub struct SendLog {
    /// Per segment from `base`: (send time of the latest transmission, transmissions).
    sent: VecDeque<(SimTime, u32)>,
    base: u64,
}

impl SendLog {
    fn index(&self, seq: u64, mss: u64) -> Option<usize> {
        (seq / mss).checked_sub(self.base).map(|i| i as usize)
    }

    /// (send time of the latest transmission, transmissions) of the segment holding `seq`.
    pub fn get(&self, seq: u64, mss: u64) -> Option<(SimTime, u32)> {
        self.index(seq, mss).and_then(|i| self.sent.get(i).copied())
    }

    /// The segment holding `seq` was (re)sent at `now`.
    pub fn record(&mut self, seq: u64, mss: u64, now: SimTime) {
        if let Some(i) = self.index(seq, mss) {
            if i >= self.sent.len() {
                self.sent.resize(i + 1, (SimTime::ZERO, 0));
            }
            let e = &mut self.sent[i];
            *e = (now, e.1 + 1);
        }
    }

    /// Forget the segments wholly below the cumulative ACK `snd_una`.
    pub fn advance(&mut self, snd_una: u64, mss: u64) {
        while self.base < snd_una / mss {
            self.sent.pop_front();
            self.base += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::ms;
    #[test]
    fn counts_transmissions_and_keeps_the_latest_time() {
        let at = |v| SimTime::ZERO + ms(v);
        let mut l = SendLog::default();
        l.record(0, 100, at(1));
        l.record(250, 100, at(2));
        l.record(0, 100, at(5));
        assert_eq!(l.get(50, 100), Some((at(5), 2)));
        assert_eq!(l.get(100, 100), Some((SimTime::ZERO, 0)));
        assert_eq!(l.get(299, 100), Some((at(2), 1)));
        l.advance(200, 100);
        assert_eq!(l.get(50, 100), None);
        assert_eq!(l.get(250, 100), Some((at(2), 1)));
    }
}
