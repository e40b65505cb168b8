//! The sans-IO TCP sender core.
//!
//! The core owns the sequence state (`snd_una`, `snd_nxt`, `snd_max`), the
//! congestion state (`cwnd`, `ssthresh` in bytes), the duplicate-ACK
//! counter, the retransmission timer and the SACK scoreboard. *What to do*
//! about a loss is delegated to a [`LossRecovery`] policy chosen by the
//! variant. The sender is driven only by [`Sender::on_segment`],
//! [`Sender::on_timer`] and [`Sender::poll_transmit`] with `now` passed in,
//! and reports the instant it next needs a timer call through
//! [`Sender::poll_timeout`]; it never touches an event queue.
//!
//! ## Applying a response
//! On every ACK the core (1) records the peer window, (2) updates the
//! scoreboard from SACK blocks, (3) classifies the ACK as new, duplicate or
//! neither, (4) asks the policy, then applies its [`Response`] in this
//! order: `ssthresh`, then `cwnd` (or growth when `grow`), then go-back-N,
//! then a forced retransmission, then the timer. Counting (fast
//! retransmits, N_dup) happens when the response is applied.
//!
//! ## Modelling choices
//! - No connection handshake: the peer window is known at start (as in
//!   ns-2's one-way agents); the first data segment leaves at the flow's start.
//! - Fixed segmentation: segment `i` is bytes `[i·mss, (i+1)·mss)`, so a
//!   retransmission always repeats an original segment exactly.
//! - RTT timing as BSD when timestamps are off: one segment timed at a
//!   time, and any retransmission cancels the measurement (Karn). With
//!   timestamps every ACK of new data gives a sample (RFC 7323 §4.1).
//! - After an RTO: `ssthresh = max(FlightSize/2, 2·SMSS)` unless the timer
//!   had already expired for this segment (RFC 5681 §3.1, eq. 4 note),
//!   `cwnd = 1·SMSS` (loss window), `snd_nxt = snd_una` (go-back-N, BSD).

use super::cc::{AckInput, CongestionControl};
use super::detect::DupThreshold;
use super::ecn::EcnResponse;
use super::recovery::{LossRecovery, Response, View};
use super::rto::RtoEstimator;
use super::scoreboard::Scoreboard;
use super::segment::{TcpFlags, TcpSegment};
use super::undo::{Evidence, Undo};
use super::variant::{Base, Ext, VariantSpec};
use crate::scenario::model::{
    BackoffReset, LossSsthresh, RtoOnFastRetransmit, TcpConfig, TimeoutExitGrowth, UndoEvidence,
};
use crate::time::{SimDuration, SimTime};
use std::collections::VecDeque;

/// Something the sender did that a test or trace may want to see.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SenderEvent {
    FastRetransmit { at: SimTime, seq: u64, ndup: u32 },
    Timeout { at: SimTime, seq: u64, ndup: u32, backoff: u32 },
    RecoveryExit { at: SimTime, ack: u64 },
    EcnReduction { at: SimTime, cwnd: u64 },
}

/// Counters the sender keeps for the flow's results.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub retransmitted_segments: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub timeout_episodes: u64,
    /// N_dup(i), efr §6.1: dupacks received for the lost segment when each
    /// timeout fired; indices 0, 1, 2, ≥3.
    pub ndup_at_timeout: [u64; 4],
    pub acks_received: u64,
    pub dupacks_received: u64,
    /// Time spent in fast recovery (closed intervals; see `Sender::recovery_time`).
    pub recovery_time: SimDuration,
    /// Window reductions in response to ECN-Echo (RFC 3168 §6.1.2).
    pub ecn_reductions: u64,
    /// Window reductions undone because the original transmission arrived
    /// (`+irw`, irw §3; `+undo`, RFC 3522).
    pub window_undos: u64,
    /// Time from the first expiry of a timeout episode to the ACK that ends it.
    pub backoff_time: SimDuration,
}

