//! Progress of long calls (`ingest`, `report`, `simulate`) for Python: a
//! Python callable `hook(done, total)` fed through the libraries' own
//! progress hooks ([`tracelab_ingest::Progress`], the report's events,
//! the replay's per-run callback). The Python side turns the hook into a
//! tqdm bar (`python/tracelab/_progress.py`); this module only counts and
//! calls.
//!
//! The work runs on threads without the interpreter's lock, and an ingest
//! reports every buffer it reads, so the hook is called at most
//! [`PER_SECOND`] times a second (taking the lock only then), and once more
//! when the call ends, so the last count the hook sees is the final one.
//! An exception raised by the hook stops further calls and is raised when
//! the work is done (the work itself cannot be interrupted half way).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pyo3::prelude::*;

use tracelab_ingest::{FileProgress, Progress};

/// The most calls of a hook per second, besides the last one.
pub const PER_SECOND: u32 = 10;

/// A Python progress hook and what it was last told.
pub struct Hook {
    callback: Py<PyAny>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    done: u64,
    total: u64,
    /// When the hook was last called, and with what.
    called: Option<(Instant, u64, u64)>,
    failed: Option<PyErr>,
}

impl Hook {
    pub fn new(callback: Py<PyAny>) -> Arc<Hook> {
        Arc::new(Hook { callback, state: Mutex::new(State::default()) })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// `total` grows by `more` (an ingest learns its files' sizes as it
    /// opens them).
    pub fn grow(&self, more: u64) {
        let mut s = self.state();
        s.total += more;
        self.maybe_call(s);
    }

    /// `n` more units are done.
    pub fn advance(&self, n: u64) {
        let mut s = self.state();
        s.done += n;
        self.maybe_call(s);
    }

    /// `done` of `total` units are done (counts that only grow).
    pub fn set(&self, done: u64, total: u64) {
        let mut s = self.state();
        s.done = s.done.max(done);
        s.total = s.total.max(total);
        self.maybe_call(s);
    }

    /// All the work is done: the count reaches the total.
    pub fn complete(&self) {
        let mut s = self.state();
        s.done = s.total;
        self.maybe_call(s);
    }

    /// Calls the hook with the counts as they stand if it has not been
    /// called in the last 1/[`PER_SECOND`] s. The state's lock is held
    /// while the hook runs, so calls never overlap or go back in time.
    fn maybe_call(&self, mut s: std::sync::MutexGuard<'_, State>) {
        let due = s.called.is_none_or(|(at, _, _)| at.elapsed() >= Duration::from_secs(1) / PER_SECOND);
        if due && s.failed.is_none() {
            self.call(&mut s);
        }
    }

    fn call(&self, s: &mut State) {
        let (done, total) = (s.done, s.total);
        if let Err(e) = Python::attach(|py| self.callback.call1(py, (done, total)).map(drop)) {
            s.failed = Some(e);
        }
        s.called = Some((Instant::now(), done, total));
    }

    /// The last call, when the counts moved since the one before, and the
    /// hook's exception, if it raised one.
    pub fn finish(&self) -> PyResult<()> {
        let mut s = self.state();
        let moved = s.called.is_none_or(|(_, done, total)| (done, total) != (s.done, s.total));
        if moved && s.failed.is_none() && s.total > 0 {
            self.call(&mut s);
        }
        s.failed.take().map_or(Ok(()), Err)
    }
}

/// The hook of a call, if any, and the outcome of the call: the hook's own
/// exception comes first only when the call itself succeeded.
pub fn finish<T>(hook: Option<&Arc<Hook>>, done: PyResult<T>) -> PyResult<T> {
    let raised = hook.map_or(Ok(()), |h| h.finish());
    let value = done?;
    raised.map(|()| value)
}

/// An ingest's progress: bytes read of the bytes of the files opened so
/// far; the waits for the store's lock are kept as notes.
pub struct Ingest {
    pub hook: Option<Arc<Hook>>,
    pub waits: Mutex<Vec<String>>,
}

impl Progress for Ingest {
    fn file(&self, _: &str, bytes: u64) -> Box<dyn FileProgress> {
        match &self.hook {
            Some(hook) => {
                hook.grow(bytes);
                Box::new(Bytes(Arc::clone(hook)))
            }
            None => Box::new(()),
        }
    }

    fn waiting(&self, message: &str) {
        self.waits.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(message.to_string());
    }
}

/// One file's bytes, counted into the call's hook.
struct Bytes(Arc<Hook>);

impl FileProgress for Bytes {
    fn advance(&mut self, n: u64) {
        self.0.advance(n);
    }
}
