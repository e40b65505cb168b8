//! Provisional RFC 6298 estimator (fine mode only); superseded by the full
//! estimator with the BSD coarse-tick mode.
use crate::scenario::model::{RtoConfig, RtoMode};
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug)]
pub struct RtoEstimator {
    cfg: RtoConfig,
    srtt: Option<SimDuration>,
    rttvar: SimDuration,
    base: SimDuration,
    shift: u32,
}

impl RtoEstimator {
    pub fn new(cfg: &RtoConfig) -> Self {
        RtoEstimator { cfg: cfg.clone(), srtt: None, rttvar: SimDuration::ZERO, base: cfg.initial, shift: 0 }
    }
    pub fn on_rtt_sample(&mut self, sent: SimTime, now: SimTime) {
        let r = now.saturating_since(sent);
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = SimDuration(r.0 / 2);
            }
            Some(s) => {
                let d = s.0.abs_diff(r.0);
                self.rttvar = SimDuration((3 * self.rttvar.0 + d) / 4);
                self.srtt = Some(SimDuration((7 * s.0 + r.0) / 8));
            }
        }
        let g = match self.cfg.mode {
            RtoMode::Fine { granularity } => granularity,
            RtoMode::Coarse { tick } => tick,
        };
        let b = self.srtt.unwrap().0 + g.0.max(4 * self.rttvar.0);
        self.base = SimDuration(b.clamp(self.cfg.min.0, self.cfg.max.0));
        self.shift = 0;
    }
    pub fn rto(&self) -> SimDuration {
        SimDuration(self.base.0.saturating_mul(1 << self.shift).min(self.cfg.max.0))
    }
    pub fn deadline(&self, now: SimTime) -> SimTime {
        now + self.rto()
    }
    pub fn backoff(&mut self) {
        self.shift = (self.shift + 1).min(self.cfg.max_backoff_shift);
    }
    pub fn backoff_shift(&self) -> u32 {
        self.shift
    }
    pub fn srtt(&self) -> Option<SimDuration> {
        self.srtt
    }
    pub fn rttvar(&self) -> Option<SimDuration> {
        self.srtt.map(|_| self.rttvar)
    }
    pub fn has_sample(&self) -> bool {
        self.srtt.is_some()
    }
}
