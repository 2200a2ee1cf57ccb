//! `pai.requests-by-hour`: resources requested per hour of day as box
//! statistics over complete days (notebook A6:
//! `get_hourly_task_resource_request`).

use polars::prelude::*;

use super::frames;
use super::hourly::{by_hour_boxes, REQUEST_COLUMNS};
use crate::declare::{About, Analyze, Memory, Scope};
use crate::output::Output;
use crate::params::{choice, params, Param};
use crate::Ctx;
use tracelab_schema::error::Result;

choice! {
    /// The requested resource, in the upstream helper's units.
    pub enum Resource { Cpu = "cpu", Gpu = "gpu", Mem = "mem" }
}

const RESOURCE: Param<Resource> = Param::choice(
    "resource",
    "cpu",
    "requested resource per hour: cpu (plan_cpu_pct/100, vCPU), gpu (plan_gpu_pct/100, GPUs), mem (plan_mem_gib/1000)",
);

params! {
    pub struct RequestsByHourParams {
        pub resource: Resource = RESOURCE,
    }
}

impl Resource {
    /// (per-instance column, divisor, unit as the definition states it).
    fn scaled(self) -> (&'static str, f64, &'static str) {
        match self {
            Resource::Cpu => ("plan_cpu_pct", 100.0, "vCPU (plan_cpu_pct/100)"),
            Resource::Gpu => ("plan_gpu_pct", 100.0, "GPUs (plan_gpu_pct/100)"),
            Resource::Mem => ("plan_mem_gib", 1000.0, "plan_mem_gib/1000 (as upstream)"),
        }
    }
}

pub struct RequestsByHour;

impl Analyze for RequestsByHour {
    type Params = RequestsByHourParams;
    /// Peak 0.97 GB over the 7.18 M instances of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::pai::INSTANCE, 140);
    const ABOUT: About = About {
        id: "pai.requests-by-hour",
        scope: Scope::Pai,
        mirrors: "notebook A6",
        summary: "resources requested per hour of day: box statistics over complete days",
        title: "Resources requested by hour of day",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors notebook cell A6 (no paper figure).

- **Reads** `dfw` rows with a `job_name` (the notebook's filter), instance `start_time` and the
  per-instance plans.
- **Computes**, per (local date, local hour) of the instance start, the sum of the per-instance
  request in the chosen unit; dates missing any hour dropped; box statistics per hour of day as
  in [pai.submissions-by-hour](#paisubmissions-by-hour). Part `boxes`.
- **Published:** none.
- **Differences:** none. The notebook draws only the CPU panel; `gpu` and `mem` use the same
  helper's other branches.
"##;

    fn definition(p: &RequestsByHourParams) -> String {
        format!(
            "dfw (job_name not null), instance start_time in Asia/Shanghai; per (date, hour) the sum of the \
             per-instance request in {}; dates missing any hour dropped; box per hour of day, whiskers at 1 x IQR",
            p.resource.scaled().2
        )
    }

    fn run(ctx: &Ctx, p: &RequestsByHourParams, out: &mut Output) -> Result<()> {
        let (column, scale, _) = p.resource.scaled();
        let mut cols = REQUEST_COLUMNS.to_vec();
        cols.push("job_name");
        let lf = frames::instances(ctx, &cols)?.filter(col("job_name").is_not_null());
        let value = col(column).cast(DataType::Float64) / lit(scale);
        out.table("boxes", by_hour_boxes(lf, col("start_time"), value)?);
        Ok(())
    }
}
