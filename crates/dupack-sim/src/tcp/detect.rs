//! Duplicate-ACK threshold policies: how many duplicate ACKs make a
//! segment "lost" and trigger a fast retransmit.
//!
//! The sender asks the policy on every duplicate ACK, with its current
//! [`View`] (`dupacks` already counting this one), so a policy may derive
//! the threshold from the window. The fixed threshold of RFC 5681 §3.2 is
//! the default; `+efr` selects [`Efr`], `+er` [`EarlyRetransmit`]. EPLR's
//! threshold (`+eplr`) lives with the rest of EPLR in `tcp::eplr`.

pub use super::policy::DupThreshold;
use super::policy::View;

/// RFC 5681 §3.2: a fixed threshold (3 unless configured).
#[derive(Copy, Clone, Debug)]
pub struct Fixed(pub u32);

impl DupThreshold for Fixed {
    fn on_dupack(&mut self, _v: &View) -> u32 {
        self.0
    }
}

/// Efficient Fast Retransmit (Tamura et al. 1998, efr §5.4, Fig. 14).
///
/// On the *first* duplicate ACK for a segment the sender saves
/// `snd_cur = min(snd_wnd, snd_cwnd)` and sets
/// `tcp_rexmtthresh = snd_cur / t_maxseg − 2` (integer division, as in the
/// BSD code the paper modified), capped at three; the threshold then holds
/// for the following duplicate ACKs of that segment. The paper's reasoning
/// (§5.3): with `n` segments in the window and one lost, the sender may see
/// only `n − 2` dupacks if the ACK before the loss is also lost; a false
/// fast retransmit costs less than a wasted timeout when the window is tiny.
///
/// Choices (docs/mechanisms.md):
/// - the cap is the configured `tcp.dupthresh` (3 by default, the paper's value);
/// - the paper does not say what a window of one or two segments gives
///   (`snd_cur/t_maxseg − 2 ≤ 0`); the threshold is floored at
///   `tcp.efr_min_dupthresh`, default 1: a tiny window retransmits on the
///   first duplicate ACK, which is the only one that may come.
#[derive(Copy, Clone, Debug)]
pub struct Efr {
    cap: u32,
    floor: u32,
    /// The threshold computed at the first dupack of the current segment.
    thresh: u32,
    /// `snd_cur` saved at that dupack (bytes), for traces and tests.
    snd_cur: u64,
}

impl Efr {
    pub fn new(cap: u32, floor: u32) -> Self {
        Efr { cap, floor: floor.min(cap), thresh: cap, snd_cur: 0 }
    }
    pub fn snd_cur(&self) -> u64 {
        self.snd_cur
    }
}

impl DupThreshold for Efr {
    fn on_dupack(&mut self, v: &View) -> u32 {
        if v.dupacks <= 1 {
            // efr Fig. 14: the first duplicate ACK for this segment.
            self.snd_cur = v.rwnd.min(v.cwnd);
            let segs = (self.snd_cur / v.mss) as i64;
            self.thresh = (segs - 2).clamp(self.floor as i64, self.cap as i64) as u32;
        }
        self.thresh
    }
}

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
    use super::*;

    fn view(cwnd_segs: u64, rwnd_segs: u64, dupacks: u32) -> View {
        View {
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            cwnd: cwnd_segs * 1000,
            ssthresh: u64::MAX,
            mss: 1000,
            rwnd: rwnd_segs * 1000,
            dupacks,
            dupthresh: 3,
            app_end: u64::MAX,
            limited_transmit: 0,
            ece: false,
            now: crate::time::SimTime::ZERO,
            srtt: None,
            loss_ssthresh: crate::scenario::model::LossSsthresh::FlightSize,
            in_recovery: false,
            beta: None,
        }
    }

    #[test]
    fn efr_5_4_threshold_is_window_minus_two_capped_at_three() {
        let mut e = Efr::new(3, 1);
        let t: Vec<u32> = (1..=8).map(|w| e.on_dupack(&view(w, 100, 1))).collect();
        // Windows of 1..8 segments: floor 1 below 3 segments, then w − 2, capped at 3.
        assert_eq!(t, vec![1, 1, 1, 2, 3, 3, 3, 3]);
        // snd_cur is min(snd_wnd, snd_cwnd): the advertised window can be the limit.
        assert_eq!(e.on_dupack(&view(10, 4, 1)), 2);
        assert_eq!(e.snd_cur(), 4000);
    }

    #[test]
    fn efr_threshold_is_fixed_at_the_first_dupack_of_a_segment() {
        let mut e = Efr::new(3, 1);
        assert_eq!(e.on_dupack(&view(4, 100, 1)), 2);
        // The window grows (Reno inflation) before the next dupack: no change.
        assert_eq!(e.on_dupack(&view(9, 100, 2)), 2);
    }

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

    #[test]
    fn a_partial_segment_window_rounds_down_like_bsd() {
        let mut e = Efr::new(3, 1);
        let mut v = view(4, 100, 1);
        v.cwnd = 4999;
        assert_eq!(e.on_dupack(&v), 2);
    }
}
