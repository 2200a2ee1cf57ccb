//! The owners' derived frames (`analysis/utils.py`, analyses.md §1.2) as
//! lazy plans over the store. Every PAI notebook figure reads one of these,
//! so they are built once here, exactly as upstream builds them:
//!
//! - [`tasks`] = `dfa`: one row per task that has a job and instance rows,
//!   with the instance aggregates (`*_i`), the job's columns (`*_j`), the
//!   notebook's queueing delay `wait_s` (task start -> earliest instance
//!   start) and the README's (`job_wait_s`: job start -> earliest task start
//!   of the job), and the group tag (group := user when untagged).
//! - [`instances`] = `dfw`: one row per worker (`dfiw`: sorted by status,
//!   start, end; the last row per `worker_name` kept; rows without a worker
//!   dropped) with its task's per-instance plans and the group tag.
//! - [`task_usage`] = `dfas`: per task, sums over instances that have sensor
//!   rows of requests, usages and machine capacities (Fig 6 uses task totals).
//!
//! Store conventions that differ from the raw files: a raw time of 0 is null
//! here, so the notebook's `end_time == 0` tasks (a negative completion time
//! upstream, `0 - start`) have a null completion time instead.

use polars::prelude::*;

use crate::error::Result;
use crate::schema::pai::{GROUP_TAG, INSTANCE, JOB, MACHINE_SPEC, SENSOR, TASK};
use crate::store::Store;

use super::super::frame::seconds_between;

/// `dfa`: tasks with job, instance aggregates, waits and tags.
///
/// Columns: job_name, task_name, inst_num, status, start_time, end_time,
/// plan_cpu_pct, plan_mem_gib, plan_gpu_pct, gpu_type, inst_id, user,
/// status_j, start_time_j, end_time_j, runtime_s (task end - task start, the
/// notebook's "completion time"), status_i (lexicographic max), start_time_i,
/// end_time_i, runtime_i_s (MEAN instance runtime), wait_s, job_wait_s,
/// gpu_type_spec, group, workload.
pub fn tasks(store: &Store) -> Result<LazyFrame> {
    let jobs = store.scan(&JOB)?.select([
        col("job_name"),
        col("inst_id"),
        col("user"),
        col("status").alias("status_j"),
        col("start_time").alias("start_time_j"),
        col("end_time").alias("end_time_j"),
    ]);
    let inst = store.scan(&INSTANCE)?.group_by([col("job_name"), col("task_name")]).agg([
        col("status").max().alias("status_i"),
        col("start_time").min().alias("start_time_i"),
        col("end_time").max().alias("end_time_i"),
        col("run_s").mean().alias("runtime_i_s"),
    ]);
    // README: "the gap between job.start_time and the earliest
    // task.start_time in the job implies its wait time" (over all the job's
    // tasks, with or without instance rows).
    let first_task =
        store.scan(&TASK)?.group_by([col("job_name")]).agg([col("start_time").min().alias("first_task_start")]);
    let task_keys = [col("job_name"), col("task_name")];
    let dfa = store
        .scan(&TASK)?
        .join(jobs, [col("job_name")], [col("job_name")], JoinArgs::new(JoinType::Inner))
        .with_column(seconds_between(col("end_time"), col("start_time")).alias("runtime_s"))
        .join(inst, task_keys.clone(), task_keys, JoinArgs::new(JoinType::Inner))
        .join(first_task, [col("job_name")], [col("job_name")], JoinArgs::new(JoinType::Left))
        .with_columns([
            seconds_between(col("start_time_i"), col("start_time")).alias("wait_s"),
            seconds_between(col("first_task_start"), col("start_time_j")).alias("job_wait_s"),
        ])
        .drop(cols(["first_task_start"]));
    with_group_tag(dfa, store, false)
}

