//! Share views across traces: final-status shares of jobs and GPU time, and
//! per-user concentration (Lorenz curve, Gini).

use std::collections::BTreeMap;

use polars::prelude::*;

use super::{jobs_note, with_series, TRACE_DEFINITIONS};
use crate::frame::{collect, f64s, strs};
use crate::{Args, Cell, Ctx, Output, ResultTable};
use tracelab_schema::error::Result;
use tracelab_stats::{gini, lorenz};

/// The normalized statuses of the unified table, in column order.
const STATUSES: [&str; 5] = ["completed", "failed", "killed", "running", "unknown"];

pub fn status(ctx: &Ctx, args: &Args) -> Result<Output> {
    let lf = with_series(ctx, args)?.group_by([col("series"), col("status")]).agg([
        len().cast(DataType::Float64).alias("jobs"),
        (col("gpus_requested") * col("run_s")).sum().alias("gpu_s"),
    ]);
    let df = collect(lf, "cross.status")?;
    let (series, status, jobs, gpu_s) =
        (strs(&df, "series")?, strs(&df, "status")?, f64s(&df, "jobs")?, f64s(&df, "gpu_s")?);
    let mut by: BTreeMap<String, BTreeMap<String, (f64, f64)>> = BTreeMap::new();
    for i in 0..df.height() {
        if let (Some(s), Some(st)) = (&series[i], &status[i]) {
            by.entry(s.clone()).or_default().insert(st.clone(), (jobs[i].unwrap_or(0.0), gpu_s[i].unwrap_or(0.0)));
        }
    }
    let mut out = Output::new(
        "cross.status",
        "Final status across traces",
        format!(
            "Unified jobs.status (normalized: completed, failed, killed, running = not finished when the trace ended, \
             unknown). Job shares: jobs per status / jobs, in %. GPU-time shares: sum of gpus_requested x run_s per \
             status / total, jobs with both known, in % (Helios H2 uses sum of gpu_num x duration per state). {} \
             {TRACE_DEFINITIONS}",
            jobs_note(args)
        ),
    );
    out.table("job-shares", share_table(&by, "jobs", |v| v.0));
    out.table("gpu-time-shares", share_table(&by, "gpu_hours", |v| v.1));
    Ok(out)
}

/// One row per series: the total and the % share of each status.
fn share_table(
    by: &BTreeMap<String, BTreeMap<String, (f64, f64)>>,
    total: &str,
    pick: fn(&(f64, f64)) -> f64,
) -> ResultTable {
    let mut columns = vec!["series", total];
    columns.extend(STATUSES.iter().copied());
    let mut t = ResultTable::new(&columns);
    for (series, per) in by {
        let sum: f64 = per.values().map(pick).sum();
        let shown = if total == "gpu_hours" { sum / 3600.0 } else { sum };
        let mut row = vec![Cell::from(series.as_str()), Cell::Float(shown)];
        row.extend(STATUSES.iter().map(|s| Cell::Float(100.0 * per.get(*s).map_or(0.0, pick) / sum)));
        t.push(row);
    }
    t
}

pub fn users(ctx: &Ctx, args: &Args) -> Result<Output> {
    let gpu_time = args.str("measure") == "gpu-time";
    let value = if gpu_time { (col("gpus_requested") * col("run_s")).sum() } else { len().cast(DataType::Float64) };
    let lf = with_series(ctx, args)?
        .filter(col("user").is_not_null())
        .group_by([col("series"), col("user")])
        .agg([value.alias("v")]);
    let df = collect(lf, "cross.user-concentration")?;
    let mut by: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for (s, v) in strs(&df, "series")?.into_iter().zip(f64s(&df, "v")?) {
        if let Some(s) = s {
            by.entry(s).or_default().push(v.filter(|v| v.is_finite()).unwrap_or(0.0));
        }
    }
    let measure = if gpu_time { "GPU time (sum of gpus_requested x run_s; unknown terms count 0)" } else { "jobs" };
    let mut out = Output::new(
        "cross.user-concentration",
        "Per-user concentration across traces",
        format!(
            "Per user (unified jobs.user, nulls skipped): total {measure}. Lorenz curve in the Helios style: users \
             sorted DESCENDING, point i = (% of users in the top i, % of the total they hold), users with 0 included. \
             Gini over the same per-user totals. top5_share = share held by the top ceil(5 % of users). {} \
             {TRACE_DEFINITIONS}",
            jobs_note(args)
        ),
    );
    let mut t = ResultTable::new(&["series", "users", "gini", "top5_share_pct"]);
    let mut curves = Vec::new();
    for (s, v) in &by {
        let curve = lorenz(v);
        let k = (v.len() as f64 * 0.05).ceil() as usize;
        t.push(vec![Cell::from(s.as_str()), Cell::Int(v.len() as i64), gini(v).into(), (100.0 * curve[k].1).into()]);
        curves.push((s.clone(), curve.into_iter().map(|(x, y)| (100.0 * x, 100.0 * y)).collect()));
    }
    out.table("gini", t);
    out.curves(
        "lorenz",
        "Users, largest first (%)",
        &format!("Share of {} (%)", if gpu_time { "GPU time" } else { "jobs" }),
        curves,
    );
    Ok(out)
}
