//! Microsoft Philly (ATC'19): the owners' notebook analyses P1-P6
//! (`analysis/Philly Trace Analysis.ipynb`,
//! `docs/definitions.md#philly-vocabulary`), the paper's headline numbers (§4), and per-minute machine
//! utilization by machine class (the PAI Fig 7 shape, for side-by-side
//! plots).
//!
//! One file per analysis id (`philly.gpu-util-by-status` is
//! `gpu_util_by_status.rs`). Shared: [`jobs`] (the job tables' distributions
//! in minutes), [`clock`] (durations in UTC or on the notebook's naive wall
//! clock) and [`gpu_minutes`] (the
//! GPU-minute join of attempts with `gpu_util` behind P4 and P5, the
//! heaviest query); here, the notebook's GPU buckets and the utilization
//! tables' time windows.

mod clock;
pub(crate) mod gpu_minutes;
mod jobs;

pub mod gpu_util_by_status;
pub mod gpu_util_dedicated;
pub mod host_util;
pub mod locality;
pub mod machine_util;
pub mod paper_numbers;
pub mod queueing_by_vc;
pub mod runtime_by_size;

#[cfg(test)]
mod tests;

use polars::prelude::*;

use crate::frame::{collect, i64s};
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_schema::Table;

/// Rows of a utilization table (`time` in UTC) with `w0 <= time < w1`
/// (epoch microseconds): the tables are time-sorted, so a window reads only
/// its row groups.
fn time_window(ctx: &Ctx, table: &Table, w0: i64, w1: i64) -> Result<LazyFrame> {
    let utc_us = || DataType::Datetime(TimeUnit::Microseconds, Some(TimeZone::UTC));
    let t = col("time");
    Ok(ctx.store.scan(table)?.filter(t.clone().gt_eq(lit(w0).cast(utc_us())).and(t.lt(lit(w1).cast(utc_us())))))
}

/// One plan per window `[w0, w1)` of a per-machine utilization table: its
/// rows' `time` in epoch microseconds, `machine` and `values`, for the
/// analyses that walk the rows themselves.
fn machine_windows(
    ctx: &Ctx,
    table: &Table,
    values: Vec<Expr>,
    windows: impl IntoIterator<Item = (i64, i64)>,
) -> Result<Vec<LazyFrame>> {
    let cols = [vec![col("time").cast(DataType::Int64), col("machine")], values].concat();
    windows.into_iter().map(|(w0, w1)| Ok(time_window(ctx, table, w0, w1)?.select(cols.clone()))).collect()
}

/// Length of the windows [`for_each_window`] reads: two days of the
/// per-minute tables are about 0.6 M rows at full scale.
const AGGREGATE_WINDOW_US: i64 = 2 * 86_400 * 1_000_000;

/// Runs `plan` over `table` one two-day window of `time` at a time and
/// hands each collected result to `f`, in time order: an aggregate of a
/// per-minute utilization table (42 M rows and 3 GB of columns at full
/// scale) then holds one window's rows instead of the table. The caller
/// combines the windows' parts (sums and counts add up; a group may appear
/// in several windows). Nothing is called for an empty table.
pub fn for_each_window(
    ctx: &Ctx,
    table: &Table,
    plan: impl Fn(LazyFrame) -> LazyFrame,
    f: impl FnMut(DataFrame) -> Result<()>,
) -> Result<()> {
    let Some((lo, hi)) = time_span(ctx, table)? else { return Ok(()) };
    let plans = window_starts(lo, hi, AGGREGATE_WINDOW_US)
        .into_iter()
        .map(|w0| Ok(plan(time_window(ctx, table, w0, w0 + AGGREGATE_WINDOW_US)?)))
        .collect::<Result<_>>()?;
    crate::frame::for_each_collected(plans, table.name, f)
}

/// Starts of the windows `[w0, w0 + len)` from `lo` that cover `hi`.
fn window_starts(lo: i64, hi: i64, len: i64) -> Vec<i64> {
    (0..).map(|k| lo + k * len).take_while(|w| *w <= hi).collect()
}

/// [first, last] `time` of a table in epoch microseconds, None when empty.
fn time_span(ctx: &Ctx, table: &Table) -> Result<Option<(i64, i64)>> {
    let t = col("time").cast(DataType::Int64);
    let df = collect(ctx.store.scan(table)?.select([t.clone().min().alias("lo"), t.max().alias("hi")]), "time span")?;
    Ok(i64s(&df, "lo")?[0].zip(i64s(&df, "hi")?[0]))
}

/// The notebook's GPU-count buckets (`get_bucket_from_num_gpus`), in plot
/// order, with its legend labels (`'%s GPU'`).
pub const BUCKETS: [&str; 4] = ["1 GPU", "2-4 GPU", "5-8 GPU", ">8 GPU"];

/// The bucket label of a GPU-count expression; null for null or 0 GPUs,
/// which the notebook skips.
pub fn bucket(gpus: Expr) -> Expr {
    when(gpus.clone().eq(lit(1i64)))
        .then(lit(BUCKETS[0]))
        .when(gpus.clone().gt_eq(lit(2i64)).and(gpus.clone().lt_eq(lit(4i64))))
        .then(lit(BUCKETS[1]))
        .when(gpus.clone().gt_eq(lit(5i64)).and(gpus.clone().lt_eq(lit(8i64))))
        .then(lit(BUCKETS[2]))
        .when(gpus.gt(lit(8i64)))
        .then(lit(BUCKETS[3]))
        .otherwise(lit(NULL).cast(DataType::String))
}

/// The bucket label of a GPU count (same rule as [`bucket`]).
pub fn bucket_of(gpus: i64) -> Option<&'static str> {
    match gpus {
        1 => Some(BUCKETS[0]),
        2..=4 => Some(BUCKETS[1]),
        5..=8 => Some(BUCKETS[2]),
        g if g > 8 => Some(BUCKETS[3]),
        _ => None,
    }
}
