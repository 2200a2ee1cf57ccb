//! Ingests for Python: `tracelab.ingest(dir, store, force=, strict=,
//! max_record_bytes=)` as `tracelab ingest DIR --out STORE [--force]
//! [--strict] [--max-record-bytes N]`, and the ingest of the bundled
//! samples that `tracelab.open()` runs first (a no-op when nothing
//! changed), with `open_store`, which opens a store by path or those
//! samples. Both call `tracelab_ingest::run`, as the CLI does, with the
//! interpreter's lock released; what the command prints in its summary
//! about rejected records, notes and ignored files comes back as notes
//! (issued as `tracelab.IngestNote` warnings by the Python side).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::Context;
use pyo3::prelude::*;

use tracelab_ingest::{Limits, Plan, Report, TraceResult};
use tracelab_schema::error::Error;

use crate::errors::{to_py, TracelabError};
use crate::open::Store;
use crate::progress::{self, Hook};

/// The smallest `max_record_bytes` (the CLI's `--max-record-bytes` floor):
/// a record limit below a kilobyte would reject the traces' own header
/// lines.
const MIN_RECORD_BYTES: usize = 1024;

/// An opened store and the notes of the ingest before it.
pub type Ingested = (Store, Vec<String>);

/// Ingests the traces in `dir` into `store` (`<dir>/.tracelab` when None),
/// as `tracelab ingest`, and opens the store. With `strict`, any record
/// rejected (now or by the ingest that wrote the store) is an error
/// listing them; the store stays written, as the command leaves it.
#[pyfunction]
#[pyo3(signature = (dir, store=None, force=false, strict=false, max_record_bytes=None, progress=None))]
pub fn ingest(
    py: Python<'_>,
    dir: PathBuf,
    store: Option<PathBuf>,
    force: bool,
    strict: bool,
    max_record_bytes: Option<usize>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Ingested> {
    let limits = limits(max_record_bytes).map_err(to_py)?;
    if !dir.is_dir() {
        let e = Error::Usage(format!("{}: not a directory; expected the folder holding the traces", dir.display()));
        return Err(to_py(e));
    }
    let store = store.unwrap_or_else(|| Plan::default_store(&dir));
    let (store, report, notes) = run(py, &Plan { force, limits, ..Plan::new(dir, store) }, progress)?;
    let rejected = report.total_rejects();
    if strict && rejected > 0 {
        let mut text = format!("strict: {rejected} record(s) rejected");
        for line in rejects(&report, false) {
            text.push('\n');
            text.push_str(&line);
        }
        return Err(TracelabError::new_err(text));
    }
    Ok((store, notes))
}

/// The bundled samples' store (`data-samples/.tracelab`), ingested first
/// when missing or stale, as the reading commands' default `--store`.
pub fn bundled(py: Python<'_>, progress: Option<Py<PyAny>>) -> PyResult<Ingested> {
    let dir = bundled_samples()
        .ok_or_else(|| to_py(Error::Usage("no store given and no data-samples/ here; pass the store's path".into())))?;
    let store = Plan::default_store(&dir);
    let plan = Plan::new(dir, store);
    run(py, &plan, progress).map(|(store, _, notes)| (store, notes))
}

/// `max_record_bytes`, checked as the command checks `--max-record-bytes`.
fn limits(max_record_bytes: Option<usize>) -> Result<Limits, Error> {
    let mut limits = Limits::default();
    if let Some(bytes) = max_record_bytes {
        if bytes < MIN_RECORD_BYTES {
            return Err(Error::Usage(format!(
                "max_record_bytes={bytes}: expected at least {MIN_RECORD_BYTES} bytes (--max-record-bytes)"
            )));
        }
        limits.max_record_bytes = bytes;
    }
    Ok(limits)
}

/// Ingests `plan` (a no-op when nothing changed) with the lock released and
/// opens its store; an error names the folder as the command's does.
fn run(py: Python<'_>, plan: &Plan, progress: Option<Py<PyAny>>) -> PyResult<(Store, Report, Vec<String>)> {
    let hook = progress.map(Hook::new);
    let sink = Arc::new(progress::Ingest { hook: hook.clone(), waits: Mutex::new(Vec::new()) });
    let progress: Arc<dyn tracelab_ingest::Progress> = sink.clone();
    let done = py.detach(|| -> anyhow::Result<(tracelab_store::Store, Report)> {
        let report =
            tracelab_ingest::run(plan, progress).with_context(|| format!("ingest of {}", plan.dir.display()))?;
        Ok((open(&plan.store)?, report))
    });
    let (store, report) = progress::finish(hook.as_ref(), done.map_err(to_py))?;
    let mut notes = std::mem::take(&mut *sink.waits.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
    notes.extend(summary_notes(&report));
    Ok((Store::new(store), report, notes))
}

pub fn open(path: &Path) -> Result<tracelab_store::Store, Error> {
    tracelab_store::Store::open(path)
}

/// What the command's summary says beyond the counts, for the traces
/// ingested now: rejected records (with the first few, file, line and
/// column), the trace's notes, and the files no trace claims.
fn summary_notes(report: &Report) -> Vec<String> {
    let mut notes = rejects(report, true);
    for t in report.traces.iter().filter(|t| matches!(t, TraceResult::Ingested { .. })) {
        let m = t.manifest();
        notes.extend(m.notes.iter().map(|n| format!("{}: {n}", m.trace)));
    }
    if !report.ignored.is_empty() {
        notes.push(format!("not part of a known trace, not read: {}", report.ignored.join(", ")));
    }
    notes
}

/// One line per trace with rejected records (only the traces ingested now
/// when `fresh`), as the command's summary words it, followed by the
/// rejects it sampled.
fn rejects(report: &Report, fresh: bool) -> Vec<String> {
    let mut lines = Vec::new();
    for t in &report.traces {
        let m = t.manifest();
        let samples = match t {
            TraceResult::Ingested { reject_samples, .. } => reject_samples.as_slice(),
            TraceResult::Unchanged { .. } if fresh => continue,
            TraceResult::Unchanged { .. } => &[],
        };
        if m.rejects == 0 {
            continue;
        }
        let path = format!("{}/{}/rejects.parquet", report.store.display(), m.trace);
        let mut text = format!("{}: {} record(s) rejected, listed in {path}", m.trace, m.rejects);
        for r in samples {
            text.push_str(&format!("\n  {r}"));
        }
        lines.push(text);
    }
    lines
}

/// `./data-samples`, else the copy in the source tree this module was built
/// from (an install from the checkout).
fn bundled_samples() -> Option<PathBuf> {
    [PathBuf::from("data-samples"), Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data-samples")]
        .into_iter()
        .find(|p| p.is_dir())
}

/// Opens `path` (or the store `tracelab ingest PATH` made in it, as
/// `--store` takes it), or the bundled samples' store (ingested first when
/// missing or stale) when `path` is None; the notes of that ingest.
#[pyfunction]
#[pyo3(signature = (path=None, progress=None))]
pub fn open_store(py: Python<'_>, path: Option<PathBuf>, progress: Option<Py<PyAny>>) -> PyResult<Ingested> {
    match path {
        Some(p) => py
            .detach(|| open(&tracelab_ingest::Plan::locate_store(&p)))
            .map(|s| (Store::new(s), Vec::new()))
            .map_err(to_py),
        None => bundled(py, progress),
    }
}
