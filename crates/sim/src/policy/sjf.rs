//! `sjf`: shortest trace duration first, an oracle that knows each job's run
//! time (PAI simulator policy 0 "SJF", Helios `sjf`). Non-preemptive.

use super::{Key, PolicyImpl, Progress};
use crate::job::Job;
use crate::time::Millis;

pub(crate) struct Sjf;

impl PolicyImpl for Sjf {
    fn key(&mut self, job: &Job, _p: &Progress, _now: Millis) -> Key {
        Key(job.duration, 0)
    }
}
