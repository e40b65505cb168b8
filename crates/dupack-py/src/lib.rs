//! `dupack._core`: the Python binding of dupack-sim.
//!
//! Deliberately thin. It converts (scenario JSON text in, result JSON text
//! out), releases the GIL while the simulator runs, and maps the two Rust
//! error types onto two Python exceptions. `sweep` (sweep.rs) hands Python
//! the chunks and tables of `dupack_batch::sweep`, which runs many jobs on
//! worker threads and turns their results into columns. Reading TOML and applying
//! overrides (document.rs), validation and simulation happen in dupack-sim;
//! building tables happens in the Python package.

// pyo3 0.22's #[pyfunction] expansion converts PyResult into itself, which
// current clippy flags at every function; the code it points at is generated.
#![allow(clippy::useless_conversion)]

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyDict, PyType};

use dupack_batch::{flow_indices, panic_message, series_entities};

mod buffer;
mod document;
mod held;
mod json;
mod results;
mod store;
mod sweep;
mod tables;

/// The exception classes are defined in Python so that `ScenarioError` can
/// carry `(path, message)` as its args while printing as `path: message`
/// (the Display form of the Rust error); a class made with
/// `create_exception!` would print the args tuple instead.
const EXCEPTIONS: &str = r#"
class ScenarioError(ValueError):
    """The scenario is invalid. ``path`` names the offending field
    (for example ``topology.bottleneck.rate``); ``message`` says what is
    wrong and what is allowed."""

    def __init__(self, path, message):
        super().__init__(path, message)
        self.path = path
        self.message = message

    def __str__(self):
        return f"{self.path}: {self.message}" if self.path else str(self.message)


class RunError(RuntimeError):
    """The simulator failed while running a valid scenario."""
"#;

/// Set once when the module is initialised.
static SCENARIO_ERROR: GILOnceCell<Py<PyType>> = GILOnceCell::new();
static RUN_ERROR: GILOnceCell<Py<PyType>> = GILOnceCell::new();

pub(crate) fn scenario_error(py: Python<'_>, e: dupack_sim::ScenarioError) -> PyErr {
    match SCENARIO_ERROR.get(py) {
        Some(ty) => PyErr::from_type_bound(ty.bind(py).clone(), (e.path, e.message)),
        None => PyValueError::new_err(e.to_string()),
    }
}

pub(crate) fn run_error(py: Python<'_>, e: dupack_sim::RunError) -> PyErr {
    match RUN_ERROR.get(py) {
        Some(ty) => PyErr::from_type_bound(ty.bind(py).clone(), (e.to_string(),)),
        None => pyo3::exceptions::PyRuntimeError::new_err(e.to_string()),
    }
}

/// Scenario JSON text → validated scenario. Malformed JSON is the Python
/// front's bug, not the user's (it produces the JSON), but it is reported
/// as a ScenarioError all the same rather than a panic.
fn parse(py: Python<'_>, scenario_json: &str) -> PyResult<dupack_sim::Scenario> {
    parse_plain(scenario_json).map_err(|e| scenario_error(py, e))
}

/// [`parse`] without the GIL (and without making the Python exception).
pub(crate) fn parse_plain(scenario_json: &str) -> Result<dupack_sim::Scenario, dupack_sim::ScenarioError> {
    let value: serde_json::Value = serde_json::from_str(scenario_json).map_err(|e| dupack_sim::ScenarioError {
        path: String::new(),
        message: format!("scenario is not valid JSON: {e}"),
    })?;
    dupack_sim::parse_scenario(&value)
}

