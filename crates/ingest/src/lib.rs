//! `tracelab ingest`: official trace downloads (PAI, Philly, Helios,
//! AcmeTrace, Alibaba spot-GPU, and Standard Workload Format logs) ->
//! canonical Parquet store.
//!
//! For each trace found in the directory: skip it when its inputs are
//! unchanged since the last ingest (same names, sizes and SHA-256), otherwise
//! parse every record into the canonical tables of [`tracelab_schema`], reject
//! what does not fit (with file, line, column and reason), and publish the
//! tables as one unit through the store ([`tracelab_store::publish`]).
//! Finally the unified cross-trace `jobs` table is rebuilt from every trace
//! in the store, whenever it was not built from exactly their manifests.
//!
//! The store is looked at under its shared lock, so that a no-op ingest
//! (every `tracelab query` on the bundled samples runs one) never waits for
//! readers; the lock is taken exclusively only when there is work, and the
//! store is looked at again then.
//!
//! Input is hostile until checked: records longer than
//! [`Limits::max_record_bytes`] are rejected without being held in memory,
//! `.header` files and archive metadata (tar long names, PAX headers) are
//! refused beyond [`Limits::max_meta_bytes`], and every text kept in the
//! rejects is cut short.
//!
//! This module reads files and writes the store; it never prints. The CLI
//! renders the [`Report`] it returns.

mod acme;
mod csv;
mod hashing;
mod header;
mod helios;
mod lines;
mod pai;
mod philly;
mod philly_log;
mod prefetch;
mod record;
pub mod rejects;
mod run;
pub mod sink;
pub mod source;
mod spot;
mod swf;
mod table;
pub mod time;
pub mod unified;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use rejects::Reject;
pub use tracelab_store::manifest::{Counts, Manifest, TableReport};

use run::TraceOutcome;
use source::stat_fingerprint;
use source::{discover, sha256_file, TraceInputs};
use tracelab_schema::error::{Error, Result};
use tracelab_schema::Trace;
pub use tracelab_store::fault::CrashHook;
use tracelab_store::manifest::Digest256;
use tracelab_store::publish::StoreWriter;

/// Receives progress as input bytes are read. The CLI draws bars; the
/// library and tests use [`NoProgress`]. Files can be read concurrently.
pub trait Progress: Send + Sync {
    /// A file of `bytes` bytes is about to be read; the returned handle is
    /// told how far reading got and dropped when the file is done.
    fn file(&self, label: &str, bytes: u64) -> Box<dyn FileProgress>;

    /// The store is locked by another process and ingest waits for it;
    /// `message` says which and why.
    fn waiting(&self, message: &str) {
        let _ = message;
    }
}

/// The progress of one file.
pub trait FileProgress: Send {
    /// `n` more bytes were read.
    fn advance(&mut self, n: u64);
}

impl FileProgress for () {
    fn advance(&mut self, _: u64) {}
}

pub struct NoProgress;

impl Progress for NoProgress {
    fn file(&self, _: &str, _: u64) -> Box<dyn FileProgress> {
        Box::new(())
    }
}

/// A validated ingest request.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The trace directory, as downloaded.
    pub dir: PathBuf,
    /// The store: `<dir>/.tracelab` unless given.
    pub store: PathBuf,
    /// Re-ingest even when the inputs are unchanged.
    pub force: bool,
    pub limits: Limits,
    /// The tests' crash hook for the publication ([`CrashHook`]); disarmed
    /// unless the CLI arms it.
    pub crash: CrashHook,
}

/// Bounds on what one record or one piece of metadata may cost, so that a
/// small hostile archive cannot take gigabytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The longest CSV line or Philly job-log job; longer records are
    /// rejected (CSV) or stop the ingest (a job log cannot be resumed).
    pub max_record_bytes: usize,
    /// The largest `.header` file, tar long name or PAX header.
    pub max_meta_bytes: usize,
}

impl Default for Limits {
    /// 1 MiB records (the longest line of the real traces is under 1 KiB),
    /// 64 KiB metadata.
    fn default() -> Limits {
        Limits { max_record_bytes: 1 << 20, max_meta_bytes: 64 << 10 }
    }
}

impl Plan {
    /// An ingest of `dir` into `store` as a plain `tracelab ingest` runs it:
    /// not forced, the default limits, the crash hook disarmed.
    pub fn new(dir: PathBuf, store: PathBuf) -> Plan {
        Plan { dir, store, force: false, limits: Limits::default(), crash: CrashHook::default() }
    }

    /// The default store of a trace directory.
    pub fn default_store(dir: &Path) -> PathBuf {
        dir.join(".tracelab")
    }

    /// The store `path` names when a store is read (`--store`,
    /// `tracelab.open`): `path/.tracelab` when that is a folder, the store
    /// `tracelab ingest PATH` makes (a store never holds a `.tracelab`
    /// folder of its own), else `path` itself.
    pub fn locate_store(path: &Path) -> PathBuf {
        let inner = Plan::default_store(path);
        if inner.is_dir() {
            inner
        } else {
            path.to_path_buf()
        }
    }
}

/// What happened to one trace.
#[derive(Debug)]
pub enum TraceResult {
    /// Parsed and published now.
    Ingested { manifest: Manifest, reject_samples: Vec<Reject> },
    /// Inputs unchanged since the manifest was written; nothing was done.
    Unchanged { manifest: Manifest },
}

impl TraceResult {
    pub fn manifest(&self) -> &Manifest {
        match self {
            TraceResult::Ingested { manifest, .. } | TraceResult::Unchanged { manifest } => manifest,
        }
    }
}

