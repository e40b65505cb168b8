//! The validated scenario: what the simulator consumes.
//!
//! Everything here has already been checked by [`super::parse`]: names are
//! unique and resolved, numbers are in range, units are converted to
//! integers (bits/s, bytes, nanoseconds). Topology builders (dumbbell, chain)
//! have been expanded into explicit nodes and links, so the engine sees one
//! shape only.

use crate::tcp::variant::Variant;
use crate::time::SimDuration;
use std::sync::Arc;

/// Every default of the scenario format, in one place: the parser and the
/// `Default` impls below both use these, and `docs/scenario.md` lists them.
pub mod defaults {
    use super::QueueLimit;
    use crate::time::SimDuration;

    pub const DURATION: SimDuration = SimDuration::from_secs(60);
    pub const SEED: u64 = 1;
    pub const QUEUE_LIMIT: QueueLimit = QueueLimit::Packets(100);
    /// RED (`queue.kind = "red"`). Thresholds, limit, `maxp` (= 1/`linterm_`)
    /// and `wq` are ns-2's `Queue/RED` defaults before ns-2.35 made them
    /// automatic (`thresh_ 5`, `maxthresh_ 15`, `Queue set limit_ 50`,
    /// `linterm_ 10`, `q_weight_ 0.002`, `gentle_ false`, `setbit_ false`).
    pub const RED_MIN_TH: u32 = 5;
    pub const RED_MAX_TH: u32 = 15;
    pub const RED_LIMIT_PACKETS: u32 = 50;
    pub const RED_MAXP: f64 = 0.1;
    pub const RED_WQ: f64 = 0.002;
    /// The "typical packet" of the idle-time decay (ns-2 uses 500 B; 1000 B
    /// is closer to this simulator's 1500-byte data packets and 40-byte ACKs
    /// mixed on a bottleneck).
    pub const RED_MEAN_PACKET_SIZE: u32 = 1000;
    pub const MSS: u32 = 1460;
    pub const DUPTHRESH: u32 = 3;
    pub const EFR_MIN_DUPTHRESH: u32 = 1;
    pub const RTO_GRANULARITY: SimDuration = SimDuration::from_millis(1);
    pub const RTO_TICK: SimDuration = SimDuration::from_millis(500);
    /// ns-2.35's default `tcpTick_`.
    pub const RTO_TICK_NS2: SimDuration = SimDuration::from_millis(10);
    pub const RTO_INITIAL: SimDuration = SimDuration::from_secs(1);
    pub const RTO_MIN: SimDuration = SimDuration::from_secs(1);
    pub const RTO_MAX_FINE: SimDuration = SimDuration::from_secs(60);
    pub const RTO_MAX_COARSE: SimDuration = SimDuration::from_secs(64);
    pub const MAX_BACKOFF_SHIFT: u32 = 6;
    pub const RECEIVER_WINDOW: u64 = 64 * 1024;
    pub const DELACK_TIMEOUT: SimDuration = SimDuration::from_millis(200);
    pub const DELACK_EVERY: u32 = 2;
    pub const MAX_SACK_BLOCKS: u32 = 3;
    /// `dda = "auto"` resolves to this many round-trip propagation delays of
    /// the flow's last link (irw §4: "twice the propagation delay (i.e. round
    /// trip time) on the wireless link" — one round trip).
    pub const DDA_AUTO_ROUND_TRIPS: u64 = 1;
    /// Gilbert–Elliott loss probabilities: the classic Gilbert channel
    /// (no loss in Good, every packet lost in Bad).
    pub const GE_P_GOOD: f64 = 0.0;
    pub const GE_P_BAD: f64 = 1.0;
    /// Bytes per delivery opportunity of a trace-driven link direction.
    /// mahimahi's `mm-link` counts 1504 (its TUN MTU plus a 4-byte header).
    pub const TRACE_MTU: u32 = 1500;
    /// ARQ (irw §4 gives the NAK size; the rest are this simulator's choices,
    /// documented in docs/scenario.md).
    pub const ARQ_RETRY_LIMIT: u32 = 3;
    pub const ARQ_NAK_BYTES: u32 = 16;
    /// RLC acknowledged mode after eplr Table II: windows of 32, MaxDAT 4
    /// (3 retransmissions), timer-based discard after 1500 ms, no in-sequence delivery.
    pub const RLC_WINDOW: u32 = 32;
    pub const RLC_RETRY_LIMIT: u32 = 3;
    pub const RLC_DISCARD: SimDuration = SimDuration::from_millis(1500);
    /// `nak_timeout = "auto"`: the link's round trip (2 × delay) plus the
    /// serialisation of two 1500-byte frames (the retransmission may wait
    /// for the frame on the wire) and 1 ms of slack.
    pub fn arq_nak_timeout(delay: SimDuration, rate_bps: u64) -> SimDuration {
        let frame = if rate_bps > 0 { crate::time::tx_time(1500, rate_bps) } else { SimDuration::ZERO };
        delay + delay + frame + frame + SimDuration::from_millis(1)
    }
    /// Snoop's local timer: never below 2 link round trips (and 10 ms), and
    /// that much before the first sample.
    pub fn snoop_min_timeout(delay: SimDuration) -> SimDuration {
        delay.saturating_mul(4).max(SimDuration::from_millis(10))
    }
    /// Shared wireless medium (`[[topology.media]]`): the efr testbed's
    /// 2 Mbps WaveLAN (efr §4.1) with IEEE 802.11 DSSS timing (slot 20 µs,
    /// SIFS 10 µs, DIFS = SIFS + 2 slots; long PLCP preamble and header,
    /// 192 bits at 1 Mbit/s; aCWmin 31, aCWmax 1023).
    pub const MEDIUM_RATE_BPS: u64 = 2_000_000;
    pub const MEDIUM_SLOT: SimDuration = SimDuration::from_micros(20);
    pub const MEDIUM_SIFS: SimDuration = SimDuration::from_micros(10);
    pub const MEDIUM_DIFS: SimDuration = SimDuration::from_micros(50);
    pub const MEDIUM_PREAMBLE: SimDuration = SimDuration::from_micros(192);
    /// 802.11 MAC header (24) + FCS (4) + LLC/SNAP (8) bytes around the IP datagram.
    pub const MEDIUM_MAC_OVERHEAD: u32 = 36;
    pub const MEDIUM_CW_MIN: u32 = 31;
    pub const MEDIUM_CW_MAX: u32 = 1023;
    /// No MAC retransmission: a collided frame is lost to TCP, as on the
    /// paper's WaveLAN (efr §7.3 contrasts it with Ethernet's CSMA/CD retries).
    pub const MEDIUM_RETRY_LIMIT: u32 = 0;
    /// efr §4.1: segment loss rate between one mobile and CH without other traffic.
    pub const MEDIUM_FRAME_LOSS: f64 = 3.0e-4;
    /// Propagation across a room (300 m in 1 µs); must not exceed the slot.
    pub const MEDIUM_DELAY: SimDuration = SimDuration::from_micros(1);
    /// Per-station interface queue: BSD's `IFQ_MAXLEN` (50), as on the
    /// testbed's FreeBSD hosts and its access point's buffer stand-in.
    pub const MEDIUM_QUEUE_LIMIT: QueueLimit = QueueLimit::Packets(50);
}

