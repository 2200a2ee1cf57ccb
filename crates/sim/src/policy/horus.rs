//! `horus`: Horus (Yeung et al., IEEE TPDS 2022), interference-aware and
//! prediction-based GPU sharing:
//! - each job's GPU utilization and memory are predicted at submission
//!   (Horus predicts from the model's computation graph; the traces have
//!   none, so here from earlier-finished jobs of the same key, as
//!   `sjf-predicted` predicts durations: `crate::sharing::predict`);
//! - waiting jobs are grouped by k-means (k = 3, Horus Sec 4; k-means++
//!   seeding and Lloyd's iterations of `tracelab_stats`) over their
//!   min-max scaled (GPUs, predicted utilization, predicted memory) into
//!   queues, refitted every `horus_refit` on the jobs then waiting; a job
//!   arriving between refits joins the queue of the nearest center;
//! - the queues are served by weighted fair queueing, each queue's weight
//!   its median wait x its length at the refit: the next job comes from the
//!   queue with the least GPUs started per unit of weight since the refit,
//!   in submission order within a queue;
//! - a job goes where its interference cost is least: a free GPU (no cost),
//!   else the occupied GPU whose planned utilization is lowest, and never
//!   where the planned utilizations would add up beyond
//!   `horus_util_threshold_pct`; jobs larger than one GPU take free GPUs.
//!
//! Co-located jobs share by time multiplexing (`ShareMode::Concurrent`).
//! Online services, if any, are placed first as by every sharing policy.
//! The traces record no task count per job (a PAI task's instances are in
//! its GPU demand), so the k-means features leave out Horus' task count.

use std::collections::BTreeSet;
use std::ops::Bound::{Excluded, Unbounded};

use crate::config::SimConfig;
use crate::job::{Job, JobId, Workload};
use crate::sharing::model::ShareMode;
use crate::sharing::policy::{GpuView, Round, SharingPolicy};
use crate::sharing::predict::{Predicted, UsagePredictor};
use crate::sharing::waitlist::{start_on_candidate, Frontier, Shape, WaitList, PROBES};
use crate::time::Millis;
use crate::usage::{JobClass, Usage};

/// Horus' number of queues.
const K: usize = 3;
/// Jobs a refit clusters at most (evenly spaced in submission order).
const FIT_SAMPLE: usize = 2048;
const DIM: usize = 3;

pub(crate) struct Horus {
    predictor: UsagePredictor,
    /// Prediction of each job, made at its first arrival.
    predicted: Vec<Option<Predicted>>,
    online: WaitList,
    queues: [BTreeSet<(Millis, JobId)>; K],
    queue_of: Vec<u8>,
    /// Centers in scaled units, with each feature's (min, max).
    centers: Vec<Vec<f64>>,
    scale: Vec<(f64, f64)>,
    weight: [f64; K],
    served: [f64; K],
    fresh: Vec<JobId>,
    next_refit: Millis,
    refit: Millis,
    threshold: f64,
    seed: u64,
    refits: u64,
}

impl Horus {
    pub(crate) fn new(cfg: &SimConfig, w: &Workload) -> Horus {
        let s = &cfg.sharing;
        let default = Predicted { util_pct: s.default_util_pct, mem_gib: s.default_mem_gib };
        Horus {
            predictor: UsagePredictor::new(cfg.predictor, w, default),
            predicted: vec![None; w.jobs.len()],
            online: WaitList::default(),
            queues: Default::default(),
            queue_of: vec![0; w.jobs.len()],
            centers: Vec::new(),
            scale: vec![(0.0, 0.0); DIM],
            weight: [1.0; K],
            served: [0.0; K],
            fresh: Vec::new(),
            next_refit: Millis::MIN,
            refit: s.horus_refit,
            threshold: s.horus_util_threshold_pct,
            seed: cfg.seed,
            refits: 0,
        }
    }

    fn raw(&self, job: &Job) -> [f64; DIM] {
        let p = self.predicted[job.id as usize].expect("predicted at arrival");
        [job.gpu_milli as f64 / 1000.0, p.util_pct, p.mem_gib]
    }

    /// The queue of the nearest center (ties: the lower queue), in the
    /// scaling of the last refit.
    fn queue_for(&self, job: &Job) -> usize {
        let raw = self.raw(job);
        let x: Vec<f64> = (0..DIM)
            .map(|d| {
                let (lo, hi) = self.scale[d];
                if hi > lo {
                    (raw[d] - lo) / (hi - lo)
                } else {
                    0.0
                }
            })
            .collect();
        let dist = |c: &Vec<f64>| c.iter().zip(&x).map(|(a, b)| (a - b) * (a - b)).sum::<f64>();
        let mut best = (f64::INFINITY, 0);
        for (q, c) in self.centers.iter().enumerate() {
            if dist(c) < best.0 {
                best = (dist(c), q);
            }
        }
        best.1
    }

