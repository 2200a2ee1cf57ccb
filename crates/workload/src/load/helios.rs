//! Helios jobs as schedulable units (`cluster_log` rows): submit =
//! `submit_time`, duration = the raw `duration`, GPUs = `gpu_num` (CPU jobs
//! ask for none and are left out), CPUs = `cpu_num`. VC and group are
//! `Cluster/vc`, so that VCs of different clusters stay apart.

use polars::prelude::*;

use tracelab_analysis::frame;
use tracelab_schema::error::Result;
use tracelab_schema::helios::JOBS;
use tracelab_store::Store;

use super::{candidates, epoch_s, Loaded, Names};

/// The Helios clusters.
pub const CLUSTERS: [&str; 4] = ["Earth", "Saturn", "Uranus", "Venus"];

pub const UNIT: &str = "a Helios job (cluster_log row): submitted at submit_time, running for its duration, \
asking gpu_num GPUs and cpu_num CPUs, in VC Cluster/vc";

pub fn load(store: &Store, cluster: Option<&str>) -> Result<Loaded> {
    let mut lf = store.scan(&JOBS)?;
    if let Some(c) = cluster {
        lf = lf.filter(col("cluster").eq(lit(c.to_string())));
    }
    let vc = concat_str([col("cluster"), col("vc")], "/", false);
    let lf = lf.sort(["cluster", "job_id"], SortMultipleOptions::default()).select([
        concat_str([col("cluster"), col("job_id").cast(DataType::String)], "/", false).alias("job_id"),
        epoch_s("submit_time").alias("submit_s"),
        col("run_s"),
        col("gpus").cast(DataType::Float64),
        col("cpus").cast(DataType::Float64),
        col("user"),
        vc.clone().alias("vc"),
        vc.alias("group"),
        lit(NULL).cast(DataType::String).alias("gpu_type"),
        col("end_time").is_not_null().alias("finished"),
    ]);
    let df = frame::collect(lf, "helios: reading jobs")?;
    let mut names = Names::default();
    let (jobs, left_out) = candidates(&df, &mut names, "helios jobs", None)?;
    Ok(Loaded { source: "helios".into(), unit: UNIT.into(), rows: df.height() as u64, jobs, names, left_out })
}
