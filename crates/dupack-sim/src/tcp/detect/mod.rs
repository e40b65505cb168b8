//! Duplicate-ACK threshold policies: how many duplicate ACKs make a
//! segment "lost" and trigger a fast retransmit.
//!
//! The sender asks the policy on every duplicate ACK, with its current
//! [`View`](super::policy::View) (`dupacks` already counting this one), so a
//! policy may derive the threshold from the window. One file per policy:
//! - [`Fixed`] (`fixed.rs`): the fixed threshold of RFC 5681 §3.2, the default;
//! - [`Efr`] (`efr.rs`): Efficient Fast Retransmit, `+efr` (efr §5.4);
//! - [`EarlyRetransmit`] (`early_retransmit.rs`): RFC 5827 §3.1, `+er`.
//!
//! EPLR's threshold (`+eplr`, eplr §III.C) lives with the rest of EPLR in
//! `tcp::eplr`: its threshold and its window growth are one mechanism.

mod early_retransmit;
mod efr;
mod fixed;

pub use super::policy::DupThreshold;
pub use early_retransmit::EarlyRetransmit;
pub use efr::Efr;
pub use fixed::Fixed;

/// A sender's view for the policies' tests: a window of `cwnd_segs`
/// segments of 1000 bytes, a peer window of `rwnd_segs`, the `dupacks`-th
/// duplicate ACK, nothing outstanding unless a test sets it.
#[cfg(test)]
fn test_view(cwnd_segs: u64, rwnd_segs: u64, dupacks: u32) -> super::policy::View {
    super::policy::View {
        snd_una: 0,
        snd_nxt: 0,
        snd_max: 0,
        cwnd: cwnd_segs * 1000,
        ssthresh: u64::MAX,
        mss: 1000,
        rwnd: rwnd_segs * 1000,
        dupacks,
        dupthresh: 3,
        app_end: u64::MAX,
        limited_transmit: 0,
        ece: false,
        now: crate::time::SimTime::ZERO,
        srtt: None,
        loss_ssthresh: crate::scenario::model::LossSsthresh::FlightSize,
        in_recovery: false,
        beta: None,
        ssthresh_whole_segments: false,
        pipe: None,
    }
}
