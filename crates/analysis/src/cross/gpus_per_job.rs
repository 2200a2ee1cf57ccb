//! `cross.gpus-per-job`: GPUs requested per job per trace and Helios cluster.

use polars::prelude::*;

use super::dists::{definition, view};
use super::ViewParams;
use crate::declare::{About, Analyze, Memory, Scope};
use crate::output::Output;
use crate::Ctx;
use tracelab_schema::error::Result;

pub struct GpusPerJob;

impl Analyze for GpusPerJob {
    type Params = ViewParams;
    /// Peak 0.45 GB over the 4.52 M unified jobs of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::unified::JOBS, 100);
    const ABOUT: About = About {
        id: "cross.gpus-per-job",
        scope: Scope::Cross,
        mirrors: "tracelab (cross-trace view)",
        summary: "GPUs requested per job CDF per trace and Helios cluster",
        title: "GPUs per job across traces",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
tracelab cross-trace view.

- **Computes** the distribution of `gpus_requested` per series (see the table above for each
  trace's meaning), with the parts of [cross.runtime](#crossruntime).
"##;

    fn definition(p: &ViewParams) -> String {
        definition(
            "GPUs per job = unified jobs.gpus_requested (PAI: sum over tasks of inst_num x plan_gpu_pct / 100, \
             fractional with GPU sharing; Philly: GPUs of the first attempt; Helios: gpu_num).",
            p.jobs,
        )
    }

    fn run(ctx: &Ctx, p: &ViewParams, out: &mut Output) -> Result<()> {
        view(ctx, p.jobs, col("gpus_requested"), "GPUs requested", out)
    }
}
