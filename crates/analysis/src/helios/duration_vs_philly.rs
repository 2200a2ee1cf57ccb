//! `helios.duration-vs-philly`: the GPU-job duration CDF on the 2^i s grid,
//! Helios against Philly (SC'21 Fig 1a, HeliosArtifact
//! `compare_with_Philly_trace.ipynb`).

use polars::prelude::*;

use super::{grid_cdf, jobs, philly_gpu_jobs};
use crate::declare::{About, Analyze, Scope};
use crate::frame::dist;
use crate::output::{Headline, Output};
use crate::Ctx;
use tracelab_schema::error::Result;

pub struct DurationVsPhilly;

impl Analyze for DurationVsPhilly {
    type Params = ();
    const ABOUT: About = About {
        id: "helios.duration-vs-philly",
        scope: Scope::Helios,
        mirrors: "SC'21 Fig 1a (compare_with_Philly_trace.ipynb)",
        summary: "GPU-job duration CDF on the 2^i s grid, Helios vs Philly",
        title: "GPU-job duration, Helios vs Philly",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors SC'21 Fig 1a, notebook H1 (`compare_philly`).

- **Helios:** GPU jobs of all clusters, `run_s`; y = 100 × count(`run_s` ≤ t) / count at
  t = 2^i s, i = 0..21 (the grid CDF). Jobs without a duration are left out.
- **Philly** (when the store holds it): `philly/jobs` with `gpus` > 0 (first attempt), `run_s`
  (first start to last end, in UTC: see [Philly durations](#time)), every status, on the same
  grid.
- **Output:** part `cdf`; headlines: the median duration of each series.
- **Published:** none.
- **Differences:** the notebook reads Philly from the artifact's `philly_trace.csv`, which is not
  published; tracelab uses its Philly store with the ATC'19 notebook's definitions. Without a
  Philly trace in the store only the Helios series is output.
"##;

    fn definition(_: &()) -> String {
        "GPU jobs (gpus > 0) of all Helios clusters, duration = run_s (raw `duration`); y = 100 * count(duration <= t) / count at t = 2^i s, i = 0..21 (the notebook's fixed grid joined by lines, not an ECDF); jobs with no duration excluded. {philly}".into()
    }

    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        run_duration_vs_philly(ctx, out)
    }
}

fn run_duration_vs_philly(ctx: &Ctx, out: &mut Output) -> Result<()> {
    let helios = dist(jobs(ctx)?.filter(col("gpus").gt(lit(0))), col("run_s"), "helios GPU durations")?;
    let mut series = vec![("Helios".to_string(), grid_cdf(&helios))];
    let mut heads = vec![Headline::new("helios.median", "Helios GPU-job median duration", helios.quantile(0.5), "s")];
    match philly_gpu_jobs(ctx) {
        Some(lf) => {
            let philly = dist(lf, col("run_s"), "philly GPU durations")?;
            heads.push(Headline::new("philly.median", "Philly GPU-job median duration", philly.quantile(0.5), "s"));
            series.push(("Philly".to_string(), grid_cdf(&philly)));
            out.fill("philly", PHILLY_DEF);
        }
        None => {
            out.fill("philly", "The store has no Philly trace: only the Helios series is emitted.");
        }
    }
    out.curves("cdf", "GPU job duration (s)", "fraction of jobs (%)", series);
    out.headlines("summary", heads);
    Ok(())
}

const PHILLY_DEF: &str = "Philly: philly/jobs with gpus > 0 (GPUs of the first attempt), duration = run_s = last attempt end - first attempt start, a difference of UTC instants (the ATC'19 notebook's run_time, spanning retries, which on its naive wall clock is 60 min less across the 2017-11-05 fall-back; HeliosArtifact's philly_trace.csv, not public, may differ), every status.";
