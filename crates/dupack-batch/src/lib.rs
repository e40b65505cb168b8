//! dupack-batch: what the Python binding does besides converting, in
//! plain Rust so that it is tested and usable without an interpreter.
//!
//! [`sweep`] runs many jobs on worker threads and collects their results
//! as [`Results`]: tables of typed columns, made by the serde serialiser in
//! [`columns`]. [`Watch`] says what the runs observe, by the names of flows
//! and links; [`observed`] turns what they observed into rows.
//! [`parquet`] writes one result table as pyarrow would.

pub mod columns;
pub mod observed;
pub mod parquet;
mod results;
pub mod sweep;
mod watch;

pub use results::{Results, Rows, TABLES, TABLE_NAMES};
pub use watch::{flow_indices, series_entities, Watch};

/// The message of a caught panic (`panic!` gives a `&str` or a `String`).
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}
