//! A link's keys: rate, delay, queue, error models, jitter, traces, ARQ
//! and Snoop, as written ([`LinkRaw`]) until the topology builds the link.

use super::error::*;
use super::loss::{parse_error_model, ErrRaw};
use super::queue::parse_queue;
use super::value::*;
use crate::scenario::model::*;
use crate::time::SimDuration;
use serde_json::Value;

pub(super) const LINK_KEYS: &[&str] = &[
    "rate",
    "delay",
    "queue",
    "fwd_error",
    "rev_error",
    "fwd_jitter",
    "rev_jitter",
    "fwd_trace",
    "rev_trace",
    "arq",
    "snoop",
];
pub(super) const ARQ_KEYS: &[&str] =
    &["preset", "directions", "retry_limit", "nak_bytes", "in_order", "nak_timeout", "window", "discard", "poll"];
pub(super) const SNOOP_KEYS: &[&str] = &["min_timeout", "initial_timeout", "local_rexmit"];
pub(super) const TRACE_KEYS: &[&str] = &["file", "mtu"];

/// Link keys as written; `None` = not given here.
#[derive(Clone, Default)]
pub(super) struct LinkRaw {
    pub(super) rate: Option<u64>,
    pub(super) delay: Option<SimDuration>,
    pub(super) queue: Option<QueueSpec>,
    pub(super) fwd_error: Option<ErrRaw>,
    pub(super) rev_error: Option<ErrRaw>,
    pub(super) fwd_jitter: Option<SimDuration>,
    pub(super) rev_jitter: Option<SimDuration>,
    pub(super) fwd_trace: Option<TraceSpec>,
    pub(super) rev_trace: Option<TraceSpec>,
    pub(super) arq: Option<ArqRaw>,
    pub(super) snoop: Option<SnoopRaw>,
}

/// `arq` as written: `nak_timeout = None` means "auto" (resolved per link).
#[derive(Clone)]
pub(super) struct ArqRaw {
    pub(super) spec: ArqSpec,
    pub(super) nak_timeout: Option<SimDuration>,
}

/// `snoop` as written; `None` = the default for the link (`auto`).
#[derive(Clone)]
pub(super) struct SnoopRaw {
    pub(super) min_timeout: Option<SimDuration>,
    pub(super) initial_timeout: Option<SimDuration>,
    pub(super) local_rexmit: LocalRexmit,
}

impl LinkRaw {
    /// `self` over `base`, key by key (tables are replaced, not merged).
    /// A rate is dropped when both directions end up traced: nothing uses it.
    pub(super) fn over(&self, base: &LinkRaw) -> LinkRaw {
        let fwd_trace = self.fwd_trace.clone().or_else(|| base.fwd_trace.clone());
        let rev_trace = self.rev_trace.clone().or_else(|| base.rev_trace.clone());
        let both = fwd_trace.is_some() && rev_trace.is_some();
        LinkRaw {
            rate: if both { None } else { self.rate.or(base.rate) },
            delay: self.delay.or(base.delay),
            queue: self.queue.clone().or_else(|| base.queue.clone()),
            fwd_error: self.fwd_error.clone().or_else(|| base.fwd_error.clone()),
            rev_error: self.rev_error.clone().or_else(|| base.rev_error.clone()),
            fwd_jitter: self.fwd_jitter.or(base.fwd_jitter),
            rev_jitter: self.rev_jitter.or(base.rev_jitter),
            fwd_trace,
            rev_trace,
            arq: self.arq.clone().or_else(|| base.arq.clone()),
            snoop: self.snoop.clone().or_else(|| base.snoop.clone()),
        }
    }
}

/// The link keys of `t` (the caller has checked which keys are allowed).
pub(super) fn parse_link_keys(t: &Table, required: bool) -> R<LinkRaw> {
    let delay_what = "a duration such as \"20ms\"";
    // With both directions traced the rate would serve nothing.
    let both_traced = t.get("fwd_trace").is_some() && t.get("rev_trace").is_some();
    let rate = if both_traced {
        if let Some(r) = t.opt("rate", v_rate_pos)? {
            return fail(&r.path, "not used: both directions follow a trace (fwd_trace and rev_trace); leave rate out");
        }
        None
    } else if required {
        let what = "a rate such as \"2Mbps\"; only a link with both fwd_trace and rev_trace needs none";
        Some(t.req("rate", what, v_rate_pos)?)
    } else {
        t.opt("rate", v_rate_pos)?
    };
    let delay = if required { Some(t.req("delay", delay_what, v_dur)?) } else { t.opt("delay", v_dur)? };
    let queue = t.opt("queue", parse_queue)?;
    let fwd_error = t.opt("fwd_error", parse_error_model)?;
    let rev_error = t.opt("rev_error", parse_error_model)?;
    let fwd_jitter = t.opt("fwd_jitter", v_dur)?;
    let rev_jitter = t.opt("rev_jitter", v_dur)?;
    let fwd_trace = t.opt("fwd_trace", parse_trace_table)?;
    let rev_trace = t.opt("rev_trace", parse_trace_table)?;
    let arq = t.opt("arq", parse_arq)?;
    let snoop = t.opt("snoop", parse_snoop)?;
    Ok(LinkRaw {
        rate: rate.map(|a| a.v),
        delay: delay.map(|a| a.v),
        queue: queue.map(|a| a.v),
        fwd_error: fwd_error.map(|a| a.v),
        rev_error: rev_error.map(|a| a.v),
        fwd_jitter: fwd_jitter.map(|a| a.v),
        rev_jitter: rev_jitter.map(|a| a.v),
        fwd_trace: fwd_trace.map(|a| a.v),
        rev_trace: rev_trace.map(|a| a.v),
        arq: arq.map(|a| a.v),
        snoop: snoop.map(|a| a.v),
    })
}

