//! A trace's jobs, read from the store, as candidate engine jobs: one
//! schedulable unit per row with absolute times in milliseconds, its GPU and
//! CPU demand, and interned user, VC, group and GPU-type names. Every row of
//! the source table ends either as a candidate or counted under a
//! [`LeftReason`]; nothing is dropped silently.
//!
//! What the schedulable unit is, per trace (the `jobs` table lacks VC and GPU
//! type, so each trace's own tables are joined):
//! - PAI ([`pai`]): a task (`pai/task` row), as the PAI simulator and its
//!   duration predictor (CART) see the trace;
//! - Philly ([`philly`]): a job with its first attempt's GPUs;
//! - Helios ([`helios`]): a `cluster_log` row;
//! - AcmeTrace ([`acme`]): a job row, in VC Seren or Kalos;
//! - the spot-GPU trace ([`spot`]): a job row, pinned to its GPU model,
//!   with priority class 1 for HP jobs.
//!
//! Must not: choose windows or samples ([`crate::select`]) or build clusters.

pub mod acme;
pub mod helios;
pub mod pai;
pub mod philly;
pub mod spot;

use std::fmt;

use polars::prelude::*;
use serde::Serialize;

use tracelab_analysis::frame;
use tracelab_schema::error::{Error, Result};
use tracelab_schema::Trace;
use tracelab_sim::csv::Interner;
use tracelab_sim::{Job, Millis, Usage};
use tracelab_store::Store;

/// One schedulable unit of a trace, before selection: the trace's id and the
/// engine job, with `submit` in milliseconds since the Unix epoch (replay
/// time once selected) and `id` set when the workload is built.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceJob {
    /// The trace's id (PAI `job_name/task_name`).
    pub job_id: String,
    pub job: Job,
    /// What the trace measured of its GPU use (default: nothing).
    pub usage: Usage,
}

/// Names behind the interned ids.
#[derive(Clone, Debug, Default)]
pub struct Names {
    pub users: Interner,
    pub vcs: Interner,
    pub groups: Interner,
    pub gpu_types: Interner,
}

/// Why a row of the trace is not in the replay.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum LeftReason {
    /// Still running (or waiting) when the trace ended.
    NotFinished,
    /// No submission, start or run time recorded.
    NoDuration,
    /// Asks for no GPU (the engine schedules GPUs only).
    NoGpu,
    /// Submitted outside `--window`.
    OutsideWindow,
    /// Not drawn by `--sample`.
    NotSampled,
    /// Pollux's generator keeps jobs of at least 60 s.
    ShorterThanMinute,
    /// Pollux's generator keeps jobs under 1,000 GPU-hours.
    ThousandGpuHours,
    /// Pollux's generator keeps jobs submitted at hours [start, start +
    /// duration) of the day (trace local time).
    OutsideHours,
    /// Can never run on the chosen cluster; the text says why.
    Unplaceable(String),
}

impl fmt::Display for LeftReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LeftReason::NotFinished => f.write_str("not finished when the trace ended"),
            LeftReason::NoDuration => f.write_str("no submission, start or run time"),
            LeftReason::NoGpu => f.write_str("asks for no GPU"),
            LeftReason::OutsideWindow => f.write_str("submitted outside the window"),
            LeftReason::NotSampled => f.write_str("not drawn by the sample"),
            LeftReason::ShorterThanMinute => f.write_str("shorter than 60 s (Pollux's generator)"),
            LeftReason::ThousandGpuHours => f.write_str("1,000 GPU-hours or more (Pollux's generator)"),
            LeftReason::OutsideHours => f.write_str("submitted outside the generator's hours of the day"),
            LeftReason::Unplaceable(why) => write!(f, "unplaceable on the cluster: {why}"),
        }
    }
}

/// Counts of left-out rows by reason, sorted by reason.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LeftOut(pub Vec<(LeftReason, u64)>);

impl LeftOut {
    pub fn add(&mut self, reason: LeftReason, n: u64) {
        if n == 0 {
            return;
        }
        match self.0.binary_search_by(|(r, _)| r.cmp(&reason)) {
            Ok(i) => self.0[i].1 += n,
            Err(i) => self.0.insert(i, (reason, n)),
        }
    }

    pub fn total(&self) -> u64 {
        self.0.iter().map(|(_, n)| n).sum()
    }

