//! GPU sharing in the engine: the rates of co-located jobs under the
//! utilization interference model (`crate::sharing::model`), and, for the
//! GPU-sharing policies, their tenancy of GPUs, starts and evictions on a
//! policy's command, online load that follows a daily profile, and the
//! sharing metrics (GPU-allocated and GPU-used time, GPUs saved, oversold
//! GPUs, per-job slowdowns).
//!
//! The event loop, the job states, progress settling and completion events
//! are the engine's own (`super::lifecycle`): a rate change here settles a
//! job's progress at its old rate and reschedules its completion, as a
//! change of co-location always has. Must not: choose what to start (the
//! policies do, through `crate::sharing::policy::Round`).

pub(crate) mod gpus;
mod metrics;
mod results;
pub(crate) mod tenancy;

use std::collections::HashMap;

use super::Engine;
use crate::config::{Interference, SimConfig};
use crate::job::{JobId, Workload};
use crate::sharing::model::{Model, ShareMode, Tenant};
use crate::sharing::policy::SharingPolicy;
use crate::time::Millis;
use crate::usage::{JobClass, Usage};
use gpus::GpuState;

/// A sharing policy as the engine holds it (a built-in one, or the
/// caller's, `crate::custom`).
pub(crate) type SharingBox = Box<dyn SharingPolicy>;

/// The engine's sharing state (present when a sharing policy runs or the
/// classic policies use the utilization model).
pub(crate) struct Share {
    pub(crate) mode: ShareMode,
    pub(crate) model: Model,
    pub(crate) policy: Option<Box<dyn SharingPolicy>>,
    pub(crate) gpus: Option<GpuState>,
    /// The GPU each running tenant is on (sharing policies), else `u32::MAX`.
    pub(crate) gpu_of: Vec<u32>,
    /// The utilization (%) the policy planned a tenant with.
    pub(crate) planned: Vec<f32>,
    /// Per job: integral of the slowdown over its running time, the largest
    /// slowdown it ran at, and the time it ran beyond the online bound.
    pub(crate) slow_area: Vec<f64>,
    pub(crate) slow_max: Vec<f64>,
    pub(crate) over_bound: Vec<Millis>,
    /// Useful GPU-busy fraction per GPU, and that of jobs holding whole GPUs.
    pub(crate) gpu_busy: Vec<f64>,
    pub(crate) job_busy: HashMap<JobId, f64>,
    pub(crate) metrics: metrics::Integrals,
    /// Jobs waiting for a sharing policy.
    pub(crate) waiting: usize,
    /// Jobs that began waiting during a round (evicted), for the policy
    /// once the round returns.
    pub(crate) rejoined: Vec<JobId>,
    pub(crate) evictions: u64,
    /// Whether capacity was freed since the last round (a completion, an
    /// eviction, a change of online load).
    pub(crate) capacity_grew: bool,
    /// Next online-load step at which the rates of online GPUs change, and
    /// whether the load stepped at this pass.
    pub(crate) profile_next: Option<Millis>,
    pub(crate) load_stepped: bool,
    pub(crate) has_online: bool,
}

impl Share {
    pub(crate) fn new(w: &Workload, cfg: &SimConfig, gpus: usize, policy: Option<Box<dyn SharingPolicy>>) -> Share {
        let n = w.jobs.len();
        let mode = policy.as_ref().map_or(ShareMode::Concurrent, |p| p.mode());
        Share {
            mode,
            model: Model::of(&cfg.sharing),
            policy,
            gpus: None,
            gpu_of: vec![u32::MAX; n],
            planned: vec![0.0; n],
            slow_area: vec![0.0; n],
            slow_max: vec![0.0; n],
            over_bound: vec![0; n],
            gpu_busy: vec![0.0; gpus],
            job_busy: HashMap::new(),
            metrics: metrics::Integrals::default(),
            waiting: 0,
            rejoined: Vec::new(),
            evictions: 0,
            capacity_grew: true,
            profile_next: None,
            load_stepped: false,
            has_online: w.usage.iter().any(|u| u.class == JobClass::Online),
        }
    }

    /// Whether the engine needs a sharing state for `cfg`.
    pub(crate) fn wanted(cfg: &SimConfig) -> bool {
        cfg.sharing_policy() || cfg.sharing.interference == Interference::Utilization
    }
}

/// Whether slowdown `s` exceeds `bound` by more than rounding (the share
/// that keeps a service exactly at its bound is computed in floating point).
pub(crate) fn beyond(s: f64, bound: f64) -> bool {
    s > bound * (1.0 + 1e-12)
}

