//! Result structs → columns, for `sweep`.
//!
//! A [`Table`] collects rows of one result struct (`FlowResult`, …) as one
//! typed vector per field. Rows go in through serde, so the columns are
//! exactly the fields the JSON of `run` has, with the same names and in the
//! same order, and a field added to `metrics/result.rs` appears here without
//! a change. The values are those the JSON would carry after a round trip:
//! `None` is a null, and a non-finite float is NaN (serde_json writes it as
//! null, which the Python tables read as NaN). A fixed-size array field
//! (`ndup_at_timeout`) is one column with several values per row.
//!
//! Tables of the same struct combine by row ranges ([`Table::append_rows`]:
//! each sweep worker fills its own, the coordinator merges them in job
//! order) and part of a table copies out ([`Table::copy_from_row`]: a
//! chunk for the store).

use serde::ser::{self, Impossible, Serialize};
use std::fmt;

/// The values of one column; a column that has seen only nulls so far is `Null`.
#[derive(Debug)]
pub enum Values {
    Null,
    U64(Vec<u64>),
    I64(Vec<i64>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
    Str(Strings),
}

impl Values {
    /// No values, of the kind of `v`.
    fn kind_of(v: &Scalar<'_>) -> Values {
        match v {
            Scalar::U64(_) => Values::U64(Vec::new()),
            Scalar::I64(_) => Values::I64(Vec::new()),
            Scalar::F64(_) => Values::F64(Vec::new()),
            Scalar::Bool(_) => Values::Bool(Vec::new()),
            Scalar::Str(_) => Values::Str(Strings::new()),
        }
    }

    /// No values, of the same kind as `self`.
    fn empty_like(&self) -> Values {
        match self {
            Values::Null => Values::Null,
            Values::U64(_) => Values::U64(Vec::new()),
            Values::I64(_) => Values::I64(Vec::new()),
            Values::F64(_) => Values::F64(Vec::new()),
            Values::Bool(_) => Values::Bool(Vec::new()),
            Values::Str(_) => Values::Str(Strings::new()),
        }
    }

    /// Append `n` placeholders, the values a null row holds: 0, NaN (a null
    /// float after the JSON round trip), false, "".
    fn pad(&mut self, n: usize) {
        match self {
            Values::Null => {}
            Values::U64(v) => v.extend(std::iter::repeat_n(0, n)),
            Values::I64(v) => v.extend(std::iter::repeat_n(0, n)),
            Values::F64(v) => v.extend(std::iter::repeat_n(f64::NAN, n)),
            Values::Bool(v) => v.extend(std::iter::repeat_n(false, n)),
            Values::Str(v) => (0..n).for_each(|_| v.push("")),
        }
    }
}

/// A string column in Arrow's large-string layout: the values' UTF-8 bytes
/// one after another, and where each value starts. Python hands both
/// buffers to Arrow as they are; a value costs a copy of its few bytes,
/// neither an allocation nor a hash.
#[derive(Debug)]
pub struct Strings {
    /// `offsets[i]..offsets[i + 1]` is value `i` in `data`; one more than the values.
    pub offsets: Vec<i64>,
    pub data: Vec<u8>,
}

impl Strings {
    fn new() -> Strings {
        Strings { offsets: vec![0], data: Vec::new() }
    }

    fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    fn push(&mut self, v: &str) {
        self.data.extend_from_slice(v.as_bytes());
        self.offsets.push(self.data.len() as i64);
    }
}

#[derive(Debug)]
pub struct Column {
    pub name: &'static str,
    pub values: Values,
    /// One entry per row; false where the row's value is null. Empty while
    /// the column has no null.
    pub valid: Vec<bool>,
    nullable: bool,
    /// Values per row (more than one for an array field); 0 until known.
    pub width: usize,
    /// Rows filled so far (a row whose struct left the field out is null).
    rows: usize,
    /// Values pushed in the current row.
    in_row: usize,
}

impl Column {
    fn new(name: &'static str, rows_before: usize) -> Column {
        let mut c =
            Column { name, values: Values::Null, valid: Vec::new(), nullable: false, width: 0, rows: 0, in_row: 0 };
        for _ in 0..rows_before {
            c.null_row();
        }
        c
    }

    fn len(&self) -> usize {
        match &self.values {
            Values::Null => self.rows,
            Values::U64(v) => v.len(),
            Values::I64(v) => v.len(),
            Values::F64(v) => v.len(),
            Values::Bool(v) => v.len(),
            Values::Str(v) => v.len(),
        }
    }

