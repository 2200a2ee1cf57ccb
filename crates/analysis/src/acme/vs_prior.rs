//! `acme.vs-prior`: AcmeTrace's GPU jobs beside Philly's, Helios' and
//! PAI's: the duration CDF (NSDI'24 Fig 2a, `cdf_job_duration_util` (a))
//! and the CDFs of GPUs per job by job count and by GPU time (Fig 2b/c,
//! `cdf_job_gpunum`). The owners' notebook reads the prior traces from files
//! its repository leaves out; here they come from the same store.

use polars::prelude::*;

use super::{duration_grid, grid_cdf, jobs, pct};
use crate::declare::{About, Analyze, Memory, Scope};
use crate::frame::{collect, dists_by, f64s};
use crate::output::{Cell, Headline, Output, ResultTable};
use crate::Ctx;
use tracelab_schema::error::{Error, Result};
use tracelab_schema::unified;
use tracelab_stats::Dist;

/// GPU counts the GPU CDFs are read at: the notebook evaluates 0..1024 on a
/// log2 axis; these are its steps (powers of two and the midpoints).
const GPU_GRID: [f64; 20] = [
    1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0, 48.0, 64.0, 96.0, 128.0, 192.0, 256.0, 384.0, 512.0, 768.0,
    1024.0,
];

/// Series and the unified trace they come from (None: acme/jobs).
const SERIES: [(&str, Option<&str>); 5] =
    [("Seren", None), ("Kalos", None), ("Philly", Some("philly")), ("Helios", Some("helios")), ("PAI", Some("pai"))];

pub struct VsPrior;

