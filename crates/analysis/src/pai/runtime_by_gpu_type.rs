//! `pai.runtime-by-gpu-type`: task runtime per assigned GPU type, Terminated
//! tasks only (notebook A12, the notebook's only status filter).

use polars::prelude::*;

use super::frames;
use super::wait::GPU_TYPES;
use crate::declare::{About, Analyze, Scope};
use crate::frame::dists_by;
use crate::output::Output;
use crate::Ctx;
use tracelab_schema::error::Result;

pub struct RuntimeByGpuType;

impl Analyze for RuntimeByGpuType {
    type Params = ();
    const ABOUT: About = About {
        id: "pai.runtime-by-gpu-type",
        scope: Scope::Pai,
        mirrors: "notebook A12",
        summary: "runtime CDF per assigned GPU type, Terminated tasks only",
        title: "Runtime by GPU type (Terminated tasks)",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors notebook cell A12 (no paper figure).

- **Reads** `dfa` columns `status`, `gpu_type`, `runtime_i`.
- **Computes**, for tasks whose own `status` is Terminated, the distribution of `runtime_i`
  (seconds) per GPU type T4, MISC, P100, V100, V100M32. The type is the one in the task table,
  i.e. the type the task was given. Part `by-type`.
- **Published:** none.
- **Differences:** none. This is the only notebook cell that filters on status; every other PAI
  analysis counts tasks of every status.
"##;

    fn definition(_: &()) -> String {
        "dfa with task status == Terminated (the notebook's only status filter); runtime_i (mean \
         instance runtime, s) per assigned GPU type; nulls dropped"
            .into()
    }

    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        let terminated =
            frames::tasks(ctx, &["status", "gpu_type", "runtime_i_s"])?.filter(col("status").eq(lit("Terminated")));
        let series = dists_by(terminated, col("gpu_type"), col("runtime_i_s"), &GPU_TYPES, "runtime by type")?;
        out.dists("by-type", "runtime (s)", series);
        Ok(())
    }
}
