//! CUBIC (RFC 9438): a window that grows as a cubic function of the time
//! since the last congestion event, with a Reno-friendly region.
//!
//! Windows are in segments inside the controller (as in the RFC) and bytes
//! outside. The pieces, by section of RFC 9438:
//!
//! - §4.2, eq. 1: `W_cubic(t) = C·(t − K)³ + W_max`, `C = 0.4`, with
//!   eq. 2: `K = ∛((W_max − cwnd_epoch)/C)`, `cwnd_epoch` the window when
//!   the congestion avoidance epoch began (`K = 0` when it began at or above
//!   `W_max`).
//! - §4.3: the Reno-friendly estimate `W_est` starts at `cwnd_epoch` and
//!   grows by `α_cubic · segments_acked / cwnd` per ACK, `α_cubic =
//!   3·(1 − β)/(1 + β)`, and by 1 per window (α = 1) once `W_est ≥ W_max`
//!   ... cwnd follows `W_est` while `W_cubic(t) < W_est`.
//! - §4.4, §4.5: otherwise cwnd moves towards `target = W_cubic(t + RTT)`,
//!   clamped to `[cwnd, 1.5·cwnd]`, by `(target − cwnd)/cwnd` per ACK.
//! - §4.6: at a congestion event `ssthresh = max(cwnd·β, 2)`, `β = 0.7`
//!   (the recovery policy applies it through [`CongestionControl::beta`]),
//!   and a new epoch begins with the next ACK in congestion avoidance.
//! - §4.7: fast convergence: when the window at the event is below the
//!   `W_max` in force (the previous one, after its own fast convergence),
//!   `W_max = cwnd·(1 + β)/2`, else `W_max = cwnd`.
//! - §4.8: after a timeout the first congestion avoidance epoch uses
//!   `K = 0` and `W_max` = the window when it begins (ssthresh is set with β
//!   as for any loss; the window after it is one segment).
//! - §4.10: slow start is RFC 5681's (HyStart++ is not modelled).
//!
//! Spurious congestion events (§4.9): with `+undo` or `+irw` the sender
//! restores cwnd and ssthresh; the controller starts a new epoch from there
//! (it does not restore `W_max` and `K`, which the RFC allows as "MAY").

use super::{grow, AckInput, CongestionControl, Growth};
use crate::time::SimTime;

/// RFC 9438 §5: C = 0.4, β_cubic = 0.7.
pub const C: f64 = 0.4;
pub const BETA: f64 = 0.7;

#[derive(Clone, Debug, Default)]
pub struct Cubic {
    /// The W_max in force, in segments (`None`: no event yet, or a timeout
    /// was the last: the next epoch starts at its own window, §4.8).
    w_max: Option<f64>,
    /// The current congestion avoidance epoch: when it began, its K and
    /// the Reno-friendly estimate (segments).
    epoch: Option<Epoch>,
}

#[derive(Clone, Copy, Debug)]
struct Epoch {
    start: SimTime,
    k: f64,
    w_est: f64,
    w_max: f64,
}

impl Cubic {
    /// `W_cubic(t)` (segments) of the current epoch, `t` in seconds since it began.
    pub fn w_cubic(&self, t: f64) -> Option<f64> {
        self.epoch.map(|e| C * (t - e.k).powi(3) + e.w_max)
    }
    /// K of the current epoch, in seconds.
    pub fn k(&self) -> Option<f64> {
        self.epoch.map(|e| e.k)
    }
    pub fn w_max(&self) -> Option<f64> {
        self.w_max
    }
    /// The Reno-friendly estimate of the current epoch (segments).
    pub fn w_est(&self) -> Option<f64> {
        self.epoch.map(|e| e.w_est)
    }
}

/// W_max after a congestion event at window `w` (segments), `last` the W_max
/// in force: §4.7 fast convergence, `w·(1 + β)/2` when `w` fell below it.
pub fn w_max_after(w: f64, last: Option<f64>) -> f64 {
    match last {
        Some(last) if w < last => w * (1.0 + BETA) / 2.0,
        _ => w,
    }
}

/// α_cubic (RFC 9438 §4.3, eq. 4): Reno's average rate at β_cubic.
pub fn alpha_cubic() -> f64 {
    3.0 * (1.0 - BETA) / (1.0 + BETA)
}

