//! `cross.wait-fraction`: the queueing share of the completion time per trace and Helios cluster.

use polars::prelude::*;

use super::dists::{definition, view};
use super::ViewParams;
use crate::declare::{About, Analyze, Memory, Scope};
use crate::output::Output;
use crate::Ctx;
use tracelab_schema::error::Result;

pub struct WaitFraction;

impl Analyze for WaitFraction {
    type Params = ViewParams;
    /// Peak 0.85 GB over the 4.52 M unified jobs of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::unified::JOBS, 190);
    const ABOUT: About = About {
        id: "cross.wait-fraction",
        scope: Scope::Cross,
        mirrors: "tracelab (cross-trace view)",
        summary: "wait / (wait + run) CDF per trace and Helios cluster",
        title: "Queueing share of completion time across traces",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
tracelab cross-trace view.

- **Computes** 100 × `queue_s` / (`queue_s` + `run_s`) for jobs with both values and a positive
  sum, per series, with the parts of [cross.runtime](#crossruntime).
"##;

    fn definition(p: &ViewParams) -> String {
        definition("100 * queue_s / (queue_s + run_s), jobs with both known and queue_s + run_s > 0, in %.", p.jobs)
    }

    fn run(ctx: &Ctx, p: &ViewParams, out: &mut Output) -> Result<()> {
        view(ctx, p.jobs, wait_share(), "wait / (wait + run) (%)", out)
    }
}

/// 100 * queue / (queue + run) where queue + run > 0, else null.
fn wait_share() -> Expr {
    let sum = col("queue_s") + col("run_s");
    when(sum.clone().gt(lit(0.0))).then(lit(100.0) * col("queue_s") / sum).otherwise(lit(NULL).cast(DataType::Float64))
}
