//! The exported jobs: the trace's jobs loaded ([`crate::load`]) and selected
//! ([`crate::select`]) exactly as `tracelab simulate` replays them, each
//! joined with its trace facts ([`super::detail`]), in submission order (ties
//! by trace id). For `pai-sim` the predicted durations are computed here,
//! from the whole trace's history before the selection drops anything.

use std::collections::HashMap;

use tracelab_schema::error::{Error, Result};
use tracelab_schema::Trace;
use tracelab_sim::csv::Interner;
use tracelab_sim::Millis;
use tracelab_store::Store;

use super::detail::{self, Detail};
use super::history::{self, Finished, Keys, Predicted};
use crate::load::{self, LeftOut, Loaded, Names, TraceJob, TraceSel};
use crate::select::{self, Selection};

/// One exported job.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportJob {
    /// The trace's id (PAI `job_name/task_name`, Helios `Cluster/job_id`).
    pub trace_id: String,
    /// Submission, milliseconds after the window start.
    pub submit: Millis,
    /// Run time replayed, milliseconds.
    pub duration: Millis,
    /// GPU demand in milli-GPUs (PAI: `inst_num x plan_gpu x 10`).
    pub gpu_milli: u32,
    pub user: String,
    pub group: String,
    /// The replay's VC (Helios: `Cluster/vc`, so that clusters stay apart).
    pub vc: String,
    pub detail: Detail,
}

/// The selection, ready for a writer.
#[derive(Clone, Debug)]
pub struct Selected {
    pub trace: Trace,
    pub source: String,
    pub unit: String,
    pub rows: u64,
    /// Window start and (exclusive) end, epoch milliseconds.
    pub origin: Millis,
    pub end: Option<Millis>,
    pub jobs: Vec<ExportJob>,
    pub left_out: LeftOut,
    /// `pai-sim` only: one prediction per job, in job order.
    pub predicted: Vec<Predicted>,
}

/// Loads and selects the jobs; `with_history` computes the predictions.
pub fn select(store: &Store, trace: &TraceSel, selection: &Selection, with_history: bool) -> Result<Selected> {
    let loaded = load::load(store, trace, false)?;
    if loaded.jobs.is_empty() {
        return Err(nothing_to_export(trace, &loaded));
    }
    let mut details = detail::read(store, trace)?;
    let mut gpu_types = Interner::default();
    let pool = if with_history { finished(&loaded.jobs, &details, &mut gpu_types) } else { Vec::new() };
    let Loaded { source, unit, rows, jobs, names, left_out } = loaded;
    let chosen = select::select(jobs, selection)?;
    let mut left = left_out;
    for (r, n) in chosen.left_out.0 {
        left.add(r, n);
    }
    let predicted = if with_history {
        let queries: Vec<(Millis, Keys)> = chosen
            .jobs
            .iter()
            .map(|j| (chosen.origin + j.job.submit, keys(j, details.get(&j.job_id), &mut gpu_types)))
            .collect();
        history::predict(&pool, &queries)
    } else {
        Vec::new()
    };
    let jobs: Vec<ExportJob> = chosen.jobs.into_iter().map(|j| join(j, &names, &mut details)).collect::<Result<_>>()?;
    Ok(Selected {
        trace: trace.trace,
        source,
        unit,
        rows,
        origin: chosen.origin,
        end: chosen.end,
        jobs,
        left_out: left,
        predicted,
    })
}

/// The usage error for a trace none of whose rows can be exported.
fn nothing_to_export(trace: &TraceSel, loaded: &Loaded) -> Error {
    let why: Vec<String> = loaded.left_out.0.iter().map(|(r, n)| format!("{n} {r}")).collect();
    let why = if why.is_empty() { "it has no jobs".to_string() } else { why.join(", ") };
    Error::Usage(format!("--trace {}: no job can be exported: of {} rows, {why}", trace.label(), loaded.rows))
}

fn join(j: TraceJob, names: &Names, details: &mut HashMap<String, Detail>) -> Result<ExportJob> {
    let detail = details.remove(&j.job_id).ok_or_else(|| {
        Error::input("store", format!("job {} was loaded but its status and times are missing", j.job_id))
    })?;
    let name = |i: &Interner, id: u32| i.names.get(id as usize).cloned().unwrap_or_default();
    Ok(ExportJob {
        user: name(&names.users, j.job.user),
        group: name(&names.groups, j.job.group),
        vc: name(&names.vcs, j.job.vc),
        trace_id: j.job_id,
        submit: j.job.submit,
        duration: j.job.duration,
        gpu_milli: j.job.gpu_milli,
        detail,
    })
}

/// The history pool: every loaded job whose end the trace records.
fn finished(jobs: &[TraceJob], details: &HashMap<String, Detail>, gpu_types: &mut Interner) -> Vec<Finished> {
    jobs.iter()
        .filter_map(|j| {
            let d = details.get(&j.job_id)?;
            Some(Finished { end: d.end?, duration: j.job.duration, keys: keys(j, Some(d), gpu_types) })
        })
        .collect()
}

/// A job's history keys: its user, group and (PAI) assigned GPU type.
fn keys(j: &TraceJob, d: Option<&Detail>, gpu_types: &mut Interner) -> Keys {
    let gpu = gpu_types.id(d.and_then(|d| d.gpu_type.as_deref()).unwrap_or(""));
    Keys { user: j.job.user, group: j.job.group, gpu }
}
