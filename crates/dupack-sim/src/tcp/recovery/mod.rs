//! Loss-recovery policies: what a sender does once duplicate ACKs say a
//! segment is lost, and how much it may send while recovering.
//!
//! A policy sees the sender only through a read-only [`View`] and answers
//! with a [`Response`]; the sender core applies every response in one
//! documented order (see `sender.rs`, "Applying a response"). Policies never
//! hold the sender's state, so a variant is a choice of policy plus
//! parameters, never a copy of the sender.
//!
//! EPLR's window growth (`+eplr`) is a decorator like Limited Transmit and
//! PRR, but it lives in `tcp::eplr` beside EPLR's threshold: one paper's
//! mechanism in one file.

/// Write the named [`LossRecovery`] methods of a decorator as plain
/// forwards to `self.inner`, so each decorator spells out only what it
/// changes.
macro_rules! forward_to_inner {
    ($($m:ident),* $(,)?) => { $( forward_to_inner!(@one $m); )* };
    (@one in_recovery) => {
        fn in_recovery(&self) -> bool { self.inner.in_recovery() }
    };
    (@one may_send) => {
        fn may_send(&self, v: &View, sb: &Scoreboard, len: u64) -> bool { self.inner.may_send(v, sb, len) }
    };
    (@one next_retransmit) => {
        fn next_retransmit(&mut self, v: &View, sb: &mut Scoreboard) -> Option<u64> { self.inner.next_retransmit(v, sb) }
    };
    (@one on_transmit) => {
        fn on_transmit(&mut self, v: &View, sb: &mut Scoreboard, seq: u64, len: u64) {
            self.inner.on_transmit(v, sb, seq, len)
        }
    };
    (@one recover) => {
        fn recover(&self) -> Option<u64> { self.inner.recover() }
    };
    (@one poll_timeout) => {
        fn poll_timeout(&self) -> Option<crate::time::SimTime> { self.inner.poll_timeout() }
    };
    (@one on_timer) => {
        fn on_timer(&mut self, v: &View, sb: &mut Scoreboard) -> Response { self.inner.on_timer(v, sb) }
    };
    (@one pipe_bytes) => {
        fn pipe_bytes(&self, v: &View, sb: &Scoreboard) -> Option<u64> { self.inner.pipe_bytes(v, sb) }
    };
    (@one handles_ecn) => {
        fn handles_ecn(&self) -> bool { self.inner.handles_ecn() }
    };
}
// By path too, for the decorator that lives outside this directory
// (`tcp::eplr::EplrGrowth`).
pub(crate) use forward_to_inner;

pub mod fack;
pub mod fast_recovery;
pub mod limited_transmit;
pub mod prr;
pub mod rack;
pub mod rfc6675;
pub mod rpld;
pub mod sack_ff96;
pub mod tahoe;
pub mod vegas;

// The policies' common vocabulary lives in `tcp::policy`; the recovery
// files name it through here.
pub use crate::tcp::policy::{may_enter, window_allows, LossRecovery, Response, View};
