//! The GPU-sharing part of a run's results (`SimResult::sharing`, present
//! when a sharing policy ran or the utilization interference model was
//! on). Definitions, over the arrival window (the first event to the last
//! submission: while the workload arrives; the whole replay when every job
//! arrives at once):
//! - GPU-allocated utilization: GPU-time occupied by at least one job /
//!   (all GPUs x window);
//! - GPU-used utilization: useful GPU-busy time / (all GPUs x window), a
//!   job contributing its utilization at its progress rate (utilization /
//!   slowdown; an online service its load), at most 1 per GPU;
//! - GPUs saved: the time-weighted mean of the GPUs the running jobs would
//!   hold alone (a job of at most one GPU one GPU, as the PAI paper counts
//!   `ceil(plan_gpu)`) minus the GPUs they occupy;
//! - oversold GPUs (MuxFlow): the time-weighted mean number of GPUs hosting
//!   an online service and offline work together;
//! - per class (offline, online), over done jobs: JCT, wait and slowdown
//!   (JCT / duration), as the run summary defines them;
//! - online slowdown: per online service, its time-weighted mean slowdown
//!   (latency) while it ran and its largest; a bound violation is a
//!   service whose slowdown ever exceeded the bound, and the violation
//!   share is the part of online running time spent beyond it.

use serde::{Deserialize, Serialize};

use super::stats::{dist, Dist};
use super::{JobResult, JobStatus};
use crate::time::Millis;
use crate::usage::JobClass;

/// One class's jobs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassSummary {
    pub class: JobClass,
    pub jobs: usize,
    pub done: usize,
    pub jct_ms: Dist,
    pub queue_ms: Dist,
    pub mean_slowdown: f64,
}

/// The online services' slowdowns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OnlineSummary {
    /// Services that ran.
    pub services: usize,
    pub bound: f64,
    /// Distribution over services of their mean slowdown.
    pub mean_slowdown: Dist,
    /// The largest slowdown any service ran at.
    pub max_slowdown: f64,
    /// Services whose slowdown ever exceeded the bound.
    pub violations: usize,
    /// Share of online running time beyond the bound.
    pub violation_share: f64,
}

/// Per job: its time-weighted mean and largest slowdown while running.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobSharing {
    pub mean_slowdown: Option<f64>,
    pub max_slowdown: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SharingResult {
    pub gpu_allocated_util: f64,
    pub gpu_used_util: f64,
    pub gpus_saved_mean: f64,
    pub oversold_gpus_mean: f64,
    pub evictions: u64,
    pub classes: Vec<ClassSummary>,
    pub online: Option<OnlineSummary>,
    pub jobs: Vec<JobSharing>,
    /// Useful busy GPUs as a step function (time, GPUs), after each pass.
    pub used_series: Vec<(Millis, f64)>,
}

impl SharingResult {
    /// A copy without the per-job part (what a run's digest keeps).
    pub fn clone_without_jobs(&self) -> SharingResult {
        SharingResult {
            gpu_allocated_util: self.gpu_allocated_util,
            gpu_used_util: self.gpu_used_util,
            gpus_saved_mean: self.gpus_saved_mean,
            oversold_gpus_mean: self.oversold_gpus_mean,
            evictions: self.evictions,
            classes: self.classes.clone(),
            online: self.online.clone(),
            jobs: Vec::new(),
            used_series: self.used_series.clone(),
        }
    }
}

/// Each class present among `jobs` (`class_of` by job id).
pub fn class_summaries(jobs: &[JobResult], class_of: impl Fn(usize) -> JobClass) -> Vec<ClassSummary> {
    let mut out = Vec::new();
    for class in JobClass::ALL {
        let mine: Vec<&JobResult> = jobs.iter().filter(|j| class_of(j.id as usize) == *class).collect();
        if mine.is_empty() {
            continue;
        }
        let done: Vec<&&JobResult> = mine.iter().filter(|j| j.status == JobStatus::Done).collect();
        let slow: Vec<f64> = done.iter().filter_map(|j| j.slowdown).collect();
        out.push(ClassSummary {
            class: *class,
            jobs: mine.len(),
            done: done.len(),
            jct_ms: dist(done.iter().filter_map(|j| j.jct.map(|x| x as f64)).collect()),
            queue_ms: dist(done.iter().filter_map(|j| j.queue_time.map(|x| x as f64)).collect()),
            mean_slowdown: if slow.is_empty() { f64::NAN } else { slow.iter().sum::<f64>() / slow.len() as f64 },
        });
    }
    out
}
