//! SACK loss recovery of Fall & Floyd 1996 — the "SACK" of unfairness §IV
//! and ns-2's `Sack1` agent.
//!
//! - Entry on the `dupthresh`-th duplicate ACK (guarded by `recover`, RFC
//!   6582 §3.2 step 2): `recover = snd_max`, `ssthresh = cwnd =
//!   max(FlightSize/2, 2·SMSS)` — the window is halved at once and held, there
//!   is no inflation — and `snd_una` is retransmitted.
//! - `pipe` estimates the segments in the network. unfairness §IV: it is
//!   initialised to `snd_cwnd − 3`; ns-2.35 (the FF96 authors' code, non-"old"
//!   path) uses the segments outstanding minus the dupack threshold. Both are
//!   offered ([`PipeInit`]); the default is the outstanding data, which
//!   differs from the paper only when `cwnd` exceeds what is outstanding
//!   (a receive-window- or application-limited sender).
//! - Every ACK during recovery decrements `pipe` by one segment; a partial
//!   ACK decrements it by one more (it stands for the original and the
//!   retransmission leaving the network) and restarts the timer.
//! - While `pipe < cwnd` the sender transmits, incrementing `pipe`: first
//!   the earliest hole below the highest SACKed byte that has not been
//!   retransmitted, otherwise new data within the receive window.
//! - The initial fast retransmission is not counted in `pipe` (as in ns-2).
//! - An ACK at or above `recover` ends recovery; `cwnd` stays at `ssthresh`.
//!   With `tcp.loss_ssthresh = "window"` it goes on from ns-2's window
//!   instead: `Sack1TcpAgent::dupack_action` halves with `slowdown()`, which
//!   sets `cwnd_` to half the window *unrounded* and `ssthresh_` to it
//!   rounded down; the recovery sends while `pipe_` is below the whole
//!   segments of `cwnd_` (`window()` truncates), so it sends as with
//!   `cwnd = ssthresh`, but the window it leaves with is 12.5 segments where
//!   an odd window of 25 was halved (validation scenario 1,
//!   `unrounded_half_window`).
//!   The papers do not say whether `recover` still guards the next entry
//!   then: by default it does, as NewReno's; `tcp.sack_recover_after_exit =
//!   "cleared"` forgets it, as ns-2's `Sack1` does ([`SackRecoverAfterExit`]).
//! - On a timeout the scoreboard is cleared (RFC 2018 §8: SACK information
//!   may be reneged) and recovery ends.

use super::{may_enter, window_allows, LossRecovery, Response, View};
use crate::scenario::model::SackRecoverAfterExit;
use crate::tcp::scoreboard::Scoreboard;

/// How `pipe` is initialised on entering recovery.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PipeInit {
    /// `snd_max − snd_una − dupthresh·SMSS` (ns-2.35 `Sack1`).
    Outstanding,
    /// `cwnd − dupthresh·SMSS`, the pre-halving window (unfairness §IV, FF96 text).
    Cwnd,
}

#[derive(Clone, Debug)]
pub struct SackFf96 {
    pipe_init: PipeInit,
    after_exit: SackRecoverAfterExit,
    in_recovery: bool,
    recover: Option<u64>,
    /// Bytes estimated in flight, a multiple of SMSS (can go negative).
    pipe: i64,
    /// With `loss_ssthresh = "window"`: the unrounded half window the fast
    /// retransmit left, which the end of recovery restores (module docs).
    exit_cwnd: Option<u64>,
}

impl SackFf96 {
    pub fn new(pipe_init: PipeInit, after_exit: SackRecoverAfterExit) -> Self {
        SackFf96 { pipe_init, after_exit, in_recovery: false, recover: None, pipe: 0, exit_cwnd: None }
    }
    pub fn pipe(&self) -> i64 {
        self.pipe
    }
}

impl LossRecovery for SackFf96 {
    fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    fn on_dupack(&mut self, v: &View, sb: &mut Scoreboard) -> Response {
        if self.in_recovery {
            self.pipe -= v.mss as i64;
            return Response::default();
        }
        if v.dupacks != v.dupthresh || !may_enter(self.recover, v.snd_una) {
            return Response::default();
        }
        self.in_recovery = true;
        self.recover = Some(v.snd_max);
        let left = v.dupthresh as i64 * v.mss as i64;
        self.pipe = match self.pipe_init {
            PipeInit::Outstanding => v.flight_size() as i64 - left,
            PipeInit::Cwnd => v.cwnd as i64 - left,
        };
        sb.rewind();
        sb.mark_retransmitted(v.snd_una);
        self.exit_cwnd = v.half_window();
        Response::fast_retransmit(v, 0)
    }

    fn on_new_ack(&mut self, v: &View, _acked: u64, _sb: &mut Scoreboard) -> Response {
        if !self.in_recovery {
            return Response { grow: true, ..Response::default() };
        }
        self.pipe -= v.mss as i64;
        if v.snd_una >= self.recover.unwrap_or(0) {
            self.in_recovery = false;
            if self.after_exit == SackRecoverAfterExit::Cleared {
                self.recover = None;
            }
            let cwnd = v.exit_window(self.exit_cwnd.take());
            return Response { cwnd: Some(cwnd), ..Response::default() };
        }
        // Partial ACK: the retransmission and the original both left.
        self.pipe -= v.mss as i64;
        Response { restart_rto: Some(true), ..Response::default() }
    }

    fn may_send(&self, v: &View, _sb: &Scoreboard, len: u64) -> bool {
        if self.in_recovery {
            self.pipe < v.cwnd as i64
        } else {
            window_allows(v, len)
        }
    }

    fn next_retransmit(&mut self, _v: &View, sb: &mut Scoreboard) -> Option<u64> {
        if !self.in_recovery {
            return None;
        }
        let seq = sb.next_hole()?;
        sb.mark_retransmitted(seq);
        Some(seq)
    }

    fn on_transmit(&mut self, v: &View, _sb: &mut Scoreboard, _seq: u64, _len: u64) {
        if self.in_recovery {
            self.pipe += v.mss as i64;
        }
    }

    fn on_timeout(&mut self, v: &View, sb: &mut Scoreboard) {
        self.in_recovery = false;
        self.recover = Some(v.snd_max);
        self.exit_cwnd = None;
        sb.clear();
    }

    fn recover(&self) -> Option<u64> {
        self.recover
    }
}
