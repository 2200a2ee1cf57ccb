//! What a job does with the GPUs it holds, for GPU-sharing replays: its
//! utilization of one GPU while running alone, its GPU memory per GPU and
//! its class (a latency-critical online service or an offline job, as
//! MuxFlow divides a cluster's work).
//!
//! A side table of [`crate::Workload`] (empty when nothing is known), so the
//! [`crate::Job`] struct stays compact for a million jobs and callers that
//! know no usage change nothing. Unknown values take the run's stated
//! defaults (`SharingConfig::default_util_pct`, `default_mem_gib`).
//!
//! Must not: decide anything about interference (see [`crate::sharing::model`]);
//! the ranges are checked with the workload (`validate.rs`).

use serde::{Deserialize, Serialize};

use crate::names::named_enum;

named_enum!(
    /// Whether a job is a latency-critical online service or an offline job.
    #[derive(Default)]
    JobClass, "job class" {
        /// Best-effort work measured by its completion time (training jobs).
        #[default]
        Offline => "offline",
        /// A service: it holds its GPU for its whole duration, whatever its
        /// co-tenants do, and is measured by the slowdown they cause it.
        Online => "online",
    }
);

/// One job's GPU usage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// Utilization of each GPU it occupies while running alone, in % of one
    /// GPU (0-100); for an online service, its mean load, which a daily
    /// profile may scale over time. `None`: unknown.
    pub gpu_util: Option<f32>,
    /// GPU memory it needs on each GPU it occupies, GiB. `None`: unknown.
    pub gpu_mem_gib: Option<f32>,
    pub class: JobClass,
}

/// The largest GPU memory a job may state, GiB (far beyond any GPU, and
/// small enough that sums over a GPU's tenants stay exact in `f64`).
pub const MAX_GPU_MEM_GIB: f64 = 1e6;
