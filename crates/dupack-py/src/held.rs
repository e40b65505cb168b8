//! `HeldColumn`: a column of a run's trace or time series kept in the
//! extension, for `write_parquet`.
//!
//! A traced run hands Python its trace as rows (the document's `trace`
//! field) and its series as the core's columns; `RunResult.save` used to
//! turn both back into typed columns in Python, a value at a time (0.35 s
//! of the 0.58 s of `dupack run --trace-all` on a ten-flow dumbbell over
//! 200 s). The same columns are made here, from the run's records, when
//! the run ends, and `write_parquet` takes them as they are: Python only
//! passes them along.

use crate::buffer::{Buffer, Owned};
use dupack_batch::observed::trace_rows;
use dupack_batch::parquet::Column;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

/// The values of one column.
pub(crate) enum Held {
    U64(Vec<Option<u64>>),
    F64(Vec<Option<f64>>),
    /// Text, each value an index into `names` (a trace's flow and kind).
    Names {
        codes: Vec<u32>,
        names: Vec<String>,
    },
    /// A categorical column's codes; its categories travel beside it.
    Codes(Vec<i32>),
}

/// One column of a run's trace or series, written by `write_parquet` as a
/// column of the Arrow type it is given with.
#[pyclass(frozen, module = "dupack._core")]
pub struct HeldColumn(Held);

#[pymethods]
impl HeldColumn {
    /// The values for numpy (`frombuffer`), copied: `(values, valid)` for
    /// numbers (unsigned 64-bit or float, a missing value 0 and NaN; `valid`
    /// one byte per value, 1 where there is one, or None with none missing),
    /// `(codes, names)` for text (codes unsigned 64-bit), `(codes, None)`
    /// for a categorical column's codes (signed 64-bit).
    fn values(&self, py: Python<'_>) -> PyResult<(PyObject, PyObject)> {
        fn valid<T>(py: Python<'_>, v: &[Option<T>]) -> PyResult<PyObject> {
            if v.iter().all(Option::is_some) {
                return Ok(py.None());
            }
            Buffer::lend(py, Owned::U8(v.iter().map(|x| u8::from(x.is_some())).collect()))
        }
        Ok(match &self.0 {
            Held::U64(v) => (Buffer::lend(py, Owned::U64(v.iter().map(|x| x.unwrap_or(0)).collect()))?, valid(py, v)?),
            Held::F64(v) => {
                (Buffer::lend(py, Owned::F64(v.iter().map(|x| x.unwrap_or(f64::NAN)).collect()))?, valid(py, v)?)
            }
            Held::Names { codes, names } => (
                Buffer::lend(py, Owned::U64(codes.iter().map(|&c| u64::from(c)).collect()))?,
                PyList::new_bound(py, names).into_any().unbind(),
            ),
            Held::Codes(v) => (Buffer::lend(py, Owned::I64(v.iter().map(|&c| i64::from(c)).collect()))?, py.None()),
        })
    }

    fn __len__(&self) -> usize {
        match &self.0 {
            Held::U64(v) => v.len(),
            Held::F64(v) => v.len(),
            Held::Names { codes, .. } => codes.len(),
            Held::Codes(v) => v.len(),
        }
    }
}