pub struct Sender {
    cfg: TcpConfig,
    mss: u64,
    app_end: u64,
    pub(crate) snd_una: u64,
    pub(crate) snd_nxt: u64,
    pub(crate) snd_max: u64,
    cwnd: u64,
    ssthresh: u64,
    /// The congestion controller (`tcp::cc`): growth between losses and β.
    cc: Box<dyn CongestionControl>,
    /// `cc.beta()`, read once: a controller's decrease factor is a constant
    /// of the controller, and the View carries it on every ACK.
    beta: Option<f64>,
    /// `cc.ssthresh_of_whole_segments()`, read once for the same reason.
    ssthresh_whole_segments: bool,
    /// SACKed bytes before the ACK being handled marked its blocks, and that
    /// ACK's DeliveredData (RFC 6937) once known: [`AckInput::delivered`].
    sacked_before_ack: u64,
    ack_delivered: u64,
    /// The ACK being processed ends a fast recovery (for the controller).
    ack_ends_recovery: bool,
    rwnd: u64,
    dupacks: u32,
    recovery: Box<dyn LossRecovery>,
    detect: Box<dyn DupThreshold>,
    /// The threshold the detection policy gave at the last duplicate ACK.
    dupthresh: u32,
    uses_sack: bool,
    sb: Scoreboard,
    rto: RtoEstimator,
    rto_deadline: Option<SimTime>,
    /// Timestamp to echo (RFC 7323 `TS.Recent` of the ACK stream).
    ts_recent: SimTime,
    /// Retransmissions that must leave before anything else.
    forced: VecDeque<u64>,
    /// The timer has expired since the last ACK of new data.
    in_timeout_episode: bool,
    /// The segment at `snd_una` has already been resent by the timer.
    rto_retransmitted_una: bool,
    /// `snd_max` at the last timeout, until `snd_una` reaches it
    /// (`loss_ssthresh = "pipe"`: ns-3's loss state).
    rto_high: Option<u64>,
    started: bool,
    /// `+ecn`: the RFC 3168 §6.1.2 response (`tcp::ecn`): once per
    /// window, no growth on an ECE ACK, CWR after a reduction.
    ecn: EcnResponse,
    /// The instant of the call being handled (for the View).
    now: SimTime,
    /// `+irw` / `+undo`: the revivable window.
    undo: Option<Undo>,
    /// When the current fast recovery / timeout episode began.
    recovery_since: Option<SimTime>,
    episode_since: Option<SimTime>,
    stats: SenderStats,
    events: VecDeque<SenderEvent>,
    record_events: bool,
    next_tag: u32,
}

impl Sender {
    /// A sender for `app_bytes` bytes (`None` = unlimited) toward a peer
    /// whose receive window is `peer_window`.
    pub fn new(cfg: &TcpConfig, variant: &VariantSpec, peer_window: u64, app_bytes: Option<u64>) -> Self {
        let mss = cfg.mss as u64;
        let recovery = super::compose::recovery(variant, cfg);
        let cc = super::compose::controller(variant, cfg);
        Sender {
            mss,
            app_end: app_bytes.unwrap_or(u64::MAX),
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            cwnd: (cfg.initial_window as u64 * mss).min(cfg.max_cwnd),
            ssthresh: cfg.initial_ssthresh,
            beta: cc.beta(),
            ssthresh_whole_segments: cc.ssthresh_of_whole_segments(),
            sacked_before_ack: 0,
            ack_delivered: 0,
            ack_ends_recovery: false,
            cc,
            rwnd: peer_window,
            dupacks: 0,
            recovery,
            detect: super::compose::detection(variant, cfg),
            dupthresh: cfg.dupthresh,
            uses_sack: variant.uses_sack(),
            sb: Scoreboard::new(cfg.mss),
            rto: RtoEstimator::new(&cfg.rto),
            rto_deadline: None,
            ts_recent: SimTime::ZERO,
            forced: VecDeque::new(),
            in_timeout_episode: false,
            rto_retransmitted_una: false,
            rto_high: None,
            started: false,
            ecn: EcnResponse::new(variant.has(Ext::Ecn) || variant.base == Base::EcnFack),
            now: SimTime::ZERO,
            undo: if variant.has(Ext::Irw) {
                Some(Undo::new(Evidence::OriginalTag, mss))
            } else if variant.has(Ext::Undo) {
                let evidence = match cfg.undo_evidence {
                    UndoEvidence::Timestamps => Evidence::Timestamp,
                    UndoEvidence::Dsack => Evidence::Dsack,
                };
                Some(Undo::new(evidence, mss))
            } else {
                None
            },
            recovery_since: None,
            episode_since: None,
            stats: SenderStats::default(),
            events: VecDeque::new(),
            record_events: false,
            next_tag: 1,
            cfg: cfg.clone(),
        }
    }

