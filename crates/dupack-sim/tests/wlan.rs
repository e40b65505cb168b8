//! The shared CSMA/CA medium (net::medium; efr §4.1, Fig. 1).
//!
//! First the medium on its own, with saturated stations (every station
//! always has a frame waiting): frames of different rounds never overlap,
//! collisions grow with the number of stations and match the constant-window
//! DCF model, throughput stays below the channel rate, shares are fair, a
//! lone station never collides, MAC retries recover collisions, and the
//! same seed gives the same frames. Then TCP over the efr testbed
//! (`scenarios/efr_wlan.toml`), and the scenario errors of `[[topology.media]]`.

mod common;
use dupack_sim::net::medium::{Fate, FrameRecord, Medium, StationStats};
use dupack_sim::net::packet::{Ecn, Packet};
use dupack_sim::scenario::model::MediumSpec;
use dupack_sim::tcp::segment::TcpSegment;
use dupack_sim::time::{secs, SimDuration, SimTime};
use dupack_sim::{parse_scenario_toml, run, RunResult, World};

// ---------------------------------------------------------------------------
// The medium driven directly
// ---------------------------------------------------------------------------

/// IP size of the saturating frames: a full 1460-byte segment.
const IP_BYTES: u32 = 1500;

/// The WaveLAN defaults with `n` stations and no background loss, so that
/// every lost frame is a collision.
fn spec(n: usize) -> MediumSpec {
    MediumSpec { frame_loss: 0.0, ..MediumSpec::wavelan("wlan", (0..n).collect()) }
}

struct Saturated {
    frames: Vec<FrameRecord>,
    stations: Vec<StationStats>,
    collision_events: u64,
    delivered_at_receiver: u64,
    given_up: u64,
    span: SimDuration,
}

impl Saturated {
    fn sent(&self) -> u64 {
        self.stations.iter().map(|s| s.frames_sent).sum()
    }
    fn collided(&self) -> u64 {
        self.stations.iter().map(|s| s.collisions).sum()
    }
    fn delivered(&self) -> u64 {
        self.stations.iter().map(|s| s.frames_delivered).sum()
    }
    /// Fraction of transmitted frames that collided.
    fn collision_rate(&self) -> f64 {
        self.collided() as f64 / self.sent() as f64
    }
    /// Delivered IP bits per second.
    fn throughput_bps(&self) -> f64 {
        self.delivered() as f64 * f64::from(IP_BYTES) * 8.0 / self.span.as_secs_f64()
    }
}