#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// Free-text name (`name` key), for reports.
    pub name: String,
    /// `run.duration`: the run stops at this simulated time at the latest.
    pub duration: SimDuration,
    /// `run.seed`: default seed; `dupack run --seed` overrides it.
    pub seed: u64,
    /// `run.stop_when_done`: stop as soon as every finite transfer completed.
    pub stop_when_done: bool,
    /// `run.tie_break`: how simultaneous events of one class are ordered.
    pub tie_break: TieBreakMode,
    /// `[wire]`: how every link puts frames on the wire.
    pub wire: WireSpec,
    pub nodes: Vec<NodeSpec>,
    pub links: Vec<LinkSpec>,
    /// Shared multiple-access media (`net::medium`), after the links.
    pub media: Vec<MediumSpec>,
    pub flows: Vec<FlowSpec>,
}

/// How a frame's transmission time is computed (`wire.tx_time`, `time::TxClock`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum TxTime {
    /// Exact over a busy period: a frame ends at the nanosecond at or
    /// before its exact end and the fraction left is carried into the next
    /// frame sent back to back, so instants that coincide in exact
    /// arithmetic coincide in the run (the default).
    #[default]
    Exact,
    /// Each frame's duration on its own, rounded to the nearest
    /// nanosecond, as ns-3 computes it (`DataRate::CalculateBytesTxTime`
    /// turns the exact quotient into a `Time`, which rounds: 1042 B at
    /// 3 Mbit/s last 2 778 667 ns). Back-to-back frames then drift from the
    /// exact instants by up to half a nanosecond each, always the same way.
    PerFrame,
}

/// How frames go on the wire, on every link (`[wire]`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct WireSpec {
    pub tx_time: TxTime,
    /// Bytes each frame carries besides its IP packet: a link-layer header
    /// (ns-3's point-to-point links add 2, PPP's). They take transmission
    /// time; packet sizes, byte counts and queue limits are the IP packets'.
    pub header_bytes: u32,
}

/// The order of simultaneous events of one class (`engine::queue::TieBreak`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum TieBreakMode {
    /// A permutation drawn from the run's seed anew at every instant: no
    /// flow or link is favoured (the default).
    #[default]
    Shuffled,
    /// By the index of the channel, flow or medium: the lowest first at
    /// every tie. Biased; for comparison only.
    Identity,
}

#[derive(Clone, Debug, PartialEq)]
pub struct NodeSpec {
    pub name: String,
    pub kind: NodeKind,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// Terminates flows.
    Host,
    /// Forwards only.
    Router,
}

/// A full-duplex point-to-point link between nodes `a` and `b` (indices into
/// `Scenario::nodes`). "fwd" is the direction a→b, "rev" is b→a.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkSpec {
    pub name: String,
    pub a: usize,
    pub b: usize,
    pub rate_bps: u64,
    pub delay: SimDuration,
    /// Queue discipline at each end (the a-side queue feeds fwd, the b-side rev).
    pub queue: QueueSpec,
    pub fwd_error: ErrorSpec,
    pub rev_error: ErrorSpec,
    /// A random extra delay per packet, uniform in [0, jitter], that never
    /// reorders (a packet arrives no earlier than the one before it): the
    /// remedy for phase effects of unfairness §VI.A ("a small random
    /// component to the ACK return delay"). Zero: none.
    pub fwd_jitter: SimDuration,
    pub rev_jitter: SimDuration,
    /// A direction with a trace is served by its delivery opportunities
    /// instead of `rate_bps` (which is 0 when both directions have one and
    /// no rate was given).
    pub fwd_trace: Option<TraceSpec>,
    pub rev_trace: Option<TraceSpec>,
    /// Link-level ARQ in both directions (`net::arq`), NAKs of one direction
    /// carried by the other.
    pub arq: Option<ArqSpec>,
    /// A Snoop agent at node `a` for the data this link carries a→b.
    pub snoop: Option<SnoopSpec>,
}

