//! Distribution views across traces: runtime, queueing delay, wait share of
//! the completion time and GPUs per job, each as one CDF per series plus a
//! P50/P90/P99 table side by side.

use polars::prelude::*;

use super::{jobs_note, series_labels, with_series, TRACE_DEFINITIONS};
use crate::frame::dists_by;
use crate::{Args, Cell, Ctx, Output, ResultTable};
use tracelab_schema::error::Result;
use tracelab_stats::Dist;

/// One distribution view: `value` per series, its CDFs and quantile table.
fn view(ctx: &Ctx, args: &Args, value: Expr, meta: (&str, &str, &str, &str)) -> Result<Output> {
    let (id, title, x_label, what) = meta;
    let lf = with_series(ctx, args)?;
    let labels = series_labels(lf.clone())?;
    let refs: Vec<&str> = labels.iter().map(String::as_str).collect();
    let series = dists_by(lf, col("series"), value, &refs, id)?;
    let mut out = Output::new(
        id,
        title,
        format!(
            "{what} {} {TRACE_DEFINITIONS} Null, NaN and infinite values are skipped; negative values (clock skew in \
             the raw logs) are kept. Series: one per trace, and one per Helios cluster (helios/<cluster>).",
            jobs_note(args)
        ),
    );
    out.table("quantiles", quantile_table(&series));
    out.dists("cdf", x_label, series);
    Ok(out)
}

/// n and P50/P90/P99 per series.
pub fn quantile_table(series: &[(String, Dist)]) -> ResultTable {
    let mut t = ResultTable::new(&["series", "n", "p50", "p90", "p99"]);
    for (label, d) in series {
        t.push(vec![
            Cell::from(label.as_str()),
            Cell::from(d.n()),
            d.quantile(0.5).into(),
            d.quantile(0.9).into(),
            d.quantile(0.99).into(),
        ]);
    }
    t
}

pub fn runtime(ctx: &Ctx, args: &Args) -> Result<Output> {
    let meta =
        ("cross.runtime", "Job runtime across traces", "Runtime (s)", "Runtime = unified jobs.run_s, in seconds.");
    view(ctx, args, col("run_s"), meta)
}

pub fn queueing(ctx: &Ctx, args: &Args) -> Result<Output> {
    let meta = (
        "cross.queueing",
        "Queueing delay across traces",
        "Queueing delay (s)",
        "Queueing delay = unified jobs.queue_s, in seconds.",
    );
    view(ctx, args, col("queue_s"), meta)
}

pub fn wait_fraction(ctx: &Ctx, args: &Args) -> Result<Output> {
    let sum = col("queue_s") + col("run_s");
    let value = when(sum.clone().gt(lit(0.0)))
        .then(lit(100.0) * col("queue_s") / sum)
        .otherwise(lit(NULL).cast(DataType::Float64));
    let meta = (
        "cross.wait-fraction",
        "Queueing share of completion time across traces",
        "wait / (wait + run) (%)",
        "100 * queue_s / (queue_s + run_s), jobs with both known and queue_s + run_s > 0, in %.",
    );
    view(ctx, args, value, meta)
}

pub fn gpus_per_job(ctx: &Ctx, args: &Args) -> Result<Output> {
    let meta = (
        "cross.gpus-per-job",
        "GPUs per job across traces",
        "GPUs requested",
        "GPUs per job = unified jobs.gpus_requested (PAI: sum over tasks of inst_num x plan_gpu / 100, fractional \
         with GPU sharing; Philly: GPUs of the first attempt; Helios: gpu_num).",
    );
    view(ctx, args, col("gpus_requested"), meta)
}