/// run(scenario_json, seed=None, trace=None, series=None, series_max=None, pcaps=None) -> (str, dict)
///
/// Validate the scenario (JSON text of the scenario document), run it with
/// `seed` (None: the scenario's `run.seed`) and return the result as JSON
/// text, and what was observed, kept here (held.rs): `trace` names flows
/// whose packet-level trace is the dict's `trace` (a `HeldTrace`). `series`
/// names flows and links (`NAME`, `flow:NAME`, `link:NAME`, or `*` for all)
/// whose time series is its `series` (a `HeldSeries`), at most
/// `series_max` records, of the variables `series_variables` names (None:
/// all of them). Each gives the document's field of that name as Python
/// objects (`document()`) and the typed columns of its Parquet file
/// (`columns()`): a traced run's trace and series are hundreds of thousands
/// of values (25 MB of JSON for the unfairness dumbbell's ten flows over
/// 200 s), which `dupack run` only writes to Parquet.
/// `pcaps` is a list of `(link, direction, path)`: a pcapng capture of the
/// link's `fwd`, `rev` or `both` directions written to `path`; the packets
/// written are added as `pcap` (one entry per capture).
///
/// Keeping an eye on a long run (none of these changes the result):
/// `estimated(wall_s, events, packets)` is called once before the run starts with its
/// estimated cost (see `estimate`). `progress(sim_time_s, duration_s, events,
/// wall_s)` is called every few hundred thousand events (so never in a run
/// shorter than that). After `max_wall` seconds of wall-clock time the run
/// stops at the simulated instant reached; its result so far is returned
/// with `run.end_reason` `"wall_limit"`, `"partial": true` and the
/// scenario's `"duration_s"` (`run.sim_time_s` is the time reached). Ctrl-C
/// raises KeyboardInterrupt, or with `partial_on_interrupt` stops the run
/// the same way with `run.end_reason` `"interrupted"`.
#[pyfunction]
#[pyo3(signature = (
    scenario_json, seed=None, trace=None, series=None, series_max=None, pcaps=None,
    progress=None, max_wall=None, partial_on_interrupt=false, estimated=None, series_variables=None
))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    scenario_json: &str,
    seed: Option<u64>,
    trace: Option<Vec<String>>,
    series: Option<Vec<String>>,
    series_max: Option<usize>,
    pcaps: Option<Vec<(String, String, String)>>,
    progress: Option<PyObject>,
    max_wall: Option<f64>,
    partial_on_interrupt: bool,
    estimated: Option<PyObject>,
    series_variables: Option<Vec<String>>,
) -> PyResult<(String, PyObject)> {
    let scenario = parse(py, scenario_json)?;
    if let Some(cb) = &estimated {
        let e = dupack_sim::estimate(&scenario);
        cb.call1(py, (e.wall_s, e.events, e.packets))?;
    }
    let seed = seed.unwrap_or(scenario.seed);
    let mut obs = dupack_sim::Observe::default();
    if let Some(names) = &trace {
        obs.trace_flows = traced_flows(py, &scenario, names)?;
    }
    if let Some(names) = &series {
        (obs.series_flows, obs.series_links) = series_entities(&scenario, names)
            .map_err(|m| scenario_error(py, dupack_sim::ScenarioError { path: "series".into(), message: m }))?;
    }
    if let Some(max) = series_max {
        obs.series_max_records = max;
    }
    if let Some(names) = &series_variables {
        obs.series_variables = dupack_sim::observe::variable_set(names).map_err(|m| {
            scenario_error(py, dupack_sim::ScenarioError { path: "series_variables".into(), message: m })
        })?;
    }
    let mut pcap_paths = Vec::new();
    for (link, dir, path) in pcaps.iter().flatten() {
        let l = scenario.links.iter().position(|l| &l.name == link).ok_or_else(|| {
            let known: Vec<&str> = scenario.links.iter().map(|l| l.name.as_str()).collect();
            scenario_error(
                py,
                dupack_sim::ScenarioError {
                    path: "pcap".into(),
                    message: format!("no link named {link:?}; the links are {known:?}"),
                },
            )
        })?;
        let (fwd, rev) = match dir.as_str() {
            "fwd" => (true, false),
            "rev" => (false, true),
            "both" => (true, true),
            other => {
                return Err(scenario_error(
                    py,
                    dupack_sim::ScenarioError {
                        path: "pcap".into(),
                        message: format!("direction {other:?} of link {link:?} must be fwd, rev or both"),
                    },
                ))
            }
        };
        let file = std::fs::File::create(path)
            .map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("cannot write the capture {path:?}: {e}")))?;
        let out = Box::new(std::io::BufWriter::with_capacity(1 << 16, file));
        obs.pcaps.push(dupack_sim::PcapRequest { link: l, fwd, rev, out });
        pcap_paths.push(path.clone());
    }
    let with_series = series.is_some();
    let with_pcap = pcaps.is_some();
    // A panic in the core is a bug, but it must reach the user as a
    // RunError with its message, not as pyo3's PanicException (a
    // BaseException the CLI's error handling would not catch).
    // Between slices of events the run takes the GIL back briefly to let
    // Python handle signals, so Ctrl-C stops a long run (as KeyboardInterrupt),
    // and to report progress and look at the clock.
    let mut signal: Option<PyErr> = None;
    let duration_s = scenario.duration.as_secs_f64();
    #[allow(clippy::disallowed_methods)]
    let started = std::time::Instant::now(); // for max_wall and progress only
    let control = |p: dupack_sim::Progress| {
        use dupack_sim::Control;
        Python::with_gil(|py| {
            let wall = started.elapsed().as_secs_f64();
            let checked = py.check_signals().and_then(|()| match &progress {
                Some(cb) => cb.call1(py, (p.now.as_secs_f64(), duration_s, p.events, wall)).map(|_| ()),
                None => Ok(()),
            });
            match checked {
                Err(e) if partial_on_interrupt && e.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) => {
                    Control::Stop("interrupted")
                }
                Err(e) => {
                    signal = Some(e);
                    Control::Abort
                }
                Ok(()) if max_wall.is_some_and(|m| wall >= m) => Control::Stop("wall_limit"),
                Ok(()) => Control::Continue,
            }
        })
    };
    let outcome = py.allow_threads(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            dupack_sim::run_controlled(&scenario, seed, obs, control).map(|(r, observed)| {
                // Serialised directly, so the fields keep the order of the
                // Rust structs (a serde_json::Value would sort them); what
                // was observed is appended as the document's last fields.
                let mut json = serde_json::to_string(&r)?;
                json.pop(); // the closing brace
                if matches!(r.run.end_reason.as_str(), "wall_limit" | "interrupted") {
                    json.push_str(&format!(",\"partial\":true,\"duration_s\":{}", serde_json::to_string(&duration_s)?));
                }
                if with_pcap {
                    let caps: Vec<serde_json::Value> = pcap_paths
                        .iter()
                        .zip(observed.pcap_packets.iter().zip(&observed.pcap_errors))
                        .map(|(p, (n, e))| serde_json::json!({"path": p, "packets": n, "error": e}))
                        .collect();
                    json.push_str(",\"pcap\":");
                    json.push_str(&serde_json::to_string(&caps)?);
                }
                json.push('}');
                Ok::<_, serde_json::Error>((json, observed))
            })
        }))
    });
    if let Some(e) = signal {
        return Err(e);
    }
    match outcome {
        Ok(Ok(Ok((json, observed)))) => {
            let observed_py = PyDict::new_bound(py);
            if trace.is_some() {
                let flows = scenario.flows.iter().map(|f| f.name.clone()).collect();
                observed_py.set_item("trace", held::HeldTrace::new(py, &observed.trace, flows)?)?;
            }
            if let (true, Some(s)) = (with_series, observed.series) {
                observed_py.set_item("series", held::HeldSeries::new(py, s)?)?;
            }
            Ok((json, observed_py.into_any().unbind()))
        }
        Ok(Ok(Err(e))) => Err(run_error(py, dupack_sim::RunError(format!("cannot serialise the result: {e}")))),
        Ok(Err(e)) => Err(run_error(py, e)),
        Err(panic) => Err(run_error(
            py,
            dupack_sim::RunError(format!(
                "internal error in the simulator (a bug in dupack): {}",
                panic_message(&*panic)
            )),
        )),
    }
}