/// NAK-based selective-repeat ARQ (irw §4; `net::arq`), per direction of
/// a link; the NAKs about one direction's frames travel on the other.
/// Checked by the parser.
#[derive(Clone, Debug, PartialEq)]
pub struct ArqSpec {
    /// Retransmissions per frame at most (RLC's MaxDAT − 1).
    pub retry_limit: u32,
    /// Size of a NAK or poll frame (irw §4: 16 bytes).
    pub nak_bytes: u32,
    /// Deliver to IP in link order (holding frames behind a gap), or at once.
    pub in_order: bool,
    /// How long the receiver waits for a NAKed frame before NAKing again
    /// (resolved from "auto": see `defaults::arq_nak_timeout`).
    pub nak_timeout: SimDuration,
    /// Transmission/receive window in frames; `None` = unbounded.
    pub window: Option<u32>,
    /// A frame older than this is not retransmitted any more (RLC's
    /// timer-based SDU discard); `None` = no discard timer.
    pub discard: Option<SimDuration>,
    /// Send a poll when the transmitter runs dry after data (tail losses).
    pub poll: bool,
    /// Which directions run ARQ (`directions = "both"`, `"fwd"` or `"rev"`).
    pub fwd: bool,
    pub rev: bool,
}

/// Snoop (Balakrishnan, Seshan, Amir, Katz 1995; irw §2.1; `net::snoop`).
#[derive(Clone, Debug, PartialEq)]
pub struct SnoopSpec {
    /// Lower bound of the local retransmission timer.
    pub min_timeout: SimDuration,
    /// Local retransmission timer before the first RTT sample.
    pub initial_timeout: SimDuration,
    /// Where a local retransmission waits for the wireless link.
    pub local_rexmit: LocalRexmit,
}

/// Where a Snoop agent's local retransmission goes. Balakrishnan et al.
/// (§3) send it at once, ahead of the packets queued for the wireless hop;
/// ns-2's `LL/LLSnoop` hands it to the link layer like any packet, behind
/// the whole interface queue (and subject to its drops).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum LocalRexmit {
    /// Ahead of the queue, never dropped by it (the paper).
    #[default]
    Priority,
    /// At the tail of the link's queue, like any packet (ns-2).
    Queue,
}

/// A shared half-duplex wireless medium with CSMA/CA access (`net::medium`;
/// efr §4.1, Fig. 1). Every station has its own transmit queue; any two
/// stations (or, with `access_point`, a station and the access point) are
/// one hop apart. Checked: at least two distinct stations, `cw_min ≤ cw_max`,
/// `delay ≤ slot`.
#[derive(Clone, Debug, PartialEq)]
pub struct MediumSpec {
    pub name: String,
    /// Node indices, in the order written.
    pub stations: Vec<usize>,
    /// Infrastructure mode: the node (one of `stations`) every other station
    /// talks to; `None` = any two stations talk directly.
    pub access_point: Option<usize>,
    pub rate_bps: u64,
    pub slot: SimDuration,
    pub sifs: SimDuration,
    pub difs: SimDuration,
    /// PHY preamble and header, sent before every frame (and MAC ACK).
    pub preamble: SimDuration,
    /// Bytes the MAC adds to each IP datagram.
    pub mac_overhead: u32,
    pub cw_min: u32,
    pub cw_max: u32,
    /// MAC retransmissions of a frame that was not acknowledged; 0 = no MAC
    /// ACKs at all (collided and corrupted frames are simply lost).
    pub retry_limit: u32,
    /// Probability that a frame that did not collide is lost anyway.
    pub frame_loss: f64,
    /// Propagation delay between any two stations.
    pub delay: SimDuration,
    /// Each station's queue.
    pub queue: QueueSpec,
}

impl MediumSpec {
    /// A medium with every parameter at its default (the efr WaveLAN).
    pub fn wavelan(name: &str, stations: Vec<usize>) -> Self {
        MediumSpec {
            name: name.into(),
            stations,
            access_point: None,
            rate_bps: defaults::MEDIUM_RATE_BPS,
            slot: defaults::MEDIUM_SLOT,
            sifs: defaults::MEDIUM_SIFS,
            difs: defaults::MEDIUM_DIFS,
            preamble: defaults::MEDIUM_PREAMBLE,
            mac_overhead: defaults::MEDIUM_MAC_OVERHEAD,
            cw_min: defaults::MEDIUM_CW_MIN,
            cw_max: defaults::MEDIUM_CW_MAX,
            retry_limit: defaults::MEDIUM_RETRY_LIMIT,
            frame_loss: defaults::MEDIUM_FRAME_LOSS,
            delay: defaults::MEDIUM_DELAY,
            queue: QueueSpec::DropTail { limit: defaults::MEDIUM_QUEUE_LIMIT },
        }
    }
}

/// A mahimahi delivery-opportunity trace (see `net::trace`), read and
/// checked by the parser.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceSpec {
    /// The file as given (the Python front makes relative paths absolute).
    pub file: String,
    /// Bytes per opportunity.
    pub mtu: u32,
    /// Opportunity timestamps in ms: non-empty, non-decreasing, the last
    /// (the period) > 0.
    pub opportunities_ms: Arc<[u64]>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum QueueSpec {
    DropTail { limit: QueueLimit },
    Red(RedSpec),
}

