//! The sender's response to ECN (RFC 3168 §6.1; `+ecn`): which ECN-Echo
//! ACKs reduce the window, and when to send CWR.
//!
//! RFC 3168 §6.1.2: the sender reacts to ECE at most once per window of
//! data, never increases the window in response to an ECE ACK, and sets CWR
//! on the first new data segment after any window reduction so that the
//! receiver stops echoing (§6.1.3). A fast retransmit or a timeout counts
//! as the window's reduction too (the window was already cut for this
//! window of data). This file holds that bookkeeping only; the reduction
//! itself is the sender's: `ssthresh` by the loss rule (RFC 5681 eq. 4,
//! `View::loss_ssthresh`, with the controller's β) and `cwnd = ssthresh`.
//! ECN-FACK (`ecn-fack`, `tcp/recovery/fack.rs`) decides its own
//! reductions and bypasses [`EcnResponse::reacts_to_ece`].

/// RFC 3168 §6.1.2 state of a sender. With `enabled` false (no `+ecn`)
/// every answer is "nothing to do".
#[derive(Copy, Clone, Debug, Default)]
pub struct EcnResponse {
    /// `+ecn` (or the `ecn-fack` base): new data leaves ECN-capable and ECE
    /// is acted on.
    enabled: bool,
    /// `snd_max` at the last window reduction: ECE is not acted on again
    /// until `snd_una` passes it ("at most once per window of data").
    recover: Option<u64>,
    /// The ACK being processed carries ECE (no window growth for it).
    ece_now: bool,
    /// Set CWR on the next new data segment.
    cwr_pending: bool,
}

impl EcnResponse {
    pub fn new(enabled: bool) -> Self {
        EcnResponse { enabled, ..Self::default() }
    }

    /// The flow does ECN: new data leaves as ECN-capable (ECT), a
    /// retransmission does not (RFC 3168 §6.1.5).
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// An ACK arrived: note whether it echoes congestion (its ECE flag). An
    /// echo means nothing to a sender without ECN.
    pub fn on_ack(&mut self, ece: bool) {
        self.ece_now = self.enabled && ece;
    }

    /// The ACK being processed carries ECE: RFC 3168 §6.1.2 forbids
    /// growing the window in response to it.
    pub fn ece_now(&self) -> bool {
        self.ece_now
    }

    /// RFC 3168 §6.1.2: whether this ACK's ECE reduces the window: at most
    /// once per window of data (not until `snd_una` passes `recover`), and
    /// not during fast recovery (the loss already halved the window).
    pub fn reacts_to_ece(&self, snd_una: u64, in_recovery: bool) -> bool {
        self.ece_now && !in_recovery && self.recover.is_none_or(|r| snd_una > r)
    }

    /// The window was reduced (ECE, fast retransmit or timeout): tell the
    /// receiver with CWR on the next new data segment, and do not react to
    /// ECE again within this window, i.e. until `snd_una` passes `snd_max`
    /// as it is now (RFC 3168 §6.1.2).
    pub fn window_reduced(&mut self, snd_max: u64) {
        if self.enabled {
            self.cwr_pending = true;
            self.recover = Some(snd_max);
        }
    }

    /// Whether the segment being sent carries CWR: RFC 3168 §6.1.2, the
    /// first new data after a reduction (a retransmission does not carry
    /// it). True once per reduction.
    pub fn take_cwr(&mut self, is_retransmit: bool) -> bool {
        if self.cwr_pending && !is_retransmit {
            self.cwr_pending = false;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3168_6_1_2_once_per_window_then_cwr_on_the_next_new_data() {
        let mut e = EcnResponse::new(true);
        e.on_ack(true);
        assert!(e.reacts_to_ece(1000, false));
        assert!(!e.reacts_to_ece(1000, true), "not during fast recovery");
        e.window_reduced(9000);
        // Within the window outstanding at the reduction: no second reaction.
        assert!(!e.reacts_to_ece(9000, false));
        assert!(e.reacts_to_ece(9001, false));
        // CWR waits for new data and goes once.
        assert!(!e.take_cwr(true));
        assert!(e.take_cwr(false));
        assert!(!e.take_cwr(false));
        e.on_ack(false);
        assert!(!e.ece_now());
    }

    #[test]
    fn without_ecn_an_echo_means_nothing() {
        let mut e = EcnResponse::new(false);
        e.on_ack(true);
        assert!(!e.ece_now() && !e.reacts_to_ece(1000, false));
        e.window_reduced(9000);
        assert!(!e.take_cwr(false));
    }
}
