//! Shanghai AI Lab AcmeTrace (NSDI'24 "Characterization of Large Language
//! Model Development in the Datacenter"): the owners' `analysis.ipynb`
//! figures over `acme/jobs` (Seren and Kalos), and their
//! `cluster_summary.csv` with the Philly, Helios and PAI rows computed from
//! the store, which their repository cannot (it reads prior-work files it
//! leaves out).
//!
//! One file per analysis id (`acme.type-mix` is `type_mix.rs`). Shared
//! here: the cluster and type orders, the `cluster` parameter, the job
//! scan, the workload type (the files' `Eval`, or the README's
//! `Evaluation`, counted as `Eval`), the notebook's fixed CDF grids and
//! the state groups. Durations are the raw `duration` column, as the
//! notebook reads it (Kalos': end - submit), unless a parameter says
//! otherwise.

pub mod cluster_summary;
pub mod duration_queue;
pub mod final_status;
pub mod gpu_demand;
pub mod type_mix;
pub mod vs_prior;

#[cfg(test)]
mod tests;

use polars::prelude::*;

use crate::frame::{collect, strs};
use crate::params::{choice, Param};
use crate::Ctx;
use tracelab_schema as schema;
use tracelab_schema::error::{Error, Result};

/// The clusters in the owners' order (the summary CSV's rows, the figures).
pub const CLUSTERS: [&str; 2] = ["Seren", "Kalos"];
/// The workload types in the notebook's order (`job_type` lists).
pub const TYPES: [&str; 6] = ["Eval", "Pretrain", "SFT", "MLLM", "Debug", "Other"];

choice! {
    /// Which clusters' series to emit.
    pub enum Clusters { All = "all", Seren = "Seren", Kalos = "Kalos" }
}

/// The `cluster` parameter.
pub const CLUSTER: Param<Clusters> = Param::choice("cluster", "all", "Which cluster: all, Seren or Kalos.");

choice! {
    /// Which duration a view reads.
    pub enum Duration {
        /// The raw `duration` column, as the owners' notebook (Kalos: end - submit).
        Raw = "raw",
        /// end_time - start_time for both clusters.
        StartEnd = "start-end",
    }
}

pub const DURATION: Param<Duration> = Param::choice(
    "duration",
    "raw",
    "raw: the duration column as the notebook reads it (Kalos' is end - submit, queueing included); start-end: end_time - start_time in both clusters",
);

/// The AcmeTrace jobs table, with `kind` = the workload type as the
/// notebook names it (`Evaluation` read as `Eval`).
pub fn jobs(ctx: &Ctx) -> Result<LazyFrame> {
    let kind = when(col("job_type").eq(lit("Evaluation"))).then(lit("Eval")).otherwise(col("job_type"));
    Ok(ctx.store.scan(&schema::acme::JOBS)?.with_column(kind.alias("kind")))
}

/// The duration expression a view reads, in seconds.
pub fn duration(which: Duration) -> Expr {
    match which {
        Duration::Raw => col("run_s"),
        Duration::StartEnd => crate::frame::seconds_between(col("end_time"), col("start_time")),
    }
}

/// What the chosen duration is, for definitions.
pub fn duration_text(which: Duration) -> &'static str {
    match which {
        Duration::Raw => "duration = the raw `duration` column as the owners' notebook reads it (Seren: end - start; Kalos: end - submit, queueing included)",
        Duration::StartEnd => "duration = end_time - start_time in both clusters (the README's definition; the notebook's raw column differs in Kalos)",
    }
}

/// Clusters present, in [`CLUSTERS`] order, or the one chosen (which must be present).
pub fn selected_clusters(ctx: &Ctx, which: Clusters) -> Result<Vec<String>> {
    let df = collect(jobs(ctx)?.select([col("cluster")]).unique(None, UniqueKeepStrategy::Any), "acme clusters")?;
    let mut found: Vec<String> = strs(&df, "cluster")?.into_iter().flatten().collect();
    found.sort_by_key(|c| (CLUSTERS.iter().position(|k| k == c).unwrap_or(CLUSTERS.len()), c.clone()));
    if which == Clusters::All {
        return Ok(found);
    }
    let one = which.name().to_string();
    if !found.contains(&one) {
        return Err(Error::Usage(format!("cluster {one} is not in the store (present: {})", found.join(", "))));
    }
    Ok(vec![one])
}

/// `state` in the owners' failed group (FAILED, TIMEOUT, NODE_FAIL: README note 1).
pub fn is_failed() -> Expr {
    let s = || col("state");
    s().eq(lit("FAILED")).or(s().eq(lit("TIMEOUT"))).or(s().eq(lit("NODE_FAIL")))
}

/// The notebook's duration grid: 2^i s, i = 0..21.
pub fn duration_grid() -> Vec<f64> {
    (0..22).map(|i| f64::from(1u32 << i)).collect()
}

/// The notebook's queueing grid: 2^i s, i = 0..15.
pub fn queue_grid() -> Vec<f64> {
    (0..16).map(|i| f64::from(1u32 << i)).collect()
}

/// The notebook's `calculate_num_cdf_customized_xaxis`: (x, 100 * share <= x).
pub fn grid_cdf(d: &tracelab_stats::Dist, grid: &[f64]) -> Vec<(f64, f64)> {
    grid.iter().map(|&t| (t, 100.0 * d.share_at_most(t))).collect()
}

/// Percent share, NaN when the total is zero.
pub fn pct(part: f64, total: f64) -> f64 {
    if total > 0.0 {
        100.0 * part / total
    } else {
        f64::NAN
    }
}
