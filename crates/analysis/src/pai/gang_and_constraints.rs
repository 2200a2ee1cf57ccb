//! `pai.gang-and-constraints`: instances and GPU demand in gang tasks
//! (inst_num >= 2, the notebook A2 threshold) and the tasks that name a GPU
//! type (NSDI'22 Sec 3, paper only).

use polars::prelude::*;

use super::frames;
use crate::declare::{About, Analyze, Published, Scope};
use crate::frame::{collect, scalar};
use crate::output::{Headline, Output};
use crate::Ctx;
use tracelab_schema::error::Result;

pub struct GangAndConstraints;

const SOURCE: &str = "NSDI'22 Sec 3";

impl Analyze for GangAndConstraints {
    type Params = ();
    const ABOUT: About = About {
        id: "pai.gang-and-constraints",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Sec 3 (paper only; notebook A2 for the gang threshold)",
        summary: "instances and GPU demand in gang tasks (inst_num >= 2); tasks that name a GPU type",
        title: "Gang tasks and GPU-type constraints",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors NSDI'22 Sec 3 (paper only; the gang threshold follows notebook cell A2).

- **Reads** `dfa`: `inst_num`, `plan_gpu_pct`, `gpu_type_spec`.
- **Computes** instances = sum of `inst_num`; a *gang* task has `inst_num` ≥ 2; GPU demand =
  sum of `inst_num` × `plan_gpu_pct`/100 (a missing plan counts 0). Headlines: the share of instances
  in gang tasks, the share of GPU demand from gang tasks, and the share of tasks whose job names a
  GPU type (`gpu_type_spec` not null).
- **Published:** about 85 % of instances in gang tasks, 79 % of GPU demand, 6 % of tasks
  constrain their GPU type (NSDI'22 Sec 3).
- **Differences:** no upstream code.
"##;
    const PUBLISHED: &'static [Published] = &[
        Published::new("gang_instances", 85.0, "%", SOURCE),
        Published::new("gang_gpu_demand", 79.0, "%", SOURCE),
        Published::new("gpu_type_spec", 6.0, "%", SOURCE),
    ];

    fn definition(_: &()) -> String {
        "dfa (tasks with a job and instance rows). instances = sum of inst_num (notebook A2); gang task = \
         inst_num >= 2; GPU demand = sum of inst_num * plan_gpu_pct / 100 (plan per instance, issue #129; null \
         plan = 0); GPU-type constraint = group_tag gpu_type_spec not null, share of dfa tasks"
            .into()
    }

    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        gang(ctx, out)
    }
}

fn gang(ctx: &Ctx, out: &mut Output) -> Result<()> {
    let gpus = col("inst_num").cast(DataType::Float64) * col("plan_gpu_pct").fill_null(lit(0.0)) / lit(100.0);
    let is_gang = || col("inst_num").gt_eq(lit(2i64));
    let df = collect(
        frames::tasks(ctx, &["inst_num", "plan_gpu_pct", "gpu_type_spec"])?.select([
            col("inst_num").sum().cast(DataType::Float64).alias("instances"),
            col("inst_num").filter(is_gang()).sum().cast(DataType::Float64).alias("gang_instances"),
            gpus.clone().sum().alias("gpus"),
            gpus.filter(is_gang()).sum().alias("gang_gpus"),
            len().cast(DataType::Float64).alias("tasks"),
            col("gpu_type_spec").is_not_null().sum().cast(DataType::Float64).alias("spec_tasks"),
        ]),
        "gang shares",
    )?;
    let v = |c: &str| scalar(&df, c);
    let headlines = vec![
        Headline::new(
            "gang_instances",
            "instances in gang tasks (inst_num >= 2)",
            100.0 * v("gang_instances")? / v("instances")?,
            "%",
        ),
        Headline::new("gang_gpu_demand", "GPU demand of gang tasks", 100.0 * v("gang_gpus")? / v("gpus")?, "%"),
        Headline::new("gpu_type_spec", "tasks that name a GPU type", 100.0 * v("spec_tasks")? / v("tasks")?, "%"),
    ];
    out.headlines("shares", headlines);
    Ok(())
}
