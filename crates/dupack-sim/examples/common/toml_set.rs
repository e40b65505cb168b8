//! `KEY=VALUE` overrides of a TOML document, shared by the examples that
//! take them (`bench_scenario`, `sweep_grid`).

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
