//! A scenario as a document, before validation: TOML text → the JSON value
//! the parser walks, and `path=value` overrides applied to that value.
//!
//! This is the one implementation of overrides: the command line's `-s`,
//! `Scenario.with_overrides` and `with_values` in the Python API (through
//! the binding), the benchmark and the validation harness (through the
//! API) and the Rust examples all apply them here.
//!
//! An override is `path=value`. The path is dot-separated keys (letters,
//! digits, `_` and `-`); list elements are addressed as `flows[0]` or
//! `flows.0` (an all-digit key on a table is a key). Missing tables on the
//! way are created; a missing list is not. The value is read as a TOML
//! value (`10`, `true`, `"x"`, `[1, 2]`, `{ p = 0.01 }`) and, where it is
//! not one, taken as a plain string, so `run.duration=10s` needs no quotes.
//! A value must also be one a scenario can hold: no dates, no non-finite
//! numbers, integers within 64 bits, at most [`MAX_DEPTH`] levels of
//! tables and arrays counted from the top of the document.

use super::parse::ScenarioError;
use serde_json::{Map, Number, Value};

/// How many levels of tables and arrays a document may have, counting the
/// document itself. Real scenarios need about five; the parser's JSON
/// reader stops at 128.
pub const MAX_DEPTH: usize = 64;

pub(crate) const TOO_DEEP: &str = "nested too deeply: at most 64 levels of tables and arrays are allowed";
pub(crate) const INT_RANGE: &str = "integers in a scenario must fit in 64 bits (-2^63 to 2^64-1)";

/// TOML text as the document [`super::parse_scenario`] reads. Syntax errors
/// carry the line and column; dates and times are refused.
pub fn from_toml(text: &str) -> Result<Value, ScenarioError> {
    super::parse::toml_document(text)
}

/// One step of an override's path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    Key(String),
    /// A list index (or an all-digit key), as its digits without leading zeros.
    Index(String),
}

/// What is wrong with an override: the path as far as it is known (empty
/// when it cannot be read) and the reason, to be shown after the override.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverrideError {
    pub path: String,
    pub reason: String,
}

fn bad(path: &str, reason: impl Into<String>) -> OverrideError {
    OverrideError { path: path.to_string(), reason: reason.into() }
}

/// Split `"path=value"` into path segments and a value (which may still be
/// refused by [`assign`], for its depth).
pub fn parse_override(item: &str) -> Result<(Vec<Segment>, Value), OverrideError> {
    let Some((raw_path, raw_value)) = item.split_once('=') else {
        return Err(bad("", "expected path=value, e.g. run.duration=10s"));
    };
    let raw_path = raw_path.trim();
    if raw_path.is_empty() {
        return Err(bad("", "the path before '=' is empty"));
    }
    let path = parse_path(raw_path)?;
    let value = parse_value(raw_value.trim()).map_err(|reason| bad(raw_path, reason))?;
    Ok((path, value))
}

/// `run.duration`, `flows[0].variant`, `flows.1.tcp.mss`, `m[0][1]`.
pub fn parse_path(raw: &str) -> Result<Vec<Segment>, OverrideError> {
    let mut segments = Vec::new();
    for part in raw.split('.') {
        // A key (possibly empty) followed by any number of [N].
        let key_end = part.find(['[', ']']).unwrap_or(part.len());
        let (key, mut rest) = part.split_at(key_end);
        let mut indices = Vec::new();
        while !rest.is_empty() {
            let inner = rest.strip_prefix('[').and_then(|r| r.split_once(']'));
            let Some((idx, after)) = inner else {
                return Err(bad(raw, format!("cannot read path segment {}", py_repr(part))));
            };
            indices.push(idx);
            rest = after;
        }
        if key.is_empty() {
            if indices.is_empty() || segments.is_empty() {
                return Err(bad(raw, "empty path segment (two dots in a row, or a dot at either end)"));
            }
        } else if key.bytes().all(|b| b.is_ascii_digit()) {
            segments.push(Segment::Index(digits(key)));
        } else if key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
            segments.push(Segment::Key(key.to_string()));
        } else {
            return Err(bad(raw, format!("invalid key {}: use letters, digits, '_' and '-'", py_repr(key))));
        }
        for idx in indices {
            let d = idx.trim();
            if d.is_empty() || !d.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad(raw, format!("list index [{idx}] is not a non-negative integer")));
            }
            segments.push(Segment::Index(digits(d)));
        }
    }
    Ok(segments)
}

