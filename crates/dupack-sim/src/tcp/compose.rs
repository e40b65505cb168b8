//! A parsed variant (`tcp::variant`) → its policies: the duplicate-ACK
//! threshold (`tcp::detect`), the loss recovery with the decorators its
//! extensions ask for (`tcp::recovery`), and the congestion controller
//! (`tcp::cc`). The one place where a variant becomes behaviour. `+eplr`
//! fills two slots from one module, `tcp::eplr`.

use crate::scenario::model::{CubicArithmetic, RecoveryExitGrowth, TcpConfig};
use crate::tcp::cc::{self, CongestionControl};
use crate::tcp::detect::{EarlyRetransmit, Efr, Fixed};
use crate::tcp::eplr::{Eplr, EplrGrowth};
use crate::tcp::policy::{DupThreshold, LossRecovery};
use crate::tcp::recovery::{fack, fast_recovery, limited_transmit, prr, rack, rfc6675, rpld, sack_ff96, tahoe, vegas};
use crate::tcp::variant::{Base, Cc, Ext, VariantSpec};

/// The duplicate-ACK threshold policy of a variant: EFR with `+efr`, else fixed.
pub fn detection(variant: &VariantSpec, cfg: &TcpConfig) -> Box<dyn DupThreshold> {
    if variant.has(Ext::Efr) {
        Box::new(Efr::new(cfg.dupthresh, cfg.efr_min_dupthresh))
    } else if variant.has(Ext::EarlyRetransmit) {
        Box::new(EarlyRetransmit::new(cfg.dupthresh))
    } else if variant.has(Ext::Eplr) {
        Box::new(Eplr::new(cfg.dupthresh, cfg.eplr_retransmit))
    } else {
        Box::new(Fixed(cfg.dupthresh))
    }
}

/// The loss-recovery policy of a variant, with its parameters from `cfg`,
/// wrapped in the decorators its extensions ask for.
pub fn recovery(variant: &VariantSpec, cfg: &TcpConfig) -> Box<dyn LossRecovery> {
    let mut policy = base_policy(variant, cfg);
    if variant.has(Ext::Eplr) {
        policy = Box::new(EplrGrowth::new(policy, cfg.dupthresh));
    }
    if variant.has(Ext::Prr) {
        policy = Box::new(prr::Prr::with_arithmetic(policy, cfg.prr_arithmetic));
    }
    if variant.has(Ext::LimitedTransmit) {
        policy = Box::new(limited_transmit::LimitedTransmit::new(policy));
    }
    policy
}

fn base_policy(variant: &VariantSpec, cfg: &TcpConfig) -> Box<dyn LossRecovery> {
    let exit_growth = cfg.recovery_exit_growth == RecoveryExitGrowth::Grow;
    match variant.base {
        Base::Tahoe => Box::new(tahoe::Tahoe::default()),
        Base::Reno => {
            Box::new(fast_recovery::FastRecovery::reno(cfg.reno_avoid_multiple_fr).with_exit_growth(exit_growth))
        }
        Base::NewReno => Box::new(
            fast_recovery::FastRecovery::newreno(cfg.newreno_full_ack, cfg.newreno_rto_reset)
                .with_exit_growth(exit_growth),
        ),
        // `+rpld` on `sack` swaps in the authors' SACK TCP as well (rpld §2.3): the same as sack-cautious+rpld.
        Base::Sack | Base::SackCautious if variant.has(Ext::Rpld) => Box::new(rpld::Rpld::with_rpld()),
        Base::SackCautious => Box::new(rpld::Rpld::authors_sack()),
        Base::Sack => Box::new(sack_ff96::SackFf96::new(sack_ff96::PipeInit::Outstanding, cfg.sack_recover_after_exit)),
        Base::Fack => Box::new(fack::Fack::new()),
        Base::Rfc6675 => Box::new(
            rfc6675::Rfc6675::new(cfg.rfc6675_rto_reset)
                .with_exit_growth(cfg.rfc6675_exit_growth == RecoveryExitGrowth::Grow)
                .with_pipe(cfg.rfc6675_pipe),
        ),
        Base::Vegas => Box::new(vegas::Vegas::new()),
        Base::Rack => Box::new(rack::Rack::new()),
        Base::EcnFack => Box::new(fack::Fack::ecn_fack()),
    }
}

/// The congestion controller of a variant.
pub fn controller(v: &VariantSpec, cfg: &TcpConfig) -> Box<dyn CongestionControl> {
    match v.cc {
        Cc::Reno => Box::new(cc::Reno::new(cfg.ca_increase)),
        Cc::Cubic if cfg.cubic_arithmetic == CubicArithmetic::Ns3 => Box::new(cc::cubic_ns3::Ns3Cubic::default()),
        Cc::Cubic => Box::new(cc::cubic::Cubic::default()),
        Cc::Vegas => Box::new(cc::vegas::Vegas::default()),
    }
}