    /// Keep a log of [`SenderEvent`]s for [`Sender::poll_event`].
    pub fn record_events(&mut self, on: bool) {
        self.record_events = on;
    }

    /// The application starts writing (the flow's start time).
    pub fn start(&mut self) {
        self.started = true;
    }

    fn view(&self) -> View {
        let pipe = (self.cfg.loss_ssthresh == LossSsthresh::Pipe).then(|| self.ns3_pipe());
        self.view_with(pipe)
    }

    /// The View with `pipe` as given. Built in one expression: the View is
    /// returned by value on every ACK and every transmission, and a local
    /// patched after the fact costs a copy of the whole struct.
    #[inline(always)]
    fn view_with(&self, pipe: Option<u64>) -> View {
        View {
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            snd_max: self.snd_max,
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
            mss: self.mss,
            rwnd: self.rwnd,
            dupacks: self.dupacks,
            dupthresh: self.dupthresh,
            app_end: self.app_end,
            limited_transmit: 0,
            ece: self.ecn.ece_now(),
            now: self.now,
            srtt: self.rto.srtt(),
            loss_ssthresh: self.cfg.loss_ssthresh,
            in_recovery: self.recovery.in_recovery(),
            beta: self.beta,
            ssthresh_whole_segments: self.ssthresh_whole_segments,
            pipe,
        }
    }

    /// The `pipe` ns-3 halves (`loss_ssthresh = "pipe"`): RFC 6675's, except
    /// after a timeout, when ns-3 has marked everything outstanding lost
    /// (`TcpTxBuffer::SetSentListLost`) and counts only what left since,
    /// neither SACKed nor acknowledged.
    fn ns3_pipe(&self) -> u64 {
        match self.rto_high {
            Some(_) => {
                let sent = self.snd_nxt.max(self.snd_una);
                sent - self.snd_una - self.sb.sacked_between(self.snd_una, sent)
            }
            None => {
                let v = self.view_with(None);
                self.recovery.pipe_bytes(&v, &self.sb).unwrap_or_else(|| v.ssthresh_flight())
            }
        }
    }

    fn push_event(&mut self, e: SenderEvent) {
        if self.record_events {
            self.events.push_back(e);
        }
    }

    // ---------------------------------------------------------------- ACKs

