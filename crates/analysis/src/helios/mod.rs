//! SenseTime Helios (SC'21): the HeliosArtifact notebook analyses (H1-H12,
//! `docs/definitions.md#helios-vocabulary`), the per-minute allocation sequence and the 10-minute
//! throughput series (`trace_parser.py`), and the per-cluster summary table
//! (`helios_cluster_summary.csv`).
//!
//! Shared here: the cluster order, the job scan, local-time helpers and the
//! state groups. Every time-of-day or grid computation works in Asia/Shanghai
//! wall-clock time (the raw naive times), which has no DST, so a local minute
//! is the UTC minute plus 480.

mod cluster;
mod jobs;
mod sequence;
mod summary;
mod users;
mod vc;

#[cfg(test)]
mod tests;

use polars::prelude::*;

use super::frame::{collect, strs};
use super::{Analysis, Ctx, Param};
use tracelab_schema as schema;
use tracelab_schema::error::{Error, Result};

/// This group's analyses, in `--list` order.
pub static ANALYSES: &[Analysis] = &[
    sequence::SEQUENCE,
    sequence::THROUGHPUT,
    summary::SUMMARY,
    jobs::DURATION_VS_PHILLY,
    jobs::GPU_TIME_BY_STATUS,
    cluster::DIURNAL_UTILIZATION,
    cluster::DIURNAL_SUBMISSIONS,
    cluster::MONTHLY,
    vc::VC_UTILIZATION,
    jobs::DURATION_GPU_CPU,
    jobs::JOB_SIZE,
    jobs::FINAL_STATUS,
    users::USER_TIME,
    users::USER_QUEUE,
    users::USER_COMPLETION,
];

/// The clusters in the owners' order (the summary CSV's rows, every figure's
/// legend); output follows this fixed order, then any other name sorted.
pub const CLUSTERS: [&str; 4] = ["Venus", "Earth", "Saturn", "Uranus"];

/// The `cluster` parameter of the per-cluster analyses.
pub const CLUSTER_PARAM: Param = Param {
    name: "cluster",
    default: "all",
    doc: "Which cluster's series to emit: all, or one of Venus, Earth, Saturn, Uranus.",
    choices: &["all", "Venus", "Earth", "Saturn", "Uranus"],
};

/// Minutes between UTC and Asia/Shanghai (UTC+8, no DST since 1991).
pub const LOCAL_OFFSET_MIN: i64 = 480;
/// The upstream grid (`parse_sequence`): 2020-04-01 00:00 .. 2020-09-28
/// 23:59 local, as days since 1970-01-01 (local calendar): [first, end).
pub const GRID_FIRST_DAY: i64 = 18_353;
pub const GRID_END_DAY: i64 = 18_534;

/// Labelled x-y series, as `Output::curves` takes them.
pub type CurveSet = Vec<(String, Vec<(f64, f64)>)>;

/// The Helios jobs table.
pub fn jobs(ctx: &Ctx) -> Result<LazyFrame> {
    ctx.store.scan(&schema::helios::JOBS)
}

/// Clusters present in the jobs table, in [`CLUSTERS`] order.
pub fn present_clusters(ctx: &Ctx) -> Result<Vec<String>> {
    let df = collect(jobs(ctx)?.select([col("cluster")]).unique(None, UniqueKeepStrategy::Any), "helios clusters")?;
    let mut found: Vec<String> = strs(&df, "cluster")?.into_iter().flatten().collect();
    found.sort_by_key(|c| (CLUSTERS.iter().position(|k| k == c).unwrap_or(CLUSTERS.len()), c.clone()));
    Ok(found)
}

/// The clusters selected by the `cluster` parameter, in order.
pub fn selected_clusters(ctx: &Ctx, choice: &str) -> Result<Vec<String>> {
    let present = present_clusters(ctx)?;
    if choice == "all" {
        return Ok(present);
    }
    if !present.iter().any(|c| c == choice) {
        return Err(Error::Usage(format!("cluster {choice} is not in the store (present: {})", present.join(", "))));
    }
    Ok(vec![choice.to_string()])
}

/// A UTC timestamp as minutes since 1970-01-01 00:00 local (floored: the
/// upstream `replace(second=0)`).
pub fn local_minute(ts: Expr) -> Expr {
    ts.cast(DataType::Int64).floor_div(lit(60_000_000i64)) + lit(LOCAL_OFFSET_MIN)
}

/// A UTC timestamp as seconds since 1970-01-01 00:00 local (floored).
pub fn local_second(ts: Expr) -> Expr {
    ts.cast(DataType::Int64).floor_div(lit(1_000_000i64)) + lit(LOCAL_OFFSET_MIN * 60)
}

/// `state` in the upstream summary's failed group (FAILED, TIMEOUT,
/// NODE_FAIL; `docs/definitions.md#helioscluster-summary`). SUSPENDED is in no group.
pub fn is_failed() -> Expr {
    let state = || col("state");
    state().eq(lit("FAILED")).or(state().eq(lit("TIMEOUT"))).or(state().eq(lit("NODE_FAIL")))
}

/// `name` equal to one of `values` (an OR chain: the lists are a few
/// clusters or VCs).
pub fn any_of(name: &str, values: &[String]) -> Expr {
    values.iter().fold(lit(false), |acc, v| acc.or(col(name).eq(lit(v.clone()))))
}

/// Sum of `gpus * run_s` (GPU seconds).
pub fn gpu_time() -> Expr {
    (col("gpus").cast(DataType::Float64) * col("run_s")).sum()
}

/// The 2^i grid (i = 0..21, seconds) of H1/H7.
pub fn pow2_grid() -> Vec<f64> {
    (0..22).map(|i| f64::from(1u32 << i)).collect()
}

/// Percent share, NaN when the total is zero.
pub fn pct(part: f64, total: f64) -> f64 {
    if total > 0.0 {
        100.0 * part / total
    } else {
        f64::NAN
    }
}
