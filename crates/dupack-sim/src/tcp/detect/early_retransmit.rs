//! Early Retransmit (RFC 5827; `+er`): a lower duplicate-ACK threshold when
//! the flight is too small to produce the usual number of duplicate ACKs
//! and no new data can be sent to produce more (RFC 5827 §3.1).

use crate::tcp::policy::{DupThreshold, View};

/// Early Retransmit (RFC 5827 §3.1, `+er`): when fewer than four segments
/// are outstanding and no new data can be sent, the threshold drops to
/// `oseg − 1`, so that a loss in a small flight is still repaired by a fast
/// retransmit. Evaluated on every duplicate ACK with the flight at that
/// moment.
///
/// Choice: the byte-counting rule of §3.1 (segments = outstanding bytes /
/// SMSS, rounded up) is used with every base, SACK included; RFC 5827 §3.2
/// lets a SACK sender count unSACKed segments instead. The threshold never
/// falls below 1.
#[derive(Copy, Clone, Debug)]
pub struct EarlyRetransmit {
    dupthresh: u32,
}

impl EarlyRetransmit {
    pub fn new(dupthresh: u32) -> Self {
        EarlyRetransmit { dupthresh }
    }
}

impl DupThreshold for EarlyRetransmit {
    fn on_dupack(&mut self, v: &View) -> u32 {
        let oseg = v.flight_size().div_ceil(v.mss);
        if oseg < 4 && !v.can_send_new_data() {
            (oseg.saturating_sub(1) as u32).clamp(1, self.dupthresh)
        } else {
            self.dupthresh
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_view as view;
    use super::*;

    #[test]
    fn rfc5827_3_1_threshold_is_oseg_minus_one_when_nothing_new_can_go() {
        let mut er = EarlyRetransmit::new(3);
        let mut v = view(3, 100, 1);
        v.snd_max = 3000;
        v.snd_nxt = 3000;
        v.app_end = 3000; // nothing more to send
        assert_eq!(er.on_dupack(&v), 2);
        v.snd_max = 2000;
        v.snd_nxt = 2000;
        v.app_end = 2000;
        assert_eq!(er.on_dupack(&v), 1);
        // Four or more outstanding: the standard threshold.
        v.snd_max = 4000;
        v.snd_nxt = 4000;
        v.app_end = 4000;
        v.cwnd = 4000;
        assert_eq!(er.on_dupack(&v), 3);
        // Fewer than four outstanding but the window lets new data go: standard too.
        v.snd_max = 2000;
        v.snd_nxt = 2000;
        v.app_end = u64::MAX;
        assert_eq!(er.on_dupack(&v), 3);
    }
}
