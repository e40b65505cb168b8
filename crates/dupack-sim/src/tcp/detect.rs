//! Duplicate-ACK threshold policies: how many duplicate ACKs make a
//! segment "lost" and trigger a fast retransmit.
//!
//! The threshold is asked for on every duplicate ACK with the sender's
//! current [`View`], so a policy may derive it from the window — EFR
//! (efr §5) computes it from `min(snd_wnd, cwnd)`, RFC 5827 Early
//! Retransmit from the outstanding segments. The fixed threshold of RFC
//! 5681 §3.2 is the default.

use super::recovery::View;

pub trait DupThreshold {
    /// The number of duplicate ACKs that triggers a fast retransmit now.
    fn dupthresh(&self, v: &View) -> u32;
}

/// RFC 5681 §3.2: a fixed threshold (3 unless configured).
#[derive(Copy, Clone, Debug)]
pub struct Fixed(pub u32);

impl DupThreshold for Fixed {
    fn dupthresh(&self, _v: &View) -> u32 {
        self.0
    }
}
