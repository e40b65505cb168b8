//! Per-flow, per-link and per-run measurements.
pub mod columns;
pub mod result;
pub mod truth;