    pub fn count(&self, reason: &LeftReason) -> u64 {
        self.0.iter().find(|(r, _)| r == reason).map_or(0, |(_, n)| *n)
    }
}

/// Which trace (and, for Helios and AcmeTrace, which clusters) to read:
/// `pai`, `philly`, `helios` (all four clusters), `helios:Venus`, `acme`
/// (Seren and Kalos), `acme:Seren` or `spot`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceSel {
    pub trace: Trace,
    pub cluster: Option<String>,
}

impl TraceSel {
    pub fn parse(raw: &str) -> Result<TraceSel> {
        let (name, cluster) = match raw.split_once(':') {
            Some((n, c)) => (n, Some(c.to_string())),
            None => (raw, None),
        };
        let bad = || {
            Error::Usage(format!(
                "--trace {raw}: expected pai, philly, helios or helios:CLUSTER (Earth, Saturn, Uranus, Venus), \
                 acme or acme:CLUSTER (Seren, Kalos), or spot"
            ))
        };
        let trace = Trace::from_name(name).filter(|t| *t != Trace::Swf).ok_or_else(bad)?;
        let clusters: &[&str] = match trace {
            Trace::Helios => &helios::CLUSTERS,
            Trace::Acme => &acme::CLUSTERS,
            _ => &[],
        };
        match &cluster {
            Some(c) if !clusters.contains(&c.as_str()) => Err(bad()),
            _ => Ok(TraceSel { trace, cluster }),
        }
    }

    pub fn label(&self) -> String {
        match &self.cluster {
            Some(c) => format!("{}:{c}", self.trace.name()),
            None => self.trace.name().to_string(),
        }
    }
}

/// A trace's candidate jobs and what was left out while reading it.
#[derive(Clone, Debug, Default)]
pub struct Loaded {
    /// What was read (`pai`, `helios:Venus`, or the CSV file).
    pub source: String,
    /// What one job is, in one sentence (for the output's definition).
    pub unit: String,
    /// Rows of the source table.
    pub rows: u64,
    pub jobs: Vec<TraceJob>,
    pub names: Names,
    pub left_out: LeftOut,
}

/// Reads the selected trace's jobs from the store; with `usage`, also
/// their measured GPU use where the trace has it (PAI's sensor, Philly's
/// GPU utilization; `crate::load::pai`, `crate::load::philly`).
pub fn load(store: &Store, sel: &TraceSel, usage: bool) -> Result<Loaded> {
    let mut loaded = match sel.trace {
        Trace::Pai => pai::load(store, usage)?,
        Trace::Philly => philly::load(store, usage)?,
        Trace::Helios => helios::load(store, sel.cluster.as_deref())?,
        Trace::Acme => acme::load(store, sel.cluster.as_deref())?,
        Trace::Spot => spot::load(store)?,
        Trace::Swf => return Err(Error::Usage("--trace swf: SWF logs are not a source of simulate or export".into())),
    };
    loaded.source = sel.label();
    debug_assert_eq!(loaded.rows, loaded.jobs.len() as u64 + loaded.left_out.total());
    Ok(loaded)
}

/// Seconds (f64) to milliseconds, rounded; `None` for null or non-finite.
pub(crate) fn ms(secs: Option<f64>) -> Option<Millis> {
    secs.filter(|s| s.is_finite()).map(tracelab_sim::time::from_secs)
}

