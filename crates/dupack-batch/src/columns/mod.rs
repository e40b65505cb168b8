//! Result structs → columns, for a sweep's tables.
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

//!
//! One job per file: `column` holds one field's values, `table` the
//! columns of one struct, `row` and `value` are the serde serialisers that
//! take a struct apart into them, `visit` the faster way for the result
//! structs once their columns exist, `error` says why a row cannot become
//! columns.

mod column;
mod error;
mod row;
mod table;
mod value;
mod visit;

pub use column::{Column, Strings, Values};
pub use error::Error;
pub use table::Table;

#[cfg(test)]
mod tests;
