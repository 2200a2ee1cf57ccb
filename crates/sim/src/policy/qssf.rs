//! `qssf`: Helios' Quasi-Shortest-Service-First (SC'21), non-preemptive.
//! Priority = predicted duration x GPUs, the expected GPU time.
//!
//! Mirrors HeliosArtifact's `QSSF Service`: the prediction comes from the
//! history of finished jobs; without job names (the public traces have none)
//! its estimator falls back to the mean duration of the user's finished jobs,
//! else of all finished jobs (here: else 0 before any job has finished). A
//! priority is computed once, at the first pass at which the job waits
//! together with a job from an earlier second; while every waiting job
//! arrived in the current second they are ordered by GPU count only (the
//! upstream `que_list.sort(gpu_num)` before priorities exist). Ties: GPU
//! count, then submission, then job id (the upstream stable sorts).

use super::history::History;
use super::{Key, PolicyImpl, Progress};
use crate::job::{Job, JobId, Workload};
use crate::time::{Millis, SECOND};

pub(crate) struct Qssf {
    history: History,
    /// Waiting jobs ordered by GPU count until they get a priority, with their submission second.
    provisional: Vec<(JobId, Millis)>,
}

impl Qssf {
    pub(crate) fn new(w: &Workload) -> Qssf {
        Qssf { history: History::new(w), provisional: Vec::new() }
    }

    fn priority(&self, job: &Job) -> f64 {
        let mean = self.history.user(job).or_else(|| self.history.global()).unwrap_or(0.0);
        mean * job.gpu_milli as f64 / 1000.0
    }
}

fn second(t: Millis) -> Millis {
    t.div_euclid(SECOND)
}

impl PolicyImpl for Qssf {
    fn key(&mut self, job: &Job, _p: &Progress, _now: Millis) -> Key {
        self.provisional.push((job.id, second(job.submit)));
        Key(i64::MIN, job.gpu_milli as i64)
    }

    fn rekey(&mut self, job: &Job, _p: &Progress, _now: Millis) -> Key {
        Key(Key::of_f64(self.priority(job)), job.gpu_milli as i64)
    }

    fn before_pass(&mut self, now: Millis, waiting: usize) -> Vec<JobId> {
        let this_second = second(now);
        let older = self.provisional.iter().any(|&(_, s)| s < this_second);
        if older || waiting > self.provisional.len() {
            return self.provisional.drain(..).map(|(j, _)| j).collect();
        }
        Vec::new()
    }

    fn wake_at(&self) -> Option<Millis> {
        self.provisional.iter().map(|&(_, s)| (s + 1) * SECOND).min()
    }

    fn on_start(&mut self, job: &Job, _now: Millis) {
        self.provisional.retain(|&(j, _)| j != job.id);
    }

    fn on_finish(&mut self, job: &Job, _now: Millis) {
        self.history.record(job);
    }
}
