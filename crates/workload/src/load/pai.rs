//! PAI tasks as schedulable units. The PAI simulator replays tasks
//! (`num_gpu x num_inst` GPUs, all instances gang-scheduled), and the duration
//! its predictor learns is the task's mean instance runtime (upstream issue
//! #183), so one task = one engine job:
//! - submit: the task's `start_time` (task launch, the notebook's task
//!   submission);
//! - duration: mean `run_s` of the task's instance records;
//! - GPUs: `inst_num x plan_gpu / 100` (per-instance plans, upstream #129),
//!   fractional below one GPU; CPUs likewise from `plan_cpu`; a missing
//!   `inst_num` counts as 1, as the PAI simulator reads it;
//! - GPU type: the job's group tag `gpu_type_spec` (the type the user asked
//!   for; empty = any), not the task's assigned `gpu_type`;
//! - user: the job's user; group: the tag's `group`, else the user (as the
//!   notebook does); VC: PAI has none, every task is in VC `pai`;
//! - not finished: task status Running, Waiting or Ready;
//! - usage (when asked): from the task's sensor rows (`pai/sensor`, keyed by
//!   their own job and task names), the mean over its instances of
//!   `gpu_wrk_util` and `avg_gpu_wrk_mem` per GPU an instance occupies,
//!   `max(1, ceil(plan_gpu / 100))` (the sensor names one device even for a
//!   multi-GPU instance, as `seed.muxflow-gpu-util` reads it): the task
//!   totals the analyses sum (`dfas`, NSDI'22 Fig 6) divided by the GPUs
//!   its instances hold. Utilization above 100 % (upstream #182) counts as
//!   100; a task without sensor rows has no measured usage.

use std::collections::HashMap;

use polars::prelude::*;

use tracelab_analysis::frame;

use tracelab_schema::error::{Error, Result};
use tracelab_schema::pai::{GROUP_TAG, INSTANCE, JOB, SENSOR, TASK};
use tracelab_sim::usage::MAX_GPU_MEM_GIB;
use tracelab_sim::Usage;
use tracelab_store::Store;

use super::{candidates, epoch_s, Loaded, Names};

pub const UNIT: &str =
    "a PAI task (pai/task row): submitted at its start_time, running for the mean run time of its instances, \
asking inst_num x plan_gpu/100 GPUs and pinned to the GPU type of its job's group tag (gpu_type_spec)";

pub fn load(store: &Store, usage: bool) -> Result<Loaded> {
    let first = |c: &str| col(c).first().alias(c);
    let jobs = store.scan(&JOB)?.group_by([col("job_name")]).agg([first("inst_id"), first("user")]);
    let tags = store.scan(&GROUP_TAG)?.group_by([col("inst_id")]).agg([first("gpu_type_spec"), first("group")]);
    let inst = col("inst_num").cast(DataType::Float64).fill_null(lit(1.0));
    let group = col("group");
    let lf = store
        .scan(&TASK)?
        .join(jobs, [col("job_name")], [col("job_name")], JoinArgs::new(JoinType::Left))
        .join(tags, [col("inst_id")], [col("inst_id")], JoinArgs::new(JoinType::Left))
        .select([
            concat_str([col("job_name"), col("task_name")], "/", false).alias("job_id"),
            epoch_s("start_time").alias("submit_s"),
            (inst.clone() * col("plan_gpu_pct") / lit(100.0)).alias("gpus"),
            (inst * col("plan_cpu_pct") / lit(100.0)).alias("cpus"),
            col("user"),
            lit("pai").alias("vc"),
            when(group.clone().is_null().or(group.clone().eq(lit(""))))
                .then(col("user"))
                .otherwise(group)
                .alias("group"),
            col("gpu_type_spec").alias("gpu_type"),
            unfinished(&["Running", "Waiting", "Ready"]).not().alias("finished"),
            col("plan_gpu_pct"),
        ]);
    let mut df = frame::collect(lf, "pai: reading tasks with their jobs and group tags")?;
    let mut tasks = mean_runs(store)?;
    if usage {
        sensor_sums(store, &mut tasks)?;
    }
    let ids = frame::strs(&df, "job_id")?;
    let aggs: Vec<Option<&TaskAgg>> = ids.iter().map(|id| id.as_ref().and_then(|id| tasks.get(id))).collect();
    let run_s: Vec<Option<f64>> =
        aggs.iter().map(|a| a.filter(|a| a.runs > 0).map(|a| a.run_sum / a.runs as f64)).collect();
    let usage = usage.then(|| per_gpu_usage(&aggs, &frame::f64s(&df, "plan_gpu_pct").unwrap_or_default()));
    // The per-task sums (a string key per task) are done with before the
    // jobs are built from the frame: freeing them lowers the load's peak.
    drop(aggs);
    drop(tasks);
    drop(ids);
    df.with_column(Column::new("run_s".into(), run_s)).map_err(|e| Error::polars("pai: task run times", e))?;
    let mut names = Names::default();
    let (jobs, left_out) = candidates(&df, &mut names, "pai tasks", usage.as_deref())?;
    Ok(Loaded { source: "pai".into(), unit: UNIT.into(), rows: df.height() as u64, jobs, names, left_out })
}

