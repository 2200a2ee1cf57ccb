//! The store: the one owner of what tracelab keeps on disk. A store is the
//! folder `tracelab ingest` writes (`<store>/<trace>/<table>.parquet`, each
//! trace's manifest, `<store>/jobs.parquet` and its manifest, the caches);
//! ingest, analyses, queries and reports reach its files only through this
//! crate, so the layout, the Parquet settings, the locking and the
//! publication rules are known in one place.
//!
//! - [`Store`]: opening a store to read (shared lock, every manifest
//!   checked), the tables present, lazy scans, the manifests, the content
//!   fingerprint and the caches;
//! - [`publish`]: writing a store (exclusive lock, atomic publication);
//! - [`manifest`]: what each trace folder was made from and holds;
//! - [`cache`]: derived frames and report results, keyed one way;
//! - [`parquet`]: how every Parquet file is written;
//! - [`lock`], [`atomic`], [`fault`]: the store's lock, atomic file
//!   replacement and the tests' crash hook;
//! - [`folder`]: folder outputs outside the store (a report's `--out`),
//!   built beside their target, swapped in whole and locked, removing only
//!   what tracelab wrote.

pub mod atomic;
pub mod cache;
pub mod fault;
pub mod folder;
mod inspect;
mod layout;
pub mod lock;
pub mod manifest;
pub mod parquet;
pub mod polars_settings;
pub mod publish;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use polars::prelude::*;

use tracelab_schema::error::{Error, Result};
use tracelab_schema::{self as schema, Table, Trace};

use cache::{CacheEntry, CacheKind};
pub use inspect::Tails;
use inspect::{inspect_with, TraceState, UnifiedState};
use lock::{Mode, StoreLock};
use manifest::{FileDigest, Manifest, StoreManifest};

/// An ingested store on disk, open for reading. Clones share one shared
/// lock, held until the last clone is dropped.
#[derive(Debug, Clone)]
pub struct Store {
    root: PathBuf,
    _lock: Arc<StoreLock>,
    manifests: Vec<(Trace, Manifest)>,
    unified: Option<StoreManifest>,
    fingerprint: String,
    /// Whether the files' tails were compared when the store was opened.
    tails: Tails,
    /// The traces this view shows (`Store::only`); `None`: all of them.
    only: Option<Vec<Trace>>,
}

/// One table present in the store.
#[derive(Debug, Clone)]
pub struct StoredTable {
    pub table: &'static Table,
    pub path: PathBuf,
    /// What [`StoredTable::check`] compares, for a store opened with
    /// [`Tails::OnUse`].
    pub tail_check: Option<TailCheck>,
}

/// The tail SHA-256 a table's manifest lists, to compare when it is used.
#[derive(Debug, Clone)]
pub struct TailCheck {
    root: PathBuf,
    /// The trace's name, or `jobs` for the unified table.
    owner: String,
    tail_sha256: String,
}

impl StoredTable {
    /// The table's file ends with the bytes its manifest lists (a store
    /// opened with [`Tails::Now`] compared them already): else the error a
    /// store open gives for a file changed after ingest.
    pub fn check(&self) -> Result<()> {
        match &self.tail_check {
            None => Ok(()),
            Some(c) => {
                inspect::check_tail(&self.path, &c.tail_sha256).map_err(|why| untrusted(&c.root, &c.owner, &why))
            }
        }
    }
}

impl Store {
    /// Opens a store, waiting silently while an ingest writes it.
    pub fn open(root: impl Into<PathBuf>) -> Result<Store> {
        Store::open_with(root, &|_| {})
    }

    /// Opens a store: takes its lock shared (telling `wait` why when an
    /// ingest holds it) and checks every manifest. Fails when the folder is
    /// not a store, holds no table, or holds a trace or a `jobs` table no
    /// valid manifest vouches for (an interrupted ingest, an older format,
    /// files changed since).
    pub fn open_with(root: impl Into<PathBuf>, wait: &dyn Fn(&str)) -> Result<Store> {
        Store::open_checking(root, wait, Tails::Now)
    }

