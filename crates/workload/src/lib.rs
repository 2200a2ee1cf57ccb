//! tracelab-workload: the glue between an ingested trace and the simulator
//! engine (`tracelab-sim`). It turns a trace's jobs (or a CSV job list) into
//! an engine workload ([`load`], [`select`], [`prepare`]), builds the cluster
//! ([`cluster`]), runs one replay per policy x placement x load ([`run`],
//! [`merge`]) and returns the results as typed outputs ([`results`],
//! [`views`]) that the CLI prints and the report plots.
//!
//! Layer 3: reads the store through `tracelab_store`, never prints, never
//! reads argv. Semantics and definitions: `docs/simulate.md`.

pub mod catalog;
pub mod cluster;
pub mod export;
pub mod load;
pub mod merge;
pub mod prepare;
pub mod results;
pub mod run;
pub mod select;
pub mod views;

pub use cluster::ClusterSpec;
pub use load::{LeftOut, LeftReason, TraceSel};
pub use prepare::{prepare, Prepared, Request, Source};
pub use results::Digest;
pub use run::{plan, run_all, Run, RunSpec};
pub use select::{Selection, Window};
pub use views::{find, views};

use tracelab_analysis::Output;

/// The replay's record as an [`Output`]: what was read, selected and run
/// on, the per-run summary, the accounting of every source row and the
/// cluster. `id` names the output (`simulate`, or a view's id).
pub fn output(id: &str, p: &Prepared, runs: &[Digest]) -> Output {
    let mut out = Output::new(id, &format!("Replay of {}", p.source), definition(p, runs));
    out.table("summary", results::summary_table(runs));
    out.table("left-out", results::accounting_table(p));
    out.table("cluster", results::cluster_table(p));
    out
}

/// The definition printed with every result: the unit, window, cluster and
/// metric definitions, enough to recompute the numbers from the per-job table.
pub fn definition(p: &Prepared, runs: &[Digest]) -> String {
    let disciplines: Vec<&str> = {
        let mut d: Vec<&str> = runs.iter().map(|r| r.summary.config.discipline.name()).collect();
        d.dedup();
        d
    };
    format!(
        "Source: {}. One job = {}. Window {} (times are seconds from its start). {} of {} rows replayed; the others are \
         counted by reason in part left-out. Cluster: {} ({} GPUs). Discipline: {}. Per run, over done jobs: JCT = end - \
         submit; wait = all time queued (submission to first start plus every wait after a preemption); bounded slowdown \
         = max(1, JCT / max(duration, 10 s)); percentiles linear between closest ranks (numpy's default); makespan = last \
         end - first submission; GPU utilisation = allocated GPU-time / (all GPUs x (last event - first submission)); \
         Jain's index over users of each user's mean slowdown. Engine semantics: docs/simulate.md.",
        p.source,
        p.unit,
        select::describe(p.origin, p.end),
        p.workload.jobs.len(),
        p.rows,
        p.cluster.notes.join("; "),
        p.cluster.total_gpus(),
        disciplines.join(", ")
    )
}
