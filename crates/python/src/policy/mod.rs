//! Scheduling policies written in Python (`tracelab.Policy`), run by the
//! Rust engine: the glue between a Python object and the engine's two
//! hooks (`tracelab_sim::custom`). An object with `key(job, now)` orders
//! the wait queue ([`order`]); one with `schedule(state)` takes full
//! control at every scheduling pass ([`full`]). Jobs are handed over as
//! small read-only [`job::Job`] objects, times in seconds.
//!
//! A Python exception, or a value the engine cannot take, is kept in the
//! run's [`Failure`] slot and the policy says it stopped: the engine ends the
//! replay after that pass and the exception is raised as itself (traceback
//! and all) by `Store.simulate`. The policy runs on the caller's thread
//! with the interpreter's lock held; built-in policies of the same call run
//! beside it on threads of their own.

pub mod full;
pub mod job;
pub mod order;

use std::sync::{Arc, Mutex};

use pyo3::prelude::*;

use tracelab_schema::error::Error;
use tracelab_sim::custom::Custom;
use tracelab_workload::CustomRef;

/// The first error of a Python policy during a call, shared by the
/// engine-side policies and the caller that raises it.
#[derive(Clone, Default)]
pub struct Failure(Arc<Mutex<Option<PyErr>>>);

impl Failure {
    /// Keeps `e` unless an earlier error is kept; returns the text the
    /// engine reports.
    pub fn set(&self, e: PyErr) -> String {
        let text = e.to_string().chars().take(500).collect();
        let mut slot = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if slot.is_none() {
            *slot = Some(e);
        }
        text
    }

    /// The error kept, if any (taken).
    pub fn take(&self) -> Option<PyErr> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take()
    }
}

/// The Python policies of one `simulate` call, by the index the plan
/// gives them.
pub struct Policies {
    pub objects: Vec<Py<PyAny>>,
    pub failure: Failure,
}

impl Policies {
    /// The engine-side policy of `c`: a new one for every run (and every
    /// partition); the object's `reset()` is called first when it has one.
    pub fn make(&self, c: &CustomRef) -> Result<Custom, Error> {
        let obj = Python::attach(|py| self.objects[c.index].clone_ref(py));
        Python::attach(|py| -> PyResult<()> {
            let bound = obj.bind(py);
            if bound.hasattr("reset")? {
                bound.call_method0("reset")?;
            }
            Ok(())
        })
        .map_err(|e| Error::Usage(format!("{}: reset(): {}", c.name, self.failure.set(e))))?;
        if c.full {
            let f = full::PyFull::new(obj, c.name.clone(), self.failure.clone())
                .map_err(|e| Error::Usage(format!("{}: {}", c.name, self.failure.set(e))))?;
            Ok(Custom::Full(Box::new(f)))
        } else {
            let o = order::PyOrder::new(obj, c.name.clone(), self.failure.clone())
                .map_err(|e| Error::Usage(format!("{}: {}", c.name, self.failure.set(e))))?;
            Ok(Custom::Order(Box::new(o)))
        }
    }
}

/// Milliseconds as the seconds Python sees.
pub fn secs(ms: i64) -> f64 {
    ms as f64 / 1000.0
}
