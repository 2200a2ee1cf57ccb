//! The engine's input jobs and workloads: plain types the caller fills from
//! any trace (a Parquet store, the CSV job list of [`crate::csv`], a test).
//!
//! Names (users, VCs, groups, GPU types) stay with the caller: the engine sees
//! interned `u32`/`u16` ids only, which keeps a million jobs small and
//! comparisons cheap.

use serde::{Deserialize, Serialize};

use crate::time::Millis;
use crate::usage::Usage;

/// Index of a job in its [`Workload`] (`jobs[id].id == id`).
pub type JobId = u32;

/// One milli-GPU; 1000 is one whole GPU.
pub const MILLI_PER_GPU: u32 = 1000;

/// A job as the trace recorded it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// Position in the workload.
    pub id: JobId,
    /// Submission time.
    pub submit: Millis,
    /// Run time in the trace; the job needs exactly this much service
    /// (longer only while a shared GPU slows it down, see `SimConfig`).
    pub duration: Millis,
    /// GPU demand in milli-GPUs. Below 1000 the job shares one GPU with other
    /// fractional jobs (PAI `plan_gpu < 100`); 1000 or more is rounded up to
    /// whole GPUs (1500 needs 2 GPUs), which the job holds exclusively.
    pub gpu_milli: u32,
    /// CPU demand in milli-cores, if known; enforced only on nodes that
    /// declare a CPU count.
    pub cpu_milli: Option<u32>,
    /// Interned user id.
    pub user: u32,
    /// Interned virtual-cluster id.
    pub vc: u32,
    /// Interned group id (PAI `group` tag; any recurring-job key).
    pub group: u32,
    /// Interned GPU type the job must run on, if constrained.
    pub gpu_type: Option<u16>,
    /// Priority class: 0 for most jobs; under the `priority` policy a job
    /// preempts running jobs of a lower class (the spot-GPU trace's HP jobs
    /// are 1, its Spot jobs 0). Other policies ignore it.
    #[serde(default)]
    pub priority: u8,
}

/// What a job asks of one placement, derived from `gpu_milli`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Demand {
    /// A fraction of one GPU, in milli-GPUs (1..=999).
    Shared(u32),
    /// Whole GPUs (at least one).
    Whole(u32),
}

impl Demand {
    /// The demand of `gpu_milli` milli-GPUs; `None` for a job without GPUs.
    pub fn of(gpu_milli: u32) -> Option<Demand> {
        match gpu_milli {
            0 => None,
            m if m < MILLI_PER_GPU => Some(Demand::Shared(m)),
            m => Some(Demand::Whole(m.div_ceil(MILLI_PER_GPU))),
        }
    }

    /// Milli-GPUs this demand holds once placed (whole GPUs count in full).
    pub fn milli(self) -> u64 {
        match self {
            Demand::Shared(m) => m as u64,
            Demand::Whole(g) => g as u64 * MILLI_PER_GPU as u64,
        }
    }

    /// GPU count as a real number (fractions stay fractions).
    pub fn gpus_f64(self) -> f64 {
        self.milli() as f64 / MILLI_PER_GPU as f64
    }
}

impl Job {
    /// A job of user, VC and group 0, of any GPU type, without a CPU demand
    /// and of priority class 0; set the rest with struct update syntax:
    /// `Job { user: 3, ..Job::new(0, 0, 60_000, 1000) }`.
    pub fn new(id: JobId, submit: Millis, duration: Millis, gpu_milli: u32) -> Job {
        Job { id, submit, duration, gpu_milli, cpu_milli: None, user: 0, vc: 0, group: 0, gpu_type: None, priority: 0 }
    }

    /// This job's placement demand (`None` if it asks for no GPU).
    pub fn demand(&self) -> Option<Demand> {
        Demand::of(self.gpu_milli)
    }
}

/// Jobs plus the sizes of the caller's interners.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Workload {
    /// The jobs, `jobs[i].id == i`.
    pub jobs: Vec<Job>,
    /// Number of distinct users (all `job.user < n_users`).
    pub n_users: u32,
    /// Number of distinct VCs.
    pub n_vcs: u32,
    /// Number of distinct groups.
    pub n_groups: u32,
    /// Number of distinct GPU types (job constraints and node types).
    pub n_gpu_types: u16,
    /// GPU usage per job (`usage[i]` is job i's), or empty when unknown:
    /// read by the GPU-sharing policies and the utilization model.
    #[serde(default)]
    pub usage: Vec<Usage>,
}

impl Workload {
    /// A workload whose interner sizes are the largest ids seen plus one.
    pub fn from_jobs(jobs: Vec<Job>) -> Workload {
        let max = |f: &dyn Fn(&Job) -> u32| jobs.iter().map(f).max().map_or(0, |m| m + 1);
        let n_types = jobs.iter().filter_map(|j| j.gpu_type).map(|t| t + 1).max();
        Workload {
            n_users: max(&|j| j.user),
            n_vcs: max(&|j| j.vc),
            n_groups: max(&|j| j.group),
            n_gpu_types: n_types.unwrap_or(0),
            jobs,
            usage: Vec::new(),
        }
    }
}
