//! What a run observed, kept in the extension: `HeldTrace` (its packet
//! trace), `HeldSeries` (its time series) and `HeldColumn` (one column of
//! either, for `write_parquet` and numpy).
//!
//! A traced run's trace and series are hundreds of thousands of values.
//! Python used to get them as the document's rows and lists and turn them
//! back into typed columns a value at a time to write trace.parquet and
//! series.parquet, which is all `dupack run` does with them (0.45 s of the
//! 0.58 s of `dupack run --trace-all` on a ten-flow dumbbell over 200 s,
//! and most of its memory). They now stay here until asked for: as the
//! document's fields (`document()`, when `RunResult.raw` is first read) or
//! as columns (`columns()`), which `write_parquet` writes as they are and
//! numpy reads through `HeldColumn.values`.

use std::sync::Arc;

use crate::buffer::{Buffer, Owned};
use dupack_batch::observed::trace_rows;
use dupack_batch::parquet::Column;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

/// The values of one column, shared with the trace or series they belong
/// to (a traced run's columns have millions of values: they are not copied
/// to be handed over).
pub(crate) enum Held {
    /// Unsigned integers, every one present.
    U64(Arc<Vec<u64>>),
    /// Unsigned integers, None missing.
    OptU64(Arc<Vec<Option<u64>>>),
    /// Floats, every one present.
    F64(Arc<Vec<f64>>),
    /// A series' instants in seconds (its nanoseconds / 1e9).
    Seconds(Arc<dupack_sim::Series>),
    /// A series' values, one that is not finite missing.
    Values(Arc<dupack_sim::Series>),
    /// Text, each value an index into `names` (a trace's flow and kind).
    Names { codes: Arc<Vec<u32>>, names: Arc<Vec<String>> },
    /// A categorical column's codes; its categories travel beside it.
    Codes(Vec<i32>),
}

/// One column of a run's trace or series, written by `write_parquet` as a
/// column of the Arrow type it is given with.
#[pyclass(frozen, module = "dupack._core")]
pub struct HeldColumn(Held);

/// `(values, valid)` for numpy: the values with `missing` in place of a
/// missing one, and a byte per value (1: present), or None with none missing.
fn lend_numbers<T: Copy>(
    py: Python<'_>,
    v: impl ExactSizeIterator<Item = Option<T>> + Clone,
    missing: T,
    owned: fn(Vec<T>) -> Owned,
) -> PyResult<(PyObject, PyObject)> {
    let values = Buffer::lend(py, owned(v.clone().map(|x| x.unwrap_or(missing)).collect()))?;
    let valid = if v.clone().all(|x| x.is_some()) {
        py.None()
    } else {
        Buffer::lend(py, Owned::U8(v.map(|x| u8::from(x.is_some())).collect()))?
    };
    Ok((values, valid))
}

#[pymethods]
impl HeldColumn {
    /// The values for numpy (`frombuffer`), copied: `(values, valid)` for
    /// numbers (unsigned 64-bit or float, a missing value 0 and NaN; `valid`
    /// one byte per value, 1 where there is one, or None with none missing),
    /// `(codes, names)` for text (codes unsigned 64-bit), `(codes, None)`
    /// for a categorical column's codes (signed 64-bit).
    fn values(&self, py: Python<'_>) -> PyResult<(PyObject, PyObject)> {
        match &self.0 {
            Held::U64(v) => lend_numbers(py, v.iter().map(|&x| Some(x)), 0, Owned::U64),
            Held::OptU64(v) => lend_numbers(py, v.iter().copied(), 0, Owned::U64),
            Held::F64(v) => lend_numbers(py, v.iter().map(|&x| Some(x)), f64::NAN, Owned::F64),
            Held::Seconds(s) => lend_numbers(py, seconds(s), f64::NAN, Owned::F64),
            Held::Values(s) => lend_numbers(py, finite(s), f64::NAN, Owned::F64),
            Held::Names { codes, names } => Ok((
                Buffer::lend(py, Owned::U64(codes.iter().map(|&c| u64::from(c)).collect()))?,
                PyList::new_bound(py, names.iter()).into_any().unbind(),
            )),
            Held::Codes(v) => Ok((Buffer::lend(py, Owned::I64(v.iter().map(|&c| i64::from(c)).collect()))?, py.None())),
        }
    }

