//! `tracelab ingest`: official trace downloads -> canonical Parquet store.
//!
//! For each trace found in the directory: skip it when its inputs are
//! unchanged since the last ingest (same names, sizes and SHA-256), otherwise
//! parse every record into the canonical tables of [`tracelab_schema`], reject
//! what does not fit (with file, line, column and reason), and publish the
//! tables atomically: written under partial names, renamed into place, then
//! the manifest. Finally the unified cross-trace `jobs` table is rebuilt
//! from every trace in the store.
//!
//! This module reads files and writes the store; it never prints. The CLI
//! renders the [`Report`] it returns.

mod csv;
mod helios;
mod lines;
mod pai;
mod philly;
mod prefetch;
mod record;
pub mod rejects;
mod run;
pub mod sink;
pub mod source;
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
use tracelab_schema::error::{Error, IoContext, Result};
use tracelab_schema::Trace;
use tracelab_store::manifest::{invalidate, load_stat, store_stat, Digest256};

/// Receives progress as input bytes are read. The CLI draws bars; the
/// library and tests use [`NoProgress`]. Files can be read concurrently.
pub trait Progress: Send + Sync {
    /// A file of `bytes` bytes is about to be read; the returned handle is
    /// told how far reading got and dropped when the file is done.
    fn file(&self, label: &str, bytes: u64) -> Box<dyn FileProgress>;
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
}

impl Plan {
    /// The default store of a trace directory.
    pub fn default_store(dir: &Path) -> PathBuf {
        dir.join(".tracelab")
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
             or Helios <Cluster>/cluster_log.csv or data.zip",
        ));
    }
    std::fs::create_dir_all(&plan.store).at(&plan.store)?;
    let mut traces = Vec::new();
    for inputs in &found.traces {
        traces.push(ingest_trace(plan, inputs, Arc::clone(&progress))?);
    }
    let changed = traces.iter().any(|t| matches!(t, TraceResult::Ingested { .. }));
    let unified = if changed || !unified::exists(&plan.store) { Some(unified::rebuild(&plan.store)?) } else { None };
    Ok(Report { store: plan.store.clone(), traces, ignored: found.ignored, unified })
}

fn ingest_trace(plan: &Plan, inputs: &TraceInputs, progress: Arc<dyn Progress>) -> Result<TraceResult> {
    let dir = plan.store.join(inputs.trace.name());
    if !plan.force {
        if let Some(manifest) = unchanged(&dir, inputs)? {
            return Ok(TraceResult::Unchanged { manifest });
        }
    }
    let (markers, files): (Vec<_>, Vec<_>) = inputs.files.iter().cloned().partition(source::is_marker);
    let data = TraceInputs { trace: inputs.trace, files };
    let mut outcome = match inputs.trace {
        Trace::Pai => pai::ingest(&data, &dir, progress)?,
        Trace::Philly => philly::ingest(&data, &dir, progress)?,
        Trace::Helios => helios::ingest(&data, &dir, progress)?,
    };
    record_markers(&mut outcome, &markers)?;
    let reject_samples = outcome.reject_samples.clone();
    let manifest = commit(outcome)?;
    store_stat(&dir, &stat_fingerprint(&inputs.files)?)?;
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

/// The manifest of `dir` if it was made from exactly these inputs: first by
/// size and modification time, else by SHA-256.
fn unchanged(dir: &Path, inputs: &TraceInputs) -> Result<Option<Manifest>> {
    let Some(manifest) = Manifest::load(dir) else { return Ok(None) };
    let mut files: Vec<_> = inputs.files.iter().collect();
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    if !manifest.current_for(files.iter().map(|f| (f.rel.as_str(), f.bytes))) {
        return Ok(None);
    }
    let stat = stat_fingerprint(&inputs.files)?;
    if load_stat(dir).as_deref() == Some(&stat[..]) {
        return Ok(Some(manifest));
    }
    for (file, digest) in files.iter().zip(&manifest.inputs) {
        if sha256_file(&file.path)? != digest.sha256 {
            return Ok(None);
        }
    }
    store_stat(dir, &stat)?;
    Ok(Some(manifest))
}

/// Publishes a finished trace: the old manifest goes first (so a crash in
/// between leaves a folder no one trusts), then the tables are renamed into
/// place, then the new manifest is written.
fn commit(outcome: TraceOutcome) -> Result<Manifest> {
    invalidate(&outcome.dir)?;
    for f in &outcome.finished {
        std::fs::rename(&f.partial, &f.path).at(&f.path)?;
    }
    let manifest = Manifest::new(outcome.trace, outcome.inputs, outcome.tables, outcome.rejects_total, outcome.notes);
    manifest.store(&outcome.dir)?;
    Ok(manifest)
}