fn digits(d: &str) -> String {
    let t = d.trim_start_matches('0');
    if t.is_empty() { "0" } else { t }.to_string()
}

/// The path as written in messages: `flows[0].tcp.mss`.
pub fn format_path(path: &[Segment]) -> String {
    let mut out = String::new();
    for s in path {
        match s {
            Segment::Index(i) => {
                out.push('[');
                out.push_str(i);
                out.push(']');
            }
            Segment::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
        }
    }
    out
}

/// The text after `=`: a TOML value if it is exactly one, else the text.
/// The error is the reason only (the caller knows the path).
pub fn parse_value(raw: &str) -> Result<Value, String> {
    match toml::from_str::<toml::Table>(&format!("v = {raw}")) {
        Ok(t) if t.len() == 1 && t.contains_key("v") => toml_value(&t["v"]),
        Ok(_) => Ok(Value::String(raw.to_string())),
        Err(_) => {
            // TOML reads integers as i64; u64 is legal in a scenario, and
            // beyond it the user meant a number that no field can take.
            if let Some(v) = big_integer(raw)? {
                return Ok(v);
            }
            // A nesting deeper than the TOML reader goes is still too deep,
            // not a string.
            if bracket_depth(raw) > MAX_DEPTH {
                return Err(format!("the value is {TOO_DEEP}"));
            }
            Ok(Value::String(raw.to_string()))
        }
    }
}

/// A decimal integer literal TOML could not hold: in u64 range, or an error.
fn big_integer(raw: &str) -> Result<Option<Value>, String> {
    let body = raw.strip_prefix('+').unwrap_or(raw);
    let (neg, body) = match body.strip_prefix('-') {
        Some(b) if !raw.starts_with('+') => (true, b),
        _ => (false, body),
    };
    let plain: String = body.chars().filter(|&c| c != '_').collect();
    let ok_underscores = !body.starts_with('_') && !body.ends_with('_') && !body.contains("__");
    if plain.is_empty() || !plain.bytes().all(|b| b.is_ascii_digit()) || !ok_underscores {
        return Ok(None);
    }
    if plain.len() > 1 && plain.starts_with('0') {
        return Ok(None); // TOML has no leading zeros: text
    }
    wide_integer(neg, &plain).map(Some)
}

/// A decimal integer (`digits`, no sign or underscores) that TOML's i64
/// cannot hold: a u64, or the reason it is refused. The one judgment of
/// such integers, for files and overrides alike.
pub(crate) fn wide_integer(neg: bool, digits: &str) -> Result<Value, String> {
    match (neg, digits.parse::<u64>()) {
        (false, Ok(v)) => Ok(Value::Number(Number::from(v))),
        _ if digits.len() > 1000 => Err(format!("the integer has thousands of digits; {INT_RANGE}")),
        _ => {
            let sign = if neg { "-" } else { "" };
            let shown =
                if digits.len() > 60 { format!("of {} digits", digits.len()) } else { format!("{sign}{digits}") };
            Err(format!("the integer {shown} is out of range; {INT_RANGE}"))
        }
    }
}

/// The deepest nesting of `[` and `{` outside strings.
fn bracket_depth(raw: &str) -> usize {
    let (mut depth, mut max, mut quote) = (0usize, 0usize, None);
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some('"'), '\\') => {
                chars.next();
            }
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[' | '{') => {
                depth += 1;
                max = max.max(depth);
            }
            (None, ']' | '}') => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// A TOML value as JSON, refusing what a scenario cannot hold.
fn toml_value(v: &toml::Value) -> Result<Value, String> {
    Ok(match v {
        toml::Value::String(s) => Value::String(s.clone()),
        toml::Value::Integer(i) => Value::Number(Number::from(*i)),
        toml::Value::Float(f) => match Number::from_f64(*f) {
            Some(n) => Value::Number(n),
            None => return Err(format!("{} is not allowed: numbers must be finite", py_float(*f))),
        },
        toml::Value::Boolean(b) => Value::Bool(*b),
        toml::Value::Datetime(d) => {
            return Err(format!(
                "dates and times are not supported (got {d}); write durations as strings like \"200ms\""
            ))
        }
        toml::Value::Array(a) => Value::Array(a.iter().map(toml_value).collect::<Result<_, _>>()?),
        toml::Value::Table(t) => {
            let mut out = Map::new();
            for (k, x) in t {
                out.insert(k.clone(), toml_value(x)?);
            }
            Value::Object(out)
        }
    })
}

/// A non-finite float as messages show it.
pub(crate) fn py_float(f: f64) -> &'static str {
    if f.is_nan() {
        "nan"
    } else if f > 0.0 {
        "inf"
    } else {
        "-inf"
    }
}

