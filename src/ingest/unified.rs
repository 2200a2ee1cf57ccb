//! Builds the unified cross-trace `jobs` table (`<store>/jobs.parquet`,
//! declared in `schema::unified`) from the per-trace tables of the store,
//! with Polars lazy queries. Only trace folders with a manifest (complete
//! ingests) contribute.

use std::fs::File;
use std::path::Path;

use polars::prelude::*;

use super::manifest::Manifest;
use super::sink::{compression, polars_schema, BATCH_ROWS};
use crate::error::{Error, IoContext, Result};
use crate::schema::{status, unified, Trace};

pub fn exists(store: &Path) -> bool {
    store.join(unified::JOBS.file_name()).exists()
}

/// Rebuilds `<store>/jobs.parquet`; returns the rows contributed per trace.
pub fn rebuild(store: &Path) -> Result<Vec<(String, u64)>> {
    let mut frames = Vec::new();
    let mut counts = Vec::new();
    for trace in Trace::ALL {
        let dir = store.join(trace.name());
        if Manifest::load(&dir).is_none() {
            continue;
        }
        let df = trace_jobs(trace, &dir)
            .and_then(|lf| lf.collect())
            .map_err(|e| Error::polars(format!("{}: building the unified jobs rows", dir.display()), e))?;
        counts.push((trace.name().to_string(), df.height() as u64));
        frames.push(df);
    }
    let mut all = match frames.split_first() {
        None => DataFrame::empty_with_schema(&polars_schema(&unified::JOBS)),
        Some((first, rest)) => {
            let mut acc = first.clone();
            for df in rest {
                acc.vstack_mut(df).map_err(|e| Error::polars("stacking unified jobs", e))?;
            }
            acc
        }
    };
    all.rechunk_mut();
    write(store, &mut all)?;
    Ok(counts)
}

fn write(store: &Path, df: &mut DataFrame) -> Result<()> {
    let path = store.join(unified::JOBS.file_name());
    let partial = store.join(format!(".{}.partial", unified::JOBS.file_name()));
    let file = File::create(&partial).at(&partial)?;
    ParquetWriter::new(file)
        .with_compression(compression())
        .with_row_group_size(Some(BATCH_ROWS))
        .finish(df)
        .map_err(|e| Error::polars(partial.display().to_string(), e))?;
    std::fs::rename(&partial, &path).at(&path)
}

fn scan(dir: &Path, table: &str) -> PolarsResult<LazyFrame> {
    let path = dir.join(format!("{table}.parquet"));
    LazyFrame::scan_parquet(PlRefPath::new(path.to_string_lossy().as_ref()), ScanArgsParquet::default())
}

/// The trace's jobs in the unified column order, sorted by (submit, id).
fn trace_jobs(trace: Trace, dir: &Path) -> PolarsResult<LazyFrame> {
    let lf = match trace {
        Trace::Pai => pai_jobs(dir)?,
        Trace::Philly => philly_jobs(dir)?,
        Trace::Helios => helios_jobs(dir)?,
    };
    let cols: Vec<Expr> = unified::JOBS.columns.iter().map(|c| col(c.name).cast(super::sink::dtype(c.ty))).collect();
    Ok(lf.select(cols).sort_by_exprs(
        [col("cluster"), col("submit_time"), col("job_id")],
        SortMultipleOptions::default().with_nulls_last(true).with_maintain_order(true),
    ))
}

/// Seconds between two timestamp columns.
fn seconds(from: &str, to: &str) -> Expr {
    (col(to) - col(from)).dt().total_seconds(true)
}

/// Joins the raw status codes to their normalized names.
fn with_status(lf: LazyFrame, trace: Trace, raw_col: &str) -> PolarsResult<LazyFrame> {
    let (raws, norms): (Vec<&str>, Vec<&str>) = status::mapping(trace).into_iter().unzip();
    let map = df!("status_raw" => raws, "status" => norms)?.lazy();
    Ok(lf.with_column(col(raw_col).alias("status_raw")).join(
        map,
        [col("status_raw")],
        [col("status_raw")],
        left_args(),
    ))
}

/// A left join. Row order is not kept (that cost as much as the join
/// itself): every trace's frame is sorted by a unique key at the end.
fn left_args() -> JoinArgs {
    JoinArgs::new(JoinType::Left)
}

