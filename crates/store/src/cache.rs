//! The store's caches: results computed from its tables and kept beside
//! them (`<store>/.cache/<kind>/<key>/`): the PAI derived frames and the
//! report's analysis results. Every key is made one way ([`key`]): a hash
//! of the kind, this tracelab's version, the store's content fingerprint
//! ([`crate::Store::fingerprint`], from its manifests) and the caller's
//! parts; so an entry is never read for other tables, and ingest deletes
//! the whole folder when it publishes anything. Entries are written under
//! unique temporary names and renamed, so readers sharing a store (under
//! its shared lock) can fill the same entry at once; the last rename wins
//! and both wrote the same bytes.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use tracelab_schema::error::{IoContext, Result};

use crate::atomic::{temporary, write_atomic};
use crate::layout;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheKind {
    /// The PAI owners' derived frames (`tracelab_analysis::pai::derived`).
    Derived,
    /// `tracelab report`'s analysis runs and figures.
    Report,
}

impl CacheKind {
    pub fn name(self) -> &'static str {
        match self {
            CacheKind::Derived => "derived",
            CacheKind::Report => "report",
        }
    }
}

/// The one key format: 32 hex digits of a SHA-256 over the kind, the
/// tracelab version, the store fingerprint and `parts`, each prefixed with
/// its length so that no two part lists give the same bytes.
pub fn key(kind: CacheKind, fingerprint: &str, parts: &[&str]) -> String {
    let mut h = Sha256::new();
    let fixed = [kind.name(), env!("CARGO_PKG_VERSION"), fingerprint];
    for p in fixed.iter().chain(parts) {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p.as_bytes());
    }
    crate::manifest::hex(&h.finalize()[..16])
}

/// One cache entry: a folder of named files.
#[derive(Debug, Clone)]
pub struct CacheEntry {
    dir: PathBuf,
    key: String,
}

impl CacheEntry {
    pub(crate) fn new(root: &Path, kind: CacheKind, key: String) -> CacheEntry {
        CacheEntry { dir: layout::cache(root).join(kind.name()).join(&key), key }
    }

    pub fn key(&self) -> &str {
        &self.key
    }

    /// Where the entry's file `name` is (present or not), to scan it.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    pub fn read(&self, name: &str) -> Option<Vec<u8>> {
        std::fs::read(self.path(name)).ok()
    }

    /// Writes the file `name` atomically.
    pub fn write(&self, name: &str, bytes: &[u8]) -> Result<()> {
        std::fs::create_dir_all(&self.dir).at(&self.dir)?;
        write_atomic(&self.path(name), bytes)
    }

    /// A temporary path to write `name` at (for writers that need a
    /// path), put in place by [`CacheEntry::put`].
    pub fn temporary(&self, name: &str) -> Result<PathBuf> {
        std::fs::create_dir_all(&self.dir).at(&self.dir)?;
        Ok(temporary(&self.path(name)))
    }

    /// Renames a file made at [`CacheEntry::temporary`] into place.
    pub fn put(&self, tmp: &Path, name: &str) -> Result<()> {
        let path = self.path(name);
        std::fs::rename(tmp, &path).at(&path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_separate_kinds_fingerprints_and_part_boundaries() {
        let k = key(CacheKind::Report, "fp", &["a", "bc"]);
        assert_eq!(k.len(), 32);
        assert_ne!(k, key(CacheKind::Derived, "fp", &["a", "bc"]));
        assert_ne!(k, key(CacheKind::Report, "fp2", &["a", "bc"]));
        assert_ne!(k, key(CacheKind::Report, "fp", &["ab", "c"]));
        assert_eq!(k, key(CacheKind::Report, "fp", &["a", "bc"]));
    }

    #[test]
    fn entries_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let e = CacheEntry::new(dir.path(), CacheKind::Report, "k".into());
        assert!(e.read("run.json").is_none());
        e.write("run.json", b"{}").unwrap();
        assert_eq!(e.read("run.json").unwrap(), b"{}");
        assert_eq!(e.path("run.json"), dir.path().join(".cache/report/k/run.json"));
        let tmp = e.temporary("dfa.parquet").unwrap();
        std::fs::write(&tmp, b"x").unwrap();
        e.put(&tmp, "dfa.parquet").unwrap();
        assert_eq!(e.read("dfa.parquet").unwrap(), b"x");
    }
}
