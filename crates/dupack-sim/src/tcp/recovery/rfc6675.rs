//! RFC 6675 conservative SACK-based loss recovery (`rfc6675`).
//!
//! - `IsLost(s)` (§4): more than `(DupThresh − 1)·SMSS` bytes above `s`
//!   have been SACKed.
//! - `pipe` (§4 `SetPipe`): for every octet from `HighACK` to `HighData` that
//!   is not SACKed, one if it is not lost, plus one if it was retransmitted.
//!   Because `IsLost` only grows toward lower sequence numbers, the lost
//!   octets are exactly the unSACKed ones below a boundary found from the
//!   top of the SACKed intervals, so `pipe` costs O(SACKed runs +
//!   outstanding retransmissions), not O(window).
//! - Entry (§5 steps 2–4): `DupAcks ≥ DupThresh` or `IsLost(HighACK)`;
//!   `RecoveryPoint = HighData`, `ssthresh = cwnd = FlightSize/2` (RFC 5681
//!   eq. 4), retransmit the first segment, then send while
//!   `cwnd − pipe ≥ 1 SMSS`.
//! - `NextSeg` (§4): (1) the first unSACKed segment above `HighRxt` (1.a)
//!   and below the highest SACKed octet (1.b) that `IsLost` (1.c); (2) new
//!   data; (3) the first unSACKed segment meeting (1.a) and (1.b) only; (4)
//!   one rescue retransmission of the highest unSACKed segment per recovery.
//! - Recovery ends when `HighACK ≥ RecoveryPoint`; `cwnd` stays at `ssthresh`.
//! - After an RTO (§5.1): `RecoveryPoint = HighData`, no new recovery before
//!   it is acknowledged, and the SACK information is kept so the slow-start
//!   retransmissions skip what the receiver holds.
//!
//! Choice: duplicate ACKs are counted per RFC 5681 §2 as for every variant
//! (RFC 6675 §2 counts only ACKs that carry new SACK information).

use super::{window_allows, LossRecovery, Response, View};
use crate::scenario::model::{PartialAckRtoReset, Rfc6675Pipe};
use crate::tcp::scoreboard::Scoreboard;
use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct Rfc6675 {
    in_recovery: bool,
    recovery_point: Option<u64>,
    /// One past the highest retransmitted byte (`HighRxt` + 1).
    high_rxt: u64,
    rescue_rxt: Option<u64>,
    /// The next transmission is the rescue retransmission (it does not move `HighRxt`).
    rescue_pending: bool,
    /// Retransmitted segments that count in `pipe`: (seq, len). Those not
    /// yet acknowledged, and not SACKed either unless `pipe` is
    /// [`Rfc6675Pipe::Ns3`].
    rexmits: VecDeque<(u64, u64)>,
    /// Until when a retransmission counts in `pipe` (`tcp.rfc6675_pipe`).
    pipe_rule: Rfc6675Pipe,
    /// Which partial ACKs of a recovery restart the retransmission timer
    /// (`tcp.rfc6675_rto_reset`).
    rto_reset: PartialAckRtoReset,
    /// Partial ACKs in this recovery so far.
    partial_acks: u32,
    /// `tcp.rfc6675_exit_growth = "grow"`: the ACK that ends the recovery
    /// also grows the window, as ns-3's `ProcessAck` does (it calls
    /// `IncreaseWindow` with the segments that ACK acknowledges once the
    /// state is `CA_OPEN` again); RFC 6675 §5 leaves cwnd as it is.
    exit_growth: bool,
}

impl Default for Rfc6675 {
    /// Every ACK of new data restarts the timer (RFC 6298 §5.3).
    fn default() -> Self {
        Rfc6675::new(PartialAckRtoReset::Every)
    }
}

