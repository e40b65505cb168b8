//! One result table as a Parquet file, without pyarrow.
//!
//! The binding's `write_parquet` hands over the columns of a table (flows,
//! links, media; a run's series and trace) typed as [`Column`]s, and the
//! schema's key-value metadata (pandas' description of the dtypes, dupack's
//! version and commit). The file is the one
//! `pyarrow.parquet.write_table(pa.Table.from_pandas(df))` writes in
//! everything a reader sees: the same Arrow schema (stored under
//! `ARROW:schema`, so large strings stay large strings), every field
//! nullable, a null wherever pandas had NaN or `<NA>`, the same metadata,
//! one row group (plain and uncompressed where pyarrow would use a
//! dictionary and Snappy: the tables are small, see [`write()`]).

use std::collections::HashMap;
use std::fs::File;
use std::sync::Arc;

use arrow_array::types::{Int16Type, Int32Type, Int8Type};
use arrow_array::{
    ArrayRef, DictionaryArray, Float64Array, Int16Array, Int32Array, Int64Array, Int8Array, LargeStringArray,
    StringArray, UInt64Array,
};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};

/// What [`batch()`] makes and [`write()`] writes.
pub use arrow_array::RecordBatch;

/// One column, typed as Arrow will store it; `None` is a null.
pub enum Column {
    U64(Vec<Option<u64>>),
    I64(Vec<Option<i64>>),
    F64(Vec<Option<f64>>),
    Str(Vec<Option<String>>),
    LargeStr(Vec<Option<String>>),
    /// A pandas Categorical: codes of `width` bytes into `categories`
    /// (Arrow's dictionary type, as pyarrow stores one). Made by
    /// [`Column::dict`], which checks the codes.
    Dict {
        codes: Vec<i32>,
        categories: Vec<String>,
        width: u8,
        large: bool,
    },
    /// An Arrow array built from raw buffers ([`Column::numbers_le`],
    /// [`Column::large_strings`]): a sweep's part, thousands of rows, made
    /// without a value-by-value copy.
    Array(ArrayRef),
}

/// `valid` (one byte a row, 0 for a null) as Arrow's validity bitmap; None
/// when every value is there, as pyarrow leaves it.
fn nulls(valid: Option<&[u8]>, rows: usize) -> Result<Option<NullBuffer>, String> {
    match valid {
        None => Ok(None),
        Some(v) if v.len() != rows => Err(format!("{} validity bytes for {rows} rows", v.len())),
        Some(v) if v.iter().all(|&b| b != 0) => Ok(None),
        Some(v) => Ok(Some(NullBuffer::from(v.iter().map(|&b| b != 0).collect::<Vec<bool>>()))),
    }
}

/// `data` as `rows` little-endian 8-byte words, each read by `value`.
fn words_le<T>(data: &[u8], rows: usize, value: fn([u8; 8]) -> T) -> Result<Vec<T>, String> {
    if data.len() != rows * 8 {
        return Err(format!("{} bytes for {rows} values of 8 bytes", data.len()));
    }
    Ok(data.chunks_exact(8).map(|c| value(c.try_into().expect("8 bytes"))).collect())
}

impl Column {
    /// A dictionary column of `width` bytes (1, 2 or 4) a code, its
    /// categories large strings if `large`; every code must name a
    /// category and fit the width.
    pub fn dict(codes: Vec<i32>, categories: Vec<String>, width: u8, large: bool) -> Result<Column, String> {
        let limit = 1i64 << (8 * width - 1);
        if let Some(c) = codes.iter().find(|&&c| c < 0 || c as usize >= categories.len() || i64::from(c) >= limit) {
            return Err(format!("code {c} outside the categories"));
        }
        Ok(Column::Dict { codes, categories, width, large })
    }

    /// Unsigned integers, None a null, as they come (no vector of them
    /// made first: a traced run's columns have millions of values).
    pub fn u64s(v: impl Iterator<Item = Option<u64>>) -> Column {
        Column::Array(Arc::new(v.collect::<UInt64Array>()))
    }

