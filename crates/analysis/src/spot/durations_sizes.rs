//! `spot.durations-sizes`: job durations and sizes per class (HP, Spot and
//! all): GFS (ASPLOS'26) Sec 2 finds LLM-era jobs long-lived (P90 6.4
//! hours, P99 19.8 days) and asking whole GPUs, often many workers.

use polars::prelude::*;

use super::{jobs, CLASSES};
use crate::declare::{About, Analyze, Published, Scope};
use crate::frame::dists_by;
use crate::output::{Cell, Headline, Output, ResultTable};
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_stats::Dist;

const SOURCE: &str = "GFS (ASPLOS'26) Sec 2 (job durations of the trace's cluster)";

pub struct DurationsSizes;

impl Analyze for DurationsSizes {
    type Params = ();
    const ABOUT: About = About {
        id: "spot.durations-sizes",
        scope: Scope::Spot,
        mirrors: "GFS (ASPLOS'26) Sec 2 (durations and sizes of HP and Spot jobs)",
        summary: "Durations, GPUs per job, workers and GPUs per worker of HP and Spot jobs",
        title: "Durations and sizes of HP and Spot jobs",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors GFS Sec 2 (job durations and sizes).

- **Computes,** per class (HP, Spot) and for all jobs: the distributions of `duration_s`, GPUs per
  job (workers × `gpu_request`) and workers; part `quantiles`: n, P50, P90, P99 (linear) and mean
  of each, also of `gpu_request`.
- **Headlines:** `<series>.duration_p50` and `.duration_p90` in hours, `.duration_p99` in days.
- **Published:** `all.duration_p90` = 6.4 h and `all.duration_p99` = 19.8 days (GFS Sec 2).
- **Differences:** none.
"##;
    const PUBLISHED: &'static [Published] =
        &[Published::new("all.duration_p90", 6.4, "h", SOURCE), Published::new("all.duration_p99", 19.8, "d", SOURCE)];

    fn definition(_: &()) -> String {
        "spot/jobs per class (HP, Spot) and all: duration = duration_s; GPUs per job = workers x gpu_request; workers = worker_num; GPUs per worker = gpu_request. Distributions over the jobs with a value; table quantiles: n, P50, P90, P99 (linear interpolation) and mean per quantity and series; the headlines give the P90 duration in hours and the P99 in days, as the paper states them.".into()
    }

    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        let labels = ["all", CLASSES[0], CLASSES[1]];
        let with_all = |lf: LazyFrame| -> Result<LazyFrame> {
            concat(
                [lf.clone().with_column(lit("all").alias("series")), lf.with_column(col("job_type").alias("series"))],
                UnionArgs::default(),
            )
            .map_err(|e| tracelab_schema::error::Error::polars("spot series".to_string(), e))
        };
        let lf = with_all(jobs(ctx)?)?;
        let by = |value: Expr, what: &str| dists_by(lf.clone(), col("series"), value, &labels, what);
        let durations = by(col("duration_s"), "spot durations")?;
        let gpus = by(col("gpus"), "spot GPUs per job")?;
        let workers = by(col("workers"), "spot workers")?;
        let per_worker = by(col("gpu_request"), "spot GPUs per worker")?;
        let mut t = ResultTable::new(&["quantity", "series", "n", "p50", "p90", "p99", "mean"]);
        for (what, dists) in
            [("duration_s", &durations), ("gpus", &gpus), ("workers", &workers), ("gpu_request", &per_worker)]
        {
            for (label, d) in dists.iter().filter(|(_, d)| d.n() > 0) {
                t.push(vec![
                    what.into(),
                    label.as_str().into(),
                    Cell::from(d.n()),
                    d.quantile(0.5).into(),
                    d.quantile(0.9).into(),
                    d.quantile(0.99).into(),
                    d.mean().into(),
                ]);
            }
        }
        out.table("quantiles", t);
        out.headlines("summary", headlines(&durations));
        let keep = |ds: Vec<(String, Dist)>| ds.into_iter().filter(|(_, d)| d.n() > 0).collect();
        out.dists("duration", "job duration (s)", keep(durations));
        out.dists("gpus", "GPUs per job (workers x gpu_request)", keep(gpus));
        out.dists("workers", "workers per job", keep(workers));
        Ok(())
    }
}

fn headlines(durations: &[(String, Dist)]) -> Vec<Headline> {
    let mut heads = Vec::new();
    for (label, d) in durations.iter().filter(|(_, d)| d.n() > 0) {
        heads.push(Headline::new(
            &format!("{label}.duration_p50"),
            &format!("{label} median duration"),
            d.quantile(0.5) / 3600.0,
            "h",
        ));
        heads.push(Headline::new(
            &format!("{label}.duration_p90"),
            &format!("{label} P90 duration"),
            d.quantile(0.9) / 3600.0,
            "h",
        ));
        heads.push(Headline::new(
            &format!("{label}.duration_p99"),
            &format!("{label} P99 duration"),
            d.quantile(0.99) / 86_400.0,
            "d",
        ));
    }
    heads
}
