//! `helios.diurnal-submissions`: the mean GPU jobs submitted per hour by
//! hour of day, per cluster (SC'21 Fig 2b, HeliosArtifact
//! `cluster_characterization.ipynb`, `cluster_diurnal_utilization_tp`), from
//! the 10-minute throughput of `helios.throughput`.

use polars::prelude::*;

use super::throughput::throughput;
use super::{present_clusters, series_by_cluster, GRID_END_DAY, GRID_FIRST_DAY};
use crate::declare::{About, Analyze, Scope};
use crate::frame::collect;
use crate::output::{Headline, Output};
use crate::Ctx;
use tracelab_schema::error::Result;

pub struct DiurnalSubmissions;

impl Analyze for DiurnalSubmissions {
    type Params = ();
    const ABOUT: About = About {
        id: "helios.diurnal-submissions",
        scope: Scope::Helios,
        mirrors: "SC'21 Fig 2b (cluster_characterization.ipynb, cluster_diurnal_utilization_tp)",
        summary: "Mean GPU jobs submitted per hour, by hour of day, per cluster",
        title: "Diurnal GPU-job submissions",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors SC'21 Fig 2b, notebook H4 (`cluster_diurnal_utilization_tp`).

- **Computes**, per cluster and local hour of day, the GPU jobs (`gpus` ≠ 0) submitted in that hour
  over the throughput grid, divided by the 181 days of the grid: the mean hourly count, as the
  notebook gets it by summing [helios.throughput](#heliosthroughput) per hour and averaging by hour
  of day. Hours without any submission are 0. Part `by-hour`; headline: the busiest hour.
- **Published:** none.
- **Differences:** none.
"##;

    fn definition(_: &()) -> String {
        DIURNAL_SUB_DEF.into()
    }

    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        run_diurnal_submissions(ctx, out)
    }
}

fn run_diurnal_submissions(ctx: &Ctx, out: &mut Output) -> Result<()> {
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
    out.curves("by-hour", "hour of day (Asia/Shanghai)", "mean GPU jobs submitted per hour", series);
    out.headlines("summary", heads);
    Ok(())
}

const DIURNAL_SUB_DEF: &str = "helios/jobs with gpus != 0 whose submit_time (Asia/Shanghai) falls in 2020-04-01 00:00 .. 2020-09-28 24:00 (the throughput grid), counted per local hour of day and divided by the 181 grid days: the mean of the hourly sums of submit_gpu_job (helios.throughput resampled hourly, Fig 2b), per cluster.";
