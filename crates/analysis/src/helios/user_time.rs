//! `helios.user-time`: the concentration of GPU time and CPU-only time over
//! users, per cluster (SC'21 Fig 8, HeliosArtifact `user
//! characterization.ipynb`).

use super::present_clusters;
use super::users::{concentration, user_counts, user_totals, LORENZ_DEF};
use crate::declare::{About, Analyze, Memory, Scope};
use crate::output::Output;
use crate::Ctx;
use tracelab_schema::error::Result;

pub struct UserTime;

impl Analyze for UserTime {
    type Params = ();
    /// Peak 0.77 GB over the 3.36 M Helios jobs of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::helios::JOBS, 230);
    const ABOUT: About = About {
        id: "helios.user-time",
        scope: Scope::Helios,
        mirrors: "SC'21 Fig 8 (user characterization.ipynb)",
        summary: "Concentration of GPU time and CPU-only time over users, per cluster",
        title: "User concentration of GPU and CPU time",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors SC'21 Fig 8, notebook H10 (`plot_cdf_time_user`).

- **Per cluster and user** (every user with a job in that cluster): `total_gpu_time` = sum of
  `gpus` × `run_s` over the user's GPU jobs; `total_cpu_only_time` = sum of `cpus` × `run_s`
  over the user's CPU jobs (`parse_user`'s CPU time minus its GPU-job part).
- **Curves** (parts `gpu-time`, `cpu-time`): users sorted by the total, largest first, users with
  0 included; point i = (100 × i / (users − 1), 100 × share of the total held by the top i + 1
  users). The x values are the notebook's `np.linspace(0, 100, users)`; a single user sits at
  x = 0.
- **Headlines:** per cluster, the Gini coefficient of each total (Σ (2i − n − 1) x₍ᵢ₎ /
  (n Σ x) over ascending values) and the number of users.
- **Published:** none.
- **Differences:** none; the Gini is tracelab's addition.
"##;

    fn definition(_: &()) -> String {
        format!("{LORENZ_DEF} total_gpu_time = sum of gpus * run_s over the user's GPU jobs (gpus > 0); total_cpu_only_time = sum of cpus * run_s over the user's CPU jobs (gpus == 0), i.e. parse_user's total_cpu_time minus its GPU-job part.")
    }

    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        run_user_time(ctx, out)
    }
}

fn run_user_time(ctx: &Ctx, out: &mut Output) -> Result<()> {
    let clusters = present_clusters(ctx)?;
    let df = user_totals(ctx)?;
    let mut heads = Vec::new();
    let gpu = concentration(&df, &clusters, "total_gpu_time", &mut heads)?;
    let cpu = concentration(&df, &clusters, "total_cpu_only_time", &mut heads)?;
    heads.extend(user_counts(&gpu));
    out.curves("gpu-time", "fraction of users (%)", "fraction of total GPU time (%)", gpu);
    out.curves("cpu-time", "fraction of users (%)", "fraction of total CPU time (%)", cpu);
    out.headlines("summary", heads);
    Ok(())
}