/// Random Early Detection (Floyd & Jacobson 1993; unfairness Fig. 4), with
/// optional ECN marking (RFC 3168). Thresholds and the limit count packets
/// waiting behind the one on the wire. Checked: `min_th < max_th ≤ limit_packets`,
/// `0 < maxp ≤ 1`, `0 < wq ≤ 1`.
#[derive(Clone, Debug, PartialEq)]
pub struct RedSpec {
    pub min_th: u32,
    pub max_th: u32,
    /// Physical buffer: an arrival finding this many waiting is dropped.
    pub limit_packets: u32,
    /// Marking probability `pb` reached at `avg = max_th`.
    pub maxp: f64,
    /// EWMA weight of the average queue length.
    pub wq: f64,
    /// Between `max_th` and `2·max_th`, `pb` rises linearly from `maxp` to 1
    /// instead of jumping to 1.
    pub gentle: bool,
    /// Mark ECN-capable packets (set CE) instead of dropping them early.
    pub ecn: bool,
    /// With `ecn`: also mark (rather than drop) ECN-capable packets when
    /// `avg` is at or above the forced-drop level (`max_th`, or `2·max_th`
    /// when gentle).
    pub mark_above_max_th: bool,
    /// Bytes of a typical packet: its transmission time at the link rate is
    /// the `s` of the idle-time decay.
    pub mean_packet_size: u32,
    /// Which RED decision rules: the paper's (Floyd & Jacobson 1993, Fig. 2)
    /// or ns-2's `REDQueue::enque`.
    pub rules: RedRules,
}

/// The decision rules of a RED queue (docs/scenario.md, RED).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum RedRules {
    /// Floyd & Jacobson 1993, Fig. 2 (and the unfairness paper's Fig. 4):
    /// every arrival at or above `min_th` may be dropped, the first with
    /// `count = 0` (`pa = pb`).
    #[default]
    Paper,
    /// ns-2.35's `REDQueue::enque`: nothing is dropped early or forced while
    /// at most one packet waits (and `count` restarts), and the first arrival
    /// at or above `min_th` is let through with `count = 1`.
    Ns2,
}

