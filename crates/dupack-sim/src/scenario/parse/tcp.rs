//! `[tcp]` and `[receiver]` tables, global or per flow, as written
//! ([`TcpRaw`], [`RxRaw`]): each key checked on its own; [`super::config`]
//! merges them and checks keys against each other.

use super::error::*;
use super::value::*;
use crate::scenario::model::*;
use crate::tcp::variant::Variant;
use crate::time::SimDuration;
use serde_json::Value;

pub(super) const TCP_KEYS: &[&str] = &[
    "variant",
    "mss",
    "initial_window",
    "initial_ssthresh",
    "max_cwnd",
    "dupthresh",
    "efr_min_dupthresh",
    "eplr_retransmit",
    "undo_evidence",
    "timestamps",
    "reno_avoid_multiple_fr",
    "newreno_full_ack",
    "newreno_rto_reset",
    "rfc6675_rto_reset",
    "timeout_exit_growth",
    "recovery_exit_growth",
    "rfc6675_exit_growth",
    "rfc6675_pipe",
    "cubic_arithmetic",
    "prr_arithmetic",
    "sack_recover_after_exit",
    "ca_increase",
    "loss_ssthresh",
    "overhead",
    "rto",
];
pub(super) const RTO_KEYS: &[&str] = &[
    "timer",
    "granularity",
    "tick",
    "clock_phase",
    "initial",
    "min",
    "max",
    "max_backoff_shift",
    "on_fast_retransmit",
    "sampling",
    "backoff_reset",
];
pub(super) const RX_KEYS: &[&str] =
    &["window", "ack", "delack_timeout", "delack_every", "sack", "max_sack_blocks", "dsack", "dda", "sack_option_size"];
/// What `receiver.dda` accepts, for its error messages.
pub(super) const DDA_ALLOWED: &str = "allowed: a duration greater than 0 such as \"40ms\", or \"auto\"";
const MAX_MSS: u64 = 65_495;

/// `newreno_rto_reset` and `rfc6675_rto_reset`: `"first"` or `"every"`.
fn v_partial_ack_rto_reset(v: &Value, p: &str) -> R<PartialAckRtoReset> {
    v_enum(v, p, &[("first", PartialAckRtoReset::First), ("every", PartialAckRtoReset::Every)])
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Timer {
    Fine,
    Coarse,
    Ns2,
}

impl Timer {
    pub(super) fn name(self) -> &'static str {
        match self {
            Timer::Fine => "fine",
            Timer::Coarse => "coarse",
            Timer::Ns2 => "ns2",
        }
    }
    /// The keys of `[tcp.rto]` that only some timers have: (key, the timers that have it).
    const SPECIFIC: [(&'static str, &'static [Timer]); 3] =
        [("granularity", &[Timer::Fine]), ("tick", &[Timer::Coarse, Timer::Ns2]), ("clock_phase", &[Timer::Ns2])];
}

