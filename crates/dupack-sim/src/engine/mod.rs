//! The discrete-event engine: event queue, random streams, the world loop.
pub mod estimate;
pub mod queue;
pub mod rng;
pub mod sim;
