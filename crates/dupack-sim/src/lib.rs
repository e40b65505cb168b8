//! dupack-sim: a deterministic discrete-event simulator for TCP loss recovery
//! over lossy and wireless links.
//!
//! Layers: [`engine`] (time-ordered events, seeded random streams), [`net`]
//! (packets, links, queues, error models, routing), [`tcp`] (sans-IO sender
//! and receiver state machines with pluggable policies), [`metrics`] and
//! [`scenario`] (the validated input model). [`run`] ties them together.
#![deny(unsafe_code)]

pub mod engine;
pub mod metrics;
pub mod net;
pub mod observe;
pub mod scenario;
pub mod tcp;
pub mod time;

pub use engine::estimate::{estimate, Estimate};
pub use engine::sim::{
    run, run_controlled, run_interruptible, run_observed, run_traced, Control, Progress, RunError, TraceRecord, World,
};
pub use metrics::result::{FlowResult, LinkResult, MediumResult, RunInfo, RunResult};
pub use observe::{Observe, Observed, PcapRequest, Series};
pub use scenario::model::Scenario;
pub use scenario::{parse_scenario, parse_scenario_toml, ScenarioError};