/// Instance rows read at a time: the instance table is the largest PAI
/// table (7 M rows at full scale), and a group-by over all of it on its two
/// string keys held GBs; slices keep one slice's strings in memory.
const SLICE: usize = 1 << 20;

/// What is summed per task: its instances' run times, and (usage) its
/// sensor rows' GPU utilization and memory.
#[derive(Clone, Copy, Debug, Default)]
struct TaskAgg {
    run_sum: f64,
    runs: u32,
    util_sum: f64,
    utils: u32,
    mem_sum: f64,
    mems: u32,
}

/// Per task (`job_name/task_name`), the sum and count of its instances'
/// recorded run times, read slice by slice.
fn mean_runs(store: &Store) -> Result<HashMap<String, TaskAgg>> {
    let n =
        frame::i64s(&frame::collect(store.scan(&INSTANCE)?.select([len().alias("n")]), "pai: instance rows")?, "n")?;
    let rows = n.first().copied().flatten().unwrap_or(0).max(0) as usize;
    let mut acc: HashMap<String, TaskAgg> = HashMap::new();
    for offset in (0..rows).step_by(SLICE) {
        let lf = store
            .scan(&INSTANCE)?
            .select([col("job_name"), col("task_name"), col("run_s")])
            .slice(offset as i64, SLICE as IdxSize);
        let df = frame::collect(lf, "pai: instance run times")?;
        let (jobs, tasks, runs) =
            (frame::strs(&df, "job_name")?, frame::strs(&df, "task_name")?, frame::f64s(&df, "run_s")?);
        let mut key = String::new();
        for ((j, t), r) in jobs.into_iter().zip(tasks).zip(runs) {
            let (Some(j), Some(t), Some(r)) = (j, t, r.filter(|r| r.is_finite())) else { continue };
            key.clear();
            key.push_str(&j);
            key.push('/');
            key.push_str(&t);
            match acc.get_mut(key.as_str()) {
                Some(e) => (e.run_sum, e.runs) = (e.run_sum + r, e.runs + 1),
                None => {
                    acc.insert(key.clone(), TaskAgg { run_sum: r, runs: 1, ..TaskAgg::default() });
                }
            }
        }
    }
    Ok(acc)
}

/// Adds each task's sensor rows (tasks with instance rows only), slice by
/// slice as the run times.
fn sensor_sums(store: &Store, tasks: &mut HashMap<String, TaskAgg>) -> Result<()> {
    let n = frame::i64s(&frame::collect(store.scan(&SENSOR)?.select([len().alias("n")]), "pai: sensor rows")?, "n")?;
    let rows = n.first().copied().flatten().unwrap_or(0).max(0) as usize;
    let mut key = String::new();
    for offset in (0..rows).step_by(SLICE) {
        let lf = store
            .scan(&SENSOR)?
            .select([col("job_name"), col("task_name"), col("gpu_wrk_util_pct"), col("avg_gpu_wrk_mem_gib")])
            .slice(offset as i64, SLICE as IdxSize);
        let df = frame::collect(lf, "pai: sensor usage")?;
        let (jobs, names) = (frame::strs(&df, "job_name")?, frame::strs(&df, "task_name")?);
        let (util, mem) = (frame::f64s(&df, "gpu_wrk_util_pct")?, frame::f64s(&df, "avg_gpu_wrk_mem_gib")?);
        for i in 0..df.height() {
            let (Some(j), Some(t)) = (&jobs[i], &names[i]) else { continue };
            key.clear();
            key.push_str(j);
            key.push('/');
            key.push_str(t);
            let Some(a) = tasks.get_mut(key.as_str()) else { continue };
            if let Some(u) = util[i].filter(|u| u.is_finite() && *u >= 0.0) {
                (a.util_sum, a.utils) = (a.util_sum + u, a.utils + 1);
            }
            if let Some(m) = mem[i].filter(|m| m.is_finite() && *m >= 0.0) {
                (a.mem_sum, a.mems) = (a.mem_sum + m, a.mems + 1);
            }
        }
    }
    Ok(())
}

/// Each task's usage per GPU an instance occupies (see the module docs).
fn per_gpu_usage(aggs: &[Option<&TaskAgg>], plan_gpu_pct: &[Option<f64>]) -> Vec<Usage> {
    aggs.iter()
        .enumerate()
        .map(|(i, a)| {
            let per = plan_gpu_pct.get(i).copied().flatten().map_or(1.0, |p| (p / 100.0).ceil().max(1.0));
            let Some(a) = a else { return Usage::default() };
            Usage {
                gpu_util: (a.utils > 0).then(|| (a.util_sum / a.utils as f64 / per).clamp(0.0, 100.0) as f32),
                gpu_mem_gib: (a.mems > 0).then(|| (a.mem_sum / a.mems as f64 / per).min(MAX_GPU_MEM_GIB) as f32),
                ..Usage::default()
            }
        })
        .collect()
}

/// Whether the task's status is one of `codes` (nulls count as finished:
/// their run time decides).
fn unfinished(codes: &[&str]) -> Expr {
    codes.iter().fold(lit(false), |acc, c| acc.or(col("status").eq(lit(*c)).fill_null(lit(false))))
}
