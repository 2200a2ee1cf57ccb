//! Canonical Helios tables (`<store>/helios/*.parquet`).
//!
//! Time: the files carry naive datetimes with no zone stated. They are read
//! as Asia/Shanghai wall-clock time (SenseTime's clusters are in China; the
//! owners' diurnal figures only make sense in local time) and stored as UTC.
//! China has no daylight saving, so the choice is exactly reversible.

use super::ColType::{Date, Str, Timestamp, F64, I64};
use super::{col, opt, Table, Trace, REJECTS_COLUMNS};

const T: Option<Trace> = Some(Trace::Helios);

pub static JOBS: Table = Table {
    trace: T,
    name: "jobs",
    doc: "One row per job across clusters (`<Cluster>/cluster_log.csv`).",
    key: &["cluster", "job_id"],
    columns: &[
        col("cluster", Str, "", "Earth, Saturn, Uranus or Venus (the folder the file came from)."),
        col("job_id", I64, "", "Raw `job_id`."),
        col("user", Str, "", "User (hashed)."),
        col("vc", Str, "", "Virtual cluster."),
        col("gpus", I64, "GPUs", "Raw `gpu_num`; 0 for CPU jobs."),
        col("cpus", I64, "CPUs", "Raw `cpu_num`."),
        col("nodes", I64, "nodes", "Raw `node_num`."),
        col(
            "state",
            Str,
            "",
            "Original code: COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL (failed upstream) or SUSPENDED.",
        ),
        col("submit_time", Timestamp, "", "Raw `submit_time`."),
        opt("start_time", Timestamp, "", "Raw `start_time`."),
        opt("end_time", Timestamp, "", "Raw `end_time`."),
        opt("run_s", F64, "s", "Raw `duration` (end - start)."),
        opt("queue_s", F64, "s", "Raw `queue` (start - submit), the Helios queueing definition."),
    ],
};

pub static VC_GPUS: Table = Table {
    trace: T,
    name: "vc_gpus",
    doc: "GPUs per virtual cluster per day (`<Cluster>/cluster_gpu_number.csv`, unpivoted). The raw `total` column is checked against the sum of the VCs and not stored.",
    key: &["cluster", "date", "vc"],
    columns: &[
        col("cluster", Str, "", "Cluster."),
        col("date", Date, "", "Day."),
        col("vc", Str, "", "Virtual cluster (a column name of the raw file)."),
        col("gpus", I64, "GPUs", "GPUs the VC held that day."),
    ],
};

pub static REJECTS: Table = Table {
    trace: T,
    name: "rejects",
    doc: "Input records that could not be ingested, with file, line, column and reason.",
    key: &[],
    columns: REJECTS_COLUMNS,
};

pub static TABLES: &[&Table] = &[&JOBS, &VC_GPUS, &REJECTS];