    /// Floats, None a null, as they come.
    pub fn f64s(v: impl Iterator<Item = Option<f64>>) -> Column {
        Column::Array(Arc::new(v.collect::<Float64Array>()))
    }

    /// Text given as indices into `names` (a trace's flows and kinds),
    /// without a string made a value; `large`: Arrow's large strings.
    pub fn text_by_code(codes: &[u32], names: &[String], large: bool) -> Column {
        let values = codes.iter().map(|&c| names[c as usize].as_str());
        Column::Array(if large {
            Arc::new(LargeStringArray::from_iter_values(values))
        } else {
            Arc::new(StringArray::from_iter_values(values))
        })
    }

    /// `rows` numbers of Arrow type `kind` (`uint64`, `int64`, `float64`)
    /// from 8-byte little-endian `data`, null where `valid` has a 0 byte
    /// (NaN in a float column stays a value).
    pub fn numbers_le(kind: &str, data: &[u8], rows: usize, valid: Option<&[u8]>) -> Result<Column, String> {
        let nulls = nulls(valid, rows)?;
        let array: ArrayRef = match kind {
            "uint64" => {
                Arc::new(UInt64Array::new(ScalarBuffer::from(words_le(data, rows, u64::from_le_bytes)?), nulls))
            }
            "int64" => Arc::new(Int64Array::new(ScalarBuffer::from(words_le(data, rows, i64::from_le_bytes)?), nulls)),
            "float64" => {
                Arc::new(Float64Array::new(ScalarBuffer::from(words_le(data, rows, f64::from_le_bytes)?), nulls))
            }
            other => return Err(format!("unknown column type {other:?}")),
        };
        Ok(Column::Array(array))
    }

    /// `rows` large strings from Arrow's buffers: `rows + 1` offsets as
    /// 8-byte little-endian integers into the UTF-8 `text`, null where
    /// `valid` has a 0 byte.
    pub fn large_strings(offsets: &[u8], text: Vec<u8>, rows: usize, valid: Option<&[u8]>) -> Result<Column, String> {
        let at = words_le(offsets, rows + 1, i64::from_le_bytes)?;
        if at[0] < 0 || at.windows(2).any(|w| w[1] < w[0]) {
            return Err("string offsets that are negative or go backwards".into());
        }
        let array = arrow_array::LargeStringArray::try_new(
            OffsetBuffer::new(ScalarBuffer::from(at)),
            Buffer::from_vec(text),
            nulls(valid, rows)?,
        )
        .map_err(|e| e.to_string())?;
        Ok(Column::Array(Arc::new(array)))
    }

