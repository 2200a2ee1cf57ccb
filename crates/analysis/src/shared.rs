//! Intermediate results one analysis leaves for another in the same run.
//! A report runs dozens of analyses over one store in one process; where
//! two of them need the same expensive intermediate (the Philly GPU-minute
//! join behind P4 and P5, one replay behind several `sim.*` views), the
//! first computes it here and the others take it. A report runs two
//! analyses at a time, and analyses that share an intermediate sit side by
//! side in its plan, so a second one asking while the first still computes
//! waits for that value instead of computing it again. A standalone
//! `tracelab analyze` starts empty, so every analysis still computes
//! everything it needs on its own.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

type Value = Arc<dyn Any + Send + Sync>;
/// One key's value: its mutex is held while the value is computed.
type Slot = Arc<Mutex<Option<Value>>>;

/// Values by key; a key names one intermediate and its type, owned by the
/// module that computes it.
#[derive(Default)]
pub struct Shared(Mutex<HashMap<String, Slot>>);

/// A lock that a panicking holder did not spoil: its value is then still
/// `None` (nothing was stored), so the next caller computes it.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    /// The value under `key`, if one of type `T` was computed there; while
    /// one is being computed, waits for it.
    pub fn get<T: Any + Send + Sync>(&self, key: &str) -> Option<Arc<T>> {
        let slot = lock(&self.0).get(key).cloned()?;
        let value = lock(&slot).clone();
        value.and_then(|v| v.downcast::<T>().ok())
    }

    /// The value under `key`, computed by `compute` unless it is there
    /// already; callers asking for the same key meanwhile wait for this one.
    /// An error is returned and not kept (the next caller tries again).
    pub fn get_or_compute<T: Any + Send + Sync, E>(
        &self,
        key: &str,
        compute: impl FnOnce() -> Result<Arc<T>, E>,
    ) -> Result<Arc<T>, E> {
        let slot = Arc::clone(lock(&self.0).entry(key.to_string()).or_default());
        let mut value = lock(&slot);
        if let Some(v) = value.clone().and_then(|v| v.downcast::<T>().ok()) {
            return Ok(v);
        }
        let v = compute()?;
        *value = Some(v.clone());
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[test]
    fn values_come_back_by_key_and_type() {
        let shared = Shared::default();
        assert!(shared.get::<u32>("a").is_none());
        let seven = shared.get_or_compute("a", || Ok::<_, ()>(Arc::new(7u32))).unwrap();
        assert_eq!(*seven, 7);
        assert_eq!(*shared.get::<u32>("a").unwrap(), 7);
        // The wrong type is no value.
        assert!(shared.get::<String>("a").is_none());
        // There already: not computed again.
        assert_eq!(*shared.get_or_compute("a", || Ok::<_, ()>(Arc::new(8u32))).unwrap(), 7);
    }

    #[test]
    fn an_error_is_not_kept() {
        let shared = Shared::default();
        assert_eq!(shared.get_or_compute::<u32, _>("a", || Err("no")).unwrap_err(), "no");
        assert!(shared.get::<u32>("a").is_none());
        assert_eq!(*shared.get_or_compute("a", || Ok::<_, ()>(Arc::new(1u32))).unwrap(), 1);
    }

    /// Four threads ask for one key at once: one computes, the others wait
    /// for its value; `get` during the computation waits too.
    #[test]
    fn a_value_asked_for_while_it_is_computed_is_computed_once() {
        let shared = Shared::default();
        let runs = AtomicUsize::new(0);
        let started = AtomicUsize::new(0);
        let slow = || {
            runs.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(200));
            Ok::<_, ()>(Arc::new(42u64))
        };
        std::thread::scope(|s| {
            let askers: Vec<_> = (0..4)
                .map(|_| {
                    s.spawn(|| {
                        started.fetch_add(1, Ordering::SeqCst);
                        *shared.get_or_compute("k", slow).unwrap()
                    })
                })
                .collect();
            while started.load(Ordering::SeqCst) < 4 {
                std::thread::yield_now();
            }
            std::thread::sleep(Duration::from_millis(50));
            assert_eq!(shared.get::<u64>("k").map(|v| *v), Some(42));
            for a in askers {
                assert_eq!(a.join().unwrap(), 42);
            }
        });
        assert_eq!(runs.load(Ordering::SeqCst), 1);
    }
}
