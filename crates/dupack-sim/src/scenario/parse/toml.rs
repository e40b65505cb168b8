//! TOML text → the JSON value the parser walks; syntax errors carry the
//! line and column.

use super::error::*;
use serde_json::{Map, Number, Value};

/// TOML text as the JSON value [`super::parse_scenario`] walks.
pub(super) fn text_to_json(text: &str) -> R<Value> {
    let table: toml::Table = toml::from_str(text).map_err(|e| toml_syntax_error(text, &e))?;
    toml_to_json(&toml::Value::Table(table), "")
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