    fn len(&self) -> usize {
        match self {
            Column::Array(a) => a.len(),
            Column::U64(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::F64(v) => v.len(),
            Column::Str(v) | Column::LargeStr(v) => v.len(),
            Column::Dict { codes, .. } => codes.len(),
        }
    }

    fn data_type(&self) -> DataType {
        match self {
            Column::Array(a) => a.data_type().clone(),
            Column::U64(_) => DataType::UInt64,
            Column::I64(_) => DataType::Int64,
            Column::F64(_) => DataType::Float64,
            Column::Str(_) => DataType::Utf8,
            Column::LargeStr(_) => DataType::LargeUtf8,
            Column::Dict { width, large, .. } => {
                let key = match width {
                    1 => DataType::Int8,
                    2 => DataType::Int16,
                    _ => DataType::Int32,
                };
                let value = if *large { DataType::LargeUtf8 } else { DataType::Utf8 };
                DataType::Dictionary(Box::new(key), Box::new(value))
            }
        }
    }

    fn into_array(self) -> ArrayRef {
        match self {
            Column::Array(a) => a,
            Column::U64(v) => Arc::new(UInt64Array::from(v)),
            Column::I64(v) => Arc::new(Int64Array::from(v)),
            Column::F64(v) => Arc::new(Float64Array::from(v)),
            Column::Str(v) => Arc::new(StringArray::from(v)),
            Column::LargeStr(v) => Arc::new(LargeStringArray::from(v)),
            Column::Dict { codes, categories, width, large } => {
                let values: ArrayRef = if large {
                    Arc::new(LargeStringArray::from(categories))
                } else {
                    Arc::new(StringArray::from(categories))
                };
                // The codes were checked against the categories and the width.
                match width {
                    1 => Arc::new(
                        DictionaryArray::<Int8Type>::try_new(
                            Int8Array::from_iter_values(codes.iter().map(|&c| c as i8)),
                            values,
                        )
                        .expect("checked codes"),
                    ),
                    2 => Arc::new(
                        DictionaryArray::<Int16Type>::try_new(
                            Int16Array::from_iter_values(codes.iter().map(|&c| c as i16)),
                            values,
                        )
                        .expect("checked codes"),
                    ),
                    _ => Arc::new(
                        DictionaryArray::<Int32Type>::try_new(Int32Array::from(codes), values).expect("checked codes"),
                    ),
                }
            }
        }
    }
}

/// `metadata` as the hash map an Arrow schema keeps it in, made so that it
/// iterates in the order of its keys. ArrowWriter stores the schema, its
/// metadata included, under `ARROW:schema` in the order the map iterates in,
/// which depends on the map's random hash keys; each new map has new ones,
/// so among a few maps one iterates in key order (1 in n! for n keys), and
/// the same table always makes the same file.
fn sorted_map(metadata: &[(String, String)]) -> HashMap<String, String> {
    let mut keys: Vec<&String> = metadata.iter().map(|(k, _)| k).collect();
    keys.sort();
    for _ in 0..100_000 {
        let map: HashMap<String, String> = metadata.iter().cloned().collect();
        if map.keys().eq(keys.iter().copied()) {
            return map;
        }
    }
    metadata.iter().cloned().collect() // more keys than this can sort: any order
}

/// The table as one Arrow record batch with `metadata` on its schema.
pub fn batch(columns: Vec<(String, Column)>, metadata: &[(String, String)]) -> Result<RecordBatch, String> {
    let rows = columns.first().map_or(0, |(_, c)| c.len());
    if let Some((name, c)) = columns.iter().find(|(_, c)| c.len() != rows) {
        return Err(format!("column {name:?} has {} values, the first column {rows}", c.len()));
    }
    let fields: Vec<Field> = columns.iter().map(|(name, c)| Field::new(name, c.data_type(), true)).collect();
    let schema = Arc::new(Schema::new(fields).with_metadata(sorted_map(metadata)));
    let arrays: Vec<ArrayRef> = columns.into_iter().map(|(_, c)| c.into_array()).collect();
    RecordBatch::try_new_with_options(
        schema,
        arrays,
        &arrow_array::RecordBatchOptions::new().with_row_count(Some(rows)),
    )
    .map_err(|e| e.to_string())
}

/// Write `batch` to `path`; `metadata` (the schema's) also goes into the
/// file's key-value metadata, where ArrowWriter does not put it and pyarrow
/// does. Statistics (min and max per column chunk) for every column, as
/// pyarrow writes by default, plain and uncompressed ([`Layout`]).
pub fn write(path: &str, batch: &RecordBatch, metadata: Vec<(String, String)>) -> Result<(), String> {
    write_with(path, batch, metadata, Layout::default())
}

/// How [`write_with`] writes a table.
#[derive(Clone, Copy, Debug, Default)]
pub struct Layout<'a> {
    /// Keep statistics (min and max per column chunk) only for these
    /// columns (pyarrow's `write_statistics=[…]`: a sweep's parts keep them
    /// for the job, grid and seed columns readers filter on); None: for all.
    pub statistics: Option<&'a [String]>,
    /// Dictionary encoding and Snappy compression, as pyarrow writes by
    /// default: for the thousands of rows of a sweep's part, where they make
    /// the file some twenty times smaller (most columns repeat a few
    /// values). Off: plain and uncompressed, for a run's tables of tens of
    /// rows, where a dictionary encoder costs more than the file.
    pub compact: bool,
}

