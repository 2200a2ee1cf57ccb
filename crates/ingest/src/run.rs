//! The state of ingesting one trace: its publication (where its files are
//! written until published), finished tables with their rejects, input
//! digests, notes and per-table accounting. The per-trace modules drive it,
//! from several threads at once (every method takes `&self`);
//! [`TraceRun::finish`] puts the results in schema order so the outcome does
//! not depend on which table finished first, and `ingest` publishes it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::rejects::{merge, Reject, Rejects, RejectsPart};
use super::sink::Derived;
use super::sink::Finished;
use super::source::{for_each_member, sha256_file, InputFile, Member};
use super::table::{TableDone, TableIngest};
use super::unified::{self, Parts};
use super::{Limits, Progress};
use tracelab_schema::error::{Error, Result};
use tracelab_schema::{find_table, Table, Trace};
use tracelab_store::manifest::{Digest256, TableReport};
use tracelab_store::publish::{Publication, Staged};

/// Input files ingested at once. Two keep both cores of the reference
/// machine busy (each file also has a reading and a writing thread) while
/// the peak memory of the full PAI trace stays near 1 GB.
pub const PARALLEL_FILES: usize = 2;

/// Everything one trace's ingest produced, not yet published.
#[derive(Debug)]
pub struct TraceOutcome {
    pub trace: Trace,
    pub tables: Vec<TableReport>,
    pub inputs: Vec<Digest256>,
    pub finished: Vec<(Staged, Finished)>,
    pub rejects_total: u64,
    pub reject_samples: Vec<Reject>,
    /// Things the user should know that are not errors (a skipped duplicate).
    pub notes: Vec<String>,
}

#[derive(Default)]
struct State {
    /// (schema position, report, table file, its rejects).
    tables: Vec<(usize, TableReport, (Staged, Finished), RejectsPart)>,
    inputs: Vec<Digest256>,
    notes: Vec<String>,
}

pub struct TraceRun<'p> {
    pub trace: Trace,
    publication: &'p Publication<'p>,
    progress: Arc<dyn Progress>,
    pub limits: Limits,
    state: Mutex<State>,
    parts: &'p Parts<'p>,
}

impl<'p> TraceRun<'p> {
    pub fn start(
        trace: Trace,
        publication: &'p Publication<'p>,
        progress: Arc<dyn Progress>,
        limits: Limits,
        parts: &'p Parts<'p>,
    ) -> TraceRun<'p> {
        TraceRun { trace, publication, progress, limits, state: Mutex::default(), parts }
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
        self.open_with(self.table_of(name), None)
    }

    fn open_with(&self, table: &'static Table, derived: Option<Derived>) -> Result<TableIngest> {
        let rejects = Rejects::new(
            self.publication.scratch(&format!("rejects-{}", table.name)),
            self.table_of("rejects"),
            table.name,
        );
        TableIngest::create(self.publication.stage(table), table, rejects, derived)
    }

    /// Opens the table a trace's unified rows are mapped from
    /// ([`unified::derive`]): each batch written is also mapped to unified
    /// rows, into a part the unified rebuild copies.
    pub fn open_deriving(&self, name: &str) -> Result<TableIngest> {
        let table = self.table_of(name);
        let map = unified::derive(self.trace).expect("a trace whose unified rows are derived");
        assert_eq!(table.name, unified::rows_from(self.trace).name, "the table unified rows are mapped from");
        let derived = Derived { path: self.parts.path(self.trace), table: &tracelab_schema::unified::JOBS, map };
        self.open_with(table, Some(derived))
    }

    /// Opens a table whose unique key extends a parent's key that is
    /// already checked (Philly attempts and placements of a unique job), so
    /// no key set is kept for it.
    pub fn open_derived(&self, name: &str) -> Result<TableIngest> {
        Ok(self.open(name)?.without_key_guard())
    }

    /// Finishes a table and records where it came from.
    pub fn close(&self, table: TableIngest, source: &str) -> Result<()> {
        let name = table.table().name;
        let position = self.trace.tables().iter().position(|t| t.name == name).expect("a table of this trace");
        let TableDone { finished, counts, rejects, derived } = table.finish()?;
        if let Some(part) = derived {
            self.parts.done(self.trace, part);
        }
        let report = TableReport { table: name.to_string(), source: source.to_string(), counts };
        self.state().tables.push((position, report, finished, rejects));
        Ok(())
    }

    /// Streams the members of one input file to `visit`, with progress, and
    /// records the file's digest.
    pub fn read(&self, file: &InputFile, visit: impl FnMut(Member<'_>) -> Result<()>) -> Result<()> {
        let mut bar = self.progress.file(&file.rel, file.bytes);
        let read = for_each_member(file, &self.limits, Box::new(move |n| bar.advance(n)), visit)?;
        let mut state = self.state();
        state.inputs.push(read.digest);
        if !read.not_read.is_empty() {
            let n = read.not_read.len();
            let members = if n == 1 { "member" } else { "members" };
            state.notes.push(format!("{}: {n} {members} not read: {}", file.rel, read.not_read.join(", ")));
        }
        Ok(())
    }

    /// Records an input that is not read because its extracted twin is
    /// (with `note` saying so): it is still hashed, so the manifest lists
    /// every file of the trace and an unchanged directory is recognized.
    pub fn skip(&self, file: &InputFile, note: String) -> Result<()> {
        let mut bar = self.progress.file(&file.rel, file.bytes);
        let sha256 = sha256_file(&file.path)?;
        bar.advance(file.bytes);
        let mut state = self.state();
        state.inputs.push(Digest256 { file: file.rel.clone(), bytes: file.bytes, sha256 });
        state.notes.push(note);
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
        let (rejects_file, rejects_total, reject_samples) = merge(self.publication, rejects_schema, parts)?;
        finished.push(rejects_file);
        Ok(TraceOutcome {
            trace: self.trace,
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
