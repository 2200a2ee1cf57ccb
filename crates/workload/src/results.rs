//! Replay results as typed outputs: the per-run summary table, the
//! accounting of every source row, the cluster, the per-job table (Parquet,
//! one long table with the run's columns first) and resampled time series.
//! Times are seconds from the window start; the CLI prints these through
//! `tracelab_analysis::render`, the report plots them.

use std::io::BufWriter;
use std::path::Path;
use std::sync::{Arc, Mutex};

use polars::prelude::*;

use tracelab_analysis::{Cell, ResultTable};
use tracelab_schema::error::{Error, Result};
use tracelab_schema::outfile::{self, OutputFile, Replace};
use tracelab_sim::metrics::sharing::SharingResult;
use tracelab_sim::{JobClass, JobStatus, Millis, Resampled, Series, SimResult, Summary};
use tracelab_store::parquet::compression;

use crate::load::LeftOut;
use crate::prepare::Prepared;
use crate::run::RunSpec;

/// What is kept of a run once its jobs are written: the summary and
/// series, the sharing metrics without their per-job part, and the mean
/// slowdown of each online service.
#[derive(Clone, Debug)]
pub struct Digest {
    pub spec: RunSpec,
    pub summary: Summary,
    pub series: Series,
    pub sharing: Option<SharingResult>,
    pub online_slowdown: Vec<f64>,
}

impl Digest {
    /// The digest of run `spec`'s result `r` (of workload `w`).
    pub fn of(spec: &RunSpec, r: &SimResult, w: &tracelab_sim::Workload) -> Digest {
        let online_slowdown = r.sharing.as_ref().map_or_else(Vec::new, |s| {
            s.jobs
                .iter()
                .enumerate()
                .filter(|(i, _)| w.usage.get(*i).is_some_and(|u| u.class == JobClass::Online))
                .filter_map(|(_, j)| j.mean_slowdown)
                .collect()
        });
        let sharing = r.sharing.as_ref().map(SharingResult::clone_without_jobs);
        Digest { spec: spec.clone(), summary: r.summary.clone(), series: r.series.clone(), sharing, online_slowdown }
    }
}

const SUMMARY_COLUMNS: [&str; 23] = [
    "run",
    "policy",
    "discipline",
    "placement",
    "load",
    "jobs",
    "done",
    "left_running",
    "left_waiting",
    "mean_jct_s",
    "p50_jct_s",
    "p90_jct_s",
    "p99_jct_s",
    "mean_wait_s",
    "p50_wait_s",
    "p90_wait_s",
    "p99_wait_s",
    "mean_bounded_slowdown",
    "makespan_s",
    "gpu_util",
    "jain_fairness",
    "preemptions",
    "jobs_not_submitted",
];

/// One row per run: counts, JCT and wait distributions (seconds), mean
/// bounded slowdown, makespan, mean GPU utilisation (0-1) and Jain's index
/// over users' mean slowdowns, with the engine's definitions.
pub fn summary_table(runs: &[Digest]) -> ResultTable {
    let mut t = ResultTable::new(&SUMMARY_COLUMNS);
    let s = |ms: f64| ms / 1000.0;
    for d in runs {
        let (m, c) = (&d.summary, &d.summary.config);
        let jobs = m.jobs_submitted + m.jobs_not_submitted;
        t.push(vec![
            d.spec.label.clone().into(),
            d.spec.policy_name().into(),
            c.discipline.name().into(),
            c.placement.name().into(),
            d.spec.load.into(),
            Cell::Int(jobs as i64),
            Cell::Int(m.jobs_done as i64),
            Cell::Int(m.jobs_left_running as i64),
            Cell::Int(m.jobs_left_waiting as i64),
            s(m.jct_ms.mean).into(),
            s(m.jct_ms.p50).into(),
            s(m.jct_ms.p90).into(),
            s(m.jct_ms.p99).into(),
            s(m.queue_ms.mean).into(),
            s(m.queue_ms.p50).into(),
            s(m.queue_ms.p90).into(),
            s(m.queue_ms.p99).into(),
            m.mean_bounded_slowdown.into(),
            s(m.makespan_ms as f64).into(),
            m.gpu_utilisation.into(),
            m.jain_user_slowdown.into(),
            m.preemptions.into(),
            Cell::Int(m.jobs_not_submitted as i64),
        ]);
    }
    t
}