/// [`write()`] with the [`Layout`] given.
pub fn write_with(
    path: &str,
    batch: &RecordBatch,
    metadata: Vec<(String, String)>,
    layout: Layout<'_>,
) -> Result<(), String> {
    let statistics = layout.statistics;
    let file = File::create(path).map_err(|e| e.to_string())?;
    let kv = metadata.into_iter().map(|(k, v)| KeyValue::new(k, v)).collect();
    // No page index, as pyarrow writes by default.
    let mut props = WriterProperties::builder()
        .set_compression(if layout.compact { Compression::SNAPPY } else { Compression::UNCOMPRESSED })
        .set_statistics_enabled(if statistics.is_some() { EnabledStatistics::None } else { EnabledStatistics::Chunk })
        .set_dictionary_enabled(layout.compact)
        .set_key_value_metadata(Some(kv));
    for name in statistics.unwrap_or_default() {
        props = props.set_column_statistics_enabled(
            parquet::schema::types::ColumnPath::from(name.as_str()),
            EnabledStatistics::Chunk,
        );
    }
    // A categorical column (a time series' entity and variable, repeated on
    // every row) is stored dictionary-encoded, as its type says it is.
    for f in batch.schema().fields() {
        if matches!(f.data_type(), DataType::Dictionary(..)) {
            props =
                props.set_column_dictionary_enabled(parquet::schema::types::ColumnPath::from(f.name().as_str()), true);
        }
    }
    let props = props.build();
    let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(props)).map_err(|e| e.to_string())?;
    writer.write(batch).map_err(|e| e.to_string())?;
    writer.close().map_err(|e| e.to_string())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::file::reader::{FileReader, SerializedFileReader};

    #[test]
    fn schema_nulls_and_metadata_survive_the_file() {
        let dir = std::env::temp_dir().join(format!("dupack-tables-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.parquet");
        let columns = vec![
            ("flow".to_string(), Column::LargeStr(vec![Some("f0".into()), Some("f1".into())])),
            ("n".to_string(), Column::U64(vec![Some(u64::MAX), None])),
            ("x".to_string(), Column::F64(vec![Some(0.5), None])),
        ];
        let meta: Vec<(String, String)> = vec![
            ("pandas".into(), "{}".into()),
            ("dupack_version".into(), "0.1.0".into()),
            ("dupack_commit".into(), "x".into()),
        ];
        let b = batch(columns, &meta).unwrap();
        write(path.to_str().unwrap(), &b, meta.clone()).unwrap();
        let first = std::fs::read(&path).unwrap();
        let b = batch(
            vec![
                ("flow".to_string(), Column::LargeStr(vec![Some("f0".into()), Some("f1".into())])),
                ("n".to_string(), Column::U64(vec![Some(u64::MAX), None])),
                ("x".to_string(), Column::F64(vec![Some(0.5), None])),
            ],
            &meta,
        )
        .unwrap();
        write(path.to_str().unwrap(), &b, meta).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), first, "the same table makes the same bytes");
        let reader = SerializedFileReader::new(File::open(&path).unwrap()).unwrap();
        let meta = reader.metadata().file_metadata();
        assert_eq!(meta.num_rows(), 2);
        let kv = meta.key_value_metadata().unwrap();
        assert!(kv.iter().any(|k| k.key == "dupack_version" && k.value.as_deref() == Some("0.1.0")));
        assert!(kv.iter().any(|k| k.key == "pandas" && k.value.as_deref() == Some("{}")));
        assert!(kv.iter().any(|k| k.key == "ARROW:schema"));
        let schema = meta.schema_descr();
        assert_eq!(schema.num_columns(), 3);
        assert!(schema.columns().iter().all(|c| c.self_type().is_optional()));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn statistics_only_for_the_columns_named() {
        let dir = std::env::temp_dir().join(format!("dupack-stats-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.parquet");
        let columns = || {
            vec![
                ("job".to_string(), Column::I64(vec![Some(3), Some(7)])),
                ("x".to_string(), Column::F64(vec![Some(0.5), Some(1.5)])),
            ]
        };
        let chunk_stats = |path: &std::path::Path| -> Vec<bool> {
            let reader = SerializedFileReader::new(File::open(path).unwrap()).unwrap();
            let rg = reader.metadata().row_group(0);
            (0..rg.num_columns()).map(|i| rg.column(i).statistics().is_some()).collect()
        };
        let p = path.to_str().unwrap();
        let job = ["job".to_string()];
        let layout = Layout { statistics: Some(&job), compact: true };
        write_with(p, &batch(columns(), &[]).unwrap(), vec![], layout).unwrap();
        assert_eq!(chunk_stats(&path), [true, false]);
        write(p, &batch(columns(), &[]).unwrap(), vec![]).unwrap();
        assert_eq!(chunk_stats(&path), [true, true], "write() keeps them for every column");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn dictionary_codes_must_name_a_category_and_fit_the_width() {
        let cats = || vec!["a".to_string(), "b".to_string()];
        assert!(Column::dict(vec![0, 1, 1], cats(), 1, true).is_ok());
        assert_eq!(Column::dict(vec![0, 2], cats(), 1, true).err().unwrap(), "code 2 outside the categories");
        assert!(Column::dict(vec![-1], cats(), 1, false).is_err());
        let many: Vec<String> = (0..200).map(|i| i.to_string()).collect();
        assert!(Column::dict(vec![128], many.clone(), 1, false).is_err(), "an 8-bit code is at most 127");
        assert!(Column::dict(vec![128], many, 2, false).is_ok());
    }

    #[test]
    fn raw_buffers_become_arrays_with_their_nulls() {
        let le = |v: &[u64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let Column::Array(a) = Column::numbers_le("uint64", &le(&[1, 2, u64::MAX]), 3, Some(&[1, 0, 1])).unwrap()
        else {
            panic!("an array")
        };
        let a = a.as_any().downcast_ref::<UInt64Array>().unwrap();
        assert_eq!(a.iter().collect::<Vec<_>>(), [Some(1), None, Some(u64::MAX)]);
        // All present: no validity bitmap, as pyarrow leaves it.
        let Column::Array(a) = Column::numbers_le("int64", &le(&[5]), 1, Some(&[1])).unwrap() else { panic!() };
        assert!(a.nulls().is_none());
        let nan = f64::NAN.to_bits();
        let Column::Array(a) = Column::numbers_le("float64", &le(&[nan]), 1, None).unwrap() else { panic!() };
        assert!(a.as_any().downcast_ref::<Float64Array>().unwrap().value(0).is_nan(), "NaN stays a value");
        assert!(Column::numbers_le("uint64", &le(&[1]), 2, None).is_err(), "8 bytes for 2 rows");
        assert!(Column::numbers_le("uint64", &le(&[1]), 1, Some(&[1, 1])).is_err(), "2 validity bytes for 1 row");
        assert!(Column::numbers_le("int8", &le(&[1]), 1, None).is_err());
        let offsets = |v: &[i64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let Column::Array(a) =
            Column::large_strings(&offsets(&[0, 2, 2, 5]), b"f0abc".to_vec(), 3, Some(&[1, 0, 1])).unwrap()
        else {
            panic!()
        };
        let a = a.as_any().downcast_ref::<LargeStringArray>().unwrap();
        assert_eq!(a.iter().collect::<Vec<_>>(), [Some("f0"), None, Some("abc")]);
        assert!(Column::large_strings(&offsets(&[0, 3, 2]), b"abc".to_vec(), 2, None).is_err(), "backwards");
        assert!(Column::large_strings(&offsets(&[0, 9]), b"abc".to_vec(), 1, None).is_err(), "past the text");
        assert!(Column::large_strings(&offsets(&[0, 1]), vec![0xff], 1, None).is_err(), "not UTF-8");
    }

    #[test]
    fn columns_of_different_lengths_are_refused() {
        let columns =
            vec![("a".to_string(), Column::U64(vec![Some(1)])), ("b".to_string(), Column::U64(vec![Some(1), Some(2)]))];
        assert!(batch(columns, &[]).is_err());
    }
}
