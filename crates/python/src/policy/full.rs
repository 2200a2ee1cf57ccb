//! A Python full-control policy (`schedule(self, state)`) behind the sharing
//! policies' hook (`SharingPolicy`): at every scheduling pass while jobs
//! wait, `schedule` gets a [`State`] (the time, the waiting jobs in
//! submission order, the running jobs, free GPUs per node) and decides.
//! It may act at once through the state (`state.try_start(job)` starts a
//! job if it fits now, placed by the run's placement; `state.evict(job)`
//! suspends a running one), which lets it see each decision's effect, and
//! may return decisions to apply after it returns, in order: a job number
//! or `tracelab.Start(job, gpu=None)` to start one (alone on free GPUs, or
//! beside the tenants of an occupied GPU), `tracelab.Evict(job)`.
//!
//! Every decision is checked: an unknown job, a job that is not waiting
//! (started twice) or not running (evicted twice), and a returned start
//! that does not fit (over capacity) are a `tracelab.UsageError` naming the
//! job, the round and the time; the replay stops there.

use std::cell::Cell;
use std::collections::BTreeSet;

use pyo3::prelude::*;
use pyo3::types::PyList;

use tracelab_sim::sharing::model::ShareMode;
use tracelab_sim::sharing::policy::{GpuView, Refused, Round, SharingPolicy};
use tracelab_sim::usage::Usage;
use tracelab_sim::{Job as SimJob, JobId, Millis};

use super::job::Job;
use super::{secs, Failure};
use crate::errors::UsageError;

pub struct PyFull {
    obj: Py<PyAny>,
    name: String,
    /// `every_pass = True` on the policy: `schedule` is called at every
    /// pass, also when no job waits (the Gymnasium environment counts
    /// every interval between events).
    every_pass: bool,
    /// Waiting jobs by (submission, number).
    waiting: BTreeSet<(Millis, JobId)>,
    rounds: u64,
    failure: Failure,
    stopped: Option<String>,
}

impl PyFull {
    pub fn new(obj: Py<PyAny>, name: String, failure: Failure) -> PyResult<PyFull> {
        let every_pass = Python::attach(|py| -> PyResult<bool> {
            let o = obj.bind(py);
            Ok(o.hasattr("every_pass")? && o.getattr("every_pass")?.is_truthy()?)
        })?;
        Ok(PyFull { obj, name, every_pass, waiting: BTreeSet::new(), rounds: 0, failure, stopped: None })
    }

    fn call(&mut self, r: &mut Round) -> PyResult<()> {
        Python::attach(|py| -> PyResult<()> {
            let waiting = self.waiting.iter().map(|&(_, j)| j).collect();
            let state = Bound::new(py, State::new(self.name.clone(), self.rounds, waiting, r))?;
            let returned = self.obj.bind(py).call_method1("schedule", (state.clone(),));
            // The state must not reach the round once `schedule` returned.
            state.borrow().round.set(std::ptr::null_mut());
            let returned = returned?;
            if returned.is_none() {
                return Ok(());
            }
            let ctx = Context { policy: &self.name, round: self.rounds, now: r.now() };
            for action in returned.try_iter()? {
                apply(r, &ctx, &action?)?;
            }
            Ok(())
        })
    }
}

/// Where a decision was taken, for its error message.
struct Context<'c> {
    policy: &'c str,
    round: u64,
    now: Millis,
}

impl Context<'_> {
    fn error(&self, what: String) -> PyErr {
        UsageError::new_err(format!("{}, round {} at t={} s: {what}", self.policy, self.round, secs(self.now)))
    }
}

