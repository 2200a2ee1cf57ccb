//! The state of ingesting one trace: its output folder, finished tables
//! with their rejects, input digests, notes and per-table accounting. The
//! per-trace modules drive it, from several threads at once (every method
//! takes `&self`); [`TraceRun::finish`] puts the results in schema order so
//! the outcome does not depend on which table finished first, and
//! `ingest::commit` publishes it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::rejects::{merge, Reject, RejectsPart};
use super::sink::Finished;
use super::source::{for_each_member, InputFile, Member};
use super::table::{TableDone, TableIngest};
use super::Progress;
use tracelab_schema::error::{Error, IoContext, Result};
use tracelab_schema::{find_table, Table, Trace};
use tracelab_store::manifest::{Digest256, TableReport};

/// Input files ingested at once. Two keep both cores of the reference
/// machine busy (each file also has a reading and a writing thread) while
/// the peak memory of the full PAI trace stays near 1 GB.
pub const PARALLEL_FILES: usize = 2;

/// Everything one trace's ingest produced, not yet published.
#[derive(Debug)]
pub struct TraceOutcome {
    pub trace: Trace,
    pub dir: PathBuf,
    pub tables: Vec<TableReport>,
    pub inputs: Vec<Digest256>,
    pub finished: Vec<Finished>,
    pub rejects_total: u64,
    pub reject_samples: Vec<Reject>,
    /// Things the user should know that are not errors (a skipped duplicate).
    pub notes: Vec<String>,
}

#[derive(Default)]
struct State {
    /// (schema position, report, table file, its rejects).
    tables: Vec<(usize, TableReport, Finished, RejectsPart)>,
    inputs: Vec<Digest256>,
    notes: Vec<String>,
}

pub struct TraceRun {
    pub trace: Trace,
    dir: PathBuf,
    progress: Arc<dyn Progress>,
    state: Mutex<State>,
}

impl TraceRun {
    /// Prepares `<store>/<trace>/`, removing partial files an interrupted
    /// run may have left.
    pub fn start(trace: Trace, dir: &Path, progress: Arc<dyn Progress>) -> Result<TraceRun> {
        std::fs::create_dir_all(dir).at(dir)?;
        for entry in std::fs::read_dir(dir).at(dir)? {
            let path = entry.at(dir)?.path();
            if path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with('.') && n.ends_with(".partial"))
            {
                std::fs::remove_file(&path).at(&path)?;
            }
        }
        Ok(TraceRun { trace, dir: dir.to_path_buf(), progress, state: Mutex::default() })
    }

    fn table_of(&self, name: &str) -> &'static Table {
        find_table(self.trace, name).unwrap_or_else(|| panic!("{} has no table {name}", self.trace))
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().expect("ingest state")
    }

    pub fn note(&self, note: String) {
        self.state().notes.push(note);
    }

    /// Opens the writer of a canonical table of this trace.
    pub fn open(&self, name: &str) -> Result<TableIngest> {
        TableIngest::create(&self.dir, self.table_of(name), self.table_of("rejects"))
    }

    /// Opens a table whose unique key extends a parent's key that is
    /// already checked (Philly attempts and placements of a unique job), so
    /// no key set is kept for it.
    pub fn open_derived(&self, name: &str) -> Result<TableIngest> {
        TableIngest::create_unchecked(&self.dir, self.table_of(name), self.table_of("rejects"))
    }

    /// Finishes a table and records where it came from.
    pub fn close(&self, table: TableIngest, source: &str) -> Result<()> {
        let name = table.table().name;
        let position = self.trace.tables().iter().position(|t| t.name == name).expect("a table of this trace");
        let TableDone { finished, counts, rejects } = table.finish()?;
        let report = TableReport { table: name.to_string(), source: source.to_string(), counts };
        self.state().tables.push((position, report, finished, rejects));
        Ok(())
    }

    /// Streams the members of one input file to `visit`, with progress, and
    /// records the file's digest.
    pub fn read(&self, file: &InputFile, visit: impl FnMut(Member<'_>) -> Result<()>) -> Result<()> {
        let mut bar = self.progress.file(&file.rel, file.bytes);
        let digest = for_each_member(file, Box::new(move |n| bar.advance(n)), visit)?;
        self.state().inputs.push(digest);
        Ok(())
    }

    pub fn finish(self) -> Result<TraceOutcome> {
        let rejects_schema = self.table_of("rejects");
        let mut state = self.state.into_inner().expect("ingest state");
        state.tables.sort_by_key(|t| t.0);
        state.inputs.sort_by(|a, b| a.file.cmp(&b.file));
        state.notes.sort();
        let mut tables = Vec::new();
        let mut finished = Vec::new();
        let mut parts = Vec::new();
        for (_, report, file, part) in state.tables {
            tables.push(report);
            finished.push(file);
            parts.push(part);
        }
        let (rejects_file, rejects_total, reject_samples) = merge(&self.dir, rejects_schema, parts)?;
        finished.push(rejects_file);
        Ok(TraceOutcome {
            trace: self.trace,
            dir: self.dir,
            tables,
            inputs: state.inputs,
            finished,
            rejects_total,
            reject_samples,
            notes: state.notes,
        })
    }
}

/// Runs `work` on every item, [`PARALLEL_FILES`] at a time, in the given
/// order of starting. Every item runs even if another failed; the error
/// reported is that of the earliest item, so it does not depend on timing.
pub fn in_parallel<T: Send>(items: Vec<T>, work: impl Fn(T) -> Result<()> + Sync) -> Result<()> {
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<T>>> = items.into_iter().map(|t| Mutex::new(Some(t))).collect();
    let errors: Mutex<Vec<(usize, Error)>> = Mutex::default();
    std::thread::scope(|scope| {
        for _ in 0..PARALLEL_FILES.min(slots.len()) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(slot) = slots.get(i) else { return };
                let item = slot.lock().expect("work item").take().expect("each item taken once");
                if let Err(e) = work(item) {
                    errors.lock().expect("errors").push((i, e));
                }
            });
        }
    });
    let mut errors = errors.into_inner().expect("errors");
    errors.sort_by_key(|e| e.0);
    match errors.into_iter().next() {
        Some((_, e)) => Err(e),
        None => Ok(()),
    }
}
