//! The scenario parser and validator from JSON (what the Python front
//! sends): never panics, and every refusal is one printable line of
//! bounded length.
#![no_main]
use libfuzzer_sys::fuzz_target;

include!("common.rs");

fuzz_target!(|data: &[u8]| {
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(data) {
        if let Err(e) = dupack_sim::parse_scenario(&v) {
            check_error(&e);
        }
    }
});
