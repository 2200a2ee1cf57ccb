//! `helios.job-size`: the CDF of GPU-job size and the share of GPU time by
//! job size, per cluster (SC'21 Fig 6, HeliosArtifact `job
//! characterization.ipynb`).

use polars::prelude::*;

use super::{gpu_time, jobs, pct, present_clusters};
use crate::declare::{About, Analyze, Scope};
use crate::frame::{collect, f64s, i64s, strs};
use crate::output::Output;
use crate::Ctx;
use tracelab_schema::error::Result;

/// The job-size points of Fig 6; the last one (80) stands for `<= 2048`.
const SIZE_POINTS: [i64; 13] = [1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 56, 64, 80];

pub struct JobSize;

impl Analyze for JobSize {
    type Params = ();
    const ABOUT: About = About {
        id: "helios.job-size",
        scope: Scope::Helios,
        mirrors: "SC'21 Fig 6 (job characterization.ipynb)",
        summary: "CDF of GPU-job size and share of GPU time by job size, per cluster",
        title: "GPU job size",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors SC'21 Fig 6, notebook H8 (`plot_cdf_job_gpu_num`).

- **Computes**, per cluster over GPU jobs, at g = 1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 56, 64, 80:
  part `jobs` = 100 × count(`gpus` ≤ g) / count; part `gpu-time` = 100 × sum of `gpus` × `run_s`
  over jobs with `gpus` ≤ g / the total (jobs without `run_s` add no GPU time). The point 80
  stands for `gpus` ≤ 2048, i.e. every job (the figure labels it "> 64").
- **Published:** none.
- **Differences:** none.
"##;

    fn definition(_: &()) -> String {
        "Per cluster, helios/jobs GPU jobs (gpus > 0): at g in 1,2,4,8,12,16,24,32,40,48,56,64,80: jobs = 100 * count(gpus <= g) / count; gpu-time = 100 * sum(gpus * run_s | gpus <= g) / sum(gpus * run_s) (jobs without run_s add no GPU time). The point 80 stands for gpus <= 2048 (drawn as '>64', Fig 6).".into()
    }

    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        run_job_size(ctx, out)
    }
}

fn run_job_size(ctx: &Ctx, out: &mut Output) -> Result<()> {
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
    out.curves("jobs", "GPUs per job (80 = all, '>64')", "fraction of GPU jobs (%)", by_jobs);
    out.curves("gpu-time", "GPUs per job (80 = all, '>64')", "fraction of GPU time (%)", by_time);
    Ok(())
}