impl Analyze for VsPrior {
    type Params = ();
    /// Distributions over the unified GPU jobs of every trace.
    const MEMORY: Memory = Memory::PerRow(&unified::JOBS, 120);
    const ABOUT: About = About {
        id: "acme.vs-prior",
        scope: Scope::Acme,
        mirrors: "NSDI'24 Fig 2 (analysis.ipynb cdf_job_duration_util (a), cdf_job_gpunum)",
        summary: "GPU-job duration and GPUs-per-job CDFs of Seren and Kalos beside Philly, Helios and PAI",
        title: "LLM jobs beside prior DL traces",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors NSDI'24 Fig 2, notebook `cdf_job_duration_util` (a) and `cdf_job_gpunum`.

- **Series:** Seren, Kalos (`acme/jobs`, GPU jobs, raw duration), Philly, Helios, PAI (unified
  `jobs` with `gpus_requested` > 0, `run_s`, `gpus_requested`), those the store holds.
- **Computes:** part `duration`: the duration CDF on 2^i s, i = 0..21; part `gpus`: 100 × the share
  of jobs with at most x GPUs; part `gpu-time`: 100 × the share of the GPU time (GPUs × duration)
  of jobs with at most x GPUs (the notebook's `calculate_sum_cdf_customized_xaxis`); x at the
  steps of the notebook's log2 axis (1, 2, 3, 4, 6, 8, ..., 768, 1024). Part `quantiles`: GPU jobs,
  duration P50 and P90, GPU P50 and mean per series.
- **Published:** none.
- **Differences:** the notebook evaluates every integer x from 0 to 1024; tracelab the axis steps
  listed. Its prior-trace frames (per-task PAI, a filtered Philly) are not public; the unified
  table's definitions are used instead.
"##;

    fn definition(_: &()) -> String {
        "GPU jobs of each series. Seren, Kalos: acme/jobs with gpu_num > 0, duration = the raw duration column (as the notebook; Kalos' is end - submit), GPUs = gpu_num. Philly, Helios, PAI (when the store holds them): unified jobs with gpus_requested > 0, duration = run_s, GPUs = gpus_requested (PAI: a job's summed per-instance plans, fractional; the owners' PAI frame is per task). Part duration: 100 * share of jobs with duration <= t at t = 2^i s, i = 0..21. Part gpus: 100 * share of jobs with GPUs <= x; part gpu-time: 100 * share of the GPU time (GPUs x duration) of jobs with GPUs <= x; x on the notebook's log2 axis (1, 2, 3, 4, 6, ... 768, 1024). Jobs without a value are excluded.".into()
    }

    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        let frame = frame(ctx)?;
        let names: Vec<&str> = SERIES.iter().map(|s| s.0).collect();
        let durs = dists_by(frame.clone(), col("series"), col("run"), &names, "acme vs prior durations")?;
        let gpus = dists_by(frame.clone(), col("series"), col("g"), &names, "acme vs prior GPUs")?;
        let present: Vec<usize> = (0..names.len()).filter(|&i| gpus[i].1.n() > 0).collect();
        let dg = duration_grid();
        let mut time_series = Vec::new();
        for &i in &present {
            time_series.push((names[i].to_string(), gpu_time_cdf(&frame, names[i])?));
        }
        let mut t =
            ResultTable::new(&["series", "gpu_jobs", "duration_p50_s", "duration_p90_s", "gpus_p50", "gpus_mean"]);
        let mut heads = Vec::new();
        for &i in &present {
            let (d, g) = (&durs[i].1, &gpus[i].1);
            t.push(vec![
                names[i].into(),
                Cell::from(g.n()),
                d.quantile(0.5).into(),
                d.quantile(0.9).into(),
                g.quantile(0.5).into(),
                g.mean().into(),
            ]);
            heads.push(Headline::new(
                &format!("{}.duration_p50", names[i]),
                &format!("{} median GPU-job duration", names[i]),
                d.quantile(0.5),
                "s",
            ));
        }
        out.table("quantiles", t);
        out.headlines("summary", heads);
        let curves = |ds: &[(String, Dist)], grid: &[f64]| -> Vec<(String, Vec<(f64, f64)>)> {
            present.iter().map(|&i| (ds[i].0.clone(), grid_cdf(&ds[i].1, grid))).collect()
        };
        out.curves("duration", "GPU job duration (s)", "fraction of jobs (%)", curves(&durs, &dg));
        out.curves("gpus", "GPUs per job", "fraction of jobs (%)", curves(&gpus, &GPU_GRID));
        out.curves("gpu-time", "GPUs per job", "fraction of GPU time (%)", time_series);
        Ok(())
    }
}

/// (series, g, run) of every GPU job of the five series.
fn frame(ctx: &Ctx) -> Result<LazyFrame> {
    let acme = jobs(ctx)?.filter(col("gpus").gt(lit(0))).select([
        col("cluster").alias("series"),
        col("gpus").cast(DataType::Float64).alias("g"),
        col("run_s").alias("run"),
    ]);
    let mut parts = vec![acme];
    if let Ok(all) = ctx.store.scan(&unified::JOBS) {
        let label = SERIES
            .iter()
            .filter_map(|(n, t)| t.map(|t| (*n, t)))
            .fold(lit(NULL).cast(DataType::String), |rest, (n, t)| {
                when(col("trace").eq(lit(t))).then(lit(n)).otherwise(rest)
            });
        parts.push(all.filter(col("gpus_requested").gt(lit(0.0))).select([
            label.alias("series"),
            col("gpus_requested").alias("g"),
            col("run_s").alias("run"),
        ]));
    }
    concat(parts, UnionArgs::default())
        .map(|lf| lf.filter(col("series").is_not_null()))
        .map_err(|e| Error::polars("acme vs prior".to_string(), e))
}

/// The notebook's `calculate_sum_cdf_customized_xaxis` over GPU time:
/// (x, 100 * GPU time of jobs with GPUs <= x / all GPU time).
fn gpu_time_cdf(frame: &LazyFrame, series: &str) -> Result<Vec<(f64, f64)>> {
    let df = collect(
        frame
            .clone()
            .filter(col("series").eq(lit(series.to_string())).and(col("run").is_not_null()))
            .group_by([col("g")])
            .agg([(col("g") * col("run")).sum().alias("t")])
            .sort(["g"], SortMultipleOptions::default()),
        "acme vs prior GPU time",
    )?;
    let (gs, ts) = (f64s(&df, "g")?, f64s(&df, "t")?);
    let total: f64 = ts.iter().flatten().sum();
    Ok(GPU_GRID
        .iter()
        .map(|&x| {
            let part: f64 =
                gs.iter().zip(&ts).filter(|(g, _)| g.is_some_and(|g| g <= x)).map(|(_, t)| t.unwrap_or(0.0)).sum();
            (x, pct(part, total))
        })
        .collect())
}
