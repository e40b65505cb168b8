//! Scenario input: the document before validation ([`document`]: TOML text
//! → JSON value, `path=value` overrides), the serde-free validated model
//! ([`model`]), unit parsing ([`units`]) and the parser/validator
//! ([`parse`]) that turns the document into a [`model::Scenario`] or one
//! clear [`ScenarioError`].
pub mod document;
pub mod model;
pub mod parse;
pub mod units;

pub use parse::{parse_scenario, parse_scenario_toml, ScenarioError};
