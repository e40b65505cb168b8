//! Scenario parser and validator: JSON value (or TOML text) → [`Scenario`].
//!
//! A hand-written walker over `serde_json::Value` rather than serde derive, so
//! that every error names the field path (`topology.bottleneck.rate`,
//! `flows[2].variant`), quotes the offending value and says what is allowed.
//! The format is documented key by key in `docs/scenario.md`.
//!
//! Only the first error is reported, and which one is first does not depend on
//! hash order. The walk is:
//!
//! 1. at each table, unknown keys first (in byte order of the key), then the
//!    known keys in the order the documentation lists them;
//! 2. top level: `name`, `description`, `run`, `topology`, `tcp`, `receiver`,
//!    `flows`;
//! 3. each flow in index order: its own keys, then its name (uniqueness), its
//!    endpoints (existence, host, distinct, connected), then the merged
//!    per-flow configuration (cross-field checks);
//! 4. finally the `flow` names of `droplist` error models, link by link.
//!
//! In JSON input, `null` is the same as leaving the key out.
//!
//! One job per file: [`error`] (errors, quoting) and [`value`] (typed access
//! to values, tables) serve the rest; [`toml`] turns TOML text into the
//! value walked here; [`topology`] builds the nodes and links from a link's
//! keys ([`link`], [`queue`], [`loss`]) and shared media ([`medium`]);
//! [`tcp`] reads the `[tcp]` and `[receiver]` tables, [`config`] merges and
//! cross-checks them per flow, [`flows`] walks `[[flows]]`; [`routes`] answers
//! reachability and a flow's last hop.

mod config;
mod error;
mod flows;
mod link;
mod loss;
mod medium;
mod queue;
mod routes;
mod tcp;
mod toml;
mod topology;
mod value;

use self::flows::{parse_flows, resolve_droplists};
use self::tcp::{parse_rx, parse_tcp, RxRaw, TcpRaw};
use self::topology::parse_topology;
use self::value::*;
use crate::scenario::model::*;
use serde_json::Value;

pub use self::error::{clip, quote, quote_path, ScenarioError, QUOTE_CHARS};

const TOP_KEYS: &[&str] = &["name", "description", "run", "wire", "topology", "tcp", "receiver", "flows"];
const RUN_KEYS: &[&str] = &["duration", "seed", "stop_when_done", "tie_break"];
const WIRE_KEYS: &[&str] = &["tx_time", "header"];
/// The largest `wire.header`: a frame header, not a payload.
const MAX_WIRE_HEADER: u64 = 1024;

/// Parse and validate a scenario given as a JSON value (the Python front
/// loads TOML, applies overrides and hands over JSON).
pub fn parse_scenario(v: &Value) -> Result<Scenario, ScenarioError> {
    let top = table(v, "")?;
    top.allow(TOP_KEYS)?;
    let name = top
        .opt(
            "name",
            |v, p| if matches!(v, Value::String(s) if s.is_empty()) { Ok(String::new()) } else { v_name(v, p) },
        )?
        .map_or_else(|| "scenario".to_string(), |a| a.v);
    top.opt("description", v_str)?;

    let (duration, seed, stop_when_done, tie_break) = match top.get("run") {
        None => (defaults::DURATION, defaults::SEED, true, TieBreakMode::default()),
        Some(v) => {
            let t = table(v, &top.at("run"))?;
            t.allow(RUN_KEYS)?;
            let duration = t.opt("duration", v_dur_pos)?.map_or(defaults::DURATION, |a| a.v);
            let seed = t.opt("seed", |v, p| v_int(v, p, 0, u64::MAX))?.map_or(defaults::SEED, |a| a.v);
            let stop = t.opt("stop_when_done", v_bool)?.is_none_or(|a| a.v);
            let tie_break = t
                .opt("tie_break", |v, p| {
                    v_enum(v, p, &[("shuffled", TieBreakMode::Shuffled), ("identity", TieBreakMode::Identity)])
                })?
                .map_or(TieBreakMode::default(), |a| a.v);
            (duration, seed, stop, tie_break)
        }
    };

    let wire = match top.get("wire") {
        None => WireSpec::default(),
        Some(v) => {
            let t = table(v, &top.at("wire"))?;
            t.allow(WIRE_KEYS)?;
            let tx_time = t
                .opt("tx_time", |v, p| v_enum(v, p, &[("exact", TxTime::Exact), ("per_frame", TxTime::PerFrame)]))?
                .map_or(TxTime::default(), |a| a.v);
            let header_bytes = t.opt("header", |v, p| v_size(v, p, 0, MAX_WIRE_HEADER))?.map_or(0, |a| a.v as u32);
            WireSpec { tx_time, header_bytes }
        }
    };

    let mut topo = parse_topology(
        top.required("topology", "a table with kind = \"dumbbell\", \"chain\" or \"custom\"")?,
        "topology",
    )?;

    let gtcp = match top.get("tcp") {
        None => TcpRaw::default(),
        Some(v) => parse_tcp(v, &top.at("tcp"), None)?,
    };
    let grx = match top.get("receiver") {
        None => RxRaw::default(),
        Some(v) => parse_rx(v, &top.at("receiver"), None)?,
    };

    let flows = parse_flows(top.get("flows"), &top.at("flows"), &topo, &gtcp, &grx)?;
    resolve_droplists(&mut topo, &flows)?;

    Ok(Scenario {
        name,
        duration,
        seed,
        stop_when_done,
        tie_break,
        wire,
        nodes: topo.nodes,
        links: topo.links,
        media: topo.media,
        flows,
    })
}

/// Every key the parser knows, in any table, each once: the vocabulary
/// from which the parser's property tests build documents, so a key added
/// to a table's list is exercised without another edit.
pub fn vocabulary() -> Vec<&'static str> {
    let lists: [&[&'static str]; 24] = [
        TOP_KEYS,
        RUN_KEYS,
        WIRE_KEYS,
        flows::FLOW_KEYS,
        link::LINK_KEYS,
        link::ARQ_KEYS,
        link::SNOOP_KEYS,
        link::TRACE_KEYS,
        loss::ERR_NONE_KEYS,
        loss::ERR_BERNOULLI_KEYS,
        loss::ERR_BER_KEYS,
        loss::ERR_DROPLIST_KEYS,
        loss::ERR_GE_KEYS,
        medium::MEDIUM_KEYS,
        queue::DROPTAIL_KEYS,
        queue::RED_KEYS,
        tcp::TCP_KEYS,
        tcp::RTO_KEYS,
        tcp::RX_KEYS,
        topology::DUMBBELL_KEYS,
        topology::STAR_KEYS,
        topology::CHAIN_KEYS,
        topology::CUSTOM_KEYS,
        topology::NODE_KEYS,
    ];
    let mut out: Vec<&'static str> = Vec::new();
    for k in lists.into_iter().flatten() {
        if !out.contains(k) {
            out.push(k);
        }
    }
    out
}

/// TOML text as the JSON document [`parse_scenario`] walks
/// (`scenario::document::from_toml`).
pub(crate) fn toml_document(text: &str) -> Result<Value, ScenarioError> {
    self::toml::text_to_json(text)
}

/// Parse TOML text, then [`parse_scenario`]. Syntax errors carry the line
/// and column; TOML dates and times are rejected (no key takes one).
pub fn parse_scenario_toml(text: &str) -> Result<Scenario, ScenarioError> {
    parse_scenario(&self::toml::text_to_json(text)?)
}
