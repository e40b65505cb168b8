//! A flow's [`TcpConfig`] and [`ReceiverConfig`]: its overrides merged over
//! the global tables, then the checks between keys.

use super::error::*;
use super::routes::Hop;
use super::tcp::*;
use super::value::*;
use crate::scenario::model::*;
use crate::tcp::variant::{Base, Ext, Variant};
use crate::time::SimDuration;

/// `dda = "auto"`: irw §4 sets DDA's delay to the round-trip time of the
/// wireless link; the receiver's side of that is the link the data arrives
/// on, so this is [`defaults::DDA_AUTO_ROUND_TRIPS`] × 2 × that link's
/// (one-way) propagation delay.
fn dda_auto(link: &Hop) -> SimDuration {
    SimDuration::from_nanos(link.delay.as_nanos().saturating_mul(2 * defaults::DDA_AUTO_ROUND_TRIPS))
}

/// The path to blame for a conflict between `primary` (the constrained key)
/// and `other`: a value from the flow's own override beats an inherited one;
/// otherwise the primary key if it was written, else the other.
fn blame<A, B>(primary: Option<&At<A>>, other: Option<&At<B>>) -> String {
    match (primary, other) {
        (Some(p), Some(o)) if o.is_from_flow() && !p.is_from_flow() => o.path.clone(),
        (Some(p), _) => p.path.clone(),
        (None, Some(o)) => o.path.clone(),
        (None, None) => String::new(),
    }
}

fn pick<'a, T>(flow: &'a Option<At<T>>, global: &'a Option<At<T>>) -> Option<&'a At<T>> {
    flow.as_ref().or(global.as_ref())
}

/// Merge a flow's overrides over the global tables and check the result.
/// `variant` is the flow's effective variant.
///
/// The checks run in this order, and the first failure is reported: the
/// sender's keys ([`Merge::tcp`]: max_cwnd, then the RTO bounds), then the
/// receiver's ([`Merge::receiver`]: window, SACK, undo's evidence, SACK
/// blocks, DDA, D-SACK).
pub(super) fn resolve_config<'a>(
    g: &TcpRaw,
    f: &TcpRaw,
    grx: &RxRaw,
    frx: &RxRaw,
    variant: &At<Variant>,
    flow_name: &str,
    last_hop: impl FnOnce() -> Result<Hop<'a>, String>,
) -> R<(TcpConfig, ReceiverConfig)> {
    let m = Merge { g, f, grx, frx, variant, flow_name };
    let tcp = m.tcp()?;
    let receiver = m.receiver(&tcp, last_hop)?;
    Ok((tcp, receiver))
}

/// One flow's tables while they are merged: the global `[tcp]` and
/// `[receiver]` (`g`, `grx`) and the flow's own (`f`, `frx`).
struct Merge<'m> {
    g: &'m TcpRaw,
    f: &'m TcpRaw,
    grx: &'m RxRaw,
    frx: &'m RxRaw,
    variant: &'m At<Variant>,
    flow_name: &'m str,
}

