//! Sans-IO TCP: sender and receiver are driven only by `on_segment`,
//! `on_timer` and `poll_transmit` with `now` passed in; neither touches the
//! event queue, so both are testable packet by packet.

pub mod cc;
pub mod compose;
pub mod detect;
pub mod ecn;
pub mod eplr;
pub mod policy;
pub mod receiver;
pub mod recovery;
pub mod rto;
pub mod scoreboard;
pub mod segment;
pub mod sender;
pub mod sendlog;
pub mod undo;
pub mod variant;
