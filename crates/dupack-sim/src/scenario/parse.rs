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

use super::model::*;
use super::units::Quantity;
use crate::net::packet::NodeId;
use crate::net::routing::{Routes, NO_ROUTE};
use crate::tcp::variant::parse_variant;
use crate::time::SimDuration;
use serde_json::{Map, Number, Value};
use std::collections::HashMap;
use std::fmt;

/// One validation failure: where (`path`) and what (`message`).
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioError {
    /// Dotted path of the offending key, `[i]` for array elements
    /// (`flows[1].tcp.mss`); empty when the error concerns the whole input
    /// (e.g. a TOML syntax error).
    pub path: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

type R<T> = Result<T, ScenarioError>;

/// Every message and path is made safe to print on one line here, whatever
/// its parts: control characters escaped, at most [`MAX_MESSAGE_CHARS`].
fn err(path: &str, message: impl Into<String>) -> ScenarioError {
    let message = escape_all(&message.into());
    let message = match message.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((cut, _)) => format!("{}…", &message[..cut]),
        None => message,
    };
    ScenarioError { path: escape_all(path), message }
}

fn fail<T>(path: &str, message: impl Into<String>) -> R<T> {
    Err(err(path, message))
}

// ---------------------------------------------------------------------------
// Paths, descriptions, suggestions
// ---------------------------------------------------------------------------

/// How many characters of a value an error message quotes; longer values
/// are cut there and end in "…".
pub const QUOTE_CHARS: usize = 60;

/// `s` for an error message: at most [`QUOTE_CHARS`] characters (then "…"),
/// with every character that could disturb a terminal or split the message
/// escaped: `\n`, `\r`, `\t`, `\0`, other control characters as `\x1b`,
/// invisible format characters (bidi overrides, zero-width ones) as
/// `\u{202e}`, and the backslash itself as `\\`.
pub fn clip(s: &str) -> String {
    clip_to(s, QUOTE_CHARS)
}

/// [`clip`] at `limit` characters.
fn clip_to(s: &str, limit: usize) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == limit {
            out.push('…');
            break;
        }
        escape_char(c, &mut out);
    }
    out
}

/// `s` in double quotes for an error message: [`clip`]ped, with `"` escaped.
pub fn quote(s: &str) -> String {
    format!("\"{}\"", clip(s).replace('"', "\\\""))
}

/// A file path in double quotes for an error message: escaped as by
/// [`clip`], and if longer than 160 characters cut in the middle, since
/// both the start and the file name at the end matter.
pub fn quote_path(path: &str) -> String {
    let n = path.chars().count();
    let shown = if n <= 160 {
        clip_to(path, 160)
    } else {
        let tail: String = path.chars().skip(n - 100).collect();
        format!("{}…{}", clip_to(path, 50).trim_end_matches('…'), clip_to(&tail, 100))
    };
    format!("\"{}\"", shown.replace('"', "\\\""))
}

/// `s` in single quotes for an error message (names): [`clip`]ped.
fn sq(s: &str) -> String {
    format!("'{}'", clip(s))
}

/// A message from elsewhere (the variant and unit parsers) that quotes the
/// value `s`, or parts of it, as they are: quote `s` [`clip`]ped instead,
/// and cut every other word longer than [`QUOTE_CHARS`] (a part of `s`,
/// such as an unknown unit), keeping its closing quote.
fn requote(message: &str, s: &str) -> String {
    if s.chars().count() <= QUOTE_CHARS && !s.chars().any(|c| c == '\\' || is_unprintable(c)) {
        return message.to_string();
    }
    let message = message.replace(&format!("{s:?}"), &quote(s)).replace(s, &clip(s));
    let words: Vec<String> = message
        .split(' ')
        .map(|w| {
            let n = w.chars().count();
            if n <= QUOTE_CHARS + 4 {
                return w.to_string();
            }
            let tail: String = w.chars().rev().take_while(|c| !c.is_alphanumeric()).take(3).collect();
            let tail: String = tail.chars().rev().collect();
            let head: String = w.chars().take(QUOTE_CHARS).collect();
            format!("{head}…{tail}")
        })
        .collect();
    words.join(" ")
}

/// Characters that are not shown as themselves: C0 and C1 controls, DEL,
/// and Unicode format characters that reorder or hide text.
fn is_unprintable(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{feff}')
}

fn escape_char(c: char, out: &mut String) {
    use std::fmt::Write;
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\0' => out.push_str("\\0"),
        '\\' => out.push_str("\\\\"),
        c if is_unprintable(c) && (c as u32) < 0x100 => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c if is_unprintable(c) => {
            let _ = write!(out, "\\u{{{:04x}}}", c as u32);
        }
        c => out.push(c),
    }
}

/// Escape what [`clip`] escapes (but the backslash), without shortening:
/// the last line of defence in [`err`] for text that reached a message
/// unquoted.
fn escape_all(s: &str) -> String {
    if !s.chars().any(is_unprintable) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unprintable(c) {
            escape_char(c, &mut out);
        } else {
            out.push(c);
        }
    }
    out
}

/// Longest message [`err`] lets through, in characters: values are quoted
/// shortened, so only a message that lists many long names comes near it.
const MAX_MESSAGE_CHARS: usize = 1000;

fn key_path(parent: &str, key: &str) -> String {
    let plain = !key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    let key = if !plain {
        quote(key)
    } else if key.len() > QUOTE_CHARS {
        clip(key)
    } else {
        key.to_string()
    };
    if parent.is_empty() {
        key
    } else {
        format!("{parent}.{key}")
    }
}

fn index_path(parent: &str, i: usize) -> String {
    format!("{parent}[{i}]")
}

/// "the string \"3\"", "the number 3", "a table", … for "expected X, got Y".
fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {}", quote(s)),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "a table".into(),
    }
}