/// Run `spec` for `span` with every station saturated: whenever a station
/// has fewer than two frames waiting it gets more, at once.
fn saturate(spec: &MediumSpec, seed: u64, span: SimDuration) -> Saturated {
    let n = spec.stations.len();
    let names: Vec<String> = (0..n).map(|i| format!("s{i}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut m = Medium::new(spec, &names, seed);
    m.record();
    let end = SimTime::ZERO + span;
    let (mut tick, mut arrival, mut now, mut id) = (None, None::<SimTime>, SimTime::ZERO, 0u64);
    let (mut delivered_at_receiver, mut given_up) = (0, 0);
    loop {
        for s in 0..n {
            while !m.is_backlogged(s) || m.queue_len(s) < 2 {
                let p = Packet {
                    id,
                    flow: 0,
                    src: s as u32,
                    dst: ((s + 1) % n) as u32,
                    size: IP_BYTES,
                    ecn: Ecn::NotEct,
                    created: now,
                    seg: TcpSegment { len: IP_BYTES - 40, ..TcpSegment::default() },
                };
                id += 1;
                let (accepted, t) = m.offer(s, p, now);
                assert!(accepted.is_ok(), "the queue has room");
                // A new tick supersedes the one held.
                tick = t.or(tick);
            }
        }
        let next_tick = tick.map(|(t, _)| t).unwrap_or(SimTime::MAX);
        let next_arrival = arrival.unwrap_or(SimTime::MAX);
        now = next_tick.min(next_arrival);
        if now > end {
            break;
        }
        if next_arrival <= next_tick {
            let (p, _, next) = m.pop_arrival(now);
            assert!(p.id < id);
            delivered_at_receiver += 1;
            arrival = next;
        } else {
            let (at, gen) = tick.take().expect("a tick");
            let out = m.on_tick(gen, at);
            tick = out.next;
            if arrival.is_none() {
                arrival = out.arrival;
            }
            given_up += m.take_dropped().len() as u64;
        }
    }
    Saturated {
        frames: m.log().to_vec(),
        stations: (0..n).map(|s| m.station_stats(s).clone()).collect(),
        collision_events: m.stats.collision_events,
        delivered_at_receiver,
        given_up,
        span,
    }
}

#[test]
fn frames_of_different_rounds_never_overlap_and_a_delivered_frame_is_alone() {
    for n in [2, 5, 10] {
        let r = saturate(&spec(n), 1, secs(20));
        let difs = spec(n).difs;
        assert!(r.delivered() > 1000, "n = {n}: {}", r.delivered());
        // Rounds: frames grouped by start instant (the log is in start order).
        let mut rounds: Vec<&[FrameRecord]> = r.frames.chunk_by(|a, b| a.start == b.start).collect();
        for w in rounds.windows(2) {
            let end = w[0].iter().map(|f| f.end).max().unwrap();
            assert!(w[1][0].start >= end + difs, "n = {n}: a round starts before the last one ended + DIFS: {w:?}");
        }
        let mut delivered = 0;
        for round in rounds.drain(..) {
            let ok = round.iter().filter(|f| f.fate == Fate::Delivered).count();
            if ok > 0 {
                assert_eq!(round.len(), 1, "n = {n}: a delivered frame shared its round: {round:?}");
                delivered += 1;
            } else if round.len() > 1 {
                assert!(round.iter().all(|f| f.fate == Fate::Collided), "{round:?}");
            }
        }
        assert_eq!(delivered, r.delivered(), "n = {n}");
        // Successful frames, pairwise in time order, never overlap.
        let ok: Vec<&FrameRecord> = r.frames.iter().filter(|f| f.fate == Fate::Delivered).collect();
        assert!(ok.windows(2).all(|w| w[0].end <= w[1].start), "n = {n}");
        // Every delivered frame reached its receiver (bar the last few in flight).
        assert!(r.delivered() - r.delivered_at_receiver <= 1, "n = {n}");
    }
}

/// Collision probability of a saturated station under constant-window DCF
/// (Bianchi 2000 with m = 0): each station transmits in a slot with
/// τ = 2/(CW + 2), and a frame collides if any of the other n − 1 does.
fn bianchi_constant_window(n: usize, cw: u32) -> f64 {
    let tau = 2.0 / (f64::from(cw) + 2.0);
    1.0 - (1.0 - tau).powi(n as i32 - 1)
}

#[test]
fn collisions_grow_with_the_number_of_stations_as_dcf_predicts() {
    let mut last = -1.0;
    for n in [1, 2, 4, 8, 16] {
        let r = saturate(&spec(n), 3, secs(30));
        let p = r.collision_rate();
        let want = bianchi_constant_window(n, spec(n).cw_min);
        println!("n = {n}: collision rate {p:.4} (model {want:.4}), {} events", r.collision_events);
        assert!(p > last, "n = {n}: {p} does not exceed {last}");
        if n == 1 {
            assert_eq!(p, 0.0);
        } else {
            assert!((p - want).abs() < 0.12 * want, "n = {n}: collision rate {p:.4}, model {want:.4}");
        }
        // Without retries every collided frame is given up.
        assert_eq!(r.given_up, r.collided(), "n = {n}");
        last = p;
    }
}

#[test]
fn aggregate_throughput_stays_below_the_channel_rate_and_falls_with_contention() {
    let rate = spec(1).rate_bps as f64;
    let mut by_n = Vec::new();
    for n in [1, 2, 5, 10, 20] {
        let r = saturate(&spec(n), 5, secs(20));
        let bps = r.throughput_bps();
        println!("n = {n}: {:.0} kbit/s delivered", bps / 1000.0);
        assert!(bps < rate, "n = {n}: {bps} bit/s on a {rate} bit/s channel");
        by_n.push(bps);
    }
    // One station: each 1500-byte frame costs DIFS + on average 15.5 slots
    // + preamble + (1500 + 36)·8 bits at 2 Mbit/s = 6696 µs.
    let s = spec(1);
    let per_frame = s.difs.as_secs_f64()
        + 15.5 * s.slot.as_secs_f64()
        + s.preamble.as_secs_f64()
        + f64::from(IP_BYTES + s.mac_overhead) * 8.0 / rate;
    let want = f64::from(IP_BYTES) * 8.0 / per_frame;
    assert!((by_n[0] - want).abs() < 0.01 * want, "lone station: {} bit/s, expected {want}", by_n[0]);
    // With more stations, collisions waste more of the channel than the
    // shorter idle backoff saves.
    assert!(by_n[4] < by_n[1], "{by_n:?}");
}

#[test]
fn saturated_stations_get_equal_shares() {
    let n = 6;
    let r = saturate(&spec(n), 7, secs(60));
    let shares: Vec<f64> = r.stations.iter().map(|s| s.frames_delivered as f64).collect();
    let mean = shares.iter().sum::<f64>() / n as f64;
    for (i, s) in shares.iter().enumerate() {
        assert!((s - mean).abs() < 0.05 * mean, "station {i}: {s} frames, mean {mean}: {shares:?}");
    }
    let jain = shares.iter().sum::<f64>().powi(2) / (n as f64 * shares.iter().map(|s| s * s).sum::<f64>());
    assert!(jain > 0.995, "Jain's index {jain}: {shares:?}");
}

#[test]
fn a_lone_station_never_collides_and_waits_difs_plus_its_backoff() {
    let s = spec(1);
    let r = saturate(&s, 11, secs(10));
    assert!(r.sent() > 1000);
    assert_eq!((r.collided(), r.collision_events, r.given_up), (0, 0, 0));
    assert_eq!(r.delivered(), r.sent());
    for w in r.frames.windows(2) {
        let gap = (w[1].start - w[0].end).as_nanos();
        let slots = (gap - s.difs.as_nanos()) / s.slot.as_nanos();
        assert_eq!(gap, s.difs.as_nanos() + slots * s.slot.as_nanos(), "gap {gap} ns is not DIFS + whole slots");
        assert!(slots <= u64::from(s.cw_min), "backoff of {slots} slots beyond CW_min");
    }
}

#[test]
fn mac_retries_turn_collisions_into_delay_instead_of_loss() {
    let n = 8;
    let plain = saturate(&spec(n), 13, secs(20));
    let retrying = MediumSpec { retry_limit: 7, ..spec(n) };
    let r = saturate(&retrying, 13, secs(20));
    let retries: u64 = r.stations.iter().map(|s| s.retries).sum();
    assert!(r.collided() > 0 && retries > 0);
    // Binary exponential backoff spreads the stations out: fewer collisions
    // per frame, and almost no frame is given up.
    assert!(r.collision_rate() < 0.8 * plain.collision_rate(), "{} vs {}", r.collision_rate(), plain.collision_rate());
    assert!(r.given_up * 100 < r.delivered(), "{} given up, {} delivered", r.given_up, r.delivered());
    assert_eq!(plain.given_up, plain.collided());
    // Every round is followed by SIFS + a MAC ACK (or the ACK timeout).
    let ack = retrying.sifs + retrying.preamble + SimDuration::from_nanos(14 * 8 * 1_000_000_000 / retrying.rate_bps);
    for w in r.frames.chunk_by(|a, b| a.start == b.start).collect::<Vec<_>>().windows(2) {
        let end = w[0].iter().map(|f| f.end).max().unwrap();
        assert!(w[1][0].start >= end + ack + retrying.difs, "{w:?}");
    }
}

#[test]
fn background_frame_loss_hits_the_configured_fraction() {
    let lossy = MediumSpec { frame_loss: 0.02, ..spec(1) };
    let r = saturate(&lossy, 17, secs(60));
    let lost: u64 = r.stations.iter().map(|s| s.frame_losses).sum();
    let rate = lost as f64 / r.sent() as f64;
    assert!((rate - 0.02).abs() < 0.004, "{lost} of {} lost: {rate}", r.sent());
    assert_eq!(r.given_up, lost);
}

#[test]
fn the_same_seed_gives_the_same_frames_and_another_seed_other_frames() {
    let a = saturate(&spec(4), 21, secs(5));
    let b = saturate(&spec(4), 21, secs(5));
    let c = saturate(&spec(4), 22, secs(5));
    assert_eq!(a.frames, b.frames);
    assert_ne!(a.frames, c.frames);
}

// ---------------------------------------------------------------------------
// TCP over the efr testbed
// ---------------------------------------------------------------------------

const EFR_WLAN: &str = include_str!("../../../scenarios/efr_wlan.toml");

fn rows<'a>(r: &'a RunResult, medium: &str) -> Vec<&'a dupack_sim::MediumResult> {
    r.media.iter().filter(|m| m.medium == medium).collect()
}