    /// Refits the queues on the jobs waiting now: k-means on a sample,
    /// every waiting job to its nearest center, weights = median wait x
    /// length, the fair-queueing counts reset.
    fn refit(&mut self, r: &Round) {
        let waiting: Vec<(Millis, JobId)> = self.queues.iter().flat_map(|q| q.iter().copied()).collect();
        if waiting.is_empty() {
            return;
        }
        let step = waiting.len().div_ceil(FIT_SAMPLE);
        let mut sorted = waiting.clone();
        sorted.sort_unstable();
        let sample: Vec<[f64; DIM]> = sorted.iter().step_by(step).map(|&(_, j)| self.raw(r.job(j))).collect();
        let mut columns: Vec<Vec<f64>> = (0..DIM).map(|d| sample.iter().map(|x| x[d]).collect()).collect();
        self.scale = columns.iter_mut().map(|c| tracelab_stats::min_max_scale(c)).collect();
        let pts: Vec<f64> = (0..sample.len()).flat_map(|i| columns.iter().map(move |c| c[i])).collect();
        self.refits += 1;
        let init = tracelab_stats::kmeans_plus_plus(&pts, DIM, K, self.seed ^ self.refits);
        self.centers = tracelab_stats::lloyd(&pts, DIM, init, 50).centroids;
        self.queues = Default::default();
        for e in sorted {
            let q = self.queue_for(r.job(e.1));
            self.queue_of[e.1 as usize] = q as u8;
            self.queues[q].insert(e);
        }
        for q in 0..K {
            let mut waits: Vec<Millis> = self.queues[q].iter().map(|&(s, _)| r.now() - s).collect();
            waits.sort_unstable();
            let median = waits.get(waits.len() / 2).copied().unwrap_or(0) as f64;
            // A queue with no wait yet still gets a share (weight of 1 ms x its length).
            self.weight[q] = median.max(1.0) * waits.len().max(1) as f64;
        }
        self.served = [0.0; K];
    }

    /// Tries to start `job`: free GPU first, then the least planned
    /// occupied GPU within the threshold.
    fn place(&self, r: &mut Round, job: JobId) -> bool {
        let p = self.predicted[job as usize].expect("predicted").util_pct;
        if r.start_alone(job, p).is_ok() {
            return true;
        }
        let threshold = self.threshold;
        start_on_candidate(r, job, p, PROBES, |r, g| r.gpu(g).planned_util_pct + p <= threshold + 1e-9)
    }

    /// Takes a started job out of its queue, counting its GPUs as served.
    fn started(&mut self, r: &Round, job: JobId) {
        let q = self.queue_of[job as usize] as usize;
        let j = r.job(job);
        self.queues[q].remove(&(j.submit, job));
        self.served[q] += j.gpu_milli.div_ceil(1000) as f64;
    }

    /// Tries `job` unless the round's frontier says it cannot fit.
    fn attempt(&self, r: &mut Round, job: JobId, frontier: &mut Frontier) -> bool {
        let s = Shape::of(r, job, self.predicted[job as usize].expect("predicted").util_pct);
        if frontier.blocked(&s) {
            return false;
        }
        let ok = self.place(r, job);
        if !ok {
            frontier.failed(s);
        }
        ok
    }

    /// The fair-queueing walk over the queues.
    fn serve(&mut self, r: &mut Round) {
        let lookahead = r.config().lookahead as usize;
        let mut cursor: [Option<(Millis, JobId)>; K] = [None; K];
        let mut done = [false; K];
        let mut failures = 0;
        let mut frontier = Frontier::default();
        while failures < lookahead {
            let pick = (0..K)
                .filter(|&q| !done[q])
                .min_by(|&a, &b| (self.served[a] / self.weight[a]).total_cmp(&(self.served[b] / self.weight[b])));
            let Some(q) = pick else { break };
            let next = match cursor[q] {
                None => self.queues[q].first().copied(),
                Some(c) => self.queues[q].range((Excluded(c), Unbounded)).next().copied(),
            };
            let Some(e) = next else {
                done[q] = true;
                continue;
            };
            if self.attempt(r, e.1, &mut frontier) {
                self.started(r, e.1);
            } else {
                cursor[q] = Some(e);
                failures += 1;
            }
        }
    }
}

/// Occupied GPUs by planned utilization, lowest first.
fn least_planned(g: &GpuView) -> Option<i64> {
    Some((g.planned_util_pct * 1000.0).round() as i64)
}

impl SharingPolicy for Horus {
    fn mode(&self) -> ShareMode {
        ShareMode::Concurrent
    }

    fn gpu_key(&self) -> fn(&GpuView) -> Option<i64> {
        least_planned
    }

    fn arrive(&mut self, job: &Job, usage: &Usage, _now: Millis) {
        let i = job.id as usize;
        if self.predicted[i].is_none() {
            self.predicted[i] = Some(self.predictor.predict(job));
        }
        if usage.class == JobClass::Online {
            self.online.arrive(job, usage);
            return;
        }
        let q = self.queue_for(job);
        self.queue_of[i] = q as u8;
        self.queues[q].insert((job.submit, job.id));
        self.fresh.push(job.id);
    }

    fn finish(&mut self, job: &Job, usage: &Usage, _now: Millis) {
        self.predictor.record(job, usage);
    }

    fn round(&mut self, r: &mut Round) {
        if r.now() >= self.next_refit {
            self.refit(r);
            self.next_refit = r.now() + self.refit;
        }
        let predicted = &self.predicted;
        self.online.place_online(r, |_, j| predicted[j as usize].map_or(0.0, |p| p.util_pct));
        let fresh = std::mem::take(&mut self.fresh);
        if r.capacity_grew() {
            self.serve(r);
            return;
        }
        let mut frontier = Frontier::default();
        for job in fresh {
            let q = self.queue_of[job as usize] as usize;
            let submit = r.job(job).submit;
            if self.queues[q].contains(&(submit, job)) && self.attempt(r, job, &mut frontier) {
                self.started(r, job);
            }
        }
    }

    fn wake_at(&self, _now: Millis) -> Option<Millis> {
        self.queues.iter().any(|q| !q.is_empty()).then_some(self.next_refit)
    }
}
