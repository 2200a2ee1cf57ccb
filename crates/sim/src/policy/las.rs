//! `las`: Tiresias' discretized two-dimensional least-attained-service
//! (Gu et al., NSDI'19), preemptive. Attained service is GPUs x time run
//! (the "2D" of 2D-LAS); queue k holds jobs whose attained service lies
//! between thresholds k-1 and k, lower queues run first, and inside a queue
//! jobs keep submission order. Defaults follow the SymbioticLab/Tiresias
//! simulator: two queues split at 3600 GPU-seconds.
//!
//! Starvation: off by default (as upstream's `solve_starvation = 0`). With a
//! factor F, a demoted job that has waited F times its executed time since it
//! last ran goes back to the first queue, its executed time and attained
//! service counted from zero again (upstream's promotion rule).

use super::{Drift, Key, PolicyImpl, Progress};
use crate::config::SimConfig;
use crate::job::Job;
use crate::time::{Millis, MAX_CLOCK};

pub(crate) struct Las {
    /// Thresholds in milli-GPU-milliseconds.
    thresholds: Vec<i64>,
    starvation: Option<f64>,
    /// Attained service and executed time at the last promotion, per job.
    offset: Vec<(i64, Millis)>,
}

impl Las {
    pub(crate) fn new(cfg: &SimConfig, n_jobs: usize) -> Las {
        let thresholds = cfg.las_thresholds_gpu_s.iter().map(|s| (s * 1e6).round() as i64).collect();
        Las { thresholds, starvation: cfg.las_starvation_factor, offset: vec![(0, 0); n_jobs] }
    }

    fn attained(&self, job: &Job, p: &Progress) -> i64 {
        p.attained - self.offset[job.id as usize].0
    }

    fn queue(&self, job: &Job, p: &Progress) -> i64 {
        let a = self.attained(job, p);
        self.thresholds.iter().filter(|&&t| a >= t).count() as i64
    }

    fn promotion_at(&self, job: &Job, p: &Progress) -> Option<Millis> {
        let factor = self.starvation?;
        let executed = p.executed - self.offset[job.id as usize].1;
        if self.queue(job, p) == 0 || executed <= 0 {
            return None;
        }
        // A promotion past the clock's limit never comes: no event is that late.
        let wait = (executed as f64 * factor).ceil();
        let at = (wait <= MAX_CLOCK as f64).then(|| p.queued_at.checked_add(wait as Millis)).flatten()?;
        (at <= MAX_CLOCK).then_some(at)
    }
}

impl PolicyImpl for Las {
    fn key(&mut self, job: &Job, p: &Progress, _now: Millis) -> Key {
        Key(self.queue(job, p), 0)
    }

    fn rekey(&mut self, job: &Job, p: &Progress, now: Millis) -> Key {
        if self.promotion_at(job, p).is_some_and(|t| t <= now) {
            self.offset[job.id as usize] = (p.attained, p.executed);
        }
        self.key(job, p, now)
    }

    fn preemptive(&self) -> bool {
        true
    }

    fn drift(&self) -> Drift {
        Drift::Fixed
    }

    fn running_key(&self, job: &Job, p: &Progress, _now: Millis) -> Key {
        Key(self.queue(job, p), 0)
    }

    fn running_change(&self, job: &Job, p: &Progress, now: Millis) -> Option<Millis> {
        let a = self.attained(job, p);
        let next = *self.thresholds.iter().find(|&&t| t > a)?;
        let rate = job.demand().map_or(1, |d| d.milli() as i64);
        Some(now + (next - a + rate - 1) / rate)
    }

    fn waiting_change(&self, job: &Job, p: &Progress) -> Option<Millis> {
        self.promotion_at(job, p)
    }
}
