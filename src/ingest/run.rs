//! The state of ingesting one trace: its output folder, rejects, finished
//! tables, input digests and per-table accounting. The per-trace modules
//! drive it; `ingest::commit` publishes what it produced.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::rejects::{Reject, Rejects};
use super::sink::{partial_path, Finished};
use super::source::{for_each_member, Digest256, InputFile, Member};
use super::table::{Counts, TableIngest};
use super::Progress;
use crate::error::{IoContext, Result};
use crate::schema::{find_table, Table, Trace};

/// Accounting of one canonical table, as printed and kept in the manifest.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TableReport {
    pub table: String,
    /// The raw file(s) it came from, or `(none)` when absent from the input.
    pub source: String,
    #[serde(flatten)]
    pub counts: Counts,
}

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

pub struct TraceRun {
    pub trace: Trace,
    dir: PathBuf,
    pub rejects: Rejects,
    progress: Arc<dyn Progress>,
    tables: Vec<TableReport>,
    finished: Vec<Finished>,
    inputs: Vec<Digest256>,
    notes: Vec<String>,
}

impl TraceRun {
    /// Prepares `<store>/<trace>/`, removing partial files an interrupted
    /// run may have left.
    pub fn start(trace: Trace, dir: &Path, progress: Arc<dyn Progress>) -> Result<TraceRun> {
        std::fs::create_dir_all(dir).at(dir)?;
        for table in trace.tables() {
            let partial = partial_path(dir, table);
            if partial.exists() {
                std::fs::remove_file(&partial).at(&partial)?;
            }
        }
        let rejects = Rejects::create(dir, Self::table_of(trace, "rejects"))?;
        Ok(TraceRun {
            trace,
            dir: dir.to_path_buf(),
            rejects,
            progress,
            tables: Vec::new(),
            finished: Vec::new(),
            inputs: Vec::new(),
            notes: Vec::new(),
        })
    }

    fn table_of(trace: Trace, name: &str) -> &'static Table {
        find_table(trace, name).unwrap_or_else(|| panic!("{trace} has no table {name}"))
    }

    pub fn note(&mut self, note: String) {
        self.notes.push(note);
    }

    /// Opens the writer of a canonical table of this trace.
    pub fn open(&self, name: &str) -> Result<TableIngest> {
        TableIngest::create(&self.dir, Self::table_of(self.trace, name))
    }

    /// Opens a table whose unique key extends a parent's key that is
    /// already checked (Philly attempts and placements of a unique job), so
    /// no key set is kept for it.
    pub fn open_derived(&self, name: &str) -> Result<TableIngest> {
        TableIngest::create_unchecked(&self.dir, Self::table_of(self.trace, name))
    }

    /// Finishes a table and records where it came from.
    pub fn close(&mut self, table: TableIngest, source: &str) -> Result<()> {
        let name = table.table().name.to_string();
        let (finished, counts) = table.finish()?;
        self.finished.push(finished);
        self.tables.push(TableReport { table: name, source: source.to_string(), counts });
        Ok(())
    }

    /// Streams the members of one input file to `visit`, with progress, and
    /// records the file's digest.
    pub fn read(
        &mut self,
        file: &InputFile,
        mut visit: impl FnMut(Member<'_>, &mut Rejects) -> Result<()>,
    ) -> Result<()> {
        self.progress.begin(&file.rel, file.bytes);
        let progress = Arc::clone(&self.progress);
        let rejects = &mut self.rejects;
        let digest = for_each_member(file, Box::new(move |n| progress.advance(n)), |m| visit(m, rejects));
        self.progress.end();
        self.inputs.push(digest?);
        Ok(())
    }

    pub fn finish(self) -> Result<TraceOutcome> {
        let rejects_total = self.rejects.total();
        let (rejects_file, reject_samples) = self.rejects.finish()?;
        let mut finished = self.finished;
        finished.push(rejects_file);
        let mut inputs = self.inputs;
        inputs.sort_by(|a, b| a.file.cmp(&b.file));
        Ok(TraceOutcome {
            trace: self.trace,
            dir: self.dir,
            tables: self.tables,
            inputs,
            finished,
            rejects_total,
            reject_samples,
            notes: self.notes,
        })
    }
}
