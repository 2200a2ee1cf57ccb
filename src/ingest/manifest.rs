//! The manifest of a trace folder (`<store>/<trace>/manifest.json`): which
//! inputs were read (size, SHA-256), what each table holds (records in,
//! written, rejected) and which tracelab wrote it. It is written last, so
//! its presence means the folder is complete; it carries no timestamps, so
//! the same input gives the same bytes.
//!
//! A second, private file (`.inputs-stat.json`) remembers the inputs' sizes
//! and modification times, so an unchanged directory is recognized without
//! re-hashing gigabytes.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

use super::run::TableReport;
use super::source::{Digest256, InputFile};
use crate::error::{IoContext, Result};
use crate::schema::Trace;

pub const MANIFEST: &str = "manifest.json";
const STAT: &str = ".inputs-stat.json";

/// Bumped whenever the canonical schema or a parsing rule changes, so old
/// stores are re-ingested rather than trusted.
pub const FORMAT_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub trace: String,
    pub tracelab_version: String,
    pub format_version: u32,
    pub inputs: Vec<Digest256>,
    pub tables: Vec<TableReport>,
    pub rejects: u64,
    /// Notes of the ingest (e.g. an archive skipped for its extracted twin).
    pub notes: Vec<String>,
}

impl Manifest {
    pub fn new(
        trace: Trace,
        inputs: Vec<Digest256>,
        tables: Vec<TableReport>,
        rejects: u64,
        notes: Vec<String>,
    ) -> Manifest {
        Manifest {
            trace: trace.name().to_string(),
            tracelab_version: env!("CARGO_PKG_VERSION").to_string(),
            format_version: FORMAT_VERSION,
            inputs,
            tables,
            rejects,
            notes,
        }
    }

    /// Reads a manifest; a missing or unreadable one is `None` (the folder
    /// is then treated as not ingested).
    pub fn load(dir: &Path) -> Option<Manifest> {
        let text = std::fs::read_to_string(dir.join(MANIFEST)).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Writes the manifest through a temporary name and a rename.
    pub fn store(&self, dir: &Path) -> Result<()> {
        let mut text = serde_json::to_string_pretty(self).expect("manifest serializes");
        text.push('\n');
        write_atomic(&dir.join(MANIFEST), text.as_bytes())
    }

    /// Whether this manifest was written by this tracelab from exactly
    /// these inputs (same names and sizes; hashes are compared separately).
    pub fn current_for(&self, files: &[InputFile]) -> bool {
        self.tracelab_version == env!("CARGO_PKG_VERSION")
            && self.format_version == FORMAT_VERSION
            && self.inputs.len() == files.len()
            && self.inputs.iter().zip(sorted(files)).all(|(d, f)| d.file == f.rel && d.bytes == f.bytes)
    }
}

fn sorted(files: &[InputFile]) -> Vec<&InputFile> {
    let mut v: Vec<&InputFile> = files.iter().collect();
    v.sort_by(|a, b| a.rel.cmp(&b.rel));
    v
}

/// `(file, bytes, mtime ns)` of each input: the cheap fingerprint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatEntry {
    pub file: String,
    pub bytes: u64,
    pub mtime_ns: u128,
}

pub fn stat_fingerprint(files: &[InputFile]) -> Result<Vec<StatEntry>> {
    sorted(files)
        .into_iter()
        .map(|f| {
            let meta = std::fs::metadata(&f.path).at(&f.path)?;
            let mtime_ns =
                meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos());
            Ok(StatEntry { file: f.rel.clone(), bytes: meta.len(), mtime_ns })
        })
        .collect()
}

pub fn load_stat(dir: &Path) -> Option<Vec<StatEntry>> {
    serde_json::from_str(&std::fs::read_to_string(dir.join(STAT)).ok()?).ok()
}

pub fn store_stat(dir: &Path, stat: &[StatEntry]) -> Result<()> {
    write_atomic(&dir.join(STAT), serde_json::to_string(stat).expect("stat serializes").as_bytes())
}

/// Removes the manifest and the stat file: the folder is being rewritten.
pub fn invalidate(dir: &Path) -> Result<()> {
    for name in [MANIFEST, STAT] {
        let path = dir.join(name);
        if path.exists() {
            std::fs::remove_file(&path).at(&path)?;
        }
    }
    Ok(())
}

/// Writes `bytes` to `path` through `path.tmp` and a rename, so readers see
/// either the old or the new file, never half of one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp: PathBuf = path.with_extension("tmp");
    std::fs::write(&tmp, bytes).at(&tmp)?;
    std::fs::rename(&tmp, path).at(path)
}
