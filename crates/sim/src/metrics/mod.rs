//! Typed results of a replay: one record per job, a run summary with the
//! metric definitions below, and the time series.
//!
//! Definitions (all times in milliseconds):
//! - queue time: all time spent waiting, from submission to first start plus
//!   every wait after a preemption;
//! - JCT: end - submit; slowdown: JCT / max(duration, 1 ms);
//! - bounded slowdown: max(1, JCT / max(duration, threshold)), threshold 10 s
//!   by default (Feitelson's bounded slowdown);
//! - makespan: last completion - first submission;
//! - GPU utilisation: allocated GPU-time / (all GPUs x (last event - first
//!   submission)), allocated as held (whole nodes of large jobs in full,
//!   fractions as fractions);
//! - Jain's fairness index over users of each user's mean slowdown.

pub mod series;
pub mod sharing;
pub mod stats;

use serde::{Deserialize, Serialize};

use crate::config::SimConfig;
use crate::error::Unplaceable;
use crate::job::JobId;
use crate::time::Millis;
use series::Series;
use stats::Dist;

/// Where a job ended up.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum JobStatus {
    Done,
    /// Still running when the replay stopped (`until`).
    Running,
    /// Still waiting when the replay stopped, or never placeable in practice.
    Waiting,
    /// Submitted after the replay stopped.
    NotSubmitted,
    /// Could never run on this cluster.
    Unplaceable(Unplaceable),
}

/// One job's outcome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobResult {
    pub id: JobId,
    pub status: JobStatus,
    pub submit: Millis,
    pub duration: Millis,
    pub first_start: Option<Millis>,
    pub end: Option<Millis>,
    pub queue_time: Option<Millis>,
    pub jct: Option<Millis>,
    pub slowdown: Option<f64>,
    pub bounded_slowdown: Option<f64>,
    pub preemptions: u32,
    /// First node of the last placement and how many nodes it spanned.
    pub first_node: Option<u32>,
    pub nodes: u32,
}

/// Totals and distributions of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub config: SimConfig,
    pub jobs_submitted: usize,
    pub jobs_done: usize,
    pub jobs_left_running: usize,
    pub jobs_left_waiting: usize,
    pub jobs_not_submitted: usize,
    pub jobs_unplaceable: usize,
    /// Each reason with its job count, sorted by reason.
    pub unplaceable_reasons: Vec<(Unplaceable, usize)>,
    /// Of done jobs, in milliseconds.
    pub jct_ms: Dist,
    pub queue_ms: Dist,
    pub mean_slowdown: f64,
    pub mean_bounded_slowdown: f64,
    pub makespan_ms: Millis,
    pub gpu_utilisation: f64,
    pub jain_user_slowdown: f64,
    pub preemptions: u64,
    pub events: u64,
}

/// A job's use of one node from `start` to `end` (one run, between a start
/// and a completion or preemption).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Segment {
    pub job: JobId,
    pub start: Millis,
    pub end: Millis,
    pub node: u32,
    /// Milli-GPUs held on this node (whole GPUs count 1000 each).
    pub milli: u64,
    /// The GPU (cluster-wide index, numbered node by node) a fractional job shares.
    pub shared_gpu: Option<u32>,
}

/// Everything a replay produces.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimResult {
    pub summary: Summary,
    pub jobs: Vec<JobResult>,
    pub series: Series,
    /// Run segments, if `record_segments` was set; ordered by end, then job.
    pub segments: Vec<Segment>,
    /// GPU-sharing metrics ([`sharing`]), when a sharing policy ran or the
    /// utilization interference model was on.
    #[serde(default)]
    pub sharing: Option<sharing::SharingResult>,
}
