//! Checks a workload before a run: ids are positions, durations are not
//! negative, times are within [`MAX_MILLIS`], and user, VC and group ids are
//! within the interners' sizes.

use crate::error::SimError;
use crate::job::{Job, Workload};
use crate::time::MAX_MILLIS;
use crate::usage::{Usage, MAX_GPU_MEM_GIB};

impl Workload {
    /// Checks ids, interner bounds and times; the first problem is returned.
    pub fn validate(&self) -> Result<(), SimError> {
        if self.jobs.is_empty() {
            return Err(SimError::EmptyWorkload);
        }
        for (i, job) in self.jobs.iter().enumerate() {
            self.validate_job(i, job)?;
        }
        if !self.usage.is_empty() && self.usage.len() != self.jobs.len() {
            let what = format!("{} usage rows for {} jobs (one per job, or none)", self.usage.len(), self.jobs.len());
            return Err(SimError::BadJob { job: 0, what });
        }
        for (i, u) in self.usage.iter().enumerate() {
            validate_usage(u, i as u32)?;
        }
        Ok(())
    }

    fn validate_job(&self, i: usize, job: &Job) -> Result<(), SimError> {
        let bad = |what: String| Err(SimError::BadJob { job: job.id, what });
        if job.id as usize != i {
            return bad(format!("id {} at position {i} (ids must be positions)", job.id));
        }
        if job.duration < 0 {
            return bad(format!("negative duration {} ms", job.duration));
        }
        if job.duration > MAX_MILLIS || job.submit.abs() > MAX_MILLIS {
            return bad(format!(
                "submitted at {} ms for {} ms: times are limited to {MAX_MILLIS} ms (about 3,200 years)",
                job.submit, job.duration
            ));
        }
        if job.user >= self.n_users || job.vc >= self.n_vcs || job.group >= self.n_groups {
            return bad("user, vc or group id beyond the interner sizes".into());
        }
        Ok(())
    }
}

/// Checks the ranges of a job's usage: utilization 0-100, memory 0 to
/// [`MAX_GPU_MEM_GIB`].
fn validate_usage(u: &Usage, job: u32) -> Result<(), SimError> {
    let bad = |what: String| Err(SimError::BadJob { job, what });
    if let Some(x) = u.gpu_util {
        if !(0.0..=100.0).contains(&x) {
            return bad(format!("GPU utilization {x} outside 0-100 %"));
        }
    }
    if let Some(m) = u.gpu_mem_gib {
        if !(0.0..=MAX_GPU_MEM_GIB as f32).contains(&m) {
            return bad(format!("GPU memory {m} GiB outside 0-{MAX_GPU_MEM_GIB:e}"));
        }
    }
    Ok(())
}
