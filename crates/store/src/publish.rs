//! Writing a store: the one way tables get into it.
//!
//! A [`StoreWriter`] holds the store's lock: shared while ingest looks at
//! what is there (so that a no-op ingest runs beside readers), exclusive
//! from [`StoreWriter::exclusive`] on. A [`Publication`] collects one trace's
//! files (or the unified table) under hidden partial names unique to the
//! run, then publishes them as one unit ([`Publication::commit_trace`]):
//! the old manifest goes first, the files are flushed and renamed into
//! place, the new manifest (listing every file with its size and SHA-256)
//! comes last. A crash anywhere in between leaves tables without a valid
//! manifest, which readers refuse and the next ingest replaces. The unified
//! table's manifest records which trace manifests it was built from, so a
//! `jobs` table older than any trace is rebuilt. A publication dropped
//! without a commit removes its partial files.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tracelab_schema::error::{IoContext, Result};
use tracelab_schema::{unified, Table, Trace};

use crate::atomic::{publish_bytes, sync_dir, sync_file, unique_suffix, write_atomic};
use crate::fault::{CrashHook, Renames};
use crate::inspect::{inspect, UnifiedState};
use crate::layout;
use crate::lock::{Mode, StoreLock};
use crate::manifest::{self, FileDigest, Manifest, StatEntry, StoreManifest, FORMAT_VERSION};
use crate::parquet::Written;

/// A store opened for writing.
pub struct StoreWriter {
    root: PathBuf,
    lock: StoreLock,
    /// Names this run's partial files.
    run: String,
    /// Counts the publication renames for the tests' crash hook.
    renames: Renames,
}

impl StoreWriter {
    /// Opens the store at `root` for writing, creating the folder, and takes
    /// its lock shared; `wait` hears why, if it has to wait.
    pub fn open(root: &Path, wait: &dyn Fn(&str)) -> Result<StoreWriter> {
        std::fs::create_dir_all(root).at(root)?;
        let lock = StoreLock::acquire(root, Mode::Shared, wait)?;
        Ok(StoreWriter { root: root.to_path_buf(), lock, run: unique_suffix(), renames: Renames::default() })
    }

    /// Arms the tests' crash hook for this writer's publications
    /// ([`crate::fault`]); a writer is disarmed unless told.
    #[must_use]
    pub fn crash_hook(mut self, hook: CrashHook) -> StoreWriter {
        self.renames = Renames::new(hook);
        self
    }

    /// Takes the lock exclusively, waiting for readers and other ingests.
    /// What the store holds may have changed meanwhile: look again.
    pub fn exclusive(&mut self, wait: &dyn Fn(&str)) -> Result<()> {
        self.lock.upgrade(wait)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The trace's manifest if its publication is complete and intact.
    pub fn manifest(&self, trace: Trace) -> Option<Manifest> {
        inspect(&self.root).manifest(trace).cloned()
    }

    /// Whether `jobs.parquet` was built from exactly the trace manifests now
    /// present.
    pub fn unified_is_current(&self) -> bool {
        let now = inspect(&self.root);
        match now.unified {
            UnifiedState::Current(..) => true,
            // No unified table is current only for a store without traces.
            UnifiedState::Absent => now.built_from().is_empty(),
            UnifiedState::Stale(_) => false,
        }
    }

    /// The file of a canonical table whose trace is published, for building
    /// the unified table from it.
    pub fn published(&self, table: &Table) -> Option<PathBuf> {
        let trace = table.trace?;
        let m = inspect(&self.root).manifest(trace).cloned()?;
        m.files.iter().any(|f| f.file == table.file_name()).then(|| layout::table(&self.root, table))
    }

    /// The inputs' sizes and modification times at the last ingest.
    pub fn stat(&self, trace: Trace) -> Option<Vec<StatEntry>> {
        serde_json::from_slice(&std::fs::read(layout::stat(&self.root, trace)).ok()?).ok()
    }

    /// Remembers the inputs' sizes and modification times; harmless under
    /// the shared lock (every writer writes the same bytes, atomically).
    pub fn store_stat(&self, trace: Trace, stat: &[StatEntry]) -> Result<()> {
        let path = layout::stat(&self.root, trace);
        write_atomic(&path, serde_json::to_string(stat).expect("stat serializes").as_bytes())
    }

    /// Starts publishing `trace`; partial files of interrupted runs are
    /// removed first.
    pub fn begin(&self, trace: Trace) -> Result<Publication<'_>> {
        self.start(Some(trace))
    }

    /// Starts publishing the unified table.
    pub fn begin_unified(&self) -> Result<Publication<'_>> {
        self.start(None)
    }

    fn start(&self, trace: Option<Trace>) -> Result<Publication<'_>> {
        assert_eq!(self.lock.mode(), Mode::Exclusive, "publishing needs StoreWriter::exclusive first");
        let folder = layout::folder(&self.root, trace);
        std::fs::create_dir_all(&folder).at(&folder)?;
        remove_leftovers(&folder)?;
        Ok(Publication { writer: self, trace, folder, made: Mutex::default() })
    }
}