/// Flow names → indices; an unknown name is a ScenarioError naming it and the flows there are.
fn traced_flows(py: Python<'_>, scenario: &dupack_sim::Scenario, names: &[String]) -> PyResult<Vec<usize>> {
    flow_indices(scenario, names)
        .map_err(|message| scenario_error(py, dupack_sim::ScenarioError { path: "trace".into(), message }))
}

/// entities(scenario_json) -> (flow names, link names)
///
/// The names of the flows and links of the validated scenario (a
/// topology such as a dumbbell makes its own), in scenario order.
#[pyfunction]
fn entities(py: Python<'_>, scenario_json: &str) -> PyResult<(Vec<String>, Vec<String>)> {
    let s = parse(py, scenario_json)?;
    Ok((s.flows.iter().map(|f| f.name.clone()).collect(), s.links.iter().map(|l| l.name.clone()).collect()))
}

/// estimate(scenario_json) -> (wall_s, events, packets)
///
/// The estimated cost of running the validated scenario: wall-clock
/// seconds, events and data packets (see dupack_sim::engine::estimate; an
/// estimate on the high side, from rates, windows and durations alone).
#[pyfunction]
fn estimate(py: Python<'_>, scenario_json: &str) -> PyResult<(f64, f64, f64)> {
    let e = dupack_sim::estimate(&parse(py, scenario_json)?);
    Ok((e.wall_s, e.events, e.packets))
}