impl Cubic {
    /// The window after an ACK (RFC 9438 §4.2–4.5; slow start as Reno's).
    fn window(&mut self, a: &AckInput) -> u64 {
        if a.cwnd < a.ssthresh {
            return grow(a.cwnd, a.ssthresh, a.acked, a.mss, a.max_cwnd);
        }
        let mss = a.mss as f64;
        let cwnd = a.cwnd as f64 / mss;
        let e = *self.epoch.get_or_insert_with(|| {
            // §4.2: the epoch begins; before any event W_max is the window now.
            let w_max = self.w_max.unwrap_or(cwnd).max(cwnd);
            let k = ((w_max - cwnd) / C).cbrt();
            Epoch { start: a.now, k, w_est: cwnd, w_max }
        });
        let t = a.now.saturating_since(e.start).as_secs_f64();
        let rtt = a.srtt.map_or(0.0, |d| d.as_secs_f64());
        // §4.3: the Reno-friendly estimate, α = 1 once it passed W_max.
        let alpha = if e.w_est >= e.w_max { 1.0 } else { alpha_cubic() };
        let w_est = e.w_est + alpha * (a.acked as f64 / mss) / cwnd;
        self.epoch = Some(Epoch { w_est, ..e });
        let w_t = C * (t - e.k).powi(3) + e.w_max;
        let next = if w_t < w_est {
            // §4.3: the Reno-friendly region.
            w_est
        } else {
            // §4.4/§4.5: towards W_cubic one RTT ahead, at most 1.5·cwnd.
            let target = (C * (t + rtt - e.k).powi(3) + e.w_max).clamp(cwnd, 1.5 * cwnd);
            cwnd + (target - cwnd) / cwnd
        };
        // cwnd never shrinks on an ACK; whole bytes, at least one more when it grows.
        let bytes = (next * mss) as u64;
        bytes.max(a.cwnd).min(a.max_cwnd)
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, a: &AckInput) -> Growth {
        Growth::cwnd(self.window(a))
    }

    fn beta(&self) -> Option<f64> {
        Some(BETA)
    }

    fn on_congestion(&mut self, cwnd: u64, mss: u64, timeout: bool, _now: SimTime) {
        self.epoch = None;
        if timeout {
            // §4.8: K = 0 and W_max = the window at the start of the next epoch.
            self.w_max = None;
            return;
        }
        self.w_max = Some(w_max_after(cwnd as f64 / mss as f64, self.w_max));
    }

    fn on_undo(&mut self) {
        self.epoch = None;
    }

    fn name(&self) -> &'static str {
        "cubic"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{ms, SimDuration};

    const MSS: u64 = 1000;

    fn ack(cwnd_segs: f64, now: SimTime) -> AckInput {
        AckInput {
            cwnd: (cwnd_segs * MSS as f64) as u64,
            ssthresh: 0,
            acked: MSS,
            delivered: MSS,
            mss: MSS,
            max_cwnd: u64::MAX,
            srtt: Some(ms(100)),
            ends_recovery: false,
            now,
            snd_una: 0,
            snd_nxt: 0,
        }
    }

    #[test]
    fn rfc9438_constants_and_alpha() {
        assert!((alpha_cubic() - 0.9 / 1.7).abs() < 1e-12);
        assert_eq!(Cubic::default().beta(), Some(0.7));
    }

    #[test]
    fn k_is_the_time_to_get_back_to_w_max() {
        // §4.2 eq. 2: W_max 100, the epoch starts at 70 (after β = 0.7):
        // K = ∛(30 / 0.4) = ∛75 ≈ 4.217 s, and W_cubic(K) = W_max.
        let mut c = Cubic::default();
        c.on_congestion(100 * MSS, MSS, false, SimTime::ZERO);
        assert_eq!(c.w_max(), Some(100.0));
        c.window(&ack(70.0, SimTime::ZERO));
        let k = c.k().unwrap();
        assert!((k - 75f64.cbrt()).abs() < 1e-9, "{k}");
        assert!((c.w_cubic(k).unwrap() - 100.0).abs() < 1e-9);
        // Concave below W_max, convex above (eq. 1 around t = K).
        assert!(c.w_cubic(k - 1.0).unwrap() > 100.0 - 0.4 - 1e-9);
        assert!((c.w_cubic(k + 2.0).unwrap() - (100.0 + 0.4 * 8.0)).abs() < 1e-9);
    }

