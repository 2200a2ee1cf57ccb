//! Canonical AcmeTrace tables (`<store>/acme/*.parquet`): the job traces of
//! Shanghai AI Lab's LLM-development clusters Seren and Kalos (Hu et al.,
//! "Characterization of Large Language Model Development in the
//! Datacenter", NSDI'24; InternLM/AcmeTrace, CC BY 4.0).
//!
//! Time: every stamp of the files is ISO 8601 with its own UTC offset
//! (`2023-03-01 00:18:22+08:00` in Seren, `+00:00` in Kalos, as the
//! README's examples show). Each value's offset is honoured and the instant
//! stored as UTC, so the two clusters line up. Analyses that bin by hour of
//! day use Asia/Shanghai, where the clusters are.

use super::ColType::{Str, Timestamp, F64, I64};
use super::{col, opt, Table, Trace, REJECTS_COLUMNS};

const T: Option<Trace> = Some(Trace::Acme);

pub static JOBS: Table = Table {
    trace: T,
    name: "jobs",
    doc: "One row per job of `trace_seren.csv` and `trace_kalos.csv` (data/job_trace/ of the AcmeTrace repository).",
    key: &["cluster", "job_id"],
    columns: &[
        col("cluster", Str, "", "Seren or Kalos: the cluster the file is named after (trace_seren.csv, trace_kalos.csv)."),
        col("job_id", Str, "", "Raw `job_id` (Seren: a number, Kalos: a string such as dlctk696s0jbvitv)."),
        col("user", Str, "", "User (hashed, prefix u)."),
        col("nodes", I64, "nodes", "Raw `node_num`."),
        col("gpus", I64, "GPUs", "Raw `gpu_num`; 0 for CPU jobs."),
        col("cpus", I64, "CPUs", "Raw `cpu_num`."),
        opt("mem_per_pod_gb", F64, "GB", "Kalos only: raw `mem_per_pod_GB`, the memory configured per pod; null in Seren."),
        opt(
            "shared_mem_per_pod",
            F64,
            "",
            "Kalos only: raw `shared_mem_per_pod`, the shared memory configured per pod (the owners state no unit); null in Seren.",
        ),
        col(
            "job_type",
            Str,
            "",
            "Raw `type`: Pretrain, SFT, Eval, MLLM, Debug or Other. The files spell evaluation `Eval` (the owners' notebook selects it so); `Evaluation`, the README's and paper's word, is accepted too and analyses count both as evaluation.",
        ),
        col(
            "state",
            Str,
            "",
            "Raw `state`: COMPLETED, CANCELLED, FAILED, TIMEOUT or NODE_FAIL (the last two rare, regarded as failed by the owners).",
        ),
        col("submit_time", Timestamp, "", "Raw `submit_time`, its UTC offset honoured."),
        opt("start_time", Timestamp, "", "Raw `start_time`; null when empty (never started)."),
        opt("end_time", Timestamp, "", "Raw `end_time`; null when empty."),
        opt("fail_time", Timestamp, "", "Kalos only: raw `fail_time`, when the failure occurred; null otherwise."),
        opt("stop_time", Timestamp, "", "Kalos only: raw `stop_time`, when the job was stopped; null otherwise."),
        opt(
            "run_s",
            F64,
            "s",
            "Raw `duration` as published: end_time - start_time in Seren, but end_time - submit_time in Kalos (the README's rows: 18 s for a job that queued 10 s and ran 8 s).",
        ),
        opt("queue_s", F64, "s", "Raw `queue`: start_time - submit_time."),
        opt("gpu_time_s", F64, "GPU-s", "Raw `gpu_time`: duration x gpu_num, in GPU-seconds (Kalos: over its end - submit duration)."),
    ],
};

pub static REJECTS: Table = Table {
    trace: T,
    name: "rejects",
    doc: "Input records that could not be ingested, with file, line, column and reason.",
    key: &[],
    columns: REJECTS_COLUMNS,
};

pub static TABLES: &[&Table] = &[&JOBS, &REJECTS];
