//! A crash hook for the tests of atomic publication: armed with `n`, the
//! process aborts (no destructor runs, as when it is killed) just before the
//! `n`-th rename of a publication: a table moved into place, a manifest or
//! the unified table written. The hook is a value the caller hands to the
//! [`crate::publish::StoreWriter`] ([`StoreWriter::crash_hook`]), which
//! counts its own renames: no process-wide state. The CLI arms it from the
//! environment variable `TRACELAB_TEST_CRASH_AT_RENAME`; nothing else does.
//!
//! [`StoreWriter::crash_hook`]: crate::publish::StoreWriter::crash_hook

use std::num::NonZeroU64;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use tracelab_schema::error::{IoContext, Result};

/// Where a publication crashes on purpose; disarmed by default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CrashHook {
    before_rename: Option<NonZeroU64>,
}

impl CrashHook {
    /// Aborts the process before the `n`-th publication rename (1-based) of
    /// the writer that holds the hook; `0` leaves it disarmed.
    pub fn before_rename(n: u64) -> CrashHook {
        CrashHook { before_rename: NonZeroU64::new(n) }
    }
}

/// One writer's publication renames, counted for its [`CrashHook`].
#[derive(Debug, Default)]
pub(crate) struct Renames {
    hook: CrashHook,
    done: AtomicU64,
}

impl Renames {
    pub(crate) fn new(hook: CrashHook) -> Renames {
        Renames { hook, done: AtomicU64::new(0) }
    }

    /// A publication rename: a crash point when the hook is armed.
    pub(crate) fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        if let Some(at) = self.hook.before_rename {
            // Only an armed hook counts: disarmed, a rename costs nothing more.
            if self.done.fetch_add(1, Ordering::SeqCst) + 1 == at.get() {
                std::process::abort();
            }
        }
        std::fs::rename(from, to).at(to)
    }
}
