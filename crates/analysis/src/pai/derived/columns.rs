//! Where every column of the derived frames comes from: a column of a
//! canonical table gathered by a row-index column of the derived file, or a
//! column stored in the derived file itself (aggregates and computed
//! values). The lists follow the lazy plans' column order exactly (a unit
//! test compares them).

use super::Frame;
use tracelab_schema::pai::{GROUP_TAG, INSTANCE, JOB, MACHINE_SPEC, SENSOR, TASK};
use tracelab_schema::Table;

/// The source of one frame column.
#[derive(Debug, Clone, Copy)]
pub enum Source {
    /// A column of the derived file.
    Stored,
    /// `table.column` at the row named by the derived file's `index` column
    /// (null index: null value, a left join without a match).
    Gather { table: &'static Table, index: &'static str, column: &'static str },
    /// `dfw`'s group: the tag's group, else the tag's user (utils.py), both
    /// gathered by `tag_row`.
    TagGroupOrUser,
}

/// Row-index columns of the derived files.
pub const TASK_ROW: &str = "task_row";
pub const JOB_ROW: &str = "job_row";
pub const TAG_ROW: &str = "tag_row";
pub const INST_ROW: &str = "inst_row";
pub const SPEC_ROW: &str = "spec_row";
pub const SENSOR_ROW: &str = "sensor_row";

/// The columns `dfa` (and `dfas`) store beside their row indices.
pub const DFA_STORED: [&str; 8] =
    ["runtime_s", "status_i", "start_time_i", "end_time_i", "runtime_i_s", "wait_s", "job_wait_s", "group"];

/// The task columns of `dfw` (task plans; clashing names get `_t`).
const DFW_TASK: [(&str, &str); 8] = [
    ("inst_num", "inst_num"),
    ("status_t", "status"),
    ("start_time_t", "start_time"),
    ("end_time_t", "end_time"),
    ("plan_cpu_pct", "plan_cpu_pct"),
    ("plan_mem_gib", "plan_mem_gib"),
    ("plan_gpu_pct", "plan_gpu_pct"),
    ("gpu_type", "gpu_type"),
];

/// The sensor columns of `dfws`.
pub const DFWS_SENSOR: [&str; 9] = [
    "gpu_name",
    "cpu_usage_pct",
    "gpu_wrk_util_pct",
    "avg_mem_gib",
    "max_mem_gib",
    "avg_gpu_wrk_mem_gib",
    "max_gpu_wrk_mem_gib",
    "read_bytes",
    "write_bytes",
];

fn gather(table: &'static Table, index: &'static str, column: &'static str) -> Source {
    Source::Gather { table, index, column }
}

/// Every column of `frame` with its source, in the frame's order.
pub fn columns(frame: Frame) -> Vec<(&'static str, Source)> {
    match frame {
        Frame::Tasks => task_columns(false),
        Frame::TaskUsage => task_columns(true),
        Frame::Workers => instance_columns(),
        Frame::SensorTimes => {
            let mut c: Vec<(&'static str, Source)> =
                SENSOR.columns.iter().map(|s| (s.name, gather(&SENSOR, SENSOR_ROW, s.name))).collect();
            c.push(("start_time", gather(&INSTANCE, INST_ROW, "start_time")));
            c.push(("end_time", gather(&INSTANCE, INST_ROW, "end_time")));
            c
        }
        Frame::Instances | Frame::InstancesWithSensor => {
            let mut c = instance_columns();
            c.extend(DFW_TASK.iter().map(|(name, src)| (*name, gather(&TASK, TASK_ROW, src))));
            c.push(("gpu_type_spec", gather(&GROUP_TAG, TAG_ROW, "gpu_type_spec")));
            c.push(("group", Source::TagGroupOrUser));
            c.push(("workload", gather(&GROUP_TAG, TAG_ROW, "workload")));
            c.push(("user", gather(&GROUP_TAG, TAG_ROW, "user")));
            if frame == Frame::InstancesWithSensor {
                for cap in ["cap_cpu", "cap_mem_gib", "cap_gpu"] {
                    c.push((cap, gather(&MACHINE_SPEC, SPEC_ROW, cap)));
                }
                c.extend(DFWS_SENSOR.iter().map(|s| (*s, gather(&SENSOR, SENSOR_ROW, s))));
            }
            c
        }
    }
}

fn instance_columns() -> Vec<(&'static str, Source)> {
    INSTANCE.columns.iter().map(|c| (c.name, gather(&INSTANCE, INST_ROW, c.name))).collect()
}

/// `dfa`; `dfas` without the per-instance plans and with the usage sums.
fn task_columns(usage: bool) -> Vec<(&'static str, Source)> {
    let plans = ["plan_cpu_pct", "plan_mem_gib", "plan_gpu_pct"];
    let mut c: Vec<(&'static str, Source)> = TASK
        .columns
        .iter()
        .filter(|t| !(usage && plans.contains(&t.name)))
        .map(|t| (t.name, gather(&TASK, TASK_ROW, t.name)))
        .collect();
    c.push(("inst_id", gather(&JOB, JOB_ROW, "inst_id")));
    c.push(("user", gather(&JOB, JOB_ROW, "user")));
    for (name, src) in [("status_j", "status"), ("start_time_j", "start_time"), ("end_time_j", "end_time")] {
        c.push((name, gather(&JOB, JOB_ROW, src)));
    }
    c.extend(DFA_STORED[..7].iter().map(|n| (*n, Source::Stored)));
    c.push(("gpu_type_spec", gather(&GROUP_TAG, TAG_ROW, "gpu_type_spec")));
    c.push(("group", Source::Stored));
    c.push(("workload", gather(&GROUP_TAG, TAG_ROW, "workload")));
    if usage {
        c.extend(super::super::plans::USAGE_SUMS.iter().map(|n| (*n, Source::Stored)));
    }
    c
}