    fn __len__(&self) -> usize {
        match &self.0 {
            Held::U64(v) => v.len(),
            Held::OptU64(v) => v.len(),
            Held::F64(v) => v.len(),
            Held::Seconds(s) | Held::Values(s) => s.len(),
            Held::Names { codes, .. } => codes.len(),
            Held::Codes(v) => v.len(),
        }
    }
}

/// A series' instants in seconds: t / 1e9 in f64, as Python divides an
/// integer by a float below 2^53.
fn seconds(s: &dupack_sim::Series) -> impl ExactSizeIterator<Item = Option<f64>> + Clone + '_ {
    s.time_ns.iter().map(|&t| Some(t as f64 / 1e9))
}

/// A series' values, None for one that is not finite (as JSON carries it).
fn finite(s: &dupack_sim::Series) -> impl ExactSizeIterator<Item = Option<f64>> + Clone + '_ {
    s.value.iter().map(|&v| v.is_finite().then_some(v))
}

impl HeldColumn {
    /// The column as Arrow type `kind` (`write_parquet`'s names); for a
    /// dictionary `kind`, its codes, to go with the categories beside it.
    pub(crate) fn column(&self, kind: &str) -> Result<Column, String> {
        Ok(match (&self.0, kind) {
            (Held::U64(v), "uint64") => Column::u64s(v.iter().map(|&x| Some(x))),
            (Held::OptU64(v), "uint64") => Column::u64s(v.iter().copied()),
            (Held::F64(v), "float64") => Column::f64s(v.iter().map(|&x| Some(x))),
            (Held::Seconds(s), "float64") => Column::f64s(seconds(s)),
            (Held::Values(s), "float64") => Column::f64s(finite(s)),
            (Held::Names { codes, names }, "string" | "large_string") => {
                Column::text_by_code(codes, names, kind == "large_string")
            }
            _ => return Err(format!("a kept column of {} cannot be written as {kind:?}", self.what())),
        })
    }

    /// A categorical column's codes.
    pub(crate) fn codes(&self) -> Result<Vec<i32>, String> {
        match &self.0 {
            Held::Codes(v) => Ok(v.clone()),
            _ => Err(format!("a kept column of {} holds no category codes", self.what())),
        }
    }

    fn what(&self) -> &'static str {
        match self.0 {
            Held::U64(_) | Held::OptU64(_) => "unsigned integers",
            Held::F64(_) | Held::Seconds(_) | Held::Values(_) => "floats",
            Held::Names { .. } => "names",
            Held::Codes(_) => "category codes",
        }
    }
}

fn held(py: Python<'_>, h: Held) -> PyResult<Py<HeldColumn>> {
    Py::new(py, HeldColumn(h))
}

/// A run's trace as columns: one row per `trace_rows` row, in its order
/// (an ACK that reaches the sender is one `ack` row followed by one `sack`
/// row per SACK block, in the order the receiver sent them). `seq` is the
/// byte offset of the segment; the cumulative ACK for `ack` and
/// `recovery_exit`; the block's first byte for `sack`; None for
/// `ecn_reduction`. `len` is the payload bytes; a `sack` block's bytes; 0
/// for the other events, which are not packets.
pub(crate) struct Trace {
    pub time_s: Arc<Vec<f64>>,
    pub time_ns: Arc<Vec<u64>>,
    /// The flow's index in the scenario.
    pub flow: Arc<Vec<u32>>,
    /// An index into `kinds`, the kinds in the order they first occur.
    pub kind: Arc<Vec<u32>>,
    pub kinds: Vec<&'static str>,
    pub seq: Arc<Vec<Option<u64>>>,
    pub len: Arc<Vec<u64>>,
}

impl Trace {
    pub(crate) fn of(records: &[dupack_sim::TraceRecord]) -> Trace {
        let (mut time_s, mut time_ns, mut flow, mut kind, mut seq, mut len) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut kinds: Vec<&'static str> = Vec::new();
        for (at, f, k, s, l) in records.iter().flat_map(trace_rows) {
            let code = match kinds.iter().position(|&known| known == k) {
                Some(i) => i,
                None => {
                    kinds.push(k);
                    kinds.len() - 1
                }
            };
            time_s.push(at.as_secs_f64());
            time_ns.push(at.as_nanos());
            flow.push(f);
            kind.push(code as u32);
            seq.push(s);
            len.push(l);
        }
        Trace {
            time_s: Arc::new(time_s),
            time_ns: Arc::new(time_ns),
            flow: Arc::new(flow),
            kind: Arc::new(kind),
            kinds,
            seq: Arc::new(seq),
            len: Arc::new(len),
        }
    }
}

