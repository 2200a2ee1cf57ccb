//! `optimus`: Optimus (Peng et al., EuroSys'18) with an oracle, as Pollux's
//! evaluation ran it (OSDI'21 §5.3, "Optimus+Oracle+TunedJobs"): jobs keep
//! the total batch size the workload gives them, and GPUs go where they cut
//! the most remaining time.
//!
//! Every active job first gets one GPU (in submission order, while GPUs
//! last); then GPUs go one at a time to the job with the largest marginal
//! gain, the reduction of its iteration time from one more GPU times its
//! remaining iterations (ties to the earlier job), until no GPU is left or
//! no gain is positive. A job may grow until its per-GPU batch would fall
//! below the smallest measured (NCF: one GPU, as in the artifact).
//! Iteration times are the true measured ones (the oracle) on GPUs packed 4
//! to a node; remaining iterations come from the application's measured
//! training run at the job's batch size. A job whose GPU count is
//! unchanged keeps its GPUs; the others, fewest GPUs first, get GPUs from
//! the nodes with the most free GPUs ([`super::most_free_first`]).

use std::collections::HashMap;

use super::{free_gpus, most_free_first, Allocation, ElasticPolicy, JobView, Round};
use crate::elastic::app::{packed, Application};

#[derive(Debug, Default)]
pub struct Optimus {
    /// (application, batch, GPUs) -> predicted iteration seconds.
    memo: HashMap<(&'static str, u32, u32), f64>,
}

impl Optimus {
    pub fn new() -> Optimus {
        Optimus::default()
    }

    /// Iteration time on `replicas` packed GPUs at total batch `batch`,
    /// the per-GPU batch split as a fixed-batch job splits it (at least
    /// two accumulation steps on one GPU). Unmeasured configurations cost
    /// infinitely long.
    fn iteration_time(&mut self, app: &'static Application, batch: u32, replicas: u32) -> f64 {
        *self.memo.entry((app.name, batch, replicas)).or_insert_with(|| {
            let eps = 1e-8;
            let local = (batch as f64 / replicas as f64 - eps).ceil();
            let mut accum = ((local / app.max_local_bsz as f64 - eps).ceil() - 1.0).max(0.0) as u32;
            if replicas == 1 {
                accum = accum.max(1);
            }
            let atomic = (local / (accum + 1) as f64 - eps).ceil() as u32;
            let atomic = atomic.min(app.max_batch_size / (replicas * (accum + 1)));
            match app.step_time(&packed(replicas, 4), atomic as f64) {
                Ok((step, sync)) => step + (step - sync) * accum as f64,
                Err(_) => f64::INFINITY,
            }
        })
    }

    /// Iterations left to the end of training at the job's batch size.
    fn remaining(j: &JobView) -> f64 {
        let t = &j.application.training;
        let last = t.epochs() - 1;
        if last <= j.epoch {
            return 1.0;
        }
        t.iterations(j.batch_size as f64, last) - t.iterations(j.batch_size as f64, j.epoch)
    }

    fn max_replicas(j: &JobView) -> u32 {
        let app = j.application;
        if app.name == "ncf" {
            1
        } else {
            j.batch_size / app.min_local_bsz
        }
    }

    fn gain(&mut self, j: &JobView, replicas: u32, left: u32, remaining: f64) -> f64 {
        if replicas + 1 > Self::max_replicas(j) || left < 1 {
            return 0.0;
        }
        let (now, more) = (
            self.iteration_time(j.application, j.batch_size, replicas),
            self.iteration_time(j.application, j.batch_size, replicas + 1),
        );
        let g = (now - more) * remaining;
        if g.is_nan() {
            0.0
        } else {
            g
        }
    }

    /// GPUs per job: one each, then by largest marginal gain.
    fn counts(&mut self, round: &Round) -> Vec<u32> {
        let mut left: u32 = round.node_gpus.iter().sum();
        let n = round.jobs.len();
        let (mut count, mut gain) = (vec![0u32; n], vec![0.0f64; n]);
        let remaining: Vec<f64> = round.jobs.iter().map(Self::remaining).collect();
        for (i, j) in round.jobs.iter().enumerate() {
            if left < 1 {
                continue;
            }
            count[i] = 1;
            left -= 1;
            gain[i] = self.gain(j, 1, left, remaining[i]);
        }
        while left > 0 {
            let best = (0..n).fold(None, |b: Option<usize>, i| match b {
                Some(k) if gain[k] >= gain[i] => Some(k),
                _ => Some(i),
            });
            let Some(k) = best.filter(|&k| gain[k] > 0.0) else { break };
            count[k] += 1;
            gain[k] = self.gain(&round.jobs[k], count[k], left, remaining[k]);
            left -= 1;
        }
        count
    }
}

impl ElasticPolicy for Optimus {
    fn name(&self) -> &str {
        "optimus"
    }

    fn allocate(&mut self, round: &Round) -> Vec<Allocation> {
        let count = self.counts(round);
        let mut out: Vec<Allocation> = round
            .jobs
            .iter()
            .zip(&count)
            .map(|(j, &c)| Allocation {
                gpus: if j.gpus.len() as u32 == c { j.gpus.clone() } else { Vec::new() },
                batch: None,
            })
            .collect();
        let mut free = free_gpus(round.node_gpus, out.iter().flat_map(|a| a.gpus.iter().copied()));
        let mut order: Vec<usize> = (0..round.jobs.len()).collect();
        order.sort_by_key(|&i| count[i]);
        for i in order {
            if count[i] > 0 && out[i].gpus.is_empty() {
                out[i].gpus = most_free_first(&mut free, count[i]);
            }
        }
        out
    }
}