/// `[tcp]` keys as written, global or per flow.
#[derive(Clone, Default)]
pub(super) struct TcpRaw {
    pub(super) variant: Option<At<Variant>>,
    pub(super) mss: Option<At<u64>>,
    pub(super) initial_window: Option<At<u32>>,
    pub(super) initial_ssthresh: Option<At<u64>>,
    pub(super) max_cwnd: Option<At<u64>>,
    pub(super) dupthresh: Option<At<u32>>,
    pub(super) efr_min_dupthresh: Option<At<u32>>,
    pub(super) eplr_retransmit: Option<At<EplrRetransmit>>,
    pub(super) undo_evidence: Option<At<UndoEvidence>>,
    pub(super) timestamps: Option<At<bool>>,
    pub(super) reno_avoid_multiple_fr: Option<At<bool>>,
    pub(super) newreno_full_ack: Option<At<FullAckRule>>,
    pub(super) ca_increase: Option<At<CaIncrease>>,
    pub(super) loss_ssthresh: Option<At<LossSsthresh>>,
    pub(super) newreno_rto_reset: Option<At<PartialAckRtoReset>>,
    pub(super) rfc6675_rto_reset: Option<At<PartialAckRtoReset>>,
    pub(super) timeout_exit_growth: Option<At<TimeoutExitGrowth>>,
    pub(super) recovery_exit_growth: Option<At<RecoveryExitGrowth>>,
    pub(super) rfc6675_exit_growth: Option<At<RecoveryExitGrowth>>,
    pub(super) rfc6675_pipe: Option<At<Rfc6675Pipe>>,
    pub(super) cubic_arithmetic: Option<At<CubicArithmetic>>,
    pub(super) prr_arithmetic: Option<At<PrrArithmetic>>,
    pub(super) sack_recover_after_exit: Option<At<SackRecoverAfterExit>>,
    pub(super) overhead: Option<At<SimDuration>>,
    pub(super) timer: Option<At<Timer>>,
    pub(super) granularity: Option<At<SimDuration>>,
    pub(super) tick: Option<At<SimDuration>>,
    pub(super) clock_phase: Option<At<SimDuration>>,
    pub(super) rto_initial: Option<At<SimDuration>>,
    pub(super) rto_min: Option<At<SimDuration>>,
    pub(super) rto_max: Option<At<SimDuration>>,
    pub(super) max_backoff_shift: Option<At<u32>>,
    pub(super) rto_on_fast_retransmit: Option<At<RtoOnFastRetransmit>>,
    pub(super) rtt_sampling: Option<At<RttSampling>>,
    pub(super) backoff_reset: Option<At<BackoffReset>>,
}