/// A run's packet trace, kept here until Python asks for it as the
/// document's rows or as the columns of trace.parquet.
#[pyclass(frozen, module = "dupack._core")]
pub struct HeldTrace {
    trace: Trace,
    /// The scenario's flow names, by index.
    flows: Arc<Vec<String>>,
}

impl HeldTrace {
    pub(crate) fn new(py: Python<'_>, records: &[dupack_sim::TraceRecord], flows: Vec<String>) -> PyResult<Py<Self>> {
        Py::new(py, HeldTrace { trace: Trace::of(records), flows: Arc::new(flows) })
    }
}

#[pymethods]
impl HeldTrace {
    fn __len__(&self) -> usize {
        self.trace.time_ns.len()
    }

    /// The document's `trace` field: one dict per row, in order, its keys
    /// in the order the JSON document had them: `flow` (name), `kind`,
    /// `len`, `seq`, `time_ns` and `time_s`. The rows share their keys,
    /// flow names and kinds (one string object each).
    fn document<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let t = &self.trace;
        // The keys in the order the JSON document had them (sorted).
        let keys = ["flow", "kind", "len", "seq", "time_ns", "time_s"].map(|k| PyString::intern_bound(py, k));
        let flows: Vec<Bound<'py, PyString>> = self.flows.iter().map(|f| PyString::new_bound(py, f)).collect();
        let kinds: Vec<Bound<'py, PyString>> = t.kinds.iter().map(|k| PyString::intern_bound(py, k)).collect();
        let list = PyList::empty_bound(py);
        for i in 0..t.time_ns.len() {
            let row = PyDict::new_bound(py);
            row.set_item(&keys[0], &flows[t.flow[i] as usize])?;
            row.set_item(&keys[1], &kinds[t.kind[i] as usize])?;
            row.set_item(&keys[2], t.len[i])?;
            row.set_item(&keys[3], t.seq[i])?;
            row.set_item(&keys[4], t.time_ns[i])?;
            row.set_item(&keys[5], t.time_s[i])?;
            list.append(row)?;
        }
        Ok(list)
    }

    /// The columns by name, as `RunResult.trace` has them: `time_s`,
    /// `time_ns`, `flow` (the flow's name), `kind`, `seq` and `len`.
    fn columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let t = &self.trace;
        let d = PyDict::new_bound(py);
        d.set_item("time_s", held(py, Held::F64(t.time_s.clone()))?)?;
        d.set_item("time_ns", held(py, Held::U64(t.time_ns.clone()))?)?;
        d.set_item("flow", held(py, Held::Names { codes: t.flow.clone(), names: self.flows.clone() })?)?;
        let names = Arc::new(t.kinds.iter().map(|k| k.to_string()).collect());
        d.set_item("kind", held(py, Held::Names { codes: t.kind.clone(), names })?)?;
        d.set_item("seq", held(py, Held::OptU64(t.seq.clone()))?)?;
        d.set_item("len", held(py, Held::U64(t.len.clone()))?)?;
        Ok(d)
    }
}

/// Codes renumbered in the order each first occurs, and the names they
/// now index: a categorical column as a Parquet reader rebuilds it from a
/// dictionary-encoded one (`series_frame` makes its categories so).
fn first_appearance(codes: impl Iterator<Item = usize>, names: &[&str]) -> (Vec<i32>, Vec<String>) {
    let mut order: Vec<Option<i32>> = vec![None; names.len()];
    let mut used = Vec::new();
    let codes = codes
        .map(|c| {
            *order[c].get_or_insert_with(|| {
                used.push(names[c].to_string());
                (used.len() - 1) as i32
            })
        })
        .collect();
    (codes, used)
}

/// A run's time series, kept here until Python asks for it as the
/// document's columns or as the columns of series.parquet.
#[pyclass(frozen, module = "dupack._core")]
pub struct HeldSeries(Arc<dupack_sim::Series>);

