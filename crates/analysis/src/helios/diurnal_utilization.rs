//! `helios.diurnal-utilization`: the mean per-minute GPU allocation share
//! by hour of day, per cluster (SC'21 Fig 2a, HeliosArtifact
//! `cluster_characterization.ipynb`, `cluster_diurnal_utilization_tp`), from
//! the per-minute sequence of `helios.sequence`.

use polars::prelude::*;

use super::sequence::cluster_sequence;
use super::{present_clusters, series_by_cluster};
use crate::declare::{About, Analyze, Scope};
use crate::frame::collect;
use crate::output::{Headline, Output};
use crate::Ctx;
use tracelab_schema::error::Result;

pub struct DiurnalUtilization;

impl Analyze for DiurnalUtilization {
    type Params = ();
    const ABOUT: About = About {
        id: "helios.diurnal-utilization",
        scope: Scope::Helios,
        mirrors: "SC'21 Fig 2a (cluster_characterization.ipynb, cluster_diurnal_utilization_tp)",
        summary: "Mean per-minute GPU allocation share by hour of day, per cluster",
        title: "Diurnal GPU allocation",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors SC'21 Fig 2a, notebook H3 (`cluster_diurnal_utilization_tp`).

- **Computes**, per cluster and local hour of day, the mean of the per-minute `gpu_utilization`
  of [helios.sequence](#heliossequence) over all grid minutes in that hour (minutes with a null
  value, i.e. a zero total, left out), × 100. Part `by-hour`; headline: the mean of the 24 hourly
  means.
- **Published:** none as numbers (the image shows Saturn highest, about 80-87 %, and Earth
  lowest, about 68-75 %).
- **Differences:** none.
"##;

    fn definition(_: &()) -> String {
        DIURNAL_UTIL_DEF.into()
    }

    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        run_diurnal_utilization(ctx, out)
    }
}

fn run_diurnal_utilization(ctx: &Ctx, out: &mut Output) -> Result<()> {
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
    out.curves("by-hour", "hour of day (Asia/Shanghai)", "mean GPU allocation (%)", series);
    out.headlines("summary", heads);
    Ok(())
}

const DIURNAL_UTIL_DEF: &str = "Mean over all grid minutes with local hour h of the per-minute gpu_utilization of helios.sequence (allocated GPUs / the day's GPUs, rounded to 3 decimals, capped at 1; minutes with a zero total excluded), x100, per cluster; 2020-04-01..2020-09-28 Asia/Shanghai (Fig 2a).";
