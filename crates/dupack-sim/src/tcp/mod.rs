//! Sans-IO TCP: sender and receiver are driven only by `on_segment`,
//! `on_timer` and `poll_transmit` with `now` passed in; neither touches the
//! event queue, so both are testable packet by packet.

pub mod receiver;
pub mod rto;
pub mod segment;
pub mod variant;
