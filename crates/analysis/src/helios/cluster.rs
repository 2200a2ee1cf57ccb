//! Cluster-level time patterns (SC'21 Fig 2 and Fig 3, HeliosArtifact
//! `cluster_characterization.ipynb`): hour-of-day allocation and GPU-job
//! submissions, and the monthly GPU jobs and allocation. All reuse the
//! per-minute sequence and the 10-minute throughput of [`super::sequence`].

use polars::prelude::*;

use super::sequence::{cluster_sequence, throughput};
use super::{jobs, local_second, present_clusters, GRID_END_DAY, GRID_FIRST_DAY};
use crate::frame::{collect, f64s, i64s, strs};
use crate::{Analysis, Args, Cell, Ctx, Headline, Output, ResultTable, Scope};
use tracelab_schema::error::Result;

/// (cluster, x, y) rows of `df` as one series per cluster, in `clusters` order.
fn series_by_cluster(df: &DataFrame, clusters: &[String], x: &str, y: &str, scale: f64) -> Result<super::CurveSet> {
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

pub const DIURNAL_UTILIZATION: Analysis = Analysis {
    id: "helios.diurnal-utilization",
    scope: Scope::Helios,
    mirrors: "SC'21 Fig 2a (cluster_characterization.ipynb, cluster_diurnal_utilization_tp)",
    summary: "Mean per-minute GPU allocation share by hour of day, per cluster",
    params: &[],
    run: run_diurnal_utilization,
};

fn run_diurnal_utilization(ctx: &Ctx, _: &Args) -> Result<Output> {
    let clusters = present_clusters(ctx)?;
    let hourly = cluster_sequence(ctx, &clusters)?
        .select([
            col("cluster"),
            ((col("minute") % lit(1440i64)).floor_div(lit(60i64))).alias("hour"),
            col("gpu_utilization"),
        ])
        .group_by([col("cluster"), col("hour")])
        .agg([col("gpu_utilization").mean()]);
    let df = collect(hourly, "diurnal utilization")?;
    let series = series_by_cluster(&df, &clusters, "hour", "gpu_utilization", 100.0)?;
    let heads = series
        .iter()
        .map(|(c, pts)| {
            let mean = pts.iter().map(|p| p.1).sum::<f64>() / pts.len() as f64;
            Headline::new(&format!("{c}.mean"), &format!("{c}: mean of the 24 hourly means"), mean, "%")
        })
        .collect();
    let mut out = Output::new("helios.diurnal-utilization", "Diurnal GPU allocation", DIURNAL_UTIL_DEF);
    out.curves("by-hour", "hour of day (Asia/Shanghai)", "mean GPU allocation (%)", series);
    out.headlines("summary", heads);
    Ok(out)
}

const DIURNAL_UTIL_DEF: &str = "Mean over all grid minutes with local hour h of the per-minute gpu_utilization of helios.sequence (allocated GPUs / the day's GPUs, rounded to 3 decimals, capped at 1; minutes with a zero total excluded), x100, per cluster; 2020-04-01..2020-09-28 Asia/Shanghai (Fig 2a).";

pub const DIURNAL_SUBMISSIONS: Analysis = Analysis {
    id: "helios.diurnal-submissions",
    scope: Scope::Helios,
    mirrors: "SC'21 Fig 2b (cluster_characterization.ipynb, cluster_diurnal_utilization_tp)",
    summary: "Mean GPU jobs submitted per hour, by hour of day, per cluster",
    params: &[],
    run: run_diurnal_submissions,
};

fn run_diurnal_submissions(ctx: &Ctx, _: &Args) -> Result<Output> {
    let clusters = present_clusters(ctx)?;
    let days = (GRID_END_DAY - GRID_FIRST_DAY) as f64;
    let hourly = throughput(ctx, &clusters, "submit")?
        .select([col("cluster"), (col("bin").floor_div(lit(6i64)) % lit(24i64)).alias("hour"), col("submit_gpu_job")])
        .group_by([col("cluster"), col("hour")])
        .agg([(col("submit_gpu_job").sum().cast(DataType::Float64) / lit(days)).alias("mean")]);
    let df = collect(hourly, "diurnal submissions")?;
    let mut series = series_by_cluster(&df, &clusters, "hour", "mean", 1.0)?;
    for (_, pts) in &mut series {
        // Hours without any submission are 0, not absent (resample fills them).
        *pts = (0..24).map(|h| (h as f64, pts.iter().find(|p| p.0 == h as f64).map_or(0.0, |p| p.1))).collect();
    }
    let heads = series
        .iter()
        .map(|(c, pts)| {
            let (h, v) = pts.iter().fold((0.0, f64::MIN), |a, p| if p.1 > a.1 { *p } else { a });
            Headline::new(&format!("{c}.peak-hour"), &format!("{c}: busiest hour ({v:.2} GPU jobs/h)"), h, "h")
        })
        .collect();
    let mut out = Output::new("helios.diurnal-submissions", "Diurnal GPU-job submissions", DIURNAL_SUB_DEF);
    out.curves("by-hour", "hour of day (Asia/Shanghai)", "mean GPU jobs submitted per hour", series);
    out.headlines("summary", heads);
    Ok(out)
}

const DIURNAL_SUB_DEF: &str = "helios/jobs with gpus != 0 whose submit_time (Asia/Shanghai) falls in 2020-04-01 00:00 .. 2020-09-28 24:00 (the throughput grid), counted per local hour of day and divided by the 181 grid days: the mean of the hourly sums of submit_gpu_job (helios.throughput resampled hourly, Fig 2b), per cluster.";

pub const MONTHLY: Analysis = Analysis {
    id: "helios.monthly",
    scope: Scope::Helios,
    mirrors: "SC'21 Fig 3 (cluster_characterization.ipynb monthly_util; trace_parser parse_monthly_job/_util)",
    summary: "GPU jobs per month (single vs multi-GPU) and monthly mean GPU allocation, per cluster",
    params: &[],
    run: run_monthly,
};

fn run_monthly(ctx: &Ctx, _: &Args) -> Result<Output> {
    let clusters = present_clusters(ctx)?;
    let mut out = Output::new("helios.monthly", "Monthly GPU jobs and allocation", MONTHLY_DEF);
    out.table("jobs", monthly_jobs(ctx)?);
    let month =
        (col("minute") * lit(60_000_000i64)).cast(DataType::Datetime(TimeUnit::Microseconds, None)).dt().month();
    let util = cluster_sequence(ctx, &clusters)?
        .select([
            col("cluster"),
            month.cast(DataType::Int64).alias("month"),
            col("gpu_utilization"),
            col("gpu_utilization_multi"),
            col("gpu_utilization_single"),
        ])
        .group_by([col("cluster"), col("month")])
        .agg([
            col("gpu_utilization").mean(),
            col("gpu_utilization_multi").mean(),
            col("gpu_utilization_single").mean(),
        ]);
    let df = collect(util, "monthly utilization")?;
    out.curves(
        "utilization",
        "month (2020)",
        "mean GPU allocation (%)",
        series_by_cluster(&df, &clusters, "month", "gpu_utilization", 100.0)?,
    );
    let mut split = Vec::new();
    for (kind, colname) in [("multi-GPU", "gpu_utilization_multi"), ("single-GPU", "gpu_utilization_single")] {
        for (c, pts) in series_by_cluster(&df, &clusters, "month", colname, 100.0)? {
            split.push((format!("{c} {kind}"), pts));
        }
    }
    out.curves("utilization-split", "month (2020)", "mean GPU allocation (%)", split);
    Ok(out)
}

/// Jobs per cluster and submit month (4..9), as parse_monthly_job.
fn monthly_jobs(ctx: &Ctx) -> Result<ResultTable> {
    let month = (local_second(col("submit_time")) * lit(1_000_000i64))
        .cast(DataType::Datetime(TimeUnit::Microseconds, None))
        .dt()
        .month()
        .cast(DataType::Int64);
    let g = || col("gpus");
    let lf = jobs(ctx)?
        .select([col("cluster"), month.alias("month"), col("gpus")])
        .filter(col("month").gt_eq(lit(4i64)).and(col("month").lt_eq(lit(9i64))))
        .group_by([col("cluster"), col("month")])
        .agg([
            len().cast(DataType::Int64).alias("jobs"),
            g().eq(lit(0)).cast(DataType::Int64).sum().alias("cpu_jobs"),
            g().gt(lit(0)).cast(DataType::Int64).sum().alias("gpu_jobs"),
            g().eq(lit(1)).cast(DataType::Int64).sum().alias("single_gpu_jobs"),
            g().gt(lit(1)).cast(DataType::Int64).sum().alias("multi_gpu_jobs"),
        ]);
    let df = collect(lf, "monthly jobs")?;
    let names = ["jobs", "cpu_jobs", "gpu_jobs", "single_gpu_jobs", "multi_gpu_jobs"];
    let mut t =
        ResultTable::new(&["cluster", "month", "jobs", "cpu_jobs", "gpu_jobs", "single_gpu_jobs", "multi_gpu_jobs"]);
    let (cs, ms) = (strs(&df, "cluster")?, i64s(&df, "month")?);
    let cols: Vec<Vec<Option<i64>>> = names.iter().map(|n| i64s(&df, n)).collect::<Result<_>>()?;
    for c in present_clusters(ctx)? {
        for m in 4..=9i64 {
            let row = (0..df.height()).find(|&i| cs[i].as_deref() == Some(c.as_str()) && ms[i] == Some(m));
            let mut cells = vec![Cell::from(c.as_str()), Cell::Int(m)];
            cells.extend(cols.iter().map(|v| Cell::Int(row.and_then(|i| v[i]).unwrap_or(0))));
            t.push(cells);
        }
    }
    Ok(t)
}

const MONTHLY_DEF: &str = "Table `jobs`: helios/jobs per cluster and month of submit_time (Asia/Shanghai), months 4..9 (parse_monthly_job): all jobs, CPU jobs (gpus == 0), GPU jobs (gpus > 0), single-GPU (gpus == 1) and multi-GPU (gpus > 1) jobs. Curves: monthly mean of the per-minute gpu_utilization (capped) and of gpu_utilization_multi / _single (not capped) of helios.sequence, x100, by the minute's local month (parse_monthly_util, Fig 3).";