/// Every row of the source: replayed, or left out with its reason (and the
/// online services added, which are no rows of the source).
pub fn accounting_table(p: &Prepared) -> ResultTable {
    let mut t = accounting("replayed", p.workload.jobs.len(), &p.left_out, p.rows);
    if p.online_services > 0 {
        let at = t.rows.len() - 1;
        t.rows.insert(at, vec!["added: online services".into(), Cell::Int(p.online_services as i64)]);
    }
    t
}

const SHARING_COLUMNS: [&str; 19] = [
    "run",
    "policy",
    "gpu_alloc_util",
    "gpu_used_util",
    "gpus_saved",
    "oversold_gpus",
    "evictions",
    "offline_done",
    "offline_mean_jct_s",
    "offline_p99_jct_s",
    "offline_mean_wait_s",
    "offline_mean_slowdown",
    "online_services",
    "online_mean_slowdown",
    "online_p99_slowdown",
    "online_max_slowdown",
    "online_bound",
    "online_violations",
    "online_violation_share",
];

/// One row per run with sharing metrics (`tracelab_sim::metrics::sharing`
/// defines them): GPU-allocated and GPU-used utilization (0-1), GPUs saved
/// and oversold (time-weighted means), evictions, the offline jobs' JCT,
/// wait and slowdown, the online services' slowdowns and bound violations.
/// `None` when no run has them.
pub fn sharing_table(runs: &[Digest]) -> Option<ResultTable> {
    let mut t = ResultTable::new(&SHARING_COLUMNS);
    for d in runs {
        let Some(sh) = &d.sharing else { continue };
        let off = sh.classes.iter().find(|c| c.class == JobClass::Offline);
        let on = sh.online.as_ref();
        let opt = |x: Option<f64>| -> Cell { x.into() };
        t.push(vec![
            d.spec.label.clone().into(),
            d.spec.policy_name().into(),
            sh.gpu_allocated_util.into(),
            sh.gpu_used_util.into(),
            sh.gpus_saved_mean.into(),
            sh.oversold_gpus_mean.into(),
            Cell::Int(sh.evictions as i64),
            Cell::Int(off.map_or(0, |c| c.done) as i64),
            opt(off.map(|c| c.jct_ms.mean / 1000.0)),
            opt(off.map(|c| c.jct_ms.p99 / 1000.0)),
            opt(off.map(|c| c.queue_ms.mean / 1000.0)),
            opt(off.map(|c| c.mean_slowdown)),
            Cell::Int(on.map_or(0, |o| o.services) as i64),
            opt(on.map(|o| o.mean_slowdown.mean)),
            opt(on.map(|o| o.mean_slowdown.p99)),
            opt(on.map(|o| o.max_slowdown)),
            d.summary.config.sharing.online_bound.into(),
            Cell::Int(on.map_or(0, |o| o.violations) as i64),
            opt(on.map(|o| o.violation_share)),
        ]);
    }
    (!t.rows.is_empty()).then_some(t)
}

/// Every row of the source: `kept` under `outcome`, the rest by reason.
pub fn accounting(outcome: &str, kept: usize, left_out: &LeftOut, rows: u64) -> ResultTable {
    let mut t = ResultTable::new(&["outcome", "jobs"]);
    t.push(vec![outcome.into(), Cell::Int(kept as i64)]);
    for (reason, n) in &left_out.0 {
        t.push(vec![format!("left out: {reason}").into(), Cell::Int(*n as i64)]);
    }
    t.push(vec!["rows read".into(), Cell::Int(rows as i64)]);
    t
}

/// The cluster's node groups, per partition.
pub fn cluster_table(p: &Prepared) -> ResultTable {
    let mut t = ResultTable::new(&["partition", "nodes", "gpus_per_node", "cpus_per_node", "gpu_type"]);
    for part in &p.cluster.partitions {
        for g in &part.groups {
            t.push(vec![
                part.name.clone().into(),
                Cell::Int(g.count as i64),
                Cell::Int(g.gpus as i64),
                g.cpus.map(|c| c as i64).into(),
                g.gpu_type.clone().into(),
            ]);
        }
    }
    t
}

fn secs(ms: Option<Millis>) -> Option<f64> {
    ms.map(|m| m as f64 / 1000.0)
}

fn status_name(s: &JobStatus) -> &'static str {
    match s {
        JobStatus::Done => "done",
        JobStatus::Running => "running",
        JobStatus::Waiting => "waiting",
        JobStatus::NotSubmitted => "not-submitted",
        JobStatus::Unplaceable(_) => "unplaceable",
    }
}

