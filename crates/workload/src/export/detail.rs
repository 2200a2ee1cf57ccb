//! The trace facts an export needs beyond the replay's job (submit,
//! duration, GPUs, user, group, VC): status, recorded wait, recorded end,
//! instances, per-instance plans and GPU type, read per schedulable unit
//! with the same unit and id as [`crate::load`]:
//! - PAI task (`job_name/task_name`): task status; wait = earliest instance
//!   start - task start (the notebook's task-to-instance queueing delay);
//!   end = task end; `inst_num`; per-instance `plan_gpu/100` GPUs and
//!   `plan_cpu/100` CPUs; the task's assigned `gpu_type`;
//! - Philly job: status; wait = `queue_s` (first attempt start - submit); end
//!   = last attempt end;
//! - Helios job (`Cluster/job_id`): state; wait = raw `queue`; end =
//!   `end_time`; `node_num`; `cpu_num`;
//! - AcmeTrace job (`Cluster/job_id`): state; wait = start - submit; end =
//!   `end_time`; `node_num`; `cpu_num`;
//! - spot job (`job_name`): no state (`unrecorded`), wait and end not
//!   recorded; `worker_num`; per-worker `gpu_request` and `cpu_request`; the
//!   job's `gpu_model`.
//!
//! Must not: decide which jobs are exported (load and select do).

use std::collections::HashMap;

use polars::prelude::*;

use tracelab_analysis::frame;
use tracelab_schema::error::{Error, Result};
use tracelab_schema::{acme, helios, pai, philly, spot, status, Trace};
use tracelab_sim::Millis;
use tracelab_store::Store;

use crate::load::TraceSel;

/// Trace facts of one unit; `None` where the trace records nothing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Detail {
    /// `pai`, `philly` or the Helios cluster.
    pub cluster: String,
    /// The VC as the trace names it (without the Helios cluster prefix).
    pub vc: String,
    /// The trace's own status code.
    pub status: String,
    /// Recorded queueing delay, milliseconds.
    pub wait: Option<Millis>,
    /// Recorded end, epoch milliseconds.
    pub end: Option<Millis>,
    /// PAI `inst_num`, Helios `node_num`.
    pub instances: Option<i64>,
    /// PAI per-instance GPUs (`plan_gpu / 100`).
    pub inst_gpus: Option<f64>,
    /// PAI per-instance CPUs (`plan_cpu / 100`); Helios `cpu_num`.
    pub cpus: Option<f64>,
    /// PAI task's assigned GPU type; the spot job's `gpu_model`.
    pub gpu_type: Option<String>,
    /// The spot trace's class, `job_type` (HP or Spot).
    pub class: Option<String>,
}

/// Every unit's facts by its load id.
pub fn read(store: &Store, sel: &TraceSel) -> Result<HashMap<String, Detail>> {
    let (lf, what) = match sel.trace {
        Trace::Pai => (pai_plan(store)?, "pai: task facts for export"),
        Trace::Philly => (philly_plan(store)?, "philly: job facts for export"),
        Trace::Helios => (helios_plan(store, sel.cluster.as_deref())?, "helios: job facts for export"),
        Trace::Acme => (acme_plan(store, sel.cluster.as_deref())?, "acme: job facts for export"),
        Trace::Spot => (spot_plan(store)?, "spot: job facts for export"),
        Trace::Swf => return Err(Error::Usage("--trace swf: SWF logs are not a source of simulate or export".into())),
    };
    let df = frame::collect(lf, what)?;
    let ids = frame::strs(&df, "id")?;
    let cols = Columns::of(&df)?;
    Ok(ids.into_iter().enumerate().map(|(i, id)| (id.unwrap_or_default(), cols.row(i))).collect())
}

/// The frame's columns, extracted once.
struct Columns {
    cluster: Vec<Option<String>>,
    vc: Vec<Option<String>>,
    status: Vec<Option<String>>,
    wait: Vec<Option<i64>>,
    end: Vec<Option<i64>>,
    instances: Vec<Option<i64>>,
    inst_gpus: Vec<Option<f64>>,
    cpus: Vec<Option<f64>>,
    gpu_type: Vec<Option<String>>,
    class: Vec<Option<String>>,
}

impl Columns {
    fn of(df: &DataFrame) -> Result<Columns> {
        Ok(Columns {
            cluster: frame::strs(df, "cluster")?,
            vc: frame::strs(df, "vc")?,
            status: frame::strs(df, "status")?,
            wait: frame::i64s(df, "wait_ms")?,
            end: frame::i64s(df, "end_ms")?,
            instances: frame::i64s(df, "instances")?,
            inst_gpus: frame::f64s(df, "inst_gpus")?,
            cpus: frame::f64s(df, "cpus")?,
            gpu_type: frame::strs(df, "gpu_type")?,
            class: frame::strs(df, "class")?,
        })
    }