/// result_columns() -> {table: [(name, dtype, unit, doc, field), ...]}
///
/// The columns of the result tables `flows`, `links`, `media` and `run`,
/// in order, as metrics/result.rs declares them: the pandas dtype, the
/// unit, the meaning, and the JSON field the column comes from (an array
/// field such as `ndup_at_timeout` gives one column per element). The
/// Python tables are built from these, so they cannot drift from the core.
#[pyfunction]
fn result_columns(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    use dupack_sim::metrics::columns::Column;
    let tables: [(&str, &[Column]); 4] = [
        ("flows", dupack_sim::FlowResult::COLUMNS),
        ("links", dupack_sim::LinkResult::COLUMNS),
        ("media", dupack_sim::MediumResult::COLUMNS),
        ("run", dupack_sim::RunInfo::COLUMNS),
    ];
    let out = PyDict::new_bound(py);
    for (table, columns) in tables {
        let rows: Vec<_> = columns.iter().map(|c| (c.name, c.dtype, c.unit, c.doc, c.field)).collect();
        out.set_item(table, rows)?;
    }
    Ok(out)
}

/// validate(scenario_json) -> None
///
/// Raise ScenarioError if the scenario is invalid.
#[pyfunction]
fn validate(py: Python<'_>, scenario_json: &str) -> PyResult<()> {
    parse(py, scenario_json).map(|_| ())
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let defs = PyModule::from_code_bound(py, EXCEPTIONS, "dupack/_core/exceptions.py", "dupack._core_exceptions")?;
    for (name, cell) in [("ScenarioError", &SCENARIO_ERROR), ("RunError", &RUN_ERROR)] {
        let ty = defs.getattr(name)?.downcast_into::<PyType>()?;
        ty.setattr("__module__", "dupack._core")?;
        m.add(name, &ty)?;
        // A second initialisation (sub-interpreters, reload) keeps the first classes.
        let _ = cell.set(py, ty.unbind());
    }
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("__commit__", env!("DUPACK_COMMIT"))?;
    // The profile this build was guided by ("" if none): packaging/pgo.py.
    m.add("__pgo__", env!("DUPACK_PGO_PROFILE"))?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(document::toml_document, m)?)?;
    m.add_function(wrap_pyfunction!(document::parse_override, m)?)?;
    m.add_function(wrap_pyfunction!(document::apply_overrides, m)?)?;
    m.add_function(wrap_pyfunction!(document::assign_values, m)?)?;
    m.add_function(wrap_pyfunction!(document::parse_unit, m)?)?;
    m.add_function(wrap_pyfunction!(json::json_dumps, m)?)?;
    m.add_function(wrap_pyfunction!(json::json_loads, m)?)?;
    m.add_function(wrap_pyfunction!(estimate, m)?)?;
    m.add_function(wrap_pyfunction!(entities, m)?)?;
    m.add_function(wrap_pyfunction!(result_columns, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::sweep, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::chunk_due, m)?)?;
    // A stored sweep's chunk is written once it holds this many rows (dupack-batch's sweep/pace.rs).
    m.add("MAX_CHUNK_ROWS", dupack_batch::sweep::MAX_CHUNK_ROWS)?;
    m.add_function(wrap_pyfunction!(tables::write_parquet, m)?)?;
    m.add_function(wrap_pyfunction!(tables::write_part, m)?)?;
    m.add_function(wrap_pyfunction!(store::lock_file, m)?)?;
    m.add_class::<buffer::Buffer>()?;
    m.add_class::<held::HeldColumn>()?;
    m.add_class::<held::HeldTrace>()?;
    m.add_class::<held::HeldSeries>()?;
    Ok(())
}
