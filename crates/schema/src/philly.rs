//! Canonical Philly tables (`<store>/philly/*.parquet`).
//!
//! Time: the utilization files stamp each minute with `PDT` or `PST`; those
//! are converted to UTC exactly (the 2017-11-05 fall-back hour is
//! unambiguous thanks to the suffix). The job log carries naive wall-clock
//! times of the same cluster clock; they are read as America/Los_Angeles
//! local time and converted to UTC, so job times and utilization minutes line
//! up on one UTC axis. In the repeated hour 01:00-01:59 of 2017-11-05 a naive
//! time is ambiguous; the earlier (PDT) instant is taken. The owners'
//! notebook instead matches naive job minutes to suffix-stripped
//! utilization minutes, which is ambiguous in that hour.

use super::ColType::{Str, Timestamp, F64, I64};
use super::{col, opt, Table, Trace, REJECTS_COLUMNS};

const T: Option<Trace> = Some(Trace::Philly);

pub static JOBS: Table = Table {
    trace: T,
    name: "jobs",
    doc: "One row per job of `cluster_job_log`, with the notebook's per-job definitions.",
    key: &["job_id"],
    columns: &[
        col("job_id", Str, "", "Raw `jobid`, e.g. application_1506638472019_14199."),
        col("vc", Str, "", "Virtual cluster (hashed)."),
        col("user", Str, "", "User (hashed)."),
        col("status", Str, "", "Original code: Pass, Killed or Failed."),
        col("submit_time", Timestamp, "", "Raw `submitted_time`."),
        col("attempts", I64, "attempts", "Number of attempts (0 when the job has none)."),
        opt("first_start_time", Timestamp, "", "Start of the first attempt."),
        opt("last_end_time", Timestamp, "", "End of the last attempt; null while the job was still running."),
        opt("gpus", I64, "GPUs", "GPUs of the FIRST attempt (the notebook's `num_gpus`); null without attempts."),
        opt("queue_s", F64, "s", "first_start_time - submit_time (the notebook's `queueing_delay`, first-attempt definition)."),
        opt("run_s", F64, "s", "last_end_time - first_start_time, spanning all retries and the gaps between them (the notebook's `run_time`)."),
    ],
};

pub static ATTEMPTS: Table = Table {
    trace: T,
    name: "attempts",
    doc: "One row per attempt of a job.",
    key: &["job_id", "attempt"],
    columns: &[
        col("job_id", Str, "", "Job; joins `jobs`."),
        col("attempt", I64, "", "0-based position in the job's `attempts` list."),
        opt("start_time", Timestamp, "", "Attempt start; null when the log has none."),
        opt("end_time", Timestamp, "", "Attempt end; null when the log has none (running, or not recorded)."),
        opt("run_s", F64, "s", "end_time - start_time when both are recorded."),
        col("gpus", I64, "GPUs", "GPUs over all machines of the attempt."),
        col("machines", I64, "machines", "Machines the attempt was placed on (`len(detail)`)."),
    ],
};

pub static PLACEMENTS: Table = Table {
    trace: T,
    name: "placements",
    doc: "One row per GPU an attempt held: (job, attempt, machine, GPU index).",
    key: &["job_id", "attempt", "machine", "gpu"],
    columns: &[
        col("job_id", Str, "", "Job; joins `jobs`."),
        col("attempt", I64, "", "Attempt; joins `attempts`."),
        col("machine", Str, "", "Raw `ip`, e.g. m47; joins the utilization tables."),
        col("gpu", I64, "", "GPU index from the raw name (`gpu3` -> 3); selects `gpu<i>_util_pct`."),
    ],
};

pub static GPU_UTIL: Table = Table {
    trace: T,
    name: "gpu_util",
    doc: "Per-minute GPU utilization per machine (`cluster_gpu_util`), kept wide as published.",
    key: &[],
    columns: &[
        col("time", Timestamp, "", "Minute, converted from PDT/PST to UTC."),
        col("machine", Str, "", "Raw `machineId`."),
        opt("gpu0_util_pct", F64, "%", "GPU 0 utilization; null where the raw value is NA (offline or absent)."),
        opt("gpu1_util_pct", F64, "%", "GPU 1 utilization."),
        opt("gpu2_util_pct", F64, "%", "GPU 2 utilization."),
        opt("gpu3_util_pct", F64, "%", "GPU 3 utilization."),
        opt("gpu4_util_pct", F64, "%", "GPU 4 utilization."),
        opt("gpu5_util_pct", F64, "%", "GPU 5 utilization."),
        opt("gpu6_util_pct", F64, "%", "GPU 6 utilization."),
        opt("gpu7_util_pct", F64, "%", "GPU 7 utilization."),
    ],
};

pub static CPU_UTIL: Table = Table {
    trace: T,
    name: "cpu_util",
    doc: "Per-minute host CPU utilization (`cluster_cpu_util`).",
    key: &[],
    columns: &[
        col("time", Timestamp, "", "Minute, converted from PDT/PST to UTC."),
        col("machine", Str, "", "Raw `machine_id`."),
        opt("cpu_util_pct", F64, "%", "CPU utilization; null where the raw value is NA."),
    ],
};

pub static MEM_UTIL: Table = Table {
    trace: T,
    name: "mem_util",
    doc: "Per-minute host memory (`cluster_mem_util`). The notebook's utilization is 100*(total-free)/total.",
    key: &[],
    columns: &[
        col("time", Timestamp, "", "Minute, converted from PDT/PST to UTC."),
        col("machine", Str, "", "Raw `machine_id`."),
        opt(
            "mem_total_kib",
            F64,
            "KiB",
            "Raw `mem_total` (528,272,672 for a ~504 GiB host, hence KiB); null where NA.",
        ),
        opt("mem_free_kib", F64, "KiB", "Raw `mem_free`; null where NA."),
    ],
};

pub static MACHINES: Table = Table {
    trace: T,
    name: "machines",
    doc: "The published machine list (`cluster_machine_list`). Upstream issue #8: it contradicts job placements; derive capacity from placements and utilization where it matters.",
    key: &["machine"],
    columns: &[
        col("machine", Str, "", "Raw `machineId`."),
        col("gpus", I64, "GPUs", "Raw `number of GPUs`."),
        col("gpu_mem_gb", I64, "GB", "Raw `single GPU mem` (` 24GB` -> 24)."),
    ],
};

pub static REJECTS: Table = Table {
    trace: T,
    name: "rejects",
    doc: "Input records that could not be ingested, with file, line, column and reason.",
    key: &[],
    columns: REJECTS_COLUMNS,
};

pub static TABLES: &[&Table] = &[&JOBS, &ATTEMPTS, &PLACEMENTS, &GPU_UTIL, &CPU_UTIL, &MEM_UTIL, &MACHINES, &REJECTS];
