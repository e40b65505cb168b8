//! The scenario parser and validator from TOML text: never panics, and every
//! refusal is one printable line of bounded length.
#![no_main]
use libfuzzer_sys::fuzz_target;

include!("common.rs");

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Err(e) = dupack_sim::parse_scenario_toml(text) {
            check_error(&e);
        }
    }
});