/// The columns every trace reader extracts, already renamed: `job_id`,
/// `submit_s` (epoch seconds), `run_s`, `gpus`, `cpus`, `user`, `vc`,
/// `group`, `gpu_type`, `finished` (bool), and optionally `priority` (the
/// class, 0 when absent); and the measured usage of each row, if any
/// (`usage[i]` of row i).
pub(crate) fn candidates(
    df: &DataFrame,
    names: &mut Names,
    what: &str,
    usage: Option<&[Usage]>,
) -> Result<(Vec<TraceJob>, LeftOut)> {
    let col_err = |e: PolarsError| Error::polars(what.to_string(), e);
    let ids = frame::strs(df, "job_id")?;
    let submit = frame::f64s(df, "submit_s")?;
    let run = frame::f64s(df, "run_s")?;
    let gpus = frame::f64s(df, "gpus")?;
    let cpus = frame::f64s(df, "cpus")?;
    let (users, vcs, groups, types) =
        (frame::strs(df, "user")?, frame::strs(df, "vc")?, frame::strs(df, "group")?, frame::strs(df, "gpu_type")?);
    let finished: Vec<Option<bool>> =
        df.column("finished").and_then(|c| c.bool().cloned()).map_err(col_err)?.iter().collect();
    let priority = if df.column("priority").is_ok() { frame::i64s(df, "priority")? } else { vec![None; df.height()] };
    let mut jobs = Vec::with_capacity(df.height());
    let mut left = LeftOut::default();
    for i in 0..df.height() {
        let reason = if finished[i] != Some(true) {
            Some(LeftReason::NotFinished)
        } else if ms(submit[i]).is_none() || ms(run[i]).is_none_or(|d| d < 0) {
            Some(LeftReason::NoDuration)
        } else if gpus[i].is_none_or(|g| !(g * 1000.0).round().is_finite() || (g * 1000.0).round() < 1.0) {
            Some(LeftReason::NoGpu)
        } else {
            None
        };
        if let Some(r) = reason {
            left.add(r, 1);
            continue;
        }
        let name = |v: &Option<String>| v.clone().unwrap_or_default();
        let gpu_type = match types[i].as_deref().filter(|t| !t.is_empty()) {
            Some(t) => Some(
                names
                    .gpu_types
                    .gpu_type(t)
                    .map_err(|e| Error::input(what.to_string(), format!("job {}: {e}", name(&ids[i]))))?,
            ),
            None => None,
        };
        let job = Job {
            id: 0,
            submit: ms(submit[i]).unwrap_or_default(),
            duration: ms(run[i]).unwrap_or_default(),
            gpu_milli: milli(gpus[i].unwrap_or_default()),
            cpu_milli: cpus[i].filter(|c| c.is_finite() && *c >= 0.0).map(milli),
            user: names.users.id(&name(&users[i])),
            vc: names.vcs.id(&name(&vcs[i])),
            group: names.groups.id(&name(&groups[i])),
            gpu_type,
            priority: priority[i].map_or(0, |p| p.clamp(0, u8::MAX as i64) as u8),
        };
        let usage = usage.map_or(Usage::default(), |u| u[i]);
        jobs.push(TraceJob { job_id: name(&ids[i]), job, usage });
    }
    Ok((jobs, left))
}

/// Units (GPUs, cores) to milli-units, saturating at `u32::MAX`.
fn milli(units: f64) -> u32 {
    (units * 1000.0).round().clamp(0.0, u32::MAX as f64) as u32
}

/// Epoch seconds of a UTC timestamp column, as f64.
pub(crate) fn epoch_s(name: &str) -> Expr {
    col(name).dt().timestamp(TimeUnit::Microseconds).cast(DataType::Float64) / lit(1e6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_names_parse_and_bad_ones_say_what_is_expected() {
        assert_eq!(TraceSel::parse("pai").unwrap(), TraceSel { trace: Trace::Pai, cluster: None });
        let venus = TraceSel::parse("helios:Venus").unwrap();
        assert_eq!((venus.trace, venus.cluster.as_deref()), (Trace::Helios, Some("Venus")));
        let seren = TraceSel::parse("acme:Seren").unwrap();
        assert_eq!((seren.trace, seren.cluster.as_deref()), (Trace::Acme, Some("Seren")));
        assert_eq!(TraceSel::parse("spot").unwrap().trace, Trace::Spot);
        for bad in ["pia", "philly:Venus", "helios:Mars", "", "acme:Venus", "spot:A10", "swf"] {
            let e = TraceSel::parse(bad).unwrap_err();
            assert_eq!(e.exit_code(), 2);
            assert!(e.to_string().contains("expected pai, philly, helios"), "{e}");
        }
    }

    #[test]
    fn left_out_counts_merge_by_reason_in_order() {
        let mut l = LeftOut::default();
        l.add(LeftReason::NoGpu, 2);
        l.add(LeftReason::NotFinished, 1);
        l.add(LeftReason::NoGpu, 3);
        l.add(LeftReason::NotSampled, 0);
        assert_eq!(l.0, vec![(LeftReason::NotFinished, 1), (LeftReason::NoGpu, 5)]);
        assert_eq!(l.total(), 6);
    }
}
