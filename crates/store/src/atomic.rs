//! Atomic file replacement inside a store: readers see the old file or the
//! new one, never half of one. Temporary names are unique per process and
//! call ([`tracelab_schema::outfile`] makes them, for the files verbs write
//! outside a store too), so two threads or processes writing the same file
//! (two reports filling one cache) never write into each other's temporary
//! file.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use tracelab_schema::error::{IoContext, Result};

use crate::fault;

pub use tracelab_schema::outfile::{sync_dir, temporary, unique_suffix};

/// Writes `bytes` to `path` through a temporary file, flushed to disk, and
/// a rename. The temporary file is removed when anything fails.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = write_temporary(path, bytes)?;
    std::fs::rename(&tmp, path).at(path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// Like [`write_atomic`] for the files of a publication: the rename is a
/// crash point of the writer's fault hook ([`fault`]).
pub(crate) fn publish_bytes(path: &Path, bytes: &[u8], renames: &fault::Renames) -> Result<()> {
    let tmp = write_temporary(path, bytes)?;
    renames.rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

fn write_temporary(path: &Path, bytes: &[u8]) -> Result<PathBuf> {
    let tmp = temporary(path);
    let written = File::create(&tmp).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e).at(&tmp);
    }
    Ok(tmp)
}

/// Flushes a file's contents to disk (before it is renamed into place, so a
/// power cut cannot publish a name whose bytes never reached the disk).
pub fn sync_file(path: &Path) -> Result<()> {
    File::open(path).and_then(|f| f.sync_all()).at(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_file_and_leaves_no_temporary_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.json");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("m.json")]);
        assert_ne!(temporary(&path), temporary(&path), "two calls, two temporary names");
    }
}