impl Default for RedSpec {
    fn default() -> Self {
        RedSpec {
            min_th: defaults::RED_MIN_TH,
            max_th: defaults::RED_MAX_TH,
            limit_packets: defaults::RED_LIMIT_PACKETS,
            maxp: defaults::RED_MAXP,
            wq: defaults::RED_WQ,
            gentle: false,
            ecn: false,
            mark_above_max_th: false,
            mean_packet_size: defaults::RED_MEAN_PACKET_SIZE,
            rules: RedRules::Paper,
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u32),
    Bytes(u64),
}

/// Which packets an error model may drop.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PacketSelector {
    Data,
    Acks,
    All,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ErrorSpec {
    pub model: ErrorModelSpec,
    pub applies_to: PacketSelector,
}

impl ErrorSpec {
    pub fn none() -> Self {
        ErrorSpec { model: ErrorModelSpec::None, applies_to: PacketSelector::All }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ErrorModelSpec {
    None,
    /// Each selected packet is lost independently with probability `p`.
    Bernoulli {
        p: f64,
    },
    /// Independent bit errors: a packet of `s` bytes is lost with
    /// probability 1 − (1 − ber)^(8·s).
    Ber {
        ber: f64,
    },
    /// Deterministic: drop the k-th selected packets (1-based) of flow `flow`
    /// (index into `Scenario::flows`) that cross this direction, counting
    /// retransmissions. For packet-exact tests.
    DropList {
        flow: usize,
        packets: Vec<u64>,
    },
    /// Gilbert–Elliott two-state bursty loss (Gilbert 1960, Elliott 1963),
    /// one Markov chain per flow. A selected packet is lost with the loss
    /// probability of the current state (`p_good` or `p_bad`); then the
    /// state moves Good→Bad with probability `p_gb`, Bad→Good with `p_bg`.
    /// Every chain starts in Good.
    GilbertElliott(GilbertElliottSpec),
}

/// Parameters of [`ErrorModelSpec::GilbertElliott`], all in [0, 1].
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct GilbertElliottSpec {
    pub p_good: f64,
    pub p_bad: f64,
    pub p_gb: f64,
    pub p_bg: f64,
}

impl GilbertElliottSpec {
    /// Long-run fraction of selected packets lost: `π_G·p_good + π_B·p_bad`
    /// with `π_B = p_gb/(p_gb + p_bg)`. `None` when both transition
    /// probabilities are 0 (the chain never leaves Good, so the rate is `p_good`,
    /// but there is no stationary distribution).
    pub fn stationary_loss(&self) -> Option<f64> {
        let s = self.p_gb + self.p_bg;
        (s > 0.0).then(|| {
            let pi_b = self.p_gb / s;
            (1.0 - pi_b) * self.p_good + pi_b * self.p_bad
        })
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec {
    pub name: String,
    /// Index of the sending host.
    pub src: usize,
    /// Index of the receiving host.
    pub dst: usize,
    /// The variant as written (`"reno"`, `"newreno+efr"`) and parsed
    /// (`tcp::variant`), once, by the scenario parser.
    pub variant: Variant,
    /// Bytes to transfer; `None` = unlimited (greedy source).
    pub bytes: Option<u64>,
    pub start: SimDuration,
    pub tcp: TcpConfig,
    pub receiver: ReceiverConfig,
}

/// Sender parameters (`[tcp]`, overridable per flow).
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// Maximum segment size: payload bytes per full segment.
    pub mss: u32,
    /// Initial congestion window in segments (RFC 5681 §3.1 IW; papers use 1).
    pub initial_window: u32,
    /// Initial `ssthresh` in bytes; `u64::MAX` = "arbitrarily high" (RFC 5681 §3.1).
    pub initial_ssthresh: u64,
    /// Upper bound on `cwnd` in bytes (`u64::MAX` = none).
    pub max_cwnd: u64,
    /// Duplicate-ACK threshold for fast retransmit (RFC 5681 §3.2: 3).
    pub dupthresh: u32,
    /// `+efr`: the smallest threshold EFR may use when `snd_cur/t_maxseg − 2`
    /// falls below it (efr §5.4 leaves this open; see docs/mechanisms.md).
    pub efr_min_dupthresh: u32,
    /// `+eplr`: when a small flight retransmits (eplr §III.C; see docs/mechanisms.md).
    pub eplr_retransmit: EplrRetransmit,
    /// `+undo`: what shows a retransmission was spurious.
    pub undo_evidence: UndoEvidence,
    /// Send and echo the timestamp option and take RTT samples from it (RFC 7323).
    pub timestamps: bool,
    pub rto: RtoConfig,
    /// Reno: refuse a second fast retransmit until every byte outstanding at
    /// the first one is acknowledged (ns-2 `bug_fix_`; RFC 6582 §4.1 applied to Reno).
    pub reno_avoid_multiple_fr: bool,
    /// NewReno: window on leaving recovery (RFC 6582 §3.2 step 3).
    pub newreno_full_ack: FullAckRule,
    /// Congestion avoidance's per-ACK increase SMSS·SMSS/cwnd (RFC 5681
    /// eq. 3): whole bytes, or with the fraction carried to the next ACK.
    pub ca_increase: CaIncrease,
    /// What a loss (fast retransmit, timeout, ECN) halves into `ssthresh`.
    pub loss_ssthresh: LossSsthresh,
    /// NewReno: reset the RTO on the first partial ACK only ("Impatient",
    /// RFC 6582 §3.2 step 5 / §4) or on every one ("Slow-but-Steady").
    pub newreno_rto_reset: PartialAckRtoReset,
    /// The ACK that reaches `snd_max` of the last timeout: how much of it
    /// grows the window.
    pub timeout_exit_growth: TimeoutExitGrowth,
    /// Reno and NewReno: whether the ACK that ends fast recovery also
    /// grows the window.
    pub recovery_exit_growth: RecoveryExitGrowth,
    /// RFC 6675 recovery (`rfc6675…`): the same choice. RFC 6675 §5 leaves
    /// the window as the recovery left it; ns-3's `ProcessAck` grows it
    /// (`IncreaseWindow` once back in `CA_OPEN`).
    pub rfc6675_exit_growth: RecoveryExitGrowth,
    /// RFC 6675 recovery (`rfc6675…`): until when a retransmission counts
    /// in `pipe`.
    pub rfc6675_pipe: Rfc6675Pipe,
    /// `+cc=cubic`: RFC 9438's arithmetic, or ns-3.44's `TcpCubic` (Linux's).
    pub cubic_arithmetic: CubicArithmetic,
    /// `+prr`: RFC 6937's arithmetic, or ns-3.44's `TcpPrrRecovery`.
    pub prr_arithmetic: PrrArithmetic,
    /// RFC 6675 recovery (`rfc6675…`): the same choice. RFC 6675 says
    /// nothing of the timer, so RFC 6298 §5.3 applies (every ACK of new
    /// data restarts it: "every"); ns-3 restarts it on the first partial
    /// ACK of a recovery only (`TcpSocketBase::ProcessAck` calls
    /// `NewAck(ackNumber, m_isFirstPartialAck)` in `CA_RECOVERY`).
    pub rfc6675_rto_reset: PartialAckRtoReset,
    /// Fall & Floyd's SACK (`sack`): whether the guard against a second fast
    /// retransmit stays after a recovery ends.
    pub sack_recover_after_exit: SackRecoverAfterExit,
    /// A random processing delay before each data segment leaves the
    /// sender's host, uniform in [0, overhead] and never reordering (ns-2's
    /// `overhead_`): a remedy for phase effects. Zero: none.
    pub overhead: SimDuration,
}

/// `ssthresh` after a loss.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LossSsthresh {
    /// RFC 5681 eq. 4: max(FlightSize/2, 2·SMSS), in bytes.
    FlightSize,
    /// RFC 2001 §3, 4.4BSD `tcp_timers`/`tcp_input`, ns-2 `slowdown()`:
    /// half of min(cwnd, rwnd), rounded down to whole segments, at least 2.
    Window,
    /// ns-3's SACK sender (ns-3.44 `TcpSocketBase::EnterRecovery` and
    /// `ReTxTimeout`): max(pipe/2, 2·SMSS), with RFC 6675's `pipe` when the
    /// recovery starts and just before each timer expiry (backoffs too);
    /// after a timeout, until the data then outstanding is acknowledged,
    /// `pipe` is what was sent since and is neither SACKed nor acknowledged
    /// (ns-3 marks everything else lost). Only for variants that keep a
    /// `pipe` (`rfc6675` and its compositions).
    Pipe,
}

/// How congestion avoidance adds SMSS·SMSS/cwnd per ACK (RFC 5681 §3.1).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CaIncrease {
    /// In whole bytes, the fraction dropped (as a byte-counting stack such
    /// as BSD's `cwnd += incr*incr/cwnd` does).
    Integer,
    /// The fraction carried over, so the window follows the real-valued
    /// recurrence — ns-2's `cwnd_ += 1/cwnd_` in packets.
    Fractional,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FullAckRule {
    /// `cwnd = min(ssthresh, FlightSize + MSS)` (RFC 6582 §3.2 step 3 option 1; unfairness §III).
    FlightSize,
    /// `cwnd = ssthresh` (option 2).
    Ssthresh,
}

/// `+undo`'s evidence of a spurious retransmission.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum UndoEvidence {
    /// Eifel detection (RFC 3522): the ACK echoes the original's timestamp.
    Timestamps,
    /// D-SACK (RFC 2883 §5, RFC 3708): every retransmission of the episode reported as a duplicate.
    Dsack,
}

/// EPLR's retransmission point for a flight of F ≤ dupthresh segments.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EplrRetransmit {
    /// After F − 1 duplicate ACKs (eplr §III.C: "a packet is dropped if the
    /// sender receives (F−1) number of dupacks").
    Early,
    /// At the usual threshold, which the extra segments make reachable
    /// (eplr §IV.B, Fig. 8 Case 2).
    Threshold,
}

/// Which partial ACKs of a recovery restart the retransmission timer
/// (`tcp.newreno_rto_reset`, `tcp.rfc6675_rto_reset`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PartialAckRtoReset {
    First,
    Every,
}