/// The value as it would be written, for range errors.
fn show(v: &Value) -> String {
    match v {
        Value::String(s) => quote(s),
        other => other.to_string(),
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The closest candidate: a case-insensitive match, else the first one at
/// edit distance ≤ 2 (and shorter than the candidate itself, so that "x" does
/// not suggest "p").
fn suggest<'c>(word: &str, candidates: &[&'c str]) -> Option<&'c str> {
    if let Some(c) = candidates.iter().find(|c| c.eq_ignore_ascii_case(word)) {
        return Some(c);
    }
    // Comparing against huge lists (100 000 node names) is pointless and slow.
    if candidates.len() > 1000 {
        return None;
    }
    let mut best: Option<(usize, &'c str)> = None;
    for c in candidates {
        let d = edit_distance(word, c);
        if d <= 2 && d < c.chars().count() && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

fn did_you_mean(word: &str, candidates: &[&str]) -> String {
    match suggest(word, candidates) {
        Some(s) => format!("; did you mean {}?", sq(s)),
        None => String::new(),
    }
}

/// `a, b, c` or `a, b, … (1000 in all)`.
fn list(names: &[&str]) -> String {
    const MAX: usize = 12;
    let shown = names.iter().take(MAX).map(|n| clip(n)).collect::<Vec<_>>().join(", ");
    if names.len() <= MAX {
        shown
    } else {
        format!("{shown}, … ({} in all)", names.len())
    }
}

fn quoted_list(names: &[&str]) -> String {
    names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ")
}

/// Human form of a duration for messages: `60s`, `200ms`, `1500us`.
fn fmt_dur(d: SimDuration) -> String {
    let ns = d.as_nanos();
    if ns == 0 {
        "0s".into()
    } else if ns.is_multiple_of(1_000_000_000) {
        format!("{}s", ns / 1_000_000_000)
    } else if ns.is_multiple_of(1_000_000) {
        format!("{}ms", ns / 1_000_000)
    } else if ns.is_multiple_of(1_000) {
        format!("{}us", ns / 1_000)
    } else {
        format!("{ns}ns")
    }
}

// ---------------------------------------------------------------------------
// Typed access to values
// ---------------------------------------------------------------------------

/// A value together with the path it came from, so cross-field checks can
/// blame the key the user actually wrote.
#[derive(Clone, Debug)]
struct At<T> {
    v: T,
    path: String,
}

impl<T> At<T> {
    /// Set in a per-flow override (as opposed to the global tables).
    fn is_from_flow(&self) -> bool {
        self.path.starts_with("flows[")
    }
}

fn v_str<'a>(v: &'a Value, path: &str) -> R<&'a str> {
    match v {
        Value::String(s) => Ok(s),
        other => fail(path, format!("expected a string, got {}", describe(other))),
    }
}

fn v_nonempty_str(v: &Value, path: &str) -> R<String> {
    let s = v_str(v, path)?;
    if s.is_empty() {
        return fail(path, "must not be empty");
    }
    Ok(s.to_string())
}

/// A name (of a node, link, medium, flow or the scenario): a non-empty
/// string without control or invisible format characters, since names are
/// printed in tables and messages.
fn v_name(v: &Value, path: &str) -> R<String> {
    let s = v_nonempty_str(v, path)?;
    if let Some(c) = s.chars().find(|&c| is_unprintable(c)) {
        let mut shown = String::new();
        escape_char(c, &mut shown);
        return fail(
            path,
            format!(
                "names must not contain control characters, got {} (with {shown}); use letters, digits and punctuation",
                quote(&s)
            ),
        );
    }
    Ok(s)
}

fn v_bool(v: &Value, path: &str) -> R<bool> {
    match v {
        Value::Bool(b) => Ok(*b),
        other => fail(path, format!("expected a boolean (true or false), got {}", describe(other))),
    }
}

fn range_text(lo: u64, hi: u64) -> String {
    if hi == u64::MAX {
        format!("must be at least {lo}")
    } else {
        format!("must be between {lo} and {hi}")
    }
}

/// An integer in `lo..=hi`.
fn v_int(v: &Value, path: &str, lo: u64, hi: u64) -> R<u64> {
    let Value::Number(n) = v else {
        return fail(path, format!("expected an integer, got {}", describe(v)));
    };
    if let Some(u) = n.as_u64() {
        if (lo..=hi).contains(&u) {
            return Ok(u);
        }
    } else if n.as_i64().is_none() {
        // JSON integers beyond 64 bits arrive as floats: 2^64 is read as
        // 1.8446744073709552e19. A whole number that large was an integer
        // out of range, not a fraction.
        return match n.as_f64() {
            Some(f) if f.is_finite() && f.fract() == 0.0 && f.abs() >= 9.2e18 => {
                let sign = if f < 0.0 { "negative" } else { "positive" };
                fail(path, format!("{}, got a {sign} integer too large for 64 bits ({n})", range_text(lo, hi)))
            }
            _ => fail(path, format!("expected an integer, got the number {n}")),
        };
    }
    fail(path, format!("{}, got {n}", range_text(lo, hi)))
}

fn v_u32(v: &Value, path: &str, lo: u32, hi: u32) -> R<u32> {
    let x = v_int(v, path, u64::from(lo), u64::from(hi))?;
    Ok(u32::try_from(x).unwrap_or(hi))
}

/// A probability: a number in [0, 1].
fn v_prob(v: &Value, path: &str) -> R<f64> {
    let Value::Number(n) = v else {
        return fail(path, format!("expected a number between 0 and 1, got {}", describe(v)));
    };
    match n.as_f64() {
        Some(p) if (0.0..=1.0).contains(&p) => Ok(p),
        _ => fail(path, format!("must be between 0 and 1, got {n}")),
    }
}

fn v_enum<T: Copy>(v: &Value, path: &str, choices: &[(&str, T)]) -> R<T> {
    let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
    let Value::String(s) = v else {
        return fail(path, format!("expected one of {}, got {}", quoted_list(&names), describe(v)));
    };
    if let Some((_, t)) = choices.iter().find(|(n, _)| n == s) {
        return Ok(*t);
    }
    let hint = match suggest(s, &names) {
        Some(m) => format!("; did you mean {m:?}?"),
        None => String::new(),
    };
    fail(path, format!("unknown value {}{hint}; allowed: {}", quote(s), quoted_list(&names)))
}

fn v_qty(v: &Value, path: &str, q: Quantity) -> R<u64> {
    match v {
        Value::String(s) => q.parse(s).map_err(|m| err(path, requote(&m, s))),
        Value::Number(n) => fail(path, q.bare_number_hint(&n.to_string())),
        other => fail(path, format!("expected {}, got {}", q.expected(), describe(other))),
    }
}

fn v_dur(v: &Value, path: &str) -> R<SimDuration> {
    v_qty(v, path, Quantity::Duration).map(SimDuration::from_nanos)
}

fn v_dur_pos(v: &Value, path: &str) -> R<SimDuration> {
    let d = v_dur(v, path)?;
    if d == SimDuration::ZERO {
        return fail(path, format!("must be greater than 0, got {}", show(v)));
    }
    Ok(d)
}