    /// Whether any row is null.
    pub fn has_nulls(&self) -> bool {
        self.nullable
    }

    fn mark(&mut self, valid: bool) {
        if !valid && !self.nullable {
            self.valid = vec![true; self.rows];
            self.nullable = true;
        }
        if self.nullable {
            self.valid.push(valid);
        }
    }

    fn null_row(&mut self) {
        self.values.pad(self.width.max(1));
        self.mark(false);
        self.rows += 1;
    }

    /// The first non-null value fixes the column's type (that of `kind`);
    /// the nulls before it get placeholders.
    fn typed(&mut self, kind: Values) {
        if matches!(self.values, Values::Null) {
            self.values = kind;
            self.values.pad(self.rows * self.width.max(1));
        }
    }

    /// Append rows `rows` of `o`, a column of the same field in another table.
    fn append_from(&mut self, o: &Column, rows: std::ops::Range<usize>) -> Result<(), Error> {
        let name = self.name;
        if self.width == 0 {
            self.width = o.width;
        } else if o.width != 0 && o.width != self.width {
            return Err(Error::new(format!(
                "field {name:?} has {} values in one row and {} in another",
                o.width, self.width
            )));
        }
        if matches!(o.values, Values::Null) {
            rows.for_each(|_| self.null_row());
            return Ok(());
        }
        self.typed(o.values.empty_like());
        let w = self.width.max(1);
        let (a, b) = (rows.start * w, rows.end * w);
        match (&mut self.values, &o.values) {
            (Values::U64(v), Values::U64(x)) => v.extend_from_slice(&x[a..b]),
            (Values::I64(v), Values::I64(x)) => v.extend_from_slice(&x[a..b]),
            (Values::F64(v), Values::F64(x)) => v.extend_from_slice(&x[a..b]),
            (Values::Bool(v), Values::Bool(x)) => v.extend_from_slice(&x[a..b]),
            (Values::Str(v), Values::Str(x)) => {
                let (from, to) = (x.offsets[a], x.offsets[b]);
                let shift = v.data.len() as i64 - from;
                v.data.extend_from_slice(&x.data[from as usize..to as usize]);
                v.offsets.extend(x.offsets[a + 1..=b].iter().map(|o| o + shift));
            }
            _ => return Err(Error::new(format!("field {name:?} changed its type between two tables"))),
        }
        if o.nullable || self.nullable {
            for r in rows {
                self.mark(!o.nullable || o.valid[r]);
                self.rows += 1;
            }
        } else {
            self.rows += rows.len();
        }
        Ok(())
    }

    /// No rows; the column keeps its type, its width and its memory.
    fn clear(&mut self) {
        match &mut self.values {
            Values::Null => {}
            Values::U64(v) => v.clear(),
            Values::I64(v) => v.clear(),
            Values::F64(v) => v.clear(),
            Values::Bool(v) => v.clear(),
            Values::Str(v) => {
                v.offsets.truncate(1);
                v.data.clear();
            }
        }
        self.valid.clear();
        self.nullable = false;
        self.rows = 0;
        self.in_row = 0;
    }

    /// The common case in one branch: the column already holds this type
    /// (inlined, so that with the value's type known the match is one test).
    #[inline(always)]
    fn push(&mut self, v: Scalar<'_>) -> Result<(), Error> {
        match (&mut self.values, &v) {
            (Values::U64(c), &Scalar::U64(x)) => c.push(x),
            (Values::F64(c), &Scalar::F64(x)) => c.push(if x.is_finite() { x } else { f64::NAN }),
            (Values::Str(c), &Scalar::Str(x)) => c.push(x),
            (Values::I64(c), &Scalar::I64(x)) => c.push(x),
            (Values::Bool(c), &Scalar::Bool(x)) => c.push(x),
            _ => return self.push_first(v),
        }
        self.in_row += 1;
        Ok(())
    }

    /// The first value of a column (which fixes its type), or a type mismatch.
    #[cold]
    #[inline(never)]
    fn push_first(&mut self, v: Scalar<'_>) -> Result<(), Error> {
        if !matches!(self.values, Values::Null) {
            let what = match v {
                Scalar::U64(_) => "an unsigned integer",
                Scalar::I64(_) => "a signed integer",
                Scalar::F64(_) => "a float",
                Scalar::Bool(_) => "a boolean",
                Scalar::Str(_) => "a string",
            };
            return Err(Error::new(format!("field {:?} changed its type (now {what})", self.name)));
        }
        self.typed(Values::kind_of(&v));
        self.push(v) // now of the column's type
    }