    /// An ACK (or any segment) from the receiver.
    pub fn on_segment(&mut self, seg: &TcpSegment, now: SimTime) {
        self.now = now;
        if !seg.flags.has(TcpFlags::ACK) || seg.ack > self.snd_max {
            // An ACK for data never sent is ignored (RFC 9293 §3.10.7.4).
            return;
        }
        self.stats.acks_received += 1;
        let wnd_changed = seg.wnd != self.rwnd;
        self.rwnd = seg.wnd;
        self.sacked_before_ack = self.sb.sacked_bytes();
        if self.uses_sack {
            self.sb.begin_ack();
            for b in seg.sack.as_slice() {
                // A block reaching beyond snd_max reports data never sent:
                // it is ignored whole, as an ACK for data never sent is
                // (RFC 9293 §3.10.7.4). Marking it would let NextSeg skip
                // unsent data and offer segments above snd_max.
                if b.right <= self.snd_max {
                    self.sb.mark_sacked(b, self.app_end);
                }
            }
        }
        self.ecn.on_ack(seg.flags.has(TcpFlags::ECE));
        if seg.ack > self.snd_una {
            self.on_new_ack(seg, now);
        } else if seg.ack == self.snd_una && self.snd_max > self.snd_una {
            if seg.len == 0 && !wnd_changed {
                // RFC 5681 §2 DUPLICATE ACKNOWLEDGMENT: same ack, no data,
                // same window, data outstanding.
                self.dupacks += 1;
                self.stats.dupacks_received += 1;
                let mut v = self.view();
                self.dupthresh = self.detect.on_dupack(&v);
                v.dupthresh = self.dupthresh;
                let r = self.recovery.on_dupack(&v, &mut self.sb);
                self.apply(r, now, 0);
                if self.recovery.in_recovery() && self.recovery_since.is_none() {
                    self.recovery_since = Some(now);
                }
            }
            self.cc.on_any_ack(self.rto.srtt(), now);
        }
        // RFC 3708: every retransmission of the episode came back as a duplicate.
        if let Some((cwnd, ssthresh)) = self.undo.as_mut().and_then(|u| u.on_ack_sack(seg.ack, seg.sack.as_slice())) {
            self.cwnd = cwnd.min(self.cfg.max_cwnd);
            self.ssthresh = ssthresh;
            self.stats.window_undos += 1;
            self.cc.on_undo();
        }
        if self.ecn.ece_now() && !self.recovery.handles_ecn() {
            self.on_ecn_echo(now);
        }
    }

    /// RFC 3168 §6.1.2: react to ECN-Echo at most once per window of data,
    /// and not during fast recovery (the loss already halved the window);
    /// `tcp::ecn` keeps the rule, the window is reduced here.
    fn on_ecn_echo(&mut self, now: SimTime) {
        if !self.ecn.reacts_to_ece(self.snd_una, self.recovery.in_recovery()) {
            return;
        }
        self.cc.on_congestion(self.cwnd, self.mss, false, now);
        self.ssthresh = self.view().loss_ssthresh();
        self.cwnd = self.ssthresh.min(self.cfg.max_cwnd);
        self.stats.ecn_reductions += 1;
        self.window_reduced();
        self.push_event(SenderEvent::EcnReduction { at: now, cwnd: self.cwnd });
    }

    /// The window was reduced (ECE, fast retransmit or timeout): tell the
    /// receiver with CWR on the next new data segment, and do not react to
    /// ECE again within this window (RFC 3168 §6.1.2).
    fn window_reduced(&mut self) {
        self.ecn.window_reduced(self.snd_max);
    }

