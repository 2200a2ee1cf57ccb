//! Elastic jobs: what a workload says of each (application, submission,
//! the GPUs and batch size it asks for) and how one trains between
//! scheduling rounds.
//!
//! A job's work is its application's training to the last measured epoch
//! ([`crate::elastic::app::training`]). While it holds GPUs it first waits
//! out the restart delay of its last re-allocation (checkpoint, restart,
//! restore: no progress, GPUs held), then progresses at its goodput: the
//! gain of its total batch size over the smallest (from the gradient
//! statistics measured in the current epoch) per second of iteration,
//! with the iteration time measured for its placement and per-GPU batch
//! ([`crate::elastic::app::throughput`]), times (1 - interference) while
//! it suffers interference. At every epoch end, and at the end of every
//! round, the job re-chooses its batch: a fixed total batch is split over
//! its GPUs ([`split_batch`]); an adaptive job (Pollux's agent, OSDI'21
//! §4.1) takes the batch with the most goodput under its fitted model.
//! Every configuration it runs is observed, and the model is refitted from
//! all observations before it is next used, starting from its previous fit
//! ([`crate::elastic::model::fit`]).

use std::collections::BTreeMap;

use crate::elastic::app::throughput::Unmeasured;
use crate::elastic::app::training::gain;
use crate::elastic::app::{split_batch, Application};
use crate::elastic::model::fit::{fit_from, Fitted, Observation};
use crate::elastic::model::{BatchLimits, Goodput, GradParams};
use crate::time::Millis;

/// One job of an elastic workload (a row of Pollux's workload CSV).
#[derive(Clone, Debug)]
pub struct ElasticJob {
    pub name: String,
    pub application: &'static Application,
    pub submit: Millis,
    /// GPUs the job asks for (the workload's `num_replicas`: what a rigid
    /// scheduler gives it).
    pub replicas: u32,
    /// Total batch size the job asks for (`batch_size`).
    pub batch_size: u32,
}

/// How a job chooses its batch size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchRule {
    /// This total batch, split over whatever GPUs it gets.
    Fixed(u32),
    /// The batch with the most goodput under the job's own model (Pollux's agent).
    Adaptive,
}

/// A job's state during a replay.
#[derive(Clone, Debug)]
pub(crate) struct Runtime {
    pub app: &'static Application,
    pub rule: BatchRule,
    /// Node of each GPU, in placement order (empty: no GPUs).
    pub gpus: Vec<u32>,
    /// GPUs per node, in placement order.
    pub placement: Vec<u32>,
    pub atomic_bsz: u32,
    pub accum_steps: u32,
    pub epoch: usize,
    pub progress: f64,
    /// Seconds of restart delay left.
    pub restart_left: f64,
    /// Re-allocations after the first (None before the first).
    pub restarts: Option<u32>,
    /// GPU-seconds held (restart delays included).
    pub gpu_seconds: f64,
    pub first_start: Option<Millis>,
    /// Completion, seconds since time 0.
    pub done_at: Option<f64>,
    observed: BTreeMap<(u32, u32, u32), (f64, f64)>,
    perf: Option<Fitted>,
    fitted_on: usize,
    pub grad: Option<GradParams>,
}

impl Runtime {
    pub fn new(app: &'static Application, rule: BatchRule) -> Runtime {
        Runtime {
            app,
            rule,
            gpus: Vec::new(),
            placement: Vec::new(),
            atomic_bsz: 0,
            accum_steps: 0,
            epoch: 0,
            progress: 0.0,
            restart_left: 0.0,
            restarts: None,
            gpu_seconds: 0.0,
            first_start: None,
            done_at: None,
            observed: BTreeMap::new(),
            perf: None,
            fitted_on: 0,
            grad: None,
        }
    }

    pub fn replicas(&self) -> u32 {
        self.gpus.len() as u32
    }

    /// The most GPUs this job has been observed on.
    pub fn max_observed_replicas(&self) -> u32 {
        self.observed.keys().map(|k| k.1).max().unwrap_or(0)
    }

    pub fn limits(&self) -> BatchLimits {
        let a = self.app;
        BatchLimits {
            init: a.init_batch_size,
            max: a.max_batch_size,
            min_local: a.min_local_bsz,
            max_local: a.max_local_bsz,
        }
    }

