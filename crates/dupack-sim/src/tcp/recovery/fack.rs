//! FACK — Forward Acknowledgement (Mathis & Mahdavi 1996), as described in
//! unfairness §IV; ns-2's `Agent/TCP/Fack`.
//!
//! - `snd_fack` is the forward-most byte the receiver holds: the highest
//!   SACKed byte, or `snd_una` without SACK information.
//! - Recovery starts on `dupthresh` duplicate ACKs **or** when
//!   `snd_fack − snd_una > dupthresh·SMSS` (the reassembly queue is
//!   estimated longer than three segments, unfairness §IV), guarded by
//!   `recover` like the other policies (RFC 6582 §3.2 step 2).
//! - On entry `cwnd` is halved and then held for the whole recovery:
//!   `ssthresh = cwnd = max(FlightSize/2, 2·SMSS)` (the RFC 5681 eq. 4 form
//!   every variant here uses; it equals the paper's `cwnd/2` whenever the
//!   window is full).
//! - `retran_data` counts retransmitted bytes still in the network: it grows
//!   with each retransmission and shrinks when a retransmitted segment is
//!   acknowledged, SACKed, or found lost.
//! - The data in flight is `awnd = snd_nxt − snd_fack + retran_data`, and
//!   the sender transmits while `awnd < cwnd`: first retransmissions found
//!   lost, then holes below `snd_fack`, then new data.
//! - Lost retransmissions: the value of `snd_nxt` is stored with each
//!   retransmission; when `snd_fack` passes it while the segment is still
//!   neither acknowledged nor SACKed, the retransmission was lost and is sent
//!   again (unfairness §IV).
//! - Recovery ends when the cumulative ACK reaches `recover`; `cwnd` stays at
//!   `ssthresh`. A timeout clears the scoreboard and all FACK state.
//!
//! **ECN-FACK** (unfairness §VIII, Fig. 8; base `ecn-fack`) is the same
//! retransmission machinery with another window rule: on *every* ACK,
//! duplicate or not, if it carries ECN-Echo and `now > ecn_backoff` and
//! `snd_una > ecn_seq`, then `ecn_backoff = now + srtt`, `ecn_seq = snd_max`,
//! `ssthresh = min(cwnd, snd_wnd)/2`, `cwnd = ssthresh`; otherwise slow start
//! or congestion avoidance grows `cwnd`. A loss never reduces the window (only
//! the timer does, in the sender core), and segments go while
//! `snd_max − snd_fack + retran_data < cwnd`. Choice: `ssthresh` is floored at
//! one SMSS (the figure's `/2` of a one-segment window would stall the sender).

use super::{may_enter, window_allows, LossRecovery, Response, View};
use crate::tcp::cc;
use crate::tcp::scoreboard::Scoreboard;
use crate::time::SimTime;
use std::collections::VecDeque;

/// ECN-FACK's once-per-RTT guard (unfairness Fig. 8).
#[derive(Clone, Debug, Default)]
struct EcnFackState {
    ecn_backoff: SimTime,
    ecn_seq: u64,
}

#[derive(Clone, Debug, Default)]
pub struct Fack {
    in_recovery: bool,
    recover: Option<u64>,
    /// Retransmitted bytes still believed in the network.
    retran_data: u64,
    /// Retransmissions in send order: (first byte, length, `snd_nxt` when sent).
    /// `snd_nxt` never decreases during recovery, so the oldest entry is the
    /// first whose stored value `snd_fack` can pass.
    rexmits: VecDeque<(u64, u64, u64)>,
    /// Retransmissions found lost, to be sent again first.
    lost: VecDeque<u64>,
    /// `Some` for ECN-FACK.
    ecn: Option<EcnFackState>,
}

impl Fack {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn ecn_fack() -> Self {
        Fack { ecn: Some(EcnFackState::default()), ..Self::default() }
    }

    /// unfairness Fig. 8, on every ACK: react to ECN-Echo at most once per
    /// RTT and window, else grow the window. `None` when not ECN-FACK.
    fn fig8(&mut self, v: &View) -> Option<Response> {
        let st = self.ecn.as_mut()?;
        if v.ece && v.now > st.ecn_backoff && v.snd_una > st.ecn_seq {
            st.ecn_backoff = v.now + v.srtt.unwrap_or_default();
            st.ecn_seq = v.snd_max;
            let ssthresh = (v.cwnd.min(v.rwnd) / 2).max(v.mss);
            return Some(Response {
                ssthresh: Some(ssthresh),
                cwnd: Some(ssthresh),
                ecn_reduction: true,
                ..Response::default()
            });
        }
        Some(Response { cwnd: Some(cc::grow(v.cwnd, v.ssthresh, v.mss, v.mss, u64::MAX)), ..Response::default() })
    }
    pub fn retran_data(&self) -> u64 {
        self.retran_data
    }
    /// `snd_fack`: the highest byte the receiver is known to hold.
    fn snd_fack(v: &View, sb: &Scoreboard) -> u64 {
        sb.high_sacked().unwrap_or(v.snd_una).max(v.snd_una)
    }
    /// `awnd = snd_nxt − snd_fack + retran_data` (unfairness §IV).
    /// ECN-FACK counts from `snd_max` (unfairness §VIII).
    pub fn awnd(&self, v: &View, sb: &Scoreboard) -> u64 {
        let front = if self.ecn.is_some() { v.snd_max } else { v.snd_nxt };
        front.saturating_sub(Self::snd_fack(v, sb)) + self.retran_data
    }