/// A duration, or `"auto"` (`None`).
fn v_dur_or_auto(v: &Value, path: &str) -> R<Option<SimDuration>> {
    if v.as_str() == Some("auto") {
        return Ok(None);
    }
    v_dur_pos(v, path).map(Some).map_err(|e| err(path, format!("{}, or \"auto\"", e.message)))
}

/// `arq = { ... }` on a link (irw §4; `net::arq`). `preset = "rlc-am"` sets
/// eplr Table II's values; keys given next to it override them.
fn parse_arq(v: &Value, path: &str) -> R<ArqRaw> {
    let t = table(v, path)?;
    t.allow(ARQ_KEYS)?;
    let rlc = t.opt("preset", |v, p| v_enum(v, p, &[("nak", false), ("rlc-am", true)]))?.is_some_and(|a| a.v);
    let mut spec = ArqSpec {
        retry_limit: if rlc { defaults::RLC_RETRY_LIMIT } else { defaults::ARQ_RETRY_LIMIT },
        nak_bytes: defaults::ARQ_NAK_BYTES,
        in_order: !rlc,
        nak_timeout: SimDuration::ZERO,
        window: rlc.then_some(defaults::RLC_WINDOW),
        discard: rlc.then_some(defaults::RLC_DISCARD),
        poll: true,
        fwd: true,
        rev: true,
    };
    if let Some(a) = t.opt("directions", |v, p| {
        v_enum(v, p, &[("both", (true, true)), ("fwd", (true, false)), ("rev", (false, true))])
    })? {
        (spec.fwd, spec.rev) = a.v;
    }
    if let Some(a) = t.opt("retry_limit", |v, p| v_u32(v, p, 0, 1000))? {
        spec.retry_limit = a.v;
    }
    if let Some(a) = t.opt("nak_bytes", |v, p| v_size(v, p, 1, 65_535))? {
        spec.nak_bytes = a.v as u32;
    }
    if let Some(a) = t.opt("in_order", v_bool)? {
        spec.in_order = a.v;
    }
    if let Some(a) = t.opt("poll", v_bool)? {
        spec.poll = a.v;
    }
    if let Some(a) = t.opt("window", |v, p| {
        if v.as_str() == Some("unlimited") {
            return Ok(None);
        }
        v_u32(v, p, 1, 1 << 30).map(Some).map_err(|e| err(p, format!("{}, or \"unlimited\"", e.message)))
    })? {
        spec.window = a.v;
    }
    if let Some(a) = t.opt("discard", |v, p| {
        if v.as_str() == Some("never") {
            return Ok(None);
        }
        v_dur_pos(v, p).map(Some).map_err(|e| err(p, format!("{}, or \"never\"", e.message)))
    })? {
        spec.discard = a.v;
    }
    let nak_timeout = t.opt("nak_timeout", v_dur_or_auto)?.and_then(|a| a.v);
    Ok(ArqRaw { spec, nak_timeout })
}

/// `snoop = { ... }` (or `snoop = {}`) on a link: an agent at node `a`.
fn parse_snoop(v: &Value, path: &str) -> R<SnoopRaw> {
    let t = table(v, path)?;
    t.allow(SNOOP_KEYS)?;
    let min_timeout = t.opt("min_timeout", v_dur_or_auto)?.and_then(|a| a.v);
    let initial_timeout = t.opt("initial_timeout", v_dur_or_auto)?.and_then(|a| a.v);
    let local_rexmit = t
        .opt("local_rexmit", |v, p| {
            v_enum(v, p, &[("priority", LocalRexmit::Priority), ("queue", LocalRexmit::Queue)])
        })?
        .map_or(LocalRexmit::default(), |a| a.v);
    Ok(SnoopRaw { min_timeout, initial_timeout, local_rexmit })
}

/// A `fwd_trace`/`rev_trace` table: the file is read and checked here, so
/// a bad trace is reported like any other bad value.
fn parse_trace_table(v: &Value, path: &str) -> R<TraceSpec> {
    let t = table(v, path)?;
    t.allow(TRACE_KEYS)?;
    let file = t.req("file", "the path of a mahimahi trace file", v_nonempty_str)?;
    let mtu = t.opt("mtu", |v, p| v_size(v, p, 1, 65_535))?.map_or(defaults::TRACE_MTU, |a| a.v as u32);
    let opportunities = crate::net::trace::read_trace(&file.v).map_err(|m| err(&file.path, m))?;
    Ok(TraceSpec { file: file.v, mtu, opportunities_ms: opportunities.into() })
}

pub(super) fn parse_link_table(v: &Value, path: &str) -> R<LinkRaw> {
    let t = table(v, path)?;
    t.allow(LINK_KEYS)?;
    parse_link_keys(&t, true)
}
