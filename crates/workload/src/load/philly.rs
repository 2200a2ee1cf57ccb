//! Philly jobs as schedulable units: submit = `submitted_time`; duration =
//! the sum of the attempts' run times (the GPU time the job actually held,
//! retries included, the gaps between them excluded); GPUs = the first
//! attempt's (the notebook's `num_gpus`); VC and group = the job's `vc`. A job
//! whose last attempt has no end is still running at the trace's end; a job
//! without attempts never started.
//!
//! Usage (when asked): a job's GPU utilization is the mean of its
//! GPU-minute samples, every attempt, every GPU it held (the join behind
//! ATC'19 Fig 5-6, `tracelab_analysis::usage::philly_job_util`): Philly's
//! `gpu_util` reads each GPU of a machine, so a job need not be alone on
//! its machines to be measured. Philly records no GPU memory per job.

use polars::prelude::*;

use tracelab_analysis::frame;
use tracelab_schema::error::Result;
use tracelab_schema::philly::{ATTEMPTS, JOBS};
use tracelab_sim::Usage;
use tracelab_store::Store;

use super::{candidates, epoch_s, Loaded, Names};

pub const UNIT: &str = "a Philly job: submitted at submitted_time, running for the sum of its attempts' run times, \
asking the GPUs of its first attempt, in its VC";

pub fn load(store: &Store, usage: bool) -> Result<Loaded> {
    let attempts = store.scan(&ATTEMPTS)?.group_by([col("job_id")]).agg([col("run_s").sum().alias("attempts_s")]);
    let lf =
        store.scan(&JOBS)?.join(attempts, [col("job_id")], [col("job_id")], JoinArgs::new(JoinType::Left)).select([
            col("job_id"),
            epoch_s("submit_time").alias("submit_s"),
            when(col("first_start_time").is_null())
                .then(lit(NULL).cast(DataType::Float64))
                .otherwise(col("attempts_s"))
                .alias("run_s"),
            col("gpus").cast(DataType::Float64),
            lit(NULL).cast(DataType::Float64).alias("cpus"),
            col("user"),
            col("vc"),
            col("vc").alias("group"),
            lit(NULL).cast(DataType::String).alias("gpu_type"),
            col("first_start_time").is_null().or(col("last_end_time").is_not_null()).alias("finished"),
        ]);
    let df = frame::collect(lf, "philly: reading jobs with their attempts")?;
    let usage = if usage { Some(job_usage(store, &df)?) } else { None };
    let mut names = Names::default();
    let (jobs, left_out) = candidates(&df, &mut names, "philly jobs", usage.as_deref())?;
    Ok(Loaded { source: "philly".into(), unit: UNIT.into(), rows: df.height() as u64, jobs, names, left_out })
}

/// Each row's measured utilization (unknown for a job without samples).
fn job_usage(store: &Store, df: &DataFrame) -> Result<Vec<Usage>> {
    let util = tracelab_analysis::usage::philly_job_util(&tracelab_analysis::Ctx::new(store.clone()))?;
    Ok(frame::strs(df, "job_id")?
        .iter()
        .map(|id| Usage {
            gpu_util: id.as_ref().and_then(|id| util.get(id)).map(|&(u, _)| u.clamp(0.0, 100.0) as f32),
            ..Usage::default()
        })
        .collect())
}