fn left_join(a: LazyFrame, b: LazyFrame, on_a: &str, on_b: &str) -> LazyFrame {
    a.join(b, [col(on_a)], [col(on_b)], left_args())
}

/// PAI: one row per job; requests summed over tasks (per-instance plans
/// times `inst_num`), start = first instance start, group from the tag table
/// (the user when untagged, as the notebook's `get_dfa` does; the smallest
/// tag if a job has several tag rows).
fn pai_jobs(dir: &Path) -> PolarsResult<LazyFrame> {
    let tasks = scan(dir, "task")?.group_by([col("job_name")]).agg([
        (col("inst_num").cast(DataType::Float64) * col("plan_gpu_pct") / lit(100.0)).sum().alias("gpus_requested"),
        (col("inst_num").cast(DataType::Float64) * col("plan_cpu_pct") / lit(100.0)).sum().alias("cpus_requested"),
    ]);
    let instances = scan(dir, "instance")?
        .select([col("job_name"), col("start_time")])
        .group_by([col("job_name")])
        .agg([col("start_time").min().alias("first_start"), len().cast(DataType::Int64).alias("instances")]);
    let groups = scan(dir, "group_tag")?
        .select([col("inst_id"), col("group")])
        .group_by([col("inst_id")])
        .agg([col("group").min().alias("tag")]);
    // Materialized one after the other: planned together, the three
    // aggregations held their inputs at once (1.4 GB at full scale).
    let (instances, tasks, groups) = (instances.collect()?.lazy(), tasks.collect()?.lazy(), groups.collect()?.lazy());
    let jobs = scan(dir, "job")?;
    let joined = left_join(
        left_join(left_join(jobs, tasks, "job_name", "job_name"), instances, "job_name", "job_name"),
        groups,
        "inst_id",
        "inst_id",
    );
    let lf = joined.select([
        lit("pai").alias("trace"),
        lit("pai").alias("cluster"),
        col("job_name").alias("job_id"),
        col("user"),
        coalesce(&[col("tag"), col("user")]).alias("group"),
        col("start_time").alias("submit_time"),
        col("first_start").alias("start_time"),
        col("end_time"),
        col("gpus_requested"),
        col("cpus_requested"),
        col("instances"),
        col("status").alias("status_code"),
    ]);
    let lf = lf.with_columns([
        seconds("submit_time", "start_time").alias("queue_s"),
        seconds("start_time", "end_time").alias("run_s"),
    ]);
    with_status(lf, Trace::Pai, "status_code")
}

/// Philly: the notebook's per-job definitions, already in `philly/jobs`.
fn philly_jobs(dir: &Path) -> PolarsResult<LazyFrame> {
    let lf = scan(dir, "jobs")?.select([
        lit("philly").alias("trace"),
        lit("philly").alias("cluster"),
        col("job_id"),
        col("user"),
        col("vc").alias("group"),
        col("submit_time"),
        col("first_start_time").alias("start_time"),
        col("last_end_time").alias("end_time"),
        col("queue_s"),
        col("run_s"),
        col("gpus").cast(DataType::Float64).alias("gpus_requested"),
        lit(NULL).cast(DataType::Float64).alias("cpus_requested"),
        col("attempts").alias("instances"),
        col("status").alias("status_code"),
    ]);
    let lf = with_status(lf, Trace::Philly, "status_code")?;
    // A job whose last attempt has no end was still running (README).
    Ok(lf.with_column(
        when(col("instances").gt(lit(0)).and(col("end_time").is_null()))
            .then(lit("running"))
            .otherwise(col("status"))
            .alias("status"),
    ))
}

/// Helios: raw columns, the VC as the group.
fn helios_jobs(dir: &Path) -> PolarsResult<LazyFrame> {
    let lf = scan(dir, "jobs")?.select([
        lit("helios").alias("trace"),
        col("cluster"),
        col("job_id").cast(DataType::String),
        col("user"),
        col("vc").alias("group"),
        col("submit_time"),
        col("start_time"),
        col("end_time"),
        col("queue_s"),
        col("run_s"),
        col("gpus").cast(DataType::Float64).alias("gpus_requested"),
        col("cpus").cast(DataType::Float64).alias("cpus_requested"),
        col("nodes").alias("instances"),
        col("state"),
    ]);
    with_status(lf, Trace::Helios, "state")
}
