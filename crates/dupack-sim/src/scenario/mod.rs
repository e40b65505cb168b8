//! Scenario input: the serde-free validated model ([`model`]), unit parsing
//! ([`units`]) and the parser/validator ([`parse`]) that turns a JSON value
//! (the Python front loads TOML and applies overrides) into a [`model::Scenario`]
//! or one clear [`ScenarioError`].
pub mod model;
pub mod parse;
pub mod units;

pub use parse::{parse_scenario, parse_scenario_toml, ScenarioError};
