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
//! - AcmeTrace: queue and run from the stamps (start - submit, end -
//!   start): Kalos' raw `duration` is end - submit; no virtual cluster is
//!   recorded, so `group` is null.
//! - Spot: a job's GPUs and CPUs are its per-worker requests times its
//!   workers; the trace records a run duration but neither start, end,
//!   queueing nor final state, so those are null (status `unknown`, raw
//!   `unrecorded`); `group` is the cost organization.

use super::ColType::{Str, Timestamp, F64, I64};
use super::{col, opt, Table};

pub static JOBS: Table = Table {
    trace: None,
    name: "jobs",
    doc: "One row per job of every ingested trace, normalized across traces.",
    key: &["trace", "cluster", "job_id"],
    columns: &[
        col("trace", Str, "", "pai, philly, helios, swf, acme or spot."),
        col("cluster", Str, "", "PAI: `pai`; Philly: `philly`; Helios: Earth, Saturn, Uranus or Venus; SWF: the log's file stem; AcmeTrace: Seren or Kalos; Spot: `spot`."),
        col("job_id", Str, "", "PAI `job_name`; Philly `jobid`; Helios `job_id` as text; SWF Job Number (field 1) as text; AcmeTrace `job_id`; Spot `job_name`."),
        opt("user", Str, "", "User (hashed); SWF: User ID (field 12) as text; Spot: null (not recorded)."),
        opt("group", Str, "", "PAI: group tag of the job's `inst_id` (the user when untagged, as the notebook does); Philly and Helios: the virtual cluster; SWF: Group ID (field 13) as text; AcmeTrace: null; Spot: the organization."),
        opt("submit_time", Timestamp, "", "PAI job `start_time`; Philly `submitted_time`; Helios and AcmeTrace `submit_time`; SWF UnixStartTime + Submit Time; Spot 2024-03-01 00:00 Asia/Shanghai + `submit_time` seconds."),
        opt("start_time", Timestamp, "", "PAI earliest instance start; Philly first attempt start; Helios and AcmeTrace `start_time`; SWF submit + Wait Time; Spot: null (not recorded)."),
        opt("end_time", Timestamp, "", "PAI job `end_time`; Philly last attempt end; Helios and AcmeTrace `end_time`; SWF start + Run Time; Spot: null (not recorded)."),
        opt("queue_s", F64, "s", "start_time - submit_time (Helios: raw `queue`; SWF: Wait Time, field 3; Spot: null)."),
        opt("run_s", F64, "s", "end_time - start_time (Helios: raw `duration`; SWF: Run Time, field 4; AcmeTrace: from the stamps, as Kalos' raw `duration` is end - submit; Spot: raw `duration`)."),
        opt("gpus_requested", F64, "GPUs", "PAI: sum over tasks of inst_num * plan_gpu / 100 (fractional for GPU sharing); Philly: GPUs of the first attempt; Helios and AcmeTrace: `gpu_num`; SWF: null (the format counts processors, not GPUs: SWF jobs count under jobs=all only); Spot: worker_num * gpu_request."),
        opt("cpus_requested", F64, "vCPU", "PAI: sum over tasks of inst_num * plan_cpu / 100; Philly: not recorded (null); Helios and AcmeTrace: `cpu_num`; SWF: Requested Number of Processors (field 8), else Number of Allocated Processors (field 5); Spot: worker_num * cpu_request."),
        opt("instances", I64, "instances", "PAI: instance rows of the job; Philly: attempts; Helios and AcmeTrace: `node_num`; SWF: null; Spot: `worker_num`."),
        col("status", Str, "", "Normalized: completed, failed, killed, running (not finished when the trace ended) or unknown."),
        col("status_raw", Str, "", "The trace's own status code (SWF: field 11 as text, -1 when unknown; Spot: `unrecorded`, the trace has none)."),
    ],
};
