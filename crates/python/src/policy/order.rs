//! A Python ordering policy (`key(self, job, now)`) behind the engine's
//! `PolicyImpl`: the key of a job is asked when it joins the queue; the
//! policy's `rekey` attribute says when waiting jobs are asked again:
//! `None`/"never" (the default), "pass" (before every scheduling pass) or a
//! number of seconds (every so often; a pass is held then). A policy that
//! also defines `keys(self, jobs, now)` is asked for all re-keyed jobs in
//! one call (a list of jobs in, a list of keys out).
//!
//! A key is a number or a tuple of up to two numbers; smaller runs first,
//! ties go to the earlier submission, then the lower job number (as the
//! built-in policies').

use std::collections::{BTreeSet, HashMap};

use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use tracelab_sim::policy::{Key, PolicyImpl, Progress};
use tracelab_sim::{Job as SimJob, JobId, Millis};

use super::job::Job;
use super::{secs, Failure};
use crate::errors::UsageError;

/// When waiting jobs are re-keyed.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Rekey {
    Never,
    EachPass,
    Every(Millis),
}

pub struct PyOrder {
    name: String,
    key: Py<PyAny>,
    keys: Option<Py<PyAny>>,
    rekey: Rekey,
    /// Waiting jobs (they got a key and did not start).
    waiting: BTreeSet<JobId>,
    /// What a waiting job is, for a `keys` call (a waiting job's progress
    /// does not change while it waits); kept only with `keys` and re-keys.
    seen: HashMap<JobId, (SimJob, Progress)>,
    /// Keys computed in one `keys` call before a pass, for its re-keys.
    batch: HashMap<JobId, Key>,
    next_due: Option<Millis>,
    failure: Failure,
    stopped: Option<String>,
}

impl PyOrder {
    pub fn new(obj: Py<PyAny>, name: String, failure: Failure) -> PyResult<PyOrder> {
        Python::attach(|py| {
            let o = obj.bind(py);
            let key = o.getattr("key")?.unbind();
            let keys = if o.hasattr("keys")? { Some(o.getattr("keys")?.unbind()) } else { None };
            let rekey = rekey_of(&o.getattr("rekey").ok())
                .map_err(|e| UsageError::new_err(format!("{name}: {}", e.value(py))))?;
            Ok(PyOrder {
                name,
                key,
                keys,
                rekey,
                waiting: BTreeSet::new(),
                seen: HashMap::new(),
                batch: HashMap::new(),
                next_due: None,
                failure,
                stopped: None,
            })
        })
    }

    fn fail(&mut self, e: PyErr) -> Key {
        if self.stopped.is_none() {
            self.stopped = Some(self.failure.set(e));
        }
        Key::default()
    }

    fn ask(&mut self, job: &SimJob, p: &Progress, now: Millis) -> Key {
        if self.stopped.is_some() {
            return Key::default();
        }
        let got = Python::attach(|py| -> PyResult<Key> {
            let value = self.key.bind(py).call1((Job::of(job, p), secs(now)))?;
            key_of(&value).map_err(|why| self.bad(job.id, now, &value, &why))
        });
        got.unwrap_or_else(|e| self.fail(e))
    }

    fn bad(&self, job: JobId, now: Millis, value: &Bound<'_, PyAny>, why: &str) -> PyErr {
        let shown = value.repr().map_or_else(|_| "?".into(), |r| r.to_string());
        UsageError::new_err(format!("{}.key returned {shown} for job {job} at t={} s: {why}", self.name, secs(now)))
    }

    /// All waiting jobs' keys in one `keys` call.
    fn ask_batch(&mut self, jobs: &[(SimJob, Progress)], now: Millis) {
        let Some(keys) = &self.keys else { return };
        let got = Python::attach(|py| -> PyResult<HashMap<JobId, Key>> {
            let list = PyList::new(py, jobs.iter().map(|(j, p)| Job::of(j, p)))?;
            let values = keys.bind(py).call1((list, secs(now)))?;
            let values: Vec<Bound<'_, PyAny>> = values.try_iter()?.collect::<PyResult<_>>()?;
            if values.len() != jobs.len() {
                return Err(UsageError::new_err(format!(
                    "{}.keys returned {} keys for {} jobs at t={} s",
                    self.name,
                    values.len(),
                    jobs.len(),
                    secs(now)
                )));
            }
            jobs.iter()
                .zip(&values)
                .map(|((j, _), v)| key_of(v).map(|k| (j.id, k)).map_err(|why| self.bad(j.id, now, v, &why)))
                .collect()
        });
        match got {
            Ok(b) => self.batch = b,
            Err(e) => {
                self.fail(e);
            }
        }
    }
}