    /// The job's goodput model, refitted if it has observed something new;
    /// `None` before it has run.
    pub fn goodput(&mut self) -> Option<Goodput> {
        if self.observed.is_empty() {
            return None;
        }
        if self.perf.is_none() || self.fitted_on != self.observed.len() {
            let obs: Vec<Observation> = self
                .observed
                .iter()
                .map(|(&(nodes, replicas, b), &(step, sync))| Observation {
                    nodes,
                    replicas,
                    atomic_bsz: b as f64,
                    accum_time: step - sync,
                    optim_time: step,
                })
                .collect();
            self.perf = Some(fit_from(&obs, self.perf.as_ref()));
            self.fitted_on = self.observed.len();
        }
        Some(Goodput { perf: self.perf?.params, grad: self.grad?, limits: self.limits() })
    }

    /// Takes `gpus` (node per GPU, in placement order; empty: none) at
    /// `now`; with GPUs the restart delay starts and the batch is re-chosen.
    pub fn reallocate(&mut self, gpus: Vec<u32>, now: Millis, restart_delay_s: f64) -> Result<(), Unmeasured> {
        self.placement = runs(&gpus);
        self.gpus = gpus;
        if self.gpus.is_empty() {
            self.atomic_bsz = 0;
            return Ok(());
        }
        self.first_start.get_or_insert(now);
        self.restart_left = restart_delay_s;
        self.restarts = Some(self.restarts.map_or(0, |r| r + 1));
        self.choose_batch()
    }

    /// Re-chooses the per-GPU batch and accumulation steps for the current GPUs.
    pub fn choose_batch(&mut self) -> Result<(), Unmeasured> {
        let (r, n) = (self.replicas(), self.placement.len() as u32);
        if r == 0 {
            return Ok(());
        }
        let model = match self.rule {
            BatchRule::Fixed(_) => None,
            BatchRule::Adaptive => self.goodput(),
        };
        let (atomic, accum) = match (self.rule, model) {
            (BatchRule::Fixed(b), _) => split_batch(self.app, b, r),
            (BatchRule::Adaptive, None) => {
                split_batch(self.app, self.app.init_batch_size.max(self.app.min_local_bsz * r), r)
            }
            (BatchRule::Adaptive, Some(g)) => {
                let c = g.best(n, r);
                (c.atomic_bsz.min(self.app.max_batch_size / (r * (c.accum_steps + 1))), c.accum_steps)
            }
        };
        self.atomic_bsz = atomic;
        self.accum_steps = accum;
        Ok(())
    }

    /// Trains from `t0` for `dt` seconds, slowed by `interference` (0-1).
    pub fn advance(&mut self, t0: f64, dt: f64, interference: f64) -> Result<(), Unmeasured> {
        let r = self.replicas() as f64;
        if r == 0.0 || self.done_at.is_some() {
            return Ok(());
        }
        let wait = self.restart_left.min(dt);
        self.restart_left -= wait;
        self.gpu_seconds += wait * r;
        let (mut t, mut left) = (t0 + wait, dt - wait);
        while left > 0.0 && self.done_at.is_none() {
            let rate = self.rate(interference)?;
            let next = self.app.training.progress_at(self.epoch + 1);
            if self.progress + rate * left < next {
                self.progress += rate * left;
                self.gpu_seconds += left * r;
                left = 0.0;
            } else {
                let delta = ((next - self.progress) / rate).min(left);
                self.epoch += 1;
                if self.epoch >= self.app.training.epochs() {
                    self.done_at = Some(t + delta);
                }
                self.progress = next;
                self.gpu_seconds += delta * r;
                t += delta;
                left -= delta;
            }
            if self.done_at.is_none() {
                self.choose_batch()?;
            }
        }
        Ok(())
    }

    /// Progress per second now, observing the configuration as it runs.
    fn rate(&mut self, interference: f64) -> Result<f64, Unmeasured> {
        let (r, n) = (self.replicas(), self.placement.len() as u32);
        let batch = (r * self.atomic_bsz * (self.accum_steps + 1)) as f64;
        let (step, sync) = self.app.step_time(&self.placement, self.atomic_bsz as f64)?;
        let (sqr, var) = self.app.training.grad_stats(batch, self.epoch);
        self.grad = Some(GradParams { sqr, var });
        self.observed.entry((n, r, self.atomic_bsz)).or_insert((step, sync));
        let iteration = step + (step - sync) * self.accum_steps as f64;
        let scale = batch / self.app.init_batch_size as f64;
        Ok(gain(sqr, var, scale) / iteration * (1.0 - interference))
    }
}

/// GPUs per node from the node of each GPU: consecutive runs, in order
/// (`[3, 3, 0, 0, 0]` -> `[2, 3]`).
pub fn runs(gpus: &[u32]) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    for (i, g) in gpus.iter().enumerate() {
        if i > 0 && gpus[i - 1] == *g {
            *out.last_mut().expect("a run is open") += 1;
        } else {
            out.push(1);
        }
    }
    out
}