fn v_rate_pos(v: &Value, path: &str) -> R<u64> {
    let r = v_qty(v, path, Quantity::Rate)?;
    if r == 0 {
        return fail(path, format!("must be greater than 0, got {}", show(v)));
    }
    Ok(r)
}

/// A size in `lo..=hi` bytes.
fn v_size(v: &Value, path: &str, lo: u64, hi: u64) -> R<u64> {
    let s = v_qty(v, path, Quantity::Size)?;
    if !(lo..=hi).contains(&s) {
        let range = if hi == u64::MAX {
            format!("must be at least {lo} bytes")
        } else {
            format!("must be between {lo} and {hi} bytes")
        };
        return fail(path, format!("{range}, got {} ({s} bytes)", show(v)));
    }
    Ok(s)
}

fn v_array<'a>(v: &'a Value, path: &str, what: &str) -> R<&'a Vec<Value>> {
    match v {
        Value::Array(a) => Ok(a),
        other => fail(path, format!("expected an array of {what}, got {}", describe(other))),
    }
}

/// A table being walked.
struct Table<'a> {
    map: &'a Map<String, Value>,
    path: String,
}

fn table<'a>(v: &'a Value, path: &str) -> R<Table<'a>> {
    match v {
        Value::Object(map) => Ok(Table { map, path: path.to_string() }),
        other if path.is_empty() => fail(path, format!("expected a table at the top level, got {}", describe(other))),
        other => fail(path, format!("expected a table, got {}", describe(other))),
    }
}

impl<'a> Table<'a> {
    fn at(&self, key: &str) -> String {
        key_path(&self.path, key)
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    fn required(&self, key: &str, what: &str) -> R<&'a Value> {
        self.get(key).ok_or_else(|| err(&self.at(key), format!("missing required key '{key}' ({what})")))
    }

    /// Apply `f` to the value of `key` if present.
    fn opt<T>(&self, key: &str, f: impl FnOnce(&'a Value, &str) -> R<T>) -> R<Option<At<T>>> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => {
                let path = self.at(key);
                let x = f(v, &path)?;
                Ok(Some(At { v: x, path }))
            }
        }
    }

    fn req<T>(&self, key: &str, what: &str, f: impl FnOnce(&'a Value, &str) -> R<T>) -> R<At<T>> {
        let v = self.required(key, what)?;
        let path = self.at(key);
        let x = f(v, &path)?;
        Ok(At { v: x, path })
    }

    /// Reject keys outside `allowed`, in byte order of the key.
    fn allow(&self, allowed: &[&str]) -> R<()> {
        self.allow_explained(allowed, |_| None)
    }

    /// Like [`Table::allow`]; `explain` may say why a key is not allowed here
    /// (e.g. it belongs to another topology kind).
    fn allow_explained(&self, allowed: &[&str], explain: impl Fn(&str) -> Option<String>) -> R<()> {
        // serde_json's map is ordered by key; do not rely on it.
        let mut keys: Vec<&String> = self.map.keys().collect();
        keys.sort();
        for k in keys {
            if !allowed.contains(&k.as_str()) {
                let head = explain(k).unwrap_or_else(|| format!("unknown key {}", sq(k)));
                return fail(
                    &self.at(k),
                    format!("{head}{}; allowed keys here: {}", did_you_mean(k, allowed), allowed.join(", ")),
                );
            }
        }
        Ok(())
    }
}

/// Explanation for a key that is valid in a sibling variant of this table.
fn belongs_elsewhere(key: &str, what: &str, current: &str, variants: &[(&str, &[&str])]) -> Option<String> {
    variants
        .iter()
        .find(|(name, keys)| *name != current && keys.contains(&key))
        .map(|(name, _)| format!("key {} belongs to {what} {name:?}, not {}", sq(key), quote(current)))
}

// ---------------------------------------------------------------------------
// Top level
// ---------------------------------------------------------------------------

const TOP_KEYS: &[&str] = &["name", "description", "run", "topology", "tcp", "receiver", "flows"];
const RUN_KEYS: &[&str] = &["duration", "seed", "stop_when_done", "tie_break"];

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
        nodes: topo.nodes,
        links: topo.links,
        media: topo.media,
        flows,
    })
}

/// Parse TOML text, then [`parse_scenario`]. Syntax errors carry the line
/// and column; TOML dates and times are rejected (no key takes one).
pub fn parse_scenario_toml(text: &str) -> Result<Scenario, ScenarioError> {
    let table: toml::Table = toml::from_str(text).map_err(|e| toml_syntax_error(text, &e))?;
    let v = toml_to_json(&toml::Value::Table(table), "")?;
    parse_scenario(&v)
}

fn toml_syntax_error(text: &str, e: &toml::de::Error) -> ScenarioError {
    // toml's message may span lines ("invalid array\nexpected `]`").
    let msg = e.message().lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("; ");
    match e.span().and_then(|s| text.get(..s.start)) {
        Some(before) => {
            let line = before.matches('\n').count() + 1;
            let line_start = before.rfind('\n').map_or(0, |i| i + 1);
            let column = before[line_start..].chars().count() + 1;
            err("", format!("TOML syntax error at line {line}, column {column}: {msg}"))
        }
        None => err("", format!("TOML syntax error: {msg}")),
    }
}

fn toml_to_json(v: &toml::Value, path: &str) -> R<Value> {
    Ok(match v {
        toml::Value::String(s) => Value::String(s.clone()),
        toml::Value::Integer(i) => Value::Number(Number::from(*i)),
        toml::Value::Float(f) => match Number::from_f64(*f) {
            Some(n) => Value::Number(n),
            None => return fail(path, format!("expected a finite number, got {f}")),
        },
        toml::Value::Boolean(b) => Value::Bool(*b),
        toml::Value::Datetime(d) => {
            return fail(
                path,
                format!(
                    "TOML dates and times are not used in scenarios, got {d}; durations are strings such as \"30s\""
                ),
            )
        }
        toml::Value::Array(a) => {
            let mut out = Vec::with_capacity(a.len());
            for (i, x) in a.iter().enumerate() {
                out.push(toml_to_json(x, &index_path(path, i))?);
            }
            Value::Array(out)
        }
        toml::Value::Table(t) => {
            let mut out = Map::new();
            for (k, x) in t {
                out.insert(k.clone(), toml_to_json(x, &key_path(path, k))?);
            }
            Value::Object(out)
        }
    })
}

// ---------------------------------------------------------------------------
// Topology
// ---------------------------------------------------------------------------

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum TopoKind {
    Dumbbell,
    Chain,
    Star,
    Custom,
}