/// Applies one returned decision.
fn apply(r: &mut Round, ctx: &Context, action: &Bound<'_, PyAny>) -> PyResult<()> {
    let kind = action.get_type().name()?.to_string();
    let job_of = |v: Bound<'_, PyAny>| -> PyResult<u32> {
        let v = if v.hasattr("id")? { v.getattr("id")? } else { v };
        v.extract::<i64>().ok().and_then(|j| u32::try_from(j).ok()).ok_or_else(|| {
            ctx.error(format!(
                "{} is not a job number (expected a job, its number, tracelab.Start or tracelab.Evict)",
                v.repr().map_or_else(|_| "?".into(), |s| s.to_string())
            ))
        })
    };
    match kind.as_str() {
        "Evict" => {
            let job = check_job(r, ctx, job_of(action.getattr("job")?)?)?;
            evict(r, ctx, job)
        }
        "Start" => {
            let job = check_job(r, ctx, job_of(action.getattr("job")?)?)?;
            let gpu: Option<u32> = action.getattr("gpu")?.extract()?;
            match start(r, ctx, job, gpu)? {
                Ok(()) => Ok(()),
                Err(why) => Err(ctx.error(format!("Start(job {job}{}): {why}", gpu_text(gpu)))),
            }
        }
        _ => {
            let job = check_job(r, ctx, job_of(action.clone())?)?;
            match start(r, ctx, job, None)? {
                Ok(()) => Ok(()),
                Err(why) => Err(ctx.error(format!("start job {job}: {why}"))),
            }
        }
    }
}

fn gpu_text(gpu: Option<u32>) -> String {
    gpu.map_or(String::new(), |g| format!(", gpu={g}"))
}

/// `job` if the replay has it.
fn check_job(r: &Round, ctx: &Context, job: u32) -> PyResult<JobId> {
    if !r.has_job(job) {
        return Err(ctx.error(format!("job {job}: no such job in this replay")));
    }
    Ok(job)
}

/// Starts waiting `job` (beside `gpu`'s tenants when given): Ok(Err(why))
/// when it does not fit now, an error when it is not waiting.
fn start(r: &mut Round, ctx: &Context, job: JobId, gpu: Option<u32>) -> PyResult<Result<(), String>> {
    if !r.is_waiting(job) {
        let state = if r.is_running(job) { "already running (started twice?)" } else { "not waiting" };
        return Err(ctx.error(format!("job {job} is {state}; only waiting jobs start")));
    }
    let planned = r.util_now(job) * 100.0;
    let outcome = match gpu {
        None => r.start_alone(job, planned),
        Some(g) if g >= r.gpus() => {
            return Err(ctx.error(format!("job {job}: no GPU {g} (the cluster has {})", r.gpus())))
        }
        Some(g) => r.start_beside(job, g, planned),
    };
    Ok(outcome.map_err(|why| refusal(why).to_string()))
}

fn refusal(why: Refused) -> &'static str {
    match why {
        Refused::NotWaiting => "not waiting",
        Refused::NoRoom => "over capacity: no free GPUs of its type can hold it now",
        Refused::NotShareable => "the GPU is free, of another type, or holds its most tenants",
        Refused::Memory => "over capacity: its GPU memory does not fit beside the GPU's tenants",
        Refused::TooLarge => "only jobs of at most one GPU share a GPU",
    }
}

fn evict(r: &mut Round, ctx: &Context, job: JobId) -> PyResult<()> {
    if !r.is_running(job) {
        return Err(ctx.error(format!("Evict(job {job}): the job is not running")));
    }
    r.evict(job).map_err(|why| ctx.error(format!("Evict(job {job}): {}", refusal(why))))
}

impl SharingPolicy for PyFull {
    fn mode(&self) -> ShareMode {
        ShareMode::Concurrent
    }

    fn gpu_key(&self) -> fn(&GpuView) -> Option<i64> {
        |g| Some(g.gpu as i64)
    }

    fn arrive(&mut self, job: &SimJob, _usage: &Usage, _now: Millis) {
        self.waiting.insert((job.submit, job.id));
    }

    fn finish(&mut self, _job: &SimJob, _usage: &Usage, _now: Millis) {}

    fn round(&mut self, r: &mut Round) {
        // Jobs that started (by the previous round) leave the wait.
        self.waiting.retain(|&(_, j)| r.is_waiting(j));
        if self.stopped.is_some() || (self.waiting.is_empty() && !self.every_pass) {
            return;
        }
        self.rounds += 1;
        if let Err(e) = self.call(r) {
            self.stopped = Some(self.failure.set(e));
        }
        self.waiting.retain(|&(_, j)| r.is_waiting(j));
    }

    fn stopped(&self) -> Option<String> {
        self.stopped.clone()
    }
}

