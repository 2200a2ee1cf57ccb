//! The unified cross-trace `jobs` table in the store root
//! (`<store>/jobs.parquet`): one row per job of every ingested trace, so a
//! question like "median queueing delay per trace" is one query.
//!
//! Per-trace definitions (also in each column's doc):
//! - PAI: a job is a `pai_job_table` row. submit = job `start_time`; start =
//!   earliest instance start; end = job `end_time`; requests are summed over
//!   the job's tasks as `inst_num * plan_*` (per-instance plans, upstream
//!   #129). Its queue is job submit -> first instance start, which is neither
//!   the README's (job -> first task launch) nor the notebook's (task launch
//!   -> first instance start); the per-task definitions stay available in
//!   `pai/task` and `pai/instance`.
//! - Philly: the notebook's definitions (first attempt for start, GPUs and
//!   queueing; last attempt for end).
//! - Helios: the raw `queue` and `duration` columns.
//! - SWF: the summary record of each job (partial executions are left in
//!   `swf/jobs`); queue = field 3 (wait), runtime = field 4 (run). SWF logs
//!   count processors, not GPUs: `gpus_requested` is null, so SWF jobs are
//!   counted by the cross views' `jobs=all` and never by `jobs=gpu`, and the
//!   processors go to `cpus_requested`.

use super::ColType::{Str, Timestamp, F64, I64};
use super::{col, opt, Table};

pub static JOBS: Table = Table {
    trace: None,
    name: "jobs",
    doc: "One row per job of every ingested trace, normalized across traces.",
    key: &["trace", "cluster", "job_id"],
    columns: &[
        col("trace", Str, "", "pai, philly, helios or swf."),
        col("cluster", Str, "", "PAI: `pai`; Philly: `philly`; Helios: Earth, Saturn, Uranus or Venus; SWF: the log's file stem."),
        col("job_id", Str, "", "PAI `job_name`; Philly `jobid`; Helios `job_id` as text; SWF Job Number (field 1) as text."),
        opt("user", Str, "", "User (hashed); SWF: User ID (field 12) as text."),
        opt("group", Str, "", "PAI: group tag of the job's `inst_id` (the user when untagged, as the notebook does); Philly and Helios: the virtual cluster; SWF: Group ID (field 13) as text."),
        opt("submit_time", Timestamp, "", "PAI job `start_time`; Philly `submitted_time`; Helios `submit_time`; SWF UnixStartTime + Submit Time."),
        opt("start_time", Timestamp, "", "PAI earliest instance start; Philly first attempt start; Helios `start_time`; SWF submit + Wait Time."),
        opt("end_time", Timestamp, "", "PAI job `end_time`; Philly last attempt end; Helios `end_time`; SWF start + Run Time."),
        opt("queue_s", F64, "s", "start_time - submit_time (Helios: raw `queue`; SWF: Wait Time, field 3)."),
        opt("run_s", F64, "s", "end_time - start_time (Helios: raw `duration`; SWF: Run Time, field 4)."),
        opt("gpus_requested", F64, "GPUs", "PAI: sum over tasks of inst_num * plan_gpu / 100 (fractional for GPU sharing); Philly: GPUs of the first attempt; Helios: `gpu_num`; SWF: null (the format counts processors, not GPUs: SWF jobs count under jobs=all only)."),
        opt("cpus_requested", F64, "vCPU", "PAI: sum over tasks of inst_num * plan_cpu / 100; Philly: not recorded (null); Helios: `cpu_num`; SWF: Requested Number of Processors (field 8), else Number of Allocated Processors (field 5)."),
        opt("instances", I64, "instances", "PAI: instance rows of the job; Philly: attempts; Helios: `node_num`; SWF: null."),
        col("status", Str, "", "Normalized: completed, failed, killed, running (not finished when the trace ended) or unknown."),
        col("status_raw", Str, "", "The trace's own status code (SWF: field 11 as text, -1 when unknown)."),
    ],
};