impl PartialAckRtoReset {
    /// Whether the `nth` partial ACK of a recovery (from 1) restarts the timer.
    pub fn restarts(self, nth: u32) -> bool {
        match self {
            PartialAckRtoReset::First => nth == 1,
            PartialAckRtoReset::Every => true,
        }
    }
}

/// Retransmission timer (`[tcp.rto]`).
#[derive(Clone, Debug, PartialEq)]
pub struct RtoConfig {
    pub mode: RtoMode,
    /// RTO before the first RTT sample (RFC 6298 §2.1: 1 s).
    pub initial: SimDuration,
    /// Lower bound (RFC 6298 §2.4: 1 s; Linux 200 ms).
    pub min: SimDuration,
    /// Upper bound (RFC 6298 §2.5: at least 60 s; BSD 64 s).
    pub max: SimDuration,
    /// Largest backoff exponent: RTO × 2^k with k ≤ this (BSD: 6, i.e. ×64).
    pub max_backoff_shift: u32,
    /// What a fast retransmit does to a running timer.
    pub on_fast_retransmit: RtoOnFastRetransmit,
    /// Which ACKs give RTT samples (without timestamps).
    pub sampling: RttSampling,
    /// What ends the exponential backoff of the timer.
    pub backoff_reset: BackoffReset,
}

/// `tcp.timeout_exit_growth`: after a timeout, the window grows in slow
/// start by up to one SMSS per ACK of new data (RFC 5681 §3.1). The ACK
/// that reaches the highest sequence sent before the timeout (`snd_max`
/// then, ns-3's `m_recover`) is such an ACK too; ns-3 counts for it only the
/// whole segments it acknowledges above that point.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TimeoutExitGrowth {
    /// Every ACK of new data grows the window (RFC 5681 §3.1; 4.4BSD, Linux, ns-2).
    Acked,
    /// That ACK grows it by the whole segments above the point only, not at
    /// all if it reaches just that far (ns-3: `TcpSocketBase::ProcessAck`,
    /// leaving `CA_LOSS`, passes `(ackNumber - m_recover) / m_segmentSize`
    /// segments to `IncreaseWindow`). With small windows, where that ACK
    /// usually ends at the point, each timeout costs one more round trip
    /// at one segment.
    AboveRecover,
}

/// `tcp.cubic_arithmetic`: how `+cc=cubic` computes its window.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CubicArithmetic {
    /// RFC 9438 as written (`tcp::cc::cubic`): windows in fractions of a
    /// segment, ssthresh from FlightSize, the Reno-friendly α switching to
    /// 1 above W_max.
    Rfc9438,
    /// ns-3.44's `TcpCubic` (after Linux's `tcp_cubic.c`): whole segments,
    /// one segment per `cnt` ACKs, ssthresh from cwnd, Linux's Reno-friendly
    /// scale kept above W_max, and the `cnt` clamp after a timeout
    /// (`tcp::cc::cubic_ns3`; validation scenario 2, "CUBIC against ns-3").
    Ns3,
}

/// `tcp.prr_arithmetic`: how `+prr` sizes what each ACK of a recovery may send.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PrrArithmetic {
    /// RFC 6937 §3 as written, with the slow-start reduction bound
    /// (`tcp::recovery::prr`).
    Rfc6937,
    /// ns-3.44's `TcpPrrRecovery`: RecoverFS is the pipe when recovery
    /// starts, every duplicate ACK that SACKs new data counts one more SMSS
    /// as delivered while `prr_delivered` < RecoverFS, an ACK that delivers
    /// nothing leaves the window alone, the reduction bound is the
    /// conservative one unless the ACK covers a retransmission, and the
    /// first ACK of a recovery may always send one segment
    /// (`tcp::recovery::prr`; validation scenario 2, "CUBIC against ns-3").
    Ns3,
}

/// `tcp.recovery_exit_growth` and `tcp.rfc6675_exit_growth`: the ACK that
/// ends Reno's or NewReno's fast recovery sets the window (RFC 5681 §3.2
/// step 6: cwnd = ssthresh; RFC 6582 §3.2 step 3: min(ssthresh,
/// FlightSize + SMSS) or ssthresh), and RFC 6675's leaves it as it is;
/// by the RFCs, none grows it. ns-2's Reno and NewReno agents do, and so
/// does ns-3's `ProcessAck` at the end of every recovery.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RecoveryExitGrowth {
    /// No growth on that ACK (RFC 5681, RFC 6582).
    None,
    /// Then grow it as on any other ACK of new data (slow start or
    /// congestion avoidance from the window just set): ns-2's `Reno` and
    /// `Newreno` agents, whose `recv_newack_helper` calls `opencwnd()` on
    /// every ACK of new data, the one that ends recovery included
    /// (validation scenario 1, `exit_increase`).
    Grow,
}

