//! What a run reports: per flow, per link (one row per direction), per
//! station of a shared medium, per run.
//!
//! These structs serialise to JSON for the Python front, which turns
//! `flows`, `links` and `media` into DataFrames. Field names are column
//! names: keep them stable. Each table is one [`result_table!`]
//! declaration, from which the Python front takes its columns' names and
//! dtypes (`COLUMNS`); a new column also needs its row in
//! `docs/results.md`, with the unit declared here (tests/test_results_doc.py).

use serde::Serialize;

use super::columns::result_table;

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

result_table! {
    #[derive(Clone, Debug, Default, PartialEq, Serialize)]
    pub struct FlowResult {
        /// Flow name.
        pub flow: String => "–",
        /// TCP variant as written in the scenario.
        pub variant: String => "–",
        /// Name of the sending host.
        pub src: String => "–",
        /// Name of the receiving host.
        pub dst: String => "–",
        /// Bytes the application asked to send (`null` = unlimited).
        pub app_bytes: Option<u64> => "bytes",
        /// Bytes delivered in order to the receiving application.
        pub bytes_delivered: u64 => "bytes",
        /// `bytes_delivered · 8 / (end − start)` in kbit/s, where end is the
        /// completion time for finished transfers and the run end otherwise.
        pub goodput_kbps: f64 => "kbit/s",
        /// Simulated time at which the flow started.
        pub start_s: f64 => "s",
        /// Seconds from start to the last byte's delivery; `null` if unfinished.
        pub completion_time_s: Option<f64> => "s",
        /// Data segments transmitted, retransmissions included.
        pub segments_sent: u64 => "segments",
        /// Data segments transmitted again (by fast retransmit, recovery or timeout).
        pub retransmitted_segments: u64 => "segments",
        /// Fast retransmits: losses detected from duplicate ACKs rather than a timer.
        pub fast_retransmits: u64 => "events",
        /// RTO expiries (each backoff counts).
        pub timeouts: u64 => "events",
        /// Timeout episodes: runs of consecutive expiries without an ACK of new data between.
        pub timeout_episodes: u64 => "episodes",
        /// N_dup(i) (efr §6.1): for each expiry, how many dupacks had arrived for
        /// the lost segment; indices 0, 1, 2, ≥3.
        pub ndup_at_timeout: [u64; 4] => "expiries" [
            ndup_0: "N_dup(0): RTO expiries at which no duplicate ACK had arrived for the lost segment.",
            ndup_1: "N_dup(1): expiries at which exactly 1 duplicate ACK had arrived.",
            ndup_2: "N_dup(2): expiries at which exactly 2 had arrived.",
            ndup_3plus: "N_dup(≥3): expiries at which 3 or more had arrived.",
        ],
        /// ACKs received by the sender.
        pub acks_received: u64 => "ACKs",
        /// Duplicate ACKs received by the sender.
        pub dupacks_received: u64 => "ACKs",
        /// Fast retransmits per timeout (efr Fig. 16); `null` without timeouts.
        pub fr_to_ratio: Option<f64> => "ratio",
        /// Seconds spent in fast recovery (Tahoe, which has none, reports 0).
        pub recovery_time_s: f64 => "s",
        /// Seconds from the first expiry of each timeout episode to the ACK ending it.
        pub backoff_time_s: f64 => "s",
        /// Ground truth (metrics::truth): retransmissions whose earlier copy had
        /// arrived or was still in the network when they were sent.
        pub spurious_retransmissions: u64 => "segments",
        /// Ground truth: fast retransmits of a segment that was not lost.
        pub false_fast_retransmits: u64 => "events",
        /// Ground truth: retransmitted copies dropped on the way.
        pub lost_retransmissions: u64 => "segments",
        /// Ground truth: first expiries of timeout episodes for a lost segment
        /// followed by fewer than `dupthresh` segments (after efr §4.3).
        pub wasted_timeouts: u64 => "events",
        /// Window reductions in response to ECN-Echo (RFC 3168 §6.1.2; `+ecn`).
        pub ecn_reductions: u64 => "events",
        /// Window reductions undone because the original transmission arrived
        /// after all (`+irw`, irw §3; `+undo`, RFC 3522 Eifel detection).
        pub window_undos: u64 => "events",
        /// Data or ACK packets of this flow lost for good on the way: destroyed
        /// by a link's error model, lost in a collision or to a medium's frame
        /// loss, or given up by a link layer (ARQ, a MAC with retries). A frame a
        /// link layer recovered is not counted (docs/results.md).
        pub drops_error: u64 => "packets",
        /// Data or ACK packets of this flow dropped by full queues.
        pub drops_queue: u64 => "packets",
        /// Congestion window at the end of the run.
        pub final_cwnd: u64 => "bytes",
        /// Slow-start threshold at the end of the run; `null` while still
        /// "arbitrarily high" (RFC 5681 §3.1), i.e. never reduced.
        pub final_ssthresh: Option<u64> => "bytes",
        /// Smoothed RTT at the end, in seconds (`null` without a sample).
        pub srtt_s: Option<f64> => "s",
        /// RTT samples the sender took (Karn's rule: none from retransmitted segments).
        pub rtt_samples: u64 => "count",
        /// Mean of the RTT samples, in seconds (`null` without one).
        pub rtt_mean_s: Option<f64> => "s",
        /// Least of the RTT samples, in seconds (`null` without one).
        pub rtt_min_s: Option<f64> => "s",
        /// Greatest of the RTT samples, in seconds (`null` without one).
        pub rtt_max_s: Option<f64> => "s",
        /// The retransmission timeout at the end (backoff included), in seconds.
        pub final_rto_s: f64 => "s",
        /// DDA (`receiver.dda`): duplicate ACKs the receiver held back (irw §2.2).
        pub dupacks_delayed: u64 => "count",
        /// DDA: held duplicate ACKs discarded because the ack number advanced.
        pub dupacks_cancelled: u64 => "count",
    }
}

