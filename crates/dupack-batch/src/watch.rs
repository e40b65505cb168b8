//! What to observe in a scenario's runs, by the names of its flows and links.

use dupack_sim::observe::{variable_set, ALL_VARIABLES};
use dupack_sim::{Observe, Scenario, ScenarioError};

/// What every run of one scenario observes: its time series and packet
/// trace (see `dupack_sim::Observe`). The default observes nothing.
#[derive(Clone, Debug)]
pub struct Watch {
    pub series_flows: Vec<usize>,
    pub series_links: Vec<usize>,
    pub trace_flows: Vec<usize>,
    /// At most this many series records a run (None: the core's default).
    pub series_max: Option<usize>,
    /// The series' variables, a bit per number (`dupack_sim::observe::variable_set`).
    pub series_variables: u32,
}

impl Default for Watch {
    fn default() -> Watch {
        Watch {
            series_flows: Vec::new(),
            series_links: Vec::new(),
            trace_flows: Vec::new(),
            series_max: None,
            series_variables: ALL_VARIABLES,
        }
    }
}

impl Watch {
    /// The time series of the flows and links `series` names (see
    /// [`series_entities`]) and the trace of the flows `trace` names, in
    /// `scenario`; of the series, the variables `series_variables` names
    /// (None: all). An unknown name is a ScenarioError at `series`,
    /// `series_variables` or `trace` (checked in that order).
    pub fn resolve(
        scenario: &Scenario,
        series: Option<&[String]>,
        trace: Option<&[String]>,
        series_max: Option<usize>,
        series_variables: Option<&[String]>,
    ) -> Result<Watch, ScenarioError> {
        let (series_flows, series_links) = match series {
            Some(names) => series_entities(scenario, names).map_err(at("series"))?,
            None => Default::default(),
        };
        let series_variables = match series_variables {
            Some(names) => variable_set(names).map_err(at("series_variables"))?,
            None => ALL_VARIABLES,
        };
        let trace_flows = match trace {
            Some(names) => flow_indices(scenario, names).map_err(at("trace"))?,
            None => Vec::new(),
        };
        Ok(Watch { series_flows, series_links, trace_flows, series_max, series_variables })
    }

    pub fn is_empty(&self) -> bool {
        self.series_flows.is_empty() && self.series_links.is_empty() && self.trace_flows.is_empty()
    }

    pub fn observe(&self) -> Observe {
        let mut obs = Observe {
            series_flows: self.series_flows.clone(),
            series_links: self.series_links.clone(),
            trace_flows: self.trace_flows.clone(),
            series_variables: self.series_variables,
            ..Observe::default()
        };
        if let Some(max) = self.series_max {
            obs.series_max_records = max;
        }
        obs
    }
}

/// A message about the names at `path` as a scenario error.
fn at(path: &'static str) -> impl Fn(String) -> ScenarioError {
    move |message| ScenarioError { path: path.into(), message }
}

/// Names of flows and links → (flow indices, link indices). `flow:NAME` and
/// `link:NAME` say which; a bare name may be either, unless both have it;
/// `*` is every flow and link.
pub fn series_entities(scenario: &Scenario, names: &[String]) -> Result<(Vec<usize>, Vec<usize>), String> {
    let (mut flows, mut links) = (Vec::new(), Vec::new());
    let flow = |n: &str| scenario.flows.iter().position(|f| f.name == n);
    let link = |n: &str| scenario.links.iter().position(|l| l.name == n);
    let known = || {
        let f: Vec<&str> = scenario.flows.iter().map(|f| f.name.as_str()).collect();
        let l: Vec<&str> = scenario.links.iter().map(|l| l.name.as_str()).collect();
        format!("the flows are {f:?}, the links {l:?}")
    };
    for n in names {
        if n == "*" {
            flows = (0..scenario.flows.len()).collect();
            links = (0..scenario.links.len()).collect();
            continue;
        }
        let (which, name) = match n.split_once(':') {
            Some(("flow", x)) => (Some(true), x),
            Some(("link", x)) => (Some(false), x),
            _ => (None, n.as_str()),
        };
        match (which, flow(name), link(name)) {
            (Some(true) | None, Some(f), None) | (Some(true), Some(f), Some(_)) => flows.push(f),
            (Some(false) | None, None, Some(l)) | (Some(false), Some(_), Some(l)) => links.push(l),
            (None, Some(_), Some(_)) => {
                return Err(format!("{name:?} is both a flow and a link; say flow:{name} or link:{name}"))
            }
            (Some(true), None, _) => return Err(format!("no flow named {name:?}; {}", known())),
            (Some(false), _, None) => return Err(format!("no link named {name:?}; {}", known())),
            (None, None, None) => return Err(format!("no flow or link named {name:?}; {}", known())),
        }
    }
    flows.sort_unstable();
    flows.dedup();
    links.sort_unstable();
    links.dedup();
    Ok((flows, links))
}

/// Flow names → indices, or the message naming the unknown one and the flows there are.
pub fn flow_indices(scenario: &Scenario, names: &[String]) -> Result<Vec<usize>, String> {
    names
        .iter()
        .map(|n| {
            scenario.flows.iter().position(|f| &f.name == n).ok_or_else(|| {
                let known: Vec<&str> = scenario.flows.iter().map(|f| f.name.as_str()).collect();
                format!("no flow named {n:?}; the flows are {known:?}")
            })
        })
        .collect()
}
