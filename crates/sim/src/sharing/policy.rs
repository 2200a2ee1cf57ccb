//! The full-control hook of the GPU-sharing policies. A sharing policy
//! keeps its own waiting jobs (the engine tells it of every arrival,
//! eviction and completion), and at every scheduling pass runs a round
//! against a [`Round`]: it reads plain data about jobs and GPUs and issues
//! commands (start a job alone, start it beside a GPU's tenants, evict a
//! job, set a GPU's SM share), each checked by the engine and answered at
//! once, so every decision sees the cluster as the previous ones left it.
//!
//! This is the same surface a policy written outside the crate (issue 34's
//! Python policies) gets: plain values in, commands out.

use crate::engine::state::Phase;
use crate::engine::Engine;
use crate::job::{Job, JobId};
use crate::policy::Progress;
use crate::sharing::config::SharingConfig;
use crate::sharing::model::{Model, ShareMode};
use crate::time::Millis;
use crate::usage::Usage;

pub use crate::sharing::view::{GpuView, Refused};

/// A GPU-sharing policy.
pub trait SharingPolicy {
    /// How co-located jobs share a GPU under this policy.
    fn mode(&self) -> ShareMode;

    /// Which occupied GPUs the policy offers for co-location and in what
    /// order (smaller first); `None`: not offered. The engine keeps
    /// [`Round::candidates`] in this order as GPUs change.
    fn gpu_key(&self) -> fn(&GpuView) -> Option<i64>;

    /// `job` waits (it arrived, or was evicted and keeps its progress).
    fn arrive(&mut self, job: &Job, usage: &Usage, now: Millis);

    /// `job` finished (its usage may now be learnt).
    fn finish(&mut self, job: &Job, usage: &Usage, now: Millis);

    /// One scheduling round.
    fn round(&mut self, r: &mut Round);

    /// A time at which the policy wants a round even without an event.
    fn wake_at(&self, _now: Millis) -> Option<Millis> {
        None
    }

    /// Why the policy cannot go on, if it cannot (a caller's policy that
    /// failed, `crate::custom`): the replay stops after this round.
    fn stopped(&self) -> Option<String> {
        None
    }
}

/// What a round sees and may do.
pub struct Round<'r, 'a> {
    e: &'r mut Engine<'a>,
}

impl<'r, 'a> Round<'r, 'a> {
    pub(crate) fn new(e: &'r mut Engine<'a>) -> Round<'r, 'a> {
        Round { e }
    }

    pub fn now(&self) -> Millis {
        self.e.now
    }

    pub fn config(&self) -> &SharingConfig {
        &self.e.cfg.sharing
    }

    pub fn model(&self) -> Model {
        self.e.share.as_ref().expect("sharing").model
    }

    pub fn job(&self, job: JobId) -> &Job {
        &self.e.w.jobs[job as usize]
    }

    /// Whether capacity was freed since the last round (a completion, an
    /// eviction, a step of the online load); if not, only jobs that
    /// arrived since can start.
    pub fn capacity_grew(&self) -> bool {
        self.e.share.as_ref().is_some_and(|s| s.capacity_grew)
    }

    /// GPU memory of `job` per GPU (GiB), as the engine checks it.
    pub fn mem_gib(&self, job: JobId) -> f64 {
        self.e.mem_of(job)
    }

    /// Whether the online services' load changed at this pass (a step of
    /// the load profile, or the first pass).
    pub fn online_load_changed(&self) -> bool {
        self.e.share.as_ref().is_some_and(|s| s.load_stepped)
    }

    /// Whether `job` is an online service.
    pub fn is_online(&self, job: JobId) -> bool {
        self.e.online(job)
    }

    /// Whether `job` asks for at most one GPU (it may share one).
    pub fn single_gpu(&self, job: JobId) -> bool {
        self.e.single_gpu(job)
    }

    /// The utilization of `job` now, a fraction of one GPU (what the
    /// engine runs it at; a policy that should not know it predicts).
    pub fn util_now(&self, job: JobId) -> f64 {
        self.e.util_now(job)
    }

    /// The sum of the current utilizations of `gpu`'s online tenants (0-1).
    pub fn online_load(&self, gpu: u32) -> f64 {
        let g = self.e.gpus();
        g.tenants[gpu as usize].iter().filter(|&&j| self.e.online(j)).map(|&j| self.e.util_now(j)).sum()
    }

    pub fn gpu(&self, gpu: u32) -> GpuView {
        self.e.gpus().view(gpu)
    }

