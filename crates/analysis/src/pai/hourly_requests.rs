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

    fn definition(p: &WeekParams) -> String {
        format!(
            "dfw (one row per worker with its task's per-instance plans), instance start_time in Asia/Shanghai; \
             per hourofyear the sums of plan_cpu/1000 (10 CPU cores), plan_gpu/100 (GPUs), plan_mem/100 (100 GiB) \
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