    fn on_new_ack(&mut self, seg: &TcpSegment, now: SimTime) {
        let acked = seg.ack - self.snd_una;
        let rto_high = self.rto_high;
        self.snd_una = seg.ack;
        if self.snd_nxt < self.snd_una {
            self.snd_nxt = self.snd_una;
        }
        self.sb.advance(self.snd_una);
        self.forced.retain(|&s| s >= seg.ack);
        self.dupacks = 0;
        self.dupthresh = self.cfg.dupthresh;
        if let Some(t) = self.episode_since.take() {
            self.stats.backoff_time = self.stats.backoff_time + now.saturating_since(t);
        }
        self.in_timeout_episode = false;
        self.rto_retransmitted_una = false;
        if self.rto_high.is_some_and(|h| self.snd_una >= h) {
            self.rto_high = None;
        }
        // RTT sample: timestamps (RFC 7323 §4.1) or the BSD timed segment (Karn).
        if let (Some((tsval, tsecr)), true) = (seg.ts, self.cfg.timestamps) {
            self.ts_recent = tsval;
            // The receiver echoes 0 until it holds a valid TS.Recent (its
            // first segment was lost); such an echo is no measurement.
            if tsecr > SimTime::ZERO {
                self.rto.on_rtt_sample(tsecr, now);
            }
        } else {
            self.rto.on_cumulative_ack(seg.ack, now);
        }
        self.cc.on_any_ack(self.rto.srtt(), now);
        let was_recovering = self.recovery.in_recovery();
        let v = self.view();
        let mut r = self.recovery.on_new_ack(&v, acked, &mut self.sb);
        let mut grow_by = acked;
        // DeliveredData: what this ACK newly reports received, SACKed data
        // already counted by an earlier ACK left out (RFC 6937 §3).
        self.ack_delivered = (acked + self.sb.sacked_bytes()).saturating_sub(self.sacked_before_ack);
        if let (TimeoutExitGrowth::AboveRecover, Some(h)) = (self.cfg.timeout_exit_growth, rto_high) {
            if seg.ack >= h {
                // ns-3 leaving CA_LOSS: only the whole segments above the point count.
                grow_by = (seg.ack - h) / self.mss * self.mss;
                self.ack_delivered = grow_by;
                r.grow &= grow_by > 0;
            }
        }
        self.ack_ends_recovery = was_recovering && !self.recovery.in_recovery();
        self.apply(r, now, grow_by);
        self.ack_delivered = 0;
        self.ack_ends_recovery = false;
        // irw §3 / RFC 3522: the ACK for the retransmitted data shows the
        // original arrived: it was delayed, not lost; restore the window.
        let ts_ecr = seg.ts.map(|(_, ecr)| ecr);
        if let Some((cwnd, ssthresh)) = self.undo.as_mut().and_then(|u| u.on_new_ack(seg.ack, seg.tag, ts_ecr)) {
            self.cwnd = cwnd.min(self.cfg.max_cwnd);
            self.ssthresh = ssthresh;
            self.stats.window_undos += 1;
            self.cc.on_undo();
        }
        if was_recovering && !self.recovery.in_recovery() {
            self.push_event(SenderEvent::RecoveryExit { at: now, ack: seg.ack });
            self.close_recovery(now);
        }
        // RFC 6298 §5.2/5.3: stop the timer when all is acknowledged,
        // otherwise restart it (unless the policy says not to). With
        // `tcp.rto.backoff_reset = "new_ack"` (ns-3) the timer restarts
        // without its backoff.
        let restarts = self.snd_una == self.snd_max || r.restart_rto.unwrap_or(true);
        if restarts && self.cfg.rto.backoff_reset == BackoffReset::NewAck {
            self.rto.reset_backoff();
        }
        if self.snd_una == self.snd_max {
            self.rto_deadline = None;
        } else if r.restart_rto.unwrap_or(true) || self.rto_deadline.is_none() {
            self.rto_deadline = Some(self.rto.deadline(now));
        }
    }

    /// Window growth for one ACK: the congestion controller's (RFC 5681
    /// §3.1 for Reno, RFC 9438 for CUBIC).
    fn grow(&mut self, acked: u64) {
        let a = AckInput {
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
            acked,
            delivered: self.ack_delivered,
            mss: self.mss,
            max_cwnd: self.cfg.max_cwnd,
            srtt: self.rto.srtt(),
            ends_recovery: self.ack_ends_recovery,
            now: self.now,
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
        };
        let g = self.cc.on_ack(&a);
        self.cwnd = g.cwnd;
        if let Some(s) = g.ssthresh {
            self.ssthresh = s;
        }
    }