    fn row(&self, i: usize) -> Detail {
        Detail {
            cluster: self.cluster[i].clone().unwrap_or_default(),
            vc: self.vc[i].clone().unwrap_or_default(),
            status: self.status[i].clone().unwrap_or_default(),
            wait: self.wait[i],
            end: self.end[i],
            instances: self.instances[i],
            inst_gpus: self.inst_gpus[i].filter(|g| g.is_finite()),
            cpus: self.cpus[i].filter(|c| c.is_finite()),
            gpu_type: self.gpu_type[i].clone().filter(|t| !t.is_empty()),
            class: self.class[i].clone(),
        }
    }
}

/// Epoch milliseconds of a timestamp column.
fn epoch_ms(name: &str) -> Expr {
    col(name).dt().timestamp(TimeUnit::Milliseconds)
}

/// Seconds (f64) to whole milliseconds.
fn ms_of_secs(e: Expr) -> Expr {
    (e * lit(1000.0)).round(0, RoundMode::HalfAwayFromZero).cast(DataType::Int64)
}

fn none(name: &str, ty: DataType) -> Expr {
    lit(NULL).cast(ty).alias(name)
}

fn pai_plan(store: &Store) -> Result<LazyFrame> {
    let keys = || [col("job_name"), col("task_name")];
    let first = store.scan(&pai::INSTANCE)?.group_by(keys()).agg([col("start_time").min().alias("first_inst")]);
    Ok(store.scan(&pai::TASK)?.join(first, keys(), keys(), JoinArgs::new(JoinType::Left)).select([
        concat_str([col("job_name"), col("task_name")], "/", false).alias("id"),
        lit("pai").alias("cluster"),
        lit("pai").alias("vc"),
        col("status"),
        (epoch_ms("first_inst") - epoch_ms("start_time")).alias("wait_ms"),
        epoch_ms("end_time").alias("end_ms"),
        col("inst_num").alias("instances"),
        (col("plan_gpu_pct") / lit(100.0)).alias("inst_gpus"),
        (col("plan_cpu_pct") / lit(100.0)).alias("cpus"),
        col("gpu_type"),
        none("class", DataType::String),
    ]))
}

fn philly_plan(store: &Store) -> Result<LazyFrame> {
    Ok(store.scan(&philly::JOBS)?.select([
        col("job_id").alias("id"),
        lit("philly").alias("cluster"),
        col("vc"),
        col("status"),
        ms_of_secs(col("queue_s")).alias("wait_ms"),
        epoch_ms("last_end_time").alias("end_ms"),
        none("instances", DataType::Int64),
        none("inst_gpus", DataType::Float64),
        none("cpus", DataType::Float64),
        none("gpu_type", DataType::String),
        none("class", DataType::String),
    ]))
}

fn helios_plan(store: &Store, cluster: Option<&str>) -> Result<LazyFrame> {
    let mut lf = store.scan(&helios::JOBS)?;
    if let Some(c) = cluster {
        lf = lf.filter(col("cluster").eq(lit(c.to_string())));
    }
    Ok(lf.select([
        concat_str([col("cluster"), col("job_id").cast(DataType::String)], "/", false).alias("id"),
        col("cluster"),
        col("vc"),
        col("state").alias("status"),
        ms_of_secs(col("queue_s")).alias("wait_ms"),
        epoch_ms("end_time").alias("end_ms"),
        col("nodes").alias("instances"),
        none("inst_gpus", DataType::Float64),
        col("cpus").cast(DataType::Float64),
        none("gpu_type", DataType::String),
        none("class", DataType::String),
    ]))
}

fn acme_plan(store: &Store, cluster: Option<&str>) -> Result<LazyFrame> {
    let mut lf = store.scan(&acme::JOBS)?;
    if let Some(c) = cluster {
        lf = lf.filter(col("cluster").eq(lit(c.to_string())));
    }
    Ok(lf.select([
        concat_str([col("cluster"), col("job_id")], "/", false).alias("id"),
        col("cluster"),
        col("cluster").alias("vc"),
        col("state").alias("status"),
        (epoch_ms("start_time") - epoch_ms("submit_time")).alias("wait_ms"),
        epoch_ms("end_time").alias("end_ms"),
        col("nodes").alias("instances"),
        none("inst_gpus", DataType::Float64),
        col("cpus").cast(DataType::Float64),
        none("gpu_type", DataType::String),
        none("class", DataType::String),
    ]))
}

fn spot_plan(store: &Store) -> Result<LazyFrame> {
    Ok(store.scan(&spot::JOBS)?.select([
        col("job_name").alias("id"),
        lit("spot").alias("cluster"),
        col("organization").alias("vc"),
        lit(status::SPOT_UNRECORDED).alias("status"),
        none("wait_ms", DataType::Int64),
        none("end_ms", DataType::Int64),
        col("workers").alias("instances"),
        col("gpu_request").alias("inst_gpus"),
        col("cpu_request").alias("cpus"),
        col("gpu_model").alias("gpu_type"),
        col("job_type").alias("class"),
    ]))
}
