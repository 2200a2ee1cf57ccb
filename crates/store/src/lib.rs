//! The store: the one owner of what tracelab keeps on disk. A store is the
//! folder `tracelab ingest` writes (`<store>/<trace>/<table>.parquet`, each
//! trace's manifest, `<store>/jobs.parquet`); ingest, analyses, queries and
//! reports reach its files only through this crate, so the layout, the
//! Parquet settings and the publication rules are known in one place.
//!
//! - [`Store`]: opening a store, the tables present, lazy scans;
//! - [`manifest`]: what each trace folder was made from and holds;
//! - [`parquet`]: how every Parquet file is written;
//! - [`atomic`]: replacing a file so readers never see half of it.

pub mod atomic;
pub mod manifest;
pub mod parquet;

use std::path::{Path, PathBuf};

use polars::prelude::*;

use tracelab_schema::error::{Error, Result};
use tracelab_schema::{self as schema, Table, Trace};

/// An ingested store on disk.
#[derive(Debug, Clone)]
pub struct Store {
    root: PathBuf,
    /// The traces this view shows (`Store::only`); `None`: all of them.
    only: Option<Vec<Trace>>,
}

/// One table present in the store.
#[derive(Debug, Clone)]
pub struct StoredTable {
    pub table: &'static Table,
    pub path: PathBuf,
}

impl Store {
    /// Opens a store; fails when the folder holds no ingested table at all.
    pub fn open(root: impl Into<PathBuf>) -> Result<Store> {
        let store = Store { root: root.into(), only: None };
        if !store.root.is_dir() {
            return Err(Error::Usage(format!(
                "{}: no such store; run `tracelab ingest <trace-dir>` first (the store is <trace-dir>/.tracelab unless --out was given)",
                store.root.display()
            )));
        }
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
    pub fn only(&self, traces: &[Trace]) -> Store {
        Store { root: self.root.clone(), only: Some(traces.to_vec()) }
    }

    fn shows(&self, trace: Option<Trace>) -> bool {
        match (&self.only, trace) {
            (Some(only), Some(t)) => only.contains(&t),
            _ => true,
        }
    }

    /// Where a canonical table lives, present or not.
    pub fn path_of(&self, table: &Table) -> PathBuf {
        match table.trace {
            Some(t) => self.root.join(t.name()).join(table.file_name()),
            None => self.root.join(table.file_name()),
        }
    }

    /// The canonical tables present, in documentation order.
    pub fn tables(&self) -> Vec<StoredTable> {
        schema::all_tables()
            .into_iter()
            .map(|table| StoredTable { table, path: self.path_of(table) })
            .filter(|t| self.shows(t.table.trace) && t.path.is_file())
            .collect()
    }

    /// Whether every table of `trace` that analyses read is present.
    pub fn has_trace(&self, trace: Trace) -> bool {
        self.shows(Some(trace)) && trace.tables().iter().all(|t| self.path_of(t).is_file())
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
        if !path.is_file() {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_store_is_a_usage_error_that_says_how_to_make_one() {
        let err = Store::open("/nonexistent/tl-store").unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains("tracelab ingest"), "{err}");
    }

    #[test]
    fn paths_follow_the_documented_layout() {
        let store = Store { root: PathBuf::from("/s"), only: None };
        assert_eq!(store.path_of(&schema::pai::INSTANCE), PathBuf::from("/s/pai/instance.parquet"));
        assert_eq!(store.path_of(&schema::unified::JOBS), PathBuf::from("/s/jobs.parquet"));
    }

    #[test]
    fn a_view_on_some_traces_hides_the_others() {
        let dir = tempfile::tempdir().unwrap();
        for t in [&schema::pai::JOB, &schema::philly::JOBS, &schema::unified::JOBS] {
            let store = Store { root: dir.path().to_path_buf(), only: None };
            let path = store.path_of(t);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, b"").unwrap();
        }
        let all = Store::open(dir.path()).unwrap();
        let names = |s: &Store| s.tables().iter().map(|t| t.table.qualified_name()).collect::<Vec<_>>();
        assert_eq!(names(&all).len(), 3);
        let pai = all.only(&[Trace::Pai]);
        assert!(names(&pai).iter().all(|n| !n.starts_with("philly")), "{:?}", names(&pai));
        assert_eq!(names(&pai).len(), 2);
        let err = pai.scan(&schema::philly::JOBS).err().expect("philly is hidden").to_string();
        assert!(err.contains("philly/jobs is outside this view of the store (only pai)"), "{err}");
    }
}
