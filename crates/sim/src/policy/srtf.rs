//! `srtf`: shortest remaining time first, preemptive (Helios `srtf`). At each
//! pass running and waiting jobs are ranked together by the service they
//! still need; a running job that falls outside the GPUs the ranking can give
//! is suspended (and pays the configured checkpoint overhead).

use super::{Drift, Key, PolicyImpl, Progress};
use crate::job::Job;
use crate::time::Millis;

pub(crate) struct Srtf;

fn remaining_key(p: &Progress) -> Key {
    Key(p.remaining.ceil() as i64, 0)
}

impl PolicyImpl for Srtf {
    fn key(&mut self, _job: &Job, p: &Progress, _now: Millis) -> Key {
        remaining_key(p)
    }

    fn preemptive(&self) -> bool {
        true
    }

    fn drift(&self) -> Drift {
        Drift::Service
    }

    fn running_key(&self, _job: &Job, p: &Progress, _now: Millis) -> Key {
        remaining_key(p)
    }
}