impl HeldSeries {
    pub(crate) fn new(py: Python<'_>, s: dupack_sim::Series) -> PyResult<Py<Self>> {
        Py::new(py, HeldSeries(Arc::new(s)))
    }
}

/// Every variable's name, by number.
fn variable_names() -> Vec<&'static str> {
    use dupack_sim::observe::series::{variable_name, FLOW_VARIABLES, LINK_VARIABLES};
    (0..FLOW_VARIABLES.len() + LINK_VARIABLES.len()).map(|v| variable_name(v as u8)).collect()
}

#[pymethods]
impl HeldSeries {
    fn __len__(&self) -> usize {
        self.0.len()
    }

    /// The record limit cut the series short.
    #[getter]
    fn truncated(&self) -> bool {
        self.0.truncated
    }

    /// The document's `series` field: `entities` and `variables` (names),
    /// then per record `time_ns`, `entity` and `variable` (indices into
    /// those) and `value` (None for a value that is not finite, as JSON
    /// would carry it), and `truncated`; the keys in the order the JSON
    /// document had them (sorted).
    fn document<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = &self.0;
        let d = PyDict::new_bound(py);
        d.set_item("entities", PyList::new_bound(py, &s.entities))?;
        d.set_item("entity", PyList::new_bound(py, &s.entity))?;
        d.set_item("time_ns", PyList::new_bound(py, &s.time_ns))?;
        d.set_item("truncated", s.truncated)?;
        let value = s.value.iter().map(|&v| if v.is_finite() { v.into_py(py) } else { py.None() });
        d.set_item("value", PyList::new_bound(py, value))?;
        d.set_item("variable", PyList::new_bound(py, &s.variable))?;
        d.set_item("variables", PyList::new_bound(py, variable_names()))?;
        Ok(d)
    }

    /// The columns by name, as `RunResult.series` has them: `time_s`,
    /// `entity` and `variable` (each `(codes, categories)`, the categories
    /// in the order they first occur) and `value` (None where it is not
    /// finite).
    fn columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = &self.0;
        let d = PyDict::new_bound(py);
        d.set_item("time_s", held(py, Held::Seconds(self.0.clone()))?)?;
        let entities: Vec<&str> = s.entities.iter().map(String::as_str).collect();
        let (codes, names) = first_appearance(s.entity.iter().map(|&e| e as usize), &entities);
        let entity = [held(py, Held::Codes(codes))?.into_any(), names_list(py, names)];
        d.set_item("entity", PyTuple::new_bound(py, entity))?;
        let (codes, names) = first_appearance(s.variable.iter().map(|&v| v as usize), &variable_names());
        let variable = [held(py, Held::Codes(codes))?.into_any(), names_list(py, names)];
        d.set_item("variable", PyTuple::new_bound(py, variable))?;
        d.set_item("value", held(py, Held::Values(self.0.clone()))?)?;
        Ok(d)
    }
}

fn names_list(py: Python<'_>, names: Vec<String>) -> Py<PyAny> {
    PyList::new_bound(py, names).into_any().unbind()
}

/// A dictionary column's `(codes, categories)`: the codes kept here or a list.
pub(crate) fn dict_parts(values: &Bound<'_, PyAny>) -> PyResult<(Vec<i32>, Vec<String>)> {
    let (codes, categories): (Bound<'_, PyAny>, Vec<String>) = values.extract()?;
    let codes = match codes.downcast::<HeldColumn>() {
        Ok(h) => h.get().codes().map_err(PyValueError::new_err)?,
        Err(_) => codes.extract()?,
    };
    Ok((codes, categories))
}

#[cfg(test)]
mod tests {
    use super::first_appearance;

    #[test]
    fn categories_come_in_the_order_they_first_occur() {
        let names = ["cwnd", "ssthresh", "flight", "queue"];
        let (codes, used) = first_appearance([3, 0, 3, 2, 0].into_iter(), &names);
        assert_eq!(used, ["queue", "cwnd", "flight"]);
        assert_eq!(codes, [0, 1, 0, 2, 1]);
        let (codes, used) = first_appearance(std::iter::empty(), &names);
        assert!(codes.is_empty() && used.is_empty());
    }
}