/// The per-job table of one run: the run's label, policy, placement and
/// load, then the job (trace id, user, VC, GPUs, submission and duration)
/// and its outcome (status, start, end, wait, JCT, slowdowns, preemptions,
/// first node and node count), then its GPU usage (utilization %, GPU
/// memory GiB, class; null where unknown) and, when the run measured
/// sharing, its mean and largest slowdown while running. Seconds from the
/// window start.
pub fn jobs_frame(p: &Prepared, spec: &RunSpec, r: &SimResult) -> Result<DataFrame> {
    let n = r.jobs.len();
    let w = &p.workload.jobs;
    let usage = |i: usize| p.workload.usage.get(i).copied().unwrap_or_default();
    let shared = |i: usize| r.sharing.as_ref().and_then(|s| s.jobs.get(i));
    let name = |i: &tracelab_sim::csv::Interner, id: u32| i.names.get(id as usize).cloned().unwrap_or_default();
    let cols = vec![
        Column::new("run".into(), vec![spec.label.as_str(); n]),
        Column::new("policy".into(), vec![spec.policy_name(); n]),
        Column::new("placement".into(), vec![spec.config.placement.name(); n]),
        Column::new("load".into(), vec![spec.load; n]),
        Column::new("job_id".into(), p.job_ids.iter().map(String::as_str).collect::<Vec<_>>()),
        Column::new("user".into(), w.iter().map(|j| name(&p.names.users, j.user)).collect::<Vec<_>>()),
        Column::new("vc".into(), w.iter().map(|j| name(&p.names.vcs, j.vc)).collect::<Vec<_>>()),
        Column::new("gpus".into(), w.iter().map(|j| j.gpu_milli as f64 / 1000.0).collect::<Vec<_>>()),
        Column::new("submit_s".into(), r.jobs.iter().map(|j| j.submit as f64 / 1000.0).collect::<Vec<_>>()),
        Column::new("duration_s".into(), r.jobs.iter().map(|j| j.duration as f64 / 1000.0).collect::<Vec<_>>()),
        Column::new("status".into(), r.jobs.iter().map(|j| status_name(&j.status)).collect::<Vec<_>>()),
        Column::new("start_s".into(), r.jobs.iter().map(|j| secs(j.first_start)).collect::<Vec<_>>()),
        Column::new("end_s".into(), r.jobs.iter().map(|j| secs(j.end)).collect::<Vec<_>>()),
        Column::new("wait_s".into(), r.jobs.iter().map(|j| secs(j.queue_time)).collect::<Vec<_>>()),
        Column::new("jct_s".into(), r.jobs.iter().map(|j| secs(j.jct)).collect::<Vec<_>>()),
        Column::new("slowdown".into(), r.jobs.iter().map(|j| j.slowdown).collect::<Vec<_>>()),
        Column::new("bounded_slowdown".into(), r.jobs.iter().map(|j| j.bounded_slowdown).collect::<Vec<_>>()),
        Column::new("preemptions".into(), r.jobs.iter().map(|j| j.preemptions as i64).collect::<Vec<_>>()),
        Column::new("first_node".into(), r.jobs.iter().map(|j| j.first_node.map(|x| x as i64)).collect::<Vec<_>>()),
        Column::new("nodes".into(), r.jobs.iter().map(|j| j.nodes as i64).collect::<Vec<_>>()),
        Column::new("gpu_util".into(), (0..n).map(|i| usage(i).gpu_util.map(f64::from)).collect::<Vec<_>>()),
        Column::new("gpu_mem_gib".into(), (0..n).map(|i| usage(i).gpu_mem_gib.map(f64::from)).collect::<Vec<_>>()),
        Column::new("class".into(), (0..n).map(|i| usage(i).class.name()).collect::<Vec<_>>()),
        Column::new(
            "mean_slowdown".into(),
            (0..n).map(|i| shared(i).and_then(|s| s.mean_slowdown)).collect::<Vec<_>>(),
        ),
        Column::new("max_slowdown".into(), (0..n).map(|i| shared(i).and_then(|s| s.max_slowdown)).collect::<Vec<_>>()),
    ];
    DataFrame::new(n, cols).map_err(|e| Error::polars("per-job table", e))
}

