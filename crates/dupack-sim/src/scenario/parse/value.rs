//! Typed access to values: the `v_*` checkers (each names the path and
//! says what is allowed) and [`Table`], a table being walked.

use super::error::*;
use crate::scenario::units::Quantity;
use crate::time::SimDuration;
use serde_json::{Map, Value};

/// A value together with the path it came from, so cross-field checks can
/// blame the key the user actually wrote.
#[derive(Clone, Debug)]
pub(super) struct At<T> {
    pub(super) v: T,
    pub(super) path: String,
}

impl<T> At<T> {
    /// Set in a per-flow override (as opposed to the global tables).
    pub(super) fn is_from_flow(&self) -> bool {
        self.path.starts_with("flows[")
    }
}

pub(super) fn v_str<'a>(v: &'a Value, path: &str) -> R<&'a str> {
    match v {
        Value::String(s) => Ok(s),
        other => fail(path, format!("expected a string, got {}", describe(other))),
    }
}

pub(super) fn v_nonempty_str(v: &Value, path: &str) -> R<String> {
    let s = v_str(v, path)?;
    if s.is_empty() {
        return fail(path, "must not be empty");
    }
    Ok(s.to_string())
}

/// A name (of a node, link, medium, flow or the scenario): a non-empty
/// string without control or invisible format characters, since names are
/// printed in tables and messages.
pub(super) fn v_name(v: &Value, path: &str) -> R<String> {
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

pub(super) fn v_bool(v: &Value, path: &str) -> R<bool> {
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
pub(super) fn v_int(v: &Value, path: &str, lo: u64, hi: u64) -> R<u64> {
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

pub(super) fn v_u32(v: &Value, path: &str, lo: u32, hi: u32) -> R<u32> {
    let x = v_int(v, path, u64::from(lo), u64::from(hi))?;
    Ok(u32::try_from(x).unwrap_or(hi))
}

/// A probability: a number in [0, 1].
pub(super) fn v_prob(v: &Value, path: &str) -> R<f64> {
    let Value::Number(n) = v else {
        return fail(path, format!("expected a number between 0 and 1, got {}", describe(v)));
    };
    match n.as_f64() {
        Some(p) if (0.0..=1.0).contains(&p) => Ok(p),
        _ => fail(path, format!("must be between 0 and 1, got {n}")),
    }
}

pub(super) fn v_enum<T: Copy>(v: &Value, path: &str, choices: &[(&str, T)]) -> R<T> {
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

pub(super) fn v_dur(v: &Value, path: &str) -> R<SimDuration> {
    v_qty(v, path, Quantity::Duration).map(SimDuration::from_nanos)
}

pub(super) fn v_dur_pos(v: &Value, path: &str) -> R<SimDuration> {
    let d = v_dur(v, path)?;
    if d == SimDuration::ZERO {
        return fail(path, format!("must be greater than 0, got {}", show(v)));
    }
    Ok(d)
}

pub(super) fn v_rate_pos(v: &Value, path: &str) -> R<u64> {
    let r = v_qty(v, path, Quantity::Rate)?;
    if r == 0 {
        return fail(path, format!("must be greater than 0, got {}", show(v)));
    }
    Ok(r)
}

/// A size in `lo..=hi` bytes.
pub(super) fn v_size(v: &Value, path: &str, lo: u64, hi: u64) -> R<u64> {
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

pub(super) fn v_array<'a>(v: &'a Value, path: &str, what: &str) -> R<&'a Vec<Value>> {
    match v {
        Value::Array(a) => Ok(a),
        other => fail(path, format!("expected an array of {what}, got {}", describe(other))),
    }
}

/// A table being walked.
pub(super) struct Table<'a> {
    pub(super) map: &'a Map<String, Value>,
    pub(super) path: String,
}

pub(super) fn table<'a>(v: &'a Value, path: &str) -> R<Table<'a>> {
    match v {
        Value::Object(map) => Ok(Table { map, path: path.to_string() }),
        other if path.is_empty() => fail(path, format!("expected a table at the top level, got {}", describe(other))),
        other => fail(path, format!("expected a table, got {}", describe(other))),
    }
}

impl<'a> Table<'a> {
    pub(super) fn at(&self, key: &str) -> String {
        key_path(&self.path, key)
    }

    pub(super) fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    pub(super) fn required(&self, key: &str, what: &str) -> R<&'a Value> {
        self.get(key).ok_or_else(|| err(&self.at(key), format!("missing required key '{key}' ({what})")))
    }

    /// Apply `f` to the value of `key` if present.
    pub(super) fn opt<T>(&self, key: &str, f: impl FnOnce(&'a Value, &str) -> R<T>) -> R<Option<At<T>>> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => {
                let path = self.at(key);
                let x = f(v, &path)?;
                Ok(Some(At { v: x, path }))
            }
        }
    }

    pub(super) fn req<T>(&self, key: &str, what: &str, f: impl FnOnce(&'a Value, &str) -> R<T>) -> R<At<T>> {
        let v = self.required(key, what)?;
        let path = self.at(key);
        let x = f(v, &path)?;
        Ok(At { v: x, path })
    }

    /// Reject keys outside `allowed`, in byte order of the key.
    pub(super) fn allow(&self, allowed: &[&str]) -> R<()> {
        self.allow_explained(allowed, |_| None)
    }

    /// Like [`Table::allow`]; `explain` may say why a key is not allowed here
    /// (e.g. it belongs to another topology kind).
    pub(super) fn allow_explained(&self, allowed: &[&str], explain: impl Fn(&str) -> Option<String>) -> R<()> {
        // serde_json's map is ordered by key; do not rely on it.
        let mut keys: Vec<&String> = self.map.keys().collect();
        keys.sort();
        for k in keys {
            if !allowed.contains(&k.as_str()) {
                let head = explain(k).unwrap_or_else(|| format!("unknown key {}", sq(k)));
                let hint = did_you_mean(k, allowed);
                // With a suggestion, a long list (the 30-odd keys of [tcp]) is cut short so that the
                // message stays one readable line; without one, every allowed key is named.
                let keys = if hint.is_empty() { allowed.join(", ") } else { list(allowed) };
                return fail(&self.at(k), format!("{head}{hint}; allowed keys here: {keys}"));
            }
        }
        Ok(())
    }
}

/// Explanation for a key that is valid in a sibling variant of this table.
pub(super) fn belongs_elsewhere(key: &str, what: &str, current: &str, variants: &[(&str, &[&str])]) -> Option<String> {
    variants
        .iter()
        .find(|(name, keys)| *name != current && keys.contains(&key))
        .map(|(name, _)| format!("key {} belongs to {what} {name:?}, not {}", sq(key), quote(current)))
}