    fn apply(&mut self, r: Response, now: SimTime, acked: u64) {
        if r.fast_retransmit || r.ecn_reduction {
            self.cc.on_congestion(self.cwnd, self.mss, false, now);
        }
        if r.fast_retransmit {
            if let Some(u) = self.undo.as_mut() {
                u.on_loss(self.snd_una, self.snd_max, self.cwnd, self.ssthresh);
            }
        }
        if let Some(s) = r.ssthresh {
            self.ssthresh = s;
        }
        if let Some(c) = r.cwnd {
            // A policy that leaves recovery at `cwnd = ssthresh` after an undo
            // (`+undo`, `+irw`) restored an ssthresh still "arbitrarily high"
            // (RFC 5681 §3.1) would make the window unbounded: keep cwnd
            // then, as Linux does when it ends a reduction (tcp_input.c).
            if c < u64::MAX / 2 {
                self.cwnd = c.min(self.cfg.max_cwnd);
            }
        }
        // A policy may set the window and let the controller grow it from
        // there (Vegas deflates, then its controller takes the ACK).
        if r.grow && !self.ecn.ece_now() {
            // RFC 3168 §6.1.2: no window increase in response to an ECE ACK.
            self.grow(acked);
        }
        if r.ecn_reduction {
            self.stats.ecn_reductions += 1;
            self.window_reduced();
            self.push_event(SenderEvent::EcnReduction { at: now, cwnd: self.cwnd });
        }
        if r.fast_retransmit {
            self.window_reduced();
            self.stats.fast_retransmits += 1;
            self.push_event(SenderEvent::FastRetransmit { at: now, seq: self.snd_una, ndup: self.dupacks });
            // Karn: the timed segment may be the one being resent.
            self.rto.forget_timed_segment();
            // BSD, Linux and ns-2 restart the timer with the retransmission;
            // RFC 6298 §5.1 read literally (and ns-3) leaves a running timer
            // alone (`tcp.rto.on_fast_retransmit`).
            if self.cfg.rto.on_fast_retransmit == RtoOnFastRetransmit::Restart || self.rto_deadline.is_none() {
                self.rto_deadline = Some(self.rto.deadline(now));
            }
        }
        if r.go_back_n {
            self.snd_nxt = self.snd_una;
            self.rto.forget_timed_segment();
        }
        if let Some(seq) = r.retransmit {
            if !self.forced.contains(&seq) {
                self.forced.push_back(seq);
            }
        }
    }

    // -------------------------------------------------------------- timer

