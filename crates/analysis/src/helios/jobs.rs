//! Job-level Helios figures (SC'21 Fig 1, 5, 6, 7; HeliosArtifact
//! `compare_with_Philly_trace.ipynb` and `job characterization.ipynb`):
//! GPU-job duration against Philly on the 2^i grid, GPU time by final
//! status, GPU vs CPU job durations, job-size CDFs and final status by size.

use polars::prelude::*;

use super::{gpu_time, is_failed, jobs, pct, pow2_grid, present_clusters};
use crate::frame::{collect, dist, dists_by, f64s, i64s, scalar, strs};
use crate::{Analysis, Args, Cell, Ctx, Headline, Output, ResultTable, Scope};
use tracelab_schema as schema;
use tracelab_schema::error::Result;
use tracelab_stats::Dist;

/// The fixed-grid CDF the Helios notebooks draw: (t, 100 * share <= t).
fn grid_cdf(d: &Dist) -> Vec<(f64, f64)> {
    pow2_grid().into_iter().map(|t| (t, 100.0 * d.share_at_most(t))).collect()
}

/// Philly GPU jobs (gpus > 0), when the store has Philly.
fn philly_gpu_jobs(ctx: &Ctx) -> Option<LazyFrame> {
    ctx.store.scan(&schema::philly::JOBS).ok().map(|lf| lf.filter(col("gpus").gt(lit(0))))
}

pub const DURATION_VS_PHILLY: Analysis = Analysis {
    id: "helios.duration-vs-philly",
    scope: Scope::Helios,
    mirrors: "SC'21 Fig 1a (compare_with_Philly_trace.ipynb)",
    summary: "GPU-job duration CDF on the 2^i s grid, Helios vs Philly",
    params: &[],
    run: run_duration_vs_philly,
};

fn run_duration_vs_philly(ctx: &Ctx, _: &Args) -> Result<Output> {
    let helios = dist(jobs(ctx)?.filter(col("gpus").gt(lit(0))), col("run_s"), "helios GPU durations")?;
    let mut series = vec![("Helios".to_string(), grid_cdf(&helios))];
    let mut heads = vec![Headline::new("helios.median", "Helios GPU-job median duration", helios.quantile(0.5), "s")];
    let mut def = String::from("GPU jobs (gpus > 0) of all Helios clusters, duration = run_s (raw `duration`); y = 100 * count(duration <= t) / count at t = 2^i s, i = 0..21 (the notebook's fixed grid joined by lines, not an ECDF); jobs with no duration excluded. ");
    match philly_gpu_jobs(ctx) {
        Some(lf) => {
            let philly = dist(lf, col("run_s"), "philly GPU durations")?;
            heads.push(Headline::new("philly.median", "Philly GPU-job median duration", philly.quantile(0.5), "s"));
            series.push(("Philly".to_string(), grid_cdf(&philly)));
            def.push_str("Philly: philly/jobs with gpus > 0 (GPUs of the first attempt), duration = run_s = last attempt end - first attempt start (the ATC'19 notebook's run_time, spanning retries; HeliosArtifact's philly_trace.csv, not public, may differ), every status.");
        }
        None => def.push_str("The store has no Philly trace: only the Helios series is emitted."),
    }
    let mut out = Output::new("helios.duration-vs-philly", "GPU-job duration, Helios vs Philly", def);
    out.curves("cdf", "GPU job duration (s)", "fraction of jobs (%)", series);
    out.headlines("summary", heads);
    Ok(out)
}

pub const GPU_TIME_BY_STATUS: Analysis = Analysis {
    id: "helios.gpu-time-by-status",
    scope: Scope::Helios,
    mirrors: "SC'21 Fig 1b (compare_with_Philly_trace.ipynb)",
    summary: "Share of GPU time by final status, Helios vs Philly",
    params: &[],
    run: run_gpu_time_by_status,
};

