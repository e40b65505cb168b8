//! A scenario file with `KEY=VALUE` overrides, shared by the examples that
//! take them (`bench_scenario`, `sweep_grid`).

/// Read the scenario TOML at `path`, apply `overrides` (`KEY=VALUE`, the
/// value TOML; a bare word that is not TOML is taken as a string, as the
/// CLI does) and validate it. The error is the line to print.
pub fn load_scenario(path: &str, overrides: &[&str]) -> Result<dupack_sim::Scenario, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut doc: toml::Table = text.parse().map_err(|e| format!("{path}: {e}"))?;
    for a in overrides {
        let (k, v) = a.split_once('=').ok_or_else(|| format!("'{a}' is not KEY=VALUE"))?;
        let value = toml::from_str::<toml::Table>(&format!("v = {v}"))
            .ok()
            .and_then(|mut t| t.remove("v"))
            .unwrap_or_else(|| toml::Value::String(v.to_string()));
        set(&mut doc, k, value)?;
    }
    let text = toml::to_string(&doc).expect("a parsed TOML table serialises");
    dupack_sim::parse_scenario_toml(&text).map_err(|e| format!("{path}: {e}"))
}

/// Set the dotted `path` (`run.duration`, `topology.senders`) to `value`,
/// creating tables on the way.
pub fn set(doc: &mut toml::Table, path: &str, value: toml::Value) -> Result<(), String> {
    let mut parts: Vec<&str> = path.split('.').collect();
    let last = parts.pop().ok_or("empty key")?;
    let mut t = doc;
    for p in parts {
        t = t
            .entry(p.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()))
            .as_table_mut()
            .ok_or_else(|| format!("{path}: '{p}' is not a table"))?;
    }
    t.insert(last.to_string(), value);
    Ok(())
}
