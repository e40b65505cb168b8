//! Running a world to its end: the entry points (`run` and its
//! observed, interruptible and controlled forms) and the control loop.

use super::*;

/// Run `s` with `seed` and check the end-of-run invariants.
pub fn run(s: &Scenario, seed: u64) -> Result<RunResult, RunError> {
    run_interruptible(s, seed, || false)
}

/// Events between two calls of the `interrupted` callback of [`run_interruptible`]
/// (and of the `control` callback of [`run_controlled`]): a few hundredths of
/// a second of wall-clock time.
pub const INTERRUPT_CHECK_EVENTS: u64 = 1 << 18;

/// [`run`], asking `interrupted` every [`INTERRUPT_CHECK_EVENTS`] events
/// whether to give up (the Python binding checks for Ctrl-C there). The
/// result does not depend on how often it is asked.
pub fn run_interruptible(s: &Scenario, seed: u64, interrupted: impl FnMut() -> bool) -> Result<RunResult, RunError> {
    run_traced(s, seed, &[], interrupted).map(|(r, _)| r)
}

/// [`run_interruptible`], also recording the packet-level trace of the
/// flows whose indices are in `traced` (see [`World::trace_flow`]). Tracing
/// only observes: the result is the same as without it.
pub fn run_traced(
    s: &Scenario,
    seed: u64,
    traced: &[usize],
    interrupted: impl FnMut() -> bool,
) -> Result<(RunResult, Vec<TraceRecord>), RunError> {
    let obs = Observe { trace_flows: traced.to_vec(), ..Observe::default() };
    run_observed(s, seed, obs, interrupted).map(|(r, o)| (r, o.trace))
}

/// [`run_interruptible`], recording what `obs` asks for: packet traces,
/// time series and packet captures (see [`crate::observe`]). Observing
/// only reads: the result is the same as without it.
pub fn run_observed(
    s: &Scenario,
    seed: u64,
    obs: Observe,
    mut interrupted: impl FnMut() -> bool,
) -> Result<(RunResult, Observed), RunError> {
    run_controlled(s, seed, obs, |_| if interrupted() { Control::Abort } else { Control::Continue })
}

/// Where a run is, as its `control` callback sees it (see [`run_controlled`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    /// The simulated instant reached.
    pub now: SimTime,
    /// Events processed so far.
    pub events: u64,
}

/// What a run's `control` callback asks for (see [`run_controlled`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Control {
    /// Go on.
    Continue,
    /// End the run at the simulated instant reached and return its result
    /// so far, with `run.end_reason` set to the reason given (say
    /// `"wall_limit"` or `"interrupted"`).
    Stop(&'static str),
    /// Give up: the run returns an error and no result.
    Abort,
}

/// [`run_observed`], calling `control` every [`INTERRUPT_CHECK_EVENTS`]
/// events with the simulated time and the events so far. Neither the
/// calls nor their number change the result.
///
/// [`Control::Stop`] ends the run early: the events of the instant reached
/// are processed to its end, then the run concludes there as a run of that
/// duration would, except for its `end_reason` (a partial result). If every
/// finite transfer completed within that instant, the run ended of itself
/// and the result is whole.
pub fn run_controlled(
    s: &Scenario,
    seed: u64,
    obs: Observe,
    mut control: impl FnMut(Progress) -> Control,
) -> Result<(RunResult, Observed), RunError> {
    #[allow(clippy::disallowed_methods)]
    let wall = std::time::Instant::now(); // reported only, never used in the simulation
    let mut w = World::new(s, seed)?;
    w.observe(s, seed, obs)?;
    let limit = SimTime::ZERO + s.duration;
    let mut stopped = None;
    let (end, all_done) = loop {
        if let Some(end) = w.run_events(limit, s.stop_when_done, INTERRUPT_CHECK_EVENTS) {
            break end;
        }
        match control(Progress { now: w.q.now(), events: w.events() }) {
            Control::Continue => {}
            Control::Abort => {
                return Err(RunError(format!("interrupted at {:.3} s of simulated time", w.q.now().as_secs_f64())))
            }
            Control::Stop(reason) => {
                let now = w.q.now();
                let end = w.run_events(now, s.stop_when_done, u64::MAX).expect("an unlimited budget runs to the end");
                if !(s.stop_when_done && end.1) {
                    stopped = Some(reason);
                }
                break end;
            }
        }
    };
    let mut result = conclude(s, seed, &mut w, (end, all_done), wall.elapsed().as_secs_f64())?;
    if let Some(reason) = stopped {
        result.run.end_reason = reason.into();
    }
    let mut observed = Observed {
        trace: std::mem::take(&mut w.trace),
        series: w.series.take().map(|r| r.finish()),
        ..Observed::default()
    };
    for cap in w.captures.drain(..) {
        let mut cap = cap.lock().unwrap_or_else(|e| e.into_inner());
        observed.pcap_packets.push(cap.packets());
        observed.pcap_errors.push(cap.finish().err().map(|e| e.to_string()));
    }
    for c in &mut w.channels {
        c.capture = None;
    }
    Ok((result, observed))
}