/// (label, GPU seconds) per status group, in the given order.
fn gpu_time_by(lf: LazyFrame, groups: Vec<(&str, Expr)>) -> Result<Vec<(String, f64)>> {
    let aggs: Vec<Expr> = groups
        .iter()
        .enumerate()
        .map(|(i, (_, f))| {
            (col("gpus").cast(DataType::Float64) * col("run_s")).filter(f.clone()).sum().alias(format!("g{i}"))
        })
        .collect();
    let df = collect(lf.select(aggs), "GPU time by status")?;
    groups.iter().enumerate().map(|(i, (l, _))| Ok((l.to_string(), scalar(&df, &format!("g{i}"))?))).collect()
}

fn run_gpu_time_by_status(ctx: &Ctx, _: &Args) -> Result<Output> {
    const SRC: &str = "SC'21 Fig 1b (HeliosArtifact notebook)";
    let st = |s: &str| col("state").eq(lit(s.to_string()));
    let helios = gpu_time_by(
        jobs(ctx)?.filter(col("gpus").gt(lit(0))),
        vec![("Completed", st("COMPLETED")), ("Canceled", st("CANCELLED")), ("Failed", is_failed())],
    )?;
    let mut rows = vec![("Helios", helios, [51.3, 39.4, 9.3])];
    let mut def = String::from("GPU time = sum of gpus * run_s (GPU seconds) per final status over GPU jobs; share = status / (sum of the three). Helios (all clusters): COMPLETED, CANCELLED, failed = FAILED + TIMEOUT + NODE_FAIL (the summary CSV's grouping; SUSPENDED in none). ");
    if let Some(lf) = philly_gpu_jobs(ctx) {
        let ps = |s: &str| col("status").eq(lit(s.to_string()));
        let philly =
            gpu_time_by(lf, vec![("Completed", ps("Pass")), ("Canceled", ps("Killed")), ("Failed", ps("Failed"))])?;
        rows.push(("Philly", philly, [31.3, 32.6, 36.1]));
        def.push_str("Philly: philly/jobs with gpus > 0 (first-attempt GPUs) and run_s (first start to last end) recorded, status Pass / Killed / Failed.");
    } else {
        def.push_str("The store has no Philly trace: only Helios is emitted.");
    }
    let mut t = ResultTable::new(&["trace", "status", "gpu_time_s", "share_pct"]);
    let mut heads = Vec::new();
    for (trace, groups, published) in rows {
        let total: f64 = groups.iter().map(|g| g.1).sum();
        for ((status, v), p) in groups.iter().zip(published) {
            t.push(vec![trace.into(), status.as_str().into(), Cell::Float(*v), Cell::Float(pct(*v, total))]);
            let key = format!("{}.{}", trace.to_lowercase(), status.to_lowercase());
            heads.push(
                Headline::new(&key, &format!("{trace} GPU time {status}"), pct(*v, total), "%").published(p, SRC),
            );
        }
    }
    let mut out = Output::new("helios.gpu-time-by-status", "GPU time by final status", def);
    out.table("gpu-time", t);
    out.headlines("summary", heads);
    Ok(out)
}

pub const DURATION_GPU_CPU: Analysis = Analysis {
    id: "helios.duration-gpu-cpu",
    scope: Scope::Helios,
    mirrors: "SC'21 Fig 5 (job characterization.ipynb)",
    summary: "GPU-job and CPU-job duration CDFs on the 2^i s grid, per cluster",
    params: &[],
    run: run_duration_gpu_cpu,
};

fn run_duration_gpu_cpu(ctx: &Ctx, _: &Args) -> Result<Output> {
    let clusters = present_clusters(ctx)?;
    let labels: Vec<&str> = clusters.iter().map(String::as_str).collect();
    let mut out = Output::new("helios.duration-gpu-cpu", "GPU vs CPU job duration", "Per cluster, helios/jobs GPU jobs (gpus > 0) and CPU jobs (gpus == 0), duration = run_s; y = 100 * count(duration <= t) / count at t = 2^i s, i = 0..21 (the notebook's fixed grid); jobs with no duration excluded.");
    let mut heads = Vec::new();
    for (part, filter) in [("gpu", col("gpus").gt(lit(0))), ("cpu", col("gpus").eq(lit(0)))] {
        let dists = dists_by(jobs(ctx)?.filter(filter), col("cluster"), col("run_s"), &labels, "durations by cluster")?;
        for (c, d) in &dists {
            heads.push(Headline::new(
                &format!("{c}.{part}.median"),
                &format!("{c} {part} job median duration"),
                d.quantile(0.5),
                "s",
            ));
        }
        let series = dists.iter().map(|(c, d)| (c.clone(), grid_cdf(d))).collect();
        out.curves(part, &format!("{} job duration (s)", part.to_uppercase()), "fraction of jobs (%)", series);
    }
    out.headlines("summary", heads);
    Ok(out)
}