result_table! {
    #[derive(Clone, Debug, Default, PartialEq, Serialize)]
    pub struct LinkResult {
        /// Link name.
        pub link: String => "–",
        /// "fwd" (a→b) or "rev" (b→a).
        pub direction: String => "–",
        /// Node the packets leave.
        pub from: String => "–",
        /// Node the packets reach.
        pub to: String => "–",
        /// Transmission rate of the link.
        pub rate_bps: u64 => "bit/s",
        /// Packets transmitted in this direction.
        pub packets_sent: u64 => "packets",
        /// Bytes transmitted in this direction.
        pub bytes_sent: u64 => "bytes",
        /// Busy time / run time.
        pub utilisation: f64 => "fraction (0–1)",
        /// Packets lost to this direction's error model.
        pub drops_error: u64 => "packets",
        /// Queue drops: overflow, and RED's early and forced drops.
        pub drops_queue: u64 => "packets",
        /// Packets marked CE by the queue (ECN-RED) instead of dropped.
        pub marks: u64 => "packets",
        /// Largest queue length seen.
        pub max_queue_packets: u64 => "packets",
        /// Time-averaged number of packets waiting, over the whole run.
        pub mean_queue_packets: f64 => "packets",
        /// Frames resent by the link layer on this direction: ARQ retransmissions
        /// and Snoop local retransmissions.
        pub link_retransmissions: u64 => "frames",
        /// NAKs sent about this direction's frames (they travel the other way).
        pub naks: u64 => "frames",
        /// Frames the ARQ receiver gave up on (retry limit, discard timer, window).
        pub link_given_up: u64 => "frames",
        /// Bytes of link-layer control frames (NAKs, polls) this direction carried.
        pub ctl_bytes: u64 => "bytes",
        /// Duplicate ACKs a Snoop agent on this direction kept from the sender.
        pub dupacks_suppressed: u64 => "ACKs",
    }
}

result_table! {
    /// One station of a shared medium (`net::medium`). The last two columns
    /// describe the whole medium and repeat on each of its rows.
    #[derive(Clone, Debug, Default, PartialEq, Serialize)]
    pub struct MediumResult {
        /// Medium name.
        pub medium: String => "–",
        /// The station's node.
        pub station: String => "–",
        /// Bit rate of the medium.
        pub rate_bps: u64 => "bit/s",
        /// Transmission attempts (MAC retries included).
        pub frames_sent: u64 => "frames",
        /// IP bytes of those attempts.
        pub bytes_sent: u64 => "bytes",
        /// Frames that reached their receiver.
        pub frames_delivered: u64 => "frames",
        /// IP bytes of the frames that reached their receiver.
        pub bytes_delivered: u64 => "bytes",
        /// Attempts that overlapped another station's frame.
        pub collisions: u64 => "frames",
        /// Attempts that did not collide but were lost to `frame_loss`.
        pub frame_losses: u64 => "frames",
        /// MAC retransmissions (`retry_limit > 0`).
        pub retries: u64 => "frames",
        /// Frames given up after a collision or loss (no retry left).
        pub drops_error: u64 => "packets",
        /// Packets the station's queue refused.
        pub drops_queue: u64 => "packets",
        /// Packets the station's queue marked CE (RED with `ecn`).
        pub marks: u64 => "packets",
        /// Largest queue length seen (behind the frame contending).
        pub max_queue_packets: u64 => "packets",
        /// Fraction of the run this station's frames were on the air.
        pub airtime: f64 => "fraction (0–1)",
        /// Fraction of the run the medium was busy.
        pub medium_busy: f64 => "fraction (0–1)",
        /// Rounds of the medium in which frames collided.
        pub medium_collision_events: u64 => "events",
    }
}