#[test]
fn efr_wlan_scenario_runs_tcp_over_the_shared_medium() {
    let s = parse_scenario_toml(EFR_WLAN).unwrap();
    assert_eq!(s.media.len(), 1);
    let m = &s.media[0];
    assert_eq!((m.rate_bps, m.retry_limit, m.frame_loss, m.stations.len()), (2_000_000, 0, 3e-4, 5));
    assert_eq!(
        *m,
        MediumSpec {
            name: m.name.clone(),
            access_point: m.access_point,
            ..MediumSpec::wavelan("", m.stations.clone())
        }
    );
    let r = run(&s, s.seed).unwrap();
    assert_eq!(r.run.end_reason, "all_done", "MH1's 1 Mbyte arrives");
    assert_eq!(r.flows[0].bytes_delivered, 1_000_000);
    let wlan = rows(&r, "wavelan");
    assert_eq!(wlan.iter().map(|m| m.station.as_str()).collect::<Vec<_>>(), ["ap", "mh1", "mh2", "mh3", "mh4"]);
    // Data and ACKs share the channel: the AP sends the ACKs, the senders data.
    for m in &wlan[1..4] {
        assert!(m.frames_delivered > 100 && m.bytes_delivered > 100 * 1400, "{m:?}");
    }
    assert!(
        wlan[0].frames_delivered > 100 && wlan[0].bytes_delivered < 100 * wlan[0].frames_delivered,
        "{:?}",
        wlan[0]
    );
    assert_eq!(wlan[4].frames_sent, 0, "MH4 is idle");
    let collisions: u64 = wlan.iter().map(|m| m.collisions).sum();
    assert!(collisions > 0 && wlan[0].medium_collision_events > 0);
    assert!(collisions >= 2 * wlan[0].medium_collision_events);
    // The TCP senders saw the collided frames as losses.
    let tcp_losses: u64 = r.flows.iter().map(|f| f.drops_error).sum();
    let mac_losses: u64 = wlan.iter().map(|m| m.drops_error).sum();
    assert_eq!(tcp_losses, mac_losses);
    assert!(r.flows.iter().map(|f| f.retransmitted_segments).sum::<u64>() > 0);
    // The medium carried less than its rate.
    let goodput: f64 = r.flows.iter().map(|f| f.goodput_kbps).sum();
    assert!(goodput < 2000.0 && goodput > 800.0, "{goodput} kbit/s");
    assert!(wlan[0].medium_busy > 0.5 && wlan[0].medium_busy < 1.0, "{}", wlan[0].medium_busy);
    let airtime: f64 = wlan.iter().map(|m| m.airtime).sum();
    assert!(airtime >= wlan[0].medium_busy * 0.999, "collided frames overlap: airtime {airtime} ≥ busy");
}

