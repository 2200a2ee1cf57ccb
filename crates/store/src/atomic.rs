//! Atomic file replacement: readers see the old file or the new one, never
//! half of one.

use std::path::{Path, PathBuf};

use tracelab_schema::error::{IoContext, Result};

/// Writes `bytes` to `path` through `path.tmp` and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp: PathBuf = path.with_extension("tmp");
    std::fs::write(&tmp, bytes).at(&tmp)?;
    std::fs::rename(&tmp, path).at(path)
}
