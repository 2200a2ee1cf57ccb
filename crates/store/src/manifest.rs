//! The manifests of a store. Each trace folder has one
//! (`<store>/<trace>/manifest.json`): which inputs were read (size,
//! SHA-256), what each table holds (records in, written, rejected), every
//! file it published (size, SHA-256) and which tracelab wrote it. The store
//! has one for the unified `jobs` table (`<store>/manifest.json`): the file
//! and the SHA-256 of each trace manifest it was built from, so a `jobs`
//! table older than any trace is recognized as stale.
//!
//! A manifest is written last, so its presence means its files are
//! complete; it carries no timestamps, so the same input gives the same
//! bytes. A second, private file (`.inputs-stat.json`) remembers the inputs'
//! sizes and modification times, so an unchanged directory is recognized
//! without re-hashing gigabytes. Ingest computes their contents; this module
//! owns their format, [`crate::publish`] writes them and [`crate::Store`]
//! checks them on open.

use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tracelab_schema::Trace;

/// Bumped whenever the layout of a store, the canonical schema or a parsing
/// rule changes, so old stores are re-ingested rather than trusted. 2: the
/// manifests list their files, the unified table has its own manifest, the
/// PAI trace has `philly_runtimes`, the limits on hostile input.
pub const FORMAT_VERSION: u32 = 2;

/// The digest of one physical input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Digest256 {
    pub file: String,
    pub bytes: u64,
    pub sha256: String,
}

/// A file the store published, as its manifest lists it (the name inside
/// the manifest's folder). [`crate::Store::open`] checks its size and the
/// SHA-256 of its last [`TAIL`] bytes, which hold a Parquet file's footer
/// (schema, row groups, statistics): cheap to read on every open, and
/// different for different contents even where the size is the same (a
/// table rewritten by another tracelab). The SHA-256 of the whole file is
/// for `sha256sum`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDigest {
    pub file: String,
    pub bytes: u64,
    pub sha256: String,
    pub tail_sha256: String,
}

/// How many bytes at the end of a file [`FileDigest::tail_sha256`] covers.
pub const TAIL: u64 = 64 << 10;

/// The SHA-256 of the last [`TAIL`] bytes of `path`.
pub(crate) fn tail_sha256(path: &Path) -> std::io::Result<String> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::File::open(path)?;
    let len = f.metadata()?.len();
    f.seek(SeekFrom::Start(len.saturating_sub(TAIL)))?;
    let mut tail = Vec::with_capacity(TAIL as usize);
    f.read_to_end(&mut tail)?;
    Ok(sha256_hex(&tail))
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

/// A trace's manifest.
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
    /// Every Parquet file published with this manifest, by file name; set
    /// by [`crate::publish::Publication::commit_trace`].
    pub files: Vec<FileDigest>,
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
            files: Vec::new(),
        }
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

/// Which trace manifest (by the SHA-256 of its bytes) a unified table was
/// built from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuiltFrom {
    pub trace: String,
    pub manifest_sha256: String,
}

/// The store's own manifest: the unified `jobs` table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreManifest {
    pub tracelab_version: String,
    pub format_version: u32,
    /// Every trace with a manifest when the table was built, in trace order.
    pub built_from: Vec<BuiltFrom>,
    /// Rows of `jobs` per trace.
    pub rows: Vec<(String, u64)>,
    pub files: Vec<FileDigest>,
}

/// `(file, bytes, mtime ns)` of each input: the cheap fingerprint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatEntry {
    pub file: String,
    pub bytes: u64,
    pub mtime_ns: u128,
}

/// What a manifest file holds.
#[derive(Debug)]
pub(crate) enum Read<T> {
    Missing,
    /// Unreadable, unparsable or of another format version: why.
    Invalid(String),
    /// The manifest and the SHA-256 of its bytes.
    Valid(T, String),
}

/// Reads a manifest file of either kind, checking its format version.
pub(crate) fn read<T: for<'de> Deserialize<'de>>(path: &Path) -> Read<T> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Read::Missing,
        Err(e) => return Read::Invalid(format!("cannot read {}: {e}", path.display())),
    };
    let value: serde_json::Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => return Read::Invalid(format!("{} is not a tracelab manifest ({e})", path.display())),
    };
    match value.get("format_version").and_then(serde_json::Value::as_u64) {
        Some(v) if v == u64::from(FORMAT_VERSION) => {}
        Some(v) => {
            return Read::Invalid(format!(
                "written by an older tracelab (store format {v}; this tracelab reads format {FORMAT_VERSION})"
            ))
        }
        None => return Read::Invalid(format!("{} has no format_version", path.display())),
    }
    match serde_json::from_value(value) {
        Ok(m) => Read::Valid(m, sha256_hex(&bytes)),
        Err(e) => Read::Invalid(format!("{} is not a tracelab manifest ({e})", path.display())),
    }
}

/// A manifest's bytes: pretty JSON and a final newline.
pub(crate) fn to_bytes<T: Serialize>(m: &T) -> Vec<u8> {
    let mut text = serde_json::to_string_pretty(m).expect("manifest serializes");
    text.push('\n');
    text.into_bytes()
}

pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Lower-case hexadecimal, the spelling of every hash in a store.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_older_format_is_named_and_garbage_is_invalid() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("manifest.json");
        assert!(matches!(read::<Manifest>(&path), Read::Missing));
        std::fs::write(&path, r#"{"trace": "pai", "format_version": 1}"#).unwrap();
        let Read::Invalid(why) = read::<Manifest>(&path) else { panic!("format 1 accepted") };
        assert!(why.contains("older tracelab (store format 1"), "{why}");
        std::fs::write(&path, "{\"trace\": ").unwrap();
        assert!(matches!(read::<Manifest>(&path), Read::Invalid(_)));
        let m = Manifest::new(Trace::Pai, vec![], vec![], 0, vec![]);
        let bytes = to_bytes(&m);
        std::fs::write(&path, &bytes).unwrap();
        let Read::Valid(back, sha) = read::<Manifest>(&path) else { panic!("own manifest refused") };
        assert_eq!((back, sha), (m, sha256_hex(&bytes)));
    }
}