#[derive(Debug)]
pub struct Report {
    pub store: PathBuf,
    pub traces: Vec<TraceResult>,
    /// Files in the directory that belong to no known trace.
    pub ignored: Vec<String>,
    /// Rows of the unified `jobs` table per trace, when it was rebuilt.
    pub unified: Option<Vec<(String, u64)>>,
}

impl Report {
    pub fn total_rejects(&self) -> u64 {
        self.traces.iter().map(|t| t.manifest().rejects).sum()
    }
}

/// Runs an ingest.
pub fn run(plan: &Plan, progress: Arc<dyn Progress>) -> Result<Report> {
    let found = discover(&plan.dir, &plan.store)?;
    if found.traces.is_empty() {
        return Err(Error::input(
            plan.dir.display().to_string(),
            "no trace found; expected PAI pai_*_table files, Philly cluster_* files or trace-data.tar.gz, \
             Helios <Cluster>/cluster_log.csv or data.zip, AcmeTrace trace_seren.csv or trace_kalos.csv, the spot-GPU \
             trace's job_info_df.csv, or Standard Workload Format logs (*.swf, *.swf.gz)",
        ));
    }
    let wait = |message: &str| progress.waiting(message);
    let mut writer = StoreWriter::open(&plan.store, &wait)?.crash_hook(plan.crash);
    if !plan.force {
        if let Some(traces) = all_unchanged(&writer, &found.traces)? {
            if writer.unified_is_current() {
                return Ok(Report { store: plan.store.clone(), traces, ignored: found.ignored, unified: None });
            }
        }
    }
    writer.exclusive(&wait)?;
    let parts = unified::Parts::begin(&writer)?;
    let mut traces = Vec::new();
    for inputs in &found.traces {
        traces.push(ingest_trace(&writer, plan, inputs, Arc::clone(&progress), &parts)?);
    }
    let unified = if writer.unified_is_current() { None } else { Some(unified::rebuild(&writer, parts)?) };
    Ok(Report { store: plan.store.clone(), traces, ignored: found.ignored, unified })
}

/// Every trace's manifest when none has changed.
fn all_unchanged(writer: &StoreWriter, traces: &[TraceInputs]) -> Result<Option<Vec<TraceResult>>> {
    let mut out = Vec::new();
    for inputs in traces {
        match unchanged(writer, inputs)? {
            Some(manifest) => out.push(TraceResult::Unchanged { manifest }),
            None => return Ok(None),
        }
    }
    Ok(Some(out))
}

fn ingest_trace(
    writer: &StoreWriter,
    plan: &Plan,
    inputs: &TraceInputs,
    progress: Arc<dyn Progress>,
    parts: &unified::Parts<'_>,
) -> Result<TraceResult> {
    if !plan.force {
        if let Some(manifest) = unchanged(writer, inputs)? {
            return Ok(TraceResult::Unchanged { manifest });
        }
    }
    let (markers, files): (Vec<_>, Vec<_>) = inputs.files.iter().cloned().partition(source::is_marker);
    let data = TraceInputs { trace: inputs.trace, files };
    let publication = writer.begin(inputs.trace)?;
    let run = run::TraceRun::start(inputs.trace, &publication, progress, plan.limits, parts);
    let mut outcome = match inputs.trace {
        Trace::Pai => pai::ingest(&data, run)?,
        Trace::Philly => philly::ingest(&data, run)?,
        Trace::Helios => helios::ingest(&data, run)?,
        Trace::Swf => swf::ingest(&data, run)?,
        Trace::Acme => acme::ingest(&data, run)?,
        Trace::Spot => spot::ingest(&data, run)?,
    };
    record_markers(&mut outcome, &markers)?;
    let reject_samples = outcome.reject_samples.clone();
    let TraceOutcome { trace, tables, inputs: digests, finished, rejects_total, notes, .. } = outcome;
    let manifest = Manifest::new(trace, digests, tables, rejects_total, notes);
    let files = finished.into_iter().map(|(staged, f)| (staged, f.written)).collect();
    let manifest = publication.commit_trace(manifest, files)?;
    writer.store_stat(trace, &stat_fingerprint(&inputs.files)?)?;
    Ok(TraceResult::Ingested { manifest, reject_samples })
}

/// A synth marker is an input of its trace (listed with its digest) and its
/// content goes into the notes, where the report reads it back.
fn record_markers(outcome: &mut TraceOutcome, markers: &[source::InputFile]) -> Result<()> {
    for m in markers {
        let marker = source::marker_of(m)?;
        outcome.inputs.push(Digest256 { file: m.rel.clone(), bytes: m.bytes, sha256: sha256_file(&m.path)? });
        outcome.notes.push(marker.note());
    }
    outcome.inputs.sort_by(|a, b| a.file.cmp(&b.file));
    outcome.notes.sort();
    Ok(())
}

/// The published manifest of the trace if it was made from exactly these
/// inputs: first by size and modification time, else by SHA-256.
fn unchanged(writer: &StoreWriter, inputs: &TraceInputs) -> Result<Option<Manifest>> {
    let Some(manifest) = writer.manifest(inputs.trace) else { return Ok(None) };
    let mut files: Vec<_> = inputs.files.iter().collect();
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    if !manifest.current_for(files.iter().map(|f| (f.rel.as_str(), f.bytes))) {
        return Ok(None);
    }
    let stat = stat_fingerprint(&inputs.files)?;
    if writer.stat(inputs.trace).as_deref() == Some(&stat[..]) {
        return Ok(Some(manifest));
    }
    for (file, digest) in files.iter().zip(&manifest.inputs) {
        if sha256_file(&file.path)? != digest.sha256 {
            return Ok(None);
        }
    }
    writer.store_stat(inputs.trace, &stat)?;
    Ok(Some(manifest))
}
