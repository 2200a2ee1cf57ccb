//! The owners' derived frames as lazy plans over the canonical tables
//! (`analysis/utils.py`; `docs/definitions.md#pai-vocabulary-and-the-owners-frames`):
//! the definition of every [`Frame`], exactly as upstream builds it. Every
//! PAI notebook figure reads one of these:
//!
//! - `dfa` ([`Frame::Tasks`]): one row per task that has a job and instance
//!   rows, with the instance aggregates (`*_i`), the job's columns (`*_j`),
//!   the notebook's queueing delay `wait_s` (task start -> earliest instance
//!   start) and the README's (`job_wait_s`: job start -> earliest task start
//!   of the job), and the group tag (group := user when untagged).
//! - `dfiw` ([`Frame::Workers`]): one row per worker (sorted by status,
//!   start, end; the last row per `worker_name` kept; rows without a worker
//!   dropped).
//! - `dfw` ([`Frame::Instances`]): `dfiw` with its task's per-instance plans
//!   and the group tag.
//! - `dfws` ([`Frame::InstancesWithSensor`]): `dfw` with machine capacities
//!   and its sensor row.
//! - `dfas` ([`Frame::TaskUsage`]): per task, sums over instances that have
//!   sensor rows of requests, usages and machine capacities (Fig 6 uses task
//!   totals).
//! - `sensor_times` ([`Frame::SensorTimes`]): the sensor rows with their
//!   worker's `dfiw` times (tracelab's, for the Fig 7 reconstruction).
//!
//! Every join keeps the left side's row order (and the right side's among
//! one left row's matches), so the frames are deterministic: `dfa` and
//! `dfas` in task-table order; `dfiw`, `dfw` and `dfws` in instance-table
//! order for the workers that occur once, then the deduplicated repeated
//! workers; `sensor_times` in sensor-table order. The derived-frame cache
//! (`super::derived`) builds the same rows from row numbers and is tested
//! against these plans; analyses read the frames through `super::frames`.
//!
//! Store conventions that differ from the raw files: a raw time of 0 is null
//! here, so the notebook's `end_time == 0` tasks (a negative completion time
//! upstream, `0 - start`) have a null completion time instead.

use polars::prelude::*;

use crate::frame::seconds_between;
use tracelab_schema::error::{Error, Result};
use tracelab_schema::pai::{GROUP_TAG, INSTANCE, JOB, MACHINE_SPEC, SENSOR, TASK};
use tracelab_store::Store;

/// The derived frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Frame {
    /// `dfa`
    Tasks,
    /// `dfiw`
    Workers,
    /// `dfw`
    Instances,
    /// `dfws`
    InstancesWithSensor,
    /// `dfas` merged into `dfa`
    TaskUsage,
    /// `pai/sensor` rows with their worker's `dfiw` times (Fig 7)
    SensorTimes,
}

impl Frame {
    pub const ALL: [Frame; 6] = [
        Frame::Tasks,
        Frame::Workers,
        Frame::Instances,
        Frame::InstancesWithSensor,
        Frame::TaskUsage,
        Frame::SensorTimes,
    ];

    /// The owners' name, used for the file.
    pub fn name(self) -> &'static str {
        match self {
            Frame::Tasks => "dfa",
            Frame::Workers => "dfiw",
            Frame::Instances => "dfw",
            Frame::InstancesWithSensor => "dfws",
            Frame::TaskUsage => "dfas",
            Frame::SensorTimes => "sensor_times",
        }
    }
}

/// The lazy plan of `frame` over the store's canonical tables.
pub fn plan(store: &Store, frame: Frame) -> Result<LazyFrame> {
    match frame {
        Frame::Tasks => tasks_plan(store),
        Frame::Workers => workers_plan(store),
        Frame::Instances => Ok(dfw_of(workers_plan(store)?, task_plans(store)?, tags(store, true)?)),
        Frame::InstancesWithSensor => Ok(dfws_of(plan(store, Frame::Instances)?, capacities(store)?, sensor(store)?)),
        Frame::TaskUsage => Ok(dfas_of(plan(store, Frame::InstancesWithSensor)?, tasks_plan(store)?)),
        Frame::SensorTimes => {
            let times = workers_plan(store)?.select([col("worker_name"), col("start_time"), col("end_time")]);
            Ok(join_on(store.scan(&SENSOR)?, times, &["worker_name"], JoinType::Inner))
        }
    }
}

/// Join arguments that keep the left frame's row order, and the right
/// frame's among the matches of one left row (determinism).
fn keep_order(how: JoinType) -> JoinArgs {
    let mut args = JoinArgs::new(how);
    args.maintain_order = MaintainOrderJoin::LeftRight;
    args
}

pub(super) fn join_on(left: LazyFrame, right: LazyFrame, keys: &[&str], how: JoinType) -> LazyFrame {
    let k: Vec<Expr> = keys.iter().map(|c| col(*c)).collect();
    left.join(right, k.clone(), k, keep_order(how))
}

fn tasks_plan(store: &Store) -> Result<LazyFrame> {
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
    let dfa = join_on(store.scan(&TASK)?, jobs, &["job_name"], JoinType::Inner)
        .with_column(seconds_between(col("end_time"), col("start_time")).alias("runtime_s"));
    let dfa = join_on(dfa, inst, &["job_name", "task_name"], JoinType::Inner);
    let dfa = join_on(dfa, first_task, &["job_name"], JoinType::Left)
        .with_columns([
            seconds_between(col("start_time_i"), col("start_time")).alias("wait_s"),
            seconds_between(col("first_task_start"), col("start_time_j")).alias("job_wait_s"),
        ])
        .drop(cols(["first_task_start"]));
    Ok(with_group_tag(dfa, tags(store, false)?))
}