/// Writes frames of the same schema (per-job rows, series), run after run,
/// as one Parquet file with the store's settings (zstd level 1), through a
/// temporary file renamed into place by [`RunsWriter::finish`]
/// ([`tracelab_schema::outfile`]): a replay that fails or is killed leaves
/// the previous file as it was.
pub struct RunsWriter {
    writer: Option<polars::io::parquet::write::BatchedWriter<Shared>>,
    file: Option<Shared>,
    path: std::path::PathBuf,
}

/// The temporary file, shared between Polars' writer (which owns its
/// writer and never gives it back) and [`RunsWriter::finish`], which
/// commits it once the writer is gone.
#[derive(Clone)]
struct Shared(Arc<Mutex<BufWriter<OutputFile>>>);

impl std::io::Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("one writer at a time").write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.lock().expect("one writer at a time").flush()
    }
}

impl RunsWriter {
    /// Checks `path` (a new path or a regular file, replaced) before any
    /// replay runs; the file is made at the first write.
    pub fn create(path: &Path) -> Result<RunsWriter> {
        outfile::check("--out", path, Replace::Regular)?;
        Ok(RunsWriter { writer: None, file: None, path: path.to_path_buf() })
    }

    pub fn write(&mut self, df: &DataFrame) -> Result<()> {
        let err = |e| Error::polars(format!("{}: writing", self.path.display()), e);
        if self.writer.is_none() {
            let file = OutputFile::create(&self.path, Replace::Regular)?;
            let shared = Shared(Arc::new(Mutex::new(BufWriter::with_capacity(1 << 20, file))));
            let w = ParquetWriter::new(shared.clone())
                .with_compression(compression())
                .batched(&df.schema().as_ref().clone())
                .map_err(err)?;
            self.writer = Some(w);
            self.file = Some(shared);
        }
        self.writer.as_mut().expect("created above").write_batch(df).map_err(err)
    }

    /// Writes the footer and puts the file in place.
    pub fn finish(self) -> Result<()> {
        let (Some(w), Some(file)) = (self.writer, self.file) else { return Ok(()) };
        w.finish().map_err(|e| Error::polars(format!("{}: finishing", self.path.display()), e))?;
        drop(w);
        let Ok(shared) = Arc::try_unwrap(file.0) else { unreachable!("Polars' writer, the other holder, is gone") };
        let buffered = shared.into_inner().expect("not poisoned");
        buffered.into_inner().map_err(|e| Error::io(&self.path, e.into_error()))?.commit()
    }
}

/// One run's step functions as rows: the run, the time (seconds from the
/// window start) and, from then until the next row, the allocated GPUs, the
/// queued jobs and the running jobs.
pub fn series_frame(spec: &RunSpec, s: &Series) -> Result<DataFrame> {
    let n = s.time.len();
    let cols = vec![
        Column::new("run".into(), vec![spec.label.as_str(); n]),
        Column::new("time_s".into(), s.time.iter().map(|t| *t as f64 / 1000.0).collect::<Vec<_>>()),
        Column::new("allocated_gpus".into(), s.allocated_milli.iter().map(|m| *m as f64 / 1000.0).collect::<Vec<_>>()),
        Column::new("queued".into(), s.queued.iter().map(|q| *q as i64).collect::<Vec<_>>()),
        Column::new("running".into(), s.running.iter().map(|r| *r as i64).collect::<Vec<_>>()),
    ];
    DataFrame::new(n, cols).map_err(|e| Error::polars("series table", e))
}

/// A bin width giving about `bins` bins over `span`, rounded up to a whole
/// minute, hour or day so the axis reads naturally.
pub fn nice_interval(span: Millis, bins: i64) -> Millis {
    let raw = (span / bins.max(1)).max(1000);
    for unit in [60_000, 3_600_000, 86_400_000] {
        if raw <= unit * 30 || unit == 86_400_000 {
            return (raw + unit - 1) / unit * unit;
        }
    }
    raw
}

/// Each run's series resampled to fixed bins from 0 to the latest event of
/// all runs.
pub fn resampled(runs: &[Digest], interval: Millis) -> Vec<(String, Resampled)> {
    let end = runs.iter().filter_map(|d| d.series.time.last()).max().copied().unwrap_or(0);
    runs.iter()
        .map(|d| {
            let mut s = d.series.clone();
            if s.time.first() != Some(&0) {
                s.time.insert(0, 0);
                s.allocated_milli.insert(0, 0);
                s.queued.insert(0, 0);
                s.running.insert(0, 0);
            }
            (d.spec.label.clone(), s.resample(interval, end.max(interval)))
        })
        .collect()
}
