//! The largest scenario the parser accepts must also run: a dumbbell of
//! 100 000 senders with a lossy access link each. Routing and per-flow
//! random streams must grow linearly with the number of flows, or this
//! test exhausts memory.

use dupack_sim::{parse_scenario_toml, run};

#[test]
fn a_hundred_thousand_senders_run() {
    let s = parse_scenario_toml(
        r#"
        [run]
        duration = "300ms"
        [topology]
        kind = "dumbbell"
        senders = 100000
        access = { rate = "10Mbps", delay = "1ms", fwd_error = { model = "bernoulli", p = 0.5 } }
        bottleneck = { rate = "1Gbps", delay = "10ms" }
        "#,
    )
    .unwrap();
    let r = run(&s, 1).unwrap();
    assert_eq!(r.flows.len(), 100_000);
    let sent: u64 = r.flows.iter().map(|f| f.segments_sent).sum();
    let lost: u64 = r.flows.iter().map(|f| f.drops_error).sum();
    assert!(sent >= 100_000, "every flow sent its first segment: {sent}");
    assert!(lost > 30_000 && lost < sent, "{lost} of {sent} lost at p = 0.5");
}
