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
pub mod online;
pub mod options;
pub mod pollux;
pub mod prepare;
pub mod results;
pub mod run;
pub mod select;
pub mod sharing_views;
pub mod views;

pub use cluster::ClusterSpec;
pub use load::{LeftOut, LeftReason, TraceSel};
pub use prepare::{prepare, Prepared, Request, Source};
pub use results::Digest;
pub use run::{plan, plan_choices, run_all, run_all_with, Choice, CustomRef, Run, RunSpec};
pub use select::{Selection, Window};
/// Every simulation view (the GPU-sharing ones, then the elastic ones
/// last), for report specs.
pub fn views() -> Vec<&'static tracelab_analysis::Analysis> {
    views::VIEWS.iter().chain(sharing_views::VIEWS.iter()).chain(pollux::views::views()).collect()
}

/// The simulation view with this id.
pub fn find(id: &str) -> Option<&'static tracelab_analysis::Analysis> {
    views().into_iter().find(|a| a.id == id)
}

use tracelab_analysis::Output;

/// The replay's record as an [`Output`]: what was read, selected and run
/// on, the per-run summary, the accounting of every source row and the
/// cluster. `id` names the output (`simulate`, or a view's id).
pub fn output(id: &str, p: &Prepared, runs: &[Digest]) -> Output {
    let mut out = Output::new(id, &format!("Replay of {}", p.source), definition(p, runs));
    out.table("summary", results::summary_table(runs));
    if let Some(t) = results::sharing_table(runs) {
        out.table("sharing", t);
    }
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
         Jain's index over users of each user's mean slowdown.{} Engine semantics: docs/simulate.md.",
        p.source,
        p.unit,
        select::describe(p.origin, p.end),
        p.workload.jobs.len() - p.online_services as usize,
        p.rows,
        p.cluster.notes.join("; "),
        p.cluster.total_gpus(),
        disciplines.join(", "),
        sharing_definition(p, runs)
    )
}

fn sharing_definition(p: &Prepared, runs: &[Digest]) -> String {
    let mut text = String::new();
    if p.online_services > 0 {
        text = format!(
            " Added: {} online services of one GPU each, from the window start until the last job would end if it \
             started on submission (docs/sharing.md).",
            p.online_services
        );
    }
    if runs.iter().any(|r| r.sharing.is_some()) {
        text.push_str(SHARING_DEFINITION);
    }
    text
}

/// The definitions of part `sharing` (`tracelab_sim::metrics::sharing`).
const SHARING_DEFINITION: &str =
    " Part sharing (docs/sharing.md): GPU-allocated utilization = GPU-time occupied by at \
least one job / (all GPUs x window); GPU-used utilization = useful GPU-busy time (each job's utilization at its \
progress rate, an online service its load, at most 1 per GPU) / (all GPUs x window); GPUs saved = time-weighted mean \
of the GPUs the running jobs would hold alone minus the GPUs they occupy; oversold GPUs = time-weighted mean number of \
GPUs hosting an online service and offline work together (MuxFlow); offline JCT, wait and slowdown over done offline \
jobs; online slowdown = each service's time-weighted mean latency slowdown (p99 over services, max over time); a \
violation is a service whose slowdown ever exceeded the bound, the violation share the online running time beyond it.";
