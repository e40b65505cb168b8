//! Topologies: the four builders (dumbbell, star, chain, custom), per-link
//! overrides of a template link, and [`Topo`], the nodes, links and media
//! being built.

use super::error::*;
use super::link::*;
use super::loss::ErrRaw;
use super::medium::{build_media, build_medium};
use super::value::*;
use crate::scenario::model::*;
use crate::time::SimDuration;
use serde_json::Value;
use std::collections::HashMap;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum TopoKind {
    Dumbbell,
    Chain,
    Star,
    Custom,
}

pub(super) const DUMBBELL_KEYS: &[&str] =
    &["kind", "senders", "access", "bottleneck", "access_override", "receivers", "exit"];
pub(super) const STAR_KEYS: &[&str] = &["kind", "leaves", "leaf", "leaf_override", "uplink", "medium"];
pub(super) const CHAIN_KEYS: &[&str] = &["kind", "hops"];
pub(super) const CUSTOM_KEYS: &[&str] = &["kind", "nodes", "links", "media"];
/// A custom topology's link: its name and ends, then a link's own keys.
const CUSTOM_LINK_ENDS: [&str; 3] = ["name", "a", "b"];
pub(super) const NODE_KEYS: &[&str] = &["name", "kind"];
const MAX_SENDERS: u64 = 100_000;

pub(super) struct Topo {
    pub(super) kind: TopoKind,
    pub(super) nodes: Vec<NodeSpec>,
    pub(super) links: Vec<LinkSpec>,
    pub(super) media: Vec<MediumSpec>,
    pub(super) index: HashMap<String, usize>,
    /// Droplist error models whose flow name is resolved once flows are known.
    pub(super) drops: Vec<PendingDrop>,
}

pub(super) struct PendingDrop {
    pub(super) link: usize,
    pub(super) fwd: bool,
    pub(super) flow: At<String>,
}

pub(super) fn parse_topology(v: &Value, path: &str) -> R<Topo> {
    let t = table(v, path)?;
    let kind = t
        .req("kind", "\"dumbbell\", \"chain\", \"star\" or \"custom\"", |v, p| {
            v_enum(
                v,
                p,
                &[
                    ("dumbbell", TopoKind::Dumbbell),
                    ("chain", TopoKind::Chain),
                    ("star", TopoKind::Star),
                    ("custom", TopoKind::Custom),
                ],
            )
        })?
        .v;
    let kinds: [(&str, &[&str]); 4] =
        [("dumbbell", DUMBBELL_KEYS), ("chain", CHAIN_KEYS), ("star", STAR_KEYS), ("custom", CUSTOM_KEYS)];
    let (kname, keys) = match kind {
        TopoKind::Dumbbell => kinds[0],
        TopoKind::Chain => kinds[1],
        TopoKind::Star => kinds[2],
        TopoKind::Custom => kinds[3],
    };
    t.allow_explained(keys, |k| belongs_elsewhere(k, "topology kind", kname, &kinds))?;
    let mut topo = Topo {
        kind,
        nodes: Vec::new(),
        links: Vec::new(),
        media: Vec::new(),
        index: HashMap::new(),
        drops: Vec::new(),
    };
    match kind {
        TopoKind::Dumbbell => build_dumbbell(&t, &mut topo)?,
        TopoKind::Chain => build_chain(&t, &mut topo)?,
        TopoKind::Star => build_star(&t, &mut topo)?,
        TopoKind::Custom => build_custom(&t, &mut topo)?,
    }
    Ok(topo)
}

impl Topo {
    fn add_node(&mut self, name: String, kind: NodeKind) -> usize {
        let i = self.nodes.len();
        self.index.insert(name.clone(), i);
        self.nodes.push(NodeSpec { name, kind });
        i
    }

