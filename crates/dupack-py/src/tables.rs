//! `write_parquet` and `write_part`: one result table as a Parquet file,
//! without pyarrow.
//!
//! `RunResult.save` (python/dupack/result.py) hands over the columns of a
//! table (flows, links, media) as Python lists, each with the Arrow type the
//! pandas path would give it, and the schema's key-value metadata. A sweep's
//! store (python/dupack/sweeps.py) hands over a part's columns as the
//! buffers the core lent it (`Buffer`), so that `dupack sweep` stores its
//! results without importing numpy or pyarrow. Here they become
//! `dupack_batch::parquet` columns, which that module writes as pyarrow
//! would.

use crate::held::{dict_parts, HeldColumn};
use dupack_batch::parquet::{self, Column};
use pyo3::buffer::PyBuffer;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

/// One column as it comes from Python, checked and typed.
fn extract(kind: &str, values: &Bound<'_, PyAny>) -> PyResult<Column> {
    if let Ok(h) = values.downcast::<HeldColumn>() {
        return h.get().column(kind).map_err(PyValueError::new_err);
    }
    Ok(match kind {
        "uint64" => Column::U64(values.extract()?),
        "int64" => Column::I64(values.extract()?),
        // pandas' float columns have NaN for a missing value, which
        // pyarrow's from_pandas stores as a null.
        "float64" => {
            let v: Vec<Option<f64>> = values.extract()?;
            Column::F64(v.into_iter().map(|x| x.filter(|f| !f.is_nan())).collect())
        }
        "string" => Column::Str(values.extract()?),
        "large_string" => Column::LargeStr(values.extract()?),
        // "dict8:large_string" …: (codes, categories).
        kind if kind.starts_with("dict") => {
            let (width, values_type) = kind[4..].split_once(':').unwrap_or(("", ""));
            let width = match width {
                "8" => 1,
                "16" => 2,
                "32" => 4,
                _ => return Err(PyValueError::new_err(format!("write_parquet: unknown column type {kind:?}"))),
            };
            let large = values_type == "large_string";
            let (codes, categories) = dict_parts(values)?;
            Column::dict(codes, categories, width, large)
                .map_err(|e| PyValueError::new_err(format!("write_parquet: {e}")))?
        }
        other => return Err(PyValueError::new_err(format!("write_parquet: unknown column type {other:?}"))),
    })
}