/// `tcp.rfc6675_pipe`: until when a retransmitted segment counts in an
/// RFC 6675 recovery's `pipe`. RFC 6675 §4 (`SetPipe`) counts only octets
/// not SACKed, so a retransmission leaves `pipe` once it is SACKed or
/// acknowledged. ns-3.44's `TcpTxBuffer` clears a segment's retransmitted
/// mark only when the cumulative ACK passes it (`Update` marks a SACKed
/// segment SACKed and leaves `m_retrans` set, and `BytesInFlight` is
/// sent − SACKed − lost + retransmitted): a SACKed retransmission stays
/// in its `pipe`. The difference shows when a retransmission is lost
/// again: the recovery then lasts until the RTO, every segment it
/// retransmits in the meantime holds one segment of the window for good,
/// and the sender runs out of window before the timer expires
/// (docs/validation.md, "CUBIC against ns-3", `ns3_sacked_rexmit_pipe`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Rfc6675Pipe {
    /// RFC 6675 §4: a retransmission counts until it is SACKed or acknowledged.
    Rfc6675,
    /// ns-3's `TcpTxBuffer::BytesInFlight`: until it is acknowledged.
    Ns3,
}

/// `tcp.sack_recover_after_exit`: Fall & Floyd's SACK (the `sack` variant)
/// guards its entry to fast recovery with `recover`, the highest sequence
/// sent when the last recovery or timeout began (RFC 6582 §3.2 step 2: a
/// new fast retransmit only once the cumulative ACK covers more than it).
/// The papers leave open what happens to the guard when a recovery ends
/// (unfairness §IV, FF96 §3); ns-2's `Sack1` clears it there.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SackRecoverAfterExit {
    /// It stays, as NewReno's (RFC 6582): after a recovery that ends on an
    /// ACK of exactly `recover`, the next loss (of data sent during that
    /// recovery) cannot be repaired by a fast retransmit until one more
    /// segment is acknowledged; with a small window that is a timeout.
    Kept,
    /// It is cleared when the recovery ends, so the next three duplicate
    /// ACKs start a new one (ns-2: `Sack1TcpAgent::recv` sets `recover_ = 0`
    /// on the ACK that ends fast recovery, tcp-sack1.cc; RFC 6675 §5's guard,
    /// `HighACK ≥ RecoveryPoint`, allows the same). A timeout still sets it.
    Cleared,
}

/// `tcp.rto.backoff_reset`: what clears the backoff factor 2^k that
/// timeouts put on the RTO (RFC 6298 §5.5).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BackoffReset {
    /// A new RTT measurement (RFC 6298 §5, the note after (5.7): "once a new
    /// RTT measurement is obtained ... [RTO] may result in 'collapsing' RTO
    /// back down"; Karn's algorithm; 4.4BSD, ns-2): the backed-off timer
    /// stays until a segment sent once is acknowledged and timed.
    Sample,
    /// Any ACK of new data that restarts the timer: the RTO is recomputed
    /// from SRTT and RTTVAR, so the ACK of a retransmission ends the
    /// backoff (ns-3: `TcpSocketBase::NewAck` sets `m_rto` from the
    /// estimator whenever it restarts `m_retxEvent`).
    NewAck,
}

/// `tcp.rto.sampling`: which ACKs give RTT samples when timestamps are
/// off. Every sample also ends the backoff (RFC 6298 §5.7 with Karn's
/// rule), so this decides how long a backed-off timer lasts after a
/// timeout: with `Timed` until a round trip without retransmissions, with
/// `PerSegment` until the first ACK of a segment sent once.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RttSampling {
    /// One segment timed at a time, dropped at every retransmission
    /// (4.4BSD `t_rtt`/`t_rtseq`; ns-2's `rtt_seq_`): Karn's rule.
    Timed,
    /// Every segment's send time is kept; an ACK that covers the oldest
    /// outstanding one gives a sample if that one was sent only once, and
    /// a retransmission marks the segment it resends (ns-3's `RttHistory`,
    /// `TcpSocketBase::EstimateRtt` and `UpdateRttHistory`).
    PerSegment,
}

/// `tcp.rto.on_fast_retransmit`: whether entering loss recovery restarts
/// the retransmission timer. RFC 6298 §5.1 starts the timer at a send only
/// when it is not running and §5.3 restarts it on an ACK of new data, so
/// read literally a fast retransmit leaves it running from the last new
/// ACK; 4.4BSD (`tcp_input` clears `TCPT_REXMT` before the retransmission
/// and `tcp_output` starts it again), Linux (`tcp_xmit_retransmit_queue` re-arms it when the
/// head is resent) and ns-2 (`reset_rtx_timer` in `dupack_action`) restart
/// it, ns-3 (`SendDataPacket` schedules it only when it is not running)
/// does not.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RtoOnFastRetransmit {
    /// The timer starts afresh with the fast retransmission (BSD, Linux, ns-2).
    Restart,
    /// The timer keeps running from the last ACK of new data (ns-3).
    Keep,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RtoMode {
    /// RFC 6298 with clock granularity `granularity` (the G of §2.2–2.3).
    Fine { granularity: SimDuration },
    /// BSD slow timer (efr §2.1, FreeBSD 2.2): RTT measured in whole ticks,
    /// the timer fires on tick boundaries of a global clock of period `tick`.
    Coarse { tick: SimDuration },
    /// ns-2.35's `Agent/TCP` estimator (`rtt_update`, `rtt_timeout`,
    /// `rtt_backoff` in tcp.cc): samples in whole ticks of `tick`
    /// (`tcpTick_`) counted from a clock whose phase within a tick is
    /// `phase` (ns-2's `boot_time_`), Jacobson's fixed-point averages, and
    /// a timer that fires `rto()` after it is armed.
    Ns2 { tick: SimDuration, phase: SimDuration },
}

