//! After a run: the end-of-run invariants, and the world turned into
//! its result tables.

use super::*;

/// The run of `w` ended at `end`: check the end-of-run invariants, apply
/// the ends of transmission that came by then, and collect the results.
pub(super) fn conclude(
    s: &Scenario,
    seed: u64,
    w: &mut World,
    (end, all_done): (SimTime, bool),
    wall: f64,
) -> Result<RunResult, RunError> {
    if let Some(v) = w.violation.take() {
        return Err(RunError(format!("delivery invariant violated: {v}")));
    }
    check_invariants(s, w)?;
    for c in &mut w.channels {
        c.settle(&w.pool, end, &w.flow_names);
    }
    Ok(collect(s, seed, w, end, all_done, wall))
}

/// Every receiver delivered, in order and once, exactly what its sender's
/// application wrote (for finished transfers), and never more; and every
/// packet of the pool is held by a channel (none leaked, none freed early).
pub(super) fn check_invariants(s: &Scenario, w: &World) -> Result<(), RunError> {
    let held: usize = w.channels.iter().map(Channel::packets_held).sum::<usize>()
        + w.flows.iter().filter_map(|f| f.overhead.as_ref()).map(|h| h.held()).sum::<usize>();
    if held != w.pool.live() {
        return Err(RunError(format!(
            "packet accounting violated: {} packets alive in the pool, {held} held by channels",
            w.pool.live()
        )));
    }
    for (i, f) in w.flows.iter().enumerate() {
        let name = &s.flows[i].name;
        let delivered = f.receiver.rcv_nxt();
        if f.sender.snd_una() > delivered {
            return Err(RunError(format!(
                "delivery invariant violated: flow '{name}': sender saw {} bytes acknowledged but the receiver delivered {delivered}",
                f.sender.snd_una()
            )));
        }
        if let Some(n) = f.app_bytes {
            if delivered > n || (f.sender.is_done() && delivered != n) {
                return Err(RunError(format!(
                    "delivery invariant violated: flow '{name}': delivered {delivered} bytes of {n}"
                )));
            }
        }
    }
    Ok(())
}

