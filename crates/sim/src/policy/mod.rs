//! Policies: how the queue is ordered. One policy per file behind
//! [`PolicyImpl`]; the engine asks for a job's key when it joins the queue
//! (and, for preemptive policies, the key of each running job at every
//! scheduling pass) and tells the policy when jobs start and finish.
//!
//! A key is compared first; ties go to the earlier submission, then to the
//! lower job id. A new policy is one file here plus a line in [`build`].

pub(crate) mod exclusive;
mod fair;
mod fifo;
pub(crate) mod history;
pub(crate) mod horus;
mod las;
pub(crate) mod muxflow;
mod priority;
pub(crate) mod priority_time_sharing;
mod qssf;
mod sjf;
mod sjf_predicted;
mod srtf;
pub(crate) mod time_sharing;

use crate::config::{Policy, SimConfig};
use crate::job::{Job, JobId, Workload};
use crate::time::Millis;

/// A queue key; smaller runs first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key(pub i64, pub i64);

impl Key {
    /// An `i64` that orders like the finite float `x` (NaN never occurs:
    /// predictions are means of durations).
    pub fn of_f64(x: f64) -> i64 {
        let bits = x.to_bits() as i64;
        if bits < 0 {
            bits ^ i64::MAX
        } else {
            bits
        }
    }
}

/// What the engine knows about a job's service so far.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Progress {
    /// Service still needed, in milliseconds of unshared running.
    pub remaining: f64,
    /// Attained service: milli-GPUs held times milliseconds run.
    pub attained: i64,
    /// Wall time run so far.
    pub executed: Millis,
    /// When the job last joined the queue (submission or preemption).
    pub queued_at: Millis,
    /// Preemptions so far.
    pub preemptions: u32,
}

/// How the keys of running jobs move while they run, which decides how the
/// engine keeps them in rank order (`docs/simulate.md`, "Complexity").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drift {
    /// Unknown: every running job is settled and re-keyed at every pass
    /// (O(running jobs x log) per pass). The safe default.
    Unknown,
    /// A running job's key stays as it was when the job started until the
    /// time [`PolicyImpl::running_change`] gives (`las`: the queue changes
    /// only when attained service crosses a threshold).
    Fixed,
    /// A running job's key falls by one for every millisecond it runs at full
    /// rate, the same for every running job (`srtf`: the remaining service),
    /// so running jobs keep their order among themselves.
    Service,
}

/// A queue-ordering policy.
pub trait PolicyImpl {
    /// The key of a job joining the queue at `now`.
    fn key(&mut self, job: &Job, p: &Progress, now: Millis) -> Key;

    /// A new key for a waiting job the policy asked to re-key.
    fn rekey(&mut self, job: &Job, p: &Progress, now: Millis) -> Key {
        self.key(job, p, now)
    }

    /// Whether running jobs compete with waiting ones at every pass.
    fn preemptive(&self) -> bool {
        false
    }

    /// Whether a waiting job evicts running jobs of a lower priority class
    /// to make room on a node (`engine/evict.rs`) instead.
    fn evicts(&self) -> bool {
        false
    }

    /// The key of a running job at `now` (preemptive policies).
    fn running_key(&self, job: &Job, p: &Progress, _now: Millis) -> Key {
        let _ = (job, p);
        unreachable!("only preemptive policies rank running jobs")
    }

    /// How running keys move (preemptive policies); see [`Drift`].
    fn drift(&self) -> Drift {
        Drift::Unknown
    }

    /// When a running job's key will change by itself (a pass is held then).
    fn running_change(&self, _job: &Job, _p: &Progress, _now: Millis) -> Option<Millis> {
        None
    }

    /// When a waiting job should be re-keyed (starvation guards).
    fn waiting_change(&self, _job: &Job, _p: &Progress) -> Option<Millis> {
        None
    }

    /// Called before each scheduling pass; returns waiting jobs to re-key.
    fn before_pass(&mut self, _now: Millis, _waiting: usize) -> Vec<JobId> {
        Vec::new()
    }

    /// A time at which the policy wants a scheduling pass even without events.
    fn wake_at(&self) -> Option<Millis> {
        None
    }

    fn on_start(&mut self, _job: &Job, _now: Millis) {}

    fn on_finish(&mut self, _job: &Job, _now: Millis) {}

    /// Why the policy cannot go on, if it cannot (a caller's policy that
    /// failed, `crate::custom`): the replay stops after this pass with
    /// [`SimError::PolicyStopped`](crate::SimError::PolicyStopped).
    fn stopped(&self) -> Option<String> {
        None
    }
}

/// The policy of `cfg` for this workload.
pub(crate) fn build(cfg: &SimConfig, w: &Workload) -> Box<dyn PolicyImpl> {
    match cfg.policy {
        Policy::Fifo => Box::new(fifo::Fifo),
        Policy::Sjf => Box::new(sjf::Sjf),
        Policy::Srtf => Box::new(srtf::Srtf),
        Policy::SjfPredicted => Box::new(sjf_predicted::SjfPredicted::new(cfg.predictor, w)),
        Policy::Qssf => Box::new(qssf::Qssf::new(w)),
        Policy::Las => Box::new(las::Las::new(cfg, w.jobs.len())),
        Policy::Fair => Box::new(fair::Fair),
        Policy::Priority => Box::new(priority::Priority),
        // The GPU-sharing policies keep their own queues (`crate::sharing`);
        // the engine's ordered queue stays empty under them.
        Policy::Exclusive | Policy::TimeSharing | Policy::PriorityTimeSharing | Policy::Horus | Policy::Muxflow => {
            Box::new(fifo::Fifo)
        }
    }
}
