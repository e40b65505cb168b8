//! The sweep through its public API, without Python: the tables do not
//! depend on the number of workers, and a sweep that stops keeps (and
//! hands over) every run that finished.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use dupack_batch::columns::Values;
use dupack_batch::sweep::{Chunk, Failure, Job, Sweep};
use dupack_batch::{Results, Watch, TABLE_NAMES};
use dupack_sim::Scenario;

/// Two NewReno flows over a lossy dumbbell, `duration` long.
fn scenario(duration: &str) -> Scenario {
    let toml = format!(
        r#"
        name = "small"
        [run]
        duration = "{duration}"
        seed = 7
        [topology]
        kind = "dumbbell"
        senders = 2
        [topology.access]
        rate = "10Mbps"
        delay = "1ms"
        [topology.bottleneck]
        rate = "2Mbps"
        delay = "10ms"
        fwd_error = {{ model = "bernoulli", p = 0.01 }}
        [tcp]
        variant = "newreno"
        "#
    );
    dupack_sim::parse_scenario_toml(&toml).expect("a valid scenario")
}

/// Every table's rows as text, floats by their bits; without the runs'
/// wall-clock time, the one column that differs from run to run.
fn contents(r: &Results) -> Vec<String> {
    let mut out = vec![format!("jobs {:?}", r.jobs)];
    for t in &r.tables {
        out.push(format!("{} rows {} job {:?} seed {:?}", t.name, t.table.rows, t.job, t.seed));
        for c in t.table.columns.iter().filter(|c| c.name != "wall_time_s") {
            let values = match &c.values {
                Values::F64(v) => format!("{:?}", v.iter().map(|x| x.to_bits()).collect::<Vec<_>>()),
                v => format!("{v:?}"),
            };
            out.push(format!("{}.{} width {} nulls {} {:?} {values}", t.name, c.name, c.width, c.has_nulls(), c.valid));
        }
    }
    out
}

/// The parts a sweep handed over, one after another, as one set of results.
fn concat(parts: Vec<Results>) -> Results {
    let mut parts = parts.into_iter();
    let mut all = parts.next().expect("the sweep handed over at least one part");
    for p in parts {
        all.jobs.extend(&p.jobs);
        for (a, b) in all.tables.iter_mut().zip(&p.tables) {
            a.job.extend(&b.job);
            a.seed.extend(&b.seed);
            a.table.append_rows(&b.table, 0..b.table.rows).expect("the parts of one sweep have the same columns");
        }
    }
    all
}

/// The jobs of every chunk, one after another.
fn collect_jobs(chunks: &mut Vec<u64>) -> impl FnMut(Chunk) -> Result<(), String> + '_ {
    |c: Chunk| {
        chunks.extend(c.jobs);
        Ok(())
    }
}

#[test]
fn one_worker_and_two_make_the_same_tables() {
    let scenarios = [scenario("1s"), scenario("2s")];
    let watches = [Watch::resolve(&scenarios[0], Some(&["*".into()]), Some(&["f1".into()]), Some(200), None).unwrap()];
    let jobs: [Job; 3] = [(10, 0, None), (11, 1, Some(3)), (12, 0, Some(4))];
    let run = |workers| {
        let mut chunked = Vec::new();
        let sweep =
            Sweep { watches: &watches, chunk_interval: Duration::ZERO, ..Sweep::new(&scenarios, &jobs, workers) };
        let report = sweep.run(&mut collect_jobs(&mut chunked)).expect("the sweep runs");
        assert_eq!(report.ran, 3);
        assert_eq!(chunked, [10, 11, 12], "every run is handed over once, in job order");
        report
    };
    let (one, two) = (run(1), run(2));
    assert_eq!(contents(&one.results), contents(&two.results));
    assert_eq!(one.series_truncated, two.series_truncated);
    let rows = one.results.rows();
    let [runs, flows, links, _media, series, trace] = rows;
    assert_eq!((runs, flows), (3, 6));
    assert_eq!(links, 3 * 2 * 3, "three links (two access, one bottleneck), both directions, three runs");
    assert!(series > 0 && trace > 0, "the watched scenario's runs fill the series and trace tables");
    let seeds = &one.results.tables[0].seed;
    assert_eq!(seeds, &[7, 3, 4], "a job without a seed runs with the scenario's");
    assert_eq!(one.results.tables.each_ref().map(|t| t.name), TABLE_NAMES);
}