/// write_parquet(path, columns, metadata) -> None
///
/// Write one table to `path`. `columns` is a list of `(name, type, values)`
/// with `type` one of `uint64`, `int64`, `float64`, `string`,
/// `large_string` (Arrow's names) and `values` a list in which `None` (and
/// NaN in a float column) is a null, or a `HeldColumn` of a traced run
/// (a dictionary type's codes, too); `metadata` is a list of `(key, value)`
/// for the schema. Raises ValueError for a value that does not fit its type
/// and OSError if the file cannot be written.
#[pyfunction]
pub(crate) fn write_parquet(
    py: Python<'_>,
    path: &str,
    columns: Vec<(String, String, Bound<'_, PyAny>)>,
    metadata: Vec<(String, String)>,
) -> PyResult<()> {
    let mut typed = Vec::with_capacity(columns.len());
    for (name, kind, values) in &columns {
        let column = extract(kind, values)
            .map_err(|e| PyValueError::new_err(format!("write_parquet: column {name:?} ({kind}): {e}")))?;
        typed.push((name.clone(), column));
    }
    let batch = parquet::batch(typed, &metadata).map_err(|e| PyValueError::new_err(format!("write_parquet: {e}")))?;
    py.allow_threads(|| parquet::write(path, &batch, metadata))
        .map_err(|e| PyOSError::new_err(format!("cannot write {path}: {e}")))
}

/// The bytes of any object with the buffer protocol (a `Buffer`, `bytes`, a
/// memoryview), copied.
fn bytes_of(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    PyBuffer::<u8>::get_bound(obj)?.to_vec(py)
}

/// A part column's bytes, copied out of Python's buffers while the GIL is
/// held: (Arrow type, data, for a large string the text, validity).
struct PartBytes {
    kind: String,
    data: Vec<u8>,
    text: Option<Vec<u8>>,
    valid: Option<Vec<u8>>,
}

impl PartBytes {
    fn take(
        py: Python<'_>,
        kind: &str,
        data: &Bound<'_, PyAny>,
        valid: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PartBytes> {
        let valid = valid.map(|v| bytes_of(py, v)).transpose()?;
        let (data, text) = if kind == "large_string" {
            // Arrow's large-string buffers: (rows + 1 offsets of 8 bytes, UTF-8 bytes).
            let (offsets, text): (Bound<'_, PyAny>, Bound<'_, PyAny>) = data.extract()?;
            (bytes_of(py, &offsets)?, Some(bytes_of(py, &text)?))
        } else {
            (bytes_of(py, data)?, None)
        };
        Ok(PartBytes { kind: kind.to_owned(), data, text, valid })
    }

    /// The column (no Python object is touched: runs without the GIL).
    fn column(self, rows: usize) -> Result<Column, String> {
        match self.text {
            Some(text) => Column::large_strings(&self.data, text, rows, self.valid.as_deref()),
            // NaN stays a value: a sweep's float columns carry their missing values as NaN, as pandas does.
            None => Column::numbers_le(&self.kind, &self.data, rows, self.valid.as_deref()),
        }
    }
}

/// A part column as Python hands it over: (name, Arrow type, data, validity).
type PartColumn<'py> = (String, String, Bound<'py, PyAny>, Option<Bound<'py, PyAny>>);

/// write_part(path, rows, columns, metadata, statistics, compact) -> None
///
/// Write one part of a sweep's table to `path`: `rows` rows, `columns` a
/// list of `(name, type, data, valid)` with `type` one of `uint64`,
/// `int64`, `float64` (8-byte little-endian values in `data`, any object
/// with the buffer protocol) or `large_string` (`data` a pair: the rows + 1
/// offsets as 8-byte integers, and the UTF-8 bytes), and `valid` None or
/// one byte a row, 0 where the value is null; `metadata` the schema's
/// `(key, value)` pairs; `statistics` the columns whose min and max the
/// file keeps; `compact`: dictionary-encoded and Snappy-compressed, as
/// pyarrow writes (else plain and uncompressed, cheaper for a few rows).
/// Raises ValueError for buffers that do not fit and OSError if
/// the file cannot be written.
#[pyfunction]
pub(crate) fn write_part(
    py: Python<'_>,
    path: &str,
    rows: usize,
    columns: Vec<PartColumn<'_>>,
    metadata: Vec<(String, String)>,
    statistics: Vec<String>,
    compact: bool,
) -> PyResult<()> {
    let mut raw = Vec::with_capacity(columns.len());
    for (name, kind, data, valid) in &columns {
        let bytes = PartBytes::take(py, kind, data, valid.as_ref())
            .map_err(|e| PyValueError::new_err(format!("write_part: column {name:?} ({kind}): {e}")))?;
        raw.push((name.clone(), bytes));
    }
    // Only the copies above need the GIL: the columns are built, encoded and
    // written without it, so that a sweep's store writes a chunk's tables on
    // several threads at once (python/dupack/sweep_store.py, _write_all).
    enum Failed {
        Value(String),
        Os(String),
    }
    let layout = parquet::Layout { statistics: Some(&statistics), compact };
    let written = py.allow_threads(|| {
        let mut typed = Vec::with_capacity(raw.len());
        for (name, bytes) in raw {
            let kind = bytes.kind.clone();
            let column =
                bytes.column(rows).map_err(|e| Failed::Value(format!("write_part: column {name:?} ({kind}): {e}")))?;
            typed.push((name, column));
        }
        let batch = parquet::batch(typed, &metadata).map_err(|e| Failed::Value(format!("write_part: {e}")))?;
        parquet::write_with(path, &batch, metadata, layout).map_err(|e| Failed::Os(format!("cannot write {path}: {e}")))
    });
    written.map_err(|f| match f {
        Failed::Value(m) => PyValueError::new_err(m),
        Failed::Os(m) => PyOSError::new_err(m),
    })
}