/// The job-size points of Fig 6; the last one (80) stands for `<= 2048`.
const SIZE_POINTS: [i64; 13] = [1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 56, 64, 80];

pub const JOB_SIZE: Analysis = Analysis {
    id: "helios.job-size",
    scope: Scope::Helios,
    mirrors: "SC'21 Fig 6 (job characterization.ipynb)",
    summary: "CDF of GPU-job size and share of GPU time by job size, per cluster",
    params: &[],
    run: run_job_size,
};

fn run_job_size(ctx: &Ctx, _: &Args) -> Result<Output> {
    let clusters = present_clusters(ctx)?;
    let lf = jobs(ctx)?
        .filter(col("gpus").gt(lit(0)))
        .group_by([col("cluster"), col("gpus")])
        .agg([len().cast(DataType::Int64).alias("n"), gpu_time().alias("gt")]);
    let df = collect(lf, "job sizes")?;
    let (cs, gs, ns, ts) = (strs(&df, "cluster")?, i64s(&df, "gpus")?, i64s(&df, "n")?, f64s(&df, "gt")?);
    let (mut by_jobs, mut by_time) = (Vec::new(), Vec::new());
    for c in &clusters {
        let rows: Vec<usize> = (0..df.height()).filter(|&i| cs[i].as_deref() == Some(c.as_str())).collect();
        let share = |vals: &dyn Fn(usize) -> f64, limit: i64| {
            let total: f64 = rows.iter().map(|&i| vals(i)).sum();
            let part: f64 = rows.iter().filter(|&&i| gs[i].unwrap_or(0) <= limit).map(|&i| vals(i)).sum();
            pct(part, total)
        };
        let n = |i: usize| ns[i].unwrap_or(0) as f64;
        let t = |i: usize| ts[i].unwrap_or(0.0);
        let limit = |p: i64| if p == 80 { 2048 } else { p };
        by_jobs.push((c.clone(), SIZE_POINTS.iter().map(|&p| (p as f64, share(&n, limit(p)))).collect()));
        by_time.push((c.clone(), SIZE_POINTS.iter().map(|&p| (p as f64, share(&t, limit(p)))).collect()));
    }
    let mut out = Output::new("helios.job-size", "GPU job size", "Per cluster, helios/jobs GPU jobs (gpus > 0): at g in 1,2,4,8,12,16,24,32,40,48,56,64,80: jobs = 100 * count(gpus <= g) / count; gpu-time = 100 * sum(gpus * run_s | gpus <= g) / sum(gpus * run_s) (jobs without run_s add no GPU time). The point 80 stands for gpus <= 2048 (drawn as '>64', Fig 6).");
    out.curves("jobs", "GPUs per job (80 = all, '>64')", "fraction of GPU jobs (%)", by_jobs);
    out.curves("gpu-time", "GPUs per job (80 = all, '>64')", "fraction of GPU time (%)", by_time);
    Ok(out)
}

pub const FINAL_STATUS: Analysis = Analysis {
    id: "helios.final-status",
    scope: Scope::Helios,
    mirrors: "SC'21 Fig 7 (job characterization.ipynb)",
    summary: "Final status of CPU vs GPU jobs, and of GPU jobs by GPU count",
    params: &[],
    run: run_final_status,
};

/// Sizes of Fig 7b: exact GPU counts, then `>= 64`.
const STATUS_SIZES: [(&str, i64, i64); 7] =
    [("1", 1, 1), ("2", 2, 2), ("4", 4, 4), ("8", 8, 8), ("16", 16, 16), ("32", 32, 32), (">=64", 64, i64::MAX)];