/// Receiver parameters (`[receiver]`, overridable per flow).
#[derive(Clone, Debug, PartialEq)]
pub struct ReceiverConfig {
    /// Receive buffer = advertised window in bytes (the application reads
    /// in-order data at once, so the advertised window stays at this value).
    pub window: u64,
    pub ack: AckMode,
    /// Generate SACK blocks (RFC 2018). Resolved from "auto" by the variant.
    pub sack: bool,
    /// At most this many SACK blocks per ACK (1..=4; 3 with timestamps).
    pub max_sack_blocks: u32,
    /// Report duplicate segments in a D-SACK block (RFC 2883); needs `sack`.
    pub dsack: bool,
    /// Delayed Duplicate ACKs (Vaidya et al.; irw §2.2): hold the third and
    /// later duplicate ACKs of a gap for this long; `None` = off. The parser
    /// has already resolved `"auto"` to a duration.
    pub dda: Option<SimDuration>,
    /// How many bytes the SACK option adds to an ACK on the wire.
    pub sack_option_size: SackOptionSize,
}

/// `receiver.sack_option_size`: the bytes a SACK option of n blocks adds to
/// an ACK's size on the wire, which sets how long the ACK takes to cross a
/// link (and so when the transmissions it clocks leave).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SackOptionSize {
    /// As RFC 2018 §3 lays the option out: kind, length and 8 bytes per
    /// block, padded with two NOPs to a whole 32-bit word (RFC 793 §3.1,
    /// data offset): 12, 20, 28, 36 bytes.
    Rfc2018,
    /// 8 bytes per block and nothing else, as ns-2's `TCPSink/Sack1` sizes
    /// its ACKs (40 + 8·n bytes; the `ack_size` divergence of
    /// docs/validation.md, scenario 1). The headers a capture shows are
    /// still RFC 2018's; only the simulated size changes.
    Ns2,
}

impl SackOptionSize {
    /// The bytes `blocks` SACK blocks add to a TCP header (none without blocks).
    pub fn bytes(self, blocks: u32) -> u32 {
        match (self, blocks) {
            (_, 0) => 0,
            (SackOptionSize::Rfc2018, n) => 2 + 8 * n + 2,
            (SackOptionSize::Ns2, n) => 8 * n,
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AckMode {
    /// ACK every segment.
    Every,
    /// Delayed ACK (RFC 1122 §4.2.3.2, RFC 5681 §4.2): ACK every `every`
    /// full-sized segments or after `timeout`, whichever comes first.
    Delayed { timeout: SimDuration, every: u32 },
}

impl Default for RtoConfig {
    fn default() -> Self {
        RtoConfig {
            mode: RtoMode::Fine { granularity: defaults::RTO_GRANULARITY },
            initial: defaults::RTO_INITIAL,
            min: defaults::RTO_MIN,
            max: defaults::RTO_MAX_FINE,
            max_backoff_shift: defaults::MAX_BACKOFF_SHIFT,
            on_fast_retransmit: RtoOnFastRetransmit::Restart,
            sampling: RttSampling::Timed,
            backoff_reset: BackoffReset::Sample,
        }
    }
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss: defaults::MSS,
            initial_window: 1,
            initial_ssthresh: u64::MAX,
            max_cwnd: u64::MAX,
            dupthresh: defaults::DUPTHRESH,
            efr_min_dupthresh: defaults::EFR_MIN_DUPTHRESH,
            eplr_retransmit: EplrRetransmit::Early,
            undo_evidence: UndoEvidence::Timestamps,
            timestamps: false,
            rto: RtoConfig::default(),
            reno_avoid_multiple_fr: true,
            newreno_full_ack: FullAckRule::FlightSize,
            ca_increase: CaIncrease::Integer,
            loss_ssthresh: LossSsthresh::FlightSize,
            newreno_rto_reset: PartialAckRtoReset::First,
            rfc6675_rto_reset: PartialAckRtoReset::Every,
            sack_recover_after_exit: SackRecoverAfterExit::Kept,
            timeout_exit_growth: TimeoutExitGrowth::Acked,
            recovery_exit_growth: RecoveryExitGrowth::None,
            rfc6675_exit_growth: RecoveryExitGrowth::None,
            rfc6675_pipe: Rfc6675Pipe::Rfc6675,
            cubic_arithmetic: CubicArithmetic::Rfc9438,
            prr_arithmetic: PrrArithmetic::Rfc6937,
            overhead: SimDuration::ZERO,
        }
    }
}

impl Default for ReceiverConfig {
    fn default() -> Self {
        ReceiverConfig {
            window: defaults::RECEIVER_WINDOW,
            ack: AckMode::Every,
            sack: false,
            max_sack_blocks: defaults::MAX_SACK_BLOCKS,
            dsack: false,
            dda: None,
            sack_option_size: SackOptionSize::Rfc2018,
        }
    }
}