impl HeldColumn {
    /// The column as Arrow type `kind` (`write_parquet`'s names); for a
    /// dictionary `kind`, its codes, to go with the categories beside it.
    pub(crate) fn column(&self, kind: &str) -> Result<Column, String> {
        Ok(match (&self.0, kind) {
            (Held::U64(v), "uint64") => Column::U64(v.clone()),
            (Held::F64(v), "float64") => Column::F64(v.clone()),
            (Held::Names { codes, names }, "string" | "large_string") => {
                let text = codes.iter().map(|&c| Some(names[c as usize].clone())).collect();
                if kind == "string" {
                    Column::Str(text)
                } else {
                    Column::LargeStr(text)
                }
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
            Held::U64(_) => "unsigned integers",
            Held::F64(_) => "floats",
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
    pub time_s: Vec<f64>,
    pub time_ns: Vec<u64>,
    /// The flow's index in the scenario.
    pub flow: Vec<u32>,
    /// An index into `kinds`, the kinds in the order they first occur.
    pub kind: Vec<u32>,
    pub kinds: Vec<&'static str>,
    pub seq: Vec<Option<u64>>,
    pub len: Vec<u64>,
}

impl Trace {
    pub(crate) fn of(records: &[dupack_sim::TraceRecord]) -> Trace {
        let mut t = Trace {
            time_s: Vec::new(),
            time_ns: Vec::new(),
            flow: Vec::new(),
            kind: Vec::new(),
            kinds: Vec::new(),
            seq: Vec::new(),
            len: Vec::new(),
        };
        for (at, flow, kind, seq, len) in records.iter().flat_map(trace_rows) {
            let code = match t.kinds.iter().position(|&k| k == kind) {
                Some(i) => i,
                None => {
                    t.kinds.push(kind);
                    t.kinds.len() - 1
                }
            };
            t.time_s.push(at.as_secs_f64());
            t.time_ns.push(at.as_nanos());
            t.flow.push(flow);
            t.kind.push(code as u32);
            t.seq.push(seq);
            t.len.push(len);
        }
        t
    }

    /// The columns by name, as `RunResult.trace` has them: `time_s`,
    /// `time_ns`, `flow` (the flow's name), `kind`, `seq` and `len`.
    pub(crate) fn into_columns<'py>(
        self,
        py: Python<'py>,
        scenario: &dupack_sim::Scenario,
    ) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new_bound(py);
        d.set_item("time_s", held(py, Held::F64(self.time_s.into_iter().map(Some).collect()))?)?;
        d.set_item("time_ns", held(py, Held::U64(self.time_ns.into_iter().map(Some).collect()))?)?;
        let names = scenario.flows.iter().map(|f| f.name.clone()).collect();
        d.set_item("flow", held(py, Held::Names { codes: self.flow, names })?)?;
        let names = self.kinds.iter().map(|k| k.to_string()).collect();
        d.set_item("kind", held(py, Held::Names { codes: self.kind, names })?)?;
        d.set_item("seq", held(py, Held::U64(self.seq))?)?;
        d.set_item("len", held(py, Held::U64(self.len.into_iter().map(Some).collect()))?)?;
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

/// The series' columns by name, as `RunResult.series` has them: `time_s`,
/// `entity` and `variable` (each `(codes, categories)`, the categories in
/// the order they first occur) and `value` (None where it is not finite).
pub(crate) fn series_columns<'py>(py: Python<'py>, s: &dupack_sim::Series) -> PyResult<Bound<'py, PyDict>> {
    use dupack_sim::observe::series::{variable_name, FLOW_VARIABLES, LINK_VARIABLES};
    let d = PyDict::new_bound(py);
    // t / 1e9 in f64, as Python divides an integer by a float below 2^53.
    let time_s = s.time_ns.iter().map(|&t| Some(t as f64 / 1e9)).collect();
    d.set_item("time_s", held(py, Held::F64(time_s))?)?;
    let entities: Vec<&str> = s.entities.iter().map(String::as_str).collect();
    let (codes, names) = first_appearance(s.entity.iter().map(|&e| e as usize), &entities);
    d.set_item("entity", PyTuple::new_bound(py, [held(py, Held::Codes(codes))?.into_any(), names_list(py, names)]))?;
    let variables: Vec<&str> =
        (0..FLOW_VARIABLES.len() + LINK_VARIABLES.len()).map(|v| variable_name(v as u8)).collect();
    let (codes, names) = first_appearance(s.variable.iter().map(|&v| v as usize), &variables);
    d.set_item("variable", PyTuple::new_bound(py, [held(py, Held::Codes(codes))?.into_any(), names_list(py, names)]))?;
    let value = s.value.iter().map(|&v| v.is_finite().then_some(v)).collect();
    d.set_item("value", held(py, Held::F64(value))?)?;
    Ok(d)
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