    #[inline(always)]
    fn end_row(&mut self, null: bool) -> Result<(), Error> {
        // The common case: one value in a row of a column without nulls.
        if !null && self.width == 1 && self.in_row == 1 && !self.nullable {
            self.in_row = 0;
            self.rows += 1;
            return Ok(());
        }
        self.end_row_slow(null)
    }

    #[cold]
    #[inline(never)]
    fn end_row_slow(&mut self, null: bool) -> Result<(), Error> {
        if null {
            self.null_row();
            return Ok(());
        }
        let n = std::mem::take(&mut self.in_row);
        if self.width == 0 {
            if n == 0 {
                return Err(Error::new(format!("field {:?} has no value", self.name)));
            }
            if n > 1 && self.rows > 0 {
                // Nulls before the first array value got one placeholder each.
                return Err(Error::new(format!("field {:?} is an array after null rows", self.name)));
            }
            self.width = n;
        } else if n != self.width {
            return Err(Error::new(format!(
                "field {:?} has {n} values in one row and {} in another",
                self.name, self.width
            )));
        }
        self.mark(true);
        self.rows += 1;
        debug_assert_eq!(self.len(), self.rows * self.width.max(1));
        Ok(())
    }
}

enum Scalar<'s> {
    U64(u64),
    I64(i64),
    F64(f64),
    Bool(bool),
    Str(&'s str),
}

/// Rows of one struct type, as columns.
#[derive(Debug, Default)]
pub struct Table {
    pub columns: Vec<Column>,
    pub rows: usize,
}

impl Table {
    /// Append rows `rows` of `other`, a table of the same struct (whose
    /// columns may have met their first non-null value at another time).
    pub fn append_rows(&mut self, other: &Table, rows: std::ops::Range<usize>) -> Result<(), Error> {
        for (k, oc) in other.columns.iter().enumerate() {
            let i = match self.columns.get(k) {
                Some(c) if std::ptr::eq(c.name, oc.name) || c.name == oc.name => k,
                _ => match self.columns.iter().position(|c| c.name == oc.name) {
                    Some(i) => i,
                    None => {
                        let at = k.min(self.columns.len());
                        self.columns.insert(at, Column::new(oc.name, self.rows));
                        at
                    }
                },
            };
            self.columns[i].append_from(oc, rows.clone())?;
        }
        self.rows += rows.len();
        for c in &mut self.columns {
            while c.rows < self.rows {
                c.null_row(); // a field the other table never had
            }
        }
        Ok(())
    }

    /// No rows; the columns keep their types and their memory.
    pub fn clear(&mut self) {
        self.columns.iter_mut().for_each(Column::clear);
        self.rows = 0;
    }

    /// A copy of the rows from `from` on.
    pub fn copy_from_row(&self, from: usize) -> Table {
        let mut t = Table::default();
        t.append_rows(self, from..self.rows).expect("a table's own columns fit an empty table");
        t
    }

    /// Append `row` (a struct with scalar, `Option` and fixed-array fields).
    pub fn push<T: Serialize>(&mut self, row: &T) -> Result<(), Error> {
        let fields = row.serialize(RowSerializer { table: self })?;
        self.rows += 1;
        // Fields the struct left out of this row (skip_serializing_if) are null.
        if fields < self.columns.len() {
            for c in &mut self.columns {
                if c.rows < self.rows {
                    c.end_row(true)?;
                }
            }
        }
        Ok(())
    }
}

/// Why a row cannot become columns. Boxed: one pointer, so that the
/// `Result` every field returns fits in registers.
#[derive(Debug)]
#[allow(clippy::box_collection)] // one pointer wide, on purpose (above)
pub struct Error(Box<String>);

impl Error {
    fn new(message: String) -> Error {
        Error(Box::new(message))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for Error {}
impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error::new(msg.to_string())
    }
}

fn unsupported<T>(what: &str) -> Result<T, Error> {
    Err(Error::new(format!("a result row cannot hold {what}")))
}

// --- a row: a struct whose fields become columns ------------------------------

struct RowSerializer<'a> {
    table: &'a mut Table,
}

struct RowFields<'a> {
    table: &'a mut Table,
    /// Where the next field is expected (fields come in declaration order).
    next: usize,
    /// Fields seen in this row.
    fields: usize,
}

