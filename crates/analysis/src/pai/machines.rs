//! Machine classes and the instances placed on machines (NSDI'22 Sec 4,
//! paper only), shared by `pai.supply-demand` and
//! `pai.allocation-by-gpu-type`: instances are `dfw` rows (one per worker)
//! with their task's per-instance plans, placed by `machine` (inner join to
//! `machine_spec`).

use polars::prelude::*;

use super::frames;
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_schema::pai::MACHINE_SPEC;

/// Class label by `cap_gpu` (CPU-only machines are "CPU").
pub fn class() -> Expr {
    when(col("cap_gpu").eq(lit(8i64)))
        .then(lit("8-GPU"))
        .when(col("cap_gpu").eq(lit(2i64)))
        .then(lit("2-GPU"))
        .otherwise(lit("CPU"))
}

/// Instances (dfw) placed on a machine of the spec, with class and type,
/// and `spec_idx`, the spec row (an integer to group by).
pub fn placed(ctx: &Ctx) -> Result<LazyFrame> {
    let spec = ctx.store.scan(&MACHINE_SPEC)?.with_row_index("spec_idx", None).select([
        col("spec_idx"),
        col("machine"),
        col("gpu_type").alias("machine_type"),
        col("cap_cpu"),
        col("cap_gpu"),
        class().alias("class"),
    ]);
    let cols = ["machine", "start_time", "end_time", "run_s", "plan_cpu_pct", "plan_gpu_pct"];
    Ok(frames::instances(ctx, &cols)?.join(spec, [col("machine")], [col("machine")], JoinArgs::new(JoinType::Inner)))
}
