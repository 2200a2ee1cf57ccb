//! User-level Helios figures (SC'21 Fig 8 and Fig 9, HeliosArtifact
//! `user characterization.ipynb` over `trace_parser.parse_user`):
//! concentration of GPU time, CPU time and GPU queueing over users, and the
//! per-user GPU-job completion rate. Per-user sums run in the engine; the
//! sorted cumulative shares of a few thousand users are computed here.

use polars::prelude::*;

use super::{jobs, present_clusters};
use crate::frame::{collect, f64s, strs};
use crate::{Analysis, Args, Cell, Ctx, Headline, Output, Param, ResultTable, Scope};
use tracelab_schema::error::Result;
use tracelab_stats::gini;

/// The notebooks' concentration curve: values sorted descending, y_i = 100
/// * (sum of the top i+1) / total, x_i = 100 * i / (n - 1) (`np.linspace(0,
/// 100, n)`; a single user sits at x = 0). Zero-valued users are included.
pub fn helios_lorenz(values: &[f64]) -> Vec<(f64, f64)> {
    let mut v = values.to_vec();
    v.sort_by(|a, b| b.total_cmp(a));
    let total: f64 = v.iter().sum();
    let n = v.len();
    let mut acc = 0.0;
    v.iter()
        .enumerate()
        .map(|(i, x)| {
            acc += x;
            let xi = if n > 1 { 100.0 * i as f64 / (n - 1) as f64 } else { 0.0 };
            (xi, if total > 0.0 { 100.0 * acc / total } else { f64::NAN })
        })
        .collect()
}

/// Per cluster and user: the `parse_user` totals.
fn user_totals(ctx: &Ctx) -> Result<DataFrame> {
    let gpu = || col("gpus").gt(lit(0));
    let lf = jobs(ctx)?.group_by([col("cluster"), col("user")]).agg([
        (col("gpus").cast(DataType::Float64) * col("run_s")).filter(gpu()).sum().alias("total_gpu_time"),
        (col("cpus").cast(DataType::Float64) * col("run_s"))
            .filter(col("gpus").eq(lit(0)))
            .sum()
            .alias("total_cpu_only_time"),
        col("queue_s").filter(gpu()).sum().alias("total_gpu_pend_time"),
    ]);
    collect(lf, "per-user totals")
}

/// One concentration curve and a Gini headline per cluster for `column`.
fn concentration(
    df: &DataFrame,
    clusters: &[String],
    column: &str,
    heads: &mut Vec<Headline>,
) -> Result<super::CurveSet> {
    let (cs, vs) = (strs(df, "cluster")?, f64s(df, column)?);
    Ok(clusters
        .iter()
        .map(|c| {
            let vals: Vec<f64> = (0..df.height())
                .filter(|&i| cs[i].as_deref() == Some(c.as_str()))
                .map(|i| vs[i].unwrap_or(0.0))
                .collect();
            heads.push(Headline::new(
                &format!("{c}.{column}.gini"),
                &format!("{c}: Gini of {column} over users"),
                gini(&vals),
                "",
            ));
            (c.clone(), helios_lorenz(&vals))
        })
        .collect())
}

/// Users per cluster (points per curve).
fn user_counts(series: &[(String, Vec<(f64, f64)>)]) -> Vec<Headline> {
    series
        .iter()
        .map(|(c, pts)| Headline::new(&format!("{c}.users"), &format!("{c}: users"), pts.len() as f64, "users"))
        .collect()
}

const LORENZ_DEF: &str = "Per cluster, every user with at least one job in helios/jobs (zero-valued users included), sorted descending by the total; y = 100 * cumulative share of the top i+1 users, x = 100 * i / (n_users - 1) (np.linspace(0, 100, n_users), as the notebook). Gini = sum_i (2i - n - 1) x_(i) / (n sum x) over ascending values.";

pub const USER_TIME: Analysis = Analysis {
    id: "helios.user-time",
    scope: Scope::Helios,
    mirrors: "SC'21 Fig 8 (user characterization.ipynb)",
    summary: "Concentration of GPU time and CPU-only time over users, per cluster",
    params: &[],
    run: run_user_time,
};

fn run_user_time(ctx: &Ctx, _: &Args) -> Result<Output> {
    let clusters = present_clusters(ctx)?;
    let df = user_totals(ctx)?;
    let mut heads = Vec::new();
    let def = format!("{LORENZ_DEF} total_gpu_time = sum of gpus * run_s over the user's GPU jobs (gpus > 0); total_cpu_only_time = sum of cpus * run_s over the user's CPU jobs (gpus == 0), i.e. parse_user's total_cpu_time minus its GPU-job part.");
    let mut out = Output::new("helios.user-time", "User concentration of GPU and CPU time", def);
    let gpu = concentration(&df, &clusters, "total_gpu_time", &mut heads)?;
    let cpu = concentration(&df, &clusters, "total_cpu_only_time", &mut heads)?;
    heads.extend(user_counts(&gpu));
    out.curves("gpu-time", "fraction of users (%)", "fraction of total GPU time (%)", gpu);
    out.curves("cpu-time", "fraction of users (%)", "fraction of total CPU time (%)", cpu);
    out.headlines("summary", heads);
    Ok(out)
}

