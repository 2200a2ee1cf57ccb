//! `helios.user-queue`: the concentration of GPU-job queueing time over
//! users, per cluster (SC'21 Fig 9a, HeliosArtifact `user
//! characterization.ipynb`).

use super::present_clusters;
use super::users::{concentration, user_counts, user_totals, LORENZ_DEF};
use crate::declare::{About, Analyze, Memory, Scope};
use crate::output::Output;
use crate::Ctx;
use tracelab_schema::error::Result;

pub struct UserQueue;

impl Analyze for UserQueue {
    type Params = ();
    /// Peak 0.74 GB over the 3.36 M Helios jobs of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::helios::JOBS, 220);
    const ABOUT: About = About {
        id: "helios.user-queue",
        scope: Scope::Helios,
        mirrors: "SC'21 Fig 9a (user characterization.ipynb)",
        summary: "Concentration of GPU-job queueing time over users, per cluster",
        title: "User concentration of GPU queueing",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors SC'21 Fig 9a, notebook H11 (`plot_cdf_pend_user`).

- **Computes** the curve of [helios.user-time](#heliosuser-time) for `total_gpu_pend_time` =
  sum of `queue_s` over the user's GPU jobs, per cluster. Part `gpu-queue`; headlines: Gini and
  users per cluster.
- **Published:** none.
- **Differences:** none.
"##;

    fn definition(_: &()) -> String {
        format!("{LORENZ_DEF} total_gpu_pend_time = sum of queue_s (raw `queue`) over the user's GPU jobs (gpus > 0).")
    }

    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        run_user_queue(ctx, out)
    }
}

fn run_user_queue(ctx: &Ctx, out: &mut Output) -> Result<()> {
    let clusters = present_clusters(ctx)?;
    let df = user_totals(ctx)?;
    let mut heads = Vec::new();
    let series = concentration(&df, &clusters, "total_gpu_pend_time", &mut heads)?;
    heads.extend(user_counts(&series));
    out.curves("gpu-queue", "fraction of users (%)", "fraction of total GPU queueing time (%)", series);
    out.headlines("summary", heads);
    Ok(())
}
