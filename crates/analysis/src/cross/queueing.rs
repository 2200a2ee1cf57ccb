//! `cross.queueing`: queueing delay per trace and Helios cluster (unified `jobs.queue_s`).

use polars::prelude::col;

use super::dists::{definition, view};
use super::ViewParams;
use crate::declare::{About, Analyze, Memory, Scope};
use crate::output::Output;
use crate::Ctx;
use tracelab_schema::error::Result;

pub struct Queueing;

impl Analyze for Queueing {
    type Params = ViewParams;
    /// Peak 0.79 GB over the 4.52 M unified jobs of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::unified::JOBS, 175);
    const ABOUT: About = About {
        id: "cross.queueing",
        scope: Scope::Cross,
        mirrors: "tracelab (cross-trace view)",
        summary: "Queueing delay CDF per trace and Helios cluster, P50/P90/P99 table",
        title: "Queueing delay across traces",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
tracelab cross-trace view.

- **Computes** the distribution of `queue_s` (seconds) per series, with the same parts and rules as
  [cross.runtime](#crossruntime).
"##;

    fn definition(p: &ViewParams) -> String {
        definition("Queueing delay = unified jobs.queue_s, in seconds.", p.jobs)
    }

    fn run(ctx: &Ctx, p: &ViewParams, out: &mut Output) -> Result<()> {
        view(ctx, p.jobs, col("queue_s"), "Queueing delay (s)", out)
    }
}
