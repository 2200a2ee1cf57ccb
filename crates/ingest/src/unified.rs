//! Builds the unified cross-trace `jobs` table (declared in
//! `schema::unified`) from the per-trace tables of the store, with Polars
//! lazy queries, and publishes it through the store with the trace
//! manifests it was built from. Only published traces (with a valid
//! manifest) contribute.

use std::path::PathBuf;
use std::sync::Mutex;

use polars::prelude::*;

use super::sink::{TableWriter, BATCH_ROWS};
use tracelab_schema::error::{Error, Result};
use tracelab_schema::{find_table, raw, status, unified, ColType, Trace};
use tracelab_store::parquet::dtype;
use tracelab_store::publish::{Publication, StoreWriter};

/// The unified rows ingest derived while parsing a trace ([`derive`]), in
/// scratch files of the unified publication, until [`rebuild`] copies them.
pub struct Parts<'p> {
    publication: Publication<'p>,
    done: Mutex<Vec<(Trace, PathBuf)>>,
}

impl<'p> Parts<'p> {
    /// Starts the unified publication the parts are kept in.
    pub fn begin(store: &'p StoreWriter) -> Result<Parts<'p>> {
        Ok(Parts { publication: store.begin_unified()?, done: Mutex::default() })
    }

    /// Where `trace`'s part is written.
    pub fn path(&self, trace: Trace) -> PathBuf {
        self.publication.scratch(&format!("unified-{}", trace.name()))
    }

    /// Records `trace`'s part as complete.
    pub fn done(&self, trace: Trace, part: PathBuf) {
        self.done.lock().expect("unified parts").push((trace, part));
    }

    fn take(&self, trace: Trace) -> Option<PathBuf> {
        let mut done = self.done.lock().expect("unified parts");
        let at = done.iter().position(|(t, _)| *t == trace)?;
        Some(done.remove(at).1)
    }
}

/// Rebuilds and publishes the unified table; returns the rows contributed
/// per trace. Each trace's rows are computed, written and dropped before
/// the next trace's: holding all of them at once took 2.6 GB at full scale.
/// A trace whose rows ingest derived in this run has them copied from its
/// part, page by page, without computing or encoding them again.
pub fn rebuild(store: &StoreWriter, parts: Parts<'_>) -> Result<Vec<(String, u64)>> {
    let staged = parts.publication.stage(&unified::JOBS);
    let mut writer = TableWriter::create(staged.path.clone(), &unified::JOBS)?;
    let mut counts = Vec::new();
    for trace in Trace::ALL {
        if store.manifest(trace).is_none() {
            continue;
        }
        let rows = match parts.take(trace) {
            Some(part) => copy_part(&mut writer, part)?,
            None => write_computed(store, trace, &mut writer)?,
        };
        counts.push((trace.name().to_string(), rows));
    }
    let finished = writer.finish()?;
    parts.publication.commit_unified(counts.clone(), (staged, finished.written))?;
    Ok(counts)
}

fn copy_part(writer: &mut TableWriter, part: PathBuf) -> Result<u64> {
    let file = std::fs::File::open(&part).map_err(|e| Error::io(&part, e))?;
    let rows = ParquetReader::new(file).num_rows().map_err(|e| Error::polars(part.display().to_string(), e))?;
    writer.push_file(part, rows as u64)?;
    Ok(rows as u64)
}

/// Computes `trace`'s unified rows from its published tables and writes them.
fn write_computed(store: &StoreWriter, trace: Trace, writer: &mut TableWriter) -> Result<u64> {
    let tables = Tables { store, trace };
    let mut rows = 0;
    for part in trace_parts(trace, &tables) {
        let df = part.and_then(polars::prelude::LazyFrame::collect).map_err(|e| {
            Error::polars(format!("{}: building the unified jobs rows", store.root().join(trace.name()).display()), e)
        })?;
        rows += df.height() as u64;
        for offset in (0..df.height()).step_by(BATCH_ROWS) {
            let mut slice = df.slice(offset as i64, BATCH_ROWS);
            slice.rechunk_mut();
            writer.push_frame(slice)?;
        }
    }
    Ok(rows)
}

/// The published tables of one trace.
struct Tables<'a> {
    store: &'a StoreWriter,
    trace: Trace,
}

fn scan(tables: &Tables<'_>, name: &str) -> PolarsResult<LazyFrame> {
    let table = find_table(tables.trace, name).expect("a table of the trace");
    let path = tables
        .store
        .published(table)
        .ok_or_else(|| polars_err!(ComputeError: "{} is not published", table.qualified_name()))?;
    LazyFrame::scan_parquet(PlRefPath::new(path.to_string_lossy().as_ref()), ScanArgsParquet::default())
}

