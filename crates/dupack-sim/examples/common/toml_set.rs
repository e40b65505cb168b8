//! A scenario file with `path=value` overrides, shared by the examples that
//! take them (`bench_scenario`, `sweep_grid`). The overrides are the
//! library's (`scenario::document`), the same the `dupack` command applies.

use dupack_sim::scenario::document;

/// Read the scenario TOML at `path`, apply `overrides` (`path=value`, the
/// value TOML; a bare word that is not TOML is taken as a string, as the
/// CLI does) and validate it. The error is the line to print.
pub fn load_scenario(path: &str, overrides: &[&str]) -> Result<dupack_sim::Scenario, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut doc = document::from_toml(&text).map_err(|e| format!("{path}: {e}"))?;
    for item in overrides {
        document::apply(&mut doc, item).map_err(|e| {
            let shown = dupack_sim::scenario::parse::clip(item);
            format!("bad override '{shown}': {}", e.reason)
        })?;
    }
    dupack_sim::parse_scenario(&doc).map_err(|e| format!("{path}: {e}"))
}
