//! `write_parquet`: one result table as a Parquet file, without pyarrow.
//!
//! `RunResult.save` (python/dupack/result.py) hands over the columns of a
//! table (flows, links, media) as Python lists, each with the Arrow type the
//! pandas path would give it, and the schema's key-value metadata. Here
//! they become `dupack_batch::parquet` columns, which that module writes as
//! pyarrow would.

use dupack_batch::parquet::{self, Column};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

/// One column as it comes from Python, checked and typed.
fn extract(kind: &str, values: &Bound<'_, PyAny>) -> PyResult<Column> {
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
            let (codes, categories): (Vec<i32>, Vec<String>) = values.extract()?;
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
/// NaN in a float column) is a null; `metadata` is a list of `(key, value)`
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
