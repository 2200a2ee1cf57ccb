//! Checks a workload before a run: ids are positions, durations are not
//! negative, times are within [`MAX_MILLIS`], and user, VC and group ids are
//! within the interners' sizes.

use crate::error::SimError;
use crate::job::{Job, Workload};
use crate::time::MAX_MILLIS;

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
            u.validate(i as u32)?;
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
