//! Spot-GPU trace jobs as schedulable units (one `job_info_df` row each):
//! submit = `submit_time`; duration = `duration`; GPUs = `worker_num x
//! gpu_request`, pinned to the job's `gpu_model` (the owners' simulator
//! replays each model as its own pool); CPUs = `worker_num x cpu_request`;
//! user, VC and group = the organization; priority class 1 for HP jobs, 0
//! for Spot jobs (the `priority` policy lets HP evict Spot). The trace has
//! no final state: every job counts as finished.

use polars::prelude::*;

use tracelab_analysis::frame;
use tracelab_schema::error::Result;
use tracelab_schema::spot::JOBS;
use tracelab_store::Store;

use super::{candidates, epoch_s, Loaded, Names};

pub const UNIT: &str = "a spot-GPU trace job (job_info_df row): submitted at submit_time, running its duration, \
asking worker_num x gpu_request GPUs of its gpu_model and worker_num x cpu_request CPUs, user, VC and group its \
organization, priority class 1 if HP, 0 if Spot";

pub fn load(store: &Store) -> Result<Loaded> {
    let lf = store.scan(&JOBS)?.sort(["submit_time", "job_name"], SortMultipleOptions::default()).select([
        col("job_name").alias("job_id"),
        epoch_s("submit_time").alias("submit_s"),
        col("duration_s").alias("run_s"),
        col("gpus"),
        (col("cpu_request") * col("workers").cast(DataType::Float64)).alias("cpus"),
        col("organization").alias("user"),
        col("organization").alias("vc"),
        col("organization").alias("group"),
        col("gpu_model").alias("gpu_type"),
        lit(true).alias("finished"),
        col("job_type").eq(lit("HP")).cast(DataType::Int64).alias("priority"),
    ]);
    let df = frame::collect(lf, "spot: reading jobs")?;
    let mut names = Names::default();
    let (jobs, left_out) = candidates(&df, &mut names, "spot jobs", None)?;
    Ok(Loaded { source: "spot".into(), unit: UNIT.into(), rows: df.height() as u64, jobs, names, left_out })
}