    /// [`Store::open_with`], comparing the tail of each table's file with
    /// its manifest when `tails` says: with [`Tails::OnUse`], when a reader
    /// calls [`StoredTable::check`] on one of [`Store::tables`] (a query,
    /// which reads a few of the store's tables: hashing every file's tail
    /// was a tenth of the CPU time of `SELECT 1` on a store of five traces).
    pub fn open_checking(root: impl Into<PathBuf>, wait: &dyn Fn(&str), tails: Tails) -> Result<Store> {
        let root = root.into();
        if !root.is_dir() {
            return Err(Error::Usage(format!(
                "{}: no such store; run `tracelab ingest <trace-dir>` first (the store is <trace-dir>/.tracelab unless --out was given)",
                root.display()
            )));
        }
        let lock = StoreLock::acquire(&root, Mode::Shared, wait)?;
        let now = inspect_with(&root, tails);
        let mut manifests = Vec::new();
        let mut fingerprint = String::new();
        for (trace, state) in now.traces {
            match state {
                TraceState::Absent => {}
                TraceState::Invalid(why) => return Err(untrusted(&root, trace.name(), &why)),
                TraceState::Valid(m, sha) => {
                    fingerprint.push_str(&format!("{} {sha}\n", trace.name()));
                    manifests.push((trace, m));
                }
            }
        }
        let unified = match now.unified {
            UnifiedState::Absent => None,
            UnifiedState::Stale(why) => return Err(untrusted(&root, "jobs", &why)),
            UnifiedState::Current(m, sha) => {
                fingerprint.push_str(&format!("jobs {sha}\n"));
                Some(m)
            }
        };
        let store = Store { root, _lock: Arc::new(lock), manifests, unified, fingerprint, tails, only: None };
        if store.tables().is_empty() {
            return Err(Error::Usage(format!(
                "{}: holds no ingested table; expected <trace>/<table>.parquet as written by `tracelab ingest`",
                store.root.display()
            )));
        }
        Ok(store)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The same store seen as if it held only `traces` (`tracelab report
    /// --only`): the other traces' tables are absent and the unified jobs
    /// table keeps only the selected traces' rows, so every analysis sees
    /// what a store ingested from those traces alone would give it.
    /// The view's fingerprint extends the store's, so results cached for
    /// the whole store are never taken for the view's.
    pub fn only(&self, traces: &[Trace]) -> Store {
        let names: Vec<&str> = traces.iter().map(|t| t.name()).collect();
        let fingerprint = format!("{}only {}\n", self.fingerprint, names.join(","));
        Store { only: Some(traces.to_vec()), fingerprint, ..self.clone() }
    }

    fn shows(&self, trace: Option<Trace>) -> bool {
        match (&self.only, trace) {
            (Some(only), Some(t)) => only.contains(&t),
            _ => true,
        }
    }

    /// Where a canonical table lives, present or not.
    pub fn path_of(&self, table: &Table) -> PathBuf {
        layout::table(&self.root, table)
    }

    /// The canonical tables present, in documentation order: those of the
    /// published traces, and the unified table.
    pub fn tables(&self) -> Vec<StoredTable> {
        schema::all_tables()
            .into_iter()
            .filter(|t| self.publishes(t))
            .map(|table| StoredTable { table, path: self.path_of(table), tail_check: self.tail_check(table) })
            .filter(|t| self.shows(t.table.trace) && t.path.is_file())
            .collect()
    }

    /// What `table`'s use compares, when the store was opened with
    /// [`Tails::OnUse`].
    fn tail_check(&self, table: &Table) -> Option<TailCheck> {
        if self.tails == Tails::Now {
            return None;
        }
        let digest = self.digest(table)?;
        let owner = table.trace.map_or("jobs", |t| t.name());
        Some(TailCheck { root: self.root.clone(), owner: owner.to_string(), tail_sha256: digest.tail_sha256.clone() })
    }

    fn publishes(&self, table: &Table) -> bool {
        self.digest(table).is_some()
    }

    /// The entry for `table`'s file in the manifest that publishes it (its
    /// trace's, or the unified table's).
    fn digest(&self, table: &Table) -> Option<&FileDigest> {
        let files = match table.trace {
            Some(t) => &self.manifest(t)?.files,
            None => &self.unified.as_ref()?.files,
        };
        files.iter().find(|f| f.file == table.file_name())
    }

    /// Whether every table of `trace` that analyses read is present.
    pub fn has_trace(&self, trace: Trace) -> bool {
        self.shows(Some(trace)) && trace.tables().iter().all(|t| self.publishes(t))
    }

    /// The manifests of the published traces this view shows, in trace
    /// order.
    pub fn manifests(&self) -> Vec<&(Trace, Manifest)> {
        self.manifests.iter().filter(|(t, _)| self.shows(Some(*t))).collect()
    }

    pub fn manifest(&self, trace: Trace) -> Option<&Manifest> {
        self.manifests.iter().find(|(t, _)| *t == trace && self.shows(Some(*t))).map(|(_, m)| m)
    }

    /// The rows of `table` as the manifests record them (the unified table:
    /// its rows of the traces this view shows); `None` for a table the
    /// store lacks.
    pub fn rows(&self, table: &Table) -> Option<u64> {
        let Some(trace) = table.trace else {
            let unified = self.unified.as_ref()?;
            let shown = unified.rows.iter().filter(|(t, _)| self.manifests().iter().any(|(m, _)| m.name() == t));
            return Some(shown.map(|(_, n)| n).sum());
        };
        let manifest = self.manifest(trace)?;
        manifest.tables.iter().find(|t| t.table == table.name).map(|t| t.counts.rows)
    }

    /// The store's content fingerprint: the SHA-256 of every manifest
    /// (traces and unified table), which list the inputs and every file
    /// with its SHA-256. Equal fingerprints, equal tables.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// The cache entry of `kind` for `parts` (what, besides the store's
    /// content and the tracelab version, the cached result depends on).
    pub fn cache(&self, kind: CacheKind, parts: &[&str]) -> CacheEntry {
        self.cache_entry(kind, &cache::key(kind, &self.fingerprint, parts))
    }

    /// The entry of a key made by [`cache::key`] with this store's
    /// fingerprint (for callers that chain keys, as the report's figures
    /// extend their run's).
    pub fn cache_entry(&self, kind: CacheKind, key: &str) -> CacheEntry {
        CacheEntry::new(&self.root, kind, key.to_string())
    }

    /// A lazy scan of one canonical table; the error names the file and says
    /// how to create it.
    pub fn scan(&self, table: &Table) -> Result<LazyFrame> {
        let path = self.path_of(table);
        if !self.shows(table.trace) {
            let shown: Vec<&str> = self.only.iter().flatten().map(|t| t.name()).collect();
            return Err(Error::input(
                path.display().to_string(),
                format!(
                    "table {} is outside this view of the store (only {})",
                    table.qualified_name(),
                    shown.join(", ")
                ),
            ));
        }
        if !self.publishes(table) || !path.is_file() {
            return Err(Error::input(
                path.display().to_string(),
                format!(
                    "table {} is not in the store; ingest a directory holding the {} trace",
                    table.qualified_name(),
                    table.trace.map_or("PAI, Philly or Helios", Trace::name)
                ),
            ));
        }
        let pl_path = PlRefPath::new(path.to_string_lossy().as_ref());
        let lf = LazyFrame::scan_parquet(pl_path, ScanArgsParquet::default())
            .map_err(|e| Error::polars(format!("{}: cannot scan", path.display()), e))?;
        Ok(match (&self.only, table.trace) {
            // The unified table's `trace` column holds the trace names.
            (Some(only), None) => {
                let keep = only.iter().fold(lit(false), |e, t| e.or(col("trace").eq(lit(t.name()))));
                lf.filter(keep)
            }
            _ => lf,
        })
    }
}

/// A store that must not be read, and what to do.
fn untrusted(root: &Path, what: &str, why: &str) -> Error {
    Error::input(
        root.display().to_string(),
        format!("{what}: {why}; re-ingest with `tracelab ingest <trace-dir> --out {}`", root.display()),
    )
}

#[cfg(test)]
mod tests;
