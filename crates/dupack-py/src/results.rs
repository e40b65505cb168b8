//! A sweep's tables as Python objects, over memory the core allocated and
//! lends (see [`crate::buffer`]): a result never passes through JSON text,
//! and the tables are not copied on the way to pandas.

use dupack_batch::columns::{Column, Values};
use dupack_batch::{Results, Rows};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::buffer::{Buffer, Owned};

/// `{"jobs": buffer, "runs": (rows, job buffer, seed buffer, {column: (kind, data, valid, width)}), …}`
pub(crate) fn into_python(py: Python<'_>, results: Results) -> PyResult<PyObject> {
    let out = PyDict::new_bound(py);
    out.set_item("jobs", Buffer::lend(py, Owned::U64(results.jobs))?)?;
    for Rows { name, job, seed, table } in results.tables {
        let cols = PyDict::new_bound(py);
        let rows = table.rows;
        for c in table.columns {
            cols.set_item(c.name, column(py, c)?)?;
        }
        let job = Buffer::lend(py, Owned::U64(job))?;
        let seed = Buffer::lend(py, Owned::U64(seed))?;
        out.set_item(name, PyTuple::new_bound(py, [rows.into_py(py), job, seed, cols.into_any().unbind()]))?;
    }
    Ok(out.into_any().unbind())
}

/// `(kind, data, valid, width)`: kind "u64", "i64", "f64" (little-endian
/// values), "bool" (one byte each), "str" (data = (i64 offsets, UTF-8 bytes):
/// Arrow's large-string buffers) or "null" (data None); valid is None or
/// one byte per row (0 = null). Every buffer is a [`Buffer`]: the column's
/// own memory, not a copy.
fn column(py: Python<'_>, c: Column) -> PyResult<PyObject> {
    let width = c.width.max(1);
    let valid = if c.has_nulls() { Buffer::lend(py, Owned::bools(c.valid))? } else { py.None() };
    let (kind, data): (&str, PyObject) = match c.values {
        Values::Null => ("null", py.None()),
        Values::U64(v) => ("u64", Buffer::lend(py, Owned::U64(v))?),
        Values::I64(v) => ("i64", Buffer::lend(py, Owned::I64(v))?),
        Values::F64(v) => ("f64", Buffer::lend(py, Owned::F64(v))?),
        Values::Bool(v) => ("bool", Buffer::lend(py, Owned::bools(v))?),
        Values::Str(v) => {
            let offsets = Buffer::lend(py, Owned::I64(v.offsets))?;
            let data = Buffer::lend(py, Owned::U8(v.data))?;
            ("str", PyTuple::new_bound(py, [offsets, data]).into_any().unbind())
        }
    };
    Ok(PyTuple::new_bound(py, [kind.into_py(py), data, valid, width.into_py(py)]).into_any().unbind())
}