impl Rfc6675 {
    pub fn new(rto_reset: PartialAckRtoReset) -> Self {
        Rfc6675 {
            in_recovery: false,
            recovery_point: None,
            high_rxt: 0,
            rescue_rxt: None,
            rescue_pending: false,
            rexmits: VecDeque::new(),
            rto_reset,
            partial_acks: 0,
            exit_growth: false,
            pipe_rule: Rfc6675Pipe::Rfc6675,
        }
    }

    pub fn with_exit_growth(mut self, grow: bool) -> Self {
        self.exit_growth = grow;
        self
    }

    pub fn with_pipe(mut self, rule: Rfc6675Pipe) -> Self {
        self.pipe_rule = rule;
        self
    }

    fn threshold(v: &View) -> u64 {
        (v.dupthresh as u64).saturating_sub(1) * v.mss
    }

    /// RFC 6675 §4 `IsLost`.
    pub fn is_lost(v: &View, sb: &Scoreboard, seq: u64) -> bool {
        sb.sacked_above(seq) > Self::threshold(v)
    }

    /// The lowest byte not presumed lost: unSACKed bytes below it are lost.
    fn lost_boundary(v: &View, sb: &Scoreboard) -> u64 {
        let t = Self::threshold(v);
        let mut acc = 0;
        let mut boundary = v.snd_una;
        for &(l, r) in sb.sacked_runs().iter().rev() {
            acc += r - l;
            if acc > t {
                boundary = l;
                break;
            }
        }
        boundary.max(v.snd_una)
    }

    /// RFC 6675 §4 `SetPipe`, in bytes.
    pub fn pipe(&self, v: &View, sb: &Scoreboard) -> u64 {
        let b = Self::lost_boundary(v, sb).min(v.snd_max);
        let in_flight = (v.snd_max - b) - sb.sacked_between(b, v.snd_max);
        let retransmitted: u64 = self.rexmits.iter().map(|&(_, len)| len).sum();
        in_flight + retransmitted
    }

    /// Drop the retransmissions that no longer count in `pipe`: the
    /// acknowledged ones and, by RFC 6675 §4, the SACKed ones (SetPipe
    /// looks only at octets not SACKed). With [`Rfc6675Pipe::Ns3`] a SACKed
    /// retransmission stays until the cumulative ACK passes it.
    fn prune(&mut self, v: &View, sb: &Scoreboard) {
        match self.pipe_rule {
            Rfc6675Pipe::Rfc6675 => self.rexmits.retain(|&(s, _)| s >= v.snd_una && !sb.is_sacked(s)),
            Rfc6675Pipe::Ns3 => self.rexmits.retain(|&(s, _)| s >= v.snd_una),
        }
    }

    fn seg_start(v: &View, seq: u64) -> u64 {
        seq / v.mss * v.mss
    }
}

impl LossRecovery for Rfc6675 {
    fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    fn on_dupack(&mut self, v: &View, sb: &mut Scoreboard) -> Response {
        self.prune(v, sb);
        if self.in_recovery {
            return Response::default();
        }
        let lost = Self::is_lost(v, sb, v.snd_una);
        // §5.1: no new recovery until HighACK ≥ RecoveryPoint, i.e. until
        // RecoveryPoint itself is acknowledged (RFC 6582's `recover` guard,
        // `may_enter`, wants the ACK to go beyond it). At exactly
        // RecoveryPoint the duplicate ACKs may be the echoes of this
        // recovery's own rule-(3) retransmissions, which RFC 6675 would not
        // count (no new SACK information) and RFC 5681 §2, our count, does:
        // there only SACK evidence, IsLost(HighACK), starts a recovery.
        let may_enter = match self.recovery_point {
            None => true,
            Some(r) => v.snd_una > r || (v.snd_una == r && lost),
        };
        if !(v.dupacks >= v.dupthresh || lost) || !may_enter {
            return Response::default();
        }
        // §5 step 4.
        self.in_recovery = true;
        self.recovery_point = Some(v.snd_max);
        self.rescue_rxt = None;
        self.partial_acks = 0;
        let len = v.mss.min(v.app_end - v.snd_una);
        self.high_rxt = v.snd_una + len;
        self.rexmits.push_back((v.snd_una, len));
        Response::fast_retransmit(v, 0)
    }

