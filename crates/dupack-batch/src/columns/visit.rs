//! A result row's values straight into its table's columns: the rows of
//! every run of a sweep after the first, without serde.
//!
//! serde takes a struct apart with a call per field (and one per value
//! inside it), which in a sweep of one-second runs cost a few per cent of
//! the workers' time. A [`Row`] (`result_table!` in dupack-sim) hands its
//! values over in field order instead, and once the first row has made the
//! columns through serde ([`Table::push`]) each value goes to the column
//! at its position. The values and nulls are exactly those serde would
//! have put there (tests.rs compares the two).

use dupack_sim::metrics::columns::{Row, RowVisitor};

use super::column::{Column, Scalar};
use super::error::Error;

/// The columns of a table, filled one field after another.
pub(super) struct Cursor<'a> {
    pub(super) columns: &'a mut [Column],
    pub(super) next: usize,
    pub(super) error: Option<Error>,
}

impl Cursor<'_> {
    #[inline(always)]
    fn column(&mut self) -> Option<&mut Column> {
        let c = self.columns.get_mut(self.next);
        self.next += 1;
        c
    }

    #[inline(always)]
    fn value(&mut self, v: Option<Scalar<'_>>) {
        let done = match self.column() {
            Some(col) => match v {
                Some(v) => col.push(v).and_then(|()| col.end_row(false)),
                None => col.end_row(true),
            },
            None => Err(Error::new("a row with more fields than its table's columns".to_owned())),
        };
        if let Err(e) = done {
            self.error.get_or_insert(e);
        }
    }

    /// Visit `row`; an error if it did not fill every column exactly once.
    pub(super) fn fill<T: Row>(mut self, row: &T) -> Result<(), Error> {
        row.visit(&mut self);
        match self.error {
            Some(e) => Err(e),
            None if self.next != self.columns.len() => {
                Err(Error::new(format!("a row of {} fields for {} columns", self.next, self.columns.len())))
            }
            None => Ok(()),
        }
    }
}

impl RowVisitor for Cursor<'_> {
    #[inline(always)]
    fn u64(&mut self, v: u64) {
        self.value(Some(Scalar::U64(v)))
    }
    #[inline(always)]
    fn opt_u64(&mut self, v: Option<u64>) {
        self.value(v.map(Scalar::U64))
    }
    #[inline(always)]
    fn f64(&mut self, v: f64) {
        self.value(Some(Scalar::F64(v)))
    }
    #[inline(always)]
    fn opt_f64(&mut self, v: Option<f64>) {
        self.value(v.map(Scalar::F64))
    }
    #[inline(always)]
    fn str(&mut self, v: &str) {
        self.value(Some(Scalar::Str(v)))
    }
    fn u64s(&mut self, v: &[u64]) {
        let done = match self.column() {
            Some(col) => v.iter().try_for_each(|&x| col.push(Scalar::U64(x))).and_then(|()| col.end_row(false)),
            None => Err(Error::new("a row with more fields than its table's columns".to_owned())),
        };
        if let Err(e) = done {
            self.error.get_or_insert(e);
        }
    }
}