#[test]
fn efr_wlan_same_seed_same_result() {
    let s = parse_scenario_toml(EFR_WLAN).unwrap();
    let strip = |mut r: RunResult| {
        r.run.wall_time_s = 0.0;
        r
    };
    let a = strip(run(&s, 5).unwrap());
    assert_eq!(a, strip(run(&s, 5).unwrap()));
    assert_ne!(a.media, strip(run(&s, 6).unwrap()).media);
}

/// `n` greedy TCP senders on the WLAN, for `duration`.
fn efr_with_senders(n: usize, duration: &str) -> dupack_sim::Scenario {
    let mut text = format!(
        "[run]\nduration = \"{duration}\"\n[topology]\nkind = \"custom\"\n\
         [[topology.nodes]]\nname = \"ch\"\n[[topology.nodes]]\nname = \"ap\"\nkind = \"router\"\n"
    );
    let stations: Vec<String> = (1..=n).map(|i| format!("\"mh{i}\"")).collect();
    for i in 1..=n {
        text += &format!("[[topology.nodes]]\nname = \"mh{i}\"\n");
    }
    text += "[[topology.links]]\na = \"ap\"\nb = \"ch\"\nrate = \"10Mbps\"\ndelay = \"2ms\"\n";
    text += &format!(
        "[[topology.media]]\nname = \"wlan\"\naccess_point = \"ap\"\nnodes = [\"ap\", {}]\n",
        stations.join(", ")
    );
    text += "[tcp]\nvariant = \"reno\"\nmss = \"1440B\"\n[receiver]\nwindow = \"50400B\"\n";
    for i in 1..=n {
        text += &format!("[[flows]]\nfrom = \"mh{i}\"\nto = \"ch\"\n");
    }
    parse_scenario_toml(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

#[test]
fn tcp_senders_collide_more_as_they_multiply_and_share_the_channel() {
    let mut last = -1.0;
    for n in [1, 2, 4, 8] {
        let r = run(&efr_with_senders(n, "30s"), 1).unwrap();
        let wlan = rows(&r, "wlan");
        let sent: u64 = wlan.iter().map(|m| m.frames_sent).sum();
        let collided: u64 = wlan.iter().map(|m| m.collisions).sum();
        let rate = collided as f64 / sent as f64;
        let goodputs: Vec<f64> = r.flows.iter().map(|f| f.goodput_kbps).collect();
        let total: f64 = goodputs.iter().sum();
        println!("{n} senders: collision rate {rate:.4}, goodput {total:.0} kbit/s {goodputs:.0?}");
        assert!(rate > last, "{n} senders: {rate} ≤ {last}");
        assert!(total < 2000.0 && total > 500.0, "{n} senders: {total} kbit/s");
        // TCP's losses and timeouts make shares uneven over 30 s, but no
        // sender is shut out of the channel.
        let fair = total / n as f64;
        assert!(goodputs.iter().all(|&g| g > 0.25 * fair), "{n} senders: {goodputs:?}");
        last = rate;
    }
}

#[test]
fn tcp_frames_on_the_air_never_overlap_across_rounds() {
    let s = efr_with_senders(4, "10s");
    let mut w = World::new(&s, 1).unwrap();
    w.medium_mut(0).record();
    w.run_until(SimTime::ZERO + secs(10), false);
    let log = w.medium(0).log();
    assert!(log.len() > 1000, "{} frames", log.len());
    let difs = s.media[0].difs;
    let rounds: Vec<&[FrameRecord]> = log.chunk_by(|a, b| a.start == b.start).collect();
    for pair in rounds.windows(2) {
        let end = pair[0].iter().map(|f| f.end).max().unwrap();
        assert!(pair[1][0].start >= end + difs, "{pair:?}");
    }
    assert!(rounds.iter().any(|r| r.len() > 1), "data and ACKs collide sometimes");
    assert!(rounds.iter().filter(|r| r.iter().any(|f| f.fate == Fate::Delivered)).all(|r| r.len() == 1));
}

// ---------------------------------------------------------------------------
// Bad configuration
// ---------------------------------------------------------------------------

/// A WLAN scenario whose medium table has `kv` (TOML inline-table keys).
fn with_medium(kv: &str) -> String {
    format!(
        "[topology]\nkind = \"custom\"\n\
         [[topology.nodes]]\nname = \"ap\"\n[[topology.nodes]]\nname = \"m1\"\n[[topology.nodes]]\nname = \"m2\"\n\
         [[topology.media]]\n{kv}\n\
         [[flows]]\nfrom = \"m1\"\nto = \"ap\"\n"
    )
}

#[test]
fn bad_medium_configuration_names_the_field_the_value_and_what_is_allowed() {
    let nodes = "nodes = [\"ap\", \"m1\", \"m2\"]";
    let m = |extra: &str| with_medium(&format!("{nodes}\n{extra}"));
    let cases: Vec<(&str, String, &str, &[&str])> = vec![
        ("negative slot", m("slot = \"-20us\""), "topology.media[0].slot", &["cannot be negative", "\"-20us\""]),
        ("zero slot", m("slot = \"0us\""), "topology.media[0].slot", &["must be greater than 0, got \"0us\""]),
        ("slot without unit", m("slot = 20"), "topology.media[0].slot", &["got the number 20", "write it with a unit"]),
        ("negative difs", m("difs = \"-1us\""), "topology.media[0].difs", &["cannot be negative"]),
        ("sifs as a rate", m("sifs = \"10Mbps\""), "topology.media[0].sifs", &["\"Mbps\" is a unit of rate"]),
        ("zero rate", m("rate = \"0Mbps\""), "topology.media[0].rate", &["must be greater than 0, got \"0Mbps\""]),
        ("negative cw_min", m("cw_min = -1"), "topology.media[0].cw_min", &["must be between 0 and 65535, got -1"]),
        ("huge cw_max", m("cw_max = 70000"), "topology.media[0].cw_max", &["must be between 0 and 65535, got 70000"]),
        (
            "cw_min above cw_max",
            m("cw_min = 63\ncw_max = 31"),
            "topology.media[0].cw_max",
            &["must be at least cw_min (63), got 31"],
        ),
        (
            "cw_min above the default cw_max",
            m("cw_min = 2047"),
            "topology.media[0].cw_min",
            &["must be at most cw_max (1023, the default), got 2047"],
        ),
        (
            "fractional cw_min",
            m("cw_min = 31.5"),
            "topology.media[0].cw_min",
            &["expected an integer, got the number 31.5"],
        ),
        (
            "negative retry_limit",
            m("retry_limit = -1"),
            "topology.media[0].retry_limit",
            &["must be between 0 and 255, got -1"],
        ),
        (
            "frame_loss above 1",
            m("frame_loss = 1.5"),
            "topology.media[0].frame_loss",
            &["must be between 0 and 1, got 1.5"],
        ),
        (
            "frame_loss as a string",
            m("frame_loss = \"3e-4\""),
            "topology.media[0].frame_loss",
            &["expected a number between 0 and 1, got the string \"3e-4\""],
        ),
        ("negative delay", m("delay = \"-1us\""), "topology.media[0].delay", &["cannot be negative"]),
        (
            "delay beyond the slot",
            m("delay = \"30us\""),
            "topology.media[0].delay",
            &["must not exceed the slot (20us, the default)", "got 30us"],
        ),
        (
            "slot below the delay",
            m("slot = \"500ns\""),
            "topology.media[0].slot",
            &["must be at least the propagation delay (1us, the default), got 500ns"],
        ),
        (
            "mac_overhead without unit",
            m("mac_overhead = 36"),
            "topology.media[0].mac_overhead",
            &["write it with a unit"],
        ),
        (
            "bad queue limit",
            m("queue = { limit_packets = 0 }"),
            "topology.media[0].queue.limit_packets",
            &["must be between 1 and 1000000, got 0"],
        ),
        (
            "unknown key",
            m("cwmin = 31"),
            "topology.media[0].cwmin",
            &["unknown key 'cwmin'", "did you mean 'cw_min'?", "allowed keys here: name, nodes"],
        ),
        (
            "unknown station",
            with_medium("nodes = [\"ap\", \"m3\"]"),
            "topology.media[0].nodes[1]",
            &["no node named 'm3'", "nodes: ap, m1, m2"],
        ),
        (
            "one station",
            with_medium("nodes = [\"ap\"]"),
            "topology.media[0].nodes",
            &["a medium needs at least two stations, got 1"],
        ),
        (
            "a station twice",
            with_medium("nodes = [\"ap\", \"m1\", \"ap\"]"),
            "topology.media[0].nodes[2]",
            &["node 'ap' is already a station of this medium (topology.media[0].nodes[0])"],
        ),
        (
            "nodes missing",
            with_medium("rate = \"2Mbps\""),
            "topology.media[0].nodes",
            &["missing required key 'nodes'"],
        ),
        (
            "nodes not an array",
            with_medium("nodes = \"ap\""),
            "topology.media[0].nodes",
            &["expected an array of node names, got the string \"ap\""],
        ),
        (
            "access point off the medium",
            with_medium("nodes = [\"m1\", \"m2\"]\naccess_point = \"ap\""),
            "topology.media[0].access_point",
            &["'ap' is not a station of this medium", "allowed: one of its nodes (m1, m2)"],
        ),
        (
            "flow to an unconnected node",
            with_medium("nodes = [\"m1\", \"m2\"]"),
            "flows[0]",
            &["no path of links joins 'm1' and 'ap'"],
        ),
        (
            "media in a dumbbell",
            "[topology]\nkind = \"dumbbell\"\nsenders = 1\naccess = { rate = \"1Mbps\", delay = \"1ms\" }\n\
             bottleneck = { rate = \"1Mbps\", delay = \"1ms\" }\nmedia = []\n"
                .to_string(),
            "topology.media",
            &["belongs to topology kind \"custom\""],
        ),
        (
            "empty media",
            "[topology]\nkind = \"custom\"\nmedia = []\n[[topology.nodes]]\nname = \"a\"\n".to_string(),
            "topology.media",
            &["must contain at least one medium table"],
        ),
        (
            "duplicate medium name",
            with_medium(&format!("name = \"w\"\n{nodes}\n[[topology.media]]\nname = \"w\"\n{nodes}")),
            "topology.media[1].name",
            &["duplicate medium name 'w' (also used by topology.media[0])"],
        ),
    ];
    common::assert_refused(&cases);
}

#[test]
fn a_wlan_alone_needs_no_wired_link_and_routes_through_the_access_point() {
    let text = with_medium("nodes = [\"ap\", \"m1\", \"m2\"]\naccess_point = \"ap\"")
        + "[[flows]]\nname = \"m1-m2\"\nfrom = \"m1\"\nto = \"m2\"\nbytes = \"100KB\"\n";
    let s = parse_scenario_toml(&text).unwrap();
    let r = run(&s, 1).unwrap();
    assert_eq!(r.flows[1].bytes_delivered, 100_000);
    // m1 → m2 goes through the AP: the AP relays the data as well as the ACKs.
    let ap = rows(&r, "medium0")[0];
    assert!(ap.bytes_delivered > 100_000, "{ap:?}");
    // Ad hoc (no access point) the two mobiles talk directly.
    let adhoc = parse_scenario_toml(
        &(with_medium("nodes = [\"ap\", \"m1\", \"m2\"]")
            + "[[flows]]\nname = \"m1-m2\"\nfrom = \"m1\"\nto = \"m2\"\nbytes = \"100KB\"\n"),
    )
    .unwrap();
    let r = run(&adhoc, 1).unwrap();
    let ap = rows(&r, "medium0")[0];
    assert!(ap.bytes_delivered < 100_000, "{ap:?}");
}