/// Removes the partial and temporary files of runs that did not finish;
/// under the exclusive lock no one else is writing them.
fn remove_leftovers(folder: &Path) -> Result<()> {
    for entry in std::fs::read_dir(folder).at(folder)? {
        let path = entry.at(folder)?.path();
        let name = path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        if layout::is_partial(&name) || (name.starts_with('.') && name.ends_with(".tmp")) {
            std::fs::remove_file(&path).at(&path)?;
        }
    }
    Ok(())
}

/// A file being written for a publication: `path` is its partial name.
#[derive(Debug)]
pub struct Staged {
    pub path: PathBuf,
    /// Its name once published.
    file: String,
}

/// One trace's files (or the unified table) on their way into the store.
pub struct Publication<'w> {
    writer: &'w StoreWriter,
    trace: Option<Trace>,
    folder: PathBuf,
    /// Every partial or scratch file handed out, removed unless published.
    made: Mutex<Vec<PathBuf>>,
}

impl Publication<'_> {
    /// Where to write `table` until it is published.
    pub fn stage(&self, table: &Table) -> Staged {
        assert_eq!(table.trace, self.trace, "{} is not published with this folder", table.qualified_name());
        let file = table.file_name();
        let path = self.track(layout::partial(&self.folder, &file, &self.writer.run));
        Staged { path, file }
    }

    /// A hidden file for intermediate results (rejects parts), removed with
    /// the publication.
    pub fn scratch(&self, name: &str) -> PathBuf {
        self.track(layout::partial(&self.folder, &format!("scratch-{name}"), &self.writer.run))
    }

    fn track(&self, path: PathBuf) -> PathBuf {
        self.made.lock().expect("publication").push(path.clone());
        path
    }

    /// Publishes a trace: its files, then `manifest` listing them. Returns
    /// the manifest as written.
    pub fn commit_trace(self, mut manifest: Manifest, files: Vec<(Staged, Written)>) -> Result<Manifest> {
        let trace = self.trace.expect("a trace publication");
        manifest.files = self.move_into_place(files, Some(trace))?;
        publish_bytes(
            &layout::manifest(&self.writer.root, Some(trace)),
            &manifest::to_bytes(&manifest),
            &self.writer.renames,
        )?;
        self.finish();
        Ok(manifest)
    }

    /// Publishes the unified table with its manifest: `rows` per trace, and
    /// the trace manifests present now as what it was built from.
    pub fn commit_unified(self, rows: Vec<(String, u64)>, file: (Staged, Written)) -> Result<StoreManifest> {
        assert!(self.trace.is_none(), "the unified publication");
        assert_eq!(file.0.file, unified::JOBS.file_name());
        let built_from = inspect(&self.writer.root).built_from();
        let files = self.move_into_place(vec![file], None)?;
        let m = StoreManifest {
            tracelab_version: env!("CARGO_PKG_VERSION").to_string(),
            format_version: FORMAT_VERSION,
            built_from,
            rows,
            files,
        };
        publish_bytes(&layout::manifest(&self.writer.root, None), &manifest::to_bytes(&m), &self.writer.renames)?;
        self.finish();
        Ok(m)
    }

    /// Flushes the files, withdraws the old manifest, renames the files
    /// into place; returns their digests in name order.
    fn move_into_place(&self, files: Vec<(Staged, Written)>, trace: Option<Trace>) -> Result<Vec<FileDigest>> {
        let mut tails = Vec::new();
        for (staged, _) in &files {
            sync_file(&staged.path)?;
            tails.push(manifest::tail_sha256(&staged.path).at(&staged.path)?);
        }
        withdraw(&self.writer.root, trace)?;
        let mut digests = Vec::new();
        for ((staged, written), tail_sha256) in files.into_iter().zip(tails) {
            self.writer.renames.rename(&staged.path, &self.folder.join(&staged.file))?;
            digests.push(FileDigest { file: staged.file, bytes: written.bytes, sha256: written.sha256, tail_sha256 });
        }
        digests.sort_by(|a, b| a.file.cmp(&b.file));
        Ok(digests)
    }

    /// After a commit: the caches were computed from the old tables.
    fn finish(&self) {
        sync_dir(&self.folder);
        let root = &self.writer.root;
        let _ = std::fs::remove_dir_all(layout::cache(root));
        let _ = std::fs::remove_dir_all(layout::folder(root, Some(Trace::Pai)).join(layout::LEGACY_DERIVED));
    }
}

/// Removes a manifest (and a trace's stat file) so that nothing trusts the
/// folder while its files are being replaced.
fn withdraw(root: &Path, trace: Option<Trace>) -> Result<()> {
    let mut paths = vec![layout::manifest(root, trace)];
    paths.extend(trace.map(|t| layout::stat(root, t)));
    for path in paths {
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e).at(&path),
            _ => {}
        }
    }
    sync_dir(&layout::folder(root, trace));
    Ok(())
}

impl Drop for Publication<'_> {
    fn drop(&mut self) {
        // After a commit the partial names no longer exist.
        for path in self.made.lock().expect("publication").drain(..) {
            let _ = std::fs::remove_file(path);
        }
    }
}