/// The group tag table: `dfw` takes the user from it, `dfa` from the job
/// table.
fn tags(store: &Store, with_user: bool) -> Result<LazyFrame> {
    let mut keep = vec![col("inst_id"), col("gpu_type_spec"), col("group"), col("workload")];
    if with_user {
        keep.push(col("user"));
    }
    Ok(store.scan(&GROUP_TAG)?.select(keep))
}

/// Left-joins the group tag on `inst_id` and fills `group` with the user
/// where it is missing (utils.py: `group = user` wherever group is null).
fn with_group_tag(lf: LazyFrame, tags: LazyFrame) -> LazyFrame {
    join_on(lf, tags, &["inst_id"], JoinType::Left).with_column(coalesce(&[col("group"), col("user")]).alias("group"))
}

/// Instance rows with a worker.
fn named_instances(instances: LazyFrame) -> LazyFrame {
    instances.filter(col("worker_name").is_not_null())
}

/// The worker names that occur on more than one instance row.
fn repeated_workers(named: LazyFrame) -> LazyFrame {
    named
        .group_by([col("worker_name")])
        .agg([len().alias("rows")])
        .filter(col("rows").gt(lit(1)))
        .select([col("worker_name")])
}

/// The rows of workers that occur once (`repeated` from
/// [`repeated_workers`]), in the input's order.
fn single_workers(named: LazyFrame, repeated: LazyFrame) -> LazyFrame {
    join_on(named, repeated, &["worker_name"], JoinType::Anti)
}

/// The rows of repeated workers, in the input's order.
fn kept_repeats(named: LazyFrame, repeated: LazyFrame) -> LazyFrame {
    join_on(named, repeated, &["worker_name"], JoinType::Semi)
}

/// `get_dfiw` on the rows of repeated workers: sorted by status, start, end
/// (stable, nulls last as pandas), the last row per worker kept (`worker`:
/// the name, or any column equal exactly where the names are). Only these
/// rows need the sort: a worker that occurs once is kept whatever the order.
pub(super) fn deduplicate(repeats: LazyFrame, worker: &str) -> LazyFrame {
    let sort = SortMultipleOptions::default().with_nulls_last(true).with_maintain_order(true);
    repeats
        .sort(["status", "start_time", "end_time"], sort)
        .unique_stable(Some(cols([worker])), UniqueKeepStrategy::Last)
}

/// `dfiw` as a lazy plan: the single workers, then the deduplicated ones.
fn workers_plan(store: &Store) -> Result<LazyFrame> {
    let named = named_instances(store.scan(&INSTANCE)?);
    let repeated = repeated_workers(named.clone());
    let (single, repeats) = (single_workers(named.clone(), repeated.clone()), kept_repeats(named, repeated));
    concat([single, deduplicate(repeats, "worker_name")], UnionArgs::default()).map_err(|e| Error::polars("dfiw", e))
}

/// The task columns `dfw` takes (per-instance plans).
fn task_plans(store: &Store) -> Result<LazyFrame> {
    Ok(store.scan(&TASK)?.select([
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
    ]))
}

/// `dfw` from `dfiw` rows (all or a chunk), the task plans and the tags.
fn dfw_of(workers: LazyFrame, task_plans: LazyFrame, tags: LazyFrame) -> LazyFrame {
    with_group_tag(join_on(workers, task_plans, &["job_name", "task_name"], JoinType::Left), tags)
}

/// The machine capacities `dfws` takes.
fn capacities(store: &Store) -> Result<LazyFrame> {
    Ok(store.scan(&MACHINE_SPEC)?.select([col("machine"), col("cap_cpu"), col("cap_mem_gib"), col("cap_gpu")]))
}

/// The sensor columns `dfws` takes (`dfs` without job, task, inst_id and
/// machine).
fn sensor(store: &Store) -> Result<LazyFrame> {
    Ok(store.scan(&SENSOR)?.select([
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
    ]))
}

/// `dfws` from `dfw` rows (all or a chunk), capacities and sensor rows.
fn dfws_of(dfw: LazyFrame, capacities: LazyFrame, sensor: LazyFrame) -> LazyFrame {
    join_on(join_on(dfw, capacities, &["machine"], JoinType::Left), sensor, &["worker_name"], JoinType::Inner)
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

/// `dfas` merged into `dfa`, from `dfws` and `dfa`.
fn dfas_of(dfws: LazyFrame, dfa: LazyFrame) -> LazyFrame {
    let sums: Vec<Expr> =
        USAGE_SUMS.iter().map(|c| col(*c).cast(DataType::Float64).fill_null(lit(0.0)).sum()).collect();
    let mut keep = vec![col("job_name"), col("task_name")];
    keep.extend(USAGE_SUMS.iter().map(|c| col(*c)));
    let dfas = dfws.select(keep).group_by([col("job_name"), col("task_name")]).agg(sums);
    let dfa = dfa.drop(cols(["plan_cpu_pct", "plan_mem_gib", "plan_gpu_pct"]));
    join_on(dfa, dfas, &["job_name", "task_name"], JoinType::Inner)
}