impl<'a> ser::SerializeStruct for RowFields<'a> {
    type Ok = usize;
    type Error = Error;

    // Inlined into each struct's generated `serialize`: a call per field
    // would cost more than the field's work.
    #[inline(always)]
    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        let t = &mut *self.table;
        let i = match t.columns.get(self.next) {
            // Fields come in declaration order with the same &'static names:
            // comparing the pointers first spares comparing the text.
            Some(c) if std::ptr::eq(c.name, key) => self.next,
            _ => find_column(t, self.next, key),
        };
        self.next = i + 1;
        let col = &mut t.columns[i];
        if col.rows > t.rows {
            return Err(twice(key));
        }
        let null = value.serialize(ValueSerializer { col })?;
        self.fields += 1;
        col.end_row(null)
    }

    fn end(self) -> Result<usize, Error> {
        Ok(self.fields)
    }
}

/// The column of field `key`, made (at position `next`) if it is new.
#[cold]
#[inline(never)]
fn find_column(t: &mut Table, next: usize, key: &'static str) -> usize {
    match t.columns.iter().position(|c| c.name == key) {
        Some(i) => i,
        None => {
            t.columns.insert(next, Column::new(key, t.rows));
            next
        }
    }
}

#[cold]
#[inline(never)]
fn twice(key: &str) -> Error {
    Error::new(format!("field {key:?} appears twice in one row"))
}

macro_rules! no_row {
    ($($f:ident($($t:ty),*)),* $(,)?) => {
        $(fn $f(self $(, _: $t)*) -> Result<Self::Ok, Error> { unsupported("a value that is not a struct") })*
    };
}

impl<'a> ser::Serializer for RowSerializer<'a> {
    /// How many fields the row had.
    type Ok = usize;
    type Error = Error;
    type SerializeSeq = Impossible<usize, Error>;
    type SerializeTuple = Impossible<usize, Error>;
    type SerializeTupleStruct = Impossible<usize, Error>;
    type SerializeTupleVariant = Impossible<usize, Error>;
    type SerializeMap = Impossible<usize, Error>;
    type SerializeStruct = RowFields<'a>;
    type SerializeStructVariant = Impossible<usize, Error>;

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<RowFields<'a>, Error> {
        Ok(RowFields { table: self.table, next: 0, fields: 0 })
    }

    no_row!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str),
    );

    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<usize, Error> {
        unsupported("an optional row")
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, v: &T) -> Result<usize, Error> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<usize, Error> {
        unsupported("an enum")
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        unsupported("a list")
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        unsupported("a tuple")
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, Error> {
        unsupported("a tuple struct")
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        unsupported("an enum")
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        unsupported("a map")
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        unsupported("an enum")
    }
}

// --- a field's value: scalars, options of scalars, fixed arrays of scalars ----

/// Serialises one field's value into its column. `Ok(true)` means null.
struct ValueSerializer<'a> {
    col: &'a mut Column,
}

/// The elements of an array field, pushed into the same column.
struct Elements<'a> {
    col: &'a mut Column,
}

impl<'a> Elements<'a> {
    fn element<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), Error> {
        if v.serialize(ValueSerializer { col: &mut *self.col })? {
            return unsupported(&format!("a null inside the array field {:?}", self.col.name));
        }
        Ok(())
    }
}

impl<'a> ser::SerializeSeq for Elements<'a> {
    type Ok = bool;
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), Error> {
        self.element(v)
    }
    fn end(self) -> Result<bool, Error> {
        Ok(false)
    }
}

impl<'a> ser::SerializeTuple for Elements<'a> {
    type Ok = bool;
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), Error> {
        self.element(v)
    }
    fn end(self) -> Result<bool, Error> {
        Ok(false)
    }
}

impl<'a> ValueSerializer<'a> {
    #[inline(always)]
    fn scalar(self, v: Scalar<'_>) -> Result<bool, Error> {
        self.col.push(v)?;
        Ok(false)
    }
}

/// The number serialisers: each widens its value into one column kind.
macro_rules! scalars {
    ($($f:ident($t:ty) => $kind:ident),* $(,)?) => {
        $(
            #[inline(always)]
            fn $f(self, v: $t) -> Result<bool, Error> {
                self.scalar(Scalar::$kind(v.into()))
            }
        )*
    };
}