/// Left-joins the group tag on `inst_id` and fills `group` with the user
/// where it is missing (utils.py: `group = user` wherever group is null).
/// `dfw` takes the user from the tag table, `dfa` from the job table.
fn with_group_tag(lf: LazyFrame, store: &Store, with_user: bool) -> Result<LazyFrame> {
    let mut keep = vec![col("inst_id"), col("gpu_type_spec"), col("group"), col("workload")];
    if with_user {
        keep.push(col("user"));
    }
    let tags = store.scan(&GROUP_TAG)?.select(keep);
    Ok(lf
        .join(tags, [col("inst_id")], [col("inst_id")], JoinArgs::new(JoinType::Left))
        .with_column(coalesce(&[col("group"), col("user")]).alias("group")))
}

/// `dfiw`: one row per worker, as `get_dfiw` keeps it.
pub fn workers(store: &Store) -> Result<LazyFrame> {
    let sort = SortMultipleOptions::default().with_nulls_last(true).with_maintain_order(true);
    Ok(store
        .scan(&INSTANCE)?
        .sort(["status", "start_time", "end_time"], sort)
        .unique_stable(Some(cols(["worker_name"])), UniqueKeepStrategy::Last)
        .filter(col("worker_name").is_not_null()))
}

/// `dfw`: workers with their task's plans (per instance), the group tag and
/// the tag table's user.
/// Task columns that clash with instance columns get the `_t` suffix.
pub fn instances(store: &Store) -> Result<LazyFrame> {
    let task = store.scan(&TASK)?.select([
        col("job_name"),
        col("task_name"),
        col("inst_num"),
        col("status").alias("status_t"),
        col("start_time").alias("start_time_t"),
        col("end_time").alias("end_time_t"),
        col("plan_cpu_pct"),
        col("plan_mem_gib"),
        col("plan_gpu_pct"),
        col("gpu_type"),
    ]);
    let keys = [col("job_name"), col("task_name")];
    let dfw = workers(store)?.join(task, keys.clone(), keys, JoinArgs::new(JoinType::Left));
    with_group_tag(dfw, store, true)
}

/// `dfws`: `dfw` with machine capacities (left join) and sensor rows
/// (inner join on `worker_name`).
pub fn instances_with_sensor(store: &Store) -> Result<LazyFrame> {
    let spec = store.scan(&MACHINE_SPEC)?.select([col("machine"), col("cap_cpu"), col("cap_mem_gib"), col("cap_gpu")]);
    let sensor = store.scan(&SENSOR)?.select([
        col("worker_name"),
        col("gpu_name"),
        col("cpu_usage_pct"),
        col("gpu_wrk_util_pct"),
        col("avg_mem_gib"),
        col("max_mem_gib"),
        col("avg_gpu_wrk_mem_gib"),
        col("max_gpu_wrk_mem_gib"),
        col("read_bytes"),
        col("write_bytes"),
    ]);
    Ok(instances(store)?.join(spec, [col("machine")], [col("machine")], JoinArgs::new(JoinType::Left)).join(
        sensor,
        [col("worker_name")],
        [col("worker_name")],
        JoinArgs::new(JoinType::Inner),
    ))
}

/// Columns summed per task in `dfas`.
pub const USAGE_SUMS: [&str; 10] = [
    "cpu_usage_pct",
    "gpu_wrk_util_pct",
    "avg_mem_gib",
    "avg_gpu_wrk_mem_gib",
    "plan_cpu_pct",
    "plan_gpu_pct",
    "plan_mem_gib",
    "cap_cpu",
    "cap_gpu",
    "cap_mem_gib",
];

/// `dfas` merged into `dfa`: per task, the sums over its instances with
/// sensor rows (pandas `sum` skips NaN; an all-NaN group sums to 0), joined
/// (inner) to the task frame whose own per-instance plans are dropped.
pub fn task_usage(store: &Store) -> Result<LazyFrame> {
    let keys = [col("job_name"), col("task_name")];
    let sums: Vec<Expr> =
        USAGE_SUMS.iter().map(|c| col(*c).cast(DataType::Float64).fill_null(lit(0.0)).sum()).collect();
    let dfas = instances_with_sensor(store)?.group_by(keys.clone()).agg(sums);
    let dfa = tasks(store)?.drop(cols(["plan_cpu_pct", "plan_mem_gib", "plan_gpu_pct"]));
    Ok(dfa.join(dfas, keys.clone(), keys, JoinArgs::new(JoinType::Inner)))
}
