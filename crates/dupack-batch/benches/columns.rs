//! A run's rows into a sweep's columns: through serde (`Table::push`)
//! against by position (`Table::push_row`, what a sweep's workers use
//! after a table's first row), on the rows of one run of the unfairness
//! dumbbell (N = 10, p = 1 %, 1 s): 10 flow rows and 22 link rows.
//!
//! `cargo bench -p dupack-batch --bench columns -- --quick`

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use dupack_batch::columns::Table;
use dupack_sim::scenario::document;

fn one_run() -> dupack_sim::RunResult {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/scenarios/unfairness.toml");
    let text = std::fs::read_to_string(path).expect("bench/scenarios/unfairness.toml");
    let mut doc = document::from_toml(&text).expect("the scenario parses");
    for o in ["topology.senders=10", "topology.access.fwd_error.p=0.01", "run.duration=\"1s\""] {
        document::apply(&mut doc, o).expect("the override applies");
    }
    let scenario = dupack_sim::parse_scenario(&doc).expect("the scenario is valid");
    dupack_sim::run(&scenario, 1).expect("the run ends")
}

/// Tables with their columns made and room for 100 runs' rows already
/// written once, as a worker's batch is when the coordinator hands it back.
fn warm(r: &dupack_sim::RunResult) -> (Table, Table) {
    let (mut flows, mut links) = (Table::default(), Table::default());
    for _ in 0..101 {
        r.flows.iter().for_each(|f| flows.push(f).unwrap());
        r.links.iter().for_each(|l| links.push(l).unwrap());
    }
    flows.clear();
    links.clear();
    r.flows.iter().for_each(|f| flows.push(f).unwrap());
    r.links.iter().for_each(|l| links.push(l).unwrap());
    (flows, links)
}

/// A hundred runs' rows, one way or the other.
fn fill(flows: &mut Table, links: &mut Table, r: &dupack_sim::RunResult, by_position: bool) {
    for _ in 0..100 {
        for f in &r.flows {
            if by_position { flows.push_row(f) } else { flows.push(f) }.unwrap();
        }
        for l in &r.links {
            if by_position { links.push_row(l) } else { links.push(l) }.unwrap();
        }
    }
}

fn columns(c: &mut Criterion) {
    let r = one_run();
    let mut g = c.benchmark_group("a_runs_rows_into_columns_x100");
    for (name, by_position) in [("serde", false), ("by_position", true)] {
        g.bench_function(name, |b| {
            b.iter_batched_ref(|| warm(&r), |(flows, links)| fill(flows, links, &r, by_position), BatchSize::LargeInput)
        });
    }
    g.finish();
}

criterion_group!(benches, columns);
criterion_main!(benches);
