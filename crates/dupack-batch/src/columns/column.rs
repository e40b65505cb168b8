//! One column: a field's values across rows, typed by the first non-null one.

use super::error::Error;

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

/// One field of a [`super::Table`]: its name and its values, row after row.
#[derive(Debug)]
pub struct Column {
    pub name: &'static str,
    pub values: Values,
    /// One entry per row; false where the row's value is null. Empty while
    /// the column has no null.
    pub valid: Vec<bool>,
    pub(super) nullable: bool,
    /// Values per row (more than one for an array field); 0 until known.
    pub width: usize,
    /// Rows filled so far (a row whose struct left the field out is null).
    pub(super) rows: usize,
    /// Values pushed in the current row.
    pub(super) in_row: usize,
}

impl Column {
    pub(super) fn new(name: &'static str, rows_before: usize) -> Column {
        let mut c =
            Column { name, values: Values::Null, valid: Vec::new(), nullable: false, width: 0, rows: 0, in_row: 0 };
        for _ in 0..rows_before {
            c.null_row();
        }
        c
    }

    pub(super) fn len(&self) -> usize {
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

    pub(super) fn null_row(&mut self) {
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
    pub(super) fn append_from(&mut self, o: &Column, rows: std::ops::Range<usize>) -> Result<(), Error> {
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

    /// Room for `rows` more rows without reallocating (a column still
    /// without a type reserves nothing: its kind is not known yet).
    pub(super) fn reserve(&mut self, rows: usize) {
        let n = rows * self.width.max(1);
        match &mut self.values {
            Values::Null => {}
            Values::U64(v) => v.reserve(n),
            Values::I64(v) => v.reserve(n),
            Values::F64(v) => v.reserve(n),
            Values::Bool(v) => v.reserve(n),
            Values::Str(v) => {
                let per_value = v.data.len() / v.len().max(1);
                v.offsets.reserve(n);
                v.data.reserve(n * per_value);
            }
        }
        if self.nullable {
            self.valid.reserve(rows);
        }
    }

    /// No rows; the column keeps its type, its width and its memory.
    pub(super) fn clear(&mut self) {
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
    pub(super) fn push(&mut self, v: Scalar<'_>) -> Result<(), Error> {
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
    pub(super) fn end_row(&mut self, null: bool) -> Result<(), Error> {
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

pub(super) enum Scalar<'s> {
    U64(u64),
    I64(i64),
    F64(f64),
    Bool(bool),
    Str(&'s str),
}
