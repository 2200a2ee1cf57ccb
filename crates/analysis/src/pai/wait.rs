//! Queueing delay in the PAI analyses (NSDI'22 Sec 3.2, Fig 4b and Fig 5;
//! notebook A8-A11): the two wait definitions, the GPU-request bins and GPU
//! types of Fig 5, and the quantile table the wait figures share.
//!
//! Two wait definitions, chosen by the `wait` parameter and named in every
//! result: `task-to-instance` (the notebook: earliest instance start - task
//! start_time, per task) and `job-to-task` (the README: earliest task start
//! of the job - job start_time, repeated on each of the job's tasks).

use polars::prelude::*;

use crate::output::ResultTable;
use crate::params::{choice, params, Param};
use tracelab_stats::Dist;

choice! {
    /// The queueing-delay definition.
    pub enum WaitDef {
        /// The notebook's: earliest instance start of the task - task start.
        TaskToInstance = "task-to-instance",
        /// The README's: earliest task start of the job - job start.
        JobToTask = "job-to-task",
    }
}

pub const WAIT: Param<WaitDef> = Param::choice(
    "wait",
    "task-to-instance",
    "queueing-delay definition: task-to-instance (notebook) or job-to-task (README)",
);

params! {
    /// The wait analyses' parameters.
    pub struct WaitParams {
        pub wait: WaitDef = WAIT,
    }
}

impl WaitDef {
    /// The `dfa` column holding the delay (s).
    pub fn column(self) -> &'static str {
        match self {
            WaitDef::TaskToInstance => "wait_s",
            WaitDef::JobToTask => "job_wait_s",
        }
    }

    /// The definition as every wait result states it.
    pub fn definition(self) -> &'static str {
        match self {
            WaitDef::TaskToInstance => {
                "notebook definition: earliest instance start_time of the task - task start_time"
            }
            WaitDef::JobToTask => "README definition: earliest task start_time of the job - job start_time",
        }
    }
}

/// The GPU-request bins of Fig 5a on the per-instance `plan_gpu` (% of a GPU).
pub const GPU_BINS: [&str; 5] = ["<25%", "25-50%", "50-100%", "1 GPU", ">1 GPU"];
/// The GPU types of Fig 5b, in the notebook's order.
pub const GPU_TYPES: [&str; 5] = ["T4", "MISC", "P100", "V100", "V100M32"];

/// The Fig 5a bin of `plan_gpu_pct` (null stays null).
pub fn gpu_bin() -> Expr {
    let p = col("plan_gpu_pct");
    when(p.clone().lt(lit(25.0)))
        .then(lit(GPU_BINS[0]))
        .when(p.clone().lt(lit(50.0)))
        .then(lit(GPU_BINS[1]))
        .when(p.clone().lt(lit(100.0)))
        .then(lit(GPU_BINS[2]))
        .when(p.clone().eq(lit(100.0)))
        .then(lit(GPU_BINS[3]))
        .when(p.gt(lit(100.0)))
        .then(lit(GPU_BINS[4]))
        .otherwise(lit(NULL).cast(DataType::String))
}

/// P50/P90/P99 per series as a table.
pub fn quantile_table(series: &[(String, Dist)]) -> ResultTable {
    let mut t = ResultTable::new(&["series", "tasks", "p50_s", "p90_s", "p99_s"]);
    for (label, d) in series {
        t.push(vec![
            label.as_str().into(),
            d.n().into(),
            d.quantile(0.5).into(),
            d.quantile(0.9).into(),
            d.quantile(0.99).into(),
        ]);
    }
    t
}
