//! Errors and how they show values: [`ScenarioError`], quoting and escaping
//! of what the user wrote, descriptions of values, did-you-mean suggestions.

use crate::time::SimDuration;
use serde_json::Value;
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

pub(super) type R<T> = Result<T, ScenarioError>;

/// Every message and path is made safe to print on one line here, whatever
/// its parts: control characters escaped, at most [`MAX_MESSAGE_CHARS`].
pub(super) fn err(path: &str, message: impl Into<String>) -> ScenarioError {
    let message = escape_all(&message.into());
    let message = match message.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((cut, _)) => format!("{}…", &message[..cut]),
        None => message,
    };
    ScenarioError { path: clip_middle(path, MAX_PATH_CHARS, escape_all), message }
}

/// The longest key path an error shows. Paths come from the file's keys,
/// which a careless or hostile file can make arbitrarily long; the end of
/// a path names the key, so a long one keeps its start and its end.
pub const MAX_PATH_CHARS: usize = 200;

/// `s` escaped by `escape` if it has at most `limit` characters, otherwise
/// its first third and last two thirds around an ellipsis. It is cut before
/// it is escaped, so no escape sequence is cut in two.
fn clip_middle(s: &str, limit: usize, escape: fn(&str) -> String) -> String {
    let n = s.chars().count();
    if n <= limit {
        return escape(s);
    }
    let head: String = s.chars().take(limit / 3).collect();
    let tail: String = s.chars().skip(n - (limit - limit / 3 - 1)).collect();
    format!("{}…{}", escape(&head), escape(&tail))
}

/// Every character of `s` escaped as [`clip`] escapes it, backslashes included.
fn escape_every(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        escape_char(c, &mut out);
    }
    out
}

pub(super) fn fail<T>(path: &str, message: impl Into<String>) -> R<T> {
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
    let shown = clip_middle(path, 160, escape_every);
    format!("\"{}\"", shown.replace('"', "\\\""))
}

/// `s` in single quotes for an error message (names): [`clip`]ped.
pub(super) fn sq(s: &str) -> String {
    format!("'{}'", clip(s))
}

/// A message from elsewhere (the variant and unit parsers) that quotes the
/// value `s`, or parts of it, as they are: quote `s` [`clip`]ped instead,
/// and cut every other word longer than [`QUOTE_CHARS`] (a part of `s`,
/// such as an unknown unit), keeping its closing quote.
pub(super) fn requote(message: &str, s: &str) -> String {
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
pub(super) fn is_unprintable(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{feff}')
}

pub(super) fn escape_char(c: char, out: &mut String) {
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

pub(super) fn key_path(parent: &str, key: &str) -> String {
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

pub(super) fn index_path(parent: &str, i: usize) -> String {
    format!("{parent}[{i}]")
}

/// "the string \"3\"", "the number 3", "a table", … for "expected X, got Y".
pub(super) fn describe(v: &Value) -> String {
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
pub(super) fn show(v: &Value) -> String {
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
pub(super) fn suggest<'c>(word: &str, candidates: &[&'c str]) -> Option<&'c str> {
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

pub(super) fn did_you_mean(word: &str, candidates: &[&str]) -> String {
    match suggest(word, candidates) {
        Some(s) => format!("; did you mean {}?", sq(s)),
        None => String::new(),
    }
}

/// `a, b, c` or `a, b, … (1000 in all)`.
pub(super) fn list(names: &[&str]) -> String {
    const MAX: usize = 12;
    let shown = names.iter().take(MAX).map(|n| clip(n)).collect::<Vec<_>>().join(", ");
    if names.len() <= MAX {
        shown
    } else {
        format!("{shown}, … ({} in all)", names.len())
    }
}

pub(super) fn quoted_list(names: &[&str]) -> String {
    names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ")
}

/// Human form of a duration for messages: `60s`, `200ms`, `1500us`.
pub(super) fn fmt_dur(d: SimDuration) -> String {
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