fn run_final_status(ctx: &Ctx, _: &Args) -> Result<Output> {
    const SRC: &str = "helios_cluster_summary.csv total row (SC'21 Fig 7a)";
    let st = |s: &str| col("state").eq(lit(s.to_string()));
    let rate = |f: Expr| f.cast(DataType::Float64).mean();
    let lf = jobs(ctx)?.group_by([col("gpus").gt(lit(0)).alias("gpu")]).agg([
        len().cast(DataType::Int64).alias("n"),
        rate(st("COMPLETED")).alias("c"),
        rate(st("CANCELLED")).alias("k"),
        rate(is_failed()).alias("f"),
    ]);
    let df = collect(lf.sort(["gpu"], SortMultipleOptions::default()), "status rates")?;
    let mut t = ResultTable::new(&["jobs", "count", "completed_pct", "cancelled_pct", "failed_pct"]);
    let mut heads = Vec::new();
    let (ns, cs, ks, fs) = (i64s(&df, "n")?, f64s(&df, "c")?, f64s(&df, "k")?, f64s(&df, "f")?);
    let published = [("CPU", [90.9, 3.0, 6.1]), ("GPU", [62.4, 22.1, 15.5])];
    for (i, (kind, pubs)) in published.iter().enumerate().take(df.height()) {
        let vals = [cs[i], ks[i], fs[i]].map(|v| 100.0 * v.unwrap_or(f64::NAN));
        t.push(vec![(*kind).into(), Cell::from(ns[i]), vals[0].into(), vals[1].into(), vals[2].into()]);
        for ((name, v), p) in ["completed", "cancelled", "failed"].iter().zip(vals).zip(pubs) {
            let key = format!("{}.{name}", kind.to_lowercase());
            heads.push(Headline::new(&key, &format!("{kind} jobs {name}"), v, "%").published(*p, SRC));
        }
    }
    let mut out = Output::new("helios.final-status", "Final job status", FINAL_STATUS_DEF);
    out.table("cpu-vs-gpu", t);
    out.table("by-size", status_by_size(ctx)?);
    out.headlines("summary", heads);
    Ok(out)
}

/// Fig 7b: GPU jobs of all clusters with exactly g GPUs (or >= 64).
fn status_by_size(ctx: &Ctx) -> Result<ResultTable> {
    let mut t = ResultTable::new(&["gpus", "jobs", "completed_pct", "cancelled_pct", "failed_pct"]);
    for (label, lo, hi) in STATUS_SIZES {
        let st = |s: &str| col("state").eq(lit(s.to_string()));
        let lf = jobs(ctx)?.filter(col("gpus").gt_eq(lit(lo)).and(col("gpus").lt_eq(lit(hi)))).select([
            len().cast(DataType::Int64).alias("n"),
            st("COMPLETED").cast(DataType::Float64).mean().alias("c"),
            st("CANCELLED").cast(DataType::Float64).mean().alias("k"),
        ]);
        let df = collect(lf, "status by size")?;
        let n = i64s(&df, "n")?[0].unwrap_or(0);
        let (c, k) = (100.0 * scalar(&df, "c")?, 100.0 * scalar(&df, "k")?);
        t.push(vec![label.into(), Cell::Int(n), c.into(), k.into(), (100.0 - c - k).into()]);
    }
    Ok(t)
}

const FINAL_STATUS_DEF: &str = "Table cpu-vs-gpu (Fig 7a, the summary CSV's complete/cancel/fail_rate_cpu/_gpu): all helios/jobs, CPU = gpus == 0, GPU = gpus > 0; completed = COMPLETED, cancelled = CANCELLED, failed = FAILED + TIMEOUT + NODE_FAIL, each / all jobs of the kind (a SUSPENDED job counts in the denominator only). Table by-size (Fig 7b): GPU jobs of all clusters with gpus == g for g in 1,2,4,8,16,32 and gpus >= 64 (other sizes, e.g. 3, excluded as upstream); failed = every state other than COMPLETED and CANCELLED (the notebook's definition, so SUSPENDED counts as failed there). Percent.";
