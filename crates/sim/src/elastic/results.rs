//! Typed results of an elastic replay: one record per job, a summary and
//! the per-round series.
//!
//! Definitions (over done jobs unless said otherwise):
//! - JCT = completion - submission; mean and P50/P90/P99 as the rigid
//!   engine's (`metrics::stats`, numpy's linear percentiles);
//! - makespan = last completion - first submission;
//! - restarts per job = re-allocations after a job's first;
//! - GPU time = GPU-seconds held (restart delays included);
//! - finish-time fairness (Themis, NSDI'20, as Pollux reports it, OSDI'21
//!   §5.3): ρ = JCT / the time the job would take alone on an equal share
//!   of the cluster, the share being the cluster's GPUs divided by the
//!   mean number of active jobs over the job's lifetime (rounded, at least
//!   one GPU, at most what the job can use), packed 4 to a node, at the
//!   batch size the workload gives it; ρ <= 1 is fair.

use serde::{Deserialize, Serialize};

use crate::elastic::config::ElasticConfig;
use crate::metrics::stats::Dist;
use crate::time::Millis;

/// Where a job ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ElasticStatus {
    Done,
    /// Submitted but not finished when the replay stopped (`until`).
    Unfinished,
    /// Submitted after the replay stopped.
    NotSubmitted,
}

/// One job's outcome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ElasticJobResult {
    /// Position in the workload.
    pub index: usize,
    pub name: String,
    pub application: String,
    pub status: ElasticStatus,
    pub submit: Millis,
    /// First round at which it got GPUs.
    pub first_start: Option<Millis>,
    pub end: Option<Millis>,
    pub jct: Option<Millis>,
    pub restarts: u32,
    pub gpu_seconds: f64,
    pub epochs: usize,
    /// Finish-time fairness ρ (done jobs).
    pub ftf: Option<f64>,
}

/// The run's summary.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ElasticSummary {
    pub config: ElasticConfig,
    pub jobs_submitted: usize,
    pub jobs_done: usize,
    pub jobs_unfinished: usize,
    pub jobs_not_submitted: usize,
    pub jct_ms: Dist,
    /// Queue time = first start - submission.
    pub queue_ms: Dist,
    pub makespan_ms: Millis,
    pub mean_restarts: f64,
    pub gpu_hours: f64,
    /// Mean and maximum ρ, and the share of jobs with ρ <= 1.
    pub ftf_mean: f64,
    pub ftf_max: f64,
    pub ftf_fair_share: f64,
    pub rounds: u64,
}

/// GPUs allocated and jobs active / holding GPUs after each round.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoundPoint {
    pub time: Millis,
    pub allocated_gpus: u32,
    pub active: u32,
    pub running: u32,
}

/// Everything an elastic replay produces.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ElasticResult {
    pub policy: String,
    pub summary: ElasticSummary,
    pub jobs: Vec<ElasticJobResult>,
    pub rounds: Vec<RoundPoint>,
}