    /// The tenants of `gpu`, in placement order.
    pub fn tenants(&self, gpu: u32) -> &[JobId] {
        &self.e.gpus().tenants[gpu as usize]
    }

    /// Occupied GPUs offered for co-location, in the policy's key order.
    pub fn candidates(&self) -> impl Iterator<Item = u32> + '_ {
        self.e.gpus().index.iter().map(|&(_, g)| g)
    }

    /// Occupied GPUs with no online tenant, by id.
    pub fn offline_only(&self) -> impl Iterator<Item = u32> + '_ {
        self.e.gpus().offline_only.iter().copied()
    }

    /// GPUs with an online tenant, by id.
    pub fn with_online(&self) -> impl Iterator<Item = u32> + '_ {
        self.e.gpus().with_online.iter().copied()
    }

    /// Whether the replay has a job numbered `job`.
    pub fn has_job(&self, job: JobId) -> bool {
        (job as usize) < self.e.w.jobs.len()
    }

    /// The number of GPUs of the cluster (numbered node by node).
    pub fn gpus(&self) -> u32 {
        self.e.nodes.gpu_node.len() as u32
    }

    /// Jobs running now (in no particular order).
    pub fn running(&self) -> &[JobId] {
        &self.e.running
    }

    /// What the engine knows of `job`'s service so far.
    pub fn progress(&self, job: JobId) -> Progress {
        self.e.progress_now(job)
    }

    /// Whether `job` waits now.
    pub fn is_waiting(&self, job: JobId) -> bool {
        self.e.st.phase[job as usize] == Phase::Waiting
    }

    /// Whether `job` runs now.
    pub fn is_running(&self, job: JobId) -> bool {
        self.e.st.phase[job as usize] == Phase::Running
    }

    /// The number of nodes.
    pub fn nodes(&self) -> u32 {
        self.e.nodes.free.len() as u32
    }

    /// GPUs of `node`, and how many of them are free (held by no job).
    pub fn node_gpus(&self, node: u32) -> (u32, u32) {
        (self.e.nodes.gpus_of(node), self.e.nodes.free[node as usize])
    }

    /// The first node `job` runs on and how many nodes it spans, while it
    /// runs.
    pub fn nodes_of(&self, job: JobId) -> Option<(u32, u32)> {
        let i = job as usize;
        (self.e.st.phase[i] == Phase::Running).then(|| (self.e.st.first_node[i].unwrap_or(0), self.e.st.node_count[i]))
    }

    /// Whether a free GPU that `job` may use exists.
    pub fn has_free_gpu(&self, job: JobId) -> bool {
        self.e.nodes.max_free(self.e.w.jobs[job as usize].gpu_type) >= 1
    }

    /// Why `job` may not join occupied `gpu` now, if it may not.
    pub fn refusal(&self, job: JobId, gpu: u32) -> Option<Refused> {
        self.e.refusal(job, gpu)
    }

    /// Starts waiting `job` alone (free GPUs), planned at `planned_pct` %.
    pub fn start_alone(&mut self, job: JobId, planned_pct: f64) -> Result<(), Refused> {
        self.e.start_alone(job, planned_pct)
    }

    /// Starts waiting `job` (at most one GPU) beside `gpu`'s tenants.
    pub fn start_beside(&mut self, job: JobId, gpu: u32, planned_pct: f64) -> Result<(), Refused> {
        self.e.start_beside(job, gpu, planned_pct)
    }

    /// Evicts running `job`: it waits again with its progress (and the
    /// preemption overhead); the policy is told through `arrive`.
    pub fn evict(&mut self, job: JobId) -> Result<(), Refused> {
        self.e.evict(job)
    }

    /// Sets the SM share `gpu` leaves to its offline tenants.
    pub fn set_share(&mut self, gpu: u32, share: f64) {
        self.e.set_share(gpu, share)
    }

    /// The slowdown `job` would run at beside `gpu`'s tenants, had it
    /// utilization `util` (0-1), in `mode`, with SM share `share`.
    pub fn predicted_slowdown(&self, mode: ShareMode, gpu: u32, job_util: f64, share: f64) -> f64 {
        use crate::sharing::model::Tenant;
        let mut tenants: Vec<Tenant> =
            self.tenants(gpu).iter().map(|&j| Tenant { util: self.e.util_now(j), high: self.e.online(j) }).collect();
        tenants.push(Tenant { util: job_util, high: false });
        let mut out = Vec::with_capacity(tenants.len());
        self.model().slowdowns(mode, &tenants, share, &mut out);
        *out.last().expect("one tenant at least")
    }
}
