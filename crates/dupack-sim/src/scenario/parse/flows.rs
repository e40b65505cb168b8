//! `[[flows]]`: each flow's keys, name, endpoints (with the topology's
//! defaults) and merged configuration; then the flow names of drop lists.

use super::config::resolve_config;
use super::error::*;
use super::routes::{components, last_hop_link};
use super::tcp::*;
use super::topology::{numbered, Topo, TopoKind};
use super::value::*;
use crate::net::routing::Routes;
use crate::scenario::model::*;
use crate::tcp::variant::Variant;
use crate::time::SimDuration;
use serde_json::{Map, Value};
use std::collections::HashMap;

pub(super) const FLOW_KEYS: &[&str] = &["name", "from", "to", "variant", "bytes", "start", "tcp", "receiver"];

pub(super) fn parse_flows(v: Option<&Value>, path: &str, topo: &Topo, gtcp: &TcpRaw, grx: &RxRaw) -> R<Vec<FlowSpec>> {
    let empty = Map::new();
    let default_items: Vec<Value>;
    let items: &[Value] = match v {
        Some(v) => {
            let a = v_array(v, path, "flow tables")?;
            if a.is_empty() {
                let hint = match topo.kind {
                    TopoKind::Custom => "",
                    _ => "; leave the key out to get the default flows",
                };
                return fail(path, format!("must contain at least one flow{hint}"));
            }
            a
        }
        None => {
            let n = match topo.kind {
                TopoKind::Dumbbell => numbered(topo, "s"),
                TopoKind::Chain => 1,
                TopoKind::Star => numbered(topo, "m"),
                TopoKind::Custom => {
                    return fail(
                        path,
                        "missing required key 'flows': a custom topology needs at least one [[flows]] table with from and to",
                    )
                }
            };
            default_items = vec![Value::Object(empty.clone()); n];
            &default_items
        }
    };
    // Default flows have no keys of their own: blame the global tables.
    let generated = v.is_none();

    let comp = components(topo);
    let mut routes: HashMap<usize, Routes> = HashMap::new();
    let mut names: HashMap<String, usize> = HashMap::new();
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let fpath = if generated { String::new() } else { index_path(path, i) };
        let t = match item {
            Value::Object(map) => Table { map, path: fpath.clone() },
            other => return fail(&fpath, format!("expected a table, got {}", describe(other))),
        };
        t.allow(FLOW_KEYS)?;
        let name = t.opt("name", v_name)?;
        let from = t.opt("from", |v, p| v_str(v, p).map(str::to_string))?;
        let to = t.opt("to", |v, p| v_str(v, p).map(str::to_string))?;
        let variant = t.opt("variant", v_variant)?;
        let bytes = t.opt("bytes", |v, p| v_size(v, p, 1, u64::MAX))?.map(|a| a.v);
        let start = t.opt("start", v_dur)?.map_or(SimDuration::ZERO, |a| a.v);
        let ftcp = match t.get("tcp") {
            Some(v) => parse_tcp(v, &t.at("tcp"), Some(gtcp))?,
            None => TcpRaw::default(),
        };
        let frx = match t.get("receiver") {
            Some(v) => parse_rx(v, &t.at("receiver"), Some(grx))?,
            None => RxRaw::default(),
        };

        // Name.
        let name_path = name.as_ref().map_or_else(|| t.at("name"), |a| a.path.clone());
        let name = name.map_or_else(|| format!("f{i}"), |a| a.v);
        if let Some(prev) = names.get(&name) {
            let implied = if t.get("name").is_none() { " (the default name of this flow)" } else { "" };
            return fail(
                &name_path,
                format!("duplicate flow name {}{implied}; {} already uses it", sq(&name), index_path(path, *prev)),
            );
        }
        names.insert(name.clone(), i);

        // Endpoints.
        let (from, to) = flow_endpoints(topo, &t, i, from, to)?;
        let src = topo.lookup(&from.v, &from.path)?;
        let dst = topo.lookup(&to.v, &to.path)?;
        for (end, at) in [(src, &from), (dst, &to)] {
            if topo.nodes[end].kind != NodeKind::Host {
                return fail(&at.path, format!("node {} is a router; flows must start and end at hosts", sq(&at.v)));
            }
        }
        if src == dst {
            return fail(&to.path, format!("a flow needs two different hosts, but from and to are both {}", sq(&to.v)));
        }
        if comp[src] != comp[dst] {
            return fail(
                &fpath,
                format!(
                    "flow {} cannot reach its destination: no path of links joins {} and {}",
                    sq(&name),
                    sq(&from.v),
                    sq(&to.v)
                ),
            );
        }

        // Variant: flows[i].variant, flows[i].tcp.variant, tcp.variant, "newreno".
        if let (Some(v), Some(tv)) = (&variant, &ftcp.variant) {
            return fail(
                &tv.path,
                format!("the variant is given twice for this flow ({} and {}); keep one", v.path, tv.path),
            );
        }
        let variant = variant
            .or_else(|| ftcp.variant.clone())
            .or_else(|| gtcp.variant.clone())
            .unwrap_or_else(|| At { v: Variant::parse("newreno").expect("a valid variant"), path: String::new() });

        let last_hop = || {
            last_hop_link(topo, &mut routes, src, dst)
                .ok_or_else(|| format!("dda = \"auto\": no route from {} to {}", sq(&from.v), sq(&to.v)))
        };
        let (tcp, receiver) = resolve_config(gtcp, &ftcp, grx, &frx, &variant, &name, last_hop)?;
        out.push(FlowSpec { name, src, dst, variant: variant.v, bytes, start, tcp, receiver });
    }
    Ok(out)
}

