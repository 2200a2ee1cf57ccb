//! A crash hook for the tests of atomic publication: armed with `n`, the
//! process aborts (no destructor runs, as when it is killed) just before the
//! `n`-th rename of a publication: a table moved into place, a manifest or
//! the unified table written. The CLI arms it from the environment variable
//! `TRACELAB_TEST_CRASH_AT_RENAME`; nothing else does.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use tracelab_schema::error::{IoContext, Result};

/// 0: disarmed.
static CRASH_AT: AtomicU64 = AtomicU64::new(0);
static RENAMES: AtomicU64 = AtomicU64::new(0);

/// Aborts the process before the `n`-th publication rename (1-based).
pub fn crash_before_rename(n: u64) {
    CRASH_AT.store(n, Ordering::SeqCst);
}

/// A publication rename: a crash point when the hook is armed.
pub(crate) fn rename(from: &Path, to: &Path) -> Result<()> {
    let n = RENAMES.fetch_add(1, Ordering::SeqCst) + 1;
    if CRASH_AT.load(Ordering::SeqCst) == n {
        std::process::abort();
    }
    std::fs::rename(from, to).at(to)
}
