//! Cross-trace views over the unified `jobs` table: one series per trace
//! (`pai`, `philly`, `helios`) and one per Helios cluster (`helios/Venus`,
//! ...), so the traces plot side by side. No anchor has these in one place;
//! each view states every trace's own definition of the quantity it plots.
//!
//! Themes: [`dists`] (runtime, queueing, wait share, GPUs per job: CDFs with
//! a P50/P90/P99 table), [`shares`] (final status, per-user concentration),
//! [`diurnal`] (submissions by local hour of day).

mod dists;
mod diurnal;
mod shares;

use polars::prelude::*;

use super::frame::{collect, strs};
use super::{Analysis, Args, Ctx, Param};
use crate::error::Result;
use crate::schema::unified::JOBS;

/// Every trace's queueing and runtime definitions (docs/schema.md, unified
/// `jobs`), quoted in each view's definition.
pub const TRACE_DEFINITIONS: &str = "Per trace (unified jobs table): PAI queue = earliest instance start - job \
     submission (job start_time), runtime = job end_time - earliest instance start; Philly queue = first attempt \
     start - submitted_time (first-attempt definition), runtime = last attempt end - first attempt start (spans \
     retries); Helios queue = raw `queue` (start - submit), runtime = raw `duration` (end - start).";

const JOBS_PARAM: Param = Param {
    name: "jobs",
    default: "gpu",
    doc: "gpu: only jobs requesting GPUs (gpus_requested > 0); all: every job, CPU-only included",
    choices: &["gpu", "all"],
};

/// The unified jobs with a `series` column: every row under its trace, and
/// Helios rows once more under `helios/<cluster>`.
pub fn with_series(ctx: &Ctx, args: &Args) -> Result<LazyFrame> {
    let mut jobs = ctx.store.scan(&JOBS)?;
    if args.str("jobs") == "gpu" {
        jobs = jobs.filter(col("gpus_requested").gt(lit(0.0)));
    }
    let by_trace = jobs.clone().with_column(col("trace").alias("series"));
    let by_cluster =
        jobs.filter(col("trace").eq(lit("helios"))).with_column((lit("helios/") + col("cluster")).alias("series"));
    concat([by_trace, by_cluster], UnionArgs::default())
        .map_err(|e| crate::error::Error::polars("cross series".to_string(), e))
}

/// The series labels present, sorted.
pub fn series_labels(lf: LazyFrame) -> Result<Vec<String>> {
    let df = collect(lf.select([col("series")]).unique(None, UniqueKeepStrategy::Any), "cross series labels")?;
    let mut labels: Vec<String> = strs(&df, "series")?.into_iter().flatten().collect();
    labels.sort();
    Ok(labels)
}

fn jobs_note(args: &Args) -> &'static str {
    if args.str("jobs") == "gpu" {
        "Jobs: those requesting GPUs (gpus_requested > 0)."
    } else {
        "Jobs: every job, CPU-only included."
    }
}

const fn view(
    id: &'static str,
    summary: &'static str,
    params: &'static [Param],
    run: fn(&Ctx, &Args) -> Result<super::Output>,
) -> Analysis {
    Analysis { id, scope: super::Scope::Cross, mirrors: "tracelab (cross-trace view)", summary, params, run }
}

const USER_PARAMS: &[Param] = &[
    JOBS_PARAM,
    Param {
        name: "measure",
        default: "gpu-time",
        doc: "gpu-time: per-user sum of gpus_requested x run_s (Helios Fig 8 style); jobs: per-user job count",
        choices: &["gpu-time", "jobs"],
    },
];

/// This group's analyses, in `--list` order.
pub static ANALYSES: &[Analysis] = &[
    view(
        "cross.runtime",
        "Job runtime CDF per trace and Helios cluster, P50/P90/P99 table",
        &[JOBS_PARAM],
        dists::runtime,
    ),
    view(
        "cross.queueing",
        "Queueing delay CDF per trace and Helios cluster, P50/P90/P99 table",
        &[JOBS_PARAM],
        dists::queueing,
    ),
    view(
        "cross.wait-fraction",
        "wait / (wait + run) CDF per trace and Helios cluster",
        &[JOBS_PARAM],
        dists::wait_fraction,
    ),
    view(
        "cross.gpus-per-job",
        "GPUs requested per job CDF per trace and Helios cluster",
        &[JOBS_PARAM],
        dists::gpus_per_job,
    ),
    view(
        "cross.status",
        "Final-status shares of jobs and of GPU time per trace and Helios cluster",
        &[JOBS_PARAM],
        shares::status,
    ),
    view(
        "cross.user-concentration",
        "Per-user concentration: Lorenz curve and Gini per trace and Helios cluster",
        USER_PARAMS,
        shares::users,
    ),
    view(
        "cross.diurnal",
        "Share of submissions by local hour of day per trace and Helios cluster",
        &[JOBS_PARAM],
        diurnal::diurnal,
    ),
];