/// Set `path` in `doc` to `value`, creating missing tables on the way.
pub fn assign(doc: &mut Value, path: &[Segment], value: Value) -> Result<(), OverrideError> {
    let full = format_path(path);
    // Checked where the value is put, after the path was walked: a path
    // that cannot be followed is the first thing to say.
    let deep = |value: &Value| match too_deep_at(value, path.len()) {
        Some(at) => Err(bad(&deep_path(&format!("{full}{at}")), format!("the value is {TOO_DEEP}"))),
        None => Ok(()),
    };
    let mut node = doc;
    for (depth, seg) in path.iter().enumerate() {
        let last = depth + 1 == path.len();
        let here = match format_path(&path[..depth]) {
            p if p.is_empty() => "the scenario".to_string(),
            p => p,
        };
        node = match node {
            Value::Array(list) => {
                let Segment::Index(i) = seg else {
                    return Err(bad(&full, format!("{here} is a list; address its elements by index, e.g. {here}[0]")));
                };
                let n = list.len();
                let Some(slot) = i.parse::<usize>().ok().and_then(|i| list.get_mut(i)) else {
                    return Err(bad(&full, format!("index {i} is out of range: {here} has {n} element(s)")));
                };
                if last {
                    deep(&value)?;
                    *slot = value;
                    return Ok(());
                }
                slot
            }
            Value::Object(table) => {
                let key = match seg {
                    Segment::Key(k) => k.clone(),
                    // A numeric key is allowed only if the table has it.
                    Segment::Index(i) if table.contains_key(i) => i.clone(),
                    Segment::Index(i) => {
                        return Err(bad(
                            &full,
                            format!("{here} is a table, not a list, so it cannot be indexed with [{i}]"),
                        ))
                    }
                };
                if last {
                    deep(&value)?;
                    table.insert(key, value);
                    return Ok(());
                }
                if !table.contains_key(&key) {
                    if matches!(path[depth + 1], Segment::Index(_)) {
                        let there = format_path(&path[..=depth]);
                        return Err(bad(&full, format!("{there} does not exist, so it cannot be indexed")));
                    }
                    table.insert(key.clone(), Value::Object(Map::new()));
                }
                table.get_mut(&key).expect("present")
            }
            other => return Err(bad(&full, format!("{here} is {}, not a table or list", kind(other)))),
        };
    }
    // An empty path: nothing to set (parse_path never yields one).
    Ok(())
}

/// Apply one `path=value` override to `doc`.
pub fn apply(doc: &mut Value, item: &str) -> Result<(), OverrideError> {
    let (path, value) = parse_override(item)?;
    assign(doc, &path, value)
}

/// Where in `value` (a suffix of the path) a table or array sits at
/// [`MAX_DEPTH`] or deeper, counting `depth` levels above it.
fn too_deep_at(value: &Value, depth: usize) -> Option<String> {
    let inner: Box<dyn Iterator<Item = (String, &Value)>> = match value {
        Value::Array(a) => Box::new(a.iter().enumerate().map(|(i, x)| (format!("[{i}]"), x))),
        Value::Object(t) => Box::new(t.iter().map(|(k, x)| (format!(".{k}"), x))),
        _ => return None,
    };
    if depth >= MAX_DEPTH {
        return Some(String::new());
    }
    for (step, x) in inner {
        if let Some(rest) = too_deep_at(x, depth + 1) {
            return Some(step + &rest);
        }
    }
    None
}

/// A too-deep value is reported at the field holding it (`x`, not
/// `x[0][0]…[0]`).
fn deep_path(path: &str) -> String {
    let mut p = path;
    while p.ends_with(']') {
        match p.rfind('[') {
            Some(i) if p[i + 1..p.len() - 1].bytes().all(|b| b.is_ascii_digit()) && i > 0 => p = &p[..i],
            _ => break,
        }
    }
    p.to_string()
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a float",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Null => "a null",
        Value::Array(_) => "a list",
        Value::Object(_) => "a table",
    }
}

/// `s` quoted as Python's `repr` shows a string, the form the messages
/// have always used for path parts.
fn py_repr(s: &str) -> String {
    let q = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::from(q);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == q => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push(q);
    out
}

#[cfg(test)]
mod tests;