const LINK_KEYS: &[&str] = &[
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
const DUMBBELL_KEYS: &[&str] = &["kind", "senders", "access", "bottleneck", "access_override", "receivers", "exit"];
const STAR_KEYS: &[&str] = &["kind", "leaves", "leaf", "leaf_override", "uplink", "medium"];
const CHAIN_KEYS: &[&str] = &["kind", "hops"];
const CUSTOM_KEYS: &[&str] = &["kind", "nodes", "links", "media"];
/// A custom topology's link: its name and ends, then a link's own keys.
const CUSTOM_LINK_ENDS: [&str; 3] = ["name", "a", "b"];
const ARQ_KEYS: &[&str] =
    &["preset", "directions", "retry_limit", "nak_bytes", "in_order", "nak_timeout", "window", "discard", "poll"];
const SNOOP_KEYS: &[&str] = &["min_timeout", "initial_timeout", "local_rexmit"];
const TRACE_KEYS: &[&str] = &["file", "mtu"];
const NODE_KEYS: &[&str] = &["name", "kind"];
const DROPTAIL_KEYS: &[&str] = &["kind", "limit_packets", "limit_bytes"];
const RED_KEYS: &[&str] = &[
    "kind",
    "min_th",
    "max_th",
    "limit_packets",
    "maxp",
    "wq",
    "gentle",
    "ecn",
    "mark_above_max_th",
    "mean_packet_size",
    "rules",
];
const MEDIUM_KEYS: &[&str] = &[
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
/// Queue lengths in packets: thresholds and limits.
const MAX_QUEUE_PACKETS: u32 = 1_000_000;
const MAX_SENDERS: u64 = 100_000;

struct Topo {
    kind: TopoKind,
    nodes: Vec<NodeSpec>,
    links: Vec<LinkSpec>,
    media: Vec<MediumSpec>,
    index: HashMap<String, usize>,
    /// Droplist error models whose flow name is resolved once flows are known.
    drops: Vec<PendingDrop>,
}

struct PendingDrop {
    link: usize,
    fwd: bool,
    flow: At<String>,
}

/// Link keys as written; `None` = not given here.
#[derive(Clone, Default)]
struct LinkRaw {
    rate: Option<u64>,
    delay: Option<SimDuration>,
    queue: Option<QueueSpec>,
    fwd_error: Option<ErrRaw>,
    rev_error: Option<ErrRaw>,
    fwd_jitter: Option<SimDuration>,
    rev_jitter: Option<SimDuration>,
    fwd_trace: Option<TraceSpec>,
    rev_trace: Option<TraceSpec>,
    arq: Option<ArqRaw>,
    snoop: Option<SnoopRaw>,
}

/// `arq` as written: `nak_timeout = None` means "auto" (resolved per link).
#[derive(Clone)]
struct ArqRaw {
    spec: ArqSpec,
    nak_timeout: Option<SimDuration>,
}

/// `snoop` as written; `None` = the default for the link (`auto`).
#[derive(Clone)]
struct SnoopRaw {
    min_timeout: Option<SimDuration>,
    initial_timeout: Option<SimDuration>,
    local_rexmit: LocalRexmit,
}

impl LinkRaw {
    /// `self` over `base`, key by key (tables are replaced, not merged).
    /// A rate is dropped when both directions end up traced: nothing uses it.
    fn over(&self, base: &LinkRaw) -> LinkRaw {
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

#[derive(Clone)]
struct ErrRaw {
    /// For droplist, `flow` is a placeholder until resolved.
    spec: ErrorSpec,
    drop_flow: Option<At<String>>,
}

fn parse_topology(v: &Value, path: &str) -> R<Topo> {
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

    fn lookup(&self, name: &str, path: &str) -> R<usize> {
        match self.index.get(name) {
            Some(&i) => Ok(i),
            None => {
                let names = self.node_names();
                fail(path, format!("no node named {}{}; nodes: {}", sq(name), did_you_mean(name, &names), list(&names)))
            }
        }
    }
}

/// The link keys of `t` (the caller has checked which keys are allowed).
fn parse_link_keys(t: &Table, required: bool) -> R<LinkRaw> {
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

fn parse_link_table(v: &Value, path: &str) -> R<LinkRaw> {
    let t = table(v, path)?;
    t.allow(LINK_KEYS)?;
    parse_link_keys(&t, true)
}

fn parse_queue(v: &Value, path: &str) -> R<QueueSpec> {
    #[derive(Copy, Clone)]
    enum K {
        DropTail,
        Red,
    }
    let t = table(v, path)?;
    let kind =
        t.opt("kind", |v, p| v_enum(v, p, &[("droptail", K::DropTail), ("red", K::Red)]))?.map_or(K::DropTail, |a| a.v);
    let kinds: [(&str, &[&str]); 2] = [("droptail", DROPTAIL_KEYS), ("red", RED_KEYS)];
    let (kname, keys) = match kind {
        K::DropTail => kinds[0],
        K::Red => kinds[1],
    };
    t.allow_explained(keys, |k| belongs_elsewhere(k, "queue kind", kname, &kinds))?;
    if let K::Red = kind {
        return parse_red(&t).map(QueueSpec::Red);
    }
    let packets = t.opt("limit_packets", |v, p| v_u32(v, p, 1, MAX_QUEUE_PACKETS))?;
    let bytes = t.opt("limit_bytes", |v, p| v_size(v, p, 1, u64::MAX))?;
    let limit = match (packets, bytes) {
        (Some(_), Some(b)) => return fail(&b.path, "give either limit_packets or limit_bytes, not both"),
        (Some(p), None) => QueueLimit::Packets(p.v),
        (None, Some(b)) => QueueLimit::Bytes(b.v),
        (None, None) => defaults::QUEUE_LIMIT,
    };
    Ok(QueueSpec::DropTail { limit })
}

/// A number in (0, 1].
fn v_frac_pos(v: &Value, path: &str) -> R<f64> {
    let Value::Number(n) = v else {
        return fail(path, format!("expected a number greater than 0 and at most 1, got {}", describe(v)));
    };
    match n.as_f64() {
        Some(x) if x > 0.0 && x <= 1.0 => Ok(x),
        _ => fail(path, format!("must be greater than 0 and at most 1, got {n}")),
    }
}

/// The keys of a `kind = "red"` queue table (already checked against
/// [`RED_KEYS`]), in the documented order, then `min_th < max_th ≤ limit_packets`.
fn parse_red(t: &Table) -> R<RedSpec> {
    let d = RedSpec::default();
    let min_th = t.opt("min_th", |v, p| v_u32(v, p, 0, MAX_QUEUE_PACKETS - 1))?;
    let max_th = t.opt("max_th", |v, p| v_u32(v, p, 1, MAX_QUEUE_PACKETS))?;
    let limit = t.opt("limit_packets", |v, p| v_u32(v, p, 1, MAX_QUEUE_PACKETS))?;
    let maxp = t.opt("maxp", v_frac_pos)?.map_or(d.maxp, |a| a.v);
    let wq = t.opt("wq", v_frac_pos)?.map_or(d.wq, |a| a.v);
    let gentle = t.opt("gentle", v_bool)?.map_or(d.gentle, |a| a.v);
    let ecn = t.opt("ecn", v_bool)?.map_or(d.ecn, |a| a.v);
    let mark_above = t.opt("mark_above_max_th", v_bool)?;
    let mean = t.opt("mean_packet_size", |v, p| v_size(v, p, 1, 65_535))?.map_or(d.mean_packet_size, |a| a.v as u32);
    let rules =
        t.opt("rules", |v, p| v_enum(v, p, &[("paper", RedRules::Paper), ("ns2", RedRules::Ns2)]))?.map_or(d.rules, |a| a.v);
    if let Some(m) = &mark_above {
        if m.v && !ecn {
            return fail(&m.path, "mark_above_max_th = true needs ecn = true (without ECN nothing is marked)");
        }
    }
    // (value, path, "key (value)" or "key (value, the default)")
    let show_at = |a: &Option<At<u32>>, key: &str, dflt: u32| match a {
        Some(a) => (a.v, a.path.clone(), format!("{key} ({})", a.v)),
        None => (dflt, t.at(key), format!("{key} ({dflt}, the default)")),
    };
    let (lo, lo_path, lo_name) = show_at(&min_th, "min_th", d.min_th);
    let (hi, hi_path, hi_name) = show_at(&max_th, "max_th", d.max_th);
    let (lim, _, lim_name) = show_at(&limit, "limit_packets", d.limit_packets);
    if lo >= hi {
        // Blame a key that was written: max_th if given, else min_th.
        return match (&max_th, &min_th) {
            (Some(_), _) => fail(&hi_path, format!("must be greater than {lo_name}, got {hi}")),
            _ => fail(&lo_path, format!("must be less than {hi_name}, got {lo}")),
        };
    }
    if hi > lim {
        return match &limit {
            Some(l) => fail(&l.path, format!("must be at least {hi_name}, got {lim}")),
            None => fail(&hi_path, format!("must be at most {lim_name}, got {hi}")),
        };
    }
    Ok(RedSpec {
        min_th: lo,
        max_th: hi,
        limit_packets: lim,
        maxp,
        wq,
        gentle,
        ecn,
        mark_above_max_th: mark_above.is_some_and(|a| a.v),
        mean_packet_size: mean,
        rules,
    })
}

const ERR_NONE_KEYS: &[&str] = &["model"];
const ERR_BERNOULLI_KEYS: &[&str] = &["model", "p", "applies_to"];
const ERR_BER_KEYS: &[&str] = &["model", "ber", "applies_to"];
const ERR_DROPLIST_KEYS: &[&str] = &["model", "flow", "packets", "applies_to"];
const ERR_GE_KEYS: &[&str] =
    &["model", "p_good", "p_bad", "p_gb", "p_bg", "mean_good_packets", "mean_bad_packets", "applies_to"];

fn parse_error_model(v: &Value, path: &str) -> R<ErrRaw> {
    #[derive(Copy, Clone)]
    enum M {
        None,
        Bernoulli,
        Ber,
        DropList,
        GilbertElliott,
    }
    let t = table(v, path)?;
    let model = t
        .req("model", "\"none\", \"bernoulli\", \"ber\", \"droplist\" or \"gilbert_elliott\"", |v, p| {
            v_enum(
                v,
                p,
                &[
                    ("none", M::None),
                    ("bernoulli", M::Bernoulli),
                    ("ber", M::Ber),
                    ("droplist", M::DropList),
                    ("gilbert_elliott", M::GilbertElliott),
                ],
            )
        })?
        .v;
    let models: [(&str, &[&str]); 5] = [
        ("none", ERR_NONE_KEYS),
        ("bernoulli", ERR_BERNOULLI_KEYS),
        ("ber", ERR_BER_KEYS),
        ("droplist", ERR_DROPLIST_KEYS),
        ("gilbert_elliott", ERR_GE_KEYS),
    ];
    let (mname, keys) = match model {
        M::None => models[0],
        M::Bernoulli => models[1],
        M::Ber => models[2],
        M::DropList => models[3],
        M::GilbertElliott => models[4],
    };
    t.allow_explained(keys, |k| belongs_elsewhere(k, "model", mname, &models))?;
    let mut drop_flow = None;
    let spec = match model {
        M::None => ErrorModelSpec::None,
        M::Bernoulli => ErrorModelSpec::Bernoulli { p: t.req("p", "a probability between 0 and 1", v_prob)?.v },
        M::Ber => ErrorModelSpec::Ber { ber: t.req("ber", "a bit error rate between 0 and 1", v_prob)?.v },
        M::DropList => {
            drop_flow = Some(t.req("flow", "the name of a flow", |v, p| v_str(v, p).map(str::to_string))?);
            let packets = t.req("packets", "an array of packet numbers, 1 = the first", |v, p| {
                let a = v_array(v, p, "packet numbers")?;
                if a.is_empty() {
                    return fail(p, "must list at least one packet number");
                }
                let mut out = Vec::with_capacity(a.len());
                for (i, x) in a.iter().enumerate() {
                    out.push(v_int(x, &index_path(p, i), 1, u64::MAX)?);
                }
                out.sort_unstable();
                out.dedup();
                Ok(out)
            })?;
            ErrorModelSpec::DropList { flow: usize::MAX, packets: packets.v }
        }
        M::GilbertElliott => ErrorModelSpec::GilbertElliott(parse_gilbert_elliott(&t)?),
    };
    let applies_to = match model {
        M::None => PacketSelector::All,
        _ => t
            .opt("applies_to", |v, p| {
                v_enum(
                    v,
                    p,
                    &[("data", PacketSelector::Data), ("acks", PacketSelector::Acks), ("all", PacketSelector::All)],
                )
            })?
            .map_or(PacketSelector::Data, |a| a.v),
    };
    Ok(ErrRaw { spec: ErrorSpec { model: spec, applies_to }, drop_flow })
}

/// A mean number of packets: a finite number ≥ 1.
fn v_mean_packets(v: &Value, path: &str) -> R<f64> {
    let Value::Number(n) = v else {
        return fail(path, format!("expected a number of packets (at least 1), got {}", describe(v)));
    };
    match n.as_f64() {
        Some(x) if x >= 1.0 && x.is_finite() => Ok(x),
        _ => fail(path, format!("must be at least 1 (a mean number of packets), got {n}")),
    }
}

/// The keys of a `model = "gilbert_elliott"` table in the documented order:
/// `p_good`, `p_bad`, then the transitions either as `p_gb` and `p_bg` or as
/// `mean_good_packets` (= 1/`p_gb`) and `mean_bad_packets` (= 1/`p_bg`).
fn parse_gilbert_elliott(t: &Table) -> R<GilbertElliottSpec> {
    let p_good = t.opt("p_good", v_prob)?.map_or(defaults::GE_P_GOOD, |a| a.v);
    let p_bad = t.opt("p_bad", v_prob)?.map_or(defaults::GE_P_BAD, |a| a.v);
    let p_gb = t.opt("p_gb", v_prob)?;
    let p_bg = t.opt("p_bg", v_prob)?;
    let mean_good = t.opt("mean_good_packets", v_mean_packets)?;
    let mean_bad = t.opt("mean_bad_packets", v_mean_packets)?;
    let either = "give either p_gb and p_bg (transition probabilities) or mean_good_packets and \
                  mean_bad_packets (mean stays in each state), not both";
    let probs_given = p_gb.as_ref().or(p_bg.as_ref()).map(|a| a.path.clone());
    if let (Some(first), Some(m)) = (probs_given, mean_good.as_ref().or(mean_bad.as_ref())) {
        return fail(&m.path, format!("{either}; {first} is given too"));
    }
    // A pair given by half: name the missing partner.
    let partner = |given: &str, missing: &str, what: &str| {
        fail(&t.at(missing), format!("missing required key '{missing}' ({what}; {given} is given)"))
    };
    let (p_gb, p_bg) = match (p_gb, p_bg, mean_good, mean_bad) {
        (Some(gb), Some(bg), _, _) => (gb.v, bg.v),
        (Some(_), None, _, _) => return partner("p_gb", "p_bg", "the Bad→Good probability, between 0 and 1"),
        (None, Some(_), _, _) => return partner("p_bg", "p_gb", "the Good→Bad probability, between 0 and 1"),
        (None, None, Some(g), Some(b)) => (1.0 / g.v, 1.0 / b.v),
        (None, None, Some(_), None) => {
            return partner("mean_good_packets", "mean_bad_packets", "mean packets per stay in Bad, at least 1")
        }
        (None, None, None, Some(_)) => {
            return partner("mean_bad_packets", "mean_good_packets", "mean packets per stay in Good, at least 1")
        }
        (None, None, None, None) => {
            return fail(
                &t.at("p_gb"),
                "missing the transitions: give p_gb and p_bg (probabilities between 0 and 1) or \
                 mean_good_packets and mean_bad_packets (at least 1)",
            )
        }
    };
    Ok(GilbertElliottSpec { p_good, p_bad, p_gb, p_bg })
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
fn numbered(topo: &Topo, prefix: &str) -> usize {
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

/// `[[topology.media]]`: shared media (`net::medium`). Defaults are
/// [`MediumSpec::wavelan`]'s.
fn build_media(v: &Value, path: &str, topo: &mut Topo) -> R<()> {
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
fn build_medium(
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

/// Connected component of every node (links are full duplex).
fn components(topo: &Topo) -> Vec<usize> {
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let mut parent: Vec<usize> = (0..topo.nodes.len()).collect();
    let pairs = topo.links.iter().map(|l| (l.a, l.b));
    // Every station of a medium reaches its first one (directly or via the access point).
    let media = topo.media.iter().flat_map(|m| m.stations.iter().map(|&s| (m.stations[0], s)));
    for (a, b) in pairs.chain(media) {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        parent[ra.max(rb)] = ra.min(rb);
    }
    (0..parent.len()).map(|x| find(&mut parent, x)).collect()
}

fn resolve_droplists(topo: &mut Topo, flows: &[FlowSpec]) -> R<()> {
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

// ---------------------------------------------------------------------------
// Sender and receiver configuration
// ---------------------------------------------------------------------------

const TCP_KEYS: &[&str] = &[
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
    "ca_increase",
    "loss_ssthresh",
    "overhead",
    "rto",
];
const RTO_KEYS: &[&str] =
    &["timer", "granularity", "tick", "clock_phase", "initial", "min", "max", "max_backoff_shift"];
const RX_KEYS: &[&str] =
    &["window", "ack", "delack_timeout", "delack_every", "sack", "max_sack_blocks", "dsack", "dda"];
/// What `receiver.dda` accepts, for its error messages.
const DDA_ALLOWED: &str = "allowed: a duration greater than 0 such as \"40ms\", or \"auto\"";
const MAX_MSS: u64 = 65_495;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Timer {
    Fine,
    Coarse,
    Ns2,
}

impl Timer {
    fn name(self) -> &'static str {
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
struct TcpRaw {
    variant: Option<At<String>>,
    mss: Option<At<u64>>,
    initial_window: Option<At<u32>>,
    initial_ssthresh: Option<At<u64>>,
    max_cwnd: Option<At<u64>>,
    dupthresh: Option<At<u32>>,
    efr_min_dupthresh: Option<At<u32>>,
    eplr_retransmit: Option<At<EplrRetransmit>>,
    undo_evidence: Option<At<UndoEvidence>>,
    timestamps: Option<At<bool>>,
    reno_avoid_multiple_fr: Option<At<bool>>,
    newreno_full_ack: Option<At<FullAckRule>>,
    ca_increase: Option<At<CaIncrease>>,
    loss_ssthresh: Option<At<LossSsthresh>>,
    newreno_rto_reset: Option<At<PartialAckRtoReset>>,
    overhead: Option<At<SimDuration>>,
    timer: Option<At<Timer>>,
    granularity: Option<At<SimDuration>>,
    tick: Option<At<SimDuration>>,
    clock_phase: Option<At<SimDuration>>,
    rto_initial: Option<At<SimDuration>>,
    rto_min: Option<At<SimDuration>>,
    rto_max: Option<At<SimDuration>>,
    max_backoff_shift: Option<At<u32>>,
}

/// `[receiver]` keys as written, global or per flow.
#[derive(Clone, Default)]
struct RxRaw {
    window: Option<At<u64>>,
    ack: Option<At<AckKind>>,
    delack_timeout: Option<At<SimDuration>>,
    delack_every: Option<At<u32>>,
    sack: Option<At<SackSetting>>,
    max_sack_blocks: Option<At<u32>>,
    dsack: Option<At<bool>>,
    dda: Option<At<DdaSetting>>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum DdaSetting {
    /// One round trip of the flow's last link (see [`dda_auto`]).
    Auto,
    Fixed(SimDuration),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum AckKind {
    Every,
    Delayed,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum SackSetting {
    On,
    Off,
    Auto,
}

fn v_variant(v: &Value, path: &str) -> R<String> {
    let s = v_str(v, path)?;
    parse_variant(s).map_err(|e| err(path, requote(&e.0, s)))?;
    Ok(s.to_string())
}

/// Parse a `[tcp]` table. `global` is the global table when parsing a flow's
/// override: mode-specific keys are checked against the timer in effect at
/// this level.
fn parse_tcp(v: &Value, path: &str, global: Option<&TcpRaw>) -> R<TcpRaw> {
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
            v_enum(v, p, &[("flightsize", LossSsthresh::FlightSize), ("window", LossSsthresh::Window)])
        })?,
        newreno_rto_reset: t.opt("newreno_rto_reset", |v, p| {
            v_enum(v, p, &[("first", PartialAckRtoReset::First), ("every", PartialAckRtoReset::Every)])
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
        let timer = r.timer.as_ref().or(global.and_then(|g| g.timer.as_ref())).map_or(Timer::Fine, |a| a.v);
        for (key, timers) in Timer::SPECIFIC {
            let given = match key {
                "granularity" => r.granularity.as_ref().map(|a| &a.path),
                "tick" => r.tick.as_ref().map(|a| &a.path),
                _ => r.clock_phase.as_ref().map(|a| &a.path),
            };
            if let (Some(p), false) = (given, timers.contains(&timer)) {
                let needs: Vec<String> = timers.iter().map(|t| format!("\"{}\"", t.name())).collect();
                let own: Vec<&str> = Timer::SPECIFIC
                    .iter()
                    .filter(|(_, ts)| ts.contains(&timer))
                    .map(|(k, _)| *k)
                    .collect();
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

fn parse_rx(v: &Value, path: &str, global: Option<&RxRaw>) -> R<RxRaw> {
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

/// A link or a medium, as the last hop of a flow: its name and one-way delay.
struct Hop<'a> {
    name: &'a str,
    delay: SimDuration,
}

/// The link (or medium) that carries a flow's data into its receiver: the
/// last hop of the route from `src` to `dst`, found with the engine's own
/// routing (so ties go the way the packets will). `routes` caches one table
/// per `dst`.
fn last_hop_link<'a>(topo: &'a Topo, routes: &mut HashMap<usize, Routes>, src: usize, dst: usize) -> Option<Hop<'a>> {
    // Edges as the engine numbers them: link i is 2i (a→b) and 2i+1 (b→a),
    // then each medium's hops.
    let mut ends: Vec<(NodeId, NodeId)> =
        topo.links.iter().flat_map(|l| [(l.a as NodeId, l.b as NodeId), (l.b as NodeId, l.a as NodeId)]).collect();
    let mut medium_of = Vec::new();
    for (m, spec) in topo.media.iter().enumerate() {
        let stations: Vec<NodeId> = spec.stations.iter().map(|&s| s as NodeId).collect();
        let hops = crate::net::medium::hops(&stations, spec.access_point.map(|a| a as NodeId));
        medium_of.extend(std::iter::repeat_n(m, hops.len()));
        ends.extend(hops);
    }
    let r = routes.entry(dst).or_insert_with(|| Routes::compute(topo.nodes.len(), &ends, &[dst as NodeId]));
    let mut node = src as NodeId;
    for _ in 0..topo.nodes.len() {
        let c = r.next_hop(node, dst as NodeId);
        if c == NO_ROUTE {
            return None;
        }
        node = ends[c as usize].1;
        if node as usize == dst {
            let c = c as usize;
            return Some(match c.checked_sub(2 * topo.links.len()) {
                None => Hop { name: &topo.links[c / 2].name, delay: topo.links[c / 2].delay },
                Some(h) => {
                    let m = &topo.media[medium_of[h]];
                    Hop { name: &m.name, delay: m.delay }
                }
            });
        }
    }
    None
}

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
fn resolve_config<'a>(
    g: &TcpRaw,
    f: &TcpRaw,
    grx: &RxRaw,
    frx: &RxRaw,
    variant: &At<String>,
    flow_name: &str,
    last_hop: impl FnOnce() -> Result<Hop<'a>, String>,
) -> R<(TcpConfig, ReceiverConfig)> {
    let d = TcpConfig::default();
    let cross = |path: String, msg: String| -> ScenarioError {
        if path.starts_with("flows[") {
            err(&path, msg)
        } else {
            err(&path, format!("{msg} (for flow {})", sq(flow_name)))
        }
    };

    let mss = pick(&f.mss, &g.mss);
    let mss_v = mss.map_or(u64::from(d.mss), |a| a.v);
    let max_cwnd = pick(&f.max_cwnd, &g.max_cwnd);
    if let Some(mc) = max_cwnd {
        if mc.v < mss_v {
            return Err(cross(
                blame(Some(mc), mss),
                format!("max_cwnd ({} bytes) is smaller than mss ({mss_v} bytes)", mc.v),
            ));
        }
    }

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
        return Err(cross(
            blame(max, min),
            format!("rto min ({}) is larger than rto max ({max_text}); min must not exceed max", fmt_dur(min_v)),
        ));
    }

    let timestamps = pick(&f.timestamps, &g.timestamps);
    let tcp = TcpConfig {
        mss: u32::try_from(mss_v).unwrap_or(d.mss),
        initial_window: pick(&f.initial_window, &g.initial_window).map_or(d.initial_window, |a| a.v),
        initial_ssthresh: pick(&f.initial_ssthresh, &g.initial_ssthresh).map_or(u64::MAX, |a| a.v),
        max_cwnd: max_cwnd.map_or(u64::MAX, |a| a.v),
        dupthresh: pick(&f.dupthresh, &g.dupthresh).map_or(d.dupthresh, |a| a.v),
        efr_min_dupthresh: pick(&f.efr_min_dupthresh, &g.efr_min_dupthresh).map_or(d.efr_min_dupthresh, |a| a.v),
        eplr_retransmit: pick(&f.eplr_retransmit, &g.eplr_retransmit).map_or(d.eplr_retransmit, |a| a.v),
        undo_evidence: pick(&f.undo_evidence, &g.undo_evidence).map_or(d.undo_evidence, |a| a.v),
        timestamps: timestamps.is_some_and(|a| a.v),
        rto: RtoConfig {
            mode,
            initial: pick(&f.rto_initial, &g.rto_initial).map_or(defaults::RTO_INITIAL, |a| a.v),
            min: min_v,
            max: max_v,
            max_backoff_shift: pick(&f.max_backoff_shift, &g.max_backoff_shift)
                .map_or(defaults::MAX_BACKOFF_SHIFT, |a| a.v),
        },
        reno_avoid_multiple_fr: pick(&f.reno_avoid_multiple_fr, &g.reno_avoid_multiple_fr).is_none_or(|a| a.v),
        newreno_full_ack: pick(&f.newreno_full_ack, &g.newreno_full_ack).map_or(d.newreno_full_ack, |a| a.v),
        ca_increase: pick(&f.ca_increase, &g.ca_increase).map_or(d.ca_increase, |a| a.v),
        loss_ssthresh: pick(&f.loss_ssthresh, &g.loss_ssthresh).map_or(d.loss_ssthresh, |a| a.v),
        newreno_rto_reset: pick(&f.newreno_rto_reset, &g.newreno_rto_reset).map_or(d.newreno_rto_reset, |a| a.v),
        overhead: pick(&f.overhead, &g.overhead).map_or(d.overhead, |a| a.v),
    };

    // Receiver.
    let window = pick(&frx.window, &grx.window);
    let window_v = window.map_or(defaults::RECEIVER_WINDOW, |a| a.v);
    if window_v < mss_v {
        return Err(cross(
            blame(window, mss),
            format!("receiver window ({window_v} bytes) is smaller than mss ({mss_v} bytes)"),
        ));
    }
    let ack = match pick(&frx.ack, &grx.ack).map_or(AckKind::Every, |a| a.v) {
        AckKind::Every => AckMode::Every,
        AckKind::Delayed => AckMode::Delayed {
            timeout: pick(&frx.delack_timeout, &grx.delack_timeout).map_or(defaults::DELACK_TIMEOUT, |a| a.v),
            every: pick(&frx.delack_every, &grx.delack_every).map_or(defaults::DELACK_EVERY, |a| a.v),
        },
    };
    // The variant was validated where it was written.
    let uses_sack = parse_variant(&variant.v).map(|s| s.uses_sack()).unwrap_or(false);
    let sack_at = pick(&frx.sack, &grx.sack);
    let sack = match sack_at.map_or(SackSetting::Auto, |a| a.v) {
        SackSetting::On => true,
        SackSetting::Auto => uses_sack,
        SackSetting::Off => {
            if uses_sack {
                let from = if variant.path.is_empty() { "the default".to_string() } else { variant.path.clone() };
                return Err(cross(
                    sack_at.map_or_else(String::new, |a| a.path.clone()),
                    format!(
                        "sack = false, but variant '{}' (from {from}) needs SACK blocks from the receiver; \
                         set sack to true or \"auto\", or choose a variant without SACK",
                        variant.v
                    ),
                ));
            }
            false
        }
    };
    let undo = parse_variant(&variant.v).is_ok_and(|s| s.has(crate::tcp::variant::Ext::Undo));
    let needs_ts = undo && tcp.undo_evidence == UndoEvidence::Timestamps;
    if needs_ts && !tcp.timestamps {
        let from = if variant.path.is_empty() { "the default".to_string() } else { variant.path.clone() };
        return Err(cross(
            timestamps.map_or_else(|| variant.path.clone(), |a| a.path.clone()),
            format!(
                "variant '{}' (from {from}) detects spurious retransmissions from timestamps (RFC 3522), \
                 but timestamps are off; set tcp.timestamps = true",
                variant.v
            ),
        ));
    }
    let blocks = pick(&frx.max_sack_blocks, &grx.max_sack_blocks);
    let blocks_v = blocks.map_or(defaults::MAX_SACK_BLOCKS, |a| a.v);
    if blocks_v > 3 && tcp.timestamps {
        return Err(cross(
            blame(blocks, timestamps),
            format!(
                "max_sack_blocks = {blocks_v}, but with timestamps on at most 3 SACK blocks fit in the TCP options"
            ),
        ));
    }
    let dda = match pick(&frx.dda, &grx.dda) {
        None => None,
        Some(At { v: DdaSetting::Fixed(d), .. }) => Some(*d),
        Some(a @ At { v: DdaSetting::Auto, .. }) => {
            let link = last_hop().map_err(|m| cross(a.path.clone(), m))?;
            let d = dda_auto(&link);
            if d == SimDuration::ZERO {
                return Err(cross(
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
    };
    let dsack_at = pick(&frx.dsack, &grx.dsack);
    let dsack = dsack_at.is_some_and(|a| a.v);
    if dsack && !sack {
        return Err(cross(
            dsack_at.map_or_else(String::new, |a| a.path.clone()),
            "dsack = true needs SACK blocks from the receiver (RFC 2883); set receiver.sack = true".to_string(),
        ));
    }
    if undo && tcp.undo_evidence == UndoEvidence::Dsack && !dsack {
        return Err(cross(
            dsack_at.map_or_else(|| variant.path.clone(), |a| a.path.clone()),
            format!(
                "variant '{}' with undo_evidence = \"dsack\" needs D-SACK blocks from the receiver; \
                 set receiver.dsack = true (and a SACK variant or receiver.sack = true)",
                variant.v
            ),
        ));
    }
    let receiver = ReceiverConfig { window: window_v, ack, sack, max_sack_blocks: blocks_v, dsack, dda };
    Ok((tcp, receiver))
}

// ---------------------------------------------------------------------------
// Flows
// ---------------------------------------------------------------------------

const FLOW_KEYS: &[&str] = &["name", "from", "to", "variant", "bytes", "start", "tcp", "receiver"];

fn parse_flows(v: Option<&Value>, path: &str, topo: &Topo, gtcp: &TcpRaw, grx: &RxRaw) -> R<Vec<FlowSpec>> {
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
            .unwrap_or(At { v: "newreno".into(), path: String::new() });

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
