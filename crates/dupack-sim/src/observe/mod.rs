//! Looking inside a run: packet captures and time series.
//!
//! Both are opt-in (an [`Observe`] handed to [`crate::run_observed`]) and
//! only read the simulation's state, so a run gives the same results with
//! or without them (checked in `tests/observe.rs`).
pub mod pcap;
pub mod series;

use std::io::Write;

pub use pcap::{FlowWire, PcapWriter};
pub use series::{variable_set, Recorder, Series, ALL_VARIABLES, DEFAULT_MAX_RECORDS};

/// A capture of one link's directions into `out` (pcapng).
pub struct PcapRequest {
    /// The link's index in the scenario.
    pub link: usize,
    pub fwd: bool,
    pub rev: bool,
    pub out: Box<dyn Write + Send>,
}

/// What to record during a run.
pub struct Observe {
    /// Flows whose packet-level trace (sends, drops, sender events) is kept.
    pub trace_flows: Vec<usize>,
    /// Flows whose time series is kept.
    pub series_flows: Vec<usize>,
    /// Links (both directions) whose time series is kept.
    pub series_links: Vec<usize>,
    /// At most this many time-series records (then `Series::truncated`).
    pub series_max_records: usize,
    /// The time series' variables, a bit per number ([`variable_set`]; all by default).
    pub series_variables: u32,
    pub pcaps: Vec<PcapRequest>,
}

impl Default for Observe {
    fn default() -> Self {
        Observe {
            trace_flows: Vec::new(),
            series_flows: Vec::new(),
            series_links: Vec::new(),
            series_max_records: DEFAULT_MAX_RECORDS,
            series_variables: ALL_VARIABLES,
            pcaps: Vec::new(),
        }
    }
}

/// What a run recorded besides its results.
#[derive(Debug, Default)]
pub struct Observed {
    pub trace: Vec<crate::engine::sim::TraceRecord>,
    /// `None` when no series was asked for.
    pub series: Option<Series>,
    /// Packets written to each capture, in the order asked.
    pub pcap_packets: Vec<u64>,
    /// Write errors of the captures, in the order asked (`None`: fine).
    pub pcap_errors: Vec<Option<String>>,
}
