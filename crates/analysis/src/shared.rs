//! Intermediate results one analysis leaves for another in the same run.
//! A report runs dozens of analyses over one store in one process; where
//! two of them need the same expensive intermediate (the Philly GPU-minute
//! join behind P4 and P5), the first computes it and puts it here, the
//! second takes it. A standalone `tracelab analyze` starts empty, so every
//! analysis still computes everything it needs on its own.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Values by key; a key names one intermediate and its type, owned by the
/// module that computes it.
#[derive(Default)]
pub struct Shared(Mutex<HashMap<&'static str, Arc<dyn Any + Send + Sync>>>);

impl Shared {
    /// The value under `key`, if one of type `T` was put there.
    pub fn get<T: Any + Send + Sync>(&self, key: &'static str) -> Option<Arc<T>> {
        let map = self.0.lock().expect("shared results");
        map.get(key).cloned().and_then(|v| v.downcast::<T>().ok())
    }

    pub fn put<T: Any + Send + Sync>(&self, key: &'static str, value: Arc<T>) {
        self.0.lock().expect("shared results").insert(key, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_come_back_by_key_and_type() {
        let shared = Shared::default();
        assert!(shared.get::<u32>("a").is_none());
        shared.put("a", Arc::new(7u32));
        assert_eq!(*shared.get::<u32>("a").unwrap(), 7);
        // The wrong type is no value.
        assert!(shared.get::<String>("a").is_none());
    }
}