    fn add_link(&mut self, name: String, a: usize, b: usize, raw: &LinkRaw) {
        let link = self.links.len();
        let mut error = |e: &Option<ErrRaw>, fwd: bool| match e {
            None => ErrorSpec::none(),
            Some(e) => {
                if let Some(flow) = &e.drop_flow {
                    self.drops.push(PendingDrop { link, fwd, flow: flow.clone() });
                }
                e.spec.clone()
            }
        };
        let fwd_error = error(&raw.fwd_error, true);
        let rev_error = error(&raw.rev_error, false);
        self.links.push(LinkSpec {
            name,
            a,
            b,
            // Templates are parsed with rate (unless both directions are
            // traced) and delay required, so the fallbacks are used only
            // for links that need no rate.
            rate_bps: raw.rate.unwrap_or(0),
            delay: raw.delay.unwrap_or(SimDuration::ZERO),
            queue: raw.queue.clone().unwrap_or(QueueSpec::DropTail { limit: defaults::QUEUE_LIMIT }),
            fwd_error,
            rev_error,
            fwd_jitter: raw.fwd_jitter.unwrap_or(SimDuration::ZERO),
            rev_jitter: raw.rev_jitter.unwrap_or(SimDuration::ZERO),
            fwd_trace: raw.fwd_trace.clone(),
            rev_trace: raw.rev_trace.clone(),
            arq: raw.arq.as_ref().map(|a| {
                let mut spec = a.spec.clone();
                let (delay, rate) = (raw.delay.unwrap_or(SimDuration::ZERO), raw.rate.unwrap_or(0));
                spec.nak_timeout = a.nak_timeout.unwrap_or_else(|| defaults::arq_nak_timeout(delay, rate));
                spec
            }),
            snoop: raw.snoop.as_ref().map(|sn| {
                let auto = defaults::snoop_min_timeout(raw.delay.unwrap_or(SimDuration::ZERO));
                let min_timeout = sn.min_timeout.unwrap_or(auto);
                SnoopSpec {
                    min_timeout,
                    initial_timeout: sn.initial_timeout.unwrap_or(min_timeout).max(min_timeout),
                    local_rexmit: sn.local_rexmit,
                }
            }),
        });
    }

    fn node_names(&self) -> Vec<&str> {
        self.nodes.iter().map(|n| n.name.as_str()).collect()
    }

    pub(super) fn lookup(&self, name: &str, path: &str) -> R<usize> {
        match self.index.get(name) {
            Some(&i) => Ok(i),
            None => {
                let names = self.node_names();
                fail(path, format!("no node named {}{}; nodes: {}", sq(name), did_you_mean(name, &names), list(&names)))
            }
        }
    }
}

fn build_dumbbell(t: &Table, topo: &mut Topo) -> R<()> {
    let n = t.req("senders", "the number of senders, 1 to 100000", |v, p| v_int(v, p, 1, MAX_SENDERS))?.v as usize;
    let access = t.req("access", "a link table for every sender's access link", parse_link_table)?.v;
    let bottleneck = t.req("bottleneck", "a link table", parse_link_table)?.v;

    let per_sender = parse_overrides(t, "access_override", "senders", "sender", n)?;
    let receivers = match t.opt("receivers", |v, p| v_int(v, p, 1, MAX_SENDERS))? {
        None => 1,
        Some(r) if r.v == 1 || r.v == n as u64 => r.v as usize,
        Some(r) => {
            return fail(&r.path, format!("must be 1 (one shared sink) or {n} (one receiver per sender), got {}", r.v))
        }
    };
    let exit = if receivers > 1 {
        Some(t.req("exit", "a link table for every receiver's link (needed with receivers > 1)", parse_link_table)?.v)
    } else {
        if let Some(e) = t.opt("exit", parse_link_table)? {
            return fail(&e.path, "only used with one receiver per sender (receivers = senders)");
        }
        None
    };

    for i in 0..n {
        topo.add_node(format!("s{i}"), NodeKind::Host);
    }
    let router = topo.add_node("router".into(), NodeKind::Router);
    let far = match exit {
        None => topo.add_node("sink".into(), NodeKind::Host),
        Some(_) => topo.add_node("router2".into(), NodeKind::Router),
    };
    for (i, o) in per_sender.iter().enumerate() {
        topo.add_link(format!("access{i}"), i, router, &o.as_ref().unwrap_or(&access).over(&access));
    }
    topo.add_link("bottleneck".into(), router, far, &bottleneck);
    if let Some(exit) = exit {
        for i in 0..n {
            let k = topo.add_node(format!("k{i}"), NodeKind::Host);
            topo.add_link(format!("exit{i}"), far, k, &exit);
        }
    }
    Ok(())
}

