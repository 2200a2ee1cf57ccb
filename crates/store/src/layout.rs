//! Where everything of a store lives. This is the only module that joins a
//! path under a store root; every other part of tracelab asks [`crate::Store`],
//! [`crate::publish`] or [`crate::cache`], which ask here.
//!
//! ```text
//! <store>/.lock                      the store's lock (crate::lock)
//! <store>/manifest.json              the unified table's record (built from which trace manifests)
//! <store>/jobs.parquet               the unified cross-trace jobs table
//! <store>/<trace>/<table>.parquet    the canonical tables, rejects.parquet among them
//! <store>/<trace>/manifest.json      the trace's manifest, written last
//! <store>/<trace>/.inputs-stat.json  sizes and mtimes of the inputs (a private shortcut)
//! <store>/<trace>/.<file>.<run>.partial   files of a publication in progress
//! <store>/.cache/<kind>/<key>/       derived frames and report results
//! ```

use std::path::{Path, PathBuf};

use tracelab_schema::{Table, Trace};

pub const LOCK: &str = ".lock";
pub const MANIFEST: &str = "manifest.json";
pub const STAT: &str = ".inputs-stat.json";
pub const CACHE: &str = ".cache";
/// Where tracelab 0.1 stores without a cache folder kept the derived frames;
/// removed when a trace is published so it never outlives its tables.
pub const LEGACY_DERIVED: &str = "derived";
const PARTIAL: &str = ".partial";

/// The folder of a trace's tables, or the root for the unified table.
pub fn folder(root: &Path, trace: Option<Trace>) -> PathBuf {
    match trace {
        Some(t) => root.join(t.name()),
        None => root.to_path_buf(),
    }
}

pub fn table(root: &Path, table: &Table) -> PathBuf {
    folder(root, table.trace).join(table.file_name())
}

/// The manifest of a trace, or with `None` the store's own (the unified table's).
pub fn manifest(root: &Path, trace: Option<Trace>) -> PathBuf {
    folder(root, trace).join(MANIFEST)
}

pub fn stat(root: &Path, trace: Trace) -> PathBuf {
    folder(root, Some(trace)).join(STAT)
}

pub fn lock(root: &Path) -> PathBuf {
    root.join(LOCK)
}

pub fn cache(root: &Path) -> PathBuf {
    root.join(CACHE)
}

/// A hidden name in `folder` for a file of the publication `run`.
pub fn partial(folder: &Path, name: &str, run: &str) -> PathBuf {
    folder.join(format!(".{name}.{run}{PARTIAL}"))
}

/// Whether a file name is a publication's partial file (any run's).
pub fn is_partial(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(PARTIAL)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracelab_schema::{pai, unified};

    #[test]
    fn paths_follow_the_documented_layout() {
        let root = Path::new("/s");
        assert_eq!(table(root, &pai::INSTANCE), PathBuf::from("/s/pai/instance.parquet"));
        assert_eq!(table(root, &unified::JOBS), PathBuf::from("/s/jobs.parquet"));
        assert_eq!(manifest(root, Some(Trace::Helios)), PathBuf::from("/s/helios/manifest.json"));
        assert_eq!(manifest(root, None), PathBuf::from("/s/manifest.json"));
        let p = partial(&folder(root, Some(Trace::Pai)), "job.parquet", "7-1");
        assert_eq!(p, PathBuf::from("/s/pai/.job.parquet.7-1.partial"));
        assert!(is_partial(p.file_name().unwrap().to_str().unwrap()));
        assert!(!is_partial("job.parquet"));
    }
}
