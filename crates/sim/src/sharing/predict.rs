//! Usage predicted at submission, as Horus predicts a job's GPU utilization
//! before it runs and MuxFlow predicts an offline job's speed: here from the
//! jobs that finished earlier in the replay (the PAI paper found recurring
//! jobs predictable), with the same keys as `sjf-predicted` (user, group,
//! or user and GPU type): the mean measured utilization and GPU memory of
//! the key's finished jobs, else of all finished jobs, else the run's
//! stated defaults. Only measured values train it; a job's own values are
//! never seen before it finishes.

use crate::config::Predictor;
use crate::job::{Job, Workload};
use crate::policy::history::History;
use crate::usage::Usage;

/// What the predictor expects of a job.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Predicted {
    /// Utilization alone, % of one GPU.
    pub util_pct: f64,
    /// GPU memory per GPU, GiB.
    pub mem_gib: f64,
}

pub struct UsagePredictor {
    by: Predictor,
    util: History,
    mem: History,
    default: Predicted,
}

impl UsagePredictor {
    pub fn new(by: Predictor, w: &Workload, default: Predicted) -> UsagePredictor {
        UsagePredictor { by, util: History::new(w), mem: History::new(w), default }
    }

    /// Learns a finished job's measured usage.
    pub fn record(&mut self, job: &Job, usage: &Usage) {
        if let Some(u) = usage.gpu_util {
            self.util.record_value(job, u as f64);
        }
        if let Some(m) = usage.gpu_mem_gib {
            self.mem.record_value(job, m as f64);
        }
    }

    fn mean(&self, h: &History, job: &Job) -> Option<f64> {
        let own = match self.by {
            Predictor::User => h.user(job),
            Predictor::Group => h.group(job),
            Predictor::UserGpuType => h.user_type(job),
        };
        own.or_else(|| h.global())
    }

    pub fn predict(&self, job: &Job) -> Predicted {
        Predicted {
            util_pct: self.mean(&self.util, job).unwrap_or(self.default.util_pct),
            mem_gib: self.mean(&self.mem, job).unwrap_or(self.default.mem_gib),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: u32, group: u32) -> Job {
        Job { group, ..Job::new(id, 0, 1, 1000) }
    }

    /// Defaults before anything finished; then the group's mean (20 and 40
    /// -> 30 %); another group falls back to the mean of all (30 %); memory
    /// never measured stays at its default.
    #[test]
    fn group_mean_then_global_then_default() {
        let w = Workload::from_jobs(vec![job(0, 0), job(1, 0), job(2, 1)]);
        let d = Predicted { util_pct: 50.0, mem_gib: 2.0 };
        let mut p = UsagePredictor::new(Predictor::Group, &w, d);
        assert_eq!(p.predict(&w.jobs[0]), d);
        for (j, u) in [(0, 20.0), (1, 40.0)] {
            p.record(&w.jobs[j], &Usage { gpu_util: Some(u), ..Usage::default() });
        }
        assert_eq!(p.predict(&w.jobs[0]), Predicted { util_pct: 30.0, mem_gib: 2.0 });
        assert_eq!(p.predict(&w.jobs[2]).util_pct, 30.0);
    }
}
