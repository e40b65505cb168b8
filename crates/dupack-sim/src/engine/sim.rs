//! STUB: replaced by the world loop.
use crate::metrics::result::RunResult;
use crate::scenario::model::Scenario;
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub struct RunError(pub String);
impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for RunError {}

pub fn run(_s: &Scenario, _seed: u64) -> Result<RunResult, RunError> {
    Err(RunError("engine not implemented".into()))
}