fn collect(s: &Scenario, seed: u64, w: &World, end: SimTime, all_done: bool, wall: f64) -> RunResult {
    let node = |n: NodeId| s.nodes[n as usize].name.clone();
    let flows = w
        .flows
        .iter()
        .zip(&s.flows)
        .map(|(f, spec)| {
            let st = f.sender.stats();
            let rtt = Some(f.sender.rto().samples()).filter(|r| r.count > 0);
            let delivered = f.receiver.rcv_nxt();
            let until = f.completed_at.unwrap_or(end);
            let span = until.saturating_since(f.start);
            let goodput_kbps =
                if span > SimDuration::ZERO { delivered as f64 * 8.0 / span.as_secs_f64() / 1000.0 } else { 0.0 };
            FlowResult {
                flow: spec.name.clone(),
                variant: spec.variant.to_string(),
                src: node(f.src),
                dst: node(f.dst),
                app_bytes: f.app_bytes,
                bytes_delivered: delivered,
                goodput_kbps,
                start_s: f.start.as_secs_f64(),
                completion_time_s: f.completed_at.map(|t| t.saturating_since(f.start).as_secs_f64()),
                segments_sent: st.segments_sent,
                retransmitted_segments: st.retransmitted_segments,
                fast_retransmits: st.fast_retransmits,
                timeouts: st.timeouts,
                timeout_episodes: st.timeout_episodes,
                ndup_at_timeout: st.ndup_at_timeout,
                acks_received: st.acks_received,
                dupacks_received: st.dupacks_received,
                fr_to_ratio: (st.timeouts > 0).then(|| st.fast_retransmits as f64 / st.timeouts as f64),
                recovery_time_s: f.sender.recovery_time(end).as_secs_f64(),
                backoff_time_s: f.sender.backoff_time(end).as_secs_f64(),
                spurious_retransmissions: f.truth.spurious_retransmissions,
                false_fast_retransmits: f.truth.false_fast_retransmits,
                lost_retransmissions: f.truth.lost_retransmissions,
                wasted_timeouts: f.truth.wasted_timeouts,
                ecn_reductions: st.ecn_reductions,
                window_undos: st.window_undos,
                drops_error: f.drops_error,
                drops_queue: f.drops_queue,
                final_cwnd: f.sender.cwnd(),
                final_ssthresh: Some(f.sender.ssthresh()).filter(|&t| t < u64::MAX / 2),
                srtt_s: f.sender.rto().srtt().map(|d| d.as_secs_f64()),
                rtt_samples: f.sender.rto().samples().count,
                rtt_mean_s: f.sender.rto().samples().mean_s(),
                rtt_min_s: rtt.map(|r| r.min.as_secs_f64()),
                rtt_max_s: rtt.map(|r| r.max.as_secs_f64()),
                final_rto_s: f.sender.rto().rto().as_secs_f64(),
                dupacks_delayed: f.receiver.stats().dupacks_delayed,
                dupacks_cancelled: f.receiver.stats().dupacks_cancelled,
            }
        })
        .collect();
    let run_s = end.as_secs_f64();
    let links = w
        .channels
        .iter()
        .map(|c| LinkResult {
            link: s.links[c.link].name.clone(),
            direction: if c.fwd { "fwd" } else { "rev" }.into(),
            from: node(c.from),
            to: node(c.to),
            rate_bps: c.rate_bps,
            packets_sent: c.stats.packets_sent,
            bytes_sent: c.stats.bytes_sent,
            utilisation: match &c.trace {
                // Bytes sent over bytes the opportunities offered.
                Some(t) => match t.capacity_until(end) {
                    0 => 0.0,
                    cap => c.stats.bytes_sent as f64 / cap as f64,
                },
                None if run_s > 0.0 => c.stats.busy.as_secs_f64() / run_s,
                None => 0.0,
            },
            drops_error: c.stats.drops_error,
            drops_queue: c.stats.drops_queue,
            marks: c.stats.marks,
            max_queue_packets: c.stats.max_queue_packets,
            mean_queue_packets: c.stats.mean_queue_packets(end),
            link_retransmissions: c.arq.as_ref().map_or(0, |a| a.stats.retransmissions)
                + c.snoop.as_ref().map_or(0, |s| s.stats.dupack_retransmissions + s.stats.timeout_retransmissions),
            naks: c.arq.as_ref().map_or(0, |a| a.stats.naks),
            link_given_up: c.arq.as_ref().map_or(0, |a| a.stats.given_up),
            ctl_bytes: c.stats.ctl_bytes,
            dupacks_suppressed: c.snoop.as_ref().map_or(0, |s| s.stats.dupacks_suppressed),
        })
        .collect();
    let frac = |d: SimDuration| if run_s > 0.0 { d.as_secs_f64() / run_s } else { 0.0 };
    let mut media = Vec::new();
    for m in &w.media {
        let busy = frac(m.busy_until(end));
        for i in 0..m.stations() {
            let st = m.station_stats(i);
            media.push(MediumResult {
                medium: m.name.clone(),
                station: node(m.station_node(i)),
                rate_bps: m.rate_bps(),
                frames_sent: st.frames_sent,
                bytes_sent: st.bytes_sent,
                frames_delivered: st.frames_delivered,
                bytes_delivered: st.bytes_delivered,
                collisions: st.collisions,
                frame_losses: st.frame_losses,
                retries: st.retries,
                drops_error: st.drops_error,
                drops_queue: st.drops_queue,
                marks: st.marks,
                max_queue_packets: st.max_queue_packets,
                airtime: frac(st.airtime),
                medium_busy: busy,
                medium_collision_events: m.stats.collision_events,
            });
        }
    }
    RunResult {
        scenario: s.name.clone(),
        seed,
        flows,
        links,
        media,
        run: RunInfo {
            sim_time_s: run_s,
            end_reason: if all_done { "all_done" } else { "time_limit" }.into(),
            events: w.events(),
            wall_time_s: wall,
        },
    }
}