/// `[[<key>]]` tables that override a template link for some of `n`
/// numbered links: which override (if any) applies to each, as the
/// override's keys laid over nothing (the caller lays them over the template).
fn parse_overrides(t: &Table, key: &str, index_key: &str, what: &str, n: usize) -> R<Vec<Option<LinkRaw>>> {
    let mut per: Vec<Option<usize>> = vec![None; n];
    let mut overrides: Vec<LinkRaw> = Vec::new();
    let Some(v) = t.get(key) else { return Ok(vec![None; n]) };
    let opath = t.at(key);
    let allowed: Vec<&str> = std::iter::once(index_key).chain(LINK_KEYS.iter().copied()).collect();
    for (k, item) in v_array(v, &opath, "tables")?.iter().enumerate() {
        let ipath = index_path(&opath, k);
        let o = table(item, &ipath)?;
        o.allow(&allowed)?;
        let spath = o.at(index_key);
        let list = v_array(
            o.required(index_key, &format!("an array of {what} indices"))?,
            &spath,
            &format!("{what} indices"),
        )?;
        if list.is_empty() {
            return fail(&spath, format!("must list at least one {what} index"));
        }
        for (j, x) in list.iter().enumerate() {
            let xpath = index_path(&spath, j);
            let s = v_int(x, &xpath, 0, n as u64 - 1)
                .map_err(|e| err(&e.path, format!("{}; there are {n} {index_key}, numbered from 0", e.message)))?
                as usize;
            if let Some(prev) = per[s] {
                let where_ = if prev == k { "earlier in this list".to_string() } else { index_path(&opath, prev) };
                return fail(&xpath, format!("{what} {s} is already overridden ({where_})"));
            }
            per[s] = Some(k);
        }
        overrides.push(parse_link_keys(&o, false)?);
    }
    Ok(per.into_iter().map(|o| o.map(|k| overrides[k].clone())).collect())
}

/// How many nodes a builder named `<prefix>0`, `<prefix>1`, …
pub(super) fn numbered(topo: &Topo, prefix: &str) -> usize {
    (0..).take_while(|i| topo.index.contains_key(&format!("{prefix}{i}"))).count()
}

/// A hub with `leaves` links to hosts `m0`…, optionally fed by a `server`
/// over an `uplink`: an access point and its mobiles (efr Fig. 1), a base
/// station (irw Fig. 2), an RNC and its UEs (eplr Fig. 4).
fn build_star(t: &Table, topo: &mut Topo) -> R<()> {
    let n = t.req("leaves", "the number of leaf hosts, 1 to 100000", |v, p| v_int(v, p, 1, MAX_SENDERS))?.v as usize;
    // The leaves hang off point-to-point links, or share one medium with the hub.
    let medium = t.get("medium");
    let leaf = match medium {
        None => Some(t.req("leaf", "a link table for every hub→leaf link (or a medium table)", parse_link_table)?.v),
        Some(_) => {
            for k in ["leaf", "leaf_override"] {
                if t.get(k).is_some() {
                    return fail(&t.at(k), "not used with a medium: the leaves share the medium (leave either out)");
                }
            }
            None
        }
    };
    let per_leaf = parse_overrides(t, "leaf_override", "leaves", "leaf", n)?;
    let uplink = t.opt("uplink", parse_link_table)?.map(|a| a.v);
    let hub = match &uplink {
        Some(up) => {
            let server = topo.add_node("server".into(), NodeKind::Host);
            let hub = topo.add_node("hub".into(), NodeKind::Router);
            topo.add_link("uplink".into(), server, hub, up);
            hub
        }
        None => topo.add_node("hub".into(), NodeKind::Host),
    };
    for (i, o) in per_leaf.iter().enumerate() {
        let m = topo.add_node(format!("m{i}"), NodeKind::Host);
        if let Some(leaf) = &leaf {
            topo.add_link(format!("leaf{i}"), hub, m, &o.as_ref().unwrap_or(leaf).over(leaf));
        }
    }
    if let Some(v) = medium {
        // The builder names the stations: the hub (the access point) and every leaf.
        let mpath = t.at("medium");
        let mut obj = table(v, &mpath)?.map.clone();
        for k in ["nodes", "access_point"] {
            if obj.contains_key(k) {
                return fail(&key_path(&mpath, k), "set by the star builder (the hub and every leaf); leave it out");
            }
        }
        let mut nodes = vec![Value::String("hub".into())];
        nodes.extend((0..n).map(|i| Value::String(format!("m{i}"))));
        obj.insert("nodes".into(), Value::Array(nodes));
        obj.insert("access_point".into(), Value::String("hub".into()));
        build_medium(&Value::Object(obj), &mpath, "wlan".into(), topo, &mut HashMap::new())?;
    }
    Ok(())
}