result_table! {
    #[derive(Clone, Debug, Default, PartialEq, Serialize)]
    pub struct RunInfo {
        /// Simulated seconds at the end of the run.
        pub sim_time_s: f64 => "s",
        /// "time_limit" or "all_done"; "wall_limit" or "interrupted" for a run stopped early.
        pub end_reason: String => "–",
        /// Events the simulator processed.
        pub events: u64 => "events",
        /// Host wall-clock seconds the run took (the only non-deterministic field).
        pub wall_time_s: f64 => "s",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::columns::Column;
    use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
    use std::fmt;

    /// A JSON object's entries in the order they were written (serde_json's
    /// `Value` sorts them).
    struct Entries(Vec<(String, serde_json::Value)>);

    impl<'de> Deserialize<'de> for Entries {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Entries, D::Error> {
            struct InOrder;
            impl<'de> Visitor<'de> for InOrder {
                type Value = Entries;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("an object")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries, A::Error> {
                    let mut entries = Vec::new();
                    while let Some(entry) = map.next_entry()? {
                        entries.push(entry);
                    }
                    Ok(Entries(entries))
                }
            }
            d.deserialize_map(InOrder)
        }
    }

    /// The columns serde writes for `row`: one per field, one per element
    /// of an array field, as (column's field, values in it).
    fn serialized<T: Serialize>(row: &T) -> Vec<(String, usize)> {
        let json = serde_json::to_string(row).expect("a result row serialises");
        let Entries(entries) = serde_json::from_str(&json).expect("an object");
        entries.into_iter().map(|(k, v)| (k, v.as_array().map_or(1, Vec::len))).collect()
    }

    /// The declared columns grouped by field, as (field, columns from it).
    fn declared(columns: &[Column]) -> Vec<(String, usize)> {
        let mut out: Vec<(String, usize)> = Vec::new();
        for c in columns {
            match out.last_mut() {
                Some((f, n)) if f == c.field => *n += 1,
                _ => out.push((c.field.to_string(), 1)),
            }
        }
        out
    }

    fn check<T: Serialize + Default>(table: &str, columns: &[Column]) {
        assert_eq!(serialized(&T::default()), declared(columns), "{table}: serde fields and declared columns");
        for c in columns {
            assert!(["uint64", "UInt64", "float64", "str"].contains(&c.dtype), "{table}.{}: {}", c.name, c.dtype);
            assert!(!c.unit.is_empty() && !c.doc.is_empty(), "{table}.{}: a unit and a meaning", c.name);
            assert!(!c.doc.starts_with(' ') && !c.doc.contains('\n'), "{table}.{}: one line: {:?}", c.name, c.doc);
        }
        let mut names: Vec<_> = columns.iter().map(|c| c.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), columns.len(), "{table}: a column name twice");
    }

    #[test]
    fn the_declared_columns_are_the_serialized_fields_in_order() {
        check::<FlowResult>("flows", FlowResult::COLUMNS);
        check::<LinkResult>("links", LinkResult::COLUMNS);
        check::<MediumResult>("media", MediumResult::COLUMNS);
        check::<RunInfo>("run", RunInfo::COLUMNS);
    }

    #[test]
    fn a_column_takes_its_dtype_from_its_type_and_its_meaning_from_its_doc_comment() {
        let col = |name: &str| FlowResult::COLUMNS.iter().find(|c| c.name == name).copied().expect(name);
        assert_eq!(col("flow").dtype, "str");
        assert_eq!(col("app_bytes").dtype, "UInt64");
        assert_eq!(col("bytes_delivered").dtype, "uint64");
        assert_eq!(col("goodput_kbps").dtype, "float64");
        assert_eq!(col("srtt_s").dtype, "float64");
        let ndup: Vec<_> = FlowResult::COLUMNS.iter().filter(|c| c.field == "ndup_at_timeout").collect();
        assert_eq!(ndup.iter().map(|c| c.name).collect::<Vec<_>>(), ["ndup_0", "ndup_1", "ndup_2", "ndup_3plus"]);
        assert!(ndup.iter().all(|c| c.dtype == "uint64" && c.unit == "expiries"));
        // A doc comment of several lines is one line, its lines joined by a space.
        assert_eq!(
            col("goodput_kbps").doc,
            "`bytes_delivered · 8 / (end − start)` in kbit/s, where end is the \
             completion time for finished transfers and the run end otherwise."
        );
    }
}