    /// Drop retransmissions that left the network; detect lost ones.
    fn update(&mut self, v: &View, sb: &mut Scoreboard) {
        let fack = Self::snd_fack(v, sb);
        let mut kept = VecDeque::with_capacity(self.rexmits.len());
        while let Some((seq, len, nxt)) = self.rexmits.pop_front() {
            if seq < v.snd_una || sb.is_sacked(seq) {
                self.retran_data -= len; // arrived
            } else if fack > nxt {
                // Data sent after the retransmission has arrived, the retransmission has not.
                self.retran_data -= len;
                if !self.lost.contains(&seq) {
                    self.lost.push_back(seq);
                }
            } else {
                kept.push_back((seq, len, nxt));
            }
        }
        self.rexmits = kept;
        self.lost.retain(|&s| s >= v.snd_una && !sb.is_sacked(s));
    }

    fn record(&mut self, seq: u64, len: u64, snd_nxt: u64, sb: &mut Scoreboard) {
        sb.mark_retransmitted(seq);
        self.retran_data += len;
        self.rexmits.push_back((seq, len, snd_nxt));
    }

    fn clear(&mut self) {
        // (the ECN-FACK guard survives recoveries: it is about ECN, not loss)
        self.in_recovery = false;
        self.retran_data = 0;
        self.rexmits.clear();
        self.lost.clear();
    }
}

impl LossRecovery for Fack {
    fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    fn on_dupack(&mut self, v: &View, sb: &mut Scoreboard) -> Response {
        let window = self.fig8(v).unwrap_or_default();
        if self.in_recovery {
            self.update(v, sb);
            return window;
        }
        let reassembly = Self::snd_fack(v, sb) - v.snd_una > v.dupthresh as u64 * v.mss;
        if !(v.dupacks >= v.dupthresh || reassembly) || !may_enter(self.recover, v.snd_una) {
            return window;
        }
        self.clear();
        self.in_recovery = true;
        self.recover = Some(v.snd_max);
        sb.rewind();
        let len = v.mss.min(v.app_end - v.snd_una);
        self.record(v.snd_una, len, v.snd_nxt, sb);
        if self.ecn.is_some() {
            // ECN-FACK: retransmit without touching the window.
            return Response { retransmit: Some(v.snd_una), fast_retransmit: true, ..window };
        }
        Response::fast_retransmit(v, 0)
    }

    fn on_new_ack(&mut self, v: &View, _acked: u64, sb: &mut Scoreboard) -> Response {
        let window = self.fig8(v);
        if !self.in_recovery {
            return window.unwrap_or(Response { grow: true, ..Response::default() });
        }
        if v.snd_una >= self.recover.unwrap_or(0) {
            self.clear();
            return window.unwrap_or(Response { cwnd: Some(v.ssthresh), ..Response::default() });
        }
        self.update(v, sb);
        window.unwrap_or_default()
    }

    fn may_send(&self, v: &View, sb: &Scoreboard, len: u64) -> bool {
        if self.in_recovery {
            // unfairness §IV: (re)transmit while awnd < cwnd.
            self.awnd(v, sb) < v.cwnd
        } else {
            window_allows(v, len)
        }
    }

    fn next_retransmit(&mut self, _v: &View, sb: &mut Scoreboard) -> Option<u64> {
        if !self.in_recovery {
            return None;
        }
        if let Some(seq) = self.lost.pop_front() {
            return Some(seq);
        }
        sb.next_hole()
    }

    fn on_transmit(&mut self, v: &View, sb: &mut Scoreboard, seq: u64, len: u64) {
        if self.in_recovery && seq < v.snd_max {
            // A retransmission: snd_nxt is stored with it (unfairness §IV).
            self.record(seq, len, v.snd_nxt, sb);
        }
    }

    fn on_timeout(&mut self, v: &View, sb: &mut Scoreboard) {
        self.clear();
        self.recover = Some(v.snd_max);
        sb.clear();
    }

    fn recover(&self) -> Option<u64> {
        self.recover
    }

    fn handles_ecn(&self) -> bool {
        self.ecn.is_some()
    }
}
