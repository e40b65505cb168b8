//! The scenario document: TOML text → JSON, and `path=value` overrides,
//! both done by `dupack_sim::scenario::document` (the one implementation
//! the CLI, the API, the benchmark and the examples share); and unit
//! strings as the parser reads them, for the benchmark's mirrors.

use dupack_sim::scenario::document::{self, OverrideError, Segment};
use pyo3::prelude::*;
use serde_json::Value;

/// A failed override: (its index in the list, the path, the reason).
type Failure = (usize, String, String);

fn doc_from(py: Python<'_>, doc_json: &str) -> PyResult<Value> {
    serde_json::from_str(doc_json).map_err(|e| {
        crate::scenario_error(
            py,
            dupack_sim::ScenarioError { path: String::new(), message: format!("scenario is not valid JSON: {e}") },
        )
    })
}

fn segments_json(path: &[Segment]) -> Value {
    Value::Array(
        path.iter()
            .map(|s| match s {
                Segment::Key(k) => Value::String(k.clone()),
                // An index too large for a u64 is out of range of any list anyway.
                Segment::Index(i) => i.parse::<u64>().map_or_else(|_| Value::String(i.clone()), Value::from),
            })
            .collect(),
    )
}

/// TOML text → the document as JSON text; ScenarioError on bad TOML.
#[pyfunction]
pub fn toml_document(py: Python<'_>, text: &str) -> PyResult<String> {
    let doc = document::from_toml(text).map_err(|e| crate::scenario_error(py, e))?;
    Ok(doc.to_string())
}

/// `"path=value"` → JSON `[path segments, value]`, or `(None, path, reason)`.
#[pyfunction]
pub fn parse_override(item: &str) -> (Option<String>, String, String) {
    match document::parse_override(item) {
        Ok((path, value)) => {
            (Some(Value::Array(vec![segments_json(&path), value]).to_string()), String::new(), String::new())
        }
        Err(OverrideError { path, reason }) => (None, path, reason),
    }
}

/// Apply `items` (`"path=value"`) in order: (the new document, None) or
/// (None, the first failure).
#[pyfunction]
pub fn apply_overrides(
    py: Python<'_>,
    doc_json: &str,
    items: Vec<String>,
) -> PyResult<(Option<String>, Option<Failure>)> {
    let mut doc = doc_from(py, doc_json)?;
    for (i, item) in items.iter().enumerate() {
        if let Err(OverrideError { path, reason }) = document::apply(&mut doc, item) {
            return Ok((None, Some((i, path, reason))));
        }
    }
    Ok((Some(doc.to_string()), None))
}

/// Set `(path, value as JSON text)` pairs in order, the values already
/// values (a sweep's grid points): as [`apply_overrides`].
#[pyfunction]
pub fn assign_values(
    py: Python<'_>,
    doc_json: &str,
    values: Vec<(String, String)>,
) -> PyResult<(Option<String>, Option<Failure>)> {
    let mut doc = doc_from(py, doc_json)?;
    for (i, (raw, value)) in values.iter().enumerate() {
        let raw = raw.trim();
        let step = if raw.is_empty() {
            Err(OverrideError { path: String::new(), reason: "the path is empty".into() })
        } else {
            document::parse_path(raw).and_then(|path| {
                let value: Value = serde_json::from_str(value).map_err(|e| OverrideError {
                    path: raw.to_string(),
                    reason: format!("the value is not one a scenario can hold: {e}"),
                })?;
                document::assign(&mut doc, &path, value)
            })
        };
        if let Err(OverrideError { path, reason }) = step {
            return Ok((None, Some((i, path, reason))));
        }
    }
    Ok((Some(doc.to_string()), None))
}

/// A unit string as the scenario parser reads it (`scenario::units`):
/// `kind` is `duration` (seconds), `rate` (bit/s) or `size` (bytes).
/// ValueError with the parser's message if it is not one.
#[pyfunction]
pub fn parse_unit(kind: &str, text: &str) -> PyResult<f64> {
    use dupack_sim::scenario::units;
    let v = match kind {
        "duration" => units::parse_duration(text).map(|d| d.as_secs_f64()),
        "rate" => units::parse_rate(text).map(|r| r as f64),
        "size" => units::parse_size(text).map(|b| b as f64),
        other => return Err(pyo3::exceptions::PyValueError::new_err(format!("unknown unit kind {other:?}"))),
    };
    v.map_err(pyo3::exceptions::PyValueError::new_err)
}