impl<'a> ser::Serializer for ValueSerializer<'a> {
    type Ok = bool;
    type Error = Error;
    type SerializeSeq = Elements<'a>;
    type SerializeTuple = Elements<'a>;
    type SerializeTupleStruct = Impossible<bool, Error>;
    type SerializeTupleVariant = Impossible<bool, Error>;
    type SerializeMap = Impossible<bool, Error>;
    type SerializeStruct = Impossible<bool, Error>;
    type SerializeStructVariant = Impossible<bool, Error>;

    scalars!(
        serialize_bool(bool) => Bool,
        serialize_i8(i8) => I64,
        serialize_i16(i16) => I64,
        serialize_i32(i32) => I64,
        serialize_i64(i64) => I64,
        serialize_u8(u8) => U64,
        serialize_u16(u16) => U64,
        serialize_u32(u32) => U64,
        serialize_u64(u64) => U64,
        serialize_f32(f32) => F64,
        serialize_f64(f64) => F64,
    );
    fn serialize_char(self, v: char) -> Result<bool, Error> {
        self.scalar(Scalar::Str(v.encode_utf8(&mut [0; 4])))
    }
    #[inline(always)]
    fn serialize_str(self, v: &str) -> Result<bool, Error> {
        self.scalar(Scalar::Str(v))
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<bool, Error> {
        // A plain enum serialises as its variant's name, as in the JSON.
        self.scalar(Scalar::Str(variant))
    }
    #[inline(always)]
    fn serialize_none(self) -> Result<bool, Error> {
        Ok(true)
    }
    fn serialize_unit(self) -> Result<bool, Error> {
        Ok(true)
    }
    #[inline(always)]
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<bool, Error> {
        v.serialize(self)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, v: &T) -> Result<bool, Error> {
        v.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Elements<'a>, Error> {
        Ok(Elements { col: self.col })
    }
    fn serialize_tuple(self, _: usize) -> Result<Elements<'a>, Error> {
        Ok(Elements { col: self.col })
    }