pub const USER_QUEUE: Analysis = Analysis {
    id: "helios.user-queue",
    scope: Scope::Helios,
    mirrors: "SC'21 Fig 9a (user characterization.ipynb)",
    summary: "Concentration of GPU-job queueing time over users, per cluster",
    params: &[],
    run: run_user_queue,
};

fn run_user_queue(ctx: &Ctx, _: &Args) -> Result<Output> {
    let clusters = present_clusters(ctx)?;
    let df = user_totals(ctx)?;
    let mut heads = Vec::new();
    let def =
        format!("{LORENZ_DEF} total_gpu_pend_time = sum of queue_s (raw `queue`) over the user's GPU jobs (gpus > 0).");
    let mut out = Output::new("helios.user-queue", "User concentration of GPU queueing", def);
    let series = concentration(&df, &clusters, "total_gpu_pend_time", &mut heads)?;
    heads.extend(user_counts(&series));
    out.curves("gpu-queue", "fraction of users (%)", "fraction of total GPU queueing time (%)", series);
    out.headlines("summary", heads);
    Ok(out)
}

pub const USER_COMPLETION: Analysis = Analysis {
    id: "helios.user-completion",
    scope: Scope::Helios,
    mirrors: "SC'21 Fig 9b (user characterization.ipynb)",
    summary: "Histogram of per-user GPU-job completion rates over all of Helios",
    params: &[Param {
        name: "include-cpu-only-users",
        default: "true",
        doc: "Count users with no GPU job at 0 % (the upstream quirk: parse_user sets their completed_gpu_percent to 0); false leaves them out.",
        choices: &["true", "false"],
    }],
    run: run_user_completion,
};

/// numpy/seaborn `bins=10`: edges linspace(min, max, 11) (min = max widens
/// to +-0.5), last bin closed.
pub fn histogram10(values: &[f64]) -> Vec<(f64, f64, u64)> {
    if values.is_empty() {
        return Vec::new();
    }
    let (mut lo, mut hi) = values.iter().fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(*v), b.max(*v)));
    if lo == hi {
        (lo, hi) = (lo - 0.5, hi + 0.5);
    }
    let edges: Vec<f64> = (0..=10).map(|i| lo + (hi - lo) * i as f64 / 10.0).collect();
    let mut counts = [0u64; 10];
    for v in values {
        let k = edges[1..10].partition_point(|e| e <= v);
        counts[k] += 1;
    }
    (0..10).map(|i| (edges[i], edges[i + 1], counts[i])).collect()
}

fn run_user_completion(ctx: &Ctx, args: &Args) -> Result<Output> {
    let include_cpu_only = args.bool("include-cpu-only-users")?;
    let gpu = || col("gpus").gt(lit(0));
    let lf = jobs(ctx)?.group_by([col("user")]).agg([
        gpu().cast(DataType::Float64).sum().alias("gpu_jobs"),
        col("state").eq(lit("COMPLETED")).and(gpu()).cast(DataType::Float64).sum().alias("completed"),
    ]);
    let df = collect(lf, "per-user completion")?;
    let (g, c) = (f64s(&df, "gpu_jobs")?, f64s(&df, "completed")?);
    let rates: Vec<f64> = g
        .iter()
        .zip(&c)
        .filter(|(g, _)| include_cpu_only || g.unwrap_or(0.0) > 0.0)
        .map(|(g, c)| match g {
            Some(g) if *g > 0.0 => 100.0 * c.unwrap_or(0.0) / g,
            _ => 0.0,
        })
        .collect();
    let mut t = ResultTable::new(&["bin_lo_pct", "bin_hi_pct", "users"]);
    for (lo, hi, n) in histogram10(&rates) {
        t.push(vec![Cell::Float(lo), Cell::Float(hi), Cell::from(n)]);
    }
    let n = rates.len() as f64;
    let heads = vec![
        Headline::new("users", "users in the histogram", n, "users"),
        Headline::new("mean", "mean per-user GPU completion rate", rates.iter().sum::<f64>() / n, "%"),
        Headline::new(
            "at-100",
            "users with every GPU job completed",
            100.0 * rates.iter().filter(|r| **r == 100.0).count() as f64 / n,
            "% of users",
        ),
        Headline::new(
            "at-0",
            "users at 0 % (incl. CPU-only users when counted)",
            100.0 * rates.iter().filter(|r| **r == 0.0).count() as f64 / n,
            "% of users",
        ),
    ];
    let mut out = Output::new("helios.user-completion", "Per-user GPU-job completion rate", USER_COMPLETION_DEF);
    out.table("histogram", t);
    out.headlines("summary", heads);
    Ok(out)
}

const USER_COMPLETION_DEF: &str = "Helios-wide (users keyed by `user` across clusters, as parse_user on all_cluster_log): completed_gpu_percent = COMPLETED GPU jobs (gpus > 0) / GPU jobs, x100; users without GPU jobs are at 0 % unless include-cpu-only-users=false. Histogram with 10 equal bins from the minimum to the maximum rate (seaborn histplot bins=10, stat=count; last bin closed).";
