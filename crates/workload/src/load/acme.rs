//! AcmeTrace jobs as schedulable units (one trace row each): submit =
//! `submit_time`; duration = end_time - start_time (Kalos' raw `duration`
//! is end - submit, queueing included, so the stamps are used for both
//! clusters); GPUs = `gpu_num` (CPU jobs ask for none and are left out);
//! CPUs = `cpu_num`. The VC is the cluster (Seren or Kalos: each is
//! replayed on its own nodes); the group, the key `sjf-predicted` and
//! `qssf` learn durations by, is the LLM workload type (Pretrain, Eval,
//! ...), the trace's recurring-job key.

use polars::prelude::*;

use tracelab_analysis::frame;
use tracelab_schema::acme::JOBS;
use tracelab_schema::error::Result;
use tracelab_store::Store;

use super::{candidates, epoch_s, Loaded, Names};

/// The AcmeTrace clusters.
pub const CLUSTERS: [&str; 2] = ["Seren", "Kalos"];

pub const UNIT: &str = "an AcmeTrace job (trace row): submitted at submit_time, running end_time - start_time, \
asking gpu_num GPUs and cpu_num CPUs, in VC = its cluster (Seren or Kalos), grouped by its workload type";

pub fn load(store: &Store, cluster: Option<&str>) -> Result<Loaded> {
    let mut lf = store.scan(&JOBS)?;
    if let Some(c) = cluster {
        lf = lf.filter(col("cluster").eq(lit(c.to_string())));
    }
    let run = (col("end_time") - col("start_time")).dt().total_seconds(true).cast(DataType::Float64);
    let lf = lf.sort(["cluster", "submit_time", "job_id"], SortMultipleOptions::default()).select([
        concat_str([col("cluster"), col("job_id")], "/", false).alias("job_id"),
        epoch_s("submit_time").alias("submit_s"),
        run.alias("run_s"),
        col("gpus").cast(DataType::Float64),
        col("cpus").cast(DataType::Float64),
        col("user"),
        col("cluster").alias("vc"),
        col("job_type").alias("group"),
        lit(NULL).cast(DataType::String).alias("gpu_type"),
        col("end_time").is_not_null().alias("finished"),
    ]);
    let df = frame::collect(lf, "acme: reading jobs")?;
    let mut names = Names::default();
    let (jobs, left_out) = candidates(&df, &mut names, "acme jobs", None)?;
    Ok(Loaded { source: "acme".into(), unit: UNIT.into(), rows: df.height() as u64, jobs, names, left_out })
}
