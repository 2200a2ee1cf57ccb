//! The manifest of a trace folder (`<store>/<trace>/manifest.json`): which
//! inputs were read (size, SHA-256), what each table holds (records in,
//! written, rejected) and which tracelab wrote it. It is written last, so
//! its presence means the folder is complete; it carries no timestamps, so
//! the same input gives the same bytes.
//!
//! A second, private file (`.inputs-stat.json`) remembers the inputs' sizes
//! and modification times, so an unchanged directory is recognized without
//! re-hashing gigabytes. Ingest computes both; this module owns their
//! format and where they live.

use std::path::Path;

use serde::{Deserialize, Serialize};
use tracelab_schema::error::{IoContext, Result};
use tracelab_schema::Trace;

use crate::atomic::write_atomic;

pub const MANIFEST: &str = "manifest.json";
const STAT: &str = ".inputs-stat.json";

/// Bumped whenever the canonical schema or a parsing rule changes, so old
/// stores are re-ingested rather than trusted.
pub const FORMAT_VERSION: u32 = 1;

/// The digest of one physical input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Digest256 {
    pub file: String,
    pub bytes: u64,
    pub sha256: String,
}

/// Record accounting of one table. A record is one input row (a CSV line, a
/// JSON job); `rows` counts Parquet rows, which differ from records where
/// one record becomes several rows (Philly attempts, Helios VC columns).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub records_in: u64,
    pub written: u64,
    pub rejected: u64,
    pub rows: u64,
}

impl Counts {
    pub fn balanced(&self) -> bool {
        self.records_in == self.written + self.rejected
    }
}

/// Accounting of one canonical table, as printed and kept in the manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableReport {
    pub table: String,
    /// The raw file(s) it came from, or `(none)` when absent from the input.
    pub source: String,
    #[serde(flatten)]
    pub counts: Counts,
}

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
    /// these inputs, given as (path relative to the trace directory, bytes)
    /// sorted by path; hashes are compared separately.
    pub fn current_for<'a>(&self, inputs: impl ExactSizeIterator<Item = (&'a str, u64)>) -> bool {
        self.tracelab_version == env!("CARGO_PKG_VERSION")
            && self.format_version == FORMAT_VERSION
            && self.inputs.len() == inputs.len()
            && self.inputs.iter().zip(inputs).all(|(d, (file, bytes))| d.file == file && d.bytes == bytes)
    }
}

/// `(file, bytes, mtime ns)` of each input: the cheap fingerprint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatEntry {
    pub file: String,
    pub bytes: u64,
    pub mtime_ns: u128,
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