impl Engine<'_> {
    pub(crate) fn usage(&self, job: JobId) -> Usage {
        self.w.usage.get(job as usize).copied().unwrap_or_default()
    }

    pub(crate) fn online(&self, job: JobId) -> bool {
        self.usage(job).class == JobClass::Online
    }

    /// The stated utilization of `job`, % (the run's default if unknown).
    pub(crate) fn stated_util(&self, job: JobId) -> f64 {
        self.usage(job).gpu_util.map_or(self.cfg.sharing.default_util_pct, |u| u as f64)
    }

    /// GPU memory of `job` per GPU, GiB.
    pub(crate) fn mem_of(&self, job: JobId) -> f64 {
        self.usage(job).gpu_mem_gib.map_or(self.cfg.sharing.default_mem_gib, |m| m as f64)
    }

    /// Utilization of `job` now, a fraction of one GPU: online services
    /// follow the load profile.
    pub(crate) fn util_now(&self, job: JobId) -> f64 {
        let u = self.stated_util(job) / 100.0;
        match &self.cfg.sharing.profile {
            Some(p) if self.online(job) => (u * p.factor(self.now)).min(1.0),
            _ => u,
        }
    }

    /// Whether a running job's progress ignores its slowdown: online
    /// services under a sharing policy hold their GPU for their duration.
    pub(crate) fn fixed_lifetime(&self, job: JobId) -> bool {
        self.cfg.sharing_policy() && self.online(job)
    }

    /// Slowdowns of `tenants` on a GPU of low-priority SM share `share`.
    fn tenant_slowdowns(&self, mode: ShareMode, tenants: &[JobId], share: f64) -> Vec<f64> {
        let view: Vec<Tenant> =
            tenants.iter().map(|&j| Tenant { util: self.util_now(j), high: self.online(j) }).collect();
        let mut out = Vec::with_capacity(view.len());
        self.share.as_ref().expect("sharing state").model.slowdowns(mode, &view, share, &mut out);
        out
    }

    /// Applies new slowdowns to `tenants` of `gpu` (settling each job whose
    /// rate changes at its old rate; `new` needs its first completion
    /// event) and updates the GPU's useful busy fraction.
    pub(crate) fn apply_rates(&mut self, gpu: u32, tenants: &[JobId], slow: &[f64], new: Option<JobId>) {
        let mut busy = 0.0;
        for (&job, &s) in tenants.iter().zip(slow) {
            if self.st.slow[job as usize] != s || new == Some(job) {
                self.settle(job);
                self.st.slow[job as usize] = s;
                self.schedule_end(job);
            }
            let u = self.util_now(job);
            busy += if self.fixed_lifetime(job) { u } else { u / s };
        }
        let sh = self.share.as_mut().expect("sharing state");
        let busy = busy.min(1.0);
        sh.metrics.busy += busy - sh.gpu_busy[gpu as usize];
        sh.gpu_busy[gpu as usize] = busy;
    }

    /// Re-derives the rates on `gpu` under the classic policies' fractional
    /// sharing with the utilization model (concurrent).
    pub(crate) fn rerate_fractional(&mut self, gpu: u32, new: Option<JobId>) {
        let tenants = self.nodes.gpu_jobs[gpu as usize].clone();
        let slow = self.tenant_slowdowns(ShareMode::Concurrent, &tenants, 1.0);
        self.apply_rates(gpu, &tenants, &slow, new);
    }

    /// Accounts a job that starts (`sign` 1) or stops (-1) on whole GPUs:
    /// its busy time, GPUs it would need alone, GPUs occupied.
    pub(crate) fn note_whole(&mut self, job: JobId, start: bool) {
        if self.share.is_none() {
            return;
        }
        let held = self.held(job);
        let busy = self.util_now(job) * held as f64 / 1000.0;
        let sh = self.share.as_mut().expect("checked");
        if start {
            sh.job_busy.insert(job, busy);
            sh.metrics.busy += busy;
        } else {
            sh.metrics.busy -= sh.job_busy.remove(&job).unwrap_or(0.0);
        }
        sh.metrics.change(start, held, held);
    }

    /// Accounts a fractional job of the classic policies joining or leaving
    /// `gpu` (the GPU opened or closed with it).
    pub(crate) fn note_fractional(&mut self, gpu: u32, start: bool) {
        let opened = self.nodes.gpu_jobs[gpu as usize].len() == usize::from(start);
        if let Some(sh) = self.share.as_mut() {
            sh.metrics.change(start, 1000, if opened { 1000 } else { 0 });
        }
    }

    /// Settles the sharing accumulators of `job` over `elapsed` ms at its
    /// current slowdown.
    pub(crate) fn settle_share(&mut self, job: JobId, elapsed: Millis) {
        let bound = self.cfg.sharing.online_bound;
        let s = self.st.slow[job as usize];
        if let Some(sh) = self.share.as_mut() {
            let i = job as usize;
            sh.slow_area[i] += s * elapsed as f64;
            sh.slow_max[i] = sh.slow_max[i].max(s);
            if beyond(s, bound) {
                sh.over_bound[i] += elapsed;
            }
        }
    }
}
