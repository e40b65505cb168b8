//! dupack-batch: what the Python binding does besides converting, in
//! plain Rust so that it is tested and usable without an interpreter.
//!
//! [`columns`] turns result structs into typed columns through serde.

pub mod columns;