fn build_chain(t: &Table, topo: &mut Topo) -> R<()> {
    let hpath = t.at("hops");
    let hops = v_array(t.required("hops", "an array of link tables, one per hop")?, &hpath, "link tables")?;
    if hops.is_empty() {
        return fail(&hpath, "a chain needs at least one hop");
    }
    let mut raws = Vec::with_capacity(hops.len());
    for (i, h) in hops.iter().enumerate() {
        raws.push(parse_link_table(h, &index_path(&hpath, i))?);
    }
    let k = raws.len();
    for i in 0..=k {
        let kind = if i == 0 || i == k { NodeKind::Host } else { NodeKind::Router };
        topo.add_node(format!("n{i}"), kind);
    }
    for (i, raw) in raws.iter().enumerate() {
        topo.add_link(format!("hop{i}"), i, i + 1, raw);
    }
    Ok(())
}

fn build_custom(t: &Table, topo: &mut Topo) -> R<()> {
    let npath = t.at("nodes");
    let nodes = v_array(t.required("nodes", "an array of [[topology.nodes]] tables")?, &npath, "node tables")?;
    if nodes.is_empty() {
        return fail(&npath, "a custom topology needs at least one node");
    }
    let mut first_use: HashMap<String, String> = HashMap::new();
    for (i, item) in nodes.iter().enumerate() {
        let ipath = index_path(&npath, i);
        let n = table(item, &ipath)?;
        n.allow(NODE_KEYS)?;
        let name = n.req("name", "a unique non-empty string", v_name)?;
        let kind = n
            .opt("kind", |v, p| v_enum(v, p, &[("host", NodeKind::Host), ("router", NodeKind::Router)]))?
            .map_or(NodeKind::Host, |a| a.v);
        if let Some(prev) = first_use.get(&name.v) {
            return fail(&name.path, format!("duplicate node name {} (also used by {prev})", sq(&name.v)));
        }
        first_use.insert(name.v.clone(), ipath);
        topo.add_node(name.v, kind);
    }

    let lpath = t.at("links");
    // A shared medium may be the only connection (a wireless LAN on its own).
    let has_media = t.get("media").is_some();
    let links = match t.get("links") {
        None if has_media => &[][..],
        _ => v_array(t.required("links", "an array of [[topology.links]] tables")?, &lpath, "link tables")?,
    };
    if links.is_empty() && !has_media {
        return fail(&lpath, "a custom topology needs at least one link (or a [[topology.media]] table)");
    }
    let mut link_names: HashMap<String, String> = HashMap::new();
    for (i, item) in links.iter().enumerate() {
        let ipath = index_path(&lpath, i);
        let l = table(item, &ipath)?;
        let allowed: Vec<&str> = CUSTOM_LINK_ENDS.iter().chain(LINK_KEYS).copied().collect();
        l.allow(&allowed)?;
        let name = l.opt("name", v_name)?;
        let a = l.req("a", "the name of a node", |v, p| v_str(v, p).map(str::to_string))?;
        let b = l.req("b", "the name of a node", |v, p| v_str(v, p).map(str::to_string))?;
        let ai = topo.lookup(&a.v, &a.path)?;
        let bi = topo.lookup(&b.v, &b.path)?;
        if ai == bi {
            return fail(&b.path, format!("a link must join two different nodes, but a and b are both {}", sq(&a.v)));
        }
        let raw = parse_link_keys(&l, true)?;
        let (name, name_path) = match name {
            Some(n) => (n.v, n.path),
            None => (format!("{}-{}", a.v, b.v), ipath.clone()),
        };
        if let Some(prev) = link_names.get(&name) {
            return fail(
                &name_path,
                format!("duplicate link name {} (also used by {prev}); give one of them a 'name'", sq(&name)),
            );
        }
        link_names.insert(name.clone(), ipath);
        topo.add_link(name, ai, bi, &raw);
    }
    if let Some(v) = t.get("media") {
        build_media(v, &t.at("media"), topo)?;
    }
    Ok(())
}