/// The `rekey` attribute.
fn rekey_of(v: &Option<Bound<'_, PyAny>>) -> PyResult<Rekey> {
    let Some(v) = v.as_ref().filter(|v| !v.is_none()) else { return Ok(Rekey::Never) };
    if let Ok(s) = v.extract::<String>() {
        return match s.as_str() {
            "never" => Ok(Rekey::Never),
            "pass" => Ok(Rekey::EachPass),
            other => Err(UsageError::new_err(format!(
                "rekey = {other:?}: expected None, \"never\", \"pass\" or a number of seconds"
            ))),
        };
    }
    match v.extract::<f64>() {
        Ok(s) if s > 0.0 && s <= 1e11 => Ok(Rekey::Every(((s * 1000.0).round() as Millis).max(1))),
        _ => Err(UsageError::new_err(format!(
            "rekey = {}: expected None, \"never\", \"pass\" or a number of seconds (> 0)",
            v.repr().map_or_else(|_| "?".into(), |r| r.to_string())
        ))),
    }
}

/// A key from what `key` returned: a number, or a tuple of up to two.
fn key_of(v: &Bound<'_, PyAny>) -> Result<Key, String> {
    let number = |x: &Bound<'_, PyAny>| -> Result<i64, String> {
        let f: f64 = x.extract().map_err(|_| "expected a number or a tuple of up to two numbers".to_string())?;
        if f.is_nan() {
            return Err("a key may not be NaN".into());
        }
        Ok(Key::of_f64(f))
    };
    if let Ok(t) = v.cast::<PyTuple>() {
        return match t.len() {
            1 => Ok(Key(number(&t.get_item(0).map_err(|e| e.to_string())?)?, 0)),
            2 => Ok(Key(
                number(&t.get_item(0).map_err(|e| e.to_string())?)?,
                number(&t.get_item(1).map_err(|e| e.to_string())?)?,
            )),
            n => Err(format!("a tuple key has one or two numbers, this one {n}")),
        };
    }
    Ok(Key(number(v)?, 0))
}

impl PolicyImpl for PyOrder {
    fn key(&mut self, job: &SimJob, p: &Progress, now: Millis) -> Key {
        self.waiting.insert(job.id);
        if self.rekey != Rekey::Never {
            // The first periodic re-key comes one period after the first key.
            let period = match self.rekey {
                Rekey::Every(p) => p,
                _ => 0,
            };
            self.next_due.get_or_insert(now.saturating_add(period));
            if self.keys.is_some() {
                self.seen.insert(job.id, (job.clone(), *p));
            }
        }
        self.ask(job, p, now)
    }

    fn rekey(&mut self, job: &SimJob, p: &Progress, now: Millis) -> Key {
        match self.batch.remove(&job.id) {
            Some(k) => k,
            None => self.ask(job, p, now),
        }
    }

    fn before_pass(&mut self, now: Millis, _waiting: usize) -> Vec<JobId> {
        let due = match self.rekey {
            Rekey::Never => false,
            Rekey::EachPass => true,
            Rekey::Every(period) => {
                let due = self.next_due.is_some_and(|t| t <= now);
                if due {
                    self.next_due = Some(now + period);
                }
                due
            }
        };
        if !due || self.waiting.is_empty() || self.stopped.is_some() {
            return Vec::new();
        }
        if self.keys.is_some() {
            let jobs: Vec<(SimJob, Progress)> = self.waiting.iter().filter_map(|j| self.seen.get(j).cloned()).collect();
            self.ask_batch(&jobs, now);
        }
        self.waiting.iter().copied().collect()
    }

    fn wake_at(&self) -> Option<Millis> {
        match self.rekey {
            Rekey::Every(_) if !self.waiting.is_empty() && self.stopped.is_none() => self.next_due,
            _ => None,
        }
    }

    fn on_start(&mut self, job: &SimJob, _now: Millis) {
        self.waiting.remove(&job.id);
        self.seen.remove(&job.id);
    }

    fn stopped(&self) -> Option<String> {
        self.stopped.clone()
    }
}
