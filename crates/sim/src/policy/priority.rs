//! `priority`: higher priority class first, FIFO within a class, and a
//! waiting job preempts running jobs of lower classes (the setting of the
//! spot-GPU trace: HP jobs preempt Spot jobs, GFS ASPLOS'26 §2; its owners'
//! simulator, Sjtucitlab/Spot `fifo_spot.py`, orders each queue by
//! submission and lets HP jobs evict Spot ones).
//!
//! The key is the class (higher first); ties go to the earlier submission,
//! so each class is served FIFO. A waiting job that does not fit evicts
//! running jobs of lower classes only where that lets it start at once
//! (`engine/evict.rs`: the fewest GPUs evicted, the jobs that started last
//! first); a running job is never evicted for its own class or a lower one.
//! An evicted job waits again in its class, ordered by its original
//! submission, with the service it still needs plus the configured
//! preemption overhead.

use super::{Key, PolicyImpl, Progress};
use crate::job::Job;
use crate::time::Millis;

pub(crate) struct Priority;

impl PolicyImpl for Priority {
    fn key(&mut self, job: &Job, _p: &Progress, _now: Millis) -> Key {
        Key(i64::from(u8::MAX - job.priority), 0)
    }

    fn evicts(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(priority: u8) -> Job {
        Job { priority, ..Job::new(0, 0, 1, 1000) }
    }

    #[test]
    fn a_higher_class_ranks_first() {
        let mut p = Priority;
        let prog = Progress::default();
        assert!(p.key(&job(1), &prog, 0) < p.key(&job(0), &prog, 0));
        assert!(p.key(&job(255), &prog, 0) < p.key(&job(1), &prog, 0));
    }
}
