//! Property test: over random loss patterns and variants, every finite
//! transfer completes and the delivery invariant holds (the run itself
//! checks that each receiver delivered exactly the application's bytes, in
//! order, once, and returns an error otherwise).

mod common;

use dupack_sim::run;
use dupack_sim::scenario::model::*;
use dupack_sim::time::{ms, secs};
use proptest::prelude::*;

fn scenario(variant: &str, p_data: f64, p_ack: f64, drops: Vec<u64>, bytes: u64, delayed: bool) -> Scenario {
    let mut s = common::lossy_path(variant, 0.0, 2_000_000, ms(20), secs(4000));
    s.links[1].fwd_error = if drops.is_empty() {
        ErrorSpec { model: ErrorModelSpec::Bernoulli { p: p_data }, applies_to: PacketSelector::Data }
    } else {
        ErrorSpec { model: ErrorModelSpec::DropList { flow: 0, packets: drops }, applies_to: PacketSelector::Data }
    };
    s.links[1].rev_error =
        ErrorSpec { model: ErrorModelSpec::Bernoulli { p: p_ack }, applies_to: PacketSelector::Acks };
    s.flows[0].bytes = Some(bytes);
    s.flows[0].tcp.timestamps = variant.contains("+undo");
    s.flows[0].receiver.window = 30_000;
    if delayed {
        s.flows[0].receiver.ack = AckMode::Delayed { timeout: ms(200), every: 2 };
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]
    #[test]
    fn every_transfer_completes_and_delivers_exactly_once(
        variant in prop::sample::select(vec![
            "tahoe", "reno", "newreno", "sack", "tahoe+efr", "reno+efr", "newreno+efr", "sack+efr",
            "reno+lt", "newreno+lt+er", "sack+lt", "sack+er", "reno+efr+lt", "reno+eplr", "newreno+eplr", "sack+eplr+lt", "fack", "fack+lt", "fack+efr", "newreno+ecn", "fack+ecn", "ecn-fack", "sack+rpld", "sack+rpld+lt", "reno+irw", "newreno+irw+ecn", "rfc6675", "rfc6675+lt+ecn", "rfc6675+prr", "rfc6675+prr+er", "reno+undo", "sack+undo", "vegas", "vegas+lt", "rack", "rack+ecn",
        ]),
        p_data in 0.0f64..0.25,
        p_ack in 0.0f64..0.2,
        drops in prop::collection::vec(1u64..120, 0..12),
        bytes in 1u64..80_000,
        delayed in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let s = scenario(variant, p_data, p_ack, drops, bytes, delayed);
        let r = run(&s, seed).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let f = &r.flows[0];
        prop_assert_eq!(r.run.end_reason.as_str(), "all_done");
        prop_assert_eq!(f.bytes_delivered, bytes);
        prop_assert!(f.completion_time_s.is_some());
    }
}
