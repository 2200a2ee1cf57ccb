//! Canonical PAI tables (`<store>/pai/*.parquet`), one per official table.
//!
//! Conventions: values are the owners' values, typed, with the unit in the
//! column name; nothing is rescaled, so the upstream definitions in
//! `docs/definitions.md` (e.g. `plan_gpu < 25` bins) apply unchanged. Times are
//! offset seconds in the raw files; they become UTC timestamps at the same
//! number of seconds after the Unix epoch, so that converting to
//! Asia/Shanghai gives the true time of day and weekday the README promises
//! (the dates are fake: they fall in January-March 1970). A raw time of 0 or
//! an empty field means "not recorded" and becomes null (the owners'
//! notebook does the same for `start_time`).

use super::ColType::{Str, Timestamp, F64, I64};
use super::{col, opt, Table, Trace, REJECTS_COLUMNS};

const T: Option<Trace> = Some(Trace::Pai);

pub static JOB: Table = Table {
    trace: T,
    name: "job",
    doc: "One row per job (`pai_job_table`).",
    key: &["job_name"],
    columns: &[
        col("job_name", Str, "", "Job name (hashed)."),
        col("inst_id", Str, "", "The job's id; the README says to treat it as `job_id`; joins sensor and group_tag."),
        col("user", Str, "", "User (hashed)."),
        col("status", Str, "", "Original code: Running, Terminated, Failed or Waiting; only Terminated is success."),
        opt("start_time", Timestamp, "", "Job submission time (raw `start_time`)."),
        opt("end_time", Timestamp, "", "Job completion time (raw `end_time`)."),
    ],
};

pub static TASK: Table = Table {
    trace: T,
    name: "task",
    doc: "One row per task, i.e. per (job, role) (`pai_task_table`). Requests are per instance (upstream issue #129): the task requests `inst_num` times them.",
    key: &["job_name", "task_name"],
    columns: &[
        col("job_name", Str, "", "Job name; joins `job`."),
        col("task_name", Str, "", "Task role, e.g. tensorflow, worker, ps, evaluator."),
        col("inst_num", I64, "instances", "Instances the task launched (raw `1.0` and the like; must be integral)."),
        col("status", Str, "", "Original code (Running, Terminated, Failed, Waiting, Interrupted, Ready)."),
        opt("start_time", Timestamp, "", "Task launch time (the notebook's task 'submission')."),
        opt("end_time", Timestamp, "", "Task completion time."),
        opt("plan_cpu_pct", F64, "% of one vCPU", "Requested CPU per instance (raw `plan_cpu`; 600 = 6 vCPU)."),
        opt("plan_mem_gib", F64, "GiB", "Requested main memory per instance (raw `plan_mem`)."),
        opt("plan_gpu_pct", F64, "% of one GPU", "Requested GPU per instance (raw `plan_gpu`; 50 = half a GPU)."),
        opt("gpu_type", Str, "", "Original code of the GPU type assigned to the task: MISC, P100, T4, V100, V100M32."),
    ],
};

pub static INSTANCE: Table = Table {
    trace: T,
    name: "instance",
    doc: "One row per instance record (`pai_instance_table`). `worker_name` may repeat (the notebook keeps the last after sorting); nothing is deduplicated here.",
    key: &[],
    columns: &[
        col("job_name", Str, "", "Job name; joins `job` and `task`."),
        col("task_name", Str, "", "Task role; joins `task`."),
        col("inst_name", Str, "", "Instance name (hashed)."),
        opt("worker_name", Str, "", "Worker (hashed); joins `sensor` and `machine_metric`."),
        col("inst_id", Str, "", "The job's id (see `job.inst_id`)."),
        col("status", Str, "", "Original code (Running, Terminated, Failed, Waiting, Interrupted, Ready)."),
        opt("start_time", Timestamp, "", "Instance launch time."),
        opt("end_time", Timestamp, "", "Instance completion time."),
        opt("machine", Str, "", "Machine the instance ran on; joins `machine_spec`."),
        opt("run_s", F64, "s", "end_time - start_time when both are recorded (the notebook's instance `runtime`)."),
    ],
};