/// `[receiver]` keys as written, global or per flow.
#[derive(Clone, Default)]
pub(super) struct RxRaw {
    pub(super) window: Option<At<u64>>,
    pub(super) ack: Option<At<AckKind>>,
    pub(super) delack_timeout: Option<At<SimDuration>>,
    pub(super) delack_every: Option<At<u32>>,
    pub(super) sack: Option<At<SackSetting>>,
    pub(super) max_sack_blocks: Option<At<u32>>,
    pub(super) dsack: Option<At<bool>>,
    pub(super) dda: Option<At<DdaSetting>>,
    pub(super) sack_option_size: Option<At<SackOptionSize>>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum DdaSetting {
    /// One round trip of the flow's last link (see `config::dda_auto`).
    Auto,
    Fixed(SimDuration),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum AckKind {
    Every,
    Delayed,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum SackSetting {
    On,
    Off,
    Auto,
}

pub(super) fn v_variant(v: &Value, path: &str) -> R<Variant> {
    let s = v_str(v, path)?;
    Variant::parse(s).map_err(|e| err(path, requote(&e.0, s)))
}

/// Parse a `[tcp]` table. `global` is the global table when parsing a flow's
/// override: mode-specific keys are checked against the timer in effect at
/// this level.
pub(super) fn parse_tcp(v: &Value, path: &str, global: Option<&TcpRaw>) -> R<TcpRaw> {
    let t = table(v, path)?;
    t.allow(TCP_KEYS)?;
    let mut r = TcpRaw {
        variant: t.opt("variant", v_variant)?,
        mss: t.opt("mss", |v, p| v_size(v, p, 1, MAX_MSS))?,
        initial_window: t.opt("initial_window", |v, p| v_u32(v, p, 1, 1000))?,
        initial_ssthresh: t.opt("initial_ssthresh", |v, p| v_size(v, p, 1, u64::MAX))?,
        max_cwnd: t.opt("max_cwnd", |v, p| v_size(v, p, 1, u64::MAX))?,
        dupthresh: t.opt("dupthresh", |v, p| v_u32(v, p, 1, 1000))?,
        efr_min_dupthresh: t.opt("efr_min_dupthresh", |v, p| v_u32(v, p, 1, 1000))?,
        undo_evidence: t.opt("undo_evidence", |v, p| {
            v_enum(v, p, &[("timestamps", UndoEvidence::Timestamps), ("dsack", UndoEvidence::Dsack)])
        })?,
        eplr_retransmit: t.opt("eplr_retransmit", |v, p| {
            v_enum(v, p, &[("early", EplrRetransmit::Early), ("threshold", EplrRetransmit::Threshold)])
        })?,
        timestamps: t.opt("timestamps", v_bool)?,
        reno_avoid_multiple_fr: t.opt("reno_avoid_multiple_fr", v_bool)?,
        newreno_full_ack: t.opt("newreno_full_ack", |v, p| {
            v_enum(v, p, &[("flightsize", FullAckRule::FlightSize), ("ssthresh", FullAckRule::Ssthresh)])
        })?,
        ca_increase: t.opt("ca_increase", |v, p| {
            v_enum(v, p, &[("integer", CaIncrease::Integer), ("fractional", CaIncrease::Fractional)])
        })?,
        loss_ssthresh: t.opt("loss_ssthresh", |v, p| {
            v_enum(
                v,
                p,
                &[
                    ("flightsize", LossSsthresh::FlightSize),
                    ("window", LossSsthresh::Window),
                    ("pipe", LossSsthresh::Pipe),
                ],
            )
        })?,
        newreno_rto_reset: t.opt("newreno_rto_reset", v_partial_ack_rto_reset)?,
        rfc6675_rto_reset: t.opt("rfc6675_rto_reset", v_partial_ack_rto_reset)?,
        timeout_exit_growth: t.opt("timeout_exit_growth", |v, p| {
            v_enum(v, p, &[("acked", TimeoutExitGrowth::Acked), ("above_recover", TimeoutExitGrowth::AboveRecover)])
        })?,
        recovery_exit_growth: t.opt("recovery_exit_growth", |v, p| {
            v_enum(v, p, &[("none", RecoveryExitGrowth::None), ("grow", RecoveryExitGrowth::Grow)])
        })?,
        rfc6675_exit_growth: t.opt("rfc6675_exit_growth", |v, p| {
            v_enum(v, p, &[("none", RecoveryExitGrowth::None), ("grow", RecoveryExitGrowth::Grow)])
        })?,
        rfc6675_pipe: t.opt("rfc6675_pipe", |v, p| {
            v_enum(v, p, &[("rfc6675", Rfc6675Pipe::Rfc6675), ("ns3", Rfc6675Pipe::Ns3)])
        })?,
        cubic_arithmetic: t.opt("cubic_arithmetic", |v, p| {
            v_enum(v, p, &[("rfc9438", CubicArithmetic::Rfc9438), ("ns3", CubicArithmetic::Ns3)])
        })?,
        prr_arithmetic: t.opt("prr_arithmetic", |v, p| {
            v_enum(v, p, &[("rfc6937", PrrArithmetic::Rfc6937), ("ns3", PrrArithmetic::Ns3)])
        })?,
        sack_recover_after_exit: t.opt("sack_recover_after_exit", |v, p| {
            v_enum(v, p, &[("kept", SackRecoverAfterExit::Kept), ("cleared", SackRecoverAfterExit::Cleared)])
        })?,
        overhead: t.opt("overhead", v_dur)?,
        ..TcpRaw::default()
    };
    if let Some(rv) = t.get("rto") {
        let rt = table(rv, &t.at("rto"))?;
        rt.allow(RTO_KEYS)?;
        r.timer = rt.opt("timer", |v, p| {
            v_enum(v, p, &[("fine", Timer::Fine), ("coarse", Timer::Coarse), ("ns2", Timer::Ns2)])
        })?;
        r.granularity = rt.opt("granularity", v_dur)?;
        r.tick = rt.opt("tick", v_dur_pos)?;
        r.clock_phase = rt.opt("clock_phase", v_dur)?;
        r.rto_initial = rt.opt("initial", v_dur_pos)?;
        r.rto_min = rt.opt("min", v_dur_pos)?;
        r.rto_max = rt.opt("max", v_dur_pos)?;
        r.max_backoff_shift = rt.opt("max_backoff_shift", |v, p| v_u32(v, p, 0, 16))?;
        r.rto_on_fast_retransmit = rt.opt("on_fast_retransmit", |v, p| {
            v_enum(v, p, &[("restart", RtoOnFastRetransmit::Restart), ("keep", RtoOnFastRetransmit::Keep)])
        })?;
        r.rtt_sampling = rt.opt("sampling", |v, p| {
            v_enum(v, p, &[("timed", RttSampling::Timed), ("per_segment", RttSampling::PerSegment)])
        })?;
        r.backoff_reset = rt.opt("backoff_reset", |v, p| {
            v_enum(v, p, &[("sample", BackoffReset::Sample), ("new_ack", BackoffReset::NewAck)])
        })?;
        let timer = r.timer.as_ref().or(global.and_then(|g| g.timer.as_ref())).map_or(Timer::Fine, |a| a.v);
        for (key, timers) in Timer::SPECIFIC {
            let given = match key {
                "granularity" => r.granularity.as_ref().map(|a| &a.path),
                "tick" => r.tick.as_ref().map(|a| &a.path),
                _ => r.clock_phase.as_ref().map(|a| &a.path),
            };
            if let (Some(p), false) = (given, timers.contains(&timer)) {
                let needs: Vec<String> = timers.iter().map(|t| format!("\"{}\"", t.name())).collect();
                let own: Vec<&str> =
                    Timer::SPECIFIC.iter().filter(|(_, ts)| ts.contains(&timer)).map(|(k, _)| *k).collect();
                return fail(
                    p,
                    format!(
                        "{key} applies only to timer = {}; the timer here is \"{}\" (its settings are {})",
                        needs.join(" or "),
                        timer.name(),
                        own.join(" and ")
                    ),
                );
            }
        }
    }
    Ok(r)
}

pub(super) fn parse_rx(v: &Value, path: &str, global: Option<&RxRaw>) -> R<RxRaw> {
    let t = table(v, path)?;
    t.allow(RX_KEYS)?;
    let r = RxRaw {
        window: t.opt("window", |v, p| v_size(v, p, 1, u64::MAX))?,
        ack: t.opt("ack", |v, p| v_enum(v, p, &[("every", AckKind::Every), ("delayed", AckKind::Delayed)]))?,
        delack_timeout: t.opt("delack_timeout", v_dur_pos)?,
        delack_every: t.opt("delack_every", |v, p| v_u32(v, p, 1, 64))?,
        sack: t.opt("sack", |v, p| match v {
            Value::Bool(true) => Ok(SackSetting::On),
            Value::Bool(false) => Ok(SackSetting::Off),
            Value::String(s) if s == "auto" => Ok(SackSetting::Auto),
            other => fail(p, format!("expected true, false or \"auto\", got {}", describe(other))),
        })?,
        max_sack_blocks: t.opt("max_sack_blocks", |v, p| v_u32(v, p, 1, 4))?,
        dsack: t.opt("dsack", v_bool)?,
        dda: t.opt("dda", v_dda)?,
        sack_option_size: t.opt("sack_option_size", |v, p| {
            v_enum(v, p, &[("rfc2018", SackOptionSize::Rfc2018), ("ns2", SackOptionSize::Ns2)])
        })?,
    };
    let ack = r.ack.as_ref().or(global.and_then(|g| g.ack.as_ref())).map_or(AckKind::Every, |a| a.v);
    if ack == AckKind::Every {
        let stray = r
            .delack_timeout
            .as_ref()
            .map(|a| (&a.path, "delack_timeout"))
            .or(r.delack_every.as_ref().map(|a| (&a.path, "delack_every")));
        if let Some((p, key)) = stray {
            return fail(p, format!("{key} applies only to ack = \"delayed\"; ack here is \"every\""));
        }
    }
    Ok(r)
}

/// `receiver.dda`: `"auto"` or a positive duration.
fn v_dda(v: &Value, path: &str) -> R<DdaSetting> {
    if let Value::String(s) = v {
        if s == "auto" {
            return Ok(DdaSetting::Auto);
        }
    }
    match v_dur_pos(v, path) {
        Ok(d) => Ok(DdaSetting::Fixed(d)),
        Err(e) => fail(path, format!("{}; {DDA_ALLOWED}", e.message)),
    }
}
