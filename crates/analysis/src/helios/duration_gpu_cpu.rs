//! `helios.duration-gpu-cpu`: GPU-job and CPU-job duration CDFs on the 2^i s
//! grid, per cluster (SC'21 Fig 5, HeliosArtifact `job
//! characterization.ipynb`).

use polars::prelude::*;

use super::{grid_cdf, jobs, present_clusters};
use crate::declare::{About, Analyze, Scope};
use crate::frame::dists_by;
use crate::output::{Headline, Output};
use crate::Ctx;
use tracelab_schema::error::Result;

pub struct DurationGpuCpu;

impl Analyze for DurationGpuCpu {
    type Params = ();
    const ABOUT: About = About {
        id: "helios.duration-gpu-cpu",
        scope: Scope::Helios,
        mirrors: "SC'21 Fig 5 (job characterization.ipynb)",
        summary: "GPU-job and CPU-job duration CDFs on the 2^i s grid, per cluster",
        title: "GPU vs CPU job duration",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors SC'21 Fig 5, notebook H7 (`plot_cdf_job_time`).

- **Computes**, per cluster, the grid CDF (t = 2^i s, i = 0..21) of `run_s` of GPU jobs
  (`gpus` > 0, part `gpu`) and of CPU jobs (`gpus` = 0, part `cpu`); jobs without a duration
  left out. Headlines: each cluster's median GPU and CPU job duration.
- **Published:** none.
- **Differences:** none.
"##;

    fn definition(_: &()) -> String {
        "Per cluster, helios/jobs GPU jobs (gpus > 0) and CPU jobs (gpus == 0), duration = run_s; y = 100 * count(duration <= t) / count at t = 2^i s, i = 0..21 (the notebook's fixed grid); jobs with no duration excluded.".into()
    }

    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        run_duration_gpu_cpu(ctx, out)
    }
}

fn run_duration_gpu_cpu(ctx: &Ctx, out: &mut Output) -> Result<()> {
    let clusters = present_clusters(ctx)?;
    let labels: Vec<&str> = clusters.iter().map(String::as_str).collect();
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
    Ok(())
}
