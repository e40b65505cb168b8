//! TOML text → the JSON value the parser walks. Syntax errors carry the
//! line and column; what TOML can say but a scenario cannot hold is
//! refused at its path (dates, integers beyond 64 bits, nesting deeper
//! than [`MAX_DEPTH`](crate::scenario::document::MAX_DEPTH)).

use super::error::*;
use crate::scenario::document::{py_float, wide_integer, INT_RANGE, MAX_DEPTH, TOO_DEEP};
use serde_json::{Map, Number, Value};

/// Marks an integer literal the TOML reader cannot hold (it reads i64):
/// the literal is read again as this string and converted at its path.
/// A NUL cannot appear raw in a TOML string, so no real value starts so.
const BIG_INT: &str = "\u{0}dupack-integer:";

/// TOML text as the JSON value [`super::parse_scenario`] walks.
pub(super) fn text_to_json(text: &str) -> R<Value> {
    if let Some(e) = too_deep(text) {
        return Err(e);
    }
    // Integers above i64 (seeds up to 2^64 − 1 are legal) or beyond 64
    // bits: each is read as a marked string and judged at its path.
    let mut text = std::borrow::Cow::Borrowed(text);
    for _ in 0..64 {
        match toml::from_str::<toml::Table>(&text) {
            Ok(table) => return toml_to_json(&toml::Value::Table(table), ""),
            Err(e) => match big_int_span(&text, &e) {
                Some((start, end)) => {
                    let literal = text[start..end].to_string();
                    // `\u0000` in the text is the NUL that starts BIG_INT.
                    text = std::borrow::Cow::Owned(format!(
                        "{}\"\\u0000{}{}\"{}",
                        &text[..start],
                        &BIG_INT[1..],
                        literal,
                        &text[end..]
                    ));
                }
                None => return Err(toml_syntax_error(&text, &e)),
            },
        }
    }
    fail("", format!("more than 64 integers beyond 64 bits; {INT_RANGE}"))
}

/// The span of a decimal integer literal the TOML reader refused as too
/// large or too small.
fn big_int_span(text: &str, e: &toml::de::Error) -> Option<(usize, usize)> {
    if !e.message().contains("to fit in target type") {
        return None;
    }
    let span = e.span()?;
    let bytes = text.as_bytes();
    let mut start = span.start;
    let mut end = span.start;
    while end < bytes.len() && (bytes[end].is_ascii_digit() || matches!(bytes[end], b'_' | b'+' | b'-')) {
        end += 1;
    }
    while start > 0 && (bytes[start - 1].is_ascii_digit() || matches!(bytes[start - 1], b'_' | b'+' | b'-')) {
        start -= 1;
    }
    (end > start && bytes[start..end].iter().any(u8::is_ascii_digit)).then_some((start, end))
}

fn toml_syntax_error(text: &str, e: &toml::de::Error) -> ScenarioError {
    // toml's message may span lines ("invalid array\nexpected `]`").
    let msg = e.message().lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("; ");
    let Some(start) = e.span().map(|s| s.start).filter(|&s| s <= text.len() && text.is_char_boundary(s)) else {
        return err("", format!("TOML syntax error: {msg}"));
    };
    // At the very end (an unterminated string or array), point at the end
    // of the last line rather than at the empty line after it.
    let at_end = text[start..].trim_matches(['\n', '\r']).is_empty() && start > 0;
    let before = if at_end { text[..start].trim_end_matches(['\n', '\r']) } else { &text[..start] };
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    let where_ = if at_end { ", the end of the file" } else { "" };
    err("", format!("TOML syntax error at line {line}, column {column}{where_}: {msg}"))
}

/// A value nested deeper than a scenario allows, found by reading the text
/// (the TOML reader gives up at its own, larger limit with no path): the
/// key it belongs to, as the current table header and the line's key.
fn too_deep(text: &str) -> Option<ScenarioError> {
    if text.matches(['[', '{']).count() < MAX_DEPTH {
        return None;
    }
    let (mut header, mut key) = (String::new(), String::new());
    let (mut depth, mut line) = (0usize, 1usize);
    let (mut quote, mut line_start) = (None::<char>, true);
    let mut chars = text.chars().peekable();
    let mut pending = String::new();
    while let Some(c) = chars.next() {
        match quote {
            Some('"') if c == '\\' => {
                chars.next();
                continue;
            }
            Some(q) if c == q => quote = None,
            Some(_) => {
                if c == '\n' {
                    line += 1;
                }
            }
            None => match c {
                '"' | '\'' => quote = Some(c),
                '#' => {
                    while chars.peek().is_some_and(|&c| c != '\n') {
                        chars.next();
                    }
                }
                '\n' => {
                    line += 1;
                    if depth == 0 {
                        line_start = true;
                        pending.clear();
                    }
                }
                '[' if depth == 0 && line_start => {
                    // A table header: [a.b] or [[a.b]].
                    let mut h = String::new();
                    while let Some(&c) = chars.peek() {
                        if c == '\n' {
                            break;
                        }
                        h.push(c);
                        chars.next();
                    }
                    header = h.trim_matches(['[', ']', ' ']).trim_end_matches(']').trim().to_string();
                }
                '=' if depth == 0 => {
                    key = pending.trim().to_string();
                    line_start = false;
                }
                '[' | '{' => {
                    depth += 1;
                    let parts = |s: &str| if s.is_empty() { 0 } else { s.split('.').count() };
                    if depth + parts(&header) + parts(&key) > MAX_DEPTH {
                        let path = match (header.is_empty(), key.is_empty()) {
                            (true, _) => key.clone(),
                            (false, true) => header.clone(),
                            (false, false) => format!("{header}.{key}"),
                        };
                        return Some(err(&path, format!("{TOO_DEEP} (line {line})")));
                    }
                }
                ']' | '}' => depth = depth.saturating_sub(1),
                c if depth == 0 => {
                    if !c.is_whitespace() {
                        line_start = false;
                    }
                    pending.push(c);
                }
                _ => {}
            },
        }
    }
    None
}

fn toml_to_json(v: &toml::Value, path: &str) -> R<Value> {
    Ok(match v {
        toml::Value::String(s) => match s.strip_prefix(BIG_INT) {
            Some(literal) => big_int(literal, path)?,
            None => Value::String(s.clone()),
        },
        toml::Value::Integer(i) => Value::Number(Number::from(*i)),
        toml::Value::Float(f) => match Number::from_f64(*f) {
            Some(n) => Value::Number(n),
            None => return fail(path, format!("{} is not allowed: numbers must be finite", py_float(*f))),
        },
        toml::Value::Boolean(b) => Value::Bool(*b),
        toml::Value::Datetime(d) => {
            return fail(
                path,
                format!("dates and times are not supported (got {d}); write durations as strings like \"200ms\""),
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

/// An integer literal the TOML reader could not hold: a u64, or refused.
fn big_int(literal: &str, path: &str) -> R<Value> {
    let digits: String = literal.chars().filter(|&c| c != '_').collect();
    let neg = digits.starts_with('-');
    wide_integer(neg, digits.trim_start_matches(['+', '-'])).or_else(|reason| fail(path, reason))
}