    fn on_new_ack(&mut self, v: &View, _acked: u64, sb: &mut Scoreboard) -> Response {
        self.prune(v, sb);
        if !self.in_recovery {
            return Response { grow: true, ..Response::default() };
        }
        if v.snd_una >= self.recovery_point.unwrap_or(0) {
            self.in_recovery = false;
            self.rexmits.clear();
            return Response { grow: self.exit_growth, ..Response::default() };
        }
        // A partial ACK: whether it restarts the timer (`tcp.rfc6675_rto_reset`).
        self.partial_acks += 1;
        Response { restart_rto: Some(self.rto_reset.restarts(self.partial_acks)), ..Response::default() }
    }

    fn may_send(&self, v: &View, sb: &Scoreboard, len: u64) -> bool {
        if self.in_recovery {
            // §5 step 4.4: while cwnd − pipe ≥ 1 SMSS.
            self.pipe(v, sb) + v.mss <= v.cwnd
        } else {
            window_allows(v, len)
        }
    }

    fn next_retransmit(&mut self, v: &View, sb: &mut Scoreboard) -> Option<u64> {
        if !self.in_recovery {
            return None;
        }
        let from = Self::seg_start(v, sb.first_unsacked_from(self.high_rxt.max(v.snd_una)));
        // (1.a) above HighRxt is `from`; (1.b) below the highest octet any
        // SACK covered. A segment above every SACK block may still be in
        // flight: nothing says the receiver lacks it.
        let below_high_sack = sb.high_sacked().is_some_and(|h| from < h);
        // (1) a lost segment above HighRxt: (1.a), (1.b) and (1.c) IsLost.
        // IsLost(from) needs SACKed bytes above `from`, so it implies (1.b).
        if below_high_sack && Self::is_lost(v, sb, from) {
            return Some(from);
        }
        // (2) new data, if there is any and the receive window takes it.
        let new_len = v.mss.min(v.app_end.saturating_sub(v.snd_nxt));
        if new_len > 0 && v.snd_nxt + new_len <= v.snd_una + v.rwnd {
            return None;
        }
        // (3) an unSACKed segment meeting (1.a) and (1.b) but not (1.c).
        if below_high_sack {
            return Some(from);
        }
        // (4) the rescue retransmission, once per recovery.
        if self.rescue_rxt.is_none_or(|r| v.snd_una > r) {
            let mut last = v.snd_max;
            while last > v.snd_una {
                let seg = Self::seg_start(v, last - 1);
                if !sb.is_sacked(seg) {
                    self.rescue_rxt = self.recovery_point;
                    self.rescue_pending = true;
                    return Some(seg);
                }
                last = seg;
            }
        }
        None
    }

    fn on_transmit(&mut self, v: &View, sb: &mut Scoreboard, seq: u64, len: u64) {
        if !self.in_recovery || seq >= v.snd_max {
            return;
        }
        sb.mark_retransmitted(seq);
        self.rexmits.push_back((seq, len));
        if !std::mem::take(&mut self.rescue_pending) {
            self.high_rxt = self.high_rxt.max(seq + len);
        }
    }

    fn on_timeout(&mut self, v: &View, _sb: &mut Scoreboard) {
        // §5.1: keep the SACK information, end this recovery, and allow no
        // new one before HighData as of now is acknowledged.
        self.in_recovery = false;
        self.recovery_point = Some(v.snd_max);
        self.rexmits.clear();
        self.high_rxt = v.snd_una;
        self.rescue_pending = false;
    }

    fn recover(&self) -> Option<u64> {
        self.recovery_point
    }

    fn pipe_bytes(&self, v: &View, sb: &Scoreboard) -> Option<u64> {
        Some(self.pipe(v, sb))
    }
}
