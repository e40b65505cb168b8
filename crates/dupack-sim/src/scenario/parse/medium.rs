//! Shared media (`[[topology.media]]`, a star's `medium`).

use super::error::*;
use super::queue::parse_queue;
use super::topology::Topo;
use super::value::*;
use crate::scenario::model::*;
use serde_json::Value;
use std::collections::HashMap;

pub(super) const MEDIUM_KEYS: &[&str] = &[
    "name",
    "nodes",
    "access_point",
    "rate",
    "slot",
    "sifs",
    "difs",
    "preamble",
    "mac_overhead",
    "cw_min",
    "cw_max",
    "retry_limit",
    "frame_loss",
    "delay",
    "queue",
];
/// Stations on one medium: an ad-hoc medium adds N·(N−1) routing edges.
const MAX_STATIONS: usize = 1000;
/// Contention windows fit the 16 bits of 802.11's counters.
const MAX_CW: u32 = 65_535;
const MAX_RETRY_LIMIT: u32 = 255;

/// `[[topology.media]]`: shared media (`net::medium`). Defaults are
/// [`MediumSpec::wavelan`]'s.
pub(super) fn build_media(v: &Value, path: &str, topo: &mut Topo) -> R<()> {
    let items = v_array(v, path, "medium tables")?;
    if items.is_empty() {
        return fail(path, "must contain at least one medium table (or leave the key out)");
    }
    let mut names: HashMap<String, String> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        build_medium(item, &index_path(path, i), format!("medium{i}"), topo, &mut names)?;
    }
    Ok(())
}

/// One medium table at `ipath`; `default_name` if it has no `name`.
pub(super) fn build_medium(
    item: &Value,
    ipath: &str,
    default_name: String,
    topo: &mut Topo,
    names: &mut HashMap<String, String>,
) -> R<()> {
    let t = table(item, ipath)?;
    t.allow(MEDIUM_KEYS)?;
    let name = t.opt("name", v_name)?;
    let npath = t.at("nodes");
    let what = "an array of the names of the nodes that share the medium (at least two)";
    let nodes = v_array(t.required("nodes", what)?, &npath, "node names")?;
    let mut stations: Vec<usize> = Vec::with_capacity(nodes.len());
    for (j, n) in nodes.iter().enumerate() {
        let jpath = index_path(&npath, j);
        let node = v_str(n, &jpath)?;
        let k = topo.lookup(node, &jpath)?;
        if let Some(prev) = stations.iter().position(|&x| x == k) {
            return fail(&jpath, format!("node {} is already a station of this medium ({npath}[{prev}])", sq(node)));
        }
        stations.push(k);
    }
    if stations.len() < 2 {
        return fail(&npath, format!("a medium needs at least two stations, got {}", stations.len()));
    }
    if stations.len() > MAX_STATIONS {
        return fail(&npath, format!("at most {MAX_STATIONS} stations per medium, got {}", stations.len()));
    }
    let access_point = match t.opt("access_point", |v, p| v_str(v, p).map(str::to_string))? {
        None => None,
        Some(a) => match topo.index.get(&a.v).filter(|k| stations.contains(k)) {
            Some(&k) => Some(k),
            None => {
                let on: Vec<&str> = stations.iter().map(|&k| topo.nodes[k].name.as_str()).collect();
                return fail(
                    &a.path,
                    format!(
                        "{} is not a station of this medium{}; allowed: one of its nodes ({})",
                        sq(&a.v),
                        did_you_mean(&a.v, &on),
                        list(&on)
                    ),
                );
            }
        },
    };
    let d = MediumSpec::wavelan("", Vec::new());
    let rate_bps = t.opt("rate", v_rate_pos)?.map_or(d.rate_bps, |a| a.v);
    let slot = t.opt("slot", v_dur_pos)?;
    let sifs = t.opt("sifs", v_dur)?.map_or(d.sifs, |a| a.v);
    let difs = t.opt("difs", v_dur)?.map_or(d.difs, |a| a.v);
    let preamble = t.opt("preamble", v_dur)?.map_or(d.preamble, |a| a.v);
    let mac_overhead = t.opt("mac_overhead", |v, p| v_size(v, p, 0, 65_535))?.map_or(d.mac_overhead, |a| a.v as u32);
    let cw_min = t.opt("cw_min", |v, p| v_u32(v, p, 0, MAX_CW))?;
    let cw_max = t.opt("cw_max", |v, p| v_u32(v, p, 0, MAX_CW))?;
    let retry_limit = t.opt("retry_limit", |v, p| v_u32(v, p, 0, MAX_RETRY_LIMIT))?.map_or(d.retry_limit, |a| a.v);
    let frame_loss = t.opt("frame_loss", v_prob)?.map_or(d.frame_loss, |a| a.v);
    let delay = t.opt("delay", v_dur)?;
    let queue = t.opt("queue", parse_queue)?.map_or(d.queue, |a| a.v);
    // Cross-key checks blame a key that was written.
    let (lo, hi) = (cw_min.as_ref().map_or(d.cw_min, |a| a.v), cw_max.as_ref().map_or(d.cw_max, |a| a.v));
    if lo > hi {
        return match (&cw_max, &cw_min) {
            (Some(_), Some(_)) => fail(&t.at("cw_max"), format!("must be at least cw_min ({lo}), got {hi}")),
            (Some(_), None) => fail(&t.at("cw_max"), format!("must be at least cw_min ({lo}, the default), got {hi}")),
            _ => fail(&t.at("cw_min"), format!("must be at most cw_max ({hi}, the default), got {lo}")),
        };
    }
    let slot_v = slot.as_ref().map_or(d.slot, |a| a.v);
    let delay_v = delay.as_ref().map_or(d.delay, |a| a.v);
    if delay_v > slot_v {
        // 802.11's slot time includes the air propagation delay: a
        // longer delay would let stations miss each other's carrier.
        let (p, slot_text) = match (&delay, &slot) {
            (Some(a), Some(_)) => (a.path.clone(), fmt_dur(slot_v)),
            (Some(a), None) => (a.path.clone(), format!("{}, the default", fmt_dur(slot_v))),
            (None, _) => (t.at("slot"), String::new()),
        };
        return if delay.is_some() {
            fail(
                &p,
                format!(
                    "must not exceed the slot ({slot_text}): carrier sense works only if every station \
                     hears a frame within one slot; got {}",
                    fmt_dur(delay_v)
                ),
            )
        } else {
            fail(
                &p,
                format!(
                    "must be at least the propagation delay ({}, the default), got {}",
                    fmt_dur(delay_v),
                    fmt_dur(slot_v)
                ),
            )
        };
    }
    let (name, name_path) = match name {
        Some(n) => (n.v, n.path),
        None => (default_name, ipath.to_string()),
    };
    if let Some(prev) = names.get(&name) {
        return fail(&name_path, format!("duplicate medium name {} (also used by {prev})", sq(&name)));
    }
    names.insert(name.clone(), ipath.to_string());
    topo.media.push(MediumSpec {
        name,
        stations,
        access_point,
        rate_bps,
        slot: slot_v,
        sifs,
        difs,
        preamble,
        mac_overhead,
        cw_min: lo,
        cw_max: hi,
        retry_limit,
        frame_loss,
        delay: delay_v,
        queue,
    });
    Ok(())
}