/// `tracelab.State`: what a full-control policy sees at one scheduling
/// pass, and the decisions it may take at once. Valid only while
/// `schedule` runs.
#[pyclass(module = "tracelab", unsendable, name = "State")]
pub struct State {
    /// The round being run, erased of its lifetimes; null once `schedule`
    /// returned (see [`PyFull::call`]).
    round: Cell<*mut ()>,
    policy: String,
    number: u64,
    now: Millis,
    /// The jobs waiting when the round began, in submission order.
    waiting: Vec<JobId>,
}

impl State {
    fn new(policy: String, number: u64, waiting: Vec<JobId>, r: &mut Round) -> State {
        let now = r.now();
        State { round: Cell::new(r as *mut Round as *mut ()), policy, number, now, waiting }
    }

    /// The round, while `schedule` runs.
    fn with<T>(&self, f: impl FnOnce(&mut Round, &Context) -> PyResult<T>) -> PyResult<T> {
        let ctx = Context { policy: &self.policy, round: self.number, now: self.now };
        let ptr = self.round.get();
        if ptr.is_null() {
            return Err(ctx.error("this state belongs to a round that is over".into()));
        }
        // SAFETY: the pointer is the `&mut Round` of the round under way:
        // `PyFull::call` made it from that borrow, does not use the round
        // while `schedule` runs, and nulls it before the borrow ends. The
        // object is `unsendable`, so only this thread reaches it.
        let r = unsafe { &mut *(ptr as *mut Round) };
        f(r, &ctx)
    }
}

#[pymethods]
impl State {
    /// The time of this pass, seconds.
    #[getter]
    fn now(&self) -> f64 {
        secs(self.now)
    }

    /// The round's number (1 for the first).
    #[getter]
    fn round(&self) -> u64 {
        self.number
    }

    /// The waiting jobs, in submission order (those started during this
    /// round left out).
    #[getter]
    fn waiting<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.with(|r, _| {
            let ids = self.waiting.iter().copied().filter(|&j| r.is_waiting(j));
            PyList::new(py, ids.map(|j| Job::of(r.job(j), &r.progress(j))))
        })
    }

    /// The running jobs, by job number.
    #[getter]
    fn running<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.with(|r, _| {
            let mut ids: Vec<JobId> = r.running().to_vec();
            ids.sort_unstable();
            PyList::new(py, ids.into_iter().map(|j| Job::of(r.job(j), &r.progress(j))))
        })
    }

    /// Free GPUs per node (node number = position).
    #[getter]
    fn free_gpus(&self) -> PyResult<Vec<u32>> {
        self.with(|r, _| Ok((0..r.nodes()).map(|n| r.node_gpus(n).1).collect()))
    }

    /// GPUs per node.
    #[getter]
    fn node_gpus(&self) -> PyResult<Vec<u32>> {
        self.with(|r, _| Ok((0..r.nodes()).map(|n| r.node_gpus(n).0).collect()))
    }

    /// The first node a running job runs on and how many it spans.
    fn nodes_of(&self, job: u32) -> PyResult<Option<(u32, u32)>> {
        self.with(|r, ctx| Ok(r.nodes_of(check_job(r, ctx, job)?)))
    }

    /// Starts waiting `job` now if it fits (alone on free GPUs placed by
    /// the run's placement, or beside the tenants of occupied `gpu`):
    /// True if it started, False if it does not fit now. A job that is not
    /// waiting is an error.
    #[pyo3(signature = (job, gpu=None))]
    fn try_start(&self, job: Bound<'_, PyAny>, gpu: Option<u32>) -> PyResult<bool> {
        let id = job_number(&job)?;
        self.with(|r, ctx| Ok(start(r, ctx, check_job(r, ctx, id)?, gpu)?.is_ok()))
    }

    /// Suspends running `job` now: it waits again with its progress (and
    /// the preemption overhead).
    fn evict(&self, job: Bound<'_, PyAny>) -> PyResult<()> {
        let id = job_number(&job)?;
        self.with(|r, ctx| evict(r, ctx, check_job(r, ctx, id)?))
    }

    fn __repr__(&self) -> String {
        format!("<tracelab.State round {} at t={} s>", self.number, secs(self.now))
    }
}

fn job_number(v: &Bound<'_, PyAny>) -> PyResult<u32> {
    let v = if v.hasattr("id")? { v.getattr("id")? } else { v.clone() };
    v.extract::<u32>().map_err(|_| UsageError::new_err(format!("{v}: not a job number")))
}