/// The trace's jobs in the unified column order and types, in parts that
/// are built one after the other: Helios cluster by cluster (all 3.4 M
/// jobs at once peaked at 1.5 GB), the other traces whole. Each part of
/// PAI, Philly, Helios and SWF is sorted by a unique key of its own, so the
/// output does not depend on how the joins ordered the rows; AcmeTrace's
/// and spot's rows are their table's, mapped row by row in its order
/// ([`derive`]).
fn trace_parts(trace: Trace, dir: &Tables<'_>) -> Vec<PolarsResult<LazyFrame>> {
    let parts = match trace {
        Trace::Pai => vec![pai_jobs(dir)],
        Trace::Philly => vec![philly_jobs(dir)],
        Trace::Helios => raw::helios::CLUSTERS.iter().map(|c| helios_jobs(dir, c)).collect(),
        Trace::Swf => vec![swf_jobs(dir)],
        Trace::Acme | Trace::Spot => {
            let map = derive(trace).expect("AcmeTrace and spot are derived");
            return vec![scan(dir, rows_from(trace).name).map(map)];
        }
    };
    parts.into_iter().map(|p| p.map(in_unified_types)).collect()
}

/// The unified columns, in order, with their stored types.
fn in_unified_types(lf: LazyFrame) -> LazyFrame {
    lf.select(unified::JOBS.columns.iter().map(|c| col(c.name).cast(dtype(c.ty))).collect::<Vec<_>>())
}

/// For a trace whose unified rows are a row-by-row map of one of its tables
/// (AcmeTrace's and spot's `jobs`), that map, in the unified column order
/// and types. Ingest applies it to each batch of the table as it is written,
/// into a part that the rebuild copies as it is ([`rebuild`]); applied to
/// the whole published table it gives the same rows in the same order.
pub fn derive(trace: Trace) -> Option<fn(LazyFrame) -> LazyFrame> {
    match trace {
        Trace::Acme => Some(|jobs| in_unified_types(acme_jobs(jobs))),
        Trace::Spot => Some(|jobs| in_unified_types(spot_jobs(jobs))),
        Trace::Pai | Trace::Philly | Trace::Helios | Trace::Swf => None,
    }
}

/// The table a derived trace's unified rows are mapped from.
pub fn rows_from(trace: Trace) -> &'static tracelab_schema::Table {
    find_table(trace, "jobs").expect("AcmeTrace and spot have a jobs table")
}

fn sorted(lf: LazyFrame, by: &[&str]) -> LazyFrame {
    let exprs: Vec<Expr> = by.iter().map(|c| col(*c)).collect();
    lf.sort_by_exprs(exprs, SortMultipleOptions::default().with_nulls_last(true).with_maintain_order(true))
}

/// Seconds between two timestamp columns.
fn seconds(from: &str, to: &str) -> Expr {
    (col(to) - col(from)).dt().total_seconds(true)
}