    fn serialize_bytes(self, _: &[u8]) -> Result<bool, Error> {
        unsupported("bytes")
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<bool, Error> {
        unsupported("a unit struct")
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<bool, Error> {
        unsupported("an enum with data")
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, Error> {
        unsupported("a tuple struct")
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        unsupported("an enum with data")
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        unsupported("a map")
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        unsupported("a nested struct")
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        unsupported("an enum with data")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Serialize)]
    struct Row {
        a: u64,
        b: Option<f64>,
        c: String,
        d: [u64; 2],
        e: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        f: Option<bool>,
    }

    #[test]
    fn rows_become_typed_columns() {
        let mut t = Table::default();
        t.push(&Row { a: 1, b: None, c: "x".into(), d: [1, 2], e: None, f: None }).unwrap();
        t.push(&Row { a: 2, b: Some(f64::INFINITY), c: "y".into(), d: [3, 4], e: Some(7), f: Some(true) }).unwrap();
        t.push(&Row { a: 3, b: Some(0.5), c: "z".into(), d: [5, 6], e: None, f: None }).unwrap();
        assert_eq!(t.rows, 3);
        let names: Vec<_> = t.columns.iter().map(|c| c.name).collect();
        assert_eq!(names, ["a", "b", "c", "d", "e", "f"]);
        let c = |n: &str| t.columns.iter().find(|c| c.name == n).unwrap();
        assert!(matches!(&c("a").values, Values::U64(v) if v == &[1, 2, 3]));
        assert!(!c("a").has_nulls());
        match &c("b").values {
            Values::F64(v) => assert!(v[0].is_nan() && v[1].is_nan() && v[2] == 0.5),
            v => panic!("{v:?}"),
        }
        assert_eq!(c("b").valid, [false, true, true]);
        assert!(matches!(&c("d").values, Values::U64(v) if v == &[1, 2, 3, 4, 5, 6]));
        assert_eq!(c("d").width, 2);
        assert!(matches!(&c("e").values, Values::U64(v) if v == &[0, 7, 0]));
        assert_eq!(c("e").valid, [false, true, false]);
        // Left out of the first row: the column starts null.
        assert!(matches!(&c("f").values, Values::Bool(v) if v == &[false, true, false]));
        assert_eq!(c("f").valid, [false, true, false]);
        match &c("c").values {
            Values::Str(v) => {
                assert_eq!(v.data, b"xyz");
                assert_eq!(v.offsets, [0, 1, 2, 3]);
            }
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn strings_are_arrow_buffers_with_empty_placeholders_for_nulls() {
        #[derive(serde::Serialize)]
        struct Named {
            name: Option<&'static str>,
        }
        let mut t = Table::default();
        for name in [None, Some("bc"), Some("a"), Some("bc"), None] {
            t.push(&Named { name }).unwrap();
        }
        let c = &t.columns[0];
        assert_eq!(c.valid, [false, true, true, true, false]);
        match &c.values {
            Values::Str(v) => {
                assert_eq!(v.data, b"bcabc");
                assert_eq!(v.offsets, [0, 0, 2, 3, 5, 5]);
            }
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn a_copy_from_a_row_holds_exactly_the_later_rows() {
        #[derive(serde::Serialize)]
        struct R {
            name: String,
            n: Option<u64>,
            pair: [u64; 2],
        }
        let mut t = Table::default();
        let names = ["a", "bb", "", "ccc"];
        for (i, name) in names.iter().enumerate() {
            let n = (i % 2 == 1).then_some(i as u64);
            t.push(&R { name: name.to_string(), n, pair: [i as u64, 10 * i as u64] }).unwrap();
        }
        let c = t.copy_from_row(1);
        assert_eq!(c.rows, 3);
        let col = |n: &str| c.columns.iter().find(|c| c.name == n).unwrap();
        match &col("name").values {
            Values::Str(v) => {
                assert_eq!(v.offsets, [0, 2, 2, 5]); // rebased to the copy's own bytes
                assert_eq!(v.data, b"bbccc");
            }
            v => panic!("{v:?}"),
        }
        assert!(matches!(&col("n").values, Values::U64(v) if v == &[1, 0, 3]));
        assert_eq!(col("n").valid, [true, false, true]);
        assert!(matches!(&col("pair").values, Values::U64(v) if v == &[1, 10, 2, 20, 3, 30]));
        assert_eq!(col("pair").width, 2);
        // The copy takes more rows like the original.
        let mut c = c;
        c.push(&R { name: "d".into(), n: None, pair: [4, 40] }).unwrap();
        assert_eq!(c.rows, 4);
        assert_eq!(col_len(&c, "name"), 4);
        assert_eq!(t.copy_from_row(4).rows, 0);
    }

    #[test]
    fn appending_row_ranges_equals_pushing_the_rows() {
        #[derive(serde::Serialize, Clone)]
        struct R {
            name: String,
            n: Option<u64>,
            x: Option<f64>,
            pair: [u64; 2],
        }
        let row = |i: u64| R {
            name: "r".repeat(i as usize % 3),
            n: i.is_multiple_of(3).then_some(i),
            x: (i >= 4).then_some(i as f64 / 2.0),
            pair: [i, 100 + i],
        };
        // Two tables that met their first values at different rows (x is all
        // null in the first), appended in pieces, against one table of every row.
        let (mut a, mut b, mut whole) = (Table::default(), Table::default(), Table::default());
        for i in 0..4 {
            a.push(&row(i)).unwrap();
        }
        for i in 4..9 {
            b.push(&row(i)).unwrap();
        }
        for i in [0, 1, 4, 5, 6, 2, 3, 7, 8] {
            whole.push(&row(i)).unwrap();
        }
        let mut t = Table::default();
        t.append_rows(&a, 0..2).unwrap();
        t.append_rows(&b, 0..3).unwrap();
        t.append_rows(&a, 2..4).unwrap();
        t.append_rows(&b, 3..5).unwrap();
        assert_eq!(t.rows, whole.rows);
        assert_eq!(format!("{:?}", strip(&t)), format!("{:?}", strip(&whole)));
        // Cleared, a table keeps its columns and takes rows again.
        t.clear();
        assert_eq!((t.rows, t.columns.len()), (0, 4));
        t.append_rows(&b, 1..2).unwrap();
        assert_eq!(col_len(&t, "pair"), 2);
    }

    /// The columns' contents, without the bookkeeping that may differ.
    fn strip(t: &Table) -> Vec<(&'static str, String, Vec<bool>, usize)> {
        t.columns
            .iter()
            .map(|c| {
                let values = match &c.values {
                    Values::F64(v) => format!("{:?}", v.iter().map(|x| x.to_bits()).collect::<Vec<_>>()),
                    v => format!("{v:?}"),
                };
                let valid = if c.nullable { c.valid.clone() } else { vec![true; c.rows] };
                (c.name, values, valid, c.width)
            })
            .collect()
    }

    fn col_len(t: &Table, name: &str) -> usize {
        t.columns.iter().find(|c| c.name == name).unwrap().len()
    }
}