#[test]
fn an_interrupt_stops_the_sweep_and_keeps_the_finished_runs() {
    // Seconds of runs in all, so that the interrupt comes long before the end.
    let scenarios = [scenario("20s")];
    let jobs: Vec<Job> = (0..1000).map(|j| (j, 0, Some(j + 1))).collect();
    let interrupt = AtomicBool::new(false);
    let mut chunked = Vec::new();
    let mut listener = |c: Chunk| {
        chunked.extend(c.jobs);
        interrupt.store(true, Ordering::Relaxed); // at the first chunk
        Ok::<(), String>(())
    };
    let sweep =
        Sweep { chunk_interval: Duration::ZERO, interrupt: Some(&interrupt), ..Sweep::new(&scenarios, &jobs, 2) };
    let stopped = sweep.run(&mut listener).expect_err("the interrupt stops the sweep");
    assert!(matches!(stopped.failure, Failure::Interrupted), "{}", stopped.failure);
    let kept = &stopped.report.results.jobs;
    assert!(!kept.is_empty() && kept.len() < jobs.len(), "{} of {} runs finished", kept.len(), jobs.len());
    assert_eq!(stopped.report.ran, kept.len());
    assert_eq!(&chunked, kept, "the listener was handed every finished run, in job order");
    assert!(kept.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(stopped.report.results.rows()[0], kept.len());
}

#[test]
fn a_failed_run_names_its_job_and_seed_after_the_runs_before_it_are_handed_over() {
    let scenarios = [scenario("1s")];
    let jobs: Vec<Job> = (0..4).map(|j| (100 + j, 0, (j != 2).then_some(j))).collect();
    let mut chunked = Vec::new();
    let sweep = Sweep { fail_job: Some(102), ..Sweep::new(&scenarios, &jobs, 1) };
    let stopped = sweep.run(&mut collect_jobs(&mut chunked)).expect_err("job 102 panics");
    match &stopped.failure {
        Failure::Run { job, seed, message } => {
            assert_eq!((*job, *seed), (102, 7));
            assert!(message.contains("deliberate failure of job 102"), "{message}");
        }
        f => panic!("{f}"),
    }
    assert_eq!(chunked, [100, 101]);
}

#[test]
fn no_worker_or_an_unknown_scenario_is_refused_before_anything_runs() {
    let scenarios = [scenario("1s")];
    let mut never = |_: Chunk| -> Result<(), String> { panic!("nothing runs") };
    let stopped = Sweep::new(&scenarios, &[(0, 1, None)], 1).run(&mut never).unwrap_err();
    assert_eq!(stopped.failure.to_string(), "job 0 names scenario 1, but there are 1 scenarios");
    let stopped = Sweep::new(&scenarios, &[(0, 0, None)], 0).run(&mut never).unwrap_err();
    assert_eq!(stopped.failure.to_string(), "workers must be at least 1, got 0");
    assert_eq!(stopped.report.ran, 0);
}

#[test]
fn unknown_names_to_watch_are_scenario_errors_at_their_key() {
    let s = scenario("1s");
    let e = Watch::resolve(&s, Some(&["nosuch".into()]), None, None, None).unwrap_err();
    assert_eq!(e.path, "series");
    let e = Watch::resolve(&s, None, Some(&["bottleneck".into()]), None, None).unwrap_err();
    assert_eq!(e.path, "trace", "a link has no packet trace");
    assert!(Watch::resolve(&s, None, None, None, None).unwrap().is_empty());
    let e = Watch::resolve(&s, Some(&["*".into()]), None, None, Some(&["window".into()])).unwrap_err();
    assert_eq!(e.path, "series_variables");
    assert!(e.message.starts_with("no variable named \"window\""), "{}", e.message);
}

#[test]
fn a_sweep_that_keeps_nothing_hands_each_chunk_its_rows_and_returns_none() {
    let scenarios = [scenario("1s")];
    let jobs: Vec<Job> = (0..6).map(|j| (j, 0, Some(j + 1))).collect();
    let kept = Sweep::new(&scenarios, &jobs, 2).run(&mut |_: Chunk| Ok::<(), String>(())).expect("the sweep runs");
    let no_keep =
        |interval| Sweep { parts: true, keep: false, chunk_interval: interval, ..Sweep::new(&scenarios, &jobs, 2) };

    // Chunks an hour apart: one at the end (and, if the sweep lasts long
    // enough for it, a few more toward its end, pace::chunk_due). One after
    // another they carry exactly the rows a kept sweep returns.
    let mut parts = Vec::new();
    let report = no_keep(Duration::from_secs(3600))
        .run(&mut |c: Chunk| {
            let part = c.part.expect("a sweep with parts hands over rows");
            assert_eq!(part.jobs, c.jobs);
            parts.push(part);
            Ok::<(), String>(())
        })
        .expect("the sweep runs");
    assert_eq!(report.ran, 6);
    assert!(report.results.jobs.is_empty(), "nothing kept for the report");
    assert_eq!(report.results.rows(), [0; TABLE_NAMES.len()]);
    assert_eq!(contents(&concat(parts)), contents(&kept.results));

    // A chunk as often as possible: every run's rows are handed over once, in job order.
    let (mut rows, mut handed) = ([0; TABLE_NAMES.len()], Vec::new());
    no_keep(Duration::ZERO)
        .run(&mut |c: Chunk| {
            let part = c.part.expect("a sweep with parts hands over rows");
            assert_eq!(part.jobs, c.jobs);
            assert_eq!(part.tables[0].job, c.jobs, "one runs row per job, in job order");
            for (sum, n) in rows.iter_mut().zip(part.rows()) {
                *sum += n;
            }
            handed.extend(c.jobs);
            Ok::<(), String>(())
        })
        .expect("the sweep runs");
    assert_eq!(handed, (0..6).collect::<Vec<u64>>());
    assert_eq!(rows, kept.results.rows());
}

/// The chunks of a stored sweep of `runs` runs of 20 s with chunks an hour
/// apart and at most `max_chunk_rows` rows each, `size(chunk)` each. (The
/// coordinator looks at the workers' rows whenever one finishes a block
/// and every 20 ms: the sweep lasts a good many of those.)
fn chunks_an_hour_apart(runs: u64, max_chunk_rows: usize, size: impl Fn(&Chunk) -> usize) -> Vec<usize> {
    let scenarios = [scenario("20s")];
    let jobs: Vec<Job> = (0..runs).map(|j| (j, 0, Some(j + 1))).collect();
    let sweep = Sweep {
        parts: true,
        keep: false,
        max_chunk_rows,
        chunk_interval: Duration::from_secs(3600),
        ..Sweep::new(&scenarios, &jobs, 2)
    };
    let mut sizes = Vec::new();
    sweep
        .run(&mut |c: Chunk| {
            sizes.push(size(&c));
            Ok::<(), String>(())
        })
        .expect("the sweep runs");
    sizes
}

#[test]
fn a_stored_sweeps_chunk_is_handed_over_once_it_holds_enough_rows() {
    // At most 20 rows a chunk: a sweep of many short runs holds about a
    // chunk's rows in memory, not ten seconds' worth.
    let sizes = chunks_an_hour_apart(300, 20, |c| c.part.as_ref().expect("rows").rows().iter().sum());
    assert_eq!(sizes.iter().sum::<usize>(), 300 * 9, "one runs row, two flows and six links a run");
    // The first long before half the runs are done, which is as early as
    // the end's shrinking chunks begin.
    assert!(sizes[0] < 300 * 9 / 4, "chunks of {sizes:?} rows");
}

#[test]
fn a_stored_sweeps_chunks_shrink_toward_its_end() {
    // No row limit: only the end's rule hands a chunk over before the
    // workers are done, once it has waited as long as the sweep has left
    // (pace::chunk_due). The sweep lasts some hundreds of ms (about 0.4 s
    // here), many times the shortest chunk (20 ms), also on a faster machine.
    let sizes = chunks_an_hour_apart(600, usize::MAX, |c| c.jobs.len());
    assert_eq!(sizes.iter().sum::<usize>(), 600);
    assert!(sizes.len() >= 3, "chunks of {sizes:?} runs");
    assert!(sizes[0] >= 200, "the first chunk comes about half way: {sizes:?}");
    assert!(sizes.last() < sizes.first(), "{sizes:?}");
}

#[test]
fn an_interrupted_sweep_that_keeps_nothing_has_handed_over_the_rows_of_every_finished_run() {
    let scenarios = [scenario("20s")];
    let jobs: Vec<Job> = (0..1000).map(|j| (j, 0, Some(j + 1))).collect();
    let interrupt = AtomicBool::new(false);
    let (mut handed, mut runs_rows) = (Vec::new(), 0);
    let mut listener = |c: Chunk| {
        let part = c.part.expect("a sweep with parts hands over rows");
        assert_eq!(part.tables[0].job, c.jobs, "one runs row per job handed over");
        runs_rows += part.rows()[0];
        handed.extend(c.jobs);
        interrupt.store(true, Ordering::Relaxed); // at the first chunk
        Ok::<(), String>(())
    };
    let sweep = Sweep {
        parts: true,
        keep: false,
        chunk_interval: Duration::ZERO,
        interrupt: Some(&interrupt),
        ..Sweep::new(&scenarios, &jobs, 2)
    };
    let stopped = sweep.run(&mut listener).expect_err("the interrupt stops the sweep");
    assert!(matches!(stopped.failure, Failure::Interrupted), "{}", stopped.failure);
    assert!(!handed.is_empty() && handed.len() < jobs.len(), "{} of {} runs handed over", handed.len(), jobs.len());
    assert_eq!(stopped.report.ran, handed.len(), "every finished run was handed over, with its rows");
    assert_eq!(runs_rows, handed.len());
    assert!(handed.windows(2).all(|w| w[0] < w[1]));
    assert!(stopped.report.results.jobs.is_empty(), "nothing kept for the report");
}
