//! `tracelab.Job`: what a Python policy sees of one job, read-only. Times
//! are seconds from the replay's start (the window start), GPUs may be
//! fractions (PAI's shared GPUs), users, VCs and groups are the replay's
//! interned numbers. Progress fields are as of the moment the policy is
//! asked.

use pyo3::prelude::*;

use tracelab_sim::policy::Progress;
use tracelab_sim::Job as SimJob;

use super::secs;

/// A job as a policy sees it.
#[pyclass(module = "tracelab", frozen, name = "Job")]
pub struct Job {
    /// The job's number in the replay (what `schedule` returns to start it).
    #[pyo3(get)]
    pub id: u32,
    /// Submission time, seconds.
    #[pyo3(get)]
    pub submit: f64,
    /// Run time the trace recorded, seconds (an oracle's estimate).
    #[pyo3(get)]
    pub duration: f64,
    /// GPUs asked (below 1: a share of one GPU).
    #[pyo3(get)]
    pub gpus: f64,
    /// CPU cores asked, when known.
    #[pyo3(get)]
    pub cpus: Option<f64>,
    #[pyo3(get)]
    pub user: u32,
    #[pyo3(get)]
    pub vc: u32,
    #[pyo3(get)]
    pub group: u32,
    /// The GPU type the job is pinned to, if any (interned number).
    #[pyo3(get)]
    pub gpu_type: Option<u16>,
    /// Priority class (higher first under `priority`; spot traces' HP = 1).
    #[pyo3(get)]
    pub priority: u8,
    /// Service still needed, seconds of unshared running.
    #[pyo3(get)]
    pub remaining: f64,
    /// Attained service, GPU-seconds.
    #[pyo3(get)]
    pub attained: f64,
    /// Time run so far, seconds.
    #[pyo3(get)]
    pub executed: f64,
    /// When the job last joined the queue (submission or preemption), seconds.
    #[pyo3(get)]
    pub queued_at: f64,
    #[pyo3(get)]
    pub preemptions: u32,
}

impl Job {
    pub fn of(j: &SimJob, p: &Progress) -> Job {
        Job {
            id: j.id,
            submit: secs(j.submit),
            duration: secs(j.duration),
            gpus: j.gpu_milli as f64 / 1000.0,
            cpus: j.cpu_milli.map(|c| c as f64 / 1000.0),
            user: j.user,
            vc: j.vc,
            group: j.group,
            gpu_type: j.gpu_type,
            priority: j.priority,
            remaining: p.remaining / 1000.0,
            attained: p.attained as f64 / 1e6,
            executed: secs(p.executed),
            queued_at: secs(p.queued_at),
            preemptions: p.preemptions,
        }
    }
}

#[pymethods]
impl Job {
    fn __repr__(&self) -> String {
        format!(
            "Job(id={}, submit={}, duration={}, gpus={}, user={}, priority={})",
            self.id, self.submit, self.duration, self.gpus, self.user, self.priority
        )
    }
}
