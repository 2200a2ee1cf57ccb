//! `cross.runtime`: job runtime per trace and Helios cluster (unified `jobs.run_s`).

use polars::prelude::col;

use super::dists::{definition, view};
use super::ViewParams;
use crate::declare::{About, Analyze, Memory, Scope};
use crate::output::Output;
use crate::Ctx;
use tracelab_schema::error::Result;

pub struct Runtime;

impl Analyze for Runtime {
    type Params = ViewParams;
    /// Peak 0.81 GB over the 4.52 M unified jobs of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::unified::JOBS, 180);
    const ABOUT: About = About {
        id: "cross.runtime",
        scope: Scope::Cross,
        mirrors: "tracelab (cross-trace view)",
        summary: "Job runtime CDF per trace and Helios cluster, P50/P90/P99 table",
        title: "Job runtime across traces",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
tracelab cross-trace view.

- **Computes** the distribution of `run_s` (seconds) per series (part `cdf`) and n, P50, P90, P99
  (part `quantiles`). Null, NaN and infinite values skipped; negative values (clock skew in the
  raw logs) kept.
"##;

    fn definition(p: &ViewParams) -> String {
        definition("Runtime = unified jobs.run_s, in seconds.", p.jobs)
    }

    fn run(ctx: &Ctx, p: &ViewParams, out: &mut Output) -> Result<()> {
        view(ctx, p.jobs, col("run_s"), "Runtime (s)", out)
    }
}