/// Adds `status_raw` (a copy of `raw_col`) and its normalized `status`.
fn with_status(lf: LazyFrame, trace: Trace, raw_col: &str) -> LazyFrame {
    let status = status::mapping(trace)
        .into_iter()
        .rev()
        .fold(lit("unknown"), |rest, (raw, norm)| when(col(raw_col).eq(lit(raw))).then(lit(norm)).otherwise(rest));
    lf.with_columns([col(raw_col).alias("status_raw"), status.alias("status")])
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
fn pai_jobs(dir: &Tables<'_>) -> PolarsResult<LazyFrame> {
    let tasks = scan(dir, "task")?.group_by([col("job_name")]).agg([
        (col("inst_num").cast(DataType::Float64) * col("plan_gpu_pct") / lit(100.0)).sum().alias("gpus_requested"),
        (col("inst_num").cast(DataType::Float64) * col("plan_cpu_pct") / lit(100.0)).sum().alias("cpus_requested"),
    ]);
    let instances = scan(dir, "instance")?
        .select([col("job_name"), col("start_time")])
        .group_by([col("job_name")])
        .agg([col("start_time").min().alias("first_start"), len().cast(DataType::Int64).alias("instances")]);
    let groups =
        scan(dir, "group_tag")?
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
    Ok(sorted(with_status(lf, Trace::Pai, "status_code"), &["submit_time", "job_id"]))
}

/// Philly: the notebook's per-job definitions, already in `philly/jobs`.
fn philly_jobs(dir: &Tables<'_>) -> PolarsResult<LazyFrame> {
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
    let lf = sorted(with_status(lf, Trace::Philly, "status_code"), &["submit_time", "job_id"]);
    // A job whose last attempt has no end was still running (README).
    Ok(lf.with_column(
        when(col("instances").gt(lit(0)).and(col("end_time").is_null()))
            .then(lit("running"))
            .otherwise(col("status"))
            .alias("status"),
    ))
}

/// Helios, one cluster: raw columns, the VC as the group.
fn helios_jobs(dir: &Tables<'_>, cluster: &str) -> PolarsResult<LazyFrame> {
    let jobs = sorted(scan(dir, "jobs")?.filter(col("cluster").eq(lit(cluster))), &["submit_time", "job_id"]);
    let lf = jobs.select([
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
    Ok(with_status(lf, Trace::Helios, "state"))
}

/// AcmeTrace: as Helios (same owners, same Slurm states), but the queue and
/// run times from the stamps: Kalos' raw `duration` is end - submit (schema
/// `acme/jobs.run_s`), not the unified end - start. No virtual cluster is
/// recorded, so `group` is null. Rows stay in `acme/jobs` order (the input
/// files' order), so they can be derived batch by batch while the trace is
/// parsed ([`derive`]).
fn acme_jobs(jobs: LazyFrame) -> LazyFrame {
    let lf = jobs.select([
        lit("acme").alias("trace"),
        col("cluster"),
        col("job_id"),
        col("user"),
        lit(NULL).cast(DataType::String).alias("group"),
        col("submit_time"),
        col("start_time"),
        col("end_time"),
        seconds("submit_time", "start_time").alias("queue_s"),
        seconds("start_time", "end_time").alias("run_s"),
        col("gpus").cast(DataType::Float64).alias("gpus_requested"),
        col("cpus").cast(DataType::Float64).alias("cpus_requested"),
        col("nodes").alias("instances"),
        col("state"),
    ]);
    with_status(lf, Trace::Acme, "state")
}

/// Spot: a job's GPUs and CPUs are its per-worker requests times its
/// workers; run = the raw duration; start, end, queueing and final state
/// are not recorded (null, status unknown); group = the organization. Rows
/// stay in `spot/jobs` order, as AcmeTrace's.
fn spot_jobs(jobs: LazyFrame) -> LazyFrame {
    let lf = jobs.select([
        lit("spot").alias("trace"),
        lit("spot").alias("cluster"),
        col("job_name").alias("job_id"),
        lit(NULL).cast(DataType::String).alias("user"),
        col("organization").alias("group"),
        col("submit_time"),
        lit(NULL).cast(dtype(ColType::Timestamp)).alias("start_time"),
        lit(NULL).cast(dtype(ColType::Timestamp)).alias("end_time"),
        lit(NULL).cast(DataType::Float64).alias("queue_s"),
        col("duration_s").alias("run_s"),
        col("gpus").alias("gpus_requested"),
        (col("cpu_request") * col("workers").cast(DataType::Float64)).alias("cpus_requested"),
        col("workers").alias("instances"),
        lit(status::SPOT_UNRECORDED).alias("status_code"),
    ]);
    with_status(lf, Trace::Spot, "status_code")
}

/// SWF: each job's summary record (`part` 0; partial executions stay in
/// `swf/jobs`); queue and runtime are the log's Wait Time and Run Time.
/// The format counts processors, not GPUs: `gpus_requested` is null (SWF
/// jobs count under the cross views' `jobs=all`), the processors requested
/// (else allocated) are `cpus_requested`.
fn swf_jobs(dir: &Tables<'_>) -> PolarsResult<LazyFrame> {
    let text = |c: &str| col(c).cast(DataType::String);
    let jobs = scan(dir, "jobs")?.filter(col("part").eq(lit(0i64)));
    let lf = sorted(jobs, &["cluster", "job_number"]).select([
        lit("swf").alias("trace"),
        col("cluster"),
        text("job_number").alias("job_id"),
        text("user_id").alias("user"),
        text("group_id").alias("group"),
        col("submit_time"),
        col("start_time"),
        col("end_time"),
        col("wait_s").cast(DataType::Float64).alias("queue_s"),
        col("run_s").cast(DataType::Float64).alias("run_s"),
        lit(NULL).cast(DataType::Float64).alias("gpus_requested"),
        coalesce(&[col("requested_procs"), col("allocated_procs")]).cast(DataType::Float64).alias("cpus_requested"),
        lit(NULL).cast(DataType::Int64).alias("instances"),
        coalesce(&[text("status"), lit("-1")]).alias("status_code"),
    ]);
    Ok(with_status(lf, Trace::Swf, "status_code"))
}
