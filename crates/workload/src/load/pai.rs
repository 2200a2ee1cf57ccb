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
//! - not finished: task status Running, Waiting or Ready.

use std::collections::HashMap;

use polars::prelude::*;

use tracelab_analysis::frame;

use tracelab_schema::error::{Error, Result};
use tracelab_schema::pai::{GROUP_TAG, INSTANCE, JOB, TASK};
use tracelab_store::Store;

use super::{candidates, epoch_s, Loaded, Names};

pub const UNIT: &str =
    "a PAI task (pai/task row): submitted at its start_time, running for the mean run time of its instances, \
asking inst_num x plan_gpu/100 GPUs and pinned to the GPU type of its job's group tag (gpu_type_spec)";

pub fn load(store: &Store) -> Result<Loaded> {
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
        ]);
    let mut df = frame::collect(lf, "pai: reading tasks with their jobs and group tags")?;
    let runs = mean_runs(store)?;
    let run_s: Vec<Option<f64>> = frame::strs(&df, "job_id")?
        .iter()
        .map(|id| id.as_ref().and_then(|id| runs.get(id)).map(|(sum, n)| sum / *n as f64))
        .collect();
    // The per-task sums (a string key per task) are done with before the
    // jobs are built from the frame: freeing them lowers the load's peak.
    drop(runs);
    df.with_column(Column::new("run_s".into(), run_s)).map_err(|e| Error::polars("pai: task run times", e))?;
    let mut names = Names::default();
    let (jobs, left_out) = candidates(&df, &mut names, "pai tasks")?;
    Ok(Loaded { source: "pai".into(), unit: UNIT.into(), rows: df.height() as u64, jobs, names, left_out })
}

/// Instance rows read at a time: the instance table is the largest PAI
/// table (7 M rows at full scale), and a group-by over all of it on its two
/// string keys held GBs; slices keep one slice's strings in memory.
const SLICE: usize = 1 << 20;

/// Per task (`job_name/task_name`), the sum and count of its instances'
/// recorded run times, read slice by slice.
fn mean_runs(store: &Store) -> Result<HashMap<String, (f64, u32)>> {
    let n =
        frame::i64s(&frame::collect(store.scan(&INSTANCE)?.select([len().alias("n")]), "pai: instance rows")?, "n")?;
    let rows = n.first().copied().flatten().unwrap_or(0).max(0) as usize;
    let mut acc: HashMap<String, (f64, u32)> = HashMap::new();
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
                Some(e) => *e = (e.0 + r, e.1 + 1),
                None => {
                    acc.insert(key.clone(), (r, 1));
                }
            }
        }
    }
    Ok(acc)
}

/// Whether the task's status is one of `codes` (nulls count as finished:
/// their run time decides).
fn unfinished(codes: &[&str]) -> Expr {
    codes.iter().fold(lit(false), |acc, c| acc.or(col("status").eq(lit(*c)).fill_null(lit(false))))
}
