//! Finished runs as the tables of a sweep: `runs` (one row per run),
//! `flows`, `links`, `media`, and `series` and `trace` (empty unless the
//! runs observed flows or links), each row with its job and seed.

use std::ops::Range;

use dupack_sim::{Observed, RunResult, Scenario};

use crate::columns::{self, Table};
use crate::observed::{trace_rows, SeriesRow, TraceRow};

/// The number of tables in [`Results`].
pub const TABLES: usize = 6;

/// The tables, in the order [`Results::tables`] holds them.
pub const TABLE_NAMES: [&str; TABLES] = ["runs", "flows", "links", "media", "series", "trace"];

/// Finished runs as tables; rows in the order the runs were added.
#[derive(Debug)]
pub struct Results {
    /// The runs' jobs, in order.
    pub jobs: Vec<u64>,
    /// One per name in [`TABLE_NAMES`], in that order.
    pub tables: [Rows; TABLES],
}

/// One table: each row's job and seed beside the columns of its struct.
#[derive(Debug)]
pub struct Rows {
    pub name: &'static str,
    pub job: Vec<u64>,
    pub seed: Vec<u64>,
    pub table: Table,
}

impl Rows {
    fn new(name: &'static str) -> Rows {
        Rows { name, job: Vec::new(), seed: Vec::new(), table: Table::default() }
    }

    fn append_rows(&mut self, other: &Rows, rows: Range<usize>) -> Result<(), columns::Error> {
        self.job.extend_from_slice(&other.job[rows.clone()]);
        self.seed.extend_from_slice(&other.seed[rows.clone()]);
        self.table.append_rows(&other.table, rows)
    }

    /// Append `rows`, each with its job and seed, through `push`:
    /// [`Table::push_row`] for a result struct, [`Table::push`] (serde)
    /// for the other rows.
    fn add<T>(
        &mut self,
        job: u64,
        seed: u64,
        rows: &[T],
        push: impl Fn(&mut Table, &T) -> Result<(), columns::Error>,
    ) -> Result<(), columns::Error> {
        for row in rows {
            self.job.push(job);
            self.seed.push(seed);
            push(&mut self.table, row)?;
        }
        Ok(())
    }

    fn copy_from_row(&self, from: usize) -> Rows {
        Rows {
            name: self.name,
            job: self.job[from..].to_vec(),
            seed: self.seed[from..].to_vec(),
            table: self.table.copy_from_row(from),
        }
    }
}

impl Default for Results {
    fn default() -> Results {
        Results { jobs: Vec::new(), tables: TABLE_NAMES.map(Rows::new) }
    }
}

impl Results {
    /// Rows so far, per table.
    pub fn rows(&self) -> [usize; TABLES] {
        self.tables.each_ref().map(|t| t.table.rows)
    }

    /// Append one run's rows: its result, and what it observed in `scenario`.
    pub fn add(
        &mut self,
        job: u64,
        r: &RunResult,
        observed: Option<(&Scenario, &Observed)>,
    ) -> Result<(), columns::Error> {
        let [run, flows, links, media, series, trace] = &mut self.tables;
        run.add(job, r.seed, std::slice::from_ref(&r.run), Table::push_row)?;
        flows.add(job, r.seed, &r.flows, Table::push_row)?;
        links.add(job, r.seed, &r.links, Table::push_row)?;
        media.add(job, r.seed, &r.media, Table::push_row)?;
        if let Some((scenario, o)) = observed {
            if let Some(s) = &o.series {
                for (at, entity, variable, value) in s.rows() {
                    let row = SeriesRow { time_s: at.as_secs_f64(), entity, variable, value };
                    series.add(job, r.seed, &[row], Table::push)?;
                }
            }
            for rec in &o.trace {
                for (at, flow, kind, seq, len) in trace_rows(rec) {
                    let flow = scenario.flows[flow as usize].name.as_str();
                    let row = TraceRow { time_s: at.as_secs_f64(), time_ns: at.as_nanos(), flow, kind, seq, len };
                    trace.add(job, r.seed, &[row], Table::push)?;
                }
            }
        }
        self.jobs.push(job);
        Ok(())
    }

    /// Append runs `runs` of `other`, whose rows are `start[t]..end[t]` in table `t`.
    pub(crate) fn append_runs(
        &mut self,
        other: &Results,
        runs: Range<usize>,
        start: [usize; TABLES],
        end: [usize; TABLES],
    ) -> Result<(), columns::Error> {
        for (i, (t, o)) in self.tables.iter_mut().zip(&other.tables).enumerate() {
            t.append_rows(o, start[i]..end[i])?;
        }
        self.jobs.extend_from_slice(&other.jobs[runs]);
        Ok(())
    }

    /// Room for `runs` more runs like the average of those held (none
    /// held: nothing reserved), so that a sweep that keeps every row
    /// (`Sweep::keep`) fills its columns without growing them: growing by
    /// doubling copies every row again and touches twice the memory.
    pub(crate) fn reserve_runs(&mut self, runs: usize) {
        let held = self.jobs.len();
        if held == 0 {
            return;
        }
        self.jobs.reserve(runs);
        for t in &mut self.tables {
            let rows = (t.table.rows * runs).div_ceil(held);
            t.job.reserve(rows);
            t.seed.reserve(rows);
            t.table.reserve(rows);
        }
    }

    /// No runs; the columns keep their memory.
    pub(crate) fn clear(&mut self) {
        self.jobs.clear();
        for t in &mut self.tables {
            t.job.clear();
            t.seed.clear();
            t.table.clear();
        }
    }

    /// A copy of what was added after `self` had `jobs` runs and `rows` rows.
    pub(crate) fn copy_since(&self, jobs: usize, rows: [usize; TABLES]) -> Results {
        Results {
            jobs: self.jobs[jobs..].to_vec(),
            tables: std::array::from_fn(|i| self.tables[i].copy_from_row(rows[i])),
        }
    }
}