    pub fn poll_timeout(&self) -> Option<SimTime> {
        match (self.rto_deadline, self.recovery.poll_timeout()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The retransmission timer, and the policy's own timers (RACK's
    /// reordering timer, the tail loss probe); calls before a deadline are
    /// no-ops. A policy timer due at the same instant as the RTO goes first.
    pub fn on_timer(&mut self, now: SimTime) {
        self.now = now;
        if self.recovery.poll_timeout().is_some_and(|d| now >= d) {
            let v = self.view();
            let r = self.recovery.on_timer(&v, &mut self.sb);
            self.apply(r, now, 0);
            if r.retransmit.is_some() {
                // A probe or a retransmission went out: the RTO restarts (RFC 8985 §7.3).
                self.rto_deadline = Some(self.rto.deadline(now));
            }
            if self.recovery.in_recovery() && self.recovery_since.is_none() {
                self.recovery_since = Some(now);
            }
            return;
        }
        match self.rto_deadline {
            Some(d) if now >= d => {}
            _ => return,
        }
        let ndup = self.dupacks;
        self.stats.timeouts += 1;
        self.stats.ndup_at_timeout[ndup.min(3) as usize] += 1;
        if !self.in_timeout_episode {
            self.stats.timeout_episodes += 1;
            self.in_timeout_episode = true;
            self.episode_since = Some(now);
        }
        self.close_recovery(now);
        self.window_reduced();
        self.push_event(SenderEvent::Timeout { at: now, seq: self.snd_una, ndup, backoff: self.rto.backoff_shift() });
        if let Some(u) = self.undo.as_mut() {
            u.on_loss(self.snd_una, self.snd_max, self.cwnd, self.ssthresh);
        }
        // RFC 5681 §3.1 eq. 4, not again for a segment the timer already
        // resent (RFC 5681 §3.1: "ssthresh is held constant"). 4.4BSD's
        // `tcp_timers` and ns-2's `TcpAgent::timeout` halve the window at
        // every expiry, backoffs included (cwnd is then one segment, so
        // ssthresh falls to two): `"window"`, which mirrors them, does too.
        // ns-3 (`"pipe"`) recomputes it at every expiry too, from the data
        // in flight (`ReTxTimeout`: `SetSentListLost` clears the mark that
        // `IsHeadRetransmitted` then tests).
        if !self.rto_retransmitted_una
            || self.cfg.loss_ssthresh != LossSsthresh::FlightSize
            || self.ssthresh_whole_segments
        {
            self.ssthresh = self.view().loss_ssthresh();
        }
        // RFC 9438 §4.8: a timeout is a congestion event too.
        if !self.rto_retransmitted_una || self.ssthresh_whole_segments {
            self.cc.on_congestion(self.cwnd, self.mss, true, now);
        }
        self.rto_retransmitted_una = true;
        self.rto_high = Some(self.snd_max);
        self.cwnd = self.mss.min(self.cfg.max_cwnd);
        self.dupacks = 0;
        self.snd_nxt = self.snd_una;
        self.forced.clear();
        self.rto.on_timeout();
        let v = self.view();
        self.recovery.on_timeout(&v, &mut self.sb);
        // RFC 6298 §5.5–5.6: back off and restart.
        self.rto.backoff();
        self.rto_deadline = Some(self.rto.deadline(now));
    }

    fn close_recovery(&mut self, now: SimTime) {
        if let Some(t) = self.recovery_since.take() {
            self.stats.recovery_time = self.stats.recovery_time + now.saturating_since(t);
        }
    }

    /// Time in fast recovery up to `now`, an unfinished recovery included.
    pub fn recovery_time(&self, now: SimTime) -> SimDuration {
        self.stats.recovery_time + self.recovery_since.map_or(SimDuration::ZERO, |t| now.saturating_since(t))
    }

    /// Time in RTO backoff up to `now`, an unfinished episode included.
    pub fn backoff_time(&self, now: SimTime) -> SimDuration {
        self.stats.backoff_time + self.episode_since.map_or(SimDuration::ZERO, |t| now.saturating_since(t))
    }

    /// The duplicate-ACK threshold in force (the configured one until a
    /// dupack for the current `snd_una` lets the detection policy choose).
    pub fn dupthresh(&self) -> u32 {
        self.dupthresh
    }

    pub fn mss(&self) -> u64 {
        self.mss
    }

    /// `+ecn`: new data leaves as ECN-capable (ECT); retransmissions do not
    /// (RFC 3168 §6.1.5).
    pub fn ecn_capable(&self) -> bool {
        self.ecn.enabled()
    }

    // ------------------------------------------------------------ sending

    fn seg_len(&self, seq: u64) -> u64 {
        self.mss.min(self.app_end - seq)
    }

    /// The next segment to transmit now, if any; call until `None`.
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<TcpSegment> {
        self.now = now;
        if !self.started {
            return None;
        }
        if let Some(seq) = self.forced.pop_front() {
            return Some(self.emit(seq, now));
        }
        if self.snd_nxt >= self.app_end && !self.recovery.in_recovery() {
            return None;
        }
        let v = self.view();
        let next_len = if self.snd_nxt < self.app_end { self.seg_len(self.snd_nxt) } else { self.mss };
        if !self.recovery.may_send(&v, &self.sb, next_len) {
            return None;
        }
        let seq = match self.recovery.next_retransmit(&v, &mut self.sb) {
            Some(seq) => seq,
            None => {
                if self.uses_sack && self.snd_nxt < self.snd_max {
                    // Going back after a timeout: skip what the receiver has
                    // SACKed, if the policy kept that information (RFC 6675 §5.1).
                    self.snd_nxt = self.sb.first_unsacked_from(self.snd_nxt).min(self.snd_max);
                }
                let len = if self.snd_nxt < self.app_end { self.seg_len(self.snd_nxt) } else { return None };
                // The receive window bounds new data in every state (RFC 5681 §2).
                if self.snd_nxt + len > self.snd_una + self.rwnd {
                    return None;
                }
                let seq = self.snd_nxt;
                self.snd_nxt += len;
                seq
            }
        };
        let len = self.seg_len(seq);
        self.recovery.on_transmit(&v, &mut self.sb, seq, len);
        Some(self.emit(seq, now))
    }

    fn emit(&mut self, seq: u64, now: SimTime) -> TcpSegment {
        let len = self.seg_len(seq);
        let is_retransmit = seq < self.snd_max;
        if seq + len > self.snd_max {
            self.snd_max = seq + len;
            if self.uses_sack {
                self.sb.extend_to(self.snd_max);
            }
        }
        // A forced retransmission of the segment at `snd_nxt` (after a
        // go-back-N) must not be sent again by the window loop.
        if seq == self.snd_nxt {
            self.snd_nxt = seq + len;
        }
        self.stats.segments_sent += 1;
        self.cc.on_transmit(seq, self.mss, now);
        if is_retransmit {
            self.stats.retransmitted_segments += 1;
            self.rto.on_retransmission(seq, seq + len);
        } else if !self.cfg.timestamps {
            self.rto.time_segment(seq, seq + len, now);
        }
        // RFC 6298 §5.1: start the timer if it is not running.
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(self.rto.deadline(now));
        }
        let tag = self.next_tag;
        self.next_tag = self.next_tag.wrapping_add(1).max(1);
        let ts = self.cfg.timestamps.then_some((now, self.ts_recent));
        if let Some(u) = self.undo.as_mut() {
            u.on_transmit(seq, tag, ts.map(|(val, _)| val), is_retransmit);
        }
        let mut flags = TcpFlags(TcpFlags::ACK);
        if self.ecn.take_cwr(is_retransmit) {
            // RFC 3168 §6.1.2: CWR on the first new data after the reduction.
            flags.set(TcpFlags::CWR);
        }
        TcpSegment { seq, ack: 0, len: len as u32, flags, wnd: 0, sack: Default::default(), ts, tag, is_retransmit }
    }

    // ---------------------------------------------------------- accessors

    pub fn poll_event(&mut self) -> Option<SenderEvent> {
        self.events.pop_front()
    }
    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }
    pub fn cwnd(&self) -> u64 {
        self.cwnd
    }
    pub fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    pub fn dupacks(&self) -> u32 {
        self.dupacks
    }
    pub fn in_recovery(&self) -> bool {
        self.recovery.in_recovery()
    }
    pub fn recover(&self) -> Option<u64> {
        self.recovery.recover()
    }
    /// The retransmission timer has expired since the last ACK of new data.
    pub fn in_timeout_episode(&self) -> bool {
        self.in_timeout_episode
    }
    /// Bytes above `snd_una` the scoreboard holds as SACKed (`None` without SACK).
    pub fn sacked_bytes(&self) -> Option<u64> {
        self.uses_sack.then(|| self.sb.sacked_bytes())
    }
    /// The recovery policy's estimate of the bytes in the network (RFC 6675
    /// `pipe`), for the policies that keep one.
    pub fn pipe(&self) -> Option<u64> {
        self.recovery.pipe_bytes(&self.view(), &self.sb)
    }
    pub fn rto(&self) -> &RtoEstimator {
        &self.rto
    }
    /// Every byte the application wrote has been acknowledged.
    pub fn is_done(&self) -> bool {
        self.app_end != u64::MAX && self.snd_una >= self.app_end
    }
    pub fn app_end(&self) -> u64 {
        self.app_end
    }
}

#[cfg(test)]
mod tests;