/// `from` and `to` with the topology's defaults applied; a default's path is
/// the key it stands for.
fn flow_endpoints(
    topo: &Topo,
    t: &Table,
    i: usize,
    from: Option<At<String>>,
    to: Option<At<String>>,
) -> R<(At<String>, At<String>)> {
    let implied = |key: &str, v: String| At { v, path: t.at(key) };
    let (dfrom, dto) = match topo.kind {
        TopoKind::Dumbbell => {
            let s = format!("s{i}");
            let k = format!("k{i}");
            let to = if topo.index.contains_key("sink") {
                Some("sink".to_string())
            } else {
                topo.index.contains_key(&k).then_some(k)
            };
            (topo.index.contains_key(&s).then_some(s), to)
        }
        TopoKind::Chain => (Some("n0".to_string()), topo.nodes.last().map(|n| n.name.clone())),
        TopoKind::Star => {
            let m = format!("m{i}");
            let from = if topo.index.contains_key("server") { "server" } else { "hub" };
            (Some(from.to_string()), topo.index.contains_key(&m).then_some(m))
        }
        TopoKind::Custom => (None, None),
    };
    let from = match (from, dfrom) {
        (Some(a), _) => a,
        (None, Some(d)) => implied("from", d),
        (None, None) => {
            let why = match topo.kind {
                TopoKind::Dumbbell => format!("there is no sender s{i} to default to"),
                TopoKind::Star => unreachable!("a star always has a hub"),
                _ => "custom topologies have no default".to_string(),
            };
            return fail(&t.at("from"), format!("missing required key 'from' (the sending host; {why})"));
        }
    };
    let to = match (to, dto) {
        (Some(a), _) => a,
        (None, Some(d)) => implied("to", d),
        (None, None) => {
            let why = match topo.kind {
                TopoKind::Dumbbell => format!("there is no receiver k{i} to default to"),
                TopoKind::Star => format!("there is no leaf m{i} to default to"),
                _ => "custom topologies have no default".to_string(),
            };
            return fail(&t.at("to"), format!("missing required key 'to' (the receiving host; {why})"));
        }
    };
    Ok((from, to))
}

pub(super) fn resolve_droplists(topo: &mut Topo, flows: &[FlowSpec]) -> R<()> {
    let names: Vec<&str> = flows.iter().map(|f| f.name.as_str()).collect();
    let index: HashMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    for d in &topo.drops {
        let Some(&fi) = index.get(d.flow.v.as_str()) else {
            return fail(
                &d.flow.path,
                format!("no flow named {}{}; flows: {}", sq(&d.flow.v), did_you_mean(&d.flow.v, &names), list(&names)),
            );
        };
        let link = &mut topo.links[d.link];
        let e = if d.fwd { &mut link.fwd_error } else { &mut link.rev_error };
        if let ErrorModelSpec::DropList { flow, .. } = &mut e.model {
            *flow = fi;
        }
    }
    Ok(())
}
