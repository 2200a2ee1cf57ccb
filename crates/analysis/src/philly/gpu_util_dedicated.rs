//! `philly.gpu-util-dedicated`: GPU utilization per GPU-minute of 8- and
//! 16-GPU jobs on dedicated servers (ATC'19 Fig 6, the notebook's
//! `get_utilization_data(only_large_jobs, only_dedicated_servers)`).

use super::gpu_minutes::{samples, size_label, Filter, SAMPLE_RULE};
use crate::declare::{About, Analyze, Memory, Scope};
use crate::output::Output;
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_stats::Dist;

pub struct GpuUtilDedicated;

impl Analyze for GpuUtilDedicated {
    type Params = ();
    /// Peak 0.75-0.89 GB over the 42.3 M gpu_util rows of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::philly::GPU_UTIL, 21);
    const ABOUT: About = About {
        id: "philly.gpu-util-dedicated",
        scope: Scope::Philly,
        mirrors: "ATC'19 Fig 6 (notebook get_utilization_data(only_large_jobs, only_dedicated_servers))",
        summary: "Per-GPU-minute utilization CDF of 8- and 16-GPU jobs on dedicated servers",
        title: "GPU utilization of large jobs on dedicated servers (ATC'19 Fig 6)",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors ATC'19 Fig 6, notebook P5 (`get_utilization_data` with `only_large_jobs` and
`only_dedicated_servers`).

- **Computes** the samples of [philly.gpu-util-by-status](#phillygpu-util-by-status), restricted to
  jobs of 8 or 16 GPUs (first attempt) and to attempts on at most GPUs/8 machines (one machine for
  8 GPUs, two for 16), pooled over statuses. Part `by-size`: one distribution for 8 and one for
  16 GPUs, in %.
- **Published:** none.
- **Differences:** the UTC stepping and matching described above (no `clock` parameter).
"##;

    fn definition(_: &()) -> String {
        format!(
            "{SAMPLE_RULE} Only jobs with first-attempt GPUs 8 or 16 (only_large_jobs), and only attempts with \
             len(detail) <= num_gpus / 8 servers (only_dedicated_servers: 1 server for 8 GPUs, 2 for 16); samples \
             pooled over final statuses. Utilization in %."
        )
    }

    /// P5: 8- and 16-GPU jobs, attempts on dedicated servers, pooled over
    /// statuses.
    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        let all = samples(ctx, Filter::Dedicated)?;
        let series = [8i64, 16]
            .iter()
            .map(|&g| (size_label(g), Dist::pooled(all.iter().filter(|((_, s), _)| *s == g).map(|(_, d)| d))))
            .collect();
        out.dists("by-size", "GPU utilization (%)", series);
        Ok(())
    }
}
