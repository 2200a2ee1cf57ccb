//! `pai.hourly-requests`: CPU, GPU and memory requested per hour over one
//! week (notebook A5), by instance start in Asia/Shanghai.

use polars::prelude::*;

use super::frames;
use super::hourly::{points, week_series, WeekParams, REQUESTS_END, REQUEST_COLUMNS};
use crate::declare::{About, Analyze, Memory, Scope};
use crate::output::Output;
use crate::Ctx;
use tracelab_schema::error::Result;

pub struct HourlyRequests;

impl Analyze for HourlyRequests {
    type Params = WeekParams;
    /// Peak 0.69 GB over the 7.18 M instances of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::pai::INSTANCE, 100);
    const ABOUT: About = About {
        id: "pai.hourly-requests",
        scope: Scope::Pai,
        mirrors: "notebook A5",
        summary: "CPU, GPU and memory requested per hour over one week, by instance start",
        title: "Resources requested per hour over one week",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors notebook cell A5 (no paper figure).

- **Reads** `dfw`: each worker's instance `start_time` and its task's per-instance plans.
- **Computes**, per `hourofyear` of the instance start (as in
  [pai.hourly-submissions](#paihourly-submissions)), the sums of `plan_cpu_pct`/1000 (units of 10
  vCPU), `plan_gpu_pct`/100 (GPUs) and `plan_mem_gib`/100 (units of 100 GiB), the scales the notebook
  plots. Part `requests`, three curves.
  Hours 0 to 167, as the notebook plots this cell (`hour < 24*7`; A3 plots one hour more).
- **Published:** none.
- **Differences:** none.
"##;

    fn definition(p: &WeekParams) -> String {
        format!(
            "dfw (one row per worker with its task's per-instance plans), instance start_time in Asia/Shanghai; \
             per hourofyear the sums of plan_cpu_pct/1000 (10 CPU cores), plan_gpu_pct/100 (GPUs), plan_mem_gib/100 (100 GiB) \
             as the notebook scales them; hour = hourofyear - {}; hours 0..167 (the notebook's A5 range; A3 \
             plots 0..168); hours without instances are absent (as upstream)",
            p.offset
        )
    }

    fn run(ctx: &Ctx, p: &WeekParams, out: &mut Output) -> Result<()> {
        let sums: Vec<(&str, Expr)> = REQUEST_COLUMNS[1..].iter().map(|c| (*c, col(*c))).collect();
        let dfw = frames::instances(ctx, &REQUEST_COLUMNS)?;
        let df = week_series(dfw, col("start_time"), &sums, p.offset as i64, REQUESTS_END)?;
        let series = vec![
            ("CPU (x10 cores)".to_string(), points(&df, "plan_cpu_pct", 1000.0)?),
            ("GPU (GPUs)".to_string(), points(&df, "plan_gpu_pct", 100.0)?),
            ("memory (x100 GiB)".to_string(), points(&df, "plan_mem_gib", 100.0)?),
        ];
        out.curves("requests", "hour of the week (0 = Sunday 00:00)", "requested", series);
        Ok(())
    }
}
