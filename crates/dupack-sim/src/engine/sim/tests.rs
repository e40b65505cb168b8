//! The engine's own checks: lazy ends of transmission against an event
//! at every end, the packet accounting invariant, event keys.

use super::*;
use crate::engine::sim::collect::check_invariants;
use crate::scenario::parse::parse_scenario_toml;

/// `run`, with every end of transmission an event when `reference`.
fn run_with(s: &Scenario, reference: bool) -> RunResult {
    let mut w = World::new(s, s.seed).expect("a valid scenario");
    for c in &mut w.channels {
        c.every_end_an_event = reference;
        c.lazy_backlog &= !reference;
    }
    let ended = w.run_until(SimTime::ZERO + s.duration, s.stop_when_done);
    let mut r = conclude(s, s.seed, &mut w, ended, 0.0).expect("invariants");
    r.run.events = 0;
    r
}

#[test]
fn a_packet_that_no_channel_holds_breaks_the_accounting_invariant() {
    let s = parse_scenario_toml(include_str!("../../../../../scenarios/quickstart.toml")).expect("parses");
    let mut w = World::new(&s, 1).expect("a valid scenario");
    w.run_until(SimTime::ZERO + SimDuration::from_millis(200), false);
    check_invariants(&s, &w).expect("every living packet is in a channel mid-run");
    assert!(w.pool.live() > 0, "packets in flight at 200 ms");
    let leaked = w.pool.alloc(Packet::test_segment(u64::MAX, 0, 0, 100));
    let err = check_invariants(&s, &w).expect_err("a packet nobody holds");
    assert!(err.0.contains("packet accounting"), "{err}");
    w.pool.free(leaked);
    check_invariants(&s, &w).expect("balanced again");
}

#[test]
fn lazy_ends_of_transmission_give_the_results_of_an_event_at_every_end() {
    // Every kind of channel: DropTail and RED queues, losses, ARQ, Snoop,
    // a shared medium. The lazy engine must be a pure optimisation.
    let scenarios = [
        include_str!("../../../../../scenarios/quickstart.toml"),
        include_str!("../../../../../scenarios/unfairness-dumbbell.toml"),
        include_str!("../../../../../scenarios/irw-cellular.toml"),
        include_str!("../../../../../scenarios/irw-snoop.toml"),
        include_str!("../../../../../scenarios/efr_wlan.toml"),
        include_str!("../../../../../validation/scenarios/red_dumbbell.toml"),
        include_str!("../../../../../validation/scenarios/lossy_link.toml"),
    ];
    for text in scenarios {
        let s = parse_scenario_toml(text).expect("a shipped scenario parses");
        let (lazy, reference) = (run_with(&s, false), run_with(&s, true));
        assert!(lazy.links.iter().map(|l| l.packets_sent).sum::<u64>() > 100, "{}: traffic", s.name);
        assert_eq!(lazy, reference, "{}", s.name);
    }
}

#[test]
fn a_scenario_with_more_channels_flows_or_media_than_event_keys_name_is_refused() {
    let top = (1usize << INDEX_BITS) - 1;
    assert!(check_event_indices(top, top, top).is_ok());
    for (c, f, m) in [(top + 1, 1, 0), (2, top + 1, 0), (2, 1, top + 1)] {
        let err = check_event_indices(c, f, m).expect_err("one index too many");
        assert_eq!(err.0, format!("{} channels, flows or media: at most {top} are supported", top + 1));
    }
}

#[test]
fn every_event_is_rebuilt_from_its_key_and_keys_order_kinds_then_indices() {
    let top = (1 << INDEX_BITS) - 1;
    let evs = [
        Ev::TxDone(0),
        Ev::TxDone(top),
        Ev::Arrive(5),
        Ev::Timer(top, false),
        Ev::Timer(top, true),
        Ev::Release(top),
        Ev::ArqTimer(3),
        Ev::SnoopTimer(top, u32::MAX),
        Ev::AppStart(7),
        Ev::MediumTick(2, u32::MAX),
        Ev::MediumArrive(top),
    ];
    for ev in evs {
        let k = ev.encode();
        assert!(k < 1 << crate::engine::queue::EVENT_KEY_BITS, "{ev:?}");
        assert_eq!(format!("{:?}", Ev::decode(k)), format!("{ev:?}"));
    }
    let keys: Vec<u64> = evs.iter().map(EventKey::encode).collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "kind first, then the indices");
}
