//! What a run observed (its time series and packet trace) as rows: the
//! `series` and `trace` tables of a sweep, and the `trace` list of the
//! binding's `run`.

use dupack_sim::time::SimTime;
use dupack_sim::TraceRecord;

/// One row of the `series` table (the long format of a run's `series.parquet`).
#[derive(serde::Serialize)]
pub(crate) struct SeriesRow<'a> {
    pub time_s: f64,
    pub entity: &'a str,
    pub variable: &'static str,
    pub value: f64,
}

/// One row of the `trace` table (as a run's `trace.parquet`).
#[derive(serde::Serialize)]
pub(crate) struct TraceRow<'a> {
    pub time_s: f64,
    pub time_ns: u64,
    pub flow: &'a str,
    pub kind: &'static str,
    pub seq: Option<u64>,
    pub len: u64,
}

/// The rows of one trace record: (time, flow index, kind, seq, len).
///
/// `seq` is the byte offset of the segment; the cumulative ACK for `ack`
/// and `recovery_exit`; the block's first byte for `sack`; None for
/// `ecn_reduction`. `len` is the payload bytes; a `sack` block's bytes; 0
/// for the other events, which are not packets. An ACK that reaches the
/// sender is one `ack` row followed by one `sack` row per SACK block, in
/// the order the receiver sent them (the most recent first, RFC 2018 §4).
/// Sender events carry no packet, so they are stamped with their own instant.
pub fn trace_rows(r: &TraceRecord) -> Vec<(SimTime, u32, &'static str, Option<u64>, u64)> {
    use dupack_sim::tcp::sender::SenderEvent;
    match *r {
        TraceRecord::Send { at, flow, seq, len, retransmit } => {
            vec![(at, flow, if retransmit { "retransmit" } else { "send" }, Some(seq), len as u64)]
        }
        TraceRecord::Drop { at, flow, seq, queue } => {
            vec![(at, flow, if queue { "drop_queue" } else { "drop_error" }, Some(seq), 0)]
        }
        TraceRecord::Ack { at, flow, ack, sack } => std::iter::once((at, flow, "ack", Some(ack), 0))
            .chain(sack.as_slice().iter().map(|b| (at, flow, "sack", Some(b.left), b.right - b.left)))
            .collect(),
        TraceRecord::Sender { flow, event } => vec![match event {
            SenderEvent::FastRetransmit { at, seq, .. } => (at, flow, "fast_retransmit", Some(seq), 0),
            SenderEvent::Timeout { at, seq, .. } => (at, flow, "timeout", Some(seq), 0),
            SenderEvent::RecoveryExit { at, ack } => (at, flow, "recovery_exit", Some(ack), 0),
            SenderEvent::EcnReduction { at, .. } => (at, flow, "ecn_reduction", None, 0),
        }],
    }
}
