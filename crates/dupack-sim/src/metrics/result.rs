//! What a run reports: per flow, per link (one row per direction), per
//! station of a shared medium, per run.
//!
//! These structs serialise to JSON for the Python front, which turns
//! `flows` and `links` into DataFrames. Field names are column names: keep
//! them stable and document new ones in `docs/results.md`.

use serde::Serialize;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RunResult {
    pub scenario: String,
    pub seed: u64,
    pub flows: Vec<FlowResult>,
    pub links: Vec<LinkResult>,
    /// One row per station of each shared medium; left out of the JSON when
    /// the scenario has no medium, so such results are unchanged.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub media: Vec<MediumResult>,
    pub run: RunInfo,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FlowResult {
    pub flow: String,
    pub variant: String,
    pub src: String,
    pub dst: String,
    /// Bytes the application asked to send (`null` = unlimited).
    pub app_bytes: Option<u64>,
    /// Bytes delivered in order to the receiving application.
    pub bytes_delivered: u64,
    /// `bytes_delivered · 8 / (end − start)` in kbit/s, where end is the
    /// completion time for finished transfers and the run end otherwise.
    pub goodput_kbps: f64,
    pub start_s: f64,
    /// Seconds from start to the last byte's delivery; `null` if unfinished.
    pub completion_time_s: Option<f64>,
    /// Data segments transmitted, retransmissions included.
    pub segments_sent: u64,
    pub retransmitted_segments: u64,
    pub fast_retransmits: u64,
    /// RTO expiries (each backoff counts).
    pub timeouts: u64,
    /// Timeout episodes: runs of consecutive expiries without an ACK of new data between.
    pub timeout_episodes: u64,
    /// N_dup(i) (efr §6.1): for each expiry, how many dupacks had arrived for
    /// the lost segment; indices 0, 1, 2, ≥3.
    pub ndup_at_timeout: [u64; 4],
    pub acks_received: u64,
    pub dupacks_received: u64,
    /// Fast retransmits per timeout (efr Fig. 16); `null` without timeouts.
    pub fr_to_ratio: Option<f64>,
    /// Seconds spent in fast recovery (Tahoe, which has none, reports 0).
    pub recovery_time_s: f64,
    /// Seconds from the first expiry of each timeout episode to the ACK ending it.
    pub backoff_time_s: f64,
    /// Ground truth (metrics::truth): retransmissions whose earlier copy had
    /// arrived or was still in the network when they were sent.
    pub spurious_retransmissions: u64,
    /// Ground truth: fast retransmits of a segment that was not lost.
    pub false_fast_retransmits: u64,
    /// Ground truth: retransmitted copies dropped on the way.
    pub lost_retransmissions: u64,
    /// Ground truth: first expiries of timeout episodes for a lost segment
    /// followed by fewer than `dupthresh` segments (after efr §4.3).
    pub wasted_timeouts: u64,
    /// Window reductions in response to ECN-Echo (RFC 3168 §6.1.2; `+ecn`).
    pub ecn_reductions: u64,
    /// Window reductions undone because the original transmission arrived
    /// after all (`+irw`, irw §3; `+undo`, RFC 3522 Eifel detection).
    pub window_undos: u64,
    /// Data or ACK packets of this flow lost for good on the way: destroyed
    /// by a link's error model, lost in a collision or to a medium's frame
    /// loss, or given up by a link layer (ARQ, a MAC with retries). A frame a
    /// link layer recovered is not counted (docs/results.md).
    pub drops_error: u64,
    /// Data or ACK packets of this flow dropped by full queues.
    pub drops_queue: u64,
    pub final_cwnd: u64,
    /// `null` while still "arbitrarily high" (RFC 5681 §3.1), i.e. never reduced.
    pub final_ssthresh: Option<u64>,
    /// Smoothed RTT at the end, in seconds (`null` without a sample).
    pub srtt_s: Option<f64>,
    /// RTT samples the sender took (Karn's rule: none from retransmitted segments).
    pub rtt_samples: u64,
    /// Mean, least and greatest of them, in seconds (`null` without one).
    pub rtt_mean_s: Option<f64>,
    pub rtt_min_s: Option<f64>,
    pub rtt_max_s: Option<f64>,
    /// The retransmission timeout at the end (backoff included), in seconds.
    pub final_rto_s: f64,
    /// DDA (`receiver.dda`): duplicate ACKs the receiver held back, and held
    /// ones it discarded because the ack number advanced (irw §2.2).
    pub dupacks_delayed: u64,
    pub dupacks_cancelled: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LinkResult {
    pub link: String,
    /// "fwd" (a→b) or "rev" (b→a).
    pub direction: String,
    pub from: String,
    pub to: String,
    pub rate_bps: u64,
    pub packets_sent: u64,
    pub bytes_sent: u64,
    /// Busy time / run time.
    pub utilisation: f64,
    pub drops_error: u64,
    /// Queue drops: overflow, and RED's early and forced drops.
    pub drops_queue: u64,
    /// Packets marked CE by the queue (ECN-RED) instead of dropped.
    pub marks: u64,
    pub max_queue_packets: u64,
    /// Time-averaged number of packets waiting, over the whole run.
    pub mean_queue_packets: f64,
    /// Frames resent by the link layer on this direction: ARQ retransmissions
    /// and Snoop local retransmissions.
    pub link_retransmissions: u64,
    /// NAKs sent about this direction's frames (they travel the other way).
    pub naks: u64,
    /// Frames the ARQ receiver gave up on (retry limit, discard timer, window).
    pub link_given_up: u64,
    /// Bytes of link-layer control frames (NAKs, polls) this direction carried.
    pub ctl_bytes: u64,
    /// Duplicate ACKs a Snoop agent on this direction kept from the sender.
    pub dupacks_suppressed: u64,
}

/// One station of a shared medium (`net::medium`). The last two columns
/// describe the whole medium and repeat on each of its rows.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MediumResult {
    pub medium: String,
    /// The station's node.
    pub station: String,
    pub rate_bps: u64,
    /// Transmission attempts (MAC retries included).
    pub frames_sent: u64,
    /// IP bytes of those attempts.
    pub bytes_sent: u64,
    /// Frames that reached their receiver.
    pub frames_delivered: u64,
    pub bytes_delivered: u64,
    /// Attempts that overlapped another station's frame.
    pub collisions: u64,
    /// Attempts that did not collide but were lost to `frame_loss`.
    pub frame_losses: u64,
    /// MAC retransmissions (`retry_limit > 0`).
    pub retries: u64,
    /// Frames given up after a collision or loss (no retry left).
    pub drops_error: u64,
    pub drops_queue: u64,
    pub marks: u64,
    pub max_queue_packets: u64,
    /// Fraction of the run this station's frames were on the air.
    pub airtime: f64,
    /// Fraction of the run the medium was busy.
    pub medium_busy: f64,
    /// Rounds of the medium in which frames collided.
    pub medium_collision_events: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RunInfo {
    /// Simulated seconds at the end of the run.
    pub sim_time_s: f64,
    /// "time_limit" or "all_done".
    pub end_reason: String,
    pub events: u64,
    /// Host wall-clock seconds the run took (the only non-deterministic field).
    pub wall_time_s: f64,
}
