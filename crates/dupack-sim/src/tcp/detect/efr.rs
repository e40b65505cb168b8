//! Efficient Fast Retransmit (Tamura, Tobe, Tokuda 1998; `+efr`): a
//! duplicate-ACK threshold derived from the window at the first duplicate
//! ACK, so that a small window still reaches a fast retransmit (efr §5.3–5.4).

use crate::tcp::policy::{DupThreshold, View};

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

#[cfg(test)]
mod tests {
    use super::super::test_view as view;
    use super::*;

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
    fn a_partial_segment_window_rounds_down_like_bsd() {
        let mut e = Efr::new(3, 1);
        let mut v = view(4, 100, 1);
        v.cwnd = 4999;
        assert_eq!(e.on_dupack(&v), 2);
    }
}
