//! STUB: replaced by the real parser.
use super::model::Scenario;
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioError {
    pub path: String,
    pub message: String,
}
impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}
impl std::error::Error for ScenarioError {}

pub fn parse_scenario(_v: &serde_json::Value) -> Result<Scenario, ScenarioError> {
    Err(ScenarioError { path: String::new(), message: "parser not implemented".into() })
}