impl Merge<'_> {
    /// An error between keys; one blamed on a global table names the flow.
    fn cross(&self, path: String, msg: String) -> ScenarioError {
        if path.starts_with("flows[") {
            err(&path, msg)
        } else {
            err(&path, format!("{msg} (for flow {})", sq(self.flow_name)))
        }
    }

    /// Where the variant was written, for messages.
    fn variant_from(&self) -> String {
        if self.variant.path.is_empty() {
            "the default".to_string()
        } else {
            self.variant.path.clone()
        }
    }

    fn mss(&self) -> (Option<&At<u64>>, u64) {
        let mss = pick(&self.f.mss, &self.g.mss);
        (mss, mss.map_or(u64::from(TcpConfig::default().mss), |a| a.v))
    }

    fn timestamps(&self) -> Option<&At<bool>> {
        pick(&self.f.timestamps, &self.g.timestamps)
    }

    /// The sender's configuration: max_cwnd against mss, then the RTO.
    fn tcp(&self) -> R<TcpConfig> {
        let (g, f) = (self.g, self.f);
        let d = TcpConfig::default();
        let (mss, mss_v) = self.mss();
        let max_cwnd = pick(&f.max_cwnd, &g.max_cwnd);
        if let Some(mc) = max_cwnd {
            if mc.v < mss_v {
                return Err(self.cross(
                    blame(Some(mc), mss),
                    format!("max_cwnd ({} bytes) is smaller than mss ({mss_v} bytes)", mc.v),
                ));
            }
        }
        let rto = self.rto()?;
        Ok(TcpConfig {
            mss: u32::try_from(mss_v).unwrap_or(d.mss),
            initial_window: pick(&f.initial_window, &g.initial_window).map_or(d.initial_window, |a| a.v),
            initial_ssthresh: pick(&f.initial_ssthresh, &g.initial_ssthresh).map_or(u64::MAX, |a| a.v),
            max_cwnd: max_cwnd.map_or(u64::MAX, |a| a.v),
            dupthresh: pick(&f.dupthresh, &g.dupthresh).map_or(d.dupthresh, |a| a.v),
            efr_min_dupthresh: pick(&f.efr_min_dupthresh, &g.efr_min_dupthresh).map_or(d.efr_min_dupthresh, |a| a.v),
            eplr_retransmit: pick(&f.eplr_retransmit, &g.eplr_retransmit).map_or(d.eplr_retransmit, |a| a.v),
            undo_evidence: pick(&f.undo_evidence, &g.undo_evidence).map_or(d.undo_evidence, |a| a.v),
            timestamps: self.timestamps().is_some_and(|a| a.v),
            rto,
            reno_avoid_multiple_fr: pick(&f.reno_avoid_multiple_fr, &g.reno_avoid_multiple_fr).is_none_or(|a| a.v),
            newreno_full_ack: pick(&f.newreno_full_ack, &g.newreno_full_ack).map_or(d.newreno_full_ack, |a| a.v),
            ca_increase: pick(&f.ca_increase, &g.ca_increase).map_or(d.ca_increase, |a| a.v),
            loss_ssthresh: pick(&f.loss_ssthresh, &g.loss_ssthresh).map_or(d.loss_ssthresh, |a| a.v),
            newreno_rto_reset: pick(&f.newreno_rto_reset, &g.newreno_rto_reset).map_or(d.newreno_rto_reset, |a| a.v),
            rfc6675_rto_reset: pick(&f.rfc6675_rto_reset, &g.rfc6675_rto_reset).map_or(d.rfc6675_rto_reset, |a| a.v),
            timeout_exit_growth: pick(&f.timeout_exit_growth, &g.timeout_exit_growth)
                .map_or(d.timeout_exit_growth, |a| a.v),
            recovery_exit_growth: pick(&f.recovery_exit_growth, &g.recovery_exit_growth)
                .map_or(d.recovery_exit_growth, |a| a.v),
            rfc6675_exit_growth: pick(&f.rfc6675_exit_growth, &g.rfc6675_exit_growth)
                .map_or(d.rfc6675_exit_growth, |a| a.v),
            rfc6675_pipe: pick(&f.rfc6675_pipe, &g.rfc6675_pipe).map_or(d.rfc6675_pipe, |a| a.v),
            cubic_arithmetic: pick(&f.cubic_arithmetic, &g.cubic_arithmetic).map_or(d.cubic_arithmetic, |a| a.v),
            prr_arithmetic: pick(&f.prr_arithmetic, &g.prr_arithmetic).map_or(d.prr_arithmetic, |a| a.v),
            sack_recover_after_exit: pick(&f.sack_recover_after_exit, &g.sack_recover_after_exit)
                .map_or(d.sack_recover_after_exit, |a| a.v),
            overhead: pick(&f.overhead, &g.overhead).map_or(d.overhead, |a| a.v),
        })
    }

    /// `tcp.rto`: the timer, its granularity or tick, and min ≤ max.
    fn rto(&self) -> R<RtoConfig> {
        let (g, f) = (self.g, self.f);
        let timer = pick(&f.timer, &g.timer).map_or(Timer::Fine, |a| a.v);
        // A global granularity/tick only applies if the flow kept a timer it fits
        // (parse_tcp has checked each level against its own timer).
        let mode = match timer {
            Timer::Fine => RtoMode::Fine {
                granularity: pick(&f.granularity, &g.granularity).map_or(defaults::RTO_GRANULARITY, |a| a.v),
            },
            Timer::Coarse => RtoMode::Coarse { tick: pick(&f.tick, &g.tick).map_or(defaults::RTO_TICK, |a| a.v) },
            Timer::Ns2 => RtoMode::Ns2 {
                tick: pick(&f.tick, &g.tick).map_or(defaults::RTO_TICK_NS2, |a| a.v),
                phase: pick(&f.clock_phase, &g.clock_phase).map_or(SimDuration::ZERO, |a| a.v),
            },
        };
        let min = pick(&f.rto_min, &g.rto_min);
        let max = pick(&f.rto_max, &g.rto_max);
        let min_v = min.map_or(defaults::RTO_MIN, |a| a.v);
        let max_default = match timer {
            Timer::Coarse => defaults::RTO_MAX_COARSE,
            Timer::Fine | Timer::Ns2 => defaults::RTO_MAX_FINE,
        };
        let max_v = max.map_or(max_default, |a| a.v);
        if min_v > max_v {
            let max_text = match max {
                Some(_) => fmt_dur(max_v),
                None => format!("{}, the default for the {} timer", fmt_dur(max_v), timer.name()),
            };
            return Err(self.cross(
                blame(max, min),
                format!("rto min ({}) is larger than rto max ({max_text}); min must not exceed max", fmt_dur(min_v)),
            ));
        }
        Ok(RtoConfig {
            mode,
            initial: pick(&f.rto_initial, &g.rto_initial).map_or(defaults::RTO_INITIAL, |a| a.v),
            min: min_v,
            max: max_v,
            max_backoff_shift: pick(&f.max_backoff_shift, &g.max_backoff_shift)
                .map_or(defaults::MAX_BACKOFF_SHIFT, |a| a.v),
            on_fast_retransmit: pick(&f.rto_on_fast_retransmit, &g.rto_on_fast_retransmit)
                .map_or(RtoOnFastRetransmit::Restart, |a| a.v),
            sampling: pick(&f.rtt_sampling, &g.rtt_sampling).map_or(RttSampling::Timed, |a| a.v),
            backoff_reset: pick(&f.backoff_reset, &g.backoff_reset).map_or(BackoffReset::Sample, |a| a.v),
        })
    }

    /// The receiver's configuration, checked against the sender's `tcp` and
    /// the variant: window, ACKs, SACK, undo's evidence, SACK blocks, DDA,
    /// D-SACK.
    fn receiver<'a>(&self, tcp: &TcpConfig, last_hop: impl FnOnce() -> Result<Hop<'a>, String>) -> R<ReceiverConfig> {
        let window = self.window()?;
        let ack = self.ack();
        let sack = self.sack()?;
        self.check_undo_timestamps(tcp)?;
        self.check_pipe_ssthresh(tcp)?;
        let max_sack_blocks = self.max_sack_blocks(tcp)?;
        let dda = self.dda(last_hop)?;
        let dsack = self.dsack(tcp, sack)?;
        let sack_option_size =
            pick(&self.frx.sack_option_size, &self.grx.sack_option_size).map_or(SackOptionSize::Rfc2018, |a| a.v);
        Ok(ReceiverConfig { window, ack, sack, max_sack_blocks, dsack, dda, sack_option_size })
    }

    /// `receiver.window`, at least one mss.
    fn window(&self) -> R<u64> {
        let (mss, mss_v) = self.mss();
        let window = pick(&self.frx.window, &self.grx.window);
        let window_v = window.map_or(defaults::RECEIVER_WINDOW, |a| a.v);
        if window_v < mss_v {
            return Err(self.cross(
                blame(window, mss),
                format!("receiver window ({window_v} bytes) is smaller than mss ({mss_v} bytes)"),
            ));
        }
        Ok(window_v)
    }

    fn ack(&self) -> AckMode {
        let (grx, frx) = (self.grx, self.frx);
        match pick(&frx.ack, &grx.ack).map_or(AckKind::Every, |a| a.v) {
            AckKind::Every => AckMode::Every,
            AckKind::Delayed => AckMode::Delayed {
                timeout: pick(&frx.delack_timeout, &grx.delack_timeout).map_or(defaults::DELACK_TIMEOUT, |a| a.v),
                every: pick(&frx.delack_every, &grx.delack_every).map_or(defaults::DELACK_EVERY, |a| a.v),
            },
        }
    }

    /// `receiver.sack`: `"auto"` follows the variant; `false` is refused for a
    /// variant that needs SACK blocks.
    fn sack(&self) -> R<bool> {
        let variant = self.variant;
        let uses_sack = variant.v.spec().uses_sack();
        let sack_at = pick(&self.frx.sack, &self.grx.sack);
        Ok(match sack_at.map_or(SackSetting::Auto, |a| a.v) {
            SackSetting::On => true,
            SackSetting::Auto => uses_sack,
            SackSetting::Off => {
                if uses_sack {
                    return Err(self.cross(
                        sack_at.map_or_else(String::new, |a| a.path.clone()),
                        format!(
                            "sack = false, but variant '{}' (from {}) needs SACK blocks from the receiver; \
                             set sack to true or \"auto\", or choose a variant without SACK",
                            variant.v,
                            self.variant_from()
                        ),
                    ));
                }
                false
            }
        })
    }

    /// Whether the variant undoes spurious retransmissions (`+undo`).
    fn undo(&self) -> bool {
        self.variant.v.spec().has(Ext::Undo)
    }

    /// `+undo` with timestamps as its evidence needs timestamps on.
    fn check_undo_timestamps(&self, tcp: &TcpConfig) -> R<()> {
        let variant = self.variant;
        let needs_ts = self.undo() && tcp.undo_evidence == UndoEvidence::Timestamps;
        if needs_ts && !tcp.timestamps {
            return Err(self.cross(
                self.timestamps().map_or_else(|| variant.path.clone(), |a| a.path.clone()),
                format!(
                    "variant '{}' (from {}) detects spurious retransmissions from timestamps (RFC 3522), \
                     but timestamps are off; set tcp.timestamps = true",
                    variant.v,
                    self.variant_from()
                ),
            ));
        }
        Ok(())
    }

    /// `loss_ssthresh = "pipe"` needs a variant that keeps RFC 6675's pipe.
    fn check_pipe_ssthresh(&self, tcp: &TcpConfig) -> R<()> {
        if tcp.loss_ssthresh != LossSsthresh::Pipe || self.variant.v.spec().base == Base::Rfc6675 {
            return Ok(());
        }
        let at = pick(&self.f.loss_ssthresh, &self.g.loss_ssthresh).map_or_else(String::new, |a| a.path.clone());
        Err(self.cross(
            at,
            format!(
                "loss_ssthresh = \"pipe\" halves RFC 6675's pipe, which variant '{}' (from {}) does not keep; \
                 choose an rfc6675 variant, or loss_ssthresh = \"flightsize\" or \"window\"",
                self.variant.v,
                self.variant_from()
            ),
        ))
    }

    /// `receiver.max_sack_blocks`: at most 3 next to timestamps.
    fn max_sack_blocks(&self, tcp: &TcpConfig) -> R<u32> {
        let blocks = pick(&self.frx.max_sack_blocks, &self.grx.max_sack_blocks);
        let blocks_v = blocks.map_or(defaults::MAX_SACK_BLOCKS, |a| a.v);
        if blocks_v > 3 && tcp.timestamps {
            return Err(self.cross(
                blame(blocks, self.timestamps()),
                format!(
                    "max_sack_blocks = {blocks_v}, but with timestamps on at most 3 SACK blocks fit in the TCP options"
                ),
            ));
        }
        Ok(blocks_v)
    }

    /// `receiver.dda`: a duration, or `"auto"` from the flow's last hop.
    fn dda<'a>(&self, last_hop: impl FnOnce() -> Result<Hop<'a>, String>) -> R<Option<SimDuration>> {
        Ok(match pick(&self.frx.dda, &self.grx.dda) {
            None => None,
            Some(At { v: DdaSetting::Fixed(d), .. }) => Some(*d),
            Some(a @ At { v: DdaSetting::Auto, .. }) => {
                let link = last_hop().map_err(|m| self.cross(a.path.clone(), m))?;
                let d = dda_auto(&link);
                if d == SimDuration::ZERO {
                    return Err(self.cross(
                        a.path.clone(),
                        format!(
                            "dda = \"auto\" resolves to 0s: the last link before the receiver, '{}', has no \
                             propagation delay; give a duration instead ({DDA_ALLOWED})",
                            link.name
                        ),
                    ));
                }
                Some(d)
            }
        })
    }

    /// `receiver.dsack`: needs SACK, and `undo_evidence = "dsack"` needs it.
    fn dsack(&self, tcp: &TcpConfig, sack: bool) -> R<bool> {
        let dsack_at = pick(&self.frx.dsack, &self.grx.dsack);
        let dsack = dsack_at.is_some_and(|a| a.v);
        if dsack && !sack {
            return Err(self.cross(
                dsack_at.map_or_else(String::new, |a| a.path.clone()),
                "dsack = true needs SACK blocks from the receiver (RFC 2883); set receiver.sack = true".to_string(),
            ));
        }
        if self.undo() && tcp.undo_evidence == UndoEvidence::Dsack && !dsack {
            return Err(self.cross(
                dsack_at.map_or_else(|| self.variant.path.clone(), |a| a.path.clone()),
                format!(
                    "variant '{}' with undo_evidence = \"dsack\" needs D-SACK blocks from the receiver; \
                     set receiver.dsack = true (and a SACK variant or receiver.sack = true)",
                    self.variant.v
                ),
            ));
        }
        Ok(dsack)
    }
}