pub static SENSOR: Table = Table {
    trace: T,
    name: "sensor",
    doc: "One row per instance with sensor data (`pai_sensor_table`); values are averages over the instance's lifetime, `max_*` maxima.",
    key: &[],
    columns: &[
        col("job_name", Str, "", "Job name."),
        col("task_name", Str, "", "Task role."),
        col("worker_name", Str, "", "Worker; joins `instance`."),
        col("inst_id", Str, "", "The job's id."),
        opt("machine", Str, "", "Machine."),
        opt("gpu_name", Str, "", "GPU device, e.g. /dev/nvidia0 (not the GPU type)."),
        opt("cpu_usage_pct", F64, "% of one vCPU", "CPU used (raw `cpu_usage`; 600 = 6 vCPU)."),
        opt("gpu_wrk_util_pct", F64, "% of one GPU", "GPU used (raw `gpu_wrk_util`; can exceed 100 for multi-GPU instances)."),
        opt("avg_mem_gib", F64, "GiB", "Mean main memory used."),
        opt("max_mem_gib", F64, "GiB", "Peak main memory used."),
        opt("avg_gpu_wrk_mem_gib", F64, "GiB", "Mean GPU memory used."),
        opt("max_gpu_wrk_mem_gib", F64, "GiB", "Peak GPU memory used."),
        opt("read_bytes", F64, "bytes", "Network input (raw `read`; the README says bytes, the notebook plots it as bytes/s)."),
        opt("write_bytes", F64, "bytes", "Network output (raw `write`)."),
        opt("read_count", F64, "reads", "Network reads."),
        opt("write_count", F64, "writes", "Network writes."),
    ],
};

pub static GROUP_TAG: Table = Table {
    trace: T,
    name: "group_tag",
    doc: "Semantic tags per job (`pai_group_tag_table`): instances with the same `group` have similar inputs, i.e. recur.",
    key: &[],
    columns: &[
        col("inst_id", Str, "", "The job's id; joins `job.inst_id`."),
        col("user", Str, "", "User."),
        opt("gpu_type_spec", Str, "", "GPU type the user required; null when none was specified."),
        opt("group", Str, "", "Recurrence tag."),
        opt("workload", Str, "", "Workload tag (about 9 % of rows: graphlearn, ctr, bert, ...)."),
    ],
};

pub static MACHINE_SPEC: Table = Table {
    trace: T,
    name: "machine_spec",
    doc: "One row per machine (`pai_machine_spec`).",
    key: &["machine"],
    columns: &[
        col("machine", Str, "", "Machine (hashed)."),
        col("gpu_type", Str, "", "Original code: CPU, MISC, P100, T4, V100, V100M32."),
        col("cap_cpu", I64, "vCPU", "CPU capacity."),
        col("cap_mem_gib", I64, "GiB", "Main memory capacity (raw `cap_mem`)."),
        col("cap_gpu", I64, "GPUs", "GPU capacity."),
    ],
};

pub static MACHINE_METRIC: Table = Table {
    trace: T,
    name: "machine_metric",
    doc: "Machine-level metrics averaged over one instance's lifetime (`pai_machine_metric`); not a time series.",
    key: &[],
    columns: &[
        col("worker_name", Str, "", "Worker; joins `instance`."),
        col("machine", Str, "", "Machine; joins `machine_spec`."),
        opt("start_time", Timestamp, "", "Instance launch time."),
        opt("end_time", Timestamp, "", "Instance completion time."),
        opt("machine_cpu_iowait_pct", F64, "%", "CPU I/O wait."),
        opt("machine_cpu_kernel_pct", F64, "%", "CPU kernel time."),
        opt("machine_cpu_usr_pct", F64, "%", "CPU user time."),
        opt("machine_gpu_pct", F64, "%", "GPU utilization of the machine (upstream #231: can exceed 100)."),
        opt("machine_load_1", F64, "", "1-minute load average."),
        opt("machine_net_receive_bytes", F64, "bytes", "Network received (raw `machine_net_receive`)."),
        opt("machine_num_worker", F64, "instances", "Time-averaged number of co-located instances."),
        opt("machine_cpu_pct", F64, "%", "Overall CPU usage (about usr + kernel + iowait)."),
    ],
};

pub static PHILLY_RUNTIMES: Table = Table {
    trace: T,
    name: "philly_runtimes",
    doc: "The Philly job runtimes the PAI authors compare PAI's with (NSDI'22 Fig 4a; `philly_runtime.csv` from their analysis folder, 83,154 jobs), read when that file is beside the PAI tables; empty otherwise.",
    key: &[],
    columns: &[col("runtime_s", F64, "s", "One Philly job's runtime, as in the file (non-negative).")],
};

pub static REJECTS: Table = Table {
    trace: T,
    name: "rejects",
    doc: "Input records that could not be ingested, with file, line, column and reason.",
    key: &[],
    columns: REJECTS_COLUMNS,
};

pub static TABLES: &[&Table] =
    &[&JOB, &TASK, &INSTANCE, &SENSOR, &GROUP_TAG, &MACHINE_SPEC, &MACHINE_METRIC, &PHILLY_RUNTIMES, &REJECTS];
