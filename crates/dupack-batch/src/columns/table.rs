//! The rows of one struct type, one column per field.

use dupack_sim::metrics::columns::Row;
use serde::Serialize;

use super::column::Column;
use super::error::Error;
use super::row::RowSerializer;
use super::visit::Cursor;

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

    /// Room for `rows` more rows in every column that has a type.
    pub fn reserve(&mut self, rows: usize) {
        self.columns.iter_mut().for_each(|c| c.reserve(rows));
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

    /// Append `row`, a result struct: through serde while its columns are
    /// not made yet, then by position (`visit`), the same values faster.
    pub fn push_row<T: Row + Serialize>(&mut self, row: &T) -> Result<(), Error> {
        if self.columns.len() != T::FIELDS {
            return self.push(row);
        }
        Cursor { columns: &mut self.columns, next: 0, error: None }.fill(row)?;
        self.rows += 1;
        Ok(())
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
