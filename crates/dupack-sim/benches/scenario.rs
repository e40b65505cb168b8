//! One whole small scenario: the 10-flow unfairness dumbbell of
//! `bench/scenarios/unfairness.toml` (NewReno, 1 % access loss), 20 s
//! simulated instead of 200 s.
//!
//! `cargo bench -p dupack-sim --bench scenario -- --quick`
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use std::time::Duration;

fn dumbbell(c: &mut Criterion) {
    let text = include_str!("../../../bench/scenarios/unfairness.toml");
    let mut s = dupack_sim::parse_scenario_toml(text).expect("the bench scenario parses");
    s.duration = dupack_sim::time::secs(20);
    assert_eq!(s.flows.len(), 10);
    let mut g = c.benchmark_group("scenario");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    g.bench_function("dumbbell 10 flows 20 s", |b| b.iter(|| black_box(dupack_sim::run(&s, 1).expect("run"))));
    g.finish();
}

/// The cost of looking inside a run (observe): nothing asked (the same
/// path as `run`), the time series of every flow and link, and a capture
/// of the bottleneck written to memory.
fn observe(c: &mut Criterion) {
    use dupack_sim::{run_observed, Observe, PcapRequest};
    let text = include_str!("../../../bench/scenarios/unfairness.toml");
    let mut s = dupack_sim::parse_scenario_toml(text).expect("the bench scenario parses");
    s.duration = dupack_sim::time::secs(20);
    let bottleneck = s.links.iter().position(|l| l.name == "bottleneck").expect("a bottleneck");
    let mut g = c.benchmark_group("observe");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    g.bench_function("off", |b| b.iter(|| black_box(run_observed(&s, 1, Observe::default(), || false).expect("run"))));
    g.bench_function("series of every flow and link", |b| {
        b.iter(|| {
            let obs = Observe {
                series_flows: (0..s.flows.len()).collect(),
                series_links: (0..s.links.len()).collect(),
                ..Observe::default()
            };
            black_box(run_observed(&s, 1, obs, || false).expect("run"))
        })
    });
    g.bench_function("pcap of the bottleneck", |b| {
        b.iter(|| {
            let out = Box::new(std::io::sink());
            let obs = Observe {
                pcaps: vec![PcapRequest { link: bottleneck, fwd: true, rev: true, out }],
                ..Observe::default()
            };
            black_box(run_observed(&s, 1, obs, || false).expect("run"))
        })
    });
    g.finish();
}

criterion_group!(benches, dumbbell, observe);
criterion_main!(benches);
