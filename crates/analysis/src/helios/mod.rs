//! SenseTime Helios (SC'21): the HeliosArtifact notebook analyses (H1-H12,
//! `docs/definitions.md#helios-vocabulary`), the per-minute allocation sequence and the 10-minute
//! throughput series (`trace_parser.py`), and the per-cluster summary table
//! (`helios_cluster_summary.csv`).
//!
//! One file per analysis id (`helios.vc-utilization` is
//! `vc_utilization.rs`); [`users`] holds the per-user totals and curves of
//! Fig 8 and 9. Shared here: the cluster order and the `cluster` parameter,
//! the job scan, local-time helpers, the state groups and the fixed-grid
//! CDF. Every time-of-day or grid computation works in Asia/Shanghai
//! wall-clock time (the raw naive times), which has no DST, so a local minute
//! is the UTC minute plus 480.

mod users;

pub mod cluster_summary;
pub mod diurnal_submissions;
pub mod diurnal_utilization;
pub mod duration_gpu_cpu;
pub mod duration_vs_philly;
pub mod final_status;
pub mod gpu_time_by_status;
pub mod job_size;
pub mod monthly;
pub mod sequence;
pub mod throughput;
pub mod user_completion;
pub mod user_queue;
pub mod user_time;
pub mod vc_utilization;

#[cfg(test)]
mod tests;

use polars::prelude::*;

use crate::frame::{collect, f64s, strs};
use crate::params::{choice, Param};
use crate::Ctx;
use tracelab_schema as schema;
use tracelab_schema::error::{Error, Result};
use tracelab_stats::Dist;

/// The clusters in the owners' order (the summary CSV's rows, every figure's
/// legend); output follows this fixed order, then any other name sorted.
pub const CLUSTERS: [&str; 4] = ["Venus", "Earth", "Saturn", "Uranus"];

choice! {
    /// Which clusters' series to emit.
    pub enum Clusters { All = "all", Venus = "Venus", Earth = "Earth", Saturn = "Saturn", Uranus = "Uranus" }
}

impl Clusters {
    /// The one cluster chosen, or `None` for all.
    pub fn one(self) -> Option<&'static str> {
        (self != Clusters::All).then(|| self.name())
    }
}

/// The `cluster` parameter of the per-cluster analyses.
pub const CLUSTER: Param<Clusters> =
    Param::choice("cluster", "all", "Which cluster's series to emit: all, or one of Venus, Earth, Saturn, Uranus.");

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

/// The clusters present, or the `one` chosen (which must be present), in
/// order.
pub fn selected_clusters(ctx: &Ctx, one: Option<&str>) -> Result<Vec<String>> {
    let present = present_clusters(ctx)?;
    let Some(choice) = one else { return Ok(present) };
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

/// The fixed-grid CDF the Helios notebooks draw: (t, 100 * share <= t) at
/// t = 2^i s ([`pow2_grid`]).
pub fn grid_cdf(d: &Dist) -> Vec<(f64, f64)> {
    pow2_grid().into_iter().map(|t| (t, 100.0 * d.share_at_most(t))).collect()
}

/// Philly GPU jobs (gpus > 0), when the store has Philly.
pub fn philly_gpu_jobs(ctx: &Ctx) -> Option<LazyFrame> {
    ctx.store.scan(&schema::philly::JOBS).ok().map(|lf| lf.filter(col("gpus").gt(lit(0))))
}

/// (cluster, x, y) rows of `df` as one series per cluster, in `clusters`
/// order, sorted by x; y scaled.
pub fn series_by_cluster(df: &DataFrame, clusters: &[String], x: &str, y: &str, scale: f64) -> Result<CurveSet> {
    let (cs, xs, ys) = (strs(df, "cluster")?, f64s(df, x)?, f64s(df, y)?);
    Ok(clusters
        .iter()
        .map(|c| {
            let mut pts: Vec<(f64, f64)> = (0..df.height())
                .filter(|&i| cs[i].as_deref() == Some(c.as_str()))
                .map(|i| (xs[i].unwrap_or(f64::NAN), ys[i].map_or(f64::NAN, |v| v * scale)))
                .collect();
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            (c.clone(), pts)
        })
        .collect())
}