    #[test]
    fn fast_convergence_releases_bandwidth_when_w_max_falls() {
        // §4.7: an event below the W_max in force sets W_max = w·(1 + β)/2.
        let mut c = Cubic::default();
        c.on_congestion(100 * MSS, MSS, false, SimTime::ZERO);
        c.on_congestion(80 * MSS, MSS, false, SimTime::ZERO);
        assert!((c.w_max().unwrap() - 68.0).abs() < 1e-9, "80 · 1.7 / 2");
        // Compared with that reduced W_max (68), not with the 80 of the event:
        // 75 is above it, so it becomes W_max as it is.
        c.on_congestion(75 * MSS, MSS, false, SimTime::ZERO);
        assert_eq!(c.w_max(), Some(75.0));
        c.on_congestion(70 * MSS, MSS, false, SimTime::ZERO);
        assert!((c.w_max().unwrap() - 59.5).abs() < 1e-9, "70 · 1.7 / 2");
    }

    #[test]
    fn after_a_timeout_the_epoch_starts_with_k_zero_at_its_own_window() {
        // §4.8: K = 0 and W_max = the window when congestion avoidance resumes.
        let mut c = Cubic::default();
        c.on_congestion(100 * MSS, MSS, false, SimTime::ZERO);
        c.on_congestion(100 * MSS, MSS, true, SimTime::ZERO);
        c.window(&ack(20.0, SimTime::ZERO));
        assert_eq!(c.k(), Some(0.0));
        assert!((c.w_cubic(0.0).unwrap() - 20.0).abs() < 1e-9);
    }

    #[test]
    fn the_window_follows_the_cubic_function_towards_w_max() {
        // No Reno-friendly lead at this RTT: after an event at 100 segments
        // the window from 70 reaches about W_max near t = K and stays
        // within 1.5·cwnd per RTT; it never shrinks.
        let mut c = Cubic::default();
        c.on_congestion(100 * MSS, MSS, false, SimTime::ZERO);
        let mut cwnd = 70.0 * MSS as f64;
        let mut t = SimTime::ZERO;
        let mut at_k = None;
        for _ in 0..20_000 {
            let before = cwnd as u64;
            let next = c.window(&AckInput { cwnd: before, ..ack(0.0, t) });
            assert!(next >= before);
            cwnd = next as f64;
            t += SimDuration::from_nanos(1_000_000); // one ACK per ms
            if at_k.is_none() && t.as_secs_f64() >= c.k().unwrap() {
                at_k = Some(cwnd / MSS as f64);
            }
        }
        let at_k = at_k.unwrap();
        assert!((at_k - 100.0).abs() < 3.0, "cwnd at K: {at_k} segments");
        assert!(cwnd / MSS as f64 > 100.0, "then convex growth beyond W_max");
    }

    #[test]
    fn the_reno_friendly_region_takes_over_when_cubic_is_slower() {
        // §4.3: with W_max barely above cwnd, K is small and W_cubic flat;
        // the estimate grows by α per window, so cwnd grows at least that fast.
        let mut c = Cubic::default();
        c.on_congestion(10 * MSS, MSS, false, SimTime::ZERO);
        let mut cwnd = 10 * MSS;
        for i in 0..10 {
            cwnd = c.window(&AckInput { cwnd, ..ack(0.0, SimTime::ZERO + ms(i)) });
        }
        // One window of ACKs: W_est = 10 + α (W_est ≥ W_max, so α = 1 here: 11).
        let w_est = c.w_est().unwrap();
        assert!((w_est - 11.0).abs() < 0.05, "{w_est}");
        assert!(cwnd as f64 / MSS as f64 >= w_est - 0.01);
    }

    #[test]
    fn slow_start_is_rfc5681s() {
        let mut c = Cubic::default();
        let a = AckInput { ssthresh: u64::MAX, ..ack(4.0, SimTime::ZERO) };
        assert_eq!(c.window(&a), 5 * MSS);
        assert!(c.k().is_none(), "no epoch in slow start");
    }
}
