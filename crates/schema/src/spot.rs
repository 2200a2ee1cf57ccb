//! Canonical tables of Alibaba's cluster-trace-v2026-spot-gpu
//! (`<store>/spot/*.parquet`): the jobs and nodes of a GPU cluster that
//! runs high-priority (HP) jobs beside opportunistic Spot jobs (Duan et
//! al., "GFS: A Preemptive Scheduling Framework for GPU Clusters with
//! Predictive Spot Management", ASPLOS'26; alibaba/clusterdata).
//!
//! Time: the job file gives `submit_time` as seconds after the first
//! submission, with no calendar date. The owners' simulator
//! (Sjtucitlab/Spot `simulator.py`) counts those seconds from 2024-03-01
//! 00:00:00 and the trace spans six months to 2024-08-31 23:59:59 (the
//! longest HP durations end exactly there); that wall-clock origin, read
//! as Asia/Shanghai time (the cluster is Alibaba's, in China, and the files
//! carry no zone), is [`ORIGIN_UTC_S`]. The raw seconds are kept beside the
//! timestamps, so nothing depends on the choice.

use super::ColType::{Str, Timestamp, F64, I64};
use super::{col, Table, Trace, REJECTS_COLUMNS};

const T: Option<Trace> = Some(Trace::Spot);

/// 2024-03-01 00:00:00 Asia/Shanghai (UTC+8, no DST) in Unix seconds:
/// 2024-02-29 16:00:00 UTC.
pub const ORIGIN_UTC_S: i64 = 1_709_222_400;

pub static JOBS: Table = Table {
    trace: T,
    name: "jobs",
    doc: "One row per job of `job_info_df.csv`. Requests are per worker (instance): the job asks worker_num x gpu_request GPUs, as the owners' simulator allocates Spot jobs.",
    key: &["job_name"],
    columns: &[
        col("job_name", Str, "", "Raw `job_name` (a number)."),
        col("organization", Str, "", "Raw `organization`: the cost organization (department or similar unit)."),
        col("gpu_model", Str, "", "Raw `gpu_model`: the GPU type the job asked for (A10, A100-SXM4-80GB, H800, ...)."),
        col("cpu_request", F64, "vCPU", "Raw `cpu_request`: vCPUs per worker."),
        col("gpu_request", F64, "GPUs", "Raw `gpu_request`: GPUs per worker; below 1 a share of one GPU."),
        col("workers", I64, "instances", "Raw `worker_num`: the workers (instances) the job asked for."),
        col("gpus", F64, "GPUs", "workers x gpu_request: the GPUs of the whole job."),
        col("submit_s", F64, "s", "Raw `submit_time`: seconds after the trace's first submission."),
        col("submit_time", Timestamp, "", "2024-03-01 00:00:00 Asia/Shanghai + submit_s (the owners' simulator's origin; see the module doc)."),
        col("duration_s", F64, "s", "Raw `duration`: how long the job ran."),
        col("job_type", Str, "", "Raw `job_type`: HP (high priority, strict SLO, never preempted) or Spot (opportunistic, preemptible)."),
    ],
};

pub static NODES: Table = Table {
    trace: T,
    name: "nodes",
    doc: "One row per GPU node of `node_info_df.csv`.",
    key: &["node_name"],
    columns: &[
        col("node_name", Str, "", "Raw `node_name` (a number)."),
        col("gpu_model", Str, "", "Raw `gpu_model`: the node's GPU type."),
        col("gpus", I64, "GPUs", "Raw `gpu_capacity_num`: GPUs on the node."),
        col("cpus", I64, "vCPU", "Raw `cpu_num`."),
    ],
};

pub static REJECTS: Table = Table {
    trace: T,
    name: "rejects",
    doc: "Input records that could not be ingested, with file, line, column and reason.",
    key: &[],
    columns: REJECTS_COLUMNS,
};

pub static TABLES: &[&Table] = &[&JOBS, &NODES, &REJECTS];

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;

    #[test]
    fn the_origin_is_march_first_2024_in_shanghai() {
        // Shanghai is UTC+8 all year: local midnight is 16:00 UTC the day before.
        let utc = NaiveDate::from_ymd_opt(2024, 2, 29).unwrap().and_hms_opt(16, 0, 0).unwrap();
        assert_eq!(utc.and_utc().timestamp(), ORIGIN_UTC_S);
    }
}
