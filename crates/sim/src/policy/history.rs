//! Online history: running means of a value of the jobs that have finished
//! so far in the replay (never of jobs still to come), by user, by group, by
//! user and GPU type, and over all jobs. The value is the duration for the
//! duration predictors, a measured utilization or memory for the GPU-sharing
//! policies' usage predictors (`crate::sharing::predict`).

use std::collections::HashMap;

use crate::job::{Job, Workload};

#[derive(Clone, Copy, Default)]
struct Mean {
    sum: f64,
    n: u64,
}

impl Mean {
    fn add(&mut self, x: f64) {
        self.sum += x;
        self.n += 1;
    }

    fn get(self) -> Option<f64> {
        (self.n > 0).then(|| self.sum / self.n as f64)
    }
}

pub(crate) struct History {
    user: Vec<Mean>,
    group: Vec<Mean>,
    user_type: HashMap<(u32, Option<u16>), Mean>,
    all: Mean,
}

impl History {
    pub(crate) fn new(w: &Workload) -> History {
        History {
            user: vec![Mean::default(); w.n_users as usize],
            group: vec![Mean::default(); w.n_groups as usize],
            user_type: HashMap::new(),
            all: Mean::default(),
        }
    }

    /// Adds a finished job's trace duration.
    pub(crate) fn record(&mut self, job: &Job) {
        self.record_value(job, job.duration as f64);
    }

    /// Adds a finished job's value `d`.
    pub(crate) fn record_value(&mut self, job: &Job, d: f64) {
        self.user[job.user as usize].add(d);
        self.group[job.group as usize].add(d);
        self.user_type.entry((job.user, job.gpu_type)).or_default().add(d);
        self.all.add(d);
    }

    pub(crate) fn user(&self, job: &Job) -> Option<f64> {
        self.user[job.user as usize].get()
    }

    pub(crate) fn group(&self, job: &Job) -> Option<f64> {
        self.group[job.group as usize].get()
    }

    pub(crate) fn user_type(&self, job: &Job) -> Option<f64> {
        self.user_type.get(&(job.user, job.gpu_type)).and_then(|m| m.get())
    }

    /// Mean over every finished job.
    pub(crate) fn global(&self) -> Option<f64> {
        self.all.get()
    }
}
