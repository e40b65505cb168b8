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

criterion_group!(benches, dumbbell);
criterion_main!(benches);
